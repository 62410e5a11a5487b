"""A tensor prints its numbers as PyTorch does (microtorch/_repr.py), followed by its dtype
and device."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch
from microtorch._repr import tensor_repr

CPU = "dtype=microtorch.float32, device='cpu'"


@pytest.mark.parametrize(
    "values, expected",
    [
        ([1.0, 2.5, -3.0], "tensor([ 1.0000,  2.5000, -3.0000], " + CPU + ")"),
        ([1.0, 2.0, 3.0], "tensor([1., 2., 3.], " + CPU + ")"),  # whole numbers: a dot
        ([0.0, 0.0], "tensor([0., 0.], " + CPU + ")"),
        ([1e-8, 1.0], "tensor([1.0000e-08, 1.0000e+00], " + CPU + ")"),  # 1e-8 < 1e-4
        ([1e10, 1.0], "tensor([1.0000e+10, 1.0000e+00], " + CPU + ")"),  # spans > 1000x
        ([float("nan"), float("inf"), 1.0], "tensor([nan, inf, 1.], " + CPU + ")"),
        ([[0.1, 100.0]], "tensor([[  0.1000, 100.0000]], " + CPU + ")"),  # one common width
        (3.14159, "tensor(3.1416, " + CPU + ")"),
    ],
)
def test_floats_print_as_in_pytorch(values, expected) -> None:
    assert repr(microtorch.tensor(values)) == expected


def test_integers_bools_and_empty_tensors() -> None:
    assert repr(microtorch.tensor([[-1, 20], [3, 4]])) == (
        "tensor([[-1, 20],\n        [ 3,  4]], dtype=microtorch.int64, device='cpu')"
    )
    assert repr(microtorch.tensor([True, False])).startswith("tensor([ True, False], ")
    assert repr(microtorch.zeros(0, 3)) == "tensor([], size=(0, 3), " + CPU + ")"


def test_long_tensors_are_summarized_and_wrapped_at_80_characters() -> None:
    text = repr(microtorch.arange(2000.0))
    assert text == (
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
        "        1.9990e+03], dtype=microtorch.float32, device='cpu')"
    )
    rows = repr(microtorch.ones(100, 100)).splitlines()
    assert rows[0] == "tensor([[1., 1., 1.,  ..., 1., 1., 1.],"
    assert rows[3] == "        ...,"
    assert max(len(r) for r in rows) <= 80


def test_dtype_device_and_grad_go_to_a_new_line_when_the_last_one_is_full() -> None:
    text = repr(microtorch.arange(30.0).reshape(5, 6) / 7)
    assert text.splitlines()[-2:] == [
        "        [3.4286, 3.5714, 3.7143, 3.8571, 4.0000, 4.1429]],",
        "       dtype=microtorch.float32, device='cpu')",
    ]
    short = microtorch.tensor([1.0], requires_grad=True) * 2
    assert repr(short) == (
        "tensor([2.], dtype=microtorch.float32, device='cpu', grad_fn=<MulBackward0>)"
    )  # it fits: one line
    leaf = microtorch.tensor([1.5, 2.5, 3.5], requires_grad=True)
    assert repr(leaf * 3) == (
        "tensor([ 4.5000,  7.5000, 10.5000], dtype=microtorch.float32, device='cpu',\n"
        "       grad_fn=<MulBackward0>)"
    )


def test_a_gpu_tensor_prints_its_values(device: str) -> None:
    t = microtorch.tensor([0.5, 1.5], device=device)
    assert repr(t) == f"tensor([0.5000, 1.5000], dtype=microtorch.float32, device='{t.device}')"


def test_random_tensors_print_their_numbers_exactly_as_pytorch() -> None:
    """Shapes small and summarized, floats of every scale with nan/inf/0, whole numbers,
    integers and bools: the text before the dtype is PyTorch's, character for character."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    shapes = [(), (5,), (3, 4), (2, 3, 4), (1001,), (40, 50), (3, 500), (7, 7, 7, 7), (2, 0)]
    for trial in range(600):
        shape = shapes[trial % len(shapes)]
        a = rng.standard_normal(shape) * 10.0 ** rng.integers(-9, 11)
        kind = trial % 4
        if kind in (0, 1) and a.size:
            a.reshape(-1)[rng.integers(0, a.size)] = rng.choice([np.nan, np.inf, -np.inf, 0.0])
        if kind == 1:
            a = np.round(a)
        elif kind == 2:
            a = np.round(a).clip(-1e15, 1e15).astype(np.int64)
        elif kind == 3:
            a = a > 0
        a = np.asarray(a if kind > 1 else a.astype(np.float32))
        if a.size == 0 and kind:
            continue  # PyTorch then names the dtype, which microtorch always does
        extras = [f"size={a.shape}"] if a.size == 0 else []
        assert tensor_repr(a, extras) == repr(torch.from_numpy(a.copy())), (shape, kind)


@pytest.fixture
def restore_printoptions():
    yield
    microtorch.set_printoptions(profile="default")


def test_set_printoptions_as_in_pytorch(restore_printoptions) -> None:
    microtorch.set_printoptions(precision=2)
    assert repr(microtorch.tensor([1.12345, 2.0])).startswith("tensor([1.12, 2.00], ")
    microtorch.set_printoptions(threshold=5)  # precision stays 2
    assert repr(microtorch.arange(10)).startswith("tensor([0, 1, 2,  ..., 7, 8, 9], ")
    microtorch.set_printoptions(sci_mode=True)
    assert repr(microtorch.tensor([1.5, 2.0])).startswith("tensor([1.50e+00, 2.00e+00], ")
    microtorch.set_printoptions(profile="default")
    assert repr(microtorch.tensor([1.12345])).startswith("tensor([1.1235], ")
    assert repr(microtorch.arange(10)).startswith("tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], ")
    with pytest.raises(ValueError, match="profile must be one of"):
        microtorch.set_printoptions(profile="long")


def test_printoptions_match_pytorch_on_random_tensors(restore_printoptions) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    settings = [dict(precision=2), dict(sci_mode=True), dict(sci_mode=False),
                dict(profile="short"), dict(profile="full"), dict(edgeitems=1, threshold=10),
                dict(linewidth=40), dict(linewidth=120, precision=6)]  # fmt: skip
    try:
        for setting in settings:
            torch.set_printoptions(**setting)
            microtorch.set_printoptions(**setting)
            for trial in range(40):
                shape = [(), (5,), (3, 4), (2, 3, 4), (1001,), (40, 50), (12,), (3, 30)][trial % 8]
                a = rng.standard_normal(shape) * 10.0 ** rng.integers(-9, 11)
                a = np.asarray(np.round(a) if trial % 3 == 1 else a, dtype=np.float32)
                assert tensor_repr(a, []) == repr(torch.from_numpy(a)), (setting, shape)
    finally:
        torch.set_printoptions(profile="default")
