"""Reference solution for exercise 1: softplus.

In microtorch the class goes in microtorch/ops/elementwise.py and the function in
microtorch/nn/functional.py (this file is not imported by the package; the exercise tests
load it when MICROTORCH_EXERCISE_SOLUTIONS=1)."""

from __future__ import annotations

from microtorch import Tensor
from microtorch.autograd.function import Function
from microtorch.backend import xp_of
from microtorch.functional import _float_input


class Softplus(Function):
    """softplus(x) = log(1 + exp(beta x)) / beta, and x itself where beta x > threshold.

    Written as max(z, 0) + log1p(exp(-|z|)) with z = beta x, so exp never overflows.
    d/dx = sigmoid(beta x) (1 where the linear branch is taken)."""

    def forward(self, x, beta=1.0, threshold=20.0):
        xp = xp_of(x)
        z = x * x.dtype.type(beta)
        soft = (xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z)))) / x.dtype.type(beta)
        linear = z > threshold
        self.save_for_backward(z)
        self.linear = linear
        return xp.where(linear, x, soft)

    def backward(self, grad):
        (z,) = self.saved
        xp = xp_of(z)
        e = xp.exp(-xp.abs(z))  # sigmoid(z), stable for both signs
        sigmoid = xp.where(z >= 0, 1 / (1 + e), e / (1 + e))
        return grad * xp.where(self.linear, 1, sigmoid).astype(grad.dtype)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """PyTorch's F.softplus: a smooth relu."""
    if beta == 0:
        raise ValueError("softplus: beta must not be 0")
    return Softplus.apply(_float_input(input, "softplus"), beta=beta, threshold=threshold)
