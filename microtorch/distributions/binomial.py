"""Binomial distribution: successes in ``total_count`` trials of probability ``probs``."""

from __future__ import annotations

from typing import Any

from .. import backend, random
from .._tensor import Size, Tensor
from ..factories import arange
from . import constraints
from .bernoulli import _one_of
from .distribution import Distribution
from .utils import BinaryProbsLogits, broadcast_all, expand_probs_or_logits, host_draws


class Binomial(BinaryProbsLogits, Distribution):
    """Binomial(total_count=n, probs=p | logits=l): P(k) = C(n, k) p^k (1 - p)^(n - k) for
    k = 0..n, p = sigmoid(l)."""

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        _one_of(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
            param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
            param = self.logits
        self._param = param
        super().__init__(param.shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Binomial:
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        expand_probs_or_logits(self, new, batch_shape)
        return self._expanded(new, batch_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """Success counts (in probs' dtype) from the host generator."""
        shape = tuple(self._extended_shape(sample_shape))
        n = backend.to_numpy(self.total_count.detach().expand(shape).array).astype("int64")
        p = backend.to_numpy(self.probs.detach().expand(shape).array)
        return host_draws(random._rng(None).binomial(n, p), self._param)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_binomial = (n + 1).lgamma() - (value + 1).lgamma() - (n - value + 1).lgamma()
        # n log(1 + e^l), written stably as n (max(l, 0) + log1p(e^-|l|)); the mean of
        # the two one-sided clamps gives max(l, 0) the gradient 1/2 at l = 0, as PyTorch
        relu_l = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
        log_normalizer = n * (relu_l + (-logits.abs()).exp().log1p())
        return log_binomial + value * logits - log_normalizer

    def _homogeneous_count(self, op: str) -> int:
        n = int(self.total_count.max().item())
        if not self.total_count.min().item() == n:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{op}`.")
        return n

    def entropy(self) -> Tensor:
        """-sum_k P(k) log P(k) over k = 0..n (one total_count for the whole batch)."""
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self._homogeneous_count("enumerate_support")
        values = arange(1 + n, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
