"""microtorch.amp: autocast (which ops change dtype, nesting, the decorator, gradients) and
GradScaler (scaling, skipped steps, growth and backoff, state dicts), against PyTorch where
it is installed; the deprecated torch.cuda.amp / torch.cpu.amp spellings; the CUDA op
lists on every device (on the CPU by lending the CPU the CUDA table)."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import microtorch
import microtorch.nn.functional as mF
from microtorch.amp import autocast_mode, op_lists
from tests.conftest import cuda_available

from .test_ops import CASES, as_list, make_arrays

FAKE = getattr(sys.modules.get("cupy"), "__version__", "") == "0.0-fake"

f16, f32, f64 = microtorch.float16, microtorch.float32, microtorch.float64


def _name(dtype: object) -> str:
    return str(dtype).rsplit(".", 1)[-1]


@pytest.fixture
def cuda_table_on(monkeypatch: pytest.MonkeyPatch, device: str) -> str:
    """The device type whose autocast region runs PyTorch's CUDA op lists: "cuda" itself, or
    on the CPU the "cpu" region with the CUDA table lent to it."""
    if device == "cpu":
        monkeypatch.setitem(op_lists.POLICIES, "cpu", op_lists.POLICIES["cuda"])
    return device


def _region(device_type: str) -> autocast_mode.autocast:
    return microtorch.autocast(device_type, dtype=f16)


# ----------------------------------------------------------------- the CPU list, against PyTorch
# Where microtorch's dtype under CPU autocast differs from PyTorch's, and why.
CPU_DIFFERENCES = {
    # PyTorch's einsum contracts with bmm (autocast) unless a size-1 dim broadcasts; ours
    # casts whenever two operands share a summed letter
    "einsum_size1_dims_broadcast",
    # PyTorch's inner of two 1-D tensors is a dot (not autocast on the CPU); ours a tensordot
    "inner",
    # PyTorch's linalg.pinv ends in a (float16) matmul; ours is one op in its input's dtype
    "linalg_pinv_pinverse",
    "linalg_pinv_hermitian",
}


def _torch_dtypes(torch: object, case: object, arrays: list, half: bool) -> list | None:
    inputs = [torch.tensor(_as_half(a, half), requires_grad=g) for a, g in arrays]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.autocast("cpu", dtype=torch.float16):
                return [
                    _name(o.dtype) for o in as_list(case.fn(torch, torch.nn.functional, *inputs))
                ]
    except Exception:  # noqa: BLE001 (PyTorch has no float16 kernel for it: nothing to compare)
        return None


def _as_half(a: np.ndarray, half: bool) -> np.ndarray:
    return a.astype(np.float16) if half and a.dtype == np.float32 else a


@pytest.mark.parametrize("half", [False, True], ids=["float32_inputs", "float16_inputs"])
@pytest.mark.parametrize("case", [c for c in CASES if c.torch], ids=lambda c: c.name)
def test_cpu_autocast_output_dtypes_match_pytorch(case: object, half: bool) -> None:
    """Every op of the table, on float32 (and on float16) inputs, inside
    autocast("cpu", dtype=float16): the same output dtypes as PyTorch's CPU autocast."""
    torch = pytest.importorskip("torch")
    arrays = make_arrays(case, "float32")
    theirs = _torch_dtypes(torch, case, arrays, half)
    if theirs is None:
        pytest.skip("PyTorch's CPU kernel refuses float16 here")
    if case.name in CPU_DIFFERENCES and not half:
        pytest.skip("a known difference (CPU_DIFFERENCES)")
    inputs = [microtorch.tensor(_as_half(a, half), requires_grad=g) for a, g in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with _region("cpu"):
            ours = [_name(o.dtype) for o in as_list(case.fn(microtorch, mF, *inputs))]
    assert ours == theirs


def test_outside_autocast_nothing_is_cast() -> None:
    a, b = microtorch.randn(3, 4), microtorch.randn(4, 2)
    assert (a @ b).dtype is f32 and mF.linear(a, b.T).dtype is f32
    with _region("cpu"):
        assert (a @ b).dtype is f16
    assert (a @ b).dtype is f32 and not autocast_mode._active
    inputs = (a, b)
    assert autocast_mode.autocast_inputs("matmul", *inputs) == inputs  # untouched


def test_float64_and_integer_tensors_are_never_cast() -> None:
    with _region("cpu"):
        assert (microtorch.randn(2, 3, dtype=f64) @ microtorch.randn(3, 2, dtype=f64)).dtype is f64
        assert (microtorch.ones(2, 3, dtype=microtorch.int64) @ microtorch.ones(3, 2,
                dtype=microtorch.int64)).dtype is microtorch.int64  # fmt: skip
        i = microtorch.arange(3)
        assert microtorch.cat([i, i]).dtype is microtorch.int64


def test_cat_and_stack_promote_to_the_widest_float() -> None:
    half, full = microtorch.randn(2, dtype=f16), microtorch.randn(2)
    with _region("cpu"):
        assert microtorch.cat([half, full]).dtype is f32
        assert microtorch.stack([half, half]).dtype is f16


# ----------------------------------------------------------------- the CUDA list
# (op, its call, floating inputs' dtype, expected output dtype) under PyTorch's CUDA table
CUDA_EXPECTED = [
    ("matmul", lambda a, b: a @ b, f32, f16),
    ("mm", lambda a, b: microtorch.mm(a, b), f32, f16),
    ("mv", lambda a, b: microtorch.mv(a, b[:, 0]), f32, f16),  # (not on the CPU list)
    ("addmm", lambda a, b: microtorch.addmm(a @ b, a, b), f32, f16),
    ("linear", lambda a, b: mF.linear(a, b.T), f32, f16),
    ("einsum", lambda a, b: microtorch.einsum("ij,jk->ik", a, b), f32, f16),
    ("exp", lambda a, b: a.exp(), f16, f32),
    ("pow", lambda a, b: a**2, f16, f32),
    ("rtruediv", lambda a, b: 1 / a, f16, f32),
    ("sum", lambda a, b: a.sum(), f16, f32),
    ("sum with a dtype", lambda a, b: a.sum(dtype=f16), f16, f16),
    ("softmax", lambda a, b: mF.softmax(a, -1), f16, f32),
    ("log_softmax", lambda a, b: mF.log_softmax(a, -1), f16, f32),
    ("layer_norm", lambda a, b: mF.layer_norm(a, (4,)), f16, f32),
    ("cross_entropy", lambda a, b: mF.cross_entropy(a, a.argmax(1)), f16, f32),
    ("mse_loss", lambda a, b: mF.mse_loss(a, a.detach()), f16, f32),
    ("norm", lambda a, b: a.norm(), f16, f32),
    ("vector_norm inf", lambda a, b: microtorch.linalg.vector_norm(a, float("inf")), f16, f32),
    ("tensordot promotes", lambda a, b: microtorch.tensordot(a, b.half(), 1), f32, f32),
    ("addcmul promotes", lambda a, b: microtorch.addcmul(a, a.half(), a), f32, f32),
    # not listed: stay in their inputs' dtype (even where built on listed ops)
    ("relu", lambda a, b: mF.relu(a), f16, f16),
    ("gelu", lambda a, b: mF.gelu(a, approximate="tanh"), f16, f16),
    ("mean", lambda a, b: a.mean(), f16, f16),
    ("var", lambda a, b: a.var(), f16, f16),
    ("sigmoid", lambda a, b: a.sigmoid(), f16, f16),
    ("elu", lambda a, b: mF.elu(a), f16, f16),
    ("logsigmoid", lambda a, b: mF.logsigmoid(a), f16, f16),
    ("mish", lambda a, b: mF.mish(a), f16, f16),
    ("nansum", lambda a, b: a.nansum(), f16, f16),
    ("trace", lambda a, b: a[:, :3].trace(), f16, f16),
    ("avg_pool1d", lambda a, b: mF.avg_pool1d(a[None], 2), f16, f16),
    ("batch_norm", lambda a, b: mF.batch_norm(a, None, None, training=True), f16, f16),
    ("instance_norm", lambda a, b: mF.instance_norm(a[None]), f16, f16),
    ("dropout", lambda a, b: mF.dropout(a, 0.5), f16, f16),
    (
        "bilinear",
        lambda a, b: mF.bilinear(a, a, microtorch.randn(2, 4, 4, dtype=f16).to(a.device)),
        f16,
        f16,
    ),
]


@pytest.mark.parametrize(
    "op, fn, given, expected", CUDA_EXPECTED, ids=[c[0] for c in CUDA_EXPECTED]
)
def test_cuda_list_output_dtypes(cuda_table_on: str, op: str, fn: object, given: object,
                                 expected: object) -> None:  # fmt: skip
    device = cuda_table_on
    a = microtorch.randn(3, 4, dtype=given, device=device, requires_grad=True)
    b = microtorch.randn(4, 2, dtype=given, device=device)
    with _region(device):
        out = fn(a, b)
    assert out.dtype is expected, f"{op}: {out.dtype}"
    assert out.device.type == device


def test_float32_norm_layers_after_a_float16_layer(cuda_table_on: str) -> None:
    """Linear gives float16 in a region; a float32 BatchNorm after it takes that mix (float16
    out, float32 statistics and gradients), as PyTorch's does; GroupNorm is on the float32
    list."""
    device = cuda_table_on
    for norm, dtype in ((microtorch.nn.BatchNorm1d(3), f16),
                        (microtorch.nn.GroupNorm(1, 3), microtorch.float32)):  # fmt: skip
        model = microtorch.nn.Sequential(microtorch.nn.Linear(4, 3), norm).to(device)
        with _region(device):
            out = model(microtorch.randn(5, 4, device=device))
        assert out.dtype is dtype
        out.float().sum().backward()
        assert all(p.grad.dtype is microtorch.float32 for p in model.parameters())
        assert all(b.dtype is not f16 for b in model.buffers())


def test_binary_cross_entropy_is_refused_under_cuda_autocast(cuda_table_on: str) -> None:
    p = microtorch.rand(4, device=cuda_table_on)
    with _region(cuda_table_on), pytest.raises(RuntimeError, match="unsafe to autocast"):
        mF.binary_cross_entropy(p, p)
    mF.binary_cross_entropy(p, p)  # (outside it is fine)


def test_rnn_cells_run_in_float16_on_the_cuda_list(cuda_table_on: str) -> None:
    x = microtorch.randn(3, 4, device=cuda_table_on)
    lstm = microtorch.nn.LSTMCell(4, 5).to(cuda_table_on)
    with _region(cuda_table_on):
        h, c = lstm(x, (microtorch.zeros(3, 5, device=cuda_table_on),) * 2)
        g = microtorch.nn.GRUCell(4, 5).to(cuda_table_on)(x)
    assert h.dtype is c.dtype is g.dtype is f16


def test_autocast_is_per_device_type(monkeypatch: pytest.MonkeyPatch) -> None:
    """A "cuda" region leaves ops on CPU tensors alone (and a "cpu" one CUDA tensors)."""
    monkeypatch.setattr(autocast_mode, "_cuda_available", lambda: True)
    a = microtorch.randn(2, 2)
    with microtorch.autocast("cuda"):
        assert microtorch.is_autocast_enabled("cuda") and not microtorch.is_autocast_enabled("cpu")
        assert (a @ a).dtype is f32
    assert not microtorch.is_autocast_enabled("cuda")


def test_every_hooked_name_is_in_a_list_and_every_listed_name_is_hooked() -> None:
    """The names the ops pass to autocast_inputs and the tables' names are the same set (a
    misspelt name would silently never autocast)."""
    import pathlib
    import re

    root = pathlib.Path(microtorch.__file__).parent
    source = "\n".join(p.read_text() for p in root.rglob("*.py"))
    hooked = set(re.findall(r'autocast_inputs\(\s*"(\w+)"', source))
    hooked |= set(re.findall(r'cell = "(\w+)" if .* else "(\w+)"', source)[0])
    listed = set().union(*(set(table) for table in op_lists.POLICIES.values()))
    assert hooked - listed == set() and listed - hooked == set()


# ----------------------------------------------------------------- the region's state
def test_nesting_restores_the_outer_state() -> None:
    a = microtorch.randn(2, 2)
    assert not microtorch.is_autocast_enabled("cpu")
    with _region("cpu"):
        assert microtorch.is_autocast_enabled("cpu")
        assert microtorch.get_autocast_dtype("cpu") is f16
        with microtorch.autocast("cpu", enabled=False):
            assert not microtorch.is_autocast_enabled("cpu") and (a @ a).dtype is f32
            with _region("cpu"):
                assert (a @ a).dtype is f16
            assert (a @ a).dtype is f32
        assert microtorch.is_autocast_enabled("cpu") and (a @ a).dtype is f16
    assert not microtorch.is_autocast_enabled("cpu") and (a @ a).dtype is f32


def test_the_state_is_restored_after_an_exception() -> None:
    with pytest.raises(ValueError), _region("cpu"):
        raise ValueError
    assert not microtorch.is_autocast_enabled("cpu") and not autocast_mode._active


def test_as_a_decorator() -> None:
    @microtorch.autocast("cpu", dtype=microtorch.float16)
    def product(a: microtorch.Tensor) -> microtorch.Tensor:
        """a @ a"""
        return a @ a

    a = microtorch.randn(2, 2)
    assert product(a).dtype is f16 and product.__doc__ == "a @ a"
    assert not microtorch.is_autocast_enabled("cpu")
    assert product(a).dtype is f16  # (a fresh region each call)


def test_autocast_names() -> None:
    assert microtorch.autocast is microtorch.amp.autocast
    assert microtorch.is_autocast_enabled() is False  # (no argument: "cuda")
    assert microtorch.get_autocast_dtype("cuda") is f16
    assert microtorch.amp.is_autocast_available("cpu")
    microtorch.set_autocast_enabled("cpu", True)
    try:
        assert microtorch.is_autocast_enabled("cpu")
        assert (microtorch.randn(2, 2) @ microtorch.randn(2, 2)).dtype is f16
    finally:
        microtorch.set_autocast_enabled("cpu", False)
    assert not autocast_mode._active


def test_cpu_default_dtype_is_bfloat16_which_warns_and_disables() -> None:
    with pytest.warns(UserWarning, match="not supported.*Disabling autocast.*float16"):
        region = microtorch.autocast("cpu")
    with region:
        assert not microtorch.is_autocast_enabled("cpu")
        assert (microtorch.randn(2, 2) @ microtorch.randn(2, 2)).dtype is f32


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_an_unsupported_dtype_warns_and_disables(dtype: str) -> None:
    with pytest.warns(UserWarning, match="target dtype is not supported. Disabling autocast"):
        region = microtorch.autocast("cpu", dtype=getattr(microtorch, dtype))
    with region:
        assert not microtorch.is_autocast_enabled("cpu")


@pytest.mark.skipif(cuda_available(), reason="this machine has CUDA")
def test_cuda_autocast_without_cuda_warns_and_disables() -> None:
    with pytest.warns(UserWarning, match="CUDA is not available. Disabling autocast"):
        region = microtorch.autocast("cuda")
    with region:
        assert not microtorch.is_autocast_enabled("cuda")


def test_bad_device_types_raise_as_pytorch() -> None:
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        microtorch.autocast(3)
    with pytest.raises(RuntimeError, match="device type at start of device string: xyz"):
        microtorch.autocast("xyz")
    with pytest.raises(RuntimeError, match="device string: xyz"):
        microtorch.get_autocast_dtype("xyz")
    with pytest.warns(UserWarning, match="no 'mps' device"):
        microtorch.autocast("mps")


@pytest.mark.parametrize("enabled", ["yes", 1, None])
def test_enabled_must_be_a_bool_as_in_pytorch(enabled: object) -> None:
    for lib in (microtorch, pytest.importorskip("torch")):
        region = lib.autocast("cpu", dtype=lib.float16, enabled=enabled)  # (accepted here)
        with pytest.raises(TypeError, match="enabled"), region:
            pass
        assert not lib.is_autocast_enabled("cpu")


def test_parameters_are_cast_once_per_region_and_the_cache_clears() -> None:
    w = microtorch.randn(3, 3, requires_grad=True)
    x = microtorch.randn(2, 3)
    with _region("cpu"):
        first, second = mF.linear(x, w), mF.linear(x, w)
        assert len(autocast_mode._cache) == 1
        copy = autocast_mode._cache[id(w)][2]
        assert first.grad_fn.parents[1] is second.grad_fn.parents[1]
        with microtorch.no_grad():
            w.add_(1.0)  # an in-place change makes a new copy
        mF.linear(x, w)
        assert autocast_mode._cache[id(w)][2] is not copy
    assert not autocast_mode._cache
    with _region("cpu"):  # a copy made under no_grad has no graph: it is not kept
        with microtorch.no_grad():
            mF.linear(x, w)
        assert mF.linear(x, w).requires_grad
    with _region("cpu"):  # the cached copy serves two backward passes in one region
        for _ in range(2):
            mF.linear(x, w).float().sum().backward()
    with microtorch.autocast("cpu", dtype=f16, cache_enabled=False):
        mF.linear(x, w)
        assert not autocast_mode._cache


# ----------------------------------------------------------------- gradients, against PyTorch
def _small_model(lib: object, weights: list) -> tuple:
    first, second = lib.nn.Linear(6, 8), lib.nn.Linear(8, 4)
    with lib.no_grad():
        for p, w in zip([*first.parameters(), *second.parameters()], weights):
            p.copy_(lib.tensor(w))
    return first, second


def test_gradients_reach_float32_parameters_and_match_pytorch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    weights = [
        rng.standard_normal(s).astype(np.float32) * 0.5 for s in [(8, 6), (8,), (4, 8), (4,)]
    ]
    x = rng.standard_normal((5, 6)).astype(np.float32)
    y = np.array([0, 3, 1, 2, 3])
    results = []
    for lib, F in ((microtorch, mF), (torch, torch.nn.functional)):
        first, second = _small_model(lib, weights)
        with lib.autocast("cpu", dtype=lib.float16):
            hidden = F.softmax(first(lib.tensor(x)), dim=-1)
            logits = second(hidden)
            loss = F.cross_entropy(logits, lib.tensor(y))
        assert _name(hidden.dtype) == _name(logits.dtype) == "float16"
        assert _name(loss.dtype) == "float32"
        loss.backward()
        params = [*first.parameters(), *second.parameters()]
        assert all(_name(p.grad.dtype) == "float32" for p in params)
        results.append((loss.item(), [p.grad.numpy() for p in params]))
    (ours_loss, ours), (theirs_loss, theirs) = results
    assert ours_loss == pytest.approx(theirs_loss, rel=2e-3)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, t, rtol=2e-2, atol=2e-3)


def test_custom_fwd_casts_inputs_and_custom_bwd_restores_the_state() -> None:
    seen = {}

    class Square(microtorch.autograd.Function):
        @staticmethod
        @microtorch.amp.custom_fwd(device_type="cpu", cast_inputs=microtorch.float32)
        def forward(ctx: object, x: microtorch.Tensor) -> microtorch.Tensor:
            seen["forward"] = (x.dtype, microtorch.is_autocast_enabled("cpu"))
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @microtorch.amp.custom_bwd(device_type="cpu")
        def backward(ctx: object, grad: microtorch.Tensor) -> microtorch.Tensor:
            seen["backward"] = microtorch.is_autocast_enabled("cpu")
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = microtorch.randn(3, dtype=f16, requires_grad=True)
    with _region("cpu"):
        y = Square.apply(x)
    assert seen["forward"] == (f32, False) and y.dtype is f32
    y.sum().backward()
    assert seen["backward"] is False and x.grad.dtype is f16

    class Plain(microtorch.autograd.Function):
        @staticmethod
        @microtorch.amp.custom_fwd(device_type="cpu")
        def forward(ctx: object, x: microtorch.Tensor) -> microtorch.Tensor:
            seen["plain"] = microtorch.is_autocast_enabled("cpu")
            return x * 2

        @staticmethod
        @microtorch.amp.custom_bwd(device_type="cpu")
        def backward(ctx: object, grad: microtorch.Tensor) -> microtorch.Tensor:
            seen["plain backward"] = microtorch.is_autocast_enabled("cpu")
            return grad * 2

    x = microtorch.randn(3, requires_grad=True)
    with _region("cpu"):
        z = Plain.apply(x)
    z.sum().backward()
    assert seen["plain"] is True and seen["plain backward"] is True
    assert not microtorch.is_autocast_enabled("cpu")
    with pytest.raises(TypeError):
        microtorch.amp.custom_fwd(lambda ctx, x: x)  # device_type is required


# ----------------------------------------------------------------- GradScaler
def _param_and_optimizer(device: str = "cpu", lr: float = 0.1) -> tuple:
    p = microtorch.tensor([1.0, 2.0], device=device, requires_grad=True)
    return p, microtorch.optim.SGD([p], lr=lr)


def _backward(scaler: object, p: microtorch.Tensor, value: float = 1.0) -> None:
    scaler.scale((p * value).sum()).backward()


def test_scale_multiplies_tensors_and_lists() -> None:
    scaler = microtorch.amp.GradScaler("cpu", init_scale=8.0)
    loss = microtorch.tensor(1.5)
    assert scaler.scale(loss).item() == 12.0 and scaler.get_scale() == 8.0
    pair = scaler.scale([loss, (loss, loss)])
    assert isinstance(pair, list) and isinstance(pair[1], tuple) and pair[1][0].item() == 12.0
    assert scaler.scale(microtorch.tensor(2.0, dtype=f16)).dtype is f32  # (as PyTorch's)
    with pytest.raises(ValueError, match="Tensor or an iterable of Tensors"):
        scaler.scale(3.0)
    assert scaler._scale.dtype is f32 and scaler._growth_tracker.dtype is microtorch.int32


def test_step_unscales_and_steps() -> None:
    p, opt = _param_and_optimizer()
    scaler = microtorch.amp.GradScaler("cpu", init_scale=1024.0)
    _backward(scaler, p, 3.0)
    assert p.grad.tolist() == [3072.0, 3072.0]
    assert scaler.step(opt) is None  # (SGD.step returns None)
    assert p.grad.tolist() == [3.0, 3.0]
    np.testing.assert_allclose(p.detach().numpy(), [0.7, 1.7], rtol=1e-6)
    scaler.update()
    assert scaler.get_scale() == 1024.0 and scaler._get_growth_tracker() == 1


@pytest.mark.parametrize("bad", [float("inf"), float("nan")])
def test_a_step_with_inf_or_nan_is_skipped_and_the_scale_backs_off(bad: float) -> None:
    p, opt = _param_and_optimizer()
    scaler = microtorch.amp.GradScaler("cpu", init_scale=1024.0, backoff_factor=0.25)
    _backward(scaler, p, bad)
    scaler.step(opt)
    assert p.tolist() == [1.0, 2.0]  # unchanged
    scaler.update()
    assert scaler.get_scale() == 256.0 and scaler._get_growth_tracker() == 0


def test_the_scale_grows_after_growth_interval_good_steps() -> None:
    p, opt = _param_and_optimizer(lr=0.0)
    scaler = microtorch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=3)
    scales = []
    for _ in range(7):
        opt.zero_grad()
        _backward(scaler, p)
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    assert scales == [4.0, 4.0, 8.0, 8.0, 8.0, 16.0, 16.0]


def test_scale_sequence_matches_pytorch() -> None:
    torch = pytest.importorskip("torch")
    values = [1.0, 1.0, float("inf"), 1.0, 1.0, 1.0, float("nan"), 1.0, 1.0, 1.0, 1.0]
    history = []
    for lib in (microtorch, torch):
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.01)
        scaler = lib.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2)
        scales, params = [], []
        for v in values:
            opt.zero_grad()
            scaler.scale((p * v).sum()).backward()
            scaler.step(opt)
            scaler.update()
            scales.append(scaler.get_scale())
            params.append(p.tolist())
        history.append((scales, params, scaler.state_dict()))
    assert history[0][0] == history[1][0]
    np.testing.assert_allclose(history[0][1], history[1][1], rtol=1e-6)
    assert history[0][2] == history[1][2]


def test_unscale_twice_or_after_step_raises() -> None:
    p, opt = _param_and_optimizer()
    scaler = microtorch.amp.GradScaler("cpu")
    _backward(scaler, p)
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="already been called on this optimizer"):
        scaler.unscale_(opt)
    scaler.step(opt)  # (uses the unscaled gradients, does not unscale again)
    with pytest.raises(RuntimeError, match="being called after step"):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    scaler.update()
    _backward(scaler, p)
    scaler.unscale_(opt)  # (allowed again after update)


def test_unscale_then_clip_sees_true_gradients() -> None:
    p, opt = _param_and_optimizer()
    scaler = microtorch.amp.GradScaler("cpu", init_scale=2.0**16)
    _backward(scaler, p, 2.0)
    scaler.unscale_(opt)
    assert p.grad.tolist() == [2.0, 2.0]


def test_errors_as_pytorch() -> None:
    p, opt = _param_and_optimizer()
    scaler = microtorch.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match="did not use scaler.scale"):
        scaler.step(opt)
    _backward(scaler, p)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: None)
    half = microtorch.ones(2, dtype=f16, requires_grad=True)  # (a float16 parameter)
    half_opt = microtorch.optim.SGD([half], lr=0.1)
    scaler.scale(half.sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        scaler.unscale_(half_opt)
    with pytest.raises(AssertionError, match="growth factor must be > 1.0"):
        microtorch.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="backoff factor must be < 1.0"):
        microtorch.amp.GradScaler("cpu", backoff_factor=1.0)
    fresh = microtorch.amp.GradScaler("cpu")
    fresh.scale(microtorch.tensor(1.0))
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
        fresh.update()


def test_step_returns_what_the_optimizer_returns() -> None:
    p, opt = _param_and_optimizer()
    opt.step = lambda *args, **kwargs: ("stepped", args, kwargs)
    scaler = microtorch.amp.GradScaler("cpu")
    _backward(scaler, p)
    assert scaler.step(opt, 1, extra=2) == ("stepped", (1,), {"extra": 2})


def test_update_with_a_new_scale() -> None:
    p, opt = _param_and_optimizer()
    scaler = microtorch.amp.GradScaler("cpu")
    _backward(scaler, p)
    scaler.step(opt)
    scaler.update(128.0)
    assert scaler.get_scale() == 128.0
    _backward(scaler, p)
    scaler.step(opt)
    scaler.update(microtorch.tensor([32.0]))
    assert scaler.get_scale() == 32.0
    with pytest.raises(AssertionError, match="new_scale should be a float"):
        scaler.update(microtorch.tensor([1.0, 2.0]))


def test_settings_and_disabled_pass_through() -> None:
    scaler = microtorch.amp.GradScaler("cpu", growth_interval=10)
    scaler.set_growth_factor(3.0)
    scaler.set_backoff_factor(0.125)
    scaler.set_growth_interval(5)
    assert (scaler.get_growth_factor(), scaler.get_backoff_factor()) == (3.0, 0.125)
    assert scaler.get_growth_interval() == 5 and scaler.is_enabled()
    off = microtorch.amp.GradScaler("cpu", enabled=False)
    p, opt = _param_and_optimizer()
    loss = (p * 2).sum()
    assert off.scale(loss) is loss and not off.is_enabled()
    loss.backward()
    off.unscale_(opt)
    assert off.step(opt) is None and p.tolist() == pytest.approx([0.8, 1.8])
    off.update()
    assert off.get_scale() == 1.0 and off.state_dict() == {}
    off.load_state_dict({})  # (nothing happens)


def test_state_dict_round_trip() -> None:
    p, opt = _param_and_optimizer()
    scaler = microtorch.amp.GradScaler("cpu", init_scale=64.0, growth_interval=7)
    for v in (1.0, float("inf"), 1.0):
        opt.zero_grad()
        _backward(scaler, p, v)
        scaler.step(opt)
        scaler.update()
    state = scaler.state_dict()
    assert state == {"scale": 32.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                     "growth_interval": 7, "_growth_tracker": 1}  # fmt: skip
    other = microtorch.amp.GradScaler("cpu")
    other.load_state_dict(state)
    assert other.state_dict() == state
    other.scale(microtorch.tensor(1.0))  # (lazily made from the loaded values)
    assert other.get_scale() == 32.0 and other._get_growth_tracker() == 1
    with pytest.raises(RuntimeError, match="source state dict is empty"):
        other.load_state_dict({})


def test_state_dicts_load_across_pytorch_and_microtorch() -> None:
    torch = pytest.importorskip("torch")
    theirs = torch.amp.GradScaler("cpu", init_scale=512.0, growth_interval=11)
    p = torch.tensor([1.0], requires_grad=True)
    opt = torch.optim.SGD([p], lr=0.1)
    theirs.scale(p.sum() * float("inf")).backward()
    theirs.step(opt)
    theirs.update()
    ours = microtorch.amp.GradScaler("cpu")
    ours.load_state_dict(theirs.state_dict())
    assert ours.state_dict() == theirs.state_dict()
    back = torch.amp.GradScaler("cpu")
    back.load_state_dict(ours.state_dict())
    assert back.state_dict() == ours.state_dict()


def test_scaler_keeps_its_state_on_the_device(device: str) -> None:
    p, opt = _param_and_optimizer(device)
    scaler = microtorch.amp.GradScaler(device, init_scale=16.0)
    _backward(scaler, p)
    assert scaler._scale.device.type == device
    scaler.step(opt)
    found = scaler._per_optimizer_states[id(opt)]["found_inf_per_device"]
    assert all(f.device.type == device for f in found.values())
    scaler.update()
    assert scaler._scale.device.type == scaler._growth_tracker.device.type == device
    assert scaler.get_scale() == 16.0


@pytest.mark.skipif(not FAKE, reason="counts the fake CuPy's host waits")
def test_only_step_waits_for_the_gpu_and_only_once() -> None:
    """scale, backward, unscale_ and update run on device arrays; step reads the flag once."""
    from tests import fake_cupy

    p, opt = _param_and_optimizer("cuda")
    scaler = microtorch.amp.GradScaler("cuda")
    with fake_cupy.count_host_syncs() as before_step:
        _backward(scaler, p)
        scaler.unscale_(opt)
    with fake_cupy.count_host_syncs() as in_step:
        scaler.step(opt)
    with fake_cupy.count_host_syncs() as in_update:
        scaler.update()
    assert (before_step[0], in_step[0], in_update[0]) == (0, 1, 0)


@pytest.mark.skipif(cuda_available(), reason="this machine has CUDA")
def test_cuda_scaler_without_cuda_warns_and_disables() -> None:
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling"):
        scaler = microtorch.amp.GradScaler()
    assert not scaler.is_enabled()


# ----------------------------------------------------------------- the deprecated spellings
def test_deprecated_aliases_warn_future_warning() -> None:
    from microtorch.cpu.amp import autocast as cpu_autocast
    from microtorch.cuda.amp import GradScaler, autocast

    assert microtorch.cuda.amp.autocast is autocast and microtorch.cpu.amp.autocast is cpu_autocast
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (no CUDA / no bfloat16: disabled)
        with pytest.warns(FutureWarning, match=r"torch.amp.autocast\('cuda', args...\)"):
            region = autocast()
        assert isinstance(region, microtorch.autocast) and region.device == "cuda"
        with pytest.warns(FutureWarning, match=r"torch.amp.GradScaler\('cuda', args...\)"):
            GradScaler()
        with pytest.warns(FutureWarning, match=r"torch.amp.autocast\('cpu', args...\)"):
            cpu_autocast(dtype=f16)
        with pytest.warns(FutureWarning, match=r"torch.amp.GradScaler\('cpu', args...\)"):
            assert microtorch.cpu.amp.GradScaler().is_enabled()
        with pytest.warns(FutureWarning, match="device_type='cuda'"):
            microtorch.cuda.amp.custom_fwd(lambda ctx, x: x)
        with pytest.warns(FutureWarning, match="device_type='cuda'"):
            microtorch.cuda.amp.custom_bwd(lambda ctx, x: x)
    with pytest.warns(FutureWarning):
        with cpu_autocast(dtype=f16):
            assert (microtorch.randn(2, 2) @ microtorch.randn(2, 2)).dtype is f16


def _old_per_device_functions(lib) -> list:
    """torch.get_autocast_cpu_dtype() & co.: DeprecationWarning, then the new call's result."""
    seen = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.set_autocast_cpu_dtype(lib.float16)
        lib.set_autocast_gpu_dtype(lib.float16)
        seen += [lib.get_autocast_cpu_dtype(), lib.get_autocast_gpu_dtype()]
        lib.set_autocast_cpu_enabled(True)
        seen.append(lib.is_autocast_cpu_enabled())
        lib.set_autocast_cpu_enabled(False)
        seen.append(lib.is_autocast_cpu_enabled())
    seen = [_name(v) if not isinstance(v, bool) else v for v in seen]
    return seen + [w.category.__name__ for w in caught]


def test_old_per_device_functions_warn_as_in_pytorch() -> None:
    seen = _old_per_device_functions(microtorch)
    assert seen == ["float16", "float16", True, False] + ["DeprecationWarning"] * 8
    torch = pytest.importorskip("torch")
    previous = torch.get_autocast_dtype("cpu")
    try:
        assert _old_per_device_functions(torch) == seen
    finally:
        torch.set_autocast_dtype("cpu", previous)


def test_the_deprecation_warning_names_the_callers_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        microtorch.cpu.amp.GradScaler()
        microtorch.cuda.amp.custom_bwd(lambda ctx, x: x)
    assert [w.filename for w in caught if w.category is FutureWarning] == [__file__] * 2


def test_pytorch_warns_the_same_category() -> None:
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.warns(FutureWarning):
            torch.cuda.amp.autocast()
        with pytest.warns(FutureWarning):
            torch.cpu.amp.autocast()


# ----------------------------------------------------------------- training with both
def test_training_with_autocast_and_grad_scaler_lowers_the_loss(device: str) -> None:
    microtorch.manual_seed(0)
    x = microtorch.randn(64, 8, device=device)
    y = (x[:, :4].sum(1) > 0).long()
    model = microtorch.nn.Sequential(
        microtorch.nn.Linear(8, 32), microtorch.nn.ReLU(), microtorch.nn.Linear(32, 2)
    ).to(device)
    opt = microtorch.optim.Adam(model.parameters(), lr=1e-2)
    scaler = microtorch.amp.GradScaler(device)
    losses = []
    for _ in range(200):
        opt.zero_grad()
        with microtorch.autocast(device, dtype=f16):
            logits = model(x)
            loss = mF.cross_entropy(logits, y)
        assert logits.dtype is f16 and loss.dtype is f32
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    assert all(p.dtype is f32 for p in model.parameters())
    assert losses[-1] < 0.3 * losses[0], losses[::20]
