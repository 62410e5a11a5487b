"""Reductions: sum mean prod max min var over all elements or over ``dim`` (int or tuple),
``keepdim``.

Backward puts the reduced dims back (size 1) and broadcasts the gradient over them."""

from __future__ import annotations

from ..autograd.function import Function
from ..backend import xp_of
from .elementwise import _float16_as_float32, _in_float32


def _restore_dims(grad, axes, keepdim, in_shape):
    """Reshape ``grad`` so that it broadcasts against the input."""
    if axes is None:
        return grad.reshape((1,) * len(in_shape))
    if not keepdim:
        grad = xp_of(grad).expand_dims(grad, axes)
    return grad


class Sum(Function):
    def forward(self, x, axes=None, keepdim=False, dtype=None):
        self.in_shape, self.axes, self.keepdim = x.shape, axes, keepdim
        self.in_dtype = x.dtype  # sum(dtype=float64) of float32: the gradient is float32
        return x.sum(axis=axes, keepdims=keepdim, dtype=dtype)

    def backward(self, grad):
        grad = _restore_dims(grad, self.axes, self.keepdim, self.in_shape)
        return xp_of(grad).broadcast_to(grad.astype(self.in_dtype, copy=False), self.in_shape)

    def name(self) -> str:
        return "SumBackward0" if self.axes is None else "SumBackward1"  # (all / along dims)


class Mean(Function):
    def forward(self, x, axes=None, keepdim=False):
        self.in_shape, self.axes, self.keepdim = x.shape, axes, keepdim
        out = x.mean(axis=axes, keepdims=keepdim)
        self.count = x.size // max(out.size, 1) if x.size else 0
        return out

    def backward(self, grad):
        grad = _restore_dims(grad, self.axes, self.keepdim, self.in_shape)
        return xp_of(grad).broadcast_to(grad / self.count, self.in_shape)

    def name(self) -> str:
        return "MeanBackward0" if self.axes is None else "MeanBackward1"


class Prod(Function):
    """The product of the elements. d/dx_i = the product of the others: prod / x_i where no
    element is 0; with one 0, only that element has a gradient (the product of the others);
    with two or more, none has (as in PyTorch, without ever dividing by 0)."""

    def forward(self, x, axes=None, keepdim=False, dtype=None):
        self.axes, self.keepdim = axes, keepdim
        out = x.prod(axis=axes, keepdims=True, dtype=dtype)
        self.save_for_backward(x, out)
        if keepdim:
            return out
        return out.reshape(()) if axes is None else out.squeeze(axis=axes)

    def backward(self, grad):
        x, out = self.saved
        xp = xp_of(x)
        grad = _restore_dims(grad, self.axes, self.keepdim, x.shape)
        if x.ndim == 0:  # the product of one number is that number: d/dx = 1
            return grad.astype(x.dtype, copy=False)
        zero = x == 0
        zeros = zero.sum(axis=self.axes, keepdims=True)  # per product: how many 0s
        others = xp.where(zero, 1, x).prod(axis=self.axes, keepdims=True)  # the nonzero ones
        local = xp.where(zeros == 0, out / xp.where(zero, 1, x), 0)  # no 0: prod / x_i
        local = xp.where((zeros == 1) & zero, others, local)  # one 0: it gets the rest
        return (grad * local).astype(x.dtype, copy=False)

    def name(self) -> str:
        return "ProdBackward0" if self.axes is None else "ProdBackward1"


class NonzeroCount(Function):
    """How many elements are not 0 (a nan counts) over ``axes``, in x's float dtype: the
    0-"norm". Its derivative is 0 wherever it exists; PyTorch's backward gives x no
    gradient at all (x.grad stays None), and so does this one."""

    def forward(self, x, axes=None, keepdim=False):
        return (x != 0).sum(axis=axes, keepdims=keepdim).astype(x.dtype)

    def backward(self, grad):
        return None


# What PyTorch's CPU kernels accumulate float16 and float32 in (var, cumprod, cumsum): the
# result is rounded once from there.
_WIDER = {"float16": "float32", "float32": "float64"}


def _reverse_cumsum(a, axis):
    """sum_{j >= k} a_j along ``axis``, for every k (accumulated in a wider float, each sum
    rounded once, as PyTorch's cumsum)."""
    xp = xp_of(a)
    wide = _WIDER.get(a.dtype.name)
    sums = xp.cumsum(xp.flip(a, axis), axis=axis, dtype=wide)
    return xp.flip(sums, axis).astype(a.dtype, copy=False)


class Cumprod(Function):
    """The running product y_k = x_0 x_1 ... x_k along ``axis``.

    dL/dx_k = sum_{j >= k} g_j y_j / x_k, which divides by 0 where x_k is 0; so, per row,
    with z the first 0: before z that formula holds (x_k is not 0); at z it is
    sum_{j >= z} g_j p_j, p the running product with x_z taken as 1 (no division); after z
    every product the element is in also holds x_z = 0, so its gradient is 0."""

    def forward(self, x, axis=0, dtype=None):
        self.axis = axis
        # float16 multiplied in float32 (float32 in float64), each product rounded once from
        # there, as PyTorch's kernel
        wide = _WIDER.get(x.dtype.name) if dtype is None else dtype
        out = xp_of(x).cumprod(x, axis=axis, dtype=wide).astype(dtype or x.dtype, copy=False)
        self.save_for_backward(x, out)
        return out

    def backward(self, grad):
        x, out = self.saved
        xp, axis = xp_of(x), self.axis
        grad = grad.astype(x.dtype, copy=False)
        zero = x == 0
        zeros_so_far = xp.cumsum(zero, axis=axis)
        before = zeros_so_far == 0  # no 0 up to and including k
        first = zero & (zeros_so_far == 1)
        g_before = _reverse_cumsum(grad * out, axis) / xp.where(before, x, 1)
        skipped = xp.cumprod(xp.where(first, 1, x), axis=axis)  # the product without x_z
        g_first = _reverse_cumsum(grad * skipped, axis)
        return xp.where(before, g_before, xp.where(first, g_first, 0)).astype(x.dtype, copy=False)


class MaxAll(Function):
    """max()/min() of all elements, or amax()/amin() over ``axes``; ties share the gradient
    evenly (PyTorch's rule for these). Where the result is nan, PyTorch's max() and min()
    give the gradient to the nans (``nan_wins``); its amax and amin give nan (0 / 0)."""

    def forward(self, x, largest=True, axes=None, keepdim=False, nan_wins=False):
        kept = x.max(axis=axes, keepdims=True) if largest else x.min(axis=axes, keepdims=True)
        self.axes, self.keepdim, self.nan_wins = axes, keepdim, nan_wins
        self.save_for_backward(x, kept)
        return kept if keepdim else kept.squeeze(axis=axes)

    def backward(self, grad):
        x, kept = self.saved
        grad = _restore_dims(grad, self.axes, self.keepdim, x.shape)
        winners = x == kept
        if self.nan_wins and x.dtype.kind == "f":
            xp = xp_of(x)
            winners |= xp.isnan(x) & xp.isnan(kept)
        return grad * winners / winners.sum(axis=self.axes, keepdims=True, dtype=x.dtype)


class InfNorm(Function):
    """max(|x|) over ``axes`` (the inf norm), or min(|x|) (the -inf norm). The gradient is
    sign(x) shared evenly by the entries whose |x| is the norm, as PyTorch's norm backward
    has it; a norm of nan (a nan in the row) equals no entry, so the row's gradient is 0
    (abs then amax would give nan: amax sends nan to every entry)."""

    def forward(self, x, largest=True, axes=None, keepdim=False):
        xp = xp_of(x)
        size = xp.abs(x)
        kept = size.max(axis=axes, keepdims=True) if largest else size.min(axis=axes, keepdims=True)
        self.axes, self.keepdim = axes, keepdim
        self.save_for_backward(x, kept)
        return kept if keepdim else kept.squeeze(axis=axes)

    def backward(self, grad):
        x, kept = self.saved
        xp = xp_of(x)
        grad = _restore_dims(grad, self.axes, self.keepdim, x.shape)
        winners = xp.abs(x) == kept
        count = winners.sum(axis=self.axes, keepdims=True, dtype=x.dtype)
        share = grad * winners / xp.maximum(count, 1)  # 0 where none wins
        return share * xp.where(xp.isnan(x), 0, xp.sign(x)).astype(x.dtype, copy=False)


class PNorm(Function):
    """sum(|x|^p)^(1/p) over ``axes``, for p other than 0, 1 and +-inf. float16 is summed in
    float32 and rounded once, as in PyTorch (a float16 norm of 3e4 is finite); the gradient
    takes PyTorch's steps in x's dtype (float16 rounds each one), 0 where the norm is 0:
    p = 2: grad * (x / norm); p > 1: x |x|^(p-2) (sign(x) |x|^(p-1) for p < 2) times
    grad / norm^(p-1); p < 1: sign(x) |x|^(p-1) (0 at x = 0) * grad * norm^(1-p)."""

    def forward(self, x, p=2.0, axes=None, keepdim=False):
        xp = xp_of(x)
        self.p, self.axes, self.keepdim = p, axes, keepdim
        wide = _float16_as_float32(x)
        if p == 2:
            norm = xp.sqrt((wide * wide).sum(axis=axes, keepdims=True))
        else:
            norm = ((xp.abs(wide) ** p).sum(axis=axes, keepdims=True)) ** (1 / p)
        norm = norm.astype(x.dtype)
        self.save_for_backward(x, norm)
        return norm if keepdim else norm.reshape(()) if axes is None else norm.squeeze(axis=axes)

    def backward(self, grad):
        x, norm = self.saved
        xp, p = xp_of(x), self.p
        grad = _restore_dims(grad, self.axes, self.keepdim, x.shape)
        zero = norm == 0
        safe = xp.where(zero, 1, norm)  # (the 1 only keeps x / 0 away: those are 0)
        if p == 2:
            return grad * xp.where(zero, 0, x / safe)
        if p >= 2:
            scaled = x * _in_float32(lambda a: a ** (p - 2), xp.abs(x))
        else:  # (|x|^(p-1) is infinite at 0 for p < 1: taken as 0 there, as in PyTorch)
            power = _in_float32(lambda a: a ** (p - 1), xp.abs(x))
            scaled = xp.sign(x) * (xp.where(x == 0, 0, power) if p < 1 else power)
        if p < 1:
            return scaled * grad * _in_float32(lambda n: n ** (1 - p), norm)
        return scaled * xp.where(zero, 0, grad / _in_float32(lambda n: n ** (p - 1), safe))

    def name(self) -> str:
        return "LinalgVectorNormBackward0"


class MaxDim(Function):
    """max(dim)/min(dim): values and the index of the first winner; the gradient goes
    to that index only."""

    def forward(self, x, dim=0, keepdim=False, largest=True):
        xp = xp_of(x)
        self.in_shape, self.dim, self.keepdim, self.largest = x.shape, dim, keepdim, largest
        idx = xp.argmax(x, axis=dim) if largest else xp.argmin(x, axis=dim)
        idx = xp.expand_dims(idx, dim)
        values = xp.take_along_axis(x, idx, axis=dim)
        self.indices = idx
        if not keepdim:
            values = values.squeeze(dim)
        return values

    def backward(self, grad):
        xp = xp_of(grad)
        if not self.keepdim:
            grad = xp.expand_dims(grad, self.dim)
        full = xp.zeros(self.in_shape, dtype=grad.dtype)
        xp.put_along_axis(full, self.indices, grad, axis=self.dim)
        return full

    def name(self) -> str:
        return "MaxBackward0" if self.largest else "MinBackward0"


class Var(Function):
    """Variance with ``correction`` (1 = unbiased, Bessel's correction), or with ``root`` its
    square root, the standard deviation. As PyTorch's CPU kernels, float16 and float32 are
    accumulated in the next wider float and rounded once (std([1e30, -1e30]) in float32 is
    finite); the gradient takes PyTorch's steps in x's dtype (float16 rounds each one)."""

    def forward(self, x, axes=None, correction=1, keepdim=False, root=False):
        xp = xp_of(x)
        self.in_shape, self.axes, self.keepdim, self.root = x.shape, axes, keepdim, root
        wide = x.astype(_WIDER.get(x.dtype.name, x.dtype))
        centered = wide - wide.mean(axis=axes, keepdims=True)
        n = x.size // max(centered.mean(axis=axes).size, 1) if x.size else 0
        self.denominator = max(n - correction, 0)
        sq = (centered * centered).sum(axis=axes, keepdims=keepdim)
        # no degrees of freedom left (denominator 0): inf, or nan where sq is 0, as in PyTorch
        out = sq / self.denominator
        out = (xp.sqrt(out) if root else out).astype(x.dtype)
        self.save_for_backward(x, out if root else None)
        return out

    def backward(self, grad):
        x, out = self.saved
        xp = xp_of(x)
        grad = _restore_dims(grad, self.axes, self.keepdim, self.in_shape)
        if self.root:  # d std = d var / (2 std); 0 where std is 0, as in PyTorch
            out = _restore_dims(out, self.axes, self.keepdim, self.in_shape)
            grad = xp.where(out == 0, 0, grad / (xp.where(out == 0, 1, out) * 2))
        centered = x - x.mean(axis=self.axes, keepdims=True)
        if self.denominator == 0:  # (PyTorch's: nan where x is its mean, else inf)
            return grad * xp.where(centered == 0, xp.nan, xp.inf).astype(x.dtype)
        # d var / dx = 2 (x - mean) / denominator, as (2 / denominator * grad) * (x - mean)
        return _in_float32(lambda g: g * (2 / self.denominator), grad) * centered

    def name(self) -> str:
        return "StdBackward0" if self.root else "VarBackward0"


class MedianAll(Function):
    """median() of all elements: the element at flat ``position`` (chosen by the caller),
    whose gradient is shared evenly by every element equal to it, as PyTorch's median()
    does: d out / d x_i = [x_i == out] / (how many x_j == out); a nan median counts the nans.
    (median(dim=) instead sends each row's gradient to the one index it returns.)"""

    def forward(self, x, position=0):
        out = x.reshape(-1)[position]
        self.save_for_backward(x, out)
        return out

    def backward(self, grad):
        x, out = self.saved
        xp = xp_of(x)
        ties = (x == out) | (xp.isnan(x) & xp.isnan(out))
        return (ties / ties.sum()).astype(x.dtype, copy=False) * grad


def running_extreme(a, axis: int, ufunc: str):
    """The running maximum (ufunc "maximum") or minimum ("minimum") of ``a`` along ``axis``,
    nan kept once seen: NumPy's ``maximum.accumulate``. CuPy's ufuncs accumulate only add and
    multiply, so there it is a scan of log2(n) steps: after the step with shift s, each
    position holds the extreme of the 2s elements that end at it."""
    xp = xp_of(a)
    combine = getattr(xp, ufunc)
    if xp.__name__ != "cupy":
        return combine.accumulate(a, axis=axis)
    out = xp.moveaxis(a, axis, -1).copy()
    shift = 1
    while shift < out.shape[-1]:
        out[..., shift:] = combine(out[..., shift:], out[..., :-shift])
        shift *= 2
    return xp.moveaxis(out, -1, axis)
