"""PyTorch's own list of calls that must fail, run in microtorch.

PyTorch's test suite describes its ops in ``op_db`` (torch.testing._internal.
common_methods_invocations) and its modules in ``module_db`` (common_modules). Many entries
carry error inputs: a call (input, args, kwargs) and the exception type PyTorch raises for
it. Each one whose op microtorch has is converted here (the same values, dtypes, shapes and
aliasing) and run with microtorch, which must

- raise PyTorch's exception type, or a subclass of it (the regexes are PyTorch's own
  wording and are not compared);
- raise it from its own argument checks, not from inside NumPy;
- say which op failed: the message names it (the project's rule for error messages).

What cannot be converted (complex and other dtypes microtorch lacks, meta tensors, more
dimensions than NumPy holds) is skipped and counted; ops microtorch lacks are skipped with
the reason (SKIPPED_OPS), and the few calls where microtorch deliberately answers otherwise
are listed with theirs (DIFFERENT). ``python tests/test_opinfo_errors_torch.py`` prints the
counts.
"""

from __future__ import annotations

import collections
import os
import traceback
from collections.abc import Callable
from typing import Any

import pytest

from tests.torch_reference import needs_torch

pytestmark = needs_torch((2, 13), "OpInfo error inputs")

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")  # common_methods_invocations imports it

from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402
from torch.testing._internal.common_modules import ModuleErrorEnum, module_db  # noqa: E402

import microtorch  # noqa: E402
import microtorch.nn.functional as F  # noqa: E402

DTYPES = {
    getattr(torch, name): getattr(microtorch, name)
    for name in (
        "bool", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8"
    )
}  # fmt: skip

EXERCISE = "left for learners (docs/exercises)"
SKIPPED_OPS = {
    "complex": "no complex dtypes in microtorch",
    "polar": "no complex dtypes in microtorch",
    "logcumsumexp": EXERCISE,
    "nn.functional.rms_norm": EXERCISE,
    "nn.functional.max_pool1d": EXERCISE,
    "nn.functional.max_pool2d": EXERCISE,
    "nn.functional.max_pool3d": EXERCISE,
    "nn.functional.adaptive_max_pool1d": EXERCISE,
    "nn.functional.adaptive_max_pool2d": EXERCISE,
    "nn.functional.adaptive_max_pool3d": EXERCISE,
    "nn.functional.max_unpool1d": "inverts max pooling, which is " + EXERCISE,
    "nn.functional.max_unpool2d": "inverts max pooling, which is " + EXERCISE,
    "nn.functional.max_unpool3d": "inverts max pooling, which is " + EXERCISE,
    "nn.functional.linear_cross_entropy": "not in microtorch (a fused, chunked linear + loss)",
    "_chunk_cat": "a private ATen helper, not in microtorch",
    "jiterator_binary": "CUDA's runtime-compiled kernels (torch.cuda.jiterator)",
    "jiterator_binary_return_by_ref": "CUDA's runtime-compiled kernels (torch.cuda.jiterator)",
    "sum_to_size": "not in microtorch",
}
for _name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    for _suffix in ("", "2", "n"):
        SKIPPED_OPS[f"fft.{_name}{_suffix}"] = "no torch.fft in microtorch (complex results)"
for _name in (
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
    "general_hamming", "hamming", "hann", "kaiser", "nuttall",
):  # fmt: skip
    SKIPPED_OPS[f"signal.windows.{_name}"] = "no torch.signal in microtorch (see hann_window...)"

UNBOUND = (
    "calls the unbound method with a number as self: PyTorch's C method refuses that self, "
    "a Python method takes any (users write 2 + t, which works in both)"
)
# (op name, variant, index of the error input): why microtorch answers otherwise
DIFFERENT = {}
for _name in ("__radd__", "__rmul__", "__rand__", "__ror__", "__rxor__"):
    DIFFERENT[(_name, "", 0)] = DIFFERENT[(_name, "", 1)] = UNBOUND
for _name in ("__rmod__", "__rpow__", "__rsub__"):
    DIFFERENT[(_name, "", 0)] = UNBOUND
OUT_IS_INPUT = (
    "out= is one of the inputs: PyTorch refuses it, as its kernels would read what they have "
    "overwritten; microtorch computes the whole result first, then copies it into out"
)
for _key in (
    ("kthvalue", "", 0), ("masked_select", "", 1), ("masked_select", "", 2), ("gather", "", 6),
    ("take", "", 1), ("cat", "", 6), ("cat", "", 7),
):  # fmt: skip
    DIFFERENT[_key] = OUT_IS_INPUT


def _method(name: str) -> Callable:
    """A call of the Tensor method ``name`` on the sample's input."""
    return lambda x, *args, **kwargs: getattr(x, name)(*args, **kwargs)


def _unbound(name: str) -> Callable:
    """The OpInfo's op for the reflected operators: microtorch.Tensor.__radd__(x, ...)."""
    return lambda x, *args, **kwargs: getattr(microtorch.Tensor, name)(x, *args, **kwargs)


# the OpInfos whose op is a lambda: the same call in microtorch
ADAPTERS = {
    "item": _method("item"),
    "cauchy": _method("cauchy_"),
    "exponential": _method("exponential_"),
    "geometric": _method("geometric_"),
    "log_normal": _method("log_normal_"),
    ("normal", "in_place"): _method("normal_"),
    "uniform": _method("uniform_"),
    "reshape_as": _method("reshape_as"),
    "view": _method("view"),
    "view_as": _method("view_as"),
    "T": lambda x: x.T,
    "where": lambda x, condition, other, **kwargs: microtorch.where(condition, x, other, **kwargs),
    "nn.functional.embedding": lambda weight, idx, **kwargs: F.embedding(idx, weight, **kwargs),
    ("linalg.lstsq", "grad_oriented"): lambda a, b, driver: microtorch.linalg.lstsq(
        a, b, driver=driver
    )[:2],
}


class Unconvertible(Exception):
    """A sample value microtorch cannot hold (the reason is the message)."""


def to_microtorch(value: Any, memo: dict) -> Any:
    """``value`` with every torch tensor, dtype, device and size replaced by microtorch's; the
    same torch tensor twice becomes the same microtorch tensor, and an expanded one (stride 0)
    an expanded one, so that PyTorch's aliasing checks have something to find."""
    if isinstance(value, torch.Tensor):
        if id(value) not in memo:
            _check_not_a_view_of(value, memo)
            memo[id(value)] = _tensor(value)
        return memo[id(value)]
    if isinstance(value, torch.dtype):
        if value not in DTYPES:
            raise Unconvertible(f"dtype {value}")
        return DTYPES[value]
    if isinstance(value, torch.device):
        return str(value)
    if isinstance(value, torch.Size):
        return tuple(value)
    if isinstance(value, (list, tuple)):
        return type(value)(to_microtorch(v, memo) for v in value)
    if isinstance(value, dict):
        return {k: to_microtorch(v, memo) for k, v in value.items()}
    if isinstance(value, (torch.memory_format, torch.Generator, torch.layout)):
        raise Unconvertible(type(value).__name__)
    if isinstance(value, complex):
        return value  # a Python number: microtorch must refuse it itself
    return value


def _check_not_a_view_of(t: Any, memo: dict) -> None:
    """Two different tensors on one memory (a view of another input) are not reproduced."""
    storages = memo.setdefault("storages", set())
    storage = t.untyped_storage().data_ptr() if t.numel() else 0
    if storage and storage in storages:
        raise Unconvertible("one input a view of another's memory")
    storages.add(storage)


def _tensor(t: Any) -> Any:
    if t.layout != torch.strided:
        raise Unconvertible(f"layout {t.layout}")
    if t.device.type != "cpu":
        raise Unconvertible(f"a tensor on {t.device}")
    if t.dim() > 32:
        raise Unconvertible("more dimensions than NumPy holds")
    if t.dtype not in DTYPES:
        raise Unconvertible(f"dtype {t.dtype}")
    expanded = [d for d in range(t.dim()) if t.stride(d) == 0 and t.shape[d] > 1]
    base = t
    for d in expanded:
        base = base.narrow(d, 0, 1)
    out = microtorch.tensor(base.detach().numpy(), dtype=DTYPES[t.dtype])
    if expanded:
        out = out.expand(*t.shape)
    if t.requires_grad:
        out.requires_grad_(True)
    return out


def resolve(op: Any) -> Callable | None:
    """microtorch's function for an OpInfo: its adapter, else the same dotted name."""
    for key in ((op.name, op.variant_test_name), op.name):
        if key in ADAPTERS:
            return ADAPTERS[key]
    if op.name.startswith("__r"):
        return _unbound(op.name)
    obj: Any = microtorch
    for part in op.name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def disabled_by_pytorch(op: Any) -> str | None:
    """PyTorch's own reason when its test_errors is skipped or expected to fail on the CPU."""
    for info in op.decorators or ():
        if hasattr(info, "is_active") and info.is_active(
            "TestCommon", "test_errors", "cpu", torch.float32, {}
        ):
            for decorator in info.decorators:
                name = getattr(decorator, "__name__", "")  # (not a tolerance override)
                if name in ("expectedFailure", "skip", "decorator", "onlyCUDA"):
                    return f"PyTorch's own test_errors is disabled for it ({name})"
    return None


def _names(op: Any) -> set:
    """The names a message may give the op by: its own and its aliases', and for a copying
    form (view_copy, view_as, native_layer_norm) the op it copies or calls."""
    names = {op.name.rsplit(".", 1)[-1].strip("_")}
    names |= {a.name.rsplit(".", 1)[-1] for a in op.aliases}
    for name in list(names):
        names.add(name.removesuffix("_copy").removesuffix("_as").removeprefix("native_"))
    return names


def _check(fn: Callable, args: tuple, kwargs: dict, error_type: type, names: set) -> str | None:
    """None if fn(*args, **kwargs) fails as it should, else what is wrong."""
    try:
        fn(*args, **kwargs)
    except Exception as error:  # noqa: BLE001  (any type: compared with PyTorch's below)
        message = f"{type(error).__name__}: {str(error)[:200]}"
        if not isinstance(error, error_type):
            return f"raised {message}; PyTorch raises {error_type.__name__}"
        where = traceback.extract_tb(error.__traceback__)[-1].filename
        if f"{os.sep}numpy{os.sep}" in where or f"{os.sep}cupy{os.sep}" in where:
            return f"raised from inside NumPy ({where}): {message}"
        if not any(name in str(error) for name in names):
            return f"the message does not name the op ({' or '.join(sorted(names))}): {message}"
        return None
    return f"no error; PyTorch raises {error_type.__name__}"


def op_entries() -> list:
    """One pytest param per OpInfo that has error inputs (skipped with the reason where
    microtorch lacks the op)."""
    params = []
    for op in op_db:
        if op.error_inputs_func is None:
            continue
        ident = f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name
        reason = SKIPPED_OPS.get(op.name) or disabled_by_pytorch(op)
        if reason is None and resolve(op) is None:
            reason = "not in microtorch"
        marks = [pytest.mark.skip(reason=reason)] if reason else []
        params.append(pytest.param(op, id=ident, marks=marks))
    return params


def run_op(op: Any, counts: collections.Counter) -> list:
    """The problems of every error input of one OpInfo (counting them in ``counts``)."""
    fn = resolve(op)
    problems = []
    for index, error_input in enumerate(op.error_inputs("cpu")):
        sample = error_input.sample_input
        key = (op.name, op.variant_test_name, index)
        if key in DIFFERENT:
            counts["different (DIFFERENT)"] += 1
            continue
        try:
            memo: dict = {}
            args = (to_microtorch(sample.input, memo), *to_microtorch(sample.args, memo))
            kwargs = to_microtorch(sample.kwargs, memo)
        except Unconvertible as why:
            counts[f"skipped: {why}"] += 1
            continue
        counts["checked"] += 1
        problem = _check(fn, args, kwargs, error_input.error_type, _names(op))
        if problem is None:
            counts["matched"] += 1
        else:
            problems.append(f"{op.name} error input {index}: {problem}")
    return problems


@pytest.mark.parametrize("op", op_entries())
def test_op_error_inputs_fail_as_in_pytorch(op: Any) -> None:
    problems = run_op(op, collections.Counter())
    assert not problems, "\n".join(problems)


def module_entries() -> list:
    """One pytest param per ModuleInfo with error inputs."""
    params = []
    for info in module_db:
        if info.module_error_inputs_func is None:
            continue
        name = info.module_cls.__name__
        marks = []
        if not hasattr(microtorch.nn, name):
            reason = EXERCISE if "MaxPool" in name else "not in microtorch"
            marks = [pytest.mark.skip(reason=reason)]
        params.append(pytest.param(info, id=name, marks=marks))
    return params


def run_module(info: Any, counts: collections.Counter) -> list:
    """The problems of every error input of one ModuleInfo."""
    cls = getattr(microtorch.nn, info.module_cls.__name__)
    names = {info.module_cls.__name__}
    problems = []
    error_inputs = info.module_error_inputs_func(
        info, device="cpu", dtype=torch.float32, requires_grad=False, training=True
    )
    for index, error_input in enumerate(error_inputs):
        module_input = error_input.module_error_input
        try:
            memo: dict = {}
            build = module_input.constructor_input
            build_args = to_microtorch(build.args, memo)
            build_kwargs = to_microtorch(build.kwargs, memo)
            forward = module_input.forward_input
            forward_args = to_microtorch(forward.args, memo) if forward else ()
            forward_kwargs = to_microtorch(forward.kwargs, memo) if forward else {}
        except Unconvertible as why:
            counts[f"skipped: {why}"] += 1
            continue
        counts["checked"] += 1
        if error_input.error_on == ModuleErrorEnum.CONSTRUCTION_ERROR:
            problem = _check(cls, build_args, build_kwargs, error_input.error_type, names)
        else:
            module = cls(*build_args, **build_kwargs)
            names = names | {MODULE_FUNCTIONS.get(info.module_cls.__name__, "")} - {""}
            problem = _check(module, forward_args, forward_kwargs, error_input.error_type, names)
        if problem is None:
            counts["matched"] += 1
        else:
            problems.append(f"{info.module_cls.__name__} error input {index}: {problem}")
    return problems


# the function a module's forward calls, whose name its errors may give
MODULE_FUNCTIONS = {
    "BatchNorm1d": "batch_norm", "BatchNorm2d": "batch_norm", "BatchNorm3d": "batch_norm",
    "MultiMarginLoss": "multi_margin_loss", "NLLLoss": "nll_loss", "HuberLoss": "huber_loss",
    "CrossEntropyLoss": "cross_entropy", "GroupNorm": "group_norm", "Embedding": "embedding",
    "CircularPad1d": "pad", "CircularPad2d": "pad", "CircularPad3d": "pad",
}  # fmt: skip


@pytest.mark.parametrize("info", module_entries())
def test_module_error_inputs_fail_as_in_pytorch(info: Any) -> None:
    problems = run_module(info, collections.Counter())
    assert not problems, "\n".join(problems)


if __name__ == "__main__":  # the counts for a report: python tests/test_opinfo_errors_torch.py
    totals: collections.Counter = collections.Counter()
    skipped: collections.Counter = collections.Counter()
    found = []
    for param in op_entries():
        (op,) = param.values
        if param.marks:
            count = len(list(op.error_inputs("cpu")))
            skipped[param.marks[0].kwargs["reason"]] += count
            continue
        found += run_op(op, totals)
    print("ops:", dict(totals))
    for param in module_entries():
        (info,) = param.values
        if param.marks:
            count = len(list(info.module_error_inputs_func(
                info, device="cpu", dtype=torch.float32, requires_grad=False, training=True
            )))  # fmt: skip
            skipped[f"module: {param.marks[0].kwargs['reason']}"] += count
            continue
        found += run_module(info, totals)
    print("\n".join(found))
    print("ops and modules:", dict(totals))
    for reason, count in skipped.most_common():
        print(f"{count:4d} skipped: {reason}")
