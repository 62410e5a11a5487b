"""Exercise 4: max_pool1d. Run: pytest docs/exercises/test_ex4_max_pool1d.py"""

from __future__ import annotations

import numpy as np
import pytest
from exercise_support import get_op

import microtorch
from microtorch.autograd import gradcheck


@pytest.fixture
def max_pool1d():
    return get_op("max_pool1d")


def reference(x: np.ndarray, k: int, s: int, p: int) -> np.ndarray:
    pad = np.full(x.shape[:-1] + (p,), -np.inf)
    padded = np.concatenate([pad, x, pad], axis=-1)
    n_out = (x.shape[-1] + 2 * p - k) // s + 1
    return np.stack([padded[..., i * s : i * s + k].max(axis=-1) for i in range(n_out)], -1)


def distinct(*shape: int, seed: int = 0) -> np.ndarray:
    """Values far enough apart that no window has a tie (finite differences stay clean)."""
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n) * 0.31 - n * 0.15).reshape(shape)


@pytest.mark.parametrize("k, s, p", [(2, None, 0), (3, 1, 0), (3, 2, 1), (4, 3, 2), (5, 5, 0)])
def test_values(max_pool1d, k, s, p):
    x = distinct(2, 3, 11)
    out = max_pool1d(microtorch.tensor(x), k, s, p)
    expected = reference(x, k, k if s is None else s, p)
    assert tuple(out.shape) == expected.shape
    np.testing.assert_array_equal(out.numpy(), expected)


def test_two_dim_input(max_pool1d):
    x = distinct(3, 8)
    out = max_pool1d(microtorch.tensor(x), 2)
    np.testing.assert_array_equal(out.numpy(), reference(x, 2, 2, 0))


def test_overlapping_windows_add_up(max_pool1d):
    x = microtorch.tensor([[[0.0, 5.0, 1.0, 2.0]]], requires_grad=True)
    out = max_pool1d(x, 3, stride=1)  # windows [0, 5, 1] and [5, 1, 2]: 5 wins both
    np.testing.assert_array_equal(out.detach().numpy(), [[[5.0, 5.0]]])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[0.0, 2.0, 0.0, 0.0]]])


def test_padding_never_wins(max_pool1d):
    x = microtorch.tensor([[-3.0, -1.0, -2.0]], requires_grad=True)
    out = max_pool1d(x, 2, stride=2, padding=1)  # windows [pad, -3], [-1, -2]
    np.testing.assert_array_equal(out.detach().numpy(), [[-3.0, -1.0]])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 1.0, 0.0]])


def test_gradient(max_pool1d):
    x = microtorch.tensor(distinct(2, 2, 9, seed=1), requires_grad=True)
    assert gradcheck(lambda t: max_pool1d(t, 3, 2, 1), [x])
    assert gradcheck(lambda t: max_pool1d(t, 2, 1), [x])


def test_bad_arguments_are_explained(max_pool1d):
    x = microtorch.randn(1, 2, 6)
    with pytest.raises(RuntimeError, match="padding"):
        max_pool1d(x, 2, padding=2)  # PyTorch: padding at most kernel_size / 2


def test_matches_pytorch(max_pool1d):
    torch = pytest.importorskip("torch")
    x = distinct(2, 3, 10, seed=2)
    w = np.random.default_rng(4).standard_normal((2, 3, 5))
    ours = microtorch.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    (max_pool1d(ours, 3, 2, 1) * microtorch.tensor(w)).sum().backward()
    (torch.nn.functional.max_pool1d(theirs, 3, 2, 1) * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())
