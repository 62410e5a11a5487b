"""SGD, Adam, AdamW and RMSprop: several steps against a NumPy reference of the documented update
rules, against PyTorch where it is installed, parameter groups, state dicts, errors. (The
other optimizers are in test_more_optimizers.py.)"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn, optim

SHAPES = [(3, 4), (4,), (2, 1, 3), ()]  # () a 0-d parameter: NumPy makes its arithmetic scalars
STEPS = 5


def _start(dtype=np.float64) -> tuple[list, list]:
    """Starting values and a gradient sequence per parameter (fixed, seeded)."""
    rng = np.random.default_rng(42)
    values = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(STEPS)]
    return values, grads


# ------------------------------------------------------------------ NumPy references
def ref_sgd(
    values, grads, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False
):
    ps = [v.copy() for v in values]
    bufs = [None] * len(ps)
    for step_grads in grads:
        for i, g in enumerate(step_grads):
            g = -g if maximize else g
            g = g + weight_decay * ps[i]
            if momentum:
                bufs[i] = g.copy() if bufs[i] is None else momentum * bufs[i] + (1 - dampening) * g
                g = g + momentum * bufs[i] if nesterov else bufs[i]
            ps[i] = ps[i] - lr * g
    return ps


def ref_adam(values, grads, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
             decoupled=False, maximize=False):  # fmt: skip
    b1, b2 = betas
    ps = [v.copy() for v in values]
    m = [np.zeros_like(v) for v in values]
    v = [np.zeros_like(x) for x in values]
    vmax = [np.zeros_like(x) for x in values]
    for t, step_grads in enumerate(grads, start=1):
        for i, g in enumerate(step_grads):
            g = -g if maximize else g
            if decoupled:
                ps[i] = ps[i] * (1 - lr * weight_decay)
            else:
                g = g + weight_decay * ps[i]
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            m_hat = m[i] / (1 - b1**t)
            if amsgrad:
                vmax[i] = np.maximum(vmax[i], v[i])
                v_hat = vmax[i] / (1 - b2**t)
            else:
                v_hat = v[i] / (1 - b2**t)
            ps[i] = ps[i] - lr * m_hat / (np.sqrt(v_hat) + eps)
    return ps


def ref_rmsprop(values, grads, lr, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
                centered=False, maximize=False):  # fmt: skip
    ps = [v.copy() for v in values]
    sq, mean, buf = ([np.zeros_like(v) for v in values] for _ in range(3))
    for step_grads in grads:
        for i, g in enumerate(step_grads):
            g = (-g if maximize else g) + weight_decay * ps[i]
            sq[i] = alpha * sq[i] + (1 - alpha) * g * g
            mean[i] = alpha * mean[i] + (1 - alpha) * g
            rms = np.sqrt(sq[i] - mean[i] ** 2 if centered else sq[i]) + eps
            buf[i] = momentum * buf[i] + g / rms
            ps[i] = ps[i] - lr * (buf[i] if momentum else g / rms)
    return ps


def _run(make_optimizer, values, grads, device="cpu", dtype=torch.float64) -> list:
    params = [nn.Parameter(torch.tensor(v, dtype=dtype, device=device)) for v in values]
    opt = make_optimizer(params)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = torch.tensor(g, dtype=dtype, device=device)
        opt.step()
    return [p.detach().cpu().numpy() for p in params]


SGD_CASES = {
    "plain": dict(lr=0.1),
    "momentum": dict(lr=0.1, momentum=0.9),
    "dampening": dict(lr=0.05, momentum=0.8, dampening=0.3),
    "nesterov_wd": dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "maximize": dict(lr=0.1, momentum=0.5, maximize=True),
}
ADAM_CASES = {
    "adam": (optim.Adam, dict(lr=0.01), False),
    "adam_l2": (optim.Adam, dict(lr=0.01, weight_decay=0.1, betas=(0.8, 0.99)), False),
    "adam_amsgrad": (optim.Adam, dict(lr=0.01, amsgrad=True), False),
    "adam_maximize": (optim.Adam, dict(lr=0.01, maximize=True, eps=1e-6), False),
    "adam_decoupled": (
        optim.Adam,
        dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
        True,
    ),
    "adamw": (optim.AdamW, dict(lr=0.01), True),
    "adamw_wd": (optim.AdamW, dict(lr=0.01, weight_decay=0.1, betas=(0.9, 0.95)), True),
    "adamw_amsgrad": (optim.AdamW, dict(lr=0.01, weight_decay=0.1, amsgrad=True), True),
}


RMSPROP_CASES = {
    "rmsprop": dict(lr=0.01),
    "rmsprop_momentum_wd": dict(lr=0.01, momentum=0.9, weight_decay=0.1, alpha=0.9),
    "rmsprop_centered": dict(lr=0.01, centered=True, eps=1e-6),
    "rmsprop_centered_momentum_maximize": dict(
        lr=0.005, centered=True, momentum=0.5, maximize=True
    ),  # fmt: skip
}


def _assert_matches_reference(cls: type, kw: dict, reference) -> None:
    values, grads = _start()
    ours = _run(lambda ps: cls(ps, **kw), values, grads)
    for a, b in zip(ours, reference(values, grads, **kw)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", sorted(RMSPROP_CASES))
def test_rmsprop_matches_reference(case: str) -> None:
    _assert_matches_reference(optim.RMSprop, RMSPROP_CASES[case], ref_rmsprop)


def test_rmsprop_on_device(device: str) -> None:
    values, grads = _start(np.float32)
    kw = RMSPROP_CASES["rmsprop_centered_momentum_maximize"]
    ours = _run(lambda ps: optim.RMSprop(ps, **kw), values, grads, device=device,
                dtype=torch.float32)  # fmt: skip
    for a, b in zip(ours, ref_rmsprop([v.astype(np.float64) for v in values],
                                      [[g.astype(np.float64) for g in s] for s in grads], **kw)):  # fmt: skip
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", sorted(SGD_CASES))
def test_sgd_matches_reference(case: str) -> None:
    _assert_matches_reference(optim.SGD, SGD_CASES[case], ref_sgd)


@pytest.mark.parametrize("case", sorted(ADAM_CASES))
def test_adam_family_matches_reference(case: str) -> None:
    cls, kw, decoupled = ADAM_CASES[case]
    values, grads = _start()
    ours = _run(lambda ps: cls(ps, **kw), values, grads)
    ref_kw = {k: v for k, v in kw.items() if k != "decoupled_weight_decay"}
    if cls is optim.AdamW:
        ref_kw.setdefault("weight_decay", 0.01)  # AdamW's default
    expected = ref_adam(values, grads, decoupled=decoupled, **ref_kw)
    for a, b in zip(ours, expected):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", ["adamw_wd", "adam_l2", "adam_maximize", "adamw_amsgrad"])
def test_adam_family_on_device_matches_reference_float32(device: str, case: str) -> None:
    cls, kw, decoupled = ADAM_CASES[case]
    values, grads = _start(np.float32)
    ours = _run(lambda ps: cls(ps, **kw), values, grads, device=device, dtype=torch.float32)
    ref_kw = {k: v for k, v in kw.items() if k != "decoupled_weight_decay"}
    if cls is optim.AdamW:
        ref_kw.setdefault("weight_decay", 0.01)
    expected = ref_adam([v.astype(np.float64) for v in values],
                        [[g.astype(np.float64) for g in s] for s in grads], decoupled=decoupled, **ref_kw)  # fmt: skip
    for a, b in zip(ours, expected):
        assert a.dtype == np.float32  # no silent upcast to float64
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_adamw_on_float16_params_on_every_device(device: str) -> None:
    """float16 takes the array code (the CUDA kernel is built for float32/float64)."""
    values, grads = _start(np.float32)
    ours = _run(lambda ps: optim.AdamW(ps, lr=0.01), values, grads, device=device,
                dtype=torch.float16)  # fmt: skip
    expected = ref_adam([v.astype(np.float64) for v in values],
                        [[g.astype(np.float64) for g in s] for s in grads], decoupled=True,
                        lr=0.01, weight_decay=0.01)  # fmt: skip
    for a, b in zip(ours, expected):
        assert a.dtype == np.float16
        np.testing.assert_allclose(a, b, rtol=1e-2, atol=2e-3)


def test_sgd_on_device(device: str) -> None:
    values, grads = _start(np.float32)
    kw = SGD_CASES["nesterov_wd"]
    ours = _run(lambda ps: optim.SGD(ps, **kw), values, grads, device=device, dtype=torch.float32)
    for a, b in zip(ours, ref_sgd(values, grads, **kw)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _torch_run(pt, cls_name, kw, values, grads) -> list:
    params = [pt.tensor(v, requires_grad=True) for v in values]
    opt = getattr(pt.optim, cls_name)(params, **kw)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = pt.tensor(g)
        opt.step()
    return [p.detach().numpy() for p in params]


@pytest.mark.parametrize("case", sorted(SGD_CASES) + sorted(ADAM_CASES) + sorted(RMSPROP_CASES))
def test_matches_pytorch(case: str) -> None:
    pt = pytest.importorskip("torch")
    if case in SGD_CASES:
        cls_name, kw = "SGD", SGD_CASES[case]
    elif case in RMSPROP_CASES:
        cls_name, kw = "RMSprop", RMSPROP_CASES[case]
    else:
        cls, kw, _ = ADAM_CASES[case]
        cls_name = cls.__name__
    for dtype, rtol, atol in ((np.float64, 1e-10, 1e-12), (np.float32, 2e-6, 1e-6)):
        values, grads = _start(dtype)
        ours = _run(lambda ps, c=cls_name: getattr(optim, c)(ps, **kw), values, grads,
                    dtype=torch.float64 if dtype == np.float64 else torch.float32)  # fmt: skip
        theirs = _torch_run(pt, cls_name, kw, values, grads)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def test_param_groups_have_their_own_lr_and_weight_decay() -> None:
    values, grads = _start()
    a = [nn.Parameter(torch.tensor(v)) for v in values[:2]]
    b = [nn.Parameter(torch.tensor(values[2]))]
    opt = optim.AdamW(
        [{"params": a, "weight_decay": 0.1}, {"params": b, "lr": 0.05, "weight_decay": 0.0}],
        lr=0.01,
    )
    assert opt.param_groups[0]["lr"] == 0.01 and opt.param_groups[1]["lr"] == 0.05
    assert opt.param_groups[0]["betas"] == (0.9, 0.999)  # filled from the defaults
    for step_grads in grads:
        for p, g in zip(a + b, step_grads):
            p.grad = torch.tensor(g)
        opt.step()
    exp_a = ref_adam(values[:2], [s[:2] for s in grads], lr=0.01, weight_decay=0.1, decoupled=True)
    exp_b = ref_adam(values[2:], [s[2:] for s in grads], lr=0.05, weight_decay=0.0, decoupled=True)
    for p, e in zip(a + b, exp_a + exp_b):
        np.testing.assert_allclose(p.detach().numpy(), e, rtol=1e-10)


def _optimizer_over_named_parameters(T) -> list:
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.Linear(2, 1))
    opt = T.optim.SGD(model.named_parameters(), lr=0.1, momentum=0.9)
    model(T.ones(4, 3)).pow(2).sum().backward()
    opt.step()
    sd = opt.state_dict()
    grouped = T.optim.AdamW(
        [
            {"params": list(model[0].named_parameters())},
            {"params": list(model[1].named_parameters()), "lr": 0.5},
        ]
    )
    errors = []
    try:
        opt.add_param_group({"params": [T.zeros(2, requires_grad=True)]})
    except ValueError:
        errors.append("ValueError")
    return [
        opt.param_groups[0]["param_names"],
        sd["param_groups"][0]["param_names"],
        sd["param_groups"][0]["params"],
        sorted(sd["state"]),
        [g["param_names"] for g in grouped.param_groups],
        errors,
    ]


def test_optimizers_take_named_parameters_as_in_pytorch() -> None:
    seen = _optimizer_over_named_parameters(torch)
    names = ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert seen == [names, names, [0, 1, 2, 3], [0, 1, 2, 3],
                    [["weight", "bias"]] * 2, ["ValueError"]]  # fmt: skip
    pt = pytest.importorskip("torch")
    assert _optimizer_over_named_parameters(pt) == seen


def test_lr_can_be_changed_every_step() -> None:
    values, grads = _start()
    params = [nn.Parameter(torch.tensor(v)) for v in values]
    opt = optim.SGD(params, lr=1.0)
    expected = [v.copy() for v in values]
    for step, step_grads in enumerate(grads):
        lr = 0.1 / (step + 1)
        for group in opt.param_groups:
            group["lr"] = lr
        for p, g in zip(params, step_grads):
            p.grad = torch.tensor(g)
        opt.step()
        expected = [e - lr * g for e, g in zip(expected, step_grads)]
    for p, e in zip(params, expected):
        np.testing.assert_allclose(p.detach().numpy(), e, rtol=1e-12)


def test_step_skips_params_without_grad_bumps_versions_and_runs_closure() -> None:
    p, q = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
    opt = optim.Adam([p, q], lr=0.1)

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    version = p._version_counter.value
    loss = opt.step(closure)
    assert loss.item() == pytest.approx(2.0)
    assert p._version_counter.value == version + 1
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 0.9], rtol=1e-6)
    np.testing.assert_array_equal(q.detach().numpy(), [1.0, 1.0])
    assert q not in opt.state


def test_zero_grad() -> None:
    p = nn.Parameter(torch.ones(2))
    p.grad = torch.ones(2)
    opt = optim.SGD([p], lr=0.1)
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(p.grad.numpy(), [0.0, 0.0])
    opt.zero_grad()
    assert p.grad is None


def test_state_dict_resume_is_exact(tmp_path) -> None:
    """Train 3 steps, save, restore into a fresh model and optimizer, train 3 more: the
    result is bit-identical to 6 uninterrupted steps."""
    values, grads = _start(np.float32)
    grads = grads + grads  # 10 steps of gradients

    def make(params):
        return optim.AdamW([{"params": params[:2], "weight_decay": 0.1}, {"params": params[2:], "weight_decay": 0.0}], lr=0.01, amsgrad=True)  # fmt: skip

    def train(params, opt, steps):
        for step_grads in steps:
            for p, g in zip(params, step_grads):
                p.grad = torch.tensor(g)
            opt.step()

    straight = [nn.Parameter(torch.tensor(v)) for v in values]
    opt = make(straight)
    train(straight, opt, grads[:6])

    first = [nn.Parameter(torch.tensor(v)) for v in values]
    opt1 = make(first)
    train(first, opt1, grads[:3])
    torch.save(
        {"params": [p.detach() for p in first], "optimizer": opt1.state_dict()}, tmp_path / "ck.pt"
    )
    del opt1

    checkpoint = torch.load(tmp_path / "ck.pt")
    resumed = [nn.Parameter(torch.zeros(s)) for s in SHAPES]
    with torch.no_grad():
        for p, saved in zip(resumed, checkpoint["params"]):
            p.copy_(saved)
    opt2 = make(resumed)
    opt2.load_state_dict(checkpoint["optimizer"])
    assert opt2.state[resumed[0]]["step"] == 3
    train(resumed, opt2, grads[3:6])
    for a, b in zip(straight, resumed):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    # as in PyTorch 2.13, the loaded state is the checkpoint's own tensors: they moved on too
    assert checkpoint["optimizer"]["state"][0]["step"] == 6


def test_load_state_dict_restores_hyperparameters_and_moves_state(device: str) -> None:
    p = nn.Parameter(torch.ones(3))
    opt = optim.SGD([p], lr=0.5, momentum=0.9)
    p.grad = torch.ones(3)
    opt.step()
    sd = copy.deepcopy(opt.state_dict())
    q = nn.Parameter(torch.ones(3, device=device))
    opt2 = optim.SGD([q], lr=0.01, momentum=0.9)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.5 and opt2.param_groups[0]["params"][0] is q
    assert opt2.state[q]["momentum_buffer"].device.type == device


def _step_after_loading_an_old_state_dict(T) -> list:
    """A state dict from before some hyperparameters existed: the optimizer fills them in."""
    results = []
    for make, missing in (
        (lambda ps: T.optim.SGD(ps, lr=0.1, momentum=0.9), ("nesterov", "maximize", "foreach")),
        (lambda ps: T.optim.Adam(ps, lr=0.1), ("amsgrad", "maximize", "foreach")),
        (lambda ps: T.optim.RMSprop(ps, lr=0.1), ("centered", "maximize")),
    ):
        p = T.tensor([1.0, -2.0], requires_grad=True)
        opt = make([p])
        (p * p).sum().backward()
        opt.step()
        old = opt.state_dict()
        for key in missing:
            del old["param_groups"][0][key]
        resumed = make([p])
        resumed.load_state_dict(old)
        resumed.step()
        results.append([p.tolist()] + [resumed.param_groups[0][k] for k in missing])
    return results


def test_loading_a_state_dict_without_newer_hyperparameters_fills_them_in() -> None:
    seen = _step_after_loading_an_old_state_dict(torch)
    assert [r[1:] for r in seen] == [[False, False, None], [False, False, None], [False, False]]
    pt = pytest.importorskip("torch")
    expected = _step_after_loading_an_old_state_dict(pt)
    for mine, theirs in zip(seen, expected):
        np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-6)
        assert mine[1:] == theirs[1:]


def test_load_state_dict_errors() -> None:
    a = [nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))]
    sd = optim.Adam(a).state_dict()
    with pytest.raises(ValueError, match="doesn't match the size"):
        optim.Adam([nn.Parameter(torch.ones(2))]).load_state_dict(sd)
    with pytest.raises(ValueError, match="number of parameter groups"):
        optim.Adam([{"params": [a[0]]}, {"params": [a[1]]}]).load_state_dict(sd)


def test_constructor_errors_and_pytorch_keywords() -> None:
    p = nn.Parameter(torch.ones(2))
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    with pytest.raises(TypeError, match="iterable of Tensors"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="invalid learning rate"):
        optim.Adam([p], lr=-1)
    with pytest.raises(ValueError, match="invalid beta parameter at index 1"):
        optim.AdamW([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Nesterov"):
        optim.SGD([p], lr=0.1, nesterov=True)
    p.grad = torch.ones(2)
    with pytest.raises(AssertionError, match="capturable=True, params .* must be on"):
        optim.AdamW([p], capturable=True).step()  # (on the CPU, as PyTorch's)
    p.grad = None
    with pytest.raises(ValueError, match="differentiable=True is not supported"):
        optim.SGD([p], lr=0.1, differentiable=True)
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([p * 2], lr=0.1)
    # accepted: these select a kernel in PyTorch, the update is the same
    opt = optim.AdamW([p], lr=1e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1, amsgrad=False,
                      foreach=None, fused=True, maximize=False)  # fmt: skip
    assert opt.defaults["fused"] is True and "Parameter Group 0" in repr(opt)
    assert optim.AdamW([p]).defaults["weight_decay"] == 0.01


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [("SGD", {}), ("SGD", {"momentum": 0.9}), ("SGD", {"momentum": 0.9, "nesterov": True}),
     ("Adam", {}), ("RMSprop", {"momentum": 0.5})],
)  # fmt: skip
def test_a_parameter_listed_twice_warns_and_is_stepped_twice_as_in_pytorch(
    name: str, kwargs: dict
) -> None:
    """PyTorch warns (and plans an error) but steps each copy; with momentum, each copy
    starts its own buffer on the first step and the last one is kept."""
    pt = pytest.importorskip("torch")
    results = []
    for lib in (torch, pt):
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0], dtype=lib.float64))
        q = lib.nn.Parameter(lib.tensor([0.5], dtype=lib.float64))
        with pytest.warns(UserWarning, match="duplicate parameters|more than once"):
            opt = getattr(lib.optim, name)([p, q, p], lr=0.1, **kwargs)
        for _ in range(3):
            opt.zero_grad()
            ((p * p).sum() + (p * q).sum()).backward()
            opt.step()
        results.append(np.concatenate([p.detach().numpy(), q.detach().numpy()]))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-14)


def test_mlp_learns_xor() -> None:
    torch.manual_seed(0)
    x = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = optim.Adam(model.parameters(), lr=0.05)
    for _ in range(300):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < 1e-4


def test_mlp_learns_regression_with_sgd(device: str) -> None:
    torch.manual_seed(0)
    x = torch.linspace(-1, 1, 64, device=device).reshape(64, 1)
    y = x * x * 0.5 - 0.2
    model = nn.Sequential(nn.Linear(1, 32), nn.GELU(), nn.Linear(32, 1)).to(device)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(400):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    assert loss.item() < 1e-3
    assert math.isfinite(loss.item())


EVERY_OPTIMIZER = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "RAdam",
                   "RMSprop", "Rprop", "SGD"]  # fmt: skip


@pytest.mark.parametrize("name", EVERY_OPTIMIZER)
def test_model_moved_after_steps_keeps_training(name: str, device: str) -> None:
    """State created before ``model.to(...)`` follows the parameters to their new
    dtype and device on the next step (not the 0-d step count, eta, mu...: PyTorch's stay
    where they were made too)."""
    model = nn.Linear(3, 2)
    kw = dict(lr=0.1, momentum=0.9) if name in ("SGD", "RMSprop") else dict(lr=0.1)
    opt = getattr(optim, name)(model.parameters(), **kw)
    for _ in range(2):
        model(torch.ones(4, 3)).sum().backward()
        opt.step()
    model.to(device).double()
    model(torch.ones(4, 3, device=device, dtype=torch.float64)).sum().backward()
    opt.step()
    state = opt.state[model.weight]
    moved = [v for v in state.values() if isinstance(v, torch.Tensor) and v.ndim > 0]
    assert moved and all(v.device.type == device and v.dtype is torch.float64 for v in moved)
    assert (
        model.weight.dtype is torch.float64
        and np.isfinite(model.weight.detach().cpu().numpy()).all()
    )


def test_optimizers_print_as_pytorchs() -> None:
    pt = pytest.importorskip("torch")
    for name in ("SGD", "Adam", "AdamW", "RMSprop"):
        ours = getattr(optim, name)([nn.Parameter(torch.zeros(2))], lr=0.1)
        theirs = getattr(pt.optim, name)([pt.nn.Parameter(pt.zeros(2))], lr=0.1)
        assert repr(ours) == repr(theirs), name


# ------------------------------------------------------------------ hooks
def _hook_script(lib, optimizer_module) -> tuple[list, list]:
    """Register every kind of optimizer hook, step and save/load; the calls they saw."""
    seen = []
    p = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
    p.grad = lib.tensor([0.5, 0.5])
    opt = lib.optim.SGD([p], lr=0.1)

    def pre(o, args, kwargs):
        seen.append(("pre", o is opt, args[0] is opt, len(args), sorted(kwargs)))
        if "closure" in kwargs:  # replace the closure: its loss is what step() returns
            return args, {"closure": lambda: 7.0}
        return None

    handles = [
        optimizer_module.register_optimizer_step_pre_hook(lambda o, a, k: seen.append("gpre")),
        optimizer_module.register_optimizer_step_post_hook(lambda o, a, k: seen.append("gpost")),
        opt.register_step_pre_hook(pre),
        opt.register_step_post_hook(lambda o, a, k: seen.append(("post", sorted(k)))),
    ]
    try:
        seen.append(opt.step())
        seen.append(opt.step(closure=lambda: 3.0))
        handles[2].remove()
        handles[0].remove()
        opt.step()
    finally:
        for handle in handles:
            handle.remove()
    opt.step()  # no hooks left
    opt.register_state_dict_pre_hook(lambda o: seen.append("sd_pre"))
    opt.register_state_dict_pre_hook(lambda o: seen.append("sd_pre_first"), prepend=True)
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    opt.register_load_state_dict_pre_hook(lambda o, sd: seen.append(("load_pre", sorted(sd))))
    opt.register_load_state_dict_post_hook(lambda o: seen.append("load_post"))
    state = opt.state_dict()
    seen.append(sorted(state))
    opt.load_state_dict(state)
    opt.register_step_pre_hook(lambda o, a, k: 5)
    with pytest.raises(RuntimeError, match="must return None or a tuple"):
        opt.step()
    return seen, p.detach().numpy().tolist()


def test_optimizer_hooks_run_as_pytorchs() -> None:
    """Step pre/post hooks (per optimizer and global: their order, args starting with the
    optimizer, kwargs, a pre-hook's new (args, kwargs), .remove()) and the state-dict
    hooks (prepend, a post-hook's new dict, load hooks) do what PyTorch's do."""
    from microtorch.optim import optimizer as ours

    pt = pytest.importorskip("torch")
    import torch.optim.optimizer as theirs

    assert _hook_script(torch, ours) == _hook_script(pt, theirs)
    assert _hook_script(torch, ours)[0][:3] == [
        "gpre", ("pre", True, True, 1, []), ("post", [])
    ]  # fmt: skip


def test_hooked_optimizer_copies_and_pickles() -> None:
    """The step wrapper is per instance: a deepcopy or an unpickled copy steps its own
    parameters and runs its own hooks."""
    import pickle

    p = nn.Parameter(torch.tensor([1.0]))
    p.grad = torch.tensor([1.0])
    opt = optim.SGD([p], lr=0.5)
    for twin in (copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))):
        calls = []
        twin.param_groups[0]["params"][0].grad = torch.tensor([1.0])  # (pickling drops it)
        twin.register_step_post_hook(lambda o, a, k, calls=calls: calls.append(o))
        twin.step()
        assert calls == [twin]
        assert twin.param_groups[0]["params"][0].item() == 0.5
    assert p.item() == 1.0


@pytest.mark.parametrize(
    "name, kwargs",
    [("AdamW", {"lr": 0.1}), ("Adam", {"lr": 0.1, "amsgrad": True}),
     ("SGD", {"lr": 0.1, "momentum": 0.9}), ("RMSprop", {"lr": 0.01, "centered": True}),
     ("Adagrad", {"lr": 0.1}), ("NAdam", {"lr": 0.1}), ("RAdam", {"lr": 0.1}),
     ("Adamax", {"lr": 0.1}), ("ASGD", {"lr": 0.1, "t0": 1}), ("Rprop", {})],
)  # fmt: skip
def test_an_optimizer_state_saved_by_pytorch_resumes_as_in_pytorch(tmp_path, name, kwargs) -> None:
    """torch.save'd model and optimizer state dicts, loaded with microtorch.load: three more
    steps give PyTorch's parameters (PyTorch keeps step, eta, mu, mu_product as 0-d tensors;
    here too)."""
    pt = pytest.importorskip("torch")
    pt.manual_seed(0)
    theirs = pt.nn.Linear(3, 2)
    their_opt = getattr(pt.optim, name)(theirs.parameters(), **kwargs)
    x = pt.tensor([[1.0, -2.0, 0.5]])

    def train(model, opt, x) -> None:
        for _ in range(3):
            (model(x) ** 2).sum().backward()
            opt.step()
            opt.zero_grad()

    train(theirs, their_opt, x)
    pt.save({"model": theirs.state_dict(), "opt": their_opt.state_dict()}, tmp_path / "ck.pt")
    ckpt = torch.load(tmp_path / "ck.pt")
    ours = nn.Linear(3, 2)
    ours.load_state_dict(ckpt["model"])
    our_opt = getattr(optim, name)(ours.parameters(), **kwargs)
    our_opt.load_state_dict(ckpt["opt"])
    train(ours, our_opt, torch.tensor(x.numpy()))
    train(theirs, their_opt, x)
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(),
                               rtol=1e-5, atol=1e-6)  # fmt: skip
    state = our_opt.state[ours.weight]
    if "step" in state:  # (SGD keeps no step count) a 0-d float32 tensor, as PyTorch keeps it
        assert isinstance(state["step"], torch.Tensor) and state["step"].dtype == torch.float32
        assert state["step"].shape == () and state["step"].item() == 6.0


# ------------------------------------------------------------------ every optimizer vs PyTorch
# (name, keyword arguments), parameters of several shapes (0-d too) in two groups, one of
# which has no gradient at some steps: 20 steps must give PyTorch's parameters
EVERY_OPTIMIZER = [
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.01, betas=(0.5, 0.9), eps=1e-3, decoupled_weight_decay=True,
                  weight_decay=0.2)),
    ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.3)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.1, alpha=0.8)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1, initial_accumulator_value=0.2, weight_decay=0.1,
                     eps=1e-5)),
    ("Adadelta", dict(lr=0.5, rho=0.7, eps=1e-4, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.01, betas=(0.7, 0.9), weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, momentum_decay=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, betas=(0.8, 0.9))),
    ("Rprop", dict(lr=0.01, etas=(0.3, 1.5), step_sizes=(1e-4, 0.5), maximize=True)),
    ("ASGD", dict(lr=0.01, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.1)),
    ("Adafactor", dict(lr=0.01, beta2_decay=-0.5, d=1.5, eps=(1e-4, 1e-2), weight_decay=0.1)),
]  # fmt: skip
EVERY_SHAPES = [(3, 4), (5,), (), (2, 3)]


def _every_run(lib, name: str, kw: dict, dtype, tensor_lr: bool = False, steps: int = 20):
    """Parameters and optimizer after ``steps`` steps; the last parameter has no gradient
    at every third step (so it is skipped there)."""
    rng = np.random.default_rng(5)
    values = [rng.standard_normal(s).astype(dtype) for s in EVERY_SHAPES]
    params = [lib.tensor(v, requires_grad=True) for v in values]
    kw = dict(kw, lr=lib.tensor(kw["lr"])) if tensor_lr else kw
    groups = [{"params": params[:2]}, {"params": params[2:], "lr": kw["lr"] * 0.5}]
    opt = getattr(lib.optim, name)(groups if not tensor_lr else params, **kw)
    for step in range(steps):
        for i, p in enumerate(params):
            g = rng.standard_normal(p.shape).astype(dtype)
            p.grad = None if i == 3 and step % 3 == 1 else lib.tensor(g)
        opt.step()
    return [p.detach().numpy() for p in params], opt


@pytest.mark.parametrize("case", range(len(EVERY_OPTIMIZER)))
@pytest.mark.parametrize("tensor_lr", [False, True])
def test_every_optimizer_matches_pytorch_over_20_steps(case: int, tensor_lr: bool) -> None:
    """Also with ``lr=torch.tensor(0.01)``: PyTorch rounds the step sizes it makes from a
    float32 tensor lr in float32, and so does microtorch (they differed by up to 7e-7)."""
    pt = pytest.importorskip("torch")
    name, kw = EVERY_OPTIMIZER[case]
    for dtype, tol in ((np.float64, 1e-12), (np.float32, 3e-6)):
        ours, _ = _every_run(torch, name, kw, dtype, tensor_lr)
        theirs, _ = _every_run(pt, name, kw, dtype, tensor_lr)
        for a, b in zip(ours, theirs, strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=f"{name} {dtype}")


@pytest.mark.parametrize("name", ["Adam", "AdamW", "NAdam", "Adagrad"])
def test_a_tensor_lr_steps_alike_on_every_device(name: str, device: str) -> None:
    """(Adam's GPU kernel takes the float32-rounded step sizes as its scalars.)"""
    values, grads = _start(np.float32)
    make = lambda ps: getattr(optim, name)(ps, lr=torch.tensor(0.01))  # noqa: E731
    ours = _run(make, values, grads, device=device, dtype=torch.float32)
    for a, b in zip(ours, _run(make, values, grads, dtype=torch.float32), strict=True):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)  # (a kernel rounds its own way)


def _state_dict_layout(state_dict: dict) -> tuple:
    """What a state dict holds, without the values: per parameter index, each state entry's
    name (in order), type, dtype and shape; each group's keys (in order: printing a group
    or its state dict shows them so) and parameter indices."""
    state = {
        index: [(name, type(v).__name__, str(getattr(v, "dtype", "")).split(".")[-1],
                 tuple(getattr(v, "shape", ()))) for name, v in entries.items()]
        for index, entries in state_dict["state"].items()
    }  # fmt: skip
    groups = [[(k, v if k == "params" else type(v).__name__) for k, v in group.items()]
              for group in state_dict["param_groups"]]  # fmt: skip
    return state, groups


@pytest.mark.parametrize("case", range(len(EVERY_OPTIMIZER)))
@pytest.mark.parametrize("default_dtype", ["float32", "float64"])
def test_state_dict_is_laid_out_as_pytorchs(case: int, default_dtype: str) -> None:
    """The same parameter indices, state entries in the same order, and the step count (and
    ASGD's eta and mu, NAdam's mu_product) a 0-d tensor in the default float dtype."""
    pt = pytest.importorskip("torch")
    name, kw = EVERY_OPTIMIZER[case]
    layouts = []
    for lib in (torch, pt):
        before = lib.get_default_dtype()
        lib.set_default_dtype(getattr(lib, default_dtype))
        try:
            _, opt = _every_run(lib, name, kw, np.float32, steps=2)
            layouts.append(_state_dict_layout(opt.state_dict()))
        finally:
            lib.set_default_dtype(before)
    assert layouts[0] == layouts[1]
    if name != "SGD":  # (SGD counts no steps)
        assert layouts[0][0][0][0] == ("step", "Tensor", default_dtype, ())


def test_a_state_dict_loads_into_pytorch_and_resumes_as_there() -> None:
    """The reverse of the test above: microtorch's state dict, its tensors handed to PyTorch,
    loads into torch.optim and the next steps are PyTorch's uninterrupted run."""
    pt = pytest.importorskip("torch")

    def to_torch(obj):
        if isinstance(obj, torch.Tensor):
            return pt.tensor(obj.numpy())
        if isinstance(obj, dict):
            return {k: to_torch(v) for k, v in obj.items()}
        return [to_torch(v) for v in obj] if isinstance(obj, list) else obj

    for name, kw in EVERY_OPTIMIZER:
        ours, opt = _every_run(torch, name, kw, np.float64, steps=20)
        _, their_opt = _every_run(pt, name, kw, np.float64, steps=20)
        _, resumed_opt = _every_run(pt, name, kw, np.float64, steps=0)
        resumed = [p for group in resumed_opt.param_groups for p in group["params"]]
        with pt.no_grad():
            for p, value in zip(resumed, ours, strict=True):
                p.copy_(pt.tensor(value))
        resumed_opt.load_state_dict(to_torch(opt.state_dict()))
        for run in (resumed_opt, their_opt):
            for group in run.param_groups:
                for p in group["params"]:
                    p.grad = pt.ones_like(p)
            run.step()
        straight = [p for group in their_opt.param_groups for p in group["params"]]
        for a, b in zip(resumed, straight, strict=True):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12,
                                       atol=1e-12, err_msg=name)  # fmt: skip


def test_bad_lr_and_kernel_choices_raise_pytorchs_errors() -> None:
    pt = pytest.importorskip("torch")
    for lib in (torch, pt):
        p = lib.zeros(2, requires_grad=True)
        with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
            lib.optim.Adam([p], lr=lib.tensor([0.1, 0.2]))
        with pytest.raises(TypeError):
            lib.optim.SGD([p], lr="0.1")
        for name in ("SGD", "Adam", "AdamW", "Adagrad"):
            with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True`"):
                getattr(lib.optim, name)([p], lr=0.1, fused=True, foreach=True)
            getattr(lib.optim, name)([p], lr=0.1, fused=True)  # each alone is accepted
            getattr(lib.optim, name)([p], lr=0.1, foreach=True)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "Adamax", "ASGD", "NAdam", "RAdam",
                                  "RMSprop", "Rprop", "Adadelta"])  # fmt: skip
def test_capturable_is_accepted_and_needs_the_gpu_as_in_pytorch(name: str, device: str) -> None:
    """PyTorch accepts capturable=True (a CUDA-graph option that leaves the step as it is);
    its step refuses parameters that are not on the GPU with an AssertionError."""
    values, grads = _start(np.float32)
    kw = dict(lr=0.01)

    def make(capturable: bool):
        return lambda ps: getattr(optim, name)(ps, capturable=capturable, **kw)

    if device == "cpu":
        with pytest.raises(AssertionError, match="capturable=True"):
            _run(make(True), values, grads, dtype=torch.float32)
        pt = pytest.importorskip("torch")
        p = pt.zeros(2, requires_grad=True)
        their_opt = getattr(pt.optim, name)([p], capturable=True)
        p.grad = pt.ones(2)
        with pytest.raises(AssertionError, match="capturable=True"):
            their_opt.step()
        return
    captured = _run(make(True), values, grads, device=device, dtype=torch.float32)
    for a, b in zip(captured, _run(make(False), values, grads, device=device, dtype=torch.float32)):
        np.testing.assert_array_equal(a, b)


def test_a_parameter_twice_in_a_group_warns_and_is_numbered_as_in_pytorch() -> None:
    pt = pytest.importorskip("torch")
    seen = []
    for lib in (torch, pt):
        p, q, r = (lib.zeros(2, requires_grad=True) for _ in range(3))
        with pytest.warns(UserWarning, match="duplicate parameters"):
            opt = lib.optim.Adam([p, q, p], lr=0.1)
        opt.add_param_group({"params": [r]})
        with pytest.raises(ValueError, match="more than one parameter group"):
            opt.add_param_group({"params": [q]})
        p.grad = lib.ones(2)
        opt.step()  # p is stepped twice
        saved = opt.state_dict()
        numbers = [g["params"] for g in saved["param_groups"]]
        seen.append((p.tolist(), numbers, list(saved["state"])))
    assert seen[0] == seen[1]
    assert seen[0][1] == [[2, 1, 2], [3]]


def test_load_state_dict_without_its_entries_raises_pytorchs_key_error() -> None:
    opt = optim.Adam([nn.Parameter(torch.ones(2))])
    for missing in ("state", "param_groups"):
        saved = opt.state_dict()
        del saved[missing]
        with pytest.raises(KeyError, match=missing):
            opt.load_state_dict(saved)
    with pytest.raises(TypeError, match="expected a dict"):
        opt.load_state_dict([])
