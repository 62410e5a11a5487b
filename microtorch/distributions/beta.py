"""Beta distribution on [0, 1] with concentrations ``concentration1`` (of x) and
``concentration0`` (of 1 - x)."""

from __future__ import annotations

from typing import Any

from .. import dtypes
from .. import functional as F
from .._tensor import Size, Tensor
from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Beta(ExponentialFamily):
    """Beta(a, b): density x^(a-1) (1 - x)^(b-1) / B(a, b) on [0, 1].

    A draw is the first entry of a Dirichlet([a, b]) draw, g_a / (g_a + g_b) for two gamma
    draws from the host generator; rsample is differentiable in a and b through the gammas'
    implicit reparameterisation (PyTorch differentiates the same draw another way: the
    expected gradient is the same, a single draw's differs)."""

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        c1, c0 = broadcast_all(concentration1, concentration0)
        self._concentrations = (c1, c0)  # not in __dict__ by name: repr is Beta(), as PyTorch
        super().__init__(c1.shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Beta:
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = Size(batch_shape)
        new._concentrations = tuple(c.expand(batch_shape) for c in self._concentrations)
        return self._expanded(new, batch_shape)

    @property
    def concentration1(self) -> Tensor:
        return self._concentrations[0]

    @property
    def concentration0(self) -> Tensor:
        return self._concentrations[1]

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        """(a - 1) / (a + b - 2) with a - 1 and b - 1 clamped at 0: nan when neither exceeds
        1 and one is 1 (Beta(1, 1) is uniform); 1 when both are below 1 (the density is
        infinite at both ends; PyTorch picks 1)."""
        a1 = (self.concentration1 - 1).clamp(min=0)
        b1 = (self.concentration0 - 1).clamp(min=0)
        both_below_one = (self.concentration1 < 1) & (self.concentration0 < 1)
        return F.where(both_below_one, 1.0, a1 / (a1 + b1))

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """The first entry of a Dirichlet([a, b]) rsample, kept strictly inside (0, 1) as
        PyTorch's draws are."""
        concentrations = F.stack(list(self._concentrations), -1)
        x = Dirichlet(concentrations, validate_args=False).rsample(sample_shape).select(-1, 0)
        finfo = dtypes.finfo(x.dtype)
        return x.clamp(min=finfo.tiny, max=1 - finfo.eps)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        log_beta = a.lgamma() + b.lgamma() - (a + b).lgamma()
        return F.xlogy(a - 1, value) + F.xlogy(b - 1, 1 - value) - log_beta

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        return x.lgamma() + y.lgamma() - (x + y).lgamma()

    def entropy(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        total = a + b
        log_beta = a.lgamma() + b.lgamma() - total.lgamma()
        return (
            log_beta - (a - 1) * a.digamma() - (b - 1) * b.digamma() + (total - 2) * total.digamma()
        )
