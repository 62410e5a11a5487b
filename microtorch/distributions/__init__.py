"""Probability distributions with sampling, log-densities and KL divergences, as
``torch.distributions``: ``Normal(loc, scale).log_prob(x)``, ``.rsample()`` for
reparameterised (differentiable) draws, ``kl_divergence(p, q)``. Every draw comes from
microtorch's seeded host generator, so a seeded program draws the same on CPU and GPU."""

from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Distribution",
    "Exponential",
    "Gamma",
    "Independent",
    "Laplace",
    "LogNormal",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Poisson",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
