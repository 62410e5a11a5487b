"""Exponential distribution with rate ``rate`` (mean 1 / rate)."""

from __future__ import annotations

from typing import Any

from .. import random
from .._tensor import Size, Tensor
from ..factories import zeros_like
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, host_draws


class Exponential(ExponentialFamily):
    """Exponential(rate): density rate * exp(-rate x) for x >= 0."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Exponential:
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        return self._expanded(new, batch_shape)

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.rate)  # 0 whatever the rate: no gradient, as PyTorch's

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """e / rate with e a standard exponential draw: differentiable in rate."""
        shape = self._extended_shape(sample_shape)
        e = host_draws(random._rng(None).standard_exponential(tuple(shape)), self.rate)
        return e / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Tensor) -> Tensor:
        return -(-value).log1p() / self.rate

    @property
    def _natural_params(self) -> tuple:
        return (-self.rate,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return -(-x).log()

    _mean_carrier_measure = 0

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()
