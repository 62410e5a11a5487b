"""Memory formats and layouts: PyTorch's ``torch.memory_format`` and ``torch.layout``.

A tensor's elements lie in memory in some order of its dims, which its strides say. PyTorch
names the orders that code asks for:

    contiguous_format   the last dim innermost (C order): what contiguous() gives
    preserve_format     the order the input already has (clone's and the *_like default)
    channels_last       an image batch (N, C, H, W) stored as N, H, W, C: each pixel's
                        channels side by side
    channels_last_3d    the same for (N, C, D, H, W)

The values never change, only where they lie (and so ``stride()`` and
``is_contiguous(memory_format=...)``). Every microtorch tensor is dense and strided:
``layout`` is ``strided`` for all of them."""

from __future__ import annotations

from typing import Any


class memory_format:  # noqa: N801 (PyTorch's name)
    """An order of a tensor's dims in memory (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"microtorch.{self.name}"


class layout:  # noqa: N801 (PyTorch's name)
    """How a tensor's elements are stored: always ``strided`` here (no sparse tensors)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"microtorch.{self.name}"


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
strided = layout("strided")


def dims_order(fmt: Any, ndim: int, op: str) -> tuple | None:
    """The dims from outermost to innermost in memory that ``fmt`` asks for (None for
    preserve_format: whatever order the input has)."""
    if fmt is contiguous_format:
        return tuple(range(ndim))
    if fmt is preserve_format:
        return None
    for wanted, dims in ((channels_last, 4), (channels_last_3d, 5)):
        if fmt is wanted:
            if ndim != dims:
                raise RuntimeError(
                    f"{op}: required rank {dims} tensor to use {fmt.name} format, got {ndim} dims"
                )
            return (0, *range(2, ndim), 1)  # N, then the spatial dims, then C innermost
    raise TypeError(
        f"{op}: memory_format must be microtorch.contiguous_format, preserve_format, "
        f"channels_last or channels_last_3d, got {fmt!r}"
    )


def is_laid_out(array: Any, fmt: Any, op: str = "is_contiguous") -> bool:
    """Does ``array`` lie in memory in ``fmt``'s order, with no gaps?"""
    order = dims_order(fmt, array.ndim, op)
    if order is None:  # (PyTorch answers as for contiguous_format)
        order = tuple(range(array.ndim))
    return bool(array.transpose(order).flags.c_contiguous)


def arranged(array: Any, fmt: Any, op: str) -> Any:
    """A copy of ``array`` laid out in ``fmt``'s order (preserve_format: array's own order,
    by its strides)."""
    order = dims_order(fmt, array.ndim, op)
    if order is None:
        return array.copy(order="K")  # (K: the order array's strides have)
    return _in_order(array, order)


def like_strides(array: Any, template: Any) -> Any:
    """``array`` (of template's shape) laid out in the order of template's strides, largest
    outermost, as PyTorch's preserve_format does for a dense tensor."""
    if array.ndim < 2 or template.flags.c_contiguous:
        return array
    return _in_order(array, sorted(range(template.ndim), key=lambda d: -abs(template.strides[d])))


def _in_order(array: Any, order: Any) -> Any:
    """A copy of ``array`` whose dims lie in memory in ``order``, outermost first: written
    contiguously in that order, then viewed back in array's own order of dims. Always a copy."""
    inverse = sorted(range(array.ndim), key=list(order).__getitem__)
    # (copy, not ascontiguousarray: that returns the array itself when it is in order already)
    return array.transpose(order).copy(order="C").transpose(inverse)
