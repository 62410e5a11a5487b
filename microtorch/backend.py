"""The one place that decides where arrays live: NumPy on the CPU, CuPy on a CUDA GPU.

Every op works on raw arrays through ``xp`` (``numpy`` or ``cupy``), which it gets
from :func:`xp_of`. Nothing else in microtorch imports numpy or cupy for array
math. CuPy is imported only when CUDA is first asked for, so CPU users never
need it installed.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy

from ._warn import warn_user

_cupy: Any = None  # the cupy module, once CUDA has been asked for
_cupy_error: str | None = None

CUDA_INSTALL_HINT = (
    'install CuPy on a machine with an NVIDIA GPU: `pip install -e ".[cuda]"` (or `pip install '
    "cupy-cuda12x`) for CUDA 12, which a CUDA 13 driver also runs, or `pip install cupy-cuda13x` "
    "for CUDA 13; or use device='cpu'"
)


class device:
    """Where a tensor's array lives: ``device("cpu")`` or ``device("cuda")`` (= ``"cuda:0"``)."""

    __slots__ = ("type", "index")

    def __init__(self, spec: str | device, index: int | None = None) -> None:
        if isinstance(spec, device):
            self.type, self.index = spec.type, spec.index
            return
        if not isinstance(spec, str):
            raise TypeError(f"device: expected a string such as 'cpu' or 'cuda', got {spec!r}")
        kind, colon, number = spec.partition(":")
        if kind not in ("cpu", "cuda"):  # (RuntimeError, as PyTorch's device parser raises)
            raise RuntimeError(
                f"device: unknown device {spec!r}; microtorch knows 'cpu' and 'cuda'"
            )
        if colon and not number.isdigit():  # 'cuda:x', 'cuda:-1', 'cuda:'
            raise RuntimeError(
                f"device: invalid device string {spec!r}; write 'cuda' or 'cuda:N' with N >= 0"
            )
        if number:
            index = int(number)
        if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
            raise TypeError(f"device: the index must be an int, got {type(index).__name__}")
        if index is not None and index < 0:
            raise RuntimeError(f"device: device index must not be negative, got {index}")
        if kind == "cuda" and index is None:
            index = 0
        if kind == "cpu":
            index = None
        self.type, self.index = kind, index

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                other = device(other)
            except RuntimeError:
                return False
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")
_default_device = CPU


def _load_cupy() -> Any:
    """Import CuPy on first use and check that a GPU is really there."""
    global _cupy, _cupy_error
    if _cupy is not None:
        return _cupy
    if _cupy_error is None:
        try:
            import cupy

            if cupy.cuda.runtime.getDeviceCount() < 1:
                _cupy_error = "CuPy is installed but it sees no CUDA GPU"
            else:
                _cupy = cupy
                _apply_float32_matmul_precision(cupy)
                return cupy
        except ImportError:
            _cupy_error = "CuPy is not installed"
        except Exception as error:  # CUDA driver or runtime missing
            _cupy_error = f"CuPy could not reach a GPU ({type(error).__name__}: {error})"
    raise RuntimeError(f"CUDA was asked for but {_cupy_error}; {CUDA_INSTALL_HINT}")


def cuda_is_available() -> bool:
    """True when CuPy imports and sees at least one GPU."""
    try:
        _load_cupy()
    except RuntimeError:
        return False
    return True


def as_device(spec: str | device | None) -> device:
    """Turn ``None`` / ``"cpu"`` / ``"cuda"`` / a device into a device (None = the default)."""
    if spec is None:
        return _default_device
    dev = spec if isinstance(spec, device) else device(spec)
    if dev.type == "cuda":
        _load_cupy()
    return dev


def set_default_device(device: str | device | None) -> None:
    """Make factories such as ``zeros`` and ``randn`` create tensors on this device."""
    global _default_device
    _default_device = CPU if device is None else as_device(device)


def get_default_device() -> device:
    return _default_device


def xp_for(dev: device) -> Any:
    """The array module for a device: numpy for the CPU, cupy for CUDA."""
    return numpy if dev.type == "cpu" else _load_cupy()


def xp_of(array: Any) -> Any:
    """The array module that owns ``array`` (numpy or cupy)."""
    if isinstance(array, (numpy.ndarray, numpy.generic)):
        return numpy
    return _cupy if _cupy is not None else numpy


def device_of(array: Any) -> device:
    if isinstance(array, (numpy.ndarray, numpy.generic)):  # numpy scalars live on the host too
        return CPU
    return device("cuda", array.device.id)


def is_array(obj: Any) -> bool:
    """True for a numpy or cupy array."""
    return isinstance(obj, numpy.ndarray) or (_cupy is not None and isinstance(obj, _cupy.ndarray))


def memory_root(array: Any) -> Any:
    """The array that owns the memory ``array`` views (array itself if it owns it), through
    views of views and through NumPy's as_strided (whose base is a wrapper of its input)."""
    kind = type(array)
    while True:
        base = array.base
        if not isinstance(base, kind):
            base = getattr(base, "base", None)
        if not isinstance(base, kind):
            return array
        array = base


def memory_start(array: Any) -> int:
    """The address where the memory ``array`` lies in starts: CuPy's allocation (``data.mem``,
    which its as_strided views keep too), or the start of the NumPy array that owns it."""
    allocation = getattr(getattr(array, "data", None), "mem", None)
    if allocation is not None:
        return allocation.ptr
    return memory_root(array).__array_interface__["data"][0]


def to_device(array: Any, dev: device) -> Any:
    """Move an array to ``dev`` (a no-op when it is already there)."""
    if dev.type == "cpu":
        if isinstance(array, numpy.ndarray):
            return array
        if _cupy is not None and isinstance(array, _cupy.ndarray):
            flush_checks()  # the host waits for the GPU here anyway
            return array.get()
        return numpy.asarray(array)
    cupy = _load_cupy()
    if isinstance(array, cupy.ndarray) and array.device.id == dev.index:
        return array
    with cupy.cuda.Device(dev.index):
        return cupy.asarray(array)


def to_numpy(array: Any) -> numpy.ndarray:
    """A host (numpy) copy or view of any array."""
    return to_device(array, CPU)


def float16_results(arrays: tuple) -> tuple:
    """Arrays a float16 op computed in float32 (as PyTorch's kernels compute float16), each
    rounded back to float16 once; None entries (inputs with no gradient) stay None."""
    return tuple(None if a is None else a.astype(xp_of(a).float16) for a in arrays)


def synchronize() -> None:
    """Wait for queued GPU work to finish (no-op on the CPU)."""
    if _cupy is not None:
        _cupy.cuda.Device().synchronize()
        flush_checks()


# ----- float32 matrix products: float32 throughout, or TensorFloat-32 on a GPU ----------
# PyTorch's set_float32_matmul_precision. "highest" (the default) multiplies float32 in
# float32. "high" and "medium" let a GPU with TF32 tensor cores (compute capability 8.0
# and newer) round each product's inputs to 10 mantissa bits (about 3 significant digits
# instead of 7) and still add up in float32: several times faster. CuPy does this in its
# 2-D products, which are every Linear layer's; batched products (attention's) stay in
# float32. The CPU always multiplies in float32. CUPY_TF32=1 in the environment starts in
# "high", as it does for CuPy itself.
FLOAT32_MATMUL_PRECISIONS = ("highest", "high", "medium")
_float32_matmul_precision = (
    "high" if os.environ.get("CUPY_TF32", "0") not in ("", "0") else "highest"
)


def set_float32_matmul_precision(precision: str) -> None:
    """Float32 products in float32 ("highest"), or in TF32 on a GPU that has it ("high",
    "medium")."""
    global _float32_matmul_precision
    if precision not in FLOAT32_MATMUL_PRECISIONS:
        raise RuntimeError(
            f"set_float32_matmul_precision: precision must be one of "
            f"{', '.join(repr(p) for p in FLOAT32_MATMUL_PRECISIONS)}, got {precision!r}"
        )
    _float32_matmul_precision = precision
    if _cupy is not None:
        _apply_float32_matmul_precision(_cupy)


def get_float32_matmul_precision() -> str:
    return _float32_matmul_precision


def _apply_float32_matmul_precision(cupy: Any) -> None:
    # CuPy's own switch for the compute type of its cuBLAS products (CUPY_TF32 sets it at
    # start); on a GPU older than compute capability 8.0 CuPy warns and stays in float32.
    # The switch is not in CuPy's public API: if a CuPy lacks it, CUDA still works.
    linalg = getattr(getattr(cupy, "_core", None), "_routines_linalg", None)
    tf32 = _float32_matmul_precision != "highest"
    if not hasattr(linalg, "set_compute_type"):
        if tf32:
            warn_user(
                f"set_float32_matmul_precision({_float32_matmul_precision!r}): CuPy "
                f"{getattr(cupy, '__version__', '?')} has no compute-type switch "
                "(cupy._core._routines_linalg.set_compute_type), so products stay in float32"
            )
        return
    compute = linalg.COMPUTE_TYPE_TF32 if tf32 else linalg.COMPUTE_TYPE_DEFAULT
    linalg.set_compute_type(numpy.float32, compute)


# ----- host memory ------------------------------------------------------------------
def keep_freed_host_memory() -> bool:
    """Ask glibc's malloc to keep freed memory for reuse instead of handing it back to the OS.

    Every op's output is a fresh NumPy array. By default glibc returns freed blocks above
    128 KiB to the kernel (munmap, heap trimming), so the next op's output page-faults new
    zeroed pages in. A training step allocates and frees the same activations every step,
    so it would pay that again and again: measured 0.5 ms instead of 0.06 ms for one
    768x512 float32 op on a 2-core VM. With these settings every block comes from the heap
    (no mmap: large activations are reused too, 25% off a shakespeare-sized CPU step) and
    freed blocks are kept for reuse, as PyTorch's caching allocator does on the GPU; the
    cost is that the process's resident memory stays near its high-water mark. Runs once at
    import (Linux with glibc only); set MICROTORCH_MALLOC_TUNING=0 to leave malloc alone.
    Returns True when the settings were applied."""
    import ctypes
    import sys

    if sys.platform != "linux":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library already loaded in this process
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold, m_mmap_max = -1, -3, -4  # <malloc.h> constants
    ok = mallopt(m_mmap_threshold, 32 * 1024 * 1024)  # blocks below 32 MiB from the heap...
    ok &= mallopt(m_mmap_max, 0)  # ...and larger ones too (glibc falls back to mmap if it must)
    ok &= mallopt(m_trim_threshold, 1024 * 1024 * 1024)  # keep up to 1 GiB of free heap
    return bool(ok)


if os.environ.get("MICROTORCH_MALLOC_TUNING", "1") != "0":
    keep_freed_host_memory()


# ----- NumPy's floating-point warnings ----------------------------------------------
# NumPy warns when an op makes inf or nan ("RuntimeWarning: divide by zero encountered in
# log"), pointing at a line inside microtorch. PyTorch and CuPy say nothing: log(0) = -inf
# is an answer, not an error. So the warnings NumPy raises from microtorch's own modules
# are ignored (a user's own NumPy code still warns); to find where a nan first appears,
# use ``microtorch.autograd.detect_anomaly()``.
warnings.filterwarnings(
    "ignore",
    message="(divide by zero|invalid value|overflow|underflow) encountered",
    category=RuntimeWarning,
    module=r"microtorch(\.|$)",
)


# ----- CUDA kernels and deferred checks ---------------------------------------------
_kernels: dict = {}

# Every CUDA kernel's source, declared at import by the module that uses it, so that a
# test can compile them all with nvcc even on a machine without a GPU.
CUDA_SOURCES: dict = {}


def elementwise_source(name: str, in_params: str, out_params: str, body: str) -> tuple:
    """Declare an elementwise CUDA kernel; returns the arguments for ``elementwise_kernel``."""
    CUDA_SOURCES[name] = ("elementwise", in_params, out_params, body)
    return (name, in_params, out_params, body)


def row_source(source: str, *names: str) -> str:
    """Declare CUDA C++ that defines the row kernels ``names`` (see ``row_kernel``)."""
    for name in names:
        CUDA_SOURCES[name] = ("rows", source)
    return source


def elementwise_kernel(name: str, in_params: str, out_params: str, body: str) -> Any:
    """A CuPy ElementwiseKernel, compiled on first use and cached by name.

    Ops keep their CUDA kernel text next to their NumPy code and get the compiled kernel
    from here, so importing microtorch never needs CuPy."""
    kernel = _kernels.get(name)
    if kernel is None:
        cupy = _load_cupy()
        kernel = cupy.ElementwiseKernel(in_params, out_params, body, name)
        _kernels[name] = kernel
    return kernel


_check_numbers: dict = {}  # (message, error type) -> its number (1, 2, ...), for the flag
_failed_check: dict = {}  # device id -> 0-d device array: the number of a failed check, or 0


def check_on_device(bad: Any, message: str, error: type = IndexError) -> None:
    """Raise ``error(message)`` (IndexError unless told) if the 0-d bool array ``bad`` is true.

    On the CPU this checks at once. On a GPU, reading ``bad`` would stall the host until
    the GPU catches up, so the check stays on the GPU: it folds into one flag there
    (``flag = max(flag, bad * number of this message)``), and the flag is read at the next
    point where the host waits for the GPU anyway (``.item()``, ``.cpu()``,
    ``synchronize()``). An error still surfaces, a few steps late at most, instead of a
    silent wrong answer, and the training loop never waits for the GPU on its account."""
    if isinstance(bad, (numpy.ndarray, numpy.generic, bool)):
        if bool(bad):
            raise error(message)
        return
    number = _check_numbers.setdefault((message, error), len(_check_numbers) + 1)
    failed = bad * number
    device_id = bad.device.id
    flag = _failed_check.get(device_id)
    _failed_check[device_id] = failed if flag is None else xp_of(bad).maximum(flag, failed)


def flush_checks() -> None:
    """Read the GPU-side check flags (see ``check_on_device``); raise for a failed check."""
    while _failed_check:
        _, flag = _failed_check.popitem()
        number = int(flag.get())
        if number:
            message, error = next(key for key, n in _check_numbers.items() if n == number)
            raise error(message)


_CTYPES = {"float32": "float", "float64": "double"}  # the element types kernels are built for


def has_cuda_kernels(array: Any) -> bool:
    """True for a CuPy array of a type microtorch's CUDA kernels are built for (float32,
    float64); other arrays, float16 included, take the ops' array code."""
    return xp_of(array).__name__ == "cupy" and array.dtype.name in _CTYPES


def kernel_dtype(dtype: Any) -> numpy.dtype:
    """``dtype`` if CUDA kernels are built for it, else float32 (compute, then cast)."""
    dtype = numpy.dtype(dtype)
    return dtype if dtype.name in _CTYPES else numpy.dtype("float32")


def row_kernel(name: str, source: str, dtype: Any) -> Any:
    """A CUDA kernel that handles one row per thread block, compiled on first use.

    ``source`` is CUDA C++ written for an element type ``T``; this prepends
    ``typedef float T;`` (or double) and the block-wide reductions ``block_sum`` and
    ``block_max`` that row kernels (softmax, layer norm) share."""
    ctype = _CTYPES.get(numpy.dtype(dtype).name)
    if ctype is None:
        raise TypeError(f"{name}: CUDA row kernels support float32 and float64, got {dtype}")
    key = (name, ctype)
    kernel = _kernels.get(key)
    if kernel is None:
        cupy = _load_cupy()
        kernel = cupy.RawKernel(row_kernel_code(source, ctype), name)
        _kernels[key] = kernel
    return kernel


def row_kernel_code(source: str, ctype: str) -> str:
    """The complete CUDA C++ of a row-kernel source for element type ``ctype``; the
    kernels size their shared buffers with ROW_BLOCK, the launch's threads per block."""
    return f"typedef {ctype} T;\n#define ROW_BLOCK {ROW_BLOCK}\n{_ROW_REDUCTIONS}\n{source}"


ROW_BLOCK = 256  # threads per row; a power of two for the tree reductions below

_ROW_REDUCTIONS = """
// Every thread of the block passes its partial value; every thread gets the total.
__device__ T block_sum(T v, T* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) buf[threadIdx.x] += buf[threadIdx.x + stride];
        __syncthreads();
    }
    T total = buf[0];
    __syncthreads();
    return total;
}

__device__ T block_max(T v, T* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) buf[threadIdx.x] = fmax(buf[threadIdx.x], buf[threadIdx.x + stride]);
        __syncthreads();
    }
    T top = buf[0];
    __syncthreads();
    return top;
}
"""


def launch_rows(kernel: Any, rows: int, args: tuple) -> None:
    """Run a row kernel with one block of ROW_BLOCK threads per row."""
    kernel((rows,), (ROW_BLOCK,), args)
