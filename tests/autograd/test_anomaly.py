"""detect_anomaly(): the op and the user's line behind the first NaN/Inf, forward or backward."""

from __future__ import annotations

import inspect

import numpy
import pytest

import microtorch as torch
from microtorch import nn
from microtorch.autograd import AnomalyError, Function, detect_anomaly, function
from microtorch.autograd import anomaly as anomaly_module


def next_line() -> int:
    """The number of the line after the caller's."""
    return inspect.currentframe().f_back.f_lineno + 1


@pytest.fixture(autouse=True)
def _quiet_numpy():
    with numpy.errstate(divide="ignore", invalid="ignore"):
        yield


def test_planted_log_of_zero_is_named_with_its_line(device):
    x = torch.tensor([1.0, 0.0, 2.0], device=device, requires_grad=True)
    with detect_anomaly():
        with pytest.raises(AnomalyError) as caught:
            line = next_line()
            y = torch.log(x)  # noqa: F841
    message = str(caught.value)
    assert message.startswith("detect_anomaly: Log produced -inf (1 of 3 values) in its output")
    assert "(shape (3,), float32)" in message and "from finite inputs" in message
    assert f"{__file__.rpartition('/')[2]}:{line} in test_planted_log_of_zero" in message
    assert "y = torch.log(x)" in message


def test_bad_gradient_names_the_op_and_where_it_was_created(device):
    x = torch.tensor([4.0, 0.0], device=device, requires_grad=True)
    with detect_anomaly():
        line = next_line()
        y = x.sqrt()  # sqrt(0) = 0 is fine, its gradient 1 / (2 sqrt(0)) is not
        loss = (y * 3.0).sum()
        with pytest.raises(AnomalyError) as caught:
            loss.backward()
    message = str(caught.value)
    assert message.startswith(
        "detect_anomaly: SqrtBackward0 returned inf (1 of 2 values) in the gradient for its input 0"
    )
    assert f":{line} in test_bad_gradient_names_the_op" in message and "y = x.sqrt()" in message
    assert "called from" in message  # the rest of the user's stack (pytest's frames)
    assert x.grad is None  # stopped before anything was accumulated


class BrokenBackward(Function):
    """A learner's op with a planted bug: its backward divides by zero."""

    def forward(self, x):
        return x * 2

    def backward(self, grad):
        return grad / 0.0


def test_a_broken_custom_backward_is_caught():
    x = torch.ones(3, requires_grad=True)
    with detect_anomaly():
        line = next_line()
        out = BrokenBackward.apply(x).sum()
        with pytest.raises(
            AnomalyError, match=rf"(?s)BrokenBackwardBackward0 returned inf .*:{line}"
        ):
            out.backward()


def test_ops_inside_modules_are_reported_at_the_calling_line():
    layer = nn.Linear(2, 2)
    with torch.no_grad():
        layer.weight[0, 0] = float("nan")
    with detect_anomaly():
        with pytest.raises(AnomalyError) as caught:
            line = next_line()
            layer(torch.ones(1, 2))
    message = str(caught.value)
    assert "Linear produced nan (1 of 2 values)" in message
    assert "input 1 already held NaN or Inf" in message  # the weight was bad before the op
    assert f":{line} in test_ops_inside_modules" in message and "layer(torch.ones(1, 2))" in message


def test_ops_without_a_graph_are_checked_too():
    with torch.no_grad(), detect_anomaly():
        with pytest.raises(AnomalyError, match="Div produced nan"):
            torch.zeros(2) / torch.zeros(2)


def test_nothing_is_recorded_or_checked_outside():
    assert function._anomaly_hook is None and function._trace_hook is None
    assert not anomaly_module.enabled
    x = torch.tensor([0.0], requires_grad=True)
    y = torch.log(x)  # -inf, and no error
    assert y.grad_fn.creation_trace is None
    y.sum().backward()
    assert numpy.isinf(x.grad.numpy()).all()


def test_creation_trace_only_in_anomaly_mode_and_state_restored():
    x = torch.ones(2, requires_grad=True)
    with detect_anomaly():
        assert torch.autograd.is_anomaly_enabled()
        y = x * 2
    assert not torch.autograd.is_anomaly_enabled()
    assert y.grad_fn.creation_trace[0].line == "y = x * 2"
    with pytest.raises(KeyError):
        with detect_anomaly():
            raise KeyError("stop")
    assert function._anomaly_hook is None and function._trace_hook is None
    assert not anomaly_module.enabled


def test_op_created_before_the_block_has_no_line():
    x = torch.tensor([0.0], requires_grad=True)
    y = x.sqrt().sum()
    with detect_anomaly(), pytest.raises(AnomalyError, match="created before detect_anomaly"):
        y.backward()


def test_check_nan_false_only_records():
    x = torch.tensor([0.0], requires_grad=True)
    with detect_anomaly(check_nan=False):
        y = torch.log(x)
        y.sum().backward()
    assert y.grad_fn.creation_trace[0].line == "y = torch.log(x)"


def test_decorator_form():
    @detect_anomaly()
    def step(x):
        return torch.log(x)

    with pytest.raises(AnomalyError, match="Log produced -inf"):
        step(torch.zeros(1))
    assert function._trace_hook is None


def test_finite_training_step_passes_unchanged():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 1))
    x = torch.randn(5, 4)
    loss = model(x).pow(2).mean()
    loss.backward()
    expected = [p.grad.numpy().copy() for p in model.parameters()]
    model.zero_grad()
    with detect_anomaly():
        model(x).pow(2).mean().backward()
    for p, g in zip(model.parameters(), expected):
        numpy.testing.assert_array_equal(p.grad.numpy(), g)


def _anomaly_switches(T) -> list:
    """What is_anomaly_enabled / is_anomaly_check_nan_enabled say around each switch."""

    def state():
        return (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled())

    seen = [state()]
    T.autograd.set_detect_anomaly(True)  # a plain call: on for what follows
    try:
        seen.append(state())
        with T.autograd.set_detect_anomaly(False):
            seen.append(state())
        seen.append(state())
        with T.autograd.set_detect_anomaly(True, check_nan=False):
            seen.append(state())
    finally:
        T.autograd.set_detect_anomaly(False)
    seen.append(state())
    with T.autograd.detect_anomaly():
        T.autograd.set_detect_anomaly(False)  # switches off inside the block too
        seen.append(state())
    return seen + [state()]


def test_set_detect_anomaly_switches_now_or_for_a_block_as_in_pytorch():
    seen = _anomaly_switches(torch)
    off, on = (False, True), (True, True)  # (check_nan is True unless switched off)
    assert seen == [off, on, off, on, (True, False), off, off, off]
    x = torch.zeros(1, requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        with pytest.raises(AnomalyError, match="Log produced -inf"):
            torch.log(x)
    with detect_anomaly():
        with torch.autograd.set_detect_anomaly(False):
            torch.log(x)  # checks off: no error
    assert function._anomaly_hook is None and function._trace_hook is None
    assert not anomaly_module.enabled
    pt = pytest.importorskip("torch")
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        assert _anomaly_switches(pt) == seen


def _anomaly_warnings(lib) -> list:
    """Which of detect_anomaly() / set_detect_anomaly(True) warn that the mode is slow."""
    import warnings

    seen = []
    for switch_on in (lambda: lib.autograd.detect_anomaly(),
                      lambda: lib.autograd.set_detect_anomaly(True)):  # fmt: skip
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with switch_on():
                pass
        seen.append([w.category.__name__ for w in caught])
    return seen


def test_detect_anomaly_warns_that_it_is_slow_as_in_pytorch():
    assert _anomaly_warnings(torch) == [["UserWarning"], []]
    pt = pytest.importorskip("torch")
    assert _anomaly_warnings(pt) == _anomaly_warnings(torch)
