"""Tensor element types with PyTorch's names (``microtorch.float32``, ``microtorch.long``...)
and PyTorch's promotion rules for mixing them."""

from __future__ import annotations

import builtins
from typing import Any

import numpy


class dtype:
    """One element type; ``.np`` is the matching NumPy dtype (CuPy uses the same ones)."""

    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize")

    def __init__(self, name: str) -> None:
        self.name = name
        self.np = numpy.dtype(name)
        self.is_floating_point = self.np.kind == "f"
        self.is_signed = self.np.kind in "if"
        self.itemsize = self.np.itemsize

    def __repr__(self) -> str:
        return f"microtorch.{self.name}"

    def __reduce__(self) -> tuple:  # dtypes pickle as the shared module-level objects
        return (get_dtype, (self.name,))


float16 = half = dtype("float16")
float32 = float = dtype("float32")
float64 = double = dtype("float64")
uint8 = dtype("uint8")
int8 = dtype("int8")
int16 = short = dtype("int16")
int32 = int = dtype("int32")
int64 = long = dtype("int64")
bool = dtype("bool")

# this module's names shadow the builtins float/int/bool, so keep the Python types here
_py_float, _py_int, _py_bool = builtins.float, builtins.int, builtins.bool

_BY_NUMPY = {d.np: d for d in (float16, float32, float64, uint8, int8, int16, int32, int64, bool)}
_default_float = float32


def get_default_dtype() -> dtype:
    return _default_float


def set_default_dtype(d: dtype) -> None:
    """Set the dtype of tensors made from Python floats (float16, float32 or float64)."""
    global _default_float
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(
            f"set_default_dtype: only floating point dtypes can be the default, got {d}"
        )
    _default_float = d


def from_numpy_dtype(np_dtype: Any) -> dtype:
    """The microtorch dtype for a NumPy dtype, or a clear error if we do not support it."""
    try:
        return _BY_NUMPY[numpy.dtype(np_dtype)]
    except (KeyError, TypeError):
        supported = ", ".join(sorted(d.name for d in _BY_NUMPY.values()))
        raise TypeError(
            f"microtorch has no dtype for {np_dtype!r}; supported: {supported}"
        ) from None


def get_dtype(spec: Any) -> dtype:
    """Accept a microtorch dtype, a NumPy dtype, a Python type or a dtype name. The Python
    type float means float64 (as in PyTorch and NumPy), whatever the default dtype."""
    if isinstance(spec, dtype):
        return spec
    if spec is _py_float:
        return float64
    if spec is _py_int:
        return int64
    if spec is _py_bool:
        return bool
    return from_numpy_dtype(spec)


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """PyTorch's rule for two tensors: bool < integers < floats, and the wider wins within a kind."""
    a, b = type1, type2
    if a is b:
        return a
    a_rank, b_rank = _category(a), _category(b)
    if a_rank != b_rank:
        return a if a_rank > b_rank else b
    return from_numpy_dtype(numpy.promote_types(a.np, b.np))


def can_cast(from_: dtype, to: dtype) -> _py_bool:
    """Whether PyTorch's casting rules allow ``from_`` to ``to`` in ops that write into an
    existing tensor: not floats to integers or bool, not integers to bool."""
    if from_.is_floating_point and not to.is_floating_point:
        return False
    return from_ is bool or to is not bool


def _category(d: dtype) -> _py_int:
    return 2 if d.is_floating_point else (0 if d is bool else 1)


def result_type_with_scalar(d: dtype, scalar: Any) -> dtype:
    """dtype of ``tensor op python_scalar``: the scalar only lifts the kind, never the width."""
    if isinstance(scalar, _py_bool):
        return d
    if isinstance(scalar, _py_int):
        return int64 if d is bool else d
    if isinstance(scalar, _py_float):
        return d if d.is_floating_point else _default_float
    raise TypeError(f"expected a Python number, got {type(scalar).__name__}")


class finfo:
    """The limits of a float dtype, with PyTorch's names: ``finfo(float32).min`` is the most
    negative float32 (a common fill value for masked attention scores)."""

    def __init__(self, type: dtype | None = None) -> None:
        d = _default_float if type is None else get_dtype(type)
        if not d.is_floating_point:
            raise TypeError(f"finfo: {d} is not a floating point dtype; use iinfo")
        info = numpy.finfo(d.np)
        self.dtype, self.bits = d.name, info.bits
        self.eps, self.resolution = _py_float(info.eps), 10.0**-info.precision
        self.max, self.min = _py_float(info.max), _py_float(info.min)
        self.tiny = self.smallest_normal = _py_float(info.smallest_normal)

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution}, min={self.min:e}, max={self.max:e}, "
            f"eps={self.eps:e}, smallest_normal={self.tiny:e}, tiny={self.tiny:e}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """The limits of an integer dtype (``iinfo(int64).max``), with PyTorch's names."""

    def __init__(self, type: dtype) -> None:
        d = get_dtype(type)
        if d.is_floating_point or d is bool:
            raise TypeError(f"iinfo: {d} is not an integer dtype; use finfo for floats")
        info = numpy.iinfo(d.np)
        self.dtype, self.bits = d.name, info.bits
        self.max, self.min = _py_int(info.max), _py_int(info.min)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"
