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


def check_layout(layout: Any, pin_memory: Any, op: str) -> None:
    """A factory's ``layout=`` and ``pin_memory=``, accepted at their defaults only (None or
    strided; None or False): microtorch has no sparse layouts and no pinned host memory."""
    if layout is not None and layout is not strided:
        raise NotImplementedError(
            f"{op}: layout={layout!r} is not supported: microtorch tensors are dense "
            f"(layout=microtorch.strided, the default)"
        )
    if pin_memory:
        raise NotImplementedError(
            f"{op}: pin_memory=True is not supported: microtorch has no pinned host memory "
            f"(leave pin_memory=False; .to('cuda') copies ordinary memory)"
        )


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


def dim_order(tensor: Any, ambiguity_check: Any = False) -> tuple:
    """``tensor.dim_order()``: its dims from outermost to innermost in memory. Contiguous
    and channels_last tensors take their format's order; otherwise the dims are ordered
    by stride, a stable sort from the innermost that leaves dims in place where strides do
    not decide (a 0 stride, or equal strides with the outer dim no longer), as PyTorch."""
    if not isinstance(ambiguity_check, (bool, list)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    shape, strides = tuple(tensor.shape), tensor.stride()
    if ambiguity_check is not False and _order_is_open(shape, strides):
        formats = ambiguity_check if isinstance(ambiguity_check, list) else []
        if sum(_fits(shape, strides, f) for f in formats) != 1:
            raise RuntimeError(
                "The tensor does not have unique dim order, or cannot map to exact one of the "
                "given memory formats."
            )
    ndim = len(shape)
    if ndim < 2:
        return tuple(range(ndim))
    plain, last = _fits(shape, strides, contiguous_format), _fits(shape, strides, channels_last)
    if plain != last:
        return tuple(range(ndim)) if plain else (0, *range(2, ndim), 1)

    def outer(a: int, b: int) -> int:  # 1: dim a lies outside dim b; -1 inside; 0 undecided
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] == strides[b]:
            return 1 if shape[a] > shape[b] else 0
        return 1 if strides[a] > strides[b] else -1

    inner_first = list(range(ndim - 1, -1, -1))  # the innermost dim first
    for i in range(1, ndim):
        at = i  # where the dim being placed now is; it moves in past each dim outside it,
        for other in range(i - 1, -1, -1):  # skips undecided ones, stops at one inside it
            order = outer(inner_first[other], inner_first[at])
            if order < 0:
                break
            if order > 0:
                inner_first[other], inner_first[at] = inner_first[at], inner_first[other]
                at = other
    if ambiguity_check is not False and any(
        outer(a, b) != -1 for a, b in zip(inner_first, inner_first[1:])
    ):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(inner_first))


def _fits(shape: tuple, strides: tuple, fmt: Any) -> bool:
    """Do these sizes and strides lay a tensor out in ``fmt``'s order, with no gaps? (Size-1
    dims may have any stride; an empty tensor is contiguous; False for a format of another
    rank.)"""
    order = {contiguous_format: len(shape), channels_last: 4, channels_last_3d: 5}.get(fmt)
    if order != len(shape):
        return False
    if fmt is contiguous_format and 0 in shape:
        return True
    expected = 1
    for d in reversed(dims_order(fmt, len(shape), "dim_order")):
        if shape[d] != 1 and strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def _order_is_open(shape: tuple, strides: tuple) -> bool:
    """Could the dims be put in more than one order: a size-1 dim, or two neighbours with
    equal strides?"""
    return 1 in shape or any(a == b for a, b in zip(strides, strides[1:]))


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
