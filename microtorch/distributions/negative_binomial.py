"""Negative binomial distribution: failures before ``total_count`` successes."""

from __future__ import annotations

from typing import Any

from .. import functional as F
from .._tensor import Size, Tensor
from ..autograd import grad_mode
from ..nn import functional as nnF
from . import constraints
from .bernoulli import _one_of
from .distribution import Distribution
from .gamma import Gamma
from .poisson import Poisson
from .utils import BinaryProbsLogits, broadcast_all, expand_probs_or_logits


class NegativeBinomial(BinaryProbsLogits, Distribution):
    """NegativeBinomial(total_count=r, probs=p | logits=l): P(k) = C(k + r - 1, k)
    (1 - p)^r p^k for k = 0, 1, ... (p the probability of each failure, as PyTorch's),
    r any positive real. A draw is Poisson(G) with G ~ Gamma(r, (1 - p) / p)."""

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        _one_of(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
            self._param = self.logits
        super().__init__(self._param.shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> NegativeBinomial:
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        expand_probs_or_logits(self, new, batch_shape)
        return self._expanded(new, batch_shape)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.logits.exp()  # r p / (1 - p)

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / (-self.logits).sigmoid()  # r p / (1 - p)^2

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        with grad_mode.no_grad():
            rate = Gamma(self.total_count, (-self.logits).exp(), validate_args=False)
            return Poisson(rate.sample(sample_shape), validate_args=False).sample()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        r = self.total_count
        log_unnormalized = r * nnF.logsigmoid(-self.logits) + value * nnF.logsigmoid(self.logits)
        log_normalization = -(r + value).lgamma() + (1.0 + value).lgamma() + r.lgamma()
        # r + k = 0 (no trials, no failures) has probability 1
        log_normalization = F.where(r + value == 0.0, 0.0, log_normalization)
        return log_unnormalized - log_normalization
