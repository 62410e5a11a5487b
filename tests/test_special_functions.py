"""The Bessel, Airy and Hurwitz zeta functions, the orthogonal polynomials and the
incomplete gamma complement's methods (microtorch/ops/special.py, igammac; its values are
checked with igamma's in test_elementwise_math.py) against PyTorch and,
where PyTorch's own float64 values are loose (J0, J1, Y0, Y1, Ai are off by up to ~1e-5
there), against mpmath: on grids through the hard regions (the switch points of each
method, zeros of the oscillating functions, large arguments), at the edge values, and for
the dtype rules."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import microtorch
from microtorch import special

INF, NAN = float("inf"), float("nan")
ONE_ARGUMENT = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
                "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
                "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
                "airy_ai"]  # fmt: skip
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]  # fmt: skip
OSCILLATING = {"bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"}
# grid: both sides of every switch (1 and 20 for J/Y, 1 for K, -10.5 and 0.5 for Ai), the
# first zeros of J0 and Ai, tiny and large arguments
GRID = np.concatenate([
    np.linspace(-40, 40, 801) + 1e-3, np.geomspace(1e-200, 1e4, 120), -np.geomspace(1e-200, 1e4, 120),
    [0.99999999, 1.0, 1.00000001, 19.99999, 20.0, 20.00001, 2.404825557695773, 5.520078110286311,
     -2.338107410459767, -10.50001, -10.5, -10.49999, 0.49999, 0.5, 0.50001, 1e6],
])  # fmt: skip


def _mpmath_reference(name: str, v: float) -> float:
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 30
    z = mp.mpf(v)
    if name.startswith("bessel_j"):
        return float(mp.besselj(int(name[-1]), z))
    if name == "airy_ai":
        return float(mp.airyai(z))
    if v <= 0:
        return NAN if v < 0 or name.startswith("bessel_y") else INF
    if name.startswith("bessel_y"):
        return float(mp.bessely(int(name[-1]), z))
    k = mp.besselk(int(name[-1]), z)
    return float(k * mp.exp(z) if name.startswith("scaled") else k)


def _amplitude(name: str, x: np.ndarray) -> np.ndarray:
    """A lower bound of the local amplitude: J and Y ~ sqrt(2 / (pi |x|)), Ai(-z) ~
    z^(-1/4) / sqrt(pi); 0 for the functions that do not oscillate."""
    if name not in OSCILLATING:
        return np.zeros_like(x)
    if name == "airy_ai":
        return 0.5 * np.maximum(np.abs(x), 1) ** -0.25 * (x < 0)
    return 0.25 / np.sqrt(np.maximum(np.abs(x), 1))


@pytest.mark.parametrize("name", sorted(OSCILLATING | {n for n in ONE_ARGUMENT if "_k" in n}))
def test_matches_mpmath_on_a_wide_grid(name: str) -> None:
    """About 1e-15 (K: of the value; J, Y, Ai: of the local amplitude ~ |x|^(-1/2), so that
    the zeros are not expected to hold relative digits). Ai at -1e4 is excluded: its phase
    (2/3) |x|^(3/2) ~ 7e5 alone carries a 1e-10 rounding error (and at -40 one of 3e-14)."""
    grid = GRID[~((name == "airy_ai") & (GRID < -1e3))]
    reference = np.array([_mpmath_reference(name, v) for v in grid])
    ours = getattr(special, name)(microtorch.tensor(grid, dtype=microtorch.float64)).numpy()
    scale = np.maximum(np.abs(reference), _amplitude(name, grid))
    with np.errstate(invalid="ignore"):
        error = np.where(ours == reference, 0, np.abs(ours - reference) / scale)
    assert np.array_equal(np.isnan(ours), np.isnan(reference))
    assert np.nanmax(error) < (5e-14 if name == "airy_ai" else 1e-14), grid[np.nanargmax(error)]


@pytest.mark.parametrize("name", ONE_ARGUMENT)
def test_matches_pytorch_at_edges_and_on_the_grid(name: str) -> None:
    """The edge values exactly as PyTorch (0, -0, +-inf, nan, negative); the grid to 1e-13
    where PyTorch is accurate, to 2e-5 of the amplitude where it is not (see above)."""
    torch = pytest.importorskip("torch")
    edges = [0.0, -0.0, INF, -INF, NAN, -1.0, -1e-300, 1e-300, 800.0, -800.0]
    ours = getattr(special, name)(microtorch.tensor(edges, dtype=microtorch.float64)).numpy()
    theirs = getattr(torch.special, name)(torch.tensor(edges, dtype=torch.float64)).numpy()
    rtol = 1e-10 if name in OSCILLATING else 1e-13  # (at -800 Ai's phase is ~15000)
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-300, equal_nan=True)
    assert np.array_equal(np.signbit(ours[:2]), np.signbit(theirs[:2])), name
    ours = getattr(special, name)(microtorch.tensor(GRID, dtype=microtorch.float64)).numpy()
    theirs = getattr(torch.special, name)(torch.tensor(GRID, dtype=torch.float64)).numpy()
    if name in OSCILLATING:
        scale = np.maximum(np.abs(theirs), _amplitude(name, GRID))
        with np.errstate(invalid="ignore"):
            error = np.where(ours == theirs, 0, np.abs(ours - theirs) / scale)
        assert np.nanmax(error) < 2e-5
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-300, equal_nan=True)


@pytest.mark.parametrize("name", ONE_ARGUMENT + POLYNOMIALS)
def test_dtypes_shapes_and_no_gradient(name: str) -> None:
    """Integers promote to float32, float32 and float64 stay, float16 is refused (as
    PyTorch's CPU kernels); 0-d and empty tensors keep their shapes; no graph."""
    fn = getattr(special, name)
    call = (lambda t: fn(t, 3)) if name in POLYNOMIALS else fn
    assert call(microtorch.tensor([1, 2])).dtype is microtorch.float32
    assert call(microtorch.tensor([0.5])).dtype is microtorch.float32
    assert call(microtorch.tensor(0.5, dtype=microtorch.float64)).shape == ()
    assert call(microtorch.zeros(0, 3)).shape == (0, 3)
    with pytest.raises(NotImplementedError, match=name):
        call(microtorch.tensor([0.5], dtype=microtorch.float16))
    out = call(microtorch.tensor([0.75], dtype=microtorch.float64, requires_grad=True))
    assert not out.requires_grad
    np.testing.assert_allclose(call(microtorch.tensor([0.75])).numpy(), out.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_match_pytorch(name: str) -> None:
    """Degrees -2 .. 39 and 60, 100 (the angle forms of Chebyshev's above 6 or 8), a whole
    n, n = 2.5 and -0.5 (truncated), nan and +-inf (0); x on [-3, 3], +-1, +-inf. (Not nan:
    there PyTorch's vectorised kernels return other lanes' values; ours give nan.)"""
    torch = pytest.importorskip("torch")
    xs = np.concatenate([np.linspace(-3, 3, 61), [1.0, -1.0, 0.0, INF, -INF, 1 - 1e-12]])
    ns = np.concatenate([np.arange(-2, 40), [2.5, -0.5, NAN, INF, -INF, 60, 100]])
    x, n = (a.ravel() for a in np.meshgrid(xs, ns))
    ours = getattr(special, name)(microtorch.tensor(x), microtorch.tensor(n)).numpy()
    theirs = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    finite = np.isfinite(theirs)
    assert np.array_equal(ours[~finite & ~np.isnan(theirs)], theirs[~finite & ~np.isnan(theirs)])
    # relative, but near a zero against a millionth of the largest |P_n(x)| of that degree
    rows = np.where(np.isfinite(theirs), np.abs(theirs), 0).reshape(len(ns), len(xs))
    scale = np.maximum(np.abs(theirs), 1e-6 * np.repeat(rows.max(axis=1), len(xs)))
    error = np.abs(ours - theirs)[finite] / np.maximum(scale[finite], 1e-300)
    assert error.max() < 1e-10


def test_polynomial_arguments_broadcast_and_promote_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    f, g = special.legendre_polynomial_p, torch.special.legendre_polynomial_p
    x, n = [[0.3], [-0.7]], [0, 1, 2, 5]
    ours = f(microtorch.tensor(x, dtype=microtorch.float64), microtorch.tensor(n))
    theirs = g(torch.tensor(x, dtype=torch.float64), torch.tensor(n))
    assert ours.shape == (2, 4) and ours.dtype is microtorch.float64
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-14)
    assert f(0.5, microtorch.tensor([1, 2])).dtype is microtorch.float32
    assert f(microtorch.tensor([0.5]), microtorch.tensor([2.0], dtype=microtorch.float64)).dtype \
        is microtorch.float64  # fmt: skip
    np.testing.assert_allclose(f(x=microtorch.tensor([0.5]), n=2).numpy(), [-0.125])
    with pytest.raises(TypeError):
        f(0.5, 2)


def test_zeta_matches_pytorch_and_its_gradient_in_q() -> None:
    """Hurwitz zeta over s in [1, 300] and q from 1e-8 to 1e10, negative q (whole s only),
    and PyTorch's values at s <= 1, s = inf, q = 0, -1, inf, nan. The gradient in q is
    -s zeta(s + 1, q); none in s (NotImplementedError, as PyTorch)."""
    torch = pytest.importorskip("torch")
    s = [1.0, 1.0000001, 1.001, 1.5, 2, 2.5, 3, 4.5, 7, 10, 20, 50, 100, 300, 0.5, -1, INF, NAN]
    q = [1.0, 1e-8, 0.001, 0.3, 0.5, 1, 1.5, 2, 5, 9.99, 10, 12.5, 100, 1e5, 1e10, 0, -1, -1.5,
         -2.5, INF, NAN, -INF]  # fmt: skip
    s, q = (a.ravel() for a in np.meshgrid(s, q))
    ours = special.zeta(microtorch.tensor(s), microtorch.tensor(q)).numpy()
    theirs = torch.special.zeta(torch.tensor(s), torch.tensor(q)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=1e-300, equal_nan=True)
    for lib in (microtorch, torch):
        qs = lib.tensor([0.5, 2.0, 30.0], dtype=lib.float64, requires_grad=True)
        lib.special.zeta(lib.tensor([[2.0], [3.5]], dtype=lib.float64), qs).sum().backward()
        if lib is microtorch:
            our_grad = qs.grad.numpy()
        with pytest.raises(NotImplementedError, match="zeta"):
            s_grad = lib.tensor([2.0], dtype=lib.float64, requires_grad=True)
            lib.special.zeta(s_grad, lib.tensor([2.0], dtype=lib.float64)).sum().backward()
    np.testing.assert_allclose(our_grad, qs.grad.numpy(), rtol=1e-13)
    assert special.zeta(2.0, microtorch.tensor([1, 2])).dtype is microtorch.float32
    assert special.zeta(microtorch.tensor([2]), microtorch.tensor([1])).dtype is microtorch.float32
    with pytest.raises(NotImplementedError, match="zeta"):
        special.zeta(microtorch.tensor([2.0], dtype=microtorch.float16), 1.0)


def test_igammac_methods_dtypes_and_errors() -> None:
    a = microtorch.tensor([1.0, 2.5])
    x = microtorch.tensor([[0.5], [4.0]])
    out = a.igammac(x)
    assert out.shape == (2, 2)
    np.testing.assert_allclose((out + a.igamma(x)).numpy(), np.ones((2, 2)), rtol=1e-6)
    np.testing.assert_allclose(out.numpy()[0, 0], np.exp(-0.5), rtol=1e-6)  # Q(1, x) = e^-x
    b = a.clone()
    assert b.igammac_(microtorch.tensor([0.5, 0.5])) is b
    np.testing.assert_allclose(b.numpy(), out.numpy()[0], rtol=1e-6)
    assert special.gammainc is microtorch.igamma and special.gammaincc is microtorch.igammac
    half = microtorch.tensor([2.0], dtype=microtorch.float16)
    assert microtorch.igammac(half, half).dtype is microtorch.float16
    with pytest.raises(NotImplementedError, match="igammac"):  # (PyTorch: not for Long)
        microtorch.igammac(microtorch.tensor([1]), microtorch.tensor([2]))
    with pytest.raises(TypeError):
        microtorch.igammac(a, 2.0)
    assert special.gammaincc(a.double(), a.double()).dtype is microtorch.float64


def test_on_device_matches_cpu(device: str) -> None:
    """Every function here on the device (CUDA, or the fake CuPy) gives the CPU's values, on
    points of every method (series, recurrence, integral, Taylor nodes, asymptotics)."""
    x = np.array([-30.0, -10.7, -3.2, -0.4, 0.0, 0.3, 0.6, 1.5, 7.0, 25.0, NAN, INF])
    n = np.array([0.0, 1.0, 2.0, 3.0, 5.0, 9.0, 12.0, -1.0, 2.5, 4.0, 3.0, 2.0])
    calls = [(name, lambda S, t, u, name=name: getattr(S, name)(t)) for name in ONE_ARGUMENT]
    calls += [
        (name, lambda S, t, u, name=name: getattr(S, name)(t / 20, u)) for name in POLYNOMIALS
    ]
    calls += [("zeta", lambda S, t, u: S.zeta(u.abs() + 1.5, t.abs() + 0.1)),
              ("igammac", lambda S, t, u: microtorch.igammac(u.abs() + 0.5, t.abs()))]  # fmt: skip
    for name, fn in calls:
        results = []
        for dev in ("cpu", device):
            t = microtorch.tensor(x, dtype=microtorch.float64, device=dev)
            u = microtorch.tensor(n, dtype=microtorch.float64, device=dev)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = fn(special, t, u)
            assert out.device == t.device, name
            results.append(out.cpu().numpy())
        np.testing.assert_allclose(results[1], results[0], rtol=1e-12, equal_nan=True, err_msg=name)
