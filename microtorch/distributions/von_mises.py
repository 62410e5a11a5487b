"""Von Mises distribution: the circular analogue of the normal, on angles."""

from __future__ import annotations

import math
from typing import Any

from .. import backend, random
from .. import functional as F
from .._tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, host_draws


class VonMises(Distribution):
    """VonMises(loc, concentration k): density exp(k cos(x - loc)) / (2 pi I_0(k)) for an
    angle x (any real number, read modulo 2 pi). Draws lie in [-pi, pi] and come from the
    host generator's von Mises sampler (Best and Fisher's rejection method); there is no
    rsample, as in PyTorch. mean and variance are the circular ones.

    log I_0(k) is computed as log(i0e(k)) + k, exactly; PyTorch uses a polynomial
    approximation (Abramowitz and Stegun 9.8.1-2, relative error up to about 2e-7), so
    log_prob and variance agree with PyTorch's to about 1e-7, not to round-off."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Any = None) -> VonMises:
        """The parameters expanded; a subclass with its own __init__ is made anew from them
        by that __init__ (PyTorch's VonMises does this, where other families raise)."""
        batch_shape = Size(batch_shape)
        if _instance is None and type(self).__init__ is not VonMises.__init__:
            validate_args = self.__dict__.get("_validate_args")
            loc, concentration = (
                self.loc.expand(batch_shape),
                self.concentration.expand(batch_shape),
            )
            return type(self)(loc, concentration, validate_args=validate_args)
        new = self._get_checked_instance(VonMises, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        return self._expanded(new, batch_shape)

    def _log_i0(self) -> Tensor:
        """log I_0(k), without overflow for large k."""
        return F.i0e(self.concentration).log() + self.concentration

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        return k * (value - self.loc).cos() - math.log(2 * math.pi) - self._log_i0()

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """Angles in [-pi, pi], in loc's dtype, without gradient."""
        shape = tuple(self._extended_shape(sample_shape))
        loc = backend.to_numpy(self.loc.detach().expand(shape).array).astype("float64")
        k = backend.to_numpy(self.concentration.detach().expand(shape).array).astype("float64")
        return host_draws(random._rng(None).vonmises(loc, k, size=shape), self.loc)

    @property
    def mean(self) -> Tensor:
        return self.loc  # the circular mean

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        """The circular variance 1 - I_1(k) / I_0(k)."""
        k = self.concentration
        return 1 - F.i1e(k) / F.i0e(k)
