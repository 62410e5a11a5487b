"""Learning-rate schedules: formulas, PyTorch parity, state dicts."""

from __future__ import annotations

import collections
import math
import pickle
import warnings

import pytest

import microtorch as torch
from microtorch import nn, optim
from microtorch.optim import lr_scheduler


def _optimizer(lr: float = 0.1, groups: int = 1) -> optim.SGD:
    params = [{"params": [nn.Parameter(torch.ones(1))], "lr": lr * (i + 1)} for i in range(groups)]
    return optim.SGD(params, lr=lr)


def _lrs(scheduler, opt, steps: int) -> list:
    seen = []
    for _ in range(steps):
        seen.append([g["lr"] for g in opt.param_groups])
        opt.step()
        scheduler.step()
    return seen


def test_lambda_lr() -> None:
    opt = _optimizer(0.1, groups=2)
    sched = lr_scheduler.LambdaLR(opt, lambda step: 0.5**step)
    seen = _lrs(sched, opt, 4)
    assert seen[0] == [0.1, 0.2]
    assert seen[3] == pytest.approx([0.1 / 8, 0.2 / 8])
    assert sched.get_last_lr() == pytest.approx([0.1 / 16, 0.2 / 16])
    assert opt.param_groups[0]["initial_lr"] == 0.1
    per_group = lr_scheduler.LambdaLR(_optimizer(0.1, 2), [lambda s: 1.0, lambda s: 0.0])
    assert per_group.get_last_lr() == [0.1, 0.0]
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas"):
        lr_scheduler.LambdaLR(_optimizer(0.1, 2), [lambda s: 1.0])


def test_cosine_annealing_formula() -> None:
    opt = _optimizer(1.0)
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.1)
    seen = [lrs[0] for lrs in _lrs(sched, opt, 11)]
    expected = [0.1 + 0.9 * (1 + math.cos(math.pi * t / 10)) / 2 for t in range(11)]
    assert seen == pytest.approx(expected)
    assert seen[0] == 1.0 and seen[10] == pytest.approx(0.1)


def test_warmup_cosine() -> None:
    opt = _optimizer(1.0)
    sched = lr_scheduler.WarmupCosineLR(opt, warmup_steps=4, total_steps=12, eta_min=0.1)
    seen = [lrs[0] for lrs in _lrs(sched, opt, 14)]
    assert seen[:4] == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert seen[4] == pytest.approx(1.0)
    assert seen[8] == pytest.approx(0.1 + 0.9 * 0.5)  # half way through the decay
    assert seen[12:] == pytest.approx([0.1, 0.1])
    assert all(a >= b for a, b in zip(seen[4:], seen[5:]))  # decays monotonically
    assert lr_scheduler.warmup_cosine_lr(0, 3e-4, 100, 1000) == pytest.approx(3e-6)
    with pytest.raises(ValueError, match="warmup_steps < total_steps"):
        lr_scheduler.WarmupCosineLR(opt, warmup_steps=5, total_steps=5)


def test_state_dict_round_trip() -> None:
    opt = _optimizer(1.0)
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=20)
    _lrs(sched, opt, 5)
    state = sched.state_dict()
    assert state["last_epoch"] == 5 and "optimizer" not in state
    opt2 = _optimizer(1.0)
    sched2 = lr_scheduler.CosineAnnealingLR(opt2, T_max=20)
    # schedules move the group's lr on from where it is, so the optimizer's lr is restored
    # too, as in PyTorch: a checkpoint holds both state dicts
    opt2.load_state_dict(opt.state_dict())
    sched2.load_state_dict(state)
    sched.step()
    sched2.step()
    assert sched.get_last_lr() == sched2.get_last_lr()
    lam = lr_scheduler.LambdaLR(_optimizer(), lambda s: 1.0)
    assert lam.state_dict()["lr_lambdas"] == [None]  # a function is not saved


class _Decay:
    """A callable lr_lambda with state: its attributes go into the scheduler's state dict."""

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def __call__(self, step: int) -> float:
        return self.rate**step


def _lambda_schedulers_state(T) -> list:
    seen = []
    for kind in (T.optim.lr_scheduler.LambdaLR, T.optim.lr_scheduler.MultiplicativeLR):
        p = T.ones(1, requires_grad=True)
        groups = [{"params": [p]}, {"params": [T.ones(1, requires_grad=True)], "lr": 0.2}]
        opt = T.optim.SGD(groups, lr=0.1)
        sched = kind(opt, [_Decay(0.5), lambda step: 0.9])
        opt.step()
        sched.step()
        sched.lr_lambdas[0].rate = 0.25  # e.g. changed during training
        state = sched.state_dict()
        fresh = kind(T.optim.SGD(groups, lr=0.1), [_Decay(0.5), lambda step: 0.9])
        fresh.load_state_dict(state)
        seen.append([state["lr_lambdas"], fresh.lr_lambdas[0].rate])
    return seen


def test_lambda_schedulers_save_the_state_of_callable_objects_as_pytorch() -> None:
    seen = _lambda_schedulers_state(torch)
    assert seen == [[[{"rate": 0.25}, None], 0.25]] * 2
    pt = pytest.importorskip("torch")
    assert _lambda_schedulers_state(pt) == seen


def _tensor_lr_schedule(lib, make) -> tuple:
    """A tensor lr through 8 steps of a schedule: its values, whether the group's lr is
    still the user's tensor, and get_last_lr()'s (copies, which later steps leave alone)."""
    lr = lib.tensor(0.1)
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=lr, momentum=0.9)
    sched = make(lib, opt)
    values, last = [], []
    for _ in range(8):
        opt.step()
        sched.step()
        values.append(float(opt.param_groups[0]["lr"]))
        last.append(sched.get_last_lr()[0])
    return values, opt.param_groups[0]["lr"] is lr, [float(x) for x in last], type(last[0])


@pytest.mark.parametrize("name", ["step", "warmup_then_cosine", "one_cycle", "three_stages"])
def test_a_tensor_lr_is_scheduled_in_place_as_pytorch(name: str) -> None:
    pt = pytest.importorskip("torch")
    values, same, last, kind = _tensor_lr_schedule(torch, SCHEDULES[name])
    their_values, their_same, their_last, their_kind = _tensor_lr_schedule(pt, SCHEDULES[name])
    assert values == pytest.approx(their_values, rel=1e-6)  # (float32 tensors)
    assert last == values and same and their_same
    assert kind is torch.Tensor and their_kind is pt.Tensor


def test_multistep_keeps_its_milestones_as_pytorchs_counter() -> None:
    sched = lr_scheduler.MultiStepLR(_optimizer(), [4, 2, 4])
    assert sched.state_dict()["milestones"] == collections.Counter({4: 2, 2: 1})
    pt = pytest.importorskip("torch")
    theirs = pt.optim.lr_scheduler.MultiStepLR(pt.optim.SGD([pt.ones(1)], lr=0.1), [4, 2, 4])
    assert theirs.state_dict()["milestones"] == sched.state_dict()["milestones"]


def test_schedulers_stepped_in_turn_multiply() -> None:
    """Two schedules on one optimizer compose, as PyTorch's do: alone each is a closed form
    base_lr * factor(step); together the lr is base_lr times both factors."""
    opt = _optimizer(1.0)
    decay = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    steps = lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    seen = []
    for _ in range(8):
        seen.append(opt.param_groups[0]["lr"])
        decay.step()
        steps.step()
    assert seen == pytest.approx([0.9**t * 0.5 ** (t // 3) for t in range(8)])
    assert decay.get_last_lr() == pytest.approx([0.9**8 * 0.5**2])


def test_a_changed_lr_is_where_the_schedule_goes_on_from() -> None:
    opt = _optimizer(1.0)
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    sched.step()
    opt.param_groups[0]["lr"] = 0.1  # the user lowers it by hand
    sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.05)


def test_step_with_an_epoch_warns_and_jumps_by_the_closed_form() -> None:
    opt = _optimizer(1.0)
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    with pytest.warns(UserWarning, match="deprecated"):
        sched.step(5)
    assert sched.last_epoch == 5 and opt.param_groups[0]["lr"] == pytest.approx(0.25)
    sched.step()  # on from there: step 6 halves again
    assert opt.param_groups[0]["lr"] == pytest.approx(0.125)


def _order_warnings(lib, optimizer_first: bool) -> list:
    """The warnings of a StepLR, a ReduceLROnPlateau and a ChainedScheduler's first two
    steps, with or without optimizer.step() before the first."""
    seen = []
    schedulers = lib.optim.lr_scheduler
    for make in (lambda o: schedulers.StepLR(o, 2),
                 lambda o: schedulers.ReduceLROnPlateau(o),
                 lambda o: schedulers.ChainedScheduler([schedulers.StepLR(o, 2),
                                                        schedulers.StepLR(o, 3)])):  # fmt: skip
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        sched = make(opt)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(2):
                if optimizer_first:
                    opt.step()
                sched.step(1.0) if hasattr(sched, "patience") else sched.step()
        seen.append(["before `optimizer.step()`" in str(w.message) for w in caught])
    return seen


def test_scheduler_step_before_optimizer_step_warns_as_pytorch() -> None:
    """Once, at the first step (a ChainedScheduler's for each of its schedulers);
    ReduceLROnPlateau does not check."""
    assert _order_warnings(torch, optimizer_first=False) == [[True], [], [True, True]]
    assert _order_warnings(torch, optimizer_first=True) == [[], [], []]
    pt = pytest.importorskip("torch")
    for first in (False, True):
        assert _order_warnings(torch, first) == _order_warnings(pt, first)
    opt = _optimizer()
    plateau = lr_scheduler.ReduceLROnPlateau(opt)
    with pytest.warns(UserWarning, match="deprecated"):
        plateau.step(1.0, 5)
    assert plateau.last_epoch == 5


def test_get_lr_called_by_the_user_warns_as_pytorch() -> None:
    pt = pytest.importorskip("torch")
    for lib in (torch, pt):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        for sched in (lib.optim.lr_scheduler.StepLR(opt, 2),
                      lib.optim.lr_scheduler.OneCycleLR(opt, 1.0, total_steps=5,
                                                        cycle_momentum=False),
                      lib.optim.swa_utils.SWALR(opt, swa_lr=0.05)):  # fmt: skip
            with pytest.warns(UserWarning, match="get_last_lr"):
                sched.get_lr()
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                opt.step()
                sched.step()  # (step() itself calls get_lr without a warning)


def test_plateau_gives_a_group_added_later_the_one_min_lr_as_pytorch() -> None:
    pt = pytest.importorskip("torch")
    seen = []
    for lib in (torch, pt):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1.0)
        one, per_group = (lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=m)
                          for m in (0.5, [0.5]))  # fmt: skip
        opt.add_param_group({"params": [lib.nn.Parameter(lib.ones(1))], "lr": 2.0})
        for metric in (1.0, 2.0, 3.0):
            one.step(metric)
        per_group.step(4.0)
        with pytest.raises(RuntimeError, match="param groups"):
            per_group.step(5.0)  # (the first time it would lower the lrs)
        seen.append([g["lr"] for g in opt.param_groups] + one.min_lrs)
    assert seen[0] == seen[1] == [0.5, 0.5, 0.5, 0.5]


def test_chained_and_sequential_refuse_plateau_and_other_optimizers() -> None:
    opt = _optimizer()
    plateau = lr_scheduler.ReduceLROnPlateau(opt)
    with pytest.raises(ValueError, match="does not support ReduceLROnPlateau"):
        lr_scheduler.ChainedScheduler([lr_scheduler.StepLR(opt, 2), plateau])
    with pytest.raises(ValueError, match="same optimizer"):
        lr_scheduler.SequentialLR(
            opt, [lr_scheduler.StepLR(opt, 2), lr_scheduler.StepLR(_optimizer(), 2)], [3]
        )


def test_resuming_needs_initial_lr() -> None:
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.CosineAnnealingLR(_optimizer(), T_max=5, last_epoch=3)


def test_match_pytorch() -> None:
    pt = pytest.importorskip("torch")

    def torch_lrs(make, steps):
        p = pt.nn.Parameter(pt.ones(1))
        opt = pt.optim.SGD([p], lr=0.5)
        sched = make(opt)
        seen = []
        for _ in range(steps):
            seen.append(opt.param_groups[0]["lr"])
            opt.step()
            sched.step()
        return seen

    ours_opt = _optimizer(0.5)
    ours = [
        x[0]
        for x in _lrs(
            lr_scheduler.CosineAnnealingLR(ours_opt, T_max=15, eta_min=0.01), ours_opt, 15
        )
    ]
    theirs = torch_lrs(
        lambda o: pt.optim.lr_scheduler.CosineAnnealingLR(o, T_max=15, eta_min=0.01), 15
    )
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)

    fn = lambda step: min(1.0, (step + 1) / 5)  # noqa: E731
    ours_opt = _optimizer(0.5)
    ours = [x[0] for x in _lrs(lr_scheduler.LambdaLR(ours_opt, fn), ours_opt, 10)]
    theirs = torch_lrs(lambda o: pt.optim.lr_scheduler.LambdaLR(o, fn), 10)
    assert ours == pytest.approx(theirs, rel=1e-12)


# The same schedule built with either library: ``lib`` is microtorch or torch.
SCHEDULES = {
    "step": lambda lib, o: lib.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5),
    "multistep": lambda lib, o: lib.optim.lr_scheduler.MultiStepLR(o, [4, 2, 7], gamma=0.3),
    "exponential": lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
    "linear_warmup": lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, 0.1, total_iters=4),
    "linear_decay": lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, 1.0, 0.2, total_iters=6),
    "warmup_then_cosine": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o,
        [
            lib.optim.lr_scheduler.LinearLR(o, 0.01, total_iters=3),
            lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=8, eta_min=0.01),
        ],
        milestones=[3],
    ),
    "one_cycle": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=12),
    "one_cycle_three_phase_linear": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o,
        max_lr=[1.0, 0.4],
        epochs=3,
        steps_per_epoch=4,
        pct_start=0.25,
        anneal_strategy="linear",
        three_phase=True,
        div_factor=10,
        final_div_factor=100,
    ),  # fmt: skip
    "three_stages": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o,
        [
            lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.8),
            lib.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5),
            lib.optim.lr_scheduler.LinearLR(o, 1.0, 0.5, total_iters=3),
        ],
        milestones=[2, 6],
    ),
    # chaining: each schedule moves the lr the last one left, so their factors multiply
    "chained_exponential_and_multistep": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [
            lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
            lib.optim.lr_scheduler.MultiStepLR(o, [2, 5, 5], gamma=0.5),
        ]
    ),
    "chained_warmup_and_cosine": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [
            lib.optim.lr_scheduler.LinearLR(o, 0.2, total_iters=4),
            lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=5, eta_min=0.02),
            lib.optim.lr_scheduler.StepLR(o, step_size=4, gamma=0.5),
        ]
    ),
}


def _lrs_with(lib, make, steps: int = 12) -> list:
    """Each group's lr at each step of ``make``'s schedule, built with ``lib``."""
    param = lib.nn.Parameter(lib.ones(1))
    opt = lib.optim.SGD([{"params": [param]}, {"params": [], "lr": 0.2}], lr=0.5)
    return _lrs(make(lib, opt), opt, steps)


def test_step_multistep_exponential_linear_and_sequential_formulas() -> None:
    step = _lrs_with(torch, SCHEDULES["step"], 7)
    assert [lrs[0] for lrs in step] == pytest.approx([0.5] * 3 + [0.25] * 3 + [0.125])
    warmup = [lrs[0] for lrs in _lrs_with(torch, SCHEDULES["linear_warmup"], 6)]
    assert warmup == pytest.approx([0.05, 0.1625, 0.275, 0.3875, 0.5, 0.5])
    sequential = [lrs[0] for lrs in _lrs_with(torch, SCHEDULES["warmup_then_cosine"], 12)]
    assert sequential[:3] == pytest.approx([0.005, 0.17, 0.335])  # LinearLR from 0.01
    assert sequential[3] == pytest.approx(0.5)  # the cosine's step 0
    assert sequential[11] == pytest.approx(0.01)  # its step 8 = T_max


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_more_schedules_match_pytorch(name: str) -> None:
    pt = pytest.importorskip("torch")
    ours = sum(_lrs_with(torch, SCHEDULES[name]), [])  # every group's lr at every step
    theirs = sum(_lrs_with(pt, SCHEDULES[name]), [])
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)


def test_sequential_state_dict_resumes_the_same_schedule() -> None:
    full = _lrs_with(torch, SCHEDULES["warmup_then_cosine"], 10)
    param = nn.Parameter(torch.ones(1))
    opt = optim.SGD([{"params": [param]}, {"params": [], "lr": 0.2}], lr=0.5)
    first = SCHEDULES["warmup_then_cosine"](torch, opt)
    for _ in range(5):
        first.step()
    state = first.state_dict()
    opt2 = optim.SGD([{"params": [param]}, {"params": [], "lr": 0.2}], lr=0.5)
    second = SCHEDULES["warmup_then_cosine"](torch, opt2)
    opt2.load_state_dict(opt.state_dict())
    second.load_state_dict(state)
    second.step()
    assert [g["lr"] for g in opt2.param_groups] == pytest.approx(full[6])
    with pytest.raises(ValueError, match="expected 1 milestones for 2 schedulers, got 0"):
        lr_scheduler.SequentialLR(opt, [first, second], milestones=[])


@pytest.mark.parametrize("optimizer", ["SGD", "AdamW"])
def test_one_cycle_moves_momentum_against_the_lr_as_pytorch_does(optimizer: str) -> None:
    """SGD's momentum or Adam's beta1 goes from max_momentum down to base_momentum while the
    lr climbs, then back up while it anneals; step after step equal to PyTorch's."""

    def run(lib) -> list:
        param = lib.nn.Parameter(lib.ones(1))
        kwargs = {"momentum": 0.9} if optimizer == "SGD" else {}
        opt = getattr(lib.optim, optimizer)([param], lr=0.1, **kwargs)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=10, pct_start=0.4)
        seen = []
        for _ in range(10):
            group = opt.param_groups[0]
            seen.append((group["lr"], group["betas"][0] if "betas" in group else group["momentum"]))
            opt.step()
            sched.step()
        return seen

    ours = run(torch)
    assert ours[0] == pytest.approx((0.02, 0.95))  # max_lr / 25, max_momentum
    assert max(lr for lr, _ in ours) == pytest.approx(0.5)
    assert ours[-1][0] == pytest.approx(0.5 / 25 / 1e4) and ours[-1][1] == pytest.approx(0.95)
    pt = pytest.importorskip("torch")
    flat = [value for pair in ours for value in pair]  # (approx compares flat sequences)
    assert flat == pytest.approx([v for pair in run(pt) for v in pair], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", ["OneCycleLR", "CyclicLR"])
def test_cycling_schedulers_add_group_keys_in_pytorchs_order(name: str) -> None:
    """max_momentum before base_momentum (printing a group or its state dict shows the
    order); resumed with last_epoch set, the group's own momentum fields are left alone."""
    pt = pytest.importorskip("torch")

    def groups(lib, last_epoch: int) -> list:
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1, momentum=0.9)
        opt.param_groups[0].update(initial_lr=0.01, max_lr=0.1, min_lr=1e-6,
                                   max_momentum=0.7, base_momentum=0.6)  # fmt: skip
        if last_epoch == -1:
            for key in ("initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum"):
                del opt.param_groups[0][key]
        schedulers = lib.optim.lr_scheduler
        if name == "OneCycleLR":
            schedulers.OneCycleLR(opt, max_lr=0.1, total_steps=10, last_epoch=last_epoch)
        else:
            schedulers.CyclicLR(opt, 0.01, 0.1, last_epoch=last_epoch)
        return [(k, v) for k, v in opt.param_groups[0].items() if k != "params"]

    for last_epoch in (-1, 3):
        assert groups(torch, last_epoch) == groups(pt, last_epoch)


def test_one_cycle_refuses_to_step_past_the_end() -> None:
    opt = _optimizer()
    sched = lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3)
    for _ in range(2):
        sched.step()
    sched.step()  # step 3 == total_steps: PyTorch allows it too
    with pytest.raises(ValueError, match=r"tried to step 4 times; .* total steps is 3"):
        sched.step()


def _plateau_lrs(lib, metrics: list, **kwargs) -> list:
    param = lib.nn.Parameter(lib.ones(1))
    opt = lib.optim.SGD([{"params": [param]}, {"params": [], "lr": 0.3}], lr=0.5)
    sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
    seen = []
    for value in metrics:
        opt.step()
        sched.step(value)
        seen += [group["lr"] for group in opt.param_groups]
    return seen


def test_reduce_lr_on_plateau_waits_patience_then_cools_down() -> None:
    # the loss stops improving after step 1; patience 2: the 4th bad step lowers the lr,
    # then cooldown 1 makes the next step not count
    lrs = _plateau_lrs(torch, [1.0, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6], patience=2, cooldown=1,
                       factor=0.5, min_lr=[0.2, 0.0])  # fmt: skip
    first_group = lrs[::2]
    assert first_group == pytest.approx([0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25])
    assert lrs[1::2][-1] == pytest.approx(0.15)  # the second group: 0.3 * 0.5
    loss = torch.tensor(0.7)  # a 0-d tensor is a metric too
    sched = lr_scheduler.ReduceLROnPlateau(_optimizer(), mode="max")
    sched.step(loss)
    assert sched.best == pytest.approx(0.7)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(mode="min", factor=0.5, patience=1, threshold=0.05, threshold_mode="abs"),
        dict(mode="max", factor=0.1, patience=0, cooldown=2, min_lr=0.01),
        dict(mode="min", patience=2, threshold=0.0, eps=0.02),
    ],
)
def test_reduce_lr_on_plateau_matches_pytorch(kwargs: dict) -> None:
    pt = pytest.importorskip("torch")
    metrics = [1.0, 0.9, 0.95, 0.97, 0.85, 0.86, 0.9, 0.84, 0.9, 0.9, 0.9, 0.7, 0.8, 0.8]
    ours = _plateau_lrs(torch, metrics, **kwargs)
    assert ours == pytest.approx(_plateau_lrs(pt, metrics, **kwargs), rel=1e-12)


# Schedules compared with PyTorch over a few hundred steps, alone, chained and in sequence.
LONG_SCHEDULES = {
    "constant": lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4),
    "constant_default": lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o),
    "multiplicative": lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(
        o, lambda step: 0.95 if step % 3 else 1.02
    ),
    "multiplicative_per_group": lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(
        o, [lambda step: 0.99, lambda step: 0.97]
    ),
    "polynomial": lambda lib, o: lib.optim.lr_scheduler.PolynomialLR(o, total_iters=50, power=2.0),
    "polynomial_default": lambda lib, o: lib.optim.lr_scheduler.PolynomialLR(o),
    "warm_restarts": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=10, eta_min=0.01
    ),
    "warm_restarts_mult": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.001
    ),
    "cyclic_triangular": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=20
    ),
    "cyclic_triangular2": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, [0.01, 0.02], [0.1, 0.3], step_size_up=10, step_size_down=25, mode="triangular2"
    ),
    "cyclic_exp_range": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, step_size_up=15, mode="exp_range", gamma=0.99, cycle_momentum=False
    ),
    "cyclic_scale_fn": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o,
        0.01,
        0.1,
        step_size_up=7,
        scale_fn=lambda x: 1 / (1 + 0.01 * x),
        scale_mode="iterations",
        base_momentum=0.5,
        max_momentum=0.95,
    ),  # fmt: skip
    "chained_constant_exponential": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [
            lib.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=10),
            lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.99),
        ]
    ),
    "chained_multiplicative_step": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [
            lib.optim.lr_scheduler.MultiplicativeLR(o, lambda step: 0.995),
            lib.optim.lr_scheduler.StepLR(o, step_size=30, gamma=0.5),
        ]
    ),
    "chained_warmup_polynomial": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [
            lib.optim.lr_scheduler.LinearLR(o, 0.1, total_iters=20),
            lib.optim.lr_scheduler.PolynomialLR(o, total_iters=200, power=1.5),
        ]
    ),
    "chained_restarts_constant": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [
            lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=25, T_mult=2),
            lib.optim.lr_scheduler.ConstantLR(o, factor=0.3, total_iters=40),
        ]
    ),
    "chained_cyclic_exponential": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [
            lib.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=30),
            lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.995),
        ]
    ),
    "sequential_constant_restarts": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o,
        [
            lib.optim.lr_scheduler.ConstantLR(o, factor=0.1, total_iters=5),
            lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=20, eta_min=0.01),
        ],
        milestones=[5],
    ),
    "sequential_linear_polynomial_multiplicative": lambda lib, o: (
        lib.optim.lr_scheduler.SequentialLR(
            o,
            [
                lib.optim.lr_scheduler.LinearLR(o, 0.01, total_iters=10),
                lib.optim.lr_scheduler.PolynomialLR(o, total_iters=100, power=0.5),
                lib.optim.lr_scheduler.MultiplicativeLR(o, lambda step: 1.01),
            ],
            milestones=[10, 80],
        )
    ),  # fmt: skip
}


def _lrs_and_momenta(lib, make, steps: int, optimizer: str = "SGD") -> list:
    """Each group's lr and momentum (SGD's momentum or Adam's beta1) at each step."""
    param = lib.nn.Parameter(lib.ones(1))
    groups = [{"params": [param]}, {"params": [], "lr": 0.2}]
    if optimizer == "SGD":
        opt = lib.optim.SGD(groups, lr=0.5, momentum=0.9)
    else:
        opt = getattr(lib.optim, optimizer)(groups, lr=0.5)
    scheduler = make(lib, opt)
    seen = []
    for _ in range(steps):
        for group in opt.param_groups:
            seen.append(group["lr"])
            seen.append(group["betas"][0] if "betas" in group else group.get("momentum"))
        opt.step()
        scheduler.step()
    return seen


@pytest.mark.parametrize("name", sorted(LONG_SCHEDULES))
def test_new_schedules_match_pytorch_over_hundreds_of_steps(name: str) -> None:
    pt = pytest.importorskip("torch")
    ours = _lrs_and_momenta(torch, LONG_SCHEDULES[name], 300)
    theirs = _lrs_and_momenta(pt, LONG_SCHEDULES[name], 300)
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)
    assert len(set(ours[::4])) > 1  # the first group's lr did change


@pytest.mark.parametrize("name", ["cyclic_triangular", "cyclic_scale_fn", "warm_restarts_mult"])
def test_cyclic_and_restarts_move_adams_beta1_as_pytorchs(name: str) -> None:
    pt = pytest.importorskip("torch")
    ours = _lrs_and_momenta(torch, LONG_SCHEDULES[name], 100, optimizer="AdamW")
    theirs = _lrs_and_momenta(pt, LONG_SCHEDULES[name], 100, optimizer="AdamW")
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)


def test_new_schedule_formulas() -> None:
    def first_group(name: str, steps: int) -> list:
        return [lrs[0] for lrs in _lrs_with(torch, LONG_SCHEDULES[name], steps)]

    assert first_group("constant", 6) == pytest.approx([0.25] * 4 + [0.5] * 2)
    poly = first_group("polynomial", 52)
    assert poly[:51] == pytest.approx([0.5 * (1 - t / 50) ** 2 for t in range(51)])
    assert poly[51] == 0.0
    restarts = first_group("warm_restarts_mult", 10)  # periods of 3 then 6 steps
    expected = [0.001 + 0.499 * (1 + math.cos(math.pi * t / 3)) / 2 for t in range(3)]
    expected += [0.001 + 0.499 * (1 + math.cos(math.pi * t / 6)) / 2 for t in range(6)]
    assert restarts == pytest.approx(expected + [0.5])
    cyclic = first_group("cyclic_triangular", 41)
    assert cyclic[0] == 0.01 and cyclic[20] == pytest.approx(0.1) and cyclic[40] == 0.01
    assert cyclic[10] == pytest.approx(0.055)
    halved = first_group("cyclic_triangular2", 71)
    assert halved[10] == pytest.approx(0.1) and halved[45] == pytest.approx(0.01 + 0.09 / 2)


def test_warm_restarts_step_with_fractional_epochs_as_pytorch() -> None:
    """``step(epoch + i / iters)`` within each epoch; PyTorch takes it without a warning."""
    pt = pytest.importorskip("torch")

    def run(lib) -> list:
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.5)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3)
        seen = []
        for epoch in range(12):
            for i in range(5):
                sched.step(epoch + i / 5)
                seen.append((opt.param_groups[0]["lr"], sched.last_epoch, sched.T_i))
        return seen

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = run(torch)
    theirs = run(pt)
    assert [x for t in ours for x in t] == pytest.approx([x for t in theirs for x in t])
    opt = _optimizer()
    with pytest.raises(ValueError, match="non-negative epoch"):
        lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2).step(-1)


@pytest.mark.parametrize("name", ["cyclic_scale_fn", "warm_restarts_mult", "polynomial",
                                  "chained_restarts_constant", "multiplicative"])  # fmt: skip
def test_new_schedules_resume_from_their_state_dicts(name: str) -> None:
    full = _lrs_and_momenta(torch, LONG_SCHEDULES[name], 80)

    def make():
        param = nn.Parameter(torch.ones(1))
        groups = [{"params": [param]}, {"params": [], "lr": 0.2}]
        opt = optim.SGD(groups, lr=0.5, momentum=0.9)
        return opt, LONG_SCHEDULES[name](torch, opt)

    opt, sched = make()
    for _ in range(40):
        opt.step()
        sched.step()
    state = pickle.loads(pickle.dumps(sched.state_dict()))  # it holds no functions
    opt_state = pickle.loads(pickle.dumps(opt.state_dict()))
    opt2, sched2 = make()
    opt2.load_state_dict(opt_state)
    sched2.load_state_dict(state)
    seen = []
    for _ in range(40):
        for group in opt2.param_groups:
            seen += [group["lr"], group["momentum"]]
        opt2.step()
        sched2.step()
    assert seen == pytest.approx(full[40 * 4 :], rel=1e-12)


@pytest.mark.parametrize("name", sorted(SCHEDULES) + sorted(LONG_SCHEDULES) + ["plateau"])
def test_state_dicts_have_pytorchs_entries(name: str) -> None:
    """The same keys in the same order, each value of the same type (OneCycleLR's phases,
    ReduceLROnPlateau's default_min_lr and mode_worse, the step counts): checkpoints load
    either way, and print alike."""
    pt = pytest.importorskip("torch")
    layouts = []
    for lib in (torch, pt):
        groups = [{"params": [lib.nn.Parameter(lib.ones(1))]}, {"params": [], "lr": 0.2}]
        opt = lib.optim.SGD(groups, lr=0.5, momentum=0.9)
        if name == "plateau":
            sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.01, 0.02])
        else:
            sched = {**SCHEDULES, **LONG_SCHEDULES}[name](lib, opt)
        opt.step()
        sched.step(1.0) if name == "plateau" else sched.step()

        def layout(value):
            if isinstance(value, dict):
                return [(k, layout(v)) for k, v in value.items()]
            if isinstance(value, list):
                return [layout(v) for v in value]
            return type(value).__name__

        layouts.append(layout(sched.state_dict()))
    assert layouts[0] == layouts[1]


@pytest.mark.parametrize("name", sorted(SCHEDULES) + sorted(LONG_SCHEDULES))
def test_a_schedule_saved_by_pytorch_resumes_as_in_pytorch(tmp_path, name: str) -> None:
    """torch.save'd optimizer and scheduler state dicts (MultiStepLR's holds a Counter),
    read with microtorch.load: the next steps' lrs and momenta are PyTorch's."""
    pt = pytest.importorskip("torch")
    make = {**SCHEDULES, **LONG_SCHEDULES}[name]

    def start(lib):
        groups = [{"params": [lib.nn.Parameter(lib.ones(1))]}, {"params": [], "lr": 0.2}]
        opt = lib.optim.SGD(groups, lr=0.5, momentum=0.9)
        return opt, make(lib, opt)

    def steps(opt, sched, n: int) -> list:
        seen = []
        for _ in range(n):
            opt.step()
            sched.step()
            seen += [x for g in opt.param_groups for x in (g["lr"], g["momentum"])]
        return seen

    their_opt, their_sched = start(pt)
    steps(their_opt, their_sched, 7)
    pt.save({"opt": their_opt.state_dict(), "sched": their_sched.state_dict()}, tmp_path / "c.pt")
    saved = torch.load(tmp_path / "c.pt")
    opt, sched = start(torch)
    opt.load_state_dict(saved["opt"])
    sched.load_state_dict(saved["sched"])
    assert steps(opt, sched, 5) == pytest.approx(steps(their_opt, their_sched, 5), rel=1e-12)


def test_new_schedules_errors_are_pytorchs() -> None:
    pt = pytest.importorskip("torch")

    def both(make, error) -> None:
        for lib in (torch, pt):
            param = lib.nn.Parameter(lib.ones(1))
            with pytest.raises(error):
                make(lib, lib.optim.SGD([param], lr=0.1))

    sched = lambda lib: lib.optim.lr_scheduler  # noqa: E731
    both(lambda lib, o: sched(lib).ConstantLR(o, factor=1.5), ValueError)
    both(lambda lib, o: sched(lib).ConstantLR(o, factor=-0.1), ValueError)
    both(lambda lib, o: sched(lib).MultiplicativeLR(o, 0.9), TypeError)
    both(lambda lib, o: sched(lib).MultiplicativeLR(o, [abs, abs]), ValueError)
    both(lambda lib, o: sched(lib).CosineAnnealingWarmRestarts(o, T_0=0), ValueError)
    both(lambda lib, o: sched(lib).CosineAnnealingWarmRestarts(o, T_0=2.5), ValueError)
    both(lambda lib, o: sched(lib).CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0), ValueError)
    both(lambda lib, o: sched(lib).CosineAnnealingWarmRestarts(o, 2, eta_min="0"), ValueError)
    both(lambda lib, o: sched(lib).CyclicLR(o, 0.01, 0.1, mode="sawtooth"), ValueError)
    both(lambda lib, o: sched(lib).CyclicLR(o, [0.01, 0.02], 0.1), ValueError)
    both(lambda lib, o: sched(lib).CyclicLR(lib.optim.Adagrad([lib.nn.Parameter(lib.ones(1))]), 0.01, 0.1), ValueError)  # fmt: skip
    both(lambda lib, o: sched(lib).CyclicLR(None, 0.01, 0.1), TypeError)
