"""Switching graph recording on and off: ``no_grad()`` and ``enable_grad()``."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Generator
from typing import Any

# Read by Function.apply on every op: when False, no graph is recorded.
enabled = True
# True inside an active inference_mode() block (read by is_inference_mode_enabled()).
inference = False
# set_multithreading_enabled(): recorded only (microtorch's backward runs on one thread).
multithreading = True


def is_grad_enabled() -> bool:
    return enabled


def is_inference_mode_enabled() -> bool:
    """Whether code runs inside an active ``inference_mode()`` block."""
    return inference


def is_multithreading_enabled() -> bool:
    """The flag ``set_multithreading_enabled`` sets (True unless switched off)."""
    return multithreading


def run_inside(make_context: Callable[[], Any], fn: Callable) -> Callable:
    """``fn`` wrapped so that each call runs inside a fresh ``make_context()``: the body of
    every mode decorator here (``@no_grad()``, ``@set_grad_enabled(False)``, ...). A generator
    function's body runs inside the mode each time it resumes, and the caller's mode is back
    while it is suspended at a ``yield``."""
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def generator_wrapper(*args: Any, **kwargs: Any) -> Generator:
            return (yield from _steps_inside(make_context, fn(*args, **kwargs)))

        return generator_wrapper

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with make_context():
            return fn(*args, **kwargs)

    return wrapper


def _steps_inside(make_context: Callable[[], Any], gen: Generator) -> Generator:
    """Drive ``gen`` one step at a time, each step (next, send, throw, close) inside a fresh
    ``make_context()``; what it yields goes to the caller, what the caller sends goes back."""
    try:
        with make_context():
            value = gen.send(None)
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                with make_context():
                    gen.close()
                raise
            except BaseException as error:  # thrown in by the caller: pass it on to gen
                with make_context():
                    value = gen.throw(error)
            else:
                with make_context():
                    value = gen.send(sent)
    except StopIteration as done:
        return done.value


class _GradMode:
    """Context manager and decorator that sets grad mode to ``self.mode`` inside.

    Both ``@no_grad()`` and ``@no_grad`` (no parentheses) decorate a function."""

    mode = True

    def __new__(cls, orig_func: Callable | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)  # used as a bare decorator: wrap the function

    def __enter__(self) -> None:
        global enabled
        self._previous = enabled
        enabled = self.mode

    def __exit__(self, *exc: Any) -> None:
        global enabled
        enabled = self._previous

    def __call__(self, fn: Callable) -> Callable:
        return run_inside(type(self), fn)


class no_grad(_GradMode):
    """Ops run inside record no graph: ``with microtorch.no_grad(): ...`` or ``@microtorch.no_grad()``."""

    mode = False


class enable_grad(_GradMode):
    """Turn recording back on inside a ``no_grad`` block."""

    mode = True


class set_grad_enabled(_GradMode):
    """Set grad mode now: ``set_grad_enabled(False)`` as a call, or
    ``with set_grad_enabled(is_training): ...`` to restore the previous mode afterwards."""

    def __new__(cls, mode: bool) -> set_grad_enabled:
        return object.__new__(cls)

    def __init__(self, mode: bool) -> None:
        global enabled
        if not isinstance(mode, bool):  # (None or 0 would quietly switch gradients off)
            raise TypeError(
                f"set_grad_enabled(): argument 'mode' must be bool, not {type(mode).__name__}; "
                "pass True or False"
            )
        self.mode = mode
        self._previous = enabled
        enabled = self.mode

    def __enter__(self) -> None:
        pass  # the mode was already set by the call

    def __call__(self, fn: Callable) -> Callable:
        """``@set_grad_enabled(False)``: the call above set the mode; a decorator only
        wraps ``fn``, so the mode goes back to what it was."""
        global enabled
        enabled = self._previous
        return run_inside(functools.partial(set_grad_enabled, self.mode), fn)


class set_multithreading_enabled:
    """PyTorch's switch for running backward on several threads: ``set_multithreading_enabled(
    False)`` as a call, or ``with set_multithreading_enabled(False): ...`` to have the previous
    setting back after the block. microtorch's backward always runs on the calling thread,
    so the flag is only recorded (``is_multithreading_enabled()`` reads it)."""

    def __init__(self, mode: bool) -> None:
        global multithreading
        if not isinstance(mode, bool):
            raise TypeError(
                "set_multithreading_enabled(): argument 'mode' must be bool, not "
                f"{type(mode).__name__}; pass True or False"
            )
        self._previous, multithreading = multithreading, mode

    def __enter__(self) -> None:
        pass  # the call already switched

    def __exit__(self, *exc: Any) -> None:
        global multithreading
        multithreading = self._previous


class inference_mode(no_grad):
    """PyTorch's ``no_grad`` for pure inference (``with torch.inference_mode():`` or
    ``@torch.inference_mode()``). microtorch has no separate inference tensors, so it is
    ``no_grad`` here. ``inference_mode(False)`` is normal mode, with gradients on (even
    inside ``no_grad``), as in PyTorch."""

    def __new__(cls, mode: Any = True) -> Any:
        if callable(mode):
            return cls()(mode)  # used as a bare decorator: wrap the function
        return object.__new__(cls)

    def __init__(self, mode: Any = True) -> None:
        self.active = bool(mode)

    def __enter__(self) -> None:
        global enabled, inference
        self._previous, self._previous_inference = enabled, inference
        inference = self.active  # inference_mode(False) ends it inside an outer one
        enabled = not self.active

    def __exit__(self, *exc: Any) -> None:
        global enabled, inference
        enabled, inference = self._previous, self._previous_inference

    def __call__(self, fn: Callable) -> Callable:
        return run_inside(functools.partial(inference_mode, self.active), fn)
