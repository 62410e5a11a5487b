"""nn.utils.parametrize and nn.utils.parametrizations (weight_norm, spectral_norm,
orthogonal) against PyTorch's: the same printed module, state_dict keys (a PyTorch
state_dict loads), values, gradients, right_inverse on assignment, chains, removal, caching
and errors; and the deprecated nn.utils.stateless.functional_call."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import microtorch as mt
from microtorch import nn
from microtorch.nn.utils import parametrizations, parametrize, stateless

from .torch_parity import assert_module_matches

RNG = np.random.default_rng(0)


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy()


def _modules(lib):
    """Parametrizations written the same way for microtorch and for torch (``lib``)."""

    class Symmetric(lib.nn.Module):
        def forward(self, X):  # noqa: N803
            return X.triu() + X.triu(1).mT

    class Double(lib.nn.Module):
        calls = 0

        def forward(self, X):  # noqa: N803
            Double.calls += 1
            return 2 * X

        def right_inverse(self, Y):  # noqa: N803
            return Y / 2

    class AddOne(lib.nn.Module):
        def forward(self, X):  # noqa: N803
            return X + 1

        def right_inverse(self, Y):  # noqa: N803
            return Y - 1

    class Split(lib.nn.Module):  # two originals: a + b
        def forward(self, a, b):
            return a + b

        def right_inverse(self, Y):  # noqa: N803
            return Y * 0.25, Y * 0.75

    return Symmetric, Double, AddOne, Split


def _ours_from(theirs, ours) -> None:
    """Load PyTorch's state_dict into ours (the keys must be the same)."""
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


def _same_values(ours, theirs, names) -> None:
    for name in names:
        np.testing.assert_allclose(
            _np(getattr(ours, name)), _np(getattr(theirs, name)), rtol=1e-12, atol=1e-14
        )


def test_register_prints_names_and_computes_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    Symmetric, Double, _, _ = _modules(mt)
    TSymmetric, TDouble, _, _ = _modules(torch)
    torch.manual_seed(0)
    theirs = torch.nn.Linear(3, 3).double()
    ours = nn.Linear(3, 3).double()
    _ours_from(theirs, ours)
    parametrize.register_parametrization(ours, "weight", Symmetric())
    parametrize.register_parametrization(ours, "weight", Double())  # chained: 2 * sym(W)
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", TSymmetric())
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", TDouble())
    assert repr(ours) == repr(theirs)
    assert type(ours).__name__ == "ParametrizedLinear"
    assert isinstance(ours, nn.Linear)
    assert parametrize.type_before_parametrizations(ours) is nn.Linear
    assert parametrize.type_before_parametrizations(nn.ReLU()) is nn.ReLU
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(ours.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    w = _np(ours.weight)
    np.testing.assert_allclose(w, w.T)
    _same_values(ours, theirs, ["weight"])
    # a PyTorch state_dict of the parametrized module loads
    with torch.no_grad():
        theirs.parametrizations.weight.original.copy_(torch.randn(3, 3, dtype=torch.float64))
    _ours_from(theirs, ours)
    _same_values(ours, theirs, ["weight"])
    x = RNG.standard_normal((4, 3))
    y, ty = ours(mt.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(_np(y), _np(ty), rtol=1e-12)
    r = RNG.standard_normal((4, 3))
    (y * mt.tensor(r)).sum().backward()
    (ty * torch.tensor(r)).sum().backward()
    np.testing.assert_allclose(
        _np(ours.parametrizations.weight.original.grad),
        _np(theirs.parametrizations.weight.original.grad),
        rtol=1e-12,
    )
    assert parametrize.is_parametrized(ours) and parametrize.is_parametrized(ours, "weight")
    assert not parametrize.is_parametrized(ours, "bias")
    assert not parametrize.is_parametrized(nn.Linear(2, 2))


def test_right_inverse_on_registration_and_assignment_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    _, Double, AddOne, _ = _modules(mt)
    _, TDouble, TAddOne, _ = _modules(torch)
    w = RNG.standard_normal((2, 3))
    ours, theirs = nn.Linear(3, 2).double(), torch.nn.Linear(3, 2).double()
    with mt.no_grad():
        ours.weight.copy_(mt.tensor(w))
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(w))
    param = ours.weight
    for model, reg, mods in ((ours, parametrize.register_parametrization, (Double, AddOne)),
                             (theirs, torch.nn.utils.parametrize.register_parametrization,
                              (TDouble, TAddOne))):  # fmt: skip
        reg(model, "weight", mods[0]())  # original = w / 2 (right_inverse on registration)
        reg(model, "weight", mods[1]())  # chained; original unchanged, weight = w + 1
    assert ours.parametrizations.weight.original is param  # the same Parameter, kept
    np.testing.assert_allclose(_np(ours.parametrizations.weight.original), w / 2)
    _same_values(ours, theirs, ["weight"])
    new = RNG.standard_normal((2, 3))
    ours.weight = mt.tensor(new)  # right_inverse of each, last first: (new - 1) / 2
    theirs.weight = torch.tensor(new)
    np.testing.assert_allclose(
        _np(ours.parametrizations.weight.original),
        _np(theirs.parametrizations.weight.original),
        rtol=1e-14,
    )
    np.testing.assert_allclose(_np(ours.weight), new, rtol=1e-14)
    assert ours.parametrizations.weight.original is param and param.requires_grad
    with pytest.raises(KeyError, match="already exists"):
        ours.weight = nn.Parameter(mt.tensor(new))  # as PyTorch refuses


def test_tuple_right_inverse_gives_original0_original1() -> None:
    torch = pytest.importorskip("torch")
    *_, Split = _modules(mt)
    *_, TSplit = _modules(torch)
    ours, theirs = nn.Linear(2, 2).double(), torch.nn.Linear(2, 2).double()
    _ours_from(theirs, ours)
    parametrize.register_parametrization(ours, "weight", Split())
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", TSplit())
    assert list(ours.state_dict()) == list(theirs.state_dict())
    keys = ["parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert [k for k in ours.state_dict() if "original" in k] == keys
    assert isinstance(ours.parametrizations.weight.original0, nn.Parameter)
    _same_values(ours, theirs, ["weight"])
    ours.weight = mt.ones(2, 2, dtype=mt.float64)
    theirs.weight = torch.ones(2, 2, dtype=torch.float64)
    for k in keys:
        np.testing.assert_allclose(_np(ours.state_dict()[k]), _np(theirs.state_dict()[k]))
    with pytest.raises(ValueError, match="sequence of tensors"):
        parametrize.remove_parametrizations(ours, "weight", leave_parametrized=False)
    parametrize.remove_parametrizations(ours, "weight")
    torch.nn.utils.parametrize.remove_parametrizations(theirs, "weight")
    assert type(ours) is nn.Linear and isinstance(ours.weight, nn.Parameter)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _same_values(ours, theirs, ["weight"])


@pytest.mark.parametrize("leave_parametrized", [True, False])
def test_remove_parametrizations_as_pytorch(leave_parametrized: bool) -> None:
    torch = pytest.importorskip("torch")
    _, Double, AddOne, _ = _modules(mt)
    _, TDouble, TAddOne, _ = _modules(torch)
    ours, theirs = nn.Linear(3, 2).double(), torch.nn.Linear(3, 2).double()
    _ours_from(theirs, ours)
    for model, reg, mods in ((ours, parametrize.register_parametrization, (Double, AddOne)),
                             (theirs, torch.nn.utils.parametrize.register_parametrization,
                              (TDouble, TAddOne))):  # fmt: skip
        reg(model, "weight", mods[0]())
        reg(model, "weight", mods[1]())
        reg(model, "bias", mods[1]())
    param = ours.parametrizations.weight.original
    parametrize.remove_parametrizations(ours, "weight", leave_parametrized=leave_parametrized)
    torch.nn.utils.parametrize.remove_parametrizations(
        theirs, "weight", leave_parametrized=leave_parametrized
    )
    assert ours.weight is param  # the original Parameter is back under its name
    assert repr(ours) == repr(theirs) and type(ours).__name__ == "ParametrizedLinear"
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _same_values(ours, theirs, ["weight", "bias"])
    parametrize.remove_parametrizations(ours, "bias", leave_parametrized=leave_parametrized)
    torch.nn.utils.parametrize.remove_parametrizations(
        theirs, "bias", leave_parametrized=leave_parametrized
    )
    assert type(ours) is nn.Linear and "parametrizations" not in ours._modules
    assert repr(ours) == repr(theirs)
    _same_values(ours, theirs, ["weight", "bias"])
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(ours, "weight")


def test_transfer_parametrizations_and_params_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    _, Double, AddOne, Split = _modules(mt)
    _, TDouble, TAddOne, TSplit = _modules(torch)
    pairs = []
    for lib, P, mods in ((mt, parametrize, (Double, AddOne, Split)),
                         (torch, torch.nn.utils.parametrize, (TDouble, TAddOne, TSplit))):  # fmt: skip
        source, target = lib.nn.Linear(3, 2).double(), lib.nn.Linear(3, 2).double()
        with lib.no_grad():
            source.weight.copy_(lib.tensor(np.arange(6.0).reshape(2, 3)))
            source.bias.copy_(lib.tensor([1.0, -1.0]))
        P.register_parametrization(source, "weight", mods[0]())
        P.register_parametrization(source, "weight", mods[1]())
        P.register_parametrization(source, "bias", mods[2]())
        P.transfer_parametrizations_and_params(source, target)
        pairs.append((source, target))
    (source, target), (tsource, ttarget) = pairs
    assert repr(target) == repr(ttarget)
    assert list(target.state_dict()) == list(ttarget.state_dict())
    assert target.parametrizations.weight.original is source.parametrizations.weight.original
    assert target.parametrizations.weight[0] is source.parametrizations.weight[0]
    assert target.parametrizations.bias.original1 is source.parametrizations.bias.original1
    _same_values(target, ttarget, ["weight", "bias"])
    plain = parametrize.transfer_parametrizations_and_params(nn.Linear(2, 2), nn.Linear(2, 2))
    assert not parametrize.is_parametrized(plain)


def test_cached_computes_each_parametrized_tensor_once() -> None:
    _, Double, _, _ = _modules(mt)
    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Double())
    Double.calls = 0
    _ = (m.weight, m.weight)
    assert Double.calls == 2  # each read runs the chain
    with parametrize.cached():
        first = m.weight
        assert m.weight is first
        with parametrize.cached():  # nested: the same cache
            assert m.weight is first
        assert m.weight is first
    assert Double.calls == 3
    assert m.weight is not first and Double.calls == 4  # the cache is gone


def test_registration_errors_as_pytorch() -> None:
    Symmetric, _, _, _ = _modules(mt)

    class Grow(nn.Module):
        def forward(self, X):  # noqa: N803
            return mt.cat([X, X])

    class ToFloat32(nn.Module):
        def forward(self, X):  # noqa: N803
            return X.float()

    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized"):
        parametrize.register_parametrization(nn.Linear(2, 2), "nothing", Symmetric())
    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(nn.Linear(2, 2), "weight", Grow())
    with pytest.raises(ValueError, match="may not change the dtype"):
        parametrize.register_parametrization(nn.Linear(2, 2).double(), "weight", ToFloat32())
    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Grow(), unsafe=True)  # allowed
    assert m.weight.shape == (4, 2)
    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Symmetric())
    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(m, "weight", Grow())  # on top of one: checked too
    with pytest.raises(RuntimeError, match="Symmetric does not implement right_inverse"):
        m.weight = mt.zeros(2, 2)


def test_buffers_can_be_parametrized_and_train_mode_follows_the_module() -> None:
    _, Double, _, _ = _modules(mt)
    m = nn.BatchNorm1d(3)
    m.eval()
    p = Double()
    parametrize.register_parametrization(m, "running_var", p)
    assert not p.training  # set to the module's mode
    assert "parametrizations.running_var.original" in m.state_dict()
    assert "parametrizations.running_var.original" in dict(m.named_buffers())
    np.testing.assert_allclose(_np(m.running_var), np.ones(3))
    m.train()
    assert p.training


def test_parametrized_module_deepcopies_trains_and_refuses_pickle() -> None:
    Symmetric, _, _, _ = _modules(mt)
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Symmetric())
    twin = copy.deepcopy(m)
    assert type(twin) is type(m) and twin.parametrizations.weight.original is not (
        m.parametrizations.weight.original
    )
    np.testing.assert_array_equal(_np(twin.weight), _np(m.weight))
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        pickle.dumps(m)
    opt = mt.optim.SGD(m.parameters(), lr=0.1)
    before = _np(m.weight)
    m(mt.ones(2, 3)).sum().backward()
    opt.step()
    after = _np(m.weight)
    assert not np.allclose(after, before)
    np.testing.assert_allclose(after, after.T)  # still symmetric after the update


# ------------------------------------------------------------------ parametrizations
@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_as_pytorch(dim) -> None:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.nn.Conv1d(2, 3, 3).double()
    ours = nn.Conv1d(2, 3, 3).double()
    _ours_from(theirs, ours)
    parametrizations.weight_norm(ours, dim=dim)
    torch.nn.utils.parametrizations.weight_norm(theirs, dim=dim)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    for key in ("parametrizations.weight.original0", "parametrizations.weight.original1"):
        np.testing.assert_allclose(
            _np(ours.state_dict()[key]), _np(theirs.state_dict()[key]), rtol=1e-14
        )
    assert_module_matches(torch, ours, theirs, RNG.standard_normal((2, 2, 5)), rtol=1e-10)


@pytest.mark.parametrize("kind", ["linear", "conv", "vector"])
def test_spectral_norm_as_pytorch_after_copying_its_state(kind: str) -> None:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    if kind == "linear":
        theirs, ours = torch.nn.Linear(5, 4).double(), nn.Linear(5, 4).double()
        name, kwargs = "weight", dict(n_power_iterations=2)
    elif kind == "conv":
        theirs, ours = torch.nn.Conv2d(2, 3, 2).double(), nn.Conv2d(2, 3, 2).double()
        name, kwargs = "weight", dict(dim=1, eps=1e-6)
    else:
        theirs, ours = torch.nn.Linear(5, 4).double(), nn.Linear(5, 4).double()
        name, kwargs = "bias", dict()
    _ours_from(theirs, ours)
    parametrizations.spectral_norm(ours, name, **kwargs)
    torch.nn.utils.parametrizations.spectral_norm(theirs, name, **kwargs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _ours_from(theirs, ours)  # the random starting u, v: PyTorch's
    for step in range(4):
        if step == 2:
            ours.eval()
            theirs.eval()
        _same_values(ours, theirs, [name])
        for key, value in theirs.state_dict().items():  # u, v moved on only in training
            np.testing.assert_allclose(_np(ours.state_dict()[key]), _np(value), rtol=1e-10,
                                       atol=1e-14, err_msg=f"{key} at step {step}")  # fmt: skip
    if kind != "vector":
        u = _np(ours.parametrizations.weight[0]._u)
        _ = ours.weight  # in eval: no power-method step
        np.testing.assert_array_equal(_np(ours.parametrizations.weight[0]._u), u)
        if kind == "linear":  # the largest singular value of the result: about 1
            top = np.linalg.svd(_np(ours.weight), compute_uv=False)[0]
            np.testing.assert_allclose(top, 1.0, rtol=1e-3)
    ours.train()
    theirs.train()
    x = RNG.standard_normal((3, 5)) if kind != "conv" else RNG.standard_normal((1, 2, 4, 4))
    assert_module_matches(torch, ours, theirs, x, rtol=1e-9)  # (a training-mode forward)


def test_spectral_norm_errors() -> None:
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nothing'"):
        parametrizations.spectral_norm(nn.Linear(2, 2), "nothing")
    with pytest.raises(IndexError, match="Dimension out of range"):
        parametrizations.spectral_norm(nn.Linear(2, 2), dim=2)
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        parametrizations.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)


@pytest.mark.parametrize("orthogonal_map", ["cayley", "matrix_exp", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3)])
def test_orthogonal_maps_as_pytorch(shape: tuple, orthogonal_map: str) -> None:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.nn.Linear(shape[1], shape[0]).double()
    ours = nn.Linear(shape[1], shape[0]).double()
    _ours_from(theirs, ours)
    parametrizations.orthogonal(ours, orthogonal_map=orthogonal_map)
    torch.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map=orthogonal_map)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert "parametrizations.weight.0.base" in ours.state_dict()
    w = _np(ours.weight)
    small = min(shape)
    gram = w @ w.T if shape[0] <= shape[1] else w.T @ w
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-12)
    if shape[0] == shape[1]:  # no random completion: the same base as PyTorch's
        _same_values(ours, theirs, ["weight"])
    _ours_from(theirs, ours)  # PyTorch's base (and X = -I)
    _same_values(ours, theirs, ["weight"])
    with torch.no_grad():
        theirs.parametrizations.weight.original.add_(0.1 * torch.randn(*shape, dtype=torch.float64))
    _ours_from(theirs, ours)  # an X away from -I: the map itself is compared
    _same_values(ours, theirs, ["weight"])
    x = RNG.standard_normal((2, shape[1]))
    y, ty = ours(mt.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(_np(y), _np(ty), rtol=1e-10)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(
        _np(ours.parametrizations.weight.original.grad),
        _np(theirs.parametrizations.weight.original.grad),
        rtol=1e-9,
        atol=1e-12,
    )
    q = np.linalg.qr(RNG.standard_normal((max(shape), min(shape))))[0]
    q = q if shape[0] >= shape[1] else q.T
    ours.weight, theirs.weight = mt.tensor(q), torch.tensor(q)
    np.testing.assert_allclose(_np(ours.weight), q, atol=1e-12)  # an orthogonal one is kept
    _same_values(ours, theirs, ["weight"])


def test_orthogonal_without_trivialization_and_errors() -> None:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs, ours = torch.nn.Linear(3, 3).double(), nn.Linear(3, 3).double()
    _ours_from(theirs, ours)
    parametrizations.orthogonal(ours, orthogonal_map="cayley", use_trivialization=False)
    torch.nn.utils.parametrizations.orthogonal(
        theirs, orthogonal_map="cayley", use_trivialization=False
    )
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _same_values(ours, theirs, ["weight"])
    with pytest.raises(NotImplementedError, match="use_trivialization=False"):
        ours.weight = mt.eye(3, dtype=mt.float64)
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
        parametrizations.orthogonal(nn.Linear(3, 3), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp"'):
        parametrizations.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3)])
def test_orthogonal_householder_without_trivialization_takes_assignments(shape: tuple) -> None:
    """Without a base, assigning an orthogonal matrix stores its reflectors (from geqrf) and
    the signs on the diagonal, so that the map gives the matrix back, as in PyTorch."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    theirs = torch.nn.Linear(shape[1], shape[0]).double()
    ours = nn.Linear(shape[1], shape[0]).double()
    _ours_from(theirs, ours)
    parametrizations.orthogonal(ours, orthogonal_map="householder", use_trivialization=False)
    torch.nn.utils.parametrizations.orthogonal(
        theirs, orthogonal_map="householder", use_trivialization=False
    )
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _same_values(ours, theirs, ["weight"])
    q = np.linalg.qr(RNG.standard_normal((max(shape), min(shape))))[0]
    q = q if shape[0] >= shape[1] else q.T
    ours.weight = mt.tensor(q)
    theirs.weight = torch.tensor(q)
    np.testing.assert_allclose(_np(ours.weight), q, atol=1e-12)
    _same_values(ours, theirs, ["weight"])
    np.testing.assert_allclose(  # the stored reflectors and signs, as PyTorch's
        _np(ours.parametrizations.weight.original),
        _np(theirs.parametrizations.weight.original),
        rtol=1e-10,
        atol=1e-12,
    )


def test_orthogonal_defaults_to_matrix_exp_for_square_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs, ours = torch.nn.Linear(3, 3).double(), nn.Linear(3, 3).double()
    _ours_from(theirs, ours)
    parametrizations.orthogonal(ours)
    torch.nn.utils.parametrizations.orthogonal(theirs)
    with torch.no_grad():
        theirs.parametrizations.weight.original.add_(0.1 * torch.randn(3, 3, dtype=torch.float64))
    _ours_from(theirs, ours)
    _same_values(ours, theirs, ["weight"])


# ------------------------------------------------------------------ stateless
def test_stateless_functional_call_warns_and_substitutes(device: str) -> None:
    Symmetric, _, _, _ = _modules(mt)
    m = nn.Linear(2, 2).double().to(device)
    parametrize.register_parametrization(m, "weight", Symmetric())
    w = mt.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=mt.float64, device=device, requires_grad=True)
    x = mt.ones(1, 2, dtype=mt.float64, device=device)
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        y = stateless.functional_call(m, {"weight": w}, (x,))
    np.testing.assert_allclose(_np(y), _np(x @ w.T + m.bias))  # the given weight, as it is
    y.sum().backward()
    np.testing.assert_allclose(_np(w.grad), np.ones((2, 2)))
    original = mt.zeros(2, 2, dtype=mt.float64, device=device)
    with pytest.warns(FutureWarning):
        y = stateless.functional_call(m, {"parametrizations.weight.original": original}, x)
    np.testing.assert_allclose(_np(y), _np(m.bias)[None])
    assert m.parametrizations.weight.original is not original  # restored
