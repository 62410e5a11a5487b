"""``Embedding``: a lookup table of learned vectors, one row per token id."""

from __future__ import annotations

from typing import Any

from .. import factories
from .._tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class Embedding(Module):
    """(...) integer ids -> (..., embedding_dim) rows of ``weight``.

    weight (num_embeddings, embedding_dim) starts from N(0, 1), PyTorch's default; the row
    at ``padding_idx`` (if given) starts at zero and gets no gradient."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Tensor | None = None, _freeze: bool = False, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if max_norm is not None or scale_grad_by_freq or sparse:
            raise ValueError(
                "Embedding: max_norm, scale_grad_by_freq and sparse=True are not supported; "
                "leave them at their defaults (None, False, False)"
            )
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(
                    f"Embedding: padding_idx {padding_idx} must be within num_embeddings "
                    f"({num_embeddings})"
                )
            padding_idx %= num_embeddings
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            weight = factories.empty(num_embeddings, embedding_dim, device=device, dtype=dtype)
            self.weight = Parameter(weight, requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError(
                    f"Embedding: _weight has shape {tuple(_weight.shape)}, expected "
                    f"({num_embeddings}, {embedding_dim})"
                )
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight.array[self.padding_idx] = 0

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: int | None = None) -> Embedding:  # fmt: skip
        """An Embedding whose weight is ``embeddings`` (rows, dim), frozen by default."""
        if embeddings.ndim != 2:
            raise ValueError("Embeddings parameter is expected to be 2-dimensional")
        rows, dim = embeddings.shape
        return cls(rows, dim, padding_idx=padding_idx, _weight=embeddings, _freeze=freeze)
