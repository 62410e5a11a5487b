"""Adagrad, Adadelta, Adamax, NAdam, RAdam, Rprop and ASGD (then Adafactor, Muon and
LBFGS in their own sections): trajectories over tens of steps
equal to PyTorch's (float64 and float32, every device), state dicts with PyTorch's keys that
resume exactly, parameters without gradients, and PyTorch's errors for bad arguments."""

from __future__ import annotations

import copy
from typing import Any

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


@pytest.mark.parametrize("case", ["nadam", "asgd_averaging_wd"])
def test_loaded_scalar_state_takes_the_parameters_dtype_as_in_pytorch(case: str) -> None:
    """PyTorch casts every loaded float state but the step to the parameter's dtype: after a
    resume a float64 model's eta, mu and mu_product are float64 (they were float32), so the
    steps that follow are no longer rounded through float32 (a ~1e-8 difference)."""
    pt = pytest.importorskip("torch")
    name, kw = CASES[case]
    values, grads = _start(np.float64, steps=10)
    results = []
    for lib in (torch, pt):
        params = _params(lib, values)
        opt = getattr(lib.optim, name)(params, **kw)
        _train(lib, params, opt, grads[:4])
        resumed = getattr(lib.optim, name)(params, **kw)
        resumed.load_state_dict(opt.state_dict())
        _train(lib, params, resumed, grads[4:])
        scalars = {k: (str(v.dtype).split(".")[-1], v.item())
                   for k, v in resumed.state_dict()["state"][0].items() if v.ndim == 0}  # fmt: skip
        results.append(([p.detach().numpy() for p in params], scalars))
    (ours, our_scalars), (theirs, their_scalars) = results
    assert {k: d for k, (d, _) in our_scalars.items()} == {
        k: d for k, (d, _) in their_scalars.items()
    }
    for k, (_, value) in their_scalars.items():
        assert our_scalars[k][1] == pytest.approx(value, rel=1e-14), k
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


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


# ------------------------------------------------------------------ Adafactor
ADAFACTOR_CASES = {
    "default": dict(),
    "lr_wd_maximize": dict(lr=0.05, weight_decay=0.1, maximize=True),
    "eps_d_decay": dict(eps=(1e-20, 1e-2), d=1.5, beta2_decay=-0.5),
}
ADAFACTOR_SHAPES = [(3, 4), (2, 3, 5), (5,), ()]  # a matrix, a batch of matrices, a vector, 0-d


def _adafactor_trajectory(lib, kw: dict, dtype, steps: int = STEPS) -> tuple[list, list]:
    rng = np.random.default_rng(3)
    values = [rng.standard_normal(s).astype(dtype) for s in ADAFACTOR_SHAPES]
    params = _params(lib, values)
    opt = lib.optim.Adafactor(params, **kw)
    for _ in range(steps):
        for p, s in zip(params, ADAFACTOR_SHAPES):
            g = rng.standard_normal(s).astype(dtype)
            p.grad = lib.tensor(g)
        opt.step()
    states = [{k: np.asarray(v.numpy() if hasattr(v, "numpy") else v, dtype=np.float64)
               for k, v in opt.state[p].items()} for p in params]  # fmt: skip
    return [p.detach().numpy() for p in params], states


@pytest.mark.parametrize("case", sorted(ADAFACTOR_CASES))
def test_adafactor_trajectory_matches_pytorch(case: str) -> None:
    pt = pytest.importorskip("torch")
    kw = ADAFACTOR_CASES[case]
    for dtype, rtol, atol in ((np.float64, 1e-12, 1e-14), (np.float32, 2e-5, 1e-6)):
        ours, our_states = _adafactor_trajectory(torch, kw, dtype)
        theirs, their_states = _adafactor_trajectory(pt, kw, dtype)
        for a, b in zip(ours, theirs, strict=True):
            assert a.dtype == dtype
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{case} {dtype}")
        for mine, reference in zip(our_states, their_states, strict=True):
            assert mine.keys() == reference.keys()  # row_var/col_var or variance, and step
            for key in reference:
                np.testing.assert_allclose(mine[key], reference[key], rtol=rtol, atol=atol,
                                           err_msg=f"{case} {dtype} state {key}")  # fmt: skip


def test_adafactor_defaults_state_dict_and_errors_as_pytorch() -> None:
    p = nn.Parameter(torch.ones(3, 2))
    opt = optim.Adafactor([p, nn.Parameter(torch.zeros(2))])
    p.grad = torch.ones(3, 2)
    opt.step()
    saved = copy.deepcopy(opt.state_dict())
    assert set(saved["state"][0]) == {"step", "row_var", "col_var"}
    assert saved["state"][0]["row_var"].shape == (3, 1) and saved["state"][0]["col_var"].shape == (
        1,
        2,
    )
    twin = nn.Parameter(p.detach().clone())
    opt2 = optim.Adafactor([twin, nn.Parameter(torch.zeros(2))])
    opt2.load_state_dict(saved)
    for o, q in ((opt, p), (opt2, twin)):
        q.grad = torch.full((3, 2), 0.5)
        o.step()
    np.testing.assert_array_equal(p.detach().numpy(), twin.detach().numpy())
    for bad in (dict(lr=-1.0), dict(beta2_decay=0.5), dict(eps=(-1.0, 1e-3)), dict(eps=(None, -1.0)),
                dict(d=0.5), dict(weight_decay=-0.1)):  # fmt: skip
        with pytest.raises(ValueError, match="Adafactor"):
            optim.Adafactor([nn.Parameter(torch.zeros(2))], **bad)
    pt = pytest.importorskip("torch")
    ours = optim.Adafactor([nn.Parameter(torch.zeros(2))])
    theirs = pt.optim.Adafactor([pt.nn.Parameter(pt.zeros(2))])
    assert ours.defaults == theirs.defaults and repr(ours) == repr(theirs)
    tp = pt.nn.Parameter(pt.ones(3, 2))
    topt = pt.optim.Adafactor([tp, pt.nn.Parameter(pt.zeros(2))])
    tp.grad = pt.ones(3, 2)
    topt.step()
    assert set(topt.state_dict()["state"][0]) == set(saved["state"][0])


# ------------------------------------------------------------------ Muon
MUON_CASES = {
    "default": dict(),
    "plain_momentum_no_decay": dict(lr=0.02, nesterov=False, weight_decay=0.0),
    "match_rms_adamw_short_ns": dict(
        lr=0.05, momentum=0.9, adjust_lr_fn="match_rms_adamw", ns_steps=3, eps=1e-3
    ),
    "coefficients_original": dict(
        lr=0.01, ns_coefficients=(2.0, -1.5, 0.5), adjust_lr_fn="original"
    ),
}
MUON_SHAPES = [(3, 5), (6, 2), (4, 4)]  # wide, tall (worked on transposed), square
MUON_STEPS = 20


def _muon_trajectory(lib, kw: dict, dtype, device="cpu") -> tuple[list, list]:
    rng = np.random.default_rng(11)
    values = [rng.standard_normal(s).astype(dtype) for s in MUON_SHAPES]
    params = _params(lib, values, device)
    opt = lib.optim.Muon(params, **kw)
    for _ in range(MUON_STEPS):
        for p, s in zip(params, MUON_SHAPES):
            g = rng.standard_normal(s).astype(dtype)
            p.grad = torch.tensor(g, device=device) if lib is torch else lib.tensor(g)
        opt.step()
    states = [{k: v.detach().cpu().numpy() for k, v in opt.state[p].items()} for p in params]
    return [p.detach().cpu().numpy() for p in params], states


def _torch_without_bfloat16(monkeypatch: pytest.MonkeyPatch):
    """PyTorch with Tensor.bfloat16 a plain copy: its Muon then runs Newton-Schulz in the
    parameter's dtype, as microtorch does (microtorch has no bfloat16)."""
    pt = pytest.importorskip("torch")
    monkeypatch.setattr(pt.Tensor, "bfloat16", lambda self, *a, **k: self.clone())
    return pt


@pytest.mark.parametrize("case", sorted(MUON_CASES))
def test_muon_trajectory_matches_pytorch(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pt = _torch_without_bfloat16(monkeypatch)
    kw = MUON_CASES[case]
    for dtype, rtol, atol in ((np.float64, 1e-10, 1e-12), (np.float32, 2e-5, 2e-6)):
        ours, our_states = _muon_trajectory(torch, kw, dtype)
        theirs, their_states = _muon_trajectory(pt, kw, dtype)
        start, _ = _muon_trajectory(torch, dict(lr=0.0), dtype)
        for a, b, a0 in zip(ours, theirs, start, strict=True):
            assert a.dtype == dtype  # float32 stays float32
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{case} {dtype}")
            assert not np.allclose(a, a0, atol=1e-3)  # the parameters did move
        for mine, reference in zip(our_states, their_states, strict=True):
            assert mine.keys() == reference.keys() == {"momentum_buffer"}
            np.testing.assert_allclose(mine["momentum_buffer"], reference["momentum_buffer"],
                                       rtol=rtol, atol=atol)  # fmt: skip


def test_muon_is_near_pytorchs_bfloat16_run() -> None:
    """Unpatched PyTorch orthogonalises in bfloat16 (about 3 significant digits): microtorch's
    float64 steps stay within that rounding of PyTorch's over the 20 steps."""
    pt = pytest.importorskip("torch")
    ours, _ = _muon_trajectory(torch, dict(lr=0.02), np.float64)
    theirs, _ = _muon_trajectory(pt, dict(lr=0.02), np.float64)
    start, _ = _muon_trajectory(torch, dict(lr=0.0), np.float64)
    for a, b, a0 in zip(ours, theirs, start, strict=True):
        moved = np.abs(b - a0).max()
        assert np.abs(a - b).max() < 0.02 * moved  # bfloat16-sized, not a different rule


def test_muon_orthogonalises_the_step() -> None:
    """One step from a zero buffer without decay or nesterov moves p by -lr * O, and O's
    singular values are the iteration's (between about 0.7 and 1.2), whatever g's scale."""
    g = (
        np.diag([30.0, 1.0, 0.1])
        @ np.linalg.qr(np.random.default_rng(0).standard_normal((3, 3)))[0]
    )
    p = nn.Parameter(torch.zeros(3, 3, dtype=torch.float64))
    p.grad = torch.tensor(g)
    optim.Muon([p], lr=1.0, weight_decay=0.0, nesterov=False, momentum=0.0).step()
    singular = np.linalg.svd(-p.detach().numpy(), compute_uv=False)
    assert 0.6 < singular.min() and singular.max() < 1.25


def test_muon_defaults_state_dict_and_errors_as_pytorch(monkeypatch: pytest.MonkeyPatch) -> None:
    p = nn.Parameter(torch.ones(3, 2, dtype=torch.float64))
    opt = optim.Muon([p], lr=0.1)
    p.grad = torch.tensor(np.arange(6.0).reshape(3, 2))
    opt.step()
    saved = copy.deepcopy(opt.state_dict())
    assert set(saved["state"][0]) == {"momentum_buffer"}
    twin = nn.Parameter(p.detach().clone())
    opt2 = optim.Muon([twin], lr=0.1)
    opt2.load_state_dict(saved)
    for o, q in ((opt, p), (opt2, twin)):
        q.grad = torch.full((3, 2), 0.5, dtype=torch.float64)
        o.step()
    np.testing.assert_array_equal(p.detach().numpy(), twin.detach().numpy())
    with pytest.raises(ValueError, match="2D parameters"):
        optim.Muon([nn.Parameter(torch.zeros(2))])
    for bad in (dict(lr=-1.0), dict(momentum=-0.1), dict(weight_decay=-0.1),
                dict(adjust_lr_fn="spectral")):  # fmt: skip
        with pytest.raises(ValueError, match="Muon"):
            optim.Muon([nn.Parameter(torch.zeros(2, 2))], **bad)
    for bad, message in (
        (dict(ns_steps=100), "less than 100"),
        (dict(ns_coefficients=(1, 2)), "3"),
    ):
        q = nn.Parameter(torch.zeros(2, 2))
        q.grad = torch.ones(2, 2)
        with pytest.raises(ValueError, match=message):  # (at the step, as PyTorch)
            optim.Muon([q], **bad).step()
    pt = _torch_without_bfloat16(monkeypatch)
    ours = optim.Muon([nn.Parameter(torch.zeros(2, 2))])
    theirs = pt.optim.Muon([pt.nn.Parameter(pt.zeros(2, 2))])
    assert ours.defaults == theirs.defaults and repr(ours) == repr(theirs)
    tp = pt.nn.Parameter(pt.ones(3, 2, dtype=pt.float64))
    topt = pt.optim.Muon([tp], lr=0.1)
    tp.grad = pt.tensor(np.arange(6.0).reshape(3, 2))
    topt.step()
    theirs_saved = topt.state_dict()
    assert set(theirs_saved["state"][0]) == set(saved["state"][0])
    assert theirs_saved["param_groups"][0].keys() == saved["param_groups"][0].keys()
    np.testing.assert_allclose(p.detach().numpy(), _step_again(pt, tp, topt), rtol=1e-12)


def _step_again(pt, tp, topt) -> np.ndarray:
    tp.grad = pt.full((3, 2), 0.5, dtype=pt.float64)
    topt.step()
    return tp.detach().numpy()


def test_muon_on_device(device: str) -> None:
    """The raw-array code runs on every device (CuPy arrays there) with CPU's numbers."""
    kw = MUON_CASES["default"]
    ours, _ = _muon_trajectory(torch, kw, np.float64, device)
    reference, _ = _muon_trajectory(torch, kw, np.float64)
    for mine, cpu in zip(ours, reference, strict=True):
        np.testing.assert_allclose(mine, cpu, rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------------ LBFGS
def _least_squares(lib, dtype):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((8, 3)), rng.standard_normal(8)
    w = lib.nn.Parameter(lib.tensor(np.zeros(3), dtype=dtype))
    c = lib.nn.Parameter(lib.tensor(0.5, dtype=dtype))
    A, B = lib.tensor(a, dtype=dtype), lib.tensor(b, dtype=dtype)
    return [w, c], lambda: ((A @ w + c - B) ** 2).mean()


def _rosenbrock(lib, dtype):
    xy = lib.nn.Parameter(lib.tensor([-1.5, 2.0], dtype=dtype))
    return [xy], lambda: (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2


def _lbfgs_run(lib, problem, kw: dict, steps: int, dtype=None) -> tuple[list, list, object]:
    params, loss_fn = problem(lib, lib.float64 if dtype is None else dtype)
    opt = lib.optim.LBFGS(params, **kw)
    evaluations = []

    def closure():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        evaluations.append(loss.item())
        return loss

    trajectory = []
    for _ in range(steps):
        opt.step(closure)
        trajectory.append(np.concatenate([p.detach().numpy().reshape(-1) for p in params]))
    return trajectory, evaluations, opt


LBFGS_CASES = [
    ("least_squares", dict(lr=0.5, max_iter=4)),
    ("least_squares", dict(lr=1, max_iter=5, history_size=2, line_search_fn="strong_wolfe")),
    ("rosenbrock", dict(lr=1, max_iter=20, line_search_fn="strong_wolfe")),
    ("rosenbrock", dict(lr=0.01, max_iter=10, history_size=3)),
    (
        "rosenbrock",
        dict(lr=1, max_iter=8, max_eval=10, tolerance_change=1e-6, line_search_fn="strong_wolfe"),
    ),  # fmt: skip
    # steps too long (the zoom phase) and, on Rosenbrock, too short (extrapolation)
    ("least_squares", dict(lr=10, max_iter=10, line_search_fn="strong_wolfe")),
    ("rosenbrock", dict(lr=30, max_iter=20, history_size=2, line_search_fn="strong_wolfe")),
    ("least_squares", dict(lr=0.05, max_iter=10, line_search_fn="strong_wolfe")),
]


@pytest.mark.parametrize("problem,kw", LBFGS_CASES)
def test_lbfgs_trajectory_matches_pytorch(problem: str, kw: dict) -> None:
    pt = pytest.importorskip("torch")
    make = _least_squares if problem == "least_squares" else _rosenbrock
    ours, our_evals, opt = _lbfgs_run(torch, make, kw, steps=6)
    theirs, their_evals, topt = _lbfgs_run(pt, make, kw, steps=6)
    assert len(our_evals) == len(their_evals)  # the same closure calls, line search included
    np.testing.assert_allclose(our_evals, their_evals, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-9)
    state, tstate = opt.state[opt._params[0]], topt.state[topt._params[0]]
    assert set(state) == set(tstate)
    assert state["func_evals"] == tstate["func_evals"] and state["n_iter"] == tstate["n_iter"]
    assert not np.allclose(ours[0], ours[-1]) or problem == "least_squares"


def _kind(value: Any) -> str:
    """What a state entry is, as far as its type goes: a tensor's dtype and dims, a number's
    type, a list of those."""
    if isinstance(value, list):
        return "[" + ", ".join(_kind(v) for v in value) + "]"
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return f"tensor {str(value.dtype).split('.')[-1]} {len(value.shape)}-d"
    return type(value).__name__


@pytest.mark.parametrize("steps", [1, 3])
@pytest.mark.parametrize("problem,kw", LBFGS_CASES)
def test_lbfgs_state_holds_pytorchs_types(problem: str, kw: dict, steps: int) -> None:
    """Tensors where PyTorch keeps tensors (d, ro, al, H_diag once a pair is kept...), ints
    and floats where it keeps those (func_evals, n_iter, prev_loss...)."""
    pt = pytest.importorskip("torch")
    make = _least_squares if problem == "least_squares" else _rosenbrock
    # (float32 from the second step on: rounding decides how many pairs are kept)
    for dtype in ("float32", "float64") if steps == 1 else ("float64",):
        _, _, opt = _lbfgs_run(torch, make, kw, steps=steps, dtype=getattr(torch, dtype))
        _, _, topt = _lbfgs_run(pt, make, kw, steps=steps, dtype=getattr(pt, dtype))
        kinds = [{k: _kind(v) for k, v in o.state[o._params[0]].items()} for o in (opt, topt)]
        if "line_search_fn" in kw:  # (whether the search's t is a tensor or a number in
            for k in kinds:  # PyTorch depends on which branch of its interpolation made it)
                k["t"] = "a number" if k["t"] in ("int", "float") else k["t"]
                k["t"] = "a number" if k["t"].endswith("0-d") else k["t"]
        assert kinds[0] == kinds[1]


def test_lbfgs_solves_the_problems() -> None:
    trajectory, _, _ = _lbfgs_run(torch, _rosenbrock, dict(line_search_fn="strong_wolfe",
                                                           max_iter=50), steps=4)  # fmt: skip
    np.testing.assert_allclose(trajectory[-1], [1.0, 1.0], atol=1e-5)
    trajectory, _, _ = _lbfgs_run(torch, _least_squares, dict(line_search_fn="strong_wolfe",
                                                              tolerance_change=1e-14), steps=2)  # fmt: skip
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((8, 3)), rng.standard_normal(8)
    exact = np.linalg.lstsq(np.c_[a, np.ones(8)], b, rcond=None)[0]
    np.testing.assert_allclose(trajectory[-1], exact, rtol=1e-6, atol=1e-8)


def test_lbfgs_float32_stays_float32_and_follows_pytorch() -> None:
    pt = pytest.importorskip("torch")
    kw = dict(lr=1, max_iter=6, line_search_fn="strong_wolfe")
    # one step: after it the gradients are so small that float32 rounding (PyTorch keeps
    # the scalars in float32, microtorch in float64) decides the next digits
    ours, _, _ = _lbfgs_run(torch, _least_squares, kw, steps=1, dtype=torch.float32)
    theirs, _, _ = _lbfgs_run(pt, _least_squares, kw, steps=1, dtype=pt.float32)
    assert ours[0].dtype == np.float32
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_lbfgs_state_dict_resumes_exactly() -> None:
    kw = dict(lr=1, max_iter=3, history_size=4, line_search_fn="strong_wolfe")
    straight, _, _ = _lbfgs_run(torch, _rosenbrock, kw, steps=4)
    params, loss_fn = _rosenbrock(torch, torch.float64)
    opt = optim.LBFGS(params, **kw)

    def closure_for(o, ps, fn):
        def closure():
            o.zero_grad()
            loss = fn()
            loss.backward()
            return loss

        return closure

    for _ in range(2):
        opt.step(closure_for(opt, params, loss_fn))
    saved = copy.deepcopy(opt.state_dict())
    assert {"d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss",
            "func_evals", "n_iter"} <= set(saved["state"][0])  # fmt: skip
    params2, loss_fn2 = _rosenbrock(torch, torch.float64)
    with torch.no_grad():
        params2[0].copy_(params[0])
    opt2 = optim.LBFGS(params2, **kw)
    opt2.load_state_dict(saved)
    for _ in range(2):
        opt2.step(closure_for(opt2, params2, loss_fn2))
    np.testing.assert_array_equal(params2[0].detach().numpy(), straight[-1])


@pytest.mark.parametrize("problem,kw", [LBFGS_CASES[1], LBFGS_CASES[3]])
def test_an_lbfgs_state_saved_by_pytorch_resumes_as_in_pytorch(tmp_path, problem, kw) -> None:
    """PyTorch keeps t, H_diag, ro and al as 0-d tensors; loaded here they become numbers
    (as tensors they went into the parameters' arrays, and the next step failed)."""
    pt = pytest.importorskip("torch")
    make = _least_squares if problem == "least_squares" else _rosenbrock

    def start(lib):
        params, loss_fn = make(lib, lib.float64)
        opt = lib.optim.LBFGS(params, **kw)

        def closure():
            opt.zero_grad()
            loss = loss_fn()
            loss.backward()
            return loss

        return params, opt, closure

    their_params, their_opt, their_closure = start(pt)
    for _ in range(2):
        their_opt.step(their_closure)
    pt.save({"params": [p.detach() for p in their_params], "opt": their_opt.state_dict()},
            tmp_path / "lbfgs.pt")  # fmt: skip
    saved = torch.load(tmp_path / "lbfgs.pt")
    params, opt, closure = start(torch)
    with torch.no_grad():
        for p, value in zip(params, saved["params"], strict=True):
            p.copy_(value)
    opt.load_state_dict(saved["opt"])
    for _ in range(2):
        opt.step(closure)
        their_opt.step(their_closure)
    for a, b in zip(params, their_params, strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10)


def _lbfgs_and_adafactor_on(where: str) -> tuple:
    rng = np.random.default_rng(2)
    A = torch.tensor(rng.standard_normal((6, 2)), device=where)
    B = torch.tensor(rng.standard_normal(6), device=where)
    w = nn.Parameter(torch.zeros(2, dtype=torch.float64, device=where))
    opt = optim.LBFGS([w], max_iter=5, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((A @ w - B) ** 2).mean()
        loss.backward()
        return loss

    opt.step(closure)
    m = nn.Parameter(torch.ones(3, 2, dtype=torch.float64, device=where))
    ada = optim.Adafactor([m], weight_decay=0.1)
    for _ in range(3):
        m.grad = torch.tensor(rng.standard_normal((3, 2)), device=where)
        ada.step()
    return w.detach().cpu().numpy(), m.detach().cpu().numpy()


def test_lbfgs_and_adafactor_on_device(device: str) -> None:
    """The raw-array code runs on every device (CuPy arrays there) with CPU's numbers."""
    for mine, reference in zip(_lbfgs_and_adafactor_on(device), _lbfgs_and_adafactor_on("cpu"),
                               strict=True):  # fmt: skip
        np.testing.assert_allclose(mine, reference, rtol=1e-12, atol=1e-14)


def test_lbfgs_errors_as_pytorch() -> None:
    p, q = nn.Parameter(torch.zeros(2)), nn.Parameter(torch.zeros(2))
    with pytest.raises(ValueError, match="per-parameter options"):
        optim.LBFGS([{"params": [p]}, {"params": [q]}])
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.LBFGS([p], lr=-1.0)
    opt = optim.LBFGS([p], line_search_fn="backtracking")

    def closure():
        opt.zero_grad()
        loss = ((p - 1) ** 2).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)
    assert optim.LBFGS([p], max_iter=8).defaults["max_eval"] == 10  # max_iter * 5 // 4
    pt = pytest.importorskip("torch")
    theirs = pt.optim.LBFGS([pt.nn.Parameter(pt.zeros(2))])
    ours = optim.LBFGS([nn.Parameter(torch.zeros(2))])
    assert ours.defaults == theirs.defaults and repr(ours) == repr(theirs)
