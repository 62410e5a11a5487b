"""nn.utils.weight_norm / spectral_norm against PyTorch's hook-based forms: the same
parameters, buffers, state_dict keys, outputs and gradients for the same weights."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch as mt
from microtorch import nn
from microtorch.nn.utils import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm

torch = pytest.importorskip("torch")
tnu = torch.nn.utils

X = np.random.default_rng(0).standard_normal((5, 2, 6))


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy()


def _pair(kind: str, device: str):
    """(ours, theirs): the same float64 Linear or Conv1d."""
    torch.manual_seed(0)
    if kind == "linear":
        theirs, ours = torch.nn.Linear(6, 4).double(), nn.Linear(6, 4).double()
    else:
        theirs, ours = torch.nn.Conv1d(2, 3, 3).double(), nn.Conv1d(2, 3, 3).double()
    ours.load_state_dict({k: mt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours.to(device), theirs


def _compare_step(ours, theirs, device: str, names: list[str]) -> None:
    """One forward/backward of both: the same output and the same gradients of ``names``."""
    y = ours(mt.tensor(X, device=device))
    ty = theirs(torch.tensor(X))
    np.testing.assert_allclose(_np(y), _np(ty), rtol=1e-10, atol=1e-12)
    r = np.random.default_rng(1).standard_normal(tuple(ty.shape))
    (y * mt.tensor(r, device=device)).sum().backward()
    (ty * torch.tensor(r)).sum().backward()
    for name in names:
        ours_grad = getattr(ours, name).grad
        np.testing.assert_allclose(_np(ours_grad), _np(getattr(theirs, name).grad), rtol=1e-9,
                                   atol=1e-12, err_msg=name)  # fmt: skip


@pytest.mark.parametrize("kind", ["linear", "conv"])
@pytest.mark.parametrize("dim", [0, 1, None, -1, -2])
def test_weight_norm_matches_torch(device, kind, dim):
    ours, theirs = _pair(kind, device)
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):  # as PyTorch's
        weight_norm(ours, dim=dim)
    with pytest.warns(FutureWarning):
        tnu.weight_norm(theirs, dim=dim)
    assert list(ours.state_dict()) == list(theirs.state_dict())  # bias, weight_g, weight_v
    assert tuple(ours.weight_g.shape) == tuple(theirs.weight_g.shape)
    assert isinstance(ours.weight_g, nn.Parameter) and not isinstance(ours.weight, nn.Parameter)
    np.testing.assert_allclose(_np(ours.weight_g), _np(theirs.weight_g), rtol=1e-12)
    _compare_step(ours, theirs, device, ["weight_g", "weight_v", "bias"])


def test_weight_norm_follows_g_and_remove_folds_it_back(device):
    ours, theirs = _pair("linear", device)
    with pytest.warns(FutureWarning):
        weight_norm(ours)
    with pytest.warns(FutureWarning):
        tnu.weight_norm(theirs)
    with mt.no_grad():
        ours.weight_g.mul_(2.0)  # the next forward recomputes weight from g and v
    with torch.no_grad():
        theirs.weight_g.mul_(2.0)
    _compare_step(ours, theirs, device, ["weight_g", "weight_v"])
    remove_weight_norm(ours)
    tnu.remove_weight_norm(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["bias", "weight"]
    assert isinstance(ours.weight, nn.Parameter) and not ours._forward_pre_hooks
    np.testing.assert_allclose(_np(ours.weight), _np(theirs.weight), rtol=1e-12)


@pytest.mark.filterwarnings("ignore:nn.utils.weight_norm is deprecated:FutureWarning")
@pytest.mark.parametrize(
    "apply, remove", [(weight_norm, remove_weight_norm), (spectral_norm, remove_spectral_norm)]
)
def test_registering_twice_and_removing_what_is_not_there(apply, remove):
    label = apply.__name__
    layer = apply(nn.Linear(3, 2))
    with pytest.raises(RuntimeError, match=f"Cannot register two {label} hooks"):
        apply(layer)
    remove(layer)
    with pytest.raises(ValueError, match=f"{label} of 'weight' not found in Linear"):
        remove(layer)
    with pytest.raises(ValueError, match=f"{label} of 'bias' not found"):
        remove(layer, "bias")


def _spectral_pair(kind: str, device: str, **kw):
    """Both with spectral_norm, and our u, v copied from PyTorch's (each draws its own)."""
    ours, theirs = _pair(kind, device)
    spectral_norm(ours, **kw)
    tnu.spectral_norm(theirs, **kw)
    for name in ("weight_u", "weight_v"):
        getattr(ours, name).copy_(mt.tensor(getattr(theirs, name).numpy(), device=device))
    return ours, theirs


@pytest.mark.parametrize("kind", ["linear", "conv"])
@pytest.mark.parametrize("kw", [{}, {"n_power_iterations": 3}, {"dim": 1}])
def test_spectral_norm_matches_torch(device, kind, kw):
    ours, theirs = _spectral_pair(kind, device, **kw)
    assert list(ours.state_dict()) == list(theirs.state_dict())  # bias, _orig, _u, _v
    assert list(ours._buffers) == ["weight_u", "weight_v"]
    for step in range(3):  # the power iteration goes on from step to step
        _compare_step(ours, theirs, device, ["weight_orig", "bias"])
        for name in ("weight_u", "weight_v", "weight"):
            np.testing.assert_allclose(_np(getattr(ours, name)), _np(getattr(theirs, name)),
                                       rtol=1e-9, atol=1e-12, err_msg=f"{name} {step}")  # fmt: skip
        ours.zero_grad()
        theirs.zero_grad()


def test_spectral_norm_eval_does_not_iterate_and_remove(device):
    ours, theirs = _spectral_pair("linear", device)
    ours.eval()
    theirs.eval()
    u = _np(ours.weight_u).copy()
    _compare_step(ours, theirs, device, ["weight_orig"])
    np.testing.assert_array_equal(_np(ours.weight_u), u)  # no power iteration in eval mode
    ours.train()
    theirs.train()
    _compare_step(ours, theirs, device, ["weight_orig"])
    assert not np.array_equal(_np(ours.weight_u), u)
    remove_spectral_norm(ours)
    tnu.remove_spectral_norm(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(_np(ours.weight), _np(theirs.weight), rtol=1e-10)


def test_spectral_norm_divides_by_the_largest_singular_value(device):
    layer = spectral_norm(nn.Linear(6, 4).double().to(device), n_power_iterations=100)
    layer(mt.tensor(X[:, 0], device=device))
    np.testing.assert_allclose(np.linalg.svd(_np(layer.weight), compute_uv=False)[0], 1.0,
                               rtol=1e-9)  # fmt: skip


def test_spectral_norm_errors_and_seeded_start():
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        spectral_norm(nn.Linear(3, 2), n_power_iterations=0)
    mt.manual_seed(5)
    a = spectral_norm(nn.Linear(3, 2))
    mt.manual_seed(5)
    b = spectral_norm(nn.Linear(3, 2))
    np.testing.assert_array_equal(a.weight_u.numpy(), b.weight_u.numpy())
    np.testing.assert_allclose(np.linalg.norm(a.weight_v.numpy()), 1.0, rtol=1e-6)
