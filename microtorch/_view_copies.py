"""PyTorch's *_copy functions (torch.transpose_copy, torch.narrow_copy, torch.split_copy...):
each is the view op of the same name followed by a copy, so the result owns fresh,
contiguous memory and writing into it leaves the input alone. Gradients flow as through the
view. Also split_with_sizes, unsafe_split and unsafe_chunk, which are split and chunk (views)
under other names. microtorch/__init__.py exports them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import functional as F
from . import memory_format as _formats
from ._out import write_out
from ._tensor import Tensor


def _copy(view: Tensor) -> Tensor:
    """A contiguous copy of view, in the graph."""
    return F.clone(view, memory_format=_formats.contiguous_format)


def alias_copy(input: Tensor, *, out: Any = None) -> Tensor:
    """A copy of input (torch.alias_copy: the copy of the alias, input itself)."""
    return write_out(
        _copy(F._check_tensor(input, "alias_copy")), out, "alias_copy", exact_dtype=True
    )


def detach_copy(input: Tensor, *, out: Any = None) -> Tensor:
    """A copy of input, out of the graph."""
    return write_out(
        _copy(F.detach(F._check_tensor(input, "detach_copy"))), out, "detach_copy", exact_dtype=True
    )


def expand_copy(
    input: Tensor, size: Sequence[int], *, implicit: bool = False, out: Any = None
) -> Tensor:
    """A copy of input.expand(size)."""
    return write_out(
        _copy(F.expand(F._check_tensor(input, "expand_copy"), size)),
        out,
        "expand_copy",
        exact_dtype=True,
    )


def permute_copy(input: Tensor, dims: Sequence[int], *, out: Any = None) -> Tensor:
    """A copy of input.permute(dims)."""
    return write_out(_copy(F.permute(input, dims)), out, "permute_copy", exact_dtype=True)


def t_copy(input: Tensor, *, out: Any = None) -> Tensor:
    """A copy of input.t()."""
    return write_out(_copy(F.t(input)), out, "t_copy", exact_dtype=True)


def transpose_copy(input: Tensor, dim0: int, dim1: int, *, out: Any = None) -> Tensor:
    """A copy of input.transpose(dim0, dim1)."""
    return write_out(_copy(F.transpose(input, dim0, dim1)), out, "transpose_copy", exact_dtype=True)


def squeeze_copy(input: Tensor, dim: Any = None, *, out: Any = None) -> Tensor:
    """A copy of input.squeeze(dim)."""
    return write_out(
        _copy(F.squeeze(F._check_tensor(input, "squeeze_copy"), dim)),
        out,
        "squeeze_copy",
        exact_dtype=True,
    )


def unsqueeze_copy(input: Tensor, dim: int, *, out: Any = None) -> Tensor:
    """A copy of input.unsqueeze(dim)."""
    return write_out(_copy(F.unsqueeze(input, dim)), out, "unsqueeze_copy", exact_dtype=True)


def view_copy(input: Tensor, size: Any, *, out: Any = None) -> Tensor:
    """A copy of input.view(size), or of input.view(dtype) when given a dtype."""
    from . import dtypes

    if isinstance(size, (dtypes.dtype, str)):
        return write_out(_copy(F.view_dtype(input, size)), out, "view_copy", exact_dtype=True)
    return write_out(
        _copy(F.view(F._check_tensor(input, "view_copy"), size)), out, "view_copy", exact_dtype=True
    )


def select_copy(input: Tensor, dim: int, index: int, *, out: Any = None) -> Tensor:
    """A copy of input.select(dim, index)."""
    return write_out(_copy(F.select(input, dim, index)), out, "select_copy", exact_dtype=True)


def slice_copy(input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
               step: int = 1, *, out: Any = None) -> Tensor:  # fmt: skip
    """A copy of input[..., start:end:step, ...], the slice along dim."""
    d = F.wrap_dim(dim, F._check_tensor(input, "slice_copy").ndim, "slice_copy")
    if step <= 0:
        raise RuntimeError(f"slice_copy: slice step must be positive, got {step}")
    return write_out(
        _copy(F.getitem(input, (slice(None),) * d + (slice(start, end, step),))),
        out,
        "slice_copy",
        exact_dtype=True,
    )


def narrow_copy(input: Tensor, dim: int, start: int, length: int, *, out: Any = None) -> Tensor:
    """A copy of input.narrow(dim, start, length)."""
    if isinstance(dim, int) and dim >= F._check_tensor(input, "narrow_copy").ndim > 0:
        raise RuntimeError(  # (PyTorch's kernel: RuntimeError here, IndexError below -ndim)
            f"narrow_copy: dim {dim} is out of range for a tensor of {input.ndim} dims (expected "
            f"to be in range of [{-input.ndim}, {input.ndim - 1}])"
        )
    return write_out(
        _copy(F.narrow(input, dim, start, length)), out, "narrow_copy", exact_dtype=True
    )


def diagonal_copy(
    input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1, *, out: Any = None
) -> Tensor:
    """A copy of input.diagonal(offset, dim1, dim2)."""
    return write_out(
        _copy(F.diagonal(input, offset, dim1, dim2)), out, "diagonal_copy", exact_dtype=True
    )


def unfold_copy(input: Tensor, dimension: int, size: int, step: int, *, out: Any = None) -> Tensor:
    """A copy of input.unfold(dimension, size, step) (overlapping windows become separate
    elements)."""
    return write_out(
        _copy(F.unfold(input, dimension, size, step)), out, "unfold_copy", exact_dtype=True
    )


def as_strided_copy(input: Tensor, size: Sequence[int], stride: Sequence[int],
                    storage_offset: int | None = None, *, out: Any = None) -> Tensor:  # fmt: skip
    """A copy of input.as_strided(size, stride, storage_offset)."""
    return write_out(
        _copy(F.as_strided(input, size, stride, storage_offset)),
        out,
        "as_strided_copy",
        exact_dtype=True,
    )


def _pieces_out(pieces: tuple, out: Any, op: str) -> tuple | None:
    """``pieces`` if ``out`` is None; else each piece written into its tensor of the list
    ``out`` (of the piece's dtype), and None returned, as PyTorch's split_copy(..., out=)."""
    if out is None:
        return pieces
    if not isinstance(out, (list, tuple)):
        raise TypeError(
            f"{op}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}"
        )
    if len(out) != len(pieces):
        raise RuntimeError(
            f"{op}(): expected an out= argument of size {len(pieces)}, got size {len(out)}"
        )
    for piece, target in zip(pieces, out):
        write_out(piece, target, op, exact_dtype=True)
    return None


def split_copy(input: Tensor, split_size: Any, dim: int = 0, *, out: Any = None) -> tuple | None:
    """Copies of the pieces of input.split(split_size, dim)."""
    return _pieces_out(tuple(_copy(p) for p in F.split(input, split_size, dim)), out, "split_copy")


def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """input.split(split_sizes, dim) with split_sizes a list of sizes that add up to the
    size of dim: views."""
    if isinstance(split_sizes, int):
        raise TypeError("split_with_sizes: split_sizes must be a list of sizes, not one int")
    return F.split(input, list(split_sizes), dim)


def split_with_sizes_copy(input: Tensor, split_sizes: Sequence[int], dim: int = 0, *,
                          out: Any = None) -> tuple | None:  # fmt: skip
    """Copies of the pieces of split_with_sizes(input, split_sizes, dim)."""
    pieces = tuple(_copy(piece) for piece in split_with_sizes(input, split_sizes, dim))
    return _pieces_out(pieces, out, "split_with_sizes_copy")


def unbind_copy(input: Tensor, dim: int = 0, *, out: Any = None) -> tuple | None:
    """Copies of the slices input.unbind(dim)."""
    return _pieces_out(tuple(_copy(piece) for piece in F.unbind(input, dim)), out, "unbind_copy")


def unsafe_split(input: Tensor, split_size: Any, dim: int = 0) -> tuple:
    """split(input, split_size, dim): PyTorch's name for the split whose pieces skip its
    checks on in-place writes; here they are ordinary views."""
    return F.split(input, split_size, dim)


def unsafe_split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """split_with_sizes(input, split_sizes, dim) under PyTorch's "unsafe" name (see
    unsafe_split)."""
    return split_with_sizes(input, split_sizes, dim)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """chunk(input, chunks, dim) under PyTorch's "unsafe" name (see unsafe_split)."""
    return F.chunk(input, chunks, dim)
