"""torch.gradient's edge cases against PyTorch: integer inputs and coordinates, 0-d inputs,
a 0-d tensor as the spacing, and the errors (the op table checks values and gradients)."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch

torch = pytest.importorskip("torch")


def _same(mine: tuple, theirs: tuple) -> None:
    assert len(mine) == len(theirs)
    for m, t in zip(mine, theirs):
        assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-6)


@pytest.mark.parametrize(
    "values, kwargs",
    [
        ([1, 4, 9, 16], {}),  # integers: the default float dtype
        ([1, 4, 9, 16], {"spacing": 2}),
        ([1, 2, 4], {"spacing": "int coordinates"}),
        ([1, 2, 4], {"spacing": "float64 coordinates"}),
        ([1.0, 4.0, 9.0, 16.0, 25.0], {"spacing": "0-d"}),
        ([1.0, 4.0, 9.0, 16.0, 25.0], {"spacing": [2], "dim": 0, "edge_order": 2}),
    ],
)
def test_dtypes_and_spacings_as_pytorch(values, kwargs) -> None:
    def spacing(T, value):
        if value == "int coordinates":
            return [T.tensor([0, 1, 3])]
        if value == "float64 coordinates":
            return [T.tensor([0.0, 1.0, 3.0], dtype=T.float64)]
        if value == "0-d":
            return T.tensor(2.0)
        return value

    def run(T):
        given = {k: spacing(T, v) if k == "spacing" else v for k, v in kwargs.items()}
        return T.gradient(T.tensor(values), **given)

    _same(run(microtorch), run(torch))


def test_a_0d_input_has_no_dims_to_differentiate() -> None:
    assert microtorch.gradient(microtorch.tensor(1.0)) == torch.gradient(torch.tensor(1.0)) == ()


@pytest.mark.parametrize(
    "shape, kwargs, error, match",
    [
        ((3, 4), {"edge_order": 3}, RuntimeError, "only supports edge_order=1 and edge_order=2"),
        ((3, 4), {"spacing": [1.0, 2.0, 3.0]}, RuntimeError, "but got a list of length 3"),
        ((3, 4), {"spacing": [3.0]}, RuntimeError, "but got a list of length 1"),
        ((3, 4), {"dim": 2}, IndexError, "out of range"),
        ((3, 4), {"dim": (0, 0)}, RuntimeError, "more than once|multiple times"),
        ((2,), {"edge_order": 2}, RuntimeError, "at least edge_order\\+1"),
        ((1,), {}, RuntimeError, "at least edge_order\\+1"),
    ],
)
def test_errors_as_pytorch(shape, kwargs, error, match) -> None:
    for T in (microtorch, torch):
        with pytest.raises(error, match=match):
            T.gradient(T.ones(*shape), **kwargs)


def test_coordinates_must_match_the_dims_size() -> None:
    with pytest.raises(RuntimeError, match="1-D with as many coordinates"):
        microtorch.gradient(microtorch.ones(3, 4), spacing=[microtorch.arange(4.0)], dim=0)
