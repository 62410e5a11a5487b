"""torch.poisson and torch.binomial (random.py): the samples' support and moments, the
seeded generator (the same numbers on every device), gradients and errors as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch


def test_poisson_moments_support_and_dtype(device: str) -> None:
    rates = microtorch.tensor([0.0, 0.5, 3.0, 40.0], device=device).expand(20000, 4)
    x = microtorch.poisson(rates)
    assert x.shape == rates.shape and x.dtype is microtorch.float32 and x.device == rates.device
    a = x.cpu().numpy()
    assert (a >= 0).all() and (a == np.round(a)).all() and (a[:, 0] == 0).all()
    lam = np.array([0.5, 3.0, 40.0])
    np.testing.assert_allclose(a[:, 1:].mean(0), lam, rtol=0.05)  # mean = variance = rate
    np.testing.assert_allclose(a[:, 1:].var(0), lam, rtol=0.08)
    assert microtorch.poisson(microtorch.tensor(3.0, dtype=microtorch.float64)).shape == ()
    assert microtorch.poisson(microtorch.tensor([1.0], dtype=microtorch.float16)).dtype is (
        microtorch.float16
    )
    assert microtorch.poisson(microtorch.empty(0, device=device)).shape == (0,)


def test_binomial_moments_support_and_broadcasting(device: str) -> None:
    count = microtorch.tensor([0.0, 5.0, 20.0, 20.0], device=device)
    prob = microtorch.tensor([0.5, 0.3, 0.9, 1.0], device=device).expand(20000, 4)
    x = microtorch.binomial(count.expand(20000, 4), prob)
    a = x.cpu().numpy()
    assert x.dtype is microtorch.float32 and x.device == count.device
    assert (a >= 0).all() and (a <= np.array([0, 5, 20, 20])).all() and (a == np.round(a)).all()
    assert (a[:, 3] == 20).all()  # prob 1: every trial succeeds
    n, p = np.array([5.0, 20.0]), np.array([0.3, 0.9])
    np.testing.assert_allclose(a[:, 1:3].mean(0), n * p, rtol=0.03)
    np.testing.assert_allclose(a[:, 1:3].var(0), n * p * (1 - p), rtol=0.08)
    both = microtorch.binomial(microtorch.tensor([5.0, 6.0]), microtorch.tensor([[0.5], [0.2]]))
    assert both.shape == (2, 2)


def test_the_seeded_generator_gives_the_same_draws_on_every_device(device: str) -> None:
    rates = microtorch.tensor([0.5, 2.0, 7.0])
    counts, probs = microtorch.tensor([3.0, 9.0]), microtorch.tensor([0.25, 0.5])
    microtorch.manual_seed(3)
    expected = (microtorch.poisson(rates).tolist(), microtorch.binomial(counts, probs).tolist())
    microtorch.manual_seed(3)
    got = (
        microtorch.poisson(rates.to(device)).tolist(),
        microtorch.binomial(counts.to(device), probs.to(device)).tolist(),
    )
    assert got == expected
    g = microtorch.Generator().manual_seed(5)
    first = microtorch.poisson(rates, generator=g).tolist()
    g.manual_seed(5)
    assert microtorch.poisson(rates, g).tolist() == first
    g.manual_seed(5)
    assert (
        microtorch.binomial(counts, probs, g).tolist()
        == microtorch.binomial(counts, probs, generator=g.manual_seed(5)).tolist()
    )


def test_gradients_are_those_pytorch_defines() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        rates = T.tensor([0.5, 2.0], requires_grad=True)
        T.poisson(rates).sum().backward()
        assert rates.grad.tolist() == [0.0, 0.0]
        count = T.tensor([5.0, 10.0], requires_grad=True)
        drawn = T.binomial(count, T.tensor([0.3, 0.9]))
        assert drawn.requires_grad
        with pytest.raises(RuntimeError, match="derivative for aten::binomial is not implemented"):
            drawn.sum().backward()


def test_edge_values_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        out = T.binomial(T.tensor([0.0, 3.0, 3.0, -1.0, 5.0]), T.tensor([0.5, 0.0, 1.0, 0.5, 1.5]))
        assert out.tolist() == [0.0, 0.0, 3.0, 0.0, 5.0]
        assert np.isnan(T.binomial(T.tensor([5.0]), T.tensor([float("nan")])).item())
        assert T.binomial(
            T.tensor([5.0], dtype=T.float64), T.tensor([0.5], dtype=T.float64)
        ).dtype is (T.float64)


def test_errors_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for T in (microtorch, torch):
        with pytest.raises(RuntimeError, match="expected rate to be non-negative"):
            T.poisson(T.tensor([-1.0]))
        with pytest.raises(RuntimeError, match="expected rate to be non-negative"):
            T.poisson(T.tensor([float("nan")]))
        with pytest.raises(NotImplementedError):
            T.poisson(T.tensor([1, 2]))
        with pytest.raises(ValueError, match="only supports floating-point dtypes for count"):
            T.binomial(T.tensor([5]), T.tensor([0.5]))
        with pytest.raises(
            RuntimeError, match="Found dtype .*(Double|float64) but expected .*(Float|float32)"
        ):
            T.binomial(T.tensor([5.0]), T.tensor([0.5], dtype=T.float64))
        with pytest.raises(TypeError, match="argument 'prob'"):
            T.binomial(T.tensor([5.0]), 0.5)
