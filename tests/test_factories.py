"""Making tensors (microtorch/factories.py): the dtype tensor() infers from lists, numbers,
NumPy data and tensors; zeros/ones/full/empty and the *_like forms; arange, linspace,
logspace and eye. Compared with PyTorch when it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import microtorch


def _name(dtype) -> str:
    return str(dtype).split(".")[-1]


# ------------------------------------------------------------------ tensor() from a list
LISTS_OF_TENSORS = [
    (lambda T: [T.tensor(1, dtype=T.int8), T.tensor(2, dtype=T.int8)], "int8"),
    (lambda T: [T.tensor(1, dtype=T.int8), 2], "int64"),
    (lambda T: [T.tensor(1.5, dtype=T.float16), 0.5], "float32"),
    (lambda T: [T.tensor(2.5, dtype=T.float64), 1.5], "float64"),
    (lambda T: [T.tensor(1, dtype=T.int8), 1.5], "float32"),
    (lambda T: [T.tensor(True), 2], "int64"),
    (lambda T: [[T.tensor(1, dtype=T.int8)], [T.tensor(3, dtype=T.int8)]], "int8"),
    (lambda T: [T.tensor(1, dtype=T.int32), np.int8(1)], "int32"),
    (lambda T: [T.tensor(2.5, dtype=T.float64), T.tensor(1.5, dtype=T.float16)], "float64"),
]


@pytest.mark.parametrize("data, dtype", LISTS_OF_TENSORS)
def test_list_of_one_element_tensors_keeps_their_dtypes(data, dtype) -> None:
    """Each tensor counts with its own dtype, as a NumPy scalar does (we used to take its
    Python value, so int8 tensors gave int64)."""
    assert microtorch.tensor(data(microtorch)).dtype.name == dtype
    torch = pytest.importorskip("torch")
    assert _name(torch.tensor(data(torch)).dtype) == dtype


@pytest.mark.parametrize("data", [2**63, [2**63], [-(2**63) - 1], [2**64], [2**63, True]])
def test_python_int_beyond_int64_raises_value_error(data) -> None:
    """As PyTorch ('Overflow when unpacking long long'); [2**63] used to wrap to -2**63."""
    with pytest.raises(ValueError, match="does not fit int64.*dtype=microtorch.float64"):
        microtorch.tensor(data)
    assert microtorch.tensor(data, dtype=microtorch.float64).dtype is microtorch.float64
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError):
        torch.tensor(data)


def test_int64_limits_and_huge_ints_among_floats_still_work() -> None:
    assert microtorch.tensor([2**63 - 1, -(2**63)]).tolist() == [2**63 - 1, -(2**63)]
    assert microtorch.tensor([1.5, 2**63]).tolist() == [1.5, float(2**63)]
    assert microtorch.tensor([np.uint8(3)]).dtype is microtorch.uint8
