"""``Embedding``: a lookup table of learned vectors, one row per token id; ``EmbeddingBag``:
the sum, mean or max of the rows of each bag of ids."""

from __future__ import annotations

from typing import Any

from .. import factories
from .._tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


def _checked_padding_idx(layer: str, padding_idx: int | None, num_embeddings: int) -> int | None:
    """padding_idx in 0..num_embeddings-1 (a negative one counts from the end)."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise ValueError(
            f"{layer}: padding_idx {padding_idx} must be within num_embeddings ({num_embeddings})"
        )
    return padding_idx % num_embeddings


def _check_weight_shape(layer: str, weight: Tensor, num_embeddings: int, dim: int) -> None:
    if tuple(weight.shape) != (num_embeddings, dim):
        raise ValueError(
            f"{layer}: _weight has shape {tuple(weight.shape)}, expected ({num_embeddings}, {dim})"
        )


def _check_unsupported(layer: str, scale_grad_by_freq: bool, sparse: bool) -> None:
    if scale_grad_by_freq or sparse:  # (max_norm is supported: see F.embedding)
        raise ValueError(
            f"{layer}: scale_grad_by_freq and sparse=True are not supported; leave them False"
        )


class Embedding(Module):
    """(...) integer ids -> (..., embedding_dim) rows of ``weight``.

    weight (num_embeddings, embedding_dim) starts from N(0, 1), PyTorch's default; the row
    at ``padding_idx`` (if given) starts at zero and gets no gradient; ``scale_grad_by_freq``
    divides each row's gradient by how often its id occurs in the batch."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Tensor | None = None, _freeze: bool = False, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if sparse:  # (max_norm and scale_grad_by_freq are supported: see F.embedding)
            raise ValueError("Embedding: sparse=True is not supported; leave it False")
        if num_embeddings < 0 or embedding_dim < 0:  # (RuntimeError, as in PyTorch)
            raise RuntimeError(
                f"Embedding: num_embeddings and embedding_dim must be non-negative, got "
                f"{num_embeddings} and {embedding_dim}"
            )
        padding_idx = _checked_padding_idx("Embedding", padding_idx, num_embeddings)
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
            _check_weight_shape("Embedding", _weight, num_embeddings, embedding_dim)
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight.array[self.padding_idx] = 0

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq)  # fmt: skip

    def extra_repr(self) -> str:
        """PyTorch's: the sizes, then each option that is not at its default."""
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: int | None = None, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> Embedding:  # fmt: skip
        """An Embedding whose weight is ``embeddings`` (rows, dim), frozen by default."""
        if embeddings.ndim != 2:
            raise ValueError("Embeddings parameter is expected to be 2-dimensional")
        rows, dim = embeddings.shape
        return cls(rows, dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)  # fmt: skip


class EmbeddingBag(Module):
    """Bags of integer ids -> (bags, embedding_dim): the sum, mean or max of each bag's rows
    of ``weight``, without making the (ids, embedding_dim) rows first in user code. A 2-D
    input (B, L) is B bags of L ids; a 1-D input is cut into bags at ``offsets``.

    weight (num_embeddings, embedding_dim) starts from N(0, 1), PyTorch's default; the row
    at ``padding_idx`` (if given) starts at zero, and ids equal to it are left out of bags."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight: Tensor | None = None,
                 include_last_offset: bool = False, padding_idx: int | None = None,
                 device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        _check_unsupported("EmbeddingBag", scale_grad_by_freq, sparse)
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        self.mode = mode
        self.include_last_offset = include_last_offset
        self.padding_idx = _checked_padding_idx("EmbeddingBag", padding_idx, num_embeddings)
        if _weight is None:
            weight = factories.empty(num_embeddings, embedding_dim, device=device, dtype=dtype)
            self.weight = Parameter(weight)
            self.reset_parameters()
        else:
            _check_weight_shape("EmbeddingBag", _weight, num_embeddings, embedding_dim)
            self.weight = Parameter(_weight)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight.array[self.padding_idx] = 0

    def forward(self, input: Tensor, offsets: Tensor | None = None,
                per_sample_weights: Tensor | None = None) -> Tensor:  # fmt: skip
        return F.embedding_bag(
            input, self.weight, offsets, mode=self.mode, per_sample_weights=per_sample_weights,
            include_last_offset=self.include_last_offset, padding_idx=self.padding_idx,
            max_norm=self.max_norm, norm_type=self.norm_type,
        )  # fmt: skip

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        max_norm: float | None = None, norm_type: float = 2.0,
                        scale_grad_by_freq: bool = False, mode: str = "mean",
                        sparse: bool = False, include_last_offset: bool = False,
                        padding_idx: int | None = None) -> EmbeddingBag:  # fmt: skip
        """An EmbeddingBag whose weight is ``embeddings`` (rows, dim), frozen by default."""
        if embeddings.ndim != 2:
            raise ValueError("Embeddings parameter is expected to be 2-dimensional")
        rows, dim = embeddings.shape
        bag = cls(rows, dim, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                  embeddings, include_last_offset, padding_idx)  # fmt: skip
        bag.weight.requires_grad_(not freeze)
        return bag
