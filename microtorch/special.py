"""``torch.special``: PyTorch's names for the special functions. Most are ops microtorch
has anyway (``special.expit`` is ``sigmoid``, ``special.gammaln`` is ``lgamma``) or small
compositions of them (ndtr); entr, log_ndtr, ndtri and erfcx, which PyTorch has only here,
are defined here on their own Functions in ``ops/elementwise.py``. Each name is a plain
assignment or a short function, so that stepping into one lands in the op itself.

Left out on purpose: ``logsumexp``, which learners write themselves (see the docs); the
Bessel functions of the first and second kind, zeta, the incomplete gamma functions'
complements and the orthogonal polynomials are not implemented.
"""

from __future__ import annotations

import math
from typing import Any

from . import dtypes as _dtypes
from . import functional as _F
from ._tensor import Tensor
from .ops import elementwise as _elementwise

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


def entr(input: Tensor) -> Tensor:
    """The entropy term -input * log(input) elementwise: 0 at 0, -inf for a negative input."""
    return _elementwise.Entr.apply(_F._float_input(input, "entr"))


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF, Phi(input) = erfc(-input / sqrt(2)) / 2."""
    return _F.mul(_F.erfc(_F.mul(_F._float_input(input, "ndtr"), -_INV_SQRT_2)), 0.5)


def log_ndtr(input: Tensor) -> Tensor:
    """log Phi(input), accurate far into both tails (where Phi underflows or nears 1)."""
    return _elementwise.LogNdtr.apply(_float32_or_64(input, "log_ndtr"))


def ndtri(input: Tensor) -> Tensor:
    """The inverse of Phi: x with Phi(x) = input, for input in [0, 1] (nan outside)."""
    return _elementwise.Ndtri.apply(_float32_or_64(input, "ndtri"))


def erfcx(input: Tensor) -> Tensor:
    """The scaled complementary error function exp(input^2) * erfc(input), without overflow."""
    return _elementwise.Erfcx.apply(_float32_or_64(input, "erfcx"))


def _float32_or_64(input: Tensor, op: str) -> Tensor:
    """_float_input, refusing float16 as PyTorch does for ``op`` (no Half kernel)."""
    x = _F._float_input(input, op)
    if x.dtype is _dtypes.float16:
        raise NotImplementedError(
            f"{op}: not implemented for float16 tensors, as in PyTorch; use .float() first"
        )
    return x


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """exp(input) normalised to sum to 1 along ``dim`` (``dim`` is required here)."""
    return _F.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """log(softmax(input, dim)), computed without overflow (``dim`` is required here)."""
    return _F.log_softmax(input, dim, dtype=dtype)
