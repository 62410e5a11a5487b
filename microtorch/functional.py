"""The tensor functions users call (``microtorch.add``, ``microtorch.sum``, ``x.reshape``...).

Each function checks its arguments (and says which op, shapes, dtypes and devices when
something is wrong), applies PyTorch's dtype rules, and then calls one op's
``Function.apply``. The ops themselves, forward next to backward, are in ``ops/``.
"""

from __future__ import annotations

import builtins
import collections
import functools
import math
import numbers
import operator
import string
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from . import backend, return_types
from . import dtypes as _dtypes
from . import memory_format as _formats
from ._dim_given import NO_DIM, given_dim
from ._out import write_out
from ._tensor import Size, Tensor
from ._warn import warn_user
from .amp import autocast_mode
from .amp.autocast_mode import autocast_inputs
from .autograd import engine, grad_mode
from .autograd.function import Function
from .factories import _check_fits, whole_numbers
from .ops import arithmetic, elementwise, indexing, linalg, reduction
from .ops import shape as shape_ops
from .ops import softmax as _softmax

_Number = (int, float, bool)


# ---------------------------------------------------------------- argument helpers
def wrap_dim(dim: int, ndim: int, op: str) -> int:
    """Turn a possibly negative dim into 0..ndim-1, or explain why it is out of range."""
    low, high = -builtins.max(ndim, 1), builtins.max(ndim, 1) - 1
    if isinstance(dim, bool):  # an int to Python, not to PyTorch's parser
        raise TypeError(f"{op}(): argument 'dim' must be int, not bool")
    if not isinstance(dim, int):
        try:
            dim = operator.index(dim)  # a NumPy int is fine, a float is not
        except TypeError:
            raise TypeError(f"{op}: dim must be an int, got {type(dim).__name__} {dim!r}") from None
    if not low <= dim <= high:
        raise IndexError(
            f"{op}: dimension {dim} is out of range for a tensor of {ndim} dims "
            f"(expected to be in range of [{low}, {high}])"
        )
    return dim % builtins.max(ndim, 1) if ndim else 0


def _dims(dim: Any, ndim: int, op: str) -> tuple | None:
    """The sorted axes a reduction's ``dim`` names, or None for all of them: dim=None, and
    also dim=() as in PyTorch (except for any and all, which pass () on themselves)."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return None
    if isinstance(dim, (tuple, list)):
        axes = tuple(sorted(wrap_dim(d, ndim, op) for d in dim))
        for a, b in zip(axes, axes[1:]):
            if a == b:
                raise RuntimeError(f"{op}: dim {a} appears multiple times in the list of dims")
    else:
        axes = (wrap_dim(dim, ndim, op),)
    return axes if ndim else ()  # a 0-d tensor accepts dim 0 or -1 but has no axis to reduce


def _check_tensor(x: Any, op: str, name: str = "input") -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: argument '{name}' must be a Tensor, not {type(x).__name__}")
    return x


def as_tensor_like(value: Any, like: Tensor) -> Tensor:
    """A constant tensor on ``like``'s device (for a list or numpy value mixed with a tensor)."""
    if isinstance(value, Tensor):
        return value
    from .factories import tensor

    return tensor(value, device=like.device)


def _plain_number(x: Any) -> Any:
    """A NumPy number (numpy.float64, numpy.int64...) as the Python number it holds: in NumPy
    math numpy.float64 would widen a float32 array to float64, and as a NumPy int it would
    count as a 0-d tensor (bool_tensor * numpy.int32(2) would be int32, not int64); as a
    plain number it adapts to the tensor's dtype, as PyTorch treats it."""
    return x.item() if isinstance(x, numpy.number) else x


def _number_argument(value: Any, op: str, name: str) -> Any:
    """A number argument (alpha=, value=, eps=, rtol=...) as a Python number: as in PyTorch,
    a Python or NumPy number or a 0-d tensor; anything else (a list, a tensor with dims)
    is a TypeError naming the op and the argument."""
    if isinstance(value, Tensor) and value.ndim == 0:
        return value.item()
    value = _plain_number(value)
    if not isinstance(value, _Number):
        raise TypeError(f"{op}: {name} must be a number, got {type(value).__name__}")
    return value


def _wrapped_into(number: Any, dtype: Any) -> Any:
    """A Python int too big for a small integer dtype wraps around, as in PyTorch
    (int8_tensor * 200 multiplies by -56); NumPy would raise OverflowError instead."""
    if type(number) is not builtins.int or dtype.np.kind not in "iu":
        return number
    info = numpy.iinfo(dtype.np)
    if info.min <= number <= info.max:
        return number
    return numpy.array(number).astype(dtype.np)[()]  # (a NumPy scalar of that dtype)


def _fitted_number(value: Any, dtype: Any, op: str) -> Any:
    """A Python number about to be written into a tensor, as PyTorch does it: one beyond the
    dtype raises RuntimeError (for a float dtype: a finite number beyond its largest, 1e39
    into float32); into an integer dtype a small negative one in an unsigned dtype wraps
    around (-3 is 253 in uint8) and a float is truncated (NumPy would raise OverflowError)."""
    if not isinstance(value, _Number):
        return value
    if dtype.np.kind == "f":
        infinite = isinstance(value, float) and not math.isfinite(value)  # (inf, nan: fine)
        if not infinite and builtins.abs(value) > numpy.finfo(dtype.np).max:
            raise RuntimeError(
                f"{op}: value {value} cannot be converted to type {dtype} without overflow "
                "(it is beyond the dtype's largest finite number)"
            )
        return value
    if dtype.np.kind not in "iu":
        return value
    values = numpy.array(value)
    _check_fits(values, dtype, op)
    return values.astype(dtype.np).item()


def _binary_operands(a: Any, b: Any, op: str) -> tuple:
    """Bring two operands to one dtype by PyTorch's rules. Python numbers stay numbers (they
    adapt to the tensor's dtype); tensors of different dtypes are cast to the common one."""
    # The common cases first, where nothing needs converting: two tensors of one dtype, or
    # a float tensor with a Python float or int (which takes the tensor's dtype).
    if isinstance(a, Tensor):
        if isinstance(b, Tensor):
            if a.array.dtype == b.array.dtype:
                if a.array.shape != b.array.shape:
                    _check_broadcast(a.array.shape, b.array.shape, op)
                return a, b
        elif (type(b) is float or type(b) is int) and a.array.dtype.kind == "f":
            return a, b
    elif (
        (type(a) is float or type(a) is int) and isinstance(b, Tensor) and b.array.dtype.kind == "f"
    ):
        return a, b
    a, b = _plain_number(a), _plain_number(b)
    if isinstance(a, _Number) and isinstance(b, Tensor):
        target = _dtypes.result_type_with_scalar(b.dtype, a)
        return _wrapped_into(a, target), (b if target is b.dtype else cast(b, target))
    if isinstance(b, _Number) and isinstance(a, Tensor):
        target = _dtypes.result_type_with_scalar(a.dtype, b)
        return (a if target is a.dtype else cast(a, target)), _wrapped_into(b, target)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError(
            f"{op}: expected at least one Tensor, got {type(a).__name__} and {type(b).__name__}"
        )
    for x in (a, b):
        if not isinstance(x, (Tensor, list, tuple, *_Number)) and not hasattr(x, "dtype"):
            raise TypeError(
                f"{op}: unsupported operand types {type(a).__name__} and {type(b).__name__} "
                "(expected Tensors or Python numbers)"
            )
    a = as_tensor_like(a, b if isinstance(b, Tensor) else a)
    b = as_tensor_like(b, a)
    if a.array.dtype != b.array.dtype:
        target = _promote_tensors(a, b)
        a, b = cast(a, target), cast(b, target)
    _check_broadcast(a.array.shape, b.array.shape, op)
    return a, b


def result_type(tensor: Any, other: Any) -> _dtypes.dtype:
    """The dtype of an arithmetic op on two operands (tensors or numbers; PyTorch's tensor=
    and other=), by PyTorch's rules: a 0-d tensor beside one with dims, and a number beside
    any tensor, lift the kind (bool < int < float) but never the width."""
    a, b = (x.item() if isinstance(x, numpy.generic) else x for x in (tensor, other))
    for x in (a, b):
        if not isinstance(x, (Tensor, *_Number)):
            raise TypeError(
                f"result_type: expected Tensors or Python numbers, got {type(x).__name__}"
            )
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return _promote_tensors(a, b)
    if isinstance(b, Tensor):
        a, b = b, a  # (the rule is symmetric)
    if isinstance(a, Tensor):
        return _dtypes.result_type_with_scalar(a.dtype, b)
    # two numbers: the first one's own dtype (bool, int64, the default float), lifted by b
    return _dtypes.result_type_with_scalar(_dtypes.result_type_with_scalar(_dtypes.bool, a), b)


def _promote_tensors(*tensors: Tensor) -> _dtypes.dtype:
    """PyTorch's rule: a 0-d tensor mixed with tensors that have dims acts like a Python
    number (it lifts the kind, bool < int < float, but never the width), so
    ``float32_vector * float64_scalar_tensor`` stays float32."""
    dimensioned = [t.dtype for t in tensors if t.ndim]
    zero_d = [t.dtype for t in tensors if not t.ndim]
    if not dimensioned or not zero_d:
        return functools.reduce(_dtypes.promote_types, dimensioned or zero_d)
    wide, narrow = (functools.reduce(_dtypes.promote_types, d) for d in (dimensioned, zero_d))
    return narrow if _dtypes._category(narrow) > _dtypes._category(wide) else wide


def _check_broadcast(s1: tuple, s2: tuple, op: str) -> None:
    for x, y in zip(reversed(s1), reversed(s2)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"{op}: shapes {tuple(s1)} and {tuple(s2)} cannot be broadcast together "
                f"({x} != {y} and neither is 1)"
            )


def _float_operands(a: Any, b: Any, op: str) -> tuple:
    """Like _binary_operands, then integer results become the default float (true division).
    An integer tensor beside a Python number is made float first, so that the number keeps
    its value (uint8_tensor / -3 divides by -3, not by -3 wrapped into uint8, 253)."""
    if isinstance(a, Tensor) and isinstance(b, _Number) and a.array.dtype.kind in "biu":
        a = cast(a, _dtypes.get_default_dtype())
    elif isinstance(b, Tensor) and isinstance(a, _Number) and b.array.dtype.kind in "biu":
        b = cast(b, _dtypes.get_default_dtype())
    a, b = _binary_operands(a, b, op)
    t = a if isinstance(a, Tensor) else b
    if not t.dtype.is_floating_point:
        target = _dtypes.get_default_dtype()
        a = cast(a, target) if isinstance(a, Tensor) else a
        b = cast(b, target) if isinstance(b, Tensor) else b
    return a, b


# ---------------------------------------------------------------- arithmetic
def add(input: Any, other: Any, *, alpha: Any = 1, out: Any = None) -> Tensor:
    """input + alpha * other, in the dtype input and other promote to."""
    a, b = _binary_operands(input, other, "add")
    return write_out(arithmetic.Add.apply(a, _times_alpha(a, b, alpha, "add")), out, "add")


def sub(input: Any, other: Any, *, alpha: Any = 1, out: Any = None) -> Tensor:
    """input - alpha * other, in the dtype input and other promote to."""
    if _is_bool(input) or _is_bool(other):
        raise RuntimeError(
            "sub: subtraction, the `-` operator, with a bool tensor is not supported; to invert "
            "a mask use the `~` operator or logical_not()"
        )
    a, b = _binary_operands(input, other, "sub")
    return write_out(arithmetic.Sub.apply(a, _times_alpha(a, b, alpha, "sub")), out, "sub")


def _times_alpha(a: Any, b: Any, alpha: Any, op: str) -> Any:
    """alpha * b for add/sub, after promotion, kept in the promoted dtype as PyTorch does:
    add(int32_tensor, bool_tensor, alpha=2) stays int32 and add(t, 2, alpha=3) adds 6."""
    if alpha.__class__ is not builtins.int:  # (the usual alpha=1 needs no check)
        alpha = _number_argument(alpha, op, "alpha")
    if alpha == 1:
        return b
    result = (a if isinstance(a, Tensor) else b).dtype
    if not result.is_floating_point and isinstance(_plain_number(alpha), builtins.float):
        raise RuntimeError(
            f"{op}: alpha={alpha} is a float, but the inputs are {result} tensors; for integral "
            "inputs alpha must be an integer (or convert the tensors with .float() first)"
        )
    if not isinstance(b, Tensor):  # a Python number: the product fitted to the dtype too
        product = (b.item() if isinstance(b, numpy.generic) else b) * alpha  # int: no overflow
        return builtins.bool(product) if result is _dtypes.bool else _wrapped_into(product, result)
    return cast(mul(b, alpha), result)


def mul(input: Any, other: Any, *, out: Any = None) -> Tensor:
    if _float16_and_number(input, other):  # (PyTorch: in float32, rounded once)
        return write_out(_float32_of(mul, input, other).half(), out, "mul")
    return write_out(arithmetic.Mul.apply(*_binary_operands(input, other, "mul")), out, "mul")


def div(input: Any, other: Any, *, rounding_mode: str | None = None, out: Any = None) -> Tensor:
    """input / other. rounding_mode="floor" rounds the quotient down (as //), "trunc"
    towards zero; both keep integers integers and have no gradient (it is 0)."""
    if rounding_mode is None and _float16_and_number(input, other):  # (as mul)
        return write_out(_float32_of(div, input, other).half(), out, "div")
    if rounding_mode is None:
        return write_out(arithmetic.Div.apply(*_float_operands(input, other, "div")), out, "div")
    if not isinstance(rounding_mode, str):
        raise TypeError(
            f"div: rounding_mode must be None, 'trunc' or 'floor', got {type(rounding_mode).__name__}"
        )
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(  # (PyTorch's type)
            f"div: rounding_mode must be None, 'trunc' or 'floor', got {rounding_mode!r}"
        )
    a, b = _binary_operands(input, other, "div")
    _check_not_bool(a, b, "div")
    _check_integer_divisor(a, b, "div")
    return write_out(arithmetic.RoundedDiv.apply(a, b, rounding_mode=rounding_mode), out, "div")


def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """other - alpha * input: sub with the operands swapped (input must be a tensor)."""
    return sub(other, _check_tensor(input, "rsub"), alpha=alpha)  # (bools: sub's error)


def pow(input: Any, exponent: Any, *, out: Any = None) -> Tensor:
    """input ** exponent; either may be a Python number."""
    input, exponent = autocast_inputs("pow", input, exponent)
    if _is_bool(input) and isinstance(exponent, bool):  # x ** True is x, x ** False all True
        return write_out(
            pow(input, int(exponent)).bool(), out, "pow"
        )  # (PyTorch's answer, though bools have no pow)
    integer_base = isinstance(input, Tensor) and input.array.dtype.kind != "f"
    if integer_base and type(exponent) is builtins.int and exponent < 0:
        raise RuntimeError(
            f"pow: Integers to negative integer powers are not allowed ({input.dtype} tensor "
            f"** {exponent}); make the base float first, e.g. x.float() ** {exponent}"
        )
    if integer_base and type(exponent) is builtins.int:  # int8_t ** 200: no wrapping (PyTorch)
        exponent = _fitted_number(exponent, input.dtype, "pow")
    a, b = _binary_operands(input, exponent, "pow")
    _check_not_bool(a, b, "pow")
    if isinstance(b, Tensor) and b.array.dtype.kind in "iu":
        return write_out(_integer_pow(a, b), out, "pow")
    return write_out(arithmetic.Pow.apply(a, b), out, "pow")


def _integer_pow(a: Any, b: Tensor) -> Tensor:
    """Integer a ** b, where b may hold negative exponents (NumPy raises for those): PyTorch
    gives 1 for a == 1, 1 or -1 (by b's parity) for a == -1 and 0 for any other a (1 / a**|b|
    rounded towards zero). Integers have no gradient."""
    base, exponent = _raw(a), b.array
    xp = backend.xp_of(exponent)
    negative = exponent < 0
    power = base ** xp.where(negative, 0, exponent)  # (the negative places are replaced next)
    minus_one = xp.where(exponent % 2 == 0, 1, -1)
    inverse = xp.where(base == 1, 1, xp.where(base == -1, minus_one, 0))
    return _no_grad_result(xp.where(negative, inverse, power).astype(power.dtype))


def neg(input: Tensor, *, out: Any = None) -> Tensor:
    if _check_tensor(input, "neg").array.dtype == bool:
        raise RuntimeError(
            "neg: negation, the `-` operator, on a bool tensor is not supported; to invert a "
            "mask use the `~` operator or logical_not()"
        )
    return write_out(arithmetic.Neg.apply(input), out, "neg", exact_dtype=True)


def positive(input: Tensor) -> Tensor:
    """input itself (unary +); not for bool tensors, as in PyTorch."""
    if _check_tensor(input, "positive").array.dtype == bool:
        raise RuntimeError("positive: the `+` operator, on a bool tensor is not supported")
    return input


def true_divide(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """input / other, integers giving floats (div without a rounding mode)."""
    return write_out(div(input, other), out, "true_divide")


# PyTorch's longer names (NumPy's) for the arithmetic above
divide, multiply, subtract, negative = div, mul, sub, neg


def floor_divide(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """a // b, rounded down. As in PyTorch, a float result requires grad when an operand
    does, and backward through it raises (its derivative is not implemented there)."""
    a, b = _binary_operands(input, other, "floor_divide")
    _check_not_bool(a, b, "floor_divide")
    _check_integer_divisor(a, b, "floor_divide")
    quotient = _no_grad_result(_raw(a) // _raw(b))
    return write_out(
        elementwise.Undifferentiable.apply(quotient, a, b, op="floor_divide"), out, "floor_divide"
    )


def remainder(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """a % b, with the sign of b as in Python."""
    a, b = _binary_operands(input, other, "remainder")
    _check_not_bool(a, b, "remainder")
    _check_integer_divisor(a, b, "remainder")
    return write_out(arithmetic.Remainder.apply(a, b), out, "remainder")


def _float16_and_number(a: Any, b: Any) -> builtins.bool:
    """Whether one operand is a float16 tensor and the other a Python number. PyTorch's mul
    and div then compute in float32 with the number itself (not its float16 rounding) and
    round once: x * 0.1 differed in a third of the entries. (Its add and sub round the
    number to float16 first, as NumPy does.)"""
    if isinstance(b, (builtins.int, builtins.float)):
        return isinstance(a, Tensor) and a.dtype is _dtypes.float16
    return isinstance(a, (builtins.int, builtins.float)) and (
        isinstance(b, Tensor) and b.dtype is _dtypes.float16
    )


def _float32_of(op: Any, a: Any, b: Any) -> Tensor:
    """op(a, b) with the float16 tensor among them widened to float32 (see above)."""
    return op(a.float(), b) if isinstance(a, Tensor) else op(a, b.float())


def _is_bool(x: Any) -> builtins.bool:
    """A bool tensor or a Python bool."""
    return isinstance(x, (builtins.bool, numpy.bool_)) or (
        isinstance(x, Tensor) and x.array.dtype == bool
    )


def _check_not_bool(a: Any, b: Any, op: str) -> None:
    """pow, floor division and remainder have no bool version (NumPy would answer in int8)."""
    if _is_bool(a) and _is_bool(b):
        raise NotImplementedError(
            f"{op}: not implemented for bool operands, as in PyTorch; convert a bool tensor "
            "first, with .long() or .float()"
        )


def _check_integer_divisor(a: Any, b: Any, op: str) -> None:
    """An integer division by zero raises, as in PyTorch on the CPU (NumPy would give 0). A
    divisor tensor on a GPU is not checked, as in PyTorch: that would make the host wait."""
    dividend, divisor = _raw(a), _raw(b)
    if _is_float(dividend) or _is_float(divisor):
        return  # a float division: inf or nan, as in PyTorch
    if builtins.any(backend.is_array(x) and x.size == 0 for x in (dividend, divisor)):
        return  # an empty result: no division happens
    if not backend.is_array(divisor):
        zero = divisor == 0  # a Python number
    elif backend.xp_of(divisor).__name__ != "cupy":
        zero = builtins.bool((divisor == 0).any())
    else:
        return
    if zero:
        raise RuntimeError(f"{op}: integer division by zero (ZeroDivisionError)")


def _is_float(x: Any) -> builtins.bool:
    """A float array or a Python float."""
    return x.dtype.kind == "f" if backend.is_array(x) else isinstance(x, builtins.float)


def _raw(x: Any) -> Any:
    return x.array if isinstance(x, Tensor) else x


def _no_grad_result(array: Any) -> Tensor:
    if not backend.is_array(array):
        array = backend.xp_of(array).asarray(array)
    return Tensor._make(array)


# ---------------------------------------------------------------- comparisons (no grad)
def _xp_function(a: Any, b: Any, function: str, name: str, **options: Any) -> Tensor:
    """The array library's ``function`` (e.g. "less") on two operands, tensors or numbers,
    brought to one dtype first; the result records no gradient. ``name`` is the op's."""
    a, b = _binary_operands(a, b, name)
    xp = backend.xp_of((a if isinstance(a, Tensor) else b).array)
    return _no_grad_result(getattr(xp, function)(_raw(a), _raw(b), **options))


def _compare(a: Any, b: Any, function: str, name: str) -> Tensor:
    if b is None or a is None:
        raise TypeError(f"{name}: cannot compare a Tensor with None")
    if not isinstance(a, Tensor):  # (PyTorch's parser: input is a Tensor, other may be a number)
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}; "
            f"swap the operands, e.g. {name}(tensor, number)"
        )
    return _xp_function(a, b, function, name)


def eq(input: Any, other: Any, *, out: Any = None) -> Tensor:
    return write_out(_compare(input, other, "equal", "eq"), out, "eq")


def ne(input: Any, other: Any, *, out: Any = None) -> Tensor:
    return write_out(_compare(input, other, "not_equal", "ne"), out, "ne")


def lt(input: Any, other: Any, *, out: Any = None) -> Tensor:
    return write_out(_compare(input, other, "less", "lt"), out, "lt")


def le(input: Any, other: Any, *, out: Any = None) -> Tensor:
    return write_out(_compare(input, other, "less_equal", "le"), out, "le")


def gt(input: Any, other: Any, *, out: Any = None) -> Tensor:
    return write_out(_compare(input, other, "greater", "gt"), out, "gt")


def ge(input: Any, other: Any, *, out: Any = None) -> Tensor:
    return write_out(_compare(input, other, "greater_equal", "ge"), out, "ge")


greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne  # PyTorch's aliases


def equal(input: Tensor, other: Tensor) -> bool:
    """True if both tensors have the same shape and the same values."""
    _check_tensor(input, "equal")
    _check_tensor(other, "equal", "other")
    return tuple(input.shape) == tuple(other.shape) and builtins.bool(eq(input, other).all())


# logical_*: every nonzero value counts as True, the result is bool. bitwise_*: bit by bit
# on integers (on bools the same as logical_*); they are the `&`, `|`, `^`, `~` operators.
def logical_not(input: Tensor, *, out: Any = None) -> Tensor:
    xp = backend.xp_of(_check_tensor(input, "logical_not").array)
    return write_out(_no_grad_result(xp.logical_not(input.array)), out, "logical_not")


def _logical(input: Tensor, other: Tensor, name: str) -> Tensor:
    """The array library's logical op ``name`` of two tensors (PyTorch takes no number)."""
    return _xp_function(*_tensor_operands(input, other, name), name, name)


def logical_and(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """input and other, elementwise (nonzero is True); a bool tensor."""
    return write_out(_logical(input, other, "logical_and"), out, "logical_and")


def logical_or(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """input or other, elementwise (nonzero is True); a bool tensor."""
    return write_out(_logical(input, other, "logical_or"), out, "logical_or")


def logical_xor(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """input xor other, elementwise (nonzero is True); a bool tensor."""
    return write_out(_logical(input, other, "logical_xor"), out, "logical_xor")


def _bitwise(a: Any, b: Any, name: str, symbol: str) -> Tensor:
    hint = f"for conditions on floats compare first (x > 0), or use logical_{name[8:]}()"
    _check_no_float(a, b, name, symbol, hint)
    return _xp_function(a, b, name, name)


def _check_no_float(a: Any, b: Any, name: str, symbol: str, hint: str) -> None:
    """Bitwise ops have no float version. Checked before promotion, which would turn an int
    tensor float; NotImplementedError, PyTorch's type (it has no float kernel)."""
    for operand in (a, b):
        if isinstance(operand, Tensor) and operand.array.dtype.kind in ("f", "c"):
            found = str(operand.dtype)
        elif isinstance(operand, (float, complex)):
            found = f"a Python {type(operand).__name__}"
        else:
            continue
        raise NotImplementedError(
            f"{name}: `{symbol}` works on integer and bool tensors, got {found}; {hint}"
        )


def bitwise_left_shift(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """input << other on integers: the bits move up by other (input * 2**other, wrapping
    around); a shift below 0 or past the dtype's width gives 0, as in PyTorch."""
    value, shift, inside = _shift_operands(input, other, "bitwise_left_shift", "<<")
    xp = backend.xp_of(value)
    moved = xp.left_shift(value, xp.where(inside, shift, 0))
    return write_out(
        _no_grad_result(xp.where(inside, moved, 0).astype(value.dtype)), out, "bitwise_left_shift"
    )


def bitwise_right_shift(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """input >> other on integers: the bits move down, the sign bit filling in (input //
    2**other); a shift below 0 or past the width leaves only the sign: -1 or 0."""
    value, shift, inside = _shift_operands(input, other, "bitwise_right_shift", ">>")
    xp = backend.xp_of(value)
    moved = xp.right_shift(value, xp.where(inside, shift, 0))
    return write_out(
        _no_grad_result(xp.where(inside, moved, xp.where(value < 0, -1, 0)).astype(value.dtype)),
        out,
        "bitwise_right_shift",
    )


def _shift_operands(a: Any, b: Any, name: str, symbol: str) -> tuple:
    """Both operands as arrays of their common integer dtype, and where the shift is in
    range (0 <= shift < the dtype's width in bits)."""
    _check_no_float(a, b, name, symbol, "for floats multiply or divide by 2 ** n instead")
    a, b = _binary_operands(a, b, name)
    tensor = a if isinstance(a, Tensor) else b
    if tensor.array.dtype == bool:
        raise NotImplementedError(
            f"{name}: `{symbol}` is not implemented for two bool operands, as in PyTorch; "
            "convert one with .long() first"
        )
    xp, dtype = backend.xp_of(tensor.array), tensor.array.dtype
    value, shift = xp.asarray(_raw(a), dtype=dtype), xp.asarray(_raw(b), dtype=dtype)
    return value, shift, (shift >= 0) & (shift < dtype.itemsize * 8)


def bitwise_and(input: Any, other: Any, *, out: Any = None) -> Tensor:
    return write_out(_bitwise(input, other, "bitwise_and", "&"), out, "bitwise_and")


def bitwise_or(input: Any, other: Any, *, out: Any = None) -> Tensor:
    return write_out(_bitwise(input, other, "bitwise_or", "|"), out, "bitwise_or")


def bitwise_xor(input: Any, other: Any, *, out: Any = None) -> Tensor:
    return write_out(_bitwise(input, other, "bitwise_xor", "^"), out, "bitwise_xor")


def bitwise_not(input: Tensor, *, out: Any = None) -> Tensor:
    """~input: each bit flipped (for bools: logical not)."""
    _check_tensor(input, "bitwise_not")
    _check_no_float(input, None, "bitwise_not", "~", "for a float condition use logical_not()")
    return write_out(
        _no_grad_result(backend.xp_of(input.array).invert(input.array)),
        out,
        "bitwise_not",
        exact_dtype=True,
    )


def isnan(input: Tensor) -> Tensor:
    return _no_grad_result(backend.xp_of(input.array).isnan(input.array))


def isinf(input: Tensor) -> Tensor:
    return _no_grad_result(backend.xp_of(input.array).isinf(input.array))


def isfinite(input: Tensor) -> Tensor:
    return _no_grad_result(backend.xp_of(input.array).isfinite(input.array))


def isreal(input: Tensor) -> Tensor:
    """True where input is real: everywhere, since microtorch has no complex dtypes (a bool
    tensor of input's shape, no gradient)."""
    array = _check_tensor(input, "isreal").array
    return _no_grad_result(backend.xp_of(array).ones(array.shape, dtype=bool))


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False, out: Any = None) -> Tensor:  # fmt: skip
    """For each element of ``elements``, whether it equals one of ``test_elements`` (either may
    be a single number); invert=True asks the opposite. A bool tensor of elements' shape,
    no gradient (nan equals nothing)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): elements or test_elements must be a tensor (or both)")
    like = elements if isinstance(elements, Tensor) else test_elements
    a = _raw(elements if isinstance(elements, Tensor) else as_tensor_like(elements, like))
    b = _raw(
        test_elements if isinstance(test_elements, Tensor) else as_tensor_like(test_elements, like)
    )
    xp = backend.xp_of(a)
    found = xp.isin(a, b.reshape(-1), assume_unique=assume_unique, invert=invert)
    return write_out(_no_grad_result(found.reshape(a.shape)), out, "isin", exact_dtype=True)


def isclose(input: Tensor, other: Any, rtol: float = 1e-5, atol: float = 1e-8,
            equal_nan: bool = False) -> Tensor:  # fmt: skip
    """Elementwise |input - other| <= atol + rtol * |other| (a bool tensor, no gradient).
    Two tensors must have one dtype, as in PyTorch (no promotion)."""
    _check_tensor(other, "isclose", "other")  # (no number, as in PyTorch)
    if _check_tensor(input, "isclose").dtype is not other.dtype:
        raise RuntimeError(
            f"isclose/allclose: {input.dtype} did not match {other.dtype}; compare tensors of "
            f"one dtype, e.g. with other.to({input.dtype})"
        )
    rtol, atol = (
        _number_argument(rtol, "isclose", "rtol"),
        _number_argument(atol, "isclose", "atol"),
    )
    if not isinstance(equal_nan, (builtins.bool, numpy.bool_)):
        raise TypeError(f"isclose: equal_nan must be a bool, got {type(equal_nan).__name__}")
    for name, tolerance in (("rtol", rtol), ("atol", atol)):
        if tolerance < 0:
            raise RuntimeError(
                f"isclose/allclose: {name} must be greater than or equal to zero, but got "
                f"{tolerance}"
            )
    return _xp_function(input, other, "isclose", "isclose", rtol=rtol, atol=atol,
                        equal_nan=equal_nan)  # fmt: skip


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-5, atol: float = 1e-8,
             equal_nan: bool = False) -> bool:  # fmt: skip
    return builtins.bool(isclose(input, other, rtol, atol, equal_nan).all())


# ---------------------------------------------------------------- elementwise math
def _float_input(x: Tensor, op: str) -> Tensor:
    _check_tensor(x, op)
    return x if x.array.dtype.kind == "f" else cast(x, _dtypes.get_default_dtype())


def exp(input: Tensor, *, out: Any = None) -> Tensor:
    (input,) = autocast_inputs("exp", input)
    return write_out(elementwise.Exp.apply(_float_input(input, "exp")), out, "exp")


def log(input: Tensor, *, out: Any = None) -> Tensor:
    (input,) = autocast_inputs("log", input)
    return write_out(elementwise.Log.apply(_float_input(input, "log")), out, "log")


def sqrt(input: Tensor, *, out: Any = None) -> Tensor:
    return write_out(elementwise.Sqrt.apply(_float_input(input, "sqrt")), out, "sqrt")


def rsqrt(input: Tensor, *, out: Any = None) -> Tensor:
    (input,) = autocast_inputs("rsqrt", input)
    return write_out(elementwise.Rsqrt.apply(_float_input(input, "rsqrt")), out, "rsqrt")


def tanh(input: Tensor, *, out: Any = None) -> Tensor:
    return write_out(elementwise.Tanh.apply(_float_input(input, "tanh")), out, "tanh")


def log1p(input: Tensor, *, out: Any = None) -> Tensor:
    (input,) = autocast_inputs("log1p", input)
    return write_out(elementwise.Log1p.apply(_float_input(input, "log1p")), out, "log1p")


def erf(input: Tensor, *, out: Any = None) -> Tensor:
    return write_out(elementwise.Erf.apply(_float_input(input, "erf")), out, "erf")


def _rounding(input: Tensor, how: str, decimals: builtins.int = 0) -> Tensor:
    """floor/ceil/round/trunc/sign: integers come back as they are (they are whole already),
    except sign, which is computed for them too; for bool only sign exists (it is the
    identity), as in PyTorch."""
    if _check_tensor(input, how).dtype is _dtypes.bool:
        if how == "sign":
            return input.clone()
        raise NotImplementedError(  # (PyTorch's type: it has no bool kernel)
            f"{how}: not supported for bool tensors, as in PyTorch; convert with .float() first"
        )
    if not input.dtype.is_floating_point and how != "sign":
        if decimals != 0:  # (PyTorch has no integer kernel for round with decimals)
            raise NotImplementedError(
                f"round: decimals={decimals} is not implemented for {input.dtype} tensors, as "
                "in PyTorch; convert with .float() first"
            )
        return input.clone()
    return elementwise.Rounding.apply(input, how=how, decimals=decimals)


def floor(input: Tensor, *, out: Any = None) -> Tensor:
    return write_out(_rounding(input, "floor"), out, "floor", exact_dtype=True)


def ceil(input: Tensor, *, out: Any = None) -> Tensor:
    return write_out(_rounding(input, "ceil"), out, "ceil", exact_dtype=True)


def round(input: Tensor, *, decimals: builtins.int = 0, out: Any = None) -> Tensor:
    """To the nearest integer (or ``decimals`` places); halves go to the even neighbour."""
    if isinstance(decimals, builtins.bool) or not isinstance(decimals, builtins.int):
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    return write_out(_rounding(input, "round", decimals), out, "round", exact_dtype=True)


def trunc(input: Tensor, *, out: Any = None) -> Tensor:
    return write_out(_rounding(input, "trunc"), out, "trunc", exact_dtype=True)


fix = trunc  # PyTorch's other name for it


def sign(input: Tensor, *, out: Any = None) -> Tensor:
    return write_out(_rounding(input, "sign"), out, "sign", exact_dtype=True)


def sgn(input: Tensor, *, out: Any = None) -> Tensor:
    """The sign, -1, 0 or 1 (PyTorch's sgn is x / |x| for complex numbers; microtorch has
    only real dtypes, where it is sign)."""
    return write_out(_rounding(_check_tensor(input, "sgn"), "sign"), out, "sgn", exact_dtype=True)


def angle(input: Tensor, *, out: Any = None) -> Tensor:
    """The argument of each number in the complex plane; for real input pi where it is
    negative, 0 elsewhere (nan stays nan), in a float dtype, with a zero gradient."""
    x = _float_input(_check_tensor(input, "angle"), "angle")
    zero = full_like_graph(x, 0)  # zeros in the graph: the gradient reaching x is 0
    return write_out(
        where(x < 0, zero + math.pi, where(isnan(x), zero + math.nan, zero)), out, "angle"
    )


def lerp(input: Tensor, end: Any, weight: Any, *, out: Any = None) -> Tensor:
    """input + weight * (end - input): from input (weight 0) to end (weight 1). As PyTorch
    rounds it: from end's side, end - (end - input) * (1 - weight), where |weight| >= 0.5
    (so weight 1 gives end exactly, and lerp(1, inf, 0.75) is nan as in PyTorch)."""
    if not isinstance(weight, Tensor):
        weight = _number_argument(weight, "lerp", "weight")
    if not _check_tensor(input, "lerp").dtype.is_floating_point:
        raise NotImplementedError(
            f"lerp: not implemented for {input.dtype} tensors, as in PyTorch; use .float()"
        )
    # as in PyTorch, end and a weight with dims must have input's dtype (no promotion)
    for name, other in (("end", end), ("weight", weight)):
        mismatch = isinstance(other, Tensor) and other.dtype is not input.dtype
        if mismatch and (name == "end" or other.ndim > 0):  # (a 0-d weight counts as a number)
            raise RuntimeError(
                f"lerp: expected dtype {input.dtype} for `{name}` but got {other.dtype}; "
                f"convert it with .to({input.dtype})"
            )
    shapes = [t.array.shape for t in (input, end, weight) if isinstance(t, Tensor)]
    for i, shape in enumerate(shapes):  # every pair broadcasts, or lerp says which do not
        for other in shapes[i + 1 :]:
            _check_broadcast(shape, other, "lerp")
    if input.dtype is _dtypes.float16:  # in float32, rounded once (end - input may overflow)
        wide = [cast(t, _dtypes.float32) if isinstance(t, Tensor) else t for t in (end, weight)]
        return write_out(
            cast(lerp(cast(input, _dtypes.float32), *wide), _dtypes.float16), out, "lerp"
        )
    difference = sub(end, input)
    if not isinstance(weight, Tensor):  # a number: one side
        if builtins.abs(weight) < 0.5:
            return write_out(add(input, mul(weight, difference)), out, "lerp")
        return write_out(sub(end, mul(difference, 1 - weight)), out, "lerp")
    near_input = lt(abs(weight), 0.5)  # per element: start from input, or from end
    start = where(near_input, input, end)
    return write_out(
        add(start, mul(difference, where(near_input, weight, sub(weight, 1)))), out, "lerp"
    )


def sin(input: Tensor, *, out: Any = None) -> Tensor:
    return write_out(elementwise.Sin.apply(_float_input(input, "sin")), out, "sin")


def cos(input: Tensor, *, out: Any = None) -> Tensor:
    return write_out(elementwise.Cos.apply(_float_input(input, "cos")), out, "cos")


def tan(input: Tensor, *, out: Any = None) -> Tensor:
    """The tangent, elementwise."""
    (input,) = autocast_inputs("tan", input)
    return write_out(elementwise.Tan.apply(_float_input(input, "tan")), out, "tan")


def sinh(input: Tensor, *, out: Any = None) -> Tensor:
    """The hyperbolic sine, elementwise."""
    (input,) = autocast_inputs("sinh", input)
    return write_out(elementwise.Sinh.apply(_float_input(input, "sinh")), out, "sinh")


def cosh(input: Tensor, *, out: Any = None) -> Tensor:
    """The hyperbolic cosine, elementwise."""
    (input,) = autocast_inputs("cosh", input)
    return write_out(elementwise.Cosh.apply(_float_input(input, "cosh")), out, "cosh")


def asin(input: Tensor, *, out: Any = None) -> Tensor:
    """The inverse sine (nan outside [-1, 1])."""
    (input,) = autocast_inputs("asin", input)
    return write_out(elementwise.Asin.apply(_float_input(input, "asin")), out, "asin")


def acos(input: Tensor, *, out: Any = None) -> Tensor:
    """The inverse cosine (nan outside [-1, 1])."""
    (input,) = autocast_inputs("acos", input)
    return write_out(elementwise.Acos.apply(_float_input(input, "acos")), out, "acos")


def atan(input: Tensor, *, out: Any = None) -> Tensor:
    """The inverse tangent, in (-pi/2, pi/2)."""
    return write_out(elementwise.Atan.apply(_float_input(input, "atan")), out, "atan")


def asinh(input: Tensor, *, out: Any = None) -> Tensor:
    """The inverse hyperbolic sine."""
    return write_out(elementwise.Asinh.apply(_float_input(input, "asinh")), out, "asinh")


def acosh(input: Tensor, *, out: Any = None) -> Tensor:
    """The inverse hyperbolic cosine (nan below 1)."""
    return write_out(elementwise.Acosh.apply(_float_input(input, "acosh")), out, "acosh")


def atanh(input: Tensor, *, out: Any = None) -> Tensor:
    """The inverse hyperbolic tangent (+-inf at +-1, nan outside [-1, 1])."""
    return write_out(elementwise.Atanh.apply(_float_input(input, "atanh")), out, "atanh")


def atan2(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The angle of the point (other, input) in (-pi, pi], elementwise, with broadcasting."""
    input, other = autocast_inputs("atan2", input, other)
    a, b = _tensor_operands(input, other, "atan2")
    return write_out(elementwise.Atan2.apply(*_float_operands(a, b, "atan2")), out, "atan2")


# NumPy's names, which PyTorch has as aliases
arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
arcsinh, arccosh, arctanh = asinh, acosh, atanh


def _tensor_operands(input: Any, other: Any, op: str, name: str = "other") -> tuple:
    """Two tensors (where PyTorch takes no Python number) brought to one dtype."""
    _check_tensor(input, op)
    _check_tensor(other, op, name)
    return _binary_operands(input, other, op)


def _floating_tensor_operands(input: Any, other: Any, op: str) -> tuple:
    """Two tensors brought to one dtype, which must be floating: like PyTorch's hypot and
    logaddexp, these ops have no integer version (an integer tensor beside a float one is
    promoted, as usual)."""
    a, b = _tensor_operands(input, other, op)
    if not a.dtype.is_floating_point:
        raise NotImplementedError(
            f"{op}: not implemented for {a.dtype} tensors, as in PyTorch; convert them first, "
            "e.g. with .float()"
        )
    return a, b


def log2(input: Tensor, *, out: Any = None) -> Tensor:
    """The base-2 logarithm."""
    (input,) = autocast_inputs("log2", input)
    return write_out(elementwise.Log2.apply(_float_input(input, "log2")), out, "log2")


def log10(input: Tensor, *, out: Any = None) -> Tensor:
    """The base-10 logarithm."""
    (input,) = autocast_inputs("log10", input)
    return write_out(elementwise.Log10.apply(_float_input(input, "log10")), out, "log10")


def exp2(input: Tensor, *, out: Any = None) -> Tensor:
    """2 ** input."""
    return write_out(elementwise.Exp2.apply(_float_input(input, "exp2")), out, "exp2")


def expm1(input: Tensor, *, out: Any = None) -> Tensor:
    """exp(input) - 1, accurate when input is close to 0."""
    (input,) = autocast_inputs("expm1", input)
    return write_out(elementwise.Expm1.apply(_float_input(input, "expm1")), out, "expm1")


def logaddexp(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """log(exp(input) + exp(other)), without overflow, with broadcasting."""
    return write_out(
        elementwise.LogAddExp.apply(*_floating_tensor_operands(input, other, "logaddexp")),
        out,
        "logaddexp",
    )


def logaddexp2(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """log2(2 ** input + 2 ** other), without overflow, with broadcasting."""
    return write_out(
        elementwise.LogAddExp2.apply(*_floating_tensor_operands(input, other, "logaddexp2")),
        out,
        "logaddexp2",
    )


def xlogy(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """input * log(other), and 0 where input == 0 (unless other is nan); either may be a
    number, integers give floats."""
    return write_out(elementwise.Xlogy.apply(*_xlogy_operands(input, other, "xlogy")), out, "xlogy")


def _xlogy_operands(input: Any, other: Any, op: str) -> tuple:
    """xlogy's and xlog1py's operands as two float tensors of one dtype: a number becomes a
    0-d tensor of the other's dtype (so that log(number) is no float64)."""
    a, b = _float_operands(input, other, op)
    like = a if isinstance(a, Tensor) else b
    return _number_as_tensor(a, like), _number_as_tensor(b, like)


def xlog1py(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """input * log1p(other), and 0 where input == 0 (unless other is nan); either may be a
    number, integers give floats. (PyTorch has it as torch.special.xlog1py only.)"""
    return write_out(
        elementwise.Xlog1py.apply(*_xlogy_operands(input, other, "xlog1py")), out, "xlog1py"
    )


def _number_as_tensor(value: Any, like: Tensor) -> Tensor:
    """A Python number as a 0-d constant tensor of ``like``'s dtype and device."""
    if isinstance(value, Tensor):
        return value
    return Tensor._make(backend.xp_of(like.array).asarray(value, dtype=like.array.dtype))


def logit(input: Tensor, eps: float | None = None, *, out: Any = None) -> Tensor:
    """log(input / (1 - input)), the inverse of sigmoid; with ``eps``, input is first clamped
    to [eps, 1 - eps] (a negative eps counts as None, as in PyTorch)."""
    eps = None if eps is None else _number_argument(eps, "logit", "eps")
    if eps is not None and eps < 0:
        eps = None
    return write_out(elementwise.Logit.apply(_float_input(input, "logit"), eps=eps), out, "logit")


def erfc(input: Tensor, *, out: Any = None) -> Tensor:
    """1 - erf(input), accurate also where it is tiny."""
    return write_out(elementwise.Erfc.apply(_float_input(input, "erfc")), out, "erfc")


def erfinv(input: Tensor, *, out: Any = None) -> Tensor:
    """The inverse of erf on [-1, 1] (+-inf at +-1, nan outside)."""
    (input,) = autocast_inputs("erfinv", input)
    return write_out(elementwise.Erfinv.apply(_float_input(input, "erfinv")), out, "erfinv")


def lgamma(input: Tensor, *, out: Any = None) -> Tensor:
    """log|Gamma(input)| elementwise (+inf at 0 and the negative integers)."""
    return write_out(elementwise.Lgamma.apply(_float_input(input, "lgamma")), out, "lgamma")


def digamma(input: Tensor, *, out: Any = None) -> Tensor:
    """psi(input) = d/dx log Gamma(x) elementwise (-inf at 0, nan at the negative integers)."""
    return write_out(elementwise.Digamma.apply(_float_input(input, "digamma")), out, "digamma")


def polygamma(n: builtins.int, input: Tensor, *, out: Any = None) -> Tensor:
    """psi^(n)(input), the n-th derivative of digamma (n = 0: digamma itself), elementwise;
    its gradient is polygamma(n + 1, input)."""
    n = _int_argument(n, "polygamma", "n")  # (a 0-d integer tensor too, as in PyTorch)
    if n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n (got n={n})")
    x = _float_input(input, "polygamma")
    return write_out(
        digamma(x) if n == 0 else elementwise.Polygamma.apply(x, n=n), out, "polygamma"
    )


def mvlgamma(input: Tensor, p: builtins.int, *, out: Any = None) -> Tensor:
    """The log of the multivariate gamma function of dimension p:
    p (p - 1) / 4 * log(pi) + sum over j < p of lgamma(input - j / 2). It is defined for
    input > (p - 1) / 2; like PyTorch 2.x, other inputs are not refused (lgamma's values)."""
    p = _int_argument(p, "mvlgamma", "p")
    if p < 1:
        raise RuntimeError(f"mvlgamma: p has to be greater than or equal to 1, got {p}")
    if _check_tensor(input, "mvlgamma").dtype is _dtypes.bool:
        raise RuntimeError("mvlgamma: the input tensor may not be a boolean tensor")
    x = _float_input(input, "mvlgamma")
    total = add(lgamma(x), p * (p - 1) / 4 * math.log(math.pi))
    for j in range(1, p):
        total = add(total, lgamma(sub(x, j / 2)))
    return write_out(total, out, "mvlgamma")


def igamma(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The regularised lower incomplete gamma function P(input, other), with broadcasting
    (differentiable in other only, as PyTorch)."""
    return write_out(
        elementwise.Igamma.apply(*_floating_tensor_operands(input, other, "igamma")), out, "igamma"
    )


def igammac(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The regularised upper incomplete gamma function Q(input, other) = 1 - P(input, other),
    with broadcasting (differentiable in other only, as PyTorch)."""
    a, x = _floating_tensor_operands(input, other, "igammac")
    return write_out(elementwise.Igamma.apply(a, x, upper=True), out, "igammac")


def i0(input: Tensor, *, out: Any = None) -> Tensor:
    """The modified Bessel function of the first kind of order 0, I_0(input)."""
    return write_out(elementwise.BesselI.apply(_float_input(input, "i0"), order=0), out, "i0")


def i0e(input: Tensor, *, out: Any = None) -> Tensor:
    """exp(-|input|) * I_0(input), which does not overflow for a large input."""
    return write_out(
        elementwise.BesselI.apply(_float_input(input, "i0e"), order=0, scaled=True), out, "i0e"
    )


def i1(input: Tensor, *, out: Any = None) -> Tensor:
    """The modified Bessel function of the first kind of order 1, I_1(input)."""
    return write_out(elementwise.BesselI.apply(_float_input(input, "i1"), order=1), out, "i1")


def i1e(input: Tensor, *, out: Any = None) -> Tensor:
    """exp(-|input|) * I_1(input), which does not overflow for a large input."""
    return write_out(
        elementwise.BesselI.apply(_float_input(input, "i1e"), order=1, scaled=True), out, "i1e"
    )


def hypot(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """sqrt(input ** 2 + other ** 2), without overflow, with broadcasting."""
    return write_out(
        elementwise.Hypot.apply(*_floating_tensor_operands(input, other, "hypot")), out, "hypot"
    )


def fmod(input: Tensor, other: Any, *, out: Any = None) -> Tensor:
    """C's remainder, input - trunc(input / other) * other: the sign of input (remainder()
    follows the sign of other). Integers stay integers."""
    a, b = _binary_operands(_check_tensor(input, "fmod"), other, "fmod")
    _check_not_bool(a, b, "fmod")
    _check_integer_divisor(a, b, "fmod")
    return write_out(elementwise.Fmod.apply(a, b), out, "fmod")


def copysign(input: Tensor, other: Any, *, out: Any = None) -> Tensor:
    """|input| with the sign of other (-0.0 counts as negative); integers give floats."""
    return write_out(elementwise.Copysign.apply(*_float_operands(_check_tensor(input, "copysign"), other,
                                                       "copysign")), out, "copysign")  # fmt: skip


def _integer_operands(input: Any, other: Any, op: str) -> tuple:
    """Two tensors brought to one dtype, which must be an integer one (gcd, lcm): PyTorch
    has no float or bool kernel for these."""
    a, b = _tensor_operands(input, other, op)
    if a.array.dtype.kind not in "iu":
        raise NotImplementedError(
            f"{op}: not implemented for {a.dtype} tensors, as in PyTorch; it is defined for "
            "integers only (convert with .long())"
        )
    return a, b


def gcd(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The greatest common divisor of |input| and |other|, elementwise (integers only, no
    gradient); gcd(0, 0) is 0."""
    a, b = _integer_operands(input, other, "gcd")
    return write_out(_no_grad_result(backend.xp_of(a.array).gcd(a.array, b.array)), out, "gcd")


def lcm(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The least common multiple of |input| and |other|, elementwise (integers only, no
    gradient); 0 where either is 0. As in PyTorch, a result beyond the dtype wraps around:
    for int32 and int64 before its absolute value is taken, for narrower dtypes (which
    PyTorch computes in 32 bits) after, so lcm(-53, 4) in int8 is 212 - 256 = -44."""
    a, b = _integer_operands(input, other, "lcm")
    xp, dtype = backend.xp_of(a.array), a.array.dtype
    wide = "int32" if dtype.itemsize < 4 else dtype
    multiple = xp.abs(xp.lcm(a.array.astype(wide), b.array.astype(wide)))
    return write_out(_no_grad_result(multiple.astype(dtype)), out, "lcm")


def ldexp(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """input * 2**other, in the dtype the two promote to (integers give the default float).
    As PyTorch computes it: 2**other in other's float dtype (an integer other: the default
    float), times input, then rounded to the result's dtype."""
    bool_power = _check_tensor(other, "ldexp", "other").dtype is _dtypes.bool
    if bool_power and _check_tensor(input, "ldexp").dtype.is_floating_point:
        raise NotImplementedError(  # (PyTorch's float kernel; other inputs multiply instead)
            "ldexp: not implemented for a bool exponent of a float input, as in PyTorch; "
            "convert it with .long()"
        )
    _check_tensor(input, "ldexp")
    _check_broadcast(input.array.shape, other.array.shape, "ldexp")
    result = _promote_tensors(input, other)
    if not result.is_floating_point:
        result = _dtypes.get_default_dtype()
    power = pow(2.0, _float_input(other, "ldexp"))
    return write_out(cast(mul(input, power), result), out, "ldexp")


def frexp(input: Tensor, *, out: Any = None) -> return_types.frexp:
    """(mantissa, exponent) with input = mantissa * 2**exponent and 0.5 <= |mantissa| < 1
    (0, inf and nan: mantissa input, exponent 0); the exponent is int32, with no gradient."""
    if not _check_tensor(input, "frexp").dtype.is_floating_point:
        raise RuntimeError(
            f"frexp: only floating-point dtypes are supported, got {input.dtype}, as in "
            "PyTorch; convert with .float()"
        )
    xp = backend.xp_of(input.array)
    exponent = _no_grad_result(xp.frexp(input.array)[1].astype(xp.int32, copy=False))
    return write_out(
        return_types.frexp(elementwise.FrexpMantissa.apply(input), exponent), out, "frexp"
    )


def nextafter(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The next floating-point number after input in the direction of other, elementwise
    (floats only; input itself where they are equal)."""
    a, b = _tensor_operands(input, other, "nextafter")
    if not a.dtype.is_floating_point:
        raise NotImplementedError(
            f"nextafter: not implemented for {a.dtype} tensors, as in PyTorch; convert them "
            "first, e.g. with .float()"
        )
    return write_out(elementwise.Nextafter.apply(a, b), out, "nextafter")


def heaviside(input: Tensor, values: Tensor, *, out: Any = None) -> Tensor:
    """The step function: 0 where input < 0, 1 where input > 0, ``values`` where it is 0."""
    _check_tensor(input, "heaviside")
    _check_tensor(values, "heaviside", "values")
    if input.dtype is not values.dtype:
        raise RuntimeError(
            f"heaviside is not yet implemented for tensors with different dtypes (got "
            f"{input.dtype} and {values.dtype}, as in PyTorch); convert values with "
            "values.to(input.dtype)"
        )
    _check_broadcast(input.array.shape, values.array.shape, "heaviside")
    return write_out(elementwise.Heaviside.apply(input, values), out, "heaviside", exact_dtype=True)


def sinc(input: Tensor, *, out: Any = None) -> Tensor:
    """sin(pi * input) / (pi * input), and 1 where input is 0."""
    return write_out(elementwise.Sinc.apply(_float_input(input, "sinc")), out, "sinc")


def nan_to_num(input: Tensor, nan: float | None = None, posinf: float | None = None,
               neginf: float | None = None, *, out: Any = None) -> Tensor:  # fmt: skip
    """nan, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (None: the dtype's
    largest and lowest finite values); integer tensors come back as a copy."""
    nan, posinf, neginf = (  # (nan=None is 0.0, as in PyTorch)
        v if v is None else _number_argument(v, "nan_to_num", name)
        for name, v in (("nan", 0.0 if nan is None else nan), ("posinf", posinf),
                        ("neginf", neginf))
    )  # fmt: skip
    if not _check_tensor(input, "nan_to_num").dtype.is_floating_point:
        return write_out(input.clone(), out, "nan_to_num", exact_dtype=True)
    return write_out(
        elementwise.NanToNum.apply(input, nan=nan, posinf=posinf, neginf=neginf),
        out,
        "nan_to_num",
        exact_dtype=True,
    )


def frac(input: Tensor, *, out: Any = None) -> Tensor:
    """The fractional part, input - trunc(input), with input's sign; gradient 1."""
    if not _check_tensor(input, "frac").dtype.is_floating_point:
        raise NotImplementedError(
            f"frac: not implemented for {input.dtype} tensors, as in PyTorch (an integer "
            "has no fractional part); convert first, e.g. with .float()"
        )
    return write_out(
        sub(input, trunc(input)), out, "frac", exact_dtype=True
    )  # trunc's gradient is 0: frac's is 1


def signbit(input: Tensor, *, out: Any = None) -> Tensor:
    """True where the sign bit is set: negative numbers, -0.0 and -nan (a bool tensor, no
    gradient)."""
    array = _check_tensor(input, "signbit").array
    if array.dtype.kind == "f":
        return write_out(
            _no_grad_result(backend.xp_of(array).signbit(array)), out, "signbit", exact_dtype=True
        )
    return write_out(
        _no_grad_result(array < 0), out, "signbit", exact_dtype=True
    )  # integers (and bools, never negative)


def isposinf(input: Tensor, *, out: Any = None) -> Tensor:
    """True where input is +inf (a bool tensor, no gradient)."""
    return write_out(
        _no_grad_result(_check_tensor(input, "isposinf").array == math.inf),
        out,
        "isposinf",
        exact_dtype=True,
    )


def isneginf(input: Tensor, *, out: Any = None) -> Tensor:
    """True where input is -inf (a bool tensor, no gradient)."""
    return write_out(
        _no_grad_result(_check_tensor(input, "isneginf").array == -math.inf),
        out,
        "isneginf",
        exact_dtype=True,
    )


def deg2rad(input: Tensor, *, out: Any = None) -> Tensor:
    """Degrees to radians: input * pi / 180."""
    return write_out(mul(_float_input(input, "deg2rad"), math.pi / 180), out, "deg2rad")


def rad2deg(input: Tensor, *, out: Any = None) -> Tensor:
    """Radians to degrees: input * 180 / pi."""
    return write_out(mul(_float_input(input, "rad2deg"), 180 / math.pi), out, "rad2deg")


def float_power(input: Any, exponent: Any, *, out: Any = None) -> Tensor:
    """input ** exponent computed in float64, whatever the dtypes (as PyTorch's)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        _check_tensor(input, "float_power")  # raises: at least one must be a tensor
    if isinstance(input, Tensor) and isinstance(exponent, Tensor):
        _check_broadcast(input.array.shape, exponent.array.shape, "float_power")
    base = cast(input, _dtypes.float64) if isinstance(input, Tensor) else input
    power = cast(exponent, _dtypes.float64) if isinstance(exponent, Tensor) else exponent
    return write_out(pow(base, power), out, "float_power", exact_dtype=True)


def fmax(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The larger of the two, elementwise, ignoring a nan (nan only where both are)."""
    return write_out(elementwise.Fmax.apply(*_tensor_operands(input, other, "fmax")), out, "fmax")


def fmin(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The smaller of the two, elementwise, ignoring a nan (nan only where both are)."""
    return write_out(elementwise.Fmin.apply(*_tensor_operands(input, other, "fmin")), out, "fmin")


def square(input: Tensor, *, out: Any = None) -> Tensor:
    """input * input (integers stay integers, as in PyTorch)."""
    return write_out(pow(_check_tensor(input, "square"), 2), out, "square")


def reciprocal(input: Tensor, *, out: Any = None) -> Tensor:
    """1 / input (integers give floats, as in PyTorch)."""
    (input,) = autocast_inputs("reciprocal", input)
    x = _float_input(input, "reciprocal")
    return write_out(elementwise.Reciprocal.apply(x), out, "reciprocal")


def sigmoid(input: Tensor, *, out: Any = None) -> Tensor:
    return write_out(elementwise.Sigmoid.apply(_float_input(input, "sigmoid")), out, "sigmoid")


def relu(input: Tensor) -> Tensor:
    """max(input, 0) elementwise; not for bool tensors, as in PyTorch."""
    if _check_tensor(input, "relu").dtype is _dtypes.bool:
        raise RuntimeError("relu: Boolean inputs not supported; convert with .int() first")
    return elementwise.Relu.apply(input)


def _floating_only(x: Tensor, op: str, name: str = "input") -> Tensor:
    """``x`` itself if it is a floating tensor; PyTorch has no integer or bool kernel for
    ``op`` (elu, hardshrink, prelu...), so neither do we: NotImplementedError, as there."""
    if not _check_tensor(x, op, name).dtype.is_floating_point:
        raise NotImplementedError(
            f"{op}: not implemented for {x.dtype} tensors, as in PyTorch; convert the {name} "
            "with .float() first"
        )
    return x


def hardshrink(input: Tensor, lambd: float = 0.5, *, out: Any = None) -> Tensor:
    """0 where |input| <= lambd, else input."""
    x = _floating_only(input, "hardshrink")
    # |x| <= lambd picks 0, so a nan goes to x (gradient 1) and the edges get 0, as in PyTorch
    return write_out(where(abs(x) <= lambd, 0.0, x), out, "hardshrink", exact_dtype=True)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """input where input > 0, else weight * input: one slope, or one per channel (dim 1)."""
    input, weight = autocast_inputs("prelu", input, weight)
    x, w = _check_tensor(input, "prelu"), _check_tensor(weight, "prelu", "weight")
    if x.dtype is not w.dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {x.dtype} input and {w.dtype} weight; "
            "convert the weight with .to(input.dtype)"
        )
    _floating_only(x, "prelu")
    if w.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {w.ndim}"
        )
    channels = x.shape[1] if x.ndim >= 2 else 1  # fewer than 2 dims: one channel
    if w.numel() == 1:
        w = w.reshape(())
    elif w.numel() == channels:  # (C,) -> (C, 1, ...): one slope per position along dim 1
        w = w.reshape((channels,) + (1,) * (x.ndim - 2))
    else:
        raise RuntimeError(
            f"prelu: Mismatch of parameter numbers and input channel size. Found parameter "
            f"numbers = {w.numel()} and channel size = {channels} (input shape "
            f"{tuple(x.shape)}: the channels are dim 1)"
        )
    return where(x > 0, x, w * x)


def gelu(input: Tensor, *, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):  # (RuntimeError, as PyTorch's kernel raises)
        raise RuntimeError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return elementwise.Gelu.apply(_floating_only(input, "gelu"), approximate=approximate)


def abs(input: Tensor, *, out: Any = None) -> Tensor:
    """|input| elementwise; not for bool tensors, as in PyTorch."""
    if _check_tensor(input, "abs").dtype is _dtypes.bool:
        raise NotImplementedError(
            "abs: not implemented for bool tensors, as in PyTorch; convert with .int() first"
        )
    return write_out(elementwise.Abs.apply(input), out, "abs", exact_dtype=True)


absolute = abs  # PyTorch's other name for it


def clamp(input: Tensor, min: Any = None, max: Any = None, *, out: Any = None) -> Tensor:
    """input limited to [min, max] elementwise; the bounds are numbers or tensors."""
    _check_tensor(input, "clamp")
    if min is None and max is None:
        raise RuntimeError("clamp: at least one of 'min' or 'max' must not be None")
    min, max = _plain_number(min), _plain_number(max)  # (a NumPy number as a Python one)
    for name, bound in (("min", min), ("max", max)):
        if not isinstance(bound, (Tensor, type(None), *_Number)):
            raise TypeError(
                f"clamp: {name} must be a number or a Tensor, got {type(bound).__name__} "
                f"(for a list, use microtorch.tensor({name}))"
            )
    if not input.dtype.is_floating_point and builtins.any(isinstance(b, float) for b in (min, max)):
        input = cast(input, _dtypes.get_default_dtype())  # int tensor, float bound -> float32
    if isinstance(min, Tensor) or isinstance(max, Tensor):  # tensor bounds: all one dtype
        bounds = [b if b is None else as_tensor_like(b, input) for b in (min, max)]
        given = [input] + [b for b in bounds if b is not None]
        dtype = _promote_tensors(*given)
        for i, a in enumerate(given):
            for b in given[i + 1 :]:
                _check_broadcast(a.array.shape, b.array.shape, "clamp")
        low, high = (b if b is None else cast(b, dtype) for b in bounds)
        return write_out(
            elementwise.ClampTensors.apply(cast(input, dtype), low, high), out, "clamp"
        )
    if input.dtype is _dtypes.bool and builtins.all(
        b is None or isinstance(b, builtins.bool) for b in (min, max)
    ):
        raise NotImplementedError(
            "clamp: not implemented for a bool tensor with bool bounds, as in PyTorch; "
            "convert the tensor first, e.g. with .int()"
        )
    low, high = (_fitted_number(b, input.dtype, "clamp") for b in (min, max))
    return write_out(
        elementwise.Clamp.apply(input, min=low, max=high), out, "clamp", exact_dtype=True
    )


clip = clamp


def _one_bound(input: Tensor, bound: Any, op: str) -> Tensor:
    """The tensor argument checked, and the bound of clamp_min/clamp_max, which (unlike
    clamp's) must be given: a number or a tensor, as in PyTorch."""
    _check_tensor(input, op)
    if bound is None:
        raise TypeError(f"{op}: the bound must be a number or a Tensor, not None")
    return input


def clamp_min(input: Tensor, min: Any, *, out: Any = None) -> Tensor:
    """input limited from below by ``min`` (a number or a tensor): clamp(input, min=min)."""
    result = clamp(_one_bound(input, min, "clamp_min"), min, None)
    return write_out(result, out, "clamp_min", exact_dtype=not isinstance(min, Tensor))


def clamp_max(input: Tensor, max: Any, *, out: Any = None) -> Tensor:
    """input limited from above by ``max`` (a number or a tensor): clamp(input, max=max)."""
    result = clamp(_one_bound(input, max, "clamp_max"), None, max)
    return write_out(result, out, "clamp_max", exact_dtype=not isinstance(max, Tensor))


def maximum(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The larger of the two tensors elementwise (nan if either is nan)."""
    return write_out(
        elementwise.Maximum.apply(*_tensor_operands(input, other, "maximum")), out, "maximum"
    )


def minimum(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The smaller of the two tensors elementwise (nan if either is nan)."""
    return write_out(
        elementwise.Minimum.apply(*_tensor_operands(input, other, "minimum")), out, "minimum"
    )


def where(condition: Tensor, input: Any = None, other: Any = None, *, out: Any = None) -> Any:
    """input where condition is True, else other; ``where(condition)`` alone is
    ``nonzero(condition, as_tuple=True)``, as in PyTorch."""
    if input is None and other is None:
        return write_out(nonzero(condition, as_tuple=True), out, "where", exact_dtype=True)
    _check_tensor(condition, "where", "condition")
    if condition.array.dtype == "uint8":  # PyTorch still takes it, with a deprecation warning
        warn_user("where: a uint8 condition is deprecated in PyTorch; use a bool condition")
        condition = cast(condition, _dtypes.bool)
    if condition.array.dtype != bool:
        raise RuntimeError(
            f"where: condition must be a bool tensor, got {condition.dtype}; compare first "
            "(x > 0) or use .bool()"
        )
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = as_tensor_like(input, condition)  # where(mask, 1.0, 0.0): numbers only
    # a number beside a tensor must fit the result's dtype (PyTorch raises, it does not wrap)
    input, other = _plain_number(input), _plain_number(other)
    if isinstance(input, Tensor) and isinstance(other, _Number):
        other = _fitted_number(other, result_type(input, other), "where")
    elif isinstance(other, Tensor) and isinstance(input, _Number):
        input = _fitted_number(input, result_type(input, other), "where")
    a, b = _binary_operands(input, other, "where")
    for t in (a, b):  # a and b fit each other; each must also fit the condition
        if isinstance(t, Tensor):
            _check_broadcast(condition.array.shape, t.array.shape, "where")
    return write_out(elementwise.Where.apply(condition, a, b), out, "where", exact_dtype=True)


def nonzero(input: Tensor, *, as_tuple: bool = False, out: Any = None) -> Any:
    """The indices of the non-zero elements: an (n, input.ndim) int64 tensor, or with
    ``as_tuple=True`` one 1-D int64 tensor per dim (which ``x[...]`` takes). No gradient.
    On a GPU the host waits for the answer: its size depends on the values."""
    _check_tensor(input, "nonzero")
    xp = backend.xp_of(input.array)
    if as_tuple:  # a 0-d input counts as 1-d, as in PyTorch
        found = xp.nonzero(input.array.reshape(-1) if input.ndim == 0 else input.array)
        return write_out(
            tuple(Tensor._make(i.astype("int64", copy=False)) for i in found),
            out,
            "nonzero",
            exact_dtype=True,
        )
    return write_out(
        Tensor._make(xp.argwhere(input.array).astype("int64", copy=False)),
        out,
        "nonzero",
        exact_dtype=True,
    )


def nonzero_static(input: Tensor, *, size: builtins.int, fill_value: builtins.int = -1,
                   out: Any = None) -> Tensor:  # fmt: skip
    """nonzero(input) with exactly ``size`` rows: the first ``size`` indices, or all of them
    followed by rows of fill_value. A shape known in advance (no wait for the values)."""
    _check_tensor(input, "nonzero_static")
    if isinstance(size, builtins.bool) or not isinstance(size, builtins.int) or size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size!r}")
    found = nonzero(input).array[:size]
    xp = backend.xp_of(found)
    padding = xp.full((size - found.shape[0], input.ndim), fill_value, dtype="int64")
    result = Tensor._make(xp.concatenate([found, padding]))
    return write_out(result, out, "nonzero_static", exact_dtype=True)


def argwhere(input: Tensor) -> Tensor:
    """The indices of the nonzero elements of input, one row each: nonzero(input)."""
    return nonzero(_check_tensor(input, "argwhere"))


def is_floating_point(input: Tensor) -> builtins.bool:
    return _check_tensor(input, "is_floating_point").dtype.is_floating_point


# What PyTorch asks of complex and lazily conjugated or negated tensors; microtorch's dtypes
# are all real, so each answers as PyTorch does for a real tensor.
def is_complex(input: Tensor) -> builtins.bool:
    """False: microtorch has no complex dtypes."""
    return _check_tensor(input, "is_complex").is_complex()


def is_conj(input: Tensor) -> builtins.bool:
    """False: a real tensor is never a lazily conjugated view."""
    return _check_tensor(input, "is_conj").is_conj()


def is_neg(input: Tensor) -> builtins.bool:
    """False: a real tensor is never a lazily negated view."""
    return _check_tensor(input, "is_neg").is_neg()


def conj(input: Tensor) -> Tensor:
    """The complex conjugate: input itself for a real tensor, as in PyTorch."""
    return _check_tensor(input, "conj").conj()


def conj_physical(input: Tensor, *, out: Any = None) -> Tensor:
    """The conjugate, computed now (not lazily): input itself for a real tensor, as PyTorch
    returns it."""
    return write_out(_check_tensor(input, "conj_physical"), out, "conj_physical", exact_dtype=True)


def resolve_conj(input: Tensor) -> Tensor:
    """input itself: a real tensor has no pending conjugation to carry out."""
    return _check_tensor(input, "resolve_conj").resolve_conj()


def resolve_neg(input: Tensor) -> Tensor:
    """input itself: a real tensor has no pending negation to carry out."""
    return _check_tensor(input, "resolve_neg").resolve_neg()


def real(input: Tensor) -> Tensor:
    """The real part: input itself for a real tensor, as in PyTorch."""
    return _check_tensor(input, "real").real


def imag(input: Tensor) -> Tensor:
    """The imaginary part; PyTorch raises for a real tensor, and so does microtorch."""
    return _check_tensor(input, "imag").imag


def is_nonzero(input: Tensor) -> builtins.bool:
    """Whether a one-element tensor's value is not 0 (RuntimeError for any other size)."""
    return _check_tensor(input, "is_nonzero").is_nonzero()


def is_same_size(input: Tensor, other: Tensor) -> builtins.bool:
    """Whether input and other have the same shape."""
    return _check_tensor(input, "is_same_size").is_same_size(other)


def is_signed(input: Tensor) -> builtins.bool:
    """Whether input's dtype holds negative numbers (floats and signed integers)."""
    return _check_tensor(input, "is_signed").is_signed()


def is_inference(input: Tensor) -> builtins.bool:
    """False: microtorch has no inference tensors (inference_mode is no_grad here)."""
    return _check_tensor(input, "is_inference").is_inference()


def get_device(input: Tensor) -> builtins.int:
    """The CUDA device index of input, -1 for a CPU tensor."""
    return _check_tensor(input, "get_device").get_device()


def cast(input: Tensor, dtype: Any) -> Tensor:
    target = _dtypes.get_dtype(dtype)
    if input.array.dtype == target.np:
        return input
    if target.is_floating_point and input.array.dtype.kind == "f":
        return elementwise.Cast.apply(input, dtype=target.np)
    return Tensor._make(input.array.astype(target.np))  # to or from integers: no gradient


class _ToDevice(Function):
    def forward(self, x, device=None):
        self.source = backend.device_of(x)
        return backend.to_device(x, device)

    def backward(self, grad):
        return backend.to_device(grad, self.source)


def to_device(input: Tensor, device: Any) -> Tensor:
    return _ToDevice.apply(input, device=backend.as_device(device))


class _Clone(Function):
    def forward(self, x, memory_format=_formats.preserve_format):
        return _formats.arranged(x, memory_format, "clone")

    def backward(self, grad):
        return grad


def clone(input: Tensor, *, memory_format: Any = _formats.preserve_format) -> Tensor:
    """A copy with its own memory, laid out as ``memory_format`` says (by default as
    input's strides, as PyTorch's: the copy of a transposed tensor is transposed too)."""
    if memory_format is None:  # (PyTorch's signature writes the default so)
        memory_format = _formats.preserve_format
    return _Clone.apply(_check_tensor(input, "clone"), memory_format=memory_format)


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    return shape_ops.Contiguous.apply(input, memory_format=memory_format)


# ---------------------------------------------------------------- matmul
def matmul(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The matrix product, with NumPy's rules for 1-D operands and batch dims (the @ operator)."""
    input, other = autocast_inputs("matmul", input, other)
    return write_out(_matmul(input, other), out, "matmul", exact_dtype=True)


def _matmul(input: Tensor, other: Tensor) -> Tensor:
    """matmul without autocast's cast: for ops built on it that autocast lists apart from it
    (mv, dot, adaptive pooling...)."""
    input, other = _check_tensor(input, "matmul"), _check_tensor(other, "matmul", "other")
    a, b = input.array.shape, other.array.shape
    if not a or not b:
        raise RuntimeError(
            f"matmul: both arguments need at least 1 dimension, got shapes {a} and {b}"
        )
    k_left = a[-1]
    k_right = b[0] if len(b) == 1 else b[-2]
    if k_left != k_right:
        raise RuntimeError(
            f"matmul: shapes {a} and {b} cannot be multiplied ({k_left} != {k_right})"
        )
    if len(a) > 2 and len(b) > 2:
        _check_broadcast(a[:-2], b[:-2], "matmul (batch dims)")
    _check_same_dtype(input, other, "matmul")
    if input.array.dtype == bool:
        raise NotImplementedError(
            "matmul: not implemented for bool tensors, as in PyTorch; use .long() or .float()"
        )
    return linalg.Matmul.apply(input, other)


def _check_same_dtype(input: Tensor, other: Tensor, op: str) -> None:
    """The products (matmul, mm, bmm, mv, dot) take one dtype: PyTorch does not promote."""
    if input.array.dtype != other.array.dtype:
        raise RuntimeError(
            f"{op}: expected both arguments to have the same dtype, but got {input.dtype} "
            f"and {other.dtype} (shapes {tuple(input.shape)} and {tuple(other.shape)}); cast "
            "one first, e.g. b.to(a.dtype)"
        )


def mm(input: Tensor, mat2: Tensor, *, out: Any = None) -> Tensor:
    """The product of two matrices: (n, k) @ (k, m) -> (n, m); no broadcasting."""
    input, mat2 = autocast_inputs("mm", input, mat2)
    _check_ranks("mm", input, mat2, 2, "matrices")
    return write_out(matmul(input, mat2), out, "mm", exact_dtype=True)


def bmm(input: Tensor, mat2: Tensor, *, out: Any = None) -> Tensor:
    """A batch of matrix products: (b, n, k) @ (b, k, m) -> (b, n, m); no broadcasting."""
    input, mat2 = autocast_inputs("bmm", input, mat2)
    _check_batches("bmm", input, mat2)
    return write_out(matmul(input, mat2), out, "bmm", exact_dtype=True)


def _check_batches(op: str, input: Tensor, mat2: Tensor) -> None:
    """Two batches of matrices that bmm can multiply (one batch size, no broadcasting)."""
    _check_ranks(op, input, mat2, 3, "batches of matrices")
    if input.shape[0] != mat2.shape[0]:
        raise RuntimeError(
            f"{op}: the batch sizes differ: shapes {tuple(input.shape)} and "
            f"{tuple(mat2.shape)}; use matmul to broadcast batch dims"
        )


def _check_ranks(op: str, input: Tensor, mat2: Tensor, ndim: int, what: str) -> None:
    _check_tensor(input, op), _check_tensor(mat2, op, "mat2")
    if input.ndim != ndim or mat2.ndim != ndim:
        raise RuntimeError(
            f"{op}: both arguments must be {ndim}-D {what}, got shapes {tuple(input.shape)} "
            f"and {tuple(mat2.shape)}; matmul (the @ operator) takes other ranks"
        )
    if input.shape[-1] != mat2.shape[-2]:
        raise RuntimeError(
            f"{op}: shapes {tuple(input.shape)} and {tuple(mat2.shape)} cannot be multiplied "
            f"({input.shape[-1]} != {mat2.shape[-2]})"
        )
    _check_same_dtype(input, mat2, op)


def einsum(equation: str, *operands: Any) -> Tensor:
    """Products and sums named by letters, one per dim: einsum("ij,jk->ik", a, b) is a @ b;
    einsum("bhqd,bhkd->bhqk", q, k) the attention scores; einsum("ii", m) the trace.
    Without "->" the output is the letters used once, in alphabetical order (NumPy's and
    PyTorch's rule). "..." stands for the dims the letters leave over (broadcast across
    operands); dims of size 1 broadcast against the same letter elsewhere. PyTorch's
    sublist form, einsum(a, [0, 1], b, [1, 2], [0, 2]), names the dims by numbers."""
    if not isinstance(equation, str):
        equation, operands = _einsum_sublists((equation, *operands))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])  # einsum(eq, [a, b]), as PyTorch also takes it
    return _einsum(equation, operands, autocast=True)


def _einsum_sublists(items: tuple) -> tuple[str, tuple]:
    """The equation and the operands of einsum(op1, sublist1, op2, sublist2, ...,
    [output sublist]): a sublist names its operand's dims by numbers in [0, 52) (0-25 as
    "A"-"Z", 26-51 as "a"-"z", PyTorch's letters) and Ellipsis for "..."."""
    operands, sublists = items[0::2], list(items[1::2])
    if len(items) % 2:  # one more after the last pair: the output's sublist
        *operands, output = operands
        sublists.append(output)

    def letters(sublist: Any) -> str:
        text = ""
        for n in sublist:
            if n is Ellipsis:
                text += "..."
            elif isinstance(n, builtins.int) and 0 <= n < 52:
                text += string.ascii_uppercase[n] if n < 26 else string.ascii_lowercase[n - 26]
            else:
                raise ValueError(
                    f"einsum(): subscript {n!r} in subscript list is not within the valid "
                    "range [0, 52) (nor Ellipsis)"
                )
        return text

    names = [letters(sublist) for sublist in sublists]
    equation = ",".join(names[: len(operands)])
    if len(names) > len(operands):
        equation += "->" + names[-1]
    return equation, tuple(operands)


def _einsum(equation: str, operands: tuple, autocast: builtins.bool) -> Tensor:
    """einsum, with autocast's cast only when ``autocast``: ops built on einsum that
    autocast lists apart from it (tensordot, bilinear) pass False."""
    for i, t in enumerate(operands):
        _check_tensor(t, "einsum", f"operands[{i}]")
    equation = equation.replace(" ", "")
    inputs_part, arrow, output = equation.partition("->")
    inputs = tuple(inputs_part.split(","))
    if len(inputs) != len(operands):
        raise RuntimeError(
            f"einsum: the equation {equation!r} names {len(inputs)} operands, got {len(operands)}"
        )
    if not arrow:
        counts = collections.Counter("".join(inputs).replace(".", ""))
        output = ("..." if "..." in inputs_part else "") + "".join(
            sorted(c for c, n in counts.items() if n == 1)
        )
    inputs, output = _einsum_letters_for_ellipsis(inputs, output, operands)
    for letters, t in zip(inputs, operands):
        if len(letters) != t.ndim:
            raise RuntimeError(
                f"einsum: {letters!r} names {len(letters)} dims for an operand of shape "
                f"{tuple(t.shape)}"
            )
    if autocast and _einsum_contracts(inputs, output):  # (a product summed: PyTorch's bmm)
        operands = autocast_inputs("einsum", *operands)
    target = operands[0].dtype
    for i, t in enumerate(operands):
        if t.dtype is not target:  # PyTorch does not promote here, and neither do we
            raise RuntimeError(
                f"einsum: expected every operand to have dtype {target} (operands[0]'s), but "
                f"operands[{i}] is {t.dtype}; cast it first, e.g. .to({target})"
            )
    if len(operands) == 1 and not target.is_floating_point and set(inputs[0]) - set(output):
        target = _dtypes.int64  # one operand summed over a letter: a sum, int64 as sum gives
    operands = tuple(cast(t, target) for t in operands)
    try:
        return linalg.Einsum.apply(*operands, inputs=inputs, output=output)
    except ValueError as error:  # NumPy's words for sizes or letters that do not fit
        shapes = ", ".join(str(tuple(t.shape)) for t in operands)
        raise RuntimeError(
            f"einsum: {error} (equation {equation!r}, operand shapes {shapes})"
        ) from None


def _einsum_contracts(inputs: tuple, output: str) -> builtins.bool:
    """Does the equation sum a product over a letter (one that two operands share and the
    output leaves out), as "bhqd,bhkd->bhqk" does over d?"""
    shared = [c for c in set("".join(inputs)) if builtins.sum(c in t for t in inputs) > 1]
    return builtins.any(c not in output for c in shared)


def _einsum_letters_for_ellipsis(inputs: tuple, output: str, operands: tuple) -> tuple:
    """Replace each "..." by letters the equation does not use, one per dim it covers,
    aligned from the right across operands (as broadcasting aligns dims)."""
    if "..." not in "".join(inputs) + output:
        return inputs, output
    spare = [c for c in string.ascii_letters if c not in "".join(inputs) + output]
    widths = []
    for letters, t in zip(inputs, operands):
        width = t.ndim - (len(letters) - 3) if "..." in letters else 0
        if width < 0:
            raise RuntimeError(
                f"einsum: {letters!r} names {len(letters) - 3} dims besides '...' for an "
                f"operand of shape {tuple(t.shape)}"
            )
        widths.append(width)
    fill = "".join(spare[: builtins.max(widths, default=0)])
    inputs = tuple(
        letters.replace("...", fill[len(fill) - w :]) for letters, w in zip(inputs, widths)
    )
    return inputs, output.replace("...", fill)  # (no "..." there: those dims are summed)


def outer(input: Tensor, vec2: Tensor, *, out: Any = None) -> Tensor:
    """The (n, m) table of products input[i] * vec2[j] of two 1-D tensors."""
    _check_tensor(input, "outer"), _check_tensor(vec2, "outer", "vec2")
    if input.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(
            f"outer: expected 1-D tensors, got shapes {tuple(input.shape)} and {tuple(vec2.shape)}"
        )
    return write_out(
        mul(input.reshape(-1, 1), vec2.reshape(1, -1)), out, "outer"
    )  # (n, 1) * (1, m) -> (n, m)


ger = outer


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of each matrix in a batch: the last two dims swapped, as
    microtorch's dtypes are all real (a 0-d tensor is itself, as in PyTorch)."""
    return _conj_transpose(input, "tensor.adjoint()")


def _conj_transpose(input: Tensor, name: str) -> Tensor:
    """adjoint() and .mH: refuse a vector, naming the form used."""
    if _check_tensor(input, "adjoint").ndim == 1:
        raise RuntimeError(
            f"{name} is only supported on matrices or batches of matrices. Got 1-D tensor; a "
            "vector has nothing to transpose (use unsqueeze to make a matrix)"
        )
    return input if input.ndim == 0 else transpose(input, -2, -1)


def inner(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The sums of products over the last dim of each: out[i..., j...] = sum_k
    input[i..., k] * other[j..., k] (shape input.shape[:-1] + other.shape[:-1]); a 0-d
    operand just multiplies."""
    _check_tensor(input, "inner"), _check_tensor(other, "inner", "other")
    if input.ndim == 0 or other.ndim == 0:
        return write_out(mul(input, other), out, "inner", exact_dtype=True)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner: the last dimension must match on both input tensors, but got shapes "
            f"{tuple(input.shape)} and {tuple(other.shape)}"
        )
    return write_out(
        tensordot(input, other, ([input.ndim - 1], [other.ndim - 1])),
        out,
        "inner",
        exact_dtype=True,
    )


def dot(input: Tensor, tensor: Tensor, *, out: Any = None) -> Tensor:
    """The sum of products of two 1-D tensors of one size (a 0-d tensor)."""
    input, tensor = autocast_inputs("dot", input, tensor)
    _check_tensor(input, "dot"), _check_tensor(tensor, "dot", "tensor")
    return write_out(_dot(input, tensor, "dot"), out, "dot", exact_dtype=True)


def _dot(input: Tensor, tensor: Tensor, op: str) -> Tensor:
    """dot's product of two 1-D tensors of one size, its errors naming ``op`` (dot, vdot)."""
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(
            f"{op}: 1D tensors expected, but got shapes {tuple(input.shape)} and "
            f"{tuple(tensor.shape)}"
        )
    if input.shape[0] != tensor.shape[0]:
        raise RuntimeError(
            f"{op}: inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
            f"[{tensor.shape[0]}] to have the same number of elements"
        )
    _check_same_dtype(input, tensor, op)
    return _matmul(input, tensor)


def vdot(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The dot product of two 1-D tensors, the first conjugated: dot(), as microtorch's
    dtypes are all real."""
    input, other = autocast_inputs("vdot", input, other)
    _check_tensor(input, "vdot"), _check_tensor(other, "vdot", "other")
    return write_out(_dot(input, other, "vdot"), out, "vdot", exact_dtype=True)


def mv(input: Tensor, vec: Tensor, *, out: Any = None) -> Tensor:
    """Matrix (n, m) times vector (m,) -> (n,)."""
    input, vec = autocast_inputs("mv", input, vec)
    _check_tensor(input, "mv"), _check_tensor(vec, "mv", "vec")
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(
            f"mv: expected a matrix and a vector, got shapes {tuple(input.shape)} and "
            f"{tuple(vec.shape)}"
        )
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(
            f"mv: shapes {tuple(input.shape)} and {tuple(vec.shape)} cannot be multiplied "
            f"({input.shape[1]} != {vec.shape[0]})"
        )
    _check_same_dtype(input, vec, "mv")
    return write_out(_matmul(input, vec), out, "mv", exact_dtype=True)


def addmm(
    input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Any = None
) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2) for matrices; input broadcasts to the product."""
    input, mat1, mat2 = autocast_inputs("addmm", input, mat1, mat2)
    result = _rounded_once(lambda i, x, y: _scaled_sum(i, mm(x, y), beta, alpha, "addmm"),
                           input, mat1, mat2)  # fmt: skip
    return write_out(result, out, "addmm", exact_dtype=True)


def addmv(
    input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Any = None
) -> Tensor:
    """beta * input + alpha * (mat @ vec) for a matrix and a vector."""
    input, mat, vec = autocast_inputs("addmv", input, mat, vec)
    result = _rounded_once(lambda i, x, y: _scaled_sum(i, mv(x, y), beta, alpha, "addmv"),
                           input, mat, vec)  # fmt: skip
    return write_out(result, out, "addmv", exact_dtype=True)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,
           alpha: Any = 1, out: Any = None) -> Tensor:  # fmt: skip
    """beta * input + alpha * the sum over the batch of batch1[b] @ batch2[b]."""
    input, batch1, batch2 = autocast_inputs("addbmm", input, batch1, batch2)
    _check_batches("addbmm", batch1, batch2)
    if batch1.dtype is _dtypes.float16 and batch1.shape[0]:
        # PyTorch's CPU kernel: one addmm per matrix of the batch, each rounded once
        result = input
        for b in builtins.range(batch1.shape[0]):
            result = addmm(result, batch1[b], batch2[b], beta=beta if b == 0 else 1, alpha=alpha)
        return write_out(result, out, "addbmm", exact_dtype=True)
    products = bmm(batch1, batch2)
    return write_out(
        _scaled_sum(input, sum(products, 0, dtype=products.dtype), beta, alpha, "addbmm"),
        out,
        "addbmm",
        exact_dtype=True,
    )


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,
            alpha: Any = 1, out: Any = None) -> Tensor:  # fmt: skip
    """beta * input + alpha * (batch1 @ batch2), a batch of matrix products."""
    input, batch1, batch2 = autocast_inputs("baddbmm", input, batch1, batch2)
    result = _rounded_once(lambda i, x, y: _scaled_sum(i, bmm(x, y), beta, alpha, "baddbmm"),
                           input, batch1, batch2)  # fmt: skip
    return write_out(result, out, "baddbmm", exact_dtype=True)


def addr(
    input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Any = None
) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2); for bool tensors the logical form (beta and
    input) or (alpha and the outer product), as in PyTorch, which also refuses a float beta
    or alpha for integer tensors and a bool one for the others."""
    input, vec1, vec2 = autocast_inputs("addr", input, vec1, vec2)
    _check_tensor(input, "addr"), _check_tensor(vec1, "addr", "vec1")
    target = _promote_tensors(input, vec1, _check_tensor(vec2, "addr", "vec2"))
    for name, value in (("beta", beta), ("alpha", alpha)):
        if isinstance(value, builtins.bool) and target is not _dtypes.bool:
            raise RuntimeError(
                f"addr: Boolean {name} only supported for Boolean results, got {name}={value} "
                f"for {target} tensors; use {builtins.int(value)}"
            )
        if isinstance(value, builtins.float) and not target.is_floating_point:
            raise RuntimeError(
                f"addr: For integral input tensors, argument {name} must not be a floating point "
                f"number, got {name}={value} for {target} tensors"
            )
    if target is _dtypes.bool:
        beta, alpha = builtins.bool(beta), builtins.bool(alpha)
    return write_out(
        _scaled_sum(input, outer(vec1, vec2), beta, alpha, "addr", promote=True), out, "addr"
    )


def _rounded_once(compute: Callable[..., Tensor], *tensors: Tensor) -> Tensor:
    """compute(*tensors); when every tensor is float16, computed in float32 (autocast off,
    which would lower it again) and rounded once, gradients too, as PyTorch's CPU kernels
    compute most float16 ops: written as float16 steps, each step rounds (the activations
    were an ulp or more off in up to a quarter of the entries). Also the add-a-product
    kernels (addmm, addmv, baddbmm), whose float16 product and then sum would round twice.
    (addbmm is not one: PyTorch rounds after each matrix of the batch, addbmm's loop.)"""
    if not builtins.all(isinstance(t, Tensor) and t.dtype is _dtypes.float16 for t in tensors):
        return compute(*tensors)
    with autocast_mode.autocast("cuda" if tensors[0].is_cuda else "cpu", enabled=False):
        return compute(*(t.float() for t in tensors)).half()


def _scaled_sum(input: Tensor, product: Tensor, beta: Any, alpha: Any, op: str,
                promote: bool = False) -> Tensor:  # fmt: skip
    """beta * input + alpha * product, input broadcast to the product's shape. With beta = 0
    input is left out, so nan and inf in it do not reach the result (PyTorch's rule).
    Unless ``promote`` (addr's elementwise rule), input must have the product's dtype, as
    PyTorch's matrix products ask, and for integer products a float beta or alpha is
    truncated to an integer (toward zero), as PyTorch does."""
    shape = tuple(product.shape)
    try:
        fits = tuple(broadcast_shapes(_check_tensor(input, op).shape, shape)) == shape
    except RuntimeError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"{op}: input of shape {tuple(input.shape)} cannot be broadcast to the shape of the "
            f"product, {shape}"
        )
    if not promote and input.dtype is not product.dtype:
        raise RuntimeError(
            f"{op}: input and the matrices must have the same dtype, but got {input.dtype} and "
            f"{product.dtype}; cast input first, e.g. input.to({product.dtype})"
        )
    if not promote and not product.dtype.is_floating_point:
        beta, alpha = builtins.int(beta), builtins.int(alpha)  # PyTorch truncates them for ints
    scaled = product if alpha == 1 else mul(product, alpha)
    if beta == 0 and grad_mode.enabled and input.requires_grad:  # (zeros, in input's graph)
        return add(scaled, full_like_graph(input, 0))  # input's gradient: 0, as in PyTorch
    if beta == 0:
        return scaled
    return add(scaled, input if beta == 1 else mul(input, beta))


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1,
            out: Any = None) -> Tensor:  # fmt: skip
    """input + value * tensor1 * tensor2, all three broadcast together (and computed in the
    dtype the three promote to)."""
    input, tensor1, tensor2 = autocast_inputs("addcmul", input, tensor1, tensor2)
    value = _number_argument(value, "addcmul", "value")
    input, tensor1, tensor2, half = _in_common_dtype(input, tensor1, tensor2, "addcmul")
    result = add(input, mul(mul(tensor1, tensor2), value))
    return write_out(cast(result, _dtypes.float16) if half else result, out, "addcmul")


def _in_common_dtype(input: Tensor, tensor1: Tensor, tensor2: Tensor, op: str) -> tuple:
    """The three operands cast to the dtype addcmul and addcdiv compute in, as PyTorch does:
    the one the three promote to (a float16 tensor1 / tensor2 beside a float32 input is
    divided in float32), but float32 for float16, so that 300 * 300 does not overflow on the
    way; then True, and the caller rounds the result to float16 once."""
    for x, name in ((input, "input"), (tensor1, "tensor1"), (tensor2, "tensor2")):
        _check_tensor(x, op, name)
    for a, b in ((tensor1, tensor2), (input, tensor1), (input, tensor2)):  # all three together
        _check_broadcast(a.shape, b.shape, op)
    target = _promote_tensors(input, tensor1, tensor2)
    half = target is _dtypes.float16
    wide = _dtypes.float32 if half else target
    return cast(input, wide) if half else input, cast(tensor1, wide), cast(tensor2, wide), half


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1,
            out: Any = None) -> Tensor:  # fmt: skip
    """input + value * tensor1 / tensor2, all three broadcast together (Adam's update has
    this form)."""
    input, tensor1, tensor2 = autocast_inputs("addcdiv", input, tensor1, tensor2)
    _check_tensor(input, "addcdiv")
    if not (_check_tensor(tensor1, "addcdiv", "tensor1").dtype.is_floating_point
            or _check_tensor(tensor2, "addcdiv", "tensor2").dtype.is_floating_point):  # fmt: skip
        raise RuntimeError(
            f"addcdiv: integer division is not supported (tensor1 is {tensor1.dtype}, tensor2 "
            f"{tensor2.dtype}), as in PyTorch; write input + value * tensor1 / tensor2"
        )
    value = _number_argument(value, "addcdiv", "value")
    input, tensor1, tensor2, half = _in_common_dtype(input, tensor1, tensor2, "addcdiv")
    result = add(input, mul(div(tensor1, tensor2), value))
    return write_out(cast(result, _dtypes.float16) if half else result, out, "addcdiv")


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """The sum of products over pairs of dims of a and b: an int n pairs a's last n dims
    with b's first n; a pair of lists pairs a's dim dims[0][i] with b's dim dims[1][i]. The
    result has a's other dims, then b's."""
    a, b = autocast_inputs("tensordot", a, b)
    _check_tensor(a, "tensordot", "a"), _check_tensor(b, "tensordot", "b")
    if a.dtype is not b.dtype:  # PyTorch does not promote here
        raise RuntimeError(
            f"tensordot: both inputs should have the same dtype, got {a.dtype} and {b.dtype}; "
            "cast one first, e.g. b.to(a.dtype)"
        )
    if a.dtype is _dtypes.bool:
        raise NotImplementedError("tensordot: not implemented for bool tensors, as in PyTorch")
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (list, tuple)):
        if len(dims) != 2:
            raise RuntimeError(f"tensordot: dims must be an int or two lists of dims, got {dims}")
        dims_a, dims_b = ([d] if isinstance(d, builtins.int) else list(d) for d in dims)
    else:
        n = operator.index(dims)
        if not 0 <= n <= builtins.min(a.ndim, b.ndim):
            raise RuntimeError(
                f"tensordot: dims={n} must be between 0 and the smaller ndim of the shapes "
                f"{tuple(a.shape)} and {tuple(b.shape)}"
            )
        dims_a, dims_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    if len(dims_a) != len(dims_b):
        raise RuntimeError(f"tensordot: the two lists of dims differ in length: {dims}")
    dims_a = [wrap_dim(d, a.ndim, "tensordot") for d in dims_a]
    dims_b = [wrap_dim(d, b.ndim, "tensordot") for d in dims_b]
    for name, wrapped in (("a", dims_a), ("b", dims_b)):
        if len(set(wrapped)) != len(wrapped):  # (einsum would read a diagonal)
            raise RuntimeError(
                f"tensordot: a dim of {name} appears multiple times in the list of dims {dims}"
            )
    letters_a = list(string.ascii_letters[: a.ndim])
    letters_b = list(string.ascii_letters[a.ndim : a.ndim + b.ndim])
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(
                f"tensordot: contracted dims must match in size, but dim {da} of a has "
                f"{a.shape[da]} and dim {db} of b has {b.shape[db]} (shapes {tuple(a.shape)} "
                f"and {tuple(b.shape)})"
            )
        letters_b[db] = letters_a[da]  # one letter for a pair: einsum sums over it
    kept = [c for i, c in enumerate(letters_a) if i not in dims_a]
    kept += [c for i, c in enumerate(letters_b) if i not in dims_b]
    return write_out(
        _einsum(f"{''.join(letters_a)},{''.join(letters_b)}->{''.join(kept)}", (a, b), False),
        out,
        "tensordot",
        exact_dtype=True,
    )


def kron(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The Kronecker product: a block for each element of input, that element times other
    ((m, n) and (p, q) give (m * p, n * q)); the tensor of fewer dims gets leading 1s."""
    _check_tensor(input, "kron"), _check_tensor(other, "kron", "other")
    ndim = builtins.max(input.ndim, other.ndim)
    a_shape = (1,) * (ndim - input.ndim) + tuple(input.shape)
    b_shape = (1,) * (ndim - other.ndim) + tuple(other.shape)
    # (a0, 1, a1, 1, ...) * (1, b0, 1, b1, ...) -> (a0, b0, a1, b1, ...) -> (a0 * b0, ...)
    a = reshape(input, [s for size in a_shape for s in (size, 1)])
    b = reshape(other, [s for size in b_shape for s in (1, size)])
    return write_out(reshape(mul(a, b), [m * n for m, n in zip(a_shape, b_shape)]), out, "kron")


def cross(
    input: Tensor, other: Tensor, dim: builtins.int | None = None, *, out: Any = None
) -> Tensor:
    """The cross product of the 3-vectors along ``dim`` (inputs broadcast). Without dim,
    the first dim of size 3, with PyTorch's warning (torch.linalg.cross takes dim=-1)."""
    input, other = autocast_inputs("cross", input, other)
    _check_tensor(input, "cross"), _check_tensor(other, "cross", "other")
    if input.dtype is _dtypes.bool:  # (checked first, as in PyTorch)
        raise NotImplementedError("cross: not implemented for bool tensors, as in PyTorch")
    if input.dtype is not other.dtype:  # PyTorch does not promote here
        raise RuntimeError(
            f"cross: expected both inputs to have the same dtype, got {input.dtype} and "
            f"{other.dtype}; cast one first, e.g. other.to(input.dtype)"
        )
    if input.ndim != other.ndim:
        raise RuntimeError(
            f"cross: inputs must have the same number of dims, got shapes {tuple(input.shape)} "
            f"and {tuple(other.shape)}"
        )
    _check_broadcast(input.shape, other.shape, "cross")
    shape = tuple(broadcast_shapes(input.shape, other.shape))
    if dim is None:
        warn_user(
            "cross: using cross without dim is deprecated in PyTorch; pass dim= (without it, "
            "the first dim of size 3 is used)"
        )
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError(f"cross: no dim of size 3 in the shape {shape}")
    d = wrap_dim(dim, len(shape), "cross")
    if input.shape[d] != 3 or other.shape[d] != 3:  # (each itself: a size 1 does not stretch)
        raise RuntimeError(
            f"cross: dim {d} must have size 3, got shapes {tuple(input.shape)} and "
            f"{tuple(other.shape)} (both inputs need it; a size 1 does not broadcast here)"
        )
    a, b = broadcast_tensors(input, other)
    # (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0): rolled copies line up the terms
    return write_out(
        sub(mul(roll(a, -1, d), roll(b, -2, d)), mul(roll(a, -2, d), roll(b, -1, d))),
        out,
        "cross",
        exact_dtype=True,
    )


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every way to pick one element of each 1-D tensor, as the rows of an (n0 * n1 * ...,
    k) tensor in itertools.product's order; a single tensor comes back as it is."""
    for i, t in enumerate(tensors):
        if _check_tensor(t, "cartesian_prod", f"tensors[{i}]").ndim != 1:
            raise RuntimeError(
                f"cartesian_prod: expected 1-D tensors, got shape {tuple(t.shape)} at {i}"
            )
    if len(tensors) == 1:
        return tensors[0]
    if builtins.any(t.dtype is not tensors[0].dtype for t in tensors):  # (meshgrid's rule)
        raise RuntimeError(
            "cartesian_prod: expected all tensors to have the same dtype, got "
            f"{', '.join(str(t.dtype) for t in tensors)}"
        )
    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)


def combinations(input: Tensor, r: builtins.int = 2, with_replacement: bool = False) -> Tensor:
    """Every way to choose r elements of the 1-D input (in order, each at most once unless
    with_replacement), as the rows of a (count, r) tensor in itertools' order; r=0 gives an
    empty 1-D tensor. The gradient goes back to the chosen elements."""
    if _check_tensor(input, "combinations").ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return reshape(input, (-1,))[:0]
    import itertools

    choose = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    picks = [list(c) for c in choose(range(input.shape[0]), r)]
    xp = backend.xp_of(input.array)
    index = Tensor._make(xp.asarray(picks, dtype="int64").reshape(-1, r))
    return reshape(index_select(input, 0, reshape(index, (-1,))), (-1, r))


# ---------------------------------------------------------------- reductions


def numpy_names(dim: Any, keepdim: bool, names: dict, op: str) -> tuple:
    """PyTorch's reductions also accept NumPy's spellings ``axis=`` and ``keepdims=``."""
    if "axis" in names:
        dim = names.pop("axis")
    keepdim = names.pop("keepdims", keepdim)
    if names:
        raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(names))}'")
    return dim, keepdim


def sum_to_size(input: Tensor, size: Any) -> Tensor:
    """Sum ``input`` down to ``size``, a shape it can be expanded back to: leading dims it
    lacks are summed away, dims where size has 1 are summed keeping the dim."""
    shape = tuple(_check_tensor(input, "sum_to_size").shape)
    size = whole_numbers(size, "sum_to_size")
    lead = len(shape) - len(size)
    if lead < 0 or builtins.any(s not in (1, n) for s, n in zip(size, shape[lead:])):
        raise RuntimeError(
            f"sum_to_size: size {list(size)} is not expandable to size {list(shape)}; each of "
            "its sizes must match the tensor's trailing sizes or be 1"
        )
    if not size:  # to a 0-d tensor: a plain sum (integers and bools become int64, as PyTorch)
        return sum(input)
    out = sum(input, tuple(range(lead))) if lead else input
    ones = tuple(i for i, (s, n) in enumerate(zip(size, shape[lead:])) if s == 1 and n != 1)
    return sum(out, ones, keepdim=True) if ones else out


def sum(input: Tensor, dim: Any = NO_DIM, keepdim: bool = False, *, dtype: Any = None,
        out: Any = None, **numpy_style: Any) -> Tensor:  # fmt: skip
    """The sum of all elements, or along ``dim``. PyTorch's sum(input) form, without a dim,
    takes no out= (TypeError); dim=None given is "every element" and takes it."""
    if dtype is None:  # (a dtype given is kept under autocast too, as in PyTorch)
        (input,) = autocast_inputs("sum", input)
    _check_tensor(input, "sum")
    if dim is NO_DIM and "axis" not in numpy_style:
        dim = given_dim(dim, "sum", out, keepdim)
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "sum")
    axes = _dims(dim, input.ndim, "sum")
    total = _total_dtype(input, dtype, "sum")
    return write_out(
        reduction.Sum.apply(input, axes=axes, keepdim=keepdim, dtype=total), out, "sum"
    )


def _own_dtype(input: Tensor) -> Any:
    """The dtype= that keeps a sum of floats in their own dtype (as sum does anyway) and so
    out of autocast's float32 list: for ops built on sum that autocast does not list."""
    return input.dtype if input.dtype.is_floating_point else None


def _total_dtype(input: Tensor, dtype: Any, op: str) -> Any:
    """The NumPy dtype a sum or product is computed in: ``dtype`` if given, else int64 for
    integers and bools (as PyTorch does), else None (the input's own)."""
    if dtype is not None:
        target = _dtypes.get_dtype(dtype)
        if not target.is_floating_point and input.requires_grad and grad_mode.enabled:
            raise RuntimeError(
                f"{op}: autograd does not support dtype={target} (an integer result has no "
                "gradient), as in PyTorch; detach() the input first, or use a floating dtype"
            )
        return target.np
    return _dtypes.int64.np if input.array.dtype.kind in "biu" else None


def prod(input: Tensor, dim: Any = NO_DIM, keepdim: bool = False, *, dtype: Any = None,
         out: Any = None, **numpy_style: Any) -> Tensor:  # fmt: skip
    """The product of all elements, or along ``dim``; integers and bools give int64, as in
    PyTorch."""
    if dtype is None:  # (a dtype given is kept under autocast too, as in PyTorch)
        (input,) = autocast_inputs("prod", input)
    _check_tensor(input, "prod")
    dim = given_dim(dim, "prod", *((out, keepdim) if "axis" not in numpy_style else ()))
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "prod")
    if isinstance(dim, (tuple, list)):
        raise TypeError("prod: dim must be one int (PyTorch's prod reduces one dim at a time)")
    axes = _dims(dim, input.ndim, "prod")
    total = _total_dtype(input, dtype, "prod")
    return write_out(
        reduction.Prod.apply(input, axes=axes, keepdim=keepdim, dtype=total), out, "prod"
    )


def mean(input: Tensor, dim: Any = NO_DIM, keepdim: bool = False, *, dtype: Any = None,
         out: Any = None, **numpy_style: Any) -> Tensor:  # fmt: skip
    """The average over ``dim`` (all elements if None or left out); ``dtype``: cast the
    input first. Without a dim it takes no keepdim=, as in PyTorch."""
    _check_tensor(input, "mean")
    if dim is NO_DIM and "axis" not in numpy_style:
        dim = given_dim(dim, "mean", None, keepdim)  # (mean(input, out=...) is PyTorch's too)
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "mean")
    if dtype is not None:
        input = cast(input, _dtypes.get_dtype(dtype))
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be a floating point dtype, "
            f"got {input.dtype}; use .float() first"
        )
    return write_out(
        reduction.Mean.apply(input, axes=_dims(dim, input.ndim, "mean"), keepdim=keepdim),
        out,
        "mean",
    )


def _correction(unbiased: Any, correction: Any) -> Any:
    if correction is not None:
        return correction
    if unbiased is None or unbiased is True:
        return 1
    return 0


def var(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None, out: Any = None, **numpy_style: Any) -> Tensor:  # fmt: skip
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "var")
    return write_out(_variance(input, dim, unbiased, keepdim, correction, "var"), out, "var")


def std(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None, out: Any = None, **numpy_style: Any) -> Tensor:  # fmt: skip
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "std")
    return write_out(_variance(input, dim, unbiased, keepdim, correction, "std"), out, "std")


def _variance(input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any,
              op: str) -> Tensor:  # fmt: skip
    """var, or for op "std" its square root (reduction.Var accumulates in a wider float, as
    PyTorch's CPU kernels: float16 in float32, float32 in float64)."""
    if not _check_tensor(input, "var").dtype.is_floating_point:
        raise RuntimeError(
            f"var/std: only floating point inputs are supported (as in PyTorch), got "
            f"{input.dtype}; use .float() first"
        )
    if isinstance(dim, builtins.bool):  # var(x, False) means unbiased=False
        dim, unbiased = None, dim
    axes, correction = _dims(dim, input.ndim, op), _correction(unbiased, correction)
    n = math.prod(input.shape if axes is None else [input.shape[a] for a in axes])
    if n - correction <= 0:
        warn_user(
            f"var/std: degrees of freedom is <= 0 ({n} elements reduced, correction "
            f"{correction}); the result is inf, or nan where the elements are all equal"
        )
    return reduction.Var.apply(
        input, axes=axes, correction=correction, keepdim=keepdim, root=op == "std"
    )


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None, out: Any = None) -> tuple:  # fmt: skip
    """(var, mean) over ``dim`` in one call; ``correction`` and ``unbiased`` as in var."""
    return write_out(
        _with_mean(var, input, dim, unbiased, keepdim, correction, "var_mean"), out, "var_mean"
    )


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None, out: Any = None) -> tuple:  # fmt: skip
    """(std, mean) over ``dim`` in one call; ``correction`` and ``unbiased`` as in std."""
    return write_out(
        _with_mean(std, input, dim, unbiased, keepdim, correction, "std_mean"), out, "std_mean"
    )


def _with_mean(spread: Any, input: Tensor, dim: Any, unbiased: Any, keepdim: bool,
               correction: Any, op: str) -> tuple:  # fmt: skip
    if not _check_tensor(input, op).dtype.is_floating_point:
        raise RuntimeError(f"{op}: only floating point inputs are supported, got {input.dtype}")
    if isinstance(dim, builtins.bool):  # var_mean(x, False) means unbiased=False
        dim, unbiased = None, dim
    _dims(dim, input.ndim, op)  # errors under its own name
    average = mean(input, dim, keepdim)
    return spread(input, dim, unbiased, keepdim, correction=correction), average


def cov(input: Tensor, *, correction: builtins.int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:  # fmt: skip
    """The covariance matrix of the variables in the rows of a 2-D input (a 1-D input or a
    single row is one variable; its variance comes back 0-d), the columns its observations.
    fweights (integer counts) and aweights (floating importances) weigh each observation;
    correction=1 is the unbiased estimate (Bessel's), 0 the maximum-likelihood one."""
    if _check_tensor(input, "cov").ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions"
        )
    if isinstance(correction, builtins.bool) or not isinstance(correction, builtins.int):
        raise TypeError(
            f"cov(): argument 'correction' must be int, not {type(correction).__name__}"
        )
    if input.dtype is _dtypes.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input; use .float() first")
    x = _float_input(input, "cov")
    x = reshape(x, (1, -1)) if x.ndim < 2 else x
    n = x.shape[1]
    weights = None
    for name, w, integral in (("fweights", fweights, True), ("aweights", aweights, False)):
        if w is None:
            continue
        _check_cov_weights(_check_tensor(w, "cov", name), name, integral, n)
        weights = w if weights is None else weights * w
    if aweights is not None:  # the result takes aweights' dtype too (float16 x, float32 w)
        x = cast(x, _dtypes.promote_types(x.dtype, aweights.dtype))
    if weights is None:
        total, average = n, mean(x, 1, keepdim=True)
        dof = n - correction
    else:
        total = sum(weights)  # in the weights' dtype (and so dof), as PyTorch computes them
        average = sum(x * weights, 1, keepdim=True) / total
        if aweights is None or correction == 0:
            dof = total - correction
        else:
            dof = total - correction * sum(weights * aweights) / total
    if builtins.bool(dof <= 0):
        warn_user(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations."
        )
        dof = 0 * dof
    centred = x - average
    weighted = centred if weights is None else centred * weights
    out = matmul(weighted, t(centred)) / dof
    return squeeze(out)  # one variable (a 1-D input or one row): 0-d, as in PyTorch


def _check_cov_weights(w: Tensor, name: str, integral: bool, n: builtins.int) -> None:
    """fweights or aweights of cov: 1-D, one per observation, non-negative, of the right kind."""
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {w.ndim} dimensions")  # fmt: skip
    kind = "integral" if integral else "floating point"
    if w.dtype.is_floating_point == integral or w.dtype is _dtypes.bool:
        raise RuntimeError(
            f"cov(): expected {name} to have {kind} dtype but got {name} with {w.dtype} dtype"
        )
    if w.numel() != n:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {w.numel()} != {n}"
        )
    if builtins.bool((w.detach() < 0).any()):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def corrcoef(input: Tensor) -> Tensor:
    """The Pearson correlation coefficients of the variables in the rows of input:
    cov(input) with each entry divided by the two standard deviations, clipped to [-1, 1]."""
    c = cov(_check_tensor(input, "corrcoef"))
    if c.ndim == 0:  # one variable: 1 (nan for no spread), as c / c
        return c / c
    spread = sqrt(diagonal(c))
    return clamp(c / spread[:, None] / spread[None, :], -1, 1)


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None, out: Any = None,
           **numpy_style: Any) -> Tensor:  # fmt: skip
    """sum, with nan counted as zero (and a gradient of zero there)."""
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "nansum")
    _dims(dim, _check_tensor(input, "nansum").ndim, "nansum")  # errors under its own name
    _total_dtype(input, dtype, "nansum")
    if input.dtype.is_floating_point:
        input = elementwise.NanToZero.apply(input)
    return write_out(
        sum(input, dim, keepdim, dtype=_own_dtype(input) if dtype is None else dtype), out, "nansum"
    )


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *,
            dtype: Any = None, out: Any = None, **numpy_style: Any) -> Tensor:  # fmt: skip
    """The mean of the values that are not nan (nan where there are none)."""
    _check_tensor(input, "nanmean")
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "nanmean")
    if not input.dtype.is_floating_point:  # before dtype=: PyTorch checks the input's own
        raise RuntimeError(
            f"nanmean(): expected a floating point input, got {input.dtype}; use .float() first"
        )
    if dtype is not None and not _dtypes.get_dtype(dtype).is_floating_point:
        raise RuntimeError(f"nanmean(): dtype= must be a floating point dtype, got {dtype}")
    _dims(dim, input.ndim, "nanmean")  # errors under its own name
    if dtype is not None:
        input = cast(input, _dtypes.get_dtype(dtype))
    return write_out(
        div(nansum(input, dim, keepdim), sum(logical_not(isnan(input)), dim, keepdim)),
        out,
        "nanmean",
    )


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """How many elements are not zero (over ``dim``, an int or a tuple; all by default),
    as int64. No gradient."""
    axes = _dims(dim, _check_tensor(input, "count_nonzero").ndim, "count_nonzero")
    xp = backend.xp_of(input.array)
    return Tensor._make(xp.asarray((input.array != 0).sum(axis=axes, dtype="int64")))


def histc(
    input: Tensor, bins: builtins.int = 100, min: Any = 0, max: Any = 0, *, out: Any = None
) -> Tensor:
    """How many elements fall into each of ``bins`` equal-width bins between min and max
    (the last bin includes max; elements outside, and nan, are not counted), in input's
    dtype. min == max: the data's own range (widened by 1 each way if that is one value
    too). No gradient."""
    if not _check_tensor(input, "histc").dtype.is_floating_point:
        raise NotImplementedError(f'"histc" is not implemented for {input.dtype}, as in PyTorch')
    bins = _int_argument(bins, "histc", "bins")
    if bins <= 0:
        raise RuntimeError(f"histc: bins must be > 0, but got {bins}")
    a = input.array
    xp = backend.xp_of(a)
    low, high = _float_argument(min, "histc", "min"), _float_argument(max, "histc", "max")
    if low == high and a.size:
        low, high = builtins.float(a.min()), builtins.float(a.max())
    if low == high:
        low, high = low - 1, high + 1
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"histc: range of [{low}, {high}] is not finite")
    if low > high:
        raise RuntimeError(f"histc: max must be larger than min (got min={min}, max={max})")
    inside = (a >= low) & (a <= high)  # (False for nan)
    position = (a[inside] - low) * bins / (high - low)  # the bin, as PyTorch computes it
    which = xp.minimum(position.astype("int64"), bins - 1)  # max goes into the last bin
    return write_out(
        Tensor._make(xp.bincount(which, minlength=bins).astype(a.dtype)),
        out,
        "histc",
        exact_dtype=True,
    )


def _bin_edges(values: Any, bins: Any, limits: Any, dim: builtins.int, like: Tensor) -> Any:
    """The increasing bin edges of one dimension of a histogram (an array in ``like``'s
    dtype): ``bins`` itself when it is a tensor of edges, else ``bins`` equal bins over
    ``limits`` (low, high), or over the values' own range (one value: widened by 0.5 each
    way; none: [0, 1])."""
    xp = backend.xp_of(values)
    if isinstance(bins, Tensor):
        if bins.dtype is not like.dtype or bins.ndim != 1:
            raise RuntimeError(
                f"torch.histogramdd: bins must be a 1-D tensor of input's dtype {like.dtype}, "
                f"got shape {tuple(bins.shape)} and dtype {bins.dtype}"
            )
        return bins.array
    if bins <= 0:
        raise RuntimeError(
            f"torch.histogram(): bins must be > 0, but got {bins} for dimension {dim}"
        )
    if limits is not None:
        low, high = builtins.float(limits[0]), builtins.float(limits[1])
    elif values.size:
        low, high = builtins.float(values.min()), builtins.float(values.max())
    else:
        low, high = 0.0, 1.0
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(
            f"torch.histogramdd: dimension {dim}'s range [{low}, {high}] is not finite"
        )
    if low > high:
        raise RuntimeError(
            f"torch.histogramdd: min should not exceed max, but got min {low} max {high}"
        )
    if low == high:
        low, high = low - 0.5, high + 0.5
    return xp.linspace(low, high, bins + 1).astype(values.dtype)


def _bin_of(values: Any, edges: Any) -> tuple:
    """(bin index of each value, whether it falls inside the edges): every bin holds its
    left edge, the last its right one too; nan falls outside."""
    xp = backend.xp_of(values)
    which = xp.searchsorted(edges, values, side="right") - 1
    n = edges.shape[0] - 1
    which = xp.where(values == edges[-1], n - 1, which)  # the last bin holds its right edge
    return which, (which >= 0) & (which < n)  # (nan sorts after every edge: outside)


def histogram(input: Tensor, bins: Any = 100, *, range: Any = None, weight: Tensor | None = None,
              density: bool = False, out: Any = None) -> return_types.histogram:  # fmt: skip
    """(hist, bin_edges): how many elements (or how much weight) fall into each bin. bins is
    a number of equal bins over ``range`` (the data's own by default; one value is widened
    by 0.5 each way) or a 1-D tensor of increasing edges; every bin holds its left edge, the
    last its right one too. density=True divides by the total and the bin widths. No
    gradient; input and edges share input's floating dtype."""
    if not _check_tensor(input, "histogram").dtype.is_floating_point:
        raise NotImplementedError(f'"histogramdd" not implemented for {input.dtype}')
    a = input.array.reshape(-1)
    xp = backend.xp_of(a)
    edges = _bin_edges(a, bins, range, 0, input)
    which, inside = _bin_of(a, edges)
    n = edges.shape[0] - 1
    w = None if weight is None else _check_tensor(weight, "histogram", "weight").array.reshape(-1)
    if w is not None and w.shape != a.shape:
        raise RuntimeError(
            f"histogram: weight of shape {tuple(weight.shape)} must match input's "
            f"{tuple(input.shape)}"
        )
    counts = xp.bincount(
        which[inside], None if w is None else w[inside], minlength=builtins.max(n, 0)
    )
    hist = counts.astype(a.dtype)
    if density:
        hist = hist / (hist.sum() * xp.diff(edges))
    return write_out(
        return_types.histogram(Tensor._make(hist.astype(a.dtype)), Tensor._make(edges.copy())),
        out,
        "histogram",
    )


def histogramdd(input: Tensor, bins: Any = 10, range: Any = None,
                weight: Tensor | None = None,
                density: bool = False) -> return_types.histogramdd:  # fmt: skip
    """(hist, bin_edges): a D-dimensional histogram of the points in ``input`` (its last dim
    holds each point's D coordinates). ``bins`` is one count for every dimension, one count
    per dimension, or one 1-D tensor of edges per dimension; ``range`` is (low0, high0,
    low1, high1, ...). Bins are as histogram's; density=True makes hist integrate to 1.
    No gradient."""
    _check_tensor(input, "histogramdd")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"histogramdd" not implemented for {input.dtype}')
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    d = input.shape[-1]
    points = input.array.reshape(-1, d)
    xp = backend.xp_of(points)
    per_dim = [bins] * d if isinstance(bins, builtins.int) else list(bins)
    if len(per_dim) != d:
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the "
            f"input (got {len(per_dim)} bins for points of {d} coordinates)."
        )
    if range is not None and len(range) != 2 * d:
        raise RuntimeError(
            f"torch.histogramdd: for a {d}-dimensional histogram range should have {2 * d} "
            f"elements, but got {len(range)}"
        )
    edges, flat, inside = [], xp.zeros(points.shape[0], dtype=xp.int64), None
    for k in builtins.range(d):
        limits = None if range is None else (range[2 * k], range[2 * k + 1])
        e = _bin_edges(points[:, k], per_dim[k], limits, k, input)
        which, ok = _bin_of(points[:, k], e)
        flat = flat * (e.shape[0] - 1) + xp.where(ok, which, 0)  # the bin's row-major index
        inside = ok if inside is None else inside & ok
        edges.append(e)
    shape = tuple(e.shape[0] - 1 for e in edges)
    w = None
    if weight is not None:
        if tuple(_check_tensor(weight, "histogramdd", "weight").shape) != tuple(input.shape[:-1]):
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape "
                "as the input tensor excluding its innermost dimension, but got input with "
                f"shape {list(input.shape)} and weight with shape {list(weight.shape)}"
            )
        w = weight.array.reshape(-1)[inside]
    size = math.prod(shape)
    counts = xp.bincount(flat[inside], w, minlength=size) if size else xp.zeros(0)
    hist = counts.astype(points.dtype).reshape(shape)
    if density:
        volume = xp.diff(edges[0])  # each bin's volume: the product of its widths
        for e in edges[1:]:
            volume = volume[..., None] * xp.diff(e)
        hist = hist / (hist.sum() * volume)
    return return_types.histogramdd(
        Tensor._make(hist.astype(points.dtype)), tuple(Tensor._make(e.copy()) for e in edges)
    )


def bincount(input: Tensor, weights: Tensor | None = None, minlength: builtins.int = 0) -> Tensor:
    """How many times each value 0, 1, ..., max(input) occurs in the 1-D non-negative
    integer ``input`` (at least ``minlength`` counts); with ``weights``, the sum of the
    weights of each value's elements (float32 weights give float32, others float64). No
    gradient."""
    _check_tensor(input, "bincount")
    if input.array.dtype.kind in "fb":
        raise NotImplementedError(f'"bincount" is not implemented for {input.dtype}')
    a = input.array
    if input.ndim != 1 or a.dtype.kind not in "iu" or (a.size and builtins.bool((a < 0).any())):
        raise RuntimeError(
            f"bincount only supports 1-d non-negative integral inputs, got {input.dtype} of "
            f"shape {tuple(input.shape)}"
        )
    if minlength < 0:
        raise RuntimeError(f"bincount: minlength should be >= 0, got {minlength}")
    xp = backend.xp_of(a)
    if weights is None:
        return Tensor._make(xp.bincount(a, minlength=minlength).astype("int64", copy=False))
    if tuple(_check_tensor(weights, "bincount", "weights").shape) != tuple(input.shape):
        raise RuntimeError(
            f"bincount: weights of shape {tuple(weights.shape)} should have the same length as "
            f"input {tuple(input.shape)}"
        )
    dtype = "float32" if weights.dtype is _dtypes.float32 else "float64"
    counts = xp.bincount(a, weights=weights.array.astype("float64"), minlength=minlength)
    return Tensor._make(counts.astype(dtype))


def median(input: Tensor, dim: Any = NO_DIM, keepdim: bool = False, *, out: Any = None) -> Any:
    """The middle value, the lower of the two middles for an even count (as PyTorch), or nan
    if there is a nan; with ``dim``, the (values, indices) of each row's median along dim.
    The gradient of median() is shared by the elements equal to it, that of median(dim=) goes
    to the index returned, as in PyTorch."""
    dim = given_dim(dim, "median", out, keepdim)
    _refuse_bool(input, "median", dim)
    if dim is None:
        flat = reshape(input.detach(), (-1,))  # (only to find the middle)
        if flat.shape[0] == 0:  # as in PyTorch: nan, in the graph (the lowest int for ints)
            if input.dtype.is_floating_point:
                return write_out(mul(sum(input), math.nan), out, "median")
            low = numpy.iinfo(flat.array.dtype).min
            return write_out(
                Tensor._make(backend.xp_of(flat.array).full((), low, flat.array.dtype)),
                out,
                "median",
            )
        middle = _sorted_position(flat, 0, (flat.shape[0] - 1) // 2, True, "median")
        return write_out(
            reduction.MedianAll.apply(input, position=middle.reshape(())), out, "median"
        )
    d = wrap_dim(dim, input.ndim, "median")
    n = input.shape[d] if input.ndim else 1
    return write_out(
        _order_statistic(input, d, keepdim, (n - 1) // 2, True, "median"), out, "median"
    )


def kthvalue(
    input: Tensor,
    k: builtins.int,
    dim: builtins.int = -1,
    keepdim: bool = False,
    *,
    out: Any = None,
) -> Any:
    """The k-th smallest value along ``dim`` (k counts from 1) and where it came from:
    (values, indices); nan counts as larger than any number. The gradient goes to the
    chosen element."""
    d = wrap_dim(dim, _refuse_bool(input, "kthvalue").ndim, "kthvalue")
    k = _int_argument(k, "kthvalue", "k")
    n = input.shape[d] if input.ndim else 1
    _check_reduced_dims_not_empty(input, (d,) if input.ndim else (), "kthvalue")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue: k ({k}) is out of range for dim {d} of size {n}")
    return write_out(_order_statistic(input, d, keepdim, k - 1, False, "kthvalue"), out, "kthvalue")


def _refuse_bool(input: Any, op: str, dim: Any = None) -> Tensor:
    """input, if it is a tensor that is not bool: PyTorch has no median or kthvalue of bools
    (it checks ``dim`` first: out of range, or an empty one, raises IndexError before)."""
    if _check_tensor(input, op).array.dtype == bool:
        if dim is not None:
            d = wrap_dim(dim, input.ndim, op)
            _check_reduced_dims_not_empty(input, (d,) if input.ndim else (), op)
        raise NotImplementedError(
            f"{op}: not implemented for bool tensors, as in PyTorch; use .long() first"
        )
    return input


def _order_statistic(input: Tensor, d: builtins.int, keepdim: bool, position: builtins.int,
                     nan_wins: bool, op: str) -> Any:  # fmt: skip
    """The element at ``position`` of each row along d once sorted, and its index in input."""
    if input.ndim == 0:
        xp = backend.xp_of(input.array)
        return getattr(return_types, op)(clone(input), Tensor._make(xp.zeros((), dtype="int64")))
    index = _sorted_position(input, d, position, nan_wins, op)
    values = gather(input, d, Tensor._make(index))
    if not keepdim:
        values, index = squeeze(values, d), index.squeeze(d)
    return getattr(return_types, op)(values, Tensor._make(index.astype("int64", copy=False)))


def _sorted_position(input: Tensor, d: builtins.int, position: builtins.int,
                     nan_wins: bool, op: str) -> Any:  # fmt: skip
    """The index along d (an int64 array keeping dim d, of size 1) of the element at
    ``position`` of each row once sorted; with ``nan_wins`` a row holding nan gives its first
    nan instead (median)."""
    _check_reduced_dims_not_empty(input, (d,), op)
    xp = backend.xp_of(input.array)
    index = xp.take(_sort_order(input, d, False, op), xp.asarray([position]), axis=d)
    if nan_wins and input.dtype.is_floating_point:
        nan = xp.isnan(input.array)
        first_nan = xp.expand_dims(xp.argmax(nan, axis=d), d)
        index = xp.where(nan.any(axis=d, keepdims=True), first_nan, index)
    return index


def nanmedian(input: Tensor, dim: Any = NO_DIM, keepdim: bool = False, *, out: Any = None) -> Any:
    """median ignoring nan: the lower middle of the values that are not nan (nan if there are
    none); with ``dim``, (values, indices) per row. Gradients as median's."""
    dim = given_dim(dim, "nanmedian", out, keepdim)
    _refuse_bool(input, "nanmedian", dim)
    if not input.dtype.is_floating_point:  # integers have no nan: median (dim checked here)
        if dim is not None:
            d = wrap_dim(dim, input.ndim, "nanmedian")
            _check_reduced_dims_not_empty(input, (d,) if input.ndim else (), "nanmedian")
        return write_out(median(input, NO_DIM if dim is None else dim, keepdim), out, "nanmedian")
    if dim is None:
        flat = reshape(input.detach(), (-1,))
        count = builtins.int((~backend.xp_of(flat.array).isnan(flat.array)).sum())
        if count == 0:  # empty or all nan: median() gives nan
            return write_out(median(input), out, "nanmedian")
        middle = _sorted_position(flat, 0, (count - 1) // 2, False, "nanmedian")
        return write_out(
            reduction.MedianAll.apply(input, position=middle.reshape(())), out, "nanmedian"
        )
    d = wrap_dim(dim, input.ndim, "nanmedian")
    if input.ndim == 0:
        return write_out(
            _order_statistic(input, d, keepdim, 0, False, "nanmedian"), out, "nanmedian"
        )
    _check_reduced_dims_not_empty(input, (d,), "nanmedian")
    xp = backend.xp_of(input.array)
    counts = (~xp.isnan(input.array)).sum(axis=d, keepdims=True)
    middle = xp.maximum(counts - 1, 0) // 2  # nan sorts last: the middle of the rest
    index = xp.take_along_axis(_sort_order(input, d, False, "nanmedian"), middle, axis=d)
    values = gather(input, d, Tensor._make(index))
    if not keepdim:
        values, index = squeeze(values, d), index.squeeze(d)
    return write_out(
        return_types.nanmedian(values, Tensor._make(index.astype("int64", copy=False))),
        out,
        "nanmedian",
    )


def mode(
    input: Tensor, dim: builtins.int = -1, keepdim: bool = False, *, out: Any = None
) -> return_types.mode:
    """The most frequent value along ``dim`` (the smallest of them on a tie, as PyTorch) and
    the index of its last occurrence; (values, indices). The gradient goes to that index."""
    d = wrap_dim(dim, _check_tensor(input, "mode").ndim, "mode")
    if input.ndim == 0:
        return write_out(_order_statistic(input, d, keepdim, 0, False, "mode"), out, "mode")
    if input.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    xp = backend.xp_of(input.array)
    rows = xp.moveaxis(input.array, d, -1)
    order = xp.argsort(rows, axis=-1, kind="stable")  # equal values keep their order
    ordered = xp.take_along_axis(rows, order, axis=-1)
    n = ordered.shape[-1]
    starts = xp.ones(ordered.shape, dtype=bool)  # where a run of equal values begins
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]  # (nan != nan: each is its own run)
    positions = xp.arange(n, dtype="int64")
    run_start = reduction.running_extreme(xp.where(starts, positions, 0), -1, "maximum")
    longest_end = xp.argmax(positions - run_start, axis=-1)  # the first longest run: smallest
    last = xp.take_along_axis(order, longest_end[..., None], axis=-1)[..., 0]  # (stable sort)
    index = xp.expand_dims(last, d).astype("int64", copy=False)
    values = gather(input, d, Tensor._make(index))
    if not keepdim:
        values, index = squeeze(values, d), index.squeeze(d)
    return write_out(return_types.mode(values, Tensor._make(index)), out, "mode")


def cumprod(input: Tensor, dim: builtins.int, *, dtype: Any = None, out: Any = None) -> Tensor:
    """The running product along ``dim``: element k is input[0] * ... * input[k]. Integers
    and bools give int64 unless ``dtype`` says otherwise, as in PyTorch; the gradient is
    exact where the input holds zeros."""
    (input,) = autocast_inputs("cumprod", input)
    d = wrap_dim(dim, _check_tensor(input, "cumprod").ndim, "cumprod")
    total = _total_dtype(input, dtype, "cumprod")
    if input.ndim == 0:
        return write_out(reshape(cumprod(reshape(input, (1,)), 0, dtype=dtype), ()), out, "cumprod")
    if dtype is not None:  # cast first, as PyTorch does: the product is taken in that dtype
        input = cast(input, dtype)
    return write_out(reduction.Cumprod.apply(input, axis=d, dtype=total), out, "cumprod")


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: Any = None,
              dim: builtins.int = -1) -> Tensor:  # fmt: skip
    """The trapezoidal rule along ``dim``: the area under y, its samples ``dx`` apart (1 by
    default) or at the positions ``x`` (1-D along dim, or y's shape), each interval counting
    the mean of its two ends times its width."""
    d = wrap_dim(dim, _check_tensor(y, "trapezoid", "y").ndim, "trapezoid")
    if x is not None and dx is not None:
        raise TypeError("trapezoid: give the sample positions x or their spacing dx, not both")
    if y.dtype is _dtypes.bool or (isinstance(x, Tensor) and x.dtype is _dtypes.bool):
        raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is not "
                           "supported; convert it with .float()")  # fmt: skip
    y = _float_input(y, "trapezoid")
    n = y.shape[d]
    if x is None:
        spacing = 1 if dx is None else dx
        if n == 0:
            return sum(y, d)  # zeros
        ends = select(y, d, 0) + select(y, d, n - 1)
        return (sum(y, d) - ends / 2) * spacing
    x = _check_tensor(x, "trapezoid", "x")
    if x.ndim == 1:
        if x.shape[0] != n:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        widths = reshape(diff(x), (-1,) + (1,) * (y.ndim - d - 1))
    else:
        widths = diff(x, dim=d)
    if n == 0:
        return sum(y, d)
    middles = narrow(y, d, 1, n - 1) + narrow(y, d, 0, n - 1)
    return sum(widths * middles, d) / 2


def trapz(y: Tensor, x: Tensor | None = None, *, dx: Any = None, dim: builtins.int = -1) -> Tensor:
    """trapezoid under its older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cummax(input: Tensor, dim: builtins.int, *, out: Any = None) -> return_types.cummax:
    """The running maximum along ``dim`` and, for each position, the index it came from (the
    latest on a tie; nan, once seen, stays: as PyTorch). The gradient goes to that index."""
    return write_out(_running_extreme(input, dim, "cummax"), out, "cummax")


def cummin(input: Tensor, dim: builtins.int, *, out: Any = None) -> return_types.cummin:
    """The running minimum along ``dim`` and where it came from; as cummax."""
    return write_out(_running_extreme(input, dim, "cummin"), out, "cummin")


def _running_extreme(input: Tensor, dim: builtins.int, op: str) -> Any:
    d = wrap_dim(dim, _check_tensor(input, op).ndim, op)
    xp = backend.xp_of(input.array)
    if input.ndim == 0:
        return getattr(return_types, op)(clone(input), Tensor._make(xp.zeros((), dtype="int64")))
    a = input.array
    running = reduction.running_extreme(a, d, "maximum" if op == "cummax" else "minimum")
    record = a == running  # a new extreme, or equal to it: the later index wins
    if input.dtype.is_floating_point:
        record |= xp.isnan(a)  # each nan is a new extreme (maximum/minimum keep nan)
    n = a.shape[d]
    positions = xp.arange(n, dtype="int64").reshape((n,) + (1,) * (a.ndim - d - 1))
    index = reduction.running_extreme(xp.where(record, positions, 0), d, "maximum")
    return getattr(return_types, op)(gather(input, d, Tensor._make(index)), Tensor._make(index))


QUANTILE_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,
             interpolation: str = "linear", out: Any = None) -> Tensor:  # fmt: skip
    """The q-th quantiles (q a number or a 1-D tensor in [0, 1]) along ``dim``, or of all
    elements: between the two sorted values around position q * (n - 1), as
    ``interpolation`` says; nan where a row holds nan. A 1-D q adds a first dim, one per q.
    The gradient goes to those two values (weights 1 - w and w), as in PyTorch."""
    input, q = autocast_inputs("quantile", input, q)
    return write_out(
        _quantile(input, q, dim, keepdim, interpolation, False, "quantile"),
        out,
        "quantile",
        exact_dtype=True,
    )


def nanquantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,
                interpolation: str = "linear", out: Any = None) -> Tensor:  # fmt: skip
    """quantile of the values that are not nan (nan where a row has none)."""
    input, q = autocast_inputs("nanquantile", input, q)
    return write_out(
        _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile"),
        out,
        "nanquantile",
        exact_dtype=True,
    )


def _quantile(input: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str,
              ignore_nan: bool, op: str) -> Tensor:  # fmt: skip
    if not _check_tensor(input, op).dtype.is_floating_point:
        raise RuntimeError(
            f"{op}() input tensor must be either float or double dtype, got {input.dtype}"
        )
    if interpolation not in QUANTILE_INTERPOLATIONS:
        raise RuntimeError(
            f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
            f"but got {interpolation}"
        )
    if not isinstance(q, (numbers.Real, Tensor)):  # (not NumPy's ValueError for "a")
        raise TypeError(f"{op}(): argument 'q' must be float or Tensor, not {type(q).__name__}")
    xp = backend.xp_of(input.array)
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError(
                f"{op}() q must be a scalar or 1D tensor, got shape {tuple(q.shape)}"
            )
        if q.dtype is not input.dtype:
            raise RuntimeError(
                f"{op}() q tensor must be same dtype as the input tensor ({q.dtype} vs "
                f"{input.dtype})"
            )
        qs = q.array.reshape(-1)
    else:
        qs = xp.asarray([q], dtype=input.array.dtype)
    if input.array.size == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    if builtins.bool(((qs < 0) | (qs > 1)).any()):  # (PyTorch checks at once, on a GPU too)
        raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {q}")
    d = wrap_dim(dim, input.ndim, op) if dim is not None else None
    rows = reshape(input, (-1,)) if d is None else movedim(input, d, -1) if input.ndim else input
    rows = reshape(rows, tuple(rows.shape) or (1,))  # a 0-d input: one row of one
    ordered = sort(rows, -1).values  # nan last
    n = ordered.shape[-1]
    nans = xp.isnan(ordered.array)
    has_nan = nans.any(axis=-1, keepdims=True)
    count = (~nans).sum(axis=-1, keepdims=True) if ignore_nan else xp.full(has_nan.shape, n)
    rank = qs * xp.maximum(count - 1, 0).astype(qs.dtype)  # (..., len(q)); all-nan rows: 0
    if not ignore_nan:
        rank = xp.where(has_nan, qs.dtype.type(n - 1), rank)  # a row's nan (sorted last)
    weight = None  # linear between sorted values: d out / d q = (above - below) * (count - 1)
    if interpolation == "linear" and isinstance(q, Tensor) and q.requires_grad:
        scale = Tensor._make(xp.maximum(count - 1, 0).astype(qs.dtype))
        weight = reshape(q, (-1,)) * scale - Tensor._make(xp.floor(rank))
        if not ignore_nan:
            weight = where(Tensor._make(has_nan), Tensor._make(rank - xp.floor(rank)), weight)
    out = _interpolate_sorted(ordered, rank, interpolation, xp, weight)
    out = movedim(out, -1, 0)  # one leading dim per q
    if keepdim:
        kept = [1] * input.ndim if d is None else list(input.shape)
        if d is not None and input.ndim:
            kept[d] = 1
        out = reshape(out, (out.shape[0], *kept))
    return squeeze(out, 0) if not isinstance(q, Tensor) or q.ndim == 0 else out


def _interpolate_sorted(ordered: Tensor, rank: Any, interpolation: str, xp: Any,
                        weight: Tensor | None = None) -> Tensor:  # fmt: skip
    """The value at fractional position ``rank`` of each sorted row: between the values at
    floor(rank) and ceil(rank), as ``interpolation`` says ("nearest" rounds half to even);
    ``weight``: rank - floor(rank) as a tensor that carries q's gradient (linear only)."""
    below, above = xp.floor(rank), xp.ceil(rank)
    if interpolation in ("lower", "higher", "nearest"):
        position = {"lower": below, "higher": above, "nearest": xp.round(rank)}[interpolation]
        return gather(ordered, -1, Tensor._make(position.astype("int64")))
    low = gather(ordered, -1, Tensor._make(below.astype("int64")))
    high = gather(ordered, -1, Tensor._make(above.astype("int64")))
    if weight is None:
        weight = 0.5 if interpolation == "midpoint" else Tensor._make(rank - below)
    return lerp(low, high, weight)


def aminmax(
    input: Tensor, *, dim: Any = None, keepdim: bool = False, out: Any = None
) -> return_types.aminmax:
    """(min, max) as a named tuple: of all elements, or along ``dim``; tied extremes share
    the gradient evenly, as amin and amax."""
    if dim is None and _check_tensor(input, "aminmax").array.size == 0:
        raise RuntimeError("aminmax(): an empty tensor has no minimum or maximum")
    if dim is not None:
        d = wrap_dim(dim, builtins.max(input.ndim, 1), "aminmax")
        _check_reduced_dims_not_empty(input, (d,) if input.ndim else (), "aminmax")
    axes = () if dim is None else dim
    return write_out(
        return_types.aminmax(amin(input, axes, keepdim), amax(input, axes, keepdim)), out, "aminmax"
    )


def _extreme(input: Tensor, dim: Any, keepdim: bool, largest: bool, name: str) -> Any:
    _check_tensor(input, name)
    if isinstance(dim, Tensor):  # max(a, b) is the elementwise maximum
        return maximum(input, dim) if largest else minimum(input, dim)
    if dim is None:
        if input.array.size == 0:
            raise RuntimeError(
                f"{name}(): expected a non-empty tensor, got shape {tuple(input.shape)} "
                "(with dim=, the other dims may be empty)"
            )
        return reduction.MaxAll.apply(input, largest=largest, nan_wins=True)
    d = wrap_dim(dim, input.ndim, name)
    _check_reduced_dims_not_empty(input, (d,) if input.ndim else (), name)
    if input.ndim == 0:
        return getattr(return_types, name)(
            input, Tensor._make(backend.xp_of(input.array).zeros((), "int64"))
        )
    values = reduction.MaxDim.apply(input, dim=d, keepdim=keepdim, largest=largest)
    indices = values.grad_fn.indices if values.grad_fn is not None else None
    xp = backend.xp_of(input.array)
    if indices is None:
        fn = xp.argmax if largest else xp.argmin
        indices = xp.expand_dims(fn(input.array, axis=d), d)
    if not keepdim:
        indices = indices.squeeze(d)
    return getattr(return_types, name)(values, Tensor._make(indices.astype("int64", copy=False)))


def max(
    input: Tensor, dim: Any = NO_DIM, keepdim: bool = False, *, out: Any = None, **numpy_style: Any
) -> Any:
    """The largest value, (values, indices) along ``dim``, or with a tensor ``other`` (or
    a tensor in dim's place) the elementwise maximum."""
    if "other" in numpy_style:
        return write_out(maximum(input, numpy_style.pop("other")), out, "max")
    dim = given_dim(dim, "max", None, keepdim if "axis" not in numpy_style else False)
    return write_out(
        _extreme(input, *numpy_names(dim, keepdim, numpy_style, "max"), True, "max"), out, "max"
    )


def min(
    input: Tensor, dim: Any = NO_DIM, keepdim: bool = False, *, out: Any = None, **numpy_style: Any
) -> Any:
    """The smallest value, (values, indices) along ``dim``, or the elementwise minimum
    with a tensor ``other``; see max."""
    if "other" in numpy_style:
        return write_out(minimum(input, numpy_style.pop("other")), out, "min")
    dim = given_dim(dim, "min", None, keepdim if "axis" not in numpy_style else False)
    return write_out(
        _extreme(input, *numpy_names(dim, keepdim, numpy_style, "min"), False, "min"), out, "min"
    )


def amax(
    input: Tensor, dim: Any = (), keepdim: bool = False, *, out: Any = None, **numpy_style: Any
) -> Tensor:
    """The maximum over ``dim`` (an int or a tuple; all dims by default). Unlike max(dim=)
    it returns no indices, and tied maxima share the gradient evenly, as in PyTorch."""
    _check_tensor(input, "amax")
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "amax")
    axes = _dims(dim, input.ndim, "amax")
    _check_extreme_dims(input, axes, "amax")
    return write_out(
        reduction.MaxAll.apply(input, largest=True, axes=axes, keepdim=keepdim),
        out,
        "amax",
        exact_dtype=True,
    )


def amin(
    input: Tensor, dim: Any = (), keepdim: bool = False, *, out: Any = None, **numpy_style: Any
) -> Tensor:
    """The minimum over ``dim`` (an int or a tuple; all dims by default); see amax."""
    _check_tensor(input, "amin")
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "amin")
    axes = _dims(dim, input.ndim, "amin")
    _check_extreme_dims(input, axes, "amin")
    return write_out(
        reduction.MaxAll.apply(input, largest=False, axes=axes, keepdim=keepdim),
        out,
        "amin",
        exact_dtype=True,
    )


def _check_extreme_dims(input: Tensor, axes: Any, name: str) -> None:
    """amax/amin: an empty input needs dims to reduce (RuntimeError, as in PyTorch), and
    none of those may be empty."""
    if axes is None and input.array.size == 0:
        raise RuntimeError(
            f"{name}(): an empty tensor (shape {tuple(input.shape)}) has no extreme value; "
            "pass dim= to reduce dims that are not empty"
        )
    _check_reduced_dims_not_empty(input, range(input.ndim) if axes is None else axes, name)


def _check_reduced_dims_not_empty(input: Tensor, axes: Any, name: str) -> None:
    """The maximum over an empty dim does not exist; over the others it may be empty."""
    for a in axes:
        if input.shape[a] == 0:
            raise IndexError(
                f"{name}(): expected reduction dim {a} to have non-zero size, got shape "
                f"{tuple(input.shape)}"
            )


def _check_not_empty(input: Tensor, name: str) -> None:
    """An index of the largest (smallest) of no elements does not exist."""
    if input.array.size == 0:
        raise IndexError(
            f"{name}(): expected a non-empty tensor when no dim is given, got shape "
            f"{tuple(input.shape)}; pass dim= to reduce along a dim that has elements"
        )


def argmax(
    input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None, **numpy_style: Any
) -> Tensor:
    """The index of the largest value along ``dim`` (of the flattened input if None); the
    first one where several tie."""
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "argmax")
    return write_out(_arg_extreme(input, dim, keepdim, "argmax"), out, "argmax", exact_dtype=True)


def argmin(
    input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None, **numpy_style: Any
) -> Tensor:
    """The index of the smallest value along ``dim`` (of the flattened input if None); the
    first one where several tie."""
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "argmin")
    return write_out(_arg_extreme(input, dim, keepdim, "argmin"), out, "argmin", exact_dtype=True)


def _arg_extreme(input: Tensor, dim: Any, keepdim: bool, op: str) -> Tensor:
    if _check_tensor(input, op).array.dtype == bool:
        raise RuntimeError(f"{op}(): bool tensors are not supported, as in PyTorch; use .long()")
    xp = backend.xp_of(input.array)
    find = xp.argmax if op == "argmax" else xp.argmin
    if dim is None:
        _check_not_empty(input, op)
        flat = xp.asarray(find(input.array), dtype="int64")
        # keepdim without dim: every dim kept, with size 1, as in PyTorch
        return Tensor._make(flat.reshape((1,) * input.ndim) if keepdim else flat)
    d = wrap_dim(dim, input.ndim, op)
    _check_reduced_dims_not_empty(input, (d,) if input.ndim else (), op)
    found = find(input.array, axis=d, keepdims=keepdim)  # of a 1-D array: a NumPy scalar
    return Tensor._make(xp.asarray(found).astype("int64", copy=False))


def topk(
    input: Tensor,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    out: Any = None,
) -> Any:
    """The k largest (or smallest) entries along ``dim`` and their indices; values carry
    gradient back to the positions they came from."""
    if _check_tensor(input, "topk").array.dtype == bool:
        raise RuntimeError("topk: bool tensors are not supported, as in PyTorch; use .long()")
    d, k = wrap_dim(dim, input.ndim, "topk"), _int_argument(k, "topk", "k")
    n = input.array.shape[d] if input.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError(f"topk: k ({k}) is out of range for dimension {dim} of size {n}")
    if input.ndim == 0:  # its one value (for k = 0 too, as in PyTorch)
        return write_out(sort(input), out, "topk")
    order = _sort_order(input, d, largest, "topk")  # largest first: nan counts as largest
    xp = backend.xp_of(order)
    indices = xp.take(order, xp.arange(k), axis=d)
    return write_out(
        return_types.topk(gather(input, d, Tensor._make(indices)), Tensor._make(indices)),
        out,
        "topk",
    )


def sort(input: Tensor, *dim_descending: Any, dim: int = -1, descending: bool = False,
         stable: bool | None = None, out: Any = None) -> Any:  # fmt: skip
    """The values along ``dim`` in order, and where each came from: (values, indices).
    Values carry gradient back to their positions. PyTorch's two forms are
    sort(input, dim=-1, descending=False) and sort(input, *, stable, dim=-1,
    descending=False): hence ``*dim_descending`` (see _sort_arguments)."""
    dim, descending = _sort_arguments("sort", dim_descending, dim, descending, stable)
    order = _sort_order(input, dim, descending, "sort")
    if input.ndim == 0:
        return write_out(return_types.sort(input.clone(), Tensor._make(order)), out, "sort")
    return write_out(return_types.sort(gather(input, wrap_dim(dim, input.ndim, "sort"), Tensor._make(order)),
                       Tensor._make(order)), out, "sort")  # fmt: skip


def msort(input: Tensor, *, out: Any = None) -> Tensor:
    """The values of ``input`` sorted along dim 0 (sort(input, dim=0).values)."""
    return write_out(sort(input, dim=0).values, out, "msort", exact_dtype=True)


def argsort(input: Tensor, *dim_descending: Any, dim: int = -1, descending: bool = False,
            stable: bool | None = None, out: Any = None) -> Tensor:  # fmt: skip
    """The indices that put ``input`` in order along ``dim`` (sort(...).indices); its forms
    are sort's, and only the one with stable= takes out=, as in PyTorch."""
    dim, descending = _sort_arguments("argsort", dim_descending, dim, descending, stable)
    if out is not None and stable is None:
        raise TypeError("argsort(): out= needs stable= (PyTorch's argsort(input, *, stable, "
                        "dim=-1, descending=False, out=None) is the form that takes it)")  # fmt: skip
    order = Tensor._make(_sort_order(input, dim, descending, "argsort"))
    return write_out(order, out, "argsort", exact_dtype=True)


def _sort_arguments(op: str, positional: tuple, dim: Any, descending: Any, stable: Any) -> tuple:
    """(dim, descending) of sort or argsort, from its form without stable= (dim and
    descending positional or by keyword) or its form with it (all by keyword), refusing
    what PyTorch's parser refuses with its TypeError: positional ones with stable=, more
    than two, one given twice, a descending or stable that is not a bool (1 is not)."""
    if len(positional) > 2:
        raise TypeError(
            f"{op}() takes from 1 to 3 positional arguments but {len(positional) + 1} were given"
        )
    if positional and stable is not None:
        raise TypeError(
            f"{op}(): with stable= given, dim and descending go by keyword too, as in PyTorch: "
            f"{op}(input, dim=..., descending=..., stable=...)"
        )
    defaults = (type(dim) is int and dim == -1, descending is False)
    for name, _, default in zip(("dim", "descending"), positional, defaults):
        if not default:
            raise TypeError(f"{op}() got multiple values for argument {name!r}")
    if len(positional) >= 1:
        dim = positional[0]
    if len(positional) == 2:
        descending = positional[1]
    for name, value in (("descending", descending), ("stable", stable)):
        if not isinstance(value, bool) and not (name == "stable" and value is None):
            raise TypeError(f"{op}(): argument {name!r} must be bool, not {type(value).__name__}")
    return dim, descending


def _sort_order(input: Tensor, dim: int, descending: bool, op: str) -> Any:
    """The sorting indices (int64 array), always stable: equal values keep their order, which
    is PyTorch's stable=True and one of the orders stable=False allows. nan sorts as the
    largest value (last, or first when descending), as in PyTorch."""
    xp = backend.xp_of(_check_tensor(input, op).array)
    d = wrap_dim(dim, input.ndim, op)  # a 0-d tensor takes dim 0 or -1 only
    if input.ndim == 0:
        return xp.zeros((), dtype="int64")
    a = input.array
    if not descending:
        order = xp.argsort(a, axis=d, kind="stable")
    else:  # the reversed array in ascending order, read backwards: ties stay in order
        reversed_order = xp.argsort(xp.flip(a, axis=d), axis=d, kind="stable")
        order = a.shape[d] - 1 - xp.flip(reversed_order, axis=d)
    return order.astype("int64", copy=False)


def all(
    input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None, **numpy_style: Any
) -> Tensor:
    """Whether every value (over ``dim``, an int or a tuple; all by default) is nonzero."""
    _check_tensor(input, "all")
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "all")
    axes = () if isinstance(dim, (tuple, list)) and not dim else _dims(dim, input.ndim, "all")
    result = input.array.all(axis=axes, keepdims=keepdim)
    return write_out(_truth_result(result, input), out, "all", exact_dtype=True)


def any(
    input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None, **numpy_style: Any
) -> Tensor:
    """Whether any value (over ``dim``, an int or a tuple; all by default) is nonzero."""
    _check_tensor(input, "any")
    dim, keepdim = numpy_names(dim, keepdim, numpy_style, "any")
    axes = () if isinstance(dim, (tuple, list)) and not dim else _dims(dim, input.ndim, "any")
    result = input.array.any(axis=axes, keepdims=keepdim)
    return write_out(_truth_result(result, input), out, "any", exact_dtype=True)


def _truth_result(result: Any, input: Tensor) -> Tensor:
    """all/any give bool, except for uint8 input: uint8 (0 or 1), as in PyTorch."""
    xp = backend.xp_of(input.array)
    return Tensor._make(xp.asarray(result, dtype="uint8" if input.array.dtype == "uint8" else bool))


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, out: Any = None,
         dtype: Any = None) -> Tensor:  # fmt: skip
    """The p-norm over ``dim`` (all elements by default) of input's elements, as
    linalg.vector_norm (p=None or "fro" is p = 2); another string ("nuc"), or "fro" over more
    than two dims, is linalg.matrix_norm over ``dim`` (all dims by default), as PyTorch picks."""
    if dtype is None:  # (a dtype given is kept under autocast too, as in PyTorch)
        (input,) = autocast_inputs("norm", input)
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, builtins.int) or len(dim) <= 2):
            return write_out(
                _vector_norm(input, 2, dim, keepdim, dtype, "norm"), out, "norm", exact_dtype=True
            )
        from . import linalg

        if dim is None:
            dim = tuple(range(_check_tensor(input, "norm").ndim))
        dims = (dim,) if isinstance(dim, builtins.int) else dim  # (RuntimeError: not 2 dims)
        return write_out(
            linalg.matrix_norm(input, p, dims, keepdim, dtype=dtype), out, "norm", exact_dtype=True
        )
    return write_out(_vector_norm(input, 2 if p is None else p, dim, keepdim, dtype, "norm"),
                     out, "norm", exact_dtype=True)  # fmt: skip


def _vector_norm(x: Tensor, ord: Any, dim: Any, keepdim: bool, dtype: Any, op: str) -> Tensor:
    """linalg.vector_norm (see there), for it, torch.norm and the matrix norms."""
    if dtype is None:  # (a dtype given is kept under autocast too, as in PyTorch)
        (x,) = autocast_inputs("vector_norm", x)
    _check_tensor(x, op)
    if not x.dtype.is_floating_point:
        raise RuntimeError(
            f"{op}: Expected a floating point tensor as input. Got {x.dtype}; use .float() first"
        )
    if dtype is not None:
        x = _cast_for_norm(x, dtype, op)
    if isinstance(ord, Tensor) and ord.ndim == 0:  # (its number, as PyTorch takes it)
        ord = ord.item()
    if isinstance(ord, numpy.integer):  # NumPy's integers too
        ord = builtins.int(ord)
    if isinstance(ord, builtins.bool) or not isinstance(ord, (builtins.int, builtins.float)):
        raise TypeError(f"{op}: ord must be a number (or inf / -inf), got {ord!r}")
    if isinstance(dim, builtins.int):
        dim = (dim,)
    _dims(dim, x.ndim, op)  # errors under its own name
    if ord < 0 or ord == math.inf:  # no identity (a max or a min): an empty dim has no norm
        axes = _dims(dim, x.ndim, op)
        for a in range(x.ndim) if axes is None else axes:
            if x.shape[a] == 0:
                where_empty = "an empty tensor" if axes is None else f"the empty dimension {a}"
                raise RuntimeError(
                    f"{op}: cannot compute the {ord} norm on {where_empty} (shape "
                    f"{tuple(x.shape)}): the operation has no identity"
                )
    if ord == math.inf or ord == -math.inf:  # (a row with a nan has gradient 0, as PyTorch)
        axes = _dims(dim, x.ndim, op)
        return reduction.InfNorm.apply(x, largest=ord > 0, axes=axes, keepdim=keepdim)
    if ord == 0:  # how many are nonzero (nan too), with no gradient for x (as PyTorch)
        return reduction.NonzeroCount.apply(x, axes=_dims(dim, x.ndim, op), keepdim=keepdim)
    if ord == 1:
        return sum(abs(x), dim, keepdim)
    return reduction.PNorm.apply(x, p=builtins.float(ord), axes=_dims(dim, x.ndim, op),
                                 keepdim=keepdim)  # fmt: skip


def _cast_for_norm(x: Tensor, dtype: Any, op: str) -> Tensor:
    """x in ``dtype``, which must hold x's values without narrowing (as PyTorch asks)."""
    target = _dtypes.get_dtype(dtype)
    if _dtypes.promote_types(x.dtype, target) is not target:
        raise RuntimeError(
            f"{op}: the dtype of the input ({x.dtype}) should be convertible without narrowing "
            f"to the specified dtype ({target})"
        )
    return cast(x, target)


# ---------------------------------------------------------------- distances
def _check_distance_p(p: Any, op: str) -> float:
    if p < 0:
        raise RuntimeError(f"{op}: only supports non-negative p values, got p={p}")
    return float(p)


def _distance_operand(t: Any, op: str, name: str) -> Tensor:
    """A floating tensor, as PyTorch's distances want (there is no integer norm)."""
    if not _check_tensor(t, op, name).dtype.is_floating_point:
        raise RuntimeError(
            f"{op}: only supports floating-point dtypes, {name} got: {t.dtype}; convert with "
            ".float() first"
        )
    return t


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:  # fmt: skip
    """The p-norm of x1 - x2 + eps along the last dim (after broadcasting): one distance
    per row. As in PyTorch, eps is added to the difference (not to the norm), so equal rows
    are at distance eps * n**(1/p), with a finite gradient; integers give the default float."""
    op = "pairwise_distance"
    for name, x in (("x1", x1), ("x2", x2)):
        if _check_tensor(x, op, name).dtype is _dtypes.bool:  # (PyTorch subtracts: refused)
            raise RuntimeError(
                f"{op}: {name} is a bool tensor, which it cannot subtract; use .float()"
            )
    _check_broadcast(x1.shape, x2.shape, op)
    x1, x2 = _float_input(x1, op), _float_input(x2, op)
    dim = -1 if builtins.max(x1.ndim, x2.ndim) else None  # two 0-d tensors: one number each
    return norm(x1 - x2 + eps, p, dim, keepdim)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:  # fmt: skip
    """The p-norm distance between each row of x1 (..., P, M) and each row of x2
    (..., R, M): (..., P, R), batch dims broadcast. compute_mode is accepted for PyTorch's
    sake; the distances are always taken from the differences (exact, also where PyTorch
    would use a matrix product). Gradient 0 at a zero distance, as in PyTorch."""
    x1, x2 = autocast_inputs("cdist", x1, x2)
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
             "donot_use_mm_for_euclid_dist")  # fmt: skip
    if compute_mode not in modes:
        raise ValueError(f"cdist: {compute_mode!r} is not a valid value for compute_mode")
    for name, t in (("x1", x1), ("x2", x2)):
        if _distance_operand(t, "cdist", name).ndim < 2:
            raise RuntimeError(f"cdist: only supports at least 2D tensors, {name} got: {t.ndim}D")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(
            f"cdist: x1 and x2 must have the same dtype, got {x1.dtype} and {x2.dtype}"
        )
    if x1.dtype is _dtypes.float16 and x1.device.type == "cpu":  # (PyTorch's CUDA kernel has it)
        raise NotImplementedError("cdist: float16 is not implemented on the CPU, as in PyTorch; "
                                  "use .float()")  # fmt: skip
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"cdist: x1 and x2 must have the same number of columns, got x1 {tuple(x1.shape)} "
            f"and x2 {tuple(x2.shape)}"
        )
    p = _check_distance_p(p, "cdist")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., P, 1, M) - (..., 1, R, M)
    if x1.shape[-1] == 0:  # no coordinates: every distance is 0, for every p (inf too)
        return sum(diff, -1)
    return _distance_norm(diff, p)


def _distance_norm(diff: Tensor, p: float) -> Tensor:
    """The p-norm of ``diff`` along its last dim, for cdist and pdist. For p = 0, how many
    coordinates differ: 1 or d (then 0), whose sign has gradient 0, as PyTorch's cdist and
    pdist give a zero gradient there (its vector_norm gives none)."""
    if p == 0:
        return sum(sign(where(diff != 0, 1.0, diff)), -1)
    return norm(diff, p, -1)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distance between every pair of rows i < j of ``input`` (N, M), in the
    order (0, 1), (0, 2), ..., (1, 2), ...: N (N - 1) / 2 values (the upper triangle of
    cdist(input, input))."""
    (input,) = autocast_inputs("pdist", input)
    if _distance_operand(input, "pdist", "input").ndim != 2:
        raise RuntimeError(f"pdist: only supports 2D tensors, got: {input.ndim}D")
    p = _check_distance_p(p, "pdist")
    rows, cols = triu_indices(input.shape[0], input.shape[0], 1, device=input.device)
    return _distance_norm(input[rows] - input[cols], p)


def dist(input: Tensor, other: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm of input - other (broadcast, in their promoted dtype, which must be a
    floating one as in PyTorch), over all elements: a 0-d tensor."""
    input, other = autocast_inputs("dist", input, other)
    _check_tensor(input, "dist"), _check_tensor(other, "dist", "other")
    if isinstance(p, Tensor):  # (a 0-d tensor's number, as PyTorch takes it)
        p = p.item()
    if not isinstance(p, (*_Number, numpy.number)):
        raise TypeError(f"dist: p must be a number, got {type(p).__name__} {p!r}")
    p = builtins.float(p)  # (True is 1, as in PyTorch)
    if not _promote_tensors(input, other).is_floating_point:
        raise RuntimeError(
            f"dist: only supports floating-point dtypes, input got: {input.dtype} and other "
            f"got: {other.dtype} (promoted, one of them must be floating); convert with .float()"
        )
    return norm(input - other, p, None)


# ---------------------------------------------------------------- shape
def _resolve_shape(shape: Sequence, numel: int, op: str) -> tuple:
    shape = whole_numbers(shape, op, "shape")
    if shape.count(-1) > 1:
        raise RuntimeError(
            f"{op}: only one dimension can be inferred (-1), got shape {list(shape)}"
        )
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"{op}: shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"{op}: shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def reshape(input: Tensor, shape: Sequence) -> Tensor:
    target = _resolve_shape(shape, input.array.size, "reshape")
    if target == input.array.shape:
        return input
    return shape_ops.Reshape.apply(input, shape=target)


def view(input: Tensor, shape: Sequence) -> Tensor:
    target = _resolve_shape(shape, input.array.size, "view")
    if target == input.array.shape:
        return input
    if not _is_viewable(input.array, target):
        raise RuntimeError(
            f"view: shape {list(target)} is not compatible with the memory layout of a tensor of "
            f"shape {tuple(input.shape)} (it is not contiguous, e.g. after transpose): a view "
            "must share memory with its input. Use .reshape(...) (which copies when it must) "
            "or .contiguous().view(...)"
        )
    return shape_ops.Reshape.apply(input, shape=target)


def view_dtype(input: Tensor, dtype: Any) -> Tensor:
    """``input.view(dtype)``: the same bytes read as ``dtype``, sharing memory, as in
    PyTorch (``tensor([1.0]).view(int32)`` is 1065353216, the bits of 1.0). Such a view has
    no gradient. When the element sizes differ, the last dim grows or shrinks by their ratio;
    it must then have stride 1 and a size the ratio divides."""
    target = _dtypes.get_dtype(dtype)
    if target is input.dtype:
        return view(input, input.shape)
    a = input.array
    old_size, new_size = a.dtype.itemsize, numpy.dtype(target.np).itemsize
    if old_size != new_size:
        what = f"view {input.dtype} as {target} (elements of {old_size} and {new_size} bytes)"
        if input.ndim == 0:
            raise RuntimeError(f"view: a 0-d tensor cannot {what}")
        if a.shape[-1] != 1 and a.strides[-1] != old_size:
            raise RuntimeError(
                f"view: to {what} the last dim must have stride 1, but the tensor of shape "
                f"{tuple(input.shape)} is not contiguous there; use .contiguous() first"
            )
        if (a.shape[-1] * old_size) % new_size:
            raise RuntimeError(
                f"view: to {what} the size of the last dim must be divisible by "
                f"{new_size // old_size}, but got {a.shape[-1]}"
            )
    out = Tensor._make(a.view(target.np))
    out._version_counter = input._version_counter  # one memory: in-place changes bump both
    return out


def _is_viewable(array: Any, shape: tuple) -> bool:
    """Can ``array`` take ``shape`` without copying? reshape copies exactly when it cannot,
    and a copy lies in new memory. (Setting ``.shape`` would tell too: NumPy 2.5 deprecates
    that.)"""
    if backend.xp_of(array).__name__ != "numpy" or array.flags.c_contiguous:
        return True
    return numpy.may_share_memory(array.reshape(shape), array)


def permute(input: Tensor, dims: Sequence) -> Tensor:
    dims = tuple(wrap_dim(d, input.ndim, "permute") for d in dims)
    if sorted(dims) != list(range(input.ndim)):
        raise RuntimeError(
            f"permute: dims {list(dims)} are not a permutation of the {input.ndim} dims of a "
            f"tensor of shape {tuple(input.shape)}"
        )
    return shape_ops.Permute.apply(input, dims=dims)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    d0, d1 = wrap_dim(dim0, input.ndim, "transpose"), wrap_dim(dim1, input.ndim, "transpose")
    if d0 == d1 or input.ndim < 2:
        return input
    dims = list(range(input.ndim))
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return shape_ops.Permute.apply(input, dims=tuple(dims))


def t(input: Tensor) -> Tensor:
    """The transpose of a matrix; a 0-D or 1-D tensor comes back as it is."""
    if _check_tensor(input, "t").ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D (shape "
            f"{tuple(input.shape)}); use transpose(dim0, dim1) or .mT for batches of matrices"
        )
    return transpose(input, 0, 1) if input.ndim == 2 else input


def detach(input: Tensor) -> Tensor:
    return _check_tensor(input, "detach").detach()


def flip(input: Tensor, dims: Any) -> Tensor:
    """Reverse the order of elements along ``dims`` (an int or a sequence of them)."""
    dims = (dims,) if isinstance(dims, builtins.int) else tuple(dims)
    axes = tuple(wrap_dim(d, input.ndim, "flip") for d in dims)
    if len(set(axes)) != len(axes):
        raise RuntimeError(f"flip: dims {list(dims)} name the same dim twice")
    if input.ndim == 0 or not axes:  # nothing to reverse: still a copy, as in PyTorch
        return clone(input)
    return shape_ops.Flip.apply(input, dims=axes)


def flipud(input: Tensor) -> Tensor:
    """input with the order of its rows (dim 0) reversed."""
    return flip(_check_not_0d(input, "flipud"), 0)


def fliplr(input: Tensor) -> Tensor:
    """input with the order of its columns (dim 1) reversed."""
    if _check_tensor(input, "fliplr").ndim < 2:
        raise RuntimeError(f"fliplr: input must be at least 2-d, got shape {tuple(input.shape)}")
    return flip(input, 1)


def rot90(input: Tensor, k: builtins.int = 1, dims: Sequence[builtins.int] = (0, 1)) -> Tensor:
    """input turned ``k`` quarter turns in the plane of ``dims``, from the first dim towards
    the second (as numpy.rot90); a negative k turns the other way."""
    _check_tensor(input, "rot90")
    k, dims = _int_argument(k, "rot90", "k"), list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"rot90: expected 2 rotation dims, got dims={dims}")
    if input.ndim < 2:
        raise RuntimeError(
            f"rot90: expected a tensor of 2 or more dims, got shape {tuple(input.shape)}"
        )
    d0, d1 = wrap_dim(dims[0], input.ndim, "rot90"), wrap_dim(dims[1], input.ndim, "rot90")
    if d0 == d1:
        raise RuntimeError(f"rot90: the rotation dims must differ, got dims={dims}")
    k = operator.index(k) % 4
    if k == 1:  # reverse the second dim, then swap the two
        return transpose(flip(input, d1), d0, d1)
    if k == 2:
        return flip(input, (d0, d1))
    if k == 3:  # swap the two, then reverse the second
        return flip(transpose(input, d0, d1), d1)
    return clone(input)


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """input with its elements moved ``shifts`` places along ``dims``, those pushed past the
    end coming back at the start; with dims=None the flattened tensor is rolled and then
    takes input's shape again. shifts and dims may be tuples of one shift per dim (dims=()
    is dims=None, as in PyTorch)."""
    _check_tensor(input, "roll")
    shifts = whole_numbers(shifts if isinstance(shifts, (tuple, list)) else (shifts,), "roll",
                           "shifts")  # fmt: skip
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        if len(shifts) != 1:
            raise RuntimeError(f"roll: with dims=None give one shift, got shifts={list(shifts)}")
        return _roll_along(reshape(input, (-1,)), shifts[0], 0).reshape(input.shape)
    dims = (dims,) if not isinstance(dims, (tuple, list)) else tuple(dims)
    if input.ndim == 0:
        raise IndexError(f"roll: dims {list(dims)} given, but the tensor has no dims")
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"roll: shifts and dims must have the same length, got shifts={list(shifts)} and "
            f"dims={list(dims)}"
        )
    out = input
    for shift, dim in zip(shifts, dims):
        out = _roll_along(out, shift, wrap_dim(dim, input.ndim, "roll"))
    return out


def _roll_along(input: Tensor, shift: Any, d: builtins.int) -> Tensor:
    """One dim of roll: the last ``shift`` elements along d, then the others (two views, one
    cat, so autograd gives the gradient: the gradient rolled back)."""
    n = input.shape[d] if input.ndim else 1
    s = operator.index(shift) % n if n else 0
    if s == 0:
        return clone(input)
    return cat([narrow(input, d, n - s, s), narrow(input, d, 0, n - s)], d)


def diagonal(input: Tensor, offset: builtins.int = 0, dim1: builtins.int = 0,
             dim2: builtins.int = 1) -> Tensor:  # fmt: skip
    """The diagonal input[i, i + offset] of the matrices in dims ``dim1`` and ``dim2``, as a
    new last dim (the other dims keep their order): a view, as in PyTorch, so writing into it
    (``x.diagonal().fill_(0)``) writes into input."""
    return _diagonal_of(_check_tensor(input, "diagonal"), offset, dim1, dim2, "diagonal")


def _int_argument(value: Any, op: str, name: str) -> builtins.int:
    """An int argument (an offset, a diagonal) as PyTorch's parser takes it: an int, a NumPy
    int or an integer tensor of one element; a float or a bool is its TypeError."""
    if not isinstance(value, builtins.bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise TypeError(f"{op}(): argument '{name}' must be int, not {type(value).__name__}")


def _float_argument(value: Any, op: str, name: str) -> builtins.float:
    """A float argument (a mean, a scale, a bound) as PyTorch's parser takes it: a real
    number or a one-element tensor; anything else (a str) is its TypeError."""
    if isinstance(value, numbers.Real) or (isinstance(value, Tensor) and value.numel() == 1):
        return builtins.float(value)
    raise TypeError(f"{op}(): argument '{name}' must be float, not {type(value).__name__}")


def _diagonal_of(input: Tensor, offset: builtins.int, dim1: builtins.int, dim2: builtins.int,
                 op: str) -> Tensor:  # fmt: skip
    offset = _int_argument(offset, op, "diagonal" if op == "diag" else "offset")
    d1, d2 = wrap_dim(dim1, input.ndim, op), wrap_dim(dim2, input.ndim, op)
    if d1 == d2:
        raise RuntimeError(f"{op}: dim1 and dim2 cannot be the same dim, got {dim1} and {dim2}")
    return shape_ops.Diagonal.apply(input, offset=offset, dim1=d1, dim2=d2)


def diagonal_scatter(input: Tensor, src: Tensor, offset: builtins.int = 0, dim1: builtins.int = 0,
                     dim2: builtins.int = 1) -> Tensor:  # fmt: skip
    """A copy of input whose diagonal (as ``diagonal(input, offset, dim1, dim2)`` reads it) holds
    src, cast to input's dtype."""
    slot = _diagonal_of(_check_tensor(input, "diagonal_scatter"), offset, dim1, dim2,
                        "diagonal_scatter")  # fmt: skip
    _check_src_fits(src, slot, "diagonal_scatter")
    d1, d2 = wrap_dim(dim1, input.ndim, "diagonal_scatter"), wrap_dim(dim2, input.ndim, "")
    view = functools.partial(shape_ops.diagonal_view, offset=offset, dim1=d1, dim2=d2)
    return _scatter_into_view(input, src, view)


def _scatter_into_view(input: Tensor, src: Tensor, view: Any) -> Tensor:
    """A copy of input with src (cast to input's dtype and device) written into the part of
    it that ``view(array)`` shows; src has that part's shape (checked by the caller)."""
    src = src.to(input.device).to(input.dtype)
    return shape_ops.ViewScatter.apply(input, src, view=view)


def _check_src_fits(src: Tensor, slot: Tensor, op: str) -> None:
    """src must have exactly the shape of the part of input it replaces."""
    if tuple(_check_tensor(src, op, "src").shape) != tuple(slot.shape):
        raise RuntimeError(
            f"{op}: expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(slot.shape)}"
        )


def select_scatter(input: Tensor, src: Tensor, dim: builtins.int,
                   index: builtins.int) -> Tensor:  # fmt: skip
    """A copy of input whose slice select(input, dim, index) holds src."""
    d = wrap_dim(dim, _check_not_0d(input, "select_scatter").ndim, "select_scatter")
    if not -input.shape[d] <= index < input.shape[d]:
        raise IndexError(
            f"select_scatter: index {index} is out of range for dim {d} of size "
            f"{input.shape[d]} (shape {tuple(input.shape)})"
        )
    _check_src_fits(src, select(input, d, index), "select_scatter")
    i = index + input.shape[d] if index < 0 else index
    return _scatter_into_view(input, src, functools.partial(shape_ops.select_view, dim=d, index=i))


def slice_scatter(input: Tensor, src: Tensor, dim: builtins.int = 0,
                  start: builtins.int | None = None, end: builtins.int | None = None,
                  step: builtins.int = 1, *, out: Any = None) -> Tensor:  # fmt: skip
    """A copy of input whose slice input[..., start:end:step, ...] (along dim) holds src."""
    d = wrap_dim(dim, _check_tensor(input, "slice_scatter").ndim, "slice_scatter")
    if step <= 0:
        raise RuntimeError(f"slice_scatter: slice step must be positive, got {step}")
    where = (slice(None),) * d + (slice(start, end, step),)
    _check_src_fits(src, getitem(input.detach(), where), "slice_scatter")
    start, stop, step = slice(start, end, step).indices(input.shape[d])
    view = functools.partial(shape_ops.slice_view, dim=d, start=start, stop=stop, step=step)
    return write_out(_scatter_into_view(input, src, view), out, "slice_scatter", exact_dtype=True)


def as_strided_scatter(input: Tensor, src: Tensor, size: Any, stride: Any,
                       storage_offset: builtins.int | None = None) -> Tensor:  # fmt: skip
    """A copy of input whose elements that as_strided(size, stride, storage_offset) shows
    hold src. As in PyTorch the copy keeps input's order of dims in memory (that of a clone),
    and the strides and offset count in that memory."""
    size, stride = tuple(builtins.int(n) for n in size), tuple(builtins.int(s) for s in stride)
    offset = 0 if storage_offset is None else builtins.int(storage_offset)
    _check_tensor(input, "as_strided_scatter")
    strides = input.stride()
    order = builtins.sorted(range(input.ndim), key=lambda d: -strides[d])  # outermost first
    laid_out = permute(input, order)  # its copy in C order is the clone's memory
    copy = clone(laid_out.detach(), memory_format=_formats.contiguous_format)
    last = offset + builtins.sum((n - 1) * s for n, s in zip(size, stride))
    if 0 not in size and len(size) == len(stride) and last >= copy.numel():
        raise RuntimeError(
            f"as_strided_scatter: size {list(size)}, stride {list(stride)} and storage offset "
            f"{offset} reach element {last}, beyond the {copy.numel()} elements of input"
        )
    _check_src_fits(src, as_strided(copy, size, stride, offset), "as_strided_scatter")
    view = functools.partial(shape_ops.strided_view, size=size, stride=stride, offset=offset)
    return permute(_scatter_into_view(laid_out, src, view), _inverse_order(order))


def _inverse_order(order: Sequence) -> list:
    """The permutation that undoes ``order``."""
    return builtins.sorted(range(len(order)), key=list(order).__getitem__)


def diag_embed(input: Tensor, offset: builtins.int = 0, dim1: builtins.int = -2,
               dim2: builtins.int = -1) -> Tensor:  # fmt: skip
    """A tensor of one more dim whose matrices in dims ``dim1`` and ``dim2`` hold input's
    last dim on their ``offset``-th diagonal (above the main one for offset > 0) and zeros
    elsewhere: the inverse of diagonal(..., offset, dim1, dim2)."""
    return _embed_diagonal(_check_tensor(input, "diag_embed"), offset, dim1, dim2, "diag_embed")


def _embed_diagonal(input: Tensor, offset: builtins.int, dim1: builtins.int,
                    dim2: builtins.int, op: str) -> Tensor:  # fmt: skip
    offset = _int_argument(offset, op, "diagonal" if op == "diag" else "offset")
    if input.ndim == 0:
        raise IndexError(f"{op}: input must be at least 1-d, got a 0-d tensor")
    d1, d2 = wrap_dim(dim1, input.ndim + 1, op), wrap_dim(dim2, input.ndim + 1, op)
    if d1 == d2:
        raise RuntimeError(f"{op}: dim1 and dim2 cannot be the same dim, got {dim1} and {dim2}")
    n = input.shape[-1]
    size = n + builtins.abs(offset)
    xp = backend.xp_of(input.array)
    out = Tensor._make(xp.zeros(tuple(input.shape[:-1]) + (size, size), dtype=input.array.dtype))
    rows = Tensor._make(xp.arange(n, dtype="int64") + builtins.max(-offset, 0))
    cols = Tensor._make(xp.arange(n, dtype="int64") + builtins.max(offset, 0))
    setitem(out, (Ellipsis, rows, cols), input)  # recorded in the graph when input needs grad
    return movedim(out, (-2, -1), (d1, d2))


def diag(input: Tensor, diagonal: builtins.int = 0, *, out: Any = None) -> Tensor:
    """For a 1-D input, the square matrix with input on its ``diagonal``-th diagonal (zeros
    elsewhere); for a 2-D input, that diagonal as a 1-D tensor (a copy, see diagonal)."""
    if _check_tensor(input, "diag").ndim == 1:
        return write_out(
            _embed_diagonal(input, diagonal, 0, 1, "diag"), out, "diag", exact_dtype=True
        )
    if input.ndim == 2:  # a copy, as PyTorch's diag (diagonal gives a view)
        return write_out(
            clone(_diagonal_of(input, diagonal, 0, 1, "diag")), out, "diag", exact_dtype=True
        )
    raise RuntimeError(f"diag: expected a 1-D or 2-D tensor, got shape {tuple(input.shape)}")


def diagflat(input: Tensor, offset: builtins.int = 0) -> Tensor:
    """The square matrix with the flattened input on its ``offset``-th diagonal (above the
    main one for offset > 0), zeros elsewhere."""
    return _embed_diagonal(reshape(_check_tensor(input, "diagflat"), (-1,)), offset, 0, 1,
                           "diagflat")  # fmt: skip


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix (integers give int64, as sum; bools are
    refused, as in PyTorch)."""
    (input,) = autocast_inputs("trace", input)
    if _check_tensor(input, "trace").dtype is _dtypes.bool:
        raise NotImplementedError("trace: not implemented for bool tensors, as in PyTorch")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, got shape {tuple(input.shape)}")
    diagonal = _diagonal_of(input, 0, 0, 1, "trace")
    return sum(diagonal, dtype=_own_dtype(diagonal))


def diff(input: Tensor, n: builtins.int = 1, dim: builtins.int = -1, prepend: Any = None,
         append: Any = None, *, out: Any = None) -> Tensor:  # fmt: skip
    """The n-th forward difference along ``dim``: out[i] = input[i + 1] - input[i], n times,
    after ``prepend`` and ``append`` (tensors) are joined before and after; for bools
    input[i + 1] != input[i], as in PyTorch."""
    _check_not_0d(input, "diff")
    n = _int_argument(n, "diff", "n")
    if n < 0:
        raise RuntimeError(f"diff: order n must be non-negative, got {n}")
    d = wrap_dim(dim, input.ndim, "diff")
    parts = [as_tensor_like(t, input) for t in (prepend, input, append) if t is not None]
    if builtins.any(t.ndim != input.ndim for t in parts):
        raise RuntimeError(
            f"diff: prepend and append must have as many dims as input {tuple(input.shape)}, "
            f"got shapes {[tuple(t.shape) for t in parts]}"
        )
    result = cat(parts, d) if len(parts) > 1 else input  # (checks prepend's and append's sizes)
    if n == 0:  # no differences taken: a copy of input alone, prepend and append left out
        return write_out(clone(input), out, "diff", exact_dtype=True)
    for _ in range(n):
        size = builtins.max(result.shape[d] - 1, 0)
        later, earlier = narrow(result, d, result.shape[d] - size, size), narrow(result, d, 0, size)
        result = ne(later, earlier) if result.dtype is _dtypes.bool else sub(later, earlier)
    return write_out(result, out, "diff")


def repeat_interleave(input: Tensor, repeats: Any = None, dim: builtins.int | None = None, *,
                      output_size: builtins.int | None = None) -> Tensor:  # fmt: skip
    """Each element (or slice along ``dim``) ``repeats`` times in a row: [a, b] -> [a, a, b, b].
    (Grouped-query attention shares each key head among several query heads this way.)
    ``repeats`` may also be a tensor of one count per element (read to the host: the
    result's size depends on it). ``output_size``, if given, must be that size.
    repeat_interleave(counts) alone repeats each index i counts[i] times: [2, 1] -> [0, 0, 1]."""
    if repeats is None:
        counts = _check_tensor(input, "repeat_interleave")
        if counts.ndim != 1:
            raise RuntimeError(
                "repeat_interleave(repeats): repeats must be a 1-D tensor of counts, got shape "
                f"{tuple(counts.shape)}"
            )
        xp = backend.xp_of(counts.array)
        positions = Tensor._make(xp.arange(counts.shape[0], dtype=counts.array.dtype))
        return repeat_interleave(positions, counts, 0, output_size=output_size)
    out = _repeat_interleave(input, repeats, dim)
    d = 0 if dim is None else wrap_dim(dim, input.ndim, "repeat_interleave")
    if output_size is not None and out.shape[d] != output_size:
        raise RuntimeError(
            f"repeat_interleave: output_size={output_size} but the repeats make {out.shape[d]}"
        )
    return out


def _repeat_interleave(input: Tensor, repeats: Any, dim: builtins.int | None) -> Tensor:
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        d = wrap_dim(dim, input.ndim, "repeat_interleave")
    shape = tuple(input.shape)
    if isinstance(repeats, Tensor):
        if repeats.array.dtype.kind not in "iu":
            raise NotImplementedError(
                f"repeat_interleave: repeats must be an integer tensor, got {repeats.dtype} "
                "(as in PyTorch); use .long() first"
            )
        if repeats.ndim > 1:
            raise RuntimeError(
                "repeat_interleave: repeats must be a 0-d or 1-D tensor, got shape "
                f"{tuple(repeats.shape)}"
            )
    elif not isinstance(repeats, (list, tuple)):  # an int (a NumPy int too), not a float
        repeats = _int_argument(repeats, "repeat_interleave", "repeats")
    counts = repeats.tolist() if isinstance(repeats, Tensor) else repeats
    if isinstance(counts, list) and len(counts) == 1:
        counts = counts[0]
    if isinstance(counts, list):  # one count per entry along d: pick entries by index
        if len(counts) != shape[d] or builtins.any(c < 0 for c in counts):
            raise RuntimeError(
                f"repeat_interleave: repeats must be {shape[d]} non-negative counts (one per "
                f"entry of dim {d}), got {counts}"
            )
        index = numpy.repeat(numpy.arange(len(counts)), counts)  # entry i, counts[i] times
        return index_select(input, d, as_tensor_like(index, input).long())
    if counts < 0:
        raise RuntimeError(f"repeat_interleave: repeats must be non-negative, got {counts}")
    # (..., n, ...) -> (..., n, 1, ...) -> (..., n, repeats, ...) -> (..., n * repeats, ...)
    spread = input.unsqueeze(d + 1).expand(shape[: d + 1] + (counts,) + shape[d + 1 :])
    return spread.reshape(shape[:d] + (shape[d] * counts,) + shape[d + 1 :])


def _check_not_0d(input: Any, op: str) -> Tensor:
    """input, if it is a tensor with at least one dim (ops that cut along a dim need one)."""
    if _check_tensor(input, op).ndim == 0:
        raise RuntimeError(f"{op}: input must be at least 1-d, got a 0-d tensor")
    return input


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The ``length`` elements from ``start`` along ``dim`` (a view, as in PyTorch); start may
    be a 0-d integer tensor."""
    d = wrap_dim(dim, _check_not_0d(input, "narrow").ndim, "narrow")
    if isinstance(start, Tensor):
        if start.ndim != 0 or start.dtype.is_floating_point or start.dtype is _dtypes.bool:
            raise RuntimeError(
                f"narrow: start must be an 0-dim integral Tensor, got {start.dtype} of shape "
                f"{tuple(start.shape)}; pass an int or a 0-d integer tensor"
            )
        start = start.item()
    size = input.shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"narrow: start out of range (expected to be in range of [{-size}, {size}], but "
            f"got {start}) for dim {d} of shape {tuple(input.shape)}"
        )
    begin = start + size if start < 0 else start
    if not 0 <= begin <= size or length < 0 or begin + length > size:
        raise RuntimeError(
            f"narrow: start {start} and length {length} do not fit in dim {d} of size {size} "
            f"(shape {tuple(input.shape)})"
        )
    return getitem(input, (slice(None),) * d + (slice(begin, begin + length),))


def unbind(input: Tensor, dim: int = 0) -> tuple:
    """The slices along ``dim``, each without that dim: unbind(x)[i] is x[i]."""
    if _check_tensor(input, "unbind").ndim == 0:
        raise IndexError(f"unbind: dimension {dim} specified, but a 0-d tensor has no dims")
    d = wrap_dim(dim, input.ndim, "unbind")
    return tuple(getitem(input, (slice(None),) * d + (i,)) for i in range(input.shape[d]))


def index_select(input: Tensor, dim: int, index: Tensor, *, out: Any = None) -> Tensor:
    """The entries ``index`` (a 1-D integer tensor) along ``dim``; repeats allowed."""
    d = wrap_dim(dim, builtins.max(input.ndim, 1), "index_select")
    _check_tensor(index, "index_select", "index")
    if index.ndim > 1:
        raise IndexError(
            f"index_select: index must be a 1-D integer tensor, got one of shape "
            f"{tuple(index.shape)}"
        )
    if index.dtype.is_floating_point or index.dtype is _dtypes.bool:
        raise RuntimeError(f"index_select: index must be an integer tensor, got {index.dtype}")
    size = input.shape[d] if input.ndim else 1  # (no negative indices, as in PyTorch)
    error = IndexError if d == 0 else RuntimeError  # PyTorch's, as its kernels raise
    _check_indices_below(index, size, d, "index_select", tuple(input.shape), error)
    rows = index.to(input.device).array.reshape(-1)  # (checked: GetItem, not getitem)
    if input.ndim == 0:  # as in PyTorch: a 0-d input is one element, picked by index 0
        return write_out(
            indexing.GetItem.apply(input.reshape(1), index=(rows,)).reshape(()),
            out,
            "index_select",
            exact_dtype=True,
        )
    return write_out(
        indexing.GetItem.apply(input, index=(slice(None),) * d + (rows,)),
        out,
        "index_select",
        exact_dtype=True,
    )


swapdims = transpose


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """transpose, under NumPy's name (and argument names)."""
    return transpose(input, axis0, axis1)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    d = wrap_dim(dim, input.ndim + 1, "unsqueeze")
    new = list(input.array.shape)
    new.insert(d, 1)
    return shape_ops.Reshape.apply(input, shape=tuple(new))


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    old = input.array.shape
    if dim is None:
        new = tuple(s for s in old if s != 1)
    else:
        dims = _dims(dim, input.ndim, "squeeze") or ()
        new = tuple(s for i, s in enumerate(old) if not (i in dims and s == 1))
    return input if new == old else shape_ops.Reshape.apply(input, shape=new)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """input with dims start_dim..end_dim merged into one; a 0-d tensor becomes 1-D."""
    s, e = wrap_dim(start_dim, input.ndim, "flatten"), wrap_dim(end_dim, input.ndim, "flatten")
    if input.ndim == 0:
        return reshape(input, (1,))
    old = input.array.shape
    if s > e:
        raise RuntimeError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim}")
    return reshape(input, old[:s] + (math.prod(old[s : e + 1]),) + old[e + 1 :])


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Split dim ``dim`` into ``sizes`` (one of them may be -1): the inverse of flatten."""
    d = wrap_dim(dim, _check_not_0d(input, "unflatten").ndim, "unflatten")
    old, sizes = input.array.shape, tuple(builtins.int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError(
            f"unflatten: only one dimension can be inferred, got sizes {list(sizes)}"
        )
    known = math.prod(s for s in sizes if s != -1)
    n = old[d]
    if -1 in sizes:  # inferred from dim d alone (not the whole tensor: it may be empty)
        if known == 0 or n % known:
            raise RuntimeError(
                f"unflatten: sizes {list(sizes)} cannot be unflattened from dim {d} of size {n}"
                + (" (the -1 could be any size)" if known == 0 and n == 0 else "")
            )
        sizes = tuple(n // known if s == -1 else s for s in sizes)
    elif known != n:
        raise RuntimeError(
            f"unflatten: provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
            f"({n}) of the input"
        )
    return reshape(input, old[:d] + sizes + old[d + 1 :])


def ravel(input: Tensor) -> Tensor:
    """input as a 1-D tensor (a view when its layout allows, as reshape(-1))."""
    return reshape(_check_tensor(input, "ravel"), (-1,))


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least 1 dim (0-d becomes (1,)); one tensor in gives one out,
    several (or a list of them) a tuple."""
    return _at_least(tensors, 1, "atleast_1d")


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least 2 dims: 0-d becomes (1, 1), (n,) becomes (1, n)."""
    return _at_least(tensors, 2, "atleast_2d")


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least 3 dims: 0-d becomes (1, 1, 1), (n,) becomes (1, n, 1) and
    (m, n) becomes (m, n, 1), as NumPy does."""
    return _at_least(tensors, 3, "atleast_3d")


def _at_least(tensors: tuple, ndim: builtins.int, op: str) -> Any:
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    out = []
    for i, t in enumerate(tensors):
        shape = tuple(_check_tensor(t, op, f"tensors[{i}]").shape) or (1,)
        if ndim >= 2 and len(shape) == 1:
            shape = (1, *shape)
        if ndim == 3 and len(shape) == 2:
            shape = (*shape, 1)
        out.append(reshape(t, shape))
    return out[0] if single else tuple(out)


def expand(input: Tensor, sizes: Sequence) -> Tensor:
    sizes = whole_numbers(sizes, "expand")
    old = input.array.shape
    if len(sizes) < len(old):
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to "
            f"the number of dimensions in the tensor ({len(old)})"
        )
    new_dims = len(sizes) - len(old)
    padded = (1,) * new_dims + old
    target = []
    for i, (want, have) in enumerate(zip(sizes, padded)):
        if want < 0 and i < new_dims:
            raise RuntimeError(
                f"expand: the expanded size {want} is not allowed in a leading, new dim {i} "
                f"(target sizes {list(sizes)}, tensor shape {list(old)}); give its size"
            )
        if want == -1:
            want = have
        if have != 1 and want != have:
            raise RuntimeError(
                f"expand: the expanded size of the tensor ({want}) must match the existing size "
                f"({have}) at a non-singleton dimension; target sizes {list(sizes)}, tensor "
                f"shape {list(old)}"
            )
        target.append(want)
    if tuple(target) == old:
        return input
    return shape_ops.Expand.apply(input, shape=tuple(target))


def broadcast_to(input: Tensor, size: Sequence) -> Tensor:
    return expand(input, size)


def repeat(input: Tensor, sizes: Sequence) -> Tensor:
    """Tile ``input``: reshape to (1, s0, 1, s1...), expand to (r0, s0, r1, s1...), merge."""
    sizes = whole_numbers(sizes, "repeat", "repeats")
    if len(sizes) < input.ndim:
        raise RuntimeError(
            f"repeat: number of repeat dims ({len(sizes)}) can not be smaller than the number "
            f"of tensor dims ({input.ndim})"
        )
    old = (1,) * (len(sizes) - input.ndim) + input.array.shape
    interleaved = []
    for s in old:
        interleaved += [1, s]
    expanded = []
    for r, s in zip(sizes, old):
        expanded += [r, s]
    out = expand(reshape(input, interleaved), expanded)
    return reshape(out, [r * s for r, s in zip(sizes, old)])


def tile(input: Tensor, dims: Sequence) -> Tensor:
    """repeat, but with fewer repeats than dims allowed: missing ones (at the front) are 1."""
    dims = whole_numbers(tuple(dims), "tile", "dims")
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


def _tensor_sequence(tensors: Any, op: str) -> list:
    """The (non-empty) list of tensors that cat, stack and the like join; a lone Tensor is
    refused, as in PyTorch (which does not iterate it: torch.cat(x) lacks its brackets)."""
    if isinstance(tensors, Tensor):
        raise TypeError(
            f"{op}(): argument 'tensors' must be a tuple or list of Tensors, not Tensor; "
            f"write {op}([a, b]) or {op}((a, b))"
        )
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{op}: expected a non-empty list of Tensors")
    return tensors


def cat(
    tensors: Sequence[Tensor], dim: int = 0, *, axis: int | None = None, out: Any = None
) -> Tensor:
    """The tensors joined along ``dim`` (NumPy's name ``axis`` works too, as in PyTorch)."""
    dim = dim if axis is None else axis
    return write_out(_cat(tensors, dim, "cat"), out, "cat", cast_error=TypeError)


def _cat(tensors: Sequence[Tensor], dim: int, op: str) -> Tensor:
    """cat's join, its errors naming ``op`` (hstack, vstack and dstack join with it)."""
    (tensors,) = autocast_inputs("cat", tensors)
    if isinstance(tensors, (list, tuple)) and not tensors:  # ValueError here, as in PyTorch
        raise ValueError(f"{op}(): expected a non-empty list of Tensors")
    tensors = _tensor_sequence(tensors, op)
    for i, t in enumerate(tensors):
        _check_tensor(t, op, f"tensors[{i}]")
    target = _promoted_dtype(tensors)
    # As in PyTorch, 1-D empty tensors joined to tensors of more dims are left out (they
    # count for the dtype, and get an empty gradient): the usual start of
    # `out = torch.tensor([])` then `out = torch.cat([out, x])` in a loop. Among 1-D tensors
    # they are joined as any other.
    ref = next((t for t in tensors if t.array.shape != (0,)), tensors[0])
    kept = [(i, t) for i, t in enumerate(tensors) if t.array.shape != (0,) or ref.ndim == 1]
    d = wrap_dim(dim, ref.ndim, op)
    for i, t in kept:
        if t.ndim == 0:
            raise RuntimeError(
                f"{op}: zero-dimensional tensor (at position {i}) cannot be concatenated; "
                "use stack, or unsqueeze(0) it first"
            )
        s, r = t.array.shape, ref.array.shape
        if len(s) != len(r) or builtins.any(a != b for j, (a, b) in enumerate(zip(s, r)) if j != d):
            raise RuntimeError(
                f"{op}: sizes of tensors must match except in dimension {d}; tensors[{kept[0][0]}] "
                f"has shape {r} and tensors[{i}] has shape {s}"
            )
    left_out = tuple(i for i in range(len(tensors)) if i not in dict(kept))
    return shape_ops.Cat.apply(*[cast(t, target) for t in tensors], dim=d, left_out=left_out)


concat = concatenate = cat


def _common_dtype(tensors: list) -> list:
    target = _promoted_dtype(tensors)
    return [cast(t, target) for t in tensors]


def _promoted_dtype(tensors: list) -> Any:
    target = tensors[0].dtype
    for t in tensors[1:]:
        target = _dtypes.promote_types(target, t.dtype)
    return target


def stack(
    tensors: Sequence[Tensor], dim: int = 0, *, axis: int | None = None, out: Any = None
) -> Tensor:
    """The tensors (all of one shape) joined along a new dim ``dim`` (or ``axis``)."""
    (tensors,) = autocast_inputs("stack", tensors)
    dim = dim if axis is None else axis
    tensors = _tensor_sequence(tensors, "stack")
    d = wrap_dim(dim, tensors[0].ndim + 1, "stack")
    for i, t in enumerate(tensors):
        _check_tensor(t, "stack", f"tensors[{i}]")
        if t.array.shape != tensors[0].array.shape:
            raise RuntimeError(
                f"stack: expects each tensor to be equal size, but got {tensors[0].array.shape} "
                f"at entry 0 and {t.array.shape} at entry {i}"
            )
    return write_out(
        shape_ops.Stack.apply(*_common_dtype(tensors), dim=d), out, "stack", cast_error=TypeError
    )


def hstack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """Join along dim 1 (dim 0 for 1-D tensors): side by side."""
    tensors = [t if t.ndim else t.reshape(1) for t in _tensor_sequence(tensors, "hstack")]
    return write_out(
        _cat(tensors, 0 if tensors[0].ndim == 1 else 1, "hstack"),
        out,
        "hstack",
        cast_error=TypeError,
    )


def vstack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """Join along dim 0, 1-D (and 0-d) tensors first made rows (1, n): one under another."""
    rows = _tensor_sequence(tensors, "vstack")
    return write_out(
        _cat([t.reshape(1, -1) if t.ndim < 2 else t for t in rows], 0, "vstack"),
        out,
        "vstack",
        cast_error=TypeError,
    )


row_stack = vstack


def dstack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """Join along dim 2 (depth), each tensor first made at least 3-D as atleast_3d does:
    (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    return write_out(
        _cat([atleast_3d(t) for t in _tensor_sequence(tensors, "dstack")], 2, "dstack"),
        out,
        "dstack",
        cast_error=TypeError,
    )


def column_stack(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """Join as columns: 1-D (and 0-d) tensors become (n, 1) columns, then hstack."""
    columns = _tensor_sequence(tensors, "column_stack")
    return write_out(
        _cat([t.reshape(-1, 1) if t.ndim < 2 else t for t in columns], 1, "column_stack"),
        out,
        "column_stack",
        cast_error=TypeError,
    )


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape the given shapes broadcast to (an error names the ones that do not)."""
    listed = [(s,) if isinstance(s, builtins.int) else tuple(s) for s in shapes]
    if builtins.any(s < 0 for shape in listed for s in shape):
        raise ValueError(f"broadcast_shapes: a size is negative in {listed}")  # (as PyTorch)
    result: list = []
    for shape in listed:
        for i, s in enumerate(reversed(shape)):
            if i == len(result):
                result.insert(0, s)
            elif result[-1 - i] == 1:
                result[-1 - i] = s
            elif s != 1 and s != result[-1 - i]:
                raise RuntimeError(
                    f"broadcast_shapes: shapes {listed} cannot be broadcast together (at dim "
                    f"{-1 - i}: {result[-1 - i]} and {s})"
                )
    return Size(result)


def broadcast_tensors(*tensors: Tensor) -> tuple:
    """Each tensor expanded (a view) to the shape they broadcast to together."""
    for i, t in enumerate(tensors):
        _check_tensor(t, "broadcast_tensors", f"tensors[{i}]")
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    """A view with dim(s) ``source`` moved to ``destination``; the others keep their order."""
    # one dim (an int, a NumPy int too) or a sequence of dims
    source = list(source) if isinstance(source, (tuple, list)) else [source]
    destination = list(destination) if isinstance(destination, (tuple, list)) else [destination]
    if len(source) != len(destination):
        raise RuntimeError(
            f"movedim: invalid source or destination dims: source ({source} dims) should "
            f"contain the same number of dims as destination ({destination} dims)"
        )
    n = input.ndim
    src = [wrap_dim(d, n, "movedim") for d in source]
    dst = [wrap_dim(d, n, "movedim") for d in destination]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in source {source} or destination {destination}")
    if n == 0:  # dim 0 or -1 of a 0-d tensor: nothing to move
        return permute(input, ())
    order: list = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    return permute(input, [o if o is not None else next(rest) for o in order])


moveaxis = movedim


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """Views of ``tensor`` cut along ``dim``: pieces of split_size_or_sections each (an
    int; the last may be shorter), or of the sizes in that list."""
    input = tensor  # (PyTorch names this argument tensor)
    d = wrap_dim(dim, _check_not_0d(input, "split").ndim, "split")
    n = input.array.shape[d]
    if not isinstance(split_size_or_sections, (list, tuple)):  # one size (a 0-d tensor too)
        size = _int_argument(split_size_or_sections, "split", "split_size")
        if size <= 0:
            raise RuntimeError(f"split: split_size must be positive, got {size}")
        sizes = [builtins.min(size, n - start) for start in range(0, n, size)] or [0]
    else:
        sizes = list(split_size_or_sections)
        if builtins.any(size < 0 for size in sizes):
            raise RuntimeError(f"split: split sizes must be non-negative, got {sizes}")
        if builtins.sum(sizes) != n:
            raise RuntimeError(
                f"split: split sizes {sizes} add up to {builtins.sum(sizes)} but dimension {d} "
                f"has size {n}"
            )
    whole = shape_ops.Split.apply(input, sizes=tuple(sizes), dim=d)
    pieces, start = [], 0
    for position, size in enumerate(sizes):
        piece = shape_ops.SplitPiece.apply(
            whole, position=position, start=start, stop=start + size, dim=d
        )
        pieces.append(piece)
        start += size
    return tuple(pieces)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    (chunks,) = whole_numbers((chunks,), "chunk", "chunks")
    if chunks <= 0:
        raise RuntimeError(f"chunk: chunks must be positive, got {chunks}")
    n = input.array.shape[wrap_dim(dim, _check_not_0d(input, "chunk").ndim, "chunk")]
    if n == 0:  # as in PyTorch: `chunks` empty pieces
        return split(input, [0] * chunks, dim)
    return split(input, math.ceil(n / chunks), dim)


def _split_cuts(indices_or_sections: Any, sections: Any, indices: Any,
                op: str = "tensor_split") -> Any:  # fmt: skip
    """tensor_split's (and hsplit's...) one way of giving the cuts: positionally, sections=
    (an int) or indices= (a sequence of ints); anything else is a TypeError, as in PyTorch."""
    given = [a for a in (indices_or_sections, sections, indices) if a is not None]
    if not isinstance(indices_or_sections, (type(None), list, tuple, Tensor)):
        try:
            operator.index(indices_or_sections)  # an int (or a NumPy int)
        except TypeError:
            raise TypeError(
                f"{op}(): indices_or_sections must be an int or a sequence of ints, got "
                f"{type(indices_or_sections).__name__} {indices_or_sections!r}"
            ) from None
    if len(given) != 1:
        raise TypeError(
            f"{op}(): give exactly one of indices_or_sections, sections= or indices=, "
            f"got {len(given)}"
        )
    if sections is not None and not isinstance(sections, (builtins.int, Tensor)):
        raise TypeError(f"{op}(): sections= must be an int, got {type(sections).__name__}")
    if indices is not None and not isinstance(indices, (list, tuple, Tensor)):
        raise TypeError(
            f"{op}(): indices= must be a sequence of ints, got {type(indices).__name__}"
        )
    return given[0]


def tensor_split(input: Tensor, indices_or_sections: Any = None, dim: builtins.int = 0, *,
                 sections: Any = None, indices: Any = None) -> tuple:  # fmt: skip
    """input cut along ``dim`` into views: an int ``sections`` gives that many pieces of
    near-equal size (the first size % sections one longer); a list of indices cuts before
    each, as Python slices do (input[:i0], input[i0:i1], ..., input[ik:]). Either may be
    given by keyword instead (sections=3, indices=[1, 5]), as in PyTorch."""
    d = wrap_dim(dim, _check_not_0d(input, "tensor_split").ndim, "tensor_split")
    cuts = _split_cuts(indices_or_sections, sections, indices)
    if isinstance(cuts, Tensor):  # a 0-d tensor of sections, or a 1-D tensor of indices
        if cuts.dtype.is_floating_point or cuts.dtype is _dtypes.bool or cuts.ndim > 1:
            raise RuntimeError(
                "tensor_split: a tensor of indices_or_sections must be a 0-d or 1-D integer "
                f"tensor, got {cuts.dtype} of shape {tuple(cuts.shape)}"
            )
        cuts = cuts.tolist()
    n = input.shape[d]
    if isinstance(cuts, (list, tuple)):
        bounds = [0, *(operator.index(i) for i in cuts), None]
    else:
        sections = _int_argument(cuts, "tensor_split", "sections")
        if sections <= 0:
            raise RuntimeError(f"tensor_split: number of sections must be positive, got {sections}")
        size, longer = divmod(n, sections)
        bounds = [i * size + builtins.min(i, longer) for i in range(sections + 1)]
    before = (slice(None),) * d
    return tuple(getitem(input, before + (slice(a, b),)) for a, b in zip(bounds, bounds[1:]))


def hsplit(input: Tensor, indices_or_sections: Any = None, *, sections: Any = None,
           indices: Any = None) -> tuple:  # fmt: skip
    """tensor_split along dim 1 (dim 0 of a 1-D input); sections must divide that dim. The
    sections or indices come positionally or as PyTorch's sections= / indices=."""
    cuts = _split_cuts(indices_or_sections, sections, indices, "hsplit")
    dim = 0 if _check_tensor(input, "hsplit").ndim == 1 else 1
    return _split_evenly(input, cuts, dim, 1, "hsplit")


def vsplit(input: Tensor, indices_or_sections: Any = None, *, sections: Any = None,
           indices: Any = None) -> tuple:  # fmt: skip
    """tensor_split along dim 0 of an input of 2 or more dims; sections must divide it."""
    cuts = _split_cuts(indices_or_sections, sections, indices, "vsplit")
    return _split_evenly(input, cuts, 0, 2, "vsplit")


def dsplit(input: Tensor, indices_or_sections: Any = None, *, sections: Any = None,
           indices: Any = None) -> tuple:  # fmt: skip
    """tensor_split along dim 2 of an input of 3 or more dims; sections must divide it."""
    cuts = _split_cuts(indices_or_sections, sections, indices, "dsplit")
    return _split_evenly(input, cuts, 2, 3, "dsplit")


def _split_evenly(input: Tensor, cuts: Any, dim: builtins.int, min_ndim: builtins.int,
                  op: str) -> tuple:  # fmt: skip
    if _check_tensor(input, op).ndim < min_ndim:
        raise RuntimeError(
            f"{op}: input must have at least {min_ndim} dims, got shape {tuple(input.shape)}"
        )
    if not isinstance(cuts, (list, tuple, Tensor)):
        sections = _int_argument(cuts, op, "sections")
        if sections <= 0 or input.shape[dim] % sections:
            raise RuntimeError(
                f"{op}: cannot split dim {dim} of size {input.shape[dim]} into {sections} equal "
                "pieces; give a divisor of it, or a list of indices"
            )
    return tensor_split(input, cuts, dim)


# ---------------------------------------------------------------- indexing
def _convert_index(input: Tensor, index: Any) -> tuple:
    """Turn a user index into a tuple of things numpy/cupy understand (tensors -> arrays)."""
    if not isinstance(index, tuple):
        index = (index,)
    xp = backend.xp_of(input.array)
    out = []
    for i in index:
        if isinstance(i, Tensor):
            if i.device != input.device:
                if i.device.type != "cpu":
                    raise RuntimeError(
                        f"index: indices are on {i.device} but the indexed tensor is on "
                        f"{input.device}; indices must be on the CPU or on {input.device}"
                    )
                i = i.to(input.device)  # as in PyTorch: CPU indices go to the tensor's GPU
            if i.array.dtype.name not in ("int64", "int32", "uint8", "bool"):  # PyTorch's four
                raise IndexError(
                    f"index: tensors used as indices must be long, int, byte or bool tensors, "
                    f"got {i.dtype}; convert the index with .long()"
                )
            i = i.array
            if i.dtype == "uint8":  # PyTorch's old meaning of a byte tensor: a mask
                warn_user(
                    "index: a uint8 tensor used as an index is a mask (nonzero = True), as in "
                    "PyTorch, which deprecates it; use a bool tensor, or .long() for indices"
                )
                i = i.astype(bool)
        elif isinstance(i, (list, range)):
            i = xp.asarray(list(i)) if len(i) else xp.zeros(0, dtype="int64")
            if i.dtype.kind == "f":
                raise IndexError("index: a list used as an index must hold integers or bools")
        elif isinstance(i, builtins.bool):
            i = xp.asarray(i)
        elif isinstance(i, slice) and i.step is not None and i.step <= 0:
            raise ValueError(
                f"index: step must be greater than zero, got a slice with step {i.step} "
                "(PyTorch has no negative steps); use .flip(dim) to reverse a dim"
            )
        out.append(i)
    _check_index_arrays(input, out)
    return tuple(out)


def _check_index_arrays(input: Tensor, index: list) -> None:
    """Each integer index array against the dim of ``input`` it indexes: at once on the CPU,
    at the next sync on a GPU (check_on_device), since CuPy does not raise for an index past
    the end (it wraps around). NumPy would raise too, but about the dims of the view that
    ``_torch_index_steps`` may index, not the dims of the tensor the user indexed."""
    parts = list(index)
    if builtins.any(p is Ellipsis for p in parts):
        at = next(k for k, p in enumerate(parts) if p is Ellipsis)
        used = builtins.sum(
            p.ndim if backend.is_array(p) and p.dtype == bool else 1  # a mask takes p.ndim
            for p in parts
            if p is not None and p is not Ellipsis
        )
        parts[at : at + 1] = [slice(None)] * (input.ndim - used)
    axis = 0
    for part in parts:
        if part is None:
            continue
        is_array = backend.is_array(part)
        if is_array and part.dtype.kind in "iu" and part.size and axis < input.ndim:
            n = input.shape[axis]
            backend.check_on_device(
                ((part < -n) | (part >= n)).any(),
                f"index: an index is out of bounds for dimension {axis} with size {n} "
                f"(indexing a tensor of shape {tuple(input.shape)})",
            )
        axis += part.ndim if is_array and part.dtype == bool else 1


def _torch_index_steps(index: tuple, ndim: int) -> list:
    """``x[index]`` in PyTorch's order, as one or two NumPy indexes applied one after the other.

    NumPy and PyTorch agree, except when integers meet integer arrays or masks ("advanced"
    indices). NumPy counts an int as advanced too, and puts the advanced dims first when
    advanced indices are apart: a (2, 3, 4) ``x[1, :, [0, 2]]`` has shape (2, 3) in NumPy.
    PyTorch first applies the ints, slices, None and ... (x[1] is (3, 4)), then the arrays at
    the dims they now sit on ([:, [0, 2]]), giving (3, 2). A 0-d integer tensor counts as an
    int. So when an index has arrays and anything else, it is split into those two steps."""
    is_array = [backend.is_array(i) and not (i.ndim == 0 and i.dtype.kind in "iu") for i in index]
    if not builtins.any(is_array):  # ints, slices, None, ...: NumPy's basic indexing is
        # PyTorch's, once a 0-d integer tensor is read as the int it is (x[tensor(1)] is a
        # view in PyTorch; NumPy would copy)
        return [tuple(builtins.int(i) if backend.is_array(i) else i for i in index)]
    used = builtins.sum(
        (i.ndim if i.dtype == bool else 1) if arr else (i is not None and i is not Ellipsis)
        for i, arr in zip(index, is_array)
    )
    first, then = [], []  # first: x[first] (a view); then: the arrays on the dims left
    for i, arr in zip(index, is_array):
        if arr:
            first += [slice(None)] * (i.ndim if i.dtype == bool else 1)  # a mask takes i.ndim
            then.append(i)
        elif i is Ellipsis:
            first.append(i)
            then += [slice(None)] * builtins.max(ndim - used, 0)
        elif i is None or isinstance(i, slice):
            first.append(i)
            then.append(slice(None))
        else:  # an int (or a 0-d integer array, read to the host): the dim goes
            first.append(builtins.int(i))
    if builtins.all(f == slice(None) for f in first):
        return [tuple(then)]
    return [tuple(first), tuple(then)]


def getitem(input: Tensor, index: Any) -> Tensor:
    steps = _torch_index_steps(_convert_index(input, index), input.ndim)
    try:
        out = input
        for idx in steps:
            out = indexing.GetItem.apply(out, index=idx)
        if out is not input and out._version_counter is input._version_counter:  # a view
            # lets an in-place op on it reach input's graph (and refresh_view remake it)
            # (the index as a tuple: x[None]'s index None must not read as "no index")
            whole = index if isinstance(index, tuple) else (index,)
            out._view = (input, whole, None, out._version_counter.value)
        return out
    except IndexError as error:
        raise IndexError(
            f"index: {error} (indexing a tensor of shape {tuple(input.shape)})"
        ) from None


def setitem(input: Tensor, index: Any, value: Any) -> None:
    """``input[index] = value``. Without gradient tracking this writes into the array;
    with it, the write is recorded as an op (IndexPut) so gradients stay right."""
    converted = _convert_index(input, index)
    steps = _torch_index_steps(converted, input.ndim)
    if input._view is not None and input._view[3] != input._version_counter.value:
        refresh_view(input)  # (a view whose base changed: whether it needs grad may have too)
    if isinstance(value, Tensor):
        if value.device != input.device:
            raise RuntimeError(
                f"setitem: value is on {value.device} but the tensor is on {input.device}"
            )
        _check_index_put_dtype(input, index, converted, value)
    elif not isinstance(value, (*_Number, numpy.integer)):
        raise TypeError(  # as in PyTorch: a list or a NumPy array is not converted for you
            f"setitem: can't assign a {type(value).__name__} to a {input.dtype} tensor; assign "
            "a tensor (microtorch.tensor(...)) or a Python number"
        )
    tracking = grad_mode.enabled and (
        input.requires_grad or (isinstance(value, Tensor) and value.requires_grad)
    )
    try:
        if tracking:
            value = value if isinstance(value, Tensor) else as_tensor_like(value, input)
            inplace(input, _index_put, value, steps)
            return
        _check_writable(input, "setitem")
        raw = (
            value.array
            if isinstance(value, Tensor)
            else _fitted_number(value, input.dtype, "setitem")
        )
        indexing.view_to_index(input.array, steps)[steps[-1]] = raw
    except IndexError as error:
        raise IndexError(f"setitem: {error} (tensor of shape {tuple(input.shape)})") from None
    except (ValueError, TypeError) as error:  # NumPy's broadcasting failures: RuntimeError
        raise RuntimeError(
            f"setitem: shape mismatch: {error} (tensor of shape {tuple(input.shape)})"
        ) from None
    input._version_counter.value += 1


def _check_index_put_dtype(input: Tensor, index: Any, converted: tuple, value: Tensor) -> None:
    """PyTorch's rule for ``input[index] = value``: with basic indexing the value is copied
    in (any dtype is cast), but an index with integer arrays or masks is an index_put,
    which wants the value in input's dtype; except a single mask with a one-element value,
    which is a masked_fill (and casts). (``converted``: index as _convert_index made it.)"""
    if value.dtype is input.dtype:
        return
    given = index if isinstance(index, tuple) else (index,)
    arrays = [  # a 0-d integer tensor is an int there, and a Python True a basic index
        c for c, i in zip(converted, given)
        if backend.is_array(c) and (c.ndim > 0 or (isinstance(i, Tensor) and c.dtype == bool))
    ]  # fmt: skip
    if not arrays:
        return
    if len(arrays) == 1 and arrays[0].dtype == bool and arrays[0].ndim and value.numel() == 1:
        return
    raise RuntimeError(
        f"setitem: Index put requires the source and destination dtypes match, got "
        f"{input.dtype} for the destination and {value.dtype} for the source (indexing with "
        f"integer tensors or masks); convert the value first with .to({input.dtype})"
    )


def _index_put(input: Tensor, value: Tensor, steps: list) -> Tensor:
    return indexing.IndexPut.apply(input, cast(value, input.dtype), steps=steps)


def index_put(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of input with ``input[indices] = values`` (indices: a tuple of integer or bool
    tensors); accumulate=True adds values there instead, so repeated indices add up."""
    input, values = autocast_inputs("index_put", input, values)
    _check_tensor(input, "index_put")
    if _check_tensor(values, "index_put", "values").dtype is not input.dtype:
        raise RuntimeError(
            f"index_put: Index put requires the source and destination dtypes match, got "
            f"{input.dtype} for the destination and {values.dtype} for the source"
        )
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put: indices must be a tuple of tensors, got {type(indices)}")
    index = _convert_index(input, tuple(indices))
    steps = _torch_index_steps(index, input.ndim)
    target = indexing.view_to_index(input.array, steps)[steps[-1]].shape  # the indexed shape
    try:
        fits = tuple(numpy.broadcast_shapes(target, values.array.shape)) == tuple(target)
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"index_put: shape mismatch: value tensor of shape {list(values.shape)} cannot be "
            f"broadcast to indexing result of shape {list(target)}"
        )
    if not accumulate:
        return _index_put(input, values, steps)
    arrays = []  # add.at wants integer arrays: a mask stands for its nonzero positions
    for i in index:
        arrays.extend(i.nonzero() if backend.is_array(i) and i.dtype == bool else (i,))
    if len(arrays) > input.ndim:
        raise IndexError(f"index_put: too many indices for a tensor of {input.ndim} dims")
    for k, i in enumerate(arrays):
        if not backend.is_array(i):
            raise TypeError("index_put: with accumulate=True, indices must be tensors")
        n = input.shape[k]
        backend.check_on_device(
            ((i < -n) | (i >= n)).any(),
            f"index_put: an index is out of bounds for dimension {k} with size {n}",
        )
    return indexing.IndexAccumulate.apply(input, values, index=tuple(arrays))


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of input in which the positions where ``mask`` (bool, broadcast with input) is
    True take source's first values in row-major order, one after another."""
    _check_tensor(input, "masked_scatter")
    if _check_tensor(mask, "masked_scatter", "mask").array.dtype != bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got {mask.dtype}")
    if _check_tensor(source, "masked_scatter", "source").dtype is not input.dtype:
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but got "
            f"{input.dtype} and {source.dtype}"
        )
    shape = broadcast_shapes(input.shape, mask.shape)
    wide_mask = expand(mask, shape)
    count = builtins.int(wide_mask.array.sum())
    if count > source.numel():
        raise RuntimeError(
            f"masked_scatter: Number of elements of source ({source.numel()}) < number of ones "
            f"in mask ({count})"
        )
    return _index_put(expand(input, shape), reshape(source, (-1,))[:count], [(wide_mask.array,)])


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    _check_tensor(mask, "masked_fill", "mask")
    if mask.array.dtype != bool:
        raise RuntimeError(f"masked_fill: expected a bool mask, got {mask.dtype}")
    if mask.device != input.device:
        raise RuntimeError(
            f"masked_fill: mask is on {mask.device} but the input is on {input.device}"
        )
    _check_broadcast(input.array.shape, mask.array.shape, "masked_fill")
    value = _fill_value(input, value, "masked_fill")
    if isinstance(value, Tensor):  # a value that needs a gradient: where() gives it one
        return where(mask, cast(value, input.dtype), input)
    return indexing.MaskedFill.apply(input, mask, value=value)


def _fill_value(input: Tensor, value: Any, op: str) -> Any:
    """The value masked_fill or fill_ writes: a number, or (when it needs a gradient) a 0-d
    tensor. As in PyTorch, a tensor value must be 0-d, and inf or nan cannot go into an
    integer tensor."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"{op} only supports a 0-dimensional value tensor, but got one of shape "
                f"{tuple(value.shape)}; pass a single element (value[0], or value.item())"
            )
        if grad_mode.enabled and value.requires_grad:
            return value
        value = value.item()
    elif isinstance(value, (complex, numpy.complexfloating)):  # (RuntimeError, as in PyTorch)
        raise RuntimeError(
            f"{op}: value {value!r} cannot be converted to type {input.dtype} (microtorch has "
            "no complex dtypes); pass a real number"
        )
    elif not isinstance(value, (*_Number, numpy.number)):
        raise TypeError(f"{op}: value must be a number or a 0-d tensor, got {type(value).__name__}")
    return _fitted_number(value, input.dtype, op)  # (inf or nan into an integer: RuntimeError)


def tril(input: Tensor, diagonal: int = 0, *, out: Any = None) -> Tensor:
    diagonal = _int_argument(diagonal, "tril", "diagonal")
    return write_out(
        indexing.Tri.apply(_check_matrix(input, "tril"), diagonal=diagonal, upper=False),
        out,
        "tril",
        exact_dtype=True,
    )


def triu(input: Tensor, diagonal: int = 0, *, out: Any = None) -> Tensor:
    diagonal = _int_argument(diagonal, "triu", "diagonal")
    return write_out(
        indexing.Tri.apply(_check_matrix(input, "triu"), diagonal=diagonal, upper=True),
        out,
        "triu",
        exact_dtype=True,
    )


def _check_matrix(input: Tensor, op: str) -> Tensor:
    if _check_tensor(input, op).ndim < 2:
        raise RuntimeError(
            f"{op}: input tensor must have at least 2 dimensions, got shape {tuple(input.shape)}"
        )
    return input


def unfold(input: Tensor, dimension: builtins.int, size: builtins.int,
           step: builtins.int) -> Tensor:  # fmt: skip
    """Tensor.unfold: every window of ``size`` elements along ``dimension``, starting each
    ``step`` elements; the windows replace that dim and their elements form a new last dim.
    A view of input's memory, as in PyTorch. The gradient adds up where windows overlap."""
    d = wrap_dim(dimension, _check_tensor(input, "unfold").ndim, "unfold")
    if input.ndim == 0:
        return unfold(reshape(input, (1,)), 0, size, step)[0]
    n = input.shape[d]
    if size < 0 or size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return shape_ops.Unfold.apply(input, dim=d, size=size, step=step)


def as_strided(input: Tensor, size: Any, stride: Any,
               storage_offset: builtins.int | None = None) -> Tensor:  # fmt: skip
    """A view of the memory ``input`` views with these sizes and strides (in elements),
    starting ``storage_offset`` elements into it (by default where input starts)."""
    _check_tensor(input, "as_strided")
    size, stride = tuple(builtins.int(n) for n in size), tuple(builtins.int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"as_strided: mismatch in length of strides and shape: size {list(size)} has "
            f"{len(size)} dims, stride {list(stride)} has {len(stride)}"
        )
    if builtins.any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}"
        )
    if builtins.any(n < 0 for n in size):
        raise RuntimeError(f"as_strided: sizes must be non-negative, got {list(size)}")
    start = input.storage_offset()
    offset = start if storage_offset is None else builtins.int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"as_strided: Tensor: invalid storage offset {offset}")
    return shape_ops.AsStrided.apply(input, size=size, stride=stride, storage_offset=offset,
                                     start=start)  # fmt: skip


def slice_inverse(input: Tensor, src: Tensor, dim: builtins.int = 0,
                  start: builtins.int | None = None, end: builtins.int | None = None,
                  step: builtins.int = 1) -> Tensor:  # fmt: skip
    """The memory input views, shown with src's sizes, strides and offset: when input is
    src[start:end:step] along dim, that is src's layout again, over input's memory (a view
    of input; dim, start, end and step only say which slice it was, as in PyTorch)."""
    _check_tensor(src, "slice_inverse", "src")
    return as_strided(input, src.shape, src.stride(), src.storage_offset())


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-d, 1-D as one row, or 2-D) as blocks along the diagonal of one matrix,
    zeros elsewhere, in their promoted dtype."""
    blocks = []
    for i, t in enumerate(tensors):
        if _check_tensor(t, "block_diag", f"tensors[{i}]").ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                f"{t.ndim} dimensions"
            )
        blocks.append(reshape(t, (1, -1)) if t.ndim < 2 else t)
    if not blocks:
        return Tensor._make(numpy.zeros((1, 0), dtype=_dtypes.get_default_dtype().np))
    target = _promoted_dtype(blocks)
    xp = backend.xp_of(blocks[0].array)
    width = builtins.sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        (r, c) = b.shape
        before = Tensor._make(xp.zeros((r, left), dtype=target.np))
        after = Tensor._make(xp.zeros((r, width - left - c), dtype=target.np))
        rows.append(cat([before, cast(b, target), after], 1))
        left += c
    return cat(rows, 0)


def vander(x: Tensor, N: builtins.int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of the 1-D ``x``: columns x^(N-1), ..., x, 1 (N = len(x) by
    default; increasing=True: 1, x, ..., x^(N-1)). Integers and bools give int64."""
    if _check_tensor(x, "vander", "x").ndim != 1:
        raise RuntimeError(
            f"vander: x must be a one-dimensional tensor, got shape {tuple(x.shape)}"
        )
    N = x.shape[0] if N is None else N
    if N < 0:
        raise RuntimeError(f"vander: N must be non-negative, got {N}")
    if not x.dtype.is_floating_point:
        x = cast(x, _dtypes.int64)
    columns = [Tensor._make(backend.xp_of(x.array).ones_like(x.array))]
    for _ in range(N - 1):
        columns.append(mul(columns[-1], x))  # x^k = x^(k-1) * x: a plain product, 0 ok
    out = stack(columns[:N], 1) if N else reshape(x, (-1, 1))[:, :0]
    return out if increasing else flip(out, (1,))


def renorm(input: Tensor, p: Any, dim: builtins.int, maxnorm: Any, *, out: Any = None) -> Tensor:
    """Each slice of ``input`` along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down to
    that norm (times maxnorm / (norm + 1e-7), as PyTorch); the others as they are."""
    (input,) = autocast_inputs("renorm", input)
    if _check_tensor(input, "renorm").ndim < 2:
        raise RuntimeError(
            f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions"
        )
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"renorm: input needs to be floating point, got {input.dtype}")
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported (p={p})")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = wrap_dim(dim, input.ndim, "renorm")
    others = tuple(i for i in range(input.ndim) if i != d)
    norms = _vector_norm(input, p, others, True, None, "renorm")
    factor = where(gt(norms, maxnorm), div(maxnorm, add(norms, 1e-7)), 1.0)
    return write_out(mul(input, factor), out, "renorm", exact_dtype=True)


def gather(
    input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out: Any = None
) -> Tensor:
    """out[i][j] = input[i][index[i][j]] for dim=1 (likewise for other dims): the values
    at ``index`` along ``dim``; out has index's shape. (``sparse_grad``: dense here.)"""
    d = wrap_dim(dim, _check_tensor(input, "gather").ndim, "gather")
    if _check_tensor(index, "gather", "index").numel() == 0:  # PyTorch checks nothing more
        empty = narrow(reshape(input, (-1,)), 0, 0, 0)  # (in input's graph)
        return write_out(reshape(empty, tuple(index.shape)), out, "gather", exact_dtype=True)
    if builtins.max(input.ndim, index.ndim) <= 1 and (
        input.ndim == 0 or index.ndim == 0
    ):  # PyTorch counts a 0-d input or index as 1-D of size 1 here
        return write_out(
            reshape(gather(reshape(input, (-1,)), 0, reshape(index, (-1,))), index.shape),
            out,
            "gather",
            exact_dtype=True,
        )
    if index.ndim != input.ndim:
        raise RuntimeError(
            f"gather: index has {index.ndim} dims but input has {input.ndim}; they must match"
        )
    if index.dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(f"gather: Expected dtype int32/int64 for index, got {index.dtype}")
    if builtins.any(i > n for k, (i, n) in enumerate(zip(index.shape, input.shape)) if k != d):
        raise RuntimeError(
            f"gather: index of shape {tuple(index.shape)} must be no larger than input "
            f"{tuple(input.shape)} in every dim but dim {d}"
        )
    _check_indices_below(index, input.array.shape[d], d, "gather", tuple(input.shape))
    # PyTorch allows an index smaller than input in the other dims: crop input to it
    crop = tuple(
        slice(None) if i == d else slice(0, index.array.shape[i]) for i in range(input.ndim)
    )
    if builtins.any(c != slice(None) for c in crop):
        input = getitem(input, crop)
    return write_out(
        indexing.TakeAlongDim.apply(input, index=index.array, dim=d),
        out,
        "gather",
        exact_dtype=True,
    )


def _check_indices_below(
    index: Tensor, n: int, dim: int, op: str, shape: tuple, error: type = RuntimeError
) -> None:
    """Every index in 0..n-1 (dim ``dim`` of a tensor of ``shape``): at once on the CPU, at
    the next sync on a GPU (backend.check_on_device). A RuntimeError, as PyTorch's gather
    and scatter raise; its index_add and index_select raise IndexError in some cases."""
    if index.array.size:
        backend.check_on_device(
            (index.array < 0).any() | (index.array >= n).any(),
            f"{op}: an index is out of bounds for dimension {dim} with size {n} (input shape "
            f"{shape})",
            error,
        )


def masked_select(input: Tensor, mask: Tensor, *, out: Any = None) -> Tensor:
    """The elements of ``input`` where the bool ``mask`` (broadcast with it) is True, as a
    1-D tensor in row-major order."""
    _check_tensor(input, "masked_select")
    if _check_tensor(mask, "masked_select", "mask").array.dtype != bool:
        raise RuntimeError(f"masked_select: expected a bool mask, got {mask.dtype}")
    _check_broadcast(input.array.shape, mask.array.shape, "masked_select")
    shape = broadcast_shapes(input.shape, mask.shape)
    return write_out(
        getitem(expand(input, shape), expand(mask, shape)), out, "masked_select", exact_dtype=True
    )


def take_along_dim(
    input: Tensor, indices: Tensor, dim: builtins.int | None = None, *, out: Any = None
) -> Tensor:
    """gather with broadcasting: along ``dim``, the elements at ``indices`` (which
    broadcasts with input in the other dims; a negative index counts from the end); with no
    dim, of the flattened input (no negative indices, as in PyTorch)."""
    if _check_tensor(indices, "take_along_dim", "indices").dtype is not _dtypes.int64:
        raise RuntimeError(  # (int32 too: PyTorch takes int64 only here, unlike gather)
            f"take_along_dim: dtype of indices should be int64 (long), got {indices.dtype}; "
            "convert them with .long()"
        )
    if dim is None:
        return write_out(
            gather(reshape(input, (-1,)), 0, reshape(indices, (-1,))),
            out,
            "take_along_dim",
            exact_dtype=True,
        )
    d = wrap_dim(dim, input.ndim, "take_along_dim")
    if indices.ndim != input.ndim:
        raise RuntimeError(
            f"take_along_dim: input {tuple(input.shape)} and indices {tuple(indices.shape)} "
            "should have the same number of dims"
        )
    in_shape, idx_shape = list(input.shape), list(indices.shape)
    in_shape[d] = idx_shape[d] = 1
    _check_broadcast(in_shape, idx_shape, "take_along_dim")
    common = list(broadcast_shapes(in_shape, idx_shape))
    input = expand(input, common[:d] + [input.shape[d]] + common[d + 1 :])
    indices = expand(indices, common[:d] + [indices.shape[d]] + common[d + 1 :])
    if indices.dtype in (_dtypes.int64, _dtypes.int32):  # along a dim, -1 is the last, as PyTorch
        indices = where(lt(indices, 0), add(indices, input.shape[d]), indices)
    return write_out(gather(input, d, indices), out, "take_along_dim", exact_dtype=True)


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
            reduce: str | None = None, out: Any = None) -> Tensor:  # fmt: skip
    """The reverse of gather: a copy of ``input`` in which, along ``dim``, the position
    ``index[i]`` holds ``src[i]`` (or ``value``) for every position i of ``index``: for a
    2-D input and dim=1, out[i][index[i][j]] = src[i][j]. Where an index repeats, one of
    the values wins (which one is not defined, as in PyTorch). reduce="add" or "multiply"
    combines them with input's instead (PyTorch's older form of scatter_reduce)."""
    if src is None and value is None:
        raise TypeError("scatter: give src (a tensor) or value (a number)")
    if reduce is not None:
        return write_out(
            _scatter_reduce_form(input, dim, index, src, value, reduce),
            out,
            "scatter",
            exact_dtype=True,
        )
    return write_out(
        _scatter(input, dim, index, value if src is None else src, "scatter", add=False),
        out,
        "scatter",
        exact_dtype=True,
    )


def _scatter_reduce_form(input: Tensor, dim: int, index: Tensor, src: Any, value: Any,
                         reduce: str) -> Tensor:  # fmt: skip
    """scatter(..., reduce=): "add" adds the values at each position onto input's (as
    scatter_add), "multiply" multiplies input's by them (scatter_reduce's "prod")."""
    if reduce not in ("add", "multiply"):
        raise RuntimeError(f"scatter: reduce argument must be either add or multiply, got {reduce}")
    if not isinstance(src, Tensor):  # a number: as a tensor of it shaped like index
        xp = backend.xp_of(_check_tensor(input, "scatter").array)
        shape = _check_tensor(index, "scatter", "index").array.shape
        number = value if src is None else src
        src = Tensor._make(xp.full(shape, number, dtype=input.array.dtype))
    else:
        warn_user(
            "scatter: the reduce argument with a tensor src is deprecated in PyTorch; use "
            "scatter_reduce (or scatter_add)"
        )
    if reduce == "add":
        return scatter_add(input, dim, index, src)
    return scatter_reduce(input, dim, index, src, "prod")


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor, *, out: Any = None) -> Tensor:
    """Like scatter, but each src[i] is added at its position, so values that meet at one
    position add up: out[i][index[i][j]] += src[i][j] (dim=1)."""
    input, src = autocast_inputs("scatter_add", input, src)
    return write_out(
        _scatter(input, dim, index, src, "scatter_add", add=True),
        out,
        "scatter_add",
        exact_dtype=True,
    )


def scatter_reduce(input: Tensor, dim: builtins.int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True, out: Any = None) -> Tensor:  # fmt: skip
    """Like scatter_add, but the values meeting at a position (src's, and input's own unless
    include_self=False) are combined by ``reduce``: "sum", "prod", "mean" (integers: floor),
    "amax" or "amin". Gradients as PyTorch's (prod's at zeros too)."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # (PyTorch takes these too)
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"scatter_reduce: reduce argument must be either sum, prod, mean, amax or amin, got "
            f"{reduce}"
        )
    if _check_tensor(input, "scatter_reduce").array.dtype == bool and reduce == "mean":
        raise NotImplementedError(
            "scatter_reduce: reduce='mean' is not implemented for bool tensors, as in PyTorch"
        )
    if input.ndim == 0:  # one element: as a 1-D one
        index, src = (reshape(t, (-1,)) if t.ndim == 0 else t for t in (index, src))
        one = scatter_reduce(
            reshape(input, (1,)), dim, index, src, reduce, include_self=include_self
        )
        return write_out(reshape(one, ()), out, "scatter_reduce", exact_dtype=True)
    d = _check_scatter(input, dim, index, src, "scatter_reduce")
    result = indexing.ScatterReduce.apply(
        input,
        src,
        index=index.array,
        dim=d,
        reduce=reduce,
        include_self=builtins.bool(include_self),
    )
    return write_out(result, out, "scatter_reduce", exact_dtype=True)


def index_reduce(input: Tensor, dim: builtins.int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True, out: Any = None) -> Tensor:  # fmt: skip
    """A copy of input where slice index[k] along dim is combined with slice k of source by
    ``reduce`` ("prod", "mean", "amax" or "amin"), input's own slice counted unless
    include_self=False; scatter_reduce with the index spread over source's other dims."""
    d = wrap_dim(dim, _check_tensor(input, "index_reduce").ndim, "index_reduce")
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    index, source = (
        _check_tensor(index, "index_reduce", "index"),
        _check_tensor(source, "index_reduce", "source"),
    )
    if index.ndim > 1 or index.dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(
            f"index_reduce(): index must be a 1-D int64 or int32 tensor, got shape "
            f"{tuple(index.shape)} and dtype {index.dtype}"
        )
    if input.ndim == 0 and source.ndim == 0:  # each one element, as in PyTorch
        flat = index_reduce(reshape(input, (1,)), 0, index, reshape(source, (1,)), reduce,
                            include_self=include_self)  # fmt: skip
        return write_out(reshape(flat, ()), out, "index_reduce", exact_dtype=True)
    if source.ndim != input.ndim:
        raise RuntimeError(
            f"index_reduce(): source {tuple(source.shape)} must have as many dims as input "
            f"{tuple(input.shape)}"
        )
    n = index.numel()
    if (source.shape[d] if source.ndim else 1) != n:
        raise RuntimeError(
            f"index_reduce(): number of indices ({n}) should be equal to source.size(dim) "
            f"({source.shape[d] if source.ndim else 1})"
        )
    spread = reshape(index, (n,) + (1,) * (source.ndim - d - 1)) if source.ndim else index
    result = scatter_reduce(input, d, expand(spread, source.shape), source, reduce,
                            include_self=include_self)  # fmt: skip
    return write_out(result, out, "index_reduce", exact_dtype=True)


def _scatter(input: Tensor, dim: int, index: Tensor, src: Any, op: str, add: bool) -> Tensor:
    if _check_tensor(input, op).ndim == 0 and _check_tensor(index, op, "index").ndim <= 1:
        wrap_dim(dim, 1, op)  # as in PyTorch: a 0-d input is one element, at index 0
        src = reshape(src, (-1,)) if isinstance(src, Tensor) else src
        return reshape(_scatter(reshape(input, (1,)), 0, reshape(index, (-1,)), src, op, add), ())
    if not isinstance(src, Tensor):  # a number: as if a tensor of it, shaped like index
        src = Tensor._make(
            backend.xp_of(_check_tensor(input, op).array).full(
                _check_tensor(index, op, "index").array.shape, src, dtype=input.array.dtype
            )
        )
    if builtins.max(input.ndim, index.ndim, src.ndim) <= 1 and 0 in (
        input.ndim,
        index.ndim,
        src.ndim,
    ):  # PyTorch counts a 0-d input, index or src as 1-D of size 1 here
        flat = [reshape(t, (-1,)) for t in (input, index, src)]
        wrap_dim(dim, input.ndim, op)
        return reshape(_scatter(flat[0], 0, flat[1], flat[2], op, add), input.shape)
    d = _check_scatter(input, dim, index, src, op)
    return indexing.Scatter.apply(input, src, index=index.array, dim=d, add=add)


def _check_scatter(input: Tensor, dim: int, index: Tensor, src: Tensor, op: str) -> int:
    """The wrapped dim of a scatter-style op, once input, index and src are checked."""
    _check_tensor(input, op)
    _check_tensor(index, op, "index")
    d = wrap_dim(dim, input.ndim, op)
    if index.dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(f"{op}: Expected dtype int32/int64 for index, got {index.dtype}")
    if _check_tensor(src, op, "src").dtype is not input.dtype:
        raise RuntimeError(
            f"{op}: src has dtype {src.dtype} but input has {input.dtype}; they must be the same"
        )
    i_shape, in_shape, s_shape = tuple(index.shape), tuple(input.shape), tuple(src.shape)
    fits = len(i_shape) == len(in_shape) == len(s_shape) and builtins.all(
        i <= s and (k == d or i <= n) for k, (i, n, s) in enumerate(zip(i_shape, in_shape, s_shape))
    )
    if not fits:
        raise RuntimeError(
            f"{op}: index of shape {i_shape} must have as many dims as input {in_shape} and src "
            f"{s_shape}, and be no larger than src in any dim, nor than input except in dim {d}"
        )
    _check_indices_below(index, in_shape[d], d, op, in_shape)
    return d


def index_add(
    input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1, out: Any = None
) -> Tensor:
    """A copy of ``input`` in which ``alpha * source``'s slice i along ``dim`` is added to
    the slice ``index[i]``; slices that meet at one index add up."""
    _check_tensor(input, "index_add")
    _check_tensor(source, "index_add", "source")
    if _check_tensor(index, "index_add", "index").ndim > 1:
        raise IndexError(
            f"index_add: index must be a vector (1-D), got one of shape {tuple(index.shape)}"
        )
    if index.array.dtype.kind not in "iu":
        raise RuntimeError(f"index_add: index must be an integer tensor, got {index.dtype}")
    index = reshape(index, (-1,))  # a 0-d index is one index, as in PyTorch
    if input.ndim == 0:  # ...and a 0-d input one element (its source 0-d too)
        wrap_dim(dim, 1, "index_add")
        if source.ndim != 0:
            raise RuntimeError(
                f"index_add: source of shape {tuple(source.shape)} does not fit a 0-d input; "
                "it must be 0-d too"
            )
        flat = index_add(reshape(input, (1,)), 0, index, reshape(source, (-1,)), alpha=alpha)
        return write_out(reshape(flat, ()), out, "index_add", exact_dtype=True)
    d = wrap_dim(dim, input.ndim, "index_add")
    expected = list(input.shape)
    expected[d] = index.shape[0]
    if tuple(source.shape) != tuple(expected):
        raise RuntimeError(
            f"index_add: source of shape {tuple(source.shape)} does not fit: with index of "
            f"{index.shape[0]} elements and input {tuple(input.shape)} it must be {tuple(expected)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"index_add: source has dtype {source.dtype} but input has {input.dtype}; they must "
            "be the same"
        )
    error = IndexError if input.ndim <= 1 else RuntimeError  # PyTorch's, as its kernels raise
    _check_indices_below(index, input.shape[d], d, "index_add", tuple(input.shape), error)
    return write_out(
        indexing.IndexAdd.apply(input, source, index=index.array, dim=d, alpha=alpha),
        out,
        "index_add",
        exact_dtype=True,
    )


def index_fill(input: Tensor, dim: builtins.int, index: Tensor, value: Any) -> Tensor:
    """A copy of input in which the slices ``index`` along ``dim`` all hold ``value`` (a
    number, or a 0-d tensor that gets the sum of their gradients); index may count from the
    end. A 0-d input counts as one element."""
    if _check_tensor(input, "index_fill").ndim == 0:
        return reshape(index_fill(reshape(input, (1,)), dim, index, value), ())
    if isinstance(value, Tensor):  # (as PyTorch: 0-d only, cast to input's dtype like a number)
        if value.ndim != 0:
            raise RuntimeError(
                f"index_fill only supports a 0-dimensional value tensor, but got one of shape "
                f"{tuple(value.shape)}; pass a single element (value[0], or value.item())"
            )
        value = cast(value, input.dtype) if value.dtype is not input.dtype else value
    out = clone(input)
    where = _slices_at(input, dim, index, True, "index_fill")
    # each slice once: a repeated index fills it once, so it adds to value's gradient once
    n = input.shape[len(where) - 1]
    once = Tensor._make(backend.xp_of(index.array).unique(where[-1].array % n))
    setitem(out, where[:-1] + (once,), value)
    return out


def index_copy(input: Tensor, dim: builtins.int, index: Tensor, source: Tensor, *,
               out: Any = None) -> Tensor:  # fmt: skip
    """A copy of input in which the slice index[i] along ``dim`` is source's slice i; where
    an index repeats, one of its slices wins (which one is not defined, as in PyTorch). A
    0-d input counts as one element."""
    input, source = autocast_inputs("index_copy", input, source)
    if _check_tensor(input, "index_copy").ndim == 0:
        source = reshape(_check_tensor(source, "index_copy", "source"), (-1,))
        copy = reshape(index_copy(reshape(input, (1,)), dim, index, source), ())
        return write_out(copy, out, "index_copy", exact_dtype=True)
    where_to = _slices_at(input, dim, index, False, "index_copy")
    expected = list(input.shape)
    expected[len(where_to) - 1] = index.array.size  # (where_to is (:, ..., :, index))
    if tuple(_check_tensor(source, "index_copy", "source").shape) != tuple(expected):
        raise IndexError(
            f"index_copy: source of shape {tuple(source.shape)} does not fit: with index of "
            f"{index.array.size} elements and input {tuple(input.shape)} it must be "
            f"{tuple(expected)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"index_copy: source has dtype {source.dtype} but input has {input.dtype}; they "
            "must be the same"
        )
    copy = clone(input)
    setitem(copy, where_to, source)
    return write_out(copy, out, "index_copy", exact_dtype=True)


def _slices_at(input: Tensor, dim: builtins.int, index: Tensor, negative_ok: builtins.bool,
               op: str) -> tuple:  # fmt: skip
    """The index (:, ..., :, index) that picks the slices ``index`` along ``dim`` of a tensor
    of at least one dim, once index is known to be a 1-D (or 0-d) int64 tensor within that
    dim (from the end too, when ``negative_ok``)."""
    d = wrap_dim(dim, input.ndim, op)
    if _check_tensor(index, op, "index").ndim > 1:
        raise RuntimeError(f"{op}: index must be 1-D (or 0-d), got shape {tuple(index.shape)}")
    if index.dtype is not _dtypes.int64:  # (PyTorch: IndexError for index_fill only)
        error = IndexError if op == "index_fill" else RuntimeError
        raise error(f"{op}: index must be an int64 (long) tensor, got {index.dtype}")
    n = input.shape[d]
    if index.array.size:
        backend.check_on_device(
            ((index.array < (-n if negative_ok else 0)) | (index.array >= n)).any(),
            f"{op}: an index is out of bounds for dimension {d} with size {n} (input shape "
            f"{tuple(input.shape)})",
        )
    return (slice(None),) * d + (reshape(index, (-1,)),)


def take(input: Tensor, index: Tensor, *, out: Any = None) -> Tensor:
    """The elements of input read as 1-D, at ``index`` (an integer tensor of any shape;
    negative counts from the end): the result has index's shape."""
    _check_tensor(input, "take")
    if _check_tensor(index, "take", "index").array.dtype.kind not in "iu":
        raise RuntimeError(f"take: index must be an integer (long) tensor, got {index.dtype}")
    n = input.array.size
    if index.array.size:
        backend.check_on_device(
            ((index.array < -n) | (index.array >= n)).any(),
            f"take: out of range: an index is outside [-{n}, {n}) for a tensor of {n} elements",
        )
    return write_out(getitem(reshape(input, (-1,)), (index,)), out, "take", exact_dtype=True)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` read as 1-D with ``source``'s values written (or, with
    accumulate, added) at the flat positions ``index`` (negative counts from the end): the
    reverse of take. Gradients: input's is the output's with the written positions zeroed
    (kept with accumulate), source's is the output's at index."""
    _check_tensor(input, "put_"), _check_tensor(index, "put_", "index")
    _check_tensor(source, "put_", "source")
    if index.dtype is not _dtypes.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype}")
    if source.dtype != input.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got {input.dtype} "
            f"and {source.dtype}; cast source first, e.g. source.to(input.dtype)"
        )
    if source.numel() != index.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    n = input.numel()
    if index.numel() and builtins.bool(((index < -n) | (index >= n)).any()):
        raise IndexError(
            f"put_(): an index is out of range for a tensor of {n} elements (valid flat "
            f"indices are -{n} to {n - 1})"
        )
    flat = index_put(reshape(input, (-1,)), (reshape(index, (-1,)),), reshape(source, (-1,)),
                     accumulate)  # fmt: skip
    return reshape(flat, input.shape)


def select(input: Tensor, dim: builtins.int, index: builtins.int) -> Tensor:
    """The slice at ``index`` along ``dim``, without that dim (input.select(0, i) is
    input[i]); a view, as in PyTorch."""
    if _check_tensor(input, "select").ndim == 0:
        raise IndexError("select: cannot be applied to a 0-d tensor")
    d = wrap_dim(dim, input.ndim, "select")
    n, i = input.shape[d], _int_argument(index, "select", "index")
    if not -n <= i < n:
        raise IndexError(
            f"select: index {i} is out of range for dim {d} of size {n} (shape "
            f"{tuple(input.shape)})"
        )
    return getitem(input, (slice(None),) * d + (i,))


def meshgrid(*tensors: Tensor, indexing: str | None = None) -> tuple:
    """Coordinate grids of 1-D (or 0-d) tensors of sizes n0, n1, ...: output i has shape
    (n0, n1, ...) and holds tensor i's values along dim i ("ij"); "xy" swaps the first two
    dims ((n1, n0, ...)), as NumPy's default. Without indexing, "ij" and PyTorch's warning.
    The outputs are expanded views."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warn_user(
            "meshgrid: in an upcoming release PyTorch will require the indexing argument; "
            "pass indexing='ij' (what is used without it) or indexing='xy'"
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    for i, t in enumerate(tensors):
        if _check_tensor(t, "meshgrid", f"tensors[{i}]").ndim > 1:
            raise RuntimeError(f"meshgrid: expected 0-d or 1-D tensors, got shape {tuple(t.shape)}")
        if t.dtype is not tensors[0].dtype or t.device != tensors[0].device:
            raise RuntimeError(
                "meshgrid: all tensors must have the same dtype and device, got "
                f"{tensors[0].dtype} on {tensors[0].device} and {t.dtype} on {t.device}"
            )
    shape = [t.array.size for t in tensors]
    grids = []
    for i, t in enumerate(tensors):
        along = [1] * len(tensors)
        along[i] = -1
        grids.append(expand(reshape(t, along), shape))
    if indexing == "xy" and len(tensors) >= 2:
        grids = [transpose(g, 0, 1) for g in grids]
    return tuple(grids)


def tril_indices(row: builtins.int, col: builtins.int, offset: builtins.int = 0, *,
                 dtype: Any = None, device: Any = None, layout: Any = None,
                 pin_memory: bool = False, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The (2, N) row and column indices of the lower triangle of a row x col matrix (on and
    below diagonal ``offset``), in row-major order. int64 unless ``dtype`` says."""
    _formats.check_layout(layout, pin_memory, "tril_indices")
    t = _triangle_indices(numpy.tril_indices, row, col, offset, dtype, device, "tril_indices")
    return t.requires_grad_(True) if requires_grad else t


def triu_indices(row: builtins.int, col: builtins.int, offset: builtins.int = 0, *,
                 dtype: Any = None, device: Any = None, layout: Any = None,
                 pin_memory: bool = False, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The (2, N) row and column indices of the upper triangle of a row x col matrix (on and
    above diagonal ``offset``), in row-major order. int64 unless ``dtype`` says."""
    _formats.check_layout(layout, pin_memory, "triu_indices")
    t = _triangle_indices(numpy.triu_indices, row, col, offset, dtype, device, "triu_indices")
    return t.requires_grad_(True) if requires_grad else t


def _triangle_indices(
    numpy_indices: Any,
    row: builtins.int,
    col: builtins.int,
    offset: builtins.int,
    dtype: Any,
    device: Any,
    op: str,
) -> Tensor:
    """Made on the host (a small table of sizes, as the factories make theirs), then moved."""
    from .factories import tensor

    row, col = _int_argument(row, op, "row"), _int_argument(col, op, "col")
    offset = _int_argument(offset, op, "offset")
    if row < 0 or col < 0:
        raise RuntimeError(f"{op}: row and col must be non-negative, got {row} and {col}")
    dtype = _dtypes.int64 if dtype is None else _dtypes.get_dtype(dtype)
    if dtype not in (_dtypes.int64, _dtypes.int32):
        raise NotImplementedError(f"{op}: dtype must be int64 or int32, as in PyTorch; got {dtype}")
    rows, cols = numpy_indices(row, offset, col)
    pairs = numpy.stack([rows, cols]).astype(numpy.int64)
    return tensor(pairs, dtype=dtype, device=device)


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None,
                 sorter: Tensor | None = None, out: Any = None) -> Tensor:  # fmt: skip
    """For each value of input, the index at which it would go into the last dim of
    ``sorted_sequence`` to keep it sorted: before equal entries (side="left"), or after them
    (right=True or side="right"). sorted_sequence is 1-D, or has input's leading dims (one
    sorted row per row of input); ``sorter``: the indices that sort it. No gradient."""
    seq = _check_tensor(sorted_sequence, "searchsorted", "sorted_sequence")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        if right and side == "left":
            raise RuntimeError("searchsorted: side='left' and right=True contradict each other")
        right = side == "right"
    if seq.ndim == 0:
        raise RuntimeError("searchsorted: sorted_sequence must have at least one dim, got 0-d")
    if sorter is not None:
        seq = gather(seq, -1, sorter)
    values = input if isinstance(input, Tensor) else as_tensor_like(input, seq)
    xp = backend.xp_of(seq.array)
    if seq.ndim == 1:
        found = xp.searchsorted(seq.array, values.array, side="right" if right else "left")
    elif tuple(seq.shape[:-1]) == tuple(values.shape[:-1]):
        # the number of entries of each row that come before each value of that row
        before = (
            seq.array[..., None, :] <= values.array[..., :, None]
            if right
            else (seq.array[..., None, :] < values.array[..., :, None])
        )
        found = before.sum(-1)
    else:
        raise RuntimeError(
            "searchsorted: sorted_sequence must be 1-D or share all but the last dim with "
            f"input, got shapes {tuple(seq.shape)} and {tuple(values.shape)}"
        )
    return write_out(
        Tensor._make(xp.asarray(found).astype("int32" if out_int32 else "int64")),
        out,
        "searchsorted",
        exact_dtype=True,
    )


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False,
              right: bool = False, out: Any = None) -> Tensor:  # fmt: skip
    """The bucket of each value of input among the sorted 1-D ``boundaries``: the i with
    boundaries[i - 1] < x <= boundaries[i] (right=False), or boundaries[i - 1] <= x <
    boundaries[i] (right=True). No gradient."""
    if _check_tensor(boundaries, "bucketize", "boundaries").ndim != 1:
        raise RuntimeError(
            f"bucketize: boundaries must be 1-D, got shape {tuple(boundaries.shape)}"
        )
    return write_out(
        searchsorted(boundaries, input, out_int32=out_int32, right=right),
        out,
        "bucketize",
        exact_dtype=True,
    )


def unravel_index(indices: Tensor, shape: Any) -> tuple:
    """The coordinates in a tensor of ``shape`` of each flat (row-major) index: a tuple of
    int64 tensors of indices' shape, one per dim. As PyTorch's, an index outside the range
    is taken modulo the number of elements (so -1 is the last one)."""
    if (
        not isinstance(indices, Tensor)
        or indices.dtype.is_floating_point
        or (indices.dtype is _dtypes.bool)
    ):
        got = indices.dtype if isinstance(indices, Tensor) else type(indices).__name__
        raise TypeError(f"expected 'indices' to be integer dtype, but got {got}")
    sizes = (
        (shape,)
        if isinstance(shape, builtins.int)
        else tuple(whole_numbers(shape, "unravel_index", "shape"))
    )
    if builtins.any(n < 0 for n in sizes):
        raise ValueError(f"'shape' cannot have negative values, but got {sizes}")
    flat = indices.array.astype("int64")
    coords, stride = [], 1
    for n in reversed(sizes):
        coords.append(Tensor._make((flat // stride) % n))
        stride *= n
    return tuple(reversed(coords))


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: builtins.int | None = None) -> Any:  # fmt: skip
    """The distinct values of input in ascending order (sorted=False too, one of the orders
    PyTorch allows); with ``return_inverse`` also where each element of input is in them
    (input's shape), with ``return_counts`` how often each occurs. No gradient (the values
    require grad as in PyTorch, and backward raises). On a GPU the host waits for the
    answer: its size depends on the values. With ``dim``: the distinct slices along dim, in
    ascending (lexicographic) order."""
    _check_tensor(input, "unique")
    if dim is not None:
        return _unique_slices(input, dim, return_inverse, return_counts)
    xp = backend.xp_of(input.array)
    values, inverse, counts = xp.unique(  # each nan distinct, as in PyTorch
        input.array.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False
    )
    out = [_without_derivative(values, input, "_unique2")]
    if return_inverse:
        out.append(Tensor._make(inverse.reshape(input.array.shape).astype("int64")))
    if return_counts:
        out.append(Tensor._make(counts.astype("int64")))
    return out[0] if len(out) == 1 else tuple(out)


def _unique_slices(input: Tensor, dim: builtins.int, return_inverse: bool,
                   return_counts: bool) -> Any:  # fmt: skip
    """unique(input, dim=dim): the slices along dim sorted as rows (first element first),
    then each run of equal ones kept once; inverse: each slice's place in them."""
    a = input.array
    if a.ndim == 0:
        raise IndexError(f"unique: Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim, "unique")
    if a.size == 0 and a.shape[d] != 0:
        raise RuntimeError(
            "unique: There are 0 sized dimensions, and they aren't selected, so unique cannot "
            "be applied"
        )
    xp = backend.xp_of(a)
    others = math.prod(a.shape[:d] + a.shape[d + 1 :])
    rows = xp.moveaxis(a, d, 0).reshape(a.shape[d], others)
    order = xp.lexsort(rows.T[::-1]) if rows.size else xp.arange(rows.shape[0])
    ranked = rows[order]
    starts = xp.ones(rows.shape[0], dtype=bool)  # where a new distinct slice begins
    if rows.shape[0] > 1:
        starts[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)  # (nan != nan: kept apart)
    first = xp.nonzero(starts)[0]
    out = [_without_derivative(xp.take(a, order[first], axis=d), input, "unique_dim")]
    if return_inverse:
        inverse = xp.empty(rows.shape[0], dtype="int64")
        inverse[order] = xp.cumsum(starts) - 1
        out.append(Tensor._make(inverse))
    if return_counts:
        ends = xp.concatenate([first[1:], xp.asarray([rows.shape[0]], dtype=first.dtype)])
        out.append(Tensor._make((ends - first).astype("int64")))
    return out[0] if len(out) == 1 else tuple(out)


def _without_derivative(values: Any, input: Tensor, op: str) -> Tensor:
    """unique's values: in the graph when input requires grad, as in PyTorch, where
    backward through them raises NotImplementedError."""
    return elementwise.Undifferentiable.apply(
        Tensor._make(values), input, op=op, not_implemented=True
    )


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: builtins.int | None = None) -> Any:  # fmt: skip
    """input with each run of equal consecutive elements (or, with ``dim``, equal consecutive
    slices along dim) kept once; with ``return_inverse`` also which run each element (or
    slice) is in, with ``return_counts`` each run's length. No gradient (as unique)."""
    a = _check_tensor(input, "unique_consecutive").array
    xp = backend.xp_of(a)
    if dim is None:
        rows, d = a.reshape(-1, 1), None
    else:
        d = wrap_dim(dim, input.ndim, "unique_consecutive")
        empty_dims = [i for i, n in enumerate(a.shape) if n == 0]
        if len(empty_dims) > 1 or (empty_dims and empty_dims != [d]):  # as PyTorch refuses
            raise RuntimeError(
                f"unique_consecutive: input of shape {tuple(a.shape)} has an empty dim other "
                f"than dim {d}: the slices along dim would be empty, so unique cannot be applied"
            )
        others = math.prod(n for i, n in enumerate(a.shape) if i != d)
        rows = xp.moveaxis(a, d, 0).reshape(a.shape[d], others)
    starts = xp.ones(rows.shape[0], dtype=bool)  # where a new run begins
    if rows.shape[0] > 1:
        starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    first = xp.nonzero(starts)[0]
    values = a.reshape(-1)[first] if d is None else xp.take(a, first, axis=d)
    out = [_without_derivative(values, input, "unique_consecutive")]
    if return_inverse:
        inverse = xp.cumsum(starts).astype("int64") - 1
        out.append(Tensor._make(inverse.reshape(a.shape) if d is None else inverse))
    if return_counts:
        ends = xp.concatenate([first[1:], xp.asarray([rows.shape[0]], dtype=first.dtype)])
        out.append(Tensor._make((ends - first).astype("int64")))
    return out[0] if len(out) == 1 else tuple(out)


def _implicit_softmax_dim(ndim: int, op: str) -> int:
    """PyTorch's legacy choice when ``dim`` is left out: 0 for 0-, 1- and 3-d inputs, else 1
    (so a (B, T, C) input is normalised over B, not C). It warns; so do we."""
    warn_user(
        f"{op}: implicit dimension choice has been deprecated; pass dim= (dim=-1 for the last "
        "dim). Without it PyTorch, and so microtorch, picks dim 0 for 0-, 1- and 3-d inputs, "
        "else dim 1"
    )
    return 0 if ndim in (0, 1, 3) else 1


def _normalise_along(op: type[Function], x: Tensor, dim: int, name: str) -> Tensor:
    """softmax or log_softmax along ``dim``; as in PyTorch, an empty input gives an empty
    result and a 0-d input counts as one row of one element (softmax 1, log_softmax 0)."""
    d = wrap_dim(dim, x.ndim, name)
    if x.array.size == 0:
        return x.clone()
    if x.ndim == 0:
        return op.apply(x.reshape(1), dim=0).reshape(())
    return op.apply(x, dim=d)


def _normalised_input(input: Tensor, dtype: Any, op: str) -> Tensor:
    """softmax's input, cast to ``dtype`` if given. PyTorch has no integer or bool softmax
    (unlike exp, it does not promote them): dtype= is the way to give it one."""
    if dtype is not None:
        return cast(_check_tensor(input, op), dtype)
    if _check_tensor(input, op).array.dtype.kind != "f":
        raise NotImplementedError(
            f"{op}: not implemented for {input.dtype} tensors, as in PyTorch; pass "
            f"dtype=microtorch.float32 (or call .float() first)"
        )
    return input


def softmax(input: Tensor, dim: int, dtype: Any = None, *, out: Any = None) -> Tensor:
    """exp(input) normalised to sum to 1 along ``dim``, which torch.softmax requires (only
    F.softmax picks one when it is left out)."""
    if dtype is None:  # (a dtype given is kept under autocast too, as in PyTorch)
        (input,) = autocast_inputs("softmax", input)
    x = _normalised_input(input, dtype, "softmax")
    return write_out(
        _normalise_along(_softmax.Softmax, x, dim, "softmax"), out, "softmax", exact_dtype=True
    )


def log_softmax(input: Tensor, dim: int, dtype: Any = None, *, out: Any = None) -> Tensor:
    """log(softmax(input, dim)) without overflow; ``dim`` is required, as for softmax."""
    if dtype is None:  # (a dtype given is kept under autocast too, as in PyTorch)
        (input,) = autocast_inputs("log_softmax", input)
    x = _normalised_input(input, dtype, "log_softmax")
    return write_out(
        _normalise_along(_softmax.LogSoftmax, x, dim, "log_softmax"),
        out,
        "log_softmax",
        exact_dtype=True,
    )


# ---------------------------------------------------------------- in-place
def inplace(target: Tensor, op: Any, *args: Any, **kwargs: Any) -> Tensor:
    """Run ``op(target, *args, **kwargs)`` and write the result into ``target``'s own array.

    This is how every in-place method works (``add_``, ``mul_``, ``copy_``, ``x[i] = v``...).
    The version counter goes up, so a backward that saved the old values raises instead of
    using the new ones. When gradients are tracked, the op is recorded on a snapshot of
    the old values and ``target`` takes over the op's ``grad_fn``; if ``target`` is a view
    of another tensor, the write goes through that tensor instead (_write_through_view)."""
    _check_writable(target, "in-place op")
    if target._view is not None and target._view[3] != target._version_counter.value:
        refresh_view(target)  # its base changed in place since it was made
    _refuse_grad_leaf(target, "do the update under `with microtorch.no_grad():` (as optimizers do)")
    tracking = grad_mode.enabled and (
        target.requires_grad
        or builtins.any(isinstance(a, Tensor) and a.requires_grad for a in args)
    )
    if tracking and target._view is not None and not _can_write_through(target._view):
        # the write would change the memory of the tensor this one views, whose graph
        # microtorch cannot update for this kind of view: its gradient would be wrong
        op_name = type(target._view[2]).__name__
        raise RuntimeError(
            f"in-place op on a view: this tensor was made by {op_name} and shares memory with "
            "another tensor; with gradients tracked microtorch writes through views made by "
            "indexing (x[i], narrow...), view/reshape, permute/transpose and diagonal, but not "
            "this one, so the other tensor's gradient would be wrong. Use an out-of-place op (e.g. "
            "y = y * 2 instead of y *= 2) or .clone() the view first"
        )
    if tracking:
        snapshot = Tensor._make(target.array.copy(), target.requires_grad, target.grad_fn)
        result = op(snapshot, *args, **kwargs)
    else:
        with grad_mode.no_grad():
            result = op(target, *args, **kwargs)
    if result.array.shape != target.array.shape:
        raise RuntimeError(
            f"in-place op: output with shape {list(target.shape)} doesn't match the broadcast "
            f"shape {list(result.shape)}{_inplace_label(op)}"
        )
    if result.array.dtype != target.array.dtype:
        # PyTorch's rule: never down a kind (float -> integer or bool, integer -> bool)
        rank = {"b": 0, "u": 1, "i": 1, "f": 2}
        if rank[result.array.dtype.kind] > rank[target.array.dtype.kind]:
            raise RuntimeError(
                f"in-place op: result type {result.dtype} can't be cast to the desired output "
                f"type {target.dtype}{_inplace_label(op)}"
            )
        # float32 += float64: the graph records the cast to what the tensor stores, so the
        # other operand's gradient comes back in its own dtype
        result = cast(result, target.dtype)
    if tracking and target.requires_grad and not result.requires_grad:
        # constants (eq_, logical_not_...): the tensor stays in the graph, where its old
        # values get a zero gradient, as in PyTorch
        result = copy_from(snapshot, result)
    if tracking and target._view is not None:
        return _write_through_view(target, result)
    target.array[...] = result.array
    target._version_counter.value += 1
    if tracking:
        if target.retains_grad and result.grad_fn is not None:  # retain_grad() follows the
            target.grad_fn.retained = None  # tensor to its new value, as in PyTorch
            result.grad_fn.retained = engine.make_retained(target)
        target.grad_fn = result.grad_fn
        target._requires_grad = result.requires_grad
    return target


def _refuse_grad_leaf(target: Tensor, hint: str) -> None:
    """PyTorch's rule: a leaf that requires grad is never changed in place while recording."""
    if grad_mode.enabled and target.requires_grad and target.grad_fn is None:
        raise RuntimeError(
            f"a leaf Variable that requires grad is being used in an in-place operation; {hint}"
        )


def _inplace_label(op: Any) -> str:
    """The words " (in add_)" naming the in-place form of ``op`` in an error message."""
    name = getattr(op, "__name__", "")
    return f" (in {name}_)" if name.isidentifier() else ""


def inplace_view(target: Tensor, op: Any, *args: Any) -> Tensor:
    """Make ``target`` itself the view ``op(target, *args)`` (x.unsqueeze_(0), x.t_()): its
    shape and grad_fn change, its memory and values stay. A view of another tensor stays
    one, through a stand-in for what it was, so later in-place ops still reach its base."""
    _refuse_grad_leaf(
        target, "use the out-of-place form (x = x.unsqueeze(0)) or do it under no_grad()"
    )
    target._version_counter.value += 1  # as in PyTorch: values saved for backward go stale
    source = target
    if target._view is not None:
        source = Tensor._make(target.array, target.requires_grad, target.grad_fn)
        source._version_counter, source._view = target._version_counter, target._view
    result = op(source, *args)
    target.array, target.grad_fn = result.array, result.grad_fn
    target._requires_grad = result.requires_grad
    if target._view is not None:
        target._view = result._view
    return target


def _can_write_through(view_of: tuple) -> builtins.bool:
    """Views by indexing, reshaping (an expand that repeats nothing is one), permuting or
    taking a diagonal; an expand that repeats elements never gets here (_check_writable
    refuses it)."""
    _base, index, op, _version = view_of
    return index is not None or isinstance(
        op, (shape_ops.Reshape, shape_ops.Expand, shape_ops.Permute, shape_ops.Diagonal)
    )


def _write_through_view(view: Tensor, result: Tensor) -> Tensor:
    """An in-place op on a view of ``base``, with gradients tracked: the new values go into
    the base as an op recorded in the base's graph (``base[index] = result``, or all of the
    base for a reshaped or permuted view; through the base's own base if it is a view too),
    then ``view`` becomes a fresh view of the updated base. Both gradients stay right
    (PyTorch does this with CopySlices)."""
    base, index, op, _version = view._view
    if index is not None:  # base[index]
        setitem(base, index, result)  # writes the memory view shares, and bumps the version
        fresh = getitem(base, index)
    elif isinstance(op, (shape_ops.Reshape, shape_ops.Expand)):  # same elements, new shape
        inplace(base, copy_from, reshape(result, base.shape))
        fresh = reshape(base, view.shape)
    elif isinstance(op, shape_ops.Diagonal):  # base's diagonal
        where = (op.offset, op.dim1, op.dim2)
        inplace(base, diagonal_scatter, result, *where)
        fresh = diagonal(base, *where)
    else:  # Permute: the same elements with the dims reordered
        inverse = tuple(sorted(range(len(op.dims)), key=lambda i: op.dims[i]))
        inplace(base, copy_from, permute(result, inverse))
        fresh = permute(base, op.dims)
    view.grad_fn, view.requires_grad, view._view = fresh.grad_fn, fresh.requires_grad, fresh._view
    return view


def refresh_view(view: Tensor) -> None:
    """Remake ``view``'s place in the graph after its base (or another view of that base)
    changed in place: the view now holds the base's new values, so its grad_fn must lead to
    the base's new graph, not the old one (PyTorch regenerates a view's grad_fn the same
    way). Called when a view whose version is not the one it was made at is used."""
    if not grad_mode.enabled:
        return  # no graph is recorded now; the view is remade when it is used with one
    base, index, op, _version = view._view
    if base._view is not None and base._view[3] != base._version_counter.value:
        refresh_view(base)  # a view of a view: bring the base up to date first
    if not (base.requires_grad or view.requires_grad):
        view._view = (base, index, op, view._version_counter.value)  # no graph to follow
        return
    if index is not None:  # base[index]
        fresh = getitem(base, index)
    elif isinstance(op, (shape_ops.Reshape, shape_ops.Expand)):
        fresh = type(op).apply(base, shape=tuple(view.array.shape))
    elif isinstance(op, shape_ops.Permute):
        fresh = shape_ops.Permute.apply(base, dims=op.dims)
    elif isinstance(op, shape_ops.Diagonal):
        fresh = shape_ops.Diagonal.apply(base, offset=op.offset, dim1=op.dim1, dim2=op.dim2)
    elif isinstance(op, shape_ops.Unfold):
        fresh = shape_ops.Unfold.apply(base, dim=op.dim, size=op.size, step=op.step)
    elif isinstance(op, shape_ops.AsStrided):
        (size, stride, offset), start = op.view_at, op.x_at[2]
        fresh = shape_ops.AsStrided.apply(base, size=size, stride=stride, storage_offset=offset,
                                          start=start)  # fmt: skip
    else:
        raise RuntimeError(
            f"a view made by {type(op).__name__} is used after its base (or another view of "
            "that base) was modified in place; microtorch cannot bring this kind of view's "
            "gradient up to date (PyTorch refuses it too for the outputs of split and chunk). "
            "Make the view again after the in-place op, or .clone() it before"
        )
    if fresh.array.shape != view.array.shape or fresh.array.strides != view.array.strides:
        raise RuntimeError(
            f"a view of shape {list(view.shape)} was made before its base changed shape in "
            "place (unsqueeze_, squeeze_, t_, transpose_...); microtorch cannot bring its "
            "gradient up to date (the base's elements now lie elsewhere). Make the view again "
            "after the in-place view op"
        )
    if view.retains_grad and fresh.grad_fn is not None:  # retain_grad() stays, as in PyTorch
        view.grad_fn.retained = None
        fresh.grad_fn.retained = engine.make_retained(view)
    view.grad_fn, view.requires_grad, view._view = fresh.grad_fn, fresh.requires_grad, fresh._view


def _check_writable(target: Tensor, op: str) -> None:
    """Refuse a write into an expanded tensor, where many elements share one memory cell
    (NumPy marks such arrays read-only; CuPy would write them, racing)."""
    array = target.array  # (an empty array has nothing to share, whatever its strides say)
    if array.size and builtins.any(s == 0 and n > 1 for s, n in zip(array.strides, array.shape)):
        raise RuntimeError(
            f"{op}: unsupported operation: more than one element of the written-to tensor "
            f"(shape {tuple(target.shape)}, made by expand) refers to a single memory "
            "location. Please clone() the tensor before performing the operation."
        )


def copy_from(target: Tensor, src: Any) -> Tensor:
    """The values of ``src`` in ``target``'s shape, dtype and device (for ``copy_``)."""
    if not isinstance(src, Tensor):
        if not isinstance(src, (*_Number, numpy.number)):  # as in PyTorch: no lists, arrays
            raise TypeError(
                f"copy_: src must be a tensor (or a number), got {type(src).__name__}; make a "
                "tensor of it first (microtorch.tensor(...), or from_numpy for an array)"
            )
        src = as_tensor_like(src, target)
    out = expand(src.to(target.device).to(target.dtype), target.shape)
    if grad_mode.enabled and target.requires_grad:  # target[...] = out: target stays in the
        return indexing.IndexPut.apply(target, out, steps=((Ellipsis,),))  # graph, gradient 0
    if grad_mode.enabled and out.requires_grad:
        out = clone(out)  # a node of its own, leading back to src (out may be src itself)
    return out


def python_values(target: Tensor, values: list) -> Tensor:
    """Python numbers, one per element of ``target`` in order, as a tensor of its shape and
    dtype (for apply_ and map_, CPU only)."""
    return Tensor._make(numpy.array(values, dtype=target.array.dtype).reshape(target.shape))


def diagonal_filled(input: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """input with its main diagonal (every element whose indices are all equal) set to
    fill_value; for fill_diagonal_. A tall matrix with wrap=True starts the diagonal again
    every columns + 1 rows, as PyTorch's does."""
    if input.ndim < 2:
        raise RuntimeError("fill_diagonal_: dimensions must larger than 1")
    if input.ndim > 2 and len(set(input.shape)) != 1:
        raise RuntimeError("fill_diagonal_: all dimensions of input must be of equal length")
    n = input.shape[-1]
    step = builtins.sum(n**k for k in range(input.ndim))  # from x[i, i, ...] to x[i+1, i+1, ...]
    stop = builtins.min(builtins.min(input.shape) * step, input.numel())
    if input.ndim == 2 and wrap:
        stop = input.numel()  # (rows, n) read row after row: every n + 1 elements, to the end
    xp = backend.xp_of(input.array)
    positions = xp.arange(0, stop, step, dtype="int64")
    value = _fill_value(input, fill_value, "fill_diagonal_")
    if isinstance(value, Tensor):
        value = value.item()
    filled = Tensor._make(xp.full(positions.shape, value, dtype=input.array.dtype))
    return put(input, Tensor._make(positions), filled)


def full_like_graph(target: Tensor, value: Any) -> Tensor:
    """``value`` everywhere, in ``target``'s shape (for ``fill_`` and ``zero_``); inside a graph
    the gradient with respect to ``target`` is zero."""
    xp = backend.xp_of(target.array)
    value = _fill_value(target, value, "fill_")
    if isinstance(value, Tensor):  # a value that needs a gradient: copy_ gives it one
        return copy_from(target, value)
    return indexing.MaskedFill.apply(target, Tensor._make(xp.ones((), dtype=bool)), value=value)
