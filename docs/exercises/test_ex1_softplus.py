"""Exercise 1: softplus. Run: pytest docs/exercises/test_ex1_softplus.py"""

from __future__ import annotations

import numpy as np
import pytest
from exercise_support import get_op

import microtorch
from microtorch.autograd import gradcheck


@pytest.fixture
def softplus():
    return get_op("softplus")


def reference(x: np.ndarray, beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    z = beta * x
    return np.where(z > threshold, x, np.logaddexp(0.0, z) / beta)


def test_values(softplus):
    x = np.random.default_rng(0).standard_normal((3, 4)) * 3
    out = softplus(microtorch.tensor(x))
    assert out.dtype is microtorch.float64 and out.shape == (3, 4)
    np.testing.assert_allclose(out.numpy(), reference(x), rtol=1e-12, atol=1e-12)
    out = softplus(microtorch.tensor(x), beta=2.0, threshold=5.0)
    np.testing.assert_allclose(out.numpy(), reference(x, 2.0, 5.0), rtol=1e-12, atol=1e-12)


def test_large_inputs_do_not_overflow(softplus):
    x = microtorch.tensor([-1000.0, 0.0, 1000.0])
    out = softplus(x).numpy()
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, [0.0, np.log(2.0), 1000.0], rtol=1e-6)
    out = softplus(x, threshold=1e9).numpy()  # no linear shortcut: still no overflow
    np.testing.assert_allclose(out, [0.0, np.log(2.0), 1000.0], rtol=1e-6)


def test_gradient(softplus):
    x = microtorch.tensor(np.random.default_rng(1).standard_normal(6), requires_grad=True)
    assert gradcheck(lambda t: softplus(t, beta=1.5), [x])
    x.grad = None
    softplus(x).sum().backward()
    expected = 1 / (1 + np.exp(-x.detach().numpy()))  # d softplus / dx = sigmoid(x)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_one_graph_node_and_float32(softplus):
    x = microtorch.randn(2, 3, requires_grad=True)  # float32
    out = softplus(x)
    assert out.dtype is microtorch.float32
    assert out.grad_fn.parents[0] is x  # a Function of its own, not a composition
    out.sum().backward()
    assert x.grad.dtype is microtorch.float32 and x.grad.shape == (2, 3)


def test_matches_pytorch(softplus):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(2).standard_normal(8) * 10
    ours = microtorch.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    softplus(ours, beta=0.7, threshold=4.0).sum().backward()
    torch.nn.functional.softplus(theirs, beta=0.7, threshold=4.0).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10)
