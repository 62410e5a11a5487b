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


def test_var_and_std_accumulate_in_a_wider_float_as_pytorch() -> None:
    """PyTorch's CPU kernels sum the squares of float32 in float64 and of float16 in float32:
    std([1e30, -1e30, 3]) is a finite 1e30 (the squares would overflow float32), its
    gradient too; var keeps the dtype (and overflows only where the variance itself does)."""
    torch = pytest.importorskip("torch")
    cases = [
        (np.array([1e30, -1e30, 3.0], dtype="float32"), {}),
        (np.array([[3e4, 2.0, -3e4], [1.0, 2.0, 3.0]], dtype="float16"), {"dim": 1}),
        (np.array([1e20, 2.0, -5e19], dtype="float32"), {"correction": 0}),
    ]
    for values, args in cases:
        for name in ("std", "var"):
            got = []
            for lib in (torch, microtorch):
                x = lib.tensor(values, requires_grad=True)
                y = getattr(lib, name)(x, **args)
                y.sum().backward()
                got.append((str(y.dtype).rsplit(".")[-1], y.detach().numpy(), x.grad.numpy()))
            (dtype, value, grad), (want_dtype, want, want_grad) = got[1], got[0]
            assert dtype == want_dtype, name
            np.testing.assert_allclose(value, want, rtol=2e-3, err_msg=name)
            np.testing.assert_allclose(grad, want_grad, rtol=2e-3, atol=1e-6, err_msg=name)
