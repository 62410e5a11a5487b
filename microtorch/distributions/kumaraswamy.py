"""Kumaraswamy distribution on (0, 1): a Beta-like family with a closed-form cdf."""

from __future__ import annotations

from typing import Any

from .. import functional as F
from .._tensor import Tensor
from ..factories import full_like
from . import constraints
from .gumbel import EULER_GAMMA
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all


def _moment(a: Tensor, b: Tensor, n: int) -> Tensor:
    """E[X^n] = b B(1 + n / a, b) for X ~ Kumaraswamy(a, b)."""
    arg = 1 + n / a
    return b * (arg.lgamma() + b.lgamma() - (arg + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy(a = concentration1, b = concentration0): density
    a b x^(a-1) (1 - x^a)^(b-1) on (0, 1), cdf 1 - (1 - x^a)^b; built as
    (1 - U^(1/b))^(1/a) for U uniform."""

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval  # type: ignore[assignment]
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(full_like(self.concentration0, 0), full_like(self.concentration0, 1),
                       validate_args=validate_args)  # fmt: skip
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Kumaraswamy:
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Tensor:
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        """((a - 1) / (a b - 1))^(1/a), nan unless a >= 1 and b >= 1."""
        a, b = self.concentration1, self.concentration0
        log_mode = a.reciprocal() * (-a).log1p() - (-a * b).log1p()
        log_mode = F.where((a < 1) | (b < 1), float("nan"), log_mode)
        return log_mode.exp()

    @property
    def variance(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        return _moment(a, b, 2) - _moment(a, b, 1).pow(2)

    def entropy(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        harmonic_b = (b + 1).digamma() + EULER_GAMMA  # the b-th harmonic number
        return (1 - 1 / b) + (1 - 1 / a) * harmonic_b - a.log() - b.log()
