"""``backends.cudnn``: PyTorch's cuDNN settings steer its convolutions and recurrent layers
on a GPU. microtorch never calls cuDNN (its convolutions are matrix products through NumPy
or CuPy), so these are plain module attributes a script may set and read; they change
nothing, and ``is_available()`` says so.

    import microtorch.backends.cudnn as cudnn
    cudnn.benchmark = True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True
fp32_precision = "none"
depthwise_kernel = "auto"


def is_available() -> bool:
    """False: microtorch does not use cuDNN."""
    return False


def version() -> None:
    """None, PyTorch's answer when cuDNN is not there."""
    return None


@contextlib.contextmanager
def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10,
          deterministic: bool = False, allow_tf32: bool = True, fp32_precision: str = "none",
          depthwise_kernel: str = "auto") -> Iterator[None]:  # fmt: skip
    """Set the settings inside a ``with`` block and restore them after, as PyTorch's does."""
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32",
             "fp32_precision", "depthwise_kernel")  # fmt: skip
    module = globals()
    before = {name: module[name] for name in names}
    module.update(
        enabled=enabled,
        benchmark=benchmark,
        benchmark_limit=benchmark_limit,
        deterministic=deterministic,
        allow_tf32=allow_tf32,
        fp32_precision=fp32_precision,
        depthwise_kernel=depthwise_kernel,
    )
    try:
        yield
    finally:
        module.update(before)
