"""Folded: |X| for X with a density symmetric about 0 (HalfNormal, HalfCauchy)."""

from __future__ import annotations

import math
from typing import Any

from .. import functional as F
from .._tensor import Tensor
from ..factories import zeros_like
from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform


class Folded(TransformedDistribution):
    """|X| for X ~ base (symmetric about 0, with a ``scale``): both halves of the base fold
    onto [0, inf), so the density doubles there, cdf(x) = 2 F(x) - 1 and the entropy
    drops by log 2."""

    support = constraints.nonnegative  # type: ignore[assignment]
    has_rsample = True

    def __init__(self, base: Distribution, validate_args: bool | None = None) -> None:
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.scale)

    def log_prob(self, value: Tensor) -> Tensor:
        """The base's log density plus log 2 on [0, inf)."""
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return F.where(value >= 0, log_prob, float("-inf"))

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Any) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)
