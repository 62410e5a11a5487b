"""Relaxed (concrete / Gumbel-softmax) one-hot categorical: a differentiable stand-in for a
one-hot draw, sharper as ``temperature`` goes to 0."""

from __future__ import annotations

import math
from typing import Any

from .. import functional as F
from .._tensor import Size, Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs, log_of, standard_uniform


class ExpRelaxedCategorical(Distribution):
    """ExpRelaxedCategorical(temperature, probs | logits): log_softmax((logits + g) / t) for
    g standard Gumbel noise, the log of a RelaxedOneHotCategorical draw; the last dimension
    (K categories) is the event."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        param_shape = self._categorical.param_shape
        super().__init__(param_shape[:-1], param_shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> ExpRelaxedCategorical:
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        return self._expanded(new, batch_shape)

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """log_softmax((logits - log(-log u)) / temperature): differentiable in logits."""
        shape = self._extended_shape(sample_shape)
        u = clamp_probs(standard_uniform(shape, self.logits))
        gumbels = -((-(u.log())).log())
        return F.log_softmax((self.logits + gumbels) / self.temperature, -1)

    def log_prob(self, value: Tensor) -> Tensor:
        """The concrete density of the log-probabilities ``value``: log (K-1)! +
        (K-1) log t + sum_k log_softmax(logits - t value)_k."""
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = math.lgamma(k) + (k - 1) * log_of(self.temperature)
        score = F.log_softmax(logits - value * self.temperature, -1).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """RelaxedOneHotCategorical(temperature, probs | logits): softmax((logits + g) / t) for
    g standard Gumbel noise, a point of the simplex near a corner when t is low."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex  # type: ignore[assignment]
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> RelaxedOneHotCategorical:
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def temperature(self) -> Any:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs
