"""optim.swa_utils against PyTorch's: AveragedModel (SWA, EMA by avg_fn and multi_avg_fn,
use_buffers) over a few training steps, its state_dict keys, SWALR's learning rates
(cos/linear, anneal_epochs, one swa_lr per group) and update_bn's BatchNorm statistics."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch as mt
from microtorch import nn, optim
from microtorch.optim import swa_utils

torch = pytest.importorskip("torch")
tsu = torch.optim.swa_utils

RNG = np.random.default_rng(0)
BATCHES = [RNG.standard_normal((6, 3)) for _ in range(5)]


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy()


def _net(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(),
                             lib.nn.Linear(4, 1)).double()  # fmt: skip


def _pair():
    theirs, ours = _net(torch), _net(mt)
    ours.load_state_dict({k: mt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _averaging(ours, theirs, make_ours, make_theirs, device: str = "cpu"):
    """Train both nets with SGD for a few steps, averaging after each; compare as we go."""
    ours = ours.to(device)
    avg, tavg = make_ours(ours), make_theirs(theirs)
    # on CUDA, PyTorch's default SWA is a lerp with the weight 1 / (n + 1) rounded to float32
    # (its foreach form), and so is ours there; PyTorch's CPU form, compared with, divides
    rtol, atol = (1e-12, 1e-14) if device == "cpu" else (1e-7, 1e-9)
    opt = optim.SGD(ours.parameters(), lr=0.1)
    topt = torch.optim.SGD(theirs.parameters(), lr=0.1)
    for x in BATCHES:
        for model, o, lib in ((ours, opt, mt), (theirs, topt, torch)):
            o.zero_grad()
            kw = {"device": device} if lib is mt else {}
            (model(lib.tensor(x, **kw)) ** 2).mean().backward()
            o.step()
        avg.update_parameters(ours)
        tavg.update_parameters(theirs)
        assert list(avg.state_dict()) == list(tavg.state_dict())
        for key, value in tavg.state_dict().items():
            np.testing.assert_allclose(_np(avg.state_dict()[key]), _np(value), rtol=rtol,
                                       atol=atol, err_msg=key)  # fmt: skip
    return avg, tavg


def test_swa_averages_as_pytorch(device: str) -> None:
    ours, theirs = _pair()
    avg, tavg = _averaging(ours, theirs, swa_utils.AveragedModel, tsu.AveragedModel, device)
    assert "n_averaged" in avg.state_dict() and "module.0.weight" in avg.state_dict()
    assert avg.n_averaged.item() == len(BATCHES) and avg.n_averaged.dtype == mt.int64
    x = BATCHES[0]
    avg.eval()
    tavg.eval()
    np.testing.assert_allclose(_np(avg(mt.tensor(x, device=device))),
                               _np(tavg(torch.tensor(x))), rtol=1e-7)  # fmt: skip
    assert avg.module is not ours  # a copy
    assert [n for n, _ in avg.named_parameters()] == [n for n, _ in tavg.named_parameters()]


@pytest.mark.parametrize("form", ["avg_fn", "multi_avg_fn"])
@pytest.mark.parametrize("use_buffers", [False, True])
def test_ema_averages_as_pytorch(form: str, use_buffers: bool) -> None:
    ours, theirs = _pair()
    name = "get_ema_avg_fn" if form == "avg_fn" else "get_ema_multi_avg_fn"
    ours_fn, theirs_fn = getattr(swa_utils, name)(0.9), getattr(tsu, name)(0.9)
    _averaging(
        ours, theirs,
        lambda m: swa_utils.AveragedModel(m, use_buffers=use_buffers, **{form: ours_fn}),
        lambda m: tsu.AveragedModel(m, use_buffers=use_buffers, **{form: theirs_fn}),
    )  # fmt: skip


@pytest.mark.parametrize("form", ["get_swa_avg_fn", "get_swa_multi_avg_fn"])
def test_swa_rules_given_explicitly_as_pytorch(form: str) -> None:
    ours, theirs = _pair()
    use_buffers = form == "get_swa_avg_fn"  # (the multi form refuses the int64 batch count,
    # num_batches_tracked, in PyTorch too: integer addcdiv)
    _averaging(
        ours, theirs,
        lambda m: swa_utils.AveragedModel(
            m, use_buffers=use_buffers,
            **{"multi_avg_fn" if "multi" in form else "avg_fn": getattr(swa_utils, form)()}),
        lambda m: tsu.AveragedModel(
            m, use_buffers=use_buffers,
            **{"multi_avg_fn" if "multi" in form else "avg_fn": getattr(tsu, form)()}),
    )  # fmt: skip


def test_averaged_model_refuses_both_rules_and_loads_a_pytorch_state_dict() -> None:
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(nn.Linear(2, 2), avg_fn=swa_utils.get_swa_avg_fn(),
                                multi_avg_fn=swa_utils.get_swa_multi_avg_fn())  # fmt: skip
    ours, theirs = _pair()
    tavg = tsu.AveragedModel(theirs)
    tavg.update_parameters(theirs)
    tavg.update_parameters(theirs)
    avg = swa_utils.AveragedModel(ours)
    avg.load_state_dict({k: mt.tensor(v.numpy()) for k, v in tavg.state_dict().items()})
    assert avg.n_averaged.item() == 2


def test_update_bn_as_pytorch() -> None:
    ours, theirs = _pair()
    loader = [(mt.tensor(x), 0) for x in BATCHES]  # (input, target) batches: the first is used
    tloader = [(torch.tensor(x), 0) for x in BATCHES]
    ours.eval()
    theirs.eval()
    ours[1].momentum = 0.3
    theirs[1].momentum = 0.3
    swa_utils.update_bn(loader, ours)
    tsu.update_bn(tloader, theirs)
    assert not ours.training and ours[1].momentum == 0.3  # both put back
    for key in ("1.running_mean", "1.running_var", "1.num_batches_tracked"):
        np.testing.assert_allclose(_np(ours.state_dict()[key]), _np(theirs.state_dict()[key]),
                                   rtol=1e-12, err_msg=key)  # fmt: skip
    swa_utils.update_bn([mt.tensor(x) for x in BATCHES], ours)  # plain tensors as batches
    swa_utils.update_bn(loader, nn.Linear(3, 1))  # no BatchNorm: nothing to do


def _lrs(make, lib, groups, steps: int) -> list:
    params = [lib.nn.Parameter(lib.zeros(1)) for _ in groups]
    opt = (optim if lib is mt else torch.optim).SGD(
        [{"params": [p], "lr": lr} for p, lr in zip(params, groups)], lr=1.0
    )
    scheduler = make(opt)
    out = [[g["lr"] for g in opt.param_groups]]
    for _ in range(steps):
        opt.step()
        scheduler.step()
        out.append([g["lr"] for g in opt.param_groups])
    return out, scheduler


@pytest.mark.parametrize("kwargs", [
    dict(swa_lr=0.05),
    dict(swa_lr=[0.05, 0.2], anneal_epochs=3, anneal_strategy="linear"),
    dict(swa_lr=0.01, anneal_epochs=0),
    dict(swa_lr=0.02, anneal_epochs=1, anneal_strategy="cos"),
])  # fmt: skip
def test_swalr_as_pytorch(kwargs: dict) -> None:
    groups = [0.5, 0.1]
    ours, scheduler = _lrs(lambda o: swa_utils.SWALR(o, **kwargs), mt, groups, 14)
    theirs, tscheduler = _lrs(lambda o: tsu.SWALR(o, **kwargs), torch, groups, 14)
    np.testing.assert_allclose(ours, theirs, rtol=1e-13)
    assert scheduler.get_last_lr() == pytest.approx(tscheduler.get_last_lr(), rel=1e-13)
    state = scheduler.state_dict()
    assert (
        "optimizer" not in state and state["_step_count"] == tscheduler.state_dict()["_step_count"]
    )


def test_swalr_resumes_from_its_state_dict_and_refuses_bad_arguments() -> None:
    ours, scheduler = _lrs(lambda o: swa_utils.SWALR(o, swa_lr=0.05, anneal_epochs=6), mt,
                           [0.5], 3)  # fmt: skip
    full, _ = _lrs(lambda o: swa_utils.SWALR(o, swa_lr=0.05, anneal_epochs=6), mt, [0.5], 6)
    opt = scheduler.optimizer
    again = swa_utils.SWALR(optim.SGD([nn.Parameter(mt.zeros(1))], lr=0.5), swa_lr=0.05)
    again.optimizer.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
    again.load_state_dict(scheduler.state_dict())
    resumed = []
    for _ in range(3):
        again.step()
        resumed.append(again.optimizer.param_groups[0]["lr"])
    np.testing.assert_allclose(resumed, [lr[0] for lr in full[4:]], rtol=1e-14)
    opt = optim.SGD([nn.Parameter(mt.zeros(1))], lr=0.1)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=-1)
    with pytest.raises(ValueError, match="swa_lr must have the same length"):
        swa_utils.SWALR(opt, swa_lr=[0.1, 0.2])
