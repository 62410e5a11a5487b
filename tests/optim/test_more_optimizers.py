"""Adagrad, Adadelta, Adamax, NAdam, RAdam, Rprop and ASGD: trajectories over tens of steps
equal to PyTorch's (float64 and float32, every device), state dicts with PyTorch's keys that
resume exactly, parameters without gradients, and PyTorch's errors for bad arguments."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn, optim

SHAPES = [(3, 4), (5,), ()]  # () a 0-d parameter: NumPy makes its arithmetic scalars
STEPS = 30

# (optimizer name, keyword arguments): several per optimizer, with weight decay and maximize
CASES = {
    "adagrad": ("Adagrad", dict(lr=0.1)),
    "adagrad_decay_wd": (
        "Adagrad",
        dict(lr=0.05, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5),
    ),
    "adagrad_maximize": ("Adagrad", dict(lr=0.1, eps=1e-6, maximize=True)),
    "adadelta": ("Adadelta", dict()),
    "adadelta_wd": ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1)),
    "adadelta_maximize": ("Adadelta", dict(rho=0.95, eps=1e-4, maximize=True)),
    "adamax": ("Adamax", dict(lr=0.01)),
    "adamax_wd": ("Adamax", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)),
    "adamax_small_beta1_maximize": ("Adamax", dict(lr=0.02, betas=(0.3, 0.9), maximize=True)),
    "nadam": ("NAdam", dict(lr=0.01)),
    "nadam_l2": ("NAdam", dict(lr=0.01, weight_decay=0.1, betas=(0.8, 0.99))),
    "nadam_decoupled": ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    "nadam_momentum_decay_maximize": (
        "NAdam",
        dict(lr=0.02, momentum_decay=0.01, eps=1e-6, maximize=True),
    ),
    "radam": ("RAdam", dict(lr=0.01)),
    "radam_l2_fast_beta2": ("RAdam", dict(lr=0.01, betas=(0.9, 0.9), weight_decay=0.1)),
    "radam_decoupled_maximize": (
        "RAdam",
        dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True),
    ),
    "radam_small_beta1": ("RAdam", dict(lr=0.01, betas=(0.4, 0.95))),
    "rprop": ("Rprop", dict(lr=0.01)),
    "rprop_etas_step_sizes": (
        "Rprop",
        dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1)),
    ),
    "rprop_maximize": ("Rprop", dict(lr=0.02, maximize=True)),
    "asgd": ("ASGD", dict(lr=0.01)),
    "asgd_averaging_wd": (
        "ASGD",
        dict(lr=0.05, lambd=1e-2, alpha=0.5, t0=5, weight_decay=0.1),
    ),
    "asgd_maximize": ("ASGD", dict(lr=0.02, t0=0, maximize=True)),
}


def _start(dtype=np.float64, steps: int = STEPS) -> tuple[list, list]:
    """Starting values and a gradient sequence per parameter (fixed, seeded). Some gradient
    entries repeat the previous step's or are 0, so Rprop meets every sign case."""
    rng = np.random.default_rng(7)
    values = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = []
    for step in range(steps):
        step_grads = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
        if step % 4 == 3:
            step_grads[0][0] = 0.0
            step_grads[1][:2] = grads[-1][1][:2]
        grads.append(step_grads)
    return values, grads


def _params(lib, values, device="cpu") -> list:
    if lib is torch:
        return [nn.Parameter(torch.tensor(v, device=device)) for v in values]
    return [lib.nn.Parameter(lib.tensor(v)) for v in values]


def _train(lib, params, opt, grads) -> None:
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = lib.tensor(g) if lib is not torch else torch.tensor(g, device=p.device)
        opt.step()


def _trajectory(lib, case: str, values, grads, device="cpu", with_state=False) -> list:
    """The parameters after training on ``grads``; with ``with_state`` also each one's
    state entries (running averages, step sizes, ASGD's average...) by name."""
    name, kw = CASES[case]
    params = _params(lib, values, device)
    opt = getattr(lib.optim, name)(params, **kw)
    _train(lib, params, opt, grads)
    arrays = [p.detach().cpu().numpy() for p in params]
    if not with_state:
        return arrays
    states = [{k: np.asarray(v.cpu().numpy() if hasattr(v, "cpu") else v, dtype=np.float64)
               for k, v in opt.state[p].items()} for p in params]  # fmt: skip
    return arrays, states


@pytest.mark.parametrize("case", sorted(CASES))
def test_trajectory_matches_pytorch(case: str) -> None:
    pt = pytest.importorskip("torch")
    for dtype, rtol, atol in ((np.float64, 1e-12, 1e-14), (np.float32, 2e-6, 1e-6)):
        values, grads = _start(dtype)
        ours, our_states = _trajectory(torch, case, values, grads, with_state=True)
        theirs, their_states = _trajectory(pt, case, values, grads, with_state=True)
        for a, b in zip(ours, theirs):
            assert a.dtype == dtype  # float32 stays float32
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{case} {dtype}")
        assert not np.allclose(ours[0], values[0], rtol=1e-3)  # the parameters did move
        for mine, reference in zip(our_states, their_states):
            assert mine.keys() == reference.keys()
            for key in reference:
                np.testing.assert_allclose(mine[key], reference[key], rtol=rtol, atol=atol,
                                           err_msg=f"{case} {dtype} state {key}")  # fmt: skip


@pytest.mark.parametrize("case", ["adagrad_decay_wd", "adadelta_wd", "adamax_wd",
                                  "nadam_decoupled", "radam_l2_fast_beta2",
                                  "rprop_etas_step_sizes", "asgd_averaging_wd"])  # fmt: skip
def test_trajectory_on_device_float32(case: str, device: str) -> None:
    pt = pytest.importorskip("torch")
    values, grads = _start(np.float32)
    ours = _trajectory(torch, case, values, grads, device=device)
    for a, b in zip(ours, _trajectory(pt, case, values, grads)):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)


def test_nadam_and_asgd_follow_the_default_dtype_for_their_scalar_state() -> None:
    """PyTorch keeps mu_product, eta and mu in float64 when that is the default dtype."""
    pt = pytest.importorskip("torch")
    values, grads = _start(np.float64)
    for case in ("nadam", "asgd_averaging_wd"):
        old, old_pt = torch.get_default_dtype(), pt.get_default_dtype()
        torch.set_default_dtype(torch.float64)
        pt.set_default_dtype(pt.float64)
        try:
            ours = _trajectory(torch, case, values, grads)
            theirs = _trajectory(pt, case, values, grads)
        finally:
            torch.set_default_dtype(old)
            pt.set_default_dtype(old_pt)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("case", sorted(CASES))
def test_state_dict_has_pytorchs_keys_and_resumes_exactly(case: str) -> None:
    """Save after 10 steps, load into a fresh optimizer over fresh parameters, go on 10
    more: bit-identical to 20 straight steps. The state dict has PyTorch's keys."""
    name, kw = CASES[case]
    values, grads = _start(np.float32, steps=20)
    straight = _params(torch, values)
    _train(torch, straight, getattr(optim, name)(straight, **kw), grads)

    first = _params(torch, values)
    opt = getattr(optim, name)(first, **kw)
    _train(torch, first, opt, grads[:10])
    saved = copy.deepcopy(opt.state_dict())
    resumed = [nn.Parameter(p.detach().clone()) for p in first]
    opt2 = getattr(optim, name)(resumed, lr=0.123)  # the saved lr comes back with the state
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    _train(torch, resumed, opt2, grads[10:])
    for a, b in zip(straight, resumed):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())

    pt = pytest.importorskip("torch")
    theirs = [pt.nn.Parameter(pt.tensor(v)) for v in values]
    pt_opt = getattr(pt.optim, name)(theirs, **kw)
    _train(pt, theirs, pt_opt, grads[:1])
    pt_saved = pt_opt.state_dict()
    assert set(saved["state"]) == set(pt_saved["state"])
    assert set(saved["state"][0]) == set(pt_saved["state"][0])
    assert set(saved["param_groups"][0]) == set(pt_saved["param_groups"][0])


@pytest.mark.parametrize("name", sorted({name for name, _ in CASES.values()}))
def test_params_without_grad_are_skipped(name: str) -> None:
    p, q = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
    opt = getattr(optim, name)([p, q])
    version = q._version_counter.value
    p.grad = torch.tensor([0.5, -0.5])
    opt.step()
    opt.step()
    np.testing.assert_array_equal(q.detach().numpy(), [1.0, 1.0])
    assert q._version_counter.value == version
    assert not np.array_equal(p.detach().numpy(), [1.0, 1.0])
    if name == "Adagrad":  # PyTorch makes Adagrad's state with the optimizer
        assert opt.state[q]["step"] == 0
    else:
        assert q not in opt.state


def test_adagrad_state_is_made_with_the_optimizer_as_pytorchs() -> None:
    p = nn.Parameter(torch.zeros(3))
    opt = optim.Adagrad([p], initial_accumulator_value=0.25)
    np.testing.assert_array_equal(opt.state_dict()["state"][0]["sum"].numpy(), [0.25] * 3)
    pt = pytest.importorskip("torch")
    theirs = pt.optim.Adagrad([pt.nn.Parameter(pt.zeros(3))], initial_accumulator_value=0.25)
    assert set(theirs.state_dict()["state"][0]) == set(opt.state_dict()["state"][0])


def test_defaults_are_pytorchs() -> None:
    pt = pytest.importorskip("torch")
    for name in sorted({name for name, _ in CASES.values()}):
        ours = getattr(optim, name)([nn.Parameter(torch.zeros(2))])
        theirs = getattr(pt.optim, name)([pt.nn.Parameter(pt.zeros(2))])
        assert ours.defaults == theirs.defaults, name
        assert repr(ours) == repr(theirs), name


BAD_ARGUMENTS = [
    ("Adagrad", dict(lr=-0.1)),
    ("Adagrad", dict(lr_decay=-1.0)),
    ("Adagrad", dict(weight_decay=-1.0)),
    ("Adagrad", dict(initial_accumulator_value=-1.0)),
    ("Adagrad", dict(eps=-1.0)),
    ("Adadelta", dict(lr=-1.0)),
    ("Adadelta", dict(rho=1.5)),
    ("Adadelta", dict(eps=-1.0)),
    ("Adadelta", dict(weight_decay=-1.0)),
    ("Adamax", dict(betas=(1.0, 0.9))),
    ("Adamax", dict(betas=(0.9, -0.1))),
    ("Adamax", dict(eps=-1.0)),
    ("NAdam", dict(momentum_decay=-1.0)),
    ("NAdam", dict(betas=(0.9, 1.0))),
    ("NAdam", dict(weight_decay=-0.1)),
    ("RAdam", dict(lr=-1e-3)),
    ("RAdam", dict(betas=(-0.1, 0.9))),
    ("RAdam", dict(eps=-1.0)),
    ("Rprop", dict(etas=(1.2, 0.5))),
    ("Rprop", dict(etas=(0.0, 1.2))),
    ("Rprop", dict(etas=(0.5, 1.0))),
    ("Rprop", dict(lr=-1.0)),
    ("ASGD", dict(lr=-1.0)),
    ("ASGD", dict(weight_decay=-1.0)),
]


@pytest.mark.parametrize("name,kw", BAD_ARGUMENTS)
def test_bad_arguments_raise_pytorchs_error_type(name: str, kw: dict) -> None:
    with pytest.raises(ValueError, match=name):
        getattr(optim, name)([nn.Parameter(torch.zeros(2))], **kw)
    pt = pytest.importorskip("torch")
    with pytest.raises(ValueError):
        getattr(pt.optim, name)([pt.nn.Parameter(pt.zeros(2))], **kw)


@pytest.mark.parametrize("name", sorted({name for name, _ in CASES.values()}))
def test_differentiable_is_refused_and_foreach_accepted(name: str) -> None:
    p = nn.Parameter(torch.zeros(2))
    with pytest.raises(ValueError, match="differentiable=True is not supported"):
        getattr(optim, name)([p], differentiable=True)
    assert getattr(optim, name)([p], foreach=True).defaults["foreach"] is True


@pytest.mark.parametrize("name", ["Adagrad", "NAdam", "RAdam", "Adamax"])
def test_model_learns_a_regression(name: str) -> None:
    torch.manual_seed(0)
    x = torch.linspace(-1, 1, 32).reshape(32, 1)
    y = 0.5 * x - 0.2
    model = nn.Linear(1, 1)
    opt = getattr(optim, name)(model.parameters(), lr=0.1)
    for _ in range(300):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < 1e-4
