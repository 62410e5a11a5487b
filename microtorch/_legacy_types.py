"""PyTorch's legacy tensor types, torch.FloatTensor, torch.LongTensor...: calling one makes a
CPU tensor of its dtype (FloatTensor(2, 3) of that size, uninitialised; FloatTensor([1, 2])
from data), and ``isinstance(t, FloatTensor)`` holds exactly for CPU float32 tensors, as in
PyTorch. They are classes with no instances of their own: LegacyTensorType, their metaclass,
answers both."""

from __future__ import annotations

import builtins
from typing import Any

from . import backend
from . import dtypes as _dtypes
from ._tensor import Size, Tensor


def legacy_new(args: tuple, dtype: _dtypes.dtype, device: Any, op: str) -> Tensor:
    """PyTorch's legacy constructor, shared by FloatTensor(...) and Tensor.new(...): sizes
    (ints, or one Size) give an uninitialised tensor, no arguments an empty one, a tensor of
    this dtype and device an alias of it, anything else data to copy."""
    from . import factories

    sizes = args[0] if len(args) == 1 and isinstance(args[0], Size) else args
    if builtins.all(isinstance(n, builtins.int) and not isinstance(n, builtins.bool)
                    for n in sizes):  # fmt: skip
        return factories.empty(tuple(sizes) or (0,), dtype=dtype, device=device)  # (): 0 elements
    if len(args) > 1:
        raise TypeError(f"{op}(): give either sizes (all ints) or one sequence of data, got {args}")
    data = args[0]
    if isinstance(data, Tensor):  # the same tensor, seen through a new one (an alias)
        if data.dtype is not dtype or data.device != backend.as_device(device):
            raise TypeError(
                f"{op}(): expected a tensor of dtype {dtype} on {device}, got one of dtype "
                f"{data.dtype} on {data.device}; convert it with .to(...)"
            )
        return data.view(data.shape)
    if isinstance(data, (builtins.int, builtins.float, builtins.bool)):
        raise TypeError(
            f"{op}(): a single number is neither sizes nor data; write {op}([{data}]) for a "
            "tensor holding it"
        )
    return factories.tensor(data, dtype=dtype, device=device)


class LegacyTensorType(type):
    """The type of FloatTensor and the others: each has a ``dtype`` and lives on the CPU."""

    dtype: _dtypes.dtype
    is_cuda = False

    def __instancecheck__(cls, obj: Any) -> builtins.bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and not obj.is_cuda

    def __call__(cls, *args: Any) -> Tensor:
        return legacy_new(args, cls.dtype, "cpu", cls.__name__)

    def __repr__(cls) -> str:
        return f"<class 'microtorch.{cls.__name__}'>"


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
    _dtypes.set_default_dtype(t.dtype)
    if on_cuda:
        backend.set_default_device("cuda")
