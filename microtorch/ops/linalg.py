"""Matrix products: ``matmul`` (1-D, 2-D and batched with broadcasting), ``linear`` and
``einsum``."""

from __future__ import annotations

import math

import numpy  # (for numpy.linalg.LinAlgError, which CuPy raises too)

from ..autograd.function import Function, unbroadcast
from ..backend import xp_of


def matmul_arrays(a, b, add=None):
    """a @ b (+ ``add``, a bias) of raw arrays. NumPy has no BLAS product for float16 (its
    own loop is ~50x slower than float32's); PyTorch's CPU kernel multiplies float16 in
    float32, adds a linear layer's bias there too, and rounds the result once, and so does
    this (the same numbers as PyTorch's). CuPy's float16 products already accumulate in
    float32 (cuBLAS)."""
    xp = xp_of(a)
    if a.dtype == xp.float16 and xp.__name__ == "numpy":
        out = xp.matmul(a.astype(xp.float32), b.astype(xp.float32))
        if add is not None:
            out += add
        return out.astype(xp.float16)
    out = xp.matmul(a, b)
    if add is not None:
        out += add
    return out


class Matmul(Function):
    """a @ b with NumPy's rules: a 1-D operand is treated as a row (left) or column
    (right) vector and that dim is dropped from the result; leading dims broadcast."""

    def forward(self, a, b):
        # dA needs B and dB needs A: each is kept only if the other's gradient is wanted, as
        # in PyTorch (x @ frozen_w, then x changed in place, still has a backward)
        self.shapes = a.shape, b.shape
        self.save_for_backward(
            a if self.needs_input_grad[1] else None, b if self.needs_input_grad[0] else None
        )
        return matmul_arrays(a, b)

    def backward(self, grad):
        a, b = self.saved
        a_shape, b_shape = self.shapes
        xp = xp_of(grad)
        # Put the dropped vector dims back so the 2-D formulas apply:
        #   dA = dC @ B^T,  dB = A^T @ dC
        a2_shape = (1,) + a_shape if len(a_shape) == 1 else a_shape
        b2_shape = b_shape + (1,) if len(b_shape) == 1 else b_shape
        if len(b_shape) == 1:
            grad = grad[..., None]
        if len(a_shape) == 1:
            grad = grad[..., None, :]
        ga = gb = None
        if self.needs_input_grad[0]:
            ga = matmul_arrays(grad, xp.swapaxes(b.reshape(b2_shape), -1, -2))
            ga = unbroadcast(ga, a2_shape).reshape(a_shape)
        if self.needs_input_grad[1]:
            gb = matmul_arrays(xp.swapaxes(a.reshape(a2_shape), -1, -2), grad)
            gb = unbroadcast(gb, b2_shape).reshape(b_shape)
        return ga, gb


class Linear(Function):
    """y = x @ W^T + b, x of shape (..., in), W (out, in), b (out,).

    The weight gradient is one 2-D product over all leading dims folded together,
    which BLAS runs much faster than a batch of small ones."""

    def forward(self, x, weight, bias=None):
        # dx needs W and dW needs x: each is kept only if the other's gradient is wanted
        self.x_shape = x.shape
        self.save_for_backward(
            x if self.needs_input_grad[1] else None, weight if self.needs_input_grad[0] else None
        )
        # One 2-D product over the leading dims folded together: BLAS runs it 1.5-2x faster
        # than NumPy's loop of one product per leading index.
        y = matmul_arrays(_rows(x), weight.T, bias)  # (N, in) @ (in, out) + (out,)
        return y.reshape(*x.shape[:-1], weight.shape[0])  # (..., out)

    def backward(self, grad):
        x, weight = self.saved
        gx = gw = gb = None
        g2 = _rows(grad)  # (N, out)
        if self.needs_input_grad[0]:
            gx = matmul_arrays(g2, weight).reshape(self.x_shape)  # (N, out) @ (out, in) -> (N, in)
        if self.needs_input_grad[1]:
            gw = matmul_arrays(g2.T, _rows(x))  # (out, N) @ (N, in) -> (out, in)
        if len(self.needs_input_grad) > 2 and self.needs_input_grad[2]:
            gb = g2.sum(axis=0)
        return gx, gw, gb


def _rows(a):
    """``a`` (..., n) as a matrix (N, n), N the product of the leading dims (spelled out:
    reshape(-1, n) fails on an empty array when n is 0)."""
    return a.reshape(math.prod(a.shape[:-1]), a.shape[-1])


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
        # operand j is read by the gradient of every other operand: it is kept only if one
        # of those gradients is wanted (as in PyTorch, for einsum(x, frozen_w) then x += 1)
        self.shapes, needs = tuple(op.shape for op in operands), self.needs_input_grad
        wanted = [any(n for k, n in enumerate(needs) if k != j) for j in range(len(operands))]
        self.save_for_backward(*(op if w else None for op, w in zip(operands, wanted)))
        xp = xp_of(operands[0])
        out = xp.einsum(f"{','.join(inputs)}->{output}", *operands, optimize=True)
        if len(operands) == 1 and xp.may_share_memory(out, operands[0]):
            self.is_view = True  # "ij->ji", "ii->i": a view of the operand, as in PyTorch
        return out

    def backward(self, grad):
        operands = self.saved
        xp = xp_of(grad)
        grads = []
        for k, (letters, shape) in enumerate(zip(self.inputs, self.shapes)):
            if not self.needs_input_grad[k]:
                grads.append(None)
                continue
            others = [j for j in range(len(operands)) if j != k]
            reachable = set(self.output).union(*(self.inputs[j] for j in others))
            unique = "".join(dict.fromkeys(letters))  # each letter once, in order
            kept = "".join(c for c in unique if c in reachable)
            spec = ",".join([self.output] + [self.inputs[j] for j in others]) + "->" + kept
            g = xp.einsum(spec, grad, *[operands[j] for j in others], optimize=True)
            size = dict(zip(letters, shape))
            stretched = tuple(i for i, c in enumerate(kept) if size[c] == 1 and g.shape[i] != 1)
            if stretched:
                g = g.sum(axis=stretched, keepdims=True)
            g = g.reshape([g.shape[kept.index(c)] if c in reachable else 1 for c in unique])
            g = xp.broadcast_to(g, [size[c] for c in unique])  # (1s stretch to full size)
            if len(unique) < len(letters):
                g = _onto_diagonal(g, letters, unique, shape)
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


# ---------------------------------------------------------------- matrix functions
# The classic gradient formulas of linear algebra, on batches of matrices in the last two
# dims (NumPy's and CuPy's linalg functions batch over the leading ones). _mT(a) is the
# transpose of every matrix, "A^-T" the transpose of A's inverse.
#
# A decomposition with several outputs (qr, eigh, svd) is computed once by its caller in
# microtorch/linalg.py and handed to one node per output (QrQ and QrR, EighValues and
# EighVectors...), which returns it and adds its own share of dA: the gradient of A is
# linear in the outputs' gradients, so the shares add up to the whole. Each returns a copy,
# so that an in-place change to one output cannot alter what the other nodes saved.


def _mT(a):
    return xp_of(a).swapaxes(a, -1, -2)


def _solve(a, b):
    """X with a @ X = b, for a (..., n, n) and b (..., n, k) whose batch dims broadcast.
    NumPy refuses a matrix whose LU has a zero pivot (or a nan): the batch is then solved by
    the LU written out here, whose divisions by zero give inf and nan, as LAPACK's getrs
    (PyTorch's) and CuPy's solve do; the callers that must raise check for themselves."""
    a, b = _broadcast_batches(a, b)
    try:
        return xp_of(a).linalg.solve(a, b)
    except numpy.linalg.LinAlgError:
        lu, pivots, _ = lu_factor_arrays(a)
        p_t = _mT(permutation_matrix(pivots, a.shape[-1], a.dtype))
        y = _substitute(lu, p_t @ b, upper=False, unit=True)
        return _substitute(lu, y, upper=True, unit=False)


def _solve_triangle(t, b, upper, unit=False):
    """X with T X = b for T the upper (or lower) triangle of t, its diagonal taken as ones
    when unit, batch dims broadcast. A general solve would turn an inf in b or T into nan
    (and refuses a zero on T's diagonal), so then X comes by substitution, whose inf and nan
    are those of BLAS's trsm (PyTorch's). (Deciding that reads one bool back from a GPU.)"""
    xp = xp_of(t)
    t = xp.triu(t) if upper else xp.tril(t)
    if unit:
        t = xp.where(xp.eye(t.shape[-1], dtype=bool), xp.ones((), dtype=t.dtype), t)
    t, b = _broadcast_batches(t, b)
    diagonal = xp.diagonal(t, 0, -2, -1)
    if bool(xp.isfinite(t).all() & xp.isfinite(b).all() & (diagonal != 0).all()):
        try:
            return xp.linalg.solve(t, b)
        except numpy.linalg.LinAlgError:
            pass
    return _substitute(t, b, upper=upper, unit=False)


def _broadcast_batches(a, b):
    """a (..., n, n) and b (..., n, k) with their batch dims broadcast (CuPy's solve wants
    them equal)."""
    xp = xp_of(a)
    batch = xp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return xp.broadcast_to(a, batch + a.shape[-2:]), xp.broadcast_to(b, batch + b.shape[-2:])


def _inverse(a):
    """a^-1 for a (..., n, n); inf and nan for a singular matrix, as _solve."""
    xp = xp_of(a)
    try:
        return xp.linalg.inv(a)
    except numpy.linalg.LinAlgError:
        return _solve(a, xp.eye(a.shape[-1], dtype=a.dtype))


def _substitute(t, b, upper, unit):
    """X with T X = b by substitution, T the upper or lower triangle of t (..., n, n), its
    diagonal taken as ones when unit (L of a packed LU), one row of X at a time for the whole
    batch (b's batch dims t's); a zero on T's diagonal gives inf and nan (no check, as
    LAPACK's trsm)."""
    n = t.shape[-1]
    x = b.copy()
    for i in range(n - 1, -1, -1) if upper else range(n):
        known = slice(i + 1, n) if upper else slice(0, i)  # the rows of X already found
        x[..., i, :] -= (t[..., i : i + 1, known] @ x[..., known, :])[..., 0, :]
        if not unit:
            x[..., i, :] /= t[..., i, i, None]
    return x


def _times_inverse_transpose(y, r):
    """y @ r^-T, for square invertible r: the transpose of r^-1 @ y^T."""
    return _mT(_solve(r, _mT(y)))


def _adjugate(a):
    """adj(A), which is det(A) A^-1 where A is invertible, for singular A too: from the SVD
    A = U diag(s) Vh, adj(A) = det(U) det(Vh) V diag(p) U^T with p[i] the product of all
    singular values but s[i] (det(S) S^-1 without dividing)."""
    xp = xp_of(a)
    u, s, vh = xp.linalg.svd(a)
    ones = xp.ones_like(s[..., :1])
    before = xp.cumprod(xp.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)  # s[:i]
    after = xp.cumprod(xp.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    signs = xp.linalg.det(u) * xp.linalg.det(vh)  # each +1 or -1
    return signs[..., None, None] * ((_mT(vh) * (before * after)[..., None, :]) @ _mT(u))


class Det(Function):
    """det(A) of each matrix. d det(A) = tr(adj(A) dA), so dA = g adj(A)^T (= g det(A)
    A^-T where A is invertible; the adjugate also gives singular A its gradient)."""

    def forward(self, a):
        self.save_for_backward(a)
        return xp_of(a).asarray(xp_of(a).linalg.det(a))

    def backward(self, grad):
        (a,) = self.saved
        return grad[..., None, None] * _mT(_adjugate(a))


class DetSign(Function):
    """The sign of det A, the first output of slogdet (computed by the caller, passed as
    ``value``): constant where it is defined, so its gradient is 0, as in PyTorch."""

    def forward(self, a, value=None):
        self.shape, self.dtype = a.shape, a.dtype
        return value

    def backward(self, grad):
        return xp_of(grad).zeros(self.shape, dtype=self.dtype)


class LogAbsDet(Function):
    """log|det A|, the second output of slogdet (computed with the sign by the caller and
    passed as ``value``). d log|det A| = tr(A^-1 dA), so dA = g A^-T."""

    def forward(self, a, value=None):
        self.save_for_backward(a)
        return value

    def backward(self, grad):
        (a,) = self.saved
        return grad[..., None, None] * _mT(_inverse(a))  # (inf and nan for singular A)


class Inv(Function):
    """A^-1. From A A^-1 = I: d(A^-1) = -A^-1 dA A^-1, so dA = -A^-T g A^-T."""

    def forward(self, a):
        y = _inverse(a)
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        return -(_mT(y) @ grad @ _mT(y))


class Solve(Function):
    """X = A^-1 B for A (..., n, n) and B (..., n, k), batch dims broadcast. From
    A dX = dB - dA X: dB = A^-T g and dA = -dB X^T, each summed back to its input's shape."""

    def forward(self, a, b):
        self.b_shape = b.shape
        x = _solve(a, b)
        self.save_for_backward(a, x)
        return x

    def backward(self, grad):
        a, x = self.saved
        gb = _solve(_mT(a), grad)
        ga = unbroadcast(-(gb @ _mT(x)), a.shape) if self.needs_input_grad[0] else None
        return ga, unbroadcast(gb, self.b_shape)


class SolveTriangular(Function):
    """X = T^-1 B for T the upper (or lower) triangle of a (..., n, n), its diagonal taken as
    ones when unitriangular (a's own is never read), and B (..., n, k), batch dims broadcast.
    From T dX = dB - dT X: dB = T^-T g (T^T: the other triangle) and dT = -dB X^T, kept to
    the entries the forward reads (the triangle, without the diagonal when unitriangular)."""

    def forward(self, a, b, upper=True, unitriangular=False):
        self.upper, self.unit, self.b_shape = upper, unitriangular, b.shape
        x = _solve_triangle(a, b, upper, unitriangular)
        self.save_for_backward(a, x)
        return x

    def backward(self, grad):
        a, x = self.saved
        xp = xp_of(a)
        gb = _solve_triangle(_mT(a), grad, not self.upper, self.unit)
        ga = None
        if self.needs_input_grad[0]:
            full = -(gb @ _mT(x))
            if self.upper:
                ga = xp.triu(full, 1 if self.unit else 0)
            else:
                ga = xp.tril(full, -1 if self.unit else 0)
            ga = unbroadcast(ga, a.shape)
        return ga, unbroadcast(gb, self.b_shape)


class Cholesky(Function):
    """L lower triangular with A = L L^T, for A symmetric positive-definite (only its lower
    triangle is read). dA = dL L^T + L dL^T gives L^-1 dA L^-T = X + X^T with X = L^-1 dL
    lower triangular, so X = Phi(L^-1 dA L^-T), Phi keeping the lower triangle with the
    diagonal halved. Then dA = L^-T Phi(L^T g) L^-1, made symmetric (A is)."""

    def forward(self, a):
        low = xp_of(a).linalg.cholesky(a)
        self.save_for_backward(low)
        return low

    def backward(self, grad):
        (low,) = self.saved
        xp = xp_of(low)
        m = _mT(low) @ grad
        phi = xp.tril(m) - 0.5 * xp.triu(xp.tril(m))  # (triu of tril: the diagonal)
        ga = _times_inverse_transpose(_solve(_mT(low), phi), _mT(low))  # L^-T phi L^-1
        return 0.5 * (ga + _mT(ga))


class CholeskySolve(Function):
    """X = A^-1 B for A = L L^T given L (A = U^T U given U when upper), reading only that
    triangle. As A is symmetric, dB = A^-1 g, and dA = -dB X^T; through A = L L^T that is
    dL = -(dB X^T + X dB^T) L, with L as given (PyTorch's formula: entries off the triangle
    get a gradient too, though the forward ignores them), and dU = -U (dB X^T + X dB^T)."""

    def forward(self, b, l, upper=False):
        xp = xp_of(l)
        low = _mT(xp.triu(l)) if upper else xp.tril(l)
        x = _solve_triangle(_mT(low), _solve_triangle(low, b, False), True)
        self.upper, self.b_shape = upper, b.shape
        self.save_for_backward(l, low, x)
        return x

    def backward(self, grad):
        l, low, x = self.saved
        gb = _solve_triangle(_mT(low), _solve_triangle(low, grad, False), True)
        gl = None
        if self.needs_input_grad[1]:
            both = gb @ _mT(x)
            both = both + _mT(both)
            gl = unbroadcast(-(l @ both) if self.upper else -(both @ l), l.shape)
        return unbroadcast(gb, self.b_shape), gl


def cholesky_arrays(a):
    """LAPACK's potf2 column by column on the whole batch: (l, info) for symmetric a
    (..., n, n), reading its lower triangle. At column j, d = a[j, j] - |l[j, :j]|^2; if
    d > 0, l[j, j] = sqrt(d) and l[j+1:, j] = (a[j+1:, j] - l[j+1:, :j] l[j, :j]) / l[j, j].
    A matrix whose d is not positive (or nan) stops there: info = j + 1, l[j, j] = d, and
    the columns after it keep a's lower triangle; info is 0 for the others."""
    xp = xp_of(a)
    *batch, n, _ = a.shape
    low = xp.tril(a.reshape(math.prod(batch), n, n))
    info = xp.zeros(low.shape[0], dtype=xp.int32)
    for j in range(n):
        going = info == 0
        d = low[:, j, j] - (low[:, j, :j] ** 2).sum(-1)
        fails = going & ~(d > 0)
        info = xp.where(fails, j + 1, info)
        ok = going & ~fails
        root = xp.sqrt(xp.where(ok, d, 1))
        inner = (low[:, j + 1 :, :j] @ low[:, j, :j, None])[..., 0]  # l[j+1:, :j] l[j, :j]
        column = (low[:, j + 1 :, j] - inner) / root[:, None]
        low[:, j + 1 :, j] = xp.where(ok[:, None], column, low[:, j + 1 :, j])
        low[:, j, j] = xp.where(ok, root, xp.where(fails, d, low[:, j, j]))
    return low.reshape(a.shape), info.reshape(batch)


# ---------------------------------------------------------------- LU factorisation
def lu_factor_arrays(a, pivot=True):
    """LAPACK's getrf, by Gaussian elimination column by column, each step on the whole
    batch at once: (lu, pivots, info) for a (..., m, n). lu packs L (unit lower triangular,
    its ones not stored) below the diagonal and U on and above it, with P^T A = L U; pivots
    (..., k) int32, k = min(m, n), are 1-based: at step j row j was swapped with row
    pivots[j] (the row of the largest |entry| in column j, the first of ties); info is j + 1
    for the first zero U[j, j], else 0. Without pivot, no rows are swapped."""
    xp = xp_of(a)
    *batch, m, n = a.shape
    k = min(m, n)
    lu = a.reshape(math.prod(batch), m, n).copy()
    rows = xp.arange(lu.shape[0])
    pivots = xp.zeros((lu.shape[0], k), dtype=xp.int32)
    info = xp.zeros(lu.shape[0], dtype=xp.int32)
    for j in range(k):
        p = j + xp.argmax(xp.abs(lu[:, j:, j]), axis=1) if pivot else xp.full_like(rows, j)
        top = lu[rows, j].copy()
        lu[rows, j] = lu[rows, p]
        lu[rows, p] = top
        pivots[:, j] = p + 1
        d = lu[:, j, j]
        zero = d == 0
        info = xp.where((info == 0) & zero, j + 1, info)
        # the multipliers L[i, j] = A[i, j] / U[j, j] (left as they are for a zero pivot,
        # whose column is then zero below it too), then the rank-1 update of the rest
        lu[:, j + 1 :, j] /= xp.where(zero, 1, d)[:, None]
        lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j, None] * lu[:, j, None, j + 1 :]
    return lu.reshape(a.shape), pivots.reshape(*batch, k), info.reshape(batch)


def permutation_matrix(pivots, m, dtype):
    """P (..., m, m) with A = P L U from LAPACK's 1-based pivots (..., k): the row swaps
    applied in order to 0..m-1 give perm, with (P^T A)[i] = A[perm[i]], so P[perm[i], i] = 1."""
    xp = xp_of(pivots)
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    swaps = pivots.reshape(math.prod(batch), k).astype(xp.int64) - 1
    perm = xp.broadcast_to(xp.arange(m), (swaps.shape[0], m)).copy()
    rows = xp.arange(perm.shape[0])
    for j in range(k):
        here, there = perm[:, j].copy(), perm[rows, swaps[:, j]]
        perm[:, j] = there
        perm[rows, swaps[:, j]] = here
    p = xp.zeros((perm.shape[0], m, m), dtype=dtype)
    p[rows[:, None], perm, xp.arange(m)] = 1
    return p.reshape(*batch, m, m)


class LuFactor(Function):
    """The packed LU of A = P L U (computed by the caller with lu_factor_arrays and passed
    as ``lu``, with ``pivots``). Its gradient g splits into gL = g below the diagonal and
    gU = g on and above it. For square A, P^T dA = dL U + L dU, so X = L^-1 P^T dA U^-1 =
    L^-1 dL + dU U^-1, the first part strictly lower and the second upper triangular:
        dA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T.
    A wide A = P L [U1 | U2] adds U2 = L^-1 P^T A2 (gA2 = P L^-T gU2, and -gU2 U2^T inside
    the tril); a tall P^T A = [L1; L2] U adds L2 = A2 U^-1 (gA2 = P gL2 U^-T, and -L2^T gL2
    inside the triu)."""

    def forward(self, a, lu=None, pivots=None):
        self.save_for_backward(lu, pivots)
        return lu.copy()

    def backward(self, grad):
        lu, pivots = self.saved
        xp = xp_of(lu)
        m, n = lu.shape[-2:]
        k = min(m, n)
        low = xp.tril(lu[..., :k, :k], -1) + xp.eye(k, dtype=lu.dtype)  # L1
        up = xp.triu(lu[..., :k, :k])  # U1
        gl, gu = xp.tril(grad, -1), xp.triu(grad)
        low2, up2 = xp.tril(lu, -1)[..., k:, :k], lu[..., :k, k:]  # L2 (tall), U2 (wide)
        gl2, gu2 = gl[..., k:, :k], gu[..., :k, k:]
        inner = xp.tril(_mT(low) @ gl[..., :k, :k] - gu2 @ _mT(up2), -1)
        inner = inner + xp.triu(gu[..., :k, :k] @ _mT(up) - _mT(low2) @ gl2)
        top = _solve(_mT(low), xp.concatenate([_times_inverse_transpose(inner, up), gu2], -1))
        if m > n:  # the rows of L2
            top = xp.concatenate([top, _times_inverse_transpose(gl2, up)], -2)
        return permutation_matrix(pivots, m, lu.dtype) @ top


def householder_qr_arrays(a):
    """LAPACK's geqrf (unblocked, as geqr2) on the whole batch: (a', tau) for a (..., m, n).
    At column j, with alpha = a[j, j] and x below it: beta = -sign(alpha) |(alpha, x)|,
    tau = (beta - alpha) / beta and v = [1, x / (alpha - beta)], so H = I - tau v v^T maps
    the column to (beta, 0, ..., 0); beta goes on the diagonal, v's tail below it, and H is
    applied to the columns to the right. A column with x = 0 is left alone (tau = 0)."""
    xp = xp_of(a)
    *batch, m, n = a.shape
    k = min(m, n)
    out = a.reshape(math.prod(batch), m, n).copy()
    tau = xp.zeros((out.shape[0], k), dtype=a.dtype)
    for j in range(k):
        alpha, x = out[:, j, j], out[:, j + 1 :, j]
        xnorm = xp.sqrt((x * x).sum(-1))
        still = xnorm == 0
        beta = -xp.copysign(xp.sqrt(alpha * alpha + xnorm * xnorm), alpha)
        beta = xp.where(still, alpha, beta)
        t = xp.where(still, 0, (beta - alpha) / xp.where(still, 1, beta))
        v = xp.where(still[:, None], 0, x / xp.where(still, 1, alpha - beta)[:, None])
        out[:, j, j], out[:, j + 1 :, j], tau[:, j] = beta, v, t
        rest = out[:, j:, j + 1 :]  # H rest = rest - tau v (v^T rest)
        full = xp.concatenate([xp.ones((v.shape[0], 1), dtype=v.dtype), v], axis=1)
        rest -= t[:, None, None] * full[:, :, None] * (full[:, None, :] @ rest)
    return out.reshape(a.shape), tau.reshape(*batch, k)


def _qr_backward(shape, q, r, gq, gr):
    """dA from the gradients of Q and R of a reduced A = QR (A of ``shape``, m x n matrices,
    k = min(m, n)); only Q and R are read, so A may change in place after qr, as in PyTorch.

    m >= n: R is square. With C = Q^T dQ (antisymmetric) and dR R^-1 upper triangular,
    Q^T dA R^-1 = C + dR R^-1 fixes C by its lower triangle; it comes out as
        dA = (gQ + Q copyltu(M)) R^-T,  M = R gR^T - gQ^T Q,
    copyltu(M) the symmetric matrix with M's lower triangle.
    m < n: A = [X | Y] with X = Q U square and Y = Q V: gY = Q gV, and X takes the square
    formula with gQ + Y gV^T (Y = Q V reads Q too)."""
    m, n = shape[-2:]
    xp = xp_of(q)
    if q.shape[-1] != min(m, n):
        raise RuntimeError(
            "linalg.qr: the QR decomposition is not differentiable when mode='complete' and A "
            f"has more rows than columns (shape {tuple(shape)}), as in PyTorch; use "
            "mode='reduced'"
        )
    if m < n:
        y, gv = q @ r[..., m:], gr[..., m:]  # Y = Q V
        square = (*shape[:-1], m)
        gx = _qr_backward(square, q, r[..., :m], gq + y @ _mT(gv), gr[..., :m])
        return xp.concatenate([gx, q @ gv], axis=-1)
    mm = r @ _mT(gr) - _mT(gq) @ q
    copyltu = xp.tril(mm) + _mT(xp.tril(mm, -1))
    return _times_inverse_transpose(gq + q @ copyltu, r)


class QrQ(Function):
    """Q of A = QR (Q and R computed by the caller): dA from Q's gradient alone."""

    def forward(self, a, q=None, r=None):
        self.shape = a.shape
        self.save_for_backward(q, r)
        return q.copy()

    def backward(self, grad):
        q, r = self.saved
        return _qr_backward(self.shape, q, r, grad, xp_of(r).zeros_like(r))


class QrR(Function):
    """R of A = QR (Q and R computed by the caller): dA from R's gradient alone."""

    def forward(self, a, q=None, r=None):
        self.shape = a.shape
        self.save_for_backward(q, r)
        return r.copy()

    def backward(self, grad):
        q, r = self.saved
        return _qr_backward(self.shape, q, r, xp_of(q).zeros_like(q), grad)


def _eigen_gaps(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (w's values distinct)."""
    xp = xp_of(w)
    gaps = w[..., None, :] - w[..., :, None]
    on_diagonal = xp.eye(w.shape[-1], dtype=bool)
    return 1 / xp.where(on_diagonal, xp.inf, gaps)


class EighValues(Function):
    """The eigenvalues w of a symmetric A = V diag(w) V^T (w, V computed by the caller).
    dw = diag(V^T dA V), so dA = V diag(g) V^T."""

    def forward(self, a, values=None, vectors=None):
        self.save_for_backward(vectors)
        return values.copy()

    def backward(self, grad):
        (v,) = self.saved
        return (v * grad[..., None, :]) @ _mT(v)


class EighVectors(Function):
    """The eigenvectors V of a symmetric A = V diag(w) V^T, for distinct eigenvalues.
    dV = V (F * (V^T dA V)) with F[i, j] = 1 / (w[j] - w[i]) (0 on the diagonal), so
    dA = V (F * (V^T g)) V^T; as A is symmetric, so is dA (PyTorch's): its symmetric part,
    V (F * skew(V^T g)) V^T with skew(M) = (M - M^T) / 2 (F is antisymmetric)."""

    def forward(self, a, values=None, vectors=None):
        self.save_for_backward(values, vectors)
        return vectors.copy()

    def backward(self, grad):
        w, v = self.saved
        vt_g = _mT(v) @ grad
        return v @ (_eigen_gaps(w) * (0.5 * (vt_g - _mT(vt_g)))) @ _mT(v)


class PartialEighVectors(Function):
    """k of the eigenvectors X (..., n, k) of a symmetric A (computed by the caller, e.g. by
    lobpcg, with their eigenvalues w), each for a simple eigenvalue. With the others unknown,
    dx_i = -(A - w_i I)^+ dA x_i, so dA = -sum_i (A - w_i I)^+ g_i x_i^T. The pseudo-inverse
    on g_i is M_i^-1 (g_i - x_i x_i^T g_i) with M_i = A - w_i I + x_i x_i^T (invertible:
    it keeps x_i and acts as A - w_i I on the rest)."""

    def forward(self, a, values=None, vectors=None):
        self.save_for_backward(a, values, vectors)
        return vectors.copy()

    def backward(self, grad):
        a, w, x = self.saved
        xp = xp_of(a)
        n = a.shape[-1]
        xi = _mT(x)[..., :, :, None]  # (..., k, n, 1): each x_i as a column
        shifted = a[..., None, :, :] - w[..., :, None, None] * xp.eye(n, dtype=a.dtype)
        shifted = shifted + xi @ _mT(xi)
        gi = _mT(grad)[..., :, :, None]
        y = _solve(shifted, gi - xi @ (_mT(xi) @ gi))[..., 0]  # (..., k, n): the y_i
        return -(_mT(y) @ _mT(x))


def _svd_backward(u, s, vh, gu, gs, gvh):
    """dA from the gradients of A = U diag(S) Vh (A m x n, k = min(m, n); with
    full_matrices only the first k columns of U and rows of Vh take part), for distinct
    nonzero singular values. With F[i, j] = 1 / (s[j]^2 - s[i]^2) (0 on the diagonal),
    V = Vh^T, gV = gVh^T (Townsend, "Differentiating the singular value decomposition"):
        dA = U [diag(gS) + (F * (U^T gU - gU^T U)) S + S (F * (V^T gV - gV^T V))] Vh
             + (I - U U^T) gU S^-1 Vh + U S^-1 gVh (I - V Vh)."""
    k = s.shape[-1]
    u, gu, vh, gvh = u[..., :k], gu[..., :k], vh[..., :k, :], gvh[..., :k, :]
    f = _eigen_gaps(s * s)
    ut_gu, vh_gv = _mT(u) @ gu, vh @ _mT(gvh)  # U^T gU and V^T gV
    inner = f * (ut_gu - _mT(ut_gu)) * s[..., None, :] + s[..., :, None] * (
        f * (vh_gv - _mT(vh_gv))
    )
    inner = inner + gs[..., None, :] * xp_of(s).eye(k, dtype=s.dtype)
    ga = u @ inner @ vh
    # the last two terms are zero when U (or V) is square, I - U U^T = 0: left out, so that
    # a zero singular value of a square A does not turn them into 0 / 0 (as in PyTorch)
    if u.shape[-2] > k:
        ga = ga + ((gu - u @ ut_gu) / s[..., None, :]) @ vh  # (I - U U^T) gU S^-1 Vh
    if vh.shape[-1] > k:
        ga = ga + u @ ((gvh - _mT(vh_gv) @ vh) / s[..., :, None])  # U S^-1 gVh (I - V Vh)
    return ga


class SvdU(Function):
    """U of A = U diag(S) Vh (U, S, Vh computed by the caller): dA from U's gradient."""

    def forward(self, a, u=None, s=None, vh=None):
        self.save_for_backward(u, s, vh)
        return u.copy()

    def backward(self, grad):
        u, s, vh = self.saved
        xp = xp_of(s)
        return _svd_backward(u, s, vh, grad, xp.zeros_like(s), xp.zeros_like(vh))


class SvdS(Function):
    """S of A = U diag(S) Vh: dS = diag(U^T dA V), so dA = U diag(g) Vh."""

    def forward(self, a, u=None, s=None, vh=None):
        self.save_for_backward(u, vh)
        return s.copy()

    def backward(self, grad):
        u, vh = self.saved
        k = grad.shape[-1]
        return (u[..., :k] * grad[..., None, :]) @ vh[..., :k, :]


class SvdVh(Function):
    """Vh of A = U diag(S) Vh (U, S, Vh computed by the caller): dA from Vh's gradient."""

    def forward(self, a, u=None, s=None, vh=None):
        self.save_for_backward(u, s, vh)
        return vh.copy()

    def backward(self, grad):
        u, s, vh = self.saved
        xp = xp_of(s)
        return _svd_backward(u, s, vh, xp.zeros_like(u), xp.zeros_like(s), grad)


class Pinv(Function):
    """The pseudo-inverse X = V diag(1/s) U^T, singular values at or below
    max(atol, rtol * largest) taken as 0; with hermitian, X = V diag(1/w) V^T from the
    eigenvalues w of the symmetric matrix in A's lower triangle (cut off by |w|). For a
    constant rank (Golub and Pereyra), with A as given (as PyTorch's, A's upper triangle too):
        dA = -X^T g X^T + (I - A X) g^T X X^T + X^T X g^T (I - X A)."""

    def forward(self, a, atol=0.0, rtol=0.0, hermitian=False):
        xp = xp_of(a)
        if hermitian:
            s, v = xp.linalg.eigh(a)
            size = xp.abs(s)
            largest = size.max(axis=-1, keepdims=True) if s.shape[-1] else size
            u, vh = v, _mT(v)
        else:
            u, s, vh = xp.linalg.svd(a, full_matrices=False)
            size, largest = s, s[..., :1]  # s[..., 0] is the largest
        kept = size > xp.maximum(atol, rtol * largest)
        s_inv = xp.where(kept, 1 / xp.where(kept, s, 1), 0)
        x = (_mT(vh) * s_inv[..., None, :]) @ _mT(u)
        self.save_for_backward(a, x)
        return x

    def backward(self, grad):
        a, x = self.saved
        xt, gt = _mT(x), _mT(grad)
        ga = -(xt @ grad @ xt)
        ga = ga + (gt - a @ (x @ gt)) @ (x @ xt)  # (I - A X) g^T X X^T
        return ga + (xt @ x) @ (gt - (gt @ x) @ a)  # X^T X g^T (I - X A)


# ---------------------------------------------------------------- matrix exponential
def _pade13_coefficients():
    """b[j] = (26 - j)! 13! / (26! j! (13 - j)!): the [13/13] Pade approximant of exp(x) is
    p(x) / p(-x) with p(x) = sum_j b[j] x^j."""
    f = math.factorial
    return [f(26 - j) * f(13) / (f(26) * f(j) * f(13 - j)) for j in range(14)]


_PADE13 = _pade13_coefficients()
_THETA13 = 5.371920351148152  # the largest 1-norm for which [13/13] is exact to float64 (Higham)


def expm(a):
    """exp(A) of each matrix by scaling and squaring (Higham, 2005): A / 2^s has a 1-norm
    of at most theta_13, there exp is the [13/13] Pade approximant p(A) / p(-A) (as
    U = odd terms, V = even terms: (V - U)^-1 (V + U)), then squared s times. s is each
    matrix's own."""
    xp = xp_of(a)
    if a.shape[-1] == 0:
        return a.copy()
    norm = xp.abs(a).sum(axis=-2).max(axis=-1)
    s = xp.ceil(xp.log2(xp.where(norm > 0, norm, 1) / _THETA13))
    s = xp.where(xp.isfinite(s) & (s > 0), s, 0).astype(xp.int64)
    x = a / (2.0**s).astype(a.dtype)[..., None, None]
    b = _PADE13
    eye = xp.eye(a.shape[-1], dtype=a.dtype)
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    odd = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2
               + b[1] * eye)  # fmt: skip
    even = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2
    even = even + b[0] * eye
    r = _solve(even - odd, even + odd)
    for i in range(int(s.max()) if s.size else 0):
        r = xp.where((s > i)[..., None, None], r @ r, r)
    return r


class MatrixExp(Function):
    """exp(A) = sum_j A^j / j!. Its derivative in direction E is the top-right block of
    exp([[A, E], [0, A]]) (Mathias, 1996), and the gradient is the same with A^T and g:
    dA = the top-right n x n block of exp([[A^T, g], [0, A^T]])."""

    def forward(self, a):
        self.save_for_backward(a)
        return expm(a)

    def backward(self, grad):
        (a,) = self.saved
        xp = xp_of(a)
        n = a.shape[-1]
        at = xp.broadcast_to(_mT(a), grad.shape)
        block = xp.concatenate(
            [xp.concatenate([at, grad], -1), xp.concatenate([xp.zeros_like(at), at], -1)], -2
        )
        return expm(block)[..., :n, n:]
