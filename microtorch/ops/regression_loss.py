"""The regression losses as one op each (mse_loss, smooth_l1_loss, huber_loss), reduced
inside: with d = input - target (broadcast together),

    mse:        d^2;                                 d/d input = norm * d * grad
    smooth_l1:  0.5 d^2 / beta if |d| < beta, else |d| - 0.5 beta;
                d/d input = norm * grad * (d / beta if |d| < beta, else sign(d))
    huber:      0.5 d^2 if |d| < delta, else delta (|d| - 0.5 delta);
                d/d input = norm * grad * (d if |d| < delta, else delta sign(d))

norm = 1 / numel for reduction="mean" (times 2 for mse), else 1; d/d target = -d/d input.
One op, not a composition, because PyTorch's kernels round float16 in their own way, which
these follow bit for bit: mse's and huber's gradients (and mse's and smooth_l1's values) in
float16 steps, each rounded, the norm a float16 number; huber's value and smooth_l1's
gradient in float32 from the float16 inputs, rounded once.
"""

from __future__ import annotations

from ..autograd.function import Function, unbroadcast
from ..backend import xp_of
from .elementwise import _float16_as_float32


def _reduced(losses, reduction):
    """The per-element losses as they are ("none"), summed or averaged; float16 in float32
    and rounded once, as PyTorch's reductions."""
    if reduction == "none":
        return losses
    wide = _float16_as_float32(losses)
    total = wide.mean() if reduction == "mean" else wide.sum()
    return total.astype(losses.dtype)


class _RegressionLoss(Function):
    """What the three share: the shapes, the reduction, its norm, and backward's last step
    (target's gradient is input's negated; each summed over its broadcast dims)."""

    def _setup(self, input, target, reduction, numerator=1):
        self.shapes = input.shape, target.shape
        self.reduction = reduction
        size = max(input.size, target.size, 1) if reduction == "mean" else 1
        self.norm = numerator / size  # (a Python float: each op rounds it its own way)

    def _input_and_target(self, g_input):
        input_shape, target_shape = self.shapes
        ga = unbroadcast(g_input, input_shape) if self.needs_input_grad[0] else None
        gb = unbroadcast(-g_input, target_shape) if self.needs_input_grad[1] else None
        return ga, gb


class MseLoss(_RegressionLoss):
    def forward(self, input, target, reduction="mean"):
        self._setup(input, target, reduction, numerator=2)
        d = input - target
        self.save_for_backward(d)
        return _reduced(d * d, reduction)

    def backward(self, grad):
        (d,) = self.saved
        # PyTorch's steps: (norm * d) * grad, the norm in d's dtype
        return self._input_and_target(d.dtype.type(self.norm) * d * grad)


class SmoothL1Loss(_RegressionLoss):
    def forward(self, input, target, reduction="mean", beta=1.0):
        self._setup(input, target, reduction)
        self.beta = beta
        self.save_for_backward(input, target)
        xp = xp_of(input)
        z = xp.abs(input - target)
        b = input.dtype.type(beta)  # (PyTorch's kernel: beta in the input's dtype)
        return _reduced(xp.where(z < b, 0.5 * z * z / b, z - 0.5 * b), reduction)

    def backward(self, grad):
        input, target = self.saved
        xp = xp_of(input)
        d = _float16_as_float32(input) - _float16_as_float32(target)  # (float16: in float32)
        g = _float16_as_float32(grad)
        outside = g * self.norm
        inside = d * self.norm * g / self.beta
        slope = xp.where(d <= -self.beta, -outside, xp.where(d >= self.beta, outside, inside))
        return self._input_and_target(slope.astype(input.dtype, copy=False))


class HuberLoss(_RegressionLoss):
    def forward(self, input, target, reduction="mean", delta=1.0):
        self._setup(input, target, reduction)
        self.delta = delta
        self.save_for_backward(input - target)
        xp = xp_of(input)
        z = xp.abs(_float16_as_float32(input) - _float16_as_float32(target))  # (float32)
        losses = xp.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
        return _reduced(losses.astype(input.dtype, copy=False), reduction)

    def backward(self, grad):
        (d,) = self.saved
        xp = xp_of(d)
        norm, delta = d.dtype.type(self.norm), d.dtype.type(self.delta)  # (PyTorch's steps)
        outside = norm * grad * delta
        slope = xp.where(d <= -delta, -outside, xp.where(d >= delta, outside, norm * d * grad))
        return self._input_and_target(slope)
