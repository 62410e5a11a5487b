"""Student's t distribution with ``df`` degrees of freedom, location and scale."""

from __future__ import annotations

import math
from typing import Any

from .. import functional as F
from .._tensor import Size, Tensor
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all, standard_normal


class StudentT(Distribution):
    """StudentT(df, loc=0, scale=1): loc + scale * X / sqrt(Z / df) with X standard normal
    and Z ~ Chi2(df); density proportional to (1 + ((x - loc) / scale)^2 / df)^(-(df+1)/2).
    The mean exists for df > 1 (nan otherwise), the variance for df > 2 (inf for
    1 < df <= 2, nan below)."""

    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> StudentT:
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        return self._expanded(new, batch_shape)

    @property
    def mean(self) -> Tensor:
        return F.where(self.df <= 1, float("nan"), self.loc)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        # df / (df - 2) only where df > 2 (elsewhere at df = 3, unused): its gradient at
        # df = 2 would be 0 * inf = nan through the where, where PyTorch's is 0
        df = F.where(self.df > 2, self.df, 3.0)
        finite = self.scale.pow(2) * df / (df - 2)
        m = F.where(self.df > 2, finite, float("inf"))
        return F.where(self.df <= 1, float("nan"), m)

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """loc + scale X / sqrt(Z / df): differentiable in loc and scale, and in df through
        the chi-squared (gamma) draw's implicit reparameterisation."""
        shape = self._extended_shape(sample_shape)
        x = standard_normal(shape, self.df)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * (z / self.df).rsqrt()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        half_df = 0.5 * self.df
        log_norm = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + half_df.lgamma()
            - (half_df + 0.5).lgamma()
        )
        return -(half_df + 0.5) * (y.pow(2) / self.df).log1p() - log_norm

    def entropy(self) -> Tensor:
        half_df = 0.5 * self.df
        log_beta = half_df.lgamma() + 0.5 * math.log(math.pi) - (half_df + 0.5).lgamma()
        return (
            self.scale.log()
            + (half_df + 0.5) * ((half_df + 0.5).digamma() - half_df.digamma())
            + 0.5 * self.df.log()
            + log_beta
        )
