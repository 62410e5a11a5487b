"""A seeded differential fuzzer: the same op runs in microtorch and in PyTorch on the same
random inputs, and everything observable must agree.

Compared: every output's values (exact for integer and bool, allclose with per-dtype
tolerances for floats, NaN where PyTorch has NaN), dtype, shape and requires_grad; for float
inputs, the gradients of the leaf tensors after a backward with the same random upstream
gradient; and where PyTorch raises, microtorch must raise the same kind of exception
(IndexError, ValueError, TypeError or RuntimeError) with a message naming the op.

The inputs are drawn across dtypes (bool to float64, mixed pairs, Python scalars, 0-d
tensors), shapes (0-d, empty, one element, broadcasting pairs including ones that must fail,
up to 4-D), memory layouts (contiguous, transposed, ``x[..., ::2]``, ``expand``-ed, ``narrow``-ed
and one input being the other) and values (negative, zero, halves, huge, tiny, inf, nan).

Each op runs ``MICROTORCH_FUZZ_CASES`` cases (default 20) from ``MICROTORCH_FUZZ_SEED``
(default 0); a failure prints one line per mismatching case, with everything needed to
rerun it by hand. Hunting: ``MICROTORCH_FUZZ_CASES=500 python -m pytest tests/test_fuzz_torch.py``.
"""

from __future__ import annotations

import math
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import microtorch

torch = pytest.importorskip("torch")
# both libraries warn on the same edge inputs (no degrees of freedom, nan in a reduction)
pytestmark = pytest.mark.filterwarnings("ignore")

CASES_PER_OP = int(os.environ.get("MICROTORCH_FUZZ_CASES", "20"))
SEED = int(os.environ.get("MICROTORCH_FUZZ_SEED", "0"))

INTS = ["uint8", "int8", "int16", "int32", "int64"]
FLOATS = ["float16", "float32", "float64"]
ALL = ["bool", *INTS, *FLOATS]
NUMERIC = [*INTS, *FLOATS]
TOL = {
    "float16": dict(rtol=2e-3, atol=2e-3),
    "float32": dict(rtol=2e-5, atol=1e-5),
    "float64": dict(rtol=1e-9, atol=1e-12),
}
GRAD_TOL = {
    "float16": dict(rtol=2e-2, atol=1e-2),
    "float32": dict(rtol=1e-4, atol=1e-4),
    "float64": dict(rtol=1e-7, atol=1e-9),
}
ERRORS = (IndexError, ValueError, TypeError, RuntimeError)


# ----------------------------------------------------------------------------- inputs
@dataclass
class Input:
    """One tensor input: its values and how to build it (the same way in both libraries)."""

    array: np.ndarray  # the values of the tensor the op sees
    layout: str = "contiguous"
    grad: bool = False
    extra: dict = field(default_factory=dict)

    def describe(self) -> str:
        strides = tuple(build(torch, self)[0].stride())
        return f"{self.array.dtype}{list(self.array.shape)}:{self.layout}{strides}"


@dataclass
class Case:
    inputs: list  # Input or a Python scalar
    args: dict
    note: str = ""


def _values(rng: np.random.Generator, shape: tuple, dtype: str, wild: bool) -> np.ndarray:
    """Random values of ``dtype``: small ones mostly, edges (inf, nan, huge, tiny) sometimes."""
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "bool":
        return rng.random(n).reshape(shape) < 0.5
    if dtype in INTS:
        info = np.iinfo(dtype)
        v = rng.integers(max(info.min, -6), min(info.max, 6) + 1, size=n)
        if wild and n:
            k = rng.random(n) < 0.1
            v = np.where(k, rng.integers(info.min, info.max, size=n, endpoint=True), v)
        return v.astype(dtype).reshape(shape)
    kind = rng.random(n)
    v = np.round(rng.standard_normal(n) * 3, 1)  # many halves, some exact integers
    v = np.where(kind < 0.1, np.round(v), v)
    v = np.where((kind > 0.1) & (kind < 0.15), 0.0, v)
    if wild:
        big = {"float16": 3e4, "float32": 1e30, "float64": 1e200}[dtype]
        tiny = {"float16": 1e-6, "float32": 1e-38, "float64": 1e-300}[dtype]
        specials = np.array([np.inf, -np.inf, np.nan, big, -big, tiny, -0.0, 0.5, -2.5])
        v = np.where(kind > 0.9, specials[rng.integers(0, len(specials), n)], v)
    return v.astype(dtype).reshape(shape)


def _shape(rng: np.random.Generator, ndim: int | None = None, empty: bool = True) -> tuple:
    if ndim is None:
        ndim = int(rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4]))
    sizes = [0, 1, 2, 3, 3, 4, 5] if empty and rng.random() < 0.15 else [1, 2, 3, 3, 4, 5]
    return tuple(int(rng.choice(sizes)) for _ in range(ndim))


def _broadcast_partner(rng: np.random.Generator, shape: tuple, fail: float = 0.08) -> tuple:
    """A shape that broadcasts with ``shape`` (or, with probability ``fail``, one that can't)."""
    s = list(shape)
    r = rng.random()
    if r < 0.3:
        s = s[int(rng.integers(0, len(s) + 1)) :]  # drop leading dims
    elif r < 0.4 and len(s) < 4:
        s = [int(rng.choice([1, 2]))] + s  # a new leading dim
    s = [1 if (d and rng.random() < 0.3) else d for d in s]
    if rng.random() < fail and s:
        i = int(rng.integers(0, len(s)))
        s[i] = s[i] + 2 if s[i] != 1 else 3
    return tuple(s)


def tensor_input(
    rng: np.random.Generator,
    shape: tuple,
    dtype: str,
    grad: bool | None = None,
    wild: bool = True,
    layout: str | None = None,
) -> Input:
    a = _values(rng, shape, dtype, wild)
    if grad is None:
        grad = dtype in FLOATS and rng.random() < 0.8
    if layout is None:
        layout = str(
            rng.choice(["contiguous"] * 4 + ["transposed", "strided", "expanded", "narrowed"])
        )
    if layout == "transposed" and len(shape) < 2:
        layout = "contiguous"
    if layout == "expanded":
        dims = [i for i, d in enumerate(shape) if d > 1 and rng.random() < 0.6]
        if not dims:
            layout = "contiguous"
        else:  # the values repeat along the expanded dims
            index = tuple(slice(0, 1) if i in dims else slice(None) for i in range(len(shape)))
            a = np.broadcast_to(a[index], shape).copy()
            return Input(a, layout, bool(grad and dtype in FLOATS), {"dims": dims})
    if layout == "narrowed" and not shape:
        layout = "contiguous"
    return Input(a, layout, bool(grad and dtype in FLOATS))


def build(lib: Any, item: Any) -> tuple:
    """The tensor ``item`` describes, built in ``lib``: (what the op gets, the leaf or None)."""
    if not isinstance(item, Input):
        return item, None
    a = item.array
    if item.layout == "transposed":
        base = lib.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)))
        leaf = _leaf(base, item)
        return leaf.transpose(-1, -2), leaf
    if item.layout == "strided":
        wide = np.repeat(a, 2, axis=-1) if a.ndim else a
        leaf = _leaf(lib.tensor(np.ascontiguousarray(wide)), item)
        return (leaf[..., ::2] if a.ndim else leaf), leaf
    if item.layout == "expanded":
        dims = item.extra["dims"]
        small = a[tuple(slice(0, 1) if i in dims else slice(None) for i in range(a.ndim))]
        leaf = _leaf(lib.tensor(np.ascontiguousarray(small)), item)
        return leaf.expand(*a.shape), leaf
    if item.layout == "narrowed":
        pad = (
            np.concatenate([a[:1], a, a[:1]], axis=0)
            if a.shape[0]
            else np.concatenate([np.zeros_like(a, shape=(1, *a.shape[1:]))] * 2, axis=0)
        )
        leaf = _leaf(lib.tensor(np.ascontiguousarray(pad)), item)
        return leaf.narrow(0, 1, a.shape[0]), leaf
    leaf = _leaf(lib.tensor(np.ascontiguousarray(a)), item)
    return leaf, leaf


def _leaf(t: Any, item: Input) -> Any:
    if item.grad:
        t.requires_grad_(True)
    return t


# ----------------------------------------------------------------------------- ops
@dataclass
class Op:
    name: str
    make: Callable  # rng -> Case
    call: Callable  # (lib, *inputs, **args) -> output(s)
    names: tuple = ()  # words one of which an error message must contain (default: name)
    grad: bool = True
    exact: bool = False  # float results compared exactly (sorting, indexing, shape ops)
    ties: int | None = None  # the output holding indices that ties make ambiguous
    either: tuple = ()  # error types that PyTorch's kernels pick between by layout


OPS: list = []


def op(name: str, make: Callable, call: Callable, **kw: Any) -> None:
    OPS.append(Op(name, make, call, **kw))


def pick(rng: np.random.Generator, options: list) -> Any:
    return options[int(rng.integers(0, len(options)))]


def scalar_of(rng: np.random.Generator, kind: str) -> Any:
    if kind == "bool":
        return bool(rng.random() < 0.5)
    if kind == "int":
        return int(rng.integers(-4, 5))
    return float(pick(rng, [0.5, -1.5, 2.0, 0.0, -0.0, 3.25, float("inf"), float("nan")]))


def unary(dtypes: list = ALL, wild: bool = True, poles: bool = True) -> Callable:
    def make(rng: np.random.Generator) -> Case:
        x = tensor_input(rng, _shape(rng), pick(rng, dtypes), wild=wild)
        if not poles and x.array.dtype.kind == "f":  # off 0, -1, -2, ...: PyTorch's float
            pole = (x.array <= 0) & (x.array == np.round(x.array))  # rounding there gives a
            x.array = np.where(pole, -2.75, x.array).astype(x.array.dtype)  # huge finite value
        return Case([x], {})  # where the exact one is infinite

    return make


def binary(
    dtypes: list = ALL,
    other: list = ALL,
    scalars: str = "bool int float",
    wild: bool = True,
    scalar_first: bool = False,
) -> Callable:
    def make(rng: np.random.Generator) -> Case:
        shape = _shape(rng)
        x = tensor_input(rng, shape, pick(rng, dtypes), wild=wild)
        r = rng.random()
        if r < 0.15 and scalars:
            y = scalar_of(rng, pick(rng, scalars.split()))
        elif r < 0.22:
            y = tensor_input(rng, (), pick(rng, other), wild=wild)  # a 0-d tensor
        elif r < 0.27:
            return Case([x, "same"], {})  # the op gets the same tensor twice
        else:
            y = tensor_input(rng, _broadcast_partner(rng, shape), pick(rng, other), wild=wild)
        if isinstance(y, Input) and "float16" in (x.array.dtype, y.array.dtype):
            for t in (x, y):  # an integer beyond float16 (known: PyTorch multiplies a
                if t.array.dtype.kind in "iu":  # float16 by it in float32, 0 * 4e8 = 0;
                    t.array = np.clip(t.array, -2048, 2048).astype(t.array.dtype)  # ours: nan)
        if scalar_first and rng.random() < 0.3 and not isinstance(y, Input):
            return Case([y, x], {})  # 2 - x (torch.sub(2, x) is a TypeError in PyTorch)
        return Case([x, y], {})

    return make


def _dim(rng: np.random.Generator, ndim: int, none: bool = True, tuple_ok: bool = False) -> Any:
    r = rng.random()
    if none and r < 0.15:
        return None
    if tuple_ok and r < 0.35 and ndim >= 1:
        k = int(rng.integers(1, ndim + 1))
        dims = list(rng.permutation(ndim)[:k])
        return tuple(int(d) - ndim if rng.random() < 0.3 else int(d) for d in dims)
    if r > 0.95:
        return int(pick(rng, [ndim, -ndim - 1, ndim + 2]))  # out of range
    hi = max(ndim, 1)
    return int(rng.integers(-hi, hi))


def reduction(
    dtypes: list = ALL,
    tuple_ok: bool = True,
    none: bool = True,
    dtype_arg: bool = False,
    wild: bool | None = None,
    keepdim: bool = True,
    expand: bool = True,
    huge: bool = False,
) -> Callable:
    def make(rng: np.random.Generator) -> Case:
        shape = _shape(rng)
        edges = rng.random() < 0.3 if wild is None else wild
        layout = None if expand else str(pick(rng, ["contiguous", "transposed", "strided"]))
        x = tensor_input(rng, shape, pick(rng, dtypes), wild=edges, layout=layout)
        if not huge and x.array.dtype.kind == "f":  # sums of 1e30 and -1e30 among small
            big = np.isfinite(x.array) & (np.abs(x.array) > 1e4)  # numbers depend on the
            x.array = np.where(big, np.sign(x.array) * 7.5, x.array).astype(x.array.dtype)
        args: dict = {}
        d = _dim(rng, len(shape), none=none, tuple_ok=tuple_ok)
        if d is not None or rng.random() < 0.5:
            args["dim"] = d
            if keepdim and rng.random() < 0.5:
                args["keepdim"] = bool(rng.random() < 0.5)
        if dtype_arg and rng.random() < 0.3:
            args["dtype"] = pick(rng, ["float64", "int64", "float32"])
        return Case([x], args)

    return make


def _dt(lib: Any, args: dict) -> dict:
    """Args with dtype names replaced by ``lib``'s dtypes."""
    out = dict(args)
    if isinstance(out.get("dtype"), str):
        out["dtype"] = getattr(lib, out["dtype"])
    return out


def _mk_elementwise_unary() -> None:
    names = (
        "abs neg sign sgn exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos"
        " atan sinh cosh tanh asinh acosh atanh sigmoid erf erfc erfinv floor ceil round trunc"
        " frac reciprocal square relu isnan isinf isfinite isposinf isneginf nan_to_num signbit"
        " logical_not positive deg2rad rad2deg lgamma digamma sinc angle fix"
        " i0 logit expit"
    ).split()
    aliases = {"fix": ("fix", "trunc"), "expit": ("expit", "sigmoid")}
    for n in names:
        if n in aliases:
            op(
                n,
                unary(),
                lambda lib, x, _n=n: getattr(lib.special if _n == "expit" else lib, _n)(x),
                names=aliases[n],
            )
        elif n in ("lgamma", "digamma"):
            op(n, unary(poles=False), lambda lib, x, _n=n: getattr(lib, _n)(x))
        elif n == "logit":  # no -0.0: PyTorch's gradient there is +-inf by kernel (size)
            op(n, _no_negative_zero(unary()), lambda lib, x: lib.logit(x))
        elif n in ("i0", "sinh", "cosh"):  # no wide integers: PyTorch's float32 i0(89) and
            op(n, unary(wild=False), lambda lib, x, _n=n: getattr(lib, _n)(x))  # cosh(89)
            # overflow, ours are 5e37 and 2e38
        elif n == "sinc":  # float16: PyTorch's gradient is 0/0 = nan for tiny x, ours is not
            op(n, unary(["bool", *INTS, "float32", "float64"]), lambda lib, x: lib.sinc(x))
        else:
            op(n, unary(), lambda lib, x, _n=n: getattr(lib, _n)(x))
    op("bitwise_not", unary(["bool", *INTS]), lambda lib, x: lib.bitwise_not(x))
    op("~", unary(["bool", *INTS]), lambda lib, x: ~x, names=("bitwise_not", "~", "invert"))
    op("-x", unary(), lambda lib, x: -x, names=("neg",))
    op("abs()", unary(), lambda lib, x: abs(x), names=("abs",))
    op(
        "round(decimals)",
        _with(unary(FLOATS), decimals=[0, 1, 2, -1]),
        lambda lib, x, decimals: lib.round(x, decimals=decimals),
        names=("round",),
    )
    op(
        "nan_to_num(args)",
        _with(unary(FLOATS), nan=[0.0, 1.5], posinf=[None, 9.0], neginf=[None, -9.0]),
        lambda lib, x, **a: lib.nan_to_num(x, **a),
        names=("nan_to_num",),
    )
    op("clamp", _clamp_case, lambda lib, x, **a: lib.clamp(x, **a))
    op(
        "clamp_tensor",
        _clamp_tensor_case,
        lambda lib, x, lo, hi: lib.clamp(x, lo, hi),
        names=("clamp",),
    )


def _with(make: Callable, **choices: list) -> Callable:
    def wrapped(rng: np.random.Generator) -> Case:
        case = make(rng)
        for k, opts in choices.items():
            case.args[k] = pick(rng, opts)
        return case

    return wrapped


def _clamp_case(rng: np.random.Generator) -> Case:
    x = tensor_input(rng, _shape(rng), pick(rng, NUMERIC))
    args: dict = {}
    lo = pick(rng, [None, -1, -1.5, 0, 2, float("nan"), 0.5])
    hi = pick(rng, [None, 1, 2.5, 0, -2, float("nan")])
    if lo is not None or rng.random() < 0.7:
        args["min"] = lo
    if hi is not None or rng.random() < 0.7:
        args["max"] = hi
    return Case([x], args)


def _clamp_tensor_case(rng: np.random.Generator) -> Case:
    shape = _shape(rng)
    dt = pick(rng, NUMERIC)
    x = tensor_input(rng, shape, dt)
    lo = tensor_input(rng, _broadcast_partner(rng, shape, 0.03), pick(rng, [dt, *NUMERIC]))
    hi = tensor_input(rng, _broadcast_partner(rng, shape, 0.03), pick(rng, [dt, *NUMERIC]))
    return Case([x, lo, hi], {})


def _mk_elementwise_binary() -> None:
    fns = (
        "add sub mul div true_divide floor_divide fmod remainder pow float_power atan2 hypot"
        " maximum minimum fmax fmin eq ne lt le gt ge logical_and logical_or logical_xor"
        " copysign nextafter xlogy logaddexp logaddexp2 heaviside isclose"
    ).split()
    aliases = {"true_divide": ("true_divide", "div")}
    for n in fns:
        if n in ("pow", "float_power"):  # (no int8 -128 exponent: PyTorch's gradient takes
            make = _no_negative_zero(_no_int_min(binary(scalars="int float")))  # x ** (-129),
            # wrapped to 127; and -0.0 ** 0.5 has a gradient of -inf or inf by kernel)
            op(n, make, lambda lib, x, y, _n=n: getattr(lib, _n)(x, y))
            continue
        if n in aliases:
            op(n, binary(), lambda lib, x, y, _n=n: getattr(lib, _n)(x, y), names=aliases[n])
            continue
        if n in ("fmod", "remainder"):  # no tiny divisors: PyTorch's fmod(-6018, 1e-38) is
            op(n, _no_tiny(binary()), lambda lib, x, y, _n=n: getattr(lib, _n)(x, y))  # nan
            continue
        if n == "atan2":  # PyTorch's gradient squares an integer operand in its own dtype
            op(n, _no_tiny(binary(FLOATS, FLOATS)), lambda lib, x, y: lib.atan2(x, y))
            continue
        op(n, binary(), lambda lib, x, y, _n=n: getattr(lib, _n)(x, y))
    for n in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
        op(
            n,
            binary(["bool", *INTS], ["bool", *INTS], "bool int"),
            lambda lib, x, y, _n=n: getattr(lib, _n)(x, y),
        )
    for n in ["gcd", "lcm"]:  # (no int8 -128 and such: PyTorch's gcd(-128, -5) is -1)
        op(n, _no_int_min(binary(INTS, INTS, "")), lambda lib, x, y, _n=n: getattr(lib, _n)(x, y))
    for n in ["bitwise_left_shift", "bitwise_right_shift"]:
        op(n, _shift_case, lambda lib, x, y, _n=n: getattr(lib, _n)(x, y))
    op("<<", _shift_case, lambda lib, x, y: x << y, names=("shift", "<<"))
    op(">>", _shift_case, lambda lib, x, y: x >> y, names=("shift", ">>"))
    ops = {
        "+": lambda a, b: a + b,
        "-": lambda a, b: a - b,
        "*": lambda a, b: a * b,
        "/": lambda a, b: a / b,
        "//": lambda a, b: a // b,
        "%": lambda a, b: a % b,
        "**": lambda a, b: a**b,
        "==": lambda a, b: a == b,
        "<": lambda a, b: a < b,
        ">=": lambda a, b: a >= b,
        "&": lambda a, b: a & b,
        "|": lambda a, b: a | b,
        "^": lambda a, b: a ^ b,
    }
    words = {
        "+": "add",
        "-": "sub",
        "*": "mul",
        "/": "div",
        "//": "floor_divide",
        "%": "remainder",
        "**": "pow",
        "==": "eq",
        "<": "lt",
        ">=": "ge",
        "&": "bitwise_and",
        "|": "bitwise_or",
        "^": "bitwise_xor",
    }
    for sym, fn in ops.items():
        dts = ["bool", *INTS] if sym in "&|^" else ALL
        # (no bool exponent: PyTorch's gradient of x ** False is nan at x = 0)
        scalars = "bool int" if sym in "&|^" else "int float" if sym == "**" else "bool int float"
        make = binary(dts, dts, scalars, scalar_first=True)
        if sym in ("/", "**"):  # x / x of a tiny x: PyTorch's gradient 1/x - x/x**2 is
            make = _no_tiny(make)  # rounding noise (ours 0); tiny or huge float16 exponents
        op(sym, make, lambda lib, x, y, _f=fn: _f(x, y), names=(words[sym], sym))  # are
        # rounded in float16 by PyTorch's gradient ((-0.7) ** (3e4 - 1) changes sign)
    op(
        "add(alpha)",
        _with(binary(NUMERIC, NUMERIC, "int float"), alpha=[2, -1, 0.5]),
        lambda lib, x, y, alpha: lib.add(x, y, alpha=alpha),
        names=("add", "alpha"),
    )
    op(
        "sub(alpha)",
        _with(binary(NUMERIC, NUMERIC, "int float"), alpha=[2, -1, 0.5]),
        lambda lib, x, y, alpha: lib.sub(x, y, alpha=alpha),
        names=("sub", "alpha"),
    )
    op(
        "div(rounding_mode)",
        _with(binary(NUMERIC, NUMERIC), rounding_mode=["floor", "trunc", None]),
        lambda lib, x, y, rounding_mode: lib.div(x, y, rounding_mode=rounding_mode),
        names=("div",),
    )
    op("pow(neg int exponent)", _pow_int_case, lambda lib, x, y: lib.pow(x, y), names=("pow",))
    # no gradient check: PyTorch's ldexp backward uses 2 ** other in other's integer dtype,
    # 0 for negative or wide exponents, where the derivative is 2.0 ** other
    op(
        "ldexp",
        binary(FLOATS, INTS, "", wild=False),
        lambda lib, x, y: lib.ldexp(x, y),
        grad=False,
        names=("ldexp", "mul"),
    )
    op("lerp", _lerp_case, lambda lib, x, y, w: lib.lerp(x, y, w))
    op("where", _where_case, lambda lib, c, x, y: lib.where(c, x, y))
    op(
        "x.add_(y)",
        binary(NUMERIC, NUMERIC),
        lambda lib, x, y: _inplace(x, y, "add_"),
        names=("add",),
    )
    op(
        "x.mul_(y)",
        binary(NUMERIC, NUMERIC),
        lambda lib, x, y: _inplace(x, y, "mul_"),
        names=("mul",),
    )


def _edit_inputs(make: Callable, kinds: str, edit: Callable) -> Callable:
    """``make``, with ``edit`` applied to each input array whose dtype kind is in ``kinds``."""

    def wrapped(rng: np.random.Generator) -> Case:
        case = make(rng)
        for x in case.inputs:
            if isinstance(x, Input) and x.array.dtype.kind in kinds:
                x.array = edit(x.array).astype(x.array.dtype)
        return case

    return wrapped


def _no_int_min(make: Callable) -> Callable:
    def edit(a: np.ndarray) -> np.ndarray:
        low = np.iinfo(a.dtype).min
        return np.where(a == low, low + 1, a)

    return _edit_inputs(make, "i", edit)


def _no_negative_zero(make: Callable) -> Callable:
    return _edit_inputs(make, "f", lambda a: a + a.dtype.type(0))  # -0.0 + 0.0 is 0.0


def _no_tiny(make: Callable) -> Callable:
    def edit(a: np.ndarray) -> np.ndarray:  # (and no float16 beyond 1e4)
        small = {"float16": 1e-4, "float32": 1e-30, "float64": 1e-290}[str(a.dtype)]
        tiny = (a != 0) & (np.abs(a) < small)
        if a.dtype == np.float16:
            tiny |= np.isfinite(a) & (np.abs(a) > 1e4)
        return np.where(tiny, 0.5, a)

    return _edit_inputs(make, "f", edit)


def _inplace(x: Any, y: Any, method: str) -> Any:
    if isinstance(x, (int, float, bool)):
        return x
    x = x.clone()
    return getattr(x, method)(y)


def _shift_case(rng: np.random.Generator) -> Case:
    shape = _shape(rng)
    x = tensor_input(rng, shape, pick(rng, INTS))
    s = tensor_input(rng, _broadcast_partner(rng, shape, 0.03), pick(rng, INTS), wild=False)
    s.array = np.abs(s.array) % 8  # shifts within the narrowest width: defined everywhere
    if rng.random() < 0.2:
        return Case([x, int(rng.integers(0, 8))], {})
    return Case([x, s], {})


def _pow_int_case(rng: np.random.Generator) -> Case:
    shape = _shape(rng)
    x = tensor_input(rng, shape, pick(rng, ["int8", "int16", "int32", "int64", "uint8"]))
    if rng.random() < 0.5:
        return Case([x, int(rng.integers(-3, 4))], {})
    y = tensor_input(rng, _broadcast_partner(rng, shape, 0.0), pick(rng, INTS), wild=False)
    y.array = (y.array % 4).astype(y.array.dtype)
    return Case([x, y], {})


def _lerp_case(rng: np.random.Generator) -> Case:
    shape = _shape(rng)
    dt = pick(rng, FLOATS)
    x = tensor_input(rng, shape, dt)
    y = tensor_input(rng, _broadcast_partner(rng, shape, 0.05), dt)
    w = (
        pick(rng, [0.25, 0.75, -1.0, 1.5])
        if rng.random() < 0.5
        else tensor_input(rng, _broadcast_partner(rng, shape, 0.0), dt)
    )
    return Case([x, y, w], {})


def _where_case(rng: np.random.Generator) -> Case:
    shape = _shape(rng)
    c = tensor_input(rng, _broadcast_partner(rng, shape, 0.03), "bool")
    x = tensor_input(rng, shape, pick(rng, ALL))
    y = (
        scalar_of(rng, pick(rng, ["int", "float"]))
        if rng.random() < 0.3
        else tensor_input(rng, _broadcast_partner(rng, shape, 0.03), pick(rng, ALL))
    )
    if rng.random() < 0.2 and not isinstance(y, Input):
        return Case([c, y, x], {})
    return Case([c, x, y], {})


def _mk_reductions() -> None:
    for n in ["sum", "nansum"]:
        op(
            n,
            reduction(ALL if n == "sum" else NUMERIC, dtype_arg=True),
            lambda lib, x, _n=n, **a: getattr(lib, _n)(x, **_dt(lib, a)),
        )
    for n in ["mean", "nanmean"]:
        op(
            n,
            reduction(ALL, dtype_arg=True),
            lambda lib, x, _n=n, **a: getattr(lib, _n)(x, **_dt(lib, a)),
        )
    # no inf: PyTorch's gradient of a product holding inf is nan unless a 0 is anywhere in
    # the tensor; no dim=None (a TypeError there, microtorch takes it as no dim)
    op(
        "prod",
        reduction(ALL, tuple_ok=False, dtype_arg=True, none=False, wild=False),
        lambda lib, x, **a: lib.prod(x, **_dt(lib, a)),
    )
    for n in ["amax", "amin"]:
        op(
            n,
            reduction(ALL, wild=True, huge=True),
            lambda lib, x, _n=n, **a: getattr(lib, _n)(x, **a),
        )
    # (max/min/median(x, dim=None) raise TypeError in PyTorch, microtorch takes it as no dim;
    # PyTorch's median and nanmedian along a dim read garbage from expand()-ed inputs)
    for n in ["max", "min", "argmax", "argmin", "median", "nanmedian", "mode"]:
        op(
            n,
            reduction(
                ALL,
                huge=True,  # (order-free: extremes, medians, modes)
                tuple_ok=False,
                none=(n in ("argmax", "argmin")),
                wild=(n != "mode"),
                expand=("median" not in n),
            ),  # (mode: with nan,
            # PyTorch's answer depends on the order: mode([nan, 0.4]) is nan, of [0.4, nan] 0.4)
            lambda lib, x, _n=n, **a: getattr(lib, _n)(x, **a),
            ties=1 if n in ("median", "nanmedian", "mode") else None,
        )
    for n in ["all", "any", "count_nonzero"]:
        op(
            n,
            reduction(
                ALL, tuple_ok=(n == "count_nonzero"), wild=True, keepdim=(n != "count_nonzero")
            ),
            lambda lib, x, _n=n, **a: getattr(lib, _n)(x, **a),
        )
    for n in ["std", "var", "std_mean", "var_mean"]:  # (the mean of std_mean/var_mean is
        # nan in PyTorch wherever an inf is, as its one-pass update subtracts inf from inf)
        op(
            n,
            _var_case if n in ("std", "var") else _var_case_finite,
            lambda lib, x, _n=n, **a: getattr(lib, _n)(x, **a),
        )
    op("norm", _norm_case, lambda lib, x, **a: lib.norm(x, **a))
    op("aminmax", reduction(NUMERIC, tuple_ok=False), lambda lib, x, **a: lib.aminmax(x, **a))
    for n in ["cumprod", "cummax", "cummin"]:  # cumprod: no inf, as prod
        op(
            n,
            _dim_case(ALL, wild=(n != "cumprod"), empty_dim_ok=False),
            lambda lib, x, _n=n, **a: getattr(lib, _n)(x, **a),
        )


def _dim_case(
    dtypes: list, wild: bool = False, extra: Callable | None = None, empty_dim_ok: bool = True
) -> Callable:
    def make(rng: np.random.Generator) -> Case:
        shape = _shape(rng)
        x = tensor_input(rng, shape, pick(rng, dtypes), wild=wild)
        args = {"dim": _dim(rng, len(shape), none=False)}
        if not empty_dim_ok and 0 in shape:  # (PyTorch's cumulative ops check no dim of an
            args["dim"] = int(rng.integers(-len(shape), len(shape)))  # empty tensor)
        if extra:
            extra(rng, shape, args)
        return Case([x], args)

    return make


def _var_case(rng: np.random.Generator) -> Case:
    # no expand()-ed input: equal values have a std of rounding noise (mean(6.4, 6.4, 6.4) is
    # 6.4000000000000004), whose gradient is noise / noise, in either library
    case = reduction(ALL, expand=False)(rng)
    r = rng.random()
    if r < 0.3:
        # (no correction beyond 1: with no degrees of freedom left, PyTorch's gradient signs
        # are not those of grad * 2 (x - mean) / 0, nor consistent)
        case.args["correction"] = pick(rng, [0, 1, 0.5])
    elif r < 0.5:
        case.args["unbiased"] = bool(rng.random() < 0.5)
    return case


def _var_case_finite(rng: np.random.Generator) -> Case:
    case = _var_case(rng)
    x = case.inputs[0]
    x.array = np.nan_to_num(x.array, posinf=5.0, neginf=-5.0)
    return case


def _norm_case(rng: np.random.Generator) -> Case:
    case = reduction(FLOATS)(rng)
    x = case.inputs[0]  # below 1e15: PyTorch's float32 2-norm over a dim of size 1 is |x|
    x.array = np.clip(x.array, -1e10, 1e10).astype(x.array.dtype)  # (no power to overflow)
    p = pick(rng, [2, 1, 3, 0.5, float("inf"), -float("inf"), 0, "fro"])
    if p in (3, 0.5) and x.array.dtype == np.float16:  # PyTorch's float16 backward of these
        x.array = x.array.astype("float32")  # overflows to nan where ours does not
    if p in (3, 0.5):  # an infinite p-norm: inf (PyTorch) or nan (ours) for every gradient;
        x.array = np.nan_to_num(x.array, posinf=7.5, neginf=-7.5)  # a tiny x: PyTorch's
        x.array = np.where(np.abs(x.array) < 1e-30, 0.0, x.array).astype(x.array.dtype)  # nan
    case.args["p"] = p
    return case


def _mk_sorting() -> None:
    def sort_extra(rng: np.random.Generator, shape: tuple, args: dict) -> None:
        if rng.random() < 0.5:
            args["descending"] = bool(rng.random() < 0.5)
        if rng.random() < 0.3:
            args["stable"] = True

    op("argsort", _dim_case(ALL, True, sort_extra), lambda lib, x, **a: lib.argsort(x, **a), ties=0)
    op("msort", unary(NUMERIC), lambda lib, x: lib.msort(x))

    def k_extra(rng: np.random.Generator, shape: tuple, args: dict) -> None:
        d = args["dim"]
        size = shape[d] if shape and -len(shape) <= d < len(shape) else 1
        args["k"] = (
            int(rng.integers(0, size + 2))
            if rng.random() < 0.2
            else max(1, int(rng.integers(0, size + 1)))
        )
        if rng.random() < 0.3:
            args["largest"] = bool(rng.random() < 0.5)

    def kth_extra(rng: np.random.Generator, shape: tuple, args: dict) -> None:
        k_extra(rng, shape, args)
        args.pop("largest", None)
        if rng.random() < 0.3:
            args["keepdim"] = True

    for name, dtypes, extra in (
        ("sort", ALL, sort_extra),
        ("topk", NUMERIC, k_extra),
        ("kthvalue", NUMERIC, kth_extra),
    ):  # (values, indices): the indices compared by the elements they pick
        op(
            name,
            _dim_case(dtypes, True, extra),
            lambda lib, x, _n=name, **a: getattr(lib, _n)(x, **a),
            exact=True,
            ties=1,
        )

    def uniq(rng: np.random.Generator, consecutive: bool = True) -> Case:
        shape = _shape(rng)
        x = tensor_input(rng, shape, pick(rng, ALL), wild=False)
        args: dict = {}
        if rng.random() < 0.5:
            args["return_inverse"] = True
        if rng.random() < 0.5:
            args["return_counts"] = True
        if rng.random() < 0.3 and shape and consecutive:
            args["dim"] = int(rng.integers(-len(shape), len(shape)))
        return Case([x], args)

    op("unique", lambda rng: uniq(rng, False), lambda lib, x, **a: lib.unique(x, **a), grad=False)
    op("unique_consecutive", uniq, lambda lib, x, **a: lib.unique_consecutive(x, **a), grad=False)


def _mk_shape_ops() -> None:
    def shaped(fn: Callable) -> Callable:
        def make(rng: np.random.Generator) -> Case:
            shape = _shape(rng)
            x = tensor_input(rng, shape, pick(rng, ALL), wild=False)
            return Case([x], fn(rng, shape))

        return make

    def reshape_args(rng: np.random.Generator, shape: tuple) -> dict:
        n = int(np.prod(shape, dtype=np.int64))
        opts = [(n,), (-1,), (1, n), (n, 1, -1) if n else (0, -1), (2, -1), (-1, 3), (n + 1,)]
        return {"shape": pick(rng, opts)}

    op("reshape", shaped(reshape_args), lambda lib, x, shape: x.reshape(*shape), exact=True)
    op("view", shaped(reshape_args), lambda lib, x, shape: x.view(*shape), exact=True)

    def perm_args(rng: np.random.Generator, shape: tuple) -> dict:
        p = [int(d) for d in rng.permutation(len(shape))]
        if rng.random() < 0.3:
            p = [d - len(shape) for d in p]
        if rng.random() < 0.05:
            p = p + [0]
        return {"dims": tuple(p)}

    op("permute", shaped(perm_args), lambda lib, x, dims: x.permute(*dims), exact=True)

    def two_dims(rng: np.random.Generator, shape: tuple) -> dict:
        return {"a": _dim(rng, len(shape), none=False), "b": _dim(rng, len(shape), none=False)}

    op("transpose", shaped(two_dims), lambda lib, x, a, b: lib.transpose(x, a, b), exact=True)
    op("movedim", shaped(two_dims), lambda lib, x, a, b: lib.movedim(x, a, b), exact=True)
    op(
        "swapaxes",
        shaped(two_dims),
        lambda lib, x, a, b: lib.swapaxes(x, a, b),
        exact=True,
        names=("swapaxes", "transpose"),
    )
    op(
        "flatten",
        shaped(two_dims),
        lambda lib, x, a, b: lib.flatten(x, min(a, b), max(a, b)),
        exact=True,
    )

    def unflatten_args(rng: np.random.Generator, shape: tuple) -> dict:
        d = _dim(rng, len(shape), none=False)
        size = shape[d] if shape and -len(shape) <= d < len(shape) else 1
        return {"dim": d, "sizes": pick(rng, [(size,), (1, size), (-1, 1), (size, -1), (2, -1)])}

    op(
        "unflatten",
        shaped(unflatten_args),
        lambda lib, x, dim, sizes: x.unflatten(dim, sizes),
        exact=True,
    )

    def squeeze_args(rng: np.random.Generator, shape: tuple) -> dict:
        return {"dim": _dim(rng, len(shape), none=True, tuple_ok=True)}

    op(
        "squeeze",
        shaped(squeeze_args),
        lambda lib, x, dim: x.squeeze() if dim is None else lib.squeeze(x, dim),
        exact=True,
    )

    def unsqueeze_args(rng: np.random.Generator, shape: tuple) -> dict:
        return {"dim": int(rng.integers(-len(shape) - 2, len(shape) + 2))}

    op("unsqueeze", shaped(unsqueeze_args), lambda lib, x, dim: lib.unsqueeze(x, dim), exact=True)

    def expand_args(rng: np.random.Generator, shape: tuple) -> dict:
        s = [pick(rng, [d, -1, 3]) if d == 1 else pick(rng, [d, -1, d, d + 1]) for d in shape]
        if rng.random() < 0.4:
            s = [2] + s
        return {"sizes": tuple(s)}

    op("expand", shaped(expand_args), lambda lib, x, sizes: x.expand(*sizes), exact=True)

    def repeat_args(rng: np.random.Generator, shape: tuple) -> dict:
        r = [int(rng.integers(0, 3)) for _ in shape] + [1] * int(rng.integers(0, 2))
        if rng.random() < 0.05 and r:
            r = r[1:]
        return {"r": tuple(r) if r else (1,)}

    op("repeat", shaped(repeat_args), lambda lib, x, r: x.repeat(*r), exact=True)
    op("tile", shaped(repeat_args), lambda lib, x, r: lib.tile(x, r), exact=True)

    def rint_args(rng: np.random.Generator, shape: tuple) -> dict:
        d = _dim(rng, len(shape), none=True)
        size = (
            shape[d]
            if d is not None and shape and -len(shape) <= d < len(shape)
            else int(np.prod(shape, dtype=np.int64))
        )
        reps = (
            int(rng.integers(0, 3))
            if rng.random() < 0.5
            else list(int(v) for v in rng.integers(0, 3, size=size))
        )
        return {"repeats": reps, "dim": d}

    op(
        "repeat_interleave",
        shaped(rint_args),
        lambda lib, x, repeats, dim: lib.repeat_interleave(
            x, lib.tensor(repeats) if isinstance(repeats, list) else repeats, dim=dim
        ),
        exact=True,
    )

    def dims_args(rng: np.random.Generator, shape: tuple) -> dict:
        d = _dim(rng, len(shape), none=False, tuple_ok=True)
        return {"dims": d if isinstance(d, tuple) else (d,)}

    op("flip", shaped(dims_args), lambda lib, x, dims: lib.flip(x, dims), exact=True)

    def roll_args(rng: np.random.Generator, shape: tuple) -> dict:
        if rng.random() < 0.3:
            return {"shifts": int(rng.integers(-5, 6)), "dims": None}
        d = _dim(rng, len(shape), none=False)
        if 0 in shape:  # PyTorch checks no dim of an empty tensor
            d = int(rng.integers(-len(shape), len(shape)))
        return {"shifts": int(rng.integers(-5, 6)), "dims": d}

    op(
        "roll",
        shaped(roll_args),
        lambda lib, x, shifts, dims: lib.roll(x, shifts, dims),
        exact=True,
    )

    def rot_args(rng: np.random.Generator, shape: tuple) -> dict:
        a = pick(rng, [(0, 1), (1, 0), (-1, -2), (0, 2), (0, 0)])
        return {"k": int(rng.integers(-3, 5)), "dims": a}

    op("rot90", shaped(rot_args), lambda lib, x, k, dims: lib.rot90(x, k, dims), exact=True)

    def narrow_args(rng: np.random.Generator, shape: tuple) -> dict:
        d = _dim(rng, len(shape), none=False)
        size = shape[d] if shape and -len(shape) <= d < len(shape) else 1
        start = int(rng.integers(-size, size + 1)) if size else 0
        return {"dim": d, "start": start, "length": int(rng.integers(0, size + 2))}

    op(
        "narrow",
        shaped(narrow_args),
        lambda lib, x, dim, start, length: lib.narrow(x, dim, start, length),
        exact=True,
    )

    def diag_args(rng: np.random.Generator, shape: tuple) -> dict:
        return {
            "offset": int(rng.integers(-3, 4)),
            "dim1": _dim(rng, len(shape), False),
            "dim2": _dim(rng, len(shape), False),
        }

    op("diagonal", shaped(diag_args), lambda lib, x, **a: lib.diagonal(x, **a), exact=True)

    def tri_args(rng: np.random.Generator, shape: tuple) -> dict:
        return {"diagonal": int(rng.integers(-3, 4))}

    op("tril", shaped(tri_args), lambda lib, x, diagonal: lib.tril(x, diagonal), exact=True)
    op("triu", shaped(tri_args), lambda lib, x, diagonal: lib.triu(x, diagonal), exact=True)

    def split_args(rng: np.random.Generator, shape: tuple) -> dict:
        d = _dim(rng, len(shape), none=False)
        size = shape[d] if shape and -len(shape) <= d < len(shape) else 1
        if rng.random() < 0.5:
            s: Any = int(rng.integers(1, size + 2))
        else:
            parts = []
            left = size
            while left > 0:
                k = int(rng.integers(0, left + 1))
                parts.append(k)
                left -= k
            s = parts + ([1] if rng.random() < 0.1 else [])
        return {"s": s, "dim": d}

    op("split", shaped(split_args), lambda lib, x, s, dim: lib.split(x, s, dim), exact=True)
    op(
        "chunk",
        shaped(split_args),
        lambda lib, x, s, dim: lib.chunk(x, s if isinstance(s, int) else len(s) + 1, dim),
        exact=True,
    )
    op(
        "tensor_split",
        shaped(split_args),
        lambda lib, x, s, dim: lib.tensor_split(x, s, dim=dim),
        exact=True,
    )
    for n in ["cat", "stack", "hstack", "vstack"]:  # (hstack and vstack are cat, by name too)
        op(
            n,
            _cat_case,
            lambda lib, *xs, _n=n, **a: getattr(lib, _n)(list(xs), **a),
            exact=True,
            names=(n, "cat"),
        )


def _cat_case(rng: np.random.Generator) -> Case:
    shape = _shape(rng)
    k = int(rng.integers(1, 4))
    xs = []
    for _ in range(k):
        s = list(shape)
        if s and rng.random() < 0.5:
            s[0] = int(rng.integers(0, 3))
        if rng.random() < 0.05:
            s = list(_shape(rng))
        xs.append(tensor_input(rng, tuple(s), pick(rng, ALL), wild=False))
    return Case(xs, {"dim": 0} if rng.random() < 0.7 else {})


def _index(rng: np.random.Generator, size: int, shape: tuple, bad: float = 0.05) -> np.ndarray:
    hi = max(size, 1)
    v = rng.integers(-hi, hi, size=shape) if rng.random() < 0.3 else rng.integers(0, hi, size=shape)
    if size == 0:
        v = np.zeros(shape, dtype=np.int64)
    if rng.random() < bad and v.size:
        v.flat[0] = size + 1
    return v.astype(np.int64)


def _mk_indexing() -> None:
    def gather_case(rng: np.random.Generator) -> Case:
        shape = _shape(rng, int(rng.integers(1, 4)))
        x = tensor_input(rng, shape, pick(rng, ALL), wild=False)
        d = _dim(rng, len(shape), none=False)
        size = shape[d] if -len(shape) <= d < len(shape) else 1
        ishape = tuple(int(rng.integers(0, s + 1)) for s in shape)
        idx = np.abs(_index(rng, size, ishape)) if size else np.zeros(ishape, np.int64)
        return Case([x, Input(idx)], {"dim": d})

    op("gather", gather_case, lambda lib, x, i, dim: lib.gather(x, dim, i), exact=True)

    def in_range(rng: np.random.Generator) -> Case:  # PyTorch's take_along_dim reads an
        case = gather_case(rng)  # index beyond the dim without a check (garbage)
        x, i = case.inputs
        d = case.args["dim"]
        if -x.array.ndim <= d < x.array.ndim and x.array.shape[d]:
            i.array = i.array % x.array.shape[d]
        return case

    op("take_along_dim", in_range, lambda lib, x, i, dim: lib.take_along_dim(x, i, dim), exact=True)

    def scatter_case(rng: np.random.Generator) -> Case:
        case = gather_case(rng)
        x, i = case.inputs
        src = tensor_input(rng, i.array.shape, str(x.array.dtype), wild=False)
        case.inputs = [x, i, src]
        return case

    op("scatter", scatter_case, lambda lib, x, i, s, dim: lib.scatter(x, dim, i, s), grad=False)
    op(
        "scatter_add",
        scatter_case,
        lambda lib, x, i, s, dim: lib.scatter_add(x, dim, i, s),
        exact=False,
    )

    def select_case(rng: np.random.Generator) -> Case:
        shape = _shape(rng, int(rng.integers(0, 4)))
        x = tensor_input(rng, shape, pick(rng, ALL), wild=False)
        d = _dim(rng, len(shape), none=False)
        size = shape[d] if shape and -len(shape) <= d < len(shape) else 1
        idx = np.abs(_index(rng, size, (int(rng.integers(0, 5)),)))
        return Case([x, Input(idx)], {"dim": d})

    # an index out of range: IndexError or RuntimeError, as PyTorch's kernels choose by dim and
    # strides (microtorch: IndexError for index_select along dim 0 and index_add on 1-D input)
    kernels = (IndexError, RuntimeError)
    op(
        "index_select",
        select_case,
        lambda lib, x, i, dim: lib.index_select(x, dim, i),
        exact=True,
        either=kernels,
    )

    def fill_case(rng: np.random.Generator) -> Case:  # PyTorch's index_fill of an empty
        case = select_case(rng)  # input with an index fails in an unrelated setStorage check
        if case.inputs[0].array.size == 0:
            case.inputs[1].array = case.inputs[1].array[:0]
        return case

    op("index_fill", fill_case, lambda lib, x, i, dim: x.index_fill(dim, i, -2), exact=True)

    def index_add_case(rng: np.random.Generator) -> Case:
        case = select_case(rng)
        x, i = case.inputs
        s = list(x.array.shape) or []
        d = case.args["dim"]
        if x.array.size == 0 and -len(s) <= d < len(s):  # PyTorch checks no index into an
            i.array = i.array % s[d] if s[d] else i.array[:0]  # empty input
        if s and -len(s) <= d < len(s):
            s[d] = len(i.array)
        src = tensor_input(rng, tuple(s), str(x.array.dtype), wild=False)
        case.inputs = [x, i, src]
        if rng.random() < 0.3:
            case.args["alpha"] = 2
        return case

    op(
        "index_add",
        index_add_case,
        lambda lib, x, i, s, dim, **a: lib.index_add(x, dim, i, s, **a),
        either=kernels,
    )

    def mask_case(rng: np.random.Generator) -> Case:
        shape = _shape(rng)
        x = tensor_input(rng, shape, pick(rng, ALL), wild=False)
        m = tensor_input(rng, _broadcast_partner(rng, shape, 0.03), "bool")
        return Case([x, m], {"value": pick(rng, [0, -1.5, True, 7])})

    op("masked_fill", mask_case, lambda lib, x, m, value: lib.masked_fill(x, m, value), exact=True)
    op("masked_select", mask_case, lambda lib, x, m, value: lib.masked_select(x, m), exact=True)

    def take_case(rng: np.random.Generator) -> Case:
        shape = _shape(rng)
        x = tensor_input(rng, shape, pick(rng, ALL), wild=False)
        n = int(np.prod(shape, dtype=np.int64))
        return Case([x, Input(_index(rng, n, _shape(rng, int(rng.integers(0, 3)))))], {})

    op("take", take_case, lambda lib, x, i: lib.take(x, i), exact=True)
    op("nonzero", unary(ALL), lambda lib, x: lib.nonzero(x))
    op(
        "nonzero(as_tuple)",
        unary(ALL),
        lambda lib, x: lib.nonzero(x, as_tuple=True),
        names=("nonzero",),
    )
    op(
        "getitem",
        _getitem_case,
        lambda lib, x, *idx, **a: x[_key(lib, idx, a)],
        names=("index", "getitem"),
        exact=True,
    )
    op("setitem", _setitem_case, _setitem, names=("index", "setitem"), exact=True)


def _getitem_case(rng: np.random.Generator) -> Case:
    shape = _shape(rng, int(rng.integers(1, 5)))
    x = tensor_input(rng, shape, pick(rng, ALL), wild=False)
    parts: list = []
    inputs: list = [x]
    broadcast = _shape(rng, int(rng.integers(0, 3)), empty=False)
    dim = 0
    for _ in range(int(rng.integers(1, len(shape) + 1))):
        if dim >= len(shape):
            break
        r = rng.random()
        size = shape[dim]
        if r < 0.3:
            parts.append(("tensor", len(inputs)))
            ishape = _broadcast_partner(rng, broadcast, 0.03)
            inputs.append(Input(_index(rng, size, ishape)))
        elif r < 0.4:
            parts.append(("mask", len(inputs)))
            inputs.append(tensor_input(rng, (size,), "bool", layout="contiguous"))
        elif r < 0.55:
            parts.append(("int", int(_index(rng, size, ()))))
        elif r < 0.75:
            a, b = sorted(int(v) for v in rng.integers(-size - 1, size + 2, size=2))
            parts.append(("slice", (a, b, int(pick(rng, [1, 1, 2, 3])))))
        elif r < 0.85:
            parts.append(("none", 0))
            continue
        elif r < 0.9:
            parts.append(("ellipsis", 0))
            dim = len(shape) - (len(parts) - 1)
            continue
        else:
            parts.append(("list", [int(v) for v in _index(rng, size, (int(rng.integers(1, 4)),))]))
        dim += 1
    try:  # an empty result: PyTorch checks no index then; so they are all put in range
        key = _key(torch, [torch.tensor(t.array) for t in inputs[1:]], {"parts": parts})
        empty = torch.zeros(shape)[key].numel() == 0
    except (IndexError, RuntimeError, TypeError, ValueError):
        empty = 0 in shape  # (x[i] = v into an empty x checks no index either)
    if empty:
        for t in inputs[1:]:  # an empty slice: PyTorch checks no index then (the result is
            if t.array.dtype == np.int64:  # empty); so they are all in range
                t.array = np.zeros_like(t.array)
        parts = [("list", [0] * len(v)) if k == "list" else (k, v) for k, v in parts]
        parts = [("int", 0) if k == "int" else (k, v) for k, v in parts]
    return Case(inputs, {"parts": parts})


def _key(lib: Any, idx: tuple, a: dict) -> Any:
    key = []
    for kind, v in a["parts"]:
        if kind in ("tensor", "mask"):
            key.append(idx[v - 1])
        elif kind == "int":
            key.append(v)
        elif kind == "slice":
            key.append(slice(*v))
        elif kind == "none":
            key.append(None)
        elif kind == "ellipsis":
            key.append(Ellipsis)
        else:
            key.append(v)
    if any(k is Ellipsis for k in key) and sum(k is Ellipsis for k in key) > 1:
        key = [k for k in key if k is not Ellipsis]
    return tuple(key)


def _setitem_case(rng: np.random.Generator) -> Case:
    case = _getitem_case(rng)
    if 0 in case.inputs[0].array.shape:  # PyTorch writes nothing into an empty tensor and
        case.inputs, case.args["parts"] = case.inputs[:1], [("ellipsis", 0)]  # checks no index
    case.args["value"] = pick(rng, ["scalar", "tensor", "row"])
    case.args["scalar"] = pick(rng, [0, 2.5, True, -1])
    return case


def _setitem(lib: Any, x: Any, *idx: Any, parts: list, value: str, scalar: Any) -> Any:
    y = x.detach().clone()
    key = _key(lib, idx, {"parts": parts})
    if value == "scalar":
        y[key] = scalar
    else:
        target = y[key]
        shape = tuple(target.shape) if value == "tensor" else tuple(target.shape)[-1:]
        y[key] = lib.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape).to(y.dtype)
    return y


def _mk_matmul() -> None:
    def mm_case(rng: np.random.Generator) -> Case:
        dt = pick(rng, [*FLOATS, "float32", "float64", "int64", "int32"])
        n, k, m = (int(rng.choice([0, 1, 2, 3, 5])) for _ in range(3))
        ka = k + 1 if rng.random() < 0.05 else k
        a_shape = pick(rng, [(n, k), (k,), (2, n, k), (1, 2, n, k), (3, 1, n, k)])
        b_shape = pick(rng, [(ka, m), (ka,), (2, ka, m), (1, ka, m), (2, 1, ka, m)])
        return Case(
            [
                tensor_input(rng, a_shape, dt, wild=False),
                tensor_input(rng, b_shape, dt, wild=False),
            ],
            {},
        )

    op("matmul", mm_case, lambda lib, a, b: lib.matmul(a, b))
    op("@", mm_case, lambda lib, a, b: a @ b, names=("matmul", "@"))
    op("mm", mm_case, lambda lib, a, b: lib.mm(a, b))
    op("bmm", mm_case, lambda lib, a, b: lib.bmm(a, b))
    op("outer", mm_case, lambda lib, a, b: lib.outer(a, b))
    op("dot", mm_case, lambda lib, a, b: lib.dot(a, b))

    def einsum_case(rng: np.random.Generator) -> Case:
        dt = pick(rng, ["float32", "float64", "int64"])
        eq, shapes = pick(
            rng,
            [
                ("ij,jk->ik", [(2, 3), (3, 4)]),
                ("i,i->", [(3,), (3,)]),
                ("ij->ji", [(2, 3)]),
                ("bij,bjk->bik", [(2, 2, 3), (2, 3, 1)]),
                ("ii->i", [(3, 3)]),
                ("ij->", [(0, 3)]),
                ("i,j->ij", [(2,), (3,)]),
                ("...ij,...jk", [(2, 1, 3), (3, 2)]),
                ("ij,ij->ij", [(2, 3), (1, 3)]),
                ("ij,jk->ik", [(2, 3), (4, 4)]),
            ],
        )
        return Case([tensor_input(rng, s, dt, wild=False) for s in shapes], {"eq": eq})

    op("einsum", einsum_case, lambda lib, *xs, eq: lib.einsum(eq, *xs))


_mk_elementwise_unary()
_mk_elementwise_binary()
_mk_reductions()
_mk_sorting()
_mk_shape_ops()
_mk_indexing()
_mk_matmul()


# ----------------------------------------------------------------------------- running
def _outputs(value: Any) -> list:
    if isinstance(value, (tuple, list)):
        return [v for item in value for v in _outputs(item)]
    return [value]


def _is_tensor(v: Any) -> bool:
    return isinstance(v, (torch.Tensor, microtorch.Tensor))


def _dtype(t: Any) -> str:
    return str(t.dtype).rsplit(".", 1)[-1]


def _run(lib: Any, spec: Op, case: Case) -> tuple:
    """(inputs given to the op, leaves, result or the exception raised)."""
    built, leaves = [], []
    for item in case.inputs:
        if isinstance(item, str) and item == "same":
            built.append(built[0])
            continue
        t, leaf = build(lib, item)
        built.append(t)
        leaves.append(leaf)
    try:
        return built, leaves, spec.call(lib, *built, **_dt(lib, case.args))
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's below
        return built, leaves, e


def _kind(e: BaseException) -> type:
    for k in ERRORS:
        if isinstance(e, k):
            return k
    return type(e)


def _compare_values(o: Any, t: Any, exact: bool, what: str) -> str | None:
    if _is_tensor(t):
        if not _is_tensor(o):
            return f"{what}: {type(o).__name__}, PyTorch gives a tensor"
        if tuple(o.shape) != tuple(t.shape):
            return f"{what}: shape {tuple(o.shape)}, PyTorch {tuple(t.shape)}"
        if _dtype(o) != _dtype(t):
            return f"{what}: dtype {_dtype(o)}, PyTorch {_dtype(t)}"
        if o.requires_grad != t.requires_grad:
            return f"{what}: requires_grad {o.requires_grad}, PyTorch {t.requires_grad}"
        a = o.detach().cpu().numpy()
        b = t.detach().numpy(force=True)
        if _dtype(t) in TOL and not exact:
            if not np.allclose(
                a.astype("float64"), b.astype("float64"), equal_nan=True, **TOL[_dtype(t)]
            ):
                return f"{what}: values differ {_differ(a, b, TOL[_dtype(t)])}"
        elif not np.array_equal(a, b, equal_nan=_dtype(t) in TOL):
            return f"{what}: values differ\n  ours   {_short(a)}\n  torch  {_short(b)}"
        return None
    if isinstance(t, float) and isinstance(o, float):
        if not (math.isclose(o, t, rel_tol=1e-6) or (math.isnan(o) and math.isnan(t))):
            return f"{what}: {o!r}, PyTorch {t!r}"
        return None
    if type(o) is not type(t) and not (isinstance(t, tuple) and isinstance(o, tuple)):
        return f"{what}: {type(o).__name__} {o!r}, PyTorch {type(t).__name__} {t!r}"
    if o != t:
        return f"{what}: {o!r}, PyTorch {t!r}"
    return None


def _short(a: np.ndarray) -> str:
    return np.array2string(a.ravel()[:12], precision=6, threshold=12).replace("\n", " ")


def _differ(a: np.ndarray, b: np.ndarray, tol: dict) -> str:
    """Where ``a`` (ours) and ``b`` (PyTorch's) differ: the first few flat positions."""
    a, b = a.astype("float64").ravel(), b.astype("float64").ravel()
    bad = ~np.isclose(a, b, equal_nan=True, **tol)
    where = np.flatnonzero(bad)[:6]
    return f"at flat {list(where)}: ours {a[where]}, PyTorch {b[where]}".replace("\n", " ")


def _check(spec: Op, case: Case, rng: np.random.Generator) -> str | None:
    t_in, t_leaves, theirs = _run(torch, spec, case)
    o_in, o_leaves, ours = _run(microtorch, spec, case)
    if isinstance(theirs, BaseException):
        if not isinstance(ours, BaseException):
            if "not implemented for" in str(theirs):
                return None  # a PyTorch kernel missing for this dtype; ours may compute it
            return f"PyTorch raises {type(theirs).__name__}({_first(theirs)}), microtorch does not"
        either = {_kind(ours), _kind(theirs)} <= set(spec.either)
        if (
            _kind(ours) is not _kind(theirs)
            and "not implemented for" not in str(theirs)
            and not either
        ):
            return (
                f"raises {type(ours).__name__}({_first(ours)}), PyTorch "
                f"{type(theirs).__name__}({_first(theirs)})"
            )
        words = spec.names or (spec.name,)
        if not any(w.lower() in str(ours).lower() for w in words):
            return f"error message does not name {words[0]}: {type(ours).__name__}({_first(ours)})"
        return None
    if isinstance(ours, BaseException):
        return f"raises {type(ours).__name__}({_first(ours)}), PyTorch does not"
    outs_o, outs_t = _outputs(ours), _outputs(theirs)
    if len(outs_o) != len(outs_t):
        return f"{len(outs_o)} outputs, PyTorch {len(outs_t)}"
    tied = False  # indices that differ among equal elements: the gradients go elsewhere
    for i, (o, t) in enumerate(zip(outs_o, outs_t)):
        if i == spec.ties and _is_tensor(t) and _is_tensor(o) and t.shape == o.shape:
            tied = not np.array_equal(o.numpy(), t.numpy())
            o, t = _picked(t_in[0], o, case.args), _picked(t_in[0], t, case.args)
        problem = _compare_values(o, t, spec.exact, f"output {i}")
        if problem:
            return problem
    if not spec.grad or tied:
        return None
    diff = [(o, t) for o, t in zip(outs_o, outs_t) if _is_tensor(t) and t.requires_grad]
    if not diff:
        return None
    ups = [rng.standard_normal(tuple(t.shape)).astype(_dtype(t)) for _, t in diff]
    try:
        torch.autograd.backward([t for _, t in diff], [torch.tensor(u) for u in ups])
    except RuntimeError:
        return None  # PyTorch has no gradient here (e.g. of an integer output)
    try:
        microtorch.autograd.backward([o for o, _ in diff], [microtorch.tensor(u) for u in ups])
    except Exception as e:  # noqa: BLE001
        return f"backward raises {type(e).__name__}({_first(e)})"
    for i, (lo, lt) in enumerate(zip(o_leaves, t_leaves)):
        if lt is None or not lt.requires_grad:
            continue
        if (lo.grad is None) != (lt.grad is None):
            return f"grad of input {i}: {lo.grad is None and 'None' or 'set'}, PyTorch differs"
        if lt.grad is None:
            continue
        if _dtype(lo.grad) != _dtype(lt.grad) or tuple(lo.grad.shape) != tuple(lt.grad.shape):
            return (
                f"grad of input {i}: {_dtype(lo.grad)}{tuple(lo.grad.shape)}, "
                f"PyTorch {_dtype(lt.grad)}{tuple(lt.grad.shape)}"
            )
        a, b = lo.grad.numpy().astype("float64"), lt.grad.numpy(force=True).astype("float64")
        # the least precise float of the case sets the tolerance: PyTorch computes some
        # gradients in it (float16 * float32 in float16), microtorch in the wider dtype
        floats = [_dtype(t) for t in [*t_in, *outs_t] if _is_tensor(t) and _dtype(t) in TOL]
        tol = GRAD_TOL[min(floats + [_dtype(lt.grad)], key=list(TOL).index)]
        if not np.allclose(a, b, equal_nan=True, **tol):
            return f"grad of input {i} differs {_differ(a, b, tol)}"
    return None


def _picked(x: Any, index: Any, args: dict) -> Any:
    """The elements of ``x`` that ``index`` (sort/topk/median-style indices along args' dim)
    picks: two index tensors that differ only among equal elements pick the same ones."""
    if x.ndim == 0 or index.dtype not in (torch.int64, microtorch.int64):
        return index
    i = torch.tensor(index.detach().cpu().numpy()) if not isinstance(index, torch.Tensor) else index
    dim = args.get("dim", -1) % x.ndim
    if i.ndim < x.ndim:
        i = i.unsqueeze(dim)
    return torch.take_along_dim(x.detach(), i, dim)


def _first(e: BaseException) -> str:
    return str(e).split("\n")[0][:160]


def _repro(spec: Op, case: Case, n: int) -> str:
    parts = []
    for item in case.inputs:
        if isinstance(item, Input):
            a = item.array
            parts.append(
                f"{item.describe()}{'(grad)' if item.grad else ''}="
                f"{np.array2string(a.ravel()[:8], precision=4, threshold=8)}".replace("\n", " ")
            )
        else:
            parts.append(repr(item))
    return f"[{spec.name} case {n} seed {SEED}] inputs: {'; '.join(parts)} args: {case.args}"


@pytest.mark.parametrize("spec", OPS, ids=lambda s: s.name)
def test_fuzz_matches_pytorch(spec: Op) -> None:
    seed = zlib.crc32(f"{spec.name}:{SEED}".encode())
    rng = np.random.default_rng(seed)
    failures = []
    for n in range(CASES_PER_OP):
        case = spec.make(rng)
        problem = _check(spec, case, np.random.default_rng(n))
        if problem:
            failures.append(f"{_repro(spec, case, n)}\n  -> {problem}")
    if failures:
        pytest.fail(f"{len(failures)}/{CASES_PER_OP} cases differ:\n" + "\n".join(failures[:8]))
