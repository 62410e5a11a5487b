"""Edge cases of the torch functions added with the op table's cases (cumprod, cov,
corrcoef, histogram, unique_consecutive, unravel_index, isin, trapezoid, combinations,
the *_scatter and *_copy functions, index_reduce, fill_diagonal_): integer and bool
inputs, 0-d and empty tensors, negative dims and the errors, each against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import microtorch
from microtorch.autograd import gradcheck

torch = pytest.importorskip("torch")


def _same(m, t, atol=1e-12) -> None:
    """Equal values, shape and dtype (or equal tuples of them)."""
    if isinstance(t, (tuple, list)):
        assert isinstance(m, (tuple, list)) and len(m) == len(t)
        for a, b in zip(m, t):
            _same(a, b, atol)
        return
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (m.dtype, t.dtype)
    assert tuple(m.shape) == tuple(t.shape)
    rtol = 1e-6 if t.dtype in (torch.float32, torch.float16) else 1e-7  # a last-bit rounding
    np.testing.assert_allclose(
        m.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True
    )


def _both(values, dtype=None):
    a = np.array(values) if dtype is None else np.array(values, dtype=dtype)
    return microtorch.tensor(a), torch.tensor(a)


def _check(call, *arrays) -> None:
    """call(T, *tensors) gives the same with T = microtorch and T = torch."""
    pairs = [_both(a) for a in arrays]
    _same(call(microtorch, *[m for m, _ in pairs]), call(torch, *[t for _, t in pairs]))


def _raise_alike(call, error, *arrays, match=None) -> None:
    """call raises ``error`` in both libraries."""
    pairs = [_both(a) for a in arrays]
    with pytest.raises(error):
        call(torch, *[t for _, t in pairs])
    with pytest.raises(error, match=match):
        call(microtorch, *[m for m, _ in pairs])


# ------------------------------------------------------------------ cumprod
@pytest.mark.parametrize(
    "values, dim, dtype",
    [([1, 2, 3], 0, None), ([True, True, False], 0, None), ([[1, 2], [3, 4]], -1, None),
     ([1, 2, 3], 0, "float64"), ([1.5, 2.0], 0, "int64"), (3.0, 0, None), (7, -1, None),
     (np.zeros((2, 0)), 1, None), (np.array([1, 2], dtype=np.int8), 0, None)],
)  # fmt: skip
def test_cumprod_dtypes_and_shapes(values, dim, dtype) -> None:
    m, t = _both(values)
    kwargs = {} if dtype is None else {"dtype": dtype}
    m_kwargs = {k: getattr(microtorch, v) for k, v in kwargs.items()}
    t_kwargs = {k: getattr(torch, v) for k, v in kwargs.items()}
    _same(microtorch.cumprod(m, dim, **m_kwargs), torch.cumprod(t, dim, **t_kwargs))
    _same(m.cumprod(dim, **m_kwargs), t.cumprod(dim, **t_kwargs))


def test_cumprod_gradient_with_zeros_anywhere() -> None:
    """Every pattern of zeros in a row of 4 (none, one, two, all), against PyTorch and
    finite differences."""
    rng = np.random.default_rng(0)
    rows = []
    for mask in range(16):
        row = rng.uniform(0.5, 2.0, 4) * rng.choice([-1, 1], 4)
        row[[bool(mask >> k & 1) for k in range(4)]] = 0.0
        rows.append(row)
    a = np.array(rows)
    g = rng.standard_normal(a.shape)
    m, t = microtorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (microtorch.cumprod(m, 1) * microtorch.tensor(g)).sum().backward()
    (torch.cumprod(t, 1) * torch.tensor(g)).sum().backward()
    _same(m.grad, t.grad)
    assert gradcheck(
        lambda v: microtorch.cumprod(v, 1), (microtorch.tensor(a, requires_grad=True),)
    )


def test_cumprod_errors_and_in_place() -> None:
    _raise_alike(lambda T, a: T.cumprod(a, 2), IndexError, [[1.0, 2.0]])
    m, t = _both([1.0, 2.0, 3.0])
    assert m.cumprod_(0) is m
    t.cumprod_(0)
    _same(m, t)
    with pytest.raises(RuntimeError):
        microtorch.cumprod(microtorch.ones(2, requires_grad=True), 0, dtype=microtorch.int64)


# ------------------------------------------------------------------ cov and corrcoef
def test_cov_and_corrcoef_edge_cases() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for values in ([[1, 2, 4], [0, 1, 5]], [1.0], [[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]], 2.5,
                       [1.0, 2.0, 4.0]):  # fmt: skip
            _check(lambda T, a: T.cov(a), values)
            _check(lambda T, a: T.corrcoef(a), values)
        _check(lambda T, a: T.cov(a, correction=5), [[1.0, 2.0, 4.0], [0.0, 1.0, 5.0]])
        _check(lambda T, a: T.cov(a, correction=0), np.zeros((2, 0)))
        weights = [0.5, 1.0, 0.25]  # float32 aweights promote a float16 input's result
        _check(lambda T, a, w: T.cov(a.half(), aweights=w.float()), [[1, 2, 4], [0, 1, 5]], weights)
        _check(lambda T, a, w: T.cov(a, aweights=w.float()), [[1, 2, 4], [0, 1, 5]], weights)
        for values in ([[1.0, 2.0]], [[1, 3, 4]], np.zeros((1, 0))):  # one variable: 0-d
            _check(lambda T, a: T.cov(a), values)
            _check(lambda T, a: T.corrcoef(a), values)
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        microtorch.cov(microtorch.tensor([1.0]))


def test_cov_of_one_row_is_0d_and_weights_keep_their_dtype() -> None:
    # PyTorch squeezes the result, and sums the weights (and the degrees of freedom) in
    # their own dtype: float64 weights make a float64 result, float32 ones round dof
    _check(lambda T, a: (T.cov(a), T.corrcoef(a)), [[1.0, 2.5, 4.0]])
    x = np.array([[-4.8, -7.5, 2.0], [1.0, 0.5, 3.0]])
    for x_type, w_type in (("float32", "float64"), ("float64", "float32")):
        weights = np.array([0.26, 0.37, 0.9], dtype=w_type)
        _grads(
            lambda T, a, w=weights, k=x_type: T.cov(a.to(getattr(T, k)), aweights=T.tensor(w)), x
        )


@pytest.mark.parametrize(
    "kwargs, error",
    [({"fweights": [1.0, 2.0, 1.0]}, "integral dtype"), ({"aweights": [1, 2, 1]}, "floating point"),
     ({"fweights": [1, -2, 1]}, "cannot be negative"), ({"aweights": [1.0, -2.0, 1.0]}, "cannot be negative"),
     ({"fweights": [1, 2]}, "same numel"), ({"fweights": [[1, 2, 1]]}, "one or fewer dimensions")],
)  # fmt: skip
def test_cov_refuses_bad_weights(kwargs, error) -> None:
    x = [[1.0, 2.0, 4.0], [0.0, 1.0, 5.0]]
    m_kwargs = {k: microtorch.tensor(v) for k, v in kwargs.items()}
    t_kwargs = {k: torch.tensor(v) for k, v in kwargs.items()}
    with pytest.raises(RuntimeError, match=error):
        torch.cov(torch.tensor(x), **t_kwargs)
    with pytest.raises(RuntimeError, match=error):
        microtorch.cov(microtorch.tensor(x), **m_kwargs)


def test_cov_refuses_3d_input_and_float_correction() -> None:
    _raise_alike(lambda T, a: T.cov(a), RuntimeError, np.ones((2, 2, 2)), match="two or fewer")
    _raise_alike(lambda T, a: T.cov(a, correction=1.5), TypeError, np.ones((2, 2)))


# ------------------------------------------------------------------ histogram
@pytest.mark.parametrize(
    "values, bins, kwargs",
    [([1.0, 2.0, 1.0, 5.0], 4, {}), ([1.0, 1.0], 2, {}), ([], 3, {}), ([1.0, 2.0, 1.0], 4, {"range": (1.0, 1.0)}),
     ([0.0, 1.0, 10.0, 5.0], [1.0, 5.0, 10.0], {}), ([-3.0, 0.5, 7.0], 2, {"range": (0.0, 4.0)}),
     ([[1.0, 2.0], [3.0, 4.5]], 3, {"density": True}), ([1.0, 2.0, 1.0, 5.0], [0.0, 1.5, 3.0], {"density": True})],
)  # fmt: skip
def test_histogram_matches_pytorch(values, bins, kwargs) -> None:
    for dtype in ("float32", "float64"):
        m, t = _both(values, dtype)
        m_bins = microtorch.tensor(np.array(bins, dtype)) if isinstance(bins, list) else bins
        t_bins = torch.tensor(np.array(bins, dtype)) if isinstance(bins, list) else bins
        m_out, t_out = (
            microtorch.histogram(m, m_bins, **kwargs),
            torch.histogram(t, t_bins, **kwargs),
        )
        _same(tuple(m_out), tuple(t_out), 1e-6)
        assert m_out.hist is m_out[0] and m_out.bin_edges is m_out[1]
        _same(tuple(m.histogram(m_bins, **kwargs)), tuple(t.histogram(t_bins, **kwargs)), 1e-6)


def test_histogram_weights_and_errors() -> None:
    m, t = _both([1.0, 2.0, 1.0, 5.0])
    mw, tw = _both([0.5, 2.0, 3.0, 4.0])
    _same(tuple(microtorch.histogram(m, 3, weight=mw)), tuple(torch.histogram(t, 3, weight=tw)))
    _raise_alike(lambda T, a: T.histogram(a, 3), NotImplementedError, [1, 2])
    _raise_alike(lambda T, a: T.histogram(a, 0), RuntimeError, [1.0, 2.0], match="bins must be > 0")
    _raise_alike(lambda T, a: T.histogram(a, 2, range=(3.0, 1.0)), RuntimeError, [1.0, 2.0])
    _raise_alike(lambda T, a: T.histogram(a, 2), RuntimeError, [1.0, float("nan")], match="finite")
    with pytest.raises(RuntimeError):
        microtorch.histogram(microtorch.ones(2), microtorch.ones(2, dtype=microtorch.float64))


@pytest.mark.parametrize(
    "shape, bins, kwargs",
    [((50, 3), [2, 3, 4], {}), ((50, 2), 3, {"density": True}), ((2, 5, 2), 3, {}),
     ((50, 3), 2, {"range": [-1.0, 1.0, -1.0, 1.0, 0.0, 1.0], "density": True}),
     ((50, 2), "edges", {"weight": True}), ((50, 2), 4, {"weight": True, "density": True}),
     ((0, 2), 2, {}), ((5, 1), [3], {})],
)  # fmt: skip
def test_histogramdd_matches_pytorch(shape, bins, kwargs) -> None:
    rng = np.random.default_rng(0)
    points = rng.standard_normal(shape)
    w = rng.random(shape[:-1])
    for dtype in ("float32", "float64"):
        outs = []
        for T in (microtorch, torch):
            given = dict(kwargs)
            if given.get("weight"):
                given["weight"] = T.tensor(w.astype(dtype))
            b = bins
            if bins == "edges":
                b = [T.tensor(np.array(e, dtype)) for e in ([-1.0, 0.0, 1.0], [-2.0, 0.5, 3.0])]
            outs.append(T.histogramdd(T.tensor(points.astype(dtype)), bins=b, **given))
        mine, theirs = outs
        assert type(mine).__name__ == "histogramdd" and isinstance(mine.bin_edges, tuple)
        _same(mine.hist, theirs.hist, 1e-6)
        _same(mine.bin_edges, theirs.bin_edges, 1e-6)


def test_histogramdd_errors_as_pytorch() -> None:
    _raise_alike(lambda T, a: T.histogramdd(a, bins=[2, 2, 2]), RuntimeError, np.ones((4, 2)),
                 match="size of bins must be equal to the innermost dimension")  # fmt: skip
    _raise_alike(lambda T, a: T.histogramdd(a, bins=2, range=[0.0, 1.0]), RuntimeError,
                 np.ones((4, 2)), match="range should have 4 elements")  # fmt: skip
    _raise_alike(lambda T, a: T.histogramdd(a, bins=2), NotImplementedError, np.ones((4, 2), int))
    _raise_alike(lambda T, a: T.histogramdd(a, bins=2), RuntimeError, np.ones(5),
                 match="at least 2 dimensions")  # fmt: skip
    _raise_alike(lambda T, a: T.histogramdd(a, bins=0), RuntimeError, np.ones((4, 2)),
                 match="bins must be > 0")  # fmt: skip
    _raise_alike(lambda T, a, w: T.histogramdd(a, bins=2, weight=w), RuntimeError,
                 np.ones((4, 2)), np.ones(3), match="excluding its innermost dimension")  # fmt: skip


# ------------------------------------------------------------------ unique_consecutive, unravel_index, isin
@pytest.mark.parametrize(
    "values, dim",
    [([1, 1, 2, 2, 3, 1, 1, 2], None), ([[1, 1], [1, 1], [2, 3]], 0), ([[1, 1, 2], [1, 1, 3]], 1),
     ([[1, 1, 2], [1, 1, 3]], -1), ([[1, 1, 2], [1, 1, 3]], None), (5, None), ([], None),
     ([2.0, 2.0, -1.0], None), ([True, True, False], None),
     (np.zeros(0), -1), (np.zeros((0, 2)), 0), (np.zeros((2, 0)), 1)],  # empty along dim
)  # fmt: skip
def test_unique_consecutive_matches_pytorch(values, dim) -> None:
    m, t = _both(values)
    for inverse, counts in ((False, False), (True, False), (False, True), (True, True)):
        # (by keyword: PyTorch's unique_consecutive reads positional flags wrongly)
        kwargs = {"return_inverse": inverse, "return_counts": counts, "dim": dim}
        _same(microtorch.unique_consecutive(m, **kwargs), torch.unique_consecutive(t, **kwargs))
    _same(
        m.unique_consecutive(return_counts=True, dim=dim),
        t.unique_consecutive(return_counts=True, dim=dim),
    )


def test_unique_consecutive_refuses_empty_slices_as_pytorch() -> None:
    """Along dim, the slices of a tensor empty in another dim would be empty: refused."""
    for shape, dim in (((0, 2), -1), ((0, 0), 0), ((2, 0), 0)):
        _raise_alike(
            lambda T, a, d=dim: T.unique_consecutive(a, dim=d), RuntimeError, np.zeros(shape)
        )


def test_unravel_index_matches_pytorch() -> None:
    _check(lambda T, i: T.unravel_index(i, (2, 3)), [4, 1, 0, 5])
    _check(lambda T, i: T.unravel_index(i, (2, 3)), [-1, -7, 6, 13])  # taken modulo, as PyTorch's
    _check(lambda T, i: T.unravel_index(i, (3, 1, 4)), [[11, 3], [0, 7]])
    _check(lambda T, i: T.unravel_index(i, 4), 3)
    _check(lambda T, i: T.unravel_index(i, ()), 0)
    _check(lambda T, i: T.unravel_index(i, (2, 3)), np.array([], dtype=np.int64))
    _raise_alike(lambda T, i: T.unravel_index(i, (2, 3)), TypeError, [1.0], match="integer dtype")
    with pytest.raises(TypeError):
        microtorch.unravel_index(5, (2, 3))


def test_isin_matches_pytorch() -> None:
    _check(lambda T, a, b: T.isin(a, b), [1, 2, 3], [2, 5])
    _check(lambda T, a, b: T.isin(a, b, invert=True), [[1, 2], [3, 4]], [[2], [4]])
    _check(lambda T, a, b: T.isin(a, b), [1, 2], [2.0])
    _check(lambda T, a, b: T.isin(a, b), [float("nan"), 1.0], [float("nan"), 1.0])
    _check(lambda T, a, b: T.isin(a, b, assume_unique=True), [3, 1], [1, 2])
    _check(lambda T, a: T.isin(a, 2), [1, 2, 2])
    _check(lambda T, b: T.isin(2, b), [2, 3])
    with pytest.raises(RuntimeError):  # PyTorch refuses bools; microtorch compares them
        torch.isin(torch.tensor([True, False]), torch.tensor([True]))
    assert microtorch.isin(
        microtorch.tensor([True, False]), microtorch.tensor([True])
    ).tolist() == [
        True,
        False,
    ]
    _check(lambda T, a, b: T.isin(a, b), np.zeros(0), [1.0])


# ------------------------------------------------------------------ trapezoid, combinations, diagflat, argwhere
def test_trapezoid_edges() -> None:
    _check(lambda T, y: T.trapezoid(y), [1, 2, 3])  # integers: a float result
    _check(lambda T, y: T.trapezoid(y, dx=2), [1, 2, 3])
    _check(lambda T, y: T.trapezoid(y), np.zeros((2, 0)))
    _check(lambda T, y: T.trapezoid(y), [4.0])
    _check(lambda T, y, x: T.trapezoid(y, x), [1.0, 2.0, 4.0], [1, 2, 5])
    _check(lambda T, y, x: T.trapezoid(y, x), np.ones((2, 3)), [[0.0, 1.0, 3.0]])
    _check(lambda T, y, x: T.trapz(y, x), [1.0, 2.0], [0.0, 3.0])
    _raise_alike(lambda T, y, x: T.trapezoid(y, x), RuntimeError, np.ones(3), np.ones(2))
    _raise_alike(lambda T, y: T.trapezoid(y), IndexError, 3.0)
    with pytest.raises(TypeError):
        microtorch.trapezoid(microtorch.ones(3), microtorch.ones(3), dx=2)


def test_combinations_edges() -> None:
    for r, replace in ((0, False), (1, False), (3, False), (2, True), (4, True)):
        _check(lambda T, a, r=r, replace=replace: T.combinations(a, r, replace), [1.5, 2.0, -3.0])
    _check(lambda T, a: T.combinations(a), [1, 2, 3])
    _check(lambda T, a: T.combinations(a, 3), [1, 2])
    _raise_alike(lambda T, a: T.combinations(a), RuntimeError, np.ones((2, 2)), match="1D vector")
    _raise_alike(lambda T, a: T.combinations(a, -1), RuntimeError, np.ones(2), match="non-negative")


def test_diagflat_and_argwhere_edges() -> None:
    for offset in (0, 2, -1):
        _check(lambda T, a, offset=offset: T.diagflat(a, offset), [[1, 2], [3, 4]])
        _check(lambda T, a, offset=offset: T.diagflat(a, offset), np.zeros(0))
        _check(lambda T, a, offset=offset: T.diagflat(a, offset), 5.0)
    for values in (3, 0, [0, 1, 1], [[0.0, 2.0], [1.5, 0.0]], np.zeros((2, 0)), [True, False]):
        _check(lambda T, a: T.argwhere(a), values)
        _check(lambda T, a: a.argwhere(), values)


# ------------------------------------------------------------------ the scatters
def test_select_and_slice_scatter_edges() -> None:
    x, src = np.arange(12.0).reshape(3, 4), np.array([-1.0, -2.0, -3.0])
    _check(lambda T, a, s: T.select_scatter(a, s, 1, -2), x, src)
    _check(lambda T, a, s: T.select_scatter(a, s, -1, 0), x, src)
    _check(lambda T, a, s: T.select_scatter(a, s, 0, 0), [1.0, 2.0], 5.0)  # 1-D input, 0-d src
    _check(lambda T, a, s: T.select_scatter(a, s, 1, 1), np.arange(6).reshape(2, 3), [7.5, 8.5])
    _check(lambda T, a, s: T.slice_scatter(a, s, 1, -3, -1), x, -np.ones((3, 2)))
    _check(lambda T, a, s: T.slice_scatter(a, s, 0, 1, 100), x, -np.ones((2, 4)))
    _check(lambda T, a, s: T.slice_scatter(a, s, 1, 3, 1), x, np.ones((3, 0)))
    _raise_alike(lambda T, a, s: T.select_scatter(a, s, 0, 0), RuntimeError, x, np.ones(3))
    _raise_alike(lambda T, a, s: T.slice_scatter(a, s, 0, 0, 2), RuntimeError, x, np.ones((1, 4)))
    _raise_alike(lambda T, a, s: T.select_scatter(a, s, 0, 3), IndexError, x, np.ones(4))


def test_as_strided_scatter_edges_and_gradient() -> None:
    x = np.arange(12.0).reshape(3, 4)
    _check(lambda T, a, s: T.as_strided_scatter(a, s, (2, 2), (1, 3), 1), x, -np.ones((2, 2)))
    _check(lambda T, a, s: T.as_strided_scatter(a, s, (3,), (4,)), x, [-1.0, -2.0, -3.0])
    _check(lambda T, a, s: T.as_strided_scatter(a.t(), s, (2,), (2,)), x, [-1.0, -2.0])
    _raise_alike(
        lambda T, a, s: T.as_strided_scatter(a, s, (2,), (20,)), RuntimeError, x, [1.0, 2.0]
    )
    _raise_alike(lambda T, a, s: T.as_strided_scatter(a, s, (2,), (1,)), RuntimeError, x, [1.0])
    # PyTorch 2.13's gradient for input is wrong (it fails its own gradcheck: it keeps the
    # gradient inside the view and drops it outside); microtorch's passes gradcheck
    a = microtorch.tensor(np.random.default_rng(0).random((3, 4)), requires_grad=True)
    s = microtorch.tensor(np.random.default_rng(1).random((2, 2)), requires_grad=True)
    assert gradcheck(lambda a, s: microtorch.as_strided_scatter(a, s, (2, 2), (1, 3), 1), (a, s))
    out = microtorch.as_strided_scatter(a, s, (2, 2), (1, 3), 1)
    out.backward(microtorch.ones_like(out))
    assert a.grad.reshape(-1).tolist() == [1.0, 0.0, 0.0, 1.0, 0.0, 0.0] + [1.0] * 6


def test_scatters_cast_src_to_the_dtype_of_input() -> None:
    _check(lambda T, a, s: T.select_scatter(a, s, 0, 1), [[1, 2], [3, 4]], [0.5, 7.9])
    _check(lambda T, a, s: T.slice_scatter(a, s, 1, 0, 1), [[1.0, 2.0]], [[3]])


# ------------------------------------------------------------------ copies, index_reduce, fill_diagonal_
def test_view_copies_own_their_memory() -> None:
    x = microtorch.arange(6.0).reshape(2, 3)
    for copy in (microtorch.transpose_copy(x, 0, 1), microtorch.alias_copy(x),
                 microtorch.narrow_copy(x, 1, 0, 2), microtorch.select_copy(x, 0, 0),
                 microtorch.detach_copy(x), microtorch.view_copy(x, (3, 2)),
                 *microtorch.split_copy(x, 1), *microtorch.unbind_copy(x)):  # fmt: skip
        assert copy.is_contiguous()
        copy.zero_()
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    piece = microtorch.split_with_sizes(x, [1, 1])[0]  # split_with_sizes gives views
    piece.zero_()
    assert x[0].tolist() == [0.0, 0.0, 0.0]
    _check(lambda T, a: T.view_copy(a, T.int32), np.array([1.0, 2.0], dtype=np.float32))
    _check(lambda T, a: T.squeeze_copy(a), np.ones((1, 2, 1)))
    _check(lambda T, a: T.squeeze_copy(a, (0, 2)), np.ones((1, 2, 1)))
    _check(lambda T, a: T.expand_copy(a, (2, -1)), [1, 2])
    assert microtorch.detach_copy(microtorch.ones(2, requires_grad=True)).requires_grad is False
    with pytest.raises(TypeError):
        microtorch.split_with_sizes(x, 1)


def test_index_reduce_edges() -> None:
    _check(lambda T, a, i, s: T.index_reduce(a, 0, i, s, "mean"), [4, 6], [0, 0, 1], [1, 2, 3])
    _check(lambda T, a, i, s: a.index_reduce(0, i, s, "prod", include_self=False), [4.0, 6.0],
           [1, 1], [2.0, 3.0])  # fmt: skip
    _check(lambda T, a, i, s: a.index_reduce(-1, i, s, "amax"), np.zeros((2, 3)), [2, 0],
           [[1.0, -1.0], [-2.0, 3.0]])  # fmt: skip
    for reduce in ("mean", "prod", "amin", "amax"):  # 0-d input and source: one element each
        _check(lambda T, a, i, s, reduce=reduce: T.index_reduce(a, 0, i, s, reduce), 7.8, [0], -5.1)
    _raise_alike(lambda T, a, i, s: T.index_reduce(a, 0, i, s, "mean"), RuntimeError, 7.8, [0],
                 [2.0])  # fmt: skip
    m, t = _both(np.ones((3, 2)))
    mi, ti = _both([0, 0])
    ms, ts = _both(np.full((2, 2), 3.0))
    assert m.index_reduce_(0, mi, ms, "prod") is m
    t.index_reduce_(0, ti, ts, "prod")
    _same(m, t)
    for reduce in ("sum", "max"):
        _raise_alike(lambda T, a, i, s, reduce=reduce: T.index_reduce(a, 0, i, s, reduce), RuntimeError, [1.0],
                     [0], [1.0], match="Expected reduce")  # fmt: skip
    _raise_alike(lambda T, a, i, s: T.index_reduce(a, 0, i, s, "prod"), RuntimeError, [1.0, 2.0],
                 [0, 1], [1.0])  # fmt: skip


def _grads(call, *arrays, g=None) -> None:
    """call(T, *leaves) and every leaf's gradient for the upstream g agree with PyTorch's."""
    results = []
    for T in (microtorch, torch):
        leaves = [T.tensor(np.array(a, dtype=np.float64), requires_grad=True) for a in arrays]
        out = call(T, *leaves)
        upstream = np.arange(1.0, out.numel() + 1).reshape(tuple(out.shape)) if g is None else g
        out.backward(T.tensor(upstream))
        results.append([out] + [leaf.grad for leaf in leaves])
    ours, theirs = results
    assert [g is None for g in ours] == [g is None for g in theirs]
    _same([g for g in ours if g is not None], [g for g in theirs if g is not None])


@pytest.mark.parametrize("include_self", [True, False])
def test_prod_reductions_gradient_at_zeros(include_self: bool) -> None:
    # the product of the other factors, also where some factors are 0 (PyTorch's rule; the
    # gradient was NaN there): one zero at a position, two zeros, a zero in input only
    x = [[0.0, 2.0, 3.0], [4.0, 0.0, 5.0]]
    src = [[0.0, 7.0, 0.0, 2.0], [3.0, 0.0, 6.0, 0.5]]
    where = (
        microtorch.tensor([[0, 0, 1, 2], [1, 1, 1, 2]]),
        torch.tensor([[0, 0, 1, 2], [1, 1, 1, 2]]),
    )
    _grads(lambda T, a, s: a.scatter_reduce(1, where[T is torch], s, "prod",
                                           include_self=include_self), x, src)  # fmt: skip
    index = microtorch.tensor([0, 0, 2, 1]), torch.tensor([0, 0, 2, 1])
    _grads(lambda T, a, s: a.index_reduce(1, index[T is torch], s, "prod",
                                         include_self=include_self), x, src)  # fmt: skip


def test_index_fill_value_gradient_counts_a_repeated_index_once() -> None:
    index = microtorch.tensor([1, 1, 0]), torch.tensor([1, 1, 0])
    _grads(lambda T, a, v: a.index_fill(1, index[T is torch], v), np.ones((2, 3)), 2.0)


def test_cat_gives_a_left_out_empty_tensor_an_empty_gradient() -> None:
    # a 1-D empty tensor beside 2-D ones is not joined, but stays in the graph as in PyTorch
    _grads(lambda T, e, b: T.cat([e, b, e]), [], np.ones((2, 3)))
    _grads(lambda T, e, b: T.cat([b, e], dim=1), [], np.ones((2, 3)))


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_gradient_for_q(name: str) -> None:
    # linear: d out / d q = (above - below) * (count - 1); a row holding nan (quantile), a
    # 0-d input (one value) and the other interpolations give q no gradient (zeros / None)
    rows = [[1.0, 5.0, 2.0, 8.0], [1.0, float("nan"), 3.0, 4.0]]
    _grads(lambda T, a, q: getattr(T, name)(a, q, dim=1), rows, [0.3, 0.6])
    _grads(lambda T, a, q: getattr(T, name)(a, q, dim=0, keepdim=True), 3.0, [0.2, 0.7])
    _grads(lambda T, a, q: getattr(T, name)(a, q), [4.0, 1.0, 2.0], 0.25)
    _grads(lambda T, a, q: getattr(T, name)(a, q, interpolation="lower"), [4.0, 1.0], [0.5])


@pytest.mark.parametrize(
    "shape, wrap", [((3, 3), False), ((7, 3), True), ((7, 3), False), ((3, 7), True), ((3, 3, 3), False),
                    ((2, 5), False), ((0, 3), False), ((4, 4), True), ((1, 1), False)],
)  # fmt: skip
def test_fill_diagonal_matches_pytorch(shape, wrap) -> None:
    a = np.arange(np.prod(shape), dtype=float).reshape(shape)
    m, t = microtorch.tensor(a), torch.tensor(a)
    assert m.fill_diagonal_(-1.0, wrap) is m
    t.fill_diagonal_(-1.0, wrap)
    _same(m, t)


def test_fill_diagonal_errors_dtype_and_gradient() -> None:
    _raise_alike(lambda T, a: a.fill_diagonal_(1), RuntimeError, [1.0, 2.0], match="larger than 1")
    _raise_alike(
        lambda T, a: a.fill_diagonal_(1), RuntimeError, np.ones((2, 3, 2)), match="equal length"
    )
    m, t = _both([[1, 1, 1], [1, 1, 1]])
    m.fill_diagonal_(2.7)
    t.fill_diagonal_(2.7)
    _same(m, t)
    a = np.arange(9.0).reshape(3, 3)
    for T in (microtorch, torch):
        x = T.tensor(a, requires_grad=True)
        y = x * 1
        y.fill_diagonal_(0.0)
        (y * T.tensor(a)).sum().backward()
        assert x.grad.tolist() == (a * (1 - np.eye(3))).tolist()


def test_clone_to_contiguous_format_always_copies() -> None:
    """(The *_copy functions rely on it; it once returned a contiguous input itself.)"""
    x = microtorch.arange(6.0).reshape(2, 3)
    for fmt in (microtorch.contiguous_format, microtorch.preserve_format):
        c = x.clone(memory_format=fmt)
        assert c.data_ptr() != x.data_ptr()
        c.zero_()
        assert x.sum().item() == 15.0


def test_new_functions_run_on_every_device(device) -> None:
    """The ops without an op-table case, on CUDA too (CuPy arrays in, CuPy arrays out)."""
    x = microtorch.tensor([[1.0, 1.0, 2.0], [0.0, 3.0, 3.0]], device=device)
    hist, edges = microtorch.histogram(x, 3)
    assert hist.device.type == edges.device.type == device
    assert hist.tolist() == [1.0, 2.0, 3.0]
    assert microtorch.isin(x, microtorch.tensor([3.0], device=device)).sum().item() == 2
    values, counts = microtorch.unique_consecutive(x, return_counts=True)
    assert values.tolist() == [1.0, 2.0, 0.0, 3.0] and counts.tolist() == [2, 1, 1, 2]
    rows, cols = microtorch.unravel_index(microtorch.tensor([4, 5], device=device), (2, 3))
    assert rows.tolist() == [1, 1] and cols.tolist() == [1, 2] and rows.device.type == device
    assert microtorch.argwhere(x).shape == (5, 2)
    y = x.clone()
    y.fill_diagonal_(9.0)
    assert y.tolist() == [[9.0, 1.0, 2.0], [0.0, 9.0, 3.0]]
    assert microtorch.cumprod(x, 1).tolist() == [[1.0, 1.0, 2.0], [0.0, 0.0, 0.0]]
    assert microtorch.hann_window(4, device=device).device.type == device
    assert microtorch.empty_strided((2, 3), (1, 2), device=device).stride() == (1, 2)
    assert microtorch.empty_permuted((2, 3), (1, 0), device=device).stride() == (1, 2)
    assert microtorch.scalar_tensor(2, device=device).device.type == device
    z = microtorch.as_strided_scatter(x, microtorch.zeros(2, device=device), (2,), (4,))
    assert z.tolist() == [[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]]
    assert microtorch.select_scatter(x, microtorch.zeros(3, device=device), 0, 0)[0].sum() == 0
    assert microtorch.transpose_copy(x, 0, 1).device.type == device
