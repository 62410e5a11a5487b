"""``torch.special``: PyTorch's names for the special functions. Most are ops microtorch
has anyway (``special.expit`` is ``sigmoid``, ``special.gammaln`` is ``lgamma``) or small
compositions of them (ndtr); entr, log_ndtr, ndtri and erfcx, which PyTorch has only here,
are defined here on their own Functions in ``ops/elementwise.py``. Each name is a plain
assignment or a short function, so that stepping into one lands in the op itself.

The Bessel, Airy and Hurwitz zeta functions and the orthogonal polynomials are written on
raw arrays in ``ops/special.py``; like PyTorch's they have no gradient (zeta has one in q),
so they return tensors outside the graph, and they refuse float16 as PyTorch's CPU kernels
do. ``gammainc`` and ``gammaincc`` are igamma and igammac.

Left out on purpose: ``logsumexp``, which learners write themselves (see the docs).
"""

from __future__ import annotations

import math
from typing import Any

from . import dtypes as _dtypes
from . import functional as _F
from ._out import write_out as _write_out
from ._tensor import Tensor
from .backend import xp_of as _xp_of
from .ops import elementwise as _elementwise
from .ops import special as _special

_INV_SQRT_2 = 1 / math.sqrt(2)

# ---------------------------------------------------------------- the same ops, other names
expit = _F.sigmoid  # the logistic function, 1 / (1 + exp(-x))
logit = _F.logit
erf = _F.erf
erfc = _F.erfc
erfinv = _F.erfinv
gammaln = _F.lgamma  # log|Gamma(x)|
digamma = _F.digamma
psi = _F.digamma
polygamma = _F.polygamma  # polygamma(n, input): the n-th derivative of digamma
multigammaln = _F.mvlgamma  # multigammaln(input, p)
xlogy = _F.xlogy
xlog1py = _F.xlog1py
sinc = _F.sinc
round = _F.round  # noqa: A001 (PyTorch's name)
log1p = _F.log1p
expm1 = _F.expm1
exp2 = _F.exp2
i0 = _F.i0  # the modified Bessel functions of the first kind, and their scaled forms
i0e = _F.i0e
i1 = _F.i1
i1e = _F.i1e
gammainc = _F.igamma  # the regularised lower incomplete gamma function P(input, other)
gammaincc = _F.igammac  # its complement Q = 1 - P


def entr(input: Tensor, *, out: Any = None) -> Tensor:
    """The entropy term -input * log(input) elementwise: 0 at 0, -inf for a negative input."""
    return _write_out(_elementwise.Entr.apply(_F._float_input(input, "entr")), out, "entr")


def ndtr(input: Tensor, *, out: Any = None) -> Tensor:
    """The standard normal CDF, Phi(input) = erfc(-input / sqrt(2)) / 2."""
    return _write_out(
        _F.mul(_F.erfc(_F.mul(_F._float_input(input, "ndtr"), -_INV_SQRT_2)), 0.5), out, "ndtr"
    )


def log_ndtr(input: Tensor, *, out: Any = None) -> Tensor:
    """log Phi(input), accurate far into both tails (where Phi underflows or nears 1)."""
    return _write_out(
        _elementwise.LogNdtr.apply(_float32_or_64(input, "log_ndtr")), out, "log_ndtr"
    )


def ndtri(input: Tensor, *, out: Any = None) -> Tensor:
    """The inverse of Phi: x with Phi(x) = input, for input in [0, 1] (nan outside)."""
    return _write_out(_elementwise.Ndtri.apply(_float32_or_64(input, "ndtri")), out, "ndtri")


def erfcx(input: Tensor, *, out: Any = None) -> Tensor:
    """The scaled complementary error function exp(input^2) * erfc(input), without overflow."""
    return _write_out(_elementwise.Erfcx.apply(_float32_or_64(input, "erfcx")), out, "erfcx")


def _array_of(input: Tensor, op: str) -> Any:
    """The raw array of input as a float (integers promoted), float16 refused."""
    return _float32_or_64(input, op).array


def _two_arrays(x: Any, n: Any, op: str) -> tuple:
    """The raw arrays of two operands (tensors or numbers, at least one a tensor) in their
    common floating dtype, promoted as PyTorch's binary ops (float16 refused)."""
    a, b = _F._binary_operands(x, n, op)
    dtype = _array_of(a if isinstance(a, Tensor) else b, op).dtype
    xp = _xp_of(a.array if isinstance(a, Tensor) else b.array)
    return tuple(v.array.astype(dtype) if isinstance(v, Tensor) else xp.asarray(v, dtype=dtype)
                 for v in (a, b))  # fmt: skip


def _float32_or_64(input: Tensor, op: str) -> Tensor:
    """_float_input, refusing float16 as PyTorch does for ``op`` (no Half kernel)."""
    x = _F._float_input(input, op)
    if x.dtype is _dtypes.float16:
        raise NotImplementedError(
            f"{op}: not implemented for float16 tensors, as in PyTorch; use .float() first"
        )
    return x


def softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """exp(input) normalised to sum to 1 along ``dim`` (``dim`` is required here)."""
    return _F.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """log(softmax(input, dim)), computed without overflow (``dim`` is required here)."""
    return _F.log_softmax(input, dim, dtype=dtype)


# ------------------------------------------------------------ Bessel and Airy functions
def _no_grad_out(array: Any, out: Any, op: str) -> Tensor:
    """The array as a result without a gradient (as PyTorch's, these have none), written
    into ``out`` when one is given."""
    return _write_out(_F._no_grad_result(array), out, op)


def bessel_j0(input: Tensor, *, out: Any = None) -> Tensor:
    """The Bessel function of the first kind of order 0, J_0(input)."""
    return _no_grad_out(_special.bessel_jy("j0", _array_of(input, "bessel_j0")), out, "bessel_j0")


def bessel_j1(input: Tensor, *, out: Any = None) -> Tensor:
    """The Bessel function of the first kind of order 1, J_1(input)."""
    return _no_grad_out(_special.bessel_jy("j1", _array_of(input, "bessel_j1")), out, "bessel_j1")


def bessel_y0(input: Tensor, *, out: Any = None) -> Tensor:
    """The Bessel function of the second kind of order 0, Y_0(input) (nan for input < 0)."""
    return _no_grad_out(_special.bessel_jy("y0", _array_of(input, "bessel_y0")), out, "bessel_y0")


def bessel_y1(input: Tensor, *, out: Any = None) -> Tensor:
    """The Bessel function of the second kind of order 1, Y_1(input) (nan for input < 0)."""
    return _no_grad_out(_special.bessel_jy("y1", _array_of(input, "bessel_y1")), out, "bessel_y1")


def modified_bessel_i0(input: Tensor, *, out: Any = None) -> Tensor:
    """The modified Bessel function of the first kind of order 0, I_0 (i0 without a grad)."""
    array = _array_of(input, "modified_bessel_i0")
    return _no_grad_out(_elementwise.bessel_i(array, 0, False), out, "modified_bessel_i0")


def modified_bessel_i1(input: Tensor, *, out: Any = None) -> Tensor:
    """The modified Bessel function of the first kind of order 1, I_1 (i1 without a grad)."""
    array = _array_of(input, "modified_bessel_i1")
    return _no_grad_out(_elementwise.bessel_i(array, 1, False), out, "modified_bessel_i1")


def modified_bessel_k0(input: Tensor, *, out: Any = None) -> Tensor:
    """The modified Bessel function of the second kind of order 0, K_0(input)."""
    array = _array_of(input, "modified_bessel_k0")
    return _no_grad_out(_special.bessel_k(0, array, scaled=False), out, "modified_bessel_k0")


def modified_bessel_k1(input: Tensor, *, out: Any = None) -> Tensor:
    """The modified Bessel function of the second kind of order 1, K_1(input)."""
    array = _array_of(input, "modified_bessel_k1")
    return _no_grad_out(_special.bessel_k(1, array, scaled=False), out, "modified_bessel_k1")


def scaled_modified_bessel_k0(x: Tensor, *, out: Any = None) -> Tensor:
    """exp(x) * K_0(x), which does not underflow for a large input."""
    array = _array_of(x, "scaled_modified_bessel_k0")
    return _no_grad_out(_special.bessel_k(0, array, scaled=True), out, "scaled_modified_bessel_k0")


def scaled_modified_bessel_k1(x: Tensor, *, out: Any = None) -> Tensor:
    """exp(x) * K_1(x), which does not underflow for a large input."""
    array = _array_of(x, "scaled_modified_bessel_k1")
    return _no_grad_out(_special.bessel_k(1, array, scaled=True), out, "scaled_modified_bessel_k1")


def spherical_bessel_j0(x: Tensor, *, out: Any = None) -> Tensor:
    """The spherical Bessel function of the first kind of order 0, sin(x) / x."""
    array = _array_of(x, "spherical_bessel_j0")
    return _no_grad_out(_special.spherical_bessel_j0(array), out, "spherical_bessel_j0")


def airy_ai(x: Tensor, *, out: Any = None) -> Tensor:
    """The Airy function Ai(x), the solution of y'' = x y that decays as x -> inf."""
    return _no_grad_out(_special.airy_ai(_array_of(x, "airy_ai")), out, "airy_ai")


# ------------------------------------------------------------------------------- zeta
def zeta(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """The Hurwitz zeta function zeta(input, other) = sum over k >= 0 of
    (other + k) ** -input, with broadcasting; differentiable in other, as PyTorch."""
    a, b = _F._binary_operands(input, other, "zeta")
    like = _float32_or_64(a if isinstance(a, Tensor) else b, "zeta")
    s, q = (_F.cast(v, like.dtype) if isinstance(v, Tensor)
            else _F._no_grad_result(_xp_of(like.array).asarray(v, dtype=like.array.dtype))
            for v in (a, b))  # fmt: skip
    return _write_out(_special.Zeta.apply(s, q), out, "zeta")


# --------------------------------------------------------------- orthogonal polynomials
def _polynomial(kind: str, x: Any, n: Any, op: str, out: Any) -> Tensor:
    return _no_grad_out(_special.orthogonal_polynomial(kind, *_two_arrays(x, n, op)), out, op)


def chebyshev_polynomial_t(x: Any, n: Any, *, out: Any = None) -> Tensor:
    """The Chebyshev polynomial of the first kind T_n(x) (n truncated to an integer)."""
    return _polynomial("chebyshev_t", x, n, "chebyshev_polynomial_t", out)


def chebyshev_polynomial_u(x: Any, n: Any, *, out: Any = None) -> Tensor:
    """The Chebyshev polynomial of the second kind U_n(x)."""
    return _polynomial("chebyshev_u", x, n, "chebyshev_polynomial_u", out)


def chebyshev_polynomial_v(x: Any, n: Any, *, out: Any = None) -> Tensor:
    """The Chebyshev polynomial of the third kind V_n(x)."""
    return _polynomial("chebyshev_v", x, n, "chebyshev_polynomial_v", out)


def chebyshev_polynomial_w(x: Any, n: Any, *, out: Any = None) -> Tensor:
    """The Chebyshev polynomial of the fourth kind W_n(x)."""
    return _polynomial("chebyshev_w", x, n, "chebyshev_polynomial_w", out)


def shifted_chebyshev_polynomial_t(x: Any, n: Any, *, out: Any = None) -> Tensor:
    """T_n(2x - 1), the Chebyshev polynomial of the first kind shifted to [0, 1]."""
    return _polynomial("shifted_chebyshev_t", x, n, "shifted_chebyshev_polynomial_t", out)


def shifted_chebyshev_polynomial_u(x: Any, n: Any, *, out: Any = None) -> Tensor:
    """U_n(2x - 1), the Chebyshev polynomial of the second kind shifted to [0, 1]."""
    return _polynomial("shifted_chebyshev_u", x, n, "shifted_chebyshev_polynomial_u", out)


def shifted_chebyshev_polynomial_v(x: Any, n: Any, *, out: Any = None) -> Tensor:
    """V_n(2x - 1), the Chebyshev polynomial of the third kind shifted to [0, 1]."""
    return _polynomial("shifted_chebyshev_v", x, n, "shifted_chebyshev_polynomial_v", out)


def shifted_chebyshev_polynomial_w(x: Any, n: Any, *, out: Any = None) -> Tensor:
    """W_n(2x - 1), the Chebyshev polynomial of the fourth kind shifted to [0, 1]."""
    return _polynomial("shifted_chebyshev_w", x, n, "shifted_chebyshev_polynomial_w", out)


def hermite_polynomial_h(x: Any, n: Any, *, out: Any = None) -> Tensor:
    """The physicists' Hermite polynomial H_n(x)."""
    return _polynomial("hermite_h", x, n, "hermite_polynomial_h", out)


def hermite_polynomial_he(x: Any, n: Any, *, out: Any = None) -> Tensor:
    """The probabilists' Hermite polynomial He_n(x)."""
    return _polynomial("hermite_he", x, n, "hermite_polynomial_he", out)


def laguerre_polynomial_l(x: Any, n: Any, *, out: Any = None) -> Tensor:
    """The Laguerre polynomial L_n(x)."""
    return _polynomial("laguerre", x, n, "laguerre_polynomial_l", out)


def legendre_polynomial_p(x: Any, n: Any, *, out: Any = None) -> Tensor:
    """The Legendre polynomial P_n(x)."""
    return _polynomial("legendre", x, n, "legendre_polynomial_p", out)
