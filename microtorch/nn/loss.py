"""Loss modules: ``CrossEntropyLoss``, ``NLLLoss`` and ``MSELoss`` (wrappers over
nn.functional, with PyTorch's arguments in PyTorch's order)."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import functional as F
from .module import Module


class CrossEntropyLoss(Module):
    """Cross-entropy of logits (N, C) against class ids (N,) or class probabilities (N, C);
    see F.cross_entropy."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:  # fmt: skip
        super().__init__()
        self.register_buffer("weight", weight)  # a buffer: .to(device) moves it with the module
        self.ignore_index = ignore_index
        self.reduction = F._reduction(size_average, reduce, reduction, "CrossEntropyLoss")
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)  # fmt: skip


class NLLLoss(Module):
    """Negative log-likelihood of log-probabilities (N, C) at class ids (N,); see F.nll_loss."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__()
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index
        self.reduction = F._reduction(size_average, reduce, reduction, "NLLLoss")

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)  # fmt: skip


class MSELoss(Module):
    """Mean (or sum, or none) of squared differences."""

    def __init__(self, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__()
        self.reduction = F._reduction(size_average, reduce, reduction, "MSELoss")

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)
