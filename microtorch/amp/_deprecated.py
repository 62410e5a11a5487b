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
