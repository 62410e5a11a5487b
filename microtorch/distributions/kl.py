"""KL divergence KL(p || q) between two distributions, looked up by their types."""

from __future__ import annotations

from collections.abc import Callable

from .. import functional as F
from .. import linalg
from .._tensor import Tensor
from ..nn import functional as nnF
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal, batch_mahalanobis, half_log_det
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform
from .utils import sum_rightmost

_KL_REGISTRY: dict = {}


def register_kl(type_p: type, type_q: type) -> Callable:
    """Decorator: ``@register_kl(P, Q)`` makes the function kl_divergence(p, q) for p a P
    and q a Q (the most specific registered pair of base classes is used)."""
    if not (isinstance(type_p, type) and issubclass(type_p, Distribution)):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not (isinstance(type_q, type) and issubclass(type_q, Distribution)):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: Callable) -> Callable:
        _KL_REGISTRY[type_p, type_q] = fun
        return fun

    return decorator


def _dispatch_kl(type_p: type, type_q: type) -> Callable | None:
    """The registered function for the pair nearest to (type_p, type_q) in their MROs."""
    best, best_rank = None, None
    for (super_p, super_q), fun in _KL_REGISTRY.items():
        if issubclass(type_p, super_p) and issubclass(type_q, super_q):
            rank = (type_p.__mro__.index(super_p), type_q.__mro__.index(super_q))
            if best_rank is None or rank < best_rank:
                best, best_rank = fun, rank
    return best


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q) = E_p[log p(x) - log q(x)], one value per batch element;
    NotImplementedError when no formula is registered for the two types."""
    fun = _dispatch_kl(type(p), type(q))
    if fun is None:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p a {type(p).__name__} and q a "
            f"{type(q).__name__}; add one with @register_kl({type(p).__name__}, "
            f"{type(q).__name__})"
        )
    return fun(p, q)


def _inf_where(mask: Tensor, value: Tensor) -> Tensor:
    return F.where(mask, float("inf"), value)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    # p log(p / q) + (1 - p) log((1 - p) / (1 - q)), with log p = logsigmoid(logits);
    # infinite where q gives 0 to what p does not, 0 where p itself is 0
    t1 = p.probs * (nnF.logsigmoid(p.logits) - nnF.logsigmoid(q.logits))
    t1 = F.where(p.probs == 0, 0.0, _inf_where(q.probs == 0, t1))
    t2 = (1 - p.probs) * (nnF.logsigmoid(-p.logits) - nnF.logsigmoid(-q.logits))
    t2 = F.where(p.probs == 1, 0.0, _inf_where(q.probs == 1, t2))
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    a1, b1, a2, b2 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    total1 = a1 + b1
    t1 = a2.lgamma() + b2.lgamma() + total1.lgamma()
    t2 = a1.lgamma() + b1.lgamma() + (a2 + b2).lgamma()
    t3 = (a1 - a2) * a1.digamma()
    t4 = (b1 - b2) * b1.digamma()
    t5 = (a2 + b2 - total1) * total1.digamma()
    return t1 - t2 + t3 + t4 + t5


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    t = _inf_where((q.probs == 0).expand_as(t), t)
    t = F.where((p.probs == 0).expand_as(t), 0.0, t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical,
                                            q: OneHotCategorical) -> Tensor:  # fmt: skip
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _inf_where((q.low > p.low) | (q.high < p.high), result)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    return rate_ratio - 1 - rate_ratio.log()


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    a, b, c, d = p.concentration, p.rate, q.concentration, q.rate
    t1 = c * (b / d).log()
    t2 = c.lgamma() - a.lgamma()
    t3 = (a - c) * a.digamma()
    t4 = (d - b) * (a / b)
    return t1 + t2 + t3 + t4


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    return t1 + t2 + t3 - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p: MultivariateNormal,
                                              q: MultivariateNormal) -> Tensor:  # fmt: skip
    # (tr(Sq^-1 Sp) + (mq - mp)^T Sq^-1 (mq - mp) - n + log det Sq - log det Sp) / 2
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes "
            "cannot be computed"
        )
    p_L, q_L = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    n = p.event_shape[0]
    batch = tuple(F.broadcast_shapes(tuple(q_L.shape[:-2]), tuple(p_L.shape[:-2])))
    q_full = q_L.expand(batch + (n, n))
    p_full = p_L.expand(batch + (n, n))
    trace = linalg.solve_triangular(q_full, p_full, upper=False).pow(2).flatten(-2).sum(-1)
    mahalanobis = batch_mahalanobis(q_L, q.loc - p.loc)
    return half_log_det(q_L) - half_log_det(p_L) + 0.5 * (trace + mahalanobis - n)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError(
            "kl_divergence of two Independent distributions needs the same "
            "reinterpreted_batch_ndims"
        )
    result = kl_divergence(p.base_dist, q.base_dist)
    return sum_rightmost(result, p.reinterpreted_batch_ndims)
