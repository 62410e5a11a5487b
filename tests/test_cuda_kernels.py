"""The fused CUDA kernels give the same numbers as the NumPy code next to them.

Each case runs one op forward and backward on the CPU (NumPy) and on the GPU (CuPy
kernels) from the same inputs and compares outputs and gradients. Skipped without a GPU."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch as torch
import microtorch.nn.functional as F
from tests.conftest import requires_cuda

pytestmark = requires_cuda

CASES = {
    "gelu": (lambda x: F.gelu(x), [(4, 37)]),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), [(4, 37)]),
    "softmax": (lambda x: F.softmax(x, dim=-1), [(3, 5, 300)]),
    "softmax_small_rows": (lambda x: F.softmax(x, dim=-1), [(7, 3)]),
    "log_softmax": (lambda x: F.log_softmax(x, dim=-1), [(6, 65)]),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (384,), w, b), [(2, 5, 384), (384,), (384,)]),
    "layer_norm_no_bias": (lambda x, w: F.layer_norm(x, (384,), w, None), [(2, 5, 384), (384,)]),
    "layer_norm_2d": (
        lambda x, w, b: F.layer_norm(x, (3, 40), w, b),
        [(2, 3, 40), (3, 40), (3, 40)],
    ),
    "sdpa_causal": (
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        [(2, 3, 17, 8), (2, 3, 17, 8), (2, 3, 17, 8)],
    ),
    "cross_entropy": (
        lambda x: F.cross_entropy(x, torch.tensor([1, 0, 64, 3, -100, 5], device=x.device)),
        [(6, 65)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_matches_numpy(name: str, dtype: str) -> None:
    fn, shapes = CASES[name]
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(dtype) * 3 for s in shapes]
    results: dict = {}
    upstream = None
    for device in ("cpu", "cuda"):
        inputs = [torch.tensor(a, device=device, requires_grad=True) for a in arrays]
        out = fn(*inputs)
        if upstream is None:  # the same upstream gradient for both devices
            upstream = rng.standard_normal(tuple(out.shape)).astype(dtype)
        out.backward(torch.tensor(upstream, device=device))
        results[device] = [out.detach().cpu().numpy()] + [i.grad.cpu().numpy() for i in inputs]
    tol = 1e-5 if dtype == "float32" else 1e-11
    for cpu_value, cuda_value in zip(results["cpu"], results["cuda"]):
        np.testing.assert_allclose(cuda_value, cpu_value, rtol=tol, atol=tol)
