"""Reference solution for exercise 2: logsumexp.

In microtorch the class goes in microtorch/ops/reduction.py and the function in
microtorch/functional.py (exported in microtorch/__init__.py)."""

from __future__ import annotations

from microtorch import Tensor
from microtorch.autograd.function import Function
from microtorch.backend import xp_of
from microtorch.functional import _dims, _float_input


class LogSumExp(Function):
    """log(sum(exp(x), dims)) = m + log(sum(exp(x - m))) with m the max over dims.

    d/dx_i = exp(x_i - out) = softmax(x)_i over the reduced dims."""

    def forward(self, x, axes=None, keepdim=False):
        xp = xp_of(x)
        m = x.max(axis=axes, keepdims=True)
        m = xp.where(xp.isfinite(m), m, 0)  # all -inf (or +inf): keep exp() defined
        out = m + xp.log(xp.exp(x - m).sum(axis=axes, keepdims=True))  # keepdim shape
        self.save_for_backward(x, out)
        self.axes, self.keepdim = axes, keepdim
        return out if keepdim else out.squeeze(axis=axes)

    def backward(self, grad):
        x, out = self.saved
        xp = xp_of(x)
        if not self.keepdim:
            grad = xp.expand_dims(grad, self.axes)
        return grad * xp.exp(x - out)


def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    """PyTorch's torch.logsumexp(input, dim, keepdim=False)."""
    x = _float_input(input, "logsumexp")
    axes = _dims(dim, x.ndim, "logsumexp")
    if x.ndim == 0:
        axes = None
    return LogSumExp.apply(x, axes=axes, keepdim=keepdim)
