"""Binary cross-entropy, element by element (reduction happens outside, with sum/mean).

On probabilities x and targets y in [0, 1]:
    loss = -(y log x + (1 - y) log(1 - x)),  each log clamped at -100 as in PyTorch
    d/dx = (x - y) / max(x (1 - x), 1e-12),  d/dy = log(1 - x) - log x  (unclamped)

On logits x (the probability is sigmoid(x)), with positive-class weight p (1 if none):
    loss = (1 - y) x + (1 + (p - 1) y) softplus(-x),  softplus(-x) = -log sigmoid(x)
    d/dx = sigmoid(x) (p y + 1 - y) - p y,  d/dy = (p - 1) softplus(-x) - x
softplus(-x) is computed as log(1 + exp(-|x|)) + max(-x, 0), which never overflows. These
are the derivatives of the formulas written as one op: at x = 0 the logit gradient is
sigmoid(0) - y = 0.5 - y, where max and |x| composed by autograd would give a kink's 0.
"""

from __future__ import annotations

from ..autograd.function import Function
from ..backend import xp_of


class BinaryCrossEntropy(Function):
    def forward(self, x, y):
        xp = xp_of(x)
        log_x = xp.maximum(xp.log(x), -100)
        log_not_x = xp.maximum(xp.log(1 - x), -100)
        self.save_for_backward(x, y)
        return -(y * log_x + (1 - y) * log_not_x)

    def backward(self, grad):
        x, y = self.saved
        xp = xp_of(x)
        gx = gy = None
        if self.needs_input_grad[0]:
            gx = grad * (x - y) / xp.maximum(x * (1 - x), 1e-12)
        if self.needs_input_grad[1]:  # (the logs unclamped here, as PyTorch's: inf at 0 or 1)
            gy = grad * (xp.log(1 - x) - xp.log(x))
        return gx, gy


class BinaryCrossEntropyWithLogits(Function):
    def forward(self, x, y, pos_weight=None):
        xp = xp_of(x)
        e = xp.exp(-xp.abs(x))  # in (0, 1]: no overflow for any x
        softplus_neg = xp.log1p(e) + xp.maximum(-x, 0)  # -log sigmoid(x)
        self.pos_weight = pos_weight
        self.save_for_backward(x, y, e, softplus_neg)
        if pos_weight is None:
            return (1 - y) * x + softplus_neg
        return (1 - y) * x + (1 + (pos_weight - 1) * y) * softplus_neg

    def backward(self, grad):
        x, y, e, softplus_neg = self.saved
        xp = xp_of(x)
        p = 1 if self.pos_weight is None else self.pos_weight
        gx = gy = None
        if self.needs_input_grad[0]:
            sigmoid = xp.where(x >= 0, 1 / (1 + e), e / (1 + e))
            gx = grad * (sigmoid * (p * y + 1 - y) - p * y)
        if self.needs_input_grad[1]:
            gy = grad * ((p - 1) * softplus_neg - x)
        return gx, gy
