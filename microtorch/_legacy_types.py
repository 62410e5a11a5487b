"""PyTorch's legacy tensor types, torch.FloatTensor, torch.LongTensor...: calling one makes a
CPU tensor of its dtype (FloatTensor(2, 3) of that size, uninitialised; FloatTensor([1, 2])
from data), and ``isinstance(t, FloatTensor)`` holds exactly for CPU float32 tensors, as in
PyTorch. They are classes with no instances of their own: LegacyTensorType, their metaclass,
answers both. CudaLegacyTensorType does the same for torch.cuda.FloatTensor... (in
microtorch/_cuda_legacy_types.py): CUDA tensors, refused where CUDA is not available."""

from __future__ import annotations

import builtins
import numbers
from typing import Any

from . import backend
from . import dtypes as _dtypes
from ._tensor import Size, Tensor


def _is_size(n: Any, among_several: builtins.bool) -> builtins.bool:
    """Whether the legacy constructors read ``n`` as a size: an int (a NumPy one too); a bool
    only among several sizes (Tensor(2, True) is (2, 1) in PyTorch, Tensor(True) an error)."""
    if isinstance(n, builtins.bool):
        return among_several
    return isinstance(n, numbers.Integral)


def legacy_new(args: tuple, dtype: _dtypes.dtype | None, device: Any, op: str,
               given_device: Any = None) -> Tensor:  # fmt: skip
    """PyTorch's legacy constructor, shared by FloatTensor(...), Tensor(...) and
    Tensor.new(...): sizes (ints, or one Size) give an uninitialised tensor, no arguments an
    empty one, a tensor of this dtype and device an alias of it (of any dtype when ``dtype``
    is None: Tensor(...)'s, whose data is then in the default dtype), a sequence or array
    data to copy. A ``device=`` given must be of the constructor's own type (Tensor's: the
    default device's)."""
    from . import factories

    if given_device is not None:  # (device None: the default device's type)
        expected = backend.as_device(None).type if device is None else backend.device(device).type
        given = backend.device(given_device).type
        if given != expected:
            raise RuntimeError(
                f"{op}(): legacy constructor expects device type: {expected} but device type: "
                f"{given} was passed; use microtorch.tensor(data, device=...) or .to(device)"
            )
    sizes = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args
    if builtins.all(_is_size(n, len(sizes) > 1) for n in sizes):  # (): 0 elements
        shape = tuple(builtins.int(n) for n in sizes) or (0,)
        return factories.empty(shape, dtype=dtype or _dtypes.get_default_dtype(), device=device)
    if len(args) > 1:
        raise TypeError(f"{op}(): give either sizes (all ints) or one sequence of data, got {args}")
    data = args[0]
    if isinstance(data, Tensor):  # the same tensor, seen through a new one (an alias)
        if dtype is not None and (
            data.dtype is not dtype or data.device != backend.as_device(device)
        ):
            raise TypeError(
                f"{op}(): expected a tensor of dtype {dtype} on {device}, got one of dtype "
                f"{data.dtype} on {data.device}; convert it with .to(...)"
            )
        return data.view(data.shape)
    if isinstance(data, numbers.Number):
        raise TypeError(
            f"{op}(): data must be a sequence (got {type(data).__name__}); a single number is "
            f"neither sizes nor data: write {op}([{data}]) for a tensor holding it"
        )
    return factories.tensor(data, dtype=dtype or _dtypes.get_default_dtype(), device=device)


class LegacyTensorType(type):
    """The type of FloatTensor and the others: each has a ``dtype`` and lives on the CPU."""

    dtype: _dtypes.dtype
    is_cuda = False

    def __instancecheck__(cls, obj: Any) -> builtins.bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.is_cuda is cls.is_cuda

    def __call__(cls, *args: Any, device: Any = None) -> Tensor:
        return legacy_new(args, cls.dtype, "cpu", cls.__name__, device)

    def __repr__(cls) -> str:
        return f"<class 'microtorch.{cls.__name__}'>"


class CudaLegacyTensorType(LegacyTensorType):
    """The type of microtorch.cuda.FloatTensor and the others: CUDA tensors of a dtype."""

    is_cuda = True

    def __call__(cls, *args: Any, device: Any = None) -> Tensor:
        if not backend.cuda_is_available():
            raise TypeError(
                f"type microtorch.cuda.{cls.__name__} not available: CUDA is not available "
                "(microtorch needs CuPy and a GPU for it)"
            )
        return legacy_new(args, cls.dtype, "cuda", f"cuda.{cls.__name__}", device)

    def __repr__(cls) -> str:
        return f"<class 'microtorch.cuda.{cls.__name__}'>"


class FloatTensor(metaclass=LegacyTensorType):
    """CPU float32 tensors."""

    dtype = _dtypes.float32


class DoubleTensor(metaclass=LegacyTensorType):
    """CPU float64 tensors."""

    dtype = _dtypes.float64


class HalfTensor(metaclass=LegacyTensorType):
    """CPU float16 tensors."""

    dtype = _dtypes.float16


class LongTensor(metaclass=LegacyTensorType):
    """CPU int64 tensors."""

    dtype = _dtypes.int64


class IntTensor(metaclass=LegacyTensorType):
    """CPU int32 tensors."""

    dtype = _dtypes.int32


class ShortTensor(metaclass=LegacyTensorType):
    """CPU int16 tensors."""

    dtype = _dtypes.int16


class CharTensor(metaclass=LegacyTensorType):
    """CPU int8 tensors."""

    dtype = _dtypes.int8


class ByteTensor(metaclass=LegacyTensorType):
    """CPU uint8 tensors."""

    dtype = _dtypes.uint8


class BoolTensor(metaclass=LegacyTensorType):
    """CPU bool tensors."""

    dtype = _dtypes.bool


_LEGACY_TYPES = {
    cls.__name__: cls
    for cls in (
        FloatTensor,
        DoubleTensor,
        HalfTensor,
        LongTensor,
        IntTensor,
        ShortTensor,
        CharTensor,
        ByteTensor,
        BoolTensor,
    )  # fmt: skip
}


def set_default_tensor_type(t: Any, /) -> None:
    """Deprecated: set the default dtype from a legacy type (FloatTensor, DoubleTensor,
    HalfTensor, or their names "torch.DoubleTensor"...; "torch.cuda.FloatTensor" also makes
    CUDA the default device). Use set_default_dtype and set_default_device instead."""
    from ._warn import warn_user

    warn_user(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives."
    )
    on_cuda = False
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module not in ("torch", "microtorch", "torch.cuda", "microtorch.cuda"):
            raise TypeError(f"set_default_tensor_type: unknown tensor type name {t!r}")
        if name not in _LEGACY_TYPES:
            raise AttributeError(f"module '{module}' has no attribute '{name}'")
        on_cuda, t = module.endswith("cuda"), _LEGACY_TYPES[name]
        if on_cuda and not backend.cuda_is_available():
            raise TypeError(f"type {module}.{name} not available: CUDA is not available")
    if not isinstance(t, LegacyTensorType) or not t.dtype.is_floating_point:
        raise TypeError(
            "invalid type object: only floating-point types are supported as the default type"
        )
    if t.is_cuda and not on_cuda:  # (set_default_tensor_type(microtorch.cuda.FloatTensor))
        if not backend.cuda_is_available():
            raise TypeError(
                f"type microtorch.cuda.{t.__name__} not available: CUDA is not available"
            )
        on_cuda = True
    _dtypes.set_default_dtype(t.dtype)
    if on_cuda:
        backend.set_default_device("cuda")
