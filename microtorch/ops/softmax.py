"""softmax and log_softmax along one dim, each one fused op with a closed-form backward.

Both subtract the row maximum first so exp never overflows."""

from __future__ import annotations

from ..autograd.function import Function
from ..backend import xp_of


def softmax_array(x, axis):
    """Numerically stable softmax of a raw array (shared by attention and cross-entropy)."""
    xp = xp_of(x)
    e = xp.exp(x - x.max(axis=axis, keepdims=True))
    e /= e.sum(axis=axis, keepdims=True)
    return e


def log_softmax_array(x, axis):
    xp = xp_of(x)
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))


class Softmax(Function):
    def forward(self, x, dim=-1):
        self.dim = dim
        y = softmax_array(x, dim)
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        # dx_i = y_i * (g_i - sum_j g_j y_j)
        (y,) = self.saved
        gy = grad * y
        return gy - y * gy.sum(axis=self.dim, keepdims=True)


class LogSoftmax(Function):
    def forward(self, x, dim=-1):
        self.dim = dim
        out = log_softmax_array(x, dim)
        self.save_for_backward(out)
        return out

    def backward(self, grad):
        # dx_i = g_i - softmax_i * sum_j g_j
        (out,) = self.saved
        return grad - xp_of(out).exp(out) * grad.sum(axis=self.dim, keepdims=True)
