"""Bernoulli distribution: 1 with probability ``probs`` (or sigmoid(``logits``)), else 0."""

from __future__ import annotations

from typing import Any

from .. import functional as F
from .. import random
from .._tensor import Size, Tensor
from ..factories import arange
from ..nn import functional as nnF
from . import constraints
from .exp_family import ExponentialFamily
from .utils import BinaryProbsLogits, broadcast_all, expand_probs_or_logits
from .utils import one_of as _one_of  # noqa: F401 (Categorical, Binomial, ... import it here)


class Bernoulli(BinaryProbsLogits, ExponentialFamily):
    """Bernoulli(probs=p) or Bernoulli(logits=l): P(1) = p = sigmoid(l), P(0) = 1 - p."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        param = self._set_probs_or_logits(probs, logits)
        super().__init__(param.shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Bernoulli:
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = Size(batch_shape)
        expand_probs_or_logits(self, new, batch_shape)
        return self._expanded(new, batch_shape)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        """1 where probs > 1/2, 0 where below, nan at exactly 1/2 (no single mode)."""
        mode = (self.probs >= 0.5).type_as(self.probs)
        return F.where(self.probs == 0.5, float("nan"), mode)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return random.bernoulli(self.probs.detach().expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # log p for value 1 and log(1 - p) for 0: minus the cross-entropy with logits
        return -nnF.binary_cross_entropy_with_logits(logits, value, reduction="none")

    @property
    def _natural_params(self) -> tuple:
        return (self.logits,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.exp().log1p()

    _mean_carrier_measure = 0

    def entropy(self) -> Tensor:
        return nnF.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """[0, 1] along a new first dimension (expanded over the batch when expand)."""
        values = arange(2, dtype=self.probs.dtype, device=self.probs.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
