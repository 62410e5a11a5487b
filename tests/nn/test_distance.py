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
