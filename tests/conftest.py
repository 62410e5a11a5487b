"""Shared test fixtures.

``device``: every test that takes it runs once on the CPU and once on CUDA; the CUDA run
skips cleanly when CuPy or a GPU is absent. Set MICROTORCH_TEST_DEVICE=cuda to run only
the CUDA cases (benchmarks/gpu_check.sh does), or =cpu for only the CPU ones.
MICROTORCH_TEST_DEVICE=fakecuda runs the CUDA cases on the CPU, with tests/fake_cupy
standing in for CuPy (no GPU needed; see that module for what it does and cannot show).
"""

from __future__ import annotations

import os

import pytest

_ONLY = os.environ.get("MICROTORCH_TEST_DEVICE")
if _ONLY == "fakecuda":
    import shutil

    if shutil.which("g++") is None:
        raise pytest.UsageError("MICROTORCH_TEST_DEVICE=fakecuda runs CUDA kernels with g++")
    from tests import fake_cupy

    fake_cupy.install()  # before microtorch first imports cupy
    _ONLY = "cuda"

import microtorch  # noqa: E402

DEVICES = [d for d in ("cpu", "cuda") if _ONLY in (None, "", d)]


def cuda_available() -> bool:
    return microtorch.cuda.is_available()


@pytest.fixture(params=DEVICES)
def device(request: pytest.FixtureRequest) -> str:
    if request.param == "cuda" and not cuda_available():
        pytest.skip("CUDA not available (needs CuPy and a GPU)")
    return request.param


@pytest.fixture(autouse=True)
def _seed() -> None:
    microtorch.manual_seed(0)


requires_cuda = pytest.mark.skipif(not cuda_available(), reason="CUDA not available")
