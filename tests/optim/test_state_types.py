"""The 0-d optimizer state (the step count, ASGD's eta and mu, NAdam's mu_product) is a 0-d
tensor in memory, as PyTorch keeps it: float32 on the CPU (float64 when that is the default
dtype), on the parameter's device for capturable or fused (and ASGD's always); user code's
``state["step"].item()`` works, a value set by hand is used, and on a GPU step() does not
read the count back from the device."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch

SCALARS = ("step", "eta", "mu", "mu_product")
OPTIMIZERS = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adagrad", "Adadelta", "ASGD",
              "Rprop", "RMSprop", "SGD", "Adafactor"]  # fmt: skip


def _stepped(T, name: str, steps: int = 2, **kw):
    p = T.nn.Parameter(T.tensor([1.0, -2.0, 0.5]))
    opt = getattr(T.optim, name)([p], lr=0.01, **kw)
    for _ in range(steps):
        p.grad = T.tensor([0.5, -1.0, 2.0])
        opt.step()
    return p, opt


def _scalars(T, state: dict) -> dict:
    return {
        k: (type(v).__name__, str(v.dtype).split(".")[-1], tuple(v.shape), v.device.type, v.item())
        for k, v in state.items()
        if k in SCALARS and isinstance(v, T.Tensor)
    }


@pytest.mark.parametrize("name", OPTIMIZERS)
@pytest.mark.parametrize("default_dtype", ["float32", "float64"])
def test_the_0d_state_has_pytorchs_types_and_values(name: str, default_dtype: str) -> None:
    torch = pytest.importorskip("torch")
    seen = []
    for T in (microtorch, torch):
        before = T.get_default_dtype()
        T.set_default_dtype(getattr(T, default_dtype))
        try:
            p, opt = _stepped(T, name)
            state = opt.state[p]
            seen.append(_scalars(T, state))
            assert [k for k in state if k in SCALARS] == list(seen[-1])  # none is a number
            if "step" in state:
                assert int(state["step"]) == 2 and state["step"].item() == 2.0
                assert opt.state_dict()["state"][0]["step"] is state["step"]  # the live one
        finally:
            T.set_default_dtype(before)
    assert seen[0] == seen[1]


@pytest.mark.parametrize("name", ["Adam", "Adagrad", "NAdam", "RAdam", "ASGD", "Adafactor"])
def test_a_count_set_by_hand_is_used_as_in_pytorch(name: str) -> None:
    torch = pytest.importorskip("torch")
    results = []
    for T in (microtorch, torch):
        p, opt = _stepped(T, name, steps=1)
        opt.state[p]["step"].fill_(40.0)  # in place, as user code may write it
        p.grad = T.tensor([0.5, -1.0, 2.0])
        opt.step()
        opt.state[p]["step"] = T.tensor(7.0)  # a new tensor
        opt.step()
        results.append((p.detach().numpy().copy(), opt.state[p]["step"].item()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    assert results[0][1] == results[1][1] == 8.0


def test_a_state_dict_with_number_steps_loads_as_0d_tensors() -> None:
    """State dicts saved before PyTorch kept tensors (or by hand) hold numbers: loaded, they
    become the 0-d tensors, as in PyTorch."""
    torch = pytest.importorskip("torch")
    loaded = []
    for T in (microtorch, torch):
        p, opt = _stepped(T, "NAdam")
        saved = opt.state_dict()
        saved["state"][0]["step"] = 5
        saved["state"][0]["mu_product"] = 0.5
        fresh = T.optim.NAdam([p], lr=0.01)
        fresh.load_state_dict(saved)
        state = fresh.state[p]
        p.grad = T.tensor([0.5, -1.0, 2.0])
        fresh.step()
        loaded.append((_scalars(T, state), p.detach().numpy().copy()))
    assert loaded[0][0] == loaded[1][0]
    np.testing.assert_allclose(loaded[0][1], loaded[1][1], rtol=1e-6)


def test_a_fused_optimizers_step_is_float32_in_any_default_dtype() -> None:
    torch = pytest.importorskip("torch")
    kinds = []
    for T in (microtorch, torch):
        before = T.get_default_dtype()
        T.set_default_dtype(T.float64)
        try:
            p, opt = _stepped(T, "Adam", fused=True)
            kinds.append(_scalars(T, opt.state[p]))
        finally:
            T.set_default_dtype(before)
    assert kinds[0] == kinds[1] and kinds[0]["step"][1] == "float32"


@pytest.mark.parametrize(
    ("name", "kw"),
    [("Adam", dict(capturable=True)), ("ASGD", {}), ("NAdam", dict(capturable=True))],
)
def test_on_a_gpu_the_state_lives_there_and_step_reads_none_back(
    name: str, kw: dict, device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """capturable (and ASGD always) keeps the 0-d state on the parameter's device; step()
    computes with the values it wrote itself, so no step waits for the device, and reads one
    back (once) only after user code changed it."""
    if device == "cpu":
        pytest.skip("the state's device is the GPU's here")
    p = microtorch.nn.Parameter(microtorch.tensor([1.0, -2.0, 0.5], device=device))
    opt = getattr(microtorch.optim, name)([p], lr=0.01, **kw)
    reads = []
    real_item = microtorch.Tensor.item

    def counting_item(self):
        reads.append(self)
        return real_item(self)

    monkeypatch.setattr(microtorch.Tensor, "item", counting_item)
    for _ in range(3):
        p.grad = microtorch.tensor([0.5, -1.0, 2.0], device=device)
        opt.step()
    assert reads == []
    state = opt.state[p]
    for key in SCALARS:
        if key in state:
            assert state[key].device.type == "cuda" and state[key].shape == ()
    state["step"].fill_(10.0)
    opt.step()
    assert len(reads) == 1  # the changed count, read once
    opt.step()
    assert len(reads) == 1 and real_item(state["step"]) == 12.0


@pytest.mark.parametrize("library_name", ["microtorch", "torch"])
def test_load_state_dict_keeps_the_saved_tensors_where_nothing_changes(library_name) -> None:
    """PyTorch 2.13's load_state_dict keeps the loaded step and buffers themselves (its .to()
    returns a tensor already of p's dtype and device), so later steps update the dict's
    tensors too; a buffer of another float dtype is converted, a new tensor."""
    T = pytest.importorskip(library_name)
    w = T.nn.Parameter(T.ones(2))
    opt = T.optim.Adam([w], lr=0.1)
    w.grad = T.ones(2)
    opt.step()
    saved = opt.state_dict()["state"][0]
    w2 = T.nn.Parameter(T.ones(2))
    opt2 = T.optim.Adam([w2], lr=0.1)
    opt2.load_state_dict({"state": {0: saved}, "param_groups": opt.state_dict()["param_groups"]})
    assert all(opt2.state[w2][k] is v for k, v in saved.items())
    w2.grad = T.ones(2)
    opt2.step()
    assert saved["step"].item() == 2.0
    wide = T.nn.Parameter(T.ones(2, dtype=T.float64))
    opt3 = T.optim.Adam([wide], lr=0.1)
    opt3.load_state_dict(opt2.state_dict())
    assert opt3.state[wide]["step"] is saved["step"]
    assert opt3.state[wide]["exp_avg"] is not saved["exp_avg"]
    assert opt3.state[wide]["exp_avg"].dtype == T.float64
