"""microtorch.backend: the one module that decides NumPy (CPU) or CuPy (CUDA)."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import microtorch
from microtorch import backend

PACKAGE = pathlib.Path(microtorch.__file__).parent


def test_device_parsing_and_equality() -> None:
    cpu, cuda, cuda1 = backend.device("cpu"), backend.device("cuda"), backend.device("cuda:1")
    assert (cpu.type, cpu.index) == ("cpu", None)
    assert (cuda.type, cuda.index) == ("cuda", 0)
    assert (cuda1.type, cuda1.index) == ("cuda", 1)
    assert cuda == "cuda:0" and cuda == "cuda" and cpu == "cpu" and cpu != "cuda"
    assert cpu != "not a device"
    assert str(cuda1) == "cuda:1" and repr(cpu) == "device(type='cpu')"
    assert repr(cuda) == "device(type='cuda', index=0)"
    assert hash(backend.device("cuda:0")) == hash(cuda)
    assert backend.device(cuda1) == cuda1
    assert microtorch.device is backend.device
    with pytest.raises(TypeError, match="expected a string"):
        backend.device(3)


def test_default_device() -> None:
    assert microtorch.get_default_device() == "cpu"
    assert backend.as_device(None) == "cpu"
    microtorch.set_default_device("cpu")
    microtorch.set_default_device(None)
    assert microtorch.get_default_device() == "cpu"


def test_set_default_device_moves_the_factories(device: str) -> None:
    microtorch.set_default_device(device)
    try:
        assert microtorch.zeros(2).device == device
        assert microtorch.randn(2).device == device
        assert microtorch.arange(3).device == device
    finally:
        microtorch.set_default_device("cpu")
    assert microtorch.zeros(2).device == "cpu"


def test_array_modules_on_the_cpu() -> None:
    a = np.ones(3)
    assert backend.xp_of(a) is np and backend.xp_of(np.float32(1.0)) is np
    assert backend.xp_for(backend.device("cpu")) is np
    assert backend.to_device(a, backend.device("cpu")) is a  # no copy when already there
    assert backend.to_numpy(a) is a
    assert backend.device_of(a) == "cpu" and backend.device_of(np.float64(1.0)) == "cpu"
    assert backend.is_array(a) and not backend.is_array([1.0])


def test_tensor_arrays_live_on_their_device(device: str) -> None:
    t = microtorch.ones(3, device=device)
    xp = backend.xp_for(backend.device(device))
    assert isinstance(t.array, xp.ndarray)
    assert backend.xp_of(t.array) is xp
    assert backend.device_of(t.array) == device
    back = t.to("cpu")
    assert isinstance(back.array, np.ndarray) and back.tolist() == [1.0, 1.0, 1.0]
    assert microtorch.tensor(back.array, device=device).device == device


def test_ops_keep_their_device(device: str) -> None:
    a = microtorch.randn(2, 3, device=device, requires_grad=True)
    out = (a.exp() @ a.T).softmax(-1).sum()
    assert out.device == device
    out.backward()
    assert a.grad.device == device


def test_cuda_is_available_is_a_bool() -> None:
    assert isinstance(microtorch.cuda.is_available(), bool)
    assert microtorch.cuda.device_count() >= (1 if microtorch.cuda.is_available() else 0)


def test_cupy_is_imported_only_when_cuda_is_asked_for() -> None:
    code = (
        "import sys, microtorch\n"
        "x = microtorch.randn(4, 3, requires_grad=True)\n"
        "(microtorch.nn.functional.gelu(x) @ x.T).sum().backward()\n"
        "print('cupy' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "False"


def test_only_the_backend_module_imports_cupy() -> None:
    importers = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if re.search(r"^\s*(import cupy\b|from cupy\b)", path.read_text(), re.MULTILINE)
    ]
    assert importers == ["backend.py"]


@pytest.mark.skipif(microtorch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_request_fails_loudly_instead_of_falling_back() -> None:
    with pytest.raises(RuntimeError, match="CUDA was asked for"):
        backend.xp_for(backend.device("cuda"))
    with pytest.raises(RuntimeError, match="CUDA was asked for"):
        backend.to_device(np.ones(2), backend.device("cuda"))


def test_ops_that_make_inf_or_nan_do_not_warn_as_in_pytorch() -> None:
    """log(0), x / 0, sqrt(-1), exp overflow: PyTorch (and CuPy) answer -inf, inf or nan
    without a warning; NumPy would print a RuntimeWarning pointing into microtorch. Run in
    a fresh interpreter: pytest puts back its own warning filters after importing a test
    module, so the filter microtorch adds at import is not in force inside a test."""
    code = (
        "import numpy, microtorch\n"
        "x = microtorch.tensor([0.0, -1.0, 100.0], requires_grad=True)\n"
        "ys = [microtorch.log(x), x / 0, microtorch.sqrt(x), microtorch.exp(x * 1000)]\n"
        "sum(ys).sum().backward()\n"
        "half = microtorch.tensor(60000.0, dtype=microtorch.float16) * 2\n"
        "print([y.tolist() for y in ys], x.grad.tolist(), half.item())\n"
        "numpy.log(numpy.zeros(1))  # a user's own NumPy code still warns\n"
    )
    run = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True,
                         text=True, check=True, cwd=PACKAGE.parent)  # fmt: skip
    assert run.stdout.strip() == (
        "[[-inf, nan, 4.605170249938965], [nan, -inf, inf], [0.0, nan, 10.0], [1.0, 0.0, inf]]"
        " [inf, nan, inf] inf"  # what PyTorch prints for the same code
    )
    warned = [line for line in run.stderr.splitlines() if "Warning" in line]
    assert len(warned) == 1 and warned[0].startswith("<string>:7: RuntimeWarning: divide by zero")
