"""Every distribution against torch.distributions with the same parameters: log_prob,
cdf, icdf, entropy, mean, mode, variance, stddev and their gradients, the rsample
gradient, sample statistics, shapes, expand, repr and validation errors."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch

torch = pytest.importorskip("torch")

D = microtorch.distributions
TD = torch.distributions


def _params(lib, device, values):
    """Leaf float64 tensors that require grad, one per list of values."""
    if lib is torch:
        return [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    return [
        microtorch.tensor(v, dtype=microtorch.float64, device=device).requires_grad_(True)
        for v in values
    ]


def _value(lib, device, v, dtype="float64"):
    if lib is torch:
        return torch.tensor(v, dtype=getattr(torch, dtype))
    return microtorch.tensor(v, dtype=getattr(microtorch, dtype), device=device)


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy() if hasattr(t, "cpu") else np.asarray(t)


MVN_COV = [[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]]
MVN_TRIL = [[1.5, 0.0, 0.0], [0.4, 0.8, 0.0], [-0.3, 0.2, 0.6]]

# name: (make(dists, params), parameter values, log_prob values, value dtype)
CASES = {
    "Normal": (lambda d, p: d.Normal(p[0], p[1]), [[0.5, -1.0, 2.0], [1.0, 2.0, 0.5]],
               [0.3, -2.0, 2.5], "float64"),
    "Normal-broadcast": (lambda d, p: d.Normal(p[0], p[1]), [[0.5, -1.0], [[1.0], [2.0]]],
                         [[0.3, -2.0], [0.0, 1.0]], "float64"),
    "Uniform": (lambda d, p: d.Uniform(p[0], p[1]), [[0.0, -1.0, 2.0], [1.0, 3.0, 2.5]],
                [0.3, -0.5, 2.4], "float64"),
    "Bernoulli-probs": (lambda d, p: d.Bernoulli(probs=p[0]), [[0.2, 0.5, 0.9, 0.0]],
                        [1.0, 0.0, 1.0, 0.0], "float64"),
    "Bernoulli-logits": (lambda d, p: d.Bernoulli(logits=p[0]), [[-1.0, 0.0, 3.0]],
                         [1.0, 0.0, 0.0], "float64"),
    "Categorical-probs": (lambda d, p: d.Categorical(probs=p[0]),
                          [[[0.2, 0.3, 0.5], [0.1, 0.0, 0.9]]], [2, 0], "int64"),
    "Categorical-logits": (lambda d, p: d.Categorical(logits=p[0]),
                           [[[1.0, -0.5, 0.2], [0.0, 2.0, -1.0]]], [[1, 0], [2, 2]], "int64"),
    "OneHotCategorical": (lambda d, p: d.OneHotCategorical(probs=p[0]),
                          [[[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]],
                          [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], "float64"),
    "OneHotCategorical-logits": (lambda d, p: d.OneHotCategorical(logits=p[0]),
                                 [[1.0, -0.5, 0.2]], [0.0, 1.0, 0.0], "float64"),
    "Exponential": (lambda d, p: d.Exponential(p[0]), [[0.5, 1.0, 3.0]], [0.3, 0.0, 2.0],
                    "float64"),
    "Laplace": (lambda d, p: d.Laplace(p[0], p[1]), [[0.5, -1.0, 2.0], [1.0, 2.0, 0.5]],
                [0.3, -2.0, 2.5], "float64"),
    "LogNormal": (lambda d, p: d.LogNormal(p[0], p[1]), [[0.5, -1.0, 0.0], [1.0, 0.5, 0.3]],
                  [0.3, 2.0, 1.1], "float64"),
    "Beta": (lambda d, p: d.Beta(p[0], p[1]), [[0.5, 2.0, 5.0, 0.5], [1.0, 0.5, 3.0, 0.7]],
             [0.3, 0.9, 0.5, 0.1], "float64"),
    "Beta-both-below-one": (lambda d, p: d.Beta(p[0], p[1]), [[0.5, 3.0, 0.7], [0.7, 2.0, 0.4]],
                            [0.3, 0.9, 0.5], "float64"),  # mode 1 there, gradient 0
    "Gamma": (lambda d, p: d.Gamma(p[0], p[1]), [[0.5, 2.0, 5.0], [1.0, 0.5, 3.0]],
              [0.3, 2.0, 1.1], "float64"),
    "Poisson": (lambda d, p: d.Poisson(p[0]), [[0.5, 2.0, 7.0]], [0.0, 3.0, 5.0], "float64"),
    "Binomial-probs": (lambda d, p: d.Binomial(10, probs=p[0]), [[0.2, 0.5, 0.9, 1.0]],
                       [0.0, 5.0, 10.0, 10.0], "float64"),
    "Binomial-logits": (lambda d, p: d.Binomial(p[0], logits=p[1]),
                        [[5.0, 10.0, 3.0], [-1.0, 0.0, 1.0]], [2.0, 10.0, 0.0], "float64"),
    "MultivariateNormal-cov": (lambda d, p: d.MultivariateNormal(p[0], covariance_matrix=p[1]),
                               [[0.5, -1.0, 0.2], MVN_COV],
                               [[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]], "float64"),
    "MultivariateNormal-tril": (lambda d, p: d.MultivariateNormal(p[0], scale_tril=p[1]),
                                [[[0.5, -1.0, 0.2], [0.0, 1.0, 2.0]], MVN_TRIL],
                                [1.0, -2.0, 0.5], "float64"),
    "MultivariateNormal-precision": (
        lambda d, p: d.MultivariateNormal(p[0], precision_matrix=p[1]),
        [[0.5, -1.0, 0.2], MVN_COV], [[1.0, -2.0, 0.5]], "float64"),
    "Independent-Normal": (lambda d, p: d.Independent(d.Normal(p[0], p[1]), 1),
                           [[[0.5, -1.0], [0.0, 1.0]], [[1.0, 2.0], [0.5, 0.3]]],
                           [[0.3, -2.0], [0.1, 1.2]], "float64"),
}  # fmt: skip
ICDF_INPUT = [[0.2], [0.9]]  # broadcasts with every batch shape above
QUANTITIES = ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev"]


def _evaluate(dist, quantity: str, value):
    if quantity in ("log_prob", "cdf"):
        return getattr(dist, quantity)(value)
    if quantity == "icdf":
        return dist.icdf(value)
    if quantity == "entropy":
        return dist.entropy()
    return getattr(dist, quantity)


def _close(a: np.ndarray, b: np.ndarray) -> None:
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-10, equal_nan=True)


@pytest.mark.parametrize("quantity", QUANTITIES)
@pytest.mark.parametrize("case", list(CASES))
def test_quantities_and_gradients_match_torch(case: str, quantity: str, device: str) -> None:
    check_quantity_against_torch(CASES[case], quantity, device)


def check_quantity_against_torch(case: tuple, quantity: str, device: str) -> None:
    """One quantity of one distribution (a CASES entry) and its gradient in every
    parameter against torch's; NotImplementedError where torch raises it."""
    make, params, value, dtype = case
    theirs_p = _params(torch, None, params)
    ours_p = _params(microtorch, device, params)
    theirs_d, ours_d = make(TD, theirs_p), make(D, ours_p)
    icdf = quantity == "icdf"
    v = ICDF_INPUT if icdf else value
    v_dtype = "float64" if icdf else dtype
    try:
        expected = _evaluate(theirs_d, quantity, _value(torch, None, v, v_dtype))
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            _evaluate(ours_d, quantity, _value(microtorch, device, v, v_dtype))
        return
    got = _evaluate(ours_d, quantity, _value(microtorch, device, v, v_dtype))
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(expected.shape)
    _close(_np(got), _np(expected))
    if expected.grad_fn is None:  # a constant (Exponential's mode): no graph either
        assert got.grad_fn is None
        return
    if not np.isfinite(_np(expected)).all():
        return
    try:
        expected.sum().backward()
    except NotImplementedError:  # e.g. Gamma.cdf in the concentration
        with pytest.raises(NotImplementedError):
            got.sum().backward()
        return
    got.sum().backward()
    for ours, theirs in zip(ours_p, theirs_p):
        if theirs.grad is None:
            assert ours.grad is None or not _np(ours.grad).any()
        else:
            _close(_np(ours.grad), _np(theirs.grad))


@pytest.mark.parametrize("case", list(CASES))
def test_float32_parameters_stay_float32_as_torch(case: str) -> None:
    check_float32_against_torch(CASES[case])


def check_float32_against_torch(case: tuple) -> None:
    """log_prob, entropy, mean, variance and samples in float32 for float32 parameters."""
    make, params, value, dtype = case
    v_dtype = "float32" if dtype == "float64" else dtype
    ours = make(D, [microtorch.tensor(p) for p in params])
    theirs = make(TD, [torch.tensor(p) for p in params])
    for quantity in ("log_prob", "entropy", "mean", "variance"):
        try:
            expected = _evaluate(theirs, quantity, _value(torch, None, value, v_dtype))
        except NotImplementedError:
            continue
        got = _evaluate(ours, quantity, _value(microtorch, None, value, v_dtype))
        assert got.dtype == microtorch.float32, quantity
        np.testing.assert_allclose(_np(got), _np(expected), rtol=2e-5, atol=1e-6,
                                   equal_nan=True, err_msg=quantity)  # fmt: skip
    sample = ours.sample((2,))
    assert str(sample.dtype).split(".")[-1] == str(theirs.sample((2,)).dtype).split(".")[-1]


RSAMPLE = ["Normal", "Normal-broadcast", "Uniform", "Exponential", "Laplace", "LogNormal"]


@pytest.mark.parametrize("case", RSAMPLE)
def test_rsample_gradient_is_torch_reparameterisation(case: str, device: str) -> None:
    """For x = F^-1(u; theta) the reparameterised gradient is dx/dtheta = -(dF/dtheta) / p(x)
    at fixed u: torch's cdf and density at our draws give what torch's rsample would with
    the same noise."""
    check_rsample_gradient_against_torch(CASES[case], device)


def check_rsample_gradient_against_torch(case: tuple, device: str) -> None:
    """Our rsample's gradient at our draws against torch's -(dF/dtheta) / p(x) there."""
    make, params, _, _ = case
    ours_p = _params(microtorch, device, params)
    x = make(D, ours_p).rsample((5,))
    assert x.requires_grad
    x.sum().backward()
    theirs_p = _params(torch, None, params)
    theirs = make(TD, theirs_p)
    x_t = torch.tensor(_np(x))
    (-(theirs.cdf(x_t) / theirs.log_prob(x_t).exp().detach()).sum()).backward()
    for ours, t in zip(ours_p, theirs_p):
        np.testing.assert_allclose(_np(ours.grad), _np(t.grad), rtol=1e-6, atol=1e-9)


def test_gamma_rsample_gradient_is_torch_implicit_reparameterisation(device: str) -> None:
    """d x / d concentration at our draws: PyTorch's _standard_gamma_grad to its own
    accuracy (~1e-4), and exactly the derivative that keeps P(a, x) (the quantile) fixed."""
    a = microtorch.tensor([0.05, 0.5, 2.0, 40.0], dtype=microtorch.float64, device=device)
    rate = microtorch.tensor([1.0, 2.0, 0.5, 3.0], dtype=microtorch.float64, device=device)
    a.requires_grad_(True)
    rate.requires_grad_(True)
    x = D.Gamma(a, rate).rsample((3,))
    x.sum().backward()
    g = torch.tensor(_np(x * rate))  # the standard gamma draws
    a_t = torch.tensor(_np(a)).expand_as(g)
    dg_da = torch._standard_gamma_grad(a_t, g)
    np.testing.assert_allclose(_np(a.grad), (dg_da / torch.tensor(_np(rate))).sum(0), rtol=1e-4)
    np.testing.assert_allclose(_np(rate.grad), (-g / torch.tensor(_np(rate)) ** 2).sum(0))
    # moving a and x together along (1, dx/da) leaves P(a, x) unchanged (to O(h^2))
    ours = microtorch.ops.elementwise
    a_np, g_np = a_t.numpy(), g.numpy()
    slope = ours.standard_gamma_grad(a_np, g_np)
    h = 1e-7 * a_np  # a step relative to a: x(a) curves sharply for small a
    moved = ours.gammainc(a_np + h, g_np + h * slope) - ours.gammainc(a_np - h, g_np - h * slope)
    np.testing.assert_allclose(moved / (2 * h), 0.0, atol=1e-6)


def test_multivariate_normal_rsample_gradient_is_loc_plus_L_eps(device: str) -> None:
    """x = loc + L eps: the noise recovered from our draw, pushed through torch's own
    scale_tril, gives the same gradients."""
    make, params, _, _ = CASES["MultivariateNormal-cov"]
    ours_p = _params(microtorch, device, params)
    ours = make(D, ours_p)
    x = ours.rsample((4,))
    x.sum().backward()
    theirs_p = _params(torch, None, params)
    theirs = make(TD, theirs_p)
    L = theirs.scale_tril.detach()
    eps = torch.linalg.solve_triangular(L, (torch.tensor(_np(x)) - theirs.loc.detach()).T,
                                        upper=False).T  # fmt: skip
    (theirs.loc + eps @ theirs.scale_tril.T).sum().backward()
    for o, t in zip(ours_p, theirs_p):
        np.testing.assert_allclose(_np(o.grad), _np(t.grad), rtol=1e-6, atol=1e-9)


def test_sample_has_no_gradient_and_rsample_is_refused_without_reparameterisation() -> None:
    loc = microtorch.tensor([0.0, 1.0], requires_grad=True)
    assert not D.Normal(loc, 1.0).sample((3,)).requires_grad
    with pytest.raises(NotImplementedError):
        D.Bernoulli(probs=microtorch.tensor([0.5])).rsample()
    assert not D.Categorical(probs=microtorch.ones(3)).has_rsample
    with pytest.raises(NotImplementedError):
        D.Poisson(2.0).rsample()
    assert D.Independent(D.Normal(microtorch.zeros(2), 1.0), 1).has_rsample


def test_a_subclass_without_constraints_warns_instead_of_validating_as_torch() -> None:
    """A Distribution subclass with no arg_constraints or support: making it and scoring a
    value each warn that validation is skipped; reading either raises NotImplementedError."""
    for d, lib in ((D, microtorch), (TD, torch)):

        class Bare(d.Distribution):
            def __init__(self) -> None:
                super().__init__(validate_args=True)

            def log_prob(self, value):
                self._validate_sample(value)
                return value * 0

        with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
            bare = Bare()
        with pytest.warns(UserWarning, match="does not define `support`"):
            bare.log_prob(lib.zeros(2))
        with pytest.raises(NotImplementedError):
            _ = bare.support
        with pytest.raises(NotImplementedError):
            _ = d.Distribution(validate_args=False).arg_constraints


def test_sample_n_is_sample_of_n_with_a_warning_as_torch() -> None:
    for d, lib in ((D, microtorch), (TD, torch)):
        dist = d.Normal(lib.zeros(2, 3), 1.0)
        with pytest.warns(FutureWarning, match=r"`sample_n\(n\)` will be deprecated"):
            draws = dist.sample_n(4)
        assert tuple(draws.shape) == (4, 2, 3) and not draws.requires_grad


STATS = {
    "Normal": lambda d, lib: d.Normal(lib.tensor([0.5, -1.0]), lib.tensor([1.0, 2.0])),
    "Uniform": lambda d, lib: d.Uniform(lib.tensor([0.0, -1.0]), lib.tensor([1.0, 3.0])),
    "Bernoulli": lambda d, lib: d.Bernoulli(probs=lib.tensor([0.2, 0.7])),
    "OneHotCategorical": lambda d, lib: d.OneHotCategorical(probs=lib.tensor([0.2, 0.3, 0.5])),
    "Exponential": lambda d, lib: d.Exponential(lib.tensor([0.5, 3.0])),
    "Laplace": lambda d, lib: d.Laplace(lib.tensor([0.5, -1.0]), lib.tensor([1.0, 0.5])),
    "LogNormal": lambda d, lib: d.LogNormal(lib.tensor([0.0, -1.0]), lib.tensor([0.5, 0.3])),
    "Beta": lambda d, lib: d.Beta(lib.tensor([0.3, 4.0]), lib.tensor([1.0, 2.0])),
    "Gamma": lambda d, lib: d.Gamma(lib.tensor([0.3, 4.0]), lib.tensor([1.0, 2.0])),
    "Poisson": lambda d, lib: d.Poisson(lib.tensor([0.5, 20.0])),
    "Binomial": lambda d, lib: d.Binomial(lib.tensor([5.0, 30.0]), probs=lib.tensor([0.2, 0.7])),
    "MultivariateNormal": lambda d, lib: d.MultivariateNormal(
        lib.tensor([0.5, -1.0, 0.2]), covariance_matrix=lib.tensor(MVN_COV)),
}  # fmt: skip


@pytest.mark.parametrize("case", list(STATS))
def test_sample_mean_and_variance_match_the_distribution(case: str, device: str) -> None:
    n = 40000
    microtorch.manual_seed(3)
    dist = STATS[case](D, microtorch)
    samples = _np(_on(dist, device).sample((n,)))
    assert samples.dtype == np.float32
    mean, var = _np(dist.mean), _np(dist.variance)
    np.testing.assert_allclose(samples.mean(0), mean, atol=5 * np.sqrt(var.max() / n))
    np.testing.assert_allclose(samples.var(0), var, rtol=0.1, atol=1e-3)


def _on(dist, device: str):
    """The same distribution made again with its parameters on ``device``."""
    if device == "cpu":
        return dist
    name = type(dist).__name__
    moved = {
        k: v.to(device)
        for k, v in dist.__dict__.items()
        if isinstance(v, microtorch.Tensor) and not k.startswith("_")  # not _param
    }
    if name == "OneHotCategorical":
        return D.OneHotCategorical(probs=dist.probs.to(device))
    if name == "LogNormal":
        return D.LogNormal(dist.loc.to(device), dist.scale.to(device))
    if name == "Beta":
        return D.Beta(dist.concentration1.to(device), dist.concentration0.to(device))
    if name == "Binomial":
        return D.Binomial(moved["total_count"], probs=moved["probs"])
    if name == "MultivariateNormal":
        return D.MultivariateNormal(moved["loc"], covariance_matrix=moved["covariance_matrix"])
    return type(dist)(**{k: v for k, v in moved.items()})


def test_categorical_sample_frequencies(device: str) -> None:
    probs = microtorch.tensor([[0.2, 0.3, 0.5], [0.9, 0.1, 0.0]], device=device)
    samples = _np(D.Categorical(probs=probs).sample((20000,)))
    assert samples.shape == (20000, 2) and samples.dtype == np.int64
    for row in range(2):
        freq = np.bincount(samples[:, row], minlength=3) / 20000
        np.testing.assert_allclose(freq, _np(probs[row]), atol=0.015)


def test_seeded_draws_repeat() -> None:
    microtorch.manual_seed(11)
    a = D.Normal(0.0, 1.0).sample((4,))
    microtorch.manual_seed(11)
    b = D.Normal(0.0, 1.0).sample((4,))
    np.testing.assert_array_equal(_np(a), _np(b))


SHAPES = {
    "Normal": (lambda d, lib: d.Normal(lib.zeros(2, 3), 1.0), (2, 3), ()),
    "Uniform": (lambda d, lib: d.Uniform(lib.zeros(3), lib.ones(2, 1)), (2, 3), ()),
    "Bernoulli": (lambda d, lib: d.Bernoulli(logits=lib.zeros(4)), (4,), ()),
    "Categorical": (lambda d, lib: d.Categorical(logits=lib.zeros(2, 5)), (2,), ()),
    "OneHotCategorical": (lambda d, lib: d.OneHotCategorical(logits=lib.zeros(2, 5)), (2,), (5,)),
    "Exponential": (lambda d, lib: d.Exponential(lib.ones(3)), (3,), ()),
    "Laplace": (lambda d, lib: d.Laplace(0.0, lib.ones(3)), (3,), ()),
    "LogNormal": (lambda d, lib: d.LogNormal(lib.zeros(3), 1.0), (3,), ()),
    "MultivariateNormal": (lambda d, lib: d.MultivariateNormal(
        lib.zeros(2, 3), scale_tril=lib.eye(3)), (2,), (3,)),
    "Independent": (lambda d, lib: d.Independent(d.Normal(lib.zeros(2, 3, 4), 1.0), 2),
                    (2,), (3, 4)),
    "Beta": (lambda d, lib: d.Beta(lib.ones(2, 1), lib.ones(3)), (2, 3), ()),
    "Gamma": (lambda d, lib: d.Gamma(lib.ones(2, 1), lib.ones(3)), (2, 3), ()),
    "Poisson": (lambda d, lib: d.Poisson(lib.ones(3)), (3,), ()),
    "Binomial": (lambda d, lib: d.Binomial(lib.full((2, 3), 4.0), logits=lib.zeros(3)),
                 (2, 3), ()),
    "Scalar": (lambda d, lib: d.Normal(0.0, 1.0), (), ()),
    "Gamma-scalar": (lambda d, lib: d.Gamma(2.0, 3.0), (), ()),  # NumPy draws a float there
    "Beta-scalar": (lambda d, lib: d.Beta(2.0, 3.0), (), ()),
    "Poisson-scalar": (lambda d, lib: d.Poisson(2.0), (), ()),
    "Binomial-scalar": (lambda d, lib: d.Binomial(3, 0.5), (), ()),
    "Exponential-scalar": (lambda d, lib: d.Exponential(2.0), (), ()),
}  # fmt: skip


@pytest.mark.parametrize("case", list(SHAPES))
def test_shapes_expand_and_repr_match_torch(case: str) -> None:
    check_shapes_against_torch(SHAPES[case])


def check_shapes_against_torch(case: tuple) -> None:
    """batch/event shapes, repr, support, sample and rsample shapes (empty ones too) and
    expand (with log_prob of the expanded distribution) against torch's."""
    make, batch, event = case
    ours, theirs = make(D, microtorch), make(TD, torch)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape) == batch
    assert tuple(ours.event_shape) == tuple(theirs.event_shape) == event
    assert repr(ours).replace("microtorch", "torch") == repr(theirs)
    assert _as_torch_repr(repr(ours.support)) == repr(theirs.support)
    assert tuple(ours.sample((7, 2)).shape) == (7, 2) + batch + event
    assert tuple(ours.sample().shape) == batch + event
    try:
        empty = tuple(theirs.sample((0,)).shape)
    except RuntimeError:  # categorical draws: PyTorch's multinomial draws at least one
        with pytest.raises(RuntimeError):
            ours.sample((0,))
    else:
        assert tuple(ours.sample((0,)).shape) == empty == (0,) + batch + event
    if ours.has_rsample:
        assert tuple(ours.rsample((3,)).shape) == (3,) + batch + event
    bigger = (5,) + batch
    expanded, theirs_expanded = ours.expand(bigger), theirs.expand(bigger)
    assert tuple(expanded.batch_shape) == bigger and type(expanded) is type(ours)
    assert tuple(expanded.sample((2,)).shape) == (2,) + bigger + event
    value = theirs_expanded.sample()
    np.testing.assert_allclose(
        _np(expanded.log_prob(microtorch.tensor(value.numpy()))),
        theirs_expanded.log_prob(value).numpy(), rtol=1e-5, atol=1e-6,
    )  # fmt: skip


def test_a_lazy_parameter_first_read_under_no_grad_keeps_its_gradient() -> None:
    """probs computed from logits inside no_grad is kept with its graph, as PyTorch's."""
    grads = []
    for lib, d in ((torch, TD), (microtorch, D)):
        logits = lib.tensor([0.5, -1.0], requires_grad=True)
        dist = d.Bernoulli(logits=logits)
        with lib.no_grad():
            _ = dist.probs
        dist.mean.sum().backward()
        grads.append(logits.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)


def test_float32_parameters_give_float32_results(device: str) -> None:
    loc = microtorch.tensor([0.0, 1.0], device=device)
    d = D.Normal(loc, 2.0)
    assert d.scale.dtype == microtorch.float32 and d.scale.device == loc.device
    assert d.sample().dtype == microtorch.float32
    assert d.log_prob(loc).dtype == microtorch.float32
    assert D.Normal(0.0, 1.0).loc.dtype == microtorch.get_default_dtype()


BAD_PARAMETERS = [
    ("Normal", lambda d, lib: d.Normal(lib.tensor(0.0), lib.tensor(-1.0)), "scale"),
    ("Normal-nan", lambda d, lib: d.Normal(lib.tensor(float("nan")), 1.0), "loc"),
    ("Uniform", lambda d, lib: d.Uniform(1.0, 0.0), "LessThan"),
    ("Uniform-high", lambda d, lib: d.Uniform(lib.tensor(0.0), lib.tensor([1.0, 0.0])), "high"),
    ("Bernoulli", lambda d, lib: d.Bernoulli(probs=lib.tensor([1.5])), "probs"),
    ("Categorical", lambda d, lib: d.Categorical(probs=lib.tensor([-0.5, 1.0])), "probs"),
    ("Exponential", lambda d, lib: d.Exponential(lib.tensor([0.0])), "rate"),
    ("Laplace", lambda d, lib: d.Laplace(0.0, lib.tensor([-2.0])), "scale"),
    ("LogNormal", lambda d, lib: d.LogNormal(0.0, lib.tensor([0.0])), "scale"),
    ("Gamma", lambda d, lib: d.Gamma(lib.tensor([1.0]), lib.tensor([-1.0])), "rate"),
    ("Poisson", lambda d, lib: d.Poisson(lib.tensor([-1.0])), "rate"),
    ("Binomial", lambda d, lib: d.Binomial(lib.tensor([2.5]), probs=lib.tensor([0.5])),
     "total_count"),
    ("MultivariateNormal-cov", lambda d, lib: d.MultivariateNormal(
        lib.zeros(2), covariance_matrix=lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
     "covariance_matrix"),
    ("MultivariateNormal-tril", lambda d, lib: d.MultivariateNormal(
        lib.zeros(2), scale_tril=lib.tensor([[1.0, 1.0], [0.0, 1.0]])), "scale_tril"),
    ("MultivariateNormal-cov-not-square", lambda d, lib: d.MultivariateNormal(
        lib.zeros(2), covariance_matrix=lib.ones(2, 3)), "covariance_matrix"),  # was isclose's
    ("MultivariateNormal-precision-not-square", lambda d, lib: d.MultivariateNormal(
        lib.zeros(2), precision_matrix=lib.ones(4, 2, 3)), "precision_matrix"),  # RuntimeError
]  # fmt: skip


@pytest.mark.parametrize("case", BAD_PARAMETERS, ids=[c[0] for c in BAD_PARAMETERS])
def test_invalid_parameters_raise_value_error_as_torch(case) -> None:
    check_invalid_parameters_as_torch(case)


def check_invalid_parameters_as_torch(case: tuple) -> None:
    """(id, make, name): both raise ValueError, ours naming ``name``, with torch's first
    line."""
    _, make, name = case
    with pytest.raises(ValueError) as theirs:
        make(TD, torch)
    with pytest.raises(ValueError, match=name) as ours:
        make(D, microtorch)
    assert _first_line(ours.value) == _first_line(theirs.value)


def test_beta_names_its_own_parameter() -> None:
    """PyTorch's message names the Dirichlet inside its Beta; microtorch's the Beta."""
    with pytest.raises(ValueError):
        TD.Beta(torch.tensor([0.5]), torch.tensor([-1.0]))
    with pytest.raises(ValueError, match=r"concentration0 .* GreaterThan\(lower_bound=0.0\)"):
        D.Beta(microtorch.tensor([0.5]), microtorch.tensor([-1.0]))


def _first_line(error: Exception) -> str:
    """The message's first line, with microtorch's tensor reprs written as torch's."""
    return _as_torch_repr(str(error).split("\n")[0])


def _as_torch_repr(text: str) -> str:
    """text with microtorch's tensor reprs written as torch's."""
    return text.replace("microtorch", "torch").replace(", dtype=torch.float32, device='cpu'", "")


def test_validation_can_be_turned_off() -> None:
    d = D.Normal(0.0, microtorch.tensor(-1.0), validate_args=False)
    assert np.isnan(_np(d.log_prob(microtorch.tensor(0.0))))
    D.Distribution.set_default_validate_args(False)
    try:
        D.Exponential(microtorch.tensor(-1.0)).log_prob(microtorch.tensor(-3.0))
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Exponential(microtorch.tensor(-1.0))


OUTSIDE_SUPPORT = [
    ("Normal", lambda d, lib: d.Normal(0.0, 1.0), float("nan")),
    ("Uniform", lambda d, lib: d.Uniform(0.0, 1.0), 2.0),
    ("Bernoulli", lambda d, lib: d.Bernoulli(probs=lib.tensor(0.3)), 0.5),
    ("Categorical", lambda d, lib: d.Categorical(probs=lib.tensor([0.5, 0.5])), 2.0),
    ("Exponential", lambda d, lib: d.Exponential(lib.tensor(1.0)), -1.0),
    ("LogNormal", lambda d, lib: d.LogNormal(0.0, 1.0), 0.0),
    ("Beta", lambda d, lib: d.Beta(lib.tensor(1.0), 2.0), 1.5),
    ("Gamma", lambda d, lib: d.Gamma(lib.tensor(1.0), 1.0), -0.5),
    ("Poisson", lambda d, lib: d.Poisson(lib.tensor(1.0)), 1.5),
    ("Binomial", lambda d, lib: d.Binomial(3, probs=lib.tensor(0.5)), 4.0),
    ("OneHotCategorical", lambda d, lib: d.OneHotCategorical(probs=lib.tensor([0.5, 0.5])),
     [1.0, 1.0]),
    ("MultivariateNormal", lambda d, lib: d.MultivariateNormal(
        lib.zeros(2), scale_tril=lib.eye(2)), [0.0, float("nan")]),
]  # fmt: skip


@pytest.mark.parametrize("case", OUTSIDE_SUPPORT, ids=[c[0] for c in OUTSIDE_SUPPORT])
def test_log_prob_outside_the_support_raises_value_error_as_torch(case) -> None:
    check_outside_support_as_torch(case)


def check_outside_support_as_torch(case: tuple) -> None:
    """(id, make, value): log_prob(value) raises ValueError naming the support, with
    torch's first line."""
    _, make, value = case
    with pytest.raises(ValueError) as theirs:
        make(TD, torch).log_prob(torch.tensor(value))
    with pytest.raises(ValueError, match="support") as ours:
        make(D, microtorch).log_prob(microtorch.tensor(value))
    assert _first_line(ours.value) == _first_line(theirs.value)


def test_other_argument_errors_as_torch() -> None:
    for lib, d in ((torch, TD), (microtorch, D)):
        with pytest.raises(ValueError, match="not both"):
            d.Bernoulli(probs=lib.tensor(0.5), logits=lib.tensor(0.0))
        with pytest.raises(ValueError, match="not both"):
            d.Categorical()
        with pytest.raises(ValueError, match="one-dimensional"):
            d.Categorical(probs=lib.tensor(1.0))
        with pytest.raises(ValueError, match="Exactly one"):
            d.MultivariateNormal(lib.zeros(2))
        with pytest.raises(ValueError, match="loc must be at least one-dimensional"):
            d.MultivariateNormal(lib.tensor(0.0), scale_tril=lib.eye(2))
        with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
            d.Independent(d.Normal(lib.zeros(2), 1.0), 2)
        with pytest.raises(ValueError, match="must be a Tensor"):
            d.Normal(0.0, 1.0).log_prob(0.5)
        with pytest.raises(ValueError, match="broadcastable"):
            d.Normal(lib.zeros(3), 1.0).log_prob(lib.zeros(2))
        with pytest.raises(ValueError, match="event_shape"):
            d.MultivariateNormal(lib.zeros(2), scale_tril=lib.eye(2)).log_prob(lib.zeros(3))


def test_enumerate_support_as_torch() -> None:
    for make in (lambda d, lib: d.Bernoulli(probs=lib.tensor([0.3, 0.6])),
                 lambda d, lib: d.Categorical(logits=lib.zeros(2, 3)),
                 lambda d, lib: d.OneHotCategorical(logits=lib.zeros(2, 3))):  # fmt: skip
        ours, theirs = make(D, microtorch), make(TD, torch)
        for expand in (True, False):
            got, expected = ours.enumerate_support(expand), theirs.enumerate_support(expand)
            assert tuple(got.shape) == tuple(expected.shape)
            np.testing.assert_array_equal(_np(got), expected.numpy())
            assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]


# (make(dists, lib, validate_args), [(value, validate_args), ...])
VALUE_IN_PARAMETER_DTYPE = {
    "Gamma": (lambda d, lib, v: d.Gamma(lib.tensor([2.0, 1.0]), 3.0, validate_args=v),
              [(0.5, True), ([0.5, 1.0], True), ("float64", True)]),
    "HalfCauchy": (lambda d, lib, v: d.HalfCauchy(lib.tensor([2.0, 1.0]), validate_args=v),
                   [("float64", True), (0.5, False), ([0.5, -1.0], False)]),
}  # fmt: skip


@pytest.mark.parametrize("case", list(VALUE_IN_PARAMETER_DTYPE))
def test_log_prob_takes_value_in_the_parameters_dtype_as_torch(case: str) -> None:
    """PyTorch's Gamma and HalfCauchy read log_prob's value with as_tensor in their
    parameter's dtype (HalfNormal and the others do not): a float64 value gives float32,
    and a number works (Gamma's even with validation; HalfCauchy's validates first)."""
    make, values = VALUE_IN_PARAMETER_DTYPE[case]
    for value, validate in values:
        results = []
        for lib, d in ((microtorch, D), (torch, TD)):
            dist = make(d, lib, validate)
            v = lib.tensor([0.5, 1.0], dtype=lib.float64) if value == "float64" else value
            results.append(dist.log_prob(v))
        ours, theirs = results
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1] == "float32"
        np.testing.assert_allclose(_np(ours), theirs.numpy(), rtol=1e-6)


def test_integer_logits_are_normalised_in_the_default_float_dtype_as_torch() -> None:
    """Categorical (and OneHotCategorical, Multinomial) of int64 logits: float32 logits and
    probs, as PyTorch's logits - logsumexp(logits) gives (it raised in log_softmax)."""
    for make in (lambda d, v: d.Categorical(logits=v), lambda d, v: d.OneHotCategorical(logits=v),
                 lambda d, v: d.Multinomial(3, logits=v)):  # fmt: skip
        ours = make(D, microtorch.tensor([[1, 3, 0], [0, -2, 2]]))
        theirs = make(TD, torch.tensor([[1, 3, 0], [0, -2, 2]]))
        for name in ("logits", "probs", "mean", "entropy"):
            got, expected = getattr(ours, name), getattr(theirs, name)
            got, expected = (got(), expected()) if callable(got) else (got, expected)
            assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], name
            np.testing.assert_allclose(_np(got), expected.numpy(), rtol=1e-6, atol=1e-7)


def test_lognormal_is_an_exp_transformed_normal_as_torch(device: str) -> None:
    """A TransformedDistribution with base_dist and transforms, as PyTorch's: its cdf
    validates the base's value (cdf(0) is 0 and cdf(-1) raises), and an expand keeps it."""
    for lib, d, dev in ((microtorch, D, device), (torch, TD, "cpu")):
        dist = d.LogNormal(lib.tensor([0.5, -1.0], dtype=lib.float64, device=dev), 2.0)
        assert isinstance(dist, d.TransformedDistribution)
        assert type(dist.base_dist) is d.Normal and len(dist.transforms) == 1
        assert isinstance(dist.transforms[0], d.transforms.ExpTransform)
        zero = lib.tensor(0.0, dtype=lib.float64, device=dev)
        np.testing.assert_array_equal(_np(dist.cdf(zero)), 0.0)
        with pytest.raises(ValueError):
            dist.cdf(zero - 1)
        with pytest.raises(ValueError):
            dist.log_prob(zero)
        expanded = dist.expand((3, 2))
        assert type(expanded) is d.LogNormal and tuple(expanded.base_dist.batch_shape) == (3, 2)


def test_independent_support_as_torch() -> None:
    """With no reinterpreted dims the support is the base's own (it was wrapped in an
    independent(real, 0))."""
    for n in (0, 1, 2):
        ours = D.Independent(D.Normal(microtorch.zeros(2, 3), 1.0), n).support
        theirs = TD.Independent(TD.Normal(torch.zeros(2, 3), 1.0), n).support
        assert repr(ours) == repr(theirs) and ours.event_dim == theirs.event_dim == n


def test_constraint_reprs_as_torch() -> None:
    for name in ("real", "positive", "nonnegative", "unit_interval", "simplex", "boolean",
                 "one_hot", "lower_cholesky", "positive_definite", "real_vector",
                 "nonnegative_integer"):  # fmt: skip
        assert repr(getattr(D.constraints, name)) == repr(getattr(TD.constraints, name))
    assert repr(D.constraints.integer_interval(0, 3)) == repr(TD.constraints.integer_interval(0, 3))
    assert repr(D.constraints.interval(0.0, 2.0)) == repr(TD.constraints.interval(0.0, 2.0))


MATRICES = [
    [[1.0, 0.0], [0.5, 1.0]],  # lower triangular, not symmetric
    [[2.0, 0.5], [0.5, 1.0]],  # positive definite
    [[1.0, 1.0], [1.0, 1.0]],  # positive semidefinite, singular
    [[1.0, 2.0], [2.0, 1.0]],  # symmetric, indefinite
    [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, -1.0]]],  # a batch
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],  # not square
]


@pytest.mark.parametrize("name", ["lower_triangular", "square", "symmetric",
                                  "positive_semidefinite", "positive_definite"])  # fmt: skip
def test_matrix_constraints_as_torch(name: str, device: str) -> None:
    ours, theirs = getattr(D.constraints, name), getattr(TD.constraints, name)
    assert repr(ours) == repr(theirs)
    assert (ours.event_dim, ours.is_discrete) == (theirs.event_dim, theirs.is_discrete)
    for m in MATRICES:
        got = ours.check(microtorch.tensor(m, dtype=microtorch.float64, device=device))
        assert got.device == microtorch.device(device)
        expected = theirs.check(torch.tensor(m, dtype=torch.float64))
        assert tuple(got.shape) == tuple(expected.shape) and str(got.dtype).endswith("bool")
        np.testing.assert_array_equal(_np(got), expected.numpy())


def _static(constraint) -> tuple:
    """(is_discrete, event_dim), each NotImplementedError where it cannot be known."""
    out = []
    for attr in ("is_discrete", "event_dim"):
        try:
            out.append(getattr(constraint, attr))
        except NotImplementedError:
            out.append(NotImplementedError)
    return tuple(out)


def test_dependent_constraints_and_properties_as_torch() -> None:
    """constraints.dependent(is_discrete=, event_dim=); a support computed from parameters
    is, read from the class, a dependent constraint with torch's static attributes."""
    for c in (D.constraints, TD.constraints):
        with pytest.raises(ValueError):
            c.dependent.check(microtorch.zeros(1) if c is D.constraints else torch.zeros(1))
    assert _static(D.constraints.dependent) == _static(TD.constraints.dependent)
    for kwargs in ({"is_discrete": True}, {"event_dim": 1}, {"is_discrete": False, "event_dim": 2}):
        ours, theirs = D.constraints.dependent(**kwargs), TD.constraints.dependent(**kwargs)
        assert repr(ours) == repr(theirs) == "Dependent()"
        assert _static(ours) == _static(theirs) and D.constraints.is_dependent(ours)
    names = ["Binomial", "Categorical", "GeneralizedPareto", "Independent", "MixtureSameFamily",
             "Multinomial", "Pareto", "Uniform", "TransformedDistribution", "Normal", "LogNormal",
             "HalfNormal"]  # fmt: skip
    for name in names:
        ours, theirs = getattr(D, name).support, getattr(TD, name).support
        assert D.constraints.is_dependent(ours) == TD.constraints.is_dependent(theirs), name
        assert _static(ours) == _static(theirs), name
    assert repr(D.Uniform(0.0, 2.0).support) == repr(TD.Uniform(0.0, 2.0).support)

    class Shifted(D.Distribution):
        arg_constraints: dict = {}

        @D.constraints.dependent_property(is_discrete=False, event_dim=0)
        def support(self):
            return D.constraints.greater_than(self.low)

    shifted = Shifted()
    shifted.low = 1.5
    assert repr(shifted.support) == "GreaterThan(lower_bound=1.5)"
    assert _static(Shifted.support) == (False, 0)
