"""Making tensors: ``tensor``, ``zeros``, ``ones``, ``full``, ``empty``, ``arange``, ``eye``,
``zeros_like``, ``ones_like``, ``from_numpy``... (random ones are in ``random.py``)."""

from __future__ import annotations

import builtins
import ctypes
import math
import numbers
import operator
from typing import Any

import numpy

from . import backend
from . import dtypes as _dtypes
from . import memory_format as _formats
from ._fma import fused_multiply_add
from ._out import factory_target, write_out
from ._tensor import Tensor
from ._warn import warn_user


def _host_array(data: Any, dtype: Any) -> numpy.ndarray:
    """Turn Python data into a numpy array with PyTorch's default dtypes."""
    if isinstance(data, Tensor):
        return backend.to_numpy(data.array)
    if backend.is_array(data):
        array = backend.to_numpy(data)
    else:
        # a list's dtype: each element's own (a tensor's too), promoted together
        list_dtype = _list_dtype(data) if isinstance(data, (list, tuple)) else None
        if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _flat(data)):
            # a list of one-element tensors: their Python values follow the rules below
            if any(isinstance(x, Tensor) and x.numel() != 1 for x in _flat(data)):
                raise ValueError(
                    "tensor: a list of tensors works only when each has one element; to join "
                    "tensors of shape (n, ...) into one, use microtorch.stack(list) or cat(list)"
                )
            data = _nested_map(data, lambda x: x.item() if isinstance(x, Tensor) else x)
        try:
            array = numpy.array(data)
        except ValueError:  # [[1, 2], [3]]: NumPy's message talks about "inhomogeneous" parts
            raise ValueError(
                "tensor: nested lists must be rectangular (every inner list at one depth the "
                "same length); pad them, or build each row separately and use stack"
            ) from None
        wants_float = dtype is not None and _dtypes.get_dtype(dtype).is_floating_point
        if array.dtype.kind in "uO" and not wants_float:  # (NumPy's dtypes for huge ints)
            _check_int64_range(data)
        elif array.dtype == object and wants_float:  # ints beyond uint64, as floats
            array = numpy.array(data, dtype=numpy.float64)
        if isinstance(data, (list, tuple)):
            if dtype is None and array.dtype.kind in "biuf":
                array = array.astype(list_dtype.np)
        elif array.dtype.kind == "f" and dtype is None and not isinstance(data, numpy.generic):
            array = array.astype(_dtypes.get_default_dtype().np)  # a Python float
        elif array.dtype.kind == "i" and not isinstance(data, numpy.generic):
            array = array.astype(numpy.int64)
    if array.dtype.kind in "US":  # text: a TypeError in PyTorch
        raise TypeError(f"tensor: could not make a tensor from {type(data).__name__} data")
    if array.dtype == object:  # None, a set, a generator...: PyTorch's RuntimeError
        raise RuntimeError(
            f"tensor: could not infer a dtype from {type(data).__name__} data; pass numbers, "
            "(nested) lists or tuples of numbers, NumPy arrays or tensors"
        )
    return array


def _check_int64_range(data: Any) -> None:
    """A Python int beyond int64 fits no dtype: ValueError, as in PyTorch (NumPy makes it
    uint64, which would wrap around in int64, or an object array)."""
    for x in _flat(data) if isinstance(data, (list, tuple)) else (data,):
        if type(x) is int and not -(2**63) <= x < 2**63:
            raise ValueError(
                f"tensor: the Python int {x} does not fit int64 (Overflow when unpacking long "
                "long); pass dtype=microtorch.float64 or make it a float"
            )


def _list_dtype(data: list | tuple) -> _dtypes.dtype:
    """PyTorch's dtype for a (nested) list: each element's own (a Python float the default
    float dtype, an int int64, a bool bool, a tensor, NumPy scalar or array its dtype), promoted
    together: ``[numpy.int8(1), numpy.int8(2)]`` is int8, ``[numpy.float16(1), 0.5]``
    float32 (NumPy would say int8 and float64)."""
    found = None
    for x in _flat(data):
        if isinstance(x, Tensor):  # [tensor(1, dtype=int8), tensor(2, dtype=int8)] is int8
            kind = x.dtype
        elif isinstance(x, (numpy.generic, numpy.ndarray)):  # (first: numpy.float64 is a float)
            kind = _dtypes.from_numpy_dtype(x.dtype)
        elif isinstance(x, bool):
            kind = _dtypes.bool
        elif isinstance(x, int):
            kind = _dtypes.int64
        elif isinstance(x, float):
            kind = _dtypes.get_default_dtype()
        else:
            continue
        found = kind if found is None or found is kind else _dtypes.promote_types(found, kind)
    return found if found is not None else _dtypes.get_default_dtype()  # [] is float32


def _flat(data: Any):
    for x in data:
        if isinstance(x, (list, tuple, range)):  # (NumPy takes a range as a sequence too)
            yield from _flat(x)
        else:
            yield x


def _nested_map(data: Any, fn: Any) -> Any:
    if isinstance(data, (list, tuple)):
        return [_nested_map(x, fn) for x in data]
    return fn(data)


def tensor(data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:  # fmt: skip
    """A new tensor holding a copy of ``data`` (nested lists, numbers, numpy arrays, tensors).
    Python floats become float32, ints int64, bools bool; numpy arrays keep their dtype."""
    _formats.check_layout(None, pin_memory, "tensor")
    if isinstance(data, Tensor):
        warn_user(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than microtorch.tensor(sourceTensor)."
        )
    array = _host_array(data, dtype)
    if dtype is not None:
        if not backend.is_array(data) and not isinstance(data, Tensor):
            _check_fits(array, _dtypes.get_dtype(dtype))
        array = array.astype(_dtypes.get_dtype(dtype).np)
    else:
        _dtypes.from_numpy_dtype(array.dtype)  # clear error for unsupported dtypes
    if device is None and backend.get_default_device() == backend.CPU:
        device = _device_of_data(data)  # a tensor or CuPy array stays where it is
    dev = backend.as_device(device)  # None: the default device (set_default_device("cuda"))
    if dev.type == "cpu" and (isinstance(data, numpy.ndarray) or isinstance(data, Tensor)):
        array = array.copy() if array is data or _shares(array, data) else array
    t = Tensor._make(backend.to_device(array, dev))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _check_fits(values: numpy.ndarray, dtype: Any, op: str = "tensor") -> None:
    """Python numbers bound for an integer dtype must fit it, as in PyTorch (an unsigned
    dtype also takes negative ints down to -max, which wrap around, but no negative float:
    -1.5 overflows uint8); NumPy would wrap silently."""
    if dtype.is_floating_point or dtype.np.kind == "b" or values.size == 0:
        return
    info = numpy.iinfo(dtype.np)
    low = -info.max if info.min == 0 and values.dtype.kind != "f" else info.min
    outside = (values < low) | (values > info.max)
    if values.dtype.kind == "f":
        outside |= numpy.isnan(values)  # nan fits no integer (inf is caught above)
    bad = values[outside] if values.dtype.kind in "iuf" else []
    if len(bad):
        raise RuntimeError(
            f"{op}: value {bad.reshape(-1)[0].item()} cannot be converted to type {dtype} "
            "without overflow"
        )


def _shares(array: Any, data: Any) -> bool:
    source = data.array if isinstance(data, Tensor) else data
    return isinstance(source, numpy.ndarray) and numpy.shares_memory(array, source)


def _device_of_data(data: Any) -> Any:
    if isinstance(data, Tensor):
        return data.device
    if backend.is_array(data):
        return backend.device_of(data)
    return None


def as_tensor(data: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, sharing memory where it can (as asarray): a tensor itself, or a
    NumPy/CuPy array of the dtype and device asked for (changes to one show in the other);
    other data, or another dtype or device, is copied."""
    return asarray(data, dtype=dtype, device=device)


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool | None = None) -> Tensor:  # fmt: skip
    """``obj`` as a tensor, sharing its memory where it can: a tensor itself (or ``.to`` the
    dtype/device asked for), a NumPy/CuPy array of the right dtype on its own device; other
    data (lists, numbers) is copied. copy=True always copies (a tensor's copy stays in its
    graph, as clone), copy=False raises ValueError where sharing is impossible."""
    want = None if dtype is None else _dtypes.get_dtype(dtype)
    if isinstance(obj, Tensor) or backend.is_array(obj):
        t = obj if isinstance(obj, Tensor) else Tensor._make(obj)
        _dtypes.from_numpy_dtype(t.array.dtype)  # clear error for unsupported dtypes
        dev = t.device if device is None else backend.as_device(device)
        changes = (want is not None and want is not t.dtype) or dev != t.device
        if changes and copy is False:
            raise ValueError(
                f"asarray: can't alias {t.dtype} on {t.device} into {want or t.dtype} on {dev} "
                "(copy=False); pass copy=None to allow a copy"
            )
        out = t.to(device=dev, dtype=want or t.dtype) if changes else t
        out = out.clone() if copy and out is t else out
    else:
        if copy is False:
            raise ValueError("asarray: can't alias arbitrary sequence into a tensor (copy=False)")
        out = tensor(obj, dtype=want, device=device)
    if requires_grad:
        out.requires_grad_(True)
    elif requires_grad is False and out.requires_grad:
        out = out.detach()
    return out


def from_numpy(array: numpy.ndarray) -> Tensor:
    """A CPU tensor sharing memory with ``array`` (changes to one show in the other)."""
    if not isinstance(array, numpy.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(array).__name__}")
    _dtypes.from_numpy_dtype(array.dtype)
    return Tensor._make(array)


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:  # fmt: skip
    """A 1-D CPU tensor of ``count`` elements (-1: all) read from ``buffer`` (bytearray,
    array.array, memoryview...) after ``offset`` bytes, sharing its memory."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("frombuffer: object does not implement Python buffer protocol.") from None
    target = _dtypes.get_dtype(dtype).np
    length, size = view.nbytes, target.itemsize
    if length == 0 or count == 0:
        raise ValueError(
            f"frombuffer: both buffer length ({length}) and count ({count}) must not be 0"
        )
    if not 0 <= offset < length:
        raise ValueError(
            f"frombuffer: offset ({offset} bytes) must be non-negative and no greater than "
            f"buffer length ({length} bytes) minus 1"
        )
    if count < 0:
        if (length - offset) % size:
            raise ValueError(
                f"frombuffer: buffer length ({length - offset} bytes) after offset ({offset} "
                f"bytes) must be a multiple of element size ({size})"
            )
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(
            f"frombuffer: requested buffer length ({count} * {size} bytes) after offset "
            f"({offset} bytes) must not be greater than actual buffer length ({length} bytes)"
        )
    array = numpy.frombuffer(view.cast("B"), dtype=target, count=count, offset=offset)
    if not array.flags.writeable:  # bytes: NumPy will not write into it, so take a copy
        warn_user(
            "frombuffer: the given buffer is not writable, so microtorch copied it (PyTorch "
            "would share it and let writes through the tensor change it)"
        )
        array = array.copy()
    t = Tensor._make(array)
    if requires_grad:
        t.requires_grad_(True)
    return t


def from_file(filename: str, shared: bool | None = None, size: int = 0, *, dtype: Any = None,
              layout: Any = None, device: Any = None, pin_memory: bool = False,
              requires_grad: bool = False) -> Tensor:  # fmt: skip
    """A 1-D CPU tensor of ``size`` elements mapped from a file: with ``shared`` writes go
    to the file (which grows to fit), without it they stay private to the tensor."""
    _formats.check_layout(layout, pin_memory, "from_file")
    target = (_dtypes.get_default_dtype() if dtype is None else _dtypes.get_dtype(dtype)).np
    if backend.as_device(device).type != "cpu":
        raise RuntimeError("from_file: only CPU tensors can be mapped to files")
    nbytes = size * target.itemsize
    if size < 0:
        raise RuntimeError(f"from_file: unable to map {nbytes} bytes from file <{filename}>")
    try:
        if shared:
            with open(filename, "ab") as f:  # creates it if needed; grown to the size below
                if f.tell() < nbytes:
                    f.truncate(nbytes)
        with open(filename, "rb") as f:
            found = f.seek(0, 2)
    except OSError as error:
        raise RuntimeError(f"from_file: unable to open file <{filename}>: {error}") from None
    if found < nbytes:
        raise RuntimeError(
            f"from_file: file <{filename}> size <{found}> is smaller than the required mapping "
            f"size <{nbytes}>"
        )
    if size == 0:  # (a file cannot be mapped with no bytes)
        t = Tensor._make(numpy.empty(0, dtype=target))
    else:
        mapped = numpy.memmap(filename, dtype=target, mode="r+" if shared else "c", shape=(size,))
        t = Tensor._make(mapped.view(numpy.ndarray))  # (a plain array; the map stays its base)
    return t.requires_grad_(True) if requires_grad else t


def from_dlpack(ext_tensor: Any, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """A tensor sharing memory with any DLPack producer (a numpy/cupy array, a torch tensor)
    or with a DLPack capsule (``microtorch.utils.dlpack.to_dlpack``'s); with ``device`` it
    is moved there (a copy when that is another device), and copy=True always copies
    (copy=False refuses to, as in PyTorch, where a move would be needed)."""
    obj = ext_tensor
    if type(obj).__name__ == "PyCapsule":
        obj = _Capsule(obj)
    device_type = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else 1
    if int(device_type) == 2:  # kDLCUDA
        xp = backend.xp_for(backend.device("cuda"))
    else:
        xp = numpy
    t = Tensor._make(xp.from_dlpack(obj))
    if device is not None and backend.as_device(device) != t.device:
        if copy is False:
            raise ValueError(
                f"from_dlpack: copy=False, but the tensor is on {t.device}, not {device}: "
                "moving it needs a copy"
            )
        return t.to(device)
    return t.clone() if copy else t


class _Capsule:
    """A bare DLPack capsule, as an object NumPy's and CuPy's from_dlpack take: its device
    is read from the C struct the capsule points to (DLPack's layout)."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **_: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        get_name = ctypes.pythonapi.PyCapsule_GetName
        get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
        name = get_name(self.capsule)
        get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
        get_pointer.restype, get_pointer.argtypes = (
            ctypes.c_void_p,
            [ctypes.py_object, ctypes.c_char_p],
        )
        struct = get_pointer(self.capsule, name)
        # the DLTensor opens DLManagedTensor; DLManagedTensorVersioned has a version, two
        # pointers and flags (32 bytes) before it; its device (two int32) follows the data
        # pointer
        start = struct + (32 if name == b"dltensor_versioned" else 0) + 8
        device = (ctypes.c_int32 * 2).from_address(start)
        return int(device[0]), int(device[1])


def _size(size: tuple, keyword: Any = None, *, op: str) -> tuple:
    """The shape from f(2, 3), f((2, 3)) or PyTorch's keyword form f(size=(2, 3))."""
    if keyword is not None:
        size = (keyword,)
    elif not size:  # zeros() is an error in PyTorch; zeros(()) is the 0-d tensor
        raise TypeError(f'{op}() missing 1 required positional arguments: "size"')
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    shape = whole_numbers(size, op)
    if builtins.any(n < 0 for n in shape):
        raise RuntimeError(f"{op}(): dimension sizes must be non-negative, got {shape}")
    return shape


def whole_numbers(sizes: Any, op: str, name: str = "size") -> tuple:
    """``sizes`` as a tuple of Python ints: each a Python or NumPy int or a one-element
    integer tensor. A float is an error, not a silently truncated size; so is a bool first
    (PyTorch's parser tells an int list by its first element: zeros(True) and zeros((True,
    2)) are its TypeError, while zeros(2, True) is (2, 1) there)."""
    out = []
    for pos, n in enumerate(sizes):
        try:
            if pos == 0 and isinstance(n, builtins.bool):
                raise TypeError
            out.append(operator.index(n))
        except TypeError:
            raise TypeError(
                f"{op}(): argument '{name}' must be a tuple of ints, but found element of type "
                f"{type(n).__name__} at pos {pos} ({name} {tuple(sizes)})"
            ) from None
    return tuple(out)


def _make(fill: str, size: tuple, dtype: Any, device: Any, requires_grad: bool, value: Any = None):
    dev = backend.as_device(device)
    xp = backend.xp_for(dev)
    np_dtype = (_dtypes.get_default_dtype() if dtype is None else _dtypes.get_dtype(dtype)).np
    if fill == "full":
        array = xp.full(size, value, dtype=np_dtype)
    else:
        array = getattr(xp, fill)(size, dtype=np_dtype)
    t = Tensor._make(array)
    if requires_grad:
        t.requires_grad_(True)
    return t


def zeros(*shape: Any, size: Any = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False, out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """zeros(2, 3), zeros((2, 3)) or zeros(size=(2, 3))."""
    _formats.check_layout(layout, pin_memory, "zeros")
    dtype, device = factory_target(dtype, device, out, "zeros")
    return write_out(
        _make("zeros", _size(shape, size, op="zeros"), dtype, device, requires_grad), out, "zeros"
    )


def ones(*shape: Any, size: Any = None, dtype: Any = None, device: Any = None,
         requires_grad: bool = False, out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """ones(2, 3), ones((2, 3)) or ones(size=(2, 3))."""
    _formats.check_layout(layout, pin_memory, "ones")
    dtype, device = factory_target(dtype, device, out, "ones")
    return write_out(
        _make("ones", _size(shape, size, op="ones"), dtype, device, requires_grad), out, "ones"
    )


def empty(*shape: Any, size: Any = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False, memory_format: Any = _formats.contiguous_format,
          out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """empty(2, 3), empty((2, 3)) or empty(size=(2, 3)); ``memory_format=channels_last``
    lays an (N, C, H, W) batch out with the channels innermost (None: contiguous_format)."""
    _formats.check_layout(layout, pin_memory, "empty")
    dtype, device = factory_target(dtype, device, out, "empty")
    t = _make("empty", _size(shape, size, op="empty"), dtype, device, requires_grad)
    if memory_format is not None and memory_format is not _formats.contiguous_format:
        t.array = _formats.arranged(t.array, memory_format, "empty")
    return write_out(t, out, "empty")


def empty_strided(size: Any, stride: Any, *, dtype: Any = None, layout: Any = None,
                  device: Any = None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:  # fmt: skip
    """An uninitialised tensor of shape ``size`` whose elements lie ``stride`` elements apart
    in memory along each dim (a view of just enough fresh memory)."""
    _formats.check_layout(layout, pin_memory, "empty_strided")
    shape = _size((size,), op="empty_strided")
    steps = whole_numbers(stride, "empty_strided", "stride")
    if len(steps) != len(shape):
        raise RuntimeError(
            f"empty_strided: mismatch in length of strides and shape: size {list(shape)}, "
            f"stride {list(steps)}"
        )
    if builtins.any(s < 0 for s in steps):
        raise RuntimeError(f"empty_strided: strides must be non-negative, got {list(steps)}")
    needed = 0 if 0 in shape else 1 + builtins.sum((n - 1) * s for n, s in zip(shape, steps))
    memory = _make("zeros", (needed,), dtype, device, False).array
    xp = backend.xp_of(memory)
    array = xp.lib.stride_tricks.as_strided(
        memory, shape, tuple(s * memory.itemsize for s in steps)
    )
    t = Tensor._make(array)
    return t.requires_grad_(True) if requires_grad else t


def empty_permuted(size: Any, physical_layout: Any, *, dtype: Any = None, layout: Any = None,
                   device: Any = None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:  # fmt: skip
    """An uninitialised tensor of shape ``size`` laid out in memory with its dims in the
    order ``physical_layout`` (outermost first): empty_permuted((2, 3, 4), (0, 2, 1)) has
    strides (12, 1, 3)."""
    _formats.check_layout(layout, pin_memory, "empty_permuted")
    shape = _size((size,), op="empty_permuted")
    order = whole_numbers(physical_layout, "empty_permuted", "physical_layout")
    if sorted(order) != list(range(len(shape))):
        raise RuntimeError(
            f"empty_permuted: physical_layout {list(order)} must hold each dim of size "
            f"{list(shape)} once (Duplicate dim not allowed)"
        )
    t = empty(tuple(shape[d] for d in order), dtype=dtype, device=device)
    t = t.permute(tuple(sorted(range(len(order)), key=order.__getitem__)))  # to size's order
    return t.requires_grad_(True) if requires_grad else t


def full(size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
         requires_grad: bool = False, out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """A tensor of shape ``size`` filled with ``fill_value``. Without a dtype, as in PyTorch:
    bool for a bool (or bool tensor), int64 for an integer (Python, NumPy or tensor), else
    the default float. A value the dtype cannot hold raises (-1 in uint8 wraps to 255)."""
    _formats.check_layout(layout, pin_memory, "full")
    _check_fill_number(fill_value, "full")
    dtype, device = factory_target(dtype, device, out, "full")
    kind = fill_value.dtype if isinstance(fill_value, Tensor) else None
    if dtype is None:
        if isinstance(fill_value, bool) or kind is _dtypes.bool:
            dtype = _dtypes.bool
        elif isinstance(fill_value, (int, numpy.integer)) or (kind and kind.np.kind in "iu"):
            dtype = _dtypes.int64
    target = _dtypes.get_default_dtype() if dtype is None else _dtypes.get_dtype(dtype)
    value = numpy.array(fill_value.item() if kind else fill_value)
    _check_fits(value, target, "full")
    value = value.astype(target.np).item()  # (a Python number: no host array on a GPU)
    return write_out(
        _make("full", _size((size,), op="full"), target, device, requires_grad, value), out, "full"
    )


def scalar_tensor(s: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                  requires_grad: bool = False, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """A 0-d tensor holding the number s, in the default float dtype unless given (even for
    an int or a bool, as in PyTorch)."""
    _formats.check_layout(layout, pin_memory, "scalar_tensor")
    if isinstance(s, Tensor):
        s = s.item()
    target = _dtypes.get_default_dtype() if dtype is None else dtype
    return full((), s, dtype=target, device=device, requires_grad=requires_grad)


def _like(fn: Any, input: Tensor, dtype: Any, device: Any, requires_grad: bool, *extra: Any,
          memory_format: Any = _formats.preserve_format, layout: Any = None,
          pin_memory: bool = False, **options: Any) -> Tensor:  # fmt: skip
    """fn(*extra, **options) in input's dtype and on its device unless given, laid out as
    memory_format says (randn_like passes its generator= in options)."""
    _formats.check_layout(layout, pin_memory, fn.__name__ + "_like")
    t = fn(*extra, dtype=dtype or input.dtype, device=device or input.device,
           requires_grad=requires_grad, **options)  # fmt: skip
    return laid_out_as(t, input, memory_format, fn.__name__ + "_like")


def laid_out_as(t: Tensor, input: Tensor, memory_format: Any, op: str) -> Tensor:
    """``t`` (a new tensor of input's shape) laid out in memory as ``memory_format`` says:
    preserve_format (the *_like default, as in PyTorch; None means it too) follows input's
    strides."""
    if memory_format is None or memory_format is _formats.preserve_format:
        t.array = _formats.like_strides(t.array, input.array)
    elif memory_format is not _formats.contiguous_format:
        t.array = _formats.arranged(t.array, memory_format, op)
    else:
        _formats.dims_order(memory_format, t.ndim, op)  # (checks it is a memory format)
    return t


def zeros_like(input: Tensor, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False,
               memory_format: Any = _formats.preserve_format, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    return _like(zeros, input, dtype, device, requires_grad, tuple(input.shape),
                 memory_format=memory_format, layout=layout, pin_memory=pin_memory)  # fmt: skip


def ones_like(input: Tensor, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False,
              memory_format: Any = _formats.preserve_format, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    return _like(ones, input, dtype, device, requires_grad, tuple(input.shape),
                 memory_format=memory_format, layout=layout, pin_memory=pin_memory)  # fmt: skip


def empty_like(input: Tensor, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False,
               memory_format: Any = _formats.preserve_format, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    return _like(empty, input, dtype, device, requires_grad, tuple(input.shape),
                 memory_format=memory_format, layout=layout, pin_memory=pin_memory)  # fmt: skip


def _check_fill_number(fill_value: Any, op: str) -> None:
    """A fill value that is not a number (text, None...) is a TypeError, as PyTorch's argument
    parser raises (not NumPy's ValueError for "a", nor a nan for None)."""
    if not isinstance(fill_value, (numbers.Number, numpy.number, numpy.bool_, Tensor)):
        raise TypeError(
            f"{op}(): argument 'fill_value' must be Number, not {type(fill_value).__name__}"
        )


def full_like(input: Tensor, fill_value: Any, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False,
              memory_format: Any = _formats.preserve_format, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    _formats.check_layout(layout, pin_memory, "full_like")
    _check_fill_number(fill_value, "full_like")
    t = full(tuple(input.shape), fill_value, dtype=dtype or input.dtype,
             device=device or input.device, requires_grad=requires_grad)  # fmt: skip
    return laid_out_as(t, input, memory_format, "full_like")


def arange(start: Any = None, end: Any = None, step: Any = 1, *, dtype: Any = None,
           device: Any = None, requires_grad: bool = False, out: Any = None,
           layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """Values from start (default 0) up to, not including, end; int64 when all are ints.
    arange(5), arange(2, 5), arange(0, 1, 0.25) or arange(end=5)."""
    _formats.check_layout(layout, pin_memory, "arange")
    dtype, device = factory_target(dtype, device, out, "arange")
    if start is None and end is None:
        raise TypeError("arange() missing its end argument: arange(end), arange(start, end)")
    if end is None:
        start, end = 0, start
    elif start is None:
        start = 0
    # a 0-d tensor or NumPy number counts as the Python number it holds
    start, end, step = [_plain(v) for v in (start, end, step)]
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"arange: unsupported range: {start} -> {end}; both must be finite")
    if step == 0 or (end - start) * step < 0:
        raise RuntimeError(
            f"arange: start {start}, end {end} and step {step} give no range (the step must be "
            "non-zero and have the sign of end - start)"
        )
    if dtype is None:
        all_int = all(isinstance(v, int) for v in (start, end, step))
        dtype = _dtypes.int64 if all_int else _dtypes.get_default_dtype()
    target = _dtypes.get_dtype(dtype)
    if target.is_floating_point:  # start + i * step in float64, then rounded, as PyTorch does
        host = numpy.arange(start, end, step, dtype=numpy.float64).astype(target.np)
    else:  # PyTorch truncates start, end and step to integers first (toward zero)
        if int(step) == 0:
            raise ValueError(
                f"arange: with the integer dtype {target} the step {step} truncates to 0 (step "
                "must be nonzero); use a float dtype or a step of at least 1"
            )
        start, end, step = int(start), int(end), int(step)
        host = numpy.arange(start, end, step, dtype=target.np)
    t = Tensor._make(backend.to_device(host, backend.as_device(device)))
    if requires_grad:
        t.requires_grad_(True)
    return write_out(t, out, "arange")


def linspace(start: Any, end: Any, steps: int, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False, out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """``steps`` evenly spaced values from start to end, both included."""
    _formats.check_layout(layout, pin_memory, "linspace")
    dtype, device = factory_target(dtype, device, out, "linspace")
    host = _linspace_values(start, end, steps, dtype)
    return write_out(_placed(host, dtype, device, requires_grad), out, "linspace")


def logspace(
    start: Any,
    end: Any,
    steps: int,
    base: float = 10.0,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    out: Any = None,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """``steps`` values evenly spaced on a log scale: base ** v for v = linspace(start, end)."""
    _formats.check_layout(layout, pin_memory, "logspace")
    dtype, device = factory_target(dtype, device, out, "logspace")
    host = float(_plain(base)) ** _evenly_spaced(start, end, steps, dtype, "logspace")
    return write_out(_placed(host, dtype, device, requires_grad), out, "logspace")


def _evenly_spaced(start: Any, end: Any, steps: Any, dtype: Any, op: str) -> numpy.ndarray:
    """logspace's exponents in float64 on the host (``dtype`` is applied after). For an
    integer dtype PyTorch first truncates start and end to integers, then steps from both
    ends (start + i * step in the first half, end - (steps - 1 - i) * step in the second)."""
    _check_steps(start, end, steps, op)
    start, end, steps = _plain(start), _plain(end), int(steps)
    if dtype is None or _dtypes.get_dtype(dtype).is_floating_point or steps == 1:
        return numpy.linspace(start, end, steps, dtype=numpy.float64)
    start, end = int(start), int(end)
    step = (end - start) / (steps - 1)
    i = numpy.arange(steps, dtype=numpy.float64)
    return numpy.where(i < steps // 2, start + step * i, end - step * (steps - 1 - i))


def _check_steps(start: Any, end: Any, steps: Any, op: str) -> None:
    """linspace's and logspace's argument checks: an int number of steps, 0-d start and end."""
    if isinstance(steps, bool) or not isinstance(steps, (int, numpy.integer)):
        raise TypeError(f"{op}(): argument 'steps' must be an int, got {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError(f"{op}(): number of steps must be non-negative, got {steps}")
    for name, value in (("start", start), ("end", end)):
        if isinstance(value, Tensor) and value.ndim != 0:
            raise RuntimeError(
                f"{op} only supports 0-dimensional start and end tensors, but got {name} of "
                f"shape {tuple(value.shape)}; pass a number or a 0-d tensor"
            )


def _linspace_values(start: Any, end: Any, steps: Any, dtype: Any) -> numpy.ndarray:
    """linspace's values on the host, bit for bit as PyTorch computes them: the first half
    start + step * i and the second half end - step * (steps - 1 - i), so both ends are
    exact and the values symmetric, with step = (end - start) / (steps - 1). In the
    result's float dtype, each value rounded once (a fused multiply-add); float16 rounds
    the product and then the sum; an integer dtype truncates start and end first and
    computes in float64."""
    _check_steps(start, end, steps, "linspace")
    target = (_dtypes.get_default_dtype() if dtype is None else _dtypes.get_dtype(dtype)).np.type
    if numpy.issubdtype(target, numpy.floating):
        work = target
    else:
        work = numpy.float64  # start and end as the integer dtype holds them (wrapped)
        start, end = (numpy.array(int(_plain(v))).astype(target) for v in (start, end))
    first, last = work(_plain(start)), work(_plain(end))
    if steps <= 1:
        return numpy.full(int(steps), first, dtype=target)
    step = (last - first) / work(steps - 1)
    i = numpy.arange(int(steps), dtype=work)
    if work == numpy.float16:
        up, down = first + step * i, last - step * (steps - 1 - i)
    else:
        up = fused_multiply_add(numpy.float64(step), i.astype(numpy.float64), numpy.float64(first))
        down = fused_multiply_add(-numpy.float64(step), steps - 1 - i.astype(numpy.float64),
                                   numpy.float64(last))  # fmt: skip
    return numpy.where(i < steps // 2, up, down).astype(work)


def _plain(value: Any) -> Any:
    """A 0-d tensor or NumPy number as the Python number it holds."""
    return value.item() if isinstance(value, (Tensor, numpy.generic)) else value


def _placed(host: numpy.ndarray, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    """A new tensor from host values: in ``dtype`` (the default float if None), on ``device``."""
    target = _dtypes.get_default_dtype() if dtype is None else _dtypes.get_dtype(dtype)
    t = Tensor._make(backend.to_device(host.astype(target.np), backend.as_device(device)))
    if requires_grad:
        t.requires_grad_(True)
    return t


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: Any = None,
        requires_grad: bool = False, out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """The n x m (n x n) matrix with ones on the diagonal and zeros elsewhere."""
    _formats.check_layout(layout, pin_memory, "eye")
    dtype, device = factory_target(dtype, device, out, "eye")
    for name, size in (("n", n), ("m", m)):
        if size is not None and operator.index(size) < 0:
            raise RuntimeError(f"eye(): {name} must be greater or equal to 0, got {size}")
    dev = backend.as_device(device)
    np_dtype = (_dtypes.get_default_dtype() if dtype is None else _dtypes.get_dtype(dtype)).np
    t = Tensor._make(backend.xp_for(dev).eye(n, m, dtype=np_dtype))
    if requires_grad:
        t.requires_grad_(True)
    return write_out(t, out, "eye")
