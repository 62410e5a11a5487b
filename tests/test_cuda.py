"""microtorch.cuda: GPU housekeeping with PyTorch's names (is_available, device_count,
get_device_name, get_device_capability, synchronize, the memory counters, empty_cache)."""

from __future__ import annotations

import sys

import pytest

import microtorch
from tests.conftest import cuda_available

FAKE = getattr(sys.modules.get("cupy"), "__version__", "") == "0.0-fake"


@pytest.mark.skipif(cuda_available(), reason="this machine has CUDA")
def test_without_a_gpu_the_counters_are_zero_and_empty_cache_does_nothing() -> None:
    cuda = microtorch.cuda
    assert cuda.device_count() == 0
    assert cuda.memory_allocated() == cuda.memory_reserved() == cuda.max_memory_allocated() == 0
    cuda.empty_cache()


@pytest.mark.skipif(not cuda_available(), reason="CUDA not available")
def test_device_name_and_index() -> None:
    name = microtorch.cuda.get_device_name()
    assert isinstance(name, str) and name
    assert microtorch.cuda.get_device_name(0) == microtorch.cuda.get_device_name("cuda:0") == name
    assert microtorch.cuda.current_device() == 0 and microtorch.cuda.device_count() >= 1
    major, minor = microtorch.cuda.get_device_capability()
    assert major >= 3 and 0 <= minor <= 9
    assert microtorch.cuda.get_device_capability("cuda:0") == (major, minor)


@pytest.mark.skipif(not cuda_available() or FAKE, reason="needs a GPU (the fake has no pool)")
def test_memory_counters_follow_the_tensors() -> None:
    cuda = microtorch.cuda
    cuda.synchronize()
    before = cuda.memory_allocated()
    x = microtorch.zeros(1024, 1024, device="cuda")  # 4 MiB
    assert cuda.memory_allocated() >= before + 4 * 2**20
    assert cuda.memory_reserved() >= cuda.memory_allocated()
    assert cuda.max_memory_allocated() >= cuda.memory_allocated()
    del x
    assert cuda.memory_allocated() == before
    reserved = cuda.memory_reserved()
    assert reserved - before >= 4 * 2**20  # the freed block is kept for reuse...
    cuda.empty_cache()  # ... until now (blocks shared with arrays in use stay)
    assert cuda.memory_allocated() == before and cuda.memory_reserved() <= reserved


@pytest.mark.skipif(cuda_available(), reason="this machine has CUDA")
def test_without_a_gpu_an_event_cannot_be_made() -> None:
    with pytest.raises(RuntimeError, match="no CUDA GPU"):
        microtorch.cuda.Event(enable_timing=True)


@pytest.mark.skipif(not cuda_available(), reason="CUDA not available")
def test_events_time_the_gpu_work_between_them() -> None:
    start, end = microtorch.cuda.Event(enable_timing=True), microtorch.cuda.Event(True)
    x = microtorch.ones(256, 256, device="cuda")
    start.record()
    for _ in range(3):
        x = x @ x / 256
    end.record()
    end.synchronize()
    assert end.query() is True
    elapsed = start.elapsed_time(end)
    assert isinstance(elapsed, float) and elapsed >= 0.0
    untimed = microtorch.cuda.Event()
    untimed.record()
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        start.elapsed_time(untimed)
