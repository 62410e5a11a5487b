"""F.cosine_similarity and nn.CosineSimilarity."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn
from microtorch.autograd import gradcheck


def test_cosine_similarity_values_broadcasting_and_gradients(device: str) -> None:
    a = torch.tensor([[1.0, 0.0], [3.0, 4.0]], device=device)
    b = torch.tensor([1.0, 1.0], device=device)  # broadcasts against each row of a
    sims = nn.functional.cosine_similarity(a, b, dim=-1)
    np.testing.assert_allclose(
        sims.cpu().numpy(), [1 / np.sqrt(2), 7 / (5 * np.sqrt(2))], rtol=1e-6
    )
    assert nn.CosineSimilarity(dim=0)(a[0], b).item() == pytest.approx(1 / np.sqrt(2))
    zero = torch.zeros(2, device=device)  # a zero vector: eps keeps it finite (0)
    assert nn.functional.cosine_similarity(zero, b, dim=0).item() == 0.0
    rng = np.random.default_rng(0)
    x, y = (torch.tensor(rng.standard_normal((3, 4)), requires_grad=True) for _ in range(2))
    assert gradcheck(lambda u, v: nn.functional.cosine_similarity(u, v), [x, y])


def test_cosine_similarity_matches_pytorch() -> None:
    pt = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 1))
    results = []
    for lib in (torch, pt):
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        out = lib.nn.functional.cosine_similarity(x, y, dim=1)
        out.sum().backward()
        results.append((out.detach().numpy(), x.grad.numpy(), y.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


def _cosine_and_grads(lib: object, a: np.ndarray, b: np.ndarray, eps: float) -> tuple:
    x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
    out = lib.nn.functional.cosine_similarity(x, y, dim=1, eps=eps)
    (out * lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64)).sum().backward()
    return out.detach().numpy(), x.grad.numpy(), y.grad.numpy()


_SHORT = np.array([[0.1, -0.2, 0.05], [0.0, 0.0, 0.0], [3.0, 1.0, -2.0]])
_OTHER = np.array([[0.3, 0.1, -0.1], [0.2, 0.1, 0.4], [0.01, 0.02, 0.0]])


def test_cosine_similarity_below_eps_has_a_gradient_through_the_norm() -> None:
    """A norm below eps is clamped for the value only, as in PyTorch: the gradient still
    flows through the true norm (ours used to stop at the clamp)."""
    eps = 0.5
    out, gx, _ = _cosine_and_grads(torch, _SHORT, _OTHER, eps)
    norm_a, norm_b = np.linalg.norm(_SHORT, axis=1), np.linalg.norm(_OTHER, axis=1)
    n_a, n_b = np.maximum(norm_a, eps), np.maximum(norm_b, eps)
    dot = (_SHORT * _OTHER).sum(1)
    np.testing.assert_allclose(out, dot / (n_a * n_b), rtol=1e-12)
    # d/da of (a / n_a) . (b / n_b), n_a's value clamped but its derivative a / |a|
    w = np.array([1.0, -2.0, 0.5])[:, None]
    safe = np.where(norm_a > 0, norm_a, 1.0)[:, None]  # a zero vector: no norm term
    expected = w * (_OTHER / (n_a * n_b)[:, None]
                    - (dot / (n_a**2 * n_b))[:, None] * _SHORT / safe)  # fmt: skip
    np.testing.assert_allclose(gx, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("eps", [1e-8, 0.5, 10.0])
def test_cosine_similarity_near_eps_matches_pytorch(eps: float) -> None:
    pt = pytest.importorskip("torch")
    ours, theirs = (_cosine_and_grads(lib, _SHORT, _OTHER, eps) for lib in (torch, pt))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_cosine_similarity_dtypes_as_in_pytorch() -> None:
    """An integer tensor with a float one is promoted; two integer tensors are refused."""
    ints, floats = torch.tensor([[1, 2, 2]]), torch.tensor([[1.0, 2.0, 2.0]])
    assert torch.nn.functional.cosine_similarity(ints, floats).item() == pytest.approx(1.0)
    with pytest.raises(RuntimeError, match="cosine_similarity: expected a floating point"):
        torch.nn.functional.cosine_similarity(ints, ints)


def _distances(lib: object, a: np.ndarray, b: np.ndarray) -> list:
    """The distances at (a, b), each with what its gradient is taken of."""
    x1, x2 = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
    outs = [
        lib.cdist(x1, x2),
        lib.cdist(x1, x2, p=1),
        lib.cdist(x1, x2, p=3),
        lib.pdist(x1),
        lib.pdist(x1, p=1.5),
        lib.nn.functional.pairwise_distance(x1, x2),
        lib.nn.PairwiseDistance(p=1, eps=0.0, keepdim=True)(x1, x2),
        lib.dist(x1, x2),
        x1.dist(x2, 3),
        lib.cdist(x1, x2, p=0),  # counts the differing elements (gradient 0)
    ]
    grads = []
    for out in outs:
        x1.grad = x2.grad = None
        out.sum().backward()
        grads.append((x1.grad.numpy(), None if x2.grad is None else x2.grad.numpy()))
    return [(o.detach().numpy(), g) for o, g in zip(outs, grads)]


def test_distances_at_zero_distance_match_pytorch() -> None:
    """Equal rows: PyTorch's gradient at a zero distance is 0 (cdist, pdist), and
    pairwise_distance adds eps to the difference, so equal rows are eps apart."""
    pt = pytest.importorskip("torch")
    a = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [0.0, -1.0, 3.0]])
    b = np.array([[1.0, 2.0, 3.0], [4.0, 2.0, 3.0], [0.0, -1.0, 3.0]])
    for i, ((ours, og), (theirs, tg)) in enumerate(
        zip(_distances(torch, a, b), _distances(pt, a, b))
    ):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12, err_msg=str(i))
        for g, t in zip(og, tg):
            if t is not None:
                np.testing.assert_allclose(g, t, rtol=1e-10, atol=1e-12, err_msg=str(i))
    d = torch.pairwise_distance(torch.tensor(a), torch.tensor(a)).numpy()
    np.testing.assert_allclose(d, np.sqrt(3) * 1e-6, rtol=1e-6)


def test_distance_shapes_and_values(device: str) -> None:
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((5, 4))
    out = torch.cdist(torch.tensor(a, device=device), torch.tensor(b, device=device))
    assert tuple(out.shape) == (2, 3, 5)
    expected = np.sqrt(((a[..., :, None, :] - b[None, None]) ** 2).sum(-1))
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-12)
    rows = torch.tensor(a[0], device=device)
    condensed = torch.pdist(rows).cpu().numpy()
    full = torch.cdist(rows, rows).cpu().numpy()
    np.testing.assert_allclose(condensed, full[np.triu_indices(3, 1)], rtol=1e-12)
    assert tuple(torch.pdist(torch.zeros(1, 4, device=device)).shape) == (0,)
    x1, x2 = torch.tensor(a, device=device), torch.tensor(b[0], device=device)
    assert tuple(nn.PairwiseDistance(keepdim=True)(x1, x2).shape) == (2, 3, 1)
    assert nn.functional.pairwise_distance(x2, x2).shape == ()
    assert torch.dist(x1, x2, p=float("inf")).item() == pytest.approx(np.abs(a - b[0]).max())


def test_distance_errors() -> None:
    x = torch.randn(3, 4)
    with pytest.raises(RuntimeError, match="at least 2D tensors, x1 got: 1D"):
        torch.cdist(x[0], x)
    with pytest.raises(RuntimeError, match="same number of columns"):
        torch.cdist(x, x[:, :3])
    with pytest.raises(RuntimeError, match="non-negative p values"):
        torch.cdist(x, x, p=-1)
    with pytest.raises(ValueError, match="not a valid value for compute_mode"):
        torch.cdist(x, x, compute_mode="fast")
    with pytest.raises(RuntimeError, match="only supports 2D tensors, got: 3D"):
        torch.pdist(x[None])
    with pytest.raises(RuntimeError, match="non-negative p values"):
        torch.pdist(x, p=-2)
    with pytest.raises(RuntimeError, match="floating-point dtypes, x1 got: .*int64"):
        torch.cdist(torch.ones(2, 2, dtype=torch.int64), x[:, :2])
    with pytest.raises(RuntimeError, match="floating-point dtypes, input got: .*int64"):
        torch.dist(torch.tensor([1, 2]), torch.tensor([1, 5]))
    with pytest.raises(RuntimeError, match="same dtype, got .*float32 and .*float64"):
        torch.cdist(x, x.double())


def test_pairwise_distance_of_integers_is_a_default_float_as_in_pytorch() -> None:
    out = nn.functional.pairwise_distance(torch.tensor([[1, 2], [0, 0]]), torch.tensor([1, 5]))
    assert out.dtype is torch.float32
    np.testing.assert_allclose(out.numpy(), [3 - 1e-6, np.hypot(1 - 1e-6, 5 - 1e-6)], rtol=1e-6)
