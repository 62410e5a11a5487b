"""Gamma distribution with shape ``concentration`` and inverse scale ``rate``."""

from __future__ import annotations

from typing import Any

from .. import backend, dtypes, random
from .. import functional as F
from .._tensor import Size, Tensor
from ..factories import as_tensor
from ..ops import elementwise
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, host_draws


class Gamma(ExponentialFamily):
    """Gamma(concentration a, rate b): density b^a x^(a-1) e^(-b x) / Gamma(a) for x > 0.

    Draws come from the host generator's gamma sampler (Marsaglia and Tsang's method)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Gamma:
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        return self._expanded(new, batch_shape)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """g / rate for g a standard gamma draw of the concentration: differentiable in the
        rate directly and in the concentration through dg/da at g's fixed quantile
        (implicit reparameterisation, as PyTorch's)."""
        shape = tuple(self._extended_shape(sample_shape))
        a = self.concentration.expand(shape)
        g = random._rng(None).standard_gamma(backend.to_numpy(a.detach().array), size=shape)
        tiny = dtypes.finfo(a.dtype).tiny
        g = g.clip(min=tiny)  # (size=: an array even for 0-d parameters, where NumPy would
        # return a float)
        g = elementwise.StandardGammaSample.apply(a, host_draws(g, a))
        x = g / self.rate.expand(shape)
        # never below tiny (a large rate can take g / rate under it, to 0), as PyTorch: the
        # values are raised there, the gradient is still that of g / rate
        return x + (x.detach().clamp(min=tiny) - x.detach())

    def log_prob(self, value: Any) -> Tensor:
        """log density at ``value``: a tensor or number, taken in rate's dtype and on its
        device first (as PyTorch's Gamma does; a float64 value gives float32 here)."""
        value = as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration, self.rate
        return F.xlogy(a, b) + F.xlogy(a - 1, value) - b * value - a.lgamma()

    def cdf(self, value: Tensor) -> Tensor:
        """P(concentration, rate * value), the regularised incomplete gamma function."""
        if self._validate_args:
            self._validate_sample(value)
        return F.igamma(self.concentration, self.rate * value)

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()

    _mean_carrier_measure = 0

    def entropy(self) -> Tensor:
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()
