"""The op table: every op case in one list, checked by one parametrized test.

Each ``OpCase`` has
    name   a readable id (shown by pytest),
    fn     the op written with the PyTorch API: ``fn(T, F, *inputs)``, where ``T`` is the
           library (``microtorch`` here, ``torch`` in test_parity_torch.py) and ``F`` its
           ``nn.functional``,
    args   what each input is (shape and kind: random floats, positive floats, integer
           indices, a boolean mask, fixed values...),
    ref    the same forward in plain NumPy: ``ref(*arrays)``.

``test_op_case`` runs fn on float64 inputs, compares every output with ``ref`` on the same
arrays, and gradchecks fn (backward against finite differences) for every floating input.
``test_op_case_float32`` runs it in float32 and checks that outputs stay float32 and that
every gradient has exactly its input's shape and dtype. test_parity_torch.py runs the same
table against PyTorch.

To check a new op, add one ``OpCase`` to ``CASES``.
"""

from __future__ import annotations

import itertools
import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import microtorch
import microtorch.nn.functional as mF
from microtorch import backend
from microtorch.autograd import gradcheck


# ----------------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class Arg:
    """One input of a case. Floating kinds require grad unless ``grad=False``."""

    kind: str  # "float" | "positive" | "nonzero" | "distinct" | "int" | "mask" | "const"
    shape: tuple = ()
    high: int = 0  # "int": values in [0, high)
    values: Any = None  # "const": these values
    dtype: str = "float"  # "const": "float" (the case's float dtype), "int64" or "bool"
    grad: bool = True


def x(*shape: int, grad: bool = True) -> Arg:
    """Standard normal floats."""
    return Arg("float", shape, grad=grad)


def pos(*shape: int) -> Arg:
    """Floats in [0.5, 2): safe for log, sqrt, division."""
    return Arg("positive", shape)


def nz(*shape: int) -> Arg:
    """Floats at least 0.2 away from 0: finite differences never straddle a kink at 0."""
    return Arg("nonzero", shape)


def distinct(*shape: int) -> Arg:
    """Floats at least 0.1 apart: max/min/topk have no ties."""
    return Arg("distinct", shape)


def ints(high: int, *shape: int) -> Arg:
    return Arg("int", shape, high=high, grad=False)


def mask(*shape: int) -> Arg:
    return Arg("mask", shape, grad=False)


def _np_put(a, index, source, accumulate):
    """a read as 1-D with source written (or added) at the flat positions index."""
    out = a.copy().ravel()
    if accumulate:
        np.add.at(out, index.ravel(), source.ravel())
    else:
        out[index.ravel()] = source.ravel()
    return out.reshape(a.shape)


def _np_scatter(a, index, src, add):
    """Along dim 1 of 2-D arrays: out[i][index[i][j]] = (or +=) src[i][j]."""
    out = a.copy()
    for i in range(index.shape[0]):
        for j in range(index.shape[1]):
            if add:
                out[i, index[i, j]] += src[i, j]
            else:
                out[i, index[i, j]] = src[i, j]
    return out


def _np_index_add(a, index, source):
    """Along dim 1: out[:, index[k]] += source[:, k]."""
    out = a.copy()
    for k, col in enumerate(index):
        out[:, col] += source[:, k]
    return out


def _np_diagonal_scatter(a, src, offset, dim1, dim2):
    """a copy of a with src on its diagonal (np.diagonal's view is read-only, so through
    np.moveaxis: the diagonal of the last two dims, written with fancy indexing)."""
    out = np.moveaxis(a.copy(), (dim1, dim2), (-2, -1))
    n = src.shape[-1]
    rows, cols = np.arange(n) + max(-offset, 0), np.arange(n) + max(offset, 0)
    out[..., rows, cols] = src
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


def _np_diag_embed(a, offset, dim1, dim2):
    """diag_embed: each vector along the last dim on the offset-th diagonal of a matrix in
    dims dim1 (rows) and dim2 (columns) of the result."""
    rows = [np.diag(v, offset) for v in a.reshape(-1, a.shape[-1])]
    size = a.shape[-1] + abs(offset)
    return np.moveaxis(np.stack(rows).reshape(a.shape[:-1] + (size, size)), (-2, -1), (dim1, dim2))


def _np_replaced(a, dim, index, value):
    """index_fill / index_copy along ``dim``: the slices ``index`` set to ``value``."""
    out = a.copy()
    out[(slice(None),) * dim + (index,)] = value
    return out


def _np_order_statistic(a, position, axis, keepdims=False):
    """(values, indices) of the element at ``position`` of each sorted row (no ties)."""
    idx = np.take(np.argsort(a, axis), [position], axis)
    values = np.take_along_axis(a, idx, axis)
    return (values, idx) if keepdims else (values.squeeze(axis), idx.squeeze(axis))


def _np_running_extreme(a, axis, largest):
    """(values, indices) of cummax (largest) / cummin along ``axis`` (no ties, no nan)."""
    a = np.moveaxis(a, axis, -1)
    pick = np.argmax if largest else np.argmin
    idx = np.stack([pick(a[..., : j + 1], -1) for j in range(a.shape[-1])], -1)
    values = np.take_along_axis(a, idx, -1)
    return np.moveaxis(values, -1, axis), np.moveaxis(idx, -1, axis)


def _np_nan_lower_median(a, axis=None, keepdims=False):
    """nanmedian: the lower middle of the values that are not nan."""
    rows = a.reshape(1, -1) if axis is None else np.moveaxis(a, axis, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    out = np.array([np.sort(r[~np.isnan(r)])[(np.sum(~np.isnan(r)) - 1) // 2] for r in flat])
    if axis is None:
        return out.reshape(())
    out = out.reshape(rows.shape[:-1])
    return np.expand_dims(out, axis) if keepdims else out


def _np_scatter_reduce(a, index, src, reduce, include_self=True):
    """scatter_reduce along dim 1 of 2-D arrays, one value at a time."""
    out, hits = a.copy(), {}
    for i in range(index.shape[0]):
        for j in range(index.shape[1]):
            hits.setdefault((i, index[i, j]), []).append(src[i, j])
    combine = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}
    for where, values in hits.items():
        out[where] = combine[reduce](values + ([a[where]] if include_self else []))
    return out


def _np_block_diag(*blocks):
    blocks = [np.atleast_2d(b) for b in blocks]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)))
    r = c = 0
    for b in blocks:
        out[r : r + b.shape[0], c : c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def _np_renorm(a, p, dim, maxnorm):
    axes = tuple(i for i in range(a.ndim) if i != dim)
    norms = np.sum(np.abs(a) ** p, axis=axes, keepdims=True) ** (1 / p)
    return a * np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)


def _np_masked_scatter(a, m, s):
    out = np.array(np.broadcast_to(a, np.broadcast_shapes(a.shape, m.shape)))
    m = np.broadcast_to(m, out.shape)
    out[m] = s.ravel()[: m.sum()]
    return out


def _np_index_put(a, index, v, accumulate=False):
    out = a.copy()
    if accumulate:
        np.add.at(out, index, np.broadcast_to(v, out[index].shape))
    else:
        out[index] = v
    return out


def _np_index_reduce(a, index, source, reduce, include_self=True):
    """index_reduce along dim 1 of 2-D arrays, as _np_scatter_reduce with the index spread
    over the rows."""
    return _np_scatter_reduce(a, np.broadcast_to(index, source.shape), source, reduce, include_self)


def _np_as_strided_scatter(a, src, size, stride, offset):
    out = a.copy()
    view = np.lib.stride_tricks.as_strided(
        out.reshape(-1)[offset:], size, tuple(s * a.itemsize for s in stride)
    )
    view[...] = src
    return out


def _np_set(a, where, value):
    """A copy of a with a[where] = value."""
    out = a.copy()
    out[where] = value
    return out


def _np_fill_diagonal(a, value, wrap=False):
    out = a.copy()
    np.fill_diagonal(out, value, wrap=wrap)
    return out


def const(values: Any, dtype: str = "float", grad: bool = True) -> Arg:
    return Arg("const", np.shape(values), values=values, dtype=dtype, grad=grad)


def make_arrays(case: OpCase, dtype: str) -> list[tuple[np.ndarray, bool]]:
    """The case's input arrays (floats in ``dtype``), each with its requires-grad flag.
    Seeded by the case name, so every run (and PyTorch parity) sees the same numbers."""
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    out = []
    for arg in case.args:
        n = int(np.prod(arg.shape))
        if arg.kind == "float":
            a = rng.standard_normal(arg.shape)
        elif arg.kind == "positive":
            a = rng.uniform(0.5, 2.0, arg.shape)
        elif arg.kind == "nonzero":
            a = rng.uniform(0.2, 2.0, arg.shape) * rng.choice([-1.0, 1.0], arg.shape)
        elif arg.kind == "distinct":
            a = (rng.permutation(n) * 0.37 - n * 0.15 + rng.uniform(0, 0.05, n)).reshape(arg.shape)
        elif arg.kind == "int":
            out.append((rng.integers(0, arg.high, arg.shape).astype(np.int64), False))
            continue
        elif arg.kind == "mask":
            out.append((rng.random(arg.shape) < 0.5, False))
            continue
        elif arg.kind == "const" and arg.dtype != "float":
            out.append((np.array(arg.values, dtype=arg.dtype), False))
            continue
        else:  # a float "const"
            a = np.array(arg.values, dtype=np.float64)
        out.append((np.asarray(a, dtype=dtype), arg.grad))
    return out


def make_inputs(case: OpCase, dtype: str, device: str = "cpu") -> tuple[list, list]:
    """(NumPy arrays, microtorch tensors on ``device``) for one case."""
    arrays = make_arrays(case, dtype)
    tensors = []
    for a, grad in arrays:
        t = microtorch.tensor(a, device=device)
        tensors.append(t.requires_grad_() if grad else t)
    return [a for a, _ in arrays], tensors


def as_list(result: Any) -> list:
    return list(result) if isinstance(result, (tuple, list)) else [result]


# ----------------------------------------------------------------------------- NumPy references
_erf = np.vectorize(math.erf, otypes=[np.float64])


np_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _erfinv_by_bisection(y: float) -> float:
    """erfinv(y) found another way than microtorch's Newton steps: halving an interval until
    it cannot shrink, with math.erf (math.erfc near |y| = 1, where erf(x) - y would cancel)."""
    if abs(y) >= 1:
        return math.copysign(math.inf, y) if abs(y) == 1 else math.nan
    a, low, high = abs(y), 0.0, 10.0
    while True:
        mid = (low + high) / 2
        if mid in (low, high):
            return math.copysign(mid, y)
        below = math.erf(mid) < a if a < 0.5 else math.erfc(mid) > 1 - a
        low, high = (mid, high) if below else (low, mid)


np_erfinv = np.vectorize(_erfinv_by_bisection, otypes=[np.float64])


def _digamma_by_differences(v: float) -> float:
    """psi(v) another way than microtorch's series: Richardson-extrapolated central
    differences of math.lgamma (step scaled to v, so poles nearby do not spoil it)."""
    h = 1e-4 * min(abs(v), 1.0)
    d1 = (math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h)
    d2 = (math.lgamma(v + 2 * h) - math.lgamma(v - 2 * h)) / (4 * h)
    return (4 * d1 - d2) / 3


np_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _i1_by_quadrature(v: float) -> float:
    """I_1(v) = (1/pi) * integral over [0, pi] of e^(v cos t) cos t: the trapezoidal rule,
    exact to rounding for a periodic integrand with this many points."""
    t = np.linspace(0.0, np.pi, 401)
    f = np.exp(v * np.cos(t)) * np.cos(t)
    return float((f.sum() - (f[0] + f[-1]) / 2) * (t[1] - t[0]) / np.pi)


np_i1 = np.vectorize(_i1_by_quadrature, otypes=[np.float64])


def np_ndtr(a: np.ndarray) -> np.ndarray:
    """The standard normal CDF, (1 + erf(a / sqrt 2)) / 2, through math.erf."""
    return 0.5 * (1 + np.vectorize(math.erf, otypes=[np.float64])(a / math.sqrt(2)))


def _ndtri_by_bisection(p: float) -> float:
    """x with Phi(x) = p, by halving [-40, 40] (another way than microtorch's Newton steps)."""
    low, high = -40.0, 40.0
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if 0.5 * math.erfc(-mid / math.sqrt(2)) < p else (low, mid)
    return (low + high) / 2


np_ndtri = np.vectorize(_ndtri_by_bisection, otypes=[np.float64])


def np_polygamma(n: int, a: np.ndarray) -> np.ndarray:
    """psi^(n)(a) = (-1)^(n+1) n! sum over k of 1/(a + k)^(n+1): 2000 terms, then the
    Euler-Maclaurin tail at z = a + 2000 (its integral, half its first term, one correction)."""
    k = np.arange(2000)
    z = a + 2000.0
    total = (1.0 / (a[..., None] + k) ** (n + 1)).sum(axis=-1)
    tail = 1 / (n * z**n) + 1 / (2 * z ** (n + 1)) + (n + 1) / (12 * z ** (n + 2))
    return (-1) ** (n + 1) * math.factorial(n) * (total + tail)


def np_mvlgamma(a: np.ndarray, p: int) -> np.ndarray:
    """log of the multivariate gamma function: p(p-1)/4 log(pi) + sum_j lgamma(a - j/2)."""
    return p * (p - 1) / 4 * math.log(math.pi) + sum(np_lgamma(a - j / 2) for j in range(p))


def _igamma_integer_a(a: float, x: float) -> float:
    """P(a, x) for whole a by the closed form 1 - e^-x sum_{k<a} x^k / k!."""
    return 1 - math.exp(-x) * sum(x**k / math.factorial(k) for k in range(int(a)))


np_igamma = np.vectorize(_igamma_integer_a, otypes=[np.float64])


def _zeta_by_sum(s: float, q: float) -> float:
    """Hurwitz zeta as 10^5 terms of sum (q + k)^-s and the tail's integral plus half its
    first term (the rest is below s (q + 10^5)^(-s-1) / 12)."""
    w = q + 100_000
    return float(np.sum((q + np.arange(100_000)) ** -s) + w ** (1 - s) / (s - 1) + w**-s / 2)


np_zeta = np.vectorize(_zeta_by_sum, otypes=[np.float64])
np_digamma = np.vectorize(_digamma_by_differences, otypes=[np.float64])


def np_softmax(a: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(a: np.ndarray, axis: int) -> np.ndarray:
    s = a - a.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def np_sigmoid(a: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-a))


def np_gelu(a: np.ndarray) -> np.ndarray:
    return 0.5 * a * (1 + _erf(a / math.sqrt(2)))


def np_gelu_tanh(a: np.ndarray) -> np.ndarray:
    return 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a**3)))


def np_elu(a: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    return np.where(a > 0, a, alpha * np.expm1(np.minimum(a, 0)))


def np_hardsigmoid(a: np.ndarray) -> np.ndarray:
    return np.clip(a + 3, 0, 6) / 6


def np_shrink(a: np.ndarray, lambd: float, soft: bool) -> np.ndarray:
    """softshrink (soft=True: moved lambd towards 0) or hardshrink, 0 where |a| <= lambd."""
    return np.where(np.abs(a) > lambd, a - np.sign(a) * lambd * soft, 0.0)


def np_prelu(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """w: one slope, or one per channel (dim 1)."""
    w = w.reshape((-1,) + (1,) * (a.ndim - 2)) if w.size > 1 else w.reshape(())
    return np.where(a > 0, a, w * a)


def np_rrelu_train(a: np.ndarray, lower: float, upper: float) -> np.ndarray:
    """rrelu in training after manual_seed(0): one slope per element, drawn by the host
    generator (NumPy's PCG64) in float64 and cast, whatever the device."""
    slopes = np.random.Generator(np.random.PCG64(0)).uniform(lower, upper, a.shape)
    return np.where(a > 0, a, a * slopes.astype(a.dtype))


SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def np_extreme_dim(a: np.ndarray, dim: int, keepdim: bool, largest: bool) -> tuple:
    """max(dim=)/min(dim=): (values, indices)."""
    idx = a.argmax(axis=dim) if largest else a.argmin(axis=dim)
    values = np.take_along_axis(a, np.expand_dims(idx, dim), axis=dim)
    if keepdim:
        return values, np.expand_dims(idx, dim)
    return values.squeeze(dim), idx


def np_topk(a: np.ndarray, k: int, dim: int) -> tuple:
    idx = np.take(np.argsort(-a, axis=dim), np.arange(k), axis=dim)
    return np.take_along_axis(a, idx, axis=dim), idx


def np_cross_entropy(logits, target, ignore_index=-100, reduction="mean", smoothing=0.0,
                     weight=None):  # fmt: skip
    """logits (N, C) or (N, C, d...), target (N,) or (N, d...) of class indices; with a
    weight per class, row n counts weight[target_n] times and "mean" divides by their sum."""
    logp = np_log_softmax(np.moveaxis(logits, 1, -1), -1)  # (..., C)
    num_classes = logp.shape[-1]
    weight = np.ones(num_classes) if weight is None else weight
    keep = target != ignore_index
    safe = np.where(keep, target, 0)
    row_weight = np.where(keep, weight[safe], 0.0)
    picked = np.take_along_axis(logp, safe[..., None], -1)[..., 0]
    losses = -(1 - smoothing) * picked * row_weight
    losses -= smoothing / num_classes * (logp * weight).sum(-1) * keep
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / row_weight.sum()


def np_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean"):
    """CTC by brute force: every path of labels over the frames (C^T of them), collapsed
    (repeats merged, then blanks dropped), its probability added where it gives the target.
    log_probs (T, N, C), padded targets (N, S)."""
    T, N, C = log_probs.shape
    losses = np.zeros(N)
    for n in range(N):
        frames, want = int(input_lengths[n]), list(targets[n, : int(target_lengths[n])])
        total = 0.0
        for path in itertools.product(range(C), repeat=frames):
            merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
            if [c for c in merged if c != blank] == want:
                total += np.exp(sum(log_probs[t, n, c] for t, c in enumerate(path)))
        losses[n] = -np.log(total) if total > 0 else np.inf
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    return (losses / np.maximum(target_lengths, 1)).mean()


def np_layer_norm(a, ndims, weight=None, bias=None, eps=1e-5):
    axes = tuple(range(a.ndim - ndims, a.ndim))
    out = (a - a.mean(axes, keepdims=True)) / np.sqrt(a.var(axes, keepdims=True) + eps)
    out = out * weight if weight is not None else out
    return out + bias if bias is not None else out


def np_conv(a, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """N-d cross-correlation by a loop over output positions; ``padding``: an int per dim or
    (lo, hi) pairs."""
    nd = w.ndim - 2
    stride, dilation = np.broadcast_to(stride, nd), np.broadcast_to(dilation, nd)
    padding = (padding,) * nd if isinstance(padding, int) else padding
    pads = [(p, p) if isinstance(p, int) else p for p in padding]
    a = np.pad(a, [(0, 0), (0, 0)] + pads)
    reach = [d * (k - 1) + 1 for k, d in zip(w.shape[2:], dilation)]
    out_size = [(n - r) // s + 1 for n, r, s in zip(a.shape[2:], reach, stride)]
    cout, cin_g = w.shape[:2]
    out = np.zeros((a.shape[0], cout, *out_size))
    for o in np.ndindex(*out_size):
        window = tuple(slice(i * s, i * s + r, d) for i, s, r, d in zip(o, stride, reach, dilation))
        for g in range(groups):
            patch = a[(slice(None), slice(g * cin_g, (g + 1) * cin_g)) + window]
            wg = w[g * cout // groups : (g + 1) * cout // groups]
            out[(slice(None), slice(g * cout // groups, (g + 1) * cout // groups)) + o] = (
                np.tensordot(patch, wg, axes=(range(1, nd + 2), range(1, nd + 2)))
            )
    return out if b is None else out + b.reshape((-1,) + (1,) * nd)


def np_conv_transpose(a, w, b=None, stride=1, padding=0, output_padding=0, groups=1,
                      dilation=1):  # fmt: skip
    """N-d transposed convolution by a loop over input positions: each one adds its value
    times the weight into a dilated window of the (padded) output, which is then cropped."""
    nd = w.ndim - 2
    stride, dilation = np.broadcast_to(stride, nd), np.broadcast_to(dilation, nd)
    padding, extra = np.broadcast_to(padding, nd), np.broadcast_to(output_padding, nd)
    cin_g, cout_g = w.shape[0] // groups, w.shape[1]
    full = [(i - 1) * s + d * (k - 1) + 1 + e
            for i, s, d, k, e in zip(a.shape[2:], stride, dilation, w.shape[2:], extra)]  # fmt: skip
    out = np.zeros((a.shape[0], cout_g * groups, *full))
    for i in np.ndindex(*a.shape[2:]):
        window = tuple(slice(j * s, j * s + d * (k - 1) + 1, d)
                       for j, s, d, k in zip(i, stride, dilation, w.shape[2:]))  # fmt: skip
        for g in range(groups):
            v = a[(slice(None), slice(g * cin_g, (g + 1) * cin_g)) + i]  # (N, Cin/G)
            wg = w[g * cin_g : (g + 1) * cin_g]  # (Cin/G, Cout/G, *K)
            out[(slice(None), slice(g * cout_g, (g + 1) * cout_g)) + window] += np.tensordot(
                v, wg, axes=(1, 0)
            )
    out = out[(Ellipsis,) + tuple(slice(p, n - p) for p, n in zip(padding, full))]
    return out if b is None else out + b.reshape((-1,) + (1,) * nd)


def np_unfold(a, k, stride=1, padding=0):
    """F.unfold of (N, C, H, W): each block, flattened channel-major, as a column."""
    a = np.pad(a, [(0, 0), (0, 0), (padding, padding), (padding, padding)])
    rows = range(0, a.shape[2] - k + 1, stride)
    cols = range(0, a.shape[3] - k + 1, stride)
    blocks = [a[:, :, i : i + k, j : j + k].reshape(a.shape[0], -1) for i in rows for j in cols]
    return np.stack(blocks, axis=-1)


def np_fold(c, size, k, stride=1, padding=0):
    """F.fold: the columns of (N, C*k*k, L) added back into (N, C, *size)."""
    n = c.shape[0]
    out = np.zeros((n, c.shape[1] // (k * k), size[0] + 2 * padding, size[1] + 2 * padding))
    rows = range(0, out.shape[2] - k + 1, stride)
    cols = range(0, out.shape[3] - k + 1, stride)
    for index, (i, j) in enumerate((i, j) for i in rows for j in cols):
        out[:, :, i : i + k, j : j + k] += c[:, :, index].reshape(n, -1, k, k)
    return out[:, :, padding : padding + size[0], padding : padding + size[1]]


def np_avg_pool(a, k, s=None, p=0, ceil_mode=False, include_pad=True, divisor=None):
    """avg_pool1d/2d by a loop over output positions, with PyTorch's window bounds."""
    nd = a.ndim - 2
    k, p = np.broadcast_to(k, nd), np.broadcast_to(p, nd)
    s = k if s is None else np.broadcast_to(s, nd)
    sizes = []
    for n, kk, ss, pp in zip(a.shape[2:], k, s, p):
        o = (math.ceil if ceil_mode else math.floor)((n + 2 * pp - kk) / ss) + 1
        sizes.append(o - 1 if ceil_mode and (o - 1) * ss >= n + pp else o)
    out = np.zeros(a.shape[:2] + tuple(sizes))
    for o in np.ndindex(*sizes):
        starts = [i * ss - pp for i, ss, pp in zip(o, s, p)]
        ends = [min(st + kk, n + pp) for st, kk, n, pp in zip(starts, k, a.shape[2:], p)]
        padded_count = math.prod(e - st for st, e in zip(starts, ends))
        lo = [max(st, 0) for st in starts]
        hi = [min(e, n) for e, n in zip(ends, a.shape[2:])]
        window = a[(Ellipsis,) + tuple(slice(x, y) for x, y in zip(lo, hi))]
        count = divisor or (padded_count if include_pad else window[0, 0].size)
        out[(Ellipsis,) + o] = window.sum(axis=tuple(range(2, 2 + nd))) / count
    return out


def np_adaptive_avg_pool(a, sizes):
    """adaptive_avg_pool1d/2d: window i along a dim of n is floor(i*n/o) .. ceil((i+1)*n/o)."""
    out = np.zeros(a.shape[:2] + tuple(sizes))
    for o in np.ndindex(*sizes):
        window = tuple(
            slice(i * n // m, -(-(i + 1) * n // m)) for i, n, m in zip(o, a.shape[2:], sizes)
        )
        out[(Ellipsis,) + o] = a[(Ellipsis,) + window].mean(axis=tuple(range(2, a.ndim)))
    return out


def np_local_response_norm(a, size, alpha=1e-4, beta=0.75, k=1.0):
    """a / (k + alpha * sum of squares over channels c - size//2 .. c + (size-1)//2 / size)^beta."""
    out = np.empty_like(a)
    for c in range(a.shape[1]):
        lo, hi = max(c - size // 2, 0), min(c + (size - 1) // 2 + 1, a.shape[1])
        out[:, c] = a[:, c] / (k + alpha * (a[:, lo:hi] ** 2).sum(1) / size) ** beta
    return out


def np_interpolate_linear(a, sizes, align_corners=False, factors=None):
    """Linear interpolation along each spatial dim with np.interp at PyTorch's source
    positions: i * (n - 1) / (o - 1) (align_corners), else (i + 0.5) * scale - 0.5 >= 0."""
    for d, o in enumerate(sizes):
        n = a.shape[2 + d]
        if align_corners:
            src = np.arange(o) * ((n - 1) / (o - 1) if o > 1 else 0.0)
        else:
            scale = 1 / factors[d] if factors else n / o
            src = np.maximum((np.arange(o) + 0.5) * scale - 0.5, 0)
        a = np.apply_along_axis(lambda v, s, m: np.interp(s, np.arange(m), v), 2 + d, a, src, n)
    return a


def np_interpolate_bicubic(a, sizes, align_corners=False):
    """Keys' cubic convolution (a = -0.75) along H, then W, at PyTorch's source positions:
    four taps around floor(src), each clamped to the edge, t = src - floor(src) in [0, 1]."""

    def weight(d):
        d = abs(d)
        if d <= 1:
            return (1.25 * d - 2.25) * d * d + 1
        return ((-0.75 * d + 3.75) * d - 6) * d + 3 if d < 2 else 0.0

    for dim, o in enumerate(sizes):
        n, axis = a.shape[2 + dim], 2 + dim
        rows = []
        for i in range(o):
            if align_corners:
                src = i * (n - 1) / (o - 1) if o > 1 else 0.0
            else:
                src = (i + 0.5) * n / o - 0.5
            i0 = min(int(np.floor(src)), n - 1)
            t = min(max(src - i0, 0.0), 1.0)
            taps = [np.take(a, min(max(i0 + k, 0), n - 1), axis) for k in (-1, 0, 1, 2)]
            rows.append(sum(weight(k - t) * tap for k, tap in zip((-1, 0, 1, 2), taps)))
        a = np.stack(rows, axis)
    return a


def np_interpolate_antialias(a, sizes, cubic=False):
    """antialias=True along H, then W: output i averages the inputs j whose centres lie
    within the filter's support around c = scale * (i + 0.5), weighted by the triangle (or
    Keys' cubic, a = -0.5) filter of (j + 0.5 - c) / max(scale, 1), normalised."""

    def filt(d):
        d = abs(d)
        if not cubic:
            return max(1 - d, 0.0)
        if d <= 1:
            return (1.5 * d - 2.5) * d * d + 1
        return ((-0.5 * d + 2.5) * d - 4) * d + 2 if d < 2 else 0.0

    for dim, o in enumerate(sizes):
        n, axis = a.shape[2 + dim], 2 + dim
        scale = n / o
        stretch = max(scale, 1.0)
        support = (2.0 if cubic else 1.0) * stretch
        rows = []
        for i in range(o):
            c = scale * (i + 0.5)
            js = range(max(int(np.floor(c - support + 0.5)), 0), min(int(c + support + 0.5), n))
            w = np.array([filt((j + 0.5 - c) / stretch) for j in js])
            rows.append(np.tensordot(w / w.sum(), np.take(a, list(js), axis), ([0], [axis])))
        a = np.moveaxis(np.stack(rows, 0), 0, axis) if o != n else a
    return a


def np_affine_grid(theta, size, align_corners):
    """grid[n, i, j] = theta[n] @ (x_j, y_i, 1) at the normalized pixel centres."""
    n, _, h, w = size

    def centres(m):
        if m == 1:
            return np.zeros(1)
        c = np.linspace(-1, 1, m)
        return c if align_corners else c * (m - 1) / m

    ys, xs = np.meshgrid(centres(h), centres(w), indexing="ij")
    base = np.stack([xs, ys, np.ones_like(xs)], -1)  # (H, W, 3)
    return np.einsum("hwk,nck->nhwc", base, theta)


def np_grid_sample(a, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """grid_sample by a loop over output positions, with PyTorch's coordinate rules."""
    n, c, h, w = a.shape

    def source(v, m):
        p = (v + 1) / 2 * (m - 1) if align_corners else ((v + 1) * m - 1) / 2
        if padding_mode == "reflection":
            lo, hi = (0.0, m - 1.0) if align_corners else (-0.5, m - 0.5)
            if hi == lo:
                p = 0.0
            else:
                flips, extra = divmod(abs(p - lo), hi - lo)
                p = lo + extra if flips % 2 == 0 else hi - extra
        if padding_mode != "zeros":
            p = min(max(p, 0.0), m - 1.0)
        return p

    def pixel(k, y, x):
        return a[k, :, y, x] if 0 <= y < h and 0 <= x < w else np.zeros(c)

    out = np.zeros((n, c) + grid.shape[1:3])
    for k, i, j in np.ndindex(n, *grid.shape[1:3]):
        x, y = source(grid[k, i, j, 0], w), source(grid[k, i, j, 1], h)
        if mode == "nearest":
            out[k, :, i, j] = pixel(k, int(np.rint(y)), int(np.rint(x)))
            continue
        x0, y0 = int(np.floor(x)), int(np.floor(y))
        fx, fy = x - x0, y - y0
        out[k, :, i, j] = (pixel(k, y0, x0) * (1 - fx) * (1 - fy) + pixel(k, y0, x0 + 1) * fx
                           * (1 - fy) + pixel(k, y0 + 1, x0) * (1 - fx) * fy
                           + pixel(k, y0 + 1, x0 + 1) * fx * fy)  # fmt: skip
    return out


def np_grid_sample_bicubic(a, grid, padding_mode="zeros", align_corners=False):
    """bicubic grid_sample by a loop: the 4 x 4 pixels around each (unfolded) position,
    Keys' weights (a = -0.75) along x times along y, each tap clamped ("border") or read as
    zero outside ("zeros")."""
    n, c, h, w = a.shape

    def weight(d):
        d = abs(d)
        return (1.25 * d - 2.25) * d * d + 1 if d <= 1 else ((-0.75 * d + 3.75) * d - 6) * d + 3

    def tap(k, y, x):
        if padding_mode == "border":
            y, x = min(max(y, 0), h - 1), min(max(x, 0), w - 1)
        return a[k, :, y, x] if 0 <= y < h and 0 <= x < w else np.zeros(c)

    out = np.zeros((n, c) + grid.shape[1:3])
    for k, i, j in np.ndindex(n, *grid.shape[1:3]):
        gx, gy = grid[k, i, j]
        if align_corners:
            x, y = (gx + 1) / 2 * (w - 1), (gy + 1) / 2 * (h - 1)
        else:
            x, y = ((gx + 1) * w - 1) / 2, ((gy + 1) * h - 1) / 2
        x0, y0 = int(np.floor(x)), int(np.floor(y))
        for dy, dx in itertools.product((-1, 0, 1, 2), repeat=2):
            wt = weight(dx - (x - x0)) * weight(dy - (y - y0))
            out[k, :, i, j] += wt * tap(k, y0 + dy, x0 + dx)
    return out


def np_grid_sample_3d(a, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """grid_sample of a volume (N, C, D, H, W) at grid (N, Do, Ho, Wo, 3) ((x, y, z) each)
    by a loop: the eight voxels around each position, trilinearly, or the nearest one."""
    n, c, *sizes = a.shape

    def source(v, m):
        p = (v + 1) / 2 * (m - 1) if align_corners else ((v + 1) * m - 1) / 2
        return p if padding_mode == "zeros" else min(max(p, 0.0), m - 1.0)  # or "border"

    def voxel(k, zyx):
        inside = all(0 <= q < m for q, m in zip(zyx, sizes))
        return a[(k, slice(None)) + tuple(zyx)] if inside else np.zeros(c)

    out = np.zeros((n, c) + grid.shape[1:4])
    for k, i, j, l in np.ndindex(n, *grid.shape[1:4]):
        zyx = [source(grid[k, i, j, l, 2 - t], sizes[t]) for t in range(3)]
        if mode == "nearest":
            out[k, :, i, j, l] = voxel(k, [int(np.rint(q)) for q in zyx])
            continue
        low = [int(np.floor(q)) for q in zyx]
        for corner in itertools.product((0, 1), repeat=3):
            weight = np.prod([q - q0 if b else 1 - (q - q0) for q, q0, b in zip(zyx, low, corner)])
            out[k, :, i, j, l] += weight * voxel(k, [q0 + b for q0, b in zip(low, corner)])
    return out


def np_channel_norm(a, axes, weight=None, bias=None, eps=1e-5, mean=None, var=None):
    """(a - mean) / sqrt(var + eps) * weight + bias, the statistics over ``axes`` unless
    given (per channel), weight and bias per channel (dim 1)."""
    shape = (1, -1) + (1,) * (a.ndim - 2)
    mean = a.mean(axes, keepdims=True) if mean is None else mean.reshape(shape)
    var = a.var(axes, keepdims=True) if var is None else var.reshape(shape)
    out = (a - mean) / np.sqrt(var + eps)
    out = out * weight.reshape(shape) if weight is not None else out
    return out + bias.reshape(shape) if bias is not None else out


def np_group_norm(a, groups, weight=None, bias=None, eps=1e-5):
    rows = a.reshape(a.shape[0], groups, -1)
    out = np_channel_norm(rows, (2,), eps=eps).reshape(a.shape)
    shape = (1, -1) + (1,) * (a.ndim - 2)
    out = out * weight.reshape(shape) if weight is not None else out
    return out + bias.reshape(shape) if bias is not None else out


def np_lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    i, f, g, o = np.split(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=-1)
    c = np_sigmoid(f) * c + np_sigmoid(i) * np.tanh(g)
    return np_sigmoid(o) * np.tanh(c), c


def np_gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    x_r, x_z, x_n = np.split(x @ w_ih.T + b_ih, 3, axis=-1)
    h_r, h_z, h_n = np.split(h @ w_hh.T + b_hh, 3, axis=-1)
    r, z = np_sigmoid(x_r + h_r), np_sigmoid(x_z + h_z)
    return (1 - z) * np.tanh(x_n + r * h_n) + z * h


def np_sdpa(q, k, v, mask=None, causal=False, scale=None, keep=None, p=0.0):
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        mask = np.tril(np.ones((q.shape[-2], k.shape[-2]), dtype=bool))
    if mask is not None and mask.dtype == bool:
        scores = np.where(mask, scores, -np.inf)
    elif mask is not None:
        scores = scores + mask
    with np.errstate(invalid="ignore"):  # a row of only -inf: nan here, 0 on the next line
        weights = np_softmax(scores, -1)
    weights[np.all(scores == -np.inf, -1)] = 0.0  # a query that sees no key: weights 0
    if keep is not None:
        weights = weights * keep / (1 - p)
    return weights @ v


def host_keep_mask(shape: tuple, p: float) -> np.ndarray:
    """The dropout keep-mask that manual_seed(0) gives on the CPU: microtorch draws it from
    its host generator, NumPy's PCG64, as uniform float32 numbers below 1 - p."""
    rng = np.random.Generator(np.random.PCG64(0))
    return rng.random(shape, dtype=np.float32) < 1 - p


def seeded(fn: Callable) -> Callable:
    """Re-seed before each call, so a random op draws the same numbers every time
    (gradcheck calls fn many times)."""

    def run(T: Any, F: Any, *inputs: Any) -> Any:
        T.manual_seed(0)
        return fn(T, F, *inputs)

    return run


def np_p_norm(d: np.ndarray, p: float, axis: Any = -1) -> np.ndarray:
    """The p-norm of d along ``axis`` (p=0: the count of nonzeros; p=inf: the largest |d|)."""
    if p == 0:
        return (d != 0).sum(axis).astype(d.dtype)
    if p == np.inf:
        return np.abs(d).max(axis)
    return (np.abs(d) ** p).sum(axis) ** (1 / p)


def np_gaussian_nll(a, t, var, full=False, eps=1e-6):
    var = np.maximum(var, eps)
    return 0.5 * (np.log(var) + (a - t) ** 2 / var) + (0.5 * np.log(2 * np.pi) if full else 0)


def np_poisson_nll(a, t, log_input=True, full=False, eps=1e-8):
    losses = np.exp(a) - t * a if log_input else a - t * np.log(a + eps)
    if full:
        safe = np.where(t > 1, t, 1.0)
        stirling = safe * np.log(safe) - safe + 0.5 * np.log(2 * np.pi * safe)
        losses = losses + np.where(t > 1, stirling, 0.0)
    return losses


def np_multi_margin(a, y, p=1, margin=1.0, weight=None):
    """a (N, C), y (N,): per sample, sum over i != y of max(0, margin - a[y] + a[i])^p / C."""
    n, c = a.shape
    own = a[np.arange(n), y][:, None]
    hinge = np.maximum(margin - own + a, 0) ** p
    if weight is not None:
        hinge = hinge * weight[y][:, None]
    hinge[np.arange(n), y] = 0
    return hinge.sum(1) / c


def np_multilabel_margin(a, y):
    """a (N, C), y (N, C) class lists ended by -1: sum over listed j and unlisted i of
    max(0, 1 - a[j] + a[i]) / C, one loop per sample."""
    out = []
    for row, labels in zip(a.reshape(-1, a.shape[-1]), y.reshape(-1, a.shape[-1])):
        listed = []
        for label in labels:
            if label == -1:
                break
            listed.append(label)
        others = [i for i in range(len(row)) if i not in listed]
        out.append(sum(max(0.0, 1 - row[j] + row[i]) for j in listed for i in others) / len(row))
    return np.array(out).reshape(a.shape[:-1])


def np_triplet(a, pos, neg, margin=1.0, p=2, eps=1e-6, swap=False):
    d_pos, d_neg = np_p_norm(a - pos + eps, p), np_p_norm(a - neg + eps, p)
    if swap:
        d_neg = np.minimum(d_neg, np_p_norm(pos - neg + eps, p))
    return np.maximum(margin + d_pos - d_neg, 0)


def np_embedding_bag(idx, w, offsets=None, mode="mean", psw=None, padding_idx=None):
    """One output row per bag, by a loop: the bag's rows of w (times psw), padding left out;
    an empty bag is a row of zeros."""
    if idx.ndim == 2:
        offsets, psw = np.arange(0, idx.size, idx.shape[1]), None if psw is None else psw.ravel()
        idx = idx.ravel()
    ends = list(offsets[1:]) + [idx.size]
    out = []
    for start, end in zip(offsets, ends):
        keep = [n for n in range(start, end) if idx[n] != padding_idx]
        rows = w[idx[keep]] * (1.0 if psw is None else psw[keep][:, None])
        if not keep:
            out.append(np.zeros(w.shape[1]))
        else:
            out.append({"sum": rows.sum, "mean": rows.mean, "max": rows.max}[mode](0))
    return np.stack(out).astype(w.dtype)


def np_cosine_embedding(a, b, t, margin=0.0):
    cos = (a * b).sum(-1) / np.sqrt(((a * a).sum(-1) + 1e-12) * ((b * b).sum(-1) + 1e-12))
    return np.where(t == 1, 1 - cos, 0) + np.where(t == -1, np.maximum(cos - margin, 0), 0)


def np_cos(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    """cosine_similarity: each norm taken as at least 1e-8."""
    a, b = np.broadcast_arrays(a, b)
    norms = np.maximum(np.linalg.norm(a, axis=axis), 1e-8) * np.maximum(
        np.linalg.norm(b, axis=axis), 1e-8
    )
    return (a * b).sum(axis) / norms


def np_log_sigmoid(a: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0, -a)


# ----------------------------------------------------------------------------- the table
@dataclass(frozen=True)
class OpCase:
    name: str
    fn: Callable  # fn(T, F, *inputs) with T = microtorch or torch
    args: tuple
    ref: Callable  # ref(*numpy arrays) -> array or tuple of arrays
    grad: bool = True  # False: the op has no gradient (comparisons, argmax): check none is made
    torch: bool = True  # False: PyTorch cannot give the same numbers (random ops)
    cpu_ref: bool = False  # True: ref reproduces the CPU random stream; skip it on CUDA


C = OpCase

ARITHMETIC = [
    C("add", lambda T, F, a, b: a + b, (x(2, 3), x(2, 3)), np.add),
    C("add_broadcast_row", lambda T, F, a, b: a + b, (x(2, 3, 4), x(4)), np.add),
    C("add_broadcast_both", lambda T, F, a, b: T.add(a, b), (x(3, 1), x(1, 4)), np.add),
    C("add_0d_and_matrix", lambda T, F, a, b: a + b, (x(), x(2, 3)), np.add),
    C("add_0d_and_0d", lambda T, F, a, b: a + b, (x(), x()), np.add),
    C("add_scalar_right", lambda T, F, a: a + 2.5, (x(3),), lambda a: a + 2.5),
    C("add_scalar_left", lambda T, F, a: 2.5 + a, (x(3),), lambda a: 2.5 + a),
    C("add_alpha", lambda T, F, a, b: T.add(a, b, alpha=2), (x(3), x(3)), lambda a, b: a + 2 * b),
    C("add_self", lambda T, F, a: a + a, (x(2, 2),), lambda a: 2 * a),
    C("sub", lambda T, F, a, b: a - b, (x(2, 3), x(3)), np.subtract),
    C("sub_size1_dims", lambda T, F, a, b: a - b, (x(1, 3, 1), x(2, 1, 4)), np.subtract),
    C("sub_scalar_right", lambda T, F, a: a - 1.5, (x(3),), lambda a: a - 1.5),
    C("sub_scalar_left", lambda T, F, a: 1.5 - a, (x(3),), lambda a: 1.5 - a),
    C("mul", lambda T, F, a, b: a * b, (x(2, 3), x(2, 3)), np.multiply),
    C("mul_broadcast", lambda T, F, a, b: T.mul(a, b), (x(2, 1, 3), x(4, 1)), np.multiply),
    C("mul_0d", lambda T, F, a, b: a * b, (x(2, 2), x()), np.multiply),
    C("mul_scalar_right", lambda T, F, a: a * 3, (x(3),), lambda a: a * 3),
    C("mul_scalar_left", lambda T, F, a: 0.5 * a, (x(3),), lambda a: 0.5 * a),
    C("mul_self_reuse", lambda T, F, a: a * a, (x(2, 3),), lambda a: a * a),
    C("div", lambda T, F, a, b: a / b, (x(2, 3), pos(2, 3)), np.divide),
    C("div_broadcast", lambda T, F, a, b: T.div(a, b), (x(2, 3), pos(3)), np.divide),
    C("div_scalar_right", lambda T, F, a: a / 4, (x(3),), lambda a: a / 4),
    C("div_scalar_left", lambda T, F, b: 2 / b, (pos(3),), lambda b: 2 / b),
    C("pow_2", lambda T, F, a: a**2, (x(2, 3),), lambda a: a**2),
    C("pow_3_negative_base", lambda T, F, a: a**3, (x(4),), lambda a: a**3),
    C("pow_half", lambda T, F, a: a**0.5, (pos(4),), np.sqrt),
    C("pow_0", lambda T, F, a: a**0, (x(3),), lambda a: a**0),
    C("pow_scalar_base", lambda T, F, b: 2**b, (x(3),), lambda b: 2.0**b),
    C("pow_tensors_broadcast", lambda T, F, a, b: a**b, (pos(2, 3), x(3)), np.power),
    C("pow_method", lambda T, F, a: a.pow(3), (x(3),), lambda a: a**3),
    # a % b takes the sign of b (np.mod, Python's %); d/da = 1, d/db = -floor(a / b)
    C("remainder", lambda T, F, a, b: a % b, (x(2, 3), pos(3)), np.mod),
    C("remainder_scalar", lambda T, F, a: a % 0.75, (x(5),), lambda a: np.mod(a, 0.75)),
    C(
        "remainder_negative_divisor",
        lambda T, F, a: a.remainder(-0.75),
        (x(5),),
        lambda a: np.mod(a, -0.75),
    ),
    C(
        "remainder_scalar_left",  # PyTorch has no gradient for a number % tensor
        lambda T, F, b: 7.5 % b,
        (x(4, grad=False),),
        lambda b: np.mod(7.5, b),
        grad=False,
    ),
    C(
        "floor_divide",  # no gradient (PyTorch has none either)
        lambda T, F, a, b: a // b,
        (x(2, 3, grad=False), x(3, grad=False)),
        np.floor_divide,
        grad=False,
    ),
    C(
        "floor_divide_scalar_left_ints",
        lambda T, F, b: 7 // b,
        (const([2, -2, 3, -5], "int64", grad=False),),
        lambda b: np.floor_divide(7, b),
        grad=False,
    ),
    C(
        "div_rounding_modes",  # steps: a gradient of 0 for both inputs, as in PyTorch
        lambda T, F, a, b: (
            T.div(a, b, rounding_mode="floor"),
            a.div(b, rounding_mode="trunc"),
            T.div(a, 0.7, rounding_mode="trunc"),
        ),  # fmt: skip
        (const([[1.35, -2.61, 4.43], [-0.52, 3.14, -5.27]]), const([0.9, -1.1, 1.7])),
        lambda a, b: (np.floor_divide(a, b), np.trunc(a / b), np.trunc(a / 0.7)),
    ),
    C("neg", lambda T, F, a: -a, (x(2, 3),), np.negative),
    C("neg_function", lambda T, F, a: T.neg(a), (x(),), np.negative),
]

ELEMENTWISE = [
    C("exp", lambda T, F, a: a.exp(), (x(2, 3),), np.exp),
    C("exp_0d", lambda T, F, a: T.exp(a), (x(),), np.exp),
    C("log", lambda T, F, a: a.log(), (pos(2, 3),), np.log),
    C("sqrt", lambda T, F, a: T.sqrt(a), (pos(2, 3),), np.sqrt),
    C("rsqrt", lambda T, F, a: a.rsqrt(), (pos(2, 3),), lambda a: 1 / np.sqrt(a)),
    C("tanh", lambda T, F, a: a.tanh(), (x(2, 3),), np.tanh),
    C("sigmoid", lambda T, F, a: T.sigmoid(a), (x(2, 3),), np_sigmoid),
    C("sigmoid_large", lambda T, F, a: F.sigmoid(a * 50), (x(5),), lambda a: np_sigmoid(a * 50)),
    C("sigmoid_0d", lambda T, F, a: a.sigmoid(), (x(),), np_sigmoid),
    C("log1p", lambda T, F, a: a.log1p(), (pos(2, 3),), np.log1p),
    C("erf", lambda T, F, a: T.erf(a), (x(2, 3),), lambda a: np.vectorize(math.erf)(a)),
    # steps: the gradient is 0 (inputs kept away from the steps, so finite differences agree)
    C(
        "floor_ceil_trunc_sign_round",
        lambda T, F, a: (a.floor(), T.ceil(a), a.trunc(), a.sign(), T.round(a, decimals=1)),
        (const([[0.52, -1.47, 2.33], [-0.26, 1.74, -2.91]]),),
        lambda a: (np.floor(a), np.ceil(a), np.trunc(a), np.sign(a), np.round(a, 1)),
    ),
    C(
        "lerp_ema",  # ema.lerp(param, 1 - decay): a step from ema towards param
        lambda T, F, a, b: T.lerp(a, b, 0.1),
        (x(2, 3), x(2, 3)),
        lambda a, b: a + 0.1 * (b - a),
    ),
    C(
        "lerp_tensor_weight",
        lambda T, F, a, b, w: a.lerp(b, w),
        (x(3), x(3), x(3)),
        lambda a, b, w: a + w * (b - a),
    ),
    C(
        "isclose",
        lambda T, F, a, b: T.isclose(a, b, atol=0.5),
        (x(2, 3, grad=False), x(2, 3, grad=False)),
        lambda a, b: np.isclose(a, b, atol=0.5),
        grad=False,
    ),
    C("sin", lambda T, F, a: a.sin(), (x(2, 3),), np.sin),
    C("cos", lambda T, F, a: T.cos(a * 3), (x(4),), lambda a: np.cos(a * 3)),
    C("tan", lambda T, F, a: a.tan(), (x(2, 3),), np.tan),
    C("sinh", lambda T, F, a: T.sinh(a), (x(2, 3),), np.sinh),
    C("cosh", lambda T, F, a: a.cosh(), (x(2, 3),), np.cosh),
    # asin, acos, atanh need |x| < 1: pos(...) - 1.25 is in [-0.75, 0.75)
    C("asin", lambda T, F, a: T.asin(a - 1.25), (pos(2, 3),), lambda a: np.arcsin(a - 1.25)),
    C("acos", lambda T, F, a: (a - 1.25).acos(), (pos(2, 3),), lambda a: np.arccos(a - 1.25)),
    C("atan", lambda T, F, a: a.atan(), (x(2, 3),), np.arctan),
    C("asinh", lambda T, F, a: T.asinh(a * 3), (x(2, 3),), lambda a: np.arcsinh(a * 3)),
    C("acosh", lambda T, F, a: (a + 1).acosh(), (pos(2, 3),), lambda a: np.arccosh(a + 1)),
    C("atanh", lambda T, F, a: T.atanh(a - 1.25), (pos(2, 3),), lambda a: np.arctanh(a - 1.25)),
    C(
        "arc_aliases",
        lambda T, F, a: (
            T.arcsin(a - 1.25),
            T.arccos(a - 1.25),
            a.arctan(),
            T.arcsinh(a),
            (a + 1).arccosh(),
            (a - 1.25).arctanh(),
        ),  # fmt: skip
        (pos(4),),
        lambda a: (
            np.arcsin(a - 1.25),
            np.arccos(a - 1.25),
            np.arctan(a),
            np.arcsinh(a),
            np.arccosh(a + 1),
            np.arctanh(a - 1.25),
        ),  # fmt: skip
    ),
    C("atan2", lambda T, F, a, b: T.atan2(a, b), (x(2, 3), x(2, 3)), np.arctan2),
    C("atan2_broadcast", lambda T, F, a, b: a.arctan2(b), (x(2, 1), x(3)), np.arctan2),
    C("log2", lambda T, F, a: a.log2(), (pos(2, 3),), np.log2),
    C("log10", lambda T, F, a: T.log10(a), (pos(2, 3),), np.log10),
    C("exp2", lambda T, F, a: T.exp2(a), (x(2, 3),), np.exp2),
    C("expm1", lambda T, F, a: a.expm1(), (x(2, 3),), np.expm1),
    C("expm1_tiny", lambda T, F, a: T.expm1(a * 1e-9), (x(3),), lambda a: np.expm1(a * 1e-9)),
    C("logaddexp", lambda T, F, a, b: T.logaddexp(a, b), (x(2, 3), x(3)), np.logaddexp),
    C(
        "logaddexp_large",
        lambda T, F, a, b: (a * 400).logaddexp(b * 400),
        (x(4), x(4)),
        lambda a, b: np.logaddexp(a * 400, b * 400),
    ),  # fmt: skip
    C("logaddexp2", lambda T, F, a, b: a.logaddexp2(b), (x(2, 1), x(1, 3)), np.logaddexp2),
    C("xlogy", lambda T, F, a, b: T.xlogy(a, b), (x(2, 3), pos(3)), lambda a, b: a * np.log(b)),
    C(
        "xlogy_zero_x",  # x == 0 (the gradient is still log(y); y == 0: tests/test_elementwise_math.py)
        lambda T, F, a, b: a.xlogy(b),
        (const([0.0, 0.0, 1.5]), const([0.5, 2.0, 3.0])),
        lambda a, b: a * np.log(b),
    ),
    C("xlogy_number", lambda T, F, b: T.xlogy(2.0, b), (pos(3),), lambda b: 2 * np.log(b)),
    C(
        "xlog1py",
        lambda T, F, a, b: T.special.xlog1py(a, b),
        (x(2, 3), pos(3)),
        lambda a, b: a * np.log1p(b),
    ),
    C(
        "xlog1py_zero_x",  # x == 0: the gradient is still log1p(y)
        lambda T, F, a, b: T.special.xlog1py(a, b * 3 - 2),
        (const([0.0, 0.0, 1.5]), pos(3)),
        lambda a, b: a * np.log1p(b * 3 - 2),
    ),
    C(
        "logit",
        lambda T, F, a: T.logit(a * 0.4),
        (pos(2, 3),),
        lambda a: np.log(a * 0.4 / (1 - a * 0.4)),
    ),
    C(
        "logit_eps",  # clamped to [eps, 1 - eps]: no gradient where the clamp moved x
        lambda T, F, a: a.logit(eps=0.1),
        (const([0.02, 0.3, 0.6, 0.97]),),
        lambda a: np.log(np.clip(a, 0.1, 0.9) / (1 - np.clip(a, 0.1, 0.9))),
    ),
    C("erfc", lambda T, F, a: T.erfc(a * 2), (x(2, 3),), lambda a: np_erfc(a * 2)),
    C("erfc_tail", lambda T, F, a: a.erfc(), (const([3.0, 5.0, 8.0]),), np_erfc),
    C("erfinv", lambda T, F, a: T.erfinv(a - 1.25), (pos(2, 3),), lambda a: np_erfinv(a - 1.25)),
    C(
        "erfinv_near_one",
        lambda T, F, a: a.erfinv(),
        (const([-0.999, 0.99, 0.9999]),),
        np_erfinv,
    ),
    C("lgamma", lambda T, F, a: T.lgamma(a * 3), (pos(2, 3),), lambda a: np_lgamma(a * 3)),
    C(
        "lgamma_small_and_negative",  # the reflection formula below 1/2
        lambda T, F, a: a.lgamma(),
        (const([0.01, 0.3, -0.4, -2.5, 12.0]),),
        np_lgamma,
    ),
    C("digamma", lambda T, F, a: T.digamma(a * 3), (pos(2, 3),), lambda a: np_digamma(a * 3)),
    C(
        "digamma_small_and_negative",
        lambda T, F, a: a.digamma(),
        (const([0.01, 0.3, -0.4, -2.5, 12.0]),),
        np_digamma,
    ),
    C("i0", lambda T, F, a: T.i0(a * 4), (x(2, 3),), lambda a: np.i0(a * 4)),
    C(
        "bessel_i",  # 0 and the power series (|x| <= 20)
        lambda T, F, a: (T.special.i0(a), a.i0(), T.special.i1(a)),
        (const([0.0, -0.7, 3.0, -5.0]),),
        lambda a: (np.i0(a), np.i0(a), np_i1(a)),
    ),
    C(
        "bessel_i_large",  # the asymptotic series beyond 20 (apart: finite differences of
        lambda T, F, a: (T.special.i0(a), T.special.i1(a)),  # a sum this large are coarse)
        (const([-19.0, 21.0, -22.0]),),
        lambda a: (np.i0(a), np_i1(a)),
    ),
    C(
        "bessel_i_scaled",  # exp(-|x|) I_n(x), finite far out
        lambda T, F, a: (T.special.i0e(a), T.special.i1e(a)),
        (const([0.0, -0.7, 3.0, -19.0, 24.0, -60.0]),),
        lambda a: (np.exp(-np.abs(a)) * np.i0(a), np.exp(-np.abs(a)) * np_i1(a)),
    ),
    C(
        "normal_cdf",  # Phi, log Phi (both branches, split at -1) and Phi's inverse
        lambda T, F, a: (
            T.special.ndtr(a),
            T.special.log_ndtr(a * 4),
            T.special.ndtri(a.sigmoid()),
        ),
        (x(2, 3),),
        lambda a: (np_ndtr(a), np.log(np_ndtr(a * 4)), np_ndtri(np_sigmoid(a))),
    ),
    C(
        "erfcx",  # exp(x^2) erfc(x): the series side, the continued fraction side, negative x
        lambda T, F, a: T.special.erfcx(a * 2),
        (x(2, 3),),
        lambda a: np.exp(4 * a * a) * np_erfc(a * 2),
    ),
    C(
        "entr",
        lambda T, F, a: T.special.entr(a),
        (pos(2, 3),),
        lambda a: -a * np.log(a),
    ),
    C(
        "polygamma",  # n = 2 and 3, each side of the reflection at 1/2; gradient psi^(n+1)
        lambda T, F, a: (T.polygamma(2, a * 3), (a * 3).polygamma(3), T.polygamma(2, a - 2.7)),
        (pos(2, 3),),
        lambda a: (np_polygamma(2, a * 3), np_polygamma(3, a * 3), np_polygamma(2, a - 2.7)),
    ),
    C(
        "mvlgamma",  # p = 3: every element above (p - 1) / 2 = 1
        lambda T, F, a: (T.mvlgamma(a + 1, 3), T.special.multigammaln(a * 4, p=2)),
        (pos(2, 3),),
        lambda a: (np_mvlgamma(a + 1, 3), np_mvlgamma(a * 4, 2)),
    ),
    C(
        "igamma",  # whole a (no gradient, as PyTorch) on both sides of x = a + 1
        lambda T, F, a, b: T.igamma(a, b * 4),
        (const([[1.0, 3.0, 12.0]], grad=False), pos(2, 3)),
        lambda a, b: np_igamma(a, b * 4),
    ),
    C(
        "igammac",  # Q = 1 - P, differentiable in x only (as igamma)
        lambda T, F, a, b: T.igammac(a, b * 4),
        (const([[1.0, 3.0, 12.0]], grad=False), pos(2, 3)),
        lambda a, b: 1 - np_igamma(a, b * 4),
    ),
    C(
        "special_zeta",  # Hurwitz zeta, differentiable in q only (as PyTorch)
        lambda T, F, s, q: T.special.zeta(s, q * 2),
        (const([[1.5], [3.0]], grad=False), pos(3)),
        lambda s, q: np_zeta(s, q * 2),
    ),
    C("hypot", lambda T, F, a, b: T.hypot(a, b), (nz(2, 3), nz(3)), np.hypot),
    C("fmod", lambda T, F, a, b: T.fmod(a, b), (x(2, 3), nz(3)), np.fmod),
    C("fmod_number", lambda T, F, a: (a * 3).fmod(-1.5), (x(5),), lambda a: np.fmod(a * 3, -1.5)),
    C("copysign", lambda T, F, a, b: T.copysign(a, b), (nz(2, 3), nz(2, 3)), np.copysign),
    C(
        "copysign_zero",  # the gradient at input 0 is 0; the sign's (other's) is 0 everywhere
        lambda T, F, a, b: a.copysign(b),
        (const([0.0, 1.5, -2.0]), const([-1.0, -0.5, 0.7])),
        np.copysign,
    ),
    C(
        "heaviside",
        lambda T, F, a, v: T.heaviside(a, v),
        (const([-1.5, 0.0, 2.0, 0.0], grad=False), const([0.5], grad=False)),
        np.heaviside,
        grad=False,
    ),
    C(
        "gcd_lcm",  # integers only, no gradient
        lambda T, F, a, b: (T.gcd(a, b), a.lcm(b)),
        (const([12, -18, 0, 0, 7], "int64"), const([8, 12, 0, 5, -3], "int64")),
        lambda a, b: (np.gcd(a, b), np.lcm(a, b)),
        grad=False,
    ),
    C(
        "ldexp",
        lambda T, F, a, e: T.ldexp(a, e * 3),
        (x(2, 3), x(3)),
        lambda a, e: a * 2 ** (e * 3),
    ),
    C(
        "ldexp_int_exponent",  # an integer exponent: 2**e in the default float (a negative
        lambda T, F, a, e: a.ldexp(e),  # one: tests/test_elementwise_math.py)
        (x(2, 3), const([3, 1, 0], "int64")),
        lambda a, e: a * 2.0**e,
    ),
    C(
        "frexp",  # the mantissa's gradient is 2**-exponent; the exponent (int32) has none
        lambda T, F, a: (T.frexp(a * 5).mantissa, (a * 5).frexp()[1].long()),
        (nz(2, 3),),
        lambda a: tuple(np.frexp(a * 5)),
    ),
    C(
        "nextafter",  # gradient 1 for input, 0 for other (PyTorch's)
        lambda T, F, a, b: T.nextafter(a, b),
        (x(2, 3), x(3)),
        np.nextafter,
    ),
    C("sinc", lambda T, F, a: T.sinc(a), (x(2, 3),), np.sinc),
    C(
        "sinc_zero",  # 1 at 0, gradient 0 there
        lambda T, F, a: a.sinc(),
        (const([0.0, 0.5, -1.0, 2.5]),),
        np.sinc,
    ),
    C(
        "nan_to_num",
        lambda T, F, a: T.nan_to_num(a, posinf=10.0, neginf=-5.0),  # (defaults: tested apart)
        (const([np.nan, np.inf, -np.inf, 1.5]),),
        lambda a: np.nan_to_num(a, posinf=10.0, neginf=-5.0),
    ),
    C(
        "frac",
        lambda T, F, a: T.frac(a * 3),
        (const([0.5, -1.25, 2.75, -3.5]),),
        lambda a: np.modf(a * 3)[0],
    ),  # fmt: skip
    C("fix", lambda T, F, a: a.fix(), (const([0.5, -1.25, 2.75]),), np.trunc),
    C(
        "signbit",
        lambda T, F, a: T.signbit(a),
        (const([-1.0, -0.0, 0.0, 2.0]),),
        np.signbit,
        grad=False,
    ),  # fmt: skip
    C("deg2rad", lambda T, F, a: T.deg2rad(a * 90), (x(2, 3),), lambda a: np.deg2rad(a * 90)),
    C("rad2deg", lambda T, F, a: a.rad2deg(), (x(2, 3),), np.rad2deg),
    C(
        "float_power",  # float64 whatever the inputs; the gradients in the inputs' dtypes
        # (.to(a.dtype): the table checks float32 stays float32; float64 out is tested apart)
        lambda T, F, a, b: T.float_power(a, b).to(a.dtype),
        (pos(2, 3), x(3)),
        lambda a, b: np.power(a.astype(np.float64), b.astype(np.float64)),
    ),
    C(
        "float_power_number",
        lambda T, F, a: a.float_power(3).to(a.dtype),
        (x(4),),
        lambda a: a.astype(np.float64) ** 3,
    ),  # fmt: skip
    C(
        "fmax_fmin",  # a nan is ignored (ties: tests/test_elementwise_math.py)
        lambda T, F, a, b: (T.fmax(a, b), a.fmin(b)),
        (const([0.5, np.nan, 2.0, 3.0]), const([1.0, 2.0, np.nan, -1.0])),
        lambda a, b: (np.fmax(a, b), np.fmin(a, b)),
    ),
    C("fmax_broadcast", lambda T, F, a, b: T.fmax(a, b), (distinct(2, 3), distinct(3)), np.fmax),
    C(
        "isposinf_isneginf",
        lambda T, F, a: (T.isposinf(a), a.isneginf()),
        (const([np.inf, -np.inf, 1.0, np.nan]),),
        lambda a: (np.isposinf(a), np.isneginf(a)),
        grad=False,
    ),
    C("square", lambda T, F, a: T.square(a), (x(2, 3),), np.square),
    C("reciprocal", lambda T, F, a: a.reciprocal(), (pos(3),), np.reciprocal),
    # sinusoidal position encodings: sin and cos of positions times frequencies (outer)
    C(
        "outer_sin_cos_positions",
        lambda T, F, p, f: T.cat([T.outer(p, f).sin(), T.outer(p, f).cos()], dim=-1),
        (x(5), x(3)),
        lambda p, f: np.concatenate([np.sin(np.outer(p, f)), np.cos(np.outer(p, f))], -1),
    ),
    C("relu", lambda T, F, a: a.relu(), (nz(2, 4),), lambda a: np.maximum(a, 0)),
    C("relu_functional", lambda T, F, a: F.relu(a), (nz(5),), lambda a: np.maximum(a, 0)),
    C("gelu_exact", lambda T, F, a: F.gelu(a), (x(2, 4),), np_gelu),
    C("gelu_exact_wide", lambda T, F, a: F.gelu(a * 4), (x(6),), lambda a: np_gelu(a * 4)),
    C(
        "gelu_tanh",
        lambda T, F, a: F.gelu(a, approximate="tanh"),
        (x(2, 4),),
        np_gelu_tanh,
    ),
    C(
        "leaky_relu",
        lambda T, F, a: F.leaky_relu(a, 0.2),
        (nz(2, 4),),
        lambda a: np.where(a > 0, a, 0.2 * a),
    ),
    # piecewise activations: nz inputs, scaled so that they fall on both sides of each edge
    C("relu6", lambda T, F, a: F.relu6(a * 4), (nz(2, 4),), lambda a: np.clip(a * 4, 0, 6)),
    C("hardtanh", lambda T, F, a: F.hardtanh(a), (nz(2, 4),), lambda a: np.clip(a, -1, 1)),
    C(
        "hardtanh_bounds",
        lambda T, F, a: F.hardtanh(a, min_val=-0.5, max_val=1.5),
        (nz(3, 4),),
        lambda a: np.clip(a, -0.5, 1.5),
    ),
    C("elu", lambda T, F, a: F.elu(a), (nz(2, 4),), np_elu),
    C("elu_alpha", lambda T, F, a: F.elu(a * 3, alpha=0.7), (nz(6),), lambda a: np_elu(a * 3, 0.7)),
    C("selu", lambda T, F, a: F.selu(a), (nz(2, 4),), lambda a: SELU_SCALE * np_elu(a, SELU_ALPHA)),
    C(
        "selu_top_level",
        lambda T, F, a: T.selu(a * 2),
        (nz(5),),
        lambda a: SELU_SCALE * np_elu(a * 2, SELU_ALPHA),
    ),
    C(
        "celu",
        lambda T, F, a: (F.celu(a), T.celu(a, alpha=1.5)),
        (nz(2, 4),),
        lambda a: (np_elu(a), 1.5 * np.expm1(np.minimum(a, 0) / 1.5) + np.maximum(a, 0)),
    ),
    C(
        "softsign",
        lambda T, F, a: F.softsign(a * 3),
        (x(2, 4),),
        lambda a: a * 3 / (1 + np.abs(a * 3)),
    ),
    C("tanhshrink", lambda T, F, a: F.tanhshrink(a), (x(2, 4),), lambda a: a - np.tanh(a)),
    C(
        "logsigmoid",
        lambda T, F, a: F.logsigmoid(a * 4),
        (x(2, 4),),
        lambda a: -np.logaddexp(0, -a * 4),
    ),
    C(
        "mish",
        lambda T, F, a: F.mish(a * 3),
        (x(2, 4),),
        lambda a: a * 3 * np.tanh(np.logaddexp(0, a * 3)),
    ),
    C(
        "hardsigmoid",
        lambda T, F, a: F.hardsigmoid(a * 3),
        (nz(2, 4),),
        lambda a: np_hardsigmoid(a * 3),
    ),
    C(
        "hardswish",
        lambda T, F, a: F.hardswish(a * 3),
        (nz(2, 4),),
        lambda a: a * 3 * np_hardsigmoid(a * 3),
    ),
    C(
        "glu",
        lambda T, F, a: (F.glu(a), F.glu(a, dim=0)),
        (x(4, 6),),
        lambda a: (a[:, :3] * np_sigmoid(a[:, 3:]), a[:2] * np_sigmoid(a[2:])),
    ),
    C("softmin", lambda T, F, a: F.softmin(a, dim=1), (x(3, 4),), lambda a: np_softmax(-a, 1)),
    C(
        "threshold",
        lambda T, F, a: (F.threshold(a, 0.3, -2.0), T.threshold(a, -0.5, 0.25)),
        (nz(2, 4),),
        lambda a: (np.where(a > 0.3, a, -2.0), np.where(a > -0.5, a, 0.25)),
    ),
    C(
        "softshrink",
        lambda T, F, a: (F.softshrink(a), F.softshrink(a, lambd=1.0)),
        (nz(2, 4),),
        lambda a: (np_shrink(a, 0.5, True), np_shrink(a, 1.0, True)),
    ),
    C(
        "hardshrink",
        lambda T, F, a: (F.hardshrink(a), T.hardshrink(a, 1.0), a.hardshrink(lambd=0.3)),
        (nz(2, 4),),
        lambda a: (np_shrink(a, 0.5, False), np_shrink(a, 1.0, False), np_shrink(a, 0.3, False)),
    ),
    C("prelu", lambda T, F, a, w: F.prelu(a, w), (nz(2, 3, 4), x(1)), np_prelu),
    C("prelu_per_channel", lambda T, F, a, w: F.prelu(a, w), (nz(2, 3, 4), x(3)), np_prelu),
    C("prelu_method_2d", lambda T, F, a, w: a.prelu(w), (nz(4, 3), x(3)), np_prelu),
    C("prelu_top_level_1d", lambda T, F, a, w: T.prelu(a, w), (nz(5), x(1)), np_prelu),
    C(
        "rrelu_eval",
        lambda T, F, a: (F.rrelu(a), T.rrelu(a, 0.1, 0.3)),
        (nz(2, 4),),
        lambda a: (np.where(a > 0, a, a * (1 / 8 + 1 / 3) / 2), np.where(a > 0, a, a * 0.2)),
    ),
    C(
        "rrelu_training",  # the host generator draws the slopes: the same numbers on any device
        seeded(lambda T, F, a: F.rrelu(a, 0.1, 0.3, training=True)),
        (nz(3, 4),),
        lambda a: np_rrelu_train(a, 0.1, 0.3),
        torch=False,
    ),
    C(
        "normalize_rows",
        lambda T, F, a: F.normalize(a, dim=-1),
        (x(3, 4),),
        lambda a: a / np.linalg.norm(a, axis=-1, keepdims=True),
    ),
    C("abs", lambda T, F, a: a.abs(), (nz(2, 3),), np.abs),
    C("abs_builtin", lambda T, F, a: abs(a), (nz(3),), np.abs),
    C("absolute", lambda T, F, a: T.absolute(a), (nz(2, 3),), np.abs),
    C("sgn", lambda T, F, a: T.sgn(a) * a, (nz(2, 3),), lambda a: np.sign(a) * a),
    C(
        "clamp_min_fn",
        lambda T, F, a: T.clamp_min(a, 0.1),
        (nz(2, 3),),
        lambda a: np.maximum(a, 0.1),
    ),
    C(
        "clamp_max_tensor",  # a tensor bound has its own gradient
        lambda T, F, a, b: a.clamp_max(b),
        (const([[-1.3, -0.2, 0.1], [0.7, 2.0, -0.6]]), const([-0.5, 0.0, 0.5])),
        np.minimum,
    ),
    C(
        "rsub",
        lambda T, F, a, b: T.rsub(a, b, alpha=2.5),
        (x(2, 3), x(3)),
        lambda a, b: b - 2.5 * a,
    ),
    C(
        "clamp_min_max",
        lambda T, F, a: a.clamp(-0.5, 0.5),
        (const([[-1.3, -0.2, 0.1], [0.7, 2.0, -0.6]]),),
        lambda a: np.clip(a, -0.5, 0.5),
    ),
    C(
        "clamp_min_only",
        lambda T, F, a: T.clamp(a, min=0.0),
        (nz(2, 3),),
        lambda a: np.maximum(a, 0.0),
    ),
    C(
        "clamp_max_only",
        lambda T, F, a: a.clamp(max=0.3),
        (const([-1.0, 0.1, 0.9, 2.5]),),
        lambda a: np.minimum(a, 0.3),
    ),
    C(
        "clamp_tensor_bounds",  # broadcast bounds, each with its own gradient
        lambda T, F, a, low, high: T.clamp(a, low, high),
        (
            const([[-1.3, -0.2, 0.1], [0.7, 2.0, -0.6]]),
            const([-0.5, -0.1, 0.0]),
            const([[0.5], [1.0]]),
        ),
        lambda a, low, high: np.minimum(np.maximum(a, low), high),
    ),
    C("maximum", lambda T, F, a, b: T.maximum(a, b), (x(2, 3), x(2, 3)), np.maximum),
    C("maximum_broadcast", lambda T, F, a, b: a.maximum(b), (x(2, 3), x(3)), np.maximum),
    C("minimum", lambda T, F, a, b: T.minimum(a, b), (x(2, 3), x(1, 3)), np.minimum),
    C("where", lambda T, F, m, a, b: T.where(m, a, b), (mask(2, 3), x(2, 3), x(2, 3)), np.where),
    C(
        "where_broadcast",
        lambda T, F, m, a, b: T.where(m, a, b),
        (mask(2, 3), x(3), x(2, 1)),
        np.where,
    ),
    C(
        "where_scalar",
        lambda T, F, m, a: T.where(m, a, 0.0),
        (mask(4), x(4)),
        lambda m, a: np.where(m, a, 0.0),
    ),
]

COMPARISONS = [
    C("lt", lambda T, F, a, b: a < b, (x(2, 3), x(2, 3)), np.less, grad=False),
    C("le_scalar", lambda T, F, a: a <= 0.0, (nz(5),), lambda a: a <= 0.0, grad=False),
    C("gt_scalar_left", lambda T, F, a: 0.5 < a, (x(5),), lambda a: 0.5 < a, grad=False),
    C("gt_broadcast", lambda T, F, a, b: a > b, (x(2, 3), x(3)), np.greater, grad=False),
    C(
        "ge_ties",
        lambda T, F, a, b: a >= b,
        (const([1.0, 2.0, 3.0]), const([1.0, 2.5, 2.0])),
        np.greater_equal,
        grad=False,
    ),
    C(
        "eq",
        lambda T, F, a, b: a == b,
        (const([1.0, 2.0, 3.0]), const([1.0, 0.0, 3.0])),
        np.equal,
        grad=False,
    ),
    C(
        "ne",
        lambda T, F, a, b: a != b,
        (const([1.0, 2.0, 3.0]), const([1.0, 0.0, 3.0])),
        np.not_equal,
        grad=False,
    ),
    C("eq_function", lambda T, F, a: T.eq(a, a), (x(3),), lambda a: a == a, grad=False),
    # logical_*: any nonzero value is True, the result is bool, whatever the dtypes
    C(
        "logical_and_floats",
        lambda T, F, a, b: T.logical_and(a, b),
        (const([1.5, 0.0, -2.0, 0.0]), const([3, 3, 0, 0], "int64")),
        np.logical_and,
        grad=False,
    ),
    C(
        "logical_or_xor_ints",
        lambda T, F, a, b: (T.logical_or(a, b), T.logical_xor(a, b), a.logical_not()),
        (const([1, 2, 0, 0], "int64"), const([2, 0, 4, 0], "int64")),
        lambda a, b: (np.logical_or(a, b), np.logical_xor(a, b), np.logical_not(a)),
        grad=False,
    ),
    C(
        "any_all_dims",
        lambda T, F, m: (m.any(dim=1), m.all(dim=-1, keepdim=True), T.any(m), m.all((0, 2))),
        (mask(2, 3, 4),),
        lambda m: (m.any(1), m.all(-1, keepdims=True), m.any(), m.all((0, 2))),
        grad=False,
    ),
    # &, |, ^, ~ are bitwise on integers (1 & 2 == 0, ~5 == -6) and logical on bools
    C(
        "bitwise_operators_ints",
        lambda T, F, a, b: (a & b, a | b, a ^ b, ~a, 6 & a),
        (const([5, 1, 2, -3], "int64"), const([3, 2, 2, 7], "int64")),
        lambda a, b: (a & b, a | b, a ^ b, ~a, 6 & a),
        grad=False,
    ),
    # << and >> on integers: x * 2**n and x // 2**n (the sign bit filling in from the left)
    C(
        "shift_operators_ints",
        lambda T, F, a, b: (a << b, a >> b, 1 << b, T.bitwise_right_shift(a, 1), a << True),
        (const([5, 1, -2, -3], "int64"), const([3, 0, 2, 1], "int64")),
        lambda a, b: (a << b, a >> b, 1 << b, a >> 1, a << 1),
        grad=False,
    ),
    C(
        "bitwise_operators_masks",
        lambda T, F, a, b: (a & b, a | b, a ^ b, ~a, T.bitwise_not(b)),
        (mask(2, 3), mask(3)),
        lambda a, b: (a & b, a | b, a ^ b, ~a, ~b),
        grad=False,
    ),
]

REDUCTIONS = [
    C("sum_all", lambda T, F, a: a.sum(), (x(2, 3, 4),), np.sum),
    C("sum_dim", lambda T, F, a: a.sum(dim=1), (x(2, 3, 4),), lambda a: a.sum(1)),
    C("sum_dim_negative", lambda T, F, a: T.sum(a, -1), (x(2, 3),), lambda a: a.sum(-1)),
    C("sum_dim_tuple", lambda T, F, a: a.sum((0, 2)), (x(2, 3, 4),), lambda a: a.sum((0, 2))),
    C(
        "sum_keepdim",
        lambda T, F, a: a.sum(1, keepdim=True),
        (x(2, 3, 4),),
        lambda a: a.sum(1, keepdims=True),
    ),
    C(
        "sum_tuple_keepdim",
        lambda T, F, a: a.sum(dim=(0, -1), keepdim=True),
        (x(2, 3, 4),),
        lambda a: a.sum((0, 2), keepdims=True),
    ),
    C("sum_0d", lambda T, F, a: a.sum(), (x(),), np.sum),
    C("sum_0d_dim0", lambda T, F, a: a.sum(0), (x(),), lambda a: a),
    C("sum_size1", lambda T, F, a: a.sum(0), (x(1, 3),), lambda a: a.sum(0)),
    C(
        "sum_to_size",  # the leading dim summed away, the middle one kept as 1
        lambda T, F, a: a.sum_to_size(1, 4),
        (x(2, 3, 4),),
        lambda a: a.sum((0, 1))[None],
    ),
    C(
        "sum_to_size_tuple",
        lambda T, F, a: a.sum_to_size((2, 1)),
        (x(2, 3),),
        lambda a: a.sum(1, keepdims=True),
    ),
    C("mean_all", lambda T, F, a: a.mean(), (x(2, 3, 4),), np.mean),
    C("mean_dim", lambda T, F, a: T.mean(a, 2), (x(2, 3, 4),), lambda a: a.mean(2)),
    C(
        "mean_tuple_keepdim",
        lambda T, F, a: a.mean((1, 2), keepdim=True),
        (x(2, 3, 4),),
        lambda a: a.mean((1, 2), keepdims=True),
    ),
    C("mean_0d", lambda T, F, a: a.mean(), (x(),), np.mean),
    C("max_all", lambda T, F, a: a.max(), (distinct(3, 4),), np.max),
    C("min_all", lambda T, F, a: T.min(a), (distinct(3, 4),), np.min),
    C(
        "max_dim",
        lambda T, F, a: a.max(dim=1),
        (distinct(3, 4),),
        lambda a: np_extreme_dim(a, 1, False, True),
    ),
    C(
        "max_dim_keepdim",
        lambda T, F, a: T.max(a, 0, keepdim=True),
        (distinct(3, 4),),
        lambda a: np_extreme_dim(a, 0, True, True),
    ),
    C(
        "max_dim_values_field",
        lambda T, F, a: a.max(-1).values,
        (distinct(2, 3, 4),),
        lambda a: a.max(-1),
    ),
    C(
        "min_dim",
        lambda T, F, a: a.min(dim=-1),
        (distinct(2, 5),),
        lambda a: np_extreme_dim(a, -1, False, False),
    ),
    C(
        "min_dim_keepdim",
        lambda T, F, a: a.min(1, True),
        (distinct(2, 3, 2),),
        lambda a: np_extreme_dim(a, 1, True, False),
    ),
    C("max_elementwise", lambda T, F, a, b: T.max(a, b), (x(2, 3), x(2, 3)), np.maximum),
    C("amax", lambda T, F, a: a.amax(1), (distinct(3, 4),), lambda a: a.max(1)),
    C("amax_all", lambda T, F, a: T.amax(a), (distinct(3, 4),), np.max),
    C(
        "amax_tuple_keepdim",
        lambda T, F, a: a.amax((0, 2), keepdim=True),
        (distinct(2, 3, 2),),
        lambda a: a.max((0, 2), keepdims=True),
    ),
    C("prod_all", lambda T, F, a: a.prod(), (x(2, 3),), np.prod),
    C(
        "prod_dim_with_zeros",  # rows with no 0, one 0 and two 0s: each gradient rule
        lambda T, F, a: T.prod(a, 1),
        (const([[1.5, -2.0, 3.0], [0.5, 0.0, 2.0], [0.0, 0.0, 4.0]]),),
        lambda a: a.prod(1),
    ),
    C(
        "prod_keepdim",
        lambda T, F, a: a.prod(-1, keepdim=True),
        (x(2, 3),),
        lambda a: a.prod(-1, keepdims=True),
    ),
    C(
        "cumprod",  # a row with no 0, one 0 and two 0s: each gradient rule (as PyTorch's)
        lambda T, F, a: (T.cumprod(a, 1), a.cumprod(0), a.cumprod(dim=-1)),
        (const([[1.5, -2.0, 3.0, 0.5], [0.5, 0.0, 2.0, -1.5], [0.0, 3.0, 0.0, 4.0]]),),
        lambda a: (np.cumprod(a, 1), np.cumprod(a, 0), np.cumprod(a, -1)),
    ),
    C("cumprod_0d", lambda T, F, a: T.cumprod(a, -1), (x(),), lambda a: a),
    C("cumprod_", lambda T, F, a: (a * 1).cumprod_(1), (x(2, 4),), lambda a: np.cumprod(a, 1)),
    C("amin", lambda T, F, a: a.amin(-1), (distinct(3, 4),), lambda a: a.min(-1)),
    C(
        "amin_tuple_keepdim_ties",  # tied minima share the gradient evenly, as in PyTorch
        lambda T, F, a: T.amin(a, (0, 1), keepdim=True),
        (const([[1.0, -2.0], [-2.0, 3.0]]),),
        lambda a: a.min((0, 1), keepdims=True),
    ),
    C("var_all", lambda T, F, a: a.var(), (x(3, 4),), lambda a: a.var(ddof=1)),
    C("var_dim", lambda T, F, a: a.var(dim=1), (x(3, 4),), lambda a: a.var(1, ddof=1)),
    C(
        "var_biased",
        lambda T, F, a: a.var(1, unbiased=False),
        (x(3, 4),),
        lambda a: a.var(1),
    ),
    C(
        "var_correction0",
        lambda T, F, a: T.var(a, 0, correction=0),
        (x(3, 4),),
        lambda a: a.var(0),
    ),
    C(
        "var_correction2_tuple_keepdim",
        lambda T, F, a: a.var(dim=(0, 2), keepdim=True, correction=2),
        (x(2, 3, 4),),
        lambda a: a.var((0, 2), ddof=2, keepdims=True),
    ),
    C("std", lambda T, F, a: a.std(0), (x(4, 3),), lambda a: a.std(0, ddof=1)),
    C(
        "var_mean",
        lambda T, F, a: (*T.var_mean(a, 1), *T.var_mean(a)),
        (x(3, 4),),
        lambda a: (a.var(1, ddof=1), a.mean(1), a.var(ddof=1), a.mean()),
    ),
    C(
        "std_mean_correction_keepdim",
        lambda T, F, a: T.std_mean(a, (0, 2), keepdim=True, correction=0),
        (x(2, 3, 4),),
        lambda a: (a.std((0, 2), keepdims=True), a.mean((0, 2), keepdims=True)),
    ),
    C(
        "cov",  # variables in rows; a 1-D input is one variable (a 0-d variance)
        lambda T, F, a: (T.cov(a), a.cov(correction=0), T.cov(a[0])),
        (x(3, 5),),
        lambda a: (np.cov(a), np.cov(a, ddof=0), np.cov(a[0])),
    ),
    C(
        "cov_weights",
        lambda T, F, a, f, w: (
            T.cov(a, fweights=f, aweights=w),
            T.cov(a, correction=2, aweights=w),
            T.cov(a, correction=0, fweights=f),
        ),
        (x(2, 5), const([1, 3, 2, 1, 2], "int64"), pos(5)),
        lambda a, f, w: (
            np.cov(a, fweights=f, aweights=w),
            np.cov(a, ddof=2, aweights=w),
            np.cov(a, ddof=0, fweights=f),
        ),
    ),
    C("corrcoef", lambda T, F, a: T.corrcoef(a), (x(3, 6),), np.corrcoef),
    C(
        "trapezoid",  # spacing dx, sample positions x along dim (1-D or y's shape); trapz
        lambda T, F, y, p, q: (
            T.trapezoid(y),
            T.trapezoid(y, dx=0.5, dim=0),
            T.trapezoid(y, p),
            T.trapezoid(y, q, dim=0),
            T.trapz(y, p, dim=-1),
            T.trapz(y, dx=2.0),
        ),
        (x(3, 4), x(4), x(3, 4)),
        lambda y, p, q: (
            np.trapezoid(y),
            np.trapezoid(y, dx=0.5, axis=0),
            np.trapezoid(y, p),
            np.trapezoid(y, q, axis=0),
            np.trapezoid(y, p, axis=-1),
            np.trapezoid(y, dx=2.0),
        ),
    ),
    C(
        "nansum_nanmean",  # nan counts as missing; its gradient is 0
        lambda T, F, a: (T.nansum(a, 1), a.nansum(), a.nanmean(0), T.nanmean(a, 1, keepdim=True)),
        (const([[1.5, float("nan"), -2.0], [0.5, 3.0, float("nan")]]),),
        lambda a: (
            np.nansum(a, 1),
            np.nansum(a),
            np.nanmean(a, 0),
            np.nanmean(a, 1, keepdims=True),
        ),
    ),
    C(
        "count_nonzero",
        lambda T, F, a: (T.count_nonzero(a, (0, -1)), a.count_nonzero(), a.count_nonzero(1)),
        (const([[[0.0, 1.5], [2.0, 0.0]], [[0.0, 0.0], [-1.0, 3.0]]], grad=False),),
        lambda a: (np.count_nonzero(a, (0, 2)), np.count_nonzero(a), np.count_nonzero(a, 1)),
        grad=False,
    ),
    C(
        "median_all",  # an even count: the lower of the two middles, as PyTorch
        lambda T, F, a: a.median(),
        (distinct(3, 4),),
        lambda a: np.sort(a.ravel())[5],
    ),
    C(
        "median_dim",
        lambda T, F, a: (*T.median(a, 1), *a.median(0, keepdim=True)),
        (distinct(3, 4),),
        lambda a: (*_np_order_statistic(a, 1, 1), *_np_order_statistic(a, 1, 0, True)),
    ),
    C(
        "kthvalue",
        lambda T, F, a: (*a.kthvalue(2, 0), *T.kthvalue(a, 4, keepdim=True)),
        (distinct(3, 4),),
        lambda a: (*_np_order_statistic(a, 1, 0), *_np_order_statistic(a, 3, 1, True)),
    ),
    C(
        "nanmedian",  # the lower middle of the values that are not nan
        lambda T, F, a: (T.nanmedian(a), a.nanmedian(1).values, T.nanmedian(a, 0, True)[0]),
        (
            const(
                [
                    [0.3, np.nan, -1.2, 2.0, 0.9],
                    [1.5, np.nan, np.nan, -0.4, 0.1],
                    [-0.7, 2.4, 1.1, -2.2, np.nan],
                ]
            ),
        ),
        lambda a: (
            _np_nan_lower_median(a),
            _np_nan_lower_median(a, 1),
            _np_nan_lower_median(a, 0, True),
        ),
    ),
    C(
        "mode",  # the most frequent value (the smallest on a tie), at its last index
        lambda T, F, a: (*T.mode(a), *a.mode(0, keepdim=True)),
        (const([[1.0, 2.0, 2.0, -1.0], [0.5, 0.5, 3.0, 3.0], [0.5, -2.0, 3.0, 0.0]], grad=False),),
        lambda a: (
            np.array([2.0, 0.5, -2.0]),
            np.array([2, 1, 1]),
            np.array([[0.5, -2.0, 3.0, -1.0]]),
            np.array([[2, 2, 2, 0]]),
        ),
        grad=False,
    ),
    C(
        "cummax_cummin",
        lambda T, F, a: (*T.cummax(a, 1), *a.cummin(0)),
        (distinct(3, 4),),
        lambda a: (*_np_running_extreme(a, 1, True), *_np_running_extreme(a, 0, False)),
    ),
    C(
        "quantile",  # q a number or a 1-D tensor (a leading dim); each interpolation
        lambda T, F, a, q: (
            T.quantile(a, q, dim=1, keepdim=True),
            a.quantile(0.3),
            T.quantile(a, q, 0, interpolation="lower"),
            a.quantile(q, -1, interpolation="higher"),
            a.quantile(0.7, 0, interpolation="midpoint"),
            T.quantile(a, q, 1, interpolation="nearest"),
        ),
        (distinct(3, 5), const([0.1, 0.3, 0.8], grad=False)),
        lambda a, q: (
            np.quantile(a, q, axis=1, keepdims=True),
            np.quantile(a, 0.3),
            np.quantile(a, q, axis=0, method="lower"),
            np.quantile(a, q, axis=-1, method="higher"),
            np.quantile(a, 0.7, axis=0, method="midpoint"),
            np.quantile(a, q, axis=1, method="nearest"),
        ),
    ),
    C(
        "nanquantile",
        lambda T, F, a: (T.nanquantile(a, 0.4, 1), a.nanquantile(0.6), a.nanquantile(0.5, 0)),
        (const([[0.3, np.nan, -1.2, 2.0], [1.5, np.nan, np.nan, -0.4], [-0.7, 2.4, 1.1, -2.2]]),),
        lambda a: (
            np.nanquantile(a, 0.4, axis=1),
            np.nanquantile(a, 0.6),
            np.nanquantile(a, 0.5, axis=0),
        ),
    ),
    C(
        "histc",  # the range given, or the data's own; the last bin includes max
        lambda T, F, a: (T.histc(a, bins=4, min=-1, max=1), a.histc(5)),
        (x(30),),
        lambda a: (np.histogram(a, 4, (-1, 1))[0] * 1.0, np.histogram(a, 5)[0] * 1.0),
        grad=False,
    ),
    C(
        "histogramdd",  # points' last dim holds their coordinates; the last bins hold max
        lambda T, F, a: (lambda h: (h.hist, *h.bin_edges))(T.histogramdd(a, bins=[2, 3])),
        (x(30, 2, grad=False),),
        lambda a: (lambda h, edges: (h, *edges))(*np.histogramdd(a, bins=[2, 3])),
        grad=False,
    ),
    C(
        "bincount",
        lambda T, F, i, w: (T.bincount(i), i.bincount(w, minlength=7)),
        (ints(5, 12), x(12, grad=False)),
        lambda i, w: (np.bincount(i), np.bincount(i, w, minlength=7)),
        grad=False,
    ),
    C(
        "aminmax",
        lambda T, F, a: (*T.aminmax(a, dim=1), *a.aminmax(), *a.aminmax(dim=-1, keepdim=True)),
        (distinct(3, 4),),
        lambda a: (
            a.min(1),
            a.max(1),
            a.min(),
            a.max(),
            a.min(-1, keepdims=True),
            a.max(-1, keepdims=True),
        ),  # fmt: skip
    ),
    C(
        "topk",
        lambda T, F, a: a.topk(2, dim=1),
        (distinct(3, 5),),
        lambda a: np_topk(a, 2, 1),
    ),
    C(
        "topk_smallest",
        lambda T, F, a: T.topk(a, 3, largest=False),
        (distinct(6),),
        lambda a: (np.sort(a)[:3], np.argsort(a)[:3]),
    ),
    C("argmax", lambda T, F, a: a.argmax(1), (distinct(3, 4),), lambda a: a.argmax(1), grad=False),
    C("argmax_all", lambda T, F, a: T.argmax(a), (distinct(3, 4),), np.argmax, grad=False),
    C("argmin", lambda T, F, a: a.argmin(0), (distinct(3, 4),), lambda a: a.argmin(0), grad=False),
]

MATMUL = [
    C(
        "einsum_attention_scores",
        lambda T, F, q, k: T.einsum("bhqd,bhkd->bhqk", q, k),
        (x(2, 2, 3, 4), x(2, 2, 5, 4)),
        lambda q, k: np.einsum("bhqd,bhkd->bhqk", q, k),
    ),
    C(
        "einsum_implicit_output",  # no "->": the letters used once, in order: "ik"
        lambda T, F, a, b: T.einsum("ij,jk", a, b),
        (x(2, 3), x(3, 4)),
        lambda a, b: a @ b,
    ),
    C(
        "einsum_letters_summed_away",  # j and k only in the first operand
        lambda T, F, a, v: T.einsum("ijk,i->i", a, v),
        (x(2, 3, 4), x(2)),
        lambda a, v: np.einsum("ijk,i->i", a, v),
    ),
    C(
        "einsum_three_operands_list",
        lambda T, F, a, b, c: T.einsum("ij,ij,j->i", [a, b, c]),
        (x(2, 3), x(2, 3), x(3)),
        lambda a, b, c: np.einsum("ij,ij,j->i", a, b, c),
    ),
    C(
        "einsum_sublist_form",  # numbers for letters; without an output list: "ik" order
        lambda T, F, a, b: (
            T.einsum(a, [Ellipsis, 0, 1], b, [Ellipsis, 1, 2], [Ellipsis, 0, 2]),
            T.einsum(a, [Ellipsis, 27, 1], b, [1, 26]),
        ),
        (x(2, 3, 4), x(4, 5)),
        lambda a, b: (a @ b, np.einsum("...bB,Ba->...ab", a, b)),
    ),
    C(
        "einsum_ellipsis_batched_matmul",  # "..." covers (2, 3) in a, (3,) in b: broadcast
        lambda T, F, a, b: T.einsum("...ij,...jk->...ik", a, b),
        (x(2, 3, 2, 4), x(3, 4, 2)),
        lambda a, b: np.einsum("...ij,...jk->...ik", a, b),
    ),
    C(
        "einsum_ellipsis_implicit_and_summed",  # "...ij,jk": "..." leads the output; "->ij"
        lambda T, F, a, b: (T.einsum("...ij,jk", a, b), T.einsum("...ij->ij", a)),
        (x(2, 3, 4), x(4, 2)),
        lambda a, b: (np.einsum("...ij,jk", a, b), a.sum(0)),
    ),
    C(
        "einsum_size1_dims_broadcast",  # z: 1 in a, 5 in b; i: 3 in a only met by 1 in c
        lambda T, F, a, b, c: T.einsum("zij,zjk,i->zik", a, b, c),
        (x(1, 3, 4), x(5, 4, 2), x(1)),
        lambda a, b, c: np.einsum("zij,zjk,i->zik", a, b, np.broadcast_to(c, (3,))),
    ),
    C(
        "einsum_trace_and_diagonals",  # a letter twice: the diagonal (its gradient too)
        lambda T, F, m, b: (
            T.einsum("ii", m),
            T.einsum("ii->i", m),
            T.einsum("bjj,bj->b", b, b[:, 0]),
        ),
        (x(3, 3), x(2, 3, 3)),
        lambda m, b: (np.trace(m), np.diag(m), np.einsum("bjj,bj->b", b, b[:, 0])),
    ),
    C("matmul_1d_1d", lambda T, F, a, b: a @ b, (x(4), x(4)), np.matmul),
    C("matmul_1d_2d", lambda T, F, a, b: a @ b, (x(4), x(4, 3)), np.matmul),
    C("matmul_2d_1d", lambda T, F, a, b: T.matmul(a, b), (x(3, 4), x(4)), np.matmul),
    C("matmul_2d_2d", lambda T, F, a, b: a @ b, (x(3, 4), x(4, 2)), np.matmul),
    C("matmul_batched_2d", lambda T, F, a, b: a @ b, (x(2, 3, 4), x(4, 5)), np.matmul),
    C("matmul_2d_batched", lambda T, F, a, b: a.matmul(b), (x(3, 4), x(2, 4, 2)), np.matmul),
    C(
        "matmul_batch_broadcast",
        lambda T, F, a, b: a @ b,
        (x(2, 1, 3, 4), x(3, 4, 2)),
        np.matmul,
    ),
    C("matmul_1d_batched", lambda T, F, a, b: a @ b, (x(4), x(2, 4, 3)), np.matmul),
    C("matmul_batched_1d", lambda T, F, a, b: a @ b, (x(2, 3, 4), x(4)), np.matmul),
    C("matmul_size1", lambda T, F, a, b: a @ b, (x(1, 1), x(1, 3)), np.matmul),
    C("mm", lambda T, F, a, b: T.mm(a, b), (x(2, 3), x(3, 2)), np.matmul),
    C("bmm", lambda T, F, a, b: T.bmm(a, b), (x(2, 2, 3), x(2, 3, 2)), np.matmul),
    C("mm_method", lambda T, F, a, b: a.mm(b), (x(3, 2), x(2, 4)), np.matmul),
    C("bmm_method", lambda T, F, a, b: a.bmm(b), (x(3, 1, 2), x(3, 2, 2)), np.matmul),
    C(
        "addmm",
        lambda T, F, c, a, b: (T.addmm(c, a, b, beta=0.5, alpha=2), c.expand(2, 3).addmm(a, b)),
        (x(3), x(2, 4), x(4, 3)),
        lambda c, a, b: (0.5 * c + 2 * (a @ b), c + a @ b),
    ),
    C(
        "addmm_beta0_ignores_nan_in_input",
        lambda T, F, c, a, b: T.addmm(c, a, b, beta=0),
        (const([float("nan"), 1.0], grad=False), x(2, 3), x(3, 2)),
        lambda c, a, b: a @ b,
    ),
    C(
        "addmv_addr",
        lambda T, F, c, m, v: (T.addmv(c, m, v, alpha=-1), T.addr(m, c, v, beta=3), m.addr(c, v)),
        (x(2), x(2, 3), x(3)),
        lambda c, m, v: (c - m @ v, 3 * m + np.outer(c, v), m + np.outer(c, v)),
    ),
    C(
        "addbmm_baddbmm",
        lambda T, F, c, d, a, b: (T.addbmm(c, a, b, beta=2), d.baddbmm(a, b, alpha=0.5)),
        (x(2, 3), x(1, 3), x(4, 2, 5), x(4, 5, 3)),
        lambda c, d, a, b: (2 * c + (a @ b).sum(0), d + 0.5 * (a @ b)),
    ),
    C(
        "addcmul_addcdiv",
        lambda T, F, a, b, c, d: (T.addcmul(a, b, c, value=0.5), a.addcdiv(b, d, value=-2)),
        (x(2, 3), x(3), x(2, 1), pos(2, 3)),
        lambda a, b, c, d: (a + 0.5 * b * c, a - 2 * b / d),
    ),
    C(
        "tensordot",
        lambda T, F, a, b, c: (
            T.tensordot(a, b),
            T.tensordot(a, c, dims=([0, 2], [1, 0])),
            T.tensordot(a[0], c[0], 0),
        ),  # fmt: skip
        (x(2, 3, 4), x(3, 4, 2), x(4, 2, 5)),
        lambda a, b, c: (
            np.tensordot(a, b),
            np.tensordot(a, c, ([0, 2], [1, 0])),
            np.tensordot(a[0], c[0], 0),
        ),  # fmt: skip
    ),
    C(
        "inner",  # over the last dim of each; a 0-d operand multiplies
        lambda T, F, a, b, v, s: (T.inner(a, b), a.inner(v), T.inner(v, v), T.inner(s, a)),
        (x(2, 2, 3), x(4, 3), x(3), x()),
        lambda a, b, v, s: (np.inner(a, b), np.inner(a, v), np.inner(v, v), s * a),
    ),
    C(
        "kron",
        lambda T, F, a, b, c: (T.kron(a, b), c.kron(a)),
        (x(2, 3), x(2), x(2, 1, 2)),
        lambda a, b, c: (np.kron(a, b), np.kron(c, a)),
    ),
    C(
        "cross",
        lambda T, F, a, b, c: (T.cross(a, b, dim=0), a.cross(c, dim=-1)),
        (x(3, 3), x(3, 3), x(1, 3)),
        lambda a, b, c: (np.cross(a, b, axis=0), np.cross(a, c)),
    ),
    C(
        "cartesian_prod",
        lambda T, F, a, b, c: (T.cartesian_prod(a, b, c), T.cartesian_prod(b)),
        (x(2), x(3), x(2)),
        lambda a, b, c: (
            np.stack([g.ravel() for g in np.meshgrid(a, b, c, indexing="ij")], 1),
            b,
        ),  # fmt: skip
    ),
    C(
        "combinations",
        lambda T, F, a: (T.combinations(a), T.combinations(a, 3), T.combinations(a, 2, True)),
        (x(4),),
        lambda a: (
            np.array(list(itertools.combinations(a, 2))),
            np.array(list(itertools.combinations(a, 3))),
            np.array(list(itertools.combinations_with_replacement(a, 2))),
        ),
    ),
]


def _spd(T, m):
    """A symmetric positive-definite matrix (batch) made from any square m."""
    return m @ m.mT + m.shape[-1] * T.eye(m.shape[-1], device=m.device)


def _np_spd(m):
    return m @ np.swapaxes(m, -1, -2) + m.shape[-1] * np.eye(m.shape[-1])


def _np_gram(low):
    """L L^T."""
    return low @ np.swapaxes(low, -1, -2)


def _np_sym(m):
    return m + np.swapaxes(m, -1, -2)


def _np_svd_abs(a, full_matrices=False):
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return np.abs(u), s, np.abs(vh)


def _np_matrix_norms(a):
    """fro, nuc, 1, -1, inf, -inf, 2, -2 of the matrices in the last two dims."""
    s = np.linalg.svd(a, compute_uv=False)
    cols, rows = np.abs(a).sum(-2), np.abs(a).sum(-1)
    fro = np.sqrt((a * a).sum((-2, -1)))
    return (
        fro,
        s.sum(-1),
        cols.max(-1),
        cols.min(-1),
        rows.max(-1),
        rows.min(-1),
        s[..., 0],
        s[..., -1],
    )


def _np_expm(a):
    """exp(A) by its Taylor series on A / 2^s (1-norm under 1/2), squared back s times."""
    s = max(0, int(np.ceil(np.log2(max(np.abs(a).sum(-2).max(), 1e-300) / 0.5))))
    x, term, out = a / 2.0**s, np.broadcast_to(np.eye(a.shape[-1]), a.shape), 0
    for j in range(1, 40):
        out, term = out + term, term @ x / j
    for _ in range(s):
        out = out @ out
    return out


def _np_lu(a):
    """(P, L, U) of one matrix by Gaussian elimination with partial pivoting, P A = L U as
    NumPy rows; returned as A = P^T L U's P^T."""
    m, n = a.shape
    u, perm = a.astype(float).copy(), np.arange(m)
    low = np.zeros((m, min(m, n)))
    for j in range(min(m, n)):
        p = j + np.argmax(np.abs(u[j:, j]))
        u[[j, p]], low[[j, p]], perm[[j, p]] = u[[p, j]], low[[p, j]], perm[[p, j]]
        low[j + 1 :, j] = u[j + 1 :, j] / u[j, j]
        u[j + 1 :] -= low[j + 1 :, j, None] * u[j]
    low[: min(m, n)] += np.eye(min(m, n))
    return np.eye(m)[perm].T, low, np.triu(u[: min(m, n)])


def _np_lu_packed(a):
    """lu_factor's LU: L below the diagonal (no ones), U on and above it."""
    _, low, up = _np_lu(a)
    k = min(a.shape)
    packed = np.zeros(a.shape)
    packed[:, :k] += np.tril(low, -1)
    packed[:k] += up
    return packed


def _np_householder(a, tau, m):
    """H_1 ... H_k (m x m), H_i = I - tau_i v_i v_i^T with v_i A's unit lower column i."""
    q = np.eye(m)
    for i in range(tau.shape[-1]):
        v = np.concatenate([np.zeros(i), [1.0], a[i + 1 :, i]])
        q = q @ (np.eye(m) - tau[i] * np.outer(v, v))
    return q


LINALG = [
    C(
        "linalg_vector_norm_ords",
        lambda T, F, a: (
            T.linalg.vector_norm(a),
            T.linalg.vector_norm(a, 3, dim=1),
            T.linalg.vector_norm(a, float("inf"), dim=(0, 1), keepdim=True),
            T.linalg.vector_norm(a, -float("inf"), 1),
            T.linalg.vector_norm(a, 1, -1),
            T.linalg.vector_norm(a, 0.5, 0),
            T.linalg.vector_norm(a, 0),
        ),
        (distinct(3, 4),),
        lambda a: (
            np.sqrt((a * a).sum()),
            (np.abs(a) ** 3).sum(1) ** (1 / 3),
            np.abs(a).max(keepdims=True),
            np.abs(a).min(1),
            np.abs(a).sum(-1),
            (np.abs(a) ** 0.5).sum(0) ** 2,
            np.float64(np.count_nonzero(a)),
        ),
    ),
    C(
        "linalg_matrix_norm_ords",
        lambda T, F, a: tuple(
            T.linalg.matrix_norm(a, o)
            for o in ("fro", "nuc", 1, -1, float("inf"), -float("inf"), 2, -2)
        ),
        (x(2, 3, 4),),
        _np_matrix_norms,
    ),
    C(
        "frobenius_nuclear_norm",  # the deprecated torch.frobenius_norm and torch.nuclear_norm
        lambda T, F, a: (
            T.frobenius_norm(a, (1, 2)),
            T.frobenius_norm(a, 0, True),
            T.nuclear_norm(a[0]),
            T.nuclear_norm(a, (0, 2), True),
        ),  # fmt: skip
        (x(3, 2, 4),),
        lambda a: (
            np.sqrt((a**2).sum((1, 2))),
            np.sqrt((a**2).sum(0, keepdims=True)),
            np.linalg.svd(a[0], compute_uv=False).sum(),
            np.linalg.svd(np.moveaxis(a, 1, 0), compute_uv=False).sum(-1)[None, :, None],
        ),
    ),
    C(
        "linalg_matrix_norm_dims_keepdim",  # the matrices in dims (0, 2), kept as size 1
        lambda T, F, a: (
            T.linalg.matrix_norm(a, 1, dim=(2, 0), keepdim=True),
            T.linalg.matrix_norm(a, "nuc", dim=(0, 2), keepdim=True),
        ),
        (x(3, 2, 4),),
        lambda a: (
            np.abs(a).sum(2, keepdims=True).max(0, keepdims=True),
            np.linalg.svd(np.moveaxis(a, 1, 0), compute_uv=False).sum(-1)[None, :, None],
        ),
    ),
    C(
        "linalg_norm_dispatch",  # vector for no dim / an int dim, matrix for a 2-tuple / 2-D
        lambda T, F, a, m: (
            T.linalg.norm(a),
            T.linalg.norm(a, 3, dim=1),
            T.linalg.norm(a, dim=(1, 2)),
            T.linalg.norm(m, float("inf")),
            T.linalg.norm(m, "nuc"),
            T.linalg.norm(m[0], 4),
        ),
        (x(2, 3, 4), x(3, 4)),
        lambda a, m: (
            np.sqrt((a * a).sum()),
            (np.abs(a) ** 3).sum(1) ** (1 / 3),
            np.sqrt((a * a).sum((1, 2))),
            np.abs(m).sum(1).max(),
            np.linalg.svd(m, compute_uv=False).sum(),
            (m[0] ** 4).sum() ** 0.25,
        ),
    ),
    C(
        "norm_torch_top_level",  # torch.norm: p="fro" by default, numbers as vector norms
        lambda T, F, a: (
            T.norm(a),
            T.norm(a, 3, dim=1),
            T.norm(a, float("inf")),
            T.norm(a, p=1, dim=(0, 1)),
            T.norm(a[0], "nuc"),
            a.norm(dim=(1, 2), keepdim=True),
        ),
        (x(2, 3, 4),),
        lambda a: (
            np.sqrt((a * a).sum()),
            (np.abs(a) ** 3).sum(1) ** (1 / 3),
            np.abs(a).max(),
            np.abs(a).sum((0, 1)),
            np.linalg.svd(a[0], compute_uv=False).sum(),
            np.sqrt((a * a).sum((1, 2), keepdims=True)),
        ),
    ),
    C(
        "linalg_cond_svd",  # p None / 2 / -2 from the singular values (any shape), 'nuc'
        lambda T, F, a, b: (
            T.linalg.cond(a),
            T.linalg.cond(a, 2),
            T.linalg.cond(b, -2),
            T.linalg.cond(a, "nuc"),
        ),
        (x(2, 3, 3), x(4, 3)),
        lambda a, b: (
            np.linalg.cond(a),
            np.linalg.cond(a, 2),
            np.linalg.cond(b, -2),
            np.linalg.cond(a, "nuc"),
        ),
    ),
    C(
        "linalg_cond_norms",  # fro, inf, -inf, 1, -1: norm(A) norm(inv(A)); torch=False as
        # PyTorch 2.13's backward of these raises (an in-place error); forwards compared in
        # test_linalg.py
        lambda T, F, a: tuple(
            T.linalg.cond(a, p) for p in ("fro", float("inf"), -float("inf"), 1, -1)
        ),
        (x(2, 3, 3),),
        lambda a: tuple(np.linalg.cond(a, p) for p in ("fro", np.inf, -np.inf, 1, -1)),
        torch=False,
    ),
    C(
        "linalg_det_batched",
        lambda T, F, a: (T.linalg.det(a), T.det(a[0]), a[1].det()),
        (x(2, 3, 3),),
        lambda a: (np.linalg.det(a), np.linalg.det(a[0]), np.linalg.det(a[1])),
    ),
    C(
        "linalg_slogdet_logdet",
        lambda T, F, a, m: (*T.linalg.slogdet(a), T.logdet(_spd(T, m)), m.slogdet()[1]),
        (x(2, 3, 3), x(3, 3)),
        lambda a, m: (
            *np.linalg.slogdet(a),
            np.linalg.slogdet(_np_spd(m))[1],
            np.linalg.slogdet(m)[1],
        ),  # fmt: skip
    ),
    C(
        "linalg_inv_inverse",
        lambda T, F, a: (
            T.linalg.inv(a + 3 * T.eye(3, device=a.device)),
            T.inverse(a[0] + 3 * T.eye(3, device=a.device)),
        ),
        (x(2, 3, 3),),
        lambda a: (np.linalg.inv(a + 3 * np.eye(3)), np.linalg.inv(a[0] + 3 * np.eye(3))),
    ),
    C(
        "linalg_inv_ex_solve_ex",  # invertible: info 0, the same as inv and solve
        lambda T, F, a, b: (
            T.linalg.inv_ex(a + 3 * T.eye(3, device=a.device)).inverse,
            T.linalg.solve_ex(a + 3 * T.eye(3, device=a.device), b).result,
            T.linalg.solve_ex(a[0] + 3 * T.eye(3, device=a.device), b[0].mT, left=False)[0],
        ),
        (x(2, 3, 3), x(2, 3, 2)),
        lambda a, b: (
            np.linalg.inv(a + 3 * np.eye(3)),
            np.linalg.solve(a + 3 * np.eye(3), b),
            b[0].T @ np.linalg.inv(a[0] + 3 * np.eye(3)),
        ),
    ),
    C(
        "linalg_solve_matrix_broadcast",  # A (2, 3, 3), B (3, 2): B's batch dim broadcasts
        lambda T, F, a, b: T.linalg.solve(a + 3 * T.eye(3, device=a.device), b),
        (x(2, 3, 3), x(3, 2)),
        lambda a, b: np.linalg.solve(a + 3 * np.eye(3), b),
    ),
    C(
        "linalg_solve_vectors_and_left_false",  # B (2, 3) = A.shape[:-1]: vectors; X A = B
        lambda T, F, a, v, w, b: (
            T.linalg.solve(a + 3 * T.eye(3, device=a.device), v),
            T.linalg.solve(a[0] + 3 * T.eye(3, device=a.device), w),
            T.linalg.solve(a + 3 * T.eye(3, device=a.device), b, left=False),
        ),
        (x(2, 3, 3), x(2, 3), x(3), x(2, 4, 3)),
        lambda a, v, w, b: (
            np.linalg.solve(a + 3 * np.eye(3), v[..., None])[..., 0],
            np.linalg.solve(a[0] + 3 * np.eye(3), w),
            b @ np.linalg.inv(a + 3 * np.eye(3)),
        ),
    ),
    C(
        "linalg_solve_triangular",
        lambda T, F, a, b: (
            T.linalg.solve_triangular(a + 3 * T.eye(3, device=a.device), b, upper=True),
            T.linalg.solve_triangular(
                a + 3 * T.eye(3, device=a.device), b, upper=False, unitriangular=True
            ),
            T.linalg.solve_triangular(
                a + 3 * T.eye(3, device=a.device), b.mT, upper=False, left=False
            ),
            T.linalg.solve_triangular(a, b.mT, upper=True, left=False, unitriangular=True),
        ),
        (x(2, 3, 3), x(3, 2)),
        lambda a, b: (
            np.linalg.solve(np.triu(a + 3 * np.eye(3)), b),
            np.linalg.solve(np.tril(a, -1) + np.eye(3), b),
            np.swapaxes(
                np.linalg.solve(np.swapaxes(np.tril(a + 3 * np.eye(3)), -1, -2), b), -1, -2
            ),
            b.T @ np.linalg.inv(np.triu(a, 1) + np.eye(3)),
        ),
    ),
    C(
        "triangular_solve",  # PyTorch's deprecated form: (solution, cloned_coefficient)
        lambda T, F, a, b: (
            *T.triangular_solve(b, a + 3 * T.eye(3, device=a.device)),
            b.triangular_solve(a + 3 * T.eye(3, device=a.device), False, True, True)[0],
        ),
        (x(2, 3, 3), x(3, 2)),
        lambda a, b: (
            np.linalg.solve(np.triu(a + 3 * np.eye(3)), b),
            a + 3 * np.eye(3),
            np.linalg.solve(np.swapaxes(np.tril(a, -1) + np.eye(3), -1, -2), b),
        ),
    ),
    C(
        "linalg_cholesky",
        lambda T, F, m: (T.linalg.cholesky(_spd(T, m)), T.linalg.cholesky(_spd(T, m), upper=True)),
        (x(2, 3, 3),),
        lambda m: (
            np.linalg.cholesky(_np_spd(m)),
            np.swapaxes(np.linalg.cholesky(_np_spd(m)), -1, -2),
        ),  # fmt: skip
    ),
    C(
        "linalg_cholesky_ex",  # positive-definite: info 0, L as cholesky's
        lambda T, F, m: (
            T.linalg.cholesky_ex(_spd(T, m)).L,
            T.linalg.cholesky_ex(_spd(T, m), upper=True)[0],
        ),
        (x(2, 3, 3),),
        lambda m: (
            np.linalg.cholesky(_np_spd(m)),
            np.swapaxes(np.linalg.cholesky(_np_spd(m)), -1, -2),
        ),  # fmt: skip
    ),
    C(
        "cholesky_solve_lower_upper_and_broadcast",  # B (2, 3, 2) against one L (3, 3)
        lambda T, F, b, l: (
            T.cholesky_solve(b, l.tril() + 3 * T.eye(3, device=l.device)),
            b.cholesky_solve(l.triu() + 3 * T.eye(3, device=l.device), upper=True),
        ),
        (x(2, 3, 2), x(3, 3)),
        lambda b, l: (
            np.linalg.solve(_np_gram(np.tril(l) + 3 * np.eye(3)), b),
            np.linalg.solve(_np_gram(np.triu(l).T + 3 * np.eye(3)), b),
        ),
    ),
    C(
        "cholesky_inverse",
        lambda T, F, l: (
            T.cholesky_inverse(l.tril() + 3 * T.eye(3, device=l.device)),
            (l[0].triu() + 3 * T.eye(3, device=l.device)).cholesky_inverse(upper=True),
        ),
        (x(2, 3, 3),),
        lambda l: (
            np.linalg.inv(_np_gram(np.tril(l) + 3 * np.eye(3))),
            np.linalg.inv(_np_gram(np.triu(l[0]).T + 3 * np.eye(3))),
        ),
    ),
    C(
        "linalg_lu_factor_square_tall_wide",  # the packed LU (pivots: test_linalg.py)
        lambda T, F, a, b, c: (
            T.linalg.lu_factor(a).LU,
            T.linalg.lu_factor(b)[0],
            T.linalg.lu_factor_ex(c).LU,
        ),
        (x(2, 4, 4), x(5, 3), x(2, 3, 5)),
        lambda a, b, c: (
            np.stack([_np_lu_packed(m) for m in a]),
            _np_lu_packed(b),
            np.stack([_np_lu_packed(m) for m in c]),
        ),
    ),
    C(
        "linalg_lu_and_lu_unpack",  # P (no gradient), L, U; tall and wide
        lambda T, F, a, b, c: (
            *T.linalg.lu(a),
            *T.linalg.lu(b)[1:],
            *T.lu_unpack(*T.linalg.lu_factor(c)),
        ),
        (x(4, 4), x(5, 3), x(2, 3, 4)),
        lambda a, b, c: (
            *_np_lu(a),
            *_np_lu(b)[1:],
            *(np.stack(t) for t in zip(*(_np_lu(m) for m in c))),
        ),
    ),
    C(
        "linalg_lu_solve_left_adjoint",  # AX = B, A^T X = B, XA = B, XA^T = B
        lambda T, F, a, b: (
            T.linalg.lu_solve(*T.linalg.lu_factor(a), b),
            T.linalg.lu_solve(*T.linalg.lu_factor(a), b, adjoint=True),
            T.linalg.lu_solve(*T.linalg.lu_factor(a), b.mT, left=False),
            T.linalg.lu_solve(*T.linalg.lu_factor(a), b.mT, left=False, adjoint=True),
        ),
        (x(2, 4, 4), x(2, 4, 3)),
        lambda a, b: (
            np.linalg.solve(a, b),
            np.linalg.solve(np.swapaxes(a, -1, -2), b),
            np.swapaxes(b, -1, -2) @ np.linalg.inv(a),
            np.swapaxes(b, -1, -2) @ np.linalg.inv(np.swapaxes(a, -1, -2)),
        ),
    ),
    C(
        "lu_solve_and_lu_deprecated_forms",  # torch.lu_solve(b, LU, pivots), torch.lu
        lambda T, F, a, b: (T.lu_solve(b, *T.lu(a)), b.lu_solve(*a.lu()), a.lu()[0]),
        (x(4, 4), x(4, 2)),
        lambda a, b: (np.linalg.solve(a, b), np.linalg.solve(a, b), _np_lu_packed(a)),
    ),
    C(
        "linalg_qr_reduced_tall_and_wide",  # |Q|, |R|: free of the signs of Q's columns
        lambda T, F, a, b: (
            *(t.abs() for t in T.linalg.qr(a)),
            *(t.abs() for t in T.linalg.qr(b)),
        ),
        (x(2, 4, 3), x(3, 5)),
        lambda a, b: (
            *(np.abs(t) for t in np.linalg.qr(a)),
            *(np.abs(t) for t in np.linalg.qr(b)),
        ),
    ),
    C(
        "linalg_qr_complete_wide_and_square",
        lambda T, F, a, b: (
            *(t.abs() for t in T.linalg.qr(a, mode="complete")),
            *(t.abs() for t in T.linalg.qr(b, mode="complete")),
        ),
        (x(3, 4), x(3, 3)),
        lambda a, b: (
            *(np.abs(t) for t in np.linalg.qr(a, mode="complete")),
            *(np.abs(t) for t in np.linalg.qr(b)),
        ),
    ),
    C(
        "linalg_householder_product_orgqr",  # (5, 3) with 2 reflectors; batched
        lambda T, F, a, t, b, u: (
            T.linalg.householder_product(a, t),
            T.orgqr(b, u),
            b[0].orgqr(u[0]),
        ),
        (x(5, 3), x(2), x(2, 4, 4), x(2, 4)),
        lambda a, t, b, u: (
            _np_householder(a, t, 5)[:, :3],
            np.stack([_np_householder(m, v, 4) for m, v in zip(b, u)]),
            _np_householder(b[0], u[0], 4),
        ),
    ),
    C(
        "ormqr_left_right_transpose",  # Q C, Q^T C, C Q, C Q^T with Q (4, 4) from 3 reflectors
        lambda T, F, a, t, c, d: (
            T.ormqr(a, t, c),
            T.ormqr(a, t, c, transpose=True),
            a.ormqr(t, d, left=False),
            T.ormqr(a, t, d, left=False, transpose=True),
        ),
        (x(4, 3), x(3), x(4, 2), x(2, 4)),
        lambda a, t, c, d: (
            _np_householder(a, t, 4) @ c,
            _np_householder(a, t, 4).T @ c,
            d @ _np_householder(a, t, 4),
            d @ _np_householder(a, t, 4).T,
        ),
    ),
    C(
        "linalg_eigh",  # |V|: free of the eigenvectors' signs
        lambda T, F, m: (
            T.linalg.eigh(m + m.mT)[0],
            T.linalg.eigh(m + m.mT)[1].abs(),
            T.linalg.eigh(m + m.mT, UPLO="U")[1].abs(),
            T.linalg.eigvalsh(m[0] + m[0].mT),
        ),
        (x(2, 4, 4),),
        lambda m: (
            np.linalg.eigvalsh(_np_sym(m)),
            np.abs(np.linalg.eigh(_np_sym(m))[1]),
            np.abs(np.linalg.eigh(_np_sym(m))[1]),
            np.linalg.eigvalsh(_np_sym(m[0])),
        ),
    ),
    C(
        "linalg_svd_reduced_tall_and_wide",  # |U|, |Vh|: free of the singular vectors' signs
        lambda T, F, a, b: (
            *(t.abs() for t in T.linalg.svd(a, full_matrices=False)),
            *(t.abs() for t in T.linalg.svd(b, full_matrices=False)),
        ),
        (x(2, 5, 3), x(3, 4)),
        lambda a, b: (*_np_svd_abs(a), *_np_svd_abs(b)),
    ),
    C(
        "linalg_svd_full_matrices",  # the extra columns of U are not unique: left out
        lambda T, F, a: (
            T.linalg.svd(a)[0][..., :3].abs(),
            T.linalg.svd(a)[1],
            T.linalg.svd(a)[2].abs(),
        ),
        (x(2, 5, 3),),
        lambda a: (np.abs(np.linalg.svd(a)[0][..., :3]), *_np_svd_abs(a)[1:]),
    ),
    C(
        "linalg_svdvals_and_torch_svd",  # torch.svd gives V, not Vh
        lambda T, F, a: (
            T.linalg.svdvals(a),
            *(t.abs() for t in T.svd(a[0])),
            a[1].svd()[1],
        ),
        (x(2, 3, 4),),
        lambda a: (
            np.linalg.svd(a, compute_uv=False),
            np.abs(np.linalg.svd(a[0], full_matrices=False)[0]),
            np.linalg.svd(a[0], compute_uv=False),
            np.abs(np.linalg.svd(a[0], full_matrices=False)[2].T),
            np.linalg.svd(a[1], compute_uv=False),
        ),
    ),
    C(
        "linalg_pinv_pinverse",
        lambda T, F, a, b: (T.linalg.pinv(a), T.pinverse(b), b.pinverse()),
        (x(2, 4, 3), x(3, 5)),
        lambda a, b: (np.linalg.pinv(a), np.linalg.pinv(b), np.linalg.pinv(b)),
    ),
    C(
        "linalg_pinv_hermitian",  # through eigh (test_linalg.py: only the lower triangle read)
        lambda T, F, a: T.linalg.pinv(a + a.mT, hermitian=True),
        (x(2, 3, 3),),
        lambda a: np.linalg.pinv(a + np.swapaxes(a, -1, -2)),
    ),
    C(
        "linalg_matrix_power",
        lambda T, F, a: (
            T.linalg.matrix_power(a, 3),
            T.matrix_power(a[0], 1),
            (a + 3 * T.eye(3, device=a.device)).matrix_power(-2),
        ),
        (x(2, 3, 3),),
        lambda a: (
            a @ a @ a,
            a[0],
            np.linalg.matrix_power(np.linalg.inv(a + 3 * np.eye(3)), 2),
        ),
    ),
    C(
        "linalg_matrix_exp",  # norms about 1, 0.003 (one term matters) and 30 (squarings)
        lambda T, F, a, b: (
            T.linalg.matrix_exp(a),
            T.matrix_exp(a[0] * 1e-3),
            (b * 10).matrix_exp(),
        ),
        (x(2, 3, 3), x(4, 4)),
        lambda a, b: (_np_expm(a), _np_expm(a[0] * 1e-3), _np_expm(b * 10)),
    ),
    C(
        "linalg_multi_dot",  # a 1-D first and last operand: a row and a column vector
        lambda T, F, v, a, b, w: (T.linalg.multi_dot([v, a, b, w]), T.linalg.multi_dot([a, b])),
        (x(4), x(4, 3), x(3, 2), x(2)),
        lambda v, a, b, w: (v @ a @ b @ w, a @ b),
    ),
    C(
        "chain_matmul",  # PyTorch's deprecated spelling of multi_dot, 2-D matrices only
        lambda T, F, a, b, c: (T.chain_matmul(a, b, c), T.chain_matmul(a)),
        (x(2, 4), x(4, 3), x(3, 2)),
        lambda a, b, c: (a @ b @ c, a),
    ),
    C("vdot", lambda T, F, a, b: T.vdot(a, b), (x(4), x(4)), np.vdot),
    C("vdot_method", lambda T, F, a, b: a.vdot(b), (x(3), x(3)), np.vdot),
    C(
        "linalg_vander",
        lambda T, F, a, b: (T.linalg.vander(a), T.linalg.vander(b, N=5)),
        (x(2, 3), x(4)),
        lambda a, b: (a[..., :, None] ** np.arange(3), np.vander(b, 5, increasing=True)),
    ),
    C(
        "linalg_tensorinv_tensorsolve",  # (4, 2, 2) read as 4 x 4; dims= moves dim 0 last
        lambda T, F, a, b, c: (
            T.linalg.tensorinv(a + 3 * T.eye(4, device=a.device).reshape(4, 2, 2), ind=1),
            T.linalg.tensorsolve(b, c),
            T.linalg.tensorsolve(b.movedim(2, 0), c, dims=(0,)),
        ),
        (x(4, 2, 2), x(2, 3, 6), x(2, 3)),
        lambda a, b, c: (
            np.linalg.tensorinv(a + 3 * np.eye(4).reshape(4, 2, 2), ind=1),
            np.linalg.tensorsolve(b, c),
            np.linalg.tensorsolve(b, c),
        ),
    ),
    C(
        "linalg_cross_vecdot_diagonal_matmul",
        lambda T, F, a, b, c: (
            T.linalg.cross(a, b),
            T.linalg.vecdot(a, b),
            T.linalg.diagonal(c, offset=1),
            T.linalg.matmul(c, c.mT),
        ),
        (x(2, 3), x(1, 3), x(2, 3, 4)),
        lambda a, b, c: (
            np.cross(a, b),
            (a * b).sum(-1),
            np.diagonal(c, 1, -2, -1),
            c @ np.swapaxes(c, -1, -2),
        ),
    ),
    C(
        "linalg_matrix_rank",  # a (4, 2) @ (2, 4) product has rank 2
        lambda T, F, a, b: (
            T.linalg.matrix_rank(a @ b),
            T.linalg.matrix_rank(a @ b + T.eye(4, device=a.device)),
        ),
        (x(2, 4, 2), x(2, 2, 4)),
        lambda a, b: (np.linalg.matrix_rank(a @ b), np.linalg.matrix_rank(a @ b + np.eye(4))),
        grad=False,
    ),
    C(
        "linalg_lstsq_solution",  # tall A: the least-squares solution; its rank
        lambda T, F, a, b: (T.linalg.lstsq(a, b).solution, T.linalg.lstsq(a, b[..., 0]).solution),
        (x(5, 3), x(5, 2)),
        lambda a, b: (np.linalg.lstsq(a, b)[0], np.linalg.lstsq(a, b[:, 0])[0]),
    ),
    C(
        "linalg_lstsq_residuals",  # |A X - B|^2 per column (gels: the one driver on CUDA)
        lambda T, F, a, b: T.linalg.lstsq(a, b, driver="gels").residuals,
        (x(5, 3), x(5, 2)),
        lambda a, b: np.linalg.lstsq(a, b)[1],
    ),
]

SHAPE = [
    C("reshape_flat", lambda T, F, a: a.reshape(-1), (x(2, 3),), lambda a: a.reshape(-1)),
    C(
        "reshape_infer",
        lambda T, F, a: T.reshape(a, (3, -1)),
        (x(2, 3, 2),),
        lambda a: a.reshape(3, -1),
    ),
    C("reshape_0d", lambda T, F, a: a.reshape(1, 1), (x(),), lambda a: a.reshape(1, 1)),
    C("view", lambda T, F, a: a.view(6, 2), (x(3, 4),), lambda a: a.reshape(6, 2)),
    C(
        "view_as",
        lambda T, F, a, b: a.view_as(b),
        (x(2, 3), x(3, 2, grad=False)),
        lambda a, b: a.reshape(3, 2),
    ),
    C("transpose", lambda T, F, a: a.transpose(0, 2), (x(2, 3, 4),), lambda a: a.swapaxes(0, 2)),
    C("transpose_function", lambda T, F, a: T.transpose(a, -1, -2), (x(2, 3),), lambda a: a.T),
    C("t_function", lambda T, F, a: T.t(a), (x(2, 3),), lambda a: a.T),
    C("t_of_a_vector", lambda T, F, a: a.t(), (x(3),), lambda a: a),
    C(
        "in_place_view_methods",  # self takes each new shape; gradients flow back through all
        lambda T, F, a: (a * 1).unsqueeze_(0).transpose_(0, 2).squeeze_(2).t_().swapdims_(0, 1),
        (x(2, 3),),
        lambda a: a.T,
    ),
    C(
        "in_place_view_of_a_view_written_through",  # b[1] made (1, 3), then scaled in place
        lambda T, F, a, s: (lambda b: (b[1].unsqueeze_(0).mul_(s), b)[1])(a * 1),
        (x(2, 3), x(1, 3)),
        lambda a, s: np.stack([a[0], a[1] * s[0]]),
    ),
    C("H", lambda T, F, a: a.H, (x(2, 3),), lambda a: a.T),
    C("mH", lambda T, F, a: a.mH, (x(2, 3, 4),), lambda a: a.swapaxes(-1, -2)),
    C("adjoint", lambda T, F, a: T.adjoint(a), (x(2, 3, 4),), lambda a: a.swapaxes(-1, -2)),
    C(
        "broadcast_to_method",
        lambda T, F, a: a.broadcast_to((2, 3)) * 1,
        (x(3),),
        lambda a: np.broadcast_to(a, (2, 3)),
    ),
    C("permute", lambda T, F, a: a.permute(2, 0, 1), (x(2, 3, 4),), lambda a: a.transpose(2, 0, 1)),
    C("permute_tuple", lambda T, F, a: T.permute(a, (1, 0)), (x(2, 3),), lambda a: a.T),
    C("unsqueeze", lambda T, F, a: a.unsqueeze(0), (x(2, 3),), lambda a: a[None]),
    C("unsqueeze_last", lambda T, F, a: T.unsqueeze(a, -1), (x(2, 3),), lambda a: a[..., None]),
    C("unsqueeze_0d", lambda T, F, a: a.unsqueeze(0), (x(),), lambda a: a[None]),
    C("squeeze_all", lambda T, F, a: a.squeeze(), (x(1, 3, 1),), lambda a: a.squeeze()),
    C("squeeze_dim", lambda T, F, a: a.squeeze(0), (x(1, 3, 1),), lambda a: a.squeeze(0)),
    C("squeeze_non1_dim", lambda T, F, a: a.squeeze(1), (x(2, 3),), lambda a: a),
    C(
        "expand",
        lambda T, F, a: a.expand(2, 3, 4),
        (x(3, 1),),
        lambda a: np.broadcast_to(a, (2, 3, 4)),
    ),
    C(
        "expand_keep",
        lambda T, F, a: a.expand(-1, 4),
        (x(3, 1),),
        lambda a: np.broadcast_to(a, (3, 4)),
    ),
    C(
        "expand_as",
        lambda T, F, a, b: a.expand_as(b),
        (x(3), x(2, 3, grad=False)),
        lambda a, b: np.broadcast_to(a, (2, 3)),
    ),
    C("flatten", lambda T, F, a: a.flatten(), (x(2, 3, 4),), lambda a: a.reshape(-1)),
    C("flatten_start", lambda T, F, a: T.flatten(a, 1), (x(2, 3, 4),), lambda a: a.reshape(2, -1)),
    C("flatten_range", lambda T, F, a: a.flatten(0, 1), (x(2, 3, 4),), lambda a: a.reshape(6, 4)),
    C("flatten_0d", lambda T, F, a: a.flatten(), (x(),), lambda a: a.reshape(1)),
    C(
        "flatten_empty_dim",
        lambda T, F, a: a.flatten(0, 1),
        (x(2, 3, 0),),
        lambda a: a.reshape(6, 0),
    ),
    C(
        "unflatten",
        lambda T, F, a: a.unflatten(-1, (2, -1)),
        (x(3, 4),),
        lambda a: a.reshape(3, 2, 2),
    ),
    C(
        "unflatten_function",
        lambda T, F, a: T.unflatten(a, 0, (2, 3)),
        (x(6, 2),),
        lambda a: a.reshape(2, 3, 2),
    ),
    C("contiguous", lambda T, F, a: a.transpose(0, 1).contiguous(), (x(2, 3),), lambda a: a.T),
    C("T", lambda T, F, a: a.T, (x(2, 3),), lambda a: a.T),
    C("mT", lambda T, F, a: a.mT, (x(2, 3, 4),), lambda a: a.swapaxes(-1, -2)),
    C("t", lambda T, F, a: a.t(), (x(3, 2),), lambda a: a.T),
    C("repeat", lambda T, F, a: a.repeat(2, 1, 2), (x(2, 3),), lambda a: np.tile(a, (2, 1, 2))),
    C(
        "cat",
        lambda T, F, a, b: T.cat([a, b]),
        (x(2, 3), x(1, 3)),
        lambda a, b: np.concatenate([a, b]),
    ),
    C(
        "cat_dim1",
        lambda T, F, a, b, c: T.cat((a, b, c), dim=1),
        (x(2, 1), x(2, 3), x(2, 2)),
        lambda a, b, c: np.concatenate([a, b, c], 1),
    ),
    C(
        "cat_dim_negative",
        lambda T, F, a, b: T.cat([a, b], -1),
        (x(2, 2, 1), x(2, 2, 2)),
        lambda a, b: np.concatenate([a, b], -1),
    ),
    C(
        "stack",
        lambda T, F, a, b: T.stack([a, b]),
        (x(2, 3), x(2, 3)),
        lambda a, b: np.stack([a, b]),
    ),
    C(
        "stack_last",
        lambda T, F, a, b, c: T.stack([a, b, c], dim=-1),
        (x(3), x(3), x(3)),
        lambda a, b, c: np.stack([a, b, c], -1),
    ),
    C("stack_0d", lambda T, F, a, b: T.stack([a, b]), (x(), x()), lambda a, b: np.stack([a, b])),
    C(
        "concatenate_axis",
        lambda T, F, a, b: T.concatenate([a, b], axis=1),
        (x(2, 1), x(2, 3)),
        lambda a, b: np.concatenate([a, b], 1),
    ),
    C(
        "dstack",
        lambda T, F, a, b, c: T.dstack([a, b, c]),
        (x(2, 3), x(2, 3, 2), x(2, 3)),
        lambda a, b, c: np.dstack([a, b, c]),
    ),
    C(
        "dstack_1d",
        lambda T, F, a, b: T.dstack((a, b)),
        (x(3), x(3)),
        lambda a, b: np.dstack([a, b]),
    ),
    C(
        "split_size",
        lambda T, F, a: a.split(2, dim=1),
        (x(3, 5),),
        lambda a: tuple(np.split(a, [2, 4], axis=1)),
    ),
    C(
        "split_sections",
        lambda T, F, a: T.split(a, [1, 3]),
        (x(4, 2),),
        lambda a: tuple(np.split(a, [1])),
    ),
    C("chunk", lambda T, F, a: a.chunk(3), (x(5, 2),), lambda a: tuple(np.split(a, [2, 4]))),
    C(
        "chunk_dim",
        lambda T, F, a: T.chunk(a, 2, dim=-1),
        (x(2, 4),),
        lambda a: tuple(np.split(a, 2, axis=-1)),
    ),
    # only the middle piece is used: the others' part of the gradient is zero
    C(
        "split_one_piece_used",
        lambda T, F, a: a.split(2, dim=1)[1] * 3.0,
        (x(3, 5),),
        lambda a: np.split(a, [2, 4], axis=1)[1] * 3.0,
    ),
    # q, k, v = qkv.split(C, dim=2) as in attention, one piece used twice, one not at all
    C(
        "split_qkv_pieces_reused",
        lambda T, F, a: (lambda q, k, v: q * k + q)(*a.split(2, dim=2)),
        (x(2, 3, 6),),
        lambda a: (lambda q, k, v: q * k + q)(*np.split(a, 3, axis=2)),
    ),
]

INDEXING = [
    C("index_int", lambda T, F, a: a[1], (x(4, 3),), lambda a: a[1]),
    C("index_negative_int_slice", lambda T, F, a: a[-1, 1:], (x(4, 3),), lambda a: a[-1, 1:]),
    C("index_slice_step", lambda T, F, a: a[1::2], (x(5, 2),), lambda a: a[1::2]),
    C("index_none", lambda T, F, a: a[:, None, 1], (x(4, 3),), lambda a: a[:, None, 1]),
    C("index_ellipsis", lambda T, F, a: a[..., 0], (x(2, 3, 4),), lambda a: a[..., 0]),
    C(
        "index_ellipsis_none",
        lambda T, F, a: a[None, ..., 1:3],
        (x(2, 4),),
        lambda a: a[None, ..., 1:3],
    ),
    C("index_list_repeats", lambda T, F, a: a[[0, 2, 0]], (x(4, 3),), lambda a: a[[0, 2, 0]]),
    C("index_list_columns", lambda T, F, a: a[:, [2, 0, 2]], (x(2, 3),), lambda a: a[:, [2, 0, 2]]),
    C(
        "index_tensor_repeats",
        lambda T, F, a, i: a[i],
        (x(4, 3), const([[0, 1], [1, 1]], "int64")),
        lambda a, i: a[i],
    ),
    C(
        "index_tensor_and_slice",
        lambda T, F, a, i: a[i, 1:],
        (x(4, 3), const([3, 3, 0], "int64")),
        lambda a, i: a[i, 1:],
    ),
    C(
        "index_two_tensors",
        lambda T, F, a, i, j: a[i, j],
        (x(3, 4), const([0, 2, 0], "int64"), const([1, 3, 1], "int64")),
        lambda a, i, j: a[i, j],
    ),
    # PyTorch applies ints (and 0-d integer tensors) before index arrays; NumPy counts an int
    # as an array index, so the references below index in PyTorch's order, in two steps
    C(
        "index_int_slice_list",
        lambda T, F, a: a[1, :, [2, 0, 2]],
        (x(2, 3, 4),),
        lambda a: a[1][:, [2, 0, 2]],
    ),
    C(
        "index_slice_list_slice_int",
        lambda T, F, a: a[:, [0, 2, 0], :, -1],
        (x(2, 3, 2, 4),),
        lambda a: a[..., -1][:, [0, 2, 0], :],
    ),
    C(
        "index_0d_tensor_slice_mask",
        lambda T, F, a, i, m: a[i, :, m],
        (x(2, 3, 4), const(1, "int64"), mask(4)),
        lambda a, i, m: a[int(i)][:, m],
    ),
    C(
        "index_ellipsis_of_no_dims_between_lists",
        lambda T, F, a: a[:, [0, 1, 1], ..., [2, 0, 3]],
        (x(3, 2, 4),),
        lambda a: a[:, [0, 1, 1], [2, 0, 3]],
    ),
    C("index_bool_mask", lambda T, F, a, m: a[m], (x(3, 4), mask(3, 4)), lambda a, m: a[m]),
    C("index_bool_rows", lambda T, F, a, m: a[m], (x(4, 2), mask(4)), lambda a, m: a[m]),
    C("index_by_comparison", lambda T, F, a: a[a > 0], (nz(2, 4),), lambda a: a[a > 0]),
    C("flip", lambda T, F, a: a.flip(0), (x(3, 2),), lambda a: np.flip(a, 0)),
    C("flip_dims", lambda T, F, a: T.flip(a, (0, -1)), (x(2, 3, 2),), lambda a: a[::-1, :, ::-1]),
    C("roll", lambda T, F, a: a.roll(1, 0), (x(3, 2),), lambda a: np.roll(a, 1, 0)),
    C(
        "roll_dims_tuple",
        lambda T, F, a: T.roll(a, (1, -5), (0, -1)),
        (x(2, 3, 4),),
        lambda a: np.roll(a, (1, -5), (0, -1)),
    ),
    C("roll_flattened", lambda T, F, a: T.roll(a, 4), (x(2, 3),), lambda a: np.roll(a, 4)),
    C(
        "flipud_fliplr",
        lambda T, F, a: (a.flipud(), T.fliplr(a), T.flipud(a[0])),
        (x(2, 3),),
        lambda a: (np.flipud(a), np.fliplr(a), a[0][::-1]),
    ),
    C(
        "rot90",
        lambda T, F, a: (
            T.rot90(a),
            a.rot90(-1, (1, 2)),
            a.rot90(2, [0, 2]),
            T.rot90(a, 7, [2, 1]),
        ),
        (x(2, 3, 4),),
        lambda a: (
            np.rot90(a),
            np.rot90(a, -1, (1, 2)),
            np.rot90(a, 2, (0, 2)),
            np.rot90(a, 7, (2, 1)),
        ),
    ),
    C(
        "diag_of_vector_and_matrix",
        lambda T, F, v, m: (T.diag(v, 1), v.diag(), m.diag(-1), T.diag(m, 2)),
        (x(3), x(3, 4)),
        lambda v, m: (np.diag(v, 1), np.diag(v), np.diag(m, -1), np.diag(m, 2)),
    ),
    C(
        "diagonal",
        lambda T, F, a: (T.diagonal(a), a.diagonal(1, 2, 0), a.diagonal(-1, -1, 1)),
        (x(2, 3, 4),),
        lambda a: (np.diagonal(a), np.diagonal(a, 1, 2, 0), np.diagonal(a, -1, 2, 1)),
    ),
    C(
        "as_strided",
        lambda T, F, a: (a.as_strided((3, 2), (1, 1), 1), T.as_strided(a[2:], (2, 2), (1, 2))),
        (x(6),),
        lambda a: (
            np.lib.stride_tricks.as_strided(a[1:], (3, 2), (a.itemsize, a.itemsize)),
            np.lib.stride_tricks.as_strided(a[2:], (2, 2), (a.itemsize, 2 * a.itemsize)),
        ),
    ),
    C(
        "diagonal_scatter",
        lambda T, F, a, s, t: (T.diagonal_scatter(a, s), a.diagonal_scatter(t, 1, 2, 0)),
        (x(2, 3, 4), x(4, 2), x(3, 1)),
        lambda a, s, t: (_np_diagonal_scatter(a, s, 0, 0, 1), _np_diagonal_scatter(a, t, 1, 2, 0)),
    ),
    C(
        "select_scatter",
        lambda T, F, a, s, t: (T.select_scatter(a, s, 1, -1), a.select_scatter(t, 0, 1)),
        (x(2, 3, 4), x(2, 4), x(3, 4)),
        lambda a, s, t: (_np_set(a, (slice(None), -1), s), _np_set(a, 1, t)),
    ),
    C(
        "slice_scatter",
        lambda T, F, a, s, t: (T.slice_scatter(a, s, 1, 1, None, 2), a.slice_scatter(t, start=-1)),
        (x(2, 5), x(2, 2), x(1, 5)),
        lambda a, s, t: (_np_set(a, (slice(None), slice(1, None, 2)), s), _np_set(a, -1, t[0])),
    ),
    C(
        "as_strided_scatter",  # input's gradient: see test_tensor (PyTorch 2.13's is wrong)
        lambda T, F, a, s: T.as_strided_scatter(a, s, (2, 2), (1, 3), 1),
        (x(3, 4, grad=False), x(2, 2)),
        lambda a, s: _np_as_strided_scatter(a, s, (2, 2), (1, 3), 1),
    ),
    C(
        "diag_embed",
        lambda T, F, a: (T.diag_embed(a), a.diag_embed(-1, 0, 2), T.diag_embed(a, 2, -1, 0)),
        (x(2, 3),),
        lambda a: (
            _np_diag_embed(a, 0, -2, -1),
            _np_diag_embed(a, -1, 0, 2),
            _np_diag_embed(a, 2, -1, 0),
        ),
    ),
    C(
        "diagflat",
        lambda T, F, a: (T.diagflat(a), a.diagflat(1), T.diagflat(a[0], -2)),
        (x(2, 2),),
        lambda a: (np.diagflat(a), np.diagflat(a, 1), np.diagflat(a[0], -2)),
    ),
    C(
        "trace",
        lambda T, F, a, b: (a.trace(), T.trace(b)),
        (x(3, 3), x(2, 4)),
        lambda a, b: (np.trace(a), np.trace(b)),
    ),
    C(
        "diff",
        lambda T, F, a, p, q: (a.diff(), T.diff(a, 2, 0, prepend=p, append=q), a.diff(n=5, dim=0)),
        (x(3, 4), x(1, 4), x(2, 4)),
        lambda a, p, q: (np.diff(a), np.diff(a, 2, 0, prepend=p, append=q), np.diff(a, 5, 0)),
    ),
    C(
        "gradient",  # torch.gradient: central differences inside, one-sided at the ends
        lambda T, F, a, b: (
            *T.gradient(a),
            *T.gradient(b, spacing=2.0, edge_order=2),
            *T.gradient(a, spacing=[0.5, 3.0], dim=(1, 0)),
        ),  # fmt: skip
        (x(4, 5), x(3)),
        lambda a, b: (
            *np.gradient(a),
            np.gradient(b, 2.0, edge_order=2),
            np.gradient(a, 0.5, axis=1),
            np.gradient(a, 3.0, axis=0),
        ),  # fmt: skip
    ),
    C(
        "gradient_coordinates",  # samples at uneven coordinates, edge_order 1 and 2
        lambda T, F, a, c: (
            *T.gradient(a, spacing=[c], dim=1),
            *T.gradient(a, spacing=(c,), dim=-1, edge_order=2),
        ),  # fmt: skip
        (x(2, 5), const([0.0, 1.0, 1.5, 3.5, 4.0])),
        lambda a, c: (np.gradient(a, c, axis=1), np.gradient(a, c, axis=1, edge_order=2)),
    ),
    C(
        "tensor_split_sections",  # 7 into 3: sizes 3, 2, 2
        lambda T, F, a: a.tensor_split(3, 1),
        (x(2, 7),),
        lambda a: tuple(np.array_split(a, 3, 1)),
    ),
    C(
        "tensor_split_indices",  # cut as Python slices: a[:1], a[1:-2], a[-2:9], a[9:]
        lambda T, F, a: T.tensor_split(a, [1, -2, 9], dim=-1),
        (x(2, 7),),
        lambda a: tuple(np.array_split(a, [1, -2, 9], 1)),
    ),
    C(
        "tensor_split_keywords",  # sections= and indices= instead of indices_or_sections
        lambda T, F, a: (*a.tensor_split(sections=3, dim=1), *T.tensor_split(a, indices=[2, 5])),
        (x(7, 2),),
        lambda a: (*np.array_split(a, 3, 1), *np.array_split(a, [2, 5])),
    ),
    C(
        "hsplit_vsplit_dsplit",
        lambda T, F, a, v: (*T.hsplit(a, 2), *a.vsplit([1]), *T.dsplit(a, 3), *v.hsplit(2)),
        (x(2, 4, 6), x(4)),
        lambda a, v: (*np.hsplit(a, 2), *np.vsplit(a, [1]), *np.dsplit(a, 3), *np.hsplit(v, 2)),
    ),
    C("ravel", lambda T, F, a: a.t().ravel(), (x(2, 3),), lambda a: a.T.ravel()),
    C(
        "atleast_1d_2d_3d",
        lambda T, F, s, v, m: (
            T.atleast_1d(s),
            *T.atleast_2d(v, s),
            T.atleast_3d(m),
            *T.atleast_3d([v, s]),
        ),  # fmt: skip
        (x(), x(3), x(2, 3)),
        lambda s, v, m: (
            np.atleast_1d(s),
            *np.atleast_2d(v, s),
            np.atleast_3d(m),
            *np.atleast_3d(v, s),
        ),  # fmt: skip
    ),
    C(
        "repeat_interleave_heads",  # (B, kv_heads, T, hs) -> (B, 2 * kv_heads, T, hs), as in GQA
        lambda T, F, a: a.repeat_interleave(2, dim=1),
        (x(2, 2, 3, 2),),
        lambda a: np.repeat(a, 2, axis=1),
    ),
    C(
        "repeat_interleave_counts_per_entry",
        lambda T, F, a: a.repeat_interleave(T.tensor([1, 0, 2]), dim=1),
        (x(2, 3),),
        lambda a: np.repeat(a, [1, 0, 2], axis=1),
    ),
    C(
        "repeat_interleave_flat",
        lambda T, F, a: T.repeat_interleave(a, 3),
        (x(2, 2),),
        lambda a: np.repeat(a, 3),
    ),
    C("narrow", lambda T, F, a: a.narrow(1, 1, 2), (x(2, 4),), lambda a: a[:, 1:3]),
    C("narrow_negative_start", lambda T, F, a: T.narrow(a, 0, -2, 2), (x(3, 2),), lambda a: a[1:]),
    C(
        "view_copies",  # the *_copy functions: the view op, then a contiguous copy
        lambda T, F, a: (
            T.transpose_copy(a, 0, 2),
            T.permute_copy(a, (2, 0, 1)),
            T.select_copy(a, 1, -1),
            T.slice_copy(a, 2, 1, None, 2),
            T.narrow_copy(a, 2, 1, 2),
            a.narrow_copy(0, 1, 1),
            T.diagonal_copy(a, 1, 1, 2),
            T.unfold_copy(a, 2, 2, 1),
            T.expand_copy(a[:, :1], (2, 3, 4)),
            T.view_copy(a, (6, 4)),
            T.squeeze_copy(a[:1], 0),
            T.unsqueeze_copy(a, 1),
            T.t_copy(a[0]),
            T.alias_copy(a),
            T.as_strided_copy(a, (2, 2), (4, 1), 1),
        ),
        (x(2, 3, 4),),
        lambda a: (
            np.transpose(a, (2, 1, 0)),
            np.transpose(a, (2, 0, 1)),
            a[:, -1],
            a[:, :, 1::2],
            a[:, :, 1:3],
            a[1:2],
            np.diagonal(a, 1, 1, 2),
            np.stack([a[:, :, 0:2], a[:, :, 1:3], a[:, :, 2:4]], 2),
            np.broadcast_to(a[:, :1], (2, 3, 4)),
            a.reshape(6, 4),
            a[0],
            a[:, None],
            a[0].T,
            a,
            np.lib.stride_tricks.as_strided(
                a.reshape(-1)[1:], (2, 2), (4 * a.itemsize, a.itemsize)
            ),
        ),
    ),
    C(
        "split_copies",  # split_copy, split_with_sizes(_copy), unbind_copy, unsafe_split/chunk
        lambda T, F, a: (
            *T.split_copy(a, 2, 1),
            *T.split_with_sizes(a, [1, 2], 1),
            *a.split_with_sizes([2, 1], 1),
            *T.split_with_sizes_copy(a, [1, 1], 0),
            *T.unbind_copy(a, 1),
            *T.unsafe_split(a, 2),
            *a.unsafe_chunk(3, 1),
        ),
        (x(2, 3),),
        lambda a: (
            a[:, :2],
            a[:, 2:],
            a[:, :1],
            a[:, 1:],
            a[:, :2],
            a[:, 2:],
            a[:1],
            a[1:],
            a[:, 0],
            a[:, 1],
            a[:, 2],
            a,
            a[:, :1],
            a[:, 1:2],
            a[:, 2:],
        ),  # fmt: skip
    ),
    C(
        "unbind",
        lambda T, F, a: a.unbind(1),
        (x(2, 3),),
        lambda a: tuple(a[:, i] for i in range(3)),
    ),
    C(
        "index_select_repeats",
        lambda T, F, a, i: a.index_select(1, i),
        (x(2, 4), const([3, 0, 3], "int64")),
        lambda a, i: a[:, i],
    ),
    C("msort", lambda T, F, a: T.msort(a), (distinct(4, 3),), lambda a: np.sort(a, 0)),
    C(
        "sort_values",  # each value's gradient goes back to where it came from
        lambda T, F, a: a.sort(dim=0).values,
        (distinct(4, 3),),
        lambda a: np.sort(a, 0),
    ),
    C(
        "sort_descending_ties_keep_their_order",
        lambda T, F, a: T.sort(a, descending=True, stable=True),
        (const([[1.0, 3.0, 3.0, 2.0], [0.5, 0.5, 0.5, -1.0]], grad=False),),
        lambda a: (-np.sort(-a, -1), np.array([[1, 2, 3, 0], [0, 1, 2, 3]])),
        grad=False,  # at a tie finite differences reorder; sort_values checks the gradient
    ),
    C(
        "argsort",
        lambda T, F, a: a.argsort(dim=-1),
        (distinct(2, 5),),
        lambda a: np.argsort(a, -1),
        grad=False,
    ),
    C(
        "gather",
        lambda T, F, a, i: a.gather(1, i),
        (x(3, 4), const([[0, 0], [3, 1], [2, 2]], "int64")),
        lambda a, i: np.take_along_axis(a, i, 1),
    ),
    C(
        "scatter",  # the reverse of gather: out[i][index[i][j]] = src[i][j]
        lambda T, F, a, i, s: a.scatter(1, i, s),
        (x(3, 4), const([[0, 2], [3, 1], [1, 0]], "int64"), x(3, 2)),
        lambda a, i, s: _np_scatter(a, i, s, add=False),
    ),
    C(
        "scatter_value",
        lambda T, F, a, i: T.scatter(a, 0, i, value=2.5),
        (x(3, 2), const([[2, 0]], "int64")),
        lambda a, i: _np_scatter(a.T, i.T, np.full(i.T.shape, 2.5), add=False).T,
    ),
    C(
        "scatter_add",  # repeated indices add up
        lambda T, F, a, i, s: T.scatter_add(a, 1, i, s),
        (x(2, 3), const([[0, 0, 2], [1, 1, 1]], "int64"), x(2, 3)),
        lambda a, i, s: _np_scatter(a, i, s, add=True),
    ),
    C(
        "scatter_reduce_sum_mean",  # include_self=False: input's own value left out
        lambda T, F, a, i, s: (
            a.scatter_reduce(1, i, s, "sum"),
            T.scatter_reduce(a, 1, i, s, "mean", include_self=False),
            a.scatter_reduce(1, i, s, reduce="mean"),
        ),
        (x(2, 5), const([[0, 0, 2], [4, 1, 4]], "int64"), x(2, 3)),
        lambda a, i, s: (
            _np_scatter_reduce(a, i, s, "sum"),
            _np_scatter_reduce(a, i, s, "mean", False),
            _np_scatter_reduce(a, i, s, "mean"),
        ),
    ),
    C(
        "scatter_reduce_prod",
        lambda T, F, a, i, s: (
            a.scatter_reduce(1, i, s, "prod"),
            a.scatter_reduce(1, i, s, "prod", include_self=False),
        ),
        (nz(2, 5), const([[0, 0, 2], [4, 1, 4]], "int64"), nz(2, 3)),
        lambda a, i, s: (
            _np_scatter_reduce(a, i, s, "prod"),
            _np_scatter_reduce(a, i, s, "prod", False),
        ),
    ),
    C(
        "scatter_reduce_amax_amin",
        lambda T, F, a, i, s: (
            a.scatter_reduce(1, i, s, "amax"),
            T.scatter_reduce(a, 1, i, s, "amin", include_self=False),
        ),
        (distinct(2, 5), const([[0, 0, 2], [4, 1, 4]], "int64"), distinct(2, 3)),
        lambda a, i, s: (
            _np_scatter_reduce(a, i, s, "amax"),
            _np_scatter_reduce(a, i, s, "amin", False),
        ),
    ),
    C(
        "index_add",
        lambda T, F, a, i, s: a.index_add(1, i, s, alpha=2.0),
        (x(2, 4), const([3, 0, 3], "int64"), x(2, 3)),
        lambda a, i, s: _np_index_add(a, i, s * 2.0),
    ),
    C(
        "index_reduce",  # repeated indices combine; include_self=False leaves input out
        lambda T, F, a, i, s: (
            a.index_reduce(1, i, s, "prod"),
            T.index_reduce(a, 1, i, s, "mean", include_self=False),
            a.index_reduce(1, i, s, "amax"),
            a.index_reduce(1, i, s, "amin", include_self=False),
        ),
        (distinct(2, 5), const([3, 0, 3, 1], "int64"), distinct(2, 4)),
        lambda a, i, s: (
            _np_index_reduce(a, i, s, "prod"),
            _np_index_reduce(a, i, s, "mean", False),
            _np_index_reduce(a, i, s, "amax"),
            _np_index_reduce(a, i, s, "amin", False),
        ),
    ),
    C(
        "index_fill",
        lambda T, F, a, i, j, v: (a.index_fill(1, i, -1.5), T.index_fill(a, 0, j, v)),
        (x(2, 4), const([3, 0], "int64"), const([1], "int64"), x()),
        lambda a, i, j, v: (_np_replaced(a, 1, i, -1.5), _np_replaced(a, 0, j, v)),
    ),
    C(
        "index_copy",
        lambda T, F, a, i, s: a.index_copy(1, i, s),
        (x(2, 4), const([3, 0], "int64"), x(2, 2)),
        lambda a, i, s: _np_replaced(a, 1, i, s),
    ),
    C(
        "take",  # negative counts from the end; a repeated index adds up its gradient
        lambda T, F, a, i: T.take(a, i),
        (x(3, 4), const([[0, -1], [5, 5]], "int64")),
        lambda a, i: a.ravel()[i],
    ),
    C(
        "put",  # the reverse of take: source's values at flat positions, negative from the end
        lambda T, F, a, i, s: T.put(a, i, s),
        (x(3, 4), const([[0, -1], [5, 7]], "int64"), x(2, 2)),
        lambda a, i, s: _np_put(a, i, s, False),
    ),
    C(
        "put_accumulate",  # a repeated index adds both values (and gets both gradients)
        lambda T, F, a, i, s: a.put(i, s, accumulate=True),
        (x(2, 3), const([5, -1, 0], "int64"), x(3)),
        lambda a, i, s: _np_put(a, i, s, True),
    ),
    C(
        "put_in_place",
        lambda T, F, a, i, s: (a * 1).put_(i, s),
        (x(2, 3), const([4, 1], "int64"), x(2)),
        lambda a, i, s: _np_put(a, i, s, False),
    ),
    C(
        "select",
        lambda T, F, a: (a.select(1, -1), T.select(a, 0, 1)),
        (x(2, 3),),
        lambda a: (a[:, -1], a[1]),
    ),
    C(
        "meshgrid",
        lambda T, F, a, b, c: (
            *T.meshgrid(a, b, indexing="xy"),
            *T.meshgrid([a, b, c], indexing="ij"),
        ),
        (x(2), x(3), x(4)),
        lambda a, b, c: (*np.meshgrid(a, b), *np.meshgrid(a, b, c, indexing="ij")),
    ),
    C(
        "tril_triu_indices",
        lambda T, F: (T.tril_indices(3, 4, 1), T.triu_indices(4, 3, -1), T.tril_indices(2, 2, -3)),
        (),
        lambda: (
            np.stack(np.tril_indices(3, 1, 4)),
            np.stack(np.triu_indices(4, -1, 3)),
            np.zeros((2, 0), np.int64),
        ),  # fmt: skip
        grad=False,
    ),
    C(
        "searchsorted_bucketize",
        lambda T, F, s, v, rows, w: (
            T.searchsorted(s, v),
            T.searchsorted(s, v, right=True),
            T.searchsorted(s, v, side="right"),
            T.searchsorted(rows, w),
            T.searchsorted(rows, w, right=True),
            T.bucketize(v, s),
            T.bucketize(v, s, right=True),
        ),  # fmt: skip
        (
            const([-1.0, 0.5, 0.5, 2.0], grad=False),
            const([[0.5, -3.0], [2.0, 9.0]], grad=False),
            const([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]], grad=False),
            const([[3.0, 6.0, 0.0], [1.0, 4.0, 7.0]], grad=False),
        ),
        lambda s, v, rows, w: (
            np.searchsorted(s, v),
            np.searchsorted(s, v, "right"),
            np.searchsorted(s, v, "right"),
            np.stack([np.searchsorted(r, q) for r, q in zip(rows, w)]),
            np.stack([np.searchsorted(r, q, "right") for r, q in zip(rows, w)]),
            np.searchsorted(s, v),
            np.searchsorted(s, v, "right"),
        ),  # fmt: skip
        grad=False,
    ),
    C(
        "unique",
        lambda T, F, a, f: (*T.unique(a, return_inverse=True, return_counts=True), f.unique()),
        (const([[3, 1], [3, 2]], "int64"), const([2.0, -1.0, 2.0], grad=False)),
        lambda a, f: (
            np.unique(a),
            np.unique(a, return_inverse=True)[1].reshape(a.shape),
            np.unique(a, return_counts=True)[1],
            np.unique(f),
        ),  # fmt: skip
        grad=False,
    ),
    C(
        "index_put",  # accumulate=True: repeated indices add up (values broadcast)
        lambda T, F, a, i, j, v, w: (
            a.index_put((i, j), v),
            T.index_put(a, (i,), w, accumulate=True),
        ),
        (x(3, 4), const([0, 2, 0], "int64"), const([1, 1, 3], "int64"), x(3), x(4)),
        lambda a, i, j, v, w: (_np_index_put(a, (i, j), v), _np_index_put(a, (i,), w, True)),
    ),
    C(
        "masked_scatter",  # source's values, in order, where the mask (broadcast) is True
        lambda T, F, a, m, n, s: (a.masked_scatter(m, s), T.masked_scatter(a, n, s)),
        (x(3, 4), mask(3, 4), mask(4), x(13)),
        lambda a, m, n, s: (_np_masked_scatter(a, m, s), _np_masked_scatter(a, n, s)),
    ),
    C(
        "masked_fill",
        lambda T, F, a, m: a.masked_fill(m, -1.5),
        (x(3, 4), mask(3, 4)),
        lambda a, m: np.where(m, -1.5, a),
    ),
    C(
        "masked_fill_broadcast_mask",
        lambda T, F, a, m: T.masked_fill(a, m, float("-inf")).exp(),
        (x(2, 3, 3), const(np.triu(np.ones((3, 3)), 1).astype(bool), "bool")),
        lambda a, m: np.exp(np.where(m, -np.inf, a)),
    ),
    C(
        "tensor_unfold",  # Tensor.unfold: sliding windows, step apart, in a new last dim
        lambda T, F, a: (a.unfold(1, 3, 2), a.unfold(-1, 2, 3), a.unfold(0, 2, 1)),
        (x(2, 7),),
        lambda a: (
            np.lib.stride_tricks.sliding_window_view(a, 3, axis=1)[:, ::2],
            np.lib.stride_tricks.sliding_window_view(a, 2, axis=1)[:, ::3],
            np.lib.stride_tricks.sliding_window_view(a, 2, axis=0),
        ),
    ),
    C(
        "block_diag",
        lambda T, F, a, b, c: T.block_diag(a, b, c),
        (x(2, 3), x(), x(2)),
        _np_block_diag,
    ),
    C(
        "vander",
        lambda T, F, a: (T.vander(a), T.vander(a, 3, increasing=True)),
        (x(4),),
        lambda a: (np.vander(a), np.vander(a, 3, increasing=True)),
        torch=False,  # PyTorch 2.13's vander fails in backward (an in-place op in its graph);
    ),  # its forward is compared in tests/test_tensor.py
    C(
        "renorm",  # rows (dim 0) above maxnorm scaled down to it, the others kept
        lambda T, F, a: (a.renorm(2, 0, 1.5), T.renorm(a, 1, 1, 2.0)),
        (x(3, 4),),
        lambda a: (_np_renorm(a, 2, 0, 1.5), _np_renorm(a, 1, 1, 2.0)),
    ),
    C(
        "norm_except_dim",  # each slice's norm along dim, the other dims kept as size 1
        lambda T, F, a: (
            T.norm_except_dim(a),
            T.norm_except_dim(a, 3, 2),
            T.norm_except_dim(a, 2, -1),
        ),  # fmt: skip
        (nz(2, 3, 4),),
        lambda a: (
            np.sqrt((a**2).sum((1, 2), keepdims=True)),
            (np.abs(a) ** 3).sum((0, 1), keepdims=True) ** (1 / 3),
            np.sqrt((a**2).sum()),
        ),
    ),
    C("tril", lambda T, F, a: a.tril(), (x(3, 4),), np.tril),
    C(
        "tril_negative_diagonal",
        lambda T, F, a: T.tril(a, -1),
        (x(2, 3, 3),),
        lambda a: np.tril(a, -1),
    ),
    C("triu", lambda T, F, a: a.triu(), (x(4, 3),), np.triu),
    C("triu_diagonal", lambda T, F, a: T.triu(a, 1), (x(2, 3, 4),), lambda a: np.triu(a, 1)),
    C(
        "pad_constant",
        lambda T, F, a: F.pad(a, (1, 2, 0, 1), value=0.5),
        (x(2, 3, 4),),
        lambda a: np.pad(a, ((0, 0), (0, 1), (1, 2)), constant_values=0.5),
    ),
    C(
        "pad_negative_crops",  # (-1, 2): one element off the left, two of padding on the right
        lambda T, F, a: F.pad(a, (-1, 2, -2, -1)),
        (x(2, 5, 4),),
        lambda a: np.pad(a[:, 2:4, 1:], ((0, 0), (0, 0), (0, 2))),
    ),
    C(
        "pad_crops_all_then_pads",  # the output still depends on the input (zero gradient)
        lambda T, F, a: F.pad(a, (-1, 2), value=1.5),
        (x(1),),
        lambda a: np.full(2, 1.5),
    ),
    C(
        "pad_reflect",
        lambda T, F, a: F.pad(a, (2, 1), mode="reflect"),
        (x(2, 3, 4),),
        lambda a: np.pad(a, ((0, 0), (0, 0), (2, 1)), mode="reflect"),
    ),
    C(
        "pad_replicate_2d",  # an edge repeated 3 times gets 3 gradients
        lambda T, F, a: F.pad(a, (3, 0, 1, 2), mode="replicate"),
        (x(1, 2, 3, 2),),
        lambda a: np.pad(a, ((0, 0), (0, 0), (1, 2), (3, 0)), mode="edge"),
    ),
    C(
        "pad_circular_2d_unbatched",
        lambda T, F, a: F.pad(a, (1, 2, 2, 0), mode="circular"),
        (x(2, 3, 2),),
        lambda a: np.pad(a, ((0, 0), (2, 0), (1, 2)), mode="wrap"),
    ),
    C(
        "pad_reflect_negative_crops",  # (-1, 2): positions 1 .. 4 of a reflected length 3
        lambda T, F, a: F.pad(a, (-1, 2), mode="reflect"),
        (x(2, 3),),
        lambda a: np.pad(a, ((0, 0), (0, 2)), mode="reflect")[:, 1:],
    ),
    C(
        "cat_with_an_empty_piece",  # 1-D pieces: the empty one stays in the graph
        lambda T, F, a, b: T.cat([a, b]),
        (x(0), x(2)),
        lambda a, b: np.concatenate([a, b]),
    ),
]

SOFTMAX = [
    C(
        "softmax_last",
        lambda T, F, a: F.softmax(a, dim=-1),
        (x(2, 3, 4),),
        lambda a: np_softmax(a, -1),
    ),
    C("softmax_dim0", lambda T, F, a: T.softmax(a, 0), (x(3, 4),), lambda a: np_softmax(a, 0)),
    C("softmax_method", lambda T, F, a: a.softmax(1), (x(2, 3, 2),), lambda a: np_softmax(a, 1)),
    C(
        "softmax_large_inputs",
        lambda T, F, a: F.softmax(a * 1000, dim=-1),
        (x(2, 3),),
        lambda a: np_softmax(a * 1000, -1),
    ),
    C(
        "log_softmax_last",
        lambda T, F, a: F.log_softmax(a, dim=-1),
        (x(2, 5),),
        lambda a: np_log_softmax(a, -1),
    ),
    C(
        "log_softmax_dim1",
        lambda T, F, a: a.log_softmax(1),
        (x(2, 3, 2),),
        lambda a: np_log_softmax(a, 1),
    ),
    C(
        "log_softmax_large_inputs",
        lambda T, F, a: T.log_softmax(a * 1000, -1),
        (x(2, 3),),
        lambda a: np_log_softmax(a * 1000, -1),
    ),
    # a 0-d input is one row of one element; an empty input gives an empty result
    C("softmax_0d", lambda T, F, a: T.softmax(a, 0), (x(),), np.ones_like),
    C("log_softmax_0d", lambda T, F, a: a.log_softmax(-1), (x(),), np.zeros_like),
    C("softmax_empty_rows", lambda T, F, a: F.softmax(a, -1), (x(0, 3),), lambda a: a),
    C("log_softmax_empty_dim", lambda T, F, a: F.log_softmax(a, -1), (x(2, 0),), lambda a: a),
]

NN = [
    C(
        "cross_entropy_mean",
        lambda T, F, a, t: F.cross_entropy(a, t),
        (x(4, 5), ints(5, 4)),
        np_cross_entropy,
    ),
    C(
        "cross_entropy_sum",
        lambda T, F, a, t: F.cross_entropy(a, t, reduction="sum"),
        (x(4, 5), ints(5, 4)),
        lambda a, t: np_cross_entropy(a, t, reduction="sum"),
    ),
    C(
        "cross_entropy_none",
        lambda T, F, a, t: F.cross_entropy(a, t, reduction="none"),
        (x(4, 5), ints(5, 4)),
        lambda a, t: np_cross_entropy(a, t, reduction="none"),
    ),
    C(
        "cross_entropy_ignore_index",
        lambda T, F, a, t: F.cross_entropy(a, t, ignore_index=-100),
        (x(4, 3), const([1, -100, 2, -100], "int64")),
        np_cross_entropy,
    ),
    C(
        "cross_entropy_ignore_index_custom",
        lambda T, F, a, t: F.cross_entropy(a, t, ignore_index=0, reduction="none"),
        (x(4, 3), const([1, 0, 2, 0], "int64")),
        lambda a, t: np_cross_entropy(a, t, ignore_index=0, reduction="none"),
    ),
    C(
        "cross_entropy_spatial",
        lambda T, F, a, t: F.cross_entropy(a, t),
        (x(2, 4, 3), ints(4, 2, 3)),
        np_cross_entropy,
    ),
    C(
        "cross_entropy_large_logits",
        lambda T, F, a, t: F.cross_entropy(a * 1000, t),
        (x(3, 4), ints(4, 3)),
        lambda a, t: np_cross_entropy(a * 1000, t),
    ),
    C(
        "cross_entropy_label_smoothing",
        lambda T, F, a, t: F.cross_entropy(a, t, label_smoothing=0.1),
        (x(4, 5), ints(5, 4)),
        lambda a, t: np_cross_entropy(a, t, smoothing=0.1),
    ),
    C(
        "cross_entropy_class_weights",
        lambda T, F, a, t, w: F.cross_entropy(a, t, weight=w),
        (x(5, 4), const([0, 3, 1, 3, 2], "int64"), const([1.0, 2.0, 0.5, 3.0], grad=False)),
        lambda a, t, w: np_cross_entropy(a, t, weight=w),
    ),
    C(
        "cross_entropy_class_weights_smoothing_ignore",
        lambda T, F, a, t, w: F.cross_entropy(a, t, weight=w, label_smoothing=0.2),
        (x(5, 4), const([0, 3, -100, 1, 3], "int64"), const([1.0, 2.0, 0.5, 3.0], grad=False)),
        lambda a, t, w: np_cross_entropy(a, t, smoothing=0.2, weight=w),
    ),
    C(
        "cross_entropy_class_weights_none_spatial",
        lambda T, F, a, t, w: F.cross_entropy(a, t, weight=w, reduction="none"),
        (x(2, 3, 4), ints(3, 2, 4), const([0.2, 1.0, 4.0], grad=False)),
        lambda a, t, w: np_cross_entropy(a, t, reduction="none", weight=w),
    ),
    C(
        "nll_loss_ignore_index",
        lambda T, F, a, t: F.nll_loss(F.log_softmax(a, 1), t),
        (x(4, 3), const([2, -100, 0, 1], "int64")),
        np_cross_entropy,
    ),
    C(
        "nll_loss_none",
        lambda T, F, a, t: F.nll_loss(a, t, reduction="none"),
        (x(3, 4), ints(4, 3)),
        lambda a, t: -np.take_along_axis(a, t[:, None], 1)[:, 0],
    ),
    # soft labels (distillation, mixup): a distribution over classes per sample
    C(
        "cross_entropy_probability_targets",
        lambda T, F, a, p: F.cross_entropy(a, p.softmax(1)),
        (x(3, 4), x(3, 4)),
        lambda a, p: -(np_softmax(p, 1) * np_log_softmax(a, 1)).sum(1).mean(),
    ),
    C(
        "cross_entropy_probability_targets_spatial_weights_smoothing",
        lambda T, F, a, p, w: F.cross_entropy(
            a, p.softmax(1), weight=w, label_smoothing=0.2, reduction="none"
        ),
        (x(2, 3, 2), x(2, 3, 2), const([0.5, 1.0, 2.0], grad=False)),
        lambda a, p, w: (
            -((np_softmax(p, 1) * 0.8 + 0.2 / 3) * w[:, None] * np_log_softmax(a, 1)).sum(1)
        ),
    ),
    C(
        "nll_loss_class_weights_spatial",
        lambda T, F, a, t, w: F.nll_loss(F.log_softmax(a, 1), t, weight=w, reduction="sum"),
        (x(2, 3, 4), ints(3, 2, 4), const([0.2, 1.0, 4.0], grad=False)),
        lambda a, t, w: np_cross_entropy(a, t, reduction="sum", weight=w),
    ),
    C(
        "nll_loss_weight_positional_ignore_index",  # PyTorch's order: (input, target, weight)
        lambda T, F, a, t, w: F.nll_loss(F.log_softmax(a, 1), t, w, ignore_index=1),
        (x(5, 3), const([0, 1, 2, 1, 0], "int64"), const([0.5, 2.0, 1.5], grad=False)),
        lambda a, t, w: np_cross_entropy(a, t, ignore_index=1, weight=w),
    ),
    C(
        "nll_loss_unbatched",
        lambda T, F, a, t: F.nll_loss(F.log_softmax(a, 0), t),
        (x(4), const(1, "int64")),
        lambda a, t: np_cross_entropy(a[None], t.reshape(1)),
    ),
    C(
        "cross_entropy_unbatched_none",  # a 0-d loss for a 0-d target
        lambda T, F, a, t: F.cross_entropy(a, t, reduction="none"),
        (x(4), const(2, "int64")),
        lambda a, t: np_cross_entropy(a[None], t.reshape(1), reduction="none").reshape(()),
    ),
    C(
        "mse_loss",
        lambda T, F, a, b: F.mse_loss(a, b),
        (x(2, 3), x(2, 3)),
        lambda a, b: ((a - b) ** 2).mean(),
    ),
    C(
        "poisson_nll_loss",
        lambda T, F, a, t: F.poisson_nll_loss(a, t),
        (x(3, 4), pos(3, 4)),
        lambda a, t: np_poisson_nll(a, t).mean(),
    ),
    C(
        "poisson_nll_loss_rates_full_none",  # targets in [1.5, 6): Stirling's term, away from 1
        lambda T, F, a, t: F.poisson_nll_loss(
            a, t * 3, log_input=False, full=True, reduction="none"
        ),
        (pos(3, 4), pos(3, 4)),
        lambda a, t: np_poisson_nll(a, t * 3, log_input=False, full=True),
    ),
    C(
        "gaussian_nll_loss_full",
        lambda T, F, a, t, v: F.gaussian_nll_loss(a, t, v, full=True),
        (x(3, 4), x(3, 4), pos(3, 4)),
        lambda a, t, v: np_gaussian_nll(a, t, v, full=True).mean(),
    ),
    C(
        "gaussian_nll_loss_var_per_row_sum",  # var (3,): one dim fewer, shared along the last
        lambda T, F, a, t, v: F.gaussian_nll_loss(a, t, v, reduction="sum"),
        (x(3, 4), x(3, 4), pos(3)),
        lambda a, t, v: np_gaussian_nll(a, t, v[:, None]).sum(),
    ),
    C(
        "gaussian_nll_loss_var_shared_dim_none",  # var (1, 4): a 1 in one dim
        lambda T, F, a, t, v: F.gaussian_nll_loss(a, t, v, reduction="none", eps=0.7),
        (x(3, 4), x(3, 4), pos(1, 4)),
        lambda a, t, v: np_gaussian_nll(a, t, v, eps=0.7),
    ),
    C(
        "margin_ranking_loss",
        lambda T, F, a, b, t: F.margin_ranking_loss(a, b, t, margin=0.1),
        (
            x(3, 4),
            x(3, 4),
            const(
                [[1.0, -1.0, 1.0, 1.0], [-1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0]], grad=False
            ),
        ),
        lambda a, b, t: np.maximum(-t * (a - b) + 0.1, 0).mean(),
    ),
    C(
        "margin_ranking_loss_none",
        lambda T, F, a, b, t: F.margin_ranking_loss(a, b, t, reduction="none"),
        (x(5), x(5), const([1.0, -1.0, -1.0, 1.0, 1.0], grad=False)),
        lambda a, b, t: np.maximum(-t * (a - b), 0),
    ),
    C(
        "hinge_embedding_loss",  # margin 0.1: the kink at input 0.1 is away from nz()'s values
        lambda T, F, a, t: F.hinge_embedding_loss(a, t, margin=0.1, reduction="sum"),
        (
            nz(3, 4),
            const(
                [[1.0, -1.0, 1.0, 1.0], [-1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0]], grad=False
            ),
        ),
        lambda a, t: np.where(t == 1, a, np.maximum(0.1 - a, 0)).sum(),
    ),
    C(
        "hinge_embedding_loss_none",
        lambda T, F, a, t: F.hinge_embedding_loss(a, t, reduction="none"),
        (pos(4), const([1.0, -1.0, -1.0, 1.0], grad=False)),
        lambda a, t: np.where(t == 1, a, np.maximum(1 - a, 0)),
    ),
    C(
        "cosine_embedding_loss",
        lambda T, F, a, b, t: F.cosine_embedding_loss(a, b, t, margin=-0.2),
        (x(4, 3), x(4, 3), const([1.0, -1.0, -1.0, 1.0], grad=False)),
        lambda a, b, t: np_cosine_embedding(a, b, t, -0.2).mean(),
    ),
    C(
        "cosine_embedding_loss_unbatched_none",  # (D,) inputs with a 0-d target: a 0-d loss
        lambda T, F, a, b, t: F.cosine_embedding_loss(a, b, t, reduction="none"),
        (x(5), x(5), const(1.0, grad=False)),
        lambda a, b, t: np_cosine_embedding(a, b, t),
    ),
    C(
        "soft_margin_loss",
        lambda T, F, a, t: F.soft_margin_loss(a, t),
        (
            x(3, 4),
            const(
                [[1.0, -1.0, 1.0, 1.0], [-1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0]], grad=False
            ),
        ),
        lambda a, t: np.log1p(np.exp(-t * a)).mean(),
    ),
    C(
        "soft_margin_loss_none",
        lambda T, F, a, t: F.soft_margin_loss(a, t, reduction="none"),
        (x(2, 3), const([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]], grad=False)),
        lambda a, t: np.log1p(np.exp(-t * a)),
    ),
    C(
        "multilabel_soft_margin_loss_weight",
        lambda T, F, a, t, w: F.multilabel_soft_margin_loss(a, t.to(a.dtype), weight=w),
        (x(3, 4), mask(3, 4), pos(4)),
        lambda a, t, w: (
            -(w * (t * np_log_sigmoid(a) + (1 - t) * np_log_sigmoid(-a))).mean(-1)
        ).mean(),
    ),
    C(
        "multilabel_soft_margin_loss_none",  # float targets
        lambda T, F, a, t: F.multilabel_soft_margin_loss(a, t, reduction="none"),
        (x(2, 5), const([[1.0, 0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.0, 0.0]], grad=False)),
        lambda a, t: -(t * np_log_sigmoid(a) + (1 - t) * np_log_sigmoid(-a)).mean(-1),
    ),
    C(
        "multi_margin_loss",  # distinct(): no difference sits on the margin
        lambda T, F, a, y: F.multi_margin_loss(a, y),
        (distinct(3, 4), const([0, 3, 1], "int64")),
        lambda a, y: np_multi_margin(a, y).mean(),
    ),
    C(
        "multi_margin_loss_p2_weight_sum",
        lambda T, F, a, y, w: F.multi_margin_loss(a, y, p=2, margin=0.5, weight=w, reduction="sum"),
        (distinct(4, 3), const([2, 0, 0, 1], "int64"), const([0.5, 2.0, 1.5], grad=False)),
        lambda a, y, w: np_multi_margin(a, y, 2, 0.5, w).sum(),
    ),
    C(
        "multi_margin_loss_unbatched_none",  # (C,) with a 0-d target: a 0-d loss
        lambda T, F, a, y: F.multi_margin_loss(a, y, margin=2.0, reduction="none"),
        (distinct(5), const(2, "int64")),
        lambda a, y: np_multi_margin(a[None], y.reshape(1), margin=2.0).reshape(()),
    ),
    C(
        "multilabel_margin_loss",  # each row's classes end at the first -1
        lambda T, F, a, y: F.multilabel_margin_loss(a, y),
        (distinct(3, 4), const([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 2, 0, 0]], "int64")),
        lambda a, y: np_multilabel_margin(a, y).mean(),
    ),
    C(
        "multilabel_margin_loss_unbatched_none",
        lambda T, F, a, y: F.multilabel_margin_loss(a, y, reduction="none"),
        (distinct(5), const([4, 1, -1, 0, 0], "int64")),
        np_multilabel_margin,
    ),
    C(
        "triplet_margin_loss",
        lambda T, F, a, p, n: F.triplet_margin_loss(a, p, n),
        (x(4, 3), x(4, 3), x(4, 3)),
        lambda a, p, n: np_triplet(a, p, n).mean(),
    ),
    C(
        "triplet_margin_loss_p1_swap_none",
        lambda T, F, a, p, n: F.triplet_margin_loss(
            a, p, n, margin=2.0, p=1, eps=1e-3, swap=True, reduction="none"
        ),
        (x(5, 3), x(5, 3), x(5, 3)),
        lambda a, p, n: np_triplet(a, p, n, 2.0, 1, 1e-3, swap=True),
    ),
    C(
        "triplet_margin_with_distance_loss",
        lambda T, F, a, p, n: F.triplet_margin_with_distance_loss(a, p, n, margin=1.5),
        (x(4, 3), x(4, 3), x(4, 3)),
        lambda a, p, n: np_triplet(a, p, n, 1.5).mean(),
    ),
    C(
        "triplet_margin_with_cosine_distance_swap_sum",
        lambda T, F, a, p, n: F.triplet_margin_with_distance_loss(
            a,
            p,
            n,
            distance_function=lambda u, v: 1 - F.cosine_similarity(u, v),
            margin=0.8,
            swap=True,
            reduction="sum",
        ),
        (x(4, 3), x(4, 3), x(4, 3)),
        lambda a, p, n: np.maximum(
            0.8 + (1 - np_cos(a, p)) - np.minimum(1 - np_cos(a, n), 1 - np_cos(p, n)), 0
        ).sum(),
    ),
    C(
        "ctc_loss_mean",  # through log_softmax: PyTorch's gradient is the logits' one
        lambda T, F, a, t, il, tl: F.ctc_loss(a.log_softmax(2), t, il, tl),
        (
            x(5, 3, 4),
            const([[1, 1, 2], [3, 0, 0], [2, 3, 1]], "int64", grad=False),
            const([5, 4, 5], "int64", grad=False),
            const([3, 1, 2], "int64", grad=False),
        ),
        lambda a, t, il, tl: np_ctc_loss(np_log_softmax(a, 2), t, il, tl),
    ),  # fmt: skip
    C(
        "ctc_loss_blank_last_sum_none_empty_target",  # repeats, an empty target, blank=3
        lambda T, F, a, t, il, tl: F.ctc_loss(
            a.log_softmax(2), t, il, tl, blank=3, reduction="none"
        ),
        (
            x(4, 3, 4),
            const([[2, 2], [0, 0], [1, 0]], "int64", grad=False),
            const([4, 3, 2], "int64", grad=False),
            const([2, 0, 2], "int64", grad=False),
        ),
        lambda a, t, il, tl: np_ctc_loss(np_log_softmax(a, 2), t, il, tl, 3, "none"),
    ),  # fmt: skip
    C(
        "ctc_loss_concatenated_targets_tuple_lengths_sum",
        lambda T, F, a, t: F.ctc_loss(a.log_softmax(2), t, (4, 3), (1, 2), reduction="sum"),
        (x(4, 2, 3), const([1, 2, 2], "int64", grad=False)),
        lambda a, t: np_ctc_loss(
            np_log_softmax(a, 2), np.array([[1, 0], [2, 2]]), [4, 3], np.array([1, 2]), 0, "sum"
        ),
    ),  # fmt: skip
    C(
        "pairwise_distance",
        lambda T, F, a, b: F.pairwise_distance(a, b),
        (x(3, 4), x(3, 4)),
        lambda a, b: np_p_norm(a - b + 1e-6, 2),
    ),
    C(
        "pairwise_distance_p1_broadcast_keepdim",
        lambda T, F, a, b: T.pairwise_distance(a, b, p=1.0, eps=0.01, keepdim=True),
        (x(2, 3, 4), x(4)),
        lambda a, b: np_p_norm(a - b + 0.01, 1)[..., None],
    ),
    C(
        "pairwise_distance_p3_1d",  # (D,) and (D,): a 0-d distance
        lambda T, F, a, b: F.pairwise_distance(a, b, 3),
        (x(5), x(5)),
        lambda a, b: np_p_norm(a - b + 1e-6, 3),
    ),
    C(
        "cdist",
        lambda T, F, a, b: T.cdist(a, b),
        (x(4, 3), x(5, 3)),
        lambda a, b: np_p_norm(a[:, None] - b[None], 2),
    ),
    C(
        "cdist_batched_broadcast_p1",
        lambda T, F, a, b: T.cdist(a, b, p=1.0),
        (x(2, 3, 4), x(1, 5, 4)),
        lambda a, b: np_p_norm(a[..., :, None, :] - b[..., None, :, :], 1),
    ),
    C(
        "cdist_p_inf",
        lambda T, F, a, b: T.cdist(a, b, p=float("inf")),
        (x(3, 2), x(4, 2)),
        lambda a, b: np_p_norm(a[:, None] - b[None], np.inf),
    ),
    C(
        "cdist_p0_counts",  # the number of coordinates that differ; gradient 0
        lambda T, F, a, b: T.cdist(a, b, p=0),
        (x(3, 2), x(4, 2)),
        lambda a, b: np_p_norm(a[:, None] - b[None], 0),
    ),
    C(
        "cdist_p3_no_mm",
        lambda T, F, a, b: T.cdist(a, b, 3, compute_mode="donot_use_mm_for_euclid_dist"),
        (x(3, 2), x(2, 2)),
        lambda a, b: np_p_norm(a[:, None] - b[None], 3),
    ),
    C(
        "pdist",
        lambda T, F, a: T.pdist(a),
        (x(4, 3),),
        lambda a: np_p_norm(a[np.triu_indices(4, 1)[0]] - a[np.triu_indices(4, 1)[1]], 2),
    ),
    C(
        "pdist_p1_functional",
        lambda T, F, a: F.pdist(a, p=1),
        (x(5, 2),),
        lambda a: np_p_norm(a[np.triu_indices(5, 1)[0]] - a[np.triu_indices(5, 1)[1]], 1),
    ),
    C(
        "dist",
        lambda T, F, a, b: T.dist(a, b),
        (x(3, 4), x(4)),
        lambda a, b: np_p_norm((a - b).ravel(), 2),
    ),
    C(
        "dist_p3_method",
        lambda T, F, a, b: a.dist(b, 3),
        (x(2, 3), x(2, 3)),
        lambda a, b: np_p_norm((a - b).ravel(), 3),
    ),
    C(
        "cosine_similarity_torch_namespace",
        lambda T, F, a, b: T.cosine_similarity(a, b, dim=0),
        (x(3, 4), x(3, 1)),
        lambda a, b: np_cos(a, b, 0),
    ),
    C(
        "layer_norm_affine",
        lambda T, F, a, w, b: F.layer_norm(a, (4,), w, b),
        (x(2, 3, 4), x(4), x(4)),
        lambda a, w, b: np_layer_norm(a, 1, w, b),
    ),
    C(
        "layer_norm_plain",
        lambda T, F, a: F.layer_norm(a, [5]),
        (x(3, 5),),
        lambda a: np_layer_norm(a, 1),
    ),
    C(
        "layer_norm_2d_shape",
        lambda T, F, a, w, b: F.layer_norm(a, (2, 3), w, b, eps=1e-3),
        (x(2, 2, 3), x(2, 3), x(2, 3)),
        lambda a, w, b: np_layer_norm(a, 2, w, b, eps=1e-3),
    ),
    C(
        "native_layer_norm",  # (out, mean, rstd): the statistics in test_torch_namespace.py
        lambda T, F, a, w, b: T.native_layer_norm(a, [4], w, b, 1e-5)[0],
        (x(2, 3, 4), x(4), x(4)),
        lambda a, w, b: np_layer_norm(a, 1, w, b),
    ),
    C(
        "native_layer_norm_2d_shape_plain",
        lambda T, F, a: T.native_layer_norm(a, (2, 3), None, None, 1e-3)[0],
        (x(2, 2, 3),),
        lambda a: np_layer_norm(a, 2, eps=1e-3),
    ),
    C(
        "conv1d",
        lambda T, F, a, w, b: F.conv1d(a, w, b),
        (x(2, 3, 6), x(4, 3, 3), x(4)),
        np_conv,
    ),
    C(
        "conv1d_stride_padding_dilation",
        lambda T, F, a, w: F.conv1d(a, w, stride=2, padding=2, dilation=2),
        (x(2, 2, 7), x(3, 2, 3)),
        lambda a, w: np_conv(a, w, stride=2, padding=2, dilation=2),
    ),
    C(
        "conv1d_same_even_kernel",  # 3 zeros of padding in all: 1 left, 2 right
        lambda T, F, a, w, b: F.conv1d(a, w, b, padding="same", dilation=3),
        (x(1, 2, 5), x(2, 2, 2), x(2)),
        lambda a, w, b: np_conv(a, w, b, padding=((1, 2),), dilation=3),
    ),
    C(
        "conv1d_groups_unbatched",
        lambda T, F, a, w: F.conv1d(a, w, groups=2, padding="valid"),
        (x(4, 5), x(6, 2, 2)),
        lambda a, w: np_conv(a[None], w, groups=2)[0],
    ),
    C(
        "conv2d",
        lambda T, F, a, w, b: F.conv2d(a, w, b),
        (x(2, 2, 4, 5), x(3, 2, 3, 2), x(3)),
        np_conv,
    ),
    C(
        "conv2d_stride_padding_tuples",
        lambda T, F, a, w, b: F.conv2d(a, w, b, stride=(2, 1), padding=(1, 2)),
        (x(1, 2, 5, 4), x(2, 2, 3, 3), x(2)),
        lambda a, w, b: np_conv(a, w, b, stride=(2, 1), padding=(1, 2)),
    ),
    C(
        "conv2d_dilation_groups",
        lambda T, F, a, w: F.conv2d(a, w, stride=2, padding=1, dilation=(2, 1), groups=2),
        (x(2, 4, 5, 5), x(4, 2, 2, 3)),
        lambda a, w: np_conv(a, w, stride=2, padding=1, dilation=(2, 1), groups=2),
    ),
    C(
        "conv2d_depthwise_same",
        lambda T, F, a, w, b: F.conv2d(a, w, b, padding="same", groups=3),
        (x(1, 3, 4, 4), x(3, 1, 3, 3), x(3)),
        lambda a, w, b: np_conv(a, w, b, padding=1, groups=3),
    ),
    C(
        "conv3d",
        lambda T, F, a, w, b: F.conv3d(a, w, b, stride=(1, 2, 1), padding=(0, 1, 1)),
        (x(2, 2, 3, 4, 3), x(3, 2, 2, 2, 2), x(3)),
        lambda a, w, b: np_conv(a, w, b, stride=(1, 2, 1), padding=(0, 1, 1)),
    ),
    C(
        "conv3d_same_dilation_groups_unbatched",
        lambda T, F, a, w: F.conv3d(a, w, padding="same", dilation=(2, 1, 1), groups=2),
        (x(4, 4, 3, 3), x(2, 2, 2, 2, 1)),
        lambda a, w: np_conv(
            a[None], w, padding=((1, 1), (0, 1), (0, 0)), dilation=(2, 1, 1), groups=2
        )[0],
    ),
    C(
        "conv_transpose1d",
        lambda T, F, a, w, b: F.conv_transpose1d(a, w, b),
        (x(2, 3, 4), x(3, 2, 3), x(2)),
        np_conv_transpose,
    ),
    C(
        "conv_transpose1d_stride_padding_output_padding_groups",
        lambda T, F, a, w: F.conv_transpose1d(a, w, None, 2, 1, 1, 2, 2),
        (x(2, 4, 4), x(4, 3, 3)),
        lambda a, w: np_conv_transpose(a, w, None, 2, 1, 1, 2, 2),
    ),
    C(
        "conv_transpose1d_output_padding_below_dilation",  # 2 >= stride 1 but < dilation 3
        lambda T, F, a, w: F.conv_transpose1d(a, w, padding=2, output_padding=2, dilation=3),
        (x(3, 4), x(3, 2, 3)),
        lambda a, w: np_conv_transpose(a[None], w, padding=2, output_padding=2, dilation=3)[0],
    ),
    C(
        "conv_transpose2d",
        lambda T, F, a, w, b: F.conv_transpose2d(a, w, b, stride=(2, 1), padding=(0, 1)),
        (x(2, 2, 3, 4), x(2, 3, 2, 3), x(3)),
        lambda a, w, b: np_conv_transpose(a, w, b, stride=(2, 1), padding=(0, 1)),
    ),
    C(
        "conv_transpose2d_output_padding_dilation_groups",
        lambda T, F, a, w: F.conv_transpose2d(
            a, w, stride=3, padding=(2, 1), output_padding=(2, 1), groups=2, dilation=(1, 2)
        ),
        (x(1, 4, 3, 2), x(4, 1, 2, 2)),
        lambda a, w: np_conv_transpose(a, w, None, 3, (2, 1), (2, 1), 2, (1, 2)),
    ),
    C(
        "convolution",  # the generic entry: conv2d with stride, padding, dilation, groups
        lambda T, F, a, w, b: T.convolution(a, w, b, [2, 1], [1], [1, 2], False, [0], 2),
        (x(1, 4, 5, 6), x(2, 2, 3, 2), x(2)),
        lambda a, w, b: np_conv(a, w, b, (2, 1), 1, (1, 2), 2),
    ),
    C(
        "convolution_transposed",  # transposed=True: conv_transpose1d with output_padding
        lambda T, F, a, w: T.convolution(a, w, None, [2], [1], [1], True, [1], 1),
        (x(2, 2, 4), x(2, 3, 3)),
        lambda a, w: np_conv_transpose(a, w, None, 2, 1, 1),
    ),
    C(
        "conv_transpose3d",
        lambda T, F, a, w, b: F.conv_transpose3d(a, w, b, 2, (1, 0, 0), (1, 0, 1)),
        (x(1, 2, 2, 3, 2), x(2, 2, 2, 1, 2), x(2)),
        lambda a, w, b: np_conv_transpose(a, w, b, 2, (1, 0, 0), (1, 0, 1)),
    ),
    C(
        "unfold",
        lambda T, F, a: F.unfold(a, 2, padding=1, stride=2),
        (x(2, 2, 4, 3),),
        lambda a: np_unfold(a, 2, stride=2, padding=1),
    ),
    C(
        "unfold_overlapping",
        lambda T, F, a: F.unfold(a, kernel_size=(2, 2)),
        (x(1, 2, 3, 4),),
        lambda a: np_unfold(a, 2),
    ),
    C(
        "fold_overlapping",  # overlapping blocks add up
        lambda T, F, a: F.fold(a, (4, 5), 2, padding=1, stride=1),
        (x(2, 8, 30),),
        lambda a: np_fold(a, (4, 5), 2, padding=1),
    ),
    C(
        "fold_stride",
        lambda T, F, a: F.fold(a, output_size=(4, 4), kernel_size=2, stride=2),
        (x(12, 4),),
        lambda a: np_fold(a[None], (4, 4), 2, stride=2)[0],
    ),
    C(
        "avg_pool1d",
        lambda T, F, a: F.avg_pool1d(a, 3),
        (x(2, 3, 7),),
        lambda a: np_avg_pool(a, 3),
    ),
    C(
        "avg_pool1d_padding_ceil",
        lambda T, F, a: F.avg_pool1d(a, 3, stride=2, padding=1, ceil_mode=True),
        (x(2, 2, 6),),
        lambda a: np_avg_pool(a, 3, 2, 1, ceil_mode=True),
    ),
    C(
        "avg_pool1d_exclude_pad_unbatched",
        lambda T, F, a: F.avg_pool1d(a, 2, 1, 1, count_include_pad=False),
        (x(3, 4),),
        lambda a: np_avg_pool(a[None], 2, 1, 1, include_pad=False)[0],
    ),
    C(
        "avg_pool2d",
        lambda T, F, a: F.avg_pool2d(a, 2),
        (x(2, 2, 4, 5),),
        lambda a: np_avg_pool(a, 2),
    ),
    C(
        "avg_pool2d_ceil_exclude_pad",
        lambda T, F, a: F.avg_pool2d(a, (3, 2), 2, (1, 1), True, False),
        (x(1, 2, 6, 5),),
        lambda a: np_avg_pool(a, (3, 2), 2, (1, 1), ceil_mode=True, include_pad=False),
    ),
    C(
        "avg_pool2d_ceil_include_pad",  # the part past the padding never counts
        lambda T, F, a: F.avg_pool2d(a, 3, stride=2, padding=1, ceil_mode=True),
        (x(1, 1, 6, 6),),
        lambda a: np_avg_pool(a, 3, 2, 1, ceil_mode=True),
    ),
    C(
        "avg_pool2d_divisor_override",
        lambda T, F, a: F.avg_pool2d(a, 2, stride=1, divisor_override=3),
        (x(2, 3, 3),),
        lambda a: np_avg_pool(a[None], 2, 1, divisor=3)[0],
    ),
    C(
        "avg_pool3d",
        lambda T, F, a: F.avg_pool3d(a, (2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0)),
        (x(1, 2, 3, 5, 4),),
        lambda a: np_avg_pool(a, (2, 3, 2), (1, 2, 2), (1, 1, 0)),
    ),
    C(
        "avg_pool3d_ceil_exclude_pad_unbatched",
        lambda T, F, a: F.avg_pool3d(a, 2, padding=1, ceil_mode=True, count_include_pad=False),
        (x(2, 3, 4, 3),),
        lambda a: np_avg_pool(a[None], 2, 2, 1, ceil_mode=True, include_pad=False)[0],
    ),
    C(
        "lp_pool1d",  # (sum of x^p over each window)^(1/p)
        lambda T, F, a: F.lp_pool1d(a, 3, 3, stride=2),
        (pos(2, 3, 7),),
        lambda a: (np_avg_pool(a**3, 3, 2) * 3) ** (1 / 3),
    ),
    C(
        "lp_pool2d_ceil",
        lambda T, F, a: F.lp_pool2d(a, 2, (2, 3), ceil_mode=True),
        (pos(1, 2, 5, 4),),
        lambda a: (np_avg_pool(a**2, (2, 3), ceil_mode=True) * 6) ** 0.5,
    ),
    C(
        "lp_pool3d_unbatched",
        lambda T, F, a: F.lp_pool3d(a, 1.5, 2, (1, 2, 1)),
        (pos(2, 3, 4, 3),),
        lambda a: (np_avg_pool(a[None] ** 1.5, 2, (1, 2, 1)) * 8)[0] ** (1 / 1.5),
    ),
    C(
        "adaptive_avg_pool1d",  # windows of 2 or 3 that overlap
        lambda T, F, a: F.adaptive_avg_pool1d(a, 3),
        (x(2, 3, 7),),
        lambda a: np_adaptive_avg_pool(a, (3,)),
    ),
    C(
        "adaptive_avg_pool1d_grow",  # more outputs than inputs: windows repeat
        lambda T, F, a: F.adaptive_avg_pool1d(a, 5),
        (x(2, 3),),
        lambda a: np_adaptive_avg_pool(a[None], (5,))[0],
    ),
    C(
        "adaptive_avg_pool2d",
        lambda T, F, a: F.adaptive_avg_pool2d(a, (2, 3)),
        (x(2, 2, 5, 7),),
        lambda a: np_adaptive_avg_pool(a, (2, 3)),
    ),
    C(
        "adaptive_avg_pool2d_none_and_global",
        lambda T, F, a: (F.adaptive_avg_pool2d(a, (None, 2)), F.adaptive_avg_pool2d(a, 1)),
        (x(1, 2, 3, 4),),
        lambda a: (np_adaptive_avg_pool(a, (3, 2)), np_adaptive_avg_pool(a, (1, 1))),
    ),
    C(
        "adaptive_avg_pool3d",  # shrinking D, growing H, keeping W
        lambda T, F, a: F.adaptive_avg_pool3d(a, (2, 4, None)),
        (x(2, 2, 5, 3, 2),),
        lambda a: np_adaptive_avg_pool(a, (2, 4, 2)),
    ),
    C(
        "local_response_norm",
        lambda T, F, a: F.local_response_norm(a, 3, alpha=0.5, beta=0.6, k=1.5),
        (x(2, 5, 3),),
        lambda a: np_local_response_norm(a, 3, 0.5, 0.6, 1.5),
    ),
    C(
        "local_response_norm_even_size_4d",
        lambda T, F, a: F.local_response_norm(a, 2, alpha=0.8),
        (x(1, 4, 2, 3),),
        lambda a: np_local_response_norm(a, 2, 0.8),
    ),
    C(
        "batch_norm_training",
        lambda T, F, a, w, b: F.batch_norm(a, None, None, w, b, training=True),
        (x(4, 3, 2), x(3), x(3)),
        lambda a, w, b: np_channel_norm(a, (0, 2), w, b),
    ),
    C(
        "batch_norm_training_running_stats_2d",
        lambda T, F, a: F.batch_norm(
            a,
            T.zeros(2, dtype=a.dtype, device=a.device),
            T.ones(2, dtype=a.dtype, device=a.device),
            training=True,
            eps=1e-3,
        ),
        (x(3, 2, 2, 2),),
        lambda a: np_channel_norm(a, (0, 2, 3), eps=1e-3),
    ),
    C(
        "native_batch_norm_training",  # (out, save_mean, save_invstd): see native_layer_norm
        lambda T, F, a, w, b: T.native_batch_norm(a, w, b, None, None, True, 0.1, 1e-5)[0],
        (x(4, 3, 2), x(3), x(3)),
        lambda a, w, b: np_channel_norm(a, (0, 2), w, b),
    ),
    C(
        "native_batch_norm_eval",  # the running statistics, and two empty tensors
        lambda T, F, a, m, v: T.native_batch_norm(a, None, None, m, v, False, 0.1, 1e-5),
        (x(3, 3), const([0.5, -1.0, 0.0], grad=False), const([0.5, 1.5, 2.0], grad=False)),
        lambda a, m, v: (np_channel_norm(a, (0,), mean=m, var=v), np.zeros(0), np.zeros(0)),
    ),
    C(
        "batch_norm_eval",
        lambda T, F, a, m, v, w, b: F.batch_norm(a, m, v, w, b),
        (
            x(3, 3),
            const([0.5, -1.0, 0.0], grad=False),
            const([0.5, 1.5, 2.0], grad=False),
            x(3),
            x(3),
        ),  # fmt: skip
        lambda a, m, v, w, b: np_channel_norm(a, (), w, b, mean=m, var=v),
    ),
    C(
        "instance_norm",
        lambda T, F, a: F.instance_norm(a),
        (x(2, 3, 4),),
        lambda a: np_channel_norm(a, (2,)),
    ),
    C(
        "instance_norm_affine_2d",
        lambda T, F, a, w, b: F.instance_norm(a, weight=w, bias=b, eps=1e-3),
        (x(2, 2, 3, 2), x(2), x(2)),
        lambda a, w, b: np_channel_norm(a, (2, 3), w, b, eps=1e-3),
    ),
    C(
        "group_norm",
        lambda T, F, a, w, b: F.group_norm(a, 2, w, b),
        (x(2, 4, 3), x(4), x(4)),
        lambda a, w, b: np_group_norm(a, 2, w, b),
    ),
    C(
        "group_norm_plain_2d",
        lambda T, F, a: F.group_norm(a, 3, eps=1e-3),
        (x(2, 3, 2, 2),),
        lambda a: np_group_norm(a, 3, eps=1e-3),
    ),
    C(
        "native_group_norm",  # (out, mean, rstd): the statistics in test_torch_namespace.py
        lambda T, F, a, w, b: T.native_group_norm(a, w, b, 2, 4, 3, 2, 1e-5)[0],
        (x(2, 4, 3), x(4), x(4)),
        lambda a, w, b: np_group_norm(a, 2, w, b),
    ),
    C(
        "pixel_shuffle",
        lambda T, F, a: F.pixel_shuffle(a, 2),
        (x(2, 8, 2, 3),),
        lambda a: a.reshape(2, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 4, 6),
    ),
    C(
        "pixel_unshuffle_5d",
        lambda T, F, a: F.pixel_unshuffle(a, 2),
        (x(2, 1, 3, 4, 2),),
        lambda a: (
            a.reshape(2, 1, 3, 2, 2, 1, 2).transpose(0, 1, 2, 4, 6, 3, 5).reshape(2, 1, 12, 2, 1)
        ),
    ),
    C(
        "interpolate_nearest_size",  # 3 -> 7: positions floor(i * 3 / 7), some read twice
        lambda T, F, a: F.interpolate(a, size=7),
        (x(2, 2, 3),),
        lambda a: a[:, :, [0, 0, 0, 1, 1, 2, 2]],
    ),
    C(
        "interpolate_nearest_scale_2d",
        lambda T, F, a: F.interpolate(a, scale_factor=(2, 0.5)),
        (x(1, 2, 2, 4),),
        lambda a: a[:, :, [0, 0, 1, 1]][:, :, :, [0, 2]],
    ),
    C(
        "interpolate_linear_scale",  # the scale is 1 / scale_factor, not 4 / 6
        lambda T, F, a: F.interpolate(a, scale_factor=1.7, mode="linear"),
        (x(2, 2, 4),),
        lambda a: np_interpolate_linear(a, (6,), factors=(1.7,)),
    ),
    C(
        "interpolate_bilinear_keeps_a_dim",  # W 2 -> 2 is a copy whatever the scale (CPU)
        lambda T, F, a: F.interpolate(a, scale_factor=1.3, mode="bilinear"),
        (x(1, 2, 4, 2),),
        lambda a: np_interpolate_linear(a, (5,), factors=(1.3,)),
    ),
    C(
        "interpolate_bilinear_align_corners",
        lambda T, F, a: F.interpolate(a, size=(5, 2), mode="bilinear", align_corners=True),
        (x(1, 2, 3, 4),),
        lambda a: np_interpolate_linear(a, (5, 2), align_corners=True),
    ),
    C(
        "interpolate_bicubic_5x7",  # 3 x 4 -> 5 x 7: taps past the edges read the edge pixels
        lambda T, F, a: F.interpolate(a, size=(5, 7), mode="bicubic"),
        (x(1, 2, 3, 4),),
        lambda a: np_interpolate_bicubic(a, (5, 7)),
    ),
    C(
        "interpolate_bicubic_align_corners_down",
        lambda T, F, a: F.interpolate(a, size=(2, 3), mode="bicubic", align_corners=True),
        (x(2, 1, 4, 5),),
        lambda a: np_interpolate_bicubic(a, (2, 3), align_corners=True),
    ),
    C(
        "interpolate_bicubic",  # 3 x 4 -> 5 x 3: taps past the edges read the edge pixels
        lambda T, F, a: F.interpolate(a, size=(5, 3), mode="bicubic"),
        (x(1, 2, 3, 4),),
        lambda a: np_interpolate_bicubic(a, (5, 3)),
    ),
    C(
        "interpolate_bilinear_antialias",  # downsampling 7 -> 3: a triangle 7/3 wide
        lambda T, F, a: F.interpolate(a, size=(3, 5), mode="bilinear", antialias=True),
        (x(1, 2, 7, 4),),
        lambda a: np_interpolate_antialias(a, (3, 5)),
    ),
    C(
        "interpolate_bicubic_antialias",
        lambda T, F, a: F.interpolate(a, size=(2, 6), mode="bicubic", antialias=True),
        (x(2, 1, 5, 9),),
        lambda a: np_interpolate_antialias(a, (2, 6), cubic=True),
    ),
    C(
        "interpolate_bicubic_align_corners",
        lambda T, F, a: F.interpolate(a, size=(2, 7), mode="bicubic", align_corners=True),
        (x(2, 1, 4, 3),),
        lambda a: np_interpolate_bicubic(a, (2, 7), align_corners=True),
    ),
    C(
        "interpolate_trilinear",
        lambda T, F, a: F.interpolate(a, size=(3, 2, 5), mode="trilinear"),
        (x(1, 1, 2, 3, 3),),
        lambda a: np_interpolate_linear(a, (3, 2, 5)),
    ),
    C(
        "upsample_bilinear",  # the deprecated form: align_corners=True
        lambda T, F, a: F.upsample_bilinear(a, scale_factor=2),
        (x(1, 2, 2, 3),),
        lambda a: np_interpolate_linear(a, (4, 6), align_corners=True),
    ),
    C(
        "interpolate_area",  # adaptive average pooling
        lambda T, F, a: F.interpolate(a, size=(2, 3), mode="area"),
        (x(1, 2, 5, 4),),
        lambda a: np_adaptive_avg_pool(a, (2, 3)),
    ),
    C(
        "affine_grid",
        lambda T, F, t: F.affine_grid(t, (2, 3, 4, 5), align_corners=False),
        (x(2, 2, 3),),
        lambda t: np_affine_grid(t, (2, 3, 4, 5), False),
    ),
    C(
        "affine_grid_align_corners_unit_width",
        lambda T, F, t: F.affine_grid(t, (1, 1, 3, 1), align_corners=True),
        (x(1, 2, 3),),
        lambda t: np_affine_grid(t, (1, 1, 3, 1), True),
    ),
    C(
        "grid_sample_bilinear_zeros",  # positions beyond +-1 read zeros
        lambda T, F, a, g: F.grid_sample(a, g, align_corners=False),
        (x(2, 2, 3, 4), x(2, 3, 2, 2)),
        lambda a, g: np_grid_sample(a, g),
    ),
    C(
        "grid_sample_bilinear_border_align_corners",
        lambda T, F, a, g: F.grid_sample(a, g, padding_mode="border", align_corners=True),
        (x(1, 2, 4, 3), x(1, 2, 3, 2)),
        lambda a, g: np_grid_sample(a, g, padding_mode="border", align_corners=True),
    ),
    C(
        "grid_sample_bilinear_reflection",
        lambda T, F, a, g: F.grid_sample(a, g, padding_mode="reflection", align_corners=False),
        (x(1, 3, 3, 4), x(1, 3, 3, 2)),
        lambda a, g: np_grid_sample(a, g, padding_mode="reflection"),
    ),
    C(
        "grid_sample_bicubic_zeros",  # the 4 x 4 pixels around each position
        lambda T, F, a, g: F.grid_sample(a, g, "bicubic", align_corners=False),
        (x(2, 2, 3, 4), x(2, 3, 2, 2)),
        lambda a, g: np_grid_sample_bicubic(a, g),
    ),
    C(
        "grid_sample_bicubic_border_align_corners",  # each tap clamped, not the position
        lambda T, F, a, g: F.grid_sample(a, g, "bicubic", "border", align_corners=True),
        (x(1, 2, 4, 3), x(1, 2, 3, 2)),
        lambda a, g: np_grid_sample_bicubic(a, g, "border", True),
    ),
    C(
        "grid_sample_trilinear_zeros",  # a volume: the eight voxels around each position
        lambda T, F, a, g: F.grid_sample(a, g, align_corners=False),
        (x(2, 2, 3, 2, 4), x(2, 2, 1, 3, 3)),
        lambda a, g: np_grid_sample_3d(a, g),
    ),
    C(
        "grid_sample_trilinear_border_align_corners",
        lambda T, F, a, g: F.grid_sample(a, g, padding_mode="border", align_corners=True),
        (x(1, 2, 2, 3, 3), x(1, 1, 2, 3, 3)),
        lambda a, g: np_grid_sample_3d(a, g, padding_mode="border", align_corners=True),
    ),
    C(
        "grid_sample_nearest_3d",
        lambda T, F, a, g: F.grid_sample(a, g, "nearest", align_corners=False),
        (x(1, 2, 3, 2, 4), x(1, 2, 2, 1, 3)),
        lambda a, g: np_grid_sample_3d(a, g, "nearest"),
    ),
    C(
        "grid_sample_nearest",  # the grid's gradient is 0
        lambda T, F, a, g: F.grid_sample(a, g, "nearest", "reflection", align_corners=True),
        (x(2, 2, 3, 4), x(2, 2, 3, 2)),
        lambda a, g: np_grid_sample(a, g, "nearest", "reflection", True),
    ),
    C(
        "lstm_cell_functional",  # torch.lstm_cell: nn.LSTMCell's step with the weights given
        lambda T, F, a, h, c, wi, wh, bi, bh: T.lstm_cell(a, (h, c), wi, wh, bi, bh),
        (x(3, 4), x(3, 2), x(3, 2), x(8, 4), x(8, 2), x(8), x(8)),
        np_lstm_cell,
    ),
    C(
        "gru_cell_functional",
        lambda T, F, a, h, wi, wh, bi, bh: T.gru_cell(a, h, wi, wh, bi, bh),
        (x(3, 4), x(3, 2), x(6, 4), x(6, 2), x(6), x(6)),
        np_gru_cell,
    ),
    C(
        "rnn_cells_functional",  # tanh and relu, without biases
        lambda T, F, a, h, wi, wh: (T.rnn_tanh_cell(a, h, wi, wh), T.rnn_relu_cell(a, h, wi, wh)),
        (x(3, 4), x(3, 2), x(2, 4), nz(2, 2)),
        lambda a, h, wi, wh: (np.tanh(a @ wi.T + h @ wh.T), np.maximum(a @ wi.T + h @ wh.T, 0)),
    ),
    C(
        "embedding_repeats",
        lambda T, F, i, w: F.embedding(i, w),
        (const([[0, 2, 0], [4, 2, 2]], "int64"), x(5, 3)),
        lambda i, w: w[i],
    ),
    C(
        "embedding_0d_index",
        lambda T, F, i, w: F.embedding(i, w),
        (const(3, "int64"), x(4, 2)),
        lambda i, w: w[i],
    ),
    C(
        "embedding_bag_mean_offsets",  # bags [1, 2], [] and [4, 5, 4, 3]: an empty bag gives 0
        lambda T, F, i, w, o: F.embedding_bag(i, w, o),
        (const([1, 2, 4, 5, 4, 3], "int64"), x(6, 3), const([0, 2, 2], "int64")),
        lambda i, w, o: np_embedding_bag(i, w, o),
    ),
    C(
        "embedding_bag_sum_2d_per_sample_weights",
        lambda T, F, i, w, p: F.embedding_bag(i, w, mode="sum", per_sample_weights=p),
        (const([[0, 2, 2], [4, 1, 0]], "int64"), x(5, 3), x(2, 3)),
        lambda i, w, p: np_embedding_bag(i, w, mode="sum", psw=p),
    ),
    C(
        "embedding_bag_max_padding_idx",  # id 2 is left out; the second bag has only padding
        lambda T, F, i, w: F.embedding_bag(i, w, mode="max", padding_idx=2),
        (const([[1, 3, 1], [2, 2, 2], [0, 2, 3]], "int64"), distinct(4, 3)),
        lambda i, w: np_embedding_bag(i, w, mode="max", padding_idx=2),
    ),
    C(
        "embedding_bag_include_last_offset",  # offsets end with the input's length: 3 bags
        lambda T, F, i, w, o: F.embedding_bag(i, w, o, include_last_offset=True, padding_idx=0),
        (const([1, 0, 4, 2, 3], "int64"), x(5, 2), const([0, 3, 3, 5], "int64")),
        lambda i, w, o: np_embedding_bag(i, w, o[:-1], padding_idx=0),
    ),
    C(
        "dropout_train",
        seeded(lambda T, F, a: F.dropout(a, 0.25, training=True)),
        (x(4, 5),),
        lambda a: a * host_keep_mask(a.shape, 0.25) / 0.75,
        torch=False,
        cpu_ref=True,
    ),
    C("dropout_eval", lambda T, F, a: F.dropout(a, 0.5, training=False), (x(3, 3),), lambda a: a),
    C(
        "dropout_p0",
        lambda T, F, a: F.dropout(a, 0.0),
        (
            x(
                3,
            ),
        ),
        lambda a: a,
    ),
    C(
        "linear",
        lambda T, F, a, w, b: F.linear(a, w, b),
        (x(2, 3, 4), x(5, 4), x(5)),
        lambda a, w, b: a @ w.T + b,
    ),
    C(
        "linear_no_bias",
        lambda T, F, a, w: F.linear(a, w),
        (x(3, 4), x(2, 4)),
        lambda a, w: a @ w.T,
    ),
    C(
        "linear_1d_input",
        lambda T, F, a, w, b: F.linear(a, w, b),
        (x(4), x(3, 4), x(3)),
        lambda a, w, b: w @ a + b,
    ),
    C(
        "linear_1d_weight",  # weight (in,): one output per row, no out dim
        lambda T, F, a, w, b: F.linear(a, w, b),
        (x(2, 3, 4), x(4), x()),
        lambda a, w, b: a @ w + b,
    ),
    C(
        "bilinear",
        lambda T, F, a, b, w, c: F.bilinear(a, b, w, c),
        (x(2, 3, 4), x(2, 3, 5), x(6, 4, 5), x(6)),
        lambda a, b, w, c: np.einsum("...i,oij,...j->...o", a, w, b) + c,
    ),
    C(
        "bilinear_1d_no_bias",
        lambda T, F, a, b, w: F.bilinear(a, b, w),
        (x(4), x(2), x(3, 4, 2)),
        lambda a, b, w: np.einsum("i,oij,j->o", a, w, b),
    ),
    C(
        "channel_shuffle",  # channel c*3 + g of the result is channel g*2 + c of the input
        lambda T, F, a: F.channel_shuffle(a, 3),
        (x(2, 6, 2, 2),),
        lambda a: a.reshape(2, 3, 2, 2, 2).swapaxes(1, 2).reshape(a.shape),
    ),
    C(
        "sdpa",
        lambda T, F, q, k, v: F.scaled_dot_product_attention(q, k, v),
        (x(2, 3, 4), x(2, 5, 4), x(2, 5, 3)),
        np_sdpa,
    ),
    C(
        "sdpa_causal",
        lambda T, F, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        (x(1, 2, 4, 3), x(1, 2, 4, 3), x(1, 2, 4, 3)),
        lambda q, k, v: np_sdpa(q, k, v, causal=True),
    ),
    C(
        "sdpa_causal_rectangular",
        lambda T, F, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        (x(3, 2), x(5, 2), x(5, 2)),
        lambda q, k, v: np_sdpa(q, k, v, causal=True),
    ),
    C(
        "sdpa_bool_mask",
        lambda T, F, q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
        (
            x(2, 3, 4),
            x(2, 4, 4),
            x(2, 4, 2),
            const([[1, 0, 1, 1], [0, 1, 1, 0], [1, 1, 0, 0]], "bool"),
        ),
        lambda q, k, v, m: np_sdpa(q, k, v, mask=m),
    ),
    C(
        "sdpa_bool_mask_a_query_sees_no_key",  # as in PyTorch: its output and gradients are 0
        lambda T, F, q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
        (
            x(2, 3, 4),
            x(2, 4, 4),
            x(2, 4, 2),
            const([[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 0, 0]], "bool"),
        ),
        lambda q, k, v, m: np_sdpa(q, k, v, mask=m),
    ),
    C(
        "sdpa_float_mask_of_minus_infinity_row",
        lambda T, F, q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
        (
            x(3, 2),
            x(2, 2),
            x(2, 3),
            const([[0.0, -1.0], [-np.inf, -np.inf], [0.5, -np.inf]], grad=False),
        ),
        lambda q, k, v, m: np_sdpa(q, k, v, mask=m),
    ),
    C(
        "sdpa_float_mask",
        lambda T, F, q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
        (x(2, 3, 4), x(2, 4, 4), x(2, 4, 2), x(2, 3, 4, grad=False)),
        lambda q, k, v, m: np_sdpa(q, k, v, mask=m),
    ),
    C(
        "sdpa_scale",
        lambda T, F, q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.3),
        (x(3, 4), x(3, 4), x(3, 5)),
        lambda q, k, v: np_sdpa(q, k, v, scale=0.3),
    ),
    C(
        "sdpa_batch_broadcast",
        lambda T, F, q, k, v: F.scaled_dot_product_attention(q, k, v),
        (x(2, 2, 3, 4), x(1, 2, 3, 4), x(3, 2)),
        np_sdpa,
    ),
    C(
        "sdpa_grouped_query",  # key: 2 heads for query's 6, value: 3
        lambda T, F, q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
        (x(2, 6, 3, 4), x(2, 2, 5, 4), x(2, 3, 5, 2)),
        lambda q, k, v: np_sdpa(q, np.repeat(k, 3, axis=-3), np.repeat(v, 2, axis=-3)),
    ),
    C(
        "sdpa_dropout",
        seeded(lambda T, F, q, k, v: F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)),
        (x(2, 3, 4), x(2, 3, 4), x(2, 3, 2)),
        lambda q, k, v: np_sdpa(q, k, v, keep=host_keep_mask((2, 3, 3), 0.5), p=0.5),
        torch=False,
        cpu_ref=True,
    ),
]

# In-place forms, run on a non-leaf (a * 1): the values and gradients of the out-of-place op.
INPLACE = [
    C("exp_", lambda T, F, a: (a * 1).exp_(), (x(2, 3),), np.exp),
    C("log_", lambda T, F, a: (a * 1).log_(), (pos(2, 3),), np.log),
    C("log1p_", lambda T, F, a: (a * 1).log1p_(), (pos(3),), np.log1p),
    C("sqrt_", lambda T, F, a: (a * 1).sqrt_(), (pos(2, 3),), np.sqrt),
    C("rsqrt_", lambda T, F, a: (a * 1).rsqrt_(), (pos(3),), lambda a: 1 / np.sqrt(a)),
    C("square_", lambda T, F, a: (a * 1).square_(), (x(2, 3),), np.square),
    C("reciprocal_", lambda T, F, a: (a * 1).reciprocal_(), (pos(3),), np.reciprocal),
    C("abs_", lambda T, F, a: (a * 1).abs_(), (nz(2, 3),), np.abs),
    C("neg_", lambda T, F, a: (a * 1).neg_(), (x(3),), np.negative),
    C("sin_", lambda T, F, a: (a * 1).sin_(), (x(3),), np.sin),
    C("cos_", lambda T, F, a: (a * 1).cos_(), (x(3),), np.cos),
    C("tanh_", lambda T, F, a: (a * 1).tanh_(), (x(2, 3),), np.tanh),
    C(
        "fill_diagonal_",  # wrap=True: a tall matrix's diagonal starts again below its square
        lambda T, F, a: ((a * 1).fill_diagonal_(2.5), (a * 1).fill_diagonal_(-1.0, wrap=True)),
        (x(7, 3),),
        lambda a: (_np_fill_diagonal(a, 2.5), _np_fill_diagonal(a, -1.0, True)),
    ),
    C("sigmoid_", lambda T, F, a: (a * 1).sigmoid_(), (x(2, 3),), np_sigmoid),
    C("relu_", lambda T, F, a: (a * 1).relu_(), (nz(2, 4),), lambda a: np.maximum(a, 0)),
    C("erf_", lambda T, F, a: (a * 1).erf_(), (x(3),), lambda a: np.vectorize(math.erf)(a)),
    C(
        "floor_ceil_trunc_sign_round_",
        lambda T, F, a: (
            (a * 1).floor_(),
            (a * 1).ceil_(),
            (a * 1).trunc_(),
            (a * 1).sign_(),
            (a * 1).round_(decimals=1),
        ),  # fmt: skip
        (const([[0.52, -1.47, 2.33], [-0.26, 1.74, -2.91]]),),
        lambda a: (np.floor(a), np.ceil(a), np.trunc(a), np.sign(a), np.round(a, 1)),
    ),
    C(
        "scatter_reduce_index_put_masked_scatter_renorm_",
        lambda T, F, a, i, s, m: (
            (a * 1).scatter_reduce_(1, i, s, "sum", include_self=False),
            (a * 1).index_put_((i[1],), s[1], accumulate=True),
            (a * 1).masked_scatter_(m, s),
            (a * 1).renorm_(2, 0, 1.0),
        ),
        (x(2, 3), const([[0, 0, 2], [1, 1, 1]], "int64"), x(2, 3), mask(2, 3)),
        lambda a, i, s, m: (
            _np_scatter_reduce(a, i, s, "sum", False),
            _np_index_put(a, (i[1],), s[1], True),
            _np_masked_scatter(a, m, s),
            _np_renorm(a, 2, 0, 1.0),
        ),
    ),
    C(
        "tril_triu_",
        lambda T, F, a: ((a * 1).tril_(), (a * 1).triu_(1)),
        (x(3, 4),),
        lambda a: (np.tril(a), np.triu(a, 1)),
    ),
    C(
        "clip_",
        lambda T, F, a: (a * 1).clip_(-0.5, 0.5),
        (const([[-1.3, -0.2, 0.1], [0.7, 2.0, -0.6]]),),
        lambda a: np.clip(a, -0.5, 0.5),
    ),
    C(
        "addmm_addmv_addr_baddbmm_addbmm_",
        lambda T, F, m, a, b, u, v, bb, bc: (
            (m * 1).addmm_(a, b, beta=0.5),
            (m[0] * 1).addmv_(b.t(), u, alpha=2),
            (m * 1).addr_(m[:, 0], v),
            (m * 1).expand(2, 2, 3).clone().baddbmm_(bb, bc),
            (m * 1).addbmm_(bb, bc),
        ),  # fmt: skip
        (x(2, 3), x(2, 4), x(4, 3), x(4), x(3), x(2, 2, 4), x(2, 4, 3)),
        lambda m, a, b, u, v, bb, bc: (
            0.5 * m + a @ b,
            m[0] + 2 * (b.T @ u),
            m + np.outer(m[:, 0], v),
            m + bb @ bc,
            m + (bb @ bc).sum(0),
        ),  # fmt: skip
    ),
    C(
        "addcmul_addcdiv_",
        lambda T, F, a, b, c: ((a * 1).addcmul_(b, c, value=2), (a * 1).addcdiv_(b, c)),
        (x(2, 3), x(2, 3), pos(3)),
        lambda a, b, c: (a + 2 * b * c, a + b / c),
    ),
    C(
        "index_fill_index_copy_",
        lambda T, F, a, i, s: ((a * 1).index_fill_(1, i, 0.5), (a * 1).index_copy_(1, i, s)),
        (x(2, 4), const([2, 1], "int64"), x(2, 2)),
        lambda a, i, s: (_np_replaced(a, 1, i, 0.5), _np_replaced(a, 1, i, s)),
    ),
    C(
        "activations_inplace",  # what nn.ReLU(inplace=True) & co. do after a Linear
        lambda T, F, a: (
            F.relu(a * 1, inplace=True),
            F.leaky_relu(a * 1, 0.2, inplace=True),
            F.silu(a * 1, inplace=True),
            T.nn.ReLU(inplace=True)(a * 1),
        ),  # fmt: skip
        (nz(2, 4),),
        lambda a: (
            np.maximum(a, 0),
            np.where(a > 0, a, 0.2 * a),
            a * np_sigmoid(a),
            np.maximum(a, 0),
        ),  # fmt: skip
    ),
    C(
        "activations_inplace_more",  # the in-place forms of the activations above
        lambda T, F, a: (
            F.relu6(a * 4, inplace=True),
            F.hardtanh(a * 1, -0.5, 0.5, inplace=True),
            F.hardtanh_(a * 1),
            F.elu(a * 1, 0.5, inplace=True),
            F.elu_(a * 1),
            F.selu(a * 1, inplace=True),
            T.selu_(a * 1),
            F.celu_(a * 1, 2.0),
            T.celu_(a * 1),
            F.mish(a * 1, inplace=True),
            F.hardswish(a * 3, inplace=True),
            F.hardsigmoid(a * 3, inplace=True),
            F.threshold(a * 1, 0.3, -1.0, inplace=True),
            F.threshold_(a * 1, 0.3, -1.0),
            T.threshold_(a * 1, -0.3, 1.0),
            F.rrelu(a * 1, inplace=True),
            F.rrelu_(a * 1, 0.1, 0.2),
            T.rrelu_(a * 1),
        ),  # fmt: skip
        (nz(2, 4),),
        lambda a: (
            np.clip(a * 4, 0, 6),
            np.clip(a, -0.5, 0.5),
            np.clip(a, -1, 1),
            np_elu(a, 0.5),
            np_elu(a),
            SELU_SCALE * np_elu(a, SELU_ALPHA),
            SELU_SCALE * np_elu(a, SELU_ALPHA),
            2.0 * np.expm1(np.minimum(a, 0) / 2.0) + np.maximum(a, 0),
            np_elu(a),
            a * np.tanh(np.logaddexp(0, a)),
            a * 3 * np_hardsigmoid(a * 3),
            np_hardsigmoid(a * 3),
            np.where(a > 0.3, a, -1.0),
            np.where(a > 0.3, a, -1.0),
            np.where(a > -0.3, a, 1.0),
            np.where(a > 0, a, a * (1 / 8 + 1 / 3) / 2),
            np.where(a > 0, a, a * 0.15),
            np.where(a > 0, a, a * (1 / 8 + 1 / 3) / 2),
        ),  # fmt: skip
    ),
]

CASES = ARITHMETIC + ELEMENTWISE + COMPARISONS + REDUCTIONS + MATMUL + LINALG + SHAPE
CASES += INDEXING
CASES += SOFTMAX + NN + INPLACE


def test_case_names_are_unique() -> None:
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))


# ----------------------------------------------------------------------------- the tests
def _check_forward(case: OpCase, outputs: list, arrays: list, rtol: float, atol: float) -> None:
    expected = [
        np.asarray(e)
        for e in as_list(
            case.ref(*[a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays])
        )
    ]
    assert len(outputs) == len(expected), (
        f"{case.name}: {len(outputs)} outputs, NumPy gives {len(expected)}"
    )
    for out, exp in zip(outputs, expected):
        assert tuple(out.shape) == exp.shape, (
            f"{case.name}: shape {tuple(out.shape)} != {exp.shape}"
        )
        got = np.asarray(out.detach().cpu().numpy())
        if exp.dtype.kind == "f":
            np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol, err_msg=case.name)
        else:
            np.testing.assert_array_equal(got, exp, err_msg=case.name)
            assert got.dtype == (np.int64 if exp.dtype.kind in "iu" else np.bool_), case.name


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_op_case(case: OpCase, device: str) -> None:
    """float64: the forward equals NumPy's, and backward passes gradcheck."""
    arrays, inputs = make_inputs(case, "float64", device)
    outputs = as_list(case.fn(microtorch, mF, *inputs))
    if not (case.cpu_ref and device != "cpu"):
        _check_forward(case, outputs, arrays, rtol=1e-7, atol=1e-10)
    for out in outputs:
        if out.dtype.is_floating_point:
            assert out.dtype is microtorch.float64, f"{case.name}: float64 in, {out.dtype} out"
    if case.grad:
        assert gradcheck(lambda *t: case.fn(microtorch, mF, *t), inputs)
    else:
        assert not any(o.requires_grad for o in outputs), f"{case.name} must not make a graph"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_op_case_float32(case: OpCase, device: str) -> None:
    """float32 stays float32, and every gradient has its input's exact shape and dtype."""
    arrays, inputs = make_inputs(case, "float32", device)
    outputs = as_list(case.fn(microtorch, mF, *inputs))
    if not (case.cpu_ref and device != "cpu"):
        _check_forward(case, outputs, arrays, rtol=2e-5, atol=2e-5)
    for out in outputs:
        if out.dtype.is_floating_point:
            assert out.dtype is microtorch.float32, f"{case.name}: float32 in, {out.dtype} out"
    if not case.grad:
        return
    rng = np.random.default_rng(0)
    total = None
    for out in outputs:
        if out.requires_grad:
            r = microtorch.tensor(
                rng.standard_normal(tuple(out.shape)).astype(np.float32), device=device
            )
            term = (out * r).sum()
            total = term if total is None else total + term
    total.backward()
    for i, t in enumerate(inputs):
        if t.requires_grad:
            assert t.grad is not None, f"{case.name}: input {i} got no gradient"
            assert tuple(t.grad.shape) == tuple(t.shape), f"{case.name}: input {i} grad shape"
            assert t.grad.dtype is microtorch.float32, (
                f"{case.name}: input {i} grad is {t.grad.dtype}"
            )
            assert t.grad.device == t.device
            assert np.isfinite(t.grad.cpu().numpy()).all(), (
                f"{case.name}: input {i} grad not finite"
            )


# ----------------------------------------------------------------------------- semantics the
# table cannot express: statistics of random ops, and equivalences between arguments
def test_dropout_statistics_train_and_eval(device: str) -> None:
    x = microtorch.ones(200, 100, device=device)
    out = mF.dropout(x, p=0.3, training=True).cpu().numpy()
    zero_fraction = (out == 0).mean()
    assert abs(zero_fraction - 0.3) < 0.02
    kept = out[out != 0]
    np.testing.assert_allclose(kept, 1 / 0.7, rtol=1e-6)  # survivors are scaled by 1/(1-p)
    assert abs(out.mean() - 1.0) < 0.03  # the expected value is unchanged
    assert mF.dropout(x, p=0.3, training=False) is x  # eval: the identity
    assert (mF.dropout(x, p=1.0).cpu().numpy() == 0).all()
    microtorch.manual_seed(5)
    a = mF.dropout(x, 0.5).cpu().numpy()
    microtorch.manual_seed(5)
    np.testing.assert_array_equal(mF.dropout(x, 0.5).cpu().numpy(), a)  # seeded
    assert not np.array_equal(mF.dropout(x, 0.5).cpu().numpy(), a)  # a fresh mask each call


def test_dropout_in_float16(device: str) -> None:
    x = microtorch.ones(100, 100, dtype=microtorch.float16, device=device)
    out = mF.dropout(x, p=0.25, training=True)
    values = out.cpu().numpy()
    assert out.dtype is microtorch.float16 and abs((values == 0).mean() - 0.25) < 0.03
    np.testing.assert_allclose(values[values != 0], np.float16(1 / 0.75))


def test_dropout_gradient_uses_the_same_mask(device: str) -> None:
    x = microtorch.ones(50, 40, device=device, requires_grad=True)
    out = mF.dropout(x, 0.4)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), out.detach().cpu().numpy())


@pytest.mark.parametrize("dtype", [microtorch.float32, microtorch.float16])
def test_dropout_is_x_times_the_seeded_bernoulli_mask(device: str, dtype) -> None:
    """Whichever way it is computed (a mask kept for backward, or on a GPU one kernel that
    hashes the mask as it multiplies), dropout is x * random.bernoulli_mask for the same
    seed, and its gradient is the upstream gradient times that mask."""
    x = microtorch.randn(30, 20, device=device).to(dtype).t().requires_grad_()  # strided
    microtorch.manual_seed(11)
    out = mF.dropout(x, 0.3)
    microtorch.manual_seed(11)
    mask = microtorch.random.bernoulli_mask((20, 30), 0.7, x.array.dtype, x.device)
    expected = backend.to_numpy(x.array * mask)
    np.testing.assert_array_equal(out.detach().cpu().numpy(), expected)
    upstream = microtorch.randn(20, 30, device=device).to(dtype)
    out.backward(upstream)
    np.testing.assert_array_equal(x.grad.cpu().numpy(), backend.to_numpy(upstream.array * mask))


def _qkv(device: str, L: int = 4, S: int = 4, E: int = 8) -> tuple:
    return (
        microtorch.randn(2, L, E, device=device),
        microtorch.randn(2, S, E, device=device),
        microtorch.randn(2, S, E, device=device),
    )


def test_sdpa_mask_semantics(device: str) -> None:
    q, k, v = _qkv(device)
    causal = mF.scaled_dot_product_attention(q, k, v, is_causal=True).cpu().numpy()
    allowed = microtorch.ones(4, 4, dtype=microtorch.bool, device=device).tril()
    as_bool = mF.scaled_dot_product_attention(q, k, v, attn_mask=allowed).cpu().numpy()
    additive = microtorch.zeros(4, 4, device=device).masked_fill(~allowed, float("-inf"))
    as_float = mF.scaled_dot_product_attention(q, k, v, attn_mask=additive).cpu().numpy()
    np.testing.assert_allclose(as_bool, causal, rtol=1e-6, atol=1e-6)  # True = takes part
    np.testing.assert_allclose(as_float, causal, rtol=1e-6, atol=1e-6)  # a float mask is added
    # the first query may only look at the first key: its output is that key's value
    np.testing.assert_allclose(causal[:, 0], v.cpu().numpy()[:, 0], rtol=1e-6)


def test_sdpa_default_scale_is_one_over_sqrt_head_dim(device: str) -> None:
    q, k, v = _qkv(device, E=16)
    default = mF.scaled_dot_product_attention(q, k, v).cpu().numpy()
    explicit = mF.scaled_dot_product_attention(q, k, v, scale=0.25).cpu().numpy()
    np.testing.assert_allclose(default, explicit, rtol=1e-6)
    other = mF.scaled_dot_product_attention(q, k, v, scale=1.0).cpu().numpy()
    assert not np.allclose(default, other)


def test_sdpa_dropout_is_seeded_and_changes_the_weights(device: str) -> None:
    q, k, v = _qkv(device)
    plain = mF.scaled_dot_product_attention(q, k, v).cpu().numpy()
    microtorch.manual_seed(1)
    a = mF.scaled_dot_product_attention(q, k, v, dropout_p=0.5).cpu().numpy()
    microtorch.manual_seed(1)
    b = mF.scaled_dot_product_attention(q, k, v, dropout_p=0.5).cpu().numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, plain)


def test_sdpa_dropout_p_bounds(device: str) -> None:
    q, k, v = _qkv(device)
    assert (mF.scaled_dot_product_attention(q, k, v, dropout_p=1.0).cpu().numpy() == 0).all()
    with pytest.raises(RuntimeError, match="dropout_p has to be between 0 and 1, got -0.5"):
        mF.scaled_dot_product_attention(q, k, v, dropout_p=-0.5)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("dropout_p", [0.0, 0.3])
def test_sdpa_gpu_kernels_equal_the_array_code(device: str, causal: bool, dropout_p: float,
                                               monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """On a GPU, scale, causal mask, softmax and dropout run as one kernel each way; the
    same seed must give what the separate array steps give (same dropout mask included)."""
    if device == "cpu":
        pytest.skip("the fused attention kernels run on CUDA only")
    from microtorch.ops import attention

    results = []
    for fused in (True, False):
        if not fused:
            monkeypatch.setattr(attention, "_fused_on_gpu", lambda scores, mask: False)
        microtorch.manual_seed(3)
        q, k, v = (microtorch.randn(2, 3, 6, 8, device=device, requires_grad=True)
                   for _ in range(3))  # fmt: skip
        out = mF.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p, is_causal=causal)
        (out * microtorch.randn(*out.shape, device=device)).sum().backward()
        results.append([t.detach().cpu().numpy() for t in (out, q.grad, k.grad, v.grad)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_softmax_with_minus_infinity_and_huge_values(device: str) -> None:
    x = microtorch.tensor([[0.0, float("-inf"), 1.0], [1e30, 0.0, -1e30]], device=device)
    p = x.softmax(-1).cpu().numpy()
    assert np.isfinite(p).all()
    np.testing.assert_allclose(p[0], [1 / (1 + np.e), 0.0, np.e / (1 + np.e)], rtol=1e-6)
    np.testing.assert_allclose(p[1], [1.0, 0.0, 0.0])
    logp = x.log_softmax(-1).cpu().numpy()
    assert logp[0, 1] == -np.inf and np.isfinite(logp[1, 0])


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # inf - inf
def test_softmax_rows_with_nan_or_all_minus_infinity_are_nan_like_pytorch(device: str) -> None:
    inf = float("inf")
    x = microtorch.tensor([[1.0, float("nan"), 2.0], [-inf, -inf, -inf], [1.0, 2.0, 3.0]],
                          device=device)  # fmt: skip
    for op in (microtorch.softmax, microtorch.log_softmax):
        out = op(x, -1).cpu().numpy()
        # NaN reaches every output of its row (the CUDA kernel's fmax skips NaN; exp does not)
        assert np.isnan(out[:2]).all(), op.__name__
        assert np.isfinite(out[2]).all(), op.__name__


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # 0 / 0
@pytest.mark.parametrize("weight", [None, [1.0, 2.0, 3.0]], ids=["fused", "class_weights"])
@pytest.mark.parametrize("loss_fn", ["cross_entropy", "nll_loss"])
def test_every_target_ignored_gives_nan_loss_but_zero_gradient_like_pytorch(
    device: str, loss_fn: str, weight: list | None
) -> None:
    """A batch of nothing but padding: the mean is 0 / 0 = nan, but the gradient is 0, so an
    optimizer step after it does not turn every weight into nan."""
    logits = microtorch.tensor([[0.5, 1.0, -1.0], [2.0, 0.0, 1.0]], device=device)
    logits.requires_grad_(True)
    w = None if weight is None else microtorch.tensor(weight, device=device)
    target = microtorch.tensor([-100, -100], device=device)
    loss = getattr(mF, loss_fn)(logits, target, weight=w)
    loss.backward()
    assert np.isnan(loss.item())
    assert logits.grad.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


def test_relu_gradient_stops_at_non_positive_inputs_even_when_nan_or_inf(device: str) -> None:
    """As in PyTorch: relu's backward is 'grad where x > 0, else 0', not grad * (x > 0),
    which would let a nan or inf from further down through as nan."""
    x = microtorch.tensor([-1.0, 2.0, 0.0, float("nan")], device=device, requires_grad=True)
    microtorch.relu(x).backward(
        microtorch.tensor([float("nan"), 1.0, float("inf"), 3.0], device=device)
    )
    assert x.grad.tolist() == [0.0, 1.0, 0.0, 3.0]


def test_split_pieces_lead_to_one_node_whose_backward_joins_their_gradients() -> None:
    """Each piece of a split is a view with a node of its own, and all of them lead to one
    Split node, whose backward puts the pieces' gradients side by side in one array (not
    one zero-filled array of the input's size per piece, added up)."""
    qkv = microtorch.randn(2, 3, 6, requires_grad=True)
    q, k, v = qkv.split(2, dim=2)
    assert np.shares_memory(q.array, qkv.array)
    split_nodes = {id(piece.grad_fn.next_functions[0][0]) for piece in (q, k, v)}
    assert len(split_nodes) == 1
    assert q.grad_fn.name() == "SplitPieceBackward0"
    assert q.grad_fn.next_functions[0][0].name() == "SplitBackward0"
    (q * 2 + v).sum().backward()
    expected = np.concatenate([np.full((2, 3, 2), 2.0), np.zeros((2, 3, 2)), np.ones((2, 3, 2))], 2)
    np.testing.assert_array_equal(qkv.grad.numpy(), expected)


def test_max_over_a_nonempty_dim_of_an_empty_tensor_is_empty(device: str) -> None:
    """As in PyTorch: reducing a (0, 3) tensor over dim 1 gives shape (0,); over dim 0 there
    is no maximum, which is an error."""
    empty = microtorch.zeros(0, 3, device=device)
    assert tuple(empty.amax(dim=1).shape) == (0,)
    values, indices = empty.max(dim=-1)
    assert tuple(values.shape) == tuple(indices.shape) == (0,)
    assert tuple(empty.min(dim=1, keepdim=True).values.shape) == (0, 1)
    with pytest.raises(IndexError, match=r"amax\(\): expected reduction dim 0 to have non-zero"):
        empty.amax(dim=0)
    with pytest.raises(IndexError, match=r"max\(\): expected reduction dim 0 .*shape \(0, 3\)"):
        empty.max(dim=0)


def test_norm_and_std_have_zero_gradient_where_they_are_zero(device: str) -> None:
    """At a zero vector (norm) or equal values (std) the root's derivative is infinite; as
    in PyTorch the gradient there is 0, not the nan of 0 * inf. Elsewhere it is unchanged."""
    rows = np.array([[0.0, 0.0, 0.0], [3.0, 3.0, 3.0], [1.0, -2.0, 2.0]])
    for f in (lambda t: t.norm(dim=1), lambda t: t.norm(p=3, dim=1), lambda t: t.std(dim=1)):
        t = microtorch.tensor(rows, device=device, requires_grad=True)
        f(t).sum().backward()
        grad = t.grad.cpu().numpy()
        assert np.isfinite(grad).all(), grad
        assert (grad[0] == 0).all()
        assert not (grad[2] == 0).all()
    t = microtorch.tensor(rows, device=device, requires_grad=True)
    t.norm(dim=1).sum().backward()
    np.testing.assert_allclose(
        t.grad.cpu().numpy()[1:], rows[1:] / np.linalg.norm(rows[1:], axis=1)[:, None]
    )
    t = microtorch.tensor(rows, device=device, requires_grad=True)
    t.std(dim=1).sum().backward()
    assert (t.grad.cpu().numpy()[1] == 0).all()  # equal values: std 0, gradient 0


def test_comparison_functions_refuse_a_number_first(device: str) -> None:
    """microtorch.lt(0.5, t) is refused with TypeError, as PyTorch's parser refuses it (this
    once returned an array of objects); 0.5 < t still compares."""
    t = microtorch.tensor([0.0, 0.5, 1.0], device=device)
    for compare in (microtorch.lt, microtorch.ge, microtorch.eq):
        with pytest.raises(TypeError, match="argument 'input'"):
            compare(0.5, t)
    assert (0.5 < t).tolist() == [False, False, True]
