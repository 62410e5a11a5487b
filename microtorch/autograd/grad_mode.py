"""Switching graph recording on and off: ``no_grad()`` and ``enable_grad()``."""

from __future__ import annotations

import functools
from typing import Any, Callable

# Read by Function.apply on every op: when False, no graph is recorded.
enabled = True


def is_grad_enabled() -> bool:
    return enabled


def set_grad_enabled(mode: bool) -> None:
    global enabled
    enabled = bool(mode)


class _GradMode:
    """Context manager and decorator that sets grad mode to ``self.mode`` inside."""

    mode = True

    def __enter__(self) -> None:
        global enabled
        self._previous = enabled
        enabled = self.mode

    def __exit__(self, *exc: Any) -> None:
        global enabled
        enabled = self._previous

    def __call__(self, fn: Callable) -> Callable:
        mode_class = type(self)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with mode_class():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradMode):
    """Ops run inside record no graph: ``with microtorch.no_grad(): ...`` or ``@microtorch.no_grad()``."""

    mode = False


class enable_grad(_GradMode):
    """Turn recording back on inside a ``no_grad`` block."""

    mode = True
