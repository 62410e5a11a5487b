"""``Dropout``: zero random elements while training; the identity in eval mode."""

from __future__ import annotations

from .._tensor import Tensor
from . import functional as F
from .module import Module


class Dropout(Module):
    """Each element is zeroed with probability ``p`` and the rest are scaled by 1/(1-p)
    during training (``model.train()``); after ``model.eval()`` the input passes unchanged."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
