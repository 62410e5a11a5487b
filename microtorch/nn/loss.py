"""Loss modules: wrappers over nn.functional's losses, with PyTorch's arguments in
PyTorch's order. Class targets: ``CrossEntropyLoss``, ``NLLLoss``; regression: ``MSELoss``,
``L1Loss``, ``SmoothL1Loss``, ``HuberLoss``; binary targets: ``BCELoss``,
``BCEWithLogitsLoss``; distributions: ``KLDivLoss``."""

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


class L1Loss(Module):
    """Mean (or sum, or none) of absolute differences."""

    def __init__(self, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__()
        self.reduction = F._reduction(size_average, reduce, reduction, "L1Loss")

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(Module):
    """Squared error below ``beta``, absolute error above; see F.smooth_l1_loss."""

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 beta: float = 1.0) -> None:  # fmt: skip
        super().__init__()
        self.reduction = F._reduction(size_average, reduce, reduction, "SmoothL1Loss")
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(Module):
    """Squared error below ``delta``, delta times the absolute error above; see
    F.huber_loss."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__()
        self.reduction = F._reduction(None, None, reduction, "HuberLoss")
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(Module):
    """Binary cross-entropy of probabilities; see F.binary_cross_entropy."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__()
        self.register_buffer("weight", weight)
        self.reduction = F._reduction(size_average, reduce, reduction, "BCELoss")

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(Module):
    """Binary cross-entropy of logits; see F.binary_cross_entropy_with_logits."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:  # fmt: skip
        super().__init__()
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)
        self.reduction = F._reduction(size_average, reduce, reduction, "BCEWithLogitsLoss")

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, weight=self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)  # fmt: skip


class KLDivLoss(Module):
    """KL divergence from the target distribution to the model's log-probabilities; see
    F.kl_div (use reduction="batchmean" for the KL divergence per sample)."""

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 log_target: bool = False) -> None:  # fmt: skip
        super().__init__()
        self.reduction = (
            reduction
            if reduction == "batchmean"
            else F._reduction(size_average, reduce, reduction, "KLDivLoss")
        )
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
