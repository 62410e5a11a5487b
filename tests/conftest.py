"""Shared test fixtures.

``device``: every test that takes it runs once on the CPU and once on CUDA; the CUDA run
skips cleanly when CuPy or a GPU is absent. Set MICROTORCH_TEST_DEVICE=cuda to run only
the CUDA cases (benchmarks/gpu_check.sh does), or =cpu for only the CPU ones.
"""

from __future__ import annotations

import os

import pytest

import microtorch

_ONLY = os.environ.get("MICROTORCH_TEST_DEVICE")
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
