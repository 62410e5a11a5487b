"""F.gumbel_softmax: the argmax of its samples follows softmax(logits); the soft sample and
the hard (straight-through) one match PyTorch's formulas on the same Gumbel noise, drawn
from microtorch's seeded generator."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch.nn import functional as F


def test_the_argmax_of_many_draws_follows_softmax_of_the_logits() -> None:
    microtorch.manual_seed(0)
    logits = np.array([1.0, 0.0, -1.0, 2.0])
    draws = 40000
    for hard in (False, True):
        y = F.gumbel_softmax(microtorch.tensor(logits).expand(draws, 4), tau=0.5, hard=hard)
        freq = np.bincount(y.argmax(1).numpy(), minlength=4) / draws
        p = np.exp(logits) / np.exp(logits).sum()
        np.testing.assert_allclose(freq, p, atol=4 * np.sqrt(p * (1 - p) / draws).max())
        if hard:
            assert set(np.unique(y.numpy())) == {0.0, 1.0} and (y.sum(1).numpy() == 1).all()


def test_same_seed_same_sample_and_a_soft_sample_sums_to_one_along_dim() -> None:
    logits = microtorch.randn(3, 5, 2)
    microtorch.manual_seed(7)
    a = F.gumbel_softmax(logits, tau=2.0, dim=1)
    microtorch.manual_seed(7)
    b = F.gumbel_softmax(logits, tau=2.0, dim=1)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_allclose(a.sum(1).numpy(), 1.0, rtol=1e-6)
    assert a.shape == logits.shape and a.dtype is microtorch.float32


@pytest.mark.parametrize("hard", [False, True])
def test_forward_and_gradient_match_pytorchs_estimator_on_the_same_noise(hard: bool) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    logits, weight = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    microtorch.manual_seed(3)  # the noise gumbel_softmax will draw: the same stream
    noise = -microtorch.empty(4, 6, dtype=microtorch.float64).exponential_().log().numpy()
    microtorch.manual_seed(3)
    ours = microtorch.tensor(logits, requires_grad=True)
    got = F.gumbel_softmax(ours, tau=0.7, hard=hard)
    (got * microtorch.tensor(weight)).sum().backward()

    theirs = torch.tensor(logits, requires_grad=True)  # PyTorch's formula, written out
    y_soft = ((theirs + torch.tensor(noise)) / 0.7).softmax(-1)
    expected = y_soft
    if hard:
        y_hard = torch.zeros_like(y_soft).scatter_(-1, y_soft.argmax(-1, keepdim=True), 1.0)
        expected = y_hard - y_soft.detach() + y_soft
    (expected * torch.tensor(weight)).sum().backward()
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10)
    assert not hard or np.abs(ours.grad.numpy()).sum() > 0  # the hard sample passes gradients


def test_eps_warns_as_in_pytorch_and_integer_logits_are_refused() -> None:
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(microtorch.zeros(3), eps=1e-5)
    with pytest.raises(RuntimeError, match="floating point"):
        F.gumbel_softmax(microtorch.tensor([1, 2]))
    with pytest.raises(TypeError, match="gumbel_softmax"):
        F.gumbel_softmax([1.0, 2.0])
