"""OneHotCategorical: a Categorical whose draws are one-hot vectors of length K."""

from __future__ import annotations

from typing import Any

from .._tensor import Size, Tensor
from ..nn import functional as nnF
from . import constraints
from .categorical import Categorical
from .distribution import Distribution


class OneHotCategorical(Distribution):
    """OneHotCategorical(probs=p) or (logits=l): the one-hot vector of a Categorical draw;
    event_shape is (K,)."""

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        self._categorical = Categorical(probs, logits)
        param_shape = self._categorical.param_shape
        super().__init__(param_shape[:-1], param_shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> OneHotCategorical:
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        return self._expanded(new, batch_shape)

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        return nnF.one_hot(probs.argmax(-1), probs.shape[-1]).type_as(probs)

    @property
    def variance(self) -> Tensor:
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """One-hot vectors of shape sample_shape + batch_shape + (K,), in probs' dtype."""
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return nnF.one_hot(indices, probs.shape[-1]).type_as(probs)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1).indices)

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The K one-hot vectors along a new first dimension."""
        n = self._event_shape[0]
        values = nnF.one_hot(self._categorical.enumerate_support(False).reshape(-1), n)
        values = values.type_as(self._param).reshape((n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand((n,) + tuple(self._batch_shape) + (n,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A OneHotCategorical whose rsample is the one-hot draw in the forward pass and has
    the gradient of probs in the backward one (the straight-through estimator)."""

    has_rsample = True

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """draw + (probs - probs.detach()): the draw's value, probs' gradient."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
