"""MixtureSameFamily: a Categorical choice among components of one distribution family."""

from __future__ import annotations

from typing import Any

from .. import functional as F
from .._tensor import Size, Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution


class MixtureSameFamily(Distribution):
    """MixtureSameFamily(mixture_distribution, component_distribution): draw k from the
    Categorical mixture_distribution, then x from component k; the components are the
    last batch dimension of component_distribution (a batch of K Normals gives a 1-d
    Gaussian mixture). density: sum_k p_k p_k(x)."""

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: bool | None = None) -> None:  # fmt: skip
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(
                " The Mixture distribution needs to be an  instance of "
                "torch.distributions.Categorical"
            )
        if not isinstance(component_distribution, Distribution):
            raise ValueError(
                "The Component distribution need to be an instance of "
                "torch.distributions.Distribution"
            )
        mixture_batch = tuple(mixture_distribution.batch_shape)
        component_batch = tuple(component_distribution.batch_shape[:-1])
        for size1, size2 in zip(reversed(mixture_batch), reversed(component_batch)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({Size(mixture_batch)}) is not "
                    f"compatible with `component_distribution.batch_shape`"
                    f"({Size(component_batch)})"
                )
        k_mixture = mixture_distribution.logits.shape[-1]
        k_component = component_distribution.batch_shape[-1]
        if k_mixture != k_component:
            raise ValueError(
                f"`mixture_distribution component` ({k_mixture}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({k_component})"
            )
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = k_mixture
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape,
                         validate_args=validate_args)  # fmt: skip

    def expand(self, batch_shape: tuple, _instance: Any = None) -> MixtureSameFamily:
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        batch_shape = Size(batch_shape)
        new._component_distribution = self._component_distribution.expand(
            tuple(batch_shape) + (self._num_component,)
        )
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        return self._expanded(new, batch_shape)

    @constraints.dependent_property()
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    def _weights(self) -> Tensor:
        """The mixture probabilities shaped to broadcast against a component quantity:
        batch_shape + (K,) + one 1 per event dimension."""
        probs = self._mixture_distribution.probs
        pad = len(self._batch_shape) - len(self._mixture_distribution.batch_shape)
        shape = tuple(probs.shape[:-1]) + (1,) * pad + tuple(probs.shape[-1:])
        return probs.reshape(shape + (1,) * self._event_ndims)

    @property
    def mean(self) -> Tensor:
        components = self._component_distribution.mean
        return (self._weights() * components).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        """E[Var(x | k)] + Var(E[x | k]) (the law of total variance)."""
        weights = self._weights()
        dim = -1 - self._event_ndims
        mean_of_variances = (weights * self._component_distribution.variance).sum(dim)
        centred = self._component_distribution.mean - self._pad(self.mean)
        return mean_of_variances + (weights * centred.pow(2)).sum(dim)

    def _pad(self, x: Tensor) -> Tensor:
        """x with a component dimension (of size 1) before its event dimensions."""
        return x.unsqueeze(-1 - self._event_ndims)

    def cdf(self, x: Tensor) -> Tensor:
        cdf_x = self._component_distribution.cdf(self._pad(x))
        return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Tensor) -> Tensor:
        """log sum_k p_k p_k(x), summed in log space: m + log sum_k exp(a_k - m) with
        a_k = log p_k + log p_k(x) and m their largest (finite) value."""
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self._component_distribution.log_prob(self._pad(x))
        terms = log_prob_x + F.log_softmax(self._mixture_distribution.logits, -1)
        top = terms.detach().max(-1, keepdim=True).values
        top = F.where(top.isfinite(), top, 0.0)  # all -inf: log 0 = -inf, not nan
        return top.squeeze(-1) + (terms - top).exp().sum(-1).log()

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """Each draw is component k's draw for k the mixture's draw."""
        sample_shape = Size(sample_shape)
        mix = self._mixture_distribution.sample(sample_shape)  # sample + mixture batch
        components = self._component_distribution.sample(sample_shape)  # ... + (K,) + event
        index_shape = tuple(mix.shape) + (1,) * (1 + self._event_ndims)
        index = mix.reshape(index_shape)
        target = tuple(components.shape)
        dim = len(sample_shape) + len(self._batch_shape)
        index = index.expand(target[:dim] + (1,) + target[dim + 1 :])
        return components.gather(dim, index).squeeze(dim)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}(\n  {self._mixture_distribution!r},\n  "
            f"{self._component_distribution!r})"
        )
