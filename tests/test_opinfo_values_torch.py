"""PyTorch's own OpInfo samples, run through microtorch: forward values, dtypes and shapes.

PyTorch's test suite describes each op in ``op_db`` (an OpInfo per op: its sample inputs,
its function / method / in-place variants, aliases and supported dtypes). For every OpInfo
whose name microtorch has, each sample is converted to microtorch (tensors with the same
values, dtype, shape and strides; nested lists and tuples; dtypes, devices, sizes) and run
through the matching microtorch function, Tensor method and in-place method; the result
must equal PyTorch's: the values (exactly for integers and bools, within a per-dtype
tolerance for floats), the dtype and the shape; an in-place variant must return its input,
modified.

By default the first ``SAMPLES_PER_OP`` samples of each op and dtype run (bounded for CI);
``MICROTORCH_OPINFO_ALL=1`` runs every sample. Gradients and error inputs are other files'
business (test_opinfo_grads_torch.py, test_opinfo_errors_torch.py).

Ops and variants microtorch leaves out deliberately skip with the reason (``LEFT_OUT``);
variants it answers differently on purpose are listed in ``SKIPS``, samples it refuses on
purpose in ``REFUSED``; ops whose float16 rounding differs from PyTorch's CPU kernels are
listed in ``FLOAT16_DIFFERENCES`` and float32/float64 last-digit differences in
``PRECISION`` (expected differences, compared by shape and dtype: precision is followed
elsewhere); mismatches found but not fixed yet are non-strict xfails (``NOT_FIXED_YET``)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import microtorch

from .torch_reference import needs_torch

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")  # common_methods_invocations imports it
pytestmark = [
    needs_torch((2, 13), "OpInfo samples"),
    pytest.mark.filterwarnings("ignore"),  # (deprecations and the like, in both libraries)
]

from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

SAMPLES_PER_OP = 3
RUN_ALL = os.environ.get("MICROTORCH_OPINFO_ALL") == "1"

DTYPES = [torch.float32, torch.float64, torch.int64, torch.bool, torch.float16]
TOLERANCE = {
    torch.float16: dict(rtol=1e-3, atol=1e-5),
    torch.float32: dict(rtol=2e-5, atol=2e-5),  # (sums taken in another order)
    torch.float64: dict(rtol=1e-7, atol=1e-7),
}

# whole ops microtorch leaves out on purpose, by name prefix or exact name: the reason
LEFT_OUT_PREFIXES = {
    "fft.": "no torch.fft in microtorch",
    "signal.": "no torch.signal in microtorch",
    "masked.": "no torch.masked (masked tensors) in microtorch",
    "sparse.": "no sparse tensors",
    "jiterator_": "CUDA jiterator only",
    "torch.ops.aten.": "private ATen kernels",
    "torch._": "private ATen kernels",
    "_": "private ATen kernels",
}
LEFT_OUT = {
    "cumsum": "exercise (docs/exercises)",
    "logsumexp": "exercise (docs/exercises)",
    "logcumsumexp": "built on logsumexp, an exercise",
    "cumulative_trapezoid": "built on cumsum, an exercise",
    "nn.functional.softplus": "exercise (docs/exercises)",
    "nn.functional.rms_norm": "exercise (docs/exercises)",
    "nn.functional.max_pool1d": "exercise (docs/exercises)",
    "nn.functional.max_pool2d": "max pooling: built on the max_pool1d exercise",
    "nn.functional.max_pool3d": "max pooling: built on the max_pool1d exercise",
    "nn.functional.adaptive_max_pool1d": "adaptive max pooling: an exercise",
    "nn.functional.adaptive_max_pool2d": "adaptive max pooling: an exercise",
    "nn.functional.adaptive_max_pool3d": "adaptive max pooling: an exercise",
    "nn.functional.fractional_max_pool2d": "max pooling: built on the max_pool1d exercise",
    "nn.functional.fractional_max_pool3d": "max pooling: built on the max_pool1d exercise",
    "nn.functional.max_unpool1d": "inverse of max pooling, an exercise",
    "nn.functional.max_unpool2d": "inverse of max pooling, an exercise",
    "nn.functional.max_unpool3d": "inverse of max pooling, an exercise",
    "max_pool2d_with_indices_backward": "max pooling: built on the max_pool1d exercise",
    "complex": "no complex dtypes",
    "polar": "no complex dtypes",
    "view_as_real": "no complex dtypes",
    "view_as_complex": "no complex dtypes",
    "cfloat": "no complex dtypes",
    "cdouble": "no complex dtypes",
    "chalf": "no complex dtypes",
    "bfloat16": "no bfloat16 (NumPy has none)",
    "to_sparse": "no sparse tensors",
    "stft": "no torch.fft in microtorch",
    "istft": "no torch.fft in microtorch",
    "linalg.eig": "complex results (no complex dtypes)",
    "linalg.eigvals": "complex results (no complex dtypes)",
}

# random ops: the two libraries draw different numbers, so only shape and dtype compare
RANDOM = {
    "bernoulli", "cauchy", "exponential", "geometric", "log_normal", "multinomial", "normal",
    "uniform", "rand_like", "randn", "randn_like", "randint", "randint_like",
    "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
    "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
    "nn.functional.rrelu", "svd_lowrank", "pca_lowrank",
}  # fmt: skip
# ops whose values are uninitialised memory: only shape and dtype compare
UNINITIALISED = {
    "empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided",
}  # fmt: skip

# (op name, variant label) -> the reason microtorch answers differently on purpose
SKIPS: dict[tuple[str, str], str] = {
    ("round", "torch.special.round"): "PyTorch's special.round refuses integer tensors "
    "(torch.round takes them); microtorch's is torch.round",
    ("addbmm", "Tensor.addbmm_"): "PyTorch's addbmm_ resizes an input smaller than the "
    "product (a legacy exception); microtorch's in-place ops keep the input's shape",
}

# (op name, a fragment of microtorch's error) -> why microtorch refuses on purpose a sample
# that PyTorch accepts
REFUSED: dict[tuple[str, str], str] = {
    ("nn.functional.embedding", "sparse=True is not supported"): "no sparse tensors",
    ("nn.functional.embedding_bag", "sparse=True are not supported"): "no sparse tensors "
    "(and scale_grad_by_freq, a gradient-only option, is refused with it)",
    ("tensordot", "contracted dims must match in size"): "PyTorch broadcasts a contracted "
    "dim of size 1 against a larger one (summing it as repeated); microtorch asks equal sizes",
}

# (op name, dtype or None for all) -> a mismatch found with every sample
# (MICROTORCH_OPINFO_ALL=1) and not fixed yet: a bug to fix, run as a non-strict xfail
NOT_FIXED_YET: dict[tuple[str, torch.dtype | None], str] = {
    ("histogram", None): "a 0-d input (one value, so min == max): other bins than PyTorch's",
    ("histc", None): "one value with min == max == 0: other bins than PyTorch's",
    ("histogramdd", None): "a value on an inner bin edge lands in the other bin",
    ("cov", None): "aweights with a correction that leaves <= 0 degrees of freedom: inf "
    "where PyTorch gives a finite value",
    ("native_group_norm", None): "an empty batch (N = 0) raises in reshape",
    ("nn.functional.batch_norm", None): "PyTorch accepts a 1-D empty input (0,)",
}

# ops whose vectors are unique only up to sign (and, past the rank, a basis choice): those
# outputs are compared after canonical_signs
SIGN_FREE = {"svd", "linalg.svd", "linalg.eigh"}
# ops returning the index of each picked value: among equal values either index is right,
# so the indices are compared through the input values they pick
TIED_INDICES = {"sort": 1, "argsort": None, "topk": 1, "kthvalue": 1, "mode": 1}

# ops whose float16 values differ from PyTorch's CPU kernels past float16's tolerance:
# PyTorch accumulates float16 sums, products and convolutions in float32 and rounds once;
# microtorch rounds otherwise. An expected difference (float16 precision is followed
# elsewhere): their float16 samples compare shapes and dtypes only.
FLOAT16_DIFFERENCES = {
    "addbmm", "addr", "linalg.multi_dot", "linalg.vecdot", "linspace", "logspace",
    "log_softmax", "matrix_exp", "mvlgamma", "nanmean", "nansum", "native_batch_norm",
    "native_group_norm", "native_layer_norm", "nn.functional.adaptive_avg_pool2d",
    "nn.functional.adaptive_avg_pool3d", "nn.functional.batch_norm", "nn.functional.bilinear",
    "nn.functional.binary_cross_entropy", "nn.functional.conv1d", "nn.functional.conv2d",
    "nn.functional.conv3d", "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d",
    "nn.functional.conv_transpose3d", "nn.functional.grid_sample", "nn.functional.group_norm",
    "nn.functional.huber_loss", "nn.functional.instance_norm", "nn.functional.interpolate",
    "nn.functional.nll_loss", "special.ndtr", "sum", "sum_to_size", "renorm",
    "nn.functional.cross_entropy", "nn.functional.embedding_bag",
}  # fmt: skip
# (op name, dtype) whose float32 / float64 values differ from PyTorch's past the tolerance
# in the last digits: other algorithms (precision is followed elsewhere); shapes and dtypes
# still compare
PRECISION = {
    ("polygamma", torch.float32): "polygamma(n >= 1) near the poles of negative x: 2e-5 apart",
    ("special.bessel_j0", torch.float64): "near the zeros of J0: 2e-7 absolute",
    ("special.bessel_j1", torch.float64): "near the zeros of J1: 3e-7 absolute",
    ("special.bessel_y0", torch.float64): "near the zeros of Y0 (as J0, Y1)",
    ("special.bessel_y1", torch.float64): "near the zeros of Y1: 3e-7 absolute",
    ("nn.functional.conv3d", torch.float32): "64-term sums in another order: 5e-5 absolute",
    ("special.hermite_polynomial_he", torch.float32): "large degrees: the recurrence's rounding",
    ("cov", torch.float64): "with float32 aweights PyTorch takes the correction's weighted "
    "count in float32; microtorch in the result's float64",
}


def left_out(name: str) -> str | None:
    """Why microtorch leaves the op ``name`` out, or None when it has it."""
    if name in LEFT_OUT:
        return LEFT_OUT[name]
    for prefix, reason in LEFT_OUT_PREFIXES.items():
        if name.startswith(prefix):
            return reason
    return None


def mt_dtype(dtype: torch.dtype) -> microtorch.dtype:
    """microtorch's dtype of the same name as ``dtype``."""
    return getattr(microtorch, str(dtype).rsplit(".", 1)[-1])


def mt_tensor(t: torch.Tensor) -> microtorch.Tensor:
    """A microtorch copy of ``t``: the same values, dtype, shape and strides (views of a
    storage become views of a copy of that storage)."""
    t = t.detach()
    if t.is_contiguous() or t.numel() == 0:
        return microtorch.from_numpy(t.contiguous().numpy().copy())
    size = t.untyped_storage().nbytes() // t.element_size()
    storage = torch.empty(0, dtype=t.dtype).set_(t.untyped_storage(), 0, (size,), (1,))
    flat = storage.numpy().copy()
    view = np.lib.stride_tricks.as_strided(
        flat[t.storage_offset() :],
        shape=tuple(t.shape),
        strides=tuple(s * t.element_size() for s in t.stride()),
    )
    return microtorch.from_numpy(view)


def to_mt(obj: object) -> object:
    """``obj`` (a sample's input, argument or keyword value) in microtorch's terms."""
    if isinstance(obj, torch.Tensor):
        return mt_tensor(obj)
    if isinstance(obj, torch.dtype):
        return mt_dtype(obj)
    if isinstance(obj, torch.Size):
        return microtorch.Size(obj)
    if isinstance(obj, torch.device):
        return microtorch.device(str(obj))
    if isinstance(obj, torch.memory_format):
        return getattr(microtorch, str(obj).rsplit(".", 1)[-1])
    if isinstance(obj, torch.nn.PairwiseDistance):  # triplet_margin_with_distance_loss's
        return microtorch.nn.PairwiseDistance(p=obj.norm, eps=obj.eps, keepdim=obj.keepdim)
    if isinstance(obj, torch.layout):
        return getattr(microtorch, str(obj).rsplit(".", 1)[-1])
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return tuple(to_mt(x) for x in obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_mt(x) for x in obj)
    if isinstance(obj, dict):
        return {k: to_mt(v) for k, v in obj.items()}
    return obj


def torch_copy(obj: object) -> object:
    """``obj`` with each PyTorch tensor in it cloned (its strides kept where dense)."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().clone()
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(torch_copy(x) for x in obj)
    if isinstance(obj, dict):
        return {k: torch_copy(v) for k, v in obj.items()}
    return obj


def compare(ours: object, theirs: object, where: str) -> None:
    """Assert that microtorch's result ``ours`` equals PyTorch's ``theirs``."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, microtorch.Tensor), f"{where}: got {type(ours).__name__}"
        assert tuple(ours.shape) == tuple(theirs.shape), (
            f"{where}: shape {tuple(ours.shape)} vs {tuple(theirs.shape)}"
        )
        assert ours.dtype == mt_dtype(theirs.dtype), (
            f"{where}: dtype {ours.dtype} vs {theirs.dtype}"
        )
        got = torch.from_numpy(np.array(ours.detach().cpu().numpy(), order="C"))
        want = theirs.detach().contiguous()
        tol = TOLERANCE.get(theirs.dtype, dict(rtol=0, atol=0))
        torch.testing.assert_close(got, want, equal_nan=True, msg=lambda m: f"{where}: {m}", **tol)
    elif isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)), f"{where}: got {type(ours).__name__}"
        assert len(ours) == len(theirs), f"{where}: {len(ours)} outputs vs {len(theirs)}"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            compare(o, t, f"{where}[{i}]")
    elif isinstance(theirs, float):
        assert isinstance(ours, (float, int)), f"{where}: got {type(ours).__name__}"
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6, err_msg=where)
    else:
        assert type(ours) is type(theirs), f"{where}: got {type(ours).__name__}"
        assert ours == theirs, f"{where}: {ours!r} vs {theirs!r}"


def canonical_signs(name: str, outputs: tuple) -> tuple:
    """svd's (U, S, V), linalg.svd's (U, S, Vh) or eigh's (L, Q) with each singular or
    eigen vector's sign fixed (its largest entry positive) and only the first k = len(S)
    vectors of U and V kept (past the rank they are any orthonormal completion)."""

    def signs(columns: torch.Tensor) -> torch.Tensor:  # +-1 per column of (..., n, k)
        picked = columns.gather(-2, columns.abs().argmax(-2, keepdim=True))
        return torch.where(picked < 0, -1.0, 1.0).to(columns.dtype)

    if name == "linalg.eigh":
        values, vectors = outputs
        return values, (vectors * signs(vectors) if vectors.numel() else vectors)
    u, s, v = outputs
    k = s.shape[-1]
    v = v.mT if name == "linalg.svd" else v
    u, v = u[..., :k], v[..., :k]
    if u.numel() == 0 or v.numel() == 0:
        return u, s, v
    flip = signs(u)
    return u * flip, s, v * flip


def compare_picked(ours: object, theirs: torch.Tensor, input: torch.Tensor, op: str,
                   sample: object, where: str) -> None:  # fmt: skip
    """Indices from sort/argsort/topk/kthvalue/mode compared by the input values they pick
    (which of several equal values is taken is not specified)."""
    dim, keepdim = _index_dim(op, sample)
    got = torch.from_numpy(np.array(ours.numpy(), order="C"))
    assert got.dtype == theirs.dtype and got.shape == theirs.shape, f"{where}: indices"
    if input.ndim == 0:
        torch.testing.assert_close(got, theirs, msg=lambda m: f"{where}: {m}")
        return
    if not keepdim:
        got, theirs = got.unsqueeze(dim), theirs.unsqueeze(dim)
    torch.testing.assert_close(
        input.take_along_dim(got, dim), input.take_along_dim(theirs, dim), equal_nan=True,
        rtol=0, atol=0, msg=lambda m: f"{where}: the values picked: {m}",
    )  # fmt: skip


def _index_dim(op: str, sample: object) -> tuple[int, bool]:
    """(dim, keepdim) of a sort/argsort/topk/kthvalue/mode sample (keepdim True where the
    indices keep the dim's place)."""
    args, kwargs = list(sample.args), sample.kwargs
    if op in ("sort", "argsort"):
        ints = [a for a in args if isinstance(a, int) and not isinstance(a, bool)]
        return kwargs.get("dim", ints[0] if ints else -1), True
    if op == "topk":
        return kwargs.get("dim", args[1] if len(args) > 1 else -1), True
    at = 1 if op == "kthvalue" else 0  # kthvalue(k, dim, keepdim), mode(dim, keepdim)
    dim = kwargs.get("dim", args[at] if len(args) > at else -1)
    return dim, kwargs.get("keepdim", args[at + 1] if len(args) > at + 1 else False)


def compare_meta(ours: object, theirs: object, where: str) -> None:
    """Assert that ``ours`` has the shapes and dtypes of ``theirs`` (values not compared)."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, microtorch.Tensor), f"{where}: got {type(ours).__name__}"
        assert tuple(ours.shape) == tuple(theirs.shape), f"{where}: shape"
        assert ours.dtype == mt_dtype(theirs.dtype), f"{where}: dtype {ours.dtype}"
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs), f"{where}: {len(ours)} outputs vs {len(theirs)}"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            compare_meta(o, t, f"{where}[{i}]")


def resolve(name: str) -> object | None:
    """microtorch's function at the dotted path ``name`` (``nn.functional.relu``...)."""
    obj: object = microtorch
    for part in name.removeprefix("torch.").split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


# PyTorch's lambdas that call torch functions, written with microtorch's
LAMBDA_FORMS = {
    ("einsum", ""): lambda tensors, equation: microtorch.einsum(equation, tensors),
    ("nn.functional.embedding", ""): lambda weight, idx, **kwargs: (
        microtorch.nn.functional.embedding(idx, weight, **kwargs)
    ),
    ("nn.functional.embedding_bag", ""): lambda weight, idx, **kwargs: (
        microtorch.nn.functional.embedding_bag(idx, weight, **kwargs)
    ),
    ("linalg.pinv", "singular"): lambda a, b: microtorch.linalg.pinv(a @ b.mT),
    ("linalg.lstsq", "grad_oriented"): lambda a, b, driver: microtorch.linalg.lstsq(
        a, b, driver=driver
    )[:2],
    ("special.polygamma", "special_polygamma_n_0"): lambda x, n, **kwargs: (
        microtorch.special.polygamma(n, x, **kwargs)
    ),
}


def variants(op: object) -> list[tuple[str, object, bool]]:
    """(label, callable taking the microtorch input first, in-place?) for each variant of
    ``op`` and of its aliases that microtorch has."""
    found = []
    for entry in [op, *op.aliases]:
        fn = entry.op
        if getattr(fn, "__name__", "") == "<lambda>":
            # PyTorch writes some ops as lambdas; those that call only Tensor methods run
            # unchanged on microtorch tensors
            if (
                "torch" not in fn.__code__.co_names
                and "wrapper_set_seed" not in fn.__code__.co_names
            ):
                found.append((f"{entry.name} (lambda)", fn, False))
            elif (entry.name, op.variant_test_name) in LAMBDA_FORMS:
                ours = LAMBDA_FORMS[entry.name, op.variant_test_name]
                found.append((f"{entry.name} (lambda)", ours, False))
        else:
            ours = resolve(entry.name)
            if ours is not None:
                found.append((f"torch.{entry.name}", ours, False))
        for attr, inplace in (("method_variant", False), ("inplace_variant", True)):
            torch_method = getattr(entry, attr)
            method = getattr(torch_method, "__name__", "<lambda>")
            if torch_method is None or method == "<lambda>":
                continue
            if hasattr(microtorch.Tensor, method):
                found.append((f"Tensor.{method}", _method_caller(method), inplace))
    return found


def _method_caller(name: str) -> object:
    def call(x: microtorch.Tensor, *args: object, **kwargs: object) -> object:
        return getattr(x, name)(*args, **kwargs)

    return call


def torch_variant(op: object, label: str) -> object:
    """PyTorch's callable for the variant ``label`` of ``op``."""
    for entry in [op, *op.aliases]:
        if label in (f"torch.{entry.name}", f"{entry.name} (lambda)"):
            return entry.op
        for attr in ("method_variant", "inplace_variant"):
            fn = getattr(entry, attr)
            if fn is not None and label == f"Tensor.{getattr(fn, '__name__', '')}":
                return fn
    raise KeyError(label)


REFUSALS = (RuntimeError, ValueError, TypeError, IndexError, NotImplementedError)


def run_sample(op: object, label: str, ours_fn: object, inplace: bool, sample: object,
               dtype: torch.dtype) -> None:  # fmt: skip
    """Run one sample of ``dtype`` through microtorch's variant and PyTorch's and compare."""
    key = (op.name, op.variant_test_name)
    ours_in = to_mt(sample.input)
    ours_args = to_mt(list(sample.args))
    ours_kwargs = to_mt(dict(sample.kwargs))
    theirs_fn = torch_variant(op, label)
    theirs_in = torch_copy(sample.input)  # an in-place variant must not change the sample
    try:
        theirs = theirs_fn(theirs_in, *torch_copy(sample.args), **torch_copy(sample.kwargs))
    except Exception:  # PyTorch refuses this sample for this variant: so must microtorch
        with pytest.raises(REFUSALS):  # (which error type: test_opinfo_errors_torch.py)
            ours_fn(ours_in, *ours_args, **ours_kwargs)
        return
    try:
        ours = ours_fn(ours_in, *ours_args, **ours_kwargs)
    except Exception as exc:
        if any(name == op.name and fragment in str(exc) for name, fragment in REFUSED):
            return  # a refusal listed in REFUSED
        raise
    where = f"{label} [{key[1] or 'default'}] {sample.summary()}"
    rounded_otherwise = dtype is torch.float16 and op.name in FLOAT16_DIFFERENCES
    if op.name in RANDOM or op.name in UNINITIALISED or rounded_otherwise:
        compare_meta(ours, theirs, where)
        return
    if (op.name, dtype) in PRECISION:
        compare_meta(ours, theirs, where)
        return
    if op.name in SIGN_FREE:
        compare_meta(ours, theirs, where)
        ours = [torch.from_numpy(np.array(o.numpy(), order="C")) for o in ours]
        ours, theirs = canonical_signs(op.name, ours), canonical_signs(op.name, theirs)
        ours = [to_mt(o) for o in ours]
    if op.name in TIED_INDICES:
        at = TIED_INDICES[op.name]
        ours_idx, theirs_idx = (ours, theirs) if at is None else (ours[at], theirs[at])
        compare_picked(ours_idx, theirs_idx, sample.input, op.name, sample, where)
        if at is None:
            return
        ours, theirs = (
            [o for i, o in enumerate(ours) if i != at],
            [t for i, t in enumerate(theirs) if i != at],
        )
    compare(ours, theirs, where)
    if inplace:
        assert ours is ours_in, f"{where}: the in-place variant did not return its input"
        compare(ours_in, theirs_in, f"{where} (the modified input)")


def _cases() -> list:
    params = []
    for op in op_db:
        key = (op.name, op.variant_test_name)
        reason = left_out(op.name)
        ident = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
        if reason is None and key in SKIPS:
            reason = SKIPS[key]
        if reason is None and not variants(op):
            reason = "microtorch has no such function or method"
        for dtype in DTYPES:
            marks = []
            if reason is not None:
                marks = [pytest.mark.skip(reason=reason)]
            elif dtype not in op.supported_dtypes("cpu"):
                continue
            known = NOT_FIXED_YET.get((op.name, None)) or NOT_FIXED_YET.get((op.name, dtype))
            if known is not None:
                marks = [pytest.mark.xfail(reason=f"not fixed yet: {known}", strict=False)]
            params.append(pytest.param(op, dtype, id=f"{ident}-{str(dtype)[6:]}", marks=marks))
    return params


def samples_of(op: object, dtype: torch.dtype) -> object:
    """op's sample inputs of ``dtype`` on the CPU, drawn after seeding PyTorch's generator.
    (op.sample_inputs would wrap them in PyTorch's tracking iterator, which walks the whole
    call stack, source lines included, for every op: most of this file's time under pytest.)"""
    torch.manual_seed(0)
    return op.sample_inputs_func(op, "cpu", dtype, False)


@pytest.mark.parametrize("op, dtype", _cases())
def test_opinfo_values(op: object, dtype: torch.dtype) -> None:
    for i, sample in enumerate(samples_of(op, dtype)):
        if not RUN_ALL and i >= SAMPLES_PER_OP:
            break
        for label, ours_fn, inplace in variants(op):
            if (op.name, label) not in SKIPS:
                run_sample(op, label, ours_fn, inplace, sample, dtype)
