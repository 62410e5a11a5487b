"""Relaxed (concrete / Gumbel-softmax) Bernoulli: a differentiable stand-in for a 0/1
draw, sharper as ``temperature`` goes to 0."""

from __future__ import annotations

from typing import Any

from .._tensor import Size, Tensor
from ..nn import functional as nnF
from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import (
    BinaryProbsLogits,
    broadcast_all,
    clamp_probs,
    expand_probs_or_logits,
    log_of,
    standard_uniform,
)


class LogitRelaxedBernoulli(BinaryProbsLogits, Distribution):
    """LogitRelaxedBernoulli(temperature, probs=p | logits=l): (l + logistic noise) /
    temperature, the logit of a RelaxedBernoulli draw; density on the reals."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        self.temperature = temperature
        param = self._set_probs_or_logits(probs, logits)
        super().__init__(param.shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> LogitRelaxedBernoulli:
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        expand_probs_or_logits(self, new, batch_shape)
        return self._expanded(new, batch_shape)

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """(logit(p) + logit(u)) / temperature for u uniform: differentiable in p (and in
        the temperature)."""
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(standard_uniform(shape, probs))
        noise = u.log() - (-u).log1p()  # logistic noise
        return (noise + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Tensor) -> Tensor:
        """log t + d - 2 softplus(d) with d = logits - t value (a logistic density)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return log_of(self.temperature) + diff + 2 * nnF.logsigmoid(-diff)


class RelaxedBernoulli(TransformedDistribution):
    """RelaxedBernoulli(temperature, probs=p | logits=l): sigmoid of a LogitRelaxedBernoulli
    draw, a value in (0, 1) near 1 with probability about p when the temperature is low."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval  # type: ignore[assignment]
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> RelaxedBernoulli:
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
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
