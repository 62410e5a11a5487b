"""``torch.special``: PyTorch's names for the special functions, written as the ops
microtorch already has (``special.expit`` is ``sigmoid``, ``special.gammaln`` is ``lgamma``)
or as small compositions of them. Each name is a plain assignment or a short function, so
that stepping into one lands in the op itself.

Left out on purpose: ``logsumexp`` and ``softplus``-like names are learners' exercises
(docs/exercises); the Bessel functions of the first and second kind, zeta, the incomplete
gamma functions' complements and the orthogonal polynomials are not implemented.
"""

from __future__ import annotations

from typing import Any

from . import functional as _F
from ._tensor import Tensor

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


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """exp(input) normalised to sum to 1 along ``dim`` (``dim`` is required here)."""
    return _F.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """log(softmax(input, dim)), computed without overflow (``dim`` is required here)."""
    return _F.log_softmax(input, dim, dtype=dtype)
