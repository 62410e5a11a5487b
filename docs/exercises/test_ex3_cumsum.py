"""Exercise 3: cumsum. Run: pytest docs/exercises/test_ex3_cumsum.py"""

from __future__ import annotations

import numpy as np
import pytest
from exercise_support import get_op

import microtorch
from microtorch.autograd import gradcheck


@pytest.fixture
def cumsum():
    return get_op("cumsum")


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_values(cumsum, dim):
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    out = cumsum(microtorch.tensor(x), dim)
    assert out.shape == (2, 3, 4) and out.dtype is microtorch.float64
    np.testing.assert_allclose(out.numpy(), np.cumsum(x, axis=dim), rtol=1e-12)


def test_gradient(cumsum):
    x = microtorch.tensor(np.random.default_rng(1).standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(lambda t: cumsum(t, 1), [x])
    assert gradcheck(lambda t: cumsum(t, 0), [x])
    v = microtorch.zeros(5, requires_grad=True)
    cumsum(v, 0).sum().backward()  # v[j] appears in out[j], ..., out[4]
    np.testing.assert_array_equal(v.grad.numpy(), [5.0, 4.0, 3.0, 2.0, 1.0])


def test_integers_sum_as_int64(cumsum):
    out = cumsum(microtorch.tensor([1, 2, 3], dtype=microtorch.int32), 0)
    assert out.dtype is microtorch.int64 and out.tolist() == [1, 3, 6]
    out = cumsum(microtorch.tensor([True, False, True]), 0)
    assert out.dtype is microtorch.int64 and out.tolist() == [1, 1, 2]
    assert not out.requires_grad


def test_one_graph_node(cumsum):
    x = microtorch.randn(3, requires_grad=True)
    out = cumsum(x, 0)
    assert out.grad_fn.parents[0] is x and out.dtype is microtorch.float32


def test_matches_pytorch(cumsum):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(2).standard_normal((4, 3))
    w = np.random.default_rng(3).standard_normal((4, 3))
    ours = microtorch.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    (cumsum(ours, -2) * microtorch.tensor(w)).sum().backward()
    (torch.cumsum(theirs, -2) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)
