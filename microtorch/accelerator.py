"""``torch.accelerator``: device-generic calls for "the GPU, if there is one".

PyTorch's accelerator is whichever device type the build has (CUDA, XPU, MPS...); for
microtorch it is CUDA through CuPy, so every call here answers from microtorch.cuda. On a
machine without a usable GPU, ``is_available()`` is False, ``current_accelerator()`` is
None, ``device_count()`` is 0 and the other calls raise RuntimeError, as PyTorch's do.
microtorch uses one GPU, index 0.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from . import backend, cuda

_NONE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """True when a GPU is usable (CuPy installed and a CUDA device seen)."""
    return cuda.is_available()


def current_accelerator(check_available: bool = False) -> backend.device | None:
    """The accelerator's device type as a device (``cuda``), or None without one. (Here
    the accelerator exists only where it is usable, so ``check_available`` changes nothing.)"""
    return backend.device("cuda") if cuda.is_available() else None


def device_count() -> int:
    """How many accelerator devices there are (0 without one)."""
    return cuda.device_count()


def _device_index(device: Any, optional: bool = True) -> int:
    """The GPU index that ``device`` (None, an int, "cuda:0" or a device) names; raises
    RuntimeError when there is no GPU and for a device of another type."""
    if device is None and not optional:
        raise ValueError(
            f"Expected a torch.device with a specified index or an integer, but got:{device}"
        )
    if not cuda.is_available():
        raise RuntimeError(_NONE)
    if device is None:
        return cuda.current_device()
    if isinstance(device, int) and not isinstance(device, bool):
        index = device
    else:
        dev = backend.device(device)
        if dev.type != "cuda":
            raise RuntimeError(
                f"{dev.type} device type not an accelerator (the accelerator is cuda)"
            )
        index = dev.index
    if not 0 <= index < device_count():
        raise RuntimeError(f"invalid device ordinal {index}: there are {device_count()} GPUs")
    return index


def current_device_index() -> int:
    """The index of the GPU that ``"cuda"`` means (always 0 in microtorch)."""
    return _device_index(None)


current_device_idx = current_device_index  # (PyTorch's older, deprecated name)


def set_device_index(device: Any, /) -> None:
    """Make ``device`` the current GPU. microtorch computes on GPU 0 only, so any other
    valid index is refused (ValueError) rather than silently ignored."""
    index = _device_index(device, optional=False)
    if index != cuda.current_device():
        raise ValueError(f"set_device_index({index}): microtorch computes on GPU 0 only")


set_device_idx = set_device_index  # (PyTorch's older, deprecated name)


class device_index:  # noqa: N801 (PyTorch's name)
    """Context manager: the current GPU is ``device`` inside (None: leave it as it is)."""

    def __init__(self, device: int | None, /) -> None:
        self.index = device

    def __enter__(self) -> None:
        if self.index is not None:
            set_device_index(self.index)

    def __exit__(self, *exc: object) -> None:
        return None


def synchronize(device: Any = None, /) -> None:
    """Wait for the GPU's queued work to finish."""
    _device_index(device)
    cuda.synchronize()


# ----- memory: CuPy's pool, as microtorch.cuda reports it (see there)
def empty_cache() -> None:
    """Hand the pool's unused GPU blocks back to the driver."""
    _device_index(None)
    cuda.empty_cache()


def memory_allocated(device_index: Any = None, /) -> int:
    """Bytes of GPU memory held by tensors now."""
    _device_index(device_index)
    return cuda.memory_allocated()


def max_memory_allocated(device_index: Any = None, /) -> int:
    """An upper bound on the peak of memory_allocated (CuPy keeps no high-water mark)."""
    _device_index(device_index)
    return cuda.max_memory_allocated()


def memory_reserved(device_index: Any = None, /) -> int:
    """Bytes the memory pool holds: in use plus freed blocks kept for reuse."""
    _device_index(device_index)
    return cuda.memory_reserved()


def max_memory_reserved(device_index: Any = None, /) -> int:
    """The pool's size: it only grows until empty_cache(), so this bounds its peak."""
    _device_index(device_index)
    return cuda.memory_reserved()


def memory_stats(device_index: Any = None, /) -> OrderedDict:
    """The allocator's counters with PyTorch's flattened names, sorted by name."""
    _device_index(device_index)
    allocated, reserved = cuda.memory_allocated(), cuda.memory_reserved()
    return OrderedDict(
        sorted(
            {
                "allocated_bytes.all.current": allocated,
                "allocated_bytes.all.peak": cuda.max_memory_allocated(),
                "reserved_bytes.all.current": reserved,
                "reserved_bytes.all.peak": reserved,
            }.items()
        )
    )


def reset_peak_memory_stats(device_index: Any = None, /) -> None:
    """Nothing to reset: the peaks reported are the pool's size (see max_memory_allocated)."""
    _device_index(device_index)


def reset_accumulated_memory_stats(device_index: Any = None, /) -> None:
    """Nothing to reset: no counters accumulate here."""
    _device_index(device_index)


def get_memory_info(device_index: Any = None, /) -> tuple[int, int]:
    """(free, total) bytes of the GPU's memory, as its driver reports them."""
    _device_index(device_index)
    free, total = cuda._cupy().cuda.runtime.memGetInfo()
    return int(free), int(total)


def get_device_module(device: Any = None) -> Any:
    """The module for a device type: ``microtorch.cuda`` for "cuda", ``microtorch.cpu`` for
    "cpu"; without a device, the accelerator's (cuda) or, when there is none, the CPU's."""
    from . import cpu

    if isinstance(device, backend.device):
        kind = device.type
    elif isinstance(device, str):
        kind = device.split(":")[0]
        if kind not in ("cpu", "cuda"):
            backend.device(device)  # the error for an unknown device type
    elif device is None:
        kind = "cuda" if is_available() else "cpu"
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    return cuda if kind == "cuda" else cpu
