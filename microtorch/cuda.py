"""``microtorch.cuda``: is a GPU usable, and GPU housekeeping."""

from __future__ import annotations

import sys
from typing import Any

from . import backend
from ._cuda_legacy_types import (  # noqa: F401 (torch.cuda.FloatTensor...: the legacy types)
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from ._errors import OutOfMemoryError  # noqa: F401 (torch.cuda.OutOfMemoryError is torch's)
from .amp import cuda_amp as amp  # torch.cuda.amp: the deprecated spellings of torch.amp

sys.modules[f"{__name__}.amp"] = amp  # (so that `from torch.cuda.amp import autocast` works)


def is_available() -> bool:
    """True when CuPy is installed and sees a CUDA GPU."""
    return backend.cuda_is_available()


def device_count() -> int:
    return _cupy().cuda.runtime.getDeviceCount() if is_available() else 0


def synchronize(device: Any = None) -> None:
    """Wait for the GPU's queued work (microtorch uses one GPU and one stream)."""
    _one_gpu(device, "synchronize")
    backend.synchronize()


class Event:
    """A marker in the GPU's queue of work (``torch.cuda.Event``). Two recorded events time
    the GPU work queued between them, without making the host wait at the second:

        start, end = Event(enable_timing=True), Event(enable_timing=True)
        start.record(); loss = model(x); end.record()
        end.synchronize(); print(start.elapsed_time(end), "ms")
    """

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False, external: bool = False) -> None:  # fmt: skip
        if not is_available():
            raise RuntimeError(
                "cuda.Event: no CUDA GPU here (events need CuPy and a GPU); on the CPU, time "
                "with time.perf_counter()"
            )
        self.enable_timing = enable_timing
        self._event = _cupy().cuda.Event(
            block=blocking, disable_timing=not enable_timing, interprocess=interprocess
        )

    def record(self, stream: Any = None) -> None:
        """Mark the point the GPU's queue has reached now."""
        self._event.record(stream)

    def synchronize(self) -> None:
        """Make the host wait until the GPU has done the work queued before the mark."""
        self._event.synchronize()

    def query(self) -> bool:
        """Whether the GPU has done the work queued before the mark."""
        return bool(self._event.done)

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds of GPU time between this event and ``end_event`` (both recorded, and
        ``end_event`` reached: call its synchronize() first)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        return float(_cupy().cuda.get_elapsed_time(self._event, end_event._event))


def manual_seed(seed: int) -> None:
    """Random numbers come from the host generator, so this seeds that (like manual_seed)."""
    from .random import manual_seed as seed_all

    seed_all(seed)


manual_seed_all = manual_seed


def current_device() -> int:
    """The index of the GPU that ``"cuda"`` means (microtorch uses one GPU: 0)."""
    return backend.device("cuda").index


def get_device_name(device: int | str | backend.device | None = None) -> str:
    """The GPU's name as its driver reports it, e.g. "NVIDIA H200"."""
    index = device if isinstance(device, int) else backend.device(device or "cuda").index
    name = _cupy().cuda.runtime.getDeviceProperties(index)["name"]
    return name.decode() if isinstance(name, bytes) else name


def get_device_capability(device: int | str | backend.device | None = None) -> tuple[int, int]:
    """The GPU's compute capability as (major, minor), e.g. (9, 0) for an H100 or H200;
    TF32 tensor cores (set_float32_matmul_precision("high")) need (8, 0) or newer."""
    index = device if isinstance(device, int) else backend.device(device or "cuda").index
    digits = _cupy().cuda.Device(index).compute_capability  # "90"
    return int(digits[:-1]), int(digits[-1])


# ----- memory: CuPy's memory pool keeps freed GPU blocks for reuse, like PyTorch's
# caching allocator; these report it with PyTorch's names. On a machine without a GPU
# they report 0 and do nothing, as PyTorch's do.
def memory_allocated(device: Any = None) -> int:
    """Bytes of GPU memory held by arrays now."""
    _one_gpu(device, "memory_allocated")
    return _cupy().get_default_memory_pool().used_bytes() if is_available() else 0


def memory_reserved(device: Any = None) -> int:
    """Bytes of GPU memory the pool holds: in use, plus freed blocks kept for reuse."""
    _one_gpu(device, "memory_reserved")
    return _cupy().get_default_memory_pool().total_bytes() if is_available() else 0


def max_memory_allocated(device: Any = None) -> int:
    """The pool's size (memory_reserved): CuPy does not track a high-water mark, and the
    pool only grows until empty_cache(), so this is an upper bound on the peak."""
    return memory_reserved(device)


def empty_cache() -> None:
    """Hand the pool's unused blocks back to the GPU (arrays in use are not touched)."""
    if is_available():
        _cupy().get_default_memory_pool().free_all_blocks()


def _one_gpu(device: Any, op: str) -> None:
    """Check the device= of the memory and synchronize functions: microtorch uses one GPU,
    so None, 0, "cuda" and "cuda:0" all mean it; anything else is a ValueError."""
    if device is None:
        return
    dev = backend.device("cuda", device) if isinstance(device, int) else backend.device(device)
    if dev.type != "cuda" or dev.index not in (None, 0):
        raise ValueError(f"cuda.{op}: microtorch uses one GPU, cuda:0; got device={device!r}")


def _cupy():  # noqa: ANN202 (the cupy module)
    return backend.xp_for(backend.device("cuda"))
