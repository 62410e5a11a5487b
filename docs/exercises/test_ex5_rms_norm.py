"""Exercise 5: a fused rms_norm. Run: pytest docs/exercises/test_ex5_rms_norm.py"""

from __future__ import annotations

import numpy as np
import pytest
from exercise_support import get_op

import microtorch
from microtorch.autograd import gradcheck


@pytest.fixture
def rms_norm():
    return get_op("rms_norm")


def reference(x: np.ndarray, ndims: int, weight=None, eps: float = 1e-6) -> np.ndarray:
    axes = tuple(range(x.ndim - ndims, x.ndim))
    out = x / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
    return out if weight is None else out * weight


def test_values(rms_norm):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 3, 4)), rng.standard_normal(4)
    out = rms_norm(microtorch.tensor(x), (4,), microtorch.tensor(w), eps=1e-6)
    np.testing.assert_allclose(out.numpy(), reference(x, 1, w), rtol=1e-12)
    out = rms_norm(microtorch.tensor(x), [3, 4], eps=1e-5)  # two dims, no weight
    np.testing.assert_allclose(out.numpy(), reference(x, 2, eps=1e-5), rtol=1e-12)
    out = rms_norm(microtorch.tensor(x), 4)  # an int works too, eps defaults to dtype eps
    eps = np.finfo(np.float64).eps
    np.testing.assert_allclose(out.numpy(), reference(x, 1, eps=eps), rtol=1e-12)


def test_zero_rows_stay_finite(rms_norm):
    out = rms_norm(microtorch.zeros(2, 3), (3,))
    assert out.dtype is microtorch.float32
    np.testing.assert_array_equal(out.numpy(), np.zeros((2, 3), np.float32))


def test_gradient(rms_norm):
    rng = np.random.default_rng(1)
    x = microtorch.tensor(rng.standard_normal((3, 5)), requires_grad=True)
    w = microtorch.tensor(rng.standard_normal(5), requires_grad=True)
    assert gradcheck(lambda a, b: rms_norm(a, (5,), b, eps=1e-6), [x, w])
    assert gradcheck(lambda a: rms_norm(a, (3, 5), eps=1e-6), [x])


def test_fused_into_one_graph_node(rms_norm):
    x = microtorch.randn(4, 6, requires_grad=True)
    w = microtorch.ones(6, requires_grad=True)
    out = rms_norm(x, (6,), w)
    parents = out.grad_fn.parents
    assert parents[0] is x and parents[1] is w  # one op straight from the leaves
    out.sum().backward()
    assert x.grad.shape == (4, 6) and w.grad.shape == (6,)
    assert x.grad.dtype is microtorch.float32


def test_shape_errors_are_explained(rms_norm):
    with pytest.raises(RuntimeError, match="normalized_shape"):
        rms_norm(microtorch.randn(2, 3), (4,))


def test_matches_pytorch(rms_norm):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    x, w, g = rng.standard_normal((2, 3, 8)), rng.standard_normal(8), rng.standard_normal((2, 3, 8))
    ours_x, ours_w = (microtorch.tensor(a, requires_grad=True) for a in (x, w))
    theirs_x, theirs_w = (torch.tensor(a, requires_grad=True) for a in (x, w))
    (rms_norm(ours_x, (8,), ours_w) * microtorch.tensor(g)).sum().backward()
    (torch.nn.functional.rms_norm(theirs_x, (8,), theirs_w) * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours_w.grad.numpy(), theirs_w.grad.numpy(), rtol=1e-10)
