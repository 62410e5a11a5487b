"""Continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham, 2019)."""

from __future__ import annotations

import math
from typing import Any

from .. import functional as F
from .._tensor import Size, Tensor
from ..nn import functional as nnF
from . import constraints
from .bernoulli import _one_of
from .exp_family import ExponentialFamily
from .utils import (
    broadcast_all,
    clamp_probs,
    expand_probs_or_logits,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
    standard_uniform,
)


class ContinuousBernoulli(ExponentialFamily):
    """ContinuousBernoulli(probs=p | logits=l): density C(p) p^x (1 - p)^(1 - x) on [0, 1],
    with C(p) = 2 atanh(1 - 2p) / (1 - 2p) normalising it (2 at p = 1/2). Near p = 1/2
    (inside ``lims``) the closed forms divide 0 by 0, so there the normaliser, mean and
    variance are their Taylor series in p - 1/2, as PyTorch's."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, probs: Any = None, logits: Any = None, lims: tuple = (0.499, 0.501),
                 validate_args: bool | None = None) -> None:  # fmt: skip
        _one_of(probs, logits)
        if probs is not None:
            (probs_t,) = broadcast_all(probs)
            if validate_args is not None and not bool(
                constraints.unit_interval.check(probs_t).all()
            ):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(probs_t)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        self._lims = lims
        super().__init__(self._param.shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> ContinuousBernoulli:
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        batch_shape = Size(batch_shape)
        new._lims = self._lims
        expand_probs_or_logits(self, new, batch_shape)
        return self._expanded(new, batch_shape)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    def _stable(self) -> Tensor:
        """Where p is outside lims, so that the closed forms are accurate."""
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Tensor:
        """p where stable, else lims[0] (a harmless value for the unused closed form)."""
        return F.where(self._stable(), self.probs, self._lims[0])

    def _cont_bern_log_norm(self) -> Tensor:
        """log C(p) = log |log(1 - p) - log p| - log |1 - 2p|; near 1/2,
        log 2 + (4/3 + 104/45 x) x with x = (p - 1/2)^2."""
        p = self._cut_probs()
        below = F.where(p <= 0.5, p, 0.0)
        above = F.where(p >= 0.5, p, 1.0)
        log_abs_one_minus_2p = F.where(p <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log())
        closed = ((-p).log1p() - p.log()).abs().log() - log_abs_one_minus_2p
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return F.where(self._stable(), closed, taylor)

    @property
    def mean(self) -> Tensor:
        """p / (2p - 1) + 1 / (log(1 - p) - log p); near 1/2, 1/2 + (1/3 + 16/45 x^2) x."""
        p = self._cut_probs()
        closed = p / (2.0 * p - 1.0) + 1.0 / ((-p).log1p() - p.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return F.where(self._stable(), closed, taylor)

    @property
    def variance(self) -> Tensor:
        """p (p - 1) / (1 - 2p)^2 + 1 / (log(1 - p) - log p)^2; near 1/2,
        1/12 - (1/15 - 128/945 x) x with x = (p - 1/2)^2."""
        p = self._cut_probs()
        closed = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + 1.0 / ((-p).log1p() - p.log()).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return F.where(self._stable(), closed, taylor)

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """icdf(u) for u uniform: differentiable in the parameter."""
        u = standard_uniform(self._extended_shape(sample_shape), self.probs)
        return self.icdf(u)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = nnF.binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value: Tensor) -> Tensor:
        """(p^x (1 - p)^(1 - x) + p - 1) / (2p - 1); x itself near p = 1/2; 0 below 0 and
        1 above 1."""
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        closed = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = F.where(self._stable(), closed, value)
        return F.where(value <= 0.0, 0.0, F.where(value >= 1.0, 1.0, inside))

    def icdf(self, value: Tensor) -> Tensor:
        p = self._cut_probs()
        closed = ((-p + value * (2.0 * p - 1.0)).log1p() - (-p).log1p()) / (p.log() - (-p).log1p())
        return F.where(self._stable(), closed, value)

    @property
    def _natural_params(self) -> tuple:
        return (self.logits,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        """log((e^x - 1) / x) of the logit x, by its Taylor series near x = 0 (where
        |x| <= lims - 1/2, as PyTorch's)."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = F.where(outside, x, self._lims[0] - 0.5)
        closed = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return F.where(outside, closed, taylor)

    _mean_carrier_measure = 0

    def entropy(self) -> Tensor:
        log_probs0 = (-self.probs).log1p()
        log_probs1 = self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0
