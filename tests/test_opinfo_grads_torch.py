"""Gradients of PyTorch's own OpInfo samples, microtorch against PyTorch.

PyTorch's test suite describes each op by an OpInfo (``op_db``) that can make sample inputs.
For every differentiable OpInfo whose name microtorch has, each sample is rebuilt in
microtorch (tensors become leaves with the same values, dtype and shape; the same tensor
twice stays one leaf), both libraries run it forward, and backward with the same random
upstream gradient for every floating output. Every input's gradient -- the sample's input
and the tensors in its args and kwargs (weight, bias, a differentiable target) -- must match
PyTorch's, including whether there is one at all, in float64 and float32.

The committed run checks the first ``SAMPLES_PER_OP`` samples of each op;
``MICROTORCH_OPINFO_ALL=1`` runs every sample (what the hunt for mismatches used).
Samples that microtorch's forward refuses are not counted here: forward values and errors
have their own tests (test_opinfo_values_torch.py)."""

from __future__ import annotations

import os
import types
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import microtorch

from .torch_reference import needs_torch

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")
pytestmark = needs_torch((2, 13), "OpInfo samples")

from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

SAMPLES_PER_OP = 4
ALL_SAMPLES = os.environ.get("MICROTORCH_OPINFO_ALL") == "1"
# relative to the largest gradient element, by the gradient's dtype
RTOL = {torch.float64: 1e-10, torch.float32: 1e-5, torch.float16: 1e-2}

# What microtorch deliberately leaves out (docs/exercises), as parts of OpInfo names: the
# exercises and the ops whose main job is one of them (max pooling of any kind, ...)
EXERCISES = ("softplus", "logsumexp", "cumsum", "max_pool", "max_unpool", "rms_norm",
             "logcumsumexp", "cumulative_trapezoid")  # fmt: skip

COMPLEX = ("complex", "cfloat", "cdouble", "chalf", "view_as_real", "polar", "stft")

# op name (or name.variant) -> why its gradients are not compared
SKIPS: dict[str, str] = {
    "bernoulli": "random: the two libraries draw different numbers",
    "normal": "random: the two libraries draw different numbers",
    "normal.number_mean": "random: the two libraries draw different numbers",
    "nn.functional.rrelu": "random: the two libraries draw different numbers",
    "nn.functional.dropout": "random: the two libraries draw different masks",
    "nn.functional.dropout2d": "random: the two libraries draw different masks",
    "nn.functional.dropout3d": "random: the two libraries draw different masks",
    "nn.functional.alpha_dropout": "random: the two libraries draw different masks",
    "nn.functional.feature_alpha_dropout.with_train": "random: different masks",
    "svd_lowrank": "random: the two libraries draw different projections",
    "pca_lowrank": "random: the two libraries draw different projections",
    "linalg.eig": "complex eigenvalues and vectors (microtorch has no complex dtypes)",
    "linalg.eigvals": "complex eigenvalues (microtorch has no complex dtypes)",
    "as_strided.partial_views": "its samples are views into a larger storage, which as_strided "
    "reads; a converted sample owns its memory",
    "as_strided_scatter": "PyTorch 2.13's input gradient fails its own gradcheck; microtorch's "
    "passes (tests/test_torch_functions.py)",
}

# op name -> (float64 rtol, why PyTorch's gradient is only that close to the exact one)
LOOSER = {
    "nn.functional.hardsigmoid": (1e-7, "PyTorch's CPU kernel scales float64 gradients by 1/6 "
                                  "rounded to float32; microtorch's are exact"),
}  # fmt: skip


def _draws_masks(op: Any, sample: Any) -> bool:
    """Whether the sample applies dropout (random masks: the two libraries draw differently)."""
    if op.name == "nn.functional.scaled_dot_product_attention":
        return sample.kwargs.get("dropout_p", 0.0) > 0
    if op.name == "nn.functional.multi_head_attention_forward":  # (dropout_p is args[9])
        return sample.kwargs.get("training", True) and sample.args[9] > 0
    return False


def _key(op: Any) -> str:
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def _lookup(root: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        root = getattr(root, part, None)
        if root is None:
            return None
    return root


def _is_test_wrapper(fn: Any) -> bool:
    """Whether fn was written in PyTorch's test suite (a lambda over the real op)."""
    return isinstance(fn, types.FunctionType) and fn.__module__.startswith("torch.testing")


def _in_microtorch(fn: Callable) -> Callable:
    """The OpInfo's own wrapper function (a lambda over torch.*) with torch meaning microtorch."""
    names = dict(fn.__globals__, torch=microtorch, F=microtorch.nn.functional)
    return types.FunctionType(fn.__code__, names, fn.__name__, fn.__defaults__, fn.__closure__)


def microtorch_op(op: Any) -> Callable | None:
    """microtorch's counterpart of the OpInfo's callable, or None where it has none."""
    if _is_test_wrapper(op.op):
        return _in_microtorch(op.op)
    if _lookup(torch, op.name) is op.op:
        found = _lookup(microtorch, op.name)
        if found is not None:
            return found
    name = getattr(op.op, "__name__", op.name)
    if getattr(torch.Tensor, name, None) is op.op:
        return getattr(microtorch.Tensor, name, None)
    return _lookup(microtorch, op.name)


def skip_reason(op: Any) -> str | None:
    """Why an OpInfo's gradients are not compared, or None."""
    if not op.supports_autograd:
        return "not differentiable"
    if any(part in op.name for part in EXERCISES):
        return "exercise for learners (docs/exercises)"
    if _key(op) in SKIPS:
        return SKIPS[_key(op)]
    if op.name.startswith("fft.") or any(part in op.name for part in COMPLEX):
        return "complex numbers (microtorch has no complex dtypes)"
    if "sparse" in op.name:
        return "sparse tensors (microtorch has none)"
    if op.name == "bfloat16":
        return "bfloat16 (NumPy has none)"
    if op.name.startswith(("masked.", "torch.ops.")) or op.name[0] == "_" != op.name[1]:
        return "namespace or private op microtorch does not have"
    if microtorch_op(op) is None:
        return "no such name in microtorch"
    return None


_DTYPES = {
    torch.float64: microtorch.float64, torch.float32: microtorch.float32,
    torch.float16: microtorch.float16, torch.int64: microtorch.int64,
    torch.int32: microtorch.int32, torch.int16: microtorch.int16, torch.int8: microtorch.int8,
    torch.uint8: microtorch.uint8, torch.bool: microtorch.bool,
}  # fmt: skip


class Unconvertible(Exception):
    """A sample holds something microtorch deliberately lacks (complex, sparse, ...)."""


def to_microtorch(value: Any, leaves: dict) -> Any:
    """The sample's value rebuilt for microtorch; each torch tensor becomes one leaf
    (``leaves`` maps id(torch tensor) -> (torch tensor, microtorch leaf))."""
    if isinstance(value, torch.Tensor):
        if id(value) in leaves:
            return leaves[id(value)][1]
        if value.is_complex() or value.layout != torch.strided or value.dtype not in _DTYPES:
            raise Unconvertible(f"a {value.dtype} {value.layout} tensor")
        array = value.detach().cpu().numpy()
        leaf = microtorch.tensor(array, requires_grad=value.requires_grad)
        leaves[id(value)] = (value, leaf)
        return leaf
    if isinstance(value, torch.dtype):
        if value not in _DTYPES:
            raise Unconvertible(str(value))
        return _DTYPES[value]
    if isinstance(value, torch.Size):
        return tuple(value)
    if isinstance(value, torch.device):
        return str(value)
    if isinstance(value, (list, tuple)):
        return type(value)(to_microtorch(v, leaves) for v in value)
    if isinstance(value, dict):
        return {k: to_microtorch(v, leaves) for k, v in value.items()}
    if isinstance(value, torch.memory_format):  # torch.channels_last -> microtorch's
        return getattr(microtorch, str(value).rsplit(".", 1)[-1])
    if isinstance(value, (torch.layout, torch.Generator)):
        raise Unconvertible(type(value).__name__)
    if isinstance(value, complex):
        raise Unconvertible("a complex number")
    return value


def flat_outputs(out: Any) -> list:
    """The tensors of an op's result, in order (tuples, lists and named tuples flattened)."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flat_outputs(o)]
    return [out] if hasattr(out, "requires_grad") else []


class Mismatch(AssertionError):
    pass


def _copied(value: Any, seen: dict, wide: bool = False) -> Any:
    """The sample's value with every tensor a fresh contiguous leaf (float64 with ``wide``),
    the same tensor twice one leaf. (Some samples hold leaves that are views, to which
    PyTorch's graph never connects, or strides that a microtorch tensor does not copy.)"""
    if isinstance(value, torch.Tensor):
        if id(value) not in seen:
            copy = value.detach().clone(memory_format=torch.contiguous_format)
            if wide and copy.is_floating_point():
                copy = copy.double()
            seen[id(value)] = copy.requires_grad_(value.requires_grad)
        return seen[id(value)]
    if isinstance(value, (list, tuple)) and not isinstance(value, torch.Size):
        return type(value)(_copied(v, seen, wide) for v in value)
    if isinstance(value, dict):
        return {k: _copied(v, seen, wide) for k, v in value.items()}
    return value


def _torch_gradients(op: Any, sample: Any, args: tuple, kwargs: dict, inputs: list,
                     grads: list, wanted: list, wide: bool = False) -> list:  # fmt: skip
    """PyTorch's gradients of ``inputs`` (None where unused) as float64 arrays; computed on
    float64 copies of args and kwargs with ``wide``."""
    if wide:
        seen: dict = {}
        args, kwargs = _copied(args, seen, wide=True), _copied(kwargs, seen, wide=True)
        inputs = [seen[id(t)] for t in inputs]
    outs = flat_outputs(sample.output_process_fn_grad(op.op(*args, **kwargs)))
    chosen = [outs[i] for i in wanted]
    upstream = [torch.tensor(g, dtype=o.dtype) for o, g in zip(chosen, grads)]
    found = torch.autograd.grad(chosen, inputs, upstream, allow_unused=True)
    return [None if g is None else _array(g) for g in found]


def _array(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor) and t._is_zerotensor():  # PyTorch's lazy all-zero gradient
        return np.zeros(tuple(t.shape))
    return t.detach().numpy().astype(np.float64)


def _largest(arrays: list) -> float:
    """The largest finite magnitude in the arrays (None entries left out), at least 1."""
    found = [np.max(np.abs(a[np.isfinite(a)]), initial=0.0) for a in arrays if a is not None]
    return max([1.0, *map(float, found)])


def _close(got: np.ndarray, expected: np.ndarray, rtol: float, scale: float) -> str | None:
    """None if got matches expected to rtol, also relative to ``scale`` (the sample's largest
    gradient: values that cancel down to ~0 keep the rounding of the terms they came from)."""
    try:
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * scale, equal_nan=True)
    except AssertionError as why:
        return str(why)
    return None


def compare_sample(op: Any, mt_fn: Callable, sample: Any, seed: int) -> str:
    """Runs one sample in both libraries and compares the gradients; returns 'matched' or
    the reason the sample was not compared, and raises Mismatch on a difference."""
    if _draws_masks(op, sample):
        return "random: dropout masks differ"
    copies: dict = {}
    args, kwargs = _copied((sample.input, *sample.args), copies), _copied(sample.kwargs, copies)
    leaves: dict = {}
    try:
        mt_args = to_microtorch(args, leaves)
        mt_kwargs = to_microtorch(kwargs, leaves)
    except Unconvertible as why:
        return f"sample holds {why}"
    process = sample.output_process_fn_grad
    torch_outs = flat_outputs(process(op.op(*args, **kwargs)))
    wanted = [i for i, t in enumerate(torch_outs) if t.requires_grad]
    inputs = [t for t, _ in leaves.values() if t.requires_grad]
    if not wanted or not inputs:
        return "no output with a gradient"
    try:
        mt_out = mt_fn(*mt_args, **mt_kwargs)
        if _is_test_wrapper(process):
            mt_out = _in_microtorch(process)(mt_out)
    except Exception as why:  # forward refusals belong to the values/errors tests
        return f"microtorch forward raises {type(why).__name__}"
    mt_outs = flat_outputs(mt_out)
    if len(mt_outs) != len(torch_outs):
        raise Mismatch(f"{len(mt_outs)} outputs, PyTorch has {len(torch_outs)}")
    rng = np.random.default_rng(seed)
    for i in list(wanted):
        if tuple(mt_outs[i].shape) != tuple(torch_outs[i].shape):
            raise Mismatch(f"output {i} shape {tuple(mt_outs[i].shape)} vs {torch_outs[i].shape}")
        if not mt_outs[i].requires_grad:
            # fine where PyTorch's flag is all there is (native_group_norm's mean and rstd:
            # their gradient is dropped); a mismatch where a gradient flows through it
            alone = torch.autograd.grad(
                torch_outs[i],
                inputs,
                torch.tensor(rng.standard_normal(tuple(torch_outs[i].shape))).to(torch_outs[i]),
                allow_unused=True,
                retain_graph=True,
            )
            if any(g is not None and _array(g).any() for g in alone):
                raise Mismatch(f"output {i} does not require grad; PyTorch's passes gradients")
            wanted.remove(i)
    if not wanted:
        return "no output with a gradient"
    grads = [rng.standard_normal(tuple(torch_outs[i].shape)) for i in wanted]
    try:
        expected = _torch_gradients(op, sample, args, kwargs, inputs, grads, wanted)
    except RuntimeError as why:  # (clamp's backward with input broadcast by min and max)
        return f"PyTorch's backward raises {type(why).__name__}"
    upstream = [microtorch.tensor(g, dtype=mt_outs[i].dtype) for i, g in zip(wanted, grads)]
    try:
        microtorch.autograd.backward([mt_outs[i] for i in wanted], upstream)
    except Exception as why:
        raise Mismatch(f"microtorch backward raises {type(why).__name__}: {why}") from why
    ours = {id(t): leaf for t, leaf in leaves.values()}
    wide = None  # PyTorch's gradients of the float64 copies, computed where float32 differs
    for n, (t, theirs) in enumerate(zip(inputs, expected)):
        got = ours[id(t)].grad
        if (got is None) != (theirs is None) and t.numel():  # (empty: no values either way)
            raise Mismatch(f"input {n}: gradient {got!r:.60} vs PyTorch's {theirs!r:.60}")
        if got is None or theirs is None:
            continue
        if tuple(got.shape) != theirs.shape:
            raise Mismatch(f"input {n}: gradient shape {tuple(got.shape)} vs {theirs.shape}")
        if got.dtype.name != str(t.dtype).rsplit(".", 1)[-1]:
            raise Mismatch(f"input {n}: gradient dtype {got.dtype}, the input is {t.dtype}")
        mine = got.numpy().astype(np.float64)
        rtol = RTOL[t.dtype] if t.dtype != torch.float64 else LOOSER.get(op.name, (1e-10,))[0]
        differs = _close(mine, theirs, rtol, _largest(expected))
        if differs and t.dtype != torch.float64:
            # float32 rounding: each element good enough where close to PyTorch's, or no
            # farther from the float64 answer than PyTorch's own float32 gradient is
            if wide is None:
                wide = _torch_gradients(op, sample, args, kwargs, inputs, grads, wanted, True)
            near = np.abs(mine - theirs) <= rtol * (np.abs(theirs) + _largest(expected))
            slack = np.abs(theirs - wide[n]) + rtol * np.abs(wide[n])
            same_nan = np.isnan(mine) & np.isnan(theirs)
            if np.all(near | (np.abs(mine - wide[n]) <= slack) | same_nan):
                differs = None
        if differs:
            raise Mismatch(f"input {n} (shape {theirs.shape}): {differs}")
    return "matched"


def _cases() -> list:
    cases = []
    for op in op_db:
        reason = skip_reason(op)
        for dtype in (torch.float64, torch.float32):
            marks = [pytest.mark.skip(reason=reason)] if reason else []
            if not reason and dtype not in op.supported_backward_dtypes("cpu"):
                marks = [pytest.mark.skip(reason=f"PyTorch has no {dtype} gradient")]
            name = _key(op)
            cases.append(pytest.param(op, dtype, marks=marks, id=f"{name}-{dtype}"))
    return cases


@pytest.mark.parametrize("op, dtype", _cases())
def test_opinfo_gradients_match_pytorch(op: Any, dtype: Any) -> None:
    mt_fn = microtorch_op(op)
    outcomes: dict[str, int] = {}
    samples = op.sample_inputs("cpu", dtype, requires_grad=True)
    for n, sample in enumerate(samples):
        if not ALL_SAMPLES and n >= SAMPLES_PER_OP:
            break
        torch.manual_seed(n)
        try:
            outcome = compare_sample(op, mt_fn, sample, seed=n)
        except Mismatch as why:
            raise AssertionError(
                f"{_key(op)} sample {n} ({sample.name or sample}): {why}"
            ) from None
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    if not outcomes.get("matched"):
        pytest.skip(f"no sample compared: {outcomes}")
