"""KL divergence KL(p || q) between two distributions, looked up by their types."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

from .. import autograd, linalg
from .. import functional as F
from .._tensor import Tensor
from ..factories import full_like
from ..nn import functional as nnF
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import EULER_GAMMA, Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import (
    LowRankMultivariateNormal,
    lowrank_logdet,
    lowrank_mahalanobis,
)
from .multivariate_normal import MultivariateNormal, batch_mahalanobis, half_log_det
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import sum_rightmost
from .wishart import Wishart, mvdigamma

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
    """The registered function for the pair nearest to (type_p, type_q) in their MROs, p's
    nearness first; a RuntimeWarning (as PyTorch's) when putting q's first picks another."""
    matches = [
        ((type_p.__mro__.index(super_p), type_q.__mro__.index(super_q)), (super_p, super_q))
        for super_p, super_q in _KL_REGISTRY
        if issubclass(type_p, super_p) and issubclass(type_q, super_q)
    ]
    if not matches:
        return None
    p_first = min(matches)[1]
    q_first = min(matches, key=lambda m: (m[0][1], m[0][0]))[1]
    if _KL_REGISTRY[p_first] is not _KL_REGISTRY[q_first]:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please "
            f"register_kl({p_first[0].__name__}, {q_first[1].__name__})",
            RuntimeWarning,
            stacklevel=3,
        )
    return _KL_REGISTRY[p_first]


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


def _infinite_like(value: Tensor) -> Tensor:
    return full_like(value, float("inf"))


def _x_log_x(x: Tensor) -> Tensor:
    return F.xlogy(x, x)  # 0 at x = 0


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    return _kl_normal_normal(p.base_dist, q.base_dist)  # folding both keeps the ratio


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    # log(((s_p + s_q)^2 + (m_p - m_q)^2) / (4 s_p s_q))
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    scale_ratio = p.scale / q.scale
    q_loc, p_loc = q.loc / q.scale, p.loc / q.scale
    t1 = -scale_ratio.log() - q_loc + p_loc
    t2 = scale_ratio * EULER_GAMMA
    t3 = (q_loc + (1 + scale_ratio).lgamma() - p_loc).exp()  # E_p[exp(-(x - m_q) / s_q)]
    return t1 + t2 + t3 - (1 + EULER_GAMMA)


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


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    """n (p log(p / q) + log((1 - p) / (1 - q))) for the same n; infinite where p has more
    trials than q; NotImplementedError where it has fewer (as PyTorch)."""
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented"
        )
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return _inf_where(p.total_count > q.total_count, kl)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    # -H(p) - E_p[k] log(1 - q) - log q, with E_p[k] + 1 = 1 / p
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


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


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    total_p = p.concentration.sum(-1)
    total_q = q.concentration.sum(-1)
    t1 = total_p.lgamma() - total_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - total_p.digamma().unsqueeze(-1)  # E_p[log x_k]
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p: ContinuousBernoulli,
                                                  q: ContinuousBernoulli) -> Tensor:  # fmt: skip
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + (-p.probs).log1p()
    t3 = -q._cont_bern_log_norm() - (-q.probs).log1p()
    return t1 + t2 + t3


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _inf_where((q.low > p.low) | (q.high < p.high), result)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    return rate_ratio - 1 - rate_ratio.log()


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    return _inf_where(p.scale < q.scale, result)  # p puts mass below q's minimum


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


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    """Two members of one exponential family with no pair of their own: the Bregman
    divergence A(theta_q) - A(theta_p) - <theta_q - theta_p, grad A(theta_p)> of the log
    normalizer A (p's natural parameters taken as constants, as PyTorch)."""
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot be "
            "computed using Bregman divergences"
        )
    p_theta = [t.detach().requires_grad_(True) for t in p._natural_params]
    q_theta = q._natural_params
    p_normalizer = p._log_normalizer(*p_theta)
    grads = autograd.grad(p_normalizer.sum(), p_theta)
    result = q._log_normalizer(*q_theta) - p_normalizer.detach()
    for pt, qt, g in zip(p_theta, q_theta, grads):
        result = result - sum_rightmost((qt - pt.detach()) * g, len(q.event_shape))
    return result


@register_kl(Wishart, Wishart)
def _kl_wishart_wishart(p: Wishart, q: Wishart) -> Tensor:
    """Closed form for p = W(n_p, S_p), q = W(n_q, S_q) of p x p matrices (PyTorch gets
    the same from their exponential-family form):
    n_q / 2 (log det S_q - log det S_p) + n_p / 2 (tr(S_q^-1 S_p) - p)
    + log Gamma_p(n_q / 2) - log Gamma_p(n_p / 2) + (n_p - n_q) / 2 psi_p(n_p / 2)."""
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Wisharts with different event shapes cannot be computed"
        )
    p_L, q_L = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    n = p.event_shape[-1]
    batch = tuple(F.broadcast_shapes(tuple(q_L.shape[:-2]), tuple(p_L.shape[:-2])))
    # tr(S_q^-1 S_p) = |L_q^-1 L_p|^2 (Frobenius), as for two MultivariateNormals
    trace = _batch_trace_XXT(
        linalg.solve_triangular(q_L.expand(batch + (n, n)), p_L.expand(batch + (n, n)), upper=False)
    )
    nu_p, nu_q = p.df, q.df
    return (
        nu_q * (half_log_det(q_L) - half_log_det(p_L))
        + nu_p / 2 * (trace - n)
        + F.mvlgamma(nu_q / 2, n)
        - F.mvlgamma(nu_p / 2, n)
        + (nu_p - nu_q) / 2 * mvdigamma(nu_p / 2, n)
    )


def _batch_trace_XXT(X: Tensor) -> Tensor:
    """trace(X X^T) = the sum of X's squared entries, per matrix of a batch."""
    return X.pow(2).flatten(-2).sum(-1)


def _same_event_shape(p: Distribution, q: Distribution) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two (Low Rank) Multivariate Normals with different event "
            "shapes cannot be computed"
        )


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(
    p: LowRankMultivariateNormal, q: LowRankMultivariateNormal
) -> Tensor:
    """(log det Sq - log det Sp + tr(Sq^-1 Sp) + mahalanobis - n) / 2, with Sq^-1 =
    Dq^-1 - A^T A by Woodbury (A = Cq^-1 Wq^T Dq^-1) expanded against Sp = Wp Wp^T + Dp."""
    _same_event_shape(p, q)
    pW, pD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    qW, qD = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    log_dets = lowrank_logdet(qW, qD, q._capacitance_tril) - lowrank_logdet(
        pW, pD, p._capacitance_tril
    )
    mahalanobis = lowrank_mahalanobis(qW, qD, q.loc - p.loc, q._capacitance_tril)
    A = linalg.solve_triangular(q._capacitance_tril, qW.mT / qD.unsqueeze(-2), upper=False)
    trace = (
        (pD / qD).sum(-1)
        + _batch_trace_XXT(pW * qD.rsqrt().unsqueeze(-1))
        - _batch_trace_XXT(A * pD.sqrt().unsqueeze(-2))
        - _batch_trace_XXT(A @ pW)
    )
    return 0.5 * (log_dets + trace + mahalanobis - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(
    p: MultivariateNormal, q: LowRankMultivariateNormal
) -> Tensor:
    _same_event_shape(p, q)
    pL = p._unbroadcasted_scale_tril
    qW, qD = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    log_dets = lowrank_logdet(qW, qD, q._capacitance_tril) - 2 * half_log_det(pL)
    mahalanobis = lowrank_mahalanobis(qW, qD, q.loc - p.loc, q._capacitance_tril)
    A = linalg.solve_triangular(q._capacitance_tril, qW.mT / qD.unsqueeze(-2), upper=False)
    trace = _batch_trace_XXT(pL * qD.rsqrt().unsqueeze(-1)) - _batch_trace_XXT(A @ pL)
    return 0.5 * (log_dets + trace + mahalanobis - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(
    p: LowRankMultivariateNormal, q: MultivariateNormal
) -> Tensor:
    _same_event_shape(p, q)
    qL = q._unbroadcasted_scale_tril
    pW, pD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    log_dets = 2 * half_log_det(qL) - lowrank_logdet(pW, pD, p._capacitance_tril)
    mahalanobis = batch_mahalanobis(qL, q.loc - p.loc)
    n = p.event_shape[0]
    batch = tuple(F.broadcast_shapes(tuple(qL.shape[:-2]), tuple(pW.shape[:-2])))
    qL = qL.expand(batch + (n, n))
    pW = pW.expand(batch + (n, pW.shape[-1]))
    sqrt_pD = pD.sqrt().diag_embed().expand(batch + (n, n))
    trace = _batch_trace_XXT(linalg.solve_triangular(qL, pW, upper=False)) + _batch_trace_XXT(
        linalg.solve_triangular(qL, sqrt_pD, upper=False)
    )
    return 0.5 * (log_dets + trace + mahalanobis - n)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution,
                                q: TransformedDistribution) -> Tensor:  # fmt: skip
    """KL is unchanged by pushing both through the same bijection: the bases' KL."""
    if p.transforms != q.transforms:
        raise NotImplementedError(
            "kl_divergence of two TransformedDistributions needs the same transforms"
        )
    if p.event_shape != q.event_shape:
        raise NotImplementedError(
            "kl_divergence of two TransformedDistributions needs the same event_shape"
        )
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError(
            "kl_divergence of two Independent distributions needs the same "
            "reinterpreted_batch_ndims"
        )
    result = kl_divergence(p.base_dist, q.base_dist)
    return sum_rightmost(result, p.reinterpreted_batch_ndims)


# Pairs of different families. Where q gives zero density to part of p's support, the KL is
# infinite whatever the parameters.


@register_kl(Beta, Pareto)
def _kl_beta_infinity(p: Beta, q: Distribution) -> Tensor:
    return _infinite_like(p.concentration1)


@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_infinity(p: ContinuousBernoulli, q: Distribution) -> Tensor:
    return _infinite_like(p.probs)


@register_kl(Exponential, Beta)
@register_kl(Exponential, ContinuousBernoulli)
@register_kl(Exponential, Pareto)
@register_kl(Exponential, Uniform)
def _kl_exponential_infinity(p: Exponential, q: Distribution) -> Tensor:
    return _infinite_like(p.rate)


@register_kl(Gamma, Beta)
@register_kl(Gamma, ContinuousBernoulli)
@register_kl(Gamma, Pareto)
@register_kl(Gamma, Uniform)
def _kl_gamma_infinity(p: Gamma, q: Distribution) -> Tensor:
    return _infinite_like(p.concentration)


@register_kl(Gumbel, Beta)
@register_kl(Gumbel, ContinuousBernoulli)
@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Gamma)
@register_kl(Gumbel, Pareto)
@register_kl(Gumbel, Uniform)
@register_kl(Laplace, Beta)
@register_kl(Laplace, ContinuousBernoulli)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Pareto)
@register_kl(Laplace, Uniform)
@register_kl(Normal, Beta)
@register_kl(Normal, ContinuousBernoulli)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
@register_kl(Normal, Pareto)
@register_kl(Normal, Uniform)
def _kl_real_line_infinity(p: Distribution, q: Distribution) -> Tensor:
    return _infinite_like(p.loc)  # p on the whole real line, q on part of it


@register_kl(Pareto, Beta)
@register_kl(Pareto, ContinuousBernoulli)
@register_kl(Pareto, Uniform)
def _kl_pareto_infinity(p: Pareto, q: Distribution) -> Tensor:
    return _infinite_like(p.scale)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p: Poisson, q: Distribution) -> Tensor:
    return _infinite_like(p.rate)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p: ContinuousBernoulli, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p: ContinuousBernoulli, q: Normal) -> Tensor:
    # -H(p) - E_p[log q(x)], with E_p[(x - m)^2] = Var + E^2 - 2 m E + m^2
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).pow(2)) + q.scale.log()
    t3 = (p.variance + p.mean.pow(2) - 2.0 * q.loc * p.mean) / (2.0 * q.scale.pow(2))
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p: ContinuousBernoulli, q: Uniform) -> Tensor:
    """-H(p) + log(high - low); infinite where q.low >= 0 or q.high <= 1, PyTorch's
    condition (it also counts a q that exactly covers [0, 1] as not covering it)."""
    result = -p.entropy() + (q.high - q.low).log()
    return _inf_where((q.low >= 0.0) | (q.high <= 1.0), result)


def _minus_cross_entropy_with_continuous_bernoulli(p: Distribution,
                                                   q: ContinuousBernoulli) -> Tensor:  # fmt: skip
    """-H(p) - E_p[log q(x)] for p on [0, 1]: log q(x) = x logits + log(1 - q) + log C."""
    return -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p: Beta, q: ContinuousBernoulli) -> Tensor:
    return _minus_cross_entropy_with_continuous_bernoulli(p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p: Uniform, q: ContinuousBernoulli) -> Tensor:
    """Infinite where p.high >= 1 or p.low <= 0 (PyTorch's condition, which also counts
    Uniform(0, 1) itself as leaving [0, 1])."""
    result = _minus_cross_entropy_with_continuous_bernoulli(p, q)
    return _inf_where((p.high >= 1.0) | (p.low <= 0.0), result)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Tensor:
    rate_scale = p.rate * q.scale
    loc_scale = q.loc / q.scale
    t1 = rate_scale.log() - 1
    t2 = loc_scale.exp() * rate_scale / (rate_scale + 1)
    return t1 - loc_scale + t2 + rate_scale.reciprocal()


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Gamma, q: Gumbel) -> Tensor:
    a = p.concentration
    rate_scale = p.rate * q.scale
    loc_scale = q.loc / q.scale
    t1 = (a - 1) * a.digamma() - a.lgamma() - a
    t2 = rate_scale.log() + a / rate_scale
    t3 = loc_scale.exp() * (1 + rate_scale.reciprocal()).pow(-a) - loc_scale
    return t1 + t2 + t3


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Tensor:
    mean_scale = p.loc / q.scale
    var_ratio = (p.scale / q.scale).pow(2)
    loc_scale = q.loc / q.scale
    t1 = var_ratio.log() * 0.5
    t2 = mean_scale - loc_scale
    t3 = (-mean_scale + 0.5 * var_ratio + loc_scale).exp()
    return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Tensor:
    common = q.scale / (p.high - p.low)
    high = (p.high - q.loc) / q.scale
    low = (p.low - q.loc) / q.scale
    t1 = common.log() + 0.5 * (high + low)
    t2 = common * ((-high).exp() - (-low).exp())
    return t1 - t2


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p: Gumbel, q: Normal) -> Tensor:
    ratio = p.scale / q.scale
    t1 = (ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * EULER_GAMMA - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (EULER_GAMMA + 1)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Uniform, q: Pareto) -> Tensor:
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width  # E_p[log x]
    return _inf_where(p.low < q.scale, t2 * (q.alpha + 1) - t1)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Tensor:
    scale_rate = p.scale * q.rate
    t1 = (p.alpha / scale_rate).log()
    t3 = p.alpha * scale_rate / (p.alpha - 1)
    return _inf_where(p.alpha <= 1, t1 - p.alpha.reciprocal() + t3 - 1)  # no mean: infinite


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Pareto, q: Gamma) -> Tensor:
    common = p.scale.log() + p.alpha.reciprocal()  # E_p[log x]
    t1 = p.alpha.log() - common
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    return _inf_where(p.alpha <= 1, t1 + t2 + t3 + t4 - 1)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Pareto, q: Normal) -> Tensor:
    two_var = 2 * q.scale.pow(2)
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)  # Var_p
    t4 = (p.alpha * common - q.loc).pow(2)  # (E_p - m)^2
    return _inf_where(p.alpha <= 2, t1 - p.alpha.reciprocal() + (t3 + t4) / two_var - 1)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    # -H(p) - E_p[k log rate - rate - log k!], with log k! = 0 for k in {0, 1}
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Beta, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Beta, q: Gamma) -> Tensor:
    a, b = p.concentration1, p.concentration0
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (a.digamma() - (a + b).digamma())  # (c - 1) E_p[log x]
    return -p.entropy() + t2 - t3 + q.rate * a / (a + b)


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Beta, q: Normal) -> Tensor:
    a, b = p.concentration1, p.concentration0
    mean = a / (a + b)
    var_q = q.scale.pow(2)
    t2 = 0.5 * (var_q * 2 * math.pi).log()
    t3 = (mean * (1 - mean) / (a + b + 1) + mean.pow(2)) * 0.5  # E_p[x^2] / 2
    return -p.entropy() + t2 + (t3 - q.loc * mean + q.loc.pow(2) * 0.5) / var_q


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    return _inf_where((q.low > 0.0) | (q.high < 1.0), result)  # q misses part of [0, 1]


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    ratio = q.rate / p.rate
    t1 = -q.concentration * ratio.log()
    return t1 + ratio + q.concentration.lgamma() + q.concentration * EULER_GAMMA - (1 + EULER_GAMMA)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Tensor:
    var_q = q.scale.pow(2)
    rate_sq = p.rate.pow(2)
    t1 = 0.5 * (rate_sq * var_q * 2 * math.pi).log()
    return t1 - 1 + (rate_sq.reciprocal() - q.loc / p.rate + q.loc.pow(2) * 0.5) / var_q


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Gamma, q: Normal) -> Tensor:
    a = p.concentration
    var_q = q.scale.pow(2)
    rate_sq = p.rate.pow(2)
    t1 = 0.5 * (rate_sq * var_q * 2 * math.pi).log() - a - a.lgamma()
    t2 = 0.5 * (a.pow(2) + a) / rate_sq  # E_p[x^2] / 2
    t3 = q.loc * a / p.rate
    return t1 + (a - 1) * a.digamma() + (t2 - t3 + 0.5 * q.loc.pow(2)) / var_q


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Tensor:
    var_q = q.scale.pow(2)
    scale_ratio_sq = p.scale.pow(2) / var_q
    t1 = 0.5 * (2 * scale_ratio_sq / math.pi).log()
    t2 = 0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)  # (m_p - m_q)^2 / 2
    return -t1 + scale_ratio_sq + t2 / var_q - 1


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    loc_diff = p.loc - q.loc
    standardized = loc_diff / p.scale
    t1 = (p.scale / q.scale).log()
    # E_p|x - m_q| = s sqrt(2 / pi) exp(-d^2 / (2 s^2)) + d erf(d / (s sqrt 2))
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * standardized.pow(2)).exp()
    t3 = loc_diff * (math.sqrt(0.5) * standardized).erf()
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Tensor:
    width = p.high - p.low
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    log_beta = (
        q.concentration1.lgamma()
        + q.concentration0.lgamma()
        - (q.concentration1 + q.concentration0).lgamma()
    )
    result = t3 + log_beta - width.log() - t2
    return _inf_where((p.high > 1.0) | (p.low < 0.0), result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Uniform, q: Exponential) -> Tensor:
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _inf_where(p.low < 0.0, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Tensor:
    width = p.high - p.low
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t4 = q.rate * (p.high + p.low) / 2
    return _inf_where(p.low < 0.0, -width.log() + t2 + t3 + t4)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12  # Var_p
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)  # (E_p - m_q)^2
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)
