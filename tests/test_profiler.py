"""microtorch.profiler (and autograd.profiler): which ops ran, how often, how long; nested
ranges, schedules, shapes, traces; the same calls as PyTorch's profiler."""

from __future__ import annotations

import json
import warnings

import pytest

import microtorch
import microtorch.nn as nn
import microtorch.nn.functional as F
from microtorch import profiler
from microtorch.autograd import function


def _train_step(device: str = "cpu") -> None:
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 4)).to(device)
    x = microtorch.randn(5, 8, device=device)
    y = microtorch.tensor([0, 1, 2, 3, 0], device=device)
    F.cross_entropy(model(x), y).backward()


def _by_key(prof) -> dict:
    return {e.key: e for e in prof.key_averages()}


def test_each_forward_and_backward_is_one_event_per_call():
    _train_step()  # (the layers' first calls make their parameters outside the profile)
    with profiler.profile() as prof:
        _train_step()
    events = _by_key(prof)
    assert events["Linear"].count == 2 and events["LinearBackward0"].count == 2
    assert events["Gelu"].count == 1 and events["GeluBackward0"].count == 1
    assert events["CrossEntropy"].count == 1 and events["CrossEntropyBackward0"].count == 1
    for e in events.values():
        assert e.cpu_time_total > 0 and e.cpu_time == pytest.approx(e.cpu_time_total / e.count)
    assert function._profiler is None  # nothing watches ops after the block


def test_nothing_is_recorded_outside_the_block_or_with_no_profile():
    with profiler.profile() as prof:
        pass
    _train_step()
    assert len(prof.events()) == 0
    with profiler.record_function("alone"):  # no profile: does nothing, raises nothing
        _train_step()


def test_record_function_range_contains_the_ops_and_self_time_excludes_them():
    with profiler.profile() as prof:
        with profiler.record_function("step"):
            _train_step()
        microtorch.ones(3).exp()  # outside the range
    events = prof.events()
    (step,) = [e for e in events if e.name == "step"]
    inside = [e for e in events if e.cpu_parent is step]
    assert {e.name for e in inside} >= {"Linear", "LinearBackward0", "CrossEntropy"}
    assert step.cpu_time_total >= sum(e.cpu_time_total for e in inside)
    assert step.self_cpu_time_total == pytest.approx(
        step.cpu_time_total - sum(e.cpu_time_total for e in inside)
    )
    (exp,) = [e for e in events if e.name == "Exp"]
    assert exp.cpu_parent is None


def test_record_function_as_a_decorator():
    @profiler.record_function("my_block")
    def block(x):
        """A documented block."""
        return x.exp().sum()

    with profiler.profile() as prof:
        block(microtorch.ones(3))
        block(microtorch.ones(3))
    assert _by_key(prof)["my_block"].count == 2
    assert block.__name__ == "block" and block.__doc__ == "A documented block."


def test_record_shapes_and_grouping_by_input_shape():
    with profiler.profile(record_shapes=True) as prof:
        microtorch.ones(2, 3).exp()
        microtorch.ones(4).exp()
        microtorch.ones(4).exp()
    grouped = prof.key_averages(group_by_input_shape=True)
    shapes = sorted((e.key, str(e.input_shapes), e.count) for e in grouped if e.key == "Exp")
    assert shapes == [("Exp", "[[2, 3]]", 1), ("Exp", "[[4]]", 2)]
    assert "Input Shapes" in grouped.table()
    with profiler.profile() as prof:
        microtorch.ones(2).exp()
    with pytest.raises(RuntimeError, match="record_shapes=True"):
        prof.key_averages(group_by_input_shape=True)


def test_table_sorts_limits_and_names_its_columns():
    with profiler.profile() as prof:
        for _ in range(3):
            microtorch.ones(2).exp()
        microtorch.ones(2).sin()
    table = prof.key_averages().table(sort_by="count", row_limit=1)
    lines = table.splitlines()
    for column in ("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                   "# of Calls"):  # fmt: skip
        assert column in lines[1]
    assert "Exp" in table and "Sin" not in table  # Exp ran most: the only row kept
    assert lines[-1].startswith("Self CPU time total: ")
    with pytest.raises(ValueError, match="sort_by"):
        prof.key_averages().table(sort_by="wall_time")


def test_time_format_is_pytorchs():
    assert profiler._format_us(12.3456) == "12.346us"
    assert profiler._format_us(1234.5) == "1.234ms"
    assert profiler._format_us(2.5e6) == "2.500s"


def test_schedule_steps_match_pytorchs():
    ours = profiler.schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    actions = [ours(step).name for step in range(12)]
    assert actions == ["NONE", "NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE", "NONE", "WARMUP",
                       "RECORD", "RECORD_AND_SAVE", "NONE", "NONE", "NONE"]  # fmt: skip
    torch = pytest.importorskip("torch")
    for kwargs in (dict(wait=1, warmup=1, active=2, repeat=2, skip_first=1),
                   dict(wait=2, warmup=0, active=1), dict(wait=1, warmup=2, active=3, repeat=1),
                   dict(wait=2, warmup=1, active=1, skip_first_wait=1)):  # fmt: skip
        theirs = torch.profiler.schedule(**kwargs)
        ours = profiler.schedule(**kwargs)
        assert [ours(s).name for s in range(15)] == [theirs(s).name for s in range(15)], kwargs
    with pytest.raises(ValueError, match="active"):
        profiler.schedule(wait=0, warmup=0, active=0)


def test_schedule_records_only_active_steps_and_hands_each_cycle_over():
    cycles = []

    def ready(prof):
        cycles.append(sum(e.count for e in prof.key_averages() if e.key == "Exp"))

    plan = profiler.schedule(wait=1, warmup=1, active=2, repeat=2)
    with profiler.profile(schedule=plan, on_trace_ready=ready) as prof:
        for _ in range(10):
            microtorch.ones(2).exp()  # one op per step
            prof.step()
    assert cycles == [2, 2]  # two cycles of two recorded steps each


def test_on_trace_ready_at_exit_without_a_schedule():
    seen = []
    with profiler.profile(on_trace_ready=lambda p: seen.append(len(p.events()))):
        microtorch.ones(2).exp()
    assert seen == [1]


def test_chrome_trace_and_tensorboard_handler(tmp_path):
    with profiler.profile(record_shapes=True) as prof:
        microtorch.ones(2, 2).exp()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())["traceEvents"]
    assert [e["name"] for e in trace] == ["Exp"]
    assert trace[0]["ph"] == "X" and trace[0]["dur"] > 0
    assert trace[0]["args"]["Input Dims"] == [[2, 2]]
    handler = profiler.tensorboard_trace_handler(str(tmp_path / "tb"), worker_name="w")
    with profiler.profile(on_trace_ready=handler):
        microtorch.ones(2).exp()
    (written,) = (tmp_path / "tb").iterdir()
    assert written.name.startswith("w.") and written.name.endswith(".pt.trace.json")


def test_unrecorded_options_warn_and_bad_activities_raise():
    with pytest.warns(UserWarning, match="profile_memory"):
        profiler.profile(profile_memory=True)
    with pytest.raises(TypeError, match="ProfilerActivity"):
        profiler.profile(activities=["cpu"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        profiler.profile(activities=[profiler.ProfilerActivity.CPU], record_shapes=True)


def test_legacy_autograd_profiler():
    with microtorch.autograd.profiler.profile() as prof:
        microtorch.ones(2).exp()
    assert [e.name for e in prof.function_events] == ["Exp"]
    assert "Exp" in prof.table(sort_by="cpu_time_total")
    with microtorch.autograd.profiler.profile(enabled=False) as prof:
        microtorch.ones(2).exp()
    assert len(prof.function_events) == 0


def test_device_time_with_the_cuda_activity(device):
    if device == "cpu":
        pytest.skip("the CUDA activity times GPU work")
    _train_step(device)
    activities = [profiler.ProfilerActivity.CPU, profiler.ProfilerActivity.CUDA]
    with profiler.profile(activities=activities) as prof:
        _train_step(device)
    events = _by_key(prof)
    assert events["Linear"].device_time_total >= events["Linear"].cpu_time_total > 0
    assert "CUDA total" in prof.key_averages().table(sort_by="cuda_time_total")


def test_the_same_snippet_runs_with_pytorch():
    torch = pytest.importorskip("torch")
    tables = {}
    for lib in (torch, microtorch):
        model = lib.nn.Linear(8, 4)
        x = lib.randn(3, 8)
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU],
                                  record_shapes=True) as prof:  # fmt: skip
            with lib.profiler.record_function("model_inference"):
                model(x).sum().backward()
        averages = prof.key_averages()
        assert "model_inference" in [e.key for e in averages]
        (step,) = [e for e in averages if e.key == "model_inference"]
        assert step.count == 1 and step.cpu_time_total > 0
        tables[lib] = averages.table(sort_by="cpu_time_total", row_limit=10)
    header = [line for line in tables[torch].splitlines() if "Name" in line][0].split()
    ours = [line for line in tables[microtorch].splitlines() if "Name" in line][0].split()
    assert ours == header  # the same columns
