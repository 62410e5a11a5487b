"""``torch.cpu.amp``: the older spellings of torch.amp for "cpu", deprecated in PyTorch 2.4
(each warns FutureWarning, as PyTorch's do, and then does what torch.amp's does)."""

from __future__ import annotations

from typing import Any

from . import autocast_mode, grad_scaler
from .cuda_amp import _deprecated


class autocast(autocast_mode.autocast):  # noqa: N801 (PyTorch's name)
    """torch.amp.autocast("cpu", ...): PyTorch's default dtype here is bfloat16, which
    microtorch lacks, so pass dtype=torch.float16 (without it autocast warns and is off)."""

    def __init__(self, enabled: bool = True, dtype: Any = None,
                 cache_enabled: bool = True) -> None:  # fmt: skip
        _deprecated("torch.cpu.amp.autocast", "torch.amp.autocast('cpu', args...)")
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(grad_scaler.GradScaler):
    """torch.amp.GradScaler("cpu", ...)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:  # fmt: skip
        _deprecated("torch.cpu.amp.GradScaler", "torch.amp.GradScaler('cpu', args...)")
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
