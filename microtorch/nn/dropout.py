"""``Dropout`` and its channel-wise (Dropout1d/2d/3d) and SELU (AlphaDropout,
FeatureAlphaDropout) forms: random zeroing while training; the identity in eval mode."""

from __future__ import annotations

from .._tensor import Tensor
from . import functional as F
from .module import Module


class _DropoutNd(Module):
    """The ``p`` and ``inplace`` every dropout layer below has."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Each element is zeroed with probability ``p`` and the rest are scaled by 1/(1-p)
    during training (``model.train()``); after ``model.eval()`` the input passes unchanged."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of a (N, C, L) or (C, L) input with probability ``p`` while
    training (the rest scaled by 1/(1-p)); the identity in eval mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of a (N, C, H, W) input with probability ``p`` while training
    (the rest scaled by 1/(1-p)); the identity in eval mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of a (N, C, D, H, W) or (C, D, H, W) input with probability
    ``p`` while training (the rest scaled by 1/(1-p)); the identity in eval mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps a SELU network's zero mean and unit variance (F.alpha_dropout)
    while training; the identity in eval mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training, self.inplace)


class FeatureAlphaDropout(_DropoutNd):
    """AlphaDropout of whole channels (dim 1) at once (F.feature_alpha_dropout) while
    training; the identity in eval mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training, self.inplace)
