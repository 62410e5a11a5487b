"""Exercise 2: logsumexp. Run: pytest docs/exercises/test_ex2_logsumexp.py"""

from __future__ import annotations

import numpy as np
import pytest
from exercise_support import get_op

import microtorch
from microtorch.autograd import gradcheck


@pytest.fixture
def logsumexp():
    return get_op("logsumexp")


def reference(x: np.ndarray, dim, keepdim: bool = False) -> np.ndarray:
    m = x.max(axis=dim, keepdims=True)
    out = m + np.log(np.exp(x - m).sum(axis=dim, keepdims=True))
    return out if keepdim else np.squeeze(out, axis=dim)


@pytest.mark.parametrize(
    "dim, keepdim", [(0, False), (1, False), (-1, True), ((0, 2), False), ((1, 2), True)]
)
def test_values(logsumexp, dim, keepdim):
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    out = logsumexp(microtorch.tensor(x), dim, keepdim=keepdim)
    expected = reference(x, dim, keepdim)
    assert tuple(out.shape) == expected.shape and out.dtype is microtorch.float64
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


def test_large_inputs_are_stable(logsumexp):
    x = microtorch.tensor([[1000.0, 1000.0], [-1000.0, -1000.0]])
    out = logsumexp(x, 1).numpy()
    np.testing.assert_allclose(out, [1000 + np.log(2), -1000 + np.log(2)], rtol=1e-6)


def test_gradient_is_softmax(logsumexp):
    x = microtorch.tensor(np.random.default_rng(1).standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(lambda t: logsumexp(t, 1), [x])
    assert gradcheck(lambda t: logsumexp(t, (0, 1), keepdim=True), [x])
    x.grad = None
    logsumexp(x, 1).sum().backward()
    a = x.detach().numpy()
    softmax = np.exp(a) / np.exp(a).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(x.grad.numpy(), softmax, rtol=1e-12)


def test_one_graph_node(logsumexp):
    x = microtorch.randn(4, 5, requires_grad=True)
    out = logsumexp(x, -1)
    assert out.grad_fn.parents[0] is x  # one fused op, not max/sub/exp/sum/log/add
    out.sum().backward()
    assert x.grad.shape == (4, 5) and x.grad.dtype is microtorch.float32


def test_matches_pytorch(logsumexp):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(2).standard_normal((3, 5)) * 20
    ours = microtorch.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    logsumexp(ours, 0).sum().backward()
    torch.logsumexp(theirs, 0).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10)
