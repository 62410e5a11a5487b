"""A stand-in for CuPy that runs on the CPU: microtorch's CUDA code paths, tested without a GPU.

    MICROTORCH_TEST_DEVICE=fakecuda pytest

runs every test that takes the ``device`` fixture on ``"cuda"``, with this module installed
as ``cupy`` (``install()``). microtorch cannot tell it from CuPy, so its CUDA branches run:
the fused kernels (executed on the CPU by ``kernels.py``, which compiles their CUDA C++ as
host C++), the deferred index checks, the device moves. The arrays hold their numbers in
NumPy, but behave the way CuPy's do where the difference would hide a bug:

- ``FakeArray`` is not a ``numpy.ndarray``. Handing one to NumPy implicitly
  (``numpy.asarray(x)``, ``numpy_array + x``) raises CuPy's TypeError, and so does handing
  a NumPy array to a CuPy function, operator or kernel (except the host-to-device copies
  ``cupy.array`` / ``cupy.asarray``).
- Reductions and scalar indexing give 0-d arrays, not Python or NumPy scalars.
- Integer index arrays past the end wrap around instead of raising, as CuPy's do (read
  and write: CuPy's documentation of ``ndarray.__getitem__`` / ``__setitem__``).
- float32 matrix products round differently from NumPy's (see ``_matmul``), as a GPU's do.
- Each operand that CuPy's ``matmul`` would first copy into a contiguous array (see
  ``_matmul``) is recorded, so a test can check which copies a training step makes
  (``count_matmul_copies()``).
- Every place where real CuPy makes the host wait for the GPU (``.get()``, ``.item()``,
  ``bool(x)``, ``float(x)``, printing, boolean-mask indexing, ``nonzero``) adds one to
  ``host_syncs``, so a test can prove a training step has none (``count_host_syncs()``).

What it cannot show: speed, real GPU memory, most of CuPy's own bugs and limits (it does copy
those of the ufunc methods ``at``, ``reduce``, ``accumulate`` and ``reduceat``: see
``_Ufunc``), or asynchronous execution (everything here runs at once, in order). The real check is ``benchmarks/gpu_check.sh``
on a GPU machine.
"""

from __future__ import annotations

import builtins
import collections
import contextlib
import operator
import sys
import time
import types
from collections.abc import Iterator
from typing import Any

import numpy

__version__ = "0.0-fake"
host_syncs = 0  # how many times the host would have waited for the GPU
kernel_launches: collections.Counter = collections.Counter()  # microtorch's kernels, by name
matmul_copies: list = []  # (shape, nbytes) of each operand matmul copied to contiguous first


def _host_sync() -> None:
    global host_syncs
    host_syncs += 1


@contextlib.contextmanager
def count_host_syncs() -> Iterator[list]:
    """``with count_host_syncs() as syncs: ...`` then ``syncs[0]`` is the number inside."""
    start = host_syncs
    result = [0]
    try:
        yield result
    finally:
        result[0] = host_syncs - start


@contextlib.contextmanager
def count_kernel_launches() -> Iterator[collections.Counter]:
    """``with count_kernel_launches() as launched: ...`` then ``launched`` maps each
    ElementwiseKernel / RawKernel name to the number of its launches inside."""
    start = kernel_launches.copy()
    result: collections.Counter = collections.Counter()
    try:
        yield result
    finally:
        result.update(kernel_launches - start)


@contextlib.contextmanager
def count_matmul_copies() -> Iterator[list]:
    """``with count_matmul_copies() as copies: ...`` then ``copies`` lists (shape, nbytes) of
    every operand that CuPy's matmul would have copied to a contiguous array inside."""
    start = len(matmul_copies)
    result: list = []
    try:
        yield result
    finally:
        result.extend(matmul_copies[start:])


def _refuse_host_array(where: str) -> TypeError:
    return TypeError(
        f"fake cupy: {where} got a numpy.ndarray; CuPy refuses host arrays here "
        "(move it with cupy.asarray first)"
    )


def _unwrap(value: Any, where: str) -> Any:
    """FakeArray -> its NumPy array, inside tuples and lists too; a NumPy array is an error."""
    if isinstance(value, FakeArray):
        return value._a
    if isinstance(value, numpy.ndarray):
        raise _refuse_host_array(where)
    if isinstance(value, (tuple, list)):
        return type(value)(_unwrap(v, where) for v in value)
    if isinstance(value, dict):  # keyword arguments, e.g. out=
        return {k: _unwrap(v, where) for k, v in value.items()}
    return value


def _wrap(value: Any) -> Any:
    """NumPy results -> FakeArrays; NumPy scalars become 0-d arrays, as CuPy returns."""
    if isinstance(value, numpy.ndarray):
        return FakeArray(value)
    if isinstance(value, numpy.generic):
        return FakeArray(numpy.asarray(value))
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class _Device:
    """``cupy.cuda.Device``: one fake GPU, number 0."""

    def __init__(self, device: int | None = None) -> None:
        self.id = 0 if device is None else int(device)
        if self.id != 0:
            raise RuntimeError(f"fake cupy: there is one fake GPU (0), not {self.id}")
        self.compute_capability = "90"

    def __enter__(self) -> _Device:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def synchronize(self) -> None:
        _host_sync()

    def use(self) -> None:
        return None


_KDLCUDA, _KDLCPU = 2, 1  # DLPack's device type codes


class _HostView:
    """A DLPack producer that says "CPU", so that NumPy will read a fake device capsule."""

    def __init__(self, producer: Any) -> None:
        self.producer = producer

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self.producer.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> tuple:
        return (_KDLCPU, 0)


class _MemoryPointer:
    def __init__(self, array: numpy.ndarray) -> None:
        self.ptr = array.ctypes.data
        self.mem = _Memory(array)


class _Memory:
    """``MemoryPointer.mem``: the allocation an array lies in (``ptr``: where it starts),
    the same for every view of it, as_strided's included, as in CuPy."""

    def __init__(self, array: numpy.ndarray) -> None:
        while True:  # (NumPy's as_strided makes a wrapper whose base is its input)
            base = array.base
            if not isinstance(base, numpy.ndarray):
                base = getattr(base, "base", None)
            if not isinstance(base, numpy.ndarray):
                break
            array = base
        self.ptr = array.ctypes.data


class FakeArray:
    """``cupy.ndarray`` stand-in: a NumPy array that does not let itself be used as one."""

    __slots__ = ("_a",)
    __array_priority__ = 100.0

    def __init__(self, array: numpy.ndarray) -> None:
        self._a = array

    # ----- what an array is ---------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    strides = property(lambda self: self._a.strides)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: FakeArray(self._a.T))
    base = property(lambda self: None if self._a.base is None else _wrap(self._a.base))
    device = property(lambda self: _Device(0))
    data = property(lambda self: _MemoryPointer(self._a))

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self) -> Iterator[FakeArray]:
        for row in self._a:
            yield _wrap(row)

    def __getattr__(self, name: str) -> Any:
        """Array methods (reshape, sum, astype, ...): run on the NumPy array, results wrapped."""
        if name.startswith("__"):  # __array_interface__ and co. would let NumPy read it
            raise AttributeError(name)
        method = getattr(self._a, name)
        if not callable(method):
            return _wrap(method)

        def call(*args: Any, **kwargs: Any) -> Any:
            where = f"ndarray.{name}"
            return _wrap(method(*_unwrap(args, where), **_unwrap(kwargs, where)))

        return call

    # ----- the host waits for the GPU -----------------------------------------------
    def get(self, stream: Any = None, order: str = "C", out: Any = None) -> numpy.ndarray:
        _host_sync()
        if out is not None:
            out[...] = self._a
            return out
        return numpy.array(self._a, order=order)

    # (and item, tolist, bool(), float(), repr(), ...: _HOST_READS below)

    # ----- NumPy must not take it for one of its own --------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> numpy.ndarray:
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. "
            "Please use `.get()` to construct a NumPy array explicitly."
        )

    def __array_ufunc__(self, ufunc: numpy.ufunc, method: str, *inputs: Any, **kwargs: Any):
        """``numpy.exp(x)`` on a CuPy array runs CuPy's own exp; a NumPy operand is refused."""
        where = f"numpy.{ufunc.__name__}"
        out = kwargs.get("out")
        result = getattr(ufunc, method)(*_unwrap(inputs, where), **_unwrap(kwargs, where))
        if out is not None:
            return out[0] if isinstance(out, tuple) and len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        where = f"numpy.{func.__name__}"
        return _wrap(func(*_unwrap(args, where), **_unwrap(kwargs, where)))

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self._a.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> tuple:
        return (_KDLCUDA, 0)  # what a CuPy array reports; its capsule really holds host memory

    # ----- indexing -----------------------------------------------------------------
    def __getitem__(self, index: Any) -> Any:
        index = _index(index)
        if _has_mask(index):
            _host_sync()  # the result's size depends on the mask's contents
        index = _wrap_around(index, self._a.shape)
        out = self._a[index]
        if isinstance(out, numpy.generic):  # ints only: CuPy gives a 0-d view, not a copy
            out = self._a[(index if isinstance(index, tuple) else (index,)) + (Ellipsis,)]
        return _wrap(out)

    def __setitem__(self, index: Any, value: Any) -> None:
        index = _wrap_around(_index(index), self._a.shape)
        self._a[index] = _unwrap(value, "ndarray.__setitem__")

    def __copy__(self) -> FakeArray:
        return FakeArray(self._a.copy())

    def __deepcopy__(self, memo: dict) -> FakeArray:
        return FakeArray(self._a.copy())


def _index(index: Any) -> Any:
    """An index with FakeArrays unwrapped (CuPy also takes lists and NumPy index arrays)."""
    if isinstance(index, FakeArray):
        return index._a
    if isinstance(index, tuple):
        return tuple(_index(i) for i in index)
    return index


def _wrap_around(index: Any, shape: tuple) -> Any:
    """CuPy does not check integer index arrays: an index past the end wraps around (NumPy
    would raise IndexError). Reproduced here so that microtorch's own range checks, which
    on a GPU report later, are what catches a bad index, as on a GPU."""
    parts = list(index) if isinstance(index, tuple) else [index]
    if any(p is Ellipsis for p in parts):
        at = next(k for k, p in enumerate(parts) if p is Ellipsis)
        used = sum(1 for p in parts if p is not None and p is not Ellipsis)
        parts[at : at + 1] = [slice(None)] * (len(shape) - used)
    axis = 0
    for k, part in enumerate(parts):
        if part is None:
            continue
        if isinstance(part, numpy.ndarray) and part.dtype.kind in "iu" and axis < len(shape):
            parts[k] = part % shape[axis] if shape[axis] else part
        axis += part.ndim if isinstance(part, numpy.ndarray) and part.dtype == bool else 1
    if isinstance(index, tuple) or not parts:  # (a[...] of a 0-d array: parts is empty)
        return tuple(parts)
    return parts[0]


def _has_mask(index: Any) -> bool:
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, numpy.ndarray) and p.dtype == bool and p.ndim > 0 for p in parts)


def _operator(op: Any, name: str, reflected: bool = False) -> Any:
    def method(self: FakeArray, other: Any) -> Any:
        other = _unwrap(other, f"ndarray.{name}")
        return _wrap(op(other, self._a) if reflected else op(self._a, other))

    method.__name__ = name
    return method


def _inplace(op: Any, name: str) -> Any:
    def method(self: FakeArray, other: Any) -> FakeArray:
        op(self._a, _unwrap(other, f"ndarray.{name}"))  # NumPy's in-place op writes self._a
        return self

    method.__name__ = name
    return method


class _RoutinesLinalg:
    """``cupy._core._routines_linalg``: the compute type of float32 products (CuPy's switch
    behind CUPY_TF32), as far as microtorch uses it."""

    COMPUTE_TYPE_DEFAULT, COMPUTE_TYPE_TF32 = 1, 7
    compute_type = COMPUTE_TYPE_DEFAULT

    @classmethod
    def set_compute_type(cls, dtype: Any, compute_type: int) -> None:
        assert numpy.dtype(dtype) == numpy.float32, "only float32 has a TF32 compute type"
        cls.compute_type = compute_type


_routines_linalg = _RoutinesLinalg
_core = types.SimpleNamespace(_routines_linalg=_routines_linalg)


def _round_to_tf32(x: numpy.ndarray) -> numpy.ndarray:
    """float32 with the low 13 of its 23 mantissa bits rounded off (to nearest)."""
    bits = numpy.ascontiguousarray(x).view(numpy.uint32)
    return ((bits + numpy.uint32(0x1000)) & numpy.uint32(0xFFFFE000)).view(numpy.float32)


def _matmul(a: Any, b: Any, out: Any = None) -> Any:
    """NumPy's matmul, except that float32 products are summed in float64 and rounded once.

    A GPU's matrix products do not round like the CPU's BLAS; giving the fake's float32
    products different last bits too makes a test that expects CPU and CUDA results to be
    bit-identical fail here, as it would on a GPU.

    It also records the operands CuPy 14 copies before calling cuBLAS
    (``cupy/_core/_routines_linalg.pyx``): a batched product (either operand over 2-D)
    makes each operand C-contiguous in the result dtype, so a transposed view is copied;
    a 2-D product takes C- or F-contiguous matrices (a transpose) as they are.

    With the float32 compute type set to TF32 (``_core._routines_linalg``), a 2-D float32
    product rounds its inputs to TF32's 10 mantissa bits first, as the GPU's tensor cores
    do; batched products stay in float32, as CuPy's do."""
    batched = max(a.ndim, b.ndim) > 2
    result_dtype = numpy.promote_types(a.dtype, b.dtype)
    for x in (a, b):
        if batched:
            copied = not x.flags.c_contiguous or x.dtype != result_dtype
        else:
            copied = not (x.flags.c_contiguous or x.flags.f_contiguous)
        if copied:
            matmul_copies.append((x.shape, x.size * result_dtype.itemsize))
    if a.dtype == numpy.float32 and b.dtype == numpy.float32:
        if not batched and _routines_linalg.compute_type == _routines_linalg.COMPUTE_TYPE_TF32:
            a, b = _round_to_tf32(a), _round_to_tf32(b)
        result = numpy.matmul(a.astype(numpy.float64), b.astype(numpy.float64)).astype(
            numpy.float32
        )
        if out is None:
            return result
        out[...] = result
        return out
    return numpy.matmul(a, b, out=out)


_BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
    "pow": operator.pow, "matmul": _matmul, "and": operator.and_,
    "or": operator.or_, "xor": operator.xor, "lshift": operator.lshift,
    "rshift": operator.rshift,
}  # fmt: skip
_INPLACE = {
    "add": operator.iadd, "sub": operator.isub, "mul": operator.imul,
    "truediv": operator.itruediv, "floordiv": operator.ifloordiv, "mod": operator.imod,
    "pow": operator.ipow, "matmul": operator.imatmul, "and": operator.iand,
    "or": operator.ior, "xor": operator.ixor,
}  # fmt: skip
# Reading a value on the host: each waits for the GPU (counted), then reads the NumPy array.
_HOST_READS = {
    "item": lambda a, *args: a.item(*args), "tolist": lambda a: a.tolist(),
    "__bool__": bool, "__float__": float, "__int__": int, "__index__": operator.index,
    "__complex__": complex, "__repr__": repr, "__str__": str, "__format__": format,
}  # fmt: skip


def _host_read(read: Any, name: str) -> Any:
    def method(self: FakeArray, *args: Any) -> Any:
        _host_sync()
        return read(self._a, *args)

    method.__name__ = name
    return method


for _name, _read in _HOST_READS.items():
    setattr(FakeArray, _name, _host_read(_read, _name))
for _name, _op in _BINARY.items():
    setattr(FakeArray, f"__{_name}__", _operator(_op, f"__{_name}__"))
    setattr(FakeArray, f"__r{_name}__", _operator(_op, f"__r{_name}__", reflected=True))
for _name, _op in _INPLACE.items():
    setattr(FakeArray, f"__i{_name}__", _inplace(_op, f"__i{_name}__"))
for _name in ("lt", "le", "eq", "ne", "gt", "ge"):
    setattr(FakeArray, f"__{_name}__", _operator(getattr(operator, _name), f"__{_name}__"))
for _name in ("neg", "pos", "abs", "invert"):
    setattr(FakeArray, f"__{_name}__", lambda self, _f=getattr(operator, _name): _wrap(_f(self._a)))
FakeArray.__hash__ = None  # type: ignore[assignment]

ndarray = FakeArray


# ----- module functions: NumPy's, with CuPy's rules about host arrays -------------------
# the dtypes CuPy 14's ufunc.at takes (cupy/_core/_routines_indexing.pyx, _scatter_op_single)
_CUPY_AT_DTYPES = {
    "add": ("int32", "int64", "float16", "float32", "float64", "uint32", "uint64"),
    "subtract": ("int32", "uint32"),
    "maximum": ("int32", "int64", "float32", "float64", "uint32", "uint64"),
    "minimum": ("int32", "int64", "float32", "float64", "uint32", "uint64"),
    "bitwise_and": ("int32", "int64", "uint32", "uint64"),
    "bitwise_or": ("int32", "int64", "uint32", "uint64"),
    "bitwise_xor": ("int32", "int64", "uint32", "uint64"),
}


class _Ufunc:
    """``cupy.add`` and friends: callable, with ``.at``, ``.reduce``, ``.reduceat``, ..."""

    def __init__(self, ufunc: numpy.ufunc) -> None:
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._run(self._ufunc, args, kwargs)

    def _run(self, fn: Any, args: tuple, kwargs: dict) -> Any:
        where = f"cupy.{self.__name__}"
        out = kwargs.get("out")
        result = fn(*_unwrap(args, where), **_unwrap(kwargs, where))
        if isinstance(out, FakeArray):
            return out
        return _wrap(result)

    def at(self, a: FakeArray, indices: Any, b: Any = None) -> None:
        """The scatter (``add.at``); its index may hold NumPy arrays, as CuPy's may.

        As CuPy 14's, it takes only the dtypes in ``_CUPY_AT_DTYPES`` (TypeError otherwise),
        and float ``maximum.at``/``minimum.at`` compare through float32 and skip NaN: CuPy
        builds them on ``fmaxf``/``fminf``, so a float64 result is rounded to float32."""
        where = f"cupy.{self.__name__}.at"
        allowed = _CUPY_AT_DTYPES.get(self.__name__)
        if allowed is None:
            raise NotImplementedError(f"`{self.__name__}.at` is not supported yet")
        target = _unwrap(a, where)
        if target.dtype.name not in allowed:
            raise TypeError(
                f"cupy.{self.__name__}.at only supports {', '.join(allowed)} as data type"
            )
        index = _index(indices)
        values = 0 if b is None else _unwrap(b, where)
        if self.__name__ in ("maximum", "minimum") and target.dtype.kind == "f":
            as_fmaxf = numpy.fmax if self.__name__ == "maximum" else numpy.fmin
            rounded = target.astype(numpy.float32)
            as_fmaxf.at(rounded, index, numpy.asarray(values).astype(numpy.float32))
            touched = numpy.zeros(target.shape, dtype=bool)
            touched[index] = True
            target[touched] = rounded[touched]
            return
        self._ufunc.at(target, index, values)

    def __getattr__(self, name: str) -> Any:  # reduce, accumulate, reduceat, outer
        supported = {"reduce": ("add", "multiply"), "accumulate": ("add", "multiply")}
        supported["reduceat"] = ("add",)  # CuPy 14's ufunc methods (cupy/_core/_kernel.pyx)
        if self.__name__ not in supported.get(name, (self.__name__,)):
            raise NotImplementedError(f"`{self.__name__}.{name}` is not supported yet")
        fn = getattr(self._ufunc, name)
        if not callable(fn):
            return fn
        return lambda *args, **kwargs: self._run(fn, args, kwargs)


def _function(name: str, fn: Any) -> Any:
    where = f"cupy.{name}"

    def call(*args: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        result = fn(*_unwrap(args, where), **_unwrap(kwargs, where))
        if isinstance(out, FakeArray):
            return out
        return _wrap(result)

    call.__name__ = name
    return call


def array(obj: Any, dtype: Any = None, copy: bool = True, order: str = "K", ndmin: int = 0):
    """Host -> device: always a copy unless ``obj`` already is a device array."""
    if isinstance(obj, FakeArray):
        return FakeArray(numpy.array(obj._a, dtype=dtype, copy=copy, order=order, ndmin=ndmin))
    return FakeArray(numpy.array(obj, dtype=dtype, copy=True, order=order, ndmin=ndmin))


def asarray(obj: Any, dtype: Any = None, order: Any = None) -> FakeArray:
    if isinstance(obj, FakeArray):
        return FakeArray(numpy.asarray(obj._a, dtype=dtype, order=order))
    return FakeArray(numpy.array(obj, dtype=dtype, order=order or "K", copy=True))


asanyarray = asarray


def asnumpy(obj: Any, stream: Any = None, order: str = "C", out: Any = None) -> numpy.ndarray:
    if isinstance(obj, FakeArray):
        return obj.get(stream=stream, order=order, out=out)
    return numpy.asarray(obj, order=order)


def from_dlpack(obj: Any) -> FakeArray:
    """Shares memory with a (fake) device array or tensor; host producers are refused, as
    CuPy refuses them."""
    if int(obj.__dlpack_device__()[0]) != _KDLCUDA:
        raise TypeError(f"fake cupy: from_dlpack got a host producer ({type(obj).__name__})")
    return FakeArray(numpy.from_dlpack(_HostView(obj)))


def take_along_axis(a: FakeArray, indices: FakeArray, axis: int) -> FakeArray:
    """CuPy's take_along_axis indexes, so its indices wrap around too (see _wrap_around)."""
    a, indices = _unwrap(a, "cupy.take_along_axis"), _unwrap(indices, "cupy.take_along_axis")
    n = a.shape[axis] if a.ndim else 1
    return _wrap(numpy.take_along_axis(a, indices % n if n else indices, axis=axis))


def take(a: FakeArray, indices: Any, axis: int | None = None, out: Any = None) -> FakeArray:
    a, indices = _unwrap(a, "cupy.take"), _index(indices)
    n = a.size if axis is None else a.shape[axis]
    wrapped = numpy.asarray(indices) % n if n else indices
    return _wrap(numpy.take(a, wrapped, axis=axis, out=_unwrap(out, "cupy.take")))


def get_array_module(*args: Any) -> Any:
    return sys.modules["cupy"] if any(isinstance(a, FakeArray) for a in args) else numpy


def nonzero(a: FakeArray) -> tuple:
    _host_sync()  # the number of results depends on the contents
    return _wrap(numpy.nonzero(_unwrap(a, "cupy.nonzero")))


def flatnonzero(a: FakeArray) -> FakeArray:
    _host_sync()
    return _wrap(numpy.flatnonzero(_unwrap(a, "cupy.flatnonzero")))


def ElementwiseKernel(in_params: str, out_params: str, operation: str, name: str = "kernel",
                      **options: Any) -> Any:  # fmt: skip
    from . import kernels

    kernel = kernels.ElementwiseKernel(in_params, out_params, operation, name)

    def launch(*args: Any, size: int | None = None) -> Any:
        kernel_launches[name] += 1
        return _wrap(kernel(*_unwrap(args, f"ElementwiseKernel {name}"), size=size))

    return launch


def RawKernel(code: str, name: str, **options: Any) -> Any:
    from . import kernels

    kernel = kernels.RawKernel(code, name)

    def launch(grid: tuple, block: tuple, args: tuple, shared_mem: int = 0) -> None:
        kernel_launches[name] += 1
        kernel(grid, block, _unwrap(tuple(args), f"RawKernel {name}"), shared_mem=shared_mem)

    return launch


class _MemoryPool:
    def used_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return 0

    def free_all_blocks(self) -> None:
        return None


_POOL = _MemoryPool()


def get_default_memory_pool() -> _MemoryPool:
    return _POOL


class _Runtime:
    @staticmethod
    def getDeviceCount() -> int:  # noqa: N802 (CuPy's name)
        return 1

    @staticmethod
    def runtimeGetVersion() -> int:  # noqa: N802 (CuPy's name)
        return 12040  # CUDA 12.4, as 1000 * major + 10 * minor

    @staticmethod
    def memGetInfo() -> tuple[int, int]:  # noqa: N802 (CuPy's name)
        return 0, 0  # (free, total) bytes: the fake has no memory of its own

    @staticmethod
    def getDeviceProperties(device: int) -> dict:  # noqa: N802 (CuPy's name)
        if device != 0:
            raise RuntimeError(f"fake cupy: no GPU {device} (there is one, GPU 0)")
        return {"name": b"fake GPU (tests/fake_cupy)", "totalGlobalMem": 0}


class _Event:
    """``cupy.cuda.Event``: the host's clock when recorded (the fake GPU's work is done by
    then)."""

    def __init__(self, block: bool = False, disable_timing: bool = False,
                 interprocess: bool = False) -> None:  # fmt: skip
        self.disable_timing = disable_timing
        self.time: float | None = None

    def record(self, stream: Any = None) -> None:
        self.time = time.perf_counter()

    def synchronize(self) -> None:
        _host_sync()

    @property
    def done(self) -> bool:
        return True


def _get_elapsed_time(start: _Event, end: _Event) -> float:
    """``cupy.cuda.get_elapsed_time``: milliseconds between two recorded events."""
    if start.disable_timing or end.disable_timing or start.time is None or end.time is None:
        raise RuntimeError("fake cupy: both events must be recorded, with timing enabled")
    return (end.time - start.time) * 1000.0


class _Cuda:
    runtime = _Runtime()
    Device = _Device
    Event = _Event
    get_elapsed_time = staticmethod(_get_elapsed_time)

    @staticmethod
    def get_current_stream() -> Any:
        return None


cuda = _Cuda()


class _Random:
    """``cupy.random``: the few functions benchmarks use (microtorch itself draws on the host)."""

    _generator = numpy.random.default_rng(0)

    def seed(self, seed: int | None = None) -> None:
        _Random._generator = numpy.random.default_rng(seed)

    def standard_normal(self, size: Any = None, dtype: Any = float) -> FakeArray:
        return FakeArray(numpy.asarray(self._generator.standard_normal(size), dtype=dtype))

    def random(self, size: Any = None, dtype: Any = float) -> FakeArray:
        return FakeArray(numpy.asarray(self._generator.random(size), dtype=dtype))


random = _Random()


class _StrideTricks:
    as_strided = staticmethod(_function("lib.stride_tricks.as_strided",
                                        numpy.lib.stride_tricks.as_strided))  # fmt: skip


class _Lib:
    """``cupy.lib``: ``stride_tricks.as_strided`` (a view with new strides), as CuPy has it."""

    stride_tricks = _StrideTricks()


lib = _Lib()


def __getattr__(name: str) -> Any:
    """Everything else is NumPy's: dtypes and constants as they are, functions wrapped."""
    target = getattr(numpy, name)
    if name == "matmul":
        wrapped = _function(name, _matmul)
    elif isinstance(target, numpy.ufunc):
        wrapped = _Ufunc(target)
    elif isinstance(target, type) or not callable(target):
        return target
    else:
        wrapped = _function(name, target)
    if name not in vars(builtins):  # (a cached "any" or "all" would shadow the builtin here)
        globals()[name] = wrapped
    return wrapped


def install() -> None:
    """Make ``import cupy`` give this module (call before microtorch first uses CUDA)."""
    module = sys.modules[__name__]
    module.__name__ = "cupy"  # microtorch asks ``xp.__name__ == "cupy"``
    sys.modules["cupy"] = module
