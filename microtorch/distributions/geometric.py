"""Geometric distribution: the number of failures before the first success."""

from __future__ import annotations

from typing import Any

from .. import dtypes
from .. import functional as F
from .._tensor import Size, Tensor
from ..factories import zeros_like
from ..nn import functional as nnF
from . import constraints
from .distribution import Distribution
from .utils import BinaryProbsLogits, broadcast_all, expand_probs_or_logits, standard_uniform


class Geometric(BinaryProbsLogits, Distribution):
    """Geometric(probs=p) or (logits=l): P(k) = (1 - p)^k p for k = 0, 1, 2, ... with
    p = sigmoid(l) the success probability of each trial (p must be positive)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        param = self._set_probs_or_logits(probs, logits)
        super().__init__(param.shape, validate_args=validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):
            value = self.probs
            raise ValueError(
                f"Expected parameter probs ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) of distribution {self!r} to be positive but found "
                f"invalid values:\n{value[~(value > 0)]}"
            )

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Geometric:
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = Size(batch_shape)
        expand_probs_or_logits(self, new, batch_shape)
        return self._expanded(new, batch_shape)

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """floor(log u / log(1 - p)) for u uniform in (0, 1): inverting the cdf."""
        shape = self._extended_shape(sample_shape)
        u = standard_uniform(shape, self.probs, low=dtypes.finfo(self.probs.dtype).tiny)
        return (u.log() / (-self.probs.detach()).log1p()).floor()

    def log_prob(self, value: Tensor) -> Tensor:
        """k log(1 - p) + log p, with 0 * log(0) = 0 where p = 1 and k = 0."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = F.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        bce = nnF.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs
