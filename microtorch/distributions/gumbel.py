"""Gumbel (type-I extreme value) distribution with location ``loc`` and scale ``scale``."""

from __future__ import annotations

import math
from typing import Any

from .. import dtypes
from .._tensor import Size, Tensor
from ..factories import full_like
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all

EULER_GAMMA = 0.57721566490153286061


class Gumbel(TransformedDistribution):
    """Gumbel(loc, scale): cdf exp(-exp(-(x - loc) / scale)). Built, as PyTorch's, as
    loc - scale log(-log u) for u uniform in (0, 1): the transforms log, negate, log,
    and x -> loc - scale x."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real  # type: ignore[assignment]

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = dtypes.finfo(self.loc.dtype)
        base = Uniform(full_like(self.loc, finfo.tiny), full_like(self.loc, 1 - finfo.eps),
                       validate_args=validate_args)  # fmt: skip
        transforms = [
            ExpTransform().inv,
            AffineTransform(loc=0, scale=-full_like(self.loc, 1.0)),
            ExpTransform().inv,
            AffineTransform(loc=self.loc, scale=-self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Gumbel:
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(Size(batch_shape))
        new.scale = self.scale.expand(Size(batch_shape))
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    def log_prob(self, value: Tensor) -> Tensor:
        """-(z + exp(-z)) - log scale with z = (value - loc) / scale, written directly
        (the transforms' chain would lose accuracy in the tails)."""
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * EULER_GAMMA

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + EULER_GAMMA)
