"""torch.version and torch.torch_version.TorchVersion: what scripts read to decide what the
installed build can do (``torch.__version__ >= "2.0"``, ``torch.version.cuda is None``)."""

from __future__ import annotations

import pytest

import microtorch
from microtorch.torch_version import TorchVersion
from tests.conftest import cuda_available

OTHERS = ["2.13.0", "2.13", "2.13.0+cpu", "2.13.1", "2.14.0a0", "2.13.0rc1", "2.13.0.dev1",
          "2.13.0.post1", "2.13.0+cu121", "2.13.0+cpu.1", "0.10", "0.9", "1.0.0b2", "parrot",
          (2, 13), (2, 13, 0), [2, 12], (0, 1)]  # fmt: skip
MINE = ["2.13.0+cpu", "0.1.0", "2.13.0a0", "2.13.0.dev20240101", "2.13.0+cu121", "0.10"]
OPERATORS = ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"]


def _answer(version: str, op: str, other: object, cls: type) -> object:
    try:
        return getattr(cls(version), op)(other)
    except Exception as error:  # noqa: BLE001 (the error type is the answer)
        return type(error)


def test_the_module_says_what_this_build_is() -> None:
    v = microtorch.version
    assert v.__version__ == microtorch.__version__ == "0.1.0"
    assert isinstance(microtorch.__version__, TorchVersion)
    assert v.debug is False and v.hip is None and v.rocm is None and v.xpu is None
    assert isinstance(v.git_version, str)
    if not cuda_available():
        assert v.cuda is None
    else:  # CuPy's CUDA runtime, as "major.minor"
        major, minor = v.cuda.split(".")
        assert int(major) >= 11 and 0 <= int(minor) <= 9
    with pytest.raises(AttributeError):
        v.not_a_field  # noqa: B018


def test_versions_compare_as_versions_not_as_text() -> None:
    v = TorchVersion("0.10.0")
    assert v > "0.9" and v >= (0, 10) and v == "0.10" and v < "0.10.1" and v <= [0, 10, 0]
    assert TorchVersion("2.0.0a0") < "2.0.0" < TorchVersion("2.0.0+cpu")
    assert TorchVersion("2.0.0.dev1") < "2.0.0a1"
    assert microtorch.__version__ >= "0.1" and not microtorch.__version__ >= "2.0"
    assert hash(v) == hash("0.10.0") and f"{v}" == "0.10.0"
    with pytest.raises(TypeError):  # a number is no version: str's answer
        v < 3  # noqa: B015


@pytest.mark.parametrize("version", MINE)
def test_comparisons_match_pytorchs(version: str) -> None:
    torch_version = pytest.importorskip("torch.torch_version")
    for other in OTHERS + [3, None]:
        for op in OPERATORS:
            mine = _answer(version, op, other, TorchVersion)
            theirs = _answer(version, op, other, torch_version.TorchVersion)
            assert mine == theirs, (version, op, other)
