"""PyTorch's own nn-module samples (``torch.testing._internal.common_modules.module_db``), run
through microtorch and compared with PyTorch.

For every ModuleInfo whose module microtorch has, each sample's constructor arguments build
the module in both libraries; PyTorch's parameters and buffers are loaded into ours, and then
the two must agree on: state_dict keys, order, shapes and dtypes, named_parameters and
named_buffers, repr, the forward outputs (nested tuples too) in train and eval mode, in
float32 and float64, the gradients of the inputs and of every parameter for the same random
upstream gradient, and the buffers after forward (running statistics). On two samples per
module, with inputs that do not require grad, also: pickling and deepcopy, non-contiguous
inputs (outputs and parameter gradients), submodules, two training steps, a float16
forward, ``dtype=``/``device=`` at construction, ``inplace=True``, channels_last, and
``.to(float64)`` / ``.double()`` / ``.half()``. PyTorch's error samples must raise the
same error type. Unbatched inputs are among the samples themselves (their ``desc`` says
``no_batch_dim``). The per-sample checks take the
``device`` fixture: MICROTORCH_TEST_DEVICE=fakecuda (or cuda) runs our side on CUDA.

By default each module runs a bounded spread of its samples (see ``_chosen``);
``MICROTORCH_MODULEINFO_ALL=1`` runs every sample. Modules microtorch lacks are skipped with
the reason in ``MISSING``; places where microtorch deliberately differs are in ``SKIPS``."""

from __future__ import annotations

import copy
import inspect
import os
import pickle

import numpy as np
import pytest

import microtorch
import microtorch.nn.functional as mF

from .torch_reference import needs_torch

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")
pytestmark = needs_torch((2, 13), "ModuleInfo samples")

from torch.testing._internal import common_modules  # noqa: E402

RUN_ALL = os.environ.get("MICROTORCH_MODULEINFO_ALL") == "1"
PER_MODULE = 4  # samples per module, dtype and mode unless RUN_ALL

# modules microtorch does not have, and why
EXERCISE = "an exercise left for learners (docs/exercises)"
MISSING = {
    "nn.AdaptiveMaxPool1d": EXERCISE,
    "nn.AdaptiveMaxPool2d": EXERCISE,
    "nn.AdaptiveMaxPool3d": EXERCISE,
    "nn.FractionalMaxPool2d": EXERCISE + " (max pooling)",
    "nn.FractionalMaxPool3d": EXERCISE + " (max pooling)",
    "nn.MaxPool1d": EXERCISE,
    "nn.MaxPool2d": EXERCISE,
    "nn.MaxPool3d": EXERCISE,
    "nn.RMSNorm": EXERCISE,
    "nn.Softplus": EXERCISE,
    "nn.LinearCrossEntropyLoss": "not in microtorch (a fused linear + cross_entropy)",
}

# (module name, check) -> why microtorch deliberately differs there
SKIPS: dict[tuple[str, str], str] = {}

TOL = {
    torch.float64: dict(rtol=1e-7, atol=1e-9),
    torch.float32: dict(rtol=1e-4, atol=1e-5),
}

# (module name, dtype) -> a looser tolerance, and why microtorch is not PyTorch's rounding there
LOOSER: dict[tuple[str, object], tuple[dict, str]] = {
    ("nn.CTCLoss", torch.float32): (
        dict(rtol=5e-3, atol=1e-4),
        "microtorch runs CTC's recursions in float64 and rounds once; PyTorch's float32 "
        "recursion drifts by ~1e-3 over 50 frames (tests/nn/test_ctc.py)",
    ),
}


def _dtype_name(dtype: object) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def _ours_dtype(dtype: object) -> object:
    return getattr(microtorch, _dtype_name(dtype))


class Converter:
    """Turns PyTorch objects in a sample into microtorch ones; the same torch tensor always
    becomes the same microtorch tensor (self-attention passes one tensor as query, key and
    value, and its gradient must collect all three)."""

    def __init__(self, layer_inputs: list | None = None, device: str = "cpu") -> None:
        self.memo: dict[int, tuple[object, object]] = {}
        self.layer_inputs = layer_inputs
        self.device = device

    def __call__(self, obj: object) -> object:
        if isinstance(obj, torch.Tensor):
            if id(obj) not in self.memo:
                if obj.requires_grad and not obj.is_leaf:
                    obj.retain_grad()  # (a leaf here: its gradient compares with this one)
                a = obj.detach().numpy()
                ours = microtorch.tensor(a, requires_grad=obj.requires_grad, device=self.device)
                self.memo[id(obj)] = (obj, ours)
            return self.memo[id(obj)][1]
        if isinstance(obj, tuple):
            return tuple(self(o) for o in obj)
        if isinstance(obj, list):
            return [self(o) for o in obj]
        if isinstance(obj, dict):
            return {k: self(v) for k, v in obj.items()}
        if isinstance(obj, torch.dtype):
            return _ours_dtype(obj)
        if isinstance(obj, torch.device):
            return str(obj)
        if isinstance(obj, torch.nn.TransformerEncoderLayer):
            return self.encoder_layer(obj)
        if callable(obj) and not isinstance(obj, type):
            return getattr(mF, obj.__name__)  # an activation such as F.gelu
        return obj

    def encoder_layer(self, layer: object) -> object:
        """Our TransformerEncoderLayer built from the constructor arguments PyTorch's was."""
        args, kwargs = self.layer_inputs.pop(0)
        kwargs = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}
        ours = microtorch.nn.TransformerEncoderLayer(*self(args), **self(kwargs))
        ours.to(_ours_dtype(layer.linear1.weight.dtype))
        return ours

    def pairs(self) -> list[tuple[object, object]]:
        """(torch tensor, ours) for every tensor converted so far."""
        return list(self.memo.values())


def _flat(out: object) -> list:
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [] if out is None else [out]


def _shape(out: object) -> object:
    if isinstance(out, (tuple, list)):
        return tuple(_shape(o) for o in out)
    return None if out is None else "tensor"


def _array(t: object) -> np.ndarray:
    return t.detach().cpu().numpy()


def _assert_close(ours: object, theirs: object, dtype: object, what: str) -> None:
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {ours.shape} vs {theirs.shape}"
    assert _dtype_name(ours.dtype) == _dtype_name(theirs.dtype), (
        f"{what}: dtype {ours.dtype} vs {theirs.dtype}"
    )
    np.testing.assert_allclose(
        _array(ours).astype(np.float64) if ours.dtype.is_floating_point else _array(ours),
        _array(theirs).astype(np.float64) if theirs.dtype.is_floating_point else _array(theirs),
        **LOOSER.get((what.split("[")[0], dtype), (TOL.get(dtype, TOL[torch.float32]),))[0],
        err_msg=what,
    )


def _assert_same_state(ours: object, theirs: object, dtype: object, what: str) -> None:
    """The same state_dict keys in the same order, each with the same shape, dtype, value."""
    o, t = ours.state_dict(), theirs.state_dict()
    assert list(o) == list(t), f"{what}: state_dict keys {list(o)} vs {list(t)}"
    for k in t:
        _assert_close(o[k], t[k], dtype, f"{what}: state_dict[{k!r}]")


def _build(info: object, sample: object, dtype: object, layers: list | None,
           device: str = "cpu") -> tuple:  # fmt: skip
    """PyTorch's module and ours (on ``device``) from the sample's constructor arguments, in
    ``dtype``."""
    ci = sample.constructor_input
    convert = Converter(None if layers is None else list(layers), device)
    ours_cls = getattr(microtorch.nn, info.module_cls.__name__)
    torch.manual_seed(0)
    theirs = info.module_cls(*ci.args, **ci.kwargs).to(dtype)
    ours = ours_cls(*convert(ci.args), **convert(ci.kwargs)).to(device, _ours_dtype(dtype))
    return ours, theirs


def _load(ours: object, theirs: object) -> None:
    """PyTorch's parameters and buffers into ours (which keeps its device)."""
    ours.load_state_dict({k: microtorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})


def _layer_inputs(info: object, dtype: object, requires_grad: bool, training: bool) -> list | None:
    """TransformerEncoder's samples hold a built TransformerEncoderLayer; its constructor
    arguments are those of the TransformerEncoderLayer samples, in the same order."""
    if info.module_cls is not torch.nn.TransformerEncoder:
        return None
    samples = common_modules.module_inputs_torch_nn_TransformerEncoderLayer(
        None, "cpu", dtype, requires_grad, training
    )
    return [(s.constructor_input.args, s.constructor_input.kwargs) for s in samples]


def _chosen(samples: list) -> list[int]:
    """Which samples run: all with RUN_ALL, else an even spread of PER_MODULE of them plus
    every unbatched one (``no_batch_dim``) up to two."""
    n = len(samples)
    if RUN_ALL or n <= PER_MODULE:
        return list(range(n))
    picked = sorted({round(i * (n - 1) / (PER_MODULE - 1)) for i in range(PER_MODULE)})
    unbatched = [i for i, s in enumerate(samples) if "no_batch_dim" in s.desc][:2]
    return sorted(set(picked) | set(unbatched))


def _samples(info: object, dtype: object, requires_grad: bool, training: bool) -> list:
    return info.module_inputs_func(
        info, device="cpu", dtype=dtype, requires_grad=requires_grad, training=training
    )


def _forward_both(ours: object, theirs: object, fi: object, convert: Converter) -> tuple:
    """Our module on the converted sample inputs, PyTorch's on the sample's own."""
    args, kwargs = convert(fi.args), convert(fi.kwargs)
    return ours(*args, **kwargs), theirs(*fi.args, **fi.kwargs)


def check_sample(info: object, sample: object, dtype: object, training: bool, layers: list | None,
                 what: str, device: str = "cpu") -> None:  # fmt: skip
    """Everything one sample can show: structure, repr, forward, backward, buffers."""
    ours, theirs = _build(info, sample, dtype, layers, device)
    fi = sample.forward_input
    if isinstance(theirs, torch.nn.modules.lazy.LazyModuleMixin):
        _materialize(ours, theirs, fi, what, device)
    o_keys = [(k, tuple(v.shape), _dtype_name(v.dtype)) for k, v in ours.state_dict().items()]
    t_keys = [(k, tuple(v.shape), _dtype_name(v.dtype)) for k, v in theirs.state_dict().items()]
    assert o_keys == t_keys, f"{what}: state_dict\n{o_keys}\nvs\n{t_keys}"
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    if (info.name, "repr") not in SKIPS:
        assert repr(ours) == repr(theirs), f"{what}: repr"
    _load(ours, theirs)
    ours.train(training)
    theirs.train(training)
    assert ours.training == theirs.training

    convert = Converter(device=device)
    out, t_out = _forward_both(ours, theirs, fi, convert)
    assert _shape(out) == _shape(t_out), (
        f"{what}: output structure {_shape(out)} vs {_shape(t_out)}"
    )
    outs, t_outs = _flat(out), _flat(t_out)
    for i, (o, t) in enumerate(zip(outs, t_outs)):
        _assert_close(o, t, dtype, f"{what}: output {i}")
        assert o.requires_grad == t.requires_grad, f"{what}: output {i} requires_grad"

    # the same random upstream gradient for every differentiable output
    rng = np.random.default_rng(0)
    pairs = [(o, t) for o, t in zip(outs, t_outs) if t.requires_grad]
    if pairs:
        grads = [rng.standard_normal(tuple(t.shape)).astype(t.detach().numpy().dtype)
                 for _, t in pairs]  # fmt: skip
        torch.autograd.backward([t for _, t in pairs], [torch.tensor(g) for g in grads])
        ours_grads = [microtorch.tensor(g, device=device) for g in grads]
        microtorch.autograd.backward([o for o, _ in pairs], ours_grads)
        for i, (t, o) in enumerate(convert.pairs()):
            if t.requires_grad:
                assert (o.grad is None) == (t.grad is None), f"{what}: input {i} grad presence"
                if t.grad is not None:
                    _assert_close(o.grad, t.grad, dtype, f"{what}: input {i} grad")
        for (name, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert (p.grad is None) == (tp.grad is None), f"{what}: {name}.grad presence"
            if tp.grad is not None:
                _assert_close(p.grad, tp.grad, dtype, f"{what}: {name}.grad")
    for (name, b), (_, tb) in zip(ours.named_buffers(), theirs.named_buffers()):
        _assert_close(b, tb, dtype, f"{what}: buffer {name} after forward")


def _materialize(ours: object, theirs: object, fi: object, what: str, device: str = "cpu") -> None:
    """A lazy module's state and repr before its first forward, then that first forward (no
    grad), which gives its parameters their shapes and turns it into its cls_to_become."""
    assert list(ours.state_dict()) == list(theirs.state_dict()), f"{what}: lazy state_dict"
    assert repr(ours) == repr(theirs), f"{what}: lazy repr"
    with torch.no_grad(), microtorch.no_grad():
        _forward_both(ours, theirs, fi, Converter(device=device))
    assert type(ours).__name__ == type(theirs).__name__, f"{what}: class after first forward"


def _ready(info: object, sample: object, dtype: object, layers: list | None, training: bool,
           what: str) -> tuple:  # fmt: skip
    """Both modules built (a lazy one after its first forward), PyTorch's state loaded into
    ours, both in training or eval mode."""
    ours, theirs = _build(info, sample, dtype, layers)
    if isinstance(theirs, torch.nn.modules.lazy.LazyModuleMixin):
        _materialize(ours, theirs, sample.forward_input, what)
    _load(ours, theirs)
    return ours.train(training), theirs.train(training)


def check_module_once(info: object, sample: object, dtype: object, layers: list | None,
                      what: str) -> None:  # fmt: skip
    """The per-module checks on one sample: copies, non-contiguous inputs, structure, two
    training steps, float16, factory kwargs, inplace=True, channels_last, conversions."""
    ours, theirs = _ready(info, sample, dtype, layers, False, what)
    fi = sample.forward_input
    out, t_out = _forward_both(ours, theirs, fi, Converter())
    expected = [_array(t) for t in _flat(t_out)]

    for copy_name, twin in (
        ("deepcopy", copy.deepcopy(ours)),
        ("pickle", pickle.loads(pickle.dumps(ours))),
    ):
        _assert_same_state(twin, theirs, dtype, f"{what}: {copy_name}")
        twin_out = _flat(_forward_both(twin, theirs, fi, Converter())[0])
        for i, (o, e) in enumerate(zip(twin_out, expected)):
            np.testing.assert_allclose(
                _array(o), e, **TOL[dtype], err_msg=f"{what}: {copy_name}, output {i}"
            )

    if (info.name, "noncontiguous") not in SKIPS:
        _check_non_contiguous(ours, fi, expected, dtype, what)
    _check_structure(ours, theirs, what)
    _check_two_training_steps(info, sample, dtype, layers, what)
    _check_half_forward(ours, theirs, fi, what)
    _check_factory_kwargs(info, sample, layers, what)
    _check_inplace(info, sample, what)
    _check_channels_last(ours, theirs, fi, what)

    for how in ("to(float64)", "double()", "half()", "to(float32)"):
        o2, t2 = copy.deepcopy(ours), copy.deepcopy(theirs)
        if how == "to(float64)":
            o2, t2 = o2.to(microtorch.float64), t2.to(torch.float64)
        elif how == "to(float32)":
            o2, t2 = o2.to(dtype=microtorch.float32), t2.to(dtype=torch.float32)
        elif how == "double()":
            o2, t2 = o2.double(), t2.double()
        else:
            o2, t2 = o2.half(), t2.half()
        _assert_same_state(o2, t2, torch.float32, f"{what}: .{how}")
        names = [(n, _dtype_name(p.dtype)) for n, p in o2.named_parameters()]
        t_names = [(n, _dtype_name(p.dtype)) for n, p in t2.named_parameters()]
        assert names == t_names, f"{what}: .{how} parameters"


def _upstream(outs: list, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    return [microtorch.tensor(rng.standard_normal(tuple(o.shape)).astype(_array(o).dtype))
            for o in outs]  # fmt: skip


def _check_non_contiguous(ours: object, fi: object, expected: list, dtype: object,
                          what: str) -> None:  # fmt: skip
    """The same outputs, and the same parameter gradients for the same upstream gradient
    (itself non-contiguous the second time), when every input is non-contiguous."""
    runs = []
    for layout in ("contiguous", "non-contiguous"):
        ours.zero_grad()
        convert = Converter()
        args, kwargs = convert(fi.args), convert(fi.kwargs)
        if layout == "non-contiguous":
            args, kwargs = _non_contiguous(args), _non_contiguous(kwargs)
        outs = [o for o in _flat(ours(*args, **kwargs))]
        for i, (o, e) in enumerate(zip(outs, expected)):
            np.testing.assert_allclose(
                _array(o), e, **TOL[dtype], err_msg=f"{what}: {layout} input, output {i}"
            )
        pairs = [(o, g) for o, g in zip(outs, _upstream(outs)) if o.requires_grad]
        if pairs:
            grads = [g if layout == "contiguous" else _non_contiguous(g) for _, g in pairs]
            microtorch.autograd.backward([o for o, _ in pairs], grads)
        runs.append({n: None if p.grad is None else _array(p.grad).copy()
                     for n, p in ours.named_parameters()})  # fmt: skip
    for name, g in runs[0].items():
        assert (g is None) == (runs[1][name] is None), f"{what}: {name}.grad presence"
        if g is not None:
            np.testing.assert_allclose(
                runs[1][name], g, **TOL[dtype], err_msg=f"{what}: {name}.grad, non-contiguous"
            )


def _check_structure(ours: object, theirs: object, what: str) -> None:
    """The same submodules (names and classes), children, parameter classes and
    requires_grad flags."""
    named = [(n, type(m).__name__) for n, m in ours.named_modules()]
    t_named = [(n, type(m).__name__) for n, m in theirs.named_modules()]
    assert named == t_named, f"{what}: named_modules\n{named}\nvs\n{t_named}"
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    flags = [(type(p).__name__, p.requires_grad) for p in ours.parameters()]
    assert flags == [(type(p).__name__, p.requires_grad) for p in theirs.parameters()]
    assert [b.requires_grad for b in ours.buffers()] == [b.requires_grad for b in theirs.buffers()]


def _check_two_training_steps(info: object, sample: object, dtype: object, layers: list | None,
                              what: str) -> None:  # fmt: skip
    """Two forwards in training mode: the buffers (running statistics, their count) move
    alike."""
    ours, theirs = _ready(info, sample, dtype, layers, True, what)
    fi = sample.forward_input
    for step in range(2):
        out, t_out = _forward_both(ours, theirs, fi, Converter())
        for i, (o, t) in enumerate(zip(_flat(out), _flat(t_out))):  # (no sample drops out)
            _assert_close(o, t, dtype, f"{what}: training step {step}, output {i}")
    _assert_same_state(ours, theirs, dtype, f"{what}: after two training steps")


def _half(obj: object) -> object:
    """A torch sample's floating-point tensors in float16 (others as they are)."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().half() if obj.is_floating_point() else obj
    if isinstance(obj, (tuple, list)):
        return type(obj)(_half(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _half(v) for k, v in obj.items()}
    return obj


def _check_half_forward(ours: object, theirs: object, fi: object, what: str) -> None:
    """After ``.half()``, float16 inputs give PyTorch's float16 outputs (to float16's
    precision), where PyTorch's CPU build runs the module in float16 at all."""
    o16, t16 = copy.deepcopy(ours).half(), copy.deepcopy(theirs).half()
    args, kwargs = _half(fi.args), _half(fi.kwargs)
    try:
        t_out = t16(*args, **kwargs)
    except (RuntimeError, NotImplementedError):  # e.g. "not implemented for 'Half'"
        return
    convert = Converter()
    out = o16(*convert(args), **convert(kwargs))
    for i, (o, t) in enumerate(zip(_flat(out), _flat(t_out))):
        assert _dtype_name(o.dtype) == _dtype_name(t.dtype), f"{what}: half output {i} dtype"
        np.testing.assert_allclose(
            _array(o).astype(np.float64), _array(t).astype(np.float64), rtol=2e-2, atol=2e-2,
            err_msg=f"{what}: half output {i}",
        )  # fmt: skip


def _check_factory_kwargs(info: object, sample: object, layers: list | None, what: str) -> None:
    """Built with ``dtype=float64, device="cpu"`` (where the constructor takes them), the
    same state_dict dtypes and shapes as PyTorch's."""
    ci = sample.constructor_input
    if "dtype" not in inspect.signature(info.module_cls.__init__).parameters:
        return
    if "dtype" in ci.kwargs or "device" in ci.kwargs:
        return
    convert = Converter(None if layers is None else list(layers))
    make = dict(dtype=torch.float64, device="cpu")
    theirs = info.module_cls(*ci.args, **ci.kwargs, **make)
    ours_cls = getattr(microtorch.nn, info.module_cls.__name__)
    ours = ours_cls(*convert(ci.args), **convert(ci.kwargs), **convert(make))
    if isinstance(theirs, torch.nn.modules.lazy.LazyModuleMixin):
        _materialize(ours, theirs, sample.forward_input, what)
    got = [(k, tuple(v.shape), _dtype_name(v.dtype)) for k, v in ours.state_dict().items()]
    want = [(k, tuple(v.shape), _dtype_name(v.dtype)) for k, v in theirs.state_dict().items()]
    assert got == want, f"{what}: built with dtype=float64\n{got}\nvs\n{want}"


def _check_inplace(info: object, sample: object, what: str) -> None:
    """With ``inplace=True`` (where the constructor takes it): the same repr, the input
    overwritten with the output (the very same tensor returned where PyTorch does), and the
    same input gradient through it."""
    ci = sample.constructor_input
    if "inplace" not in inspect.signature(info.module_cls.__init__).parameters:
        return
    kwargs = dict(ci.kwargs, inplace=True)
    theirs = info.module_cls(*ci.args, **kwargs)
    ours = getattr(microtorch.nn, info.module_cls.__name__)(*ci.args, **kwargs)
    assert repr(ours) == repr(theirs), f"{what}: inplace repr"
    if "dropout" in info.name.lower():
        return  # random: only the repr compares
    x = sample.forward_input.args[0].detach()
    tx = x.clone().requires_grad_()
    ox = microtorch.tensor(x.numpy(), requires_grad=True)
    t_in, o_in = tx * 1, ox * 1  # non-leaf, so that they may be overwritten
    t_out, o_out = theirs(t_in), ours(o_in)
    _assert_close(o_in, t_in, x.dtype, f"{what}: inplace input afterwards")
    _assert_close(o_out, t_out, x.dtype, f"{what}: inplace output")
    assert (o_out is o_in) == (t_out is t_in), f"{what}: inplace returns its input"
    g = _upstream([o_out])[0]
    o_out.backward(g)
    t_out.backward(torch.tensor(_array(g)))
    _assert_close(ox.grad, tx.grad, x.dtype, f"{what}: inplace input grad")


def _check_channels_last(ours: object, theirs: object, fi: object, what: str) -> None:
    """A 4-D (5-D) first input in channels_last (channels_last_3d) through the module moved
    there by ``.to(memory_format=...)``: PyTorch's values. (Only the values: microtorch
    does not carry the layout through every op, PyTorch does.)"""
    x = fi.args[0] if fi.args else None
    if not isinstance(x, torch.Tensor) or x.ndim not in (4, 5):
        return
    fmt = "channels_last" if x.ndim == 4 else "channels_last_3d"
    if any(p.ndim in (4, 5) and p.ndim != x.ndim for p in theirs.parameters()):
        return  # PyTorch refuses that format for the weight (a 5-D one, unbatched input)
    o2, t2 = copy.deepcopy(ours), copy.deepcopy(theirs)
    o2.to(memory_format=getattr(microtorch, fmt))
    t2.to(memory_format=getattr(torch, fmt))
    for (name, p), tp in zip(o2.named_parameters(), t2.parameters()):
        assert p.stride() == tp.stride(), f"{what}: {name} stride after .to({fmt})"
    convert = Converter()
    args, kwargs = convert(fi.args), convert(fi.kwargs)
    args = (args[0].to(memory_format=getattr(microtorch, fmt)), *args[1:])
    t_args = (x.to(memory_format=getattr(torch, fmt)), *fi.args[1:])
    out, t_out = o2(*args, **kwargs), t2(*t_args, **fi.kwargs)
    for i, (o, t) in enumerate(zip(_flat(out), _flat(t_out))):
        _assert_close(o, t, x.dtype, f"{what}: {fmt} output {i}")


def _non_contiguous(obj: object) -> object:
    """The same values in a non-contiguous layout (every other element of a doubled last
    dimension), keeping requires_grad."""
    if isinstance(obj, microtorch.Tensor):
        if obj.ndim == 0 or obj.numel() == 0:
            return obj
        wide = obj.detach().repeat_interleave(2, dim=-1)[..., ::2]
        assert obj.shape[-1] < 2 or not wide.is_contiguous()
        return wide.requires_grad_(obj.requires_grad) if obj.is_floating_point() else wide
    if isinstance(obj, tuple):
        return tuple(_non_contiguous(o) for o in obj)
    if isinstance(obj, list):
        return [_non_contiguous(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _non_contiguous(v) for k, v in obj.items()}
    return obj


def _infos() -> list:
    return [pytest.param(i, id=i.name) for i in common_modules.module_db]


def _skip_missing(info: object) -> None:
    if info.name in MISSING:
        pytest.skip(f"{info.name}: {MISSING[info.name]}")


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("info", _infos())
def test_module_samples(info: object, dtype: object, training: bool, device: str) -> None:
    _skip_missing(info)
    samples = _samples(info, dtype, True, training)
    layers = _layer_inputs(info, dtype, True, training)
    for i in _chosen(samples):
        what = f"{info.name}[{i}] {samples[i].desc or ''} ({_dtype_name(dtype)}, " + (
            "train)" if training else "eval)"
        )
        sample_layers = None if layers is None else layers[i:i + 1]  # fmt: skip
        check_sample(info, samples[i], dtype, training, sample_layers, f"{what} {device}", device)


@pytest.mark.parametrize("info", _infos())
def test_module_no_grad_inputs_copies_and_conversions(info: object) -> None:
    _skip_missing(info)
    dtype = torch.float64
    samples = _samples(info, dtype, False, False)
    layers = _layer_inputs(info, dtype, False, False)
    for i in _chosen(samples)[: None if RUN_ALL else 2]:
        what = f"{info.name}[{i}] {samples[i].desc or ''} (inputs without grad)"
        sample_layers = None if layers is None else layers[i:i + 1]  # fmt: skip
        check_sample(info, samples[i], dtype, False, sample_layers, what)
        check_module_once(info, samples[i], dtype, sample_layers, what)


def _error_infos() -> list:
    return [pytest.param(i, id=i.name) for i in common_modules.module_db
            if i.module_error_inputs_func is not None]  # fmt: skip


@pytest.mark.parametrize("info", _error_infos())
def test_module_error_inputs(info: object) -> None:
    """PyTorch's error samples raise the same error type here, at the same step
    (construction or forward); the messages are microtorch's own."""
    _skip_missing(info)
    errors = info.module_error_inputs_func(
        info, device="cpu", dtype=torch.float64, requires_grad=False, training=True
    )
    ours_cls = getattr(microtorch.nn, info.module_cls.__name__)
    for i, e in enumerate(errors):
        what = f"{info.name} error sample {i} ({e.error_type.__name__}: {e.error_regex})"
        if (info.name, f"error {i}") in SKIPS:
            continue
        ci, fi = e.module_error_input.constructor_input, e.module_error_input.forward_input
        convert = Converter()
        construct = common_modules.ModuleErrorEnum.CONSTRUCTION_ERROR
        if e.error_on == construct:
            with pytest.raises(e.error_type):
                ours_cls(*convert(ci.args), **convert(ci.kwargs))
            continue
        module = ours_cls(*convert(ci.args), **convert(ci.kwargs))
        with pytest.raises(e.error_type) as raised:
            module(*convert(fi.args), **convert(fi.kwargs))
        assert raised.type is e.error_type or issubclass(raised.type, e.error_type), what
