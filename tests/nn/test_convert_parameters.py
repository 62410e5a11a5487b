"""nn.utils.parameters_to_vector and vector_to_parameters."""

from __future__ import annotations

import pytest

import microtorch as torch
from microtorch import nn


def test_round_trip_and_gradient() -> None:
    model = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    vec = nn.utils.parameters_to_vector(model.parameters())
    assert vec.shape == (3 * 2 + 2 + 2 + 1,)
    assert vec[:6].tolist() == model[0].weight.reshape(-1).tolist()
    (vec * 2).sum().backward()  # the vector is in the graph
    assert model[1].bias.grad.tolist() == [2.0]
    nn.utils.vector_to_parameters(torch.arange(11.0), model.parameters())
    assert model[0].bias.tolist() == [6.0, 7.0] and model[1].bias.tolist() == [10.0]
    with pytest.raises(RuntimeError, match="the vector has 3 elements but the parameters have 11"):
        nn.utils.vector_to_parameters(torch.ones(3), model.parameters())
