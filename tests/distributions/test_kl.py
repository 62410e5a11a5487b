"""kl_divergence against torch.distributions' (values and gradients), register_kl
dispatch, and the errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import microtorch

from .test_distribution import _params

torch = pytest.importorskip("torch")

D = microtorch.distributions
TD = torch.distributions

COV_P = [[2.0, 0.3], [0.3, 1.0]]
COV_Q = [[1.0, -0.2], [-0.2, 0.5]]

# name: (make p and q from params, parameter values)
PAIRS = {
    "Normal": (lambda d, a: (d.Normal(a[0], a[1]), d.Normal(a[2], a[3])),
               [[0.5, -1.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Bernoulli": (lambda d, a: (d.Bernoulli(probs=a[0]), d.Bernoulli(probs=a[1])),
                  [[0.2, 0.5, 0.9], [0.3, 0.5, 0.1]]),
    "Bernoulli-edges": (lambda d, a: (d.Bernoulli(probs=a[0]), d.Bernoulli(probs=a[1])),
                        [[0.0, 1.0, 0.3, 0.3], [0.4, 0.4, 0.0, 1.0]]),
    "Bernoulli-logits": (lambda d, a: (d.Bernoulli(logits=a[0]), d.Bernoulli(logits=a[1])),
                         [[-1.0, 2.0], [0.5, 0.0]]),
    "Categorical": (lambda d, a: (d.Categorical(probs=a[0]), d.Categorical(logits=a[1])),
                    [[[0.2, 0.3, 0.5], [0.5, 0.5, 0.0]], [[0.0, 1.0, -1.0], [2.0, 0.0, 1.0]]]),
    "Categorical-zero-in-q": (lambda d, a: (d.Categorical(probs=a[0]), d.Categorical(probs=a[1])),
                              [[0.2, 0.3, 0.5], [0.5, 0.5, 0.0]]),
    "OneHotCategorical": (lambda d, a: (d.OneHotCategorical(probs=a[0]),
                                        d.OneHotCategorical(probs=a[1])),
                          [[0.2, 0.3, 0.5], [0.4, 0.4, 0.2]]),
    "Uniform": (lambda d, a: (d.Uniform(a[0], a[1]), d.Uniform(a[2], a[3])),
                [[0.0, 0.0, -1.0], [1.0, 2.0, 1.0], [-1.0, 0.5, -2.0], [2.0, 3.0, 0.5]]),
    "Exponential": (lambda d, a: (d.Exponential(a[0]), d.Exponential(a[1])),
                    [[0.5, 2.0], [1.0, 0.3]]),
    "Beta": (lambda d, a: (d.Beta(a[0], a[1]), d.Beta(a[2], a[3])),
             [[0.5, 3.0], [1.0, 2.0], [2.0, 1.0], [0.5, 3.0]]),
    "Gamma": (lambda d, a: (d.Gamma(a[0], a[1]), d.Gamma(a[2], a[3])),
              [[0.5, 3.0], [1.0, 2.0], [2.0, 1.0], [0.5, 3.0]]),
    "Poisson": (lambda d, a: (d.Poisson(a[0]), d.Poisson(a[1])), [[0.5, 3.0], [2.0, 1.0]]),
    "Laplace": (lambda d, a: (d.Laplace(a[0], a[1]), d.Laplace(a[2], a[3])),
                [[0.5, -1.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "MultivariateNormal": (lambda d, a: (d.MultivariateNormal(a[0], covariance_matrix=a[1]),
                                         d.MultivariateNormal(a[2], covariance_matrix=a[3])),
                           [[0.5, -1.0], COV_P, [[0.0, 1.0], [1.0, 2.0]], COV_Q]),
    "MultivariateNormal-tril": (lambda d, a: (d.MultivariateNormal(a[0], scale_tril=a[1]),
                                              d.MultivariateNormal(a[2], precision_matrix=a[3])),
                                [[0.5, -1.0], [[1.5, 0.0], [0.4, 0.8]], [0.0, 1.0], COV_Q]),
    "Independent": (lambda d, a: (d.Independent(d.Normal(a[0], a[1]), 1),
                                  d.Independent(d.Normal(a[2], a[3]), 1)),
                    [[[0.5, -1.0]], [[1.0, 2.0]], [[0.0, 1.0]], [[0.5, 3.0]]]),
    "HalfNormal": (lambda d, a: (d.HalfNormal(a[0]), d.HalfNormal(a[1])), [[0.5, 2.0], [1.0, 0.3]]),
    "LogNormal": (lambda d, a: (d.LogNormal(a[0], a[1]), d.LogNormal(a[2], a[3])),
                  [[0.5, -1.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "LogNormal-TransformedDistribution": (
        lambda d, a: (d.LogNormal(a[0], a[1]),
                      d.TransformedDistribution(d.Normal(a[2], a[3]), d.transforms.ExpTransform())),
        [[0.5, -1.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Wishart": (lambda d, a: (d.Wishart(a[0], covariance_matrix=a[1]),
                              d.Wishart(a[2], precision_matrix=a[3])), [3.0, COV_P, 4.5, COV_Q]),
    "Wishart-tril": (lambda d, a: (d.Wishart(a[0], scale_tril=a[1]),
                                   d.Wishart(a[2], covariance_matrix=a[3])),
                     [2.5, [[1.5, 0.0], [0.4, 0.8]], 1.5, COV_Q]),
    "Cauchy": (lambda d, a: (d.Cauchy(a[0], a[1]), d.Cauchy(a[2], a[3])),
               [[0.5, -1.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Gumbel": (lambda d, a: (d.Gumbel(a[0], a[1]), d.Gumbel(a[2], a[3])),
               [[0.5, -1.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Binomial": (lambda d, a: (d.Binomial(a[0], probs=a[1]), d.Binomial(a[2], probs=a[3])),
                 [[5.0, 10.0], [0.3, 0.6], [5.0, 8.0], [0.5, 0.2]]),  # 10 > 8: infinite
    "Geometric": (lambda d, a: (d.Geometric(probs=a[0]), d.Geometric(logits=a[1])),
                  [[0.3, 0.8], [0.5, -1.0]]),
    "Dirichlet": (lambda d, a: (d.Dirichlet(a[0]), d.Dirichlet(a[1])),
                  [[[0.5, 2.0, 3.0], [2.0, 1.5, 4.0]], [[1.0, 1.0, 1.0], [0.7, 3.0, 2.0]]]),
    "ContinuousBernoulli": (lambda d, a: (d.ContinuousBernoulli(a[0]), d.ContinuousBernoulli(a[1])),
                            [[0.2, 0.5, 0.9], [0.7, 0.3, 0.4995]]),
    "Pareto": (lambda d, a: (d.Pareto(a[0], a[1]), d.Pareto(a[2], a[3])),
               [[1.0, 0.5], [2.0, 3.0], [0.5, 1.0], [1.5, 2.0]]),  # 0.5 < 1.0: infinite
    "LowRankMultivariateNormal": (
        lambda d, a: (d.LowRankMultivariateNormal(a[0], a[1], a[2]),
                      d.LowRankMultivariateNormal(a[3], a[4], a[5])),
        [[0.5, -1.0, 0.2], [[1.0], [-0.5], [0.3]], [0.5, 1.0, 2.0],
         [0.0, 1.0, 0.0], [[0.2, 0.1], [0.5, -0.4], [1.0, 0.3]], [1.0, 0.3, 0.8]]),
    "MultivariateNormal-LowRank": (
        lambda d, a: (d.MultivariateNormal(a[0], covariance_matrix=a[1]),
                      d.LowRankMultivariateNormal(a[2], a[3], a[4])),
        [[0.5, -1.0], COV_P, [0.0, 1.0], [[1.0], [-0.5]], [0.5, 1.0]]),
    "LowRank-MultivariateNormal": (
        lambda d, a: (d.LowRankMultivariateNormal(a[0], a[1], a[2]),
                      d.MultivariateNormal(a[3], covariance_matrix=a[4])),
        [[[0.5, -1.0], [1.0, 2.0]], [[1.0], [-0.5]], [0.5, 1.0], [0.0, 1.0], COV_Q]),
    "Transformed": (lambda d, a: (
        d.TransformedDistribution(d.Normal(a[0], a[1]), d.transforms.ExpTransform()),
        d.TransformedDistribution(d.Normal(a[2], a[3]), d.transforms.ExpTransform())),
        [[0.5, -1.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Weibull-same-transforms": (lambda d, a: (d.Weibull(a[0], a[1]), d.Weibull(a[0], a[1])),
                                        [[1.0, 2.0], [0.5, 3.0]]),  # the same transforms
    "Exponential-Gumbel": (lambda d, a: (d.Exponential(a[0]), d.Gumbel(a[1], a[2])),
                           [[0.5, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Gamma-Gumbel": (lambda d, a: (d.Gamma(a[0], a[1]), d.Gumbel(a[2], a[3])),
                     [[0.5, 3.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Normal-Gumbel": (lambda d, a: (d.Normal(a[0], a[1]), d.Gumbel(a[2], a[3])),
                      [[0.5, -1.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Uniform-Gumbel": (lambda d, a: (d.Uniform(a[0], a[1]), d.Gumbel(a[2], a[3])),
                       [[0.0, -1.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Gumbel-Normal": (lambda d, a: (d.Gumbel(a[0], a[1]), d.Normal(a[2], a[3])),
                      [[0.5, -1.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Uniform-Pareto": (lambda d, a: (d.Uniform(a[0], a[1]), d.Pareto(a[2], a[3])),
                       [[1.0, 0.5], [2.0, 3.0], [0.5, 1.0], [1.5, 2.0]]),
    "Pareto-Exponential": (lambda d, a: (d.Pareto(a[0], a[1]), d.Exponential(a[2])),
                           [[1.0, 0.5], [2.0, 0.8], [1.5, 2.0]]),
    "Pareto-Gamma": (lambda d, a: (d.Pareto(a[0], a[1]), d.Gamma(a[2], a[3])),
                     [[1.0, 0.5], [2.0, 0.8], [1.5, 2.0], [0.5, 3.0]]),
    "Pareto-Normal": (lambda d, a: (d.Pareto(a[0], a[1]), d.Normal(a[2], a[3])),
                      [[1.0, 0.5, 2.0], [3.0, 0.8, 2.5], [1.5, 2.0, 0.0], [0.5, 3.0, 1.0]]),
    "ContinuousBernoulli-Exponential": (
        lambda d, a: (d.ContinuousBernoulli(a[0]), d.Exponential(a[1])),
        [[0.2, 0.5, 0.9], [0.7, 0.3, 2.0]]),
    "ContinuousBernoulli-Normal": (
        lambda d, a: (d.ContinuousBernoulli(a[0]), d.Normal(a[1], a[2])),
        [[0.2, 0.5], [0.7, 0.3], [1.0, 2.0]]),
    "ContinuousBernoulli-Uniform": (
        lambda d, a: (d.ContinuousBernoulli(a[0]), d.Uniform(a[1], a[2])),
        [[0.2, 0.5, 0.9], [-1.0, 0.0, -0.5], [2.0, 3.0, 1.0]]),
    "Beta-ContinuousBernoulli": (
        lambda d, a: (d.Beta(a[0], a[1]), d.ContinuousBernoulli(a[2])),
        [[0.5, 3.0], [1.0, 2.0], [0.3, 0.5]]),
    "Uniform-ContinuousBernoulli": (
        lambda d, a: (d.Uniform(a[0], a[1]), d.ContinuousBernoulli(a[2])),
        [[0.1, 0.0, 0.2], [0.8, 0.5, 1.0], [0.3, 0.5, 0.7]]),
    "infinite-Gumbel-Beta": (lambda d, a: (d.Gumbel(a[0], a[1]), d.Beta(a[1], a[1])),
                             [[0.5, -1.0], [1.0, 2.0]]),
    "infinite-Normal-Pareto": (lambda d, a: (d.Normal(a[0], a[1]), d.Pareto(a[1], a[1])),
                               [[0.5, -1.0], [1.0, 2.0]]),
    "infinite-Poisson-Binomial": (lambda d, a: (d.Poisson(a[0]), d.Binomial(5, probs=a[1])),
                                  [[0.5, 2.0], [0.3, 0.6]]),
    "infinite-Pareto-Uniform": (lambda d, a: (d.Pareto(a[0], a[1]), d.Uniform(a[0], a[1] + 5)),
                                [[0.5, 1.0], [1.0, 2.0]]),
    "infinite-Exponential-ContinuousBernoulli": (
        lambda d, a: (d.Exponential(a[0]), d.ContinuousBernoulli(a[1])), [[0.5, 2.0], [0.3, 0.6]]),
    "Bernoulli-Poisson": (lambda d, a: (d.Bernoulli(probs=a[0]), d.Poisson(a[1])),
                          [[0.2, 0.7], [0.5, 2.0]]),
    "Beta-Exponential": (lambda d, a: (d.Beta(a[0], a[1]), d.Exponential(a[2])),
                         [[0.5, 3.0], [1.0, 2.0], [0.5, 2.0]]),
    "Beta-Gamma": (lambda d, a: (d.Beta(a[0], a[1]), d.Gamma(a[2], a[3])),
                   [[0.5, 3.0], [1.0, 2.0], [2.0, 0.5], [0.5, 3.0]]),
    "Beta-Normal": (lambda d, a: (d.Beta(a[0], a[1]), d.Normal(a[2], a[3])),
                    [[0.5, 3.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Beta-Uniform": (lambda d, a: (d.Beta(a[0], a[1]), d.Uniform(a[2], a[3])),
                     [[0.5, 3.0, 2.0], [1.0, 2.0, 2.0], [-1.0, 0.0, 0.1], [2.0, 1.0, 1.0]]),
    "Exponential-Gamma": (lambda d, a: (d.Exponential(a[0]), d.Gamma(a[1], a[2])),
                          [[0.5, 2.0], [2.0, 0.5], [0.5, 3.0]]),
    "Exponential-Normal": (lambda d, a: (d.Exponential(a[0]), d.Normal(a[1], a[2])),
                           [[0.5, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Gamma-Exponential": (lambda d, a: (d.Gamma(a[0], a[1]), d.Exponential(a[2])),
                          [[0.5, 3.0], [1.0, 2.0], [0.5, 2.0]]),
    "Gamma-Normal": (lambda d, a: (d.Gamma(a[0], a[1]), d.Normal(a[2], a[3])),
                     [[0.5, 3.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Laplace-Normal": (lambda d, a: (d.Laplace(a[0], a[1]), d.Normal(a[2], a[3])),
                       [[0.5, -1.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Normal-Laplace": (lambda d, a: (d.Normal(a[0], a[1]), d.Laplace(a[2], a[3])),
                       [[0.5, -1.0], [1.0, 2.0], [0.0, 1.0], [0.5, 3.0]]),
    "Uniform-Beta": (lambda d, a: (d.Uniform(a[0], a[1]), d.Beta(a[2], a[3])),
                     [[0.1, 0.0, -0.5], [0.8, 1.0, 0.5], [0.5, 3.0, 2.0], [1.0, 2.0, 2.0]]),
    "Uniform-Exponential": (lambda d, a: (d.Uniform(a[0], a[1]), d.Exponential(a[2])),
                            [[0.1, -1.0], [0.8, 1.0], [0.5, 3.0]]),
    "Uniform-Gamma": (lambda d, a: (d.Uniform(a[0], a[1]), d.Gamma(a[2], a[3])),
                      [[0.1, -1.0, 0.0], [0.8, 1.0, 2.0], [0.5, 3.0, 2.0], [1.0, 2.0, 0.5]]),
    "Uniform-Normal": (lambda d, a: (d.Uniform(a[0], a[1]), d.Normal(a[2], a[3])),
                       [[0.1, -1.0], [0.8, 1.0], [0.5, 3.0], [1.0, 2.0]]),
    "infinite-Exponential-Beta": (lambda d, a: (d.Exponential(a[0]), d.Beta(a[0], a[0])),
                                  [[0.5, 2.0]]),
    "infinite-Gamma-Uniform": (lambda d, a: (d.Gamma(a[0], a[0]), d.Uniform(0.0, a[0])),
                               [[0.5, 2.0]]),
    "infinite-Laplace-Gamma": (lambda d, a: (d.Laplace(a[0], a[1]), d.Gamma(a[1], a[1])),
                               [[0.5, -1.0], [1.0, 2.0]]),
    "infinite-Normal-Exponential": (lambda d, a: (d.Normal(a[0], a[1]), d.Exponential(a[1])),
                                    [[0.5, -1.0], [1.0, 2.0]]),
}  # fmt: skip


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("case", list(PAIRS))
def test_kl_divergence_and_its_gradient_match_torch(case: str, device: str) -> None:
    make, values = PAIRS[case]
    theirs_a, ours_a = _params(torch, None, values), _params(microtorch, device, values)
    expected = TD.kl_divergence(*make(TD, theirs_a))
    got = D.kl_divergence(*make(D, ours_a))
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(_np(got), _np(expected), rtol=1e-7, atol=1e-10)
    if expected.grad_fn is None:  # infinite, or constant, whatever the parameters
        assert got.grad_fn is None
        return
    finite = torch.isfinite(expected)
    expected[finite].sum().backward()
    got[microtorch.tensor(finite.numpy(), device=device)].sum().backward()
    for o, t in zip(ours_a, theirs_a):
        if t.grad is None:
            continue
        np.testing.assert_allclose(_np(o.grad), t.grad.numpy(), rtol=1e-6, atol=1e-9)


def test_wishart_kl_in_df_and_over_a_batch() -> None:
    """torch has no Wishart pair of its own (its exponential-family fallback gives no df
    gradient and mixes up batches of df): the df gradient against central differences,
    and a batch against its members one by one."""
    cov_p, cov_q = microtorch.tensor(COV_P, dtype=microtorch.float64), microtorch.tensor(COV_Q)

    def kl(df_p, df_q):
        return D.kl_divergence(D.Wishart(df_p, cov_p), D.Wishart(df_q, cov_q.double()))

    df_p = microtorch.tensor(3.0, dtype=microtorch.float64, requires_grad=True)
    df_q = microtorch.tensor(4.5, dtype=microtorch.float64, requires_grad=True)
    kl(df_p, df_q).backward()
    h = 1e-6
    for grad, dp, dq in ((df_p.grad, h, 0.0), (df_q.grad, 0.0, h)):
        up = kl(df_p.detach() + dp, df_q.detach() + dq).item()
        down = kl(df_p.detach() - dp, df_q.detach() - dq).item()
        np.testing.assert_allclose(grad.item(), (up - down) / (2 * h), rtol=1e-6)
    batch = kl(microtorch.tensor([3.0, 5.0], dtype=microtorch.float64), df_q.detach())
    one_by_one = [kl(microtorch.tensor(v, dtype=microtorch.float64), df_q.detach()).item()
                  for v in (3.0, 5.0)]  # fmt: skip
    np.testing.assert_allclose(_np(batch), one_by_one, rtol=1e-12)
    for v, expected in zip((3.0, 5.0), one_by_one):  # torch agrees one at a time
        theirs = TD.kl_divergence(TD.Wishart(torch.tensor(v, dtype=torch.float64),
                                             torch.tensor(COV_P, dtype=torch.float64)),
                                  TD.Wishart(torch.tensor(4.5, dtype=torch.float64),
                                             torch.tensor(COV_Q, dtype=torch.float64)))  # fmt: skip
        np.testing.assert_allclose(theirs.item(), expected, rtol=1e-7)


def test_kl_of_a_distribution_with_itself_is_zero() -> None:
    p = D.MultivariateNormal(microtorch.zeros(3), scale_tril=microtorch.eye(3) * 2)
    np.testing.assert_allclose(_np(D.kl_divergence(p, p)), 0.0, atol=1e-6)


def test_kl_broadcasts_batches() -> None:
    p = D.Normal(microtorch.zeros(2, 1), 1.0)
    q = D.Normal(microtorch.zeros(3), 2.0)
    assert tuple(D.kl_divergence(p, q).shape) == (2, 3)


def test_unregistered_pair_raises_not_implemented_as_torch() -> None:
    """Two exponential families reach the Bregman pair, which refuses different families;
    a pair with no match at all names register_kl."""
    for d in (D, TD):
        with pytest.raises(NotImplementedError, match="different exponential families"):
            d.kl_divergence(d.Normal(0.0, 1.0), d.Bernoulli(probs=0.5))
    with pytest.raises(NotImplementedError):
        TD.kl_divergence(TD.Normal(0.0, 1.0), TD.Categorical(probs=torch.ones(2)))
    with pytest.raises(NotImplementedError, match="register_kl"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Categorical(probs=microtorch.ones(2)))


def test_multivariate_normals_of_different_sizes_raise_value_error() -> None:
    p = D.MultivariateNormal(microtorch.zeros(2), scale_tril=microtorch.eye(2))
    q = D.MultivariateNormal(microtorch.zeros(3), scale_tril=microtorch.eye(3))
    with pytest.raises(ValueError, match="different event shapes"):
        D.kl_divergence(p, q)


def test_register_kl_uses_the_most_specific_pair() -> None:
    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 1.0)
    np.testing.assert_allclose(_np(D.kl_divergence(p, q)), 0.5)  # the Normal-Normal formula

    @D.register_kl(MyNormal, D.Normal)
    def _kl_mine(p, q):
        return microtorch.tensor(-7.0)

    try:
        assert D.kl_divergence(p, q).item() == -7.0
        np.testing.assert_allclose(_np(D.kl_divergence(q, q)), 0.0)
    finally:
        del D.kl._KL_REGISTRY[MyNormal, D.Normal]
    with pytest.raises(TypeError):
        D.register_kl(int, D.Normal)


def test_ambiguous_pairs_warn_and_take_ps_nearest_as_torch() -> None:
    """(A, Normal) and (Normal, B) both match (A, B): p's nearest wins, with a
    RuntimeWarning naming the pair to register, as torch."""
    for d in (D, TD):

        class A(d.Normal):
            pass

        class B(d.Normal):
            pass

        d.register_kl(A, d.Normal)(lambda p, q: "A-Normal")
        d.register_kl(d.Normal, B)(lambda p, q: "Normal-B")
        try:
            with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(A, B\)"):
                assert d.kl_divergence(A(0.0, 1.0), B(0.0, 1.0)) == "A-Normal"
            assert d.kl_divergence(d.Normal(0.0, 1.0), B(0.0, 1.0)) == "Normal-B"
        finally:
            del d.kl._KL_REGISTRY[A, d.Normal], d.kl._KL_REGISTRY[d.Normal, B]
            getattr(d.kl, "_KL_MEMOIZE", {}).clear()


def test_kl_of_transformed_distributions_needs_the_same_transforms_as_torch() -> None:
    for d, lib in ((D, microtorch), (TD, torch)):
        p = d.TransformedDistribution(d.Normal(lib.zeros(2), 1.0), d.transforms.ExpTransform())
        q = d.TransformedDistribution(d.Normal(lib.zeros(2), 1.0), d.transforms.TanhTransform())
        with pytest.raises(NotImplementedError):
            d.kl_divergence(p, q)
        with pytest.raises(NotImplementedError):  # Weibulls of different shapes
            d.kl_divergence(d.Weibull(1.0, lib.tensor(2.0)), d.Weibull(1.0, lib.tensor(3.0)))


def test_binomials_with_fewer_trials_in_p_raise_as_torch() -> None:
    for d in (D, TD):
        with pytest.raises(NotImplementedError, match="total_count"):
            d.kl_divergence(d.Binomial(3, probs=0.5), d.Binomial(5, probs=0.5))


def test_every_torch_pair_between_our_families_is_registered() -> None:
    """Each (P, Q) in torch's KL registry whose two families microtorch has is in ours."""
    ours = {(p.__name__, q.__name__) for p, q in D.kl._KL_REGISTRY}
    missing = []
    for p, q in torch.distributions.kl._KL_REGISTRY:
        if hasattr(D, p.__name__) and hasattr(D, q.__name__):
            if (p.__name__, q.__name__) not in ours:
                missing.append((p.__name__, q.__name__))
    assert sorted(missing) == sorted(KNOWN_MISSING_PAIRS)


KNOWN_MISSING_PAIRS: list = []  # none: every pair torch registers between our families


def test_exponential_families_as_torch() -> None:
    """The same families are ExponentialFamily subclasses as in torch, and each has a
    closed-form pair with itself (its parent's for Chi2) ahead of the Bregman fallback."""
    for name in dir(TD):
        cls = getattr(TD, name)
        if not (isinstance(cls, type) and issubclass(cls, TD.Distribution)) or not hasattr(D, name):
            continue
        ours = getattr(D, name)
        assert issubclass(ours, D.ExponentialFamily) == issubclass(cls, TD.ExponentialFamily), name
        if issubclass(cls, TD.ExponentialFamily) and cls is not TD.ExponentialFamily:
            assert D.kl._dispatch_kl(ours, ours) is not D.kl._kl_expfamily_expfamily, name


COV_2 = [[2.0, 0.3], [0.3, 1.0]]
# name: (make(dists, lib) -> (p, q), whether the carrier measure is defined (entropy))
EXPONENTIAL_FAMILIES = {
    "Normal": (lambda d, lib: (d.Normal(lib.tensor([0.5, -1.0]), lib.tensor([1.0, 2.0])),
                               d.Normal(lib.tensor([0.0, 1.0]), lib.tensor([0.5, 3.0]))), True),
    "Bernoulli": (lambda d, lib: (d.Bernoulli(lib.tensor([0.2, 0.7])),
                                  d.Bernoulli(lib.tensor([0.5, 0.1]))), True),
    "Beta": (lambda d, lib: (d.Beta(lib.tensor([0.5, 3.0]), lib.tensor([1.0, 2.0])),
                             d.Beta(lib.tensor([2.0, 1.0]), lib.tensor([0.5, 3.0]))), False),
    "Dirichlet": (lambda d, lib: (d.Dirichlet(lib.tensor([[0.5, 2.0, 1.0]])),
                                  d.Dirichlet(lib.tensor([[1.5, 1.0, 3.0]]))), False),
    "Exponential": (lambda d, lib: (d.Exponential(lib.tensor([0.5, 2.0])),
                                    d.Exponential(lib.tensor([1.5, 0.3]))), True),
    "Gamma": (lambda d, lib: (d.Gamma(lib.tensor([0.5, 3.0]), lib.tensor([1.0, 2.0])),
                              d.Gamma(lib.tensor([2.0, 1.0]), lib.tensor([0.5, 3.0]))), True),
    "Chi2": (lambda d, lib: (d.Chi2(lib.tensor([1.0, 3.0])), d.Chi2(lib.tensor([2.0, 5.0]))), True),
    "Poisson": (lambda d, lib: (d.Poisson(lib.tensor([0.5, 2.0])),
                                d.Poisson(lib.tensor([1.5, 0.3]))), False),
    "ContinuousBernoulli": (lambda d, lib: (d.ContinuousBernoulli(lib.tensor([0.2, 0.5, 0.9])),
                                            d.ContinuousBernoulli(lib.tensor([0.6, 0.3, 0.5]))),
                            True),
    "Wishart": (lambda d, lib: (d.Wishart(lib.tensor(3.0), lib.tensor(COV_2)),
                                d.Wishart(lib.tensor(4.0), lib.tensor(COV_Q))), True),
}  # fmt: skip


@pytest.mark.parametrize("case", list(EXPONENTIAL_FAMILIES))
def test_exponential_family_entropy_and_bregman_kl_as_torch(case: str) -> None:
    """Each family's natural parameters and log normalizer (torch's): the Bregman entropy
    and KL that ExponentialFamily derives from them agree with the family's closed forms
    and with torch's ExponentialFamily versions."""
    make, has_carrier = EXPONENTIAL_FAMILIES[case]
    ours, theirs = make(D, microtorch), make(TD, torch)
    assert isinstance(ours[0], D.ExponentialFamily) and isinstance(theirs[0], TD.ExponentialFamily)
    if has_carrier:
        bregman = D.ExponentialFamily.entropy(ours[0])
        np.testing.assert_allclose(_np(bregman), _np(ours[0].entropy()), rtol=1e-5, atol=1e-6)
        theirs_bregman = TD.ExponentialFamily.entropy(theirs[0])
        np.testing.assert_allclose(_np(bregman), _np(theirs_bregman), rtol=1e-5, atol=1e-6)
    else:
        with pytest.raises(NotImplementedError):
            D.ExponentialFamily.entropy(ours[0])
    bregman_kl = D.kl._kl_expfamily_expfamily(*ours)
    closed_kl = D.kl_divergence(*ours)
    np.testing.assert_allclose(_np(bregman_kl), _np(closed_kl), rtol=1e-4, atol=1e-5)
    theirs_kl = TD.kl._kl_expfamily_expfamily(*theirs)
    np.testing.assert_allclose(_np(bregman_kl), _np(theirs_kl), rtol=1e-4, atol=1e-5)


def test_a_new_exponential_family_gets_entropy_and_kl_from_its_log_normalizer() -> None:
    """A unit-variance normal written only as natural parameter, log normalizer and carrier
    measure: Normal's entropy and KL, and different families refuse the Bregman KL."""

    class UnitNormal(D.ExponentialFamily):
        arg_constraints: dict = {}
        support = D.constraints.real

        def __init__(self, loc):
            self.loc = loc
            super().__init__(loc.shape)

        @property
        def _natural_params(self):
            return (self.loc,)

        def _log_normalizer(self, x):
            return 0.5 * x.pow(2)

        @property
        def _mean_carrier_measure(self):  # E[-x^2 / 2 - log(2 pi) / 2]
            return -0.5 * (self.loc.pow(2) + 1) - 0.5 * math.log(2 * math.pi)

    loc_p, loc_q = microtorch.tensor([0.5, -1.0]), microtorch.tensor([0.0, 2.0])
    p, q = UnitNormal(loc_p), UnitNormal(loc_q)
    np.testing.assert_allclose(_np(p.entropy()), _np(D.Normal(loc_p, 1.0).entropy()), rtol=1e-6)
    expected = D.kl_divergence(D.Normal(loc_p, 1.0), D.Normal(loc_q, 1.0))
    np.testing.assert_allclose(_np(D.kl_divergence(p, q)), _np(expected), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="different exponential families"):
        D.kl_divergence(p, D.Normal(loc_q, 1.0))
