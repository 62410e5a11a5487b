"""Every name microtorch shares with PyTorch takes PyTorch's arguments: the same parameter
names, at the same positions, keyword-only where PyTorch's are, with the same defaults
(tests/signature_reference.py reads PyTorch's signatures and compares). The intended
differences are listed in ALLOWED with their reasons; the rest of the file calls the
functions with keywords, as users write them, and compares the results with PyTorch's."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import microtorch

torch = pytest.importorskip("torch")

from tests.signature_reference import (  # noqa: E402  (needs torch)
    differences,
    params_of_signature,
    torch_overloads,
)
from tests.torch_reference import needs_torch  # noqa: E402

# the signatures were compared with PyTorch 2.13's; an older one lacks some of its arguments
pytestmark = needs_torch((2, 13), "its signatures")

VARIABLE_FUNCTIONS = ("_C/_VariableFunctions.pyi", None)
TENSOR_METHODS = ("_C/__init__.pyi", "TensorBase")
# F's builtins are torch._C._nn's (F.gelu) or torch's own (F.conv1d is torch.conv1d)
NN_FUNCTIONAL = [("nn/functional.pyi", None), ("_C/_nn.pyi", None), VARIABLE_FUNCTIONS]


def _function_namespaces() -> list:
    """(label, microtorch namespace, PyTorch namespace, stub, methods?, ATen prefix)."""
    import torch.nn.functional
    import torch.nn.init
    import torch.nn.utils
    import torch.utils.data

    import microtorch.nn.functional
    import microtorch.nn.init
    import microtorch.nn.utils
    import microtorch.utils.data

    return [
        ("torch", microtorch, torch, VARIABLE_FUNCTIONS, False, ""),
        ("Tensor", microtorch.Tensor, torch.Tensor, TENSOR_METHODS, True, ""),
        ("F", microtorch.nn.functional, torch.nn.functional, NN_FUNCTIONAL, False, ""),
        ("linalg", microtorch.linalg, torch.linalg, None, False, "linalg_"),
        ("special", microtorch.special, torch.special, None, False, "special_"),
        ("nn.init", microtorch.nn.init, torch.nn.init, None, False, None),
        ("nn.utils", microtorch.nn.utils, torch.nn.utils, None, False, None),
        ("autograd", microtorch.autograd, torch.autograd, None, False, None),
        ("func", microtorch.func, torch.func, None, False, None),
        ("utils.data", microtorch.utils.data, torch.utils.data, None, False, None),
        *_submodules(),
    ]


# the other modules both have, compared name by name (microtorch.functional is microtorch's
# own home of torch.xxx, not torch.functional)
SUBMODULES = (
    "autograd.function", "autograd.functional", "autograd.graph", "autograd.forward_ad",
    "backends.cudnn", "backends.cuda", "backends.mps", "backends.opt_einsum", "amp",
    "cpu", "cuda", "random", "serialization", "profiler", "testing", "hub", "overrides",
    "nn.utils.rnn", "nn.utils.parametrize", "nn.utils.parametrizations", "nn.utils.prune",
    "nn.utils.stateless", "nn.utils.spectral_norm", "nn.utils.weight_norm",
    "nn.utils.clip_grad", "nn.attention", "optim.swa_utils", "utils.checkpoint",
    "utils.hooks", "utils.data.dataloader", "utils.data.sampler", "distributions.kl",
    "distributions.constraints", "distributions.transforms",
)  # fmt: skip


def _submodules() -> list:
    """(label, microtorch module, torch module, ...) for SUBMODULES both have."""
    import importlib

    found = []
    for name in SUBMODULES:
        try:
            ours = importlib.import_module(f"microtorch.{name}")
            theirs = importlib.import_module(f"torch.{name}")
        except ImportError:
            continue
        found.append((name, ours, theirs, None, False, ""))
    return found


def _class_namespaces() -> list:
    """(label, microtorch namespace, PyTorch namespace, the methods compared)."""
    import torch.distributions
    import torch.nn
    import torch.optim
    import torch.utils.data

    import microtorch.distributions
    import microtorch.nn
    import microtorch.optim
    import microtorch.utils.data

    return [
        ("nn", microtorch.nn, torch.nn, ("__init__", "forward")),
        ("optim", microtorch.optim, torch.optim, ("__init__", "step", "zero_grad")),
        ("lr_scheduler", microtorch.optim.lr_scheduler, torch.optim.lr_scheduler,
         ("__init__", "step")),
        ("utils.data", microtorch.utils.data, torch.utils.data, ("__init__",)),
        ("distributions", microtorch.distributions, torch.distributions, ("__init__",)),
        *((label, ours, theirs, ("__init__",)) for label, ours, theirs, *_ in _submodules()),
    ]  # fmt: skip


def _signature(obj) -> inspect.Signature | None:
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


def _defined_in(obj, module) -> bool:
    """Is obj a function of this module (not one imported into it)?"""
    all_names = getattr(module, "__all__", ())
    return getattr(obj, "__module__", None) == module.__name__ or obj.__name__ in all_names


def _method(cls, name: str):
    """A class's function (plain, class- or static method) named ``name``, else None."""
    try:
        value = getattr(cls, name)
    except Exception:  # (a descriptor that needs an instance)
        return None
    if inspect.isclass(value) or not callable(value) or isinstance(value, property):
        return None
    return value if hasattr(value, "__qualname__") else None


def _all_differences() -> tuple[int, dict]:
    """(how many callables were compared, {qualified name: [differences]})."""
    checked, found = 0, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, ours_ns, ref_ns, stub, method, prefix in _function_namespaces():
            for name in sorted(dir(ours_ns)):
                ours, ref = getattr(ours_ns, name, None), getattr(ref_ns, name, None)
                if name.startswith("_") or not callable(ours) or not callable(ref):
                    continue
                if inspect.isclass(ours) or inspect.isclass(ref):
                    continue
                if label in SUBMODULES and not _defined_in(ref, ref_ns):
                    continue  # (torch.utils.data.dataset's randperm is torch.randperm)
                signature = _signature(ours)
                overloads = torch_overloads(ref, name, stub, method, prefix)
                if signature is None or not overloads:
                    continue
                checked += 1
                diff = differences(overloads, params_of_signature(signature, drop_self=method))
                if diff:
                    found[f"{label}.{name}"] = diff
        seen = set()  # (PyTorch's method, microtorch's): an inherited one is compared once
        for label, ours_ns, ref_ns, methods in _class_namespaces():
            for name in sorted(dir(ours_ns)):
                ours, ref = getattr(ours_ns, name, None), getattr(ref_ns, name, None)
                if name.startswith("_") or not (inspect.isclass(ours) and inspect.isclass(ref)):
                    continue
                public = [m for m in sorted(dir(ref)) if not m.startswith("_")]
                for meth in [*methods, *(m for m in public if m not in methods)]:
                    ours_m, ref_m = _method(ours, meth), _method(ref, meth)
                    if ours_m is None or ref_m is None or ours_m is getattr(object, meth, None):
                        continue
                    qualified = f"{label}.{name}.{meth}"
                    if meth not in methods:  # (named by the class that defines it)
                        qualified = f"{label}.{ref_m.__qualname__}"
                        if (ref_m, ours_m) in seen:
                            continue
                        seen.add((ref_m, ours_m))
                    mine, theirs = _signature(ours_m), _signature(ref_m)
                    if mine is None or theirs is None:
                        continue
                    reference = params_of_signature(theirs, drop_self=True)
                    if all(p.kind in ("*args", "**kwargs") for p in reference):
                        continue  # PyTorch's (*args, **kwargs): nothing named to compare
                    checked += 1
                    diff = differences([reference], params_of_signature(mine, drop_self=True))
                    if diff:
                        found[qualified] = diff
    return checked, found


# ---------------------------------------------------------------- intended differences
# {qualified name: the differences allowed there}, grouped by why.
_NOT_POSITION_1 = (
    "'sections' is not positional argument 1",
    "'indices' is not positional argument 1",
)
_NOT_POSITION_0 = (
    "'sections' is not positional argument 0",
    "'indices' is not positional argument 0",
)
_UNBIASED_1 = (
    "'unbiased' defaults to None (PyTorch: True)",
    "'unbiased' is not positional argument 1",
)
_UNBIASED_0 = (
    "'unbiased' defaults to None (PyTorch: True)",
    "'unbiased' is not positional argument 0",
)
_REDUCTION = ("'reduction' defaults to 0 (PyTorch: 1)",)
ALLOWED: dict[str, tuple[str, ...]] = {
    # One positional slot, several PyTorch overloads told apart by the argument's type or
    # count, which microtorch tells apart the same way: arange(5) is arange(end=5),
    # randint(10, (3,)) is randint(high=10, size=(3,)), std(x, False) is unbiased=False,
    # scatter(x, 0, i, 1.5) is value=1.5, hsplit(x, 2) is sections=2, random_(5) is to=5.
    "torch.arange": ("'end' is not positional argument 0",),
    "torch.randint": ("'high' is not positional argument 0", "'size' is not positional argument 1"),
    "torch.randint_like": ("'high' is not positional argument 1",),
    "torch.repeat_interleave": ("'repeats' is not positional argument 0",),
    "torch.scatter": ("'value' is not positional argument 3",),
    "Tensor.scatter": ("'value' is not positional argument 2",),
    "Tensor.scatter_": ("'value' is not positional argument 2",),
    "Tensor.random_": ("'to' is not positional argument 0",),
    "torch.nuclear_norm": ("'keepdim' is not positional argument 1",),
    "torch.hsplit": _NOT_POSITION_1, "torch.vsplit": _NOT_POSITION_1,
    "torch.dsplit": _NOT_POSITION_1,
    "Tensor.hsplit": _NOT_POSITION_0, "Tensor.vsplit": _NOT_POSITION_0,
    "Tensor.dsplit": _NOT_POSITION_0,
    "torch.std": _UNBIASED_1, "torch.var": _UNBIASED_1, "torch.std_mean": _UNBIASED_1,
    "torch.var_mean": _UNBIASED_1, "Tensor.std": _UNBIASED_0, "Tensor.var": _UNBIASED_0,
    "torch.view_copy": ("missing parameter 'dtype'",),  # view_copy(x, torch.int32) works
    "torch.max": ("missing parameter 'other'",),  # max(a, b), max(a, other=b) work
    "torch.min": ("missing parameter 'other'",),
    "Tensor.max": ("missing parameter 'other'",),
    "Tensor.min": ("missing parameter 'other'",),
    "torch.tensor_split": ("missing parameter 'tensor_indices_or_sections'",
                           *_NOT_POSITION_1),  # (a tensor goes positionally)
    "Tensor.tensor_split": ("missing parameter 'tensor_indices_or_sections'", *_NOT_POSITION_0),
    "torch.result_type": ("missing parameter 'scalar'", "'tensor' is not positional argument 1",
                          "missing parameter 'scalar1'", "missing parameter 'scalar2'"),
    "torch.isin": ("missing parameter 'element'", "missing parameter 'test_element'"),
    "linalg.vector_norm": ("missing parameter 'input'",),  # PyTorch takes x= and input=
    # A default written as a sentinel that means PyTorch's: None for "not given" where
    # the stub writes the value used then (dx: 1 unless x is given; roll's dims=() and
    # amax's dim=() are None's meaning too, and are accepted; avg_pool's stride: the
    # kernel size; padding=0 is 'valid'; the default generator; pickle).
    "torch.trapezoid": ("'dx' defaults to None (PyTorch: 1)",),
    "torch.trapz": ("'dx' defaults to None (PyTorch: 1)",),
    "torch.roll": ("'dims' defaults to None (PyTorch: ())",),
    "Tensor.roll": ("'dims' defaults to None (PyTorch: ())",),
    "Tensor.amax": ("'dim' defaults to None (PyTorch: ())",),
    "Tensor.amin": ("'dim' defaults to None (PyTorch: ())",),
    "torch.avg_pool1d": ("'stride' defaults to None (PyTorch: ())",),
    "torch.conv1d": ("'padding' defaults to 0 (PyTorch: 'valid')",),
    "torch.conv2d": ("'padding' defaults to 0 (PyTorch: 'valid')",),
    "torch.conv3d": ("'padding' defaults to 0 (PyTorch: 'valid')",),
    "F.avg_pool1d": ("'stride' defaults to None (PyTorch: ())",),  # (F's are torch's)
    "F.conv1d": ("'padding' defaults to 0 (PyTorch: 'valid')",),
    "F.conv2d": ("'padding' defaults to 0 (PyTorch: 'valid')",),
    "F.conv3d": ("'padding' defaults to 0 (PyTorch: 'valid')",),
    "utils.data.random_split": ("'generator' defaults to None (PyTorch: 'Generator()')",),
    "torch.save": ("'pickle_module' defaults to None (PyTorch: 'pickle')",),
    "serialization.save": ("'pickle_module' defaults to None (PyTorch: 'pickle')",),
    # PyTorch's stub says more than its parser takes: reduction's written default is Mean
    # (1), but torch.kl_div(x, y) and the others return per-element losses (0); tensor()
    # takes dtype= etc. by keyword only; linspace needs steps; rsub/subtract take alpha by
    # keyword only; Tensor methods take no out=, nor requires_grad_(mode=).
    "torch.binary_cross_entropy_with_logits": _REDUCTION,
    "torch.cosine_embedding_loss": _REDUCTION, "torch.ctc_loss": _REDUCTION,
    "torch.hinge_embedding_loss": _REDUCTION, "torch.kl_div": _REDUCTION,
    "torch.margin_ranking_loss": _REDUCTION, "torch.triplet_margin_loss": _REDUCTION,
    "torch.tensor": ("'pin_memory' is not positional argument 1",),
    "torch.linspace": ("'steps' has no default (PyTorch: None)",),
    "torch.logspace": ("'steps' has no default (PyTorch: None)",),
    "torch.rsub": ("'alpha' is not positional argument 2",),
    "torch.subtract": ("'alpha' is not positional argument 2",),
    "Tensor.subtract": ("'alpha' is not positional argument 1",),
    "Tensor.subtract_": ("'alpha' is not positional argument 1",),
    "Tensor.add": ("missing keyword 'out'",), "Tensor.sub": ("missing keyword 'out'",),
    "Tensor.mul": ("missing keyword 'out'",), "Tensor.true_divide": ("missing keyword 'out'",),
    "Tensor.floor_divide": ("missing keyword 'out'",),
    "Tensor.requires_grad_": ("missing parameter 'mode'",),
    "Tensor.new_tensor": ("missing parameter 'pin_memory'",),  # (its parser refuses it)
    "torch.unique_consecutive": ("missing keyword 'out'",),  # (ATen's; not its Python's)
    # PyTorch takes no keywords there at all (METH_O builtins): names cannot matter.
    "torch.from_numpy": ("missing parameter 'ndarray'",),
    "torch.set_num_threads": ("missing parameter 'num'",),
    "torch.set_num_interop_threads": ("missing parameter 'num'",),
    # Features microtorch does not have: named tensors (names=), mixed-precision matmul
    # (out_dtype=, CUDA-only in PyTorch), native_batch_norm's out= triple, torch.compile's
    # graph tuning (it runs eagerly).
    "torch.full": ("missing keyword 'names'",),
    "torch.mm": ("missing parameter 'out_dtype'",), "torch.bmm": ("missing parameter 'out_dtype'",),
    "torch.addmm": ("missing parameter 'out_dtype'",),
    "torch.baddbmm": ("missing parameter 'out_dtype'",),
    "torch.native_batch_norm": ("missing keyword 'out'",),
    "torch.compile": ("missing keyword 'recompile_limit'", "missing keyword 'isolate_recompiles'",
                      "missing keyword 'shapes_spec'"),
    # Deprecated forms PyTorch still takes (with a warning): state_dict's destination,
    # prefix and keep_vars positionally (through *args), Hardtanh's old keywords.
    "nn.Module.state_dict": ("no *args", "'destination' is keyword-only in PyTorch",
                             "'prefix' is keyword-only in PyTorch",
                             "'keep_vars' is keyword-only in PyTorch"),
    "nn.Hardtanh.__init__": ("missing parameter 'min_value'", "missing parameter 'max_value'"),
}  # fmt: skip


@pytest.fixture(scope="module")
def compared() -> tuple[int, dict]:
    return _all_differences()


def test_every_signature_matches_pytorch_or_is_allowed(compared) -> None:
    checked, found = compared
    assert checked > 1500  # (the walk found the namespaces)
    unexpected = {
        name: [d for d in diff if d not in ALLOWED.get(name, ())] for name, diff in found.items()
    }
    unexpected = {name: diff for name, diff in unexpected.items() if diff}
    assert not unexpected, "\n".join(f"{n}: {'; '.join(d)}" for n, d in unexpected.items())


def test_the_allowed_differences_are_still_there(compared) -> None:
    """An entry that no longer differs (fixed, or PyTorch changed) leaves the list."""
    _, found = compared
    stale = {n: [d for d in diffs if d not in found.get(n, ())] for n, diffs in ALLOWED.items()}
    assert not {n: d for n, d in stale.items() if d}


def test_the_comparison_catches_a_wrong_signature() -> None:
    """differences() sees each kind of mistake (so the walk above can fail)."""
    overloads = torch_overloads(torch.sum, "sum", VARIABLE_FUNCTIONS)

    def check(fn) -> list:
        return differences(overloads, params_of_signature(inspect.signature(fn)))

    def right(input, dim=None, keepdim=False, *, dtype=None, out=None): ...
    def renamed(input, axis=None, keepdim=False, *, dtype=None, out=None): ...
    def moved(input, keepdim=False, dim=None, *, dtype=None, out=None): ...
    def default(input, dim=None, keepdim=True, *, dtype=None, out=None): ...
    def positional(input, dim=None, keepdim=False, dtype=None, out=None): ...
    def no_out(input, dim=None, keepdim=False, *, dtype=None): ...

    assert check(right) == []
    assert "missing parameter 'dim'" in check(renamed)
    assert "'dim' is not positional argument 1" in check(moved)
    assert "'keepdim' defaults to True (PyTorch: False)" in check(default)
    assert "'dtype' is keyword-only in PyTorch" in check(positional)
    assert check(no_out) == ["missing keyword 'out'"]


# ---------------------------------------------------------------- called with keywords
def _inputs(T) -> dict:
    """The same inputs as tensors of one library (T is microtorch or torch)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4)).astype(np.float32)  # (out=T.empty(0) is float32 too)
    a = rng.standard_normal((3, 3)).astype(np.float32)
    spd = a @ a.T + 3 * np.eye(3, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        LU, pivots = T.linalg.lu_factor(T.tensor(spd))
        qa, tau = T.geqrf(T.tensor(a))
    return {
        "T": T, "F": T.nn.functional, "nn": T.nn,
        "x": T.tensor(x), "x4": T.tensor(rng.standard_normal((4, 4)).astype(np.float32)),
        "xt": T.tensor(x).T, "spd": T.tensor(spd), "v": T.tensor(rng.standard_normal(3).astype(np.float32)),
        "pts": T.tensor(rng.standard_normal((20, 2)).astype(np.float32)),
        "nanx": T.tensor([np.nan, np.inf, -np.inf, 1.0]), "p": T.tensor([[0.2, 0.3, 0.5]]),
        "i": T.tensor([0, 2]), "idx": T.tensor([[0, 1, 2, 0]]),
        "logits": T.tensor(rng.standard_normal((4, 5)).astype(np.float32)), "target": T.tensor([1, -1, 4, 0]),
        "LU": LU, "pivots": pivots, "qa": qa, "tau": tau,
        "params": lambda m: [(n, tuple(t.shape)) for n, t in m.named_parameters()],
        "called": lambda m, *args: (m(*args), m)[1],
    }  # fmt: skip


KEYWORD_CALLS = [
    # the calls in the brief
    "T.sum(x, dim=1, keepdim=True)",
    "F.cross_entropy(logits, target, ignore_index=-1, label_smoothing=0.1)",
    "x.to(device='cpu', dtype=T.float64, non_blocking=True)",
    "T.arange(start=0, end=5, step=2)",
    "params(nn.Linear(in_features=3, out_features=4, bias=False))",
    # factories: layout= and pin_memory= at their defaults, memory_format=None, generator=
    "T.zeros(2, 3, layout=T.strided, pin_memory=False)",
    "T.ones_like(x, layout=T.strided, memory_format=None, pin_memory=False)",
    "T.empty(2, 3, memory_format=None, layout=None).stride()",
    "T.clone(xt, memory_format=None).stride()",
    "xt.clone(memory_format=None).stride()",
    "T.zeros_like(xt, memory_format=None).stride()",
    "T.full((2,), 1.5, layout=T.strided, pin_memory=False)",
    "T.arange(3, layout=None, pin_memory=False)",
    "T.linspace(0, 1, 5, layout=T.strided)",
    "T.eye(2, layout=T.strided, pin_memory=False)",
    "T.tensor([1.0, 2.0], pin_memory=False)",
    "x.new_zeros(2, layout=T.strided, pin_memory=False)",
    "T.tril_indices(3, 3, 0, requires_grad=False, pin_memory=False)",
    "T.randn(2, 3, pin_memory=False, layout=T.strided).shape",
    "T.rand_like(x, generator=T.Generator().manual_seed(0)).shape",
    "T.randint_like(x, 5, generator=T.Generator().manual_seed(0)).shape",
    # defaults PyTorch writes as None or ()
    "T.roll(x, 1, ())",
    "T.gradient(x, spacing=None)",
    "T.nan_to_num(nanx, nan=None)",
    "T.nan_to_num(nanx)",
    # positional where PyTorch's are
    "T.histogramdd(pts, 3, None, None, False)",
    "T.tensordot(x, x.T, 1, T.empty(3, 3))",
    "T.special.softmax(x, 0, T.float64)",
    "F.softmax(x, 1, 3, T.float64)",
    "F.log_softmax(x, dim=1, dtype=T.float64)",
    "T.linalg.pinv(spd, 0.1, True)",
    "T.linalg.matrix_rank(spd, 0.1, True)",
    # the names PyTorch's parser takes
    "T.linalg.norm(input=x)",
    "T.linalg.cholesky(input=spd)",
    "T.linalg.lstsq(input=spd, b=spd).solution",
    "T.linalg.tensorsolve(input=spd, other=v)",
    "T.linalg.pinv(input=spd, hermitian=True)",
    "T.linalg.matrix_norm(input=spd, ord='nuc')",
    "T.linalg.matrix_exp(input=spd / 10)",
    "T.special.airy_ai(x=x)",
    "T.special.spherical_bessel_j0(x=x)",
    "x.clone().copy_(other=x + 1)",
    "T.lu_solve(input=spd, LU_data=LU, LU_pivots=pivots)",
    "T.orgqr(input=qa, input2=tau)",
    "T.ormqr(input=qa, input2=tau, input3=spd, left=False)",
    "T.promote_types(type1=T.int32, type2=T.float32)",
    "T.result_type(tensor=x, other=1)",
    "T.from_dlpack(ext_tensor=x, copy=True)",
    "T.set_rng_state(new_state=T.get_rng_state())",
    "x.clone().swapaxes_(axis0=0, axis1=1)",
    "x.clone().map_(other=x, callable=lambda a, b: a * b)",
    # keyword-only ones called by keyword
    "T.sort(x, dim=0, descending=False, stable=True)",  # (with stable=, all by keyword)
    "x.argsort(dim=0, stable=True)",
    "x.add(x, alpha=2)",
    "x.sub(x, alpha=0.5)",
    "x.sum(0, False, dtype=T.float64)",
    "x.nansum(0, dtype=T.float64)",
    "x.cumprod(0, dtype=T.float64)",
    # more than one way to pass the same thing
    "x.broadcast_to(2, 3, 4)",
    "x.broadcast_to(size=(2, 3, 4))",
    "x.count_nonzero(0, 1)",
    "x.count_nonzero(dim=0)",
    "T.max(x, other=x.flip(0))",
    "x.max(other=x.flip(0))",
    "x[:1].expand(3, 4, implicit=False)",
    "x4.hsplit(sections=2)",
    "x4.hsplit(1, 3)",
    "x4.vsplit(indices=[1])",
    "T.vsplit(x4, indices=[1, 3])",
    "T.dsplit(x4.reshape(2, 2, 4), sections=2)",
    # out= where PyTorch's torch.xxx takes it
    "T.matmul(x, x.T, out=T.empty(0))",
    "F.normalize(x, out=T.empty(0))",
    "T.index_copy(x, 0, i, x[:2], out=T.empty(0))",
    "T.index_reduce(x, 0, i, x[:2], 'amax', out=T.empty(0))",
    "T.scatter_reduce(x, 0, idx, x[:1], 'sum', out=T.empty(0))",
    "T.slice_scatter(x, x[:1], 0, 0, 1, out=T.empty(0))",
    "T.threshold(x, 0.1, 0.0, out=T.empty(0))",
    "T.nonzero_static(x, size=2, fill_value=-1, out=T.empty(0, dtype=T.int64))",
    "T.argsort(x, stable=True, out=T.empty(0, dtype=T.int64))",
    "tuple(T.slogdet(spd, out=(T.empty(()), T.empty(()))))",
    "T.frobenius_norm(x, (0, 1), out=T.empty(0))",
    "T.nuclear_norm(spd, out=T.empty(0))",
    "T.multinomial(p, 2, out=T.empty(0, dtype=T.int64)).shape",
    # torch.rrelu: generator where F.rrelu has inplace
    "T.rrelu(x, 0.1, 0.3, False, None)",
    "T.rrelu(x, training=True, generator=T.Generator().manual_seed(0)).shape",
    # nn modules
    "params(called(nn.LazyBatchNorm1d(bias=False), x))",
    "params(called(nn.LazyInstanceNorm1d(affine=True, bias=False), x[None]))",
    "nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5]).forward(input_=x, target_=T.tensor([1, 2, 7])).output.shape",
]


def _plain(value):
    """A result of either library as plain Python and NumPy values."""
    if isinstance(value, (microtorch.Tensor, torch.Tensor)):
        return (str(value.dtype).split(".")[-1], value.detach().cpu().numpy())
    if isinstance(value, (microtorch.dtype, torch.dtype)):
        return str(value).split(".")[-1]
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _assert_same(mine, theirs) -> None:
    if isinstance(theirs, tuple) and len(theirs) == 2 and isinstance(theirs[1], np.ndarray):
        assert mine[0] == theirs[0]
        np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-4, atol=1e-5, equal_nan=True)
    elif isinstance(theirs, list):
        assert isinstance(mine, list) and len(mine) == len(theirs)
        for m, t in zip(mine, theirs):
            _assert_same(m, t)
    else:
        assert mine == theirs


@pytest.mark.parametrize("call", KEYWORD_CALLS)
def test_keyword_calls_give_pytorchs_answer(call: str) -> None:
    results = []
    for T in (microtorch, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.append(_plain(eval(call, _inputs(T))))
    _assert_same(*results)


REFUSED_CALLS = [
    "T.sort(x, 0, False, True)",  # stable is keyword-only
    "x.argsort(0, False, True)",
    "x.add(x, 2)",  # alpha is keyword-only
    "x.sub(x, 2)",
    "x.sum(0, False, T.float64)",  # dtype is keyword-only
    "x.cumprod(0, T.float64)",
    "T.linalg.vander(v, 2)",  # N is keyword-only
    "T.linalg.cholesky(A=spd)",  # PyTorch's parser calls it input
    "T.special.airy_ai(input=x)",  # ... and x here
    "x.clone().copy_(src=x)",  # ... and other here
    "x4.hsplit(2, sections=2)",  # one of them
    "T.tensor([1.0], T.float64)",  # dtype is keyword-only
    "T.as_tensor([1.0], T.float64)",
    "F.gelu(x, 'tanh')",  # approximate is keyword-only
    "F.scaled_dot_product_attention(x[None], x[None], x[None], None, 0.0, False, 0.5)",
    "x.contiguous(T.contiguous_format)",
]


@pytest.mark.parametrize("call", REFUSED_CALLS)
def test_calls_pytorch_refuses_raise_type_error(call: str) -> None:
    for T in (microtorch, torch):
        with pytest.raises(TypeError):
            eval(call, _inputs(T))


def test_from_dlpack_copy_and_device_keywords_as_pytorch() -> None:
    """copy=True gives memory of its own; the default shares the producer's, as PyTorch."""
    for T in (microtorch, torch):
        source = np.arange(3.0)
        shared, copied = T.from_dlpack(source), T.from_dlpack(source, device="cpu", copy=True)
        source[0] = 7.0
        assert shared[0].item() == 7.0 and copied[0].item() == 0.0
