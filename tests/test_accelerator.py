"""torch.accelerator and torch.get_device_module: device-generic code ("use the GPU if
there is one") answering from microtorch.cuda, as PyTorch answers with or without CUDA."""

from __future__ import annotations

import pytest

import microtorch
from tests.conftest import cuda_available

acc = microtorch.accelerator
CALLS = ["current_device_index", "synchronize", "empty_cache", "memory_allocated",
         "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
         "reset_peak_memory_stats", "reset_accumulated_memory_stats", "get_memory_info"]  # fmt: skip


@pytest.mark.skipif(cuda_available(), reason="this machine has CUDA")
def test_without_a_gpu_there_is_no_accelerator() -> None:
    assert acc.is_available() is False and acc.device_count() == 0
    assert acc.current_accelerator() is None and acc.current_accelerator(True) is None
    assert microtorch.get_device_module() is microtorch.cpu
    for name in CALLS:
        with pytest.raises(RuntimeError, match="none is available"):
            getattr(acc, name)()
    with pytest.raises(RuntimeError, match="none is available"):
        acc.set_device_index(0)
    with pytest.raises(ValueError, match="specified index"):
        acc.set_device_index(None)


@pytest.mark.skipif(cuda_available(), reason="this machine has CUDA")
def test_without_a_gpu_pytorch_answers_the_same() -> None:
    torch = pytest.importorskip("torch")
    if torch.accelerator.is_available():
        pytest.skip("the installed PyTorch sees an accelerator")
    if torch.version.cuda is not None:  # a CUDA build names cuda even without a GPU
        pytest.skip("the installed PyTorch is a CUDA build (its accelerator is cuda)")
    assert torch.accelerator.current_accelerator() is None and torch.accelerator.device_count() == 0
    for name in CALLS:
        with pytest.raises(RuntimeError, match="none is available"):
            getattr(torch.accelerator, name)()
    assert torch.get_device_module().__name__ == "torch.cpu"


@pytest.mark.skipif(not cuda_available(), reason="CUDA not available")
def test_with_a_gpu_it_is_cuda() -> None:
    assert acc.is_available() and acc.device_count() == microtorch.cuda.device_count() >= 1
    assert acc.current_accelerator() == microtorch.device("cuda")
    assert acc.current_accelerator(check_available=True).type == "cuda"
    assert acc.current_device_index() == acc.current_device_idx() == 0
    acc.set_device_index(0)
    acc.set_device_index("cuda:0")
    with acc.device_index(0), acc.device_index(None):
        x = microtorch.ones(256, device="cuda")
    acc.synchronize()
    acc.synchronize("cuda")
    assert acc.memory_allocated() == microtorch.cuda.memory_allocated()
    assert acc.memory_reserved(0) >= acc.memory_allocated(0)
    assert acc.max_memory_reserved() >= acc.memory_reserved()
    stats = acc.memory_stats()
    assert list(stats) == sorted(stats) and stats["allocated_bytes.all.current"] >= 0
    acc.reset_peak_memory_stats()
    free, total = acc.get_memory_info()
    assert 0 <= free <= total
    acc.empty_cache()
    del x
    assert microtorch.get_device_module() is microtorch.cuda
    with pytest.raises(RuntimeError, match="not an accelerator"):
        acc.memory_allocated("cpu")
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        acc.memory_allocated(acc.device_count())


def test_get_device_module_names_the_module_of_a_device_type() -> None:
    assert microtorch.get_device_module("cpu") is microtorch.cpu
    assert microtorch.get_device_module("cuda:0") is microtorch.cuda
    assert microtorch.get_device_module(microtorch.device("cuda")) is microtorch.cuda
    with pytest.raises(RuntimeError, match="Invalid value of device"):
        microtorch.get_device_module(3)
    with pytest.raises(RuntimeError, match="unknown device"):
        microtorch.get_device_module("parrot")
