"""Cross-entropy with class-index targets, fused with log-softmax.

Forward: loss_n = logsumexp(x_n) - x_n[target_n]. Backward: softmax(x_n) - onehot(target_n),
scaled by the upstream gradient (and by 1/count for reduction="mean")."""

from __future__ import annotations

from ..autograd.function import Function
from ..backend import xp_of
from .elementwise import _float16_as_float32
from .softmax import log_softmax_array


class CrossEntropy(Function):
    """logits (N, C), target (N,) of class indices. Rows whose target is ``ignore_index``
    contribute nothing; "mean" divides by the number of the other rows."""

    def forward(self, logits, target, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        xp = xp_of(logits)
        n, num_classes = logits.shape
        keep = target != ignore_index
        safe_target = xp.where(keep, target, 0)
        logp = log_softmax_array(logits, 1)  # (N, C)
        picked = xp.take_along_axis(logp, safe_target[:, None], axis=1)[:, 0]  # (N,)
        losses = -picked
        if label_smoothing:
            losses = (1 - label_smoothing) * losses - label_smoothing * logp.mean(axis=1)
        losses = losses * keep
        self.reduction, self.smoothing = reduction, label_smoothing
        self.keep, self.target = keep, safe_target
        self.count = keep.sum()  # an array: no device-to-host sync
        self.save_for_backward(logp)
        if reduction == "none":
            return losses
        total = losses.sum()
        return total / self.count.astype(logits.dtype) if reduction == "mean" else total

    def backward(self, grad):
        (logp,) = self.saved
        xp = xp_of(logp)
        n, num_classes = logp.shape
        if self.reduction == "mean":
            # every row ignored: the loss is nan (0 / 0), but the gradient 0, as in PyTorch
            count = xp.maximum(self.count, 1).astype(logp.dtype)
            scale = (grad / count) * self.keep  # (N,), in logp's dtype
        else:
            scale = xp.broadcast_to(grad * self.keep, (n,))
        # d loss_n / d logits_n = (softmax_n - onehot(target_n)) * scale_n, in PyTorch's two
        # steps: nll_loss's gradient (-scale_n at the target) in logp's dtype, then
        # log_softmax's backward, which computes float16 in float32 and rounds once
        d = xp.exp(_float16_as_float32(logp))  # softmax
        d *= scale[:, None]
        d[xp.arange(n), self.target] -= (1 - self.smoothing) * scale
        if self.smoothing:
            d -= (self.smoothing / num_classes) * scale[:, None]
        return d.astype(logp.dtype, copy=False), None
