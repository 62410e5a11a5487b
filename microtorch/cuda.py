"""``microtorch.cuda``: is a GPU usable, and GPU housekeeping."""

from __future__ import annotations

from . import backend


def is_available() -> bool:
    """True when CuPy is installed and sees a CUDA GPU."""
    return backend.cuda_is_available()


def device_count() -> int:
    return (
        backend.xp_for(backend.device("cuda")).cuda.runtime.getDeviceCount()
        if is_available()
        else 0
    )


def synchronize() -> None:
    backend.synchronize()


def manual_seed(seed: int) -> None:
    """Random numbers come from the host generator, so this seeds that (like manual_seed)."""
    from .random import manual_seed as seed_all

    seed_all(seed)


manual_seed_all = manual_seed


def max_memory_allocated() -> int:
    """Bytes held by CuPy's memory pool (its high-water mark is not tracked)."""
    if not is_available():
        return 0
    return backend.xp_for(backend.device("cuda")).get_default_memory_pool().total_bytes()
