"""Ops that move elements around without math: reshape, transpose, permute, expand,
cat, stack, split. Their backward moves the gradient back the same way.

Ops marked ``is_view`` may return a view of their input's memory, so the output shares
the input's version counter (an in-place change to one is a change to both)."""

from __future__ import annotations

import math

from .. import memory_format as _formats
from ..autograd.function import Function
from ..backend import memory_root, xp_of
from .indexing import scatter_at


class Reshape(Function):
    is_view = True

    def forward(self, x, shape=()):
        self.in_shape = x.shape
        out = x.reshape(shape)
        # a view unless x's layout forced a copy (an empty array holds no memory to share)
        self.is_view = out.size == 0 or xp_of(x).may_share_memory(out, x)
        return out

    def backward(self, grad):
        return grad.reshape(self.in_shape)


class Flip(Function):
    """Reverse the order along ``dims``; a copy, as in PyTorch (NumPy's flip is a view)."""

    def forward(self, x, dims=()):
        self.dims = dims
        return xp_of(x).ascontiguousarray(xp_of(x).flip(x, axis=dims))

    def backward(self, grad):
        return xp_of(grad).flip(grad, axis=self.dims)  # flipping again puts it back


class Permute(Function):
    """Reorder dims; transpose(d0, d1) is the permutation that swaps two of them."""

    is_view = True

    def forward(self, x, dims=()):
        self.dims = dims
        return x.transpose(dims)

    def backward(self, grad):
        inverse = [0] * len(self.dims)
        for i, d in enumerate(self.dims):
            inverse[d] = i
        return grad.transpose(inverse)


class Expand(Function):
    is_view = True

    def forward(self, x, shape=()):
        self.in_shape = x.shape
        if math.prod(shape) == x.size:  # nothing repeats (only 1s added): a writable view
            return x.reshape(shape)
        return xp_of(x).broadcast_to(x, shape)  # read-only: its elements share memory

    def backward(self, grad):
        from ..autograd.function import unbroadcast

        return unbroadcast(grad, self.in_shape)


class Contiguous(Function):
    """A copy laid out in memory as ``memory_format`` says (C order by default)."""

    def forward(self, x, memory_format=None):
        if memory_format is None:
            return xp_of(x).ascontiguousarray(x)
        return _formats.arranged(x, memory_format, "contiguous")

    def backward(self, grad):
        return grad


class Cat(Function):
    """The arrays joined along ``dim``; those at the positions ``left_out`` (1-D empty ones
    beside arrays of more dims, PyTorch's legacy rule) are not joined and get an empty
    gradient."""

    def forward(self, *arrays, dim=0, left_out=()):
        self.dim, self.left_out = dim, left_out
        self.sizes = [a.shape[dim] if i not in left_out else 0 for i, a in enumerate(arrays)]
        joined = [a for i, a in enumerate(arrays) if i not in left_out]
        return xp_of(arrays[0]).concatenate(joined, axis=dim)

    def backward(self, grad):
        grads, start = [], 0
        for i, (size, needed) in enumerate(zip(self.sizes, self.needs_input_grad)):
            if i in self.left_out:
                grads.append(xp_of(grad).zeros((0,), dtype=grad.dtype) if needed else None)
                continue
            index = [slice(None)] * grad.ndim
            index[self.dim] = slice(start, start + size)
            grads.append(grad[tuple(index)] if needed else None)
            start += size
        return tuple(grads)


class Stack(Function):
    def forward(self, *arrays, dim=0):
        self.dim = dim
        return xp_of(arrays[0]).stack(arrays, axis=dim)

    def backward(self, grad):
        xp = xp_of(grad)
        return tuple(
            xp.take(grad, i, axis=self.dim) if needed else None
            for i, needed in enumerate(self.needs_input_grad)
        )


# ----- split: one node for the whole split, one per piece ----------------------------------
# The engine gives every node one output. So that split's backward can still be one
# concatenate, each piece's node (SplitPiece) hands back only its own part of the gradient,
# labelled with its position (PieceGrads), and the pieces all lead to one Split node. The
# engine adds up what flows into a node; adding PieceGrads collects the labelled parts.
# (Cut out with plain indexing instead, each piece's backward would be a zero-filled array
# of the input's full size with its part written in, and the engine would add those up:
# 4-5x the memory traffic for q, k, v = qkv.split(C, dim=2) in attention.)
class PieceGrads:
    """The gradients of some of one split's pieces: {position: gradient array}."""

    def __init__(self, grads: dict) -> None:
        self.grads = grads

    def __add__(self, other: PieceGrads) -> PieceGrads:
        merged = dict(self.grads)
        for position, grad in other.grads.items():
            merged[position] = grad if position not in merged else merged[position] + grad
        return PieceGrads(merged)


class Split(Function):
    """Passes x through to its pieces (``SplitPiece``); backward puts their gradients side by
    side along ``dim``, zeros for a piece that got none."""

    is_view = True

    def forward(self, x, sizes=(), dim=0):
        self.sizes, self.dim, self.in_shape, self.dtype = sizes, dim, x.shape, x.dtype
        return x

    def backward(self, pieces):
        xp = xp_of(next(iter(pieces.grads.values())))
        parts = []
        for position, size in enumerate(self.sizes):
            grad = pieces.grads.get(position)
            if grad is None:  # this piece was not used
                shape = list(self.in_shape)
                shape[self.dim] = size
                grad = xp.zeros(shape, dtype=self.dtype)
            parts.append(grad)
        return xp.concatenate(parts, axis=self.dim)


class SplitPiece(Function):
    """One piece of a split: x[..., start:stop, ...] along ``dim`` (a view)."""

    is_view = True

    def forward(self, x, position=0, start=0, stop=0, dim=0):
        self.position = position
        return x[(slice(None),) * dim + (slice(start, stop),)]

    def backward(self, grad):
        return PieceGrads({self.position: grad})


# ----- diagonal: a view, and the op that writes one ----------------------------------------
def diagonal_view(a, offset, dim1, dim2):
    """The diagonal a[..., i, i + offset] of the matrices in dims ``dim1``, ``dim2`` as a new
    last dim: a view of a's memory that can be written (NumPy's own diagonal is marked
    read-only, but shares the memory all the same)."""
    view = xp_of(a).diagonal(a, offset, dim1, dim2)
    flags = getattr(view, "flags", None)  # NumPy only: CuPy's views are always writable
    if flags is not None and getattr(flags, "writeable", True) is False and a.flags.writeable:
        view.flags.writeable = True
    return view


class Diagonal(Function):
    """input.diagonal(offset, dim1, dim2): a view, as in PyTorch, so that writing into it
    (x.diagonal().zero_()) writes into input. Backward puts the gradient on the diagonal of
    zeros of the input's shape."""

    is_view = True

    def forward(self, x, offset=0, dim1=0, dim2=1):
        self.in_shape, self.offset, self.dim1, self.dim2 = x.shape, offset, dim1, dim2
        return diagonal_view(x, offset, dim1, dim2)

    def backward(self, grad):
        out = xp_of(grad).zeros(self.in_shape, dtype=grad.dtype)
        diagonal_view(out, self.offset, self.dim1, self.dim2)[...] = grad
        return out


def select_view(a, dim, index):
    """a[..., index, ...] with the index in dim ``dim``: a view (the trailing ... keeps a
    0-d result an array that can be written into, not a number)."""
    return a[(slice(None),) * dim + (index, Ellipsis)]


def slice_view(a, dim, start, stop, step):
    """a[..., start:stop:step, ...] along dim ``dim``: a view."""
    return a[(slice(None),) * dim + (slice(start, stop, step),)]


def strided_view(a, size, stride, offset):
    """The (size, stride) view, strides in elements, ``offset`` elements into the memory of
    a C-contiguous ``a`` (a copy of it when it is not: for reading only)."""
    flat = a.reshape(-1)
    byte_strides = tuple(s * a.itemsize for s in stride)
    return xp_of(a).lib.stride_tricks.as_strided(flat[offset:], size, byte_strides)


class ViewScatter(Function):
    """diagonal_scatter, select_scatter, slice_scatter, as_strided_scatter: a copy of input
    with src written into one view of it, the one ``view(array)`` gives (its diagonal, a
    slice...). The gradient goes to input outside the view and to src inside it."""

    def forward(self, x, src, view=None):
        self.view = view
        out = x.copy()  # C-contiguous, as strided_view needs
        view(out)[...] = src
        return out

    def backward(self, grad):
        gx = gsrc = None
        if self.needs_input_grad[0]:
            gx = grad.copy()
            self.view(gx)[...] = 0
        if self.needs_input_grad[1]:
            gsrc = self.view(grad).copy()
        return gx, gsrc


# ----- unfold: windows as a view -----------------------------------------------------------
def windows_view(a, dim, size, step):
    """Every window of ``size`` elements along ``dim``, ``step`` apart: ``dim`` becomes the
    windows and a new last dim their elements. A view of a's memory (where windows overlap,
    they share it), made by giving the same memory new strides."""
    count = (a.shape[dim] - size) // step + 1
    shape = a.shape[:dim] + (count,) + a.shape[dim + 1 :] + (size,)
    strides = a.strides[:dim] + (a.strides[dim] * step,) + a.strides[dim + 1 :] + (a.strides[dim],)
    return xp_of(a).lib.stride_tricks.as_strided(a, shape, strides)


class Unfold(Function):
    """x.unfold(dim, size, step): a view, as in PyTorch. Backward adds each window's
    gradient back where its elements came from (overlapping windows add up)."""

    is_view = True

    def forward(self, x, dim=0, size=0, step=1):
        self.in_shape, self.dim, self.size, self.step = x.shape, dim, size, step
        return windows_view(x, dim, size, step)

    def backward(self, grad):
        out = xp_of(grad).zeros(self.in_shape, dtype=grad.dtype)
        last = self.step * (grad.shape[self.dim] - 1) + 1  # window starts 0, step, ..., last-1
        for j in range(self.size):  # element j of every window: x[start + j] along dim
            out[(slice(None),) * self.dim + (slice(j, j + last, self.step),)] += grad[..., j]
        return out


# ----- as_strided: any sizes and strides over the memory a tensor views --------------------
def _storage(a):
    """All the memory ``a`` views (from the array that owns it), flat, in a's dtype."""
    root = memory_root(a)
    if not root.flags.c_contiguous:
        raise RuntimeError(
            "as_strided: the memory this tensor views is not one contiguous block here; "
            "call .contiguous() first and take the strides from that"
        )
    return root.reshape(-1).view(a.dtype)


def _element_positions(xp, offset, size, stride):
    """Where in the storage each element of a (size, stride, offset) view lies: an int64
    array of shape ``size``."""
    where = xp.full(tuple(size), offset, dtype="int64")
    for d, (n, s) in enumerate(zip(size, stride)):
        step = xp.arange(n, dtype="int64") * s
        where += step.reshape((n,) + (1,) * (len(size) - d - 1))
    return where


class AsStrided(Function):
    """x.as_strided(size, stride, storage_offset): a view of the memory x views, with these
    sizes and strides (in elements) from that offset. Elements that the view shows more
    than once add up their gradients; x's elements the view does not show get none."""

    is_view = True

    def forward(self, x, size=(), stride=(), storage_offset=0, start=0):
        storage = _storage(x)
        needed = storage_offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
        if 0 not in size and needed > storage.shape[0]:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{storage_offset}, and itemsize {x.itemsize} requiring a storage size of "
                f"{needed * x.itemsize} are out of bounds for storage of size "
                f"{storage.shape[0] * x.itemsize}"
            )
        self.storage_size, self.dtype = storage.shape[0], x.dtype
        self.view_at = (size, stride, storage_offset)
        self.x_at = (x.shape, tuple(s // x.itemsize for s in x.strides), start)
        byte_strides = tuple(s * x.itemsize for s in stride)
        return xp_of(x).lib.stride_tricks.as_strided(storage[storage_offset:], size, byte_strides)

    def backward(self, grad):
        xp = xp_of(grad)
        size, stride, offset = self.view_at
        memory = xp.zeros(self.storage_size, dtype=grad.dtype)  # the gradient of each element
        scatter_at("add", memory, _element_positions(xp, offset, size, stride).reshape(-1),
                   grad.reshape(-1))  # fmt: skip
        shape, x_stride, start = self.x_at
        return memory[_element_positions(xp, start, shape, x_stride)]
