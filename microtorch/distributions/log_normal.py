"""LogNormal: exp of a Normal(loc, scale) draw (written out directly, without transforms)."""

from __future__ import annotations

from typing import Any

from .._tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .normal import Normal


class LogNormal(Distribution):
    """LogNormal(loc, scale): X = exp(Y) with Y ~ Normal(loc, scale); density
    Normal.density(log x) / x for x > 0."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> LogNormal:
        new = self._get_checked_instance(LogNormal, _instance)
        batch_shape = Size(batch_shape)
        new.base_dist = self.base_dist.expand(batch_shape)
        return self._expanded(new, batch_shape)

    @property
    def loc(self) -> Tensor:
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self) -> Tensor:
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """exp(loc + scale * eps): differentiable in loc and scale."""
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_value = value.log()
        # change of variables x = exp(y): p(x) = p_normal(log x) / x
        return self.base_dist.log_prob(log_value) - log_value

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.base_dist.cdf(value.log())

    def icdf(self, value: Tensor) -> Tensor:
        return self.base_dist.icdf(value).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc
