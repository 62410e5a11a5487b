"""PyTorch's module paths under torch.autograd (anomaly_mode, variable, graph, function),
is_tensor_like and the multithreading flag, compared with PyTorch where it is installed."""

from __future__ import annotations

import importlib

import pytest

import microtorch

PATHS = {
    "anomaly_mode": ["detect_anomaly", "set_detect_anomaly"],
    "variable": ["Variable"],
    "graph": ["GradientEdge", "Node", "get_gradient_edge", "increment_version",
              "register_multi_grad_hook"],
    "function": ["Function", "FunctionCtx", "InplaceFunction", "once_differentiable"],
}  # fmt: skip


@pytest.mark.parametrize("module", sorted(PATHS))
def test_module_paths_hold_pytorchs_names(module):
    ours = importlib.import_module(f"microtorch.autograd.{module}")
    assert getattr(microtorch.autograd, module) is ours
    for name in PATHS[module]:
        assert getattr(ours, name) is not None
    pytest.importorskip("torch")
    theirs = importlib.import_module(f"torch.autograd.{module}")
    assert all(hasattr(theirs, name) for name in PATHS[module])


def test_the_old_paths_are_the_same_objects():
    from microtorch.autograd import anomaly
    from microtorch.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
    from microtorch.autograd.variable import Variable

    assert (
        detect_anomaly is anomaly.detect_anomaly
        and set_detect_anomaly is anomaly.set_detect_anomaly
    )
    assert Variable is microtorch.autograd.Variable
    v = Variable(microtorch.ones(2), requires_grad=True)
    assert v.requires_grad and v.is_leaf


class _Like:
    def __torch_function__(self, *args, **kwargs):
        return NotImplemented


def _tensor_like(lib):
    return [
        lib.autograd.is_tensor_like(lib.ones(2)),
        lib.autograd.is_tensor_like(lib.nn.Parameter(lib.ones(2))),
        lib.autograd.is_tensor_like(lib.Tensor),
        lib.autograd.is_tensor_like(_Like()),
        lib.autograd.is_tensor_like(_Like),
        lib.autograd.is_tensor_like(1.0),
        lib.autograd.is_tensor_like([lib.ones(1)]),
        lib.autograd.is_tensor_like(None),
    ]


def test_is_tensor_like():
    got = _tensor_like(microtorch)
    assert got == [True, True, True, True, True, False, False, False]
    torch = pytest.importorskip("torch")
    assert got == _tensor_like(torch)


def _multithreading(lib):
    seen = [lib.autograd.is_multithreading_enabled()]
    with lib.autograd.set_multithreading_enabled(False):
        seen.append(lib.autograd.is_multithreading_enabled())
        x = lib.ones(2, requires_grad=True)
        (x * 2).sum().backward()
        seen.append(x.grad.tolist())
    seen.append(lib.autograd.is_multithreading_enabled())
    lib.autograd.set_multithreading_enabled(False)  # as a call: stays switched
    seen.append(lib.autograd.is_multithreading_enabled())
    lib.autograd.set_multithreading_enabled(True)
    seen.append(lib.autograd.is_multithreading_enabled())
    try:
        lib.autograd.set_multithreading_enabled(1)
    except TypeError:
        seen.append("TypeError")
    return seen


def test_set_multithreading_enabled_is_a_recorded_flag():
    got = _multithreading(microtorch)
    assert got == [True, False, [2.0, 2.0], True, False, True, "TypeError"]
    torch = pytest.importorskip("torch")
    assert got == _multithreading(torch)
