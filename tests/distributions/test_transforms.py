"""Transforms, TransformedDistribution and biject_to / transform_to against
torch.distributions': forward and inverse values, log |det J| and their gradients,
domains, codomains, shapes, caching, reprs, and the constraint registries' choices."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch

torch = pytest.importorskip("torch")

D = microtorch.distributions
T = microtorch.distributions.transforms
TT = torch.distributions.transforms
TD = torch.distributions


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy()


def _pair(values, device: str = "cpu"):
    """The same float64 leaf tensor in torch and microtorch."""
    theirs = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    ours = microtorch.tensor(values, dtype=microtorch.float64, device=device)
    return theirs, ours.requires_grad_(True)


X = [[0.3, -1.2, 2.0], [-0.5, 0.1, 0.8]]
POSITIVE = [[0.3, 1.2, 2.0], [0.5, 0.1, 0.8]]

# name: (make(transforms module, lib), input values)
TRANSFORMS = {
    "Exp": (lambda t, lib: t.ExpTransform(), X),
    "Sigmoid": (lambda t, lib: t.SigmoidTransform(), X),
    "Tanh": (lambda t, lib: t.TanhTransform(), X),
    "Affine-numbers": (lambda t, lib: t.AffineTransform(1.0, -2.0), X),
    "Affine-tensors": (lambda t, lib: t.AffineTransform(
        lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64),
        lib.tensor([2.0, 0.5, -3.0], dtype=lib.float64)), X),
    "Affine-event-dim": (lambda t, lib: t.AffineTransform(
        0.5, lib.tensor([2.0, 0.5, -3.0], dtype=lib.float64), event_dim=1), X),
    "Power": (lambda t, lib: t.PowerTransform(lib.tensor(2.5, dtype=lib.float64)), POSITIVE),
    "Power-negative": (lambda t, lib: t.PowerTransform(lib.tensor(-1.0, dtype=lib.float64)),
                       POSITIVE),
    "StickBreaking": (lambda t, lib: t.StickBreakingTransform(), X),
    "Compose": (lambda t, lib: t.ComposeTransform([t.AffineTransform(0.5, 2.0), t.ExpTransform()]),
                X),
    "Compose-into-vector": (lambda t, lib: t.ComposeTransform(
        [t.TanhTransform(), t.StickBreakingTransform()]), X),
    "Independent": (lambda t, lib: t.IndependentTransform(t.SigmoidTransform(), 1), X),
    "Reshape": (lambda t, lib: t.ReshapeTransform((3,), (3, 1)), X),
    "identity": (lambda t, lib: t.identity_transform, X),
    "Cat-last-dim": (lambda t, lib: t.CatTransform([t.ExpTransform(), t.AffineTransform(1.0, 2.0)],
                                                   dim=-1, lengths=[1, 2]), X),
    "Cat-batch-dim": (lambda t, lib: t.CatTransform([t.ExpTransform(), t.SigmoidTransform()]), X),
    "Cat-vectors": (lambda t, lib: t.CatTransform(
        [t.IndependentTransform(t.SigmoidTransform(), 1), t.IndependentTransform(t.ExpTransform(), 1)],
        dim=0), X),
    "Stack-last-dim": (lambda t, lib: t.StackTransform(
        [t.ExpTransform(), t.SigmoidTransform(), t.TanhTransform()], dim=-1), X),
    "Stack-batch-dim": (lambda t, lib: t.StackTransform([t.ExpTransform(), t.TanhTransform()]), X),
    "CorrCholesky": (lambda t, lib: t.CorrCholeskyTransform(), X),
    "CorrCholesky-4": (lambda t, lib: t.CorrCholeskyTransform(),
                       [[0.3, -1.2, 2.0, -0.5, 0.1, 0.8]]),
    "Inverse-of-Exp": (lambda t, lib: t.ExpTransform().inv, POSITIVE),
    "Inverse-of-StickBreaking": (lambda t, lib: t.StickBreakingTransform().inv,
                                 [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]),
}  # fmt: skip


@pytest.mark.parametrize("case", list(TRANSFORMS))
def test_transform_forward_inverse_and_log_det_match_torch(case: str, device: str) -> None:
    make, values = TRANSFORMS[case]
    theirs, ours = make(TT, torch), make(T, microtorch)
    if device != "cpu":
        ours = _on_device(case, device)
    x_t, x = _pair(values, device)
    y_t, y = theirs(x_t), ours(x)
    np.testing.assert_allclose(_np(y), _np(y_t), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(_np(ours.inv(y)), _np(theirs.inv(y_t)), rtol=1e-10, atol=1e-12)
    ladj_t, ladj = theirs.log_abs_det_jacobian(x_t, y_t), ours.log_abs_det_jacobian(x, y)
    assert tuple(ladj.shape) == tuple(ladj_t.shape)
    np.testing.assert_allclose(_np(ladj), _np(ladj_t), rtol=1e-12, atol=1e-14)
    (y_t.sum() + ladj_t.sum()).backward()
    (y.sum() + ladj.sum()).backward()
    np.testing.assert_allclose(_np(x.grad), _np(x_t.grad), rtol=1e-10, atol=1e-12)
    assert repr(ours) == repr(theirs)
    assert repr(ours.domain) == repr(theirs.domain)
    assert repr(ours.codomain) == repr(theirs.codomain)
    assert ours.domain.event_dim == theirs.domain.event_dim
    assert ours.codomain.event_dim == theirs.codomain.event_dim
    assert ours.bijective == theirs.bijective
    assert tuple(ours.forward_shape(x.shape)) == tuple(theirs.forward_shape(x_t.shape))
    assert tuple(ours.inverse_shape(y.shape)) == tuple(theirs.inverse_shape(y_t.shape))


def _on_device(case: str, device: str):
    """The transform made with its tensor parameters on device."""
    make, _ = TRANSFORMS[case]

    class _Lib:
        float64 = microtorch.float64

        @staticmethod
        def tensor(v, dtype=None):
            return microtorch.tensor(v, dtype=dtype, device=device)

    return make(T, _Lib)


def test_non_bijective_transforms_match_torch_where_defined() -> None:
    x_t, x = _pair(X)
    for name in ("AbsTransform", "SoftmaxTransform", "LowerCholeskyTransform"):
        theirs, ours = getattr(TT, name)(), getattr(T, name)()
        values = [X[0], X[1], [1.0, 0.0, -0.2]] if name == "LowerCholeskyTransform" else X
        x_t, x = _pair(values)
        np.testing.assert_allclose(_np(ours(x)), _np(theirs(x_t)), rtol=1e-12)
        np.testing.assert_allclose(_np(ours.inv(ours(x))), _np(theirs.inv(theirs(x_t))),
                                   rtol=1e-12)  # fmt: skip
        assert not ours.bijective and not theirs.bijective
        assert repr(ours.codomain) == repr(theirs.codomain)
    pd_t, pd = TT.PositiveDefiniteTransform(), T.PositiveDefiniteTransform()
    m_t, m = _pair([X[0], X[1], [1.0, 0.0, -0.2]])
    np.testing.assert_allclose(_np(pd(m)), _np(pd_t(m_t)), rtol=1e-12)
    np.testing.assert_allclose(_np(pd.inv(pd(m))), _np(pd_t.inv(pd_t(m_t))), rtol=1e-10)


def test_tanh_and_sigmoid_log_det_stay_finite_far_out() -> None:
    """log(1 - tanh(x)^2) written through logsigmoid: finite at x = 40, as torch's."""
    for name in ("TanhTransform", "SigmoidTransform"):
        x_t, x = _pair([-40.0, 0.0, 40.0])
        theirs, ours = getattr(TT, name)(), getattr(T, name)()
        ladj = ours.log_abs_det_jacobian(x, ours(x))
        assert np.isfinite(_np(ladj)).all()
        np.testing.assert_allclose(_np(ladj), _np(theirs.log_abs_det_jacobian(x_t, theirs(x_t))))


def test_stick_breaking_far_out_stays_on_the_simplex_as_torch(device: str) -> None:
    """An entry whose sigmoid rounds to 1 (x = 50) is clipped, as torch's: the parts stay
    finite and on the simplex (they were nan), and LogisticNormal samples validate."""
    x_t, x = _pair([[2.5, 50.0], [-40.0, 50.0], [50.0, 50.0]], device)
    ours, theirs = T.StickBreakingTransform(), TT.StickBreakingTransform()
    y = ours(x)
    assert bool(D.constraints.simplex.check(y).all())
    np.testing.assert_allclose(_np(y), _np(theirs(x_t)), rtol=1e-12, atol=1e-300)
    ladj_t = theirs.log_abs_det_jacobian(x_t, theirs(x_t))
    np.testing.assert_allclose(_np(ours.log_abs_det_jacobian(x, y)), _np(ladj_t), rtol=1e-12)
    loc = microtorch.tensor([0.0, 50.0], dtype=microtorch.float64, device=device)
    dist = D.LogisticNormal(loc, microtorch.tensor([20.0, 1.0], device=device).double())
    assert np.isfinite(_np(dist.log_prob(dist.sample((200,))))).all()


def test_inverse_caching_and_equality() -> None:
    t = T.ExpTransform()
    assert t.inv.inv is t and t.inv is t.inv
    assert t == T.ExpTransform() and t.inv == T.ExpTransform().inv and t != T.SigmoidTransform()
    assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0)
    assert T.AffineTransform(1.0, 2.0) != T.AffineTransform(1.0, 3.0)
    assert T.ComposeTransform([t]) == T.ComposeTransform([T.ExpTransform()])
    cached = T.ExpTransform(cache_size=1)
    x = microtorch.tensor([0.5, 1.0], requires_grad=True)
    y = cached(x)
    assert cached.inv(y) is x  # the cache hands back the very input
    assert cached(x) is y
    assert T.ExpTransform().inv(y) is not x
    assert t.with_cache(1)._cache_size == 1 and t.with_cache(0) is t
    composed = T.ComposeTransform([T.AffineTransform(0.0, 2.0), T.ExpTransform()], cache_size=1)
    y = composed(x)
    assert composed.inv(y) is x
    with pytest.raises(ValueError, match="cache_size"):
        T.ExpTransform(cache_size=2)
    with pytest.raises(ValueError, match="cache_size"):
        TT.ExpTransform(cache_size=2)


def test_event_dim_and_equality_of_every_transform_as_torch() -> None:
    """event_dim is a ValueError where domain and codomain disagree on it (CorrCholesky,
    Reshape); == is identity where torch's class defines no equality of its own."""
    makers = {
        "Exp": lambda t: t.ExpTransform(),
        "StickBreaking": lambda t: t.StickBreakingTransform(),
        "LowerCholesky": lambda t: t.LowerCholeskyTransform(),
        "CorrCholesky": lambda t: t.CorrCholeskyTransform(),
        "Reshape": lambda t: t.ReshapeTransform((2, 3), (6,)),
        "Independent": lambda t: t.IndependentTransform(t.ExpTransform(), 1),
        "Affine-event": lambda t: t.AffineTransform(0.0, 2.0, event_dim=2),
        "Compose": lambda t: t.ComposeTransform([t.ExpTransform(), t.StickBreakingTransform()]),
    }
    for name, make in makers.items():
        outcomes = []
        for t in (T, TT):
            try:
                event_dim = make(t).event_dim
            except ValueError:
                event_dim = "ValueError"
            outcomes.append((event_dim, make(t) == make(t), make(t).inv == make(t).inv))
        assert outcomes[0] == outcomes[1], name


def test_sign_and_shape_errors_as_torch() -> None:
    assert T.ExpTransform().sign == TT.ExpTransform().sign == 1
    assert T.AffineTransform(0.0, -2.0).sign == TT.AffineTransform(0.0, -2.0).sign == -1
    assert T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, -1.0)]).sign == -1
    for t in (T, TT):
        with pytest.raises(ValueError, match="different numbers of elements"):
            t.ReshapeTransform((2, 3), (5,))
        with pytest.raises(NotImplementedError):
            _ = t.SoftmaxTransform().sign
        with pytest.raises(NotImplementedError):
            t.AbsTransform().log_abs_det_jacobian(None, None)


# constraint: (make(constraints module)), input values)
CONSTRAINTS = {
    "real": (lambda c: c.real, X),
    "positive": (lambda c: c.positive, X),
    "nonnegative": (lambda c: c.nonnegative, X),
    "greater_than": (lambda c: c.greater_than(2.0), X),
    "greater_than_eq": (lambda c: c.greater_than_eq(-1.0), X),
    "less_than": (lambda c: c.less_than(3.0), X),
    "unit_interval": (lambda c: c.unit_interval, X),
    "interval": (lambda c: c.interval(1.0, 3.0), X),
    "half_open_interval": (lambda c: c.half_open_interval(-2.0, 2.0), X),
    "simplex": (lambda c: c.simplex, X),
    "real_vector": (lambda c: c.real_vector, X),
    "independent-positive": (lambda c: c.independent(c.positive, 1), X),
    "cat": (lambda c: c.cat([c.positive, c.interval(-1.0, 1.0)], dim=-1, lengths=[1, 2]), X),
    "stack": (lambda c: c.stack([c.positive, c.unit_interval, c.real], dim=-1), X),
    "stack-batch": (lambda c: c.stack([c.real_vector, c.independent(c.positive, 1)]), X),
    "corr_cholesky": (lambda c: c.corr_cholesky, X),
    "lower_cholesky": (lambda c: c.lower_cholesky, [X[0], X[1], [1.0, 0.0, -0.2]]),
    "positive_definite": (lambda c: c.positive_definite, [X[0], X[1], [1.0, 0.0, -0.2]]),
    "positive_semidefinite": (lambda c: c.positive_semidefinite, [X[0], X[1], [1.0, 0.0, -0.2]]),
    "symmetric": (lambda c: c.symmetric, [X[0], X[1], [1.0, 0.0, -0.2]]),  # neither has one
    "lower_triangular": (lambda c: c.lower_triangular, [X[0], X[1], [1.0, 0.0, -0.2]]),
}


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("case", list(CONSTRAINTS))
def test_biject_to_and_transform_to_pick_torch_transforms(case: str, registry: str) -> None:
    make, values = CONSTRAINTS[case]
    ours_c, theirs_c = make(D.constraints), make(torch.distributions.constraints)
    ours_reg = getattr(D, registry)
    theirs_reg = getattr(torch.distributions, registry)
    try:
        theirs = theirs_reg(theirs_c)
    except NotImplementedError:
        with pytest.raises(NotImplementedError, match="Cannot transform"):
            ours_reg(ours_c)
        return
    ours = ours_reg(ours_c)
    assert repr(ours) == repr(theirs)
    x_t, x = _pair(values)
    y = ours(x)
    np.testing.assert_allclose(_np(y), _np(theirs(x_t)), rtol=1e-12)
    assert bool(ours_c.check(y).all())
    if theirs.bijective:
        np.testing.assert_allclose(_np(ours.inv(y)), values, rtol=1e-9, atol=1e-12)
        ladj_t = theirs.log_abs_det_jacobian(x_t, theirs(x_t))
        np.testing.assert_allclose(_np(ours.log_abs_det_jacobian(x, y)), _np(ladj_t), rtol=1e-12)


def test_registry_register_and_errors() -> None:
    registry = D.constraint_registry.ConstraintRegistry()
    registry.register(D.constraints.positive, lambda c: T.ExpTransform())
    assert registry(D.constraints.greater_than(3.0)) == T.ExpTransform()  # by type
    with pytest.raises(NotImplementedError, match="Cannot transform _Real"):
        registry(D.constraints.real)
    with pytest.raises(TypeError):
        registry.register(3, lambda c: None)


# name: (make(distributions, transforms, params), parameter values, log_prob values)
TRANSFORMED = {
    "Normal-exp": (lambda d, t, p: d.TransformedDistribution(d.Normal(p[0], p[1]),
                                                             [t.ExpTransform()]),
                   [[0.5, -1.0], [1.0, 0.5]], [0.3, 2.0]),
    "Normal-affine-sigmoid": (lambda d, t, p: d.TransformedDistribution(
        d.Normal(p[0], p[1]), [t.AffineTransform(1.0, -2.0), t.SigmoidTransform()]),
        [[0.5, -1.0], [1.0, 0.5]], [0.3, 0.9]),
    "Normal-stick-breaking": (lambda d, t, p: d.TransformedDistribution(
        d.Normal(p[0], p[1]), t.StickBreakingTransform()),
        [[0.5, -1.0], [1.0, 0.5]], [0.2, 0.3, 0.5]),
    "Normal-affine-event": (lambda d, t, p: d.TransformedDistribution(
        d.Normal(p[0], p[1]), t.AffineTransform(0.0, p[1], event_dim=1)),
        [[0.5, -1.0], [1.0, 0.5]], [0.3, 2.0]),
    "Uniform-decreasing": (lambda d, t, p: d.TransformedDistribution(
        d.Uniform(p[0], p[1]), [t.AffineTransform(2.0, -3.0)]),
        [[0.0, 1.0], [1.0, 3.0]], [1.5, -5.0]),
    "Normal-reshape": (lambda d, t, p: d.TransformedDistribution(
        d.Normal(p[0], p[1]), t.ReshapeTransform((2,), (2, 1))),
        [[0.5, -1.0], [1.0, 0.5]], [[0.3], [2.0]]),
}  # fmt: skip


@pytest.mark.parametrize("case", list(TRANSFORMED))
def test_transformed_distribution_matches_torch(case: str, device: str) -> None:
    make, params, value = TRANSFORMED[case]
    theirs_p = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in params]
    ours_p = [microtorch.tensor(v, dtype=microtorch.float64, device=device).requires_grad_(True)
              for v in params]  # fmt: skip
    theirs = make(torch.distributions, TT, theirs_p)
    ours = make(D, T, ours_p)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert repr(ours.support) == repr(theirs.support)
    v_t = torch.tensor(value, dtype=torch.float64)
    v = microtorch.tensor(value, dtype=microtorch.float64, device=device)
    lp_t, lp = theirs.log_prob(v_t), ours.log_prob(v)
    np.testing.assert_allclose(_np(lp), _np(lp_t), rtol=1e-12)
    lp_t.sum().backward()
    lp.sum().backward()
    for o, t in zip(ours_p, theirs_p):
        np.testing.assert_allclose(_np(o.grad), _np(t.grad), rtol=1e-10, atol=1e-12)
    if "stick" not in case and "event" not in case and "reshape" not in case:
        np.testing.assert_allclose(_np(ours.cdf(v)), _np(theirs.cdf(v_t)), rtol=1e-12)
        u = [0.2, 0.7]
        np.testing.assert_allclose(
            _np(ours.icdf(microtorch.tensor(u, dtype=microtorch.float64, device=device))),
            _np(theirs.icdf(torch.tensor(u, dtype=torch.float64))), rtol=1e-12)  # fmt: skip
    x = ours.rsample((4,))
    assert tuple(x.shape) == (4,) + tuple(theirs.batch_shape) + tuple(theirs.event_shape)
    assert x.requires_grad and not ours.sample((2,)).requires_grad
    assert bool(ours.support.check(ours.sample((50,))).all())
    expanded, theirs_expanded = ours.expand((3,) + tuple(ours.batch_shape)), theirs.expand(
        (3,) + tuple(theirs.batch_shape))  # fmt: skip
    assert tuple(expanded.batch_shape) == tuple(theirs_expanded.batch_shape)
    np.testing.assert_allclose(_np(expanded.log_prob(v)), _np(theirs_expanded.log_prob(v_t)),
                               rtol=1e-12)  # fmt: skip


def test_transformed_distribution_argument_errors_as_torch() -> None:
    for d, t, lib in ((D, T, microtorch), (torch.distributions, TT, torch)):
        with pytest.raises(ValueError, match="transforms must be a Transform or"):
            d.TransformedDistribution(d.Normal(0.0, 1.0), "exp")
        with pytest.raises(ValueError, match="transforms must be a Transform or a list"):
            d.TransformedDistribution(d.Normal(0.0, 1.0), [t.ExpTransform(), "exp"])
        with pytest.raises(ValueError, match="at least 1"):
            d.TransformedDistribution(d.Normal(0.0, 1.0), t.StickBreakingTransform())
        dist = d.TransformedDistribution(d.Normal(lib.zeros(2), 1.0), t.ExpTransform())
        with pytest.raises(ValueError, match="support"):
            dist.log_prob(lib.tensor([-1.0, 1.0]))


@pytest.mark.parametrize("diag", [-3, -1, 0, 1, 3])
def test_tril_matrix_to_vec_and_back_as_torch(diag: int, device: str) -> None:
    """distributions.utils' lower-triangle packing, row by row, with its gradient."""
    values = np.arange(2 * 16.0).reshape(2, 4, 4)
    theirs_m, ours_m = _pair(values.tolist(), device)
    theirs = TD.utils.tril_matrix_to_vec(theirs_m, diag)
    ours = D.utils.tril_matrix_to_vec(ours_m, diag)
    np.testing.assert_array_equal(_np(ours), _np(theirs))
    back_t, back = TD.utils.vec_to_tril_matrix(theirs, diag), D.utils.vec_to_tril_matrix(ours, diag)
    np.testing.assert_array_equal(_np(back), _np(back_t))
    (back_t * theirs_m).sum().backward()
    (back * ours_m).sum().backward()
    np.testing.assert_array_equal(_np(ours_m.grad), _np(theirs_m.grad))
    for utils in (D.utils, TD.utils):
        with pytest.raises(ValueError, match="outside"):
            utils.tril_matrix_to_vec(theirs_m if utils is TD.utils else ours_m, 4)
        with pytest.raises(ValueError, match="cannot be expressed"):
            utils.vec_to_tril_matrix(torch.ones(5) if utils is TD.utils else microtorch.ones(5))
