"""PyTorch's process-wide settings that microtorch keeps but that steer nothing in its own
arithmetic (threads, deterministic algorithms, warn-always, denormals), and its math
constants. microtorch/__init__.py exports them. Each function says what it really does."""

from __future__ import annotations

import math
import os
from typing import Any

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None  # x[:, torch.newaxis] is x[:, None]

# ----- threads ------------------------------------------------------------------------------
# microtorch computes through NumPy (or CuPy), whose BLAS picks its number of threads when it
# is loaded, from OMP_NUM_THREADS / OPENBLAS_NUM_THREADS / MKL_NUM_THREADS. Nothing in
# microtorch runs threads of its own, so set_num_threads can only record the number.
_threads = {"intra": os.cpu_count() or 1, "interop": os.cpu_count() or 1}


def _positive_count(n: Any, op: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise RuntimeError(f"{op} expects a positive integer, got {n!r}")
    return n


def get_num_threads() -> int:
    """The number last given to set_num_threads (at first, the number of CPU cores). It is a
    record only: NumPy's BLAS threads are set by OMP_NUM_THREADS and similar environment
    variables before NumPy is imported."""
    return _threads["intra"]


def set_num_threads(int: int) -> None:
    """Record the number of threads for get_num_threads. It does not change how many threads
    NumPy's BLAS uses: set OMP_NUM_THREADS (or OPENBLAS_NUM_THREADS / MKL_NUM_THREADS) in the
    environment before starting Python for that."""
    _threads["intra"] = _positive_count(int, "set_num_threads")


def get_num_interop_threads() -> int:
    """The number last given to set_num_interop_threads (at first, the number of CPU cores);
    microtorch runs no inter-op thread pool, so it is a record only."""
    return _threads["interop"]


def set_num_interop_threads(int: int) -> None:
    """Record the number of inter-op threads for get_num_interop_threads; microtorch runs ops
    one after another in the calling thread, so nothing else changes."""
    _threads["interop"] = _positive_count(int, "set_num_interop_threads")


# ----- deterministic algorithms ----------------------------------------------------------------
# On the CPU every microtorch op gives the same bits run after run. On CUDA, ops that add
# into one place from many threads (index_add, scatter_add, put with accumulate, embedding's
# backward...) may add in a different order each run, so the last bits may differ. These
# settings are recorded and reported; microtorch has no other algorithms to switch to, and
# raises or warns about none.
_deterministic = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record whether deterministic algorithms are asked for (see the note above: microtorch
    neither switches algorithms nor raises for the CUDA ops that may not be)."""
    if not isinstance(mode, bool):
        raise TypeError(
            f"use_deterministic_algorithms(): argument 'mode' must be bool, not "
            f"{type(mode).__name__}"
        )
    _deterministic.update(mode=mode, warn_only=bool(warn_only))


def are_deterministic_algorithms_enabled() -> bool:
    """Whether use_deterministic_algorithms(True) is in force."""
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether use_deterministic_algorithms was given warn_only=True."""
    return _deterministic["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """Another spelling of use_deterministic_algorithms: 0 or "default" (off), 1 or "warn"
    (on, warn only), 2 or "error" (on)."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                f"but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0 when deterministic algorithms are off, 1 when on with warn_only, 2 when on."""
    if not _deterministic["mode"]:
        return 0
    return 1 if _deterministic["warn_only"] else 2


# ----- warnings and denormals --------------------------------------------------------------------
_warn_always = {"enabled": False}


def set_warn_always(b: bool) -> None:
    """Record the flag for is_warn_always_enabled. microtorch's warnings go through Python's
    warnings module, whose filters decide whether a repeated warning is shown
    (warnings.simplefilter("always") shows every one)."""
    _warn_always["enabled"] = bool(b)


def is_warn_always_enabled() -> bool:
    """The flag last given to set_warn_always (False at first)."""
    return _warn_always["enabled"]


def set_flush_denormal(mode: bool) -> bool:
    """False: microtorch cannot make NumPy flush denormal numbers to zero, and PyTorch answers
    False where flushing is not supported; nothing changes."""
    return False


# ----- names of types ---------------------------------------------------------------------------
def typename(obj: Any) -> str:
    """A tensor's legacy type name (as x.type() gives it: "torch.FloatTensor"); for a class
    or function its module and name; for anything else its class's module and name (no
    module for builtins)."""
    from ._tensor import Tensor

    if isinstance(obj, Tensor):
        return obj.type()
    named = obj if hasattr(obj, "__qualname__") else type(obj)
    module = getattr(named, "__module__", None)
    if module in ("builtins", "__builtin__", None):
        return named.__qualname__
    return f"{module}.{named.__qualname__}"


def is_storage(obj: Any) -> bool:
    """False: microtorch has no storage objects (a tensor holds a NumPy or CuPy array)."""
    return False
