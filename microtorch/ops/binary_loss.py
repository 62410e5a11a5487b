"""Binary cross-entropy, element by element, then reduced (inside: PyTorch's backward
divides by the count last, which float16 rounds differently from dividing first).

On probabilities x and targets y in [0, 1]:
    loss = (y - 1) max(log(1 - x), -100) - y max(log x, -100)  (each log clamped at -100)
    d/dx = (x - y) / max((1 - x) x, 1e-12),  d/dy = -logit(x) = -log(x / (1 - x))

On logits x (the probability is sigmoid(x)), with positive-class weight p (1 if none):
    loss = (1 - y) x - (1 + (p - 1) y) log sigmoid(x)
    d/dx = (p y + 1 - y) sigmoid(x) - p y,  d/dy = log sigmoid(-x) - p log sigmoid(x)
log sigmoid(x) = -(log(1 + exp(-|x|)) + max(-x, 0)) never overflows. These are the
derivatives of the formulas written as one op: at x = 0 the logit gradient is
sigmoid(0) - y = 0.5 - y, where max and |x| composed by autograd would give a kink's 0.
``weight`` (non-differentiable, as in PyTorch) multiplies each element's loss. Each step is
PyTorch's, in x's dtype (float16 rounds each one; the clamped logs, log sigmoid and sigmoid
are computed in float32 and rounded once, as its kernels).
"""

from __future__ import annotations

from ..autograd.function import Function
from ..backend import xp_of
from .elementwise import _float16_as_float32, _in_float32


def _log_sigmoid(x):
    xp = xp_of(x)
    return -(xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(-x, 0))


def _sigmoid(x):
    return 1 / (1 + xp_of(x).exp(-x))  # (PyTorch's form: exp(-x) = inf gives 0, rightly)


class _ReducedLoss(Function):
    """What the two share: the reduction and backward's last steps (times weight, then
    divided by the count for "mean")."""

    def _setup(self, x, weight, reduction):
        self.weight, self.reduction, self.count = weight, reduction, max(x.size, 1)

    def _reduced(self, losses):
        if self.weight is not None:
            losses = losses * self.weight
        if self.reduction == "none":
            return losses
        wide = _float16_as_float32(losses)  # (float16 accumulated in float32, as PyTorch)
        return (wide.mean() if self.reduction == "mean" else wide.sum()).astype(losses.dtype)

    def _finished(self, g):
        if g is None:
            return None
        if self.weight is not None:
            g = g * self.weight
        return _in_float32(lambda g: g / self.count, g) if self.reduction == "mean" else g


class BinaryCrossEntropy(_ReducedLoss):
    def forward(self, x, y, weight=None, reduction="mean"):
        xp = xp_of(x)
        self._setup(x, weight, reduction)
        log_x = _in_float32(lambda x: xp.maximum(xp.log(x), -100), x)
        log_not_x = _in_float32(lambda x: xp.maximum(xp.log1p(-x), -100), x)
        self.save_for_backward(x, y)
        return self._reduced((y - 1) * log_not_x - y * log_x)

    def backward(self, grad):
        x, y = self.saved
        xp = xp_of(x)
        gx = gy = None
        if self.needs_input_grad[0]:
            gx = grad * (x - y) / xp.maximum((1 - x) * x, 1e-12)
        if self.needs_input_grad[1]:  # (unclamped, as PyTorch's: inf at 0 or 1)
            gy = -xp.log(x / (1 - x)) * grad  # -logit(x), its ratio rounded too (PyTorch's)
        return self._finished(gx), self._finished(gy)


class BinaryCrossEntropyWithLogits(_ReducedLoss):
    def forward(self, x, y, pos_weight=None, weight=None, reduction="mean"):
        self._setup(x, weight, reduction)
        self.pos_weight = pos_weight
        log_sigmoid = _in_float32(_log_sigmoid, x)
        self.save_for_backward(x, y, log_sigmoid)
        if pos_weight is None:
            return self._reduced((1 - y) * x - log_sigmoid)
        return self._reduced((1 - y) * x - log_sigmoid * ((pos_weight - 1) * y + 1))

    def backward(self, grad):
        x, y, log_sigmoid = self.saved
        p = self.pos_weight
        gx = gy = None
        if self.needs_input_grad[0]:
            sigmoid = _in_float32(_sigmoid, x)
            if p is None:
                gx = (sigmoid - y) * grad
            else:
                py = p * y
                gx = ((py + 1 - y) * sigmoid - py) * grad
        if self.needs_input_grad[1]:
            if p is None:
                gy = -x * grad
            else:
                gy = (_in_float32(_log_sigmoid, -x) - log_sigmoid * p) * grad
        return self._finished(gx), self._finished(gy)
