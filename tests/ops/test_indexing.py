"""microtorch/ops/indexing.py: ``scatter_at``, the ``ufunc.at`` that the scatter ops use, gives
NumPy's numbers for every dtype on every device, although CuPy's own ``ufunc.at`` refuses
small integer types and compares floats in float32 (tests/fake_cupy copies both limits)."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch.backend import to_numpy, xp_for
from microtorch.ops.indexing import scatter_at

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64"]
# float64 values that float32 cannot hold, NaN, infinities, both zeros, and ties
FLOATS = [1 + 1e-12, -(1 + 1e-12), float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 3.0, 3.0]


def _values(dtype: str, n: int) -> np.ndarray:
    if dtype == "bool":
        return np.arange(n) % 3 == 0
    if dtype.startswith("float"):
        return np.array((FLOATS * n)[:n], dtype=dtype)
    info = np.iinfo(dtype)  # the extremes, so that sums wrap around in the small type
    return np.array(([info.max, info.min, 7, 0, 1] * n)[:n], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ufunc", ["add", "maximum", "minimum"])
def test_scatter_at_matches_numpy_ufunc_at(device: str, ufunc: str, dtype: str) -> None:
    xp = xp_for(microtorch.device(device))
    start = _values(dtype, 4)[::-1].copy()
    rows = np.array([0, 2, 2, 1, 0, 2, 2, 3, 3, 0, 1, 2])  # repeated positions
    values = _values(dtype, rows.size)
    expected = start.copy()
    with np.errstate(all="ignore"):
        getattr(np, ufunc).at(expected, rows, values)
    out = xp.asarray(start)
    with np.errstate(all="ignore"):
        scatter_at(ufunc, out, xp.asarray(rows), xp.asarray(values))
    got = to_numpy(out)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)  # exact, NaN where NumPy has NaN


def test_scatter_at_broadcasts_a_scalar_and_takes_index_tuples(device: str) -> None:
    xp = xp_for(microtorch.device(device))
    out = xp.zeros((2, 3), dtype="int8")
    scatter_at("add", out, (xp.asarray([0, 0, 1]), xp.asarray([2, 2, 0])), 100)
    np.testing.assert_array_equal(to_numpy(out), [[0, 0, -56], [100, 0, 0]])  # 200 wraps


def test_scatter_ops_on_small_dtypes_and_float64_extremes_match_torch(device: str) -> None:
    torch = pytest.importorskip("torch")
    index = [0, 2, 2, 0, 1]

    def run(T, dev):
        kw = {} if dev is None else {"device": dev}
        i = T.tensor(index, **kw)
        x = T.tensor([1 + 1e-12, -2.0, 0.5], dtype=T.float64, **kw)
        src = T.tensor([1 + 2e-12, float("nan"), -3.0, 1.0, -(1 + 1e-12)], dtype=T.float64, **kw)
        small = T.tensor([120, -5, 3], dtype=T.int8, **kw)
        flags = T.tensor([False, False, True], **kw)
        return [
            x.scatter_reduce(0, i, src, "amax"),
            x.scatter_reduce(0, i, src, "amin", include_self=False),
            small.scatter_reduce(0, i, small.new_tensor([100, 1, 2, 9, -1]), "sum"),
            small.scatter_add(0, i, small.new_tensor([100, 1, 2, 9, -1])),
            small.scatter_reduce(0, i, small.new_tensor([100, 1, 2, 9, -1]), "amax"),
            flags.index_put((i,), flags.new_tensor([True, False, True, False, False]), True),
            x.half().scatter_reduce(0, i, src.half(), "amin"),
        ]

    ours = run(microtorch, device)
    for got, want in zip(ours, run(torch, None)):
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
