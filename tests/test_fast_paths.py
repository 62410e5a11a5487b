"""The performance work of issue 5 kept every result: the fast float32 paths (erf, GELU with
its derivative computed in forward, sigmoid without where, layer norm on 2-D rows, causal
attention with an additive bias, Linear on folded leading dims, row scatter-adds for
embedding and integer indexing) against float64 references, on shapes and values where a
shortcut could go wrong (tails, infinities, NaN, negative and repeated indices)."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import microtorch
import microtorch.nn.functional as F
from microtorch.ops.elementwise import erf
from microtorch.ops.indexing import add_rows_at

_erf64 = np.vectorize(math.erf, otypes=[np.float64])


def _t(array, device, grad=False):
    t = microtorch.tensor(array, device=device)
    return t.requires_grad_(True) if grad else t


def _np(t):
    return microtorch.backend.to_numpy(t.detach().array)


def test_float32_erf_matches_math_erf(device):
    x = np.concatenate([np.linspace(-8, 8, 20001), [0.0, -0.0, 1e-30, -1e-30]]).astype(np.float32)
    got = microtorch.backend.to_numpy(erf(_t(x, device).array))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, _erf64(x.astype(np.float64)), atol=6e-7, rtol=0)
    special = np.array([np.inf, -np.inf, np.nan], dtype=np.float32)
    out = microtorch.backend.to_numpy(erf(_t(special, device).array))
    assert out[0] == 1.0 and out[1] == -1.0 and np.isnan(out[2])


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_float32_gelu_forward_and_backward_match_float64(device, approximate):
    x = np.linspace(-9, 9, 4001).astype(np.float32)
    g = np.random.default_rng(0).standard_normal(x.shape).astype(np.float32)
    xt = _t(x, device, grad=True)
    y = F.gelu(xt, approximate=approximate)
    y.backward(_t(g, device))
    x64 = x.astype(np.float64)
    if approximate == "none":
        cdf = 0.5 * (1 + _erf64(x64 / math.sqrt(2)))
        ref = x64 * cdf
        dref = cdf + x64 * np.exp(-0.5 * x64 * x64) / math.sqrt(2 * math.pi)
    else:
        t = np.tanh(math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64**3))
        ref = 0.5 * x64 * (1 + t)
        inner = math.sqrt(2 / math.pi) * (1 + 3 * 0.044715 * x64**2)
        dref = 0.5 * (1 + t) + 0.5 * x64 * (1 - t * t) * inner
    assert y.dtype is microtorch.float32
    np.testing.assert_allclose(_np(y), ref, atol=3e-6, rtol=1e-5)
    np.testing.assert_allclose(_np(xt.grad), g * dref, atol=3e-6, rtol=1e-5)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_float16_gelu_and_erf_work_on_every_device(device, approximate):
    """The CUDA kernels are built for float32/float64; float16 takes the array code."""
    x = np.linspace(-4, 4, 101).astype(np.float16)
    xt = _t(x, device, grad=True)
    y = F.gelu(xt, approximate=approximate)
    y.sum().backward()
    x32 = _t(x.astype(np.float32), device, grad=True)
    y32 = F.gelu(x32, approximate=approximate)
    y32.sum().backward()
    assert y.dtype is microtorch.float16 and xt.grad.dtype is microtorch.float16
    np.testing.assert_allclose(_np(y).astype(np.float32), _np(y32), atol=1e-2, rtol=1e-2)
    np.testing.assert_allclose(_np(xt.grad).astype(np.float32), _np(x32.grad), atol=1e-2, rtol=1e-2)
    e = microtorch.backend.to_numpy(erf(_t(x, device).array))
    np.testing.assert_allclose(e.astype(np.float64), _erf64(x.astype(np.float64)), atol=2e-3)


def test_gelu_float64_gradcheck():
    x = microtorch.tensor(np.linspace(-4, 4, 9), dtype=microtorch.float64, requires_grad=True)
    assert microtorch.autograd.gradcheck(lambda a: F.gelu(a), (x,))


def test_sigmoid_values_tails_and_gradient(device):
    x = np.array([-80, -20, -1, -0.0, 0, 1, 20, 100, np.inf, -np.inf], dtype=np.float32)
    xt = _t(x, device, grad=True)
    y = xt.sigmoid()
    y.sum().backward()
    x64 = x.astype(np.float64)
    with np.errstate(over="ignore"):
        ref = 1 / (1 + np.exp(-x64))
    np.testing.assert_allclose(_np(y), ref, rtol=1e-6, atol=0)  # tails exact, not 0 or 1
    # y (1 - y) in float32, as PyTorch computes it: 0 once y rounds to 1 (x >= 17)
    np.testing.assert_allclose(_np(xt.grad), ref * (1 - ref), rtol=1e-5, atol=1e-8)
    assert np.isnan(_np(_t(np.array([np.nan], np.float32), device).sigmoid()))[0]


@pytest.mark.parametrize("shape,ndims", [((3, 5, 16), 1), ((4, 6, 8), 2), ((2, 7), 1)])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_rows_path_matches_float64(device, shape, ndims, affine):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    norm = shape[-ndims:]
    w = rng.standard_normal(norm).astype(np.float32) if affine else None
    b = rng.standard_normal(norm).astype(np.float32) if affine else None
    g = rng.standard_normal(shape).astype(np.float32)
    xt = _t(x, device, grad=True)
    wt = _t(w, device, grad=True) if affine else None
    bt = _t(b, device, grad=True) if affine else None
    y = F.layer_norm(xt, norm, wt, bt)
    y.backward(_t(g, device))
    # float64 reference with the textbook formulas
    axes = tuple(range(len(shape) - ndims, len(shape)))
    x64, g64 = x.astype(np.float64), g.astype(np.float64)
    mean = x64.mean(axis=axes, keepdims=True)
    inv_std = 1 / np.sqrt(((x64 - mean) ** 2).mean(axis=axes, keepdims=True) + 1e-5)
    xhat = (x64 - mean) * inv_std
    w64 = w.astype(np.float64) if affine else 1.0
    ref = xhat * w64 + (b.astype(np.float64) if affine else 0.0)
    gh = g64 * w64
    gx = (
        gh - gh.mean(axis=axes, keepdims=True) - xhat * (gh * xhat).mean(axis=axes, keepdims=True)
    ) * inv_std
    np.testing.assert_allclose(_np(y), ref, atol=2e-5, rtol=1e-4)
    np.testing.assert_allclose(_np(xt.grad), gx, atol=2e-4, rtol=1e-3)
    if affine:
        batch = tuple(range(len(shape) - ndims))
        np.testing.assert_allclose(_np(wt.grad), (g64 * xhat).sum(axis=batch), atol=2e-4, rtol=1e-4)
        np.testing.assert_allclose(_np(bt.grad), g64.sum(axis=batch), atol=2e-4, rtol=1e-4)


def test_causal_attention_matches_explicit_mask(device):
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((2, 3, 5, 4)).astype(np.float32) for _ in range(3))
    g = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
    mask = np.tril(np.ones((5, 5), dtype=bool))
    grads = []
    for causal in (True, False):
        qt, kt, vt = (_t(a, device, grad=True) for a in (q, k, v))
        kwargs = {"is_causal": True} if causal else {"attn_mask": _t(mask, device)}
        out = F.scaled_dot_product_attention(qt, kt, vt, **kwargs)
        out.backward(_t(g, device))
        grads.append([_np(out)] + [_np(t.grad) for t in (qt, kt, vt)])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("x_shape", [(7,), (4, 7), (2, 3, 7), (2, 0, 7)])
def test_linear_folded_leading_dims(device, x_shape):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal((5, 7)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    g = rng.standard_normal(x_shape[:-1] + (5,)).astype(np.float32)
    xt, wt, bt = _t(x, device, grad=True), _t(w, device, grad=True), _t(b, device, grad=True)
    y = F.linear(xt, wt, bt)
    assert tuple(y.shape) == x_shape[:-1] + (5,)
    y.backward(_t(g, device))
    np.testing.assert_allclose(_np(y), x @ w.T + b, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(_np(xt.grad), g @ w, atol=1e-5, rtol=1e-5)
    g2, x2 = g.reshape(-1, 5), x.reshape(-1, 7)
    np.testing.assert_allclose(_np(wt.grad), g2.T @ x2, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(_np(bt.grad), g2.sum(axis=0), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize(
    "idx",
    [[0, 2, 2, -1, 4, 0, 0], [[1, 3], [3, 1]], [], [4]],
    ids=["repeats", "2d", "empty", "one"],
)
def test_add_rows_at_equals_numpy_add_at(idx):
    rng = np.random.default_rng(4)
    idx = np.array(idx, dtype=np.int64).reshape(-1)
    rows = rng.standard_normal((idx.size, 3, 2)).astype(np.float32)
    out = rng.standard_normal((5, 3, 2)).astype(np.float32)
    expected = out.copy()
    np.add.at(expected, idx, rows)
    add_rows_at(out, idx, rows)
    np.testing.assert_allclose(out, expected, atol=1e-6, rtol=1e-6)


def test_integer_and_mask_index_backward(device):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 3)).astype(np.float32)
    for index in (np.array([5, 0, 5, -1, 2]), rng.random(6) < 0.5, rng.random((6, 3)) < 0.5):
        xt = _t(x, device, grad=True)
        y = xt[_t(index, device)]
        g = rng.standard_normal(tuple(y.shape)).astype(np.float32)
        y.backward(_t(g, device))
        expected = np.zeros_like(x)
        np.add.at(expected, index, g)
        np.testing.assert_allclose(_np(xt.grad), expected, atol=1e-6)


def test_embedding_backward_sums_repeated_rows(device):
    w = _t(np.arange(12, dtype=np.float32).reshape(4, 3), device, grad=True)
    idx = _t(np.array([[3, 0], [3, 3]]), device)
    F.embedding(idx, w).sum().backward()
    np.testing.assert_array_equal(_np(w.grad)[:, 0], [1, 0, 0, 3])


def test_malloc_tuning_applies_and_can_be_turned_off():
    code = "import microtorch.backend as b; print(b.keep_freed_host_memory())"
    on = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    expected = "True" if sys.platform == "linux" else "False"
    assert on.stdout.strip() in (expected, "False")  # False off glibc (musl, macOS)
    env = dict(os.environ, MICROTORCH_MALLOC_TUNING="0")
    off = subprocess.run(
        [sys.executable, "-c", "import microtorch; print(microtorch.tensor([1.0, 2.0]).sum().item())"],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    assert off.stdout.strip() == "3.0"
