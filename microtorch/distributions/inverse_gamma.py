"""Inverse gamma distribution: 1 / X for X ~ Gamma(concentration, rate)."""

from __future__ import annotations

from typing import Any

from .. import functional as F
from .._tensor import Tensor
from ..factories import ones_like
from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform


class InverseGamma(TransformedDistribution):
    """InverseGamma(concentration a, rate b): density b^a x^(-a-1) e^(-b / x) / Gamma(a) for
    x > 0; the mean is infinite for a <= 1, the variance for a <= 2."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive  # type: ignore[assignment]
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -ones_like(base.rate)
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> InverseGamma:
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def concentration(self) -> Tensor:
        return self.base_dist.concentration

    @property
    def rate(self) -> Tensor:
        return self.base_dist.rate

    @property
    def mean(self) -> Tensor:
        a = self.concentration
        return F.where(a > 1, self.rate / (a - 1), float("inf"))

    @property
    def mode(self) -> Tensor:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        return F.where(a > 2, self.rate.pow(2) / ((a - 1).pow(2) * (a - 2)), float("inf"))

    def entropy(self) -> Tensor:
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()
