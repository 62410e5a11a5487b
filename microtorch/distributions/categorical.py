"""Categorical distribution over 0..K-1 with probabilities ``probs`` (or softmax(logits))
along the last dimension."""

from __future__ import annotations

from typing import Any

from .. import dtypes, random
from .. import functional as F
from .._tensor import Size, Tensor
from ..factories import arange, full
from . import constraints
from .bernoulli import _one_of
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits


class Categorical(Distribution):
    """Categorical(probs=p) or Categorical(logits=l): P(k) = p[..., k] (normalised over
    the last dimension) = softmax(l)[..., k]; the last dimension is the categories, the
    others the batch."""

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        _one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            if not logits.dtype.is_floating_point:  # integer logits: normalised as floats
                logits = logits.to(dtypes.get_default_dtype())
            self.logits = F.log_softmax(logits, -1)  # logits minus their log-sum-exp
            param = self.logits
        self._param = param
        self._num_events = param.shape[-1]
        super().__init__(tuple(param.shape[:-1]), validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Categorical:
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = Size(batch_shape)
        param_shape = tuple(batch_shape) + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        return self._expanded(new, batch_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    def _nan_filled(self) -> Tensor:
        like = self._param
        return full(self._extended_shape(), float("nan"), dtype=like.dtype, device=like.device)

    @property
    def mean(self) -> Tensor:
        return self._nan_filled()  # category labels have no mean

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return self._nan_filled()

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """Category indices (int64) of shape sample_shape + batch_shape."""
        n = Size(sample_shape).numel()
        probs_2d = self.probs.detach().reshape(-1, self._num_events)
        samples_2d = random.multinomial(probs_2d, n, True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = F.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        # -sum p log p; logits of -inf (p = 0) are clamped so that 0 * log 0 counts as 0
        logits = self.logits.clamp(min=dtypes.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """0..K-1 along a new first dimension (expanded over the batch when expand)."""
        values = arange(self._num_events, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
