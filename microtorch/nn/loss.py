"""Loss modules: ``CrossEntropyLoss`` and ``MSELoss`` (wrappers over nn.functional)."""

from __future__ import annotations

from .._tensor import Tensor
from . import functional as F
from .module import Module


class CrossEntropyLoss(Module):
    """Cross-entropy of logits (N, C) against class ids (N,); see F.cross_entropy."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:  # fmt: skip
        super().__init__()
        self.register_buffer("weight", weight)  # a buffer: .to(device) moves it with the module
        self.ignore_index = ignore_index
        self.reduction = reduction
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)  # fmt: skip


class MSELoss(Module):
    """Mean (or sum, or none) of squared differences."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)
