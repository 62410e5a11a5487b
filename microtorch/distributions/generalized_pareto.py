"""Generalized Pareto distribution with location, scale and shape ``concentration``."""

from __future__ import annotations

from typing import Any

from .. import functional as F
from .._tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, standard_uniform


class GeneralizedPareto(Distribution):
    """GeneralizedPareto(loc, scale, concentration xi): survival function
    (1 + xi z)^(-1/xi) with z = (x - loc) / scale, exp(-z) at xi = 0 (an exponential
    tail). The support is [loc, inf) for xi >= 0 and [loc, loc - scale / xi] for xi < 0;
    the mean needs xi < 1 and the variance xi < 1/2 (nan otherwise, as PyTorch)."""

    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, concentration: Any,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> GeneralizedPareto:
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        return self._expanded(new, batch_shape)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        upper = self.loc - self.scale / self.concentration
        return constraints.interval(self.loc, F.where(self.concentration < 0, upper, float("inf")))

    def _xi_is_zero(self) -> tuple:
        """(where xi is 0 up to isclose, xi with those entries replaced by 1 so that the
        xi != 0 formulas stay finite there)."""
        zero = F.isclose(self.concentration, self.concentration.new_zeros(()))
        return zero, F.where(zero, 1.0, self.concentration)

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """icdf(u) for u uniform: differentiable in all three parameters."""
        return self.icdf(standard_uniform(self._extended_shape(sample_shape), self.loc))

    def log_prob(self, value: Tensor) -> Tensor:
        """-log scale - (1/xi + 1) log(1 + xi z), and -log scale - z at xi = 0."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, xi = self._xi_is_zero()
        power = 1 / xi + 1
        nonzero = F.where(power == 0, power, power * (xi * z).log1p())
        return -self.scale.log() - F.where(zero, z, nonzero)

    def log_survival_function(self, value: Tensor) -> Tensor:
        """log P(X > value): -log(1 + xi z) / xi, and -z at xi = 0."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, xi = self._xi_is_zero()
        return F.where(zero, -z, -(xi * z).log1p() / xi)

    def log_cdf(self, value: Tensor) -> Tensor:
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value: Tensor) -> Tensor:
        return self.log_cdf(value).exp()

    def icdf(self, value: Tensor) -> Tensor:
        """loc + scale ((1 - u)^(-xi) - 1) / xi, and loc - scale log(1 - u) at xi = 0."""
        zero, xi = self._xi_is_zero()
        log_survival = (-value).log1p()
        nonzero = self.loc + self.scale / xi * (-xi * log_survival).expm1()
        return F.where(zero, self.loc - self.scale * log_survival, nonzero)

    @property
    def mean(self) -> Tensor:
        valid = self.concentration < 1
        xi = F.where(valid, self.concentration, 0.5)
        return F.where(valid, self.loc + self.scale / (1 - xi), float("nan"))

    @property
    def variance(self) -> Tensor:
        valid = self.concentration < 0.5
        xi = F.where(valid, self.concentration, 0.25)
        variance = self.scale.pow(2) / ((1 - xi).pow(2) * (1 - 2 * xi))
        return F.where(valid, variance, float("nan"))

    @property
    def mode(self) -> Tensor:
        return self.loc

    def entropy(self) -> Tensor:
        return (self.scale.log() + self.concentration + 1).expand(self._batch_shape)
