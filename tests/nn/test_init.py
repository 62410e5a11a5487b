"""Initialisation: the statistics PyTorch documents for each default, and nn.init."""

from __future__ import annotations

import math

import numpy as np
import pytest

import microtorch as torch
from microtorch import nn


def test_linear_default_init_is_uniform_one_over_sqrt_fan_in() -> None:
    layer = nn.Linear(256, 512)
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    bound = 1 / math.sqrt(256)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.99 * bound  # really reaches out to the bound
    # U(-a, a): mean 0, variance a^2 / 3
    assert abs(w.mean()) < 0.01 * bound
    assert w.var() == pytest.approx(bound**2 / 3, rel=0.02)
    assert b.var() == pytest.approx(bound**2 / 3, rel=0.2)


def test_embedding_and_layer_norm_defaults() -> None:
    w = nn.Embedding(300, 200).weight.detach().numpy()
    assert abs(w.mean()) < 0.01
    assert w.std() == pytest.approx(1.0, rel=0.01)
    ln = nn.LayerNorm(7)
    np.testing.assert_array_equal(ln.weight.detach().numpy(), np.ones(7, np.float32))
    np.testing.assert_array_equal(ln.bias.detach().numpy(), np.zeros(7, np.float32))


def test_init_functions_statistics() -> None:
    t = torch.empty(400, 300)
    nn.init.normal_(t, mean=1.0, std=0.02)
    assert t.numpy().mean() == pytest.approx(1.0, abs=1e-3)
    assert t.numpy().std() == pytest.approx(0.02, rel=0.01)
    nn.init.uniform_(t, -2.0, 3.0)
    assert t.numpy().min() >= -2.0 and t.numpy().max() < 3.0
    assert t.numpy().mean() == pytest.approx(0.5, abs=0.02)
    nn.init.xavier_uniform_(t)
    bound = math.sqrt(6 / (400 + 300))
    assert np.abs(t.numpy()).max() <= bound
    assert t.numpy().var() == pytest.approx(bound**2 / 3, rel=0.02)
    nn.init.kaiming_uniform_(t, nonlinearity="relu")
    bound = math.sqrt(2) * math.sqrt(3 / 300)
    assert np.abs(t.numpy()).max() <= bound
    assert t.numpy().var() == pytest.approx(bound**2 / 3, rel=0.02)
    nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu")
    assert t.numpy().std() == pytest.approx(math.sqrt(2 / 400), rel=0.02)
    nn.init.xavier_normal_(t, gain=2.0)
    assert t.numpy().std() == pytest.approx(2 * math.sqrt(2 / 700), rel=0.02)
    nn.init.trunc_normal_(t, std=1.0, a=-0.5, b=0.5)
    assert t.numpy().min() >= -0.5 and t.numpy().max() <= 0.5
    nn.init.zeros_(t)
    assert not t.numpy().any()
    nn.init.ones_(t)
    assert (t.numpy() == 1).all()
    nn.init.constant_(t, 0.25)
    assert (t.numpy() == 0.25).all()


def test_calculate_gain() -> None:
    assert nn.init.calculate_gain("linear") == 1.0
    assert nn.init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert nn.init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert nn.init.calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    with pytest.raises(ValueError, match="unsupported nonlinearity"):
        nn.init.calculate_gain("swish")
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(torch.empty(3))


def test_init_is_in_place_without_a_graph_and_counts_versions() -> None:
    p = nn.Parameter(torch.zeros(3, 4))
    before = p._version_counter.value
    out = nn.init.normal_(p, std=0.02)
    assert out is p and p.grad_fn is None and p.requires_grad
    assert p._version_counter.value > before
    with pytest.raises(TypeError, match="floating point"):
        nn.init.normal_(torch.zeros(3, dtype=torch.long))


def test_seeded_init_is_identical_on_every_device(device: str) -> None:
    torch.manual_seed(123)
    cpu = nn.Linear(5, 4)
    torch.manual_seed(123)
    dev = nn.Linear(5, 4, device=device)
    assert dev.weight.device.type == device
    np.testing.assert_array_equal(dev.weight.detach().cpu().numpy(), cpu.weight.detach().numpy())
    np.testing.assert_array_equal(dev.bias.detach().cpu().numpy(), cpu.bias.detach().numpy())


def test_init_dtype_argument() -> None:
    layer = nn.Linear(3, 2, dtype=torch.float64)
    assert layer.weight.dtype is torch.float64 and layer.bias.dtype is torch.float64


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 2), (5, 5)])
def test_orthogonal_rows_or_columns_are_orthonormal_times_gain(shape: tuple, device: str) -> None:
    w = nn.init.orthogonal_(torch.empty(*shape, device=device), gain=2.0)
    q = w.cpu().numpy().reshape(shape[0], -1)
    gram = q @ q.T if q.shape[0] <= q.shape[1] else q.T @ q  # the fewer of rows and columns
    np.testing.assert_allclose(gram, 4.0 * np.eye(gram.shape[0]), atol=1e-5)
    torch.manual_seed(3)
    again = nn.init.orthogonal_(torch.empty(*shape))
    torch.manual_seed(3)
    np.testing.assert_array_equal(again.numpy(), nn.init.orthogonal_(torch.empty(*shape)).numpy())


def test_eye_and_the_errors_of_matrix_inits() -> None:
    assert nn.init.eye_(torch.empty(2, 3)).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    with pytest.raises(ValueError, match=r"orthogonal_: needs 2 or more dims, got shape \(3,\)"):
        nn.init.orthogonal_(torch.empty(3))
    with pytest.raises(ValueError, match=r"eye_: only 2-D tensors"):
        nn.init.eye_(torch.empty(2, 2, 2))
