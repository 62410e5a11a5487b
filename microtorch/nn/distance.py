"""``CosineSimilarity``: the cosine of the angle between two batches of vectors."""

from __future__ import annotations

from .._tensor import Tensor
from . import functional as F
from .module import Module


class CosineSimilarity(Module):
    """F.cosine_similarity along ``dim``: x1 . x2 / (max(|x1|, eps) max(|x2|, eps))."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
