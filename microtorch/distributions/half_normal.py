"""HalfNormal: |X| for X ~ Normal(0, scale)."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from . import constraints
from .folded import Folded
from .normal import Normal


class HalfNormal(Folded):
    """HalfNormal(scale): density 2 Normal(0, scale).density(x) for x >= 0."""

    arg_constraints = {"scale": constraints.positive}

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Normal(0, scale, validate_args=False), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> HalfNormal:
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (1 - 2 / math.pi)
