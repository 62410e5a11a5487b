"""Poisson distribution with mean ``rate``."""

from __future__ import annotations

from typing import Any

from .. import backend, random
from .. import functional as F
from .._tensor import Size, Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, host_draws


class Poisson(ExponentialFamily):
    """Poisson(rate): P(k) = rate^k e^(-rate) / k! for k = 0, 1, 2, ..."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Poisson:
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        return self._expanded(new, batch_shape)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """Counts (in rate's dtype) from the host generator."""
        shape = tuple(self._extended_shape(sample_shape))
        lam = backend.to_numpy(self.rate.detach().expand(shape).array)
        return host_draws(random._rng(None).poisson(lam), self.rate)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return F.xlogy(value, rate) - rate - (value + 1).lgamma()  # log(rate^k e^-rate / k!)

    @property
    def _natural_params(self) -> tuple:
        return (self.rate.log(),)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.exp()
