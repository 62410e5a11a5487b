"""Matrix products: ``matmul`` (1-D, 2-D and batched with broadcasting), ``linear`` and
``einsum``."""

from __future__ import annotations

from ..autograd.function import Function, unbroadcast
from ..backend import xp_of


class Matmul(Function):
    """a @ b with NumPy's rules: a 1-D operand is treated as a row (left) or column
    (right) vector and that dim is dropped from the result; leading dims broadcast."""

    def forward(self, a, b):
        self.save_for_backward(a, b)
        return xp_of(a).matmul(a, b)

    def backward(self, grad):
        a, b = self.saved
        xp = xp_of(grad)
        # Put the dropped vector dims back so the 2-D formulas apply:
        #   dA = dC @ B^T,  dB = A^T @ dC
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        if b.ndim == 1:
            grad = grad[..., None]
        if a.ndim == 1:
            grad = grad[..., None, :]
        ga = gb = None
        if self.needs_input_grad[0]:
            ga = xp.matmul(grad, xp.swapaxes(b2, -1, -2))
            ga = unbroadcast(ga, a2.shape).reshape(a.shape)
        if self.needs_input_grad[1]:
            gb = xp.matmul(xp.swapaxes(a2, -1, -2), grad)
            gb = unbroadcast(gb, b2.shape).reshape(b.shape)
        return ga, gb


class Linear(Function):
    """y = x @ W^T + b, x of shape (..., in), W (out, in), b (out,).

    The weight gradient is one 2-D product over all leading dims folded together,
    which BLAS runs much faster than a batch of small ones."""

    def forward(self, x, weight, bias=None):
        self.save_for_backward(x, weight)
        # One 2-D product over the leading dims folded together: BLAS runs it 1.5-2x faster
        # than NumPy's loop of one product per leading index.
        y = x.reshape(-1, x.shape[-1]) @ weight.T  # (N, in) @ (in, out) -> (N, out)
        if bias is not None:
            y += bias
        return y.reshape(*x.shape[:-1], weight.shape[0])  # (..., out)

    def backward(self, grad):
        x, weight = self.saved
        gx = gw = gb = None
        if self.needs_input_grad[0]:
            gx = grad.reshape(-1, grad.shape[-1]) @ weight  # (N, out) @ (out, in) -> (N, in)
            gx = gx.reshape(x.shape)  # (..., in)
        if self.needs_input_grad[1]:
            g2 = grad.reshape(-1, grad.shape[-1])  # (N, out)
            gw = g2.T @ x.reshape(-1, x.shape[-1])  # (out, N) @ (N, in) -> (out, in)
        if len(self.needs_input_grad) > 2 and self.needs_input_grad[2]:
            gb = grad.reshape(-1, grad.shape[-1]).sum(axis=0)
        return gx, gw, gb


class Einsum(Function):
    """einsum("bhqd,bhkd->bhqk", q, k): ``inputs`` are the operands' letters (one per dim,
    "..." already spelled out), ``output`` the result's.

    The gradient for operand k is an einsum too: the output's gradient with every other
    operand, down to operand k's letters. Three things then give it operand k's shape:
    - a letter only operand k has was summed away in forward, so its gradient is the same
      all along it: it comes back by broadcasting;
    - a dim of size 1 that broadcast against a longer one elsewhere is summed back to 1
      (and a dim that met only size 1 elsewhere gets its gradient by broadcasting);
    - a letter twice in operand k ("ii" of a trace) read a diagonal, so the gradient is
      written onto that diagonal, zero elsewhere."""

    def forward(self, *operands, inputs=(), output=""):
        self.inputs, self.output = inputs, output
        self.save_for_backward(*operands)
        xp = xp_of(operands[0])
        out = xp.einsum(f"{','.join(inputs)}->{output}", *operands, optimize=True)
        if len(operands) == 1 and xp.may_share_memory(out, operands[0]):
            self.is_view = True  # "ij->ji", "ii->i": a view of the operand, as in PyTorch
        return out

    def backward(self, grad):
        operands = self.saved
        xp = xp_of(grad)
        grads = []
        for k, (letters, operand) in enumerate(zip(self.inputs, operands)):
            if not self.needs_input_grad[k]:
                grads.append(None)
                continue
            others = [j for j in range(len(operands)) if j != k]
            reachable = set(self.output).union(*(self.inputs[j] for j in others))
            unique = "".join(dict.fromkeys(letters))  # each letter once, in order
            kept = "".join(c for c in unique if c in reachable)
            spec = ",".join([self.output] + [self.inputs[j] for j in others]) + "->" + kept
            g = xp.einsum(spec, grad, *[operands[j] for j in others], optimize=True)
            size = dict(zip(letters, operand.shape))
            stretched = tuple(i for i, c in enumerate(kept) if size[c] == 1 and g.shape[i] != 1)
            if stretched:
                g = g.sum(axis=stretched, keepdims=True)
            g = g.reshape([g.shape[kept.index(c)] if c in reachable else 1 for c in unique])
            g = xp.broadcast_to(g, [size[c] for c in unique])  # (1s stretch to full size)
            if len(unique) < len(letters):
                g = _onto_diagonal(g, letters, unique, operand.shape)
            grads.append(g)
        return tuple(grads)


def _onto_diagonal(g, letters, unique, shape):
    """An array of ``shape`` (dims named by ``letters``, some repeated) holding ``g`` (dims
    named by ``unique``) where the repeated letters' indices are equal, zero elsewhere."""
    xp = xp_of(g)
    out = xp.zeros(shape, dtype=g.dtype)
    index = tuple(
        xp.arange(n).reshape([-1 if u == c else 1 for u in unique]) for c, n in zip(letters, shape)
    )
    out[index] = g
    return out
