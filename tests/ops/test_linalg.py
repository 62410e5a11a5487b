"""ops/linalg.py's array products: float16 on the CPU is multiplied in float32 and rounded
once (NumPy's own float16 loop is ~50x slower than BLAS and is not what PyTorch computes)."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch.ops.linalg import matmul_arrays

RNG = np.random.default_rng(0)


def test_float16_products_are_float32_products_rounded_once() -> None:
    a = RNG.standard_normal((33, 70)).astype(np.float16)
    b = RNG.standard_normal((70, 9)).astype(np.float16)
    got = matmul_arrays(a, b)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(
        got, (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    )
    assert matmul_arrays(a.astype(np.float32), b.astype(np.float32)).dtype == np.float32


@pytest.mark.parametrize(
    "call",
    [
        lambda T, a, b, w: a @ b,
        lambda T, a, b, w: T.nn.functional.linear(a, w),
        lambda T, a, b, w: T.nn.functional.scaled_dot_product_attention(a, a, a, is_causal=True),
    ],
    ids=["matmul", "linear", "sdpa"],
)
def test_float16_products_match_pytorch_forward_and_backward(call) -> None:
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((2, 12, 16)).astype(np.float16)
    b = RNG.standard_normal((16, 8)).astype(np.float16)
    w = RNG.standard_normal((8, 16)).astype(np.float16)
    results = []
    for T in (microtorch, torch):
        ta = T.tensor(a, requires_grad=True)
        out = call(T, ta, T.tensor(b), T.tensor(w))
        out.float().square().sum().backward()
        results.append((out.detach().numpy(), ta.grad.numpy()))
    (ours, ours_grad), (theirs, theirs_grad) = results
    assert ours.dtype == theirs.dtype == np.float16
    np.testing.assert_allclose(
        ours.astype(np.float32), theirs.astype(np.float32), atol=4e-3, rtol=2e-3
    )
    np.testing.assert_allclose(
        ours_grad.astype(np.float32), theirs_grad.astype(np.float32), atol=2e-2, rtol=5e-3
    )
