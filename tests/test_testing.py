"""microtorch.testing.assert_close against torch.testing.assert_close: the same verdict, the
same error type and (with microtorch's names for torch's) the same message."""

from __future__ import annotations

import math

import numpy as np
import pytest

import microtorch
from microtorch.testing import assert_close

nan, inf = math.nan, math.inf

# Each case is written against the PyTorch API: lib is torch or microtorch.
CASES = {
    "close enough": lambda lib: (lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0 + 1e-6]), {}),
    "one element off": lambda lib: (lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 2.1, 3.0]), {}),
    "2-d, index (1, 1)": lambda lib: (
        lib.tensor([[1.0, 2.0], [3, 4]]),
        lib.tensor([[1.0, 2], [3, 5]]),
        {},
    ),
    "largest among mismatched only": lambda lib: (
        lib.tensor([0, 1e-6, 2e-5, 5.0]),
        lib.zeros(4),
        {},
    ),
    "float64 tolerance": lambda lib: (
        lib.tensor([1.0, 2.0], dtype=lib.float64),
        lib.tensor([1.0, 2.00001], dtype=lib.float64),
        {},
    ),
    "shape": lambda lib: (lib.ones(3), lib.ones(4), {}),
    "0-d vs 1-d": lambda lib: (lib.tensor(1.0), lib.tensor([1.0]), {}),
    "dtype": lambda lib: (lib.ones(2), lib.ones(2, dtype=lib.float64), {}),
    "dtype not checked": lambda lib: (
        lib.ones(2),
        lib.ones(2, dtype=lib.float64),
        {"check_dtype": False},
    ),
    "float16 vs float32 unchecked: the looser tolerance": lambda lib: (
        lib.tensor([1.0, 2.0], dtype=lib.float16),
        lib.tensor([1.001, 2.0]),
        {"check_dtype": False},
    ),
    "int vs float unchecked": lambda lib: (
        lib.tensor([1, 2]),
        lib.tensor([1.0, 2.0001]),
        {"check_dtype": False},
    ),
    "ints": lambda lib: (lib.tensor([1, 2]), lib.tensor([1, 3]), {}),
    "ints with a tolerance": lambda lib: (
        lib.tensor([1, 2]),
        lib.tensor([1, 4]),
        {"rtol": 0.5, "atol": 0},
    ),
    "uint8 differences do not wrap": lambda lib: (
        lib.tensor([1, 2], dtype=lib.uint8),
        lib.tensor([3, 1], dtype=lib.uint8),
        {},
    ),
    "bools": lambda lib: (lib.tensor([True, False]), lib.tensor([True, True]), {}),
    "0-d floats": lambda lib: (lib.tensor(1.0), lib.tensor(2.0), {}),
    "0-d ints": lambda lib: (lib.tensor(1), lib.tensor(2), {}),
    "nan": lambda lib: (lib.tensor([nan]), lib.tensor([nan]), {}),
    "nan, equal_nan": lambda lib: (lib.tensor([nan]), lib.tensor([nan]), {"equal_nan": True}),
    "nan against a number": lambda lib: (lib.tensor([nan, 1.0]), lib.tensor([1.0, 5.0]), {}),
    "inf": lambda lib: (lib.tensor([inf]), lib.tensor([inf]), {}),
    "inf against -inf": lambda lib: (lib.tensor([1.0, inf]), lib.tensor([1.0, -inf]), {}),
    "rtol and atol given": lambda lib: (
        lib.tensor([1.0, 2.0]),
        lib.tensor([1.1, 2.2]),
        {"rtol": 0, "atol": 0.15},
    ),
    "exact floats": lambda lib: (
        lib.tensor([1.0, 2.0]),
        lib.tensor([1.0, 2.5]),
        {"rtol": 0, "atol": 0},
    ),
    "only rtol": lambda lib: (lib.ones(2), lib.ones(2), {"rtol": 0.1}),
    "msg": lambda lib: (lib.ones(2), lib.ones(2) + 1, {"msg": "custom"}),
    "msg callable": lambda lib: (lib.ones(2), lib.ones(2) + 1, {"msg": lambda m: "X" + m[:10]}),
    "transposed: strides not checked": lambda lib: (lib.ones(2, 2), lib.ones(2, 2).t(), {}),
    "strides checked": lambda lib: (lib.ones(2, 2), lib.ones(2, 2).t(), {"check_stride": True}),
    "requires_grad is not compared": lambda lib: (lib.ones(2, requires_grad=True), lib.ones(2), {}),
    "empty": lambda lib: (lib.ones(0), lib.ones(0), {}),
    "python floats": lambda lib: (1.0, 1.1, {}),
    "python floats close": lambda lib: (1.0, 1.0000001, {}),
    "python ints": lambda lib: (1, 2, {}),
    "python int vs float": lambda lib: (1, 1.0, {}),
    "python float vs int, check_dtype=False": lambda lib: (1.0, 1, {"check_dtype": False}),
    "python int vs float, check_dtype=False, differ": lambda lib: (2, 1.5, {"check_dtype": False}),
    "python ints in lists, check_dtype=False": lambda lib: ([1.0], [1], {"check_dtype": False}),
    "0-d int vs float tensors, check_dtype=False": lambda lib: (
        lib.tensor(2),
        lib.tensor(1.3),
        {"check_dtype": False},
    ),
    "0-d float16 tensors": lambda lib: (
        lib.tensor(2.0, dtype=lib.float16),
        lib.tensor(1.3, dtype=lib.float16),
        {},
    ),
    "python nan": lambda lib: (nan, nan, {"equal_nan": True}),
    "numpy arrays": lambda lib: (np.ones(2), np.ones(2), {}),
    "numpy scalars": lambda lib: (np.float32(1.0), np.float32(1.0), {}),
    "tensor vs numpy": lambda lib: (lib.ones(2), np.ones(2), {}),
    "tensor vs list": lambda lib: (lib.ones(2), [1.0, 1.0], {}),
    "tensor vs int": lambda lib: (lib.tensor(3), 3, {}),
    "strings": lambda lib: ("a", "a", {}),
    "sequences": lambda lib: ([lib.ones(2), 3.0], [lib.ones(2), 3.0], {}),
    "tuple vs list": lambda lib: ((lib.ones(2),), [lib.ones(2)], {}),
    "sequence lengths": lambda lib: ([lib.ones(2)], [lib.ones(2), 1], {}),
    "nested item": lambda lib: ([1.0, [lib.ones(2)]], [1.0, [lib.zeros(2)]], {}),
    "item of a list": lambda lib: ([1], [1.0], {}),
    "dict item": lambda lib: ({"a": lib.ones(2)}, {"a": lib.zeros(2)}, {}),
    "dict keys": lambda lib: ({"a": 1}, {"b": 1}, {}),
    "dict of lists": lambda lib: ({"a": [1, 2]}, {"a": [1, 3]}, {}),
    "None": lambda lib: (None, None, {}),
    "None vs 1": lambda lib: (None, 1, {}),
}


def _outcome(lib, case):
    actual, expected, kwargs = case(lib)
    try:
        lib.testing.assert_close(actual, expected, **kwargs)
    except (AssertionError, TypeError, ValueError) as error:
        text = str(error).replace("microtorch.", "torch.").replace("torch.Tensor", "Tensor")
        return type(error).__name__, text
    return "passed", ""


@pytest.mark.parametrize("name", list(CASES))
def test_assert_close_answers_as_pytorch(name: str) -> None:
    torch = pytest.importorskip("torch")
    kind, text = _outcome(microtorch, CASES[name])
    torch_kind, torch_text = _outcome(torch, CASES[name])
    assert kind == torch_kind, (text, torch_text)
    if kind == "TypeError":  # names the classes, which differ between the libraries
        return
    assert text == torch_text


def test_assert_close_without_pytorch() -> None:
    assert_close(microtorch.tensor([1.0, 2.0]), microtorch.tensor([1.0, 2.0 + 1e-6]))
    with pytest.raises(AssertionError) as error:
        assert_close(microtorch.tensor([1.0, 2.0, 3.0]), microtorch.tensor([1.0, 2.5, 3.0]))
    assert str(error.value) == (
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)"
    )
    with pytest.raises(AssertionError, match=r"^The values for attribute 'shape' do not match"):
        assert_close(microtorch.ones(2), microtorch.ones(3))
    with pytest.raises(AssertionError, match=r"for item \['w'\]\[1\]$"):
        assert_close({"w": [1, 2]}, {"w": [1, 3]})
    with pytest.raises(ValueError, match="'rtol' and 'atol'"):
        assert_close(1.0, 1.0, atol=1.0)


def test_assert_close_compares_values_on_the_device(device: str) -> None:
    x = microtorch.tensor([1.0, 2.0], device=device)
    assert_close(x, x * (1 + 1e-7))
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        assert_close(x, x * microtorch.tensor([1.0, 1.1], device=device))
    if device != "cpu":
        with pytest.raises(AssertionError, match="attribute 'device' do not match"):
            assert_close(x, x.cpu())
        assert_close(x, x.cpu(), check_device=False)
