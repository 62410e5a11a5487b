"""ExponentialFamily: the base class of distributions with density
exp(<t(x), theta> - A(theta) + k(x)), as torch.distributions.ExponentialFamily."""

from __future__ import annotations

from typing import Any

from .. import autograd
from .._tensor import Tensor
from .distribution import Distribution


class ExponentialFamily(Distribution):
    """A distribution whose log density is <t(x), theta> - A(theta) + k(x) for natural
    parameters theta (``_natural_params``), log normalizer A (``_log_normalizer``) and
    carrier measure k (``_mean_carrier_measure`` is E[k(x)]). With those three a subclass
    gets entropy(), and kl_divergence between two of its members, from the Bregman
    divergence of A: the gradient of A at theta is E[t(x)]."""

    @property
    def _natural_params(self) -> tuple:
        raise NotImplementedError(f"{type(self).__name__} does not define _natural_params")

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not define _log_normalizer")

    @property
    def _mean_carrier_measure(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define _mean_carrier_measure")

    def entropy(self) -> Tensor:
        """A(theta) - <theta, grad A(theta)> - E[k(x)], theta taken as a constant (as
        PyTorch's: no gradient reaches the parameters)."""
        theta = [p.detach().requires_grad_(True) for p in self._natural_params]
        log_normalizer = self._log_normalizer(*theta)
        grads = autograd.grad(log_normalizer.sum(), theta)
        result = log_normalizer.detach() - self._mean_carrier_measure
        for t, g in zip(theta, grads):
            result = result - (t.detach() * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
