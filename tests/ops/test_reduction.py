"""microtorch/ops/reduction.py: ``running_extreme`` (behind cummax, cummin and mode) gives
NumPy's ``maximum.accumulate`` / ``minimum.accumulate`` on every device, although CuPy's
ufuncs accumulate only add and multiply (tests/fake_cupy refuses the others, as CuPy does)."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch.backend import to_numpy, xp_for
from microtorch.ops.reduction import running_extreme


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float32", "float64"])
@pytest.mark.parametrize("ufunc", ["maximum", "minimum"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_running_extreme_matches_numpy_accumulate(
    device: str, ufunc: str, dtype: str, axis: int
) -> None:
    xp = xp_for(microtorch.device(device))
    rng = np.random.default_rng(0)
    a = rng.integers(-50, 50, size=(5, 13, 2)).astype(dtype)  # 13: not a power of two
    if dtype.startswith("float"):
        a[1, 4, 0] = a[3, 9, 1] = np.nan  # kept from where it first appears
    expected = getattr(np, ufunc).accumulate(a, axis=axis)
    got = to_numpy(running_extreme(xp.asarray(a), axis, ufunc))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_running_extreme_of_short_axes(device: str, n: int) -> None:
    xp = xp_for(microtorch.device(device))
    a = np.arange(n * 3, dtype="float32").reshape(3, n)[:, ::-1]  # non-contiguous too
    got = to_numpy(running_extreme(xp.asarray(a), 1, "minimum"))
    np.testing.assert_array_equal(got, np.minimum.accumulate(a, axis=1))
