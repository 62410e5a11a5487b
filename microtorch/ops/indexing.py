"""Indexing (``x[...]``), masked_fill, tril/triu, and gather-style picks.

Reading ``x[index]`` is one op for every kind of index (ints, slices, None, ...,
integer arrays, boolean masks). Its backward scatters the gradient back with
``add.at`` so that an index repeated k times receives k gradients."""

from __future__ import annotations

from ..autograd.function import Function, unbroadcast
from ..backend import xp_of

# The dtypes CuPy's ufunc.at takes (CuPy 14); for others scatter_at works in a wider type.
_CUPY_AT_DTYPES = {
    "add": ("int32", "int64", "uint32", "uint64", "float16", "float32", "float64"),
    "maximum": ("int32", "int64", "uint32", "uint64"),  # floats: see scatter_at
    "minimum": ("int32", "int64", "uint32", "uint64"),
}
_LOW_63_BITS = 0x7FFF_FFFF_FFFF_FFFF


def scatter_at(ufunc: str, out, where, values) -> None:
    """out[where] = ufunc(out[where], values), every repeated position applied in turn: NumPy's
    ``ufunc.at`` for ufunc "add", "maximum" or "minimum", on every dtype and backend.

    CuPy's ``.at`` refuses bool and 8/16-bit integers (and float16 for maximum/minimum): those
    are done in int64 (or float64), then cast back, which gives the same numbers (integer
    sums wrap around as in the small type). Its float maximum/minimum compare in float32 and
    skip NaN, so floats go through ``_ordered_keys`` instead: int64 keys in the floats' order,
    where CuPy's integer atomicMax/atomicMin are exact."""
    xp = xp_of(out)
    scatter = getattr(xp, ufunc).at
    if xp.__name__ != "cupy" or out.dtype.name in _CUPY_AT_DTYPES[ufunc]:
        scatter(out, where, values)
    elif ufunc != "add" and out.dtype.kind == "f":
        nan_key = _LOW_63_BITS if ufunc == "maximum" else -_LOW_63_BITS - 1  # NaN wins
        keys = _ordered_keys(out, nan_key, xp)
        scatter(keys, where, _ordered_keys(xp.asarray(values, dtype=out.dtype), nan_key, xp))
        out[...] = _from_ordered_keys(keys, nan_key, xp).astype(out.dtype)
    else:
        wide = out.astype("float64" if out.dtype.kind == "f" else "int64")
        scatter(wide, where, xp.asarray(values).astype(wide.dtype))
        out[...] = wide.astype(out.dtype)


def _ordered_keys(a, nan_key: int, xp):
    """int64 keys that sort as a's values do: a float64's bits read as an int64 already sort
    right for positive floats; for negative ones the 63 low bits are flipped. NaN -> nan_key."""
    bits = a.astype("float64").view("int64")
    keys = xp.where(bits < 0, bits ^ _LOW_63_BITS, bits)
    return xp.where(xp.isnan(a), nan_key, keys)


def _from_ordered_keys(keys, nan_key: int, xp):
    """The float64 values of ``_ordered_keys`` (the flip undoes itself)."""
    values = xp.where(keys < 0, keys ^ _LOW_63_BITS, keys).view("float64")
    return xp.where(keys == nan_key, xp.nan, values)


def add_rows_at(out, idx, rows):
    """out[idx[n]] += rows[n] for every n, so that a row picked k times gets k gradients
    (idx: 1-D integer array, rows: (len(idx), *out.shape[1:])).

    This is NumPy's ``add.at(out, idx, rows)``, which adds one row at a time. On the CPU it is
    done 3-6x faster by sorting the indices so that equal ones are neighbours and adding up
    each run of equal indices with one ``reduceat``; CuPy keeps its scatter-add."""
    xp = xp_of(out)
    if xp.__name__ == "cupy" or idx.size == 0:
        xp.add.at(out, idx, rows)
        return
    idx = xp.where(idx < 0, idx + out.shape[0], idx)  # x[-1] is the last row
    order = xp.argsort(idx, kind="stable")
    sorted_idx = idx[order]
    starts = xp.flatnonzero(xp.concatenate(([True], sorted_idx[1:] != sorted_idx[:-1])))
    out[sorted_idx[starts]] += xp.add.reduceat(rows[order], starts, axis=0)


def is_basic_index(index: tuple) -> bool:
    """Basic indexing (ints, slices, None, ...) gives a view and never repeats an element."""
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice)) for i in index)


class GetItem(Function):
    is_view = True  # basic indexing returns a view of the same memory

    def forward(self, x, index=()):
        self.in_shape, self.dtype, self.index = x.shape, x.dtype, index
        self.is_view = is_basic_index(index)  # integer-array or mask indexing makes a copy
        out = x[index]
        if self.is_view and type(out) is not type(x):  # x[i] of a 1-D NumPy array: a scalar
            out = x[index + (Ellipsis,)]  # ...but x[i, ...] is a 0-d view of x's memory
        return out

    def backward(self, grad):
        xp = xp_of(grad)
        full = xp.zeros(self.in_shape, dtype=self.dtype)
        index = self.index
        kind = getattr(getattr(index[0], "dtype", None), "kind", "") if len(index) == 1 else ""
        if is_basic_index(index):
            full[index] = grad
        elif kind == "b":
            full[index] = grad  # a boolean mask picks each element at most once
        elif kind in ("i", "u"):
            # x[idx] with an integer array: whole rows, repeated indices accumulate
            idx = index[0].reshape(-1)
            add_rows_at(full, idx, grad.reshape((idx.size,) + self.in_shape[1:]))
        else:
            xp.add.at(full, index, grad)  # repeated indices accumulate
        return full


def view_to_index(a, steps):
    """a[steps[0]][steps[1]]... up to the last step: a view that ``steps[-1]`` then indexes.
    (An index in PyTorch's order can take two NumPy steps: ints and slices, then arrays.)"""
    for index in steps[:-1]:
        a = a[index]
    return a


class IndexPut(Function):
    """out = x with out[index] = value (the out-of-place form of ``x[index] = value``);
    ``steps``: the index as one or two NumPy indexes applied in turn."""

    def forward(self, x, value, steps=((),)):
        self.steps = steps
        self.value_shape = getattr(value, "shape", ())
        out = x.copy()
        view_to_index(out, steps)[steps[-1]] = value
        return out

    def backward(self, grad):
        gx = gv = None
        if self.needs_input_grad[0]:
            gx = xp_of(grad).array(grad)  # a copy (and an array even if grad is a 0-d scalar)
            view_to_index(gx, self.steps)[self.steps[-1]] = 0  # overwritten: not from x
        if self.needs_input_grad[1]:
            gv = unbroadcast(view_to_index(grad, self.steps)[self.steps[-1]], self.value_shape)
        return gx, gv


class MaskedFill(Function):
    def forward(self, x, mask, value=0.0):
        self.mask = mask
        self.in_shape = x.shape
        return xp_of(x).where(mask, x.dtype.type(value), x)

    def backward(self, grad):
        zero = grad.dtype.type(0)
        return unbroadcast(xp_of(grad).where(self.mask, zero, grad), self.in_shape), None


class Tri(Function):
    """tril (upper=False) or triu (upper=True) of the last two dims."""

    def forward(self, x, diagonal=0, upper=False):
        xp = xp_of(x)
        self.upper, self.diagonal = upper, diagonal
        return xp.triu(x, diagonal) if upper else xp.tril(x, diagonal)

    def backward(self, grad):
        xp = xp_of(grad)
        return xp.triu(grad, self.diagonal) if self.upper else xp.tril(grad, self.diagonal)

    def name(self) -> str:
        return "TriuBackward0" if self.upper else "TrilBackward0"


def along_dim(index, dim):
    """The positions ``index`` names along ``dim``, as an index tuple: arange(n) along every
    other axis (each shaped to broadcast: (n0, 1, 1), (1, n1, 1), ...) and ``index`` along
    dim. ``x[along_dim(index, d)]`` is gather; assigning to it, or add.at, is scatter."""
    xp = xp_of(index)
    shape = index.shape
    grid = [
        xp.arange(n).reshape((1,) * d + (n,) + (1,) * (len(shape) - d - 1))
        for d, n in enumerate(shape)
    ]
    grid[dim] = index
    return tuple(grid)


class TakeAlongDim(Function):
    """gather(x, dim, index): out[..i..] = x[..index[i]..] along ``dim``."""

    def forward(self, x, index=None, dim=0):
        self.in_shape, self.index, self.dim = x.shape, index, dim
        return xp_of(x).take_along_axis(x, index, axis=dim)

    def backward(self, grad):
        full = xp_of(grad).zeros(self.in_shape, dtype=grad.dtype)
        xp_of(grad).add.at(full, along_dim(self.index, self.dim), grad)
        return full


class Scatter(Function):
    """The reverse of gather: out = x, then out[..index[i]..] along ``dim`` is set to src[i]
    (``add=True``: increased by src[i], so repeated indices add up). src is cut to index's
    shape. The gradient reaches src through gather; x's gradient is 0 where it was set."""

    def forward(self, x, src, index=None, dim=0, add=False):
        self.where, self.add = along_dim(index, dim), add
        self.src_shape, self.used = src.shape, tuple(slice(0, n) for n in index.shape)
        out = x.copy()
        if add:
            scatter_at("add", out, self.where, src[self.used])
        else:
            out[self.where] = src[self.used]
        return out

    def backward(self, grad):
        xp = xp_of(grad)
        gx = gs = None
        if self.needs_input_grad[0]:
            gx = grad if self.add else grad.copy()
            if not self.add:
                gx[self.where] = 0  # those values were replaced
        if self.needs_input_grad[1]:
            gs = xp.zeros(self.src_shape, dtype=grad.dtype)
            gs[self.used] = grad[self.where]  # gather: each src element's one position
        return gx, gs

    def name(self) -> str:
        return "ScatterAddBackward0" if self.add else "ScatterBackward0"  # (PyTorch's two)


class ScatterReduce(Function):
    """out = x, then every src[i] is combined into out[..index[i]..] along ``dim`` with
    ``reduce``: "sum", "prod", "mean", "amax" or "amin" (include_self=False: x's values at
    the positions that receive src are left out). src is cut to index's shape.

    Gradients (as PyTorch's): sum passes the gradient to x and gathers it for src; mean
    divides it by each position's count first; amax/amin share it evenly among the
    elements (of x and src) equal to the result; prod: d out / d v is the product of the
    other factors of v's position, zeros included."""

    def forward(self, x, src, index=None, dim=0, reduce="sum", include_self=True):
        xp = xp_of(x)
        self.where, self.reduce = along_dim(index, dim), reduce
        self.src_shape, self.used = src.shape, tuple(slice(0, n) for n in index.shape)
        src = src[self.used]
        hit = xp.zeros(x.shape, dtype="int64")  # how many src values reach each position
        xp.add.at(hit, self.where, 1)
        out = x.copy()
        if not include_self:  # start the positions that receive src from reduce's identity
            out[self.where] = self.identity(x.dtype, reduce, xp)
        if reduce in ("sum", "mean"):
            scatter_at("add", out, self.where, src)
        elif reduce == "amax":
            scatter_at("maximum", out, self.where, src)
        elif reduce == "amin":
            scatter_at("minimum", out, self.where, src)
        else:
            self.dim = dim
            multiply_at(out, self.where, src, dim)
        if reduce == "mean":
            count = hit + (1 if include_self else 0)
            count = xp.maximum(count, 1).astype(x.dtype)  # untouched positions keep x
            out = out // count if x.dtype.kind in "iu" else out / count
            self.count = count
        self.hit = hit
        self.kept = (hit == 0) if not include_self else None  # where x still counts
        self.save_for_backward(x, src, out)
        return out

    @staticmethod
    def identity(dtype, reduce, xp):
        if reduce in ("sum", "mean"):
            return 0
        if reduce == "prod":
            return 1
        if dtype.kind == "f":
            return -xp.inf if reduce == "amax" else xp.inf
        if dtype.kind == "b":  # the smallest bool is False, the largest True
            return reduce == "amin"
        return xp.iinfo(dtype).min if reduce == "amax" else xp.iinfo(dtype).max

    def backward(self, grad):
        xp = xp_of(grad)
        x, src, out = self.saved
        if self.reduce == "mean":
            grad = grad / self.count
        if self.reduce in ("amax", "amin"):  # shared by every element equal to the result
            x_wins = x == out  # (counted even where include_self=False left x out, as
            src_wins = src == out[self.where]  # PyTorch does; x's share is then dropped)
            winners = x_wins.astype(grad.dtype)
            xp.add.at(winners, self.where, src_wins.astype(grad.dtype))
            grad = grad / winners
            gx, gs = grad * x_wins, grad[self.where] * src_wins
        elif self.reduce == "prod":  # the product of the other factors, zeros among them too
            others = xp.ones_like(x)  # for x: the product of the src values it meets
            multiply_at(others, self.where, src, self.dim)
            gx = grad * others
            # for src: out / v where v != 0; where v is its position's only zero src, out
            # recomputed with v as 1; where there are more zeros, 0 (= out / 1)
            zero = src == 0
            zeros = xp.zeros(x.shape, dtype="int64")
            xp.add.at(zeros, self.where, zero.astype("int64"))
            alone = zero & (zeros[self.where] == 1)
            without = x.copy() if self.kept is None else xp.where(self.kept, x, 1).astype(x.dtype)
            multiply_at(without, self.where, xp.where(alone, 1, src).astype(src.dtype), self.dim)
            divided = (grad * out)[self.where] / xp.where(zero, 1, src)
            gs = xp.where(alone, (grad * without)[self.where], divided)
        else:
            gx, gs = grad, grad[self.where]
        if self.kept is not None:
            gx = gx * self.kept  # x's values at positions that received src were left out
        full = xp.zeros(self.src_shape, dtype=grad.dtype)
        full[self.used] = gs
        return gx.astype(grad.dtype, copy=False), full


def multiply_at(out, where, src, dim):
    """out[where] *= src where positions repeat (where from along_dim(index, dim)): CuPy has
    no multiply.at, and one slice of index along dim at a time has no repeated position."""
    xp = xp_of(out)
    for j in range(src.shape[dim]):
        part = tuple(w.take([j], axis=dim) for w in xp.broadcast_arrays(*where))
        out[part] *= src.take([j], axis=dim)


class IndexAccumulate(Function):
    """out = x, then value (broadcast to out[index]'s shape) is added at ``index`` (a tuple
    of integer arrays), so repeated positions add up: index_put(..., accumulate=True).
    Gradients: x's passes through; value's is the gradient at index, summed back to its
    shape."""

    def forward(self, x, value, index=()):
        xp = xp_of(x)
        self.index, self.value_shape = index, value.shape
        out = x.copy()
        scatter_at("add", out, index, xp.broadcast_to(value, out[index].shape))
        return out

    def backward(self, grad):
        gv = unbroadcast(grad[self.index], self.value_shape) if self.needs_input_grad[1] else None
        return grad, gv


class IndexAdd(Function):
    """out = x, then out's slice ``index[i]`` along ``dim`` is increased by alpha * source's
    slice i (repeated indices add up). Gradients: x's passes through; source's is the
    gradient's slices at index, times alpha."""

    def forward(self, x, source, index=None, dim=0, alpha=1):
        xp = xp_of(x)
        self.index, self.dim, self.alpha = index, dim, alpha
        out = xp.moveaxis(x, dim, 0).copy()  # dim first: index picks rows
        rows = xp.moveaxis(source if alpha == 1 else source * alpha, dim, 0)
        if out.dtype == bool:  # a bool "+" is "or" (as in PyTorch): add counts, then test
            counts = out.astype("int64")
            add_rows_at(counts, index, rows.astype("int64"))
            out = counts != 0
        else:
            add_rows_at(out, index, rows)
        return xp.moveaxis(out, 0, dim)

    def backward(self, grad):
        gx = grad if self.needs_input_grad[0] else None
        gs = None
        if self.needs_input_grad[1]:
            gs = xp_of(grad).take(grad, self.index, axis=self.dim)
            if self.alpha != 1:
                gs = gs * self.alpha
        return gx, gs
