"""HalfCauchy: |X| for X ~ Cauchy(0, scale)."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..factories import as_tensor
from . import constraints
from .cauchy import Cauchy
from .folded import Folded
from .utils import filled


class HalfCauchy(Folded):
    """HalfCauchy(scale): density 2 Cauchy(0, scale).density(x) for x >= 0; its mean and
    variance are infinite."""

    arg_constraints = {"scale": constraints.positive}

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> HalfCauchy:
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    def log_prob(self, value: Any) -> Tensor:
        """Folded's log density, with value taken in scale's dtype and on its device first
        (as PyTorch's HalfCauchy: a float64 value gives float32 for float32 scale); a value
        that is not a tensor fails validation first, as there."""
        if self._validate_args:
            self._validate_sample(value)
        return super().log_prob(as_tensor(value, dtype=self.scale.dtype, device=self.scale.device))

    @property
    def mean(self) -> Tensor:
        return filled(self._extended_shape(), float("inf"), self.scale)

    @property
    def variance(self) -> Tensor:
        return filled(self._extended_shape(), float("inf"), self.scale)
