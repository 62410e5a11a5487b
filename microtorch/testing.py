"""``microtorch.testing.assert_close``: PyTorch's check that two results agree.

Tests of a new op compare its output with a reference (``assert_close(mine, expected)``);
this does what ``torch.testing.assert_close`` does, with its default tolerances and its
messages, so the same test runs under ``import microtorch as torch``:

- tensors must have the same shape, and (unless told otherwise) dtype and device; values
  must satisfy ``|actual - expected| <= atol + rtol * |expected|`` elementwise, where
  infinities must match exactly and NaN only matches NaN with ``equal_nan=True``;
- the default (rtol, atol) depend on the dtype: float16 (1e-3, 1e-5), float32
  (1.3e-6, 1e-5), float64 (1e-7, 1e-7); integers and bools must be equal;
- Python numbers compare as numbers of their own type (an int never equals a float);
  NumPy arrays as tensors; lists/tuples item by item and dicts key by key, the message
  naming the item that failed (``The failure occurred for item ['weight'][1]``).

A failure raises AssertionError saying how many elements differ and where the largest
differences are."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy

from . import backend, dtypes
from ._tensor import Tensor

_NUMPY_TYPES = (numpy.ndarray, numpy.generic)  # compared as tensors, as in PyTorch
# (rtol, atol) by NumPy dtype name, as in PyTorch; every other dtype must match exactly
_DEFAULT_TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: float | None = None, atol: float | None = None, equal_nan: bool = False,
                 check_device: bool = True, check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False, msg: str | Callable[[str], str] | None = None,
                 ) -> None:  # fmt: skip
    """Raise AssertionError unless ``actual`` and ``expected`` are close (see the module)."""
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}."
        )
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_stride=check_stride)  # fmt: skip
    problem = _compare(actual, expected, "", options)  # check_layout: every tensor is strided
    if problem is None:
        return
    message, where = problem
    if where:
        message += f"\n\nThe failure occurred for item {where}"
    if callable(msg):
        message = msg(message)
    elif msg is not None:
        message = msg
    raise AssertionError(message)


def _compare(actual: Any, expected: Any, where: str, options: dict) -> tuple[str, str] | None:
    """None when the pair agrees, else (what differs, the path to the item that differs).
    Raises TypeError for a pair of types nothing here compares."""
    if actual is None or expected is None:
        if actual is expected:
            return None
        return f"None mismatch: {actual!r} is not {expected!r}", where
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        if options["allow_subclasses"] or type(actual) is type(expected):
            return _compare_tensors(actual, expected, where, options)
    elif isinstance(actual, _NUMPY_TYPES) and isinstance(expected, _NUMPY_TYPES):
        return _compare_tensors(Tensor._make(numpy.asarray(actual)),
                                Tensor._make(numpy.asarray(expected)), where, options)  # fmt: skip
    elif _is_number(actual) and _is_number(expected):
        return _compare_numbers(actual, expected, where, options)
    elif isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            missing = [k for k in expected if k not in actual]
            extra = [k for k in actual if k not in expected]
            return ("The keys of the mappings do not match:\n"
                    f"Missing keys in the actual mapping: {missing}\n"
                    f"Additional keys in the actual mapping: {extra}"), where  # fmt: skip
        for key in expected:
            problem = _compare(actual[key], expected[key], f"{where}[{key!r}]", options)
            if problem is not None:
                return problem
        return None
    elif _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            return f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", where
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            problem = _compare(a, e, f"{where}[{i}]", options)
            if problem is not None:
                return problem
        return None
    raise TypeError(
        f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}."
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, bool | int | float)


def _is_sequence(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _compare_numbers(actual: Any, expected: Any, where: str, options: dict) -> tuple | None:
    if options["check_dtype"] and type(actual) is not type(expected):
        return f"The (d)types do not match: {type(actual)} != {type(expected)}.", where

    def own(x: Any) -> Any:  # (a float, an int or a bool, each as itself)
        return numpy.asarray(x, numpy.float64 if isinstance(x, float) else numpy.int64)

    a, e = own(actual), own(expected)
    common = numpy.promote_types(a.dtype, e.dtype)  # (an int with a float: check_dtype=False)
    # Python numbers: relative differences in Python's float, float64; each number is
    # shown as itself ("but got 2.", not 2.0, beside a float)
    return _compare_arrays(a, e, common, numpy.float64, where, options, shown=(a, e))


def _compare_tensors(actual: Tensor, expected: Tensor, where: str, options: dict) -> tuple | None:
    checks = [("shape", actual.shape, expected.shape)]
    if options["check_device"]:
        checks.insert(0, ("device", actual.device, expected.device))
    if options["check_dtype"]:
        checks.append(("dtype", actual.dtype, expected.dtype))
    if options["check_stride"]:
        checks.append(("stride()", actual.stride(), expected.stride()))
    for attribute, a, e in checks:
        if a != e:
            return f"The values for attribute '{attribute}' do not match: {a} != {e}.", where
    common = dtypes.promote_types(actual.dtype, expected.dtype).np  # PyTorch's promotion
    # relative differences of integers in the default float dtype, as PyTorch's
    relative = common if common.kind == "f" else dtypes.get_default_dtype().np
    a, e = backend.to_numpy(actual.array), backend.to_numpy(expected.array)
    return _compare_arrays(a, e, common, relative, where, options)


def _compare_arrays(actual: Any, expected: Any, common: Any, relative_dtype: Any, where: str,
                    options: dict, shown: tuple | None = None) -> tuple | None:  # fmt: skip
    """Compare two host arrays of one shape in their common dtype; dtypes may differ (with
    check_dtype=False), and then each dtype's default tolerance is tried, the looser wins.
    A failure's message shows the values in the common dtype, or ``shown``."""
    rtol, atol = options["rtol"], options["atol"]
    if rtol is None:
        rtol_a, atol_a = _DEFAULT_TOLERANCES.get(actual.dtype.name, (0.0, 0.0))
        rtol_e, atol_e = _DEFAULT_TOLERANCES.get(expected.dtype.name, (0.0, 0.0))
        rtol, atol = max(rtol_a, rtol_e), max(atol_a, atol_e)
    if numpy.dtype(common).kind in "biu":  # integer differences in int64: uint8 1 - 3 is -2
        common = numpy.int64
    a, e = actual.astype(common), expected.astype(common)
    with numpy.errstate(invalid="ignore", over="ignore"):
        difference = numpy.abs(a - e)
        within = difference <= atol + rtol * numpy.abs(e)
        close = (a == e) | (within & numpy.isfinite(a) & numpy.isfinite(e))  # inf: only inf
        if options["equal_nan"] and a.dtype.kind == "f":
            close |= numpy.isnan(a) & numpy.isnan(e)
    if close.all():
        return None
    with numpy.errstate(divide="ignore", invalid="ignore"):
        relative = difference.astype(relative_dtype) / numpy.abs(e).astype(relative_dtype)
    shown = (a, e) if shown is None else shown  # (the values, as the message writes them)
    return _describe_mismatch(*shown, difference, relative, ~close, rtol, atol), where


def _describe_mismatch(a: Any, e: Any, difference: Any, relative: Any, mismatched: Any,
                       rtol: float, atol: float) -> str:  # fmt: skip
    """PyTorch's failure message: how many elements differ and the largest absolute and
    relative differences among them, with their indices (or, for one number, both values)."""
    exact = rtol == 0 and atol == 0

    def allowed(tolerance: float) -> str:
        return "" if exact else f" (up to {tolerance} allowed)"

    lines = [f"{'Scalars' if a.ndim == 0 else 'Tensor-likes'} are not "
             f"{'equal' if exact else 'close'}!", ""]  # fmt: skip
    if a.ndim == 0:
        lines.append(f"Expected {e.item()!r} but got {a.item()!r}.")
        lines.append(f"Absolute difference: {difference.item()!r}{allowed(atol)}")
        if e.item() != 0:  # PyTorch divides the two Python numbers here (a float64 quotient)
            relative = numpy.asarray(difference.item() / abs(e.item()))
        lines.append(f"Relative difference: {relative.item()!r}{allowed(rtol)}")
        return "\n".join(lines)
    count = int(mismatched.sum())
    lines.append(f"Mismatched elements: {count} / {a.size} ({100 * count / a.size:.1f}%)")
    for label, values, tolerance in (("absolute", difference, atol), ("relative", relative, rtol)):
        # the largest among the mismatched elements; argmax finds a NaN first, as torch.max
        flat = int(numpy.argmax(numpy.where(mismatched, values, -numpy.inf)))
        index = tuple(int(i) for i in numpy.unravel_index(flat, a.shape))
        value = values.reshape(-1)[flat].item()
        lines.append(f"Greatest {label} difference: {value!r} at index {index}{allowed(tolerance)}")
    return "\n".join(lines)
