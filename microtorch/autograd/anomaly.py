"""``detect_anomaly()``: stop at the first op that makes a NaN or an Inf, forward or backward.

    with microtorch.autograd.detect_anomaly():
        loss = model(x, y)     # every op's output is checked as it is made
        loss.backward()        # every gradient is checked as each op's backward returns it

The error names the op and the line of *your* code that ran it, e.g.

    detect_anomaly: Log produced -inf in its output (shape (3,), float32; 1 of 3 values)
      from finite inputs, at train.py:12 in step:
          y = torch.log(x)

Outside this mode nothing is recorded or checked: ``Function.apply`` tests two module
variables that are ``None`` (``function._anomaly_hook`` and ``function._trace_hook``) and
the engine tests ``anomaly.enabled`` once per node. Inside it:

- ``_note_creation`` (the anomaly hook) stores the user's stack on each graph node as
  ``fn.creation_trace``, so a bad gradient found later in backward can say where the op
  was created;
- ``_check_forward`` (chained into the trace hook) checks every op's output;
- ``check_backward`` (called by ``engine.backward``) checks what each backward returned.

"Your code" is the innermost frame outside the microtorch package (``user_frames``), so an
op run inside ``nn.Linear`` is reported at the line that called the layer.
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import backend
from .._warn import warn_user
from . import function
from .grad_mode import run_inside

# Read by engine.backward once per node: is a detect_anomaly() block active?
enabled = False

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_STACK_LIMIT = 4  # user frames kept per op: the line that ran it and three callers


@dataclass(frozen=True)
class SourceLine:
    """One frame of user code: where an op was called from."""

    filename: str
    lineno: int
    function: str
    line: str  # the source text, stripped ('' when the file cannot be read)

    @property
    def location(self) -> str:
        return f"{_short_path(self.filename)}:{self.lineno}"

    def __str__(self) -> str:
        text = f"{self.location} in {self.function}"
        return f"{text}:\n      {self.line}" if self.line else text


def _short_path(filename: str) -> str:
    """A path relative to the working directory when it is below it, else the full path."""
    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive on Windows
        return filename
    return filename if relative.startswith("..") else relative


def user_frames(limit: int = _STACK_LIMIT) -> tuple[SourceLine, ...]:
    """The calling stack, innermost first, from the first frame outside the microtorch
    package outward (at most ``limit`` frames)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    frames = []
    while frame is not None and len(frames) < limit:
        code = frame.f_code
        line = linecache.getline(code.co_filename, frame.f_lineno).strip()
        frames.append(SourceLine(code.co_filename, frame.f_lineno, code.co_name, line))
        frame = frame.f_back
    return tuple(frames)


def user_line() -> SourceLine | None:
    """The line of user code (outside microtorch) that is running now, or None."""
    frames = user_frames(limit=1)
    return frames[0] if frames else None


def chain_hooks(first: Callable | None, second: Callable) -> Callable:
    """A trace hook that calls ``first`` (an already installed hook, if any), then ``second``:
    trace() and detect_anomaly() can be active together, nested either way."""
    if first is None:
        return second

    def both(fn: Any, inputs: tuple, params: dict, output: Any) -> None:
        first(fn, inputs, params, output)
        second(fn, inputs, params, output)

    return both


class AnomalyError(RuntimeError):
    """A NaN or Inf appeared in an op's output (forward) or in a gradient (backward)."""


# --- the checks -------------------------------------------------------------------------
def _bad_values(array: Any) -> str | None:
    """None when every value is finite (or the array is not floating point); otherwise what
    is wrong, such as "nan (2 of 6 values)"."""
    if not hasattr(array, "dtype") or array.dtype.kind != "f":
        return None
    xp = backend.xp_of(array)
    finite = xp.isfinite(array)
    if bool(finite.all()):
        return None
    count = int(array.size - int(finite.sum()))
    found = (
        ("nan", xp.isnan(array).any()),
        ("inf", (array == xp.inf).any()),
        ("-inf", (array == -xp.inf).any()),
    )
    kinds = " and ".join(name for name, present in found if bool(present))
    return f"{kinds} ({count} of {array.size} values)"


def _describe(array: Any) -> str:
    return f"shape {tuple(array.shape)}, {array.dtype}"


def _op_name(fn: Any) -> str:
    return type(fn).__name__


def _check_forward(fn: Any, inputs: tuple, params: dict, output: Any) -> None:
    """Trace hook: raise when an op's output holds NaN or Inf (while the checks are on)."""
    if not enabled:  # set_detect_anomaly(False) inside an active block
        return
    bad = _bad_values(output.array)
    if bad is None:
        return
    bad_inputs = [
        i for i, t in enumerate(inputs) if _bad_values(getattr(t, "array", None)) is not None
    ]
    if bad_inputs:
        cause = f"input {', '.join(map(str, bad_inputs))} already held NaN or Inf"
    else:
        cause = "from finite inputs"
    where = user_line()
    at = f", at {where}" if where is not None else ""
    raise AnomalyError(
        f"detect_anomaly: {_op_name(fn)} produced {bad} in its output ({_describe(output.array)})"
        f"\n  {cause}{at}"
    )


def _note_creation(fn: Any, output: Any) -> None:
    """Anomaly hook (graph nodes only): remember where the op was created."""
    fn.creation_trace = user_frames()


def check_backward(fn: Any, grad_inputs: tuple) -> None:
    """Called by engine.backward after each node's backward: raise on a NaN/Inf gradient."""
    for i, grad in enumerate(grad_inputs):
        if grad is None:
            continue
        bad = _bad_values(grad)
        if bad is None:
            continue
        lines = [
            f"detect_anomaly: {fn.name()} returned {bad} in the gradient for its input {i} "
            f"({_describe(grad)})"
        ]
        trace = fn.creation_trace
        if trace:
            lines.append(f"  the {_op_name(fn)} op was created at {trace[0]}")
            lines += [f"    called from {frame}" for frame in trace[1:]]
        else:
            lines.append(
                f"  the {_op_name(fn)} op was created before detect_anomaly() was entered, so "
                "its source line is unknown: run the forward pass inside the block too"
            )
        raise AnomalyError("\n".join(lines))


# --- the switch ---------------------------------------------------------------------------
class detect_anomaly:
    """Context manager (and decorator) that checks every op's output and every gradient for
    NaN/Inf and raises ``AnomalyError`` naming the op and the user line that created it.

    ``check_nan=False`` only records where each op was created (no checks). Slow: use it to
    debug, not to train."""

    def __init__(self, check_nan: bool = True, *, _announce: bool = True) -> None:
        self.check_nan = check_nan
        if _announce:  # (PyTorch warns too; set_detect_anomaly does not)
            warn_user(
                "detect_anomaly: anomaly detection is on; it checks every op and gradient, "
                "which slows everything down: use it to debug, not to train"
            )

    def __enter__(self) -> None:
        global enabled
        self._previous = (enabled, function._anomaly_hook, function._trace_hook)
        enabled = self.check_nan
        function._anomaly_hook = _note_creation
        if self.check_nan:
            function._trace_hook = chain_hooks(function._trace_hook, _check_forward)

    def __exit__(self, *exc: Any) -> None:
        global enabled
        enabled, function._anomaly_hook, function._trace_hook = self._previous

    def __call__(self, fn: Callable) -> Callable:
        return run_inside(functools.partial(detect_anomaly, self.check_nan, _announce=False), fn)


class set_detect_anomaly:
    """Switch anomaly detection on (``set_detect_anomaly(True)``, with detect_anomaly's
    ``check_nan``) or off (``False``) now, for the rest of the program; or
    ``with set_detect_anomaly(mode):`` to have the previous state back after the block."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        global enabled
        self._previous = (enabled, function._anomaly_hook, function._trace_hook)
        if mode:
            detect_anomaly(check_nan, _announce=False).__enter__()
        else:  # (a trace() chained with the forward check keeps it, switched off by enabled)
            enabled, function._anomaly_hook = False, None
            if function._trace_hook is _check_forward:
                function._trace_hook = None

    def __enter__(self) -> None:
        pass  # the call already switched

    def __exit__(self, *exc: Any) -> None:
        global enabled
        enabled, function._anomaly_hook, function._trace_hook = self._previous


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Switch anomaly detection on or off for the rest of the program (torch's plain
    function; ``set_detect_anomaly`` is the same switch as a context manager too)."""
    for name, value in (("enabled", enabled), ("check_nan", check_nan)):
        if not isinstance(value, bool):
            raise TypeError(
                f"set_anomaly_enabled(): argument '{name}' must be bool, not {type(value).__name__}"
            )
    set_detect_anomaly(enabled, check_nan)


def is_anomaly_enabled() -> bool:
    """True inside a ``detect_anomaly()`` block (or after ``set_detect_anomaly(True)``)."""
    return function._anomaly_hook is _note_creation


def is_anomaly_check_nan_enabled() -> bool:
    """The ``check_nan`` setting: False only while anomaly detection is on with
    ``check_nan=False`` (PyTorch's flag is True by default, with detection on or off)."""
    return enabled or not is_anomaly_enabled()
