"""Dirichlet distribution on the probability simplex, with ``concentration`` alpha."""

from __future__ import annotations

from typing import Any

from .. import backend, dtypes, random
from .. import functional as F
from .._tensor import Size, Tensor
from ..nn import functional as nnF
from ..ops import elementwise
from . import constraints
from .exp_family import ExponentialFamily
from .utils import host_draws


class Dirichlet(ExponentialFamily):
    """Dirichlet(alpha): density prod_k x_k^(alpha_k - 1) / B(alpha) on the simplex; the
    last dimension of concentration is the event (K categories).

    A draw is g / sum(g) for independent Gamma(alpha_k, 1) draws g; rsample gets its
    gradient from the gammas' implicit reparameterisation (PyTorch differentiates the
    Dirichlet draw through another route: the expected gradient is the same, a single
    draw's differs)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = tuple(concentration.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> Dirichlet:
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape) + self._event_shape)
        return self._expanded(new, batch_shape)

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        a = self.concentration.expand(shape)
        g = random._rng(None).standard_gamma(backend.to_numpy(a.detach().array), size=shape)
        g = g.clip(min=dtypes.finfo(a.dtype).tiny)  # none 0 in a's dtype: no 0 / 0 below
        g = elementwise.StandardGammaSample.apply(a, host_draws(g, a))
        x = g / g.sum(-1, keepdim=True)
        return x.clamp(min=dtypes.finfo(x.dtype).tiny)  # never exactly 0, as PyTorch

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return F.xlogy(a - 1.0, value).sum(-1) + a.sum(-1).lgamma() - a.lgamma().sum(-1)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        """(alpha - 1) / sum(alpha - 1) with alpha - 1 clamped at 0; where every alpha is
        below 1 the density is infinite at the corners, and the mode is the one-hot vector
        of the largest alpha (as PyTorch)."""
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, keepdim=True)
        all_below_one = (self.concentration < 1).all(-1, keepdim=True)
        corner = nnF.one_hot(mode.argmax(-1), mode.shape[-1]).type_as(mode)
        return F.where(all_below_one, corner, mode)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        total = a.sum(-1, keepdim=True)
        return a * (total - a) / (total.pow(2) * (total + 1))

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()

    def entropy(self) -> Tensor:
        a = self.concentration
        k = a.shape[-1]
        total = a.sum(-1)
        return (
            a.lgamma().sum(-1)
            - total.lgamma()
            - (k - total) * total.digamma()
            - ((a - 1.0) * a.digamma()).sum(-1)
        )
