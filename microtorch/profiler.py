"""``microtorch.profiler``: where the time goes, op by op (the core of ``torch.profiler``).

    with microtorch.profiler.profile(record_shapes=True) as prof:
        with microtorch.profiler.record_function("train step"):
            loss = model(x, y)
            loss.backward()
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

Every op's forward runs in ``Function.apply`` and its backward in ``engine.backward``. While a
profile is recording, those two places hand the op's own ``forward`` / ``backward`` call to
``profile.run`` instead of calling it directly, and ``run`` times it with
``time.perf_counter``. A forward is listed under its op's class name (``Matmul``), a backward
under its node's name (``MatmulBackward0``), and ``record_function("name")`` adds a range
of your own. "CPU total" is an event's whole time; "Self CPU" is that time minus the events
inside it (the ops inside a ``record_function`` range). Outside a profile nothing is timed
and nothing is paid (one ``is None`` test per op).

With ``ProfilerActivity.CUDA`` in ``activities`` and the tensors on a GPU, each op also waits
for the GPU before it starts and after it ends (``cuda.synchronize()``), so its "CUDA total"
is the GPU time of its own kernels (plus their launch). The waiting slows the run down: use
it to see which ops cost GPU time, not to time the whole step.

Differences from PyTorch: the names are microtorch's op classes, not ``aten::`` ops; the time
is the op's own array work (the graph bookkeeping around it is not counted); memory, FLOPs,
stacks and modules are not recorded (``profile_memory=True`` and the like warn).
"""

from __future__ import annotations

import enum
import json
import os
import socket
import time
from collections.abc import Callable
from typing import Any

from . import backend
from ._warn import warn_user
from .autograd import function


class ProfilerActivity(enum.Enum):
    """What a profile times: CPU (each op's host time) and CUDA (each op's GPU time)."""

    CPU = 0
    CUDA = 1


class ProfilerAction(enum.Enum):
    """What a profile does in a step, as a ``schedule`` decides."""

    NONE = 0  # record nothing
    WARMUP = 1  # run as when recording, but keep nothing
    RECORD = 2  # record
    RECORD_AND_SAVE = 3  # record, then hand the events to on_trace_ready at the next step()


def supported_activities() -> set[ProfilerActivity]:
    """CPU always; CUDA when a GPU is usable."""
    found = {ProfilerActivity.CPU}
    if backend.cuda_is_available():
        found.add(ProfilerActivity.CUDA)
    return found


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:  # fmt: skip
    """A schedule for ``profile(schedule=...)``: after ``skip_first`` steps, cycles of ``wait``
    steps doing nothing, ``warmup`` steps warming up and ``active`` steps recording (the last
    of which saves), ``repeat`` cycles (0: for ever). ``skip_first_wait=1`` leaves out the
    first cycle's wait."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError(
            f"profiler.schedule: wait, warmup, repeat and skip_first must be >= 0 and active "
            f"> 0, got wait={wait}, warmup={warmup}, active={active}, repeat={repeat}, "
            f"skip_first={skip_first}"
        )
    cycle = wait + warmup + active

    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait  # the first cycle starts at its warmup
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        in_cycle = step % cycle
        if in_cycle < wait:
            return ProfilerAction.NONE
        if in_cycle < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD_AND_SAVE if in_cycle == cycle - 1 else ProfilerAction.RECORD

    return action


def _always_record(step: int) -> ProfilerAction:
    """The schedule of a profile given none: record every step, save at the end."""
    return ProfilerAction.RECORD


class _Times:
    """The averages and PyTorch's older (cuda_) names that events and their sums share;
    subclasses set count, cpu_time_total, device_time_total and the self_ times."""

    @property
    def cpu_time(self) -> float:
        """The average time per call."""
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def device_time(self) -> float:
        return self.device_time_total / self.count if self.count else 0.0

    # PyTorch's older names for the device times
    cuda_time_total = property(lambda self: self.device_time_total)
    self_cuda_time_total = property(lambda self: self.self_device_time_total)
    cuda_time = property(lambda self: self.device_time)


class FunctionEvent(_Times):
    """One timed call: an op's forward, a node's backward or a ``record_function`` range.
    Times are in microseconds, as PyTorch's."""

    def __init__(self, name: str, start_us: float, input_shapes: list, parent: Any) -> None:
        self.name = name
        self.key = name
        self.start_us = start_us
        self.input_shapes = input_shapes  # per input: its shape (as a list), [] if not a tensor
        self.cpu_parent = parent  # the event it ran inside, or None
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_time_total = 0.0  # start to end
        self.device_time_total = 0.0  # with ProfilerActivity.CUDA: the GPU's time too
        self.count = 1
        self.thread = 0

    @property
    def self_cpu_time_total(self) -> float:
        """The time not spent in the events inside this one."""
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def self_device_time_total(self) -> float:
        return self.device_time_total - sum(c.device_time_total for c in self.cpu_children)

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent name={self.name} cpu_time_total={_format_us(self.cpu_time_total)} "
            f"input_shapes={self.input_shapes}>"
        )


class FunctionEventAvg(_Times):
    """The events of one name (and, grouped by shape, one list of input shapes) added up."""

    def __init__(self, key: str, input_shapes: list) -> None:
        self.key = key
        self.name = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.device_time_total = 0.0
        self.self_device_time_total = 0.0

    def add(self, event: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        self.device_time_total += event.device_time_total
        self.self_device_time_total += event.self_device_time_total
        return self

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={_format_us(self.self_cpu_time_total)}"
            f" cpu_time={_format_us(self.cpu_time)} input_shapes={self.input_shapes}>"
        )


class EventList(list):
    """A list of events with PyTorch's summaries: ``key_averages()``, ``table()``,
    ``total_average()`` and ``export_chrome_trace()``."""

    def __init__(self, events: Any = (), *, with_device: bool = False) -> None:
        super().__init__(events)
        self._with_device = with_device

    def key_averages(self, group_by_input_shape: bool = False) -> EventList:
        """One FunctionEventAvg per name (per name and input shapes when grouped), in the
        order the names first ran."""
        groups: dict[Any, FunctionEventAvg] = {}
        for event in self:
            shapes = event.input_shapes if group_by_input_shape else []
            key = (event.key, str(shapes))
            if key not in groups:
                groups[key] = FunctionEventAvg(event.key, shapes)
            groups[key].add(event)
        return EventList(groups.values(), with_device=self._with_device)

    def total_average(self) -> FunctionEventAvg:
        """Every event added up (key "Total")."""
        total = FunctionEventAvg("Total", [])
        for event in self:
            total.add(event)
        return total

    @property
    def self_cpu_time_total(self) -> float:
        return sum(event.self_cpu_time_total for event in self)

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:  # fmt: skip
        """The events as PyTorch prints them: one row each, sorted by ``sort_by`` (an
        attribute such as "cpu_time_total", "self_cpu_time_total", "cpu_time", "count",
        "cuda_time_total"; largest first), at most ``row_limit`` rows (-1: all)."""
        return _table(self, sort_by, row_limit, max_name_column_width, max_shapes_column_width,
                      header, top_level_events_only)  # fmt: skip

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (open it in chrome://tracing or Perfetto)."""
        trace = []
        for event in self:
            if not isinstance(event, FunctionEvent):
                raise TypeError("export_chrome_trace: needs the events themselves, not averages")
            trace.append({
                "name": event.name, "ph": "X", "cat": "cpu_op", "ts": event.start_us,
                "dur": event.cpu_time_total, "pid": os.getpid(), "tid": event.thread,
                "args": {"Input Dims": event.input_shapes},
            })  # fmt: skip
        with open(path, "w") as f:
            json.dump({"traceEvents": trace, "displayTimeUnit": "ms"}, f)


_SORT_KEYS = ("cpu_time", "cuda_time", "device_time", "cpu_time_total", "cuda_time_total",
              "device_time_total", "self_cpu_time_total", "self_cuda_time_total",
              "self_device_time_total", "count")  # fmt: skip


def _table(events: EventList, sort_by: str | None, row_limit: int, name_width: int,
           shapes_width: int, header: str | None, top_level_only: bool) -> str:  # fmt: skip
    rows = [e for e in events if not (top_level_only and getattr(e, "cpu_parent", None))]
    if sort_by is not None:
        if sort_by not in _SORT_KEYS:
            raise ValueError(f"table: sort_by must be one of {_SORT_KEYS}, got {sort_by!r}")
        rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
    if row_limit is not None and row_limit >= 0:
        rows = rows[:row_limit]
    self_total = sum(e.self_cpu_time_total for e in events) or 1.0
    device_total = sum(e.self_device_time_total for e in events) or 1.0
    with_shapes = any(e.input_shapes for e in rows)
    names = [e.key if len(e.key) <= name_width else e.key[: name_width - 3] + "..." for e in rows]
    width = max([len("Name"), *map(len, names)]) + 2
    columns = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if events._with_device:
        columns += ["Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"]
    columns.append("# of Calls")
    lines = []
    rule = "-" * width + "  " + "  ".join("-" * 13 for _ in columns)
    head = "Name".rjust(width) + "  " + "  ".join(c.rjust(13) for c in columns)
    if with_shapes:
        rule += "  " + "-" * shapes_width
        head += "  " + "Input Shapes".ljust(shapes_width)
    if header is not None:
        lines += ["=" * len(rule), header]
    lines += [rule, head, rule]
    for name, e in zip(names, rows):
        cells = [f"{100 * e.self_cpu_time_total / self_total:.2f}%",
                 _format_us(e.self_cpu_time_total),
                 f"{100 * e.cpu_time_total / self_total:.2f}%",
                 _format_us(e.cpu_time_total), _format_us(e.cpu_time)]  # fmt: skip
        if events._with_device:
            cells += [_format_us(e.self_device_time_total),
                      f"{100 * e.self_device_time_total / device_total:.2f}%",
                      _format_us(e.device_time_total), _format_us(e.device_time)]  # fmt: skip
        cells.append(str(e.count))
        line = name.rjust(width) + "  " + "  ".join(c.rjust(13) for c in cells)
        if with_shapes:
            line += "  " + str(e.input_shapes)[:shapes_width]
        lines.append(line)
    lines += [rule, f"Self CPU time total: {_format_us(self_total)}"]
    if events._with_device:
        lines.append(f"Self CUDA time total: {_format_us(device_total)}")
    return "\n".join(lines) + "\n"


def _format_us(us: float) -> str:
    """A time in microseconds as PyTorch prints it: 12.345us, 1.234ms, 2.000s."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class profile:
    """Context manager timing every op run inside it (see the module docstring).

    ``activities``: ProfilerActivity.CPU (default) and/or ProfilerActivity.CUDA.
    ``schedule``: which steps to record (``profiler.schedule(...)``; advance with
    ``prof.step()``); ``on_trace_ready(prof)`` is called with each recorded cycle.
    ``record_shapes``: keep each event's input shapes (``key_averages(group_by_input_shape=True)``).
    """

    def __init__(self, *, activities: Any = None, schedule: Callable | None = None,
                 on_trace_ready: Callable | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_flops: bool = False, with_modules: bool = False,
                 experimental_config: Any = None, execution_trace_observer: Any = None,
                 acc_events: bool = False, use_cuda: bool | None = None,
                 custom_trace_id_callback: Callable | None = None,
                 post_processing_timeout_s: float | None = None) -> None:  # fmt: skip
        # (post_processing_timeout_s bounds PyTorch's trace post-processing; there is none)
        if custom_trace_id_callback is not None:
            raise NotImplementedError(
                "profile: custom_trace_id_callback is not supported (microtorch's traces carry "
                "no trace id)"
            )
        activities = set(activities) if activities is not None else {ProfilerActivity.CPU}
        if use_cuda:  # (deprecated in PyTorch for activities=[..., CUDA])
            activities.add(ProfilerActivity.CUDA)
        for activity in activities:
            if not isinstance(activity, ProfilerActivity):
                raise TypeError(
                    f"profile: activities must be ProfilerActivity values, got {activity!r}"
                )
        unsupported = [name for name, on in (("profile_memory", profile_memory),
                       ("with_stack", with_stack), ("with_flops", with_flops),
                       ("with_modules", with_modules)) if on]  # fmt: skip
        if unsupported:
            warn_user(
                f"profiler.profile: {', '.join(unsupported)} not recorded by microtorch "
                "(only the time of each op, and its input shapes with record_shapes=True)"
            )
        self.activities = activities
        self.record_shapes = record_shapes
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._device = ProfilerActivity.CUDA in activities and backend.cuda_is_available()
        self._events: list[FunctionEvent] = []  # the recording cycle's, in the order they began
        self._open: list[FunctionEvent] = []  # the events running now, innermost last
        self._origin = time.perf_counter()
        self._previous: Any = None
        self._started = False

    # ----- starting and stopping
    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self) -> None:
        """Start watching ops (``with profile() as prof`` calls it)."""
        self._previous = function._profiler
        function._profiler = self
        self._started = True

    def stop(self) -> None:
        """Stop watching ops; a recording cycle still open goes to on_trace_ready."""
        if not self._started:
            return
        function._profiler = self._previous
        self._started = False
        if self._recording() and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def step(self) -> None:
        """Tell the schedule a step has ended (call once per training step)."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if previous == ProfilerAction.RECORD_AND_SAVE and self.on_trace_ready is not None:
            self.on_trace_ready(self)
        if self._recording() and previous in (ProfilerAction.NONE, ProfilerAction.WARMUP,
                                              ProfilerAction.RECORD_AND_SAVE):  # fmt: skip
            if not self.acc_events:
                self._events = []  # a new cycle starts

    def _recording(self) -> bool:
        return self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)

    # ----- timing: Function.apply and engine.backward call this while a profile is active
    def run(self, name: str, call: Callable, args: tuple, inputs: tuple) -> Any:
        """``call(*args)``, timed as an event called ``name``; ``inputs`` give its shapes."""
        if self.current_action == ProfilerAction.NONE:
            return call(*args)
        event = self.begin(name, inputs)
        try:
            return call(*args)
        finally:
            self.end(event)

    def begin(self, name: str, inputs: tuple = ()) -> FunctionEvent:
        if self._device:
            backend.synchronize()  # the GPU's earlier work is not this op's
        shapes = [list(getattr(x, "shape", ())) for x in inputs] if self.record_shapes else []
        parent = self._open[-1] if self._open else None
        event = FunctionEvent(name, (time.perf_counter() - self._origin) * 1e6, shapes, parent)
        self._open.append(event)
        return event

    def end(self, event: FunctionEvent) -> None:
        host_end = time.perf_counter() - self._origin
        if self._device:
            backend.synchronize()  # the GPU has finished this op's kernels
            event.device_time_total = (time.perf_counter() - self._origin) * 1e6 - event.start_us
        event.cpu_time_total = host_end * 1e6 - event.start_us
        self._open.remove(event)
        if self._recording():  # (warmup steps run the same code but keep nothing)
            if event.cpu_parent is not None:
                event.cpu_parent.cpu_children.append(event)
            self._events.append(event)

    # ----- results
    def events(self) -> EventList:
        """Every event of the last recording cycle, in the order they started."""
        ordered = sorted(self._events, key=lambda e: e.start_us)
        return EventList(ordered, with_device=self._device)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:  # fmt: skip
        """The events added up per name (``table()`` prints them)."""
        if group_by_input_shape and not self.record_shapes:
            raise RuntimeError(
                "key_averages(group_by_input_shape=True) needs profile(record_shapes=True)"
            )
        return self.events().key_averages(group_by_input_shape)

    def export_chrome_trace(self, path: str, use_python_export: bool = False) -> None:
        """Write the events as a Chrome trace JSON file (microtorch writes it in Python
        always, so use_python_export changes nothing)."""
        self.events().export_chrome_trace(path)


class record_function:
    """A named range of your own in the profile (context manager or decorator); it does
    nothing when no profile is active."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._event: FunctionEvent | None = None
        self._profile: profile | None = None

    def __enter__(self) -> record_function:
        self._profile = function._profiler
        if self._profile is not None and self._profile.current_action != ProfilerAction.NONE:
            self._event = self._profile.begin(self.name)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._event is not None and self._profile is not None:
            self._profile.end(self._event)
        self._event = self._profile = None

    def __call__(self, fn: Callable) -> Callable:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        wrapper.__name__ = getattr(fn, "__name__", "wrapper")
        wrapper.__doc__ = fn.__doc__
        return wrapper


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False,
                              use_python_export: bool = False) -> Callable[[profile], None]:  # fmt: skip
    """An on_trace_ready that writes each recorded cycle as a Chrome trace into
    ``dir_name`` (``<worker>.<time in ms>.pt.trace.json``), where TensorBoard's profiler
    plugin looks for them."""
    if use_gzip:
        raise NotImplementedError("tensorboard_trace_handler: use_gzip=True is not supported")
    # (use_python_export: microtorch writes its traces in Python anyway)

    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        prof.export_chrome_trace(
            os.path.join(dir_name, f"{worker}.{int(time.time() * 1000)}.pt.trace.json")
        )

    return handler
