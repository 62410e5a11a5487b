"""``nn.common_types``: PyTorch's type aliases for arguments given as one value or a tuple
(kernel sizes, strides, paddings, scale factors), for code that annotates with them:

    from torch.nn.common_types import _size_2_t
    def __init__(self, kernel_size: _size_2_t) -> None: ...

``_size_2_t`` is ``int | tuple[int, int]``; ``_opt`` variants allow None entries, the
``_ratio`` ones floats; ``_size_any_t`` a tuple of any length."""

from __future__ import annotations

from typing import TypeAlias, TypeVar

from .._tensor import Tensor

T = TypeVar("T")

# one value, or a tuple of them (of any length, or of 1 to 6)
_scalar_or_tuple_any_t: TypeAlias = T | tuple[T, ...]
_scalar_or_tuple_1_t: TypeAlias = T | tuple[T]
_scalar_or_tuple_2_t: TypeAlias = T | tuple[T, T]
_scalar_or_tuple_3_t: TypeAlias = T | tuple[T, T, T]
_scalar_or_tuple_4_t: TypeAlias = T | tuple[T, T, T, T]
_scalar_or_tuple_5_t: TypeAlias = T | tuple[T, T, T, T, T]
_scalar_or_tuple_6_t: TypeAlias = T | tuple[T, T, T, T, T, T]

# sizes (kernel_size, stride, padding, dilation...)
_size_any_t: TypeAlias = _scalar_or_tuple_any_t[int]
_size_1_t: TypeAlias = _scalar_or_tuple_1_t[int]
_size_2_t: TypeAlias = _scalar_or_tuple_2_t[int]
_size_3_t: TypeAlias = _scalar_or_tuple_3_t[int]
_size_4_t: TypeAlias = _scalar_or_tuple_4_t[int]
_size_5_t: TypeAlias = _scalar_or_tuple_5_t[int]
_size_6_t: TypeAlias = _scalar_or_tuple_6_t[int]

# sizes where None keeps the input's (adaptive pooling's output_size)
_size_any_opt_t: TypeAlias = _scalar_or_tuple_any_t[int | None]
_size_2_opt_t: TypeAlias = _scalar_or_tuple_2_t[int | None]
_size_3_opt_t: TypeAlias = _scalar_or_tuple_3_t[int | None]

# ratios (Upsample's scale_factor)
_ratio_2_t: TypeAlias = _scalar_or_tuple_2_t[float]
_ratio_3_t: TypeAlias = _scalar_or_tuple_3_t[float]
_ratio_any_t: TypeAlias = _scalar_or_tuple_any_t[float]

_tensor_list_t: TypeAlias = _scalar_or_tuple_any_t[Tensor]

# what max pooling returns: the output, or (output, indices)
_maybe_indices_t: TypeAlias = _scalar_or_tuple_2_t[Tensor]
