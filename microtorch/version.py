"""``torch.version``: what this build is. microtorch is pure Python on NumPy, with CuPy for
CUDA when it is installed, so ``cuda`` is CuPy's CUDA runtime version (None without it)
and the other backends' versions are None."""

from __future__ import annotations

from typing import Any

from .torch_version import TorchVersion

__version__ = TorchVersion("0.1.0")
debug = False  # not a debug build
git_version = "Unknown"  # (PyTorch's value for a build not made from a git checkout)
hip = None
rocm = None
xpu = None


def __getattr__(name: str) -> Any:
    """``cuda``: CuPy's CUDA runtime version such as "12.4", worked out on first use (so
    that importing microtorch does not import CuPy); None when CuPy or a GPU is missing."""
    if name != "cuda":
        raise AttributeError(f"module 'microtorch.version' has no attribute '{name}'")
    from . import backend

    if not backend.cuda_is_available():
        return None
    number = backend.xp_for(backend.device("cuda")).cuda.runtime.runtimeGetVersion()  # 12040
    return f"{number // 1000}.{number % 1000 // 10}"
