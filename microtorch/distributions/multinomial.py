"""Multinomial distribution: category counts in ``total_count`` categorical trials."""

from __future__ import annotations

from typing import Any

from .. import functional as F
from .._tensor import Size, Tensor
from ..factories import tensor
from ..nn import functional as nnF
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all


class Multinomial(Distribution):
    """Multinomial(total_count=n, probs | logits): P(x) = n! / prod_k x_k! prod_k p_k^x_k
    for counts x summing to n; the last dimension (K categories) is the event. Sampling
    and log_prob need one total_count (an int) for the whole batch."""

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }

    def __init__(self, total_count: int = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Multinomial:
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = self._binomial.expand(tuple(batch_shape) + tuple(self._event_shape))
        return self._expanded(new, batch_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.multinomial(self.total_count)

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
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """Counts (in probs' dtype): total_count categorical draws, one-hot and summed."""
        draws = self._categorical.sample((self.total_count,) + tuple(Size(sample_shape)))
        counts = nnF.one_hot(draws, self._event_shape[0]).sum(0)
        return counts.type_as(self.probs)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        # a category of probability 0 drawn 0 times contributes 0 (not 0 * -inf = nan)
        logits = F.where((value == 0) & (logits == float("-inf")), 0.0, logits)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

    def entropy(self) -> Tensor:
        """n H(categorical) - log n! + sum_k E[log x_k!], each x_k Binomial(n, p_k)."""
        n = self.total_count
        support = self._binomial.enumerate_support()  # (n + 1,) + batch + (K,)
        binomial_probs = self._binomial.log_prob(support).exp()
        weights = (support + 1).lgamma()
        log_factorial_n = tensor(float(n + 1), dtype=self.probs.dtype).lgamma().item()
        expected = (binomial_probs * weights).sum(0).sum(-1)
        return n * self._categorical.entropy() - log_factorial_n + expected
