"""The torch.cuda.amp / torch.cpu.amp spellings of autocast and GradScaler, deprecated in
PyTorch 2.4: each warns FutureWarning, as PyTorch's do, then does what torch.amp's does for
its device type (``_device_type``, set by the subclasses in cuda_amp.py and cpu_amp.py)."""

from __future__ import annotations

import warnings
from typing import Any

from . import autocast_mode, grad_scaler


def deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"`{old}(args...)` is deprecated. Please use `{new}` instead.", FutureWarning, stacklevel=3
    )


class DeprecatedAutocast(autocast_mode.autocast):
    """torch.amp.autocast(device_type, ...); dtype None is that device type's default
    (float16 for "cuda"; PyTorch's bfloat16 for "cpu", which warns and disables here)."""

    _device_type = "cuda"

    def __init__(self, enabled: bool = True, dtype: Any = None,
                 cache_enabled: bool = True) -> None:  # fmt: skip
        device = self._device_type
        deprecated(f"torch.{device}.amp.autocast", f"torch.amp.autocast('{device}', args...)")
        super().__init__(device, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class DeprecatedGradScaler(grad_scaler.GradScaler):
    """torch.amp.GradScaler(device_type, ...)."""

    _device_type = "cuda"

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:  # fmt: skip
        device = self._device_type
        deprecated(f"torch.{device}.amp.GradScaler", f"torch.amp.GradScaler('{device}', args...)")
        super().__init__(
            device, init_scale, growth_factor, backoff_factor, growth_interval, enabled
        )


# The per-device getters and setters PyTorch had before the device_type argument: each warns
# DeprecationWarning, as PyTorch's do, naming the call to use instead.
def _old_name(old: str, new: str) -> None:
    warnings.warn(f"torch.{old}() is deprecated: use torch.{new} instead", DeprecationWarning,
                  stacklevel=3)  # fmt: skip


def get_autocast_cpu_dtype() -> Any:
    """get_autocast_dtype("cpu")."""
    _old_name("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return autocast_mode.get_autocast_dtype("cpu")


def get_autocast_gpu_dtype() -> Any:
    """get_autocast_dtype("cuda")."""
    _old_name("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return autocast_mode.get_autocast_dtype("cuda")


def is_autocast_cpu_enabled() -> bool:
    """is_autocast_enabled("cpu")."""
    _old_name("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return autocast_mode.is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """set_autocast_enabled("cpu", enabled)."""
    _old_name("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    autocast_mode.set_autocast_enabled("cpu", enabled)


def set_autocast_cpu_dtype(dtype: Any) -> None:
    """set_autocast_dtype("cpu", dtype)."""
    _old_name("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    autocast_mode.set_autocast_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype: Any) -> None:
    """set_autocast_dtype("cuda", dtype)."""
    _old_name("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    autocast_mode.set_autocast_dtype("cuda", dtype)
