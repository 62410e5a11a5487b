"""Reference solution for exercise 5: a fused rms_norm.

In microtorch the class goes in microtorch/ops/normalization.py and the function in
microtorch/nn/functional.py."""

from __future__ import annotations

import numpy

from microtorch import Tensor
from microtorch.autograd.function import Function
from microtorch.backend import xp_of
from microtorch.functional import _check_tensor, _float_input


class RMSNorm(Function):
    """y = x * r * weight with r = 1 / sqrt(mean(x^2) + eps), the mean over the last
    ``ndims`` dims: one graph node instead of the six that pow, mean, add, rsqrt and two
    multiplications would record.

    Backward, with xhat = x * r and g = dL/dy * weight (N = elements per group):
        dL/dx = r * (g - xhat * mean(g * xhat))
        dL/dweight = sum over the batch dims of dL/dy * xhat"""

    def forward(self, x, weight=None, ndims=1, eps=1e-6):
        xp = xp_of(x)
        axes = tuple(range(x.ndim - ndims, x.ndim))
        r = 1 / xp.sqrt((x * x).mean(axis=axes, keepdims=True) + x.dtype.type(eps))
        xhat = x * r
        self.axes = axes
        self.save_for_backward(xhat, r, weight)
        return xhat * weight if weight is not None else xhat

    def backward(self, grad):
        xhat, r, weight = self.saved
        gx = gw = None
        if self.needs_input_grad[1]:  # weight (False when it is None)
            batch_axes = tuple(range(grad.ndim - len(self.axes)))
            gw = (grad * xhat).sum(axis=batch_axes)
        if self.needs_input_grad[0]:
            g = grad * weight if weight is not None else grad
            gx = r * (g - xhat * (g * xhat).mean(axis=self.axes, keepdims=True))
        return gx, gw


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:  # fmt: skip
    """PyTorch's F.rms_norm: eps=None uses the machine epsilon of the input's dtype."""
    _check_tensor(input, "rms_norm")
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(normalized_shape) :]) != normalized_shape:
        raise RuntimeError(
            f"rms_norm: input of shape {tuple(input.shape)} does not end in normalized_shape "
            f"{list(normalized_shape)}"
        )
    if weight is not None and tuple(weight.shape) != normalized_shape:
        raise RuntimeError(
            f"rms_norm: weight of shape {tuple(weight.shape)} does not match normalized_shape "
            f"{list(normalized_shape)}"
        )
    x = _float_input(input, "rms_norm")
    if eps is None:
        eps = float(numpy.finfo(x.array.dtype).eps)
    return RMSNorm.apply(x, weight, ndims=len(normalized_shape), eps=eps)
