"""``torch.cuda.amp``: the older spellings of torch.amp for "cuda", deprecated in PyTorch 2.4
(each warns FutureWarning, as PyTorch's do, and then does what torch.amp's does)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .. import dtypes
from . import autocast_mode, grad_scaler


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"`{old}(args...)` is deprecated. Please use `{new}` instead.", FutureWarning, stacklevel=3
    )


class autocast(autocast_mode.autocast):  # noqa: N801 (PyTorch's name)
    """torch.amp.autocast("cuda", ...)."""

    def __init__(self, enabled: bool = True, dtype: Any = dtypes.float16,
                 cache_enabled: bool = True) -> None:  # fmt: skip
        _deprecated("torch.cuda.amp.autocast", "torch.amp.autocast('cuda', args...)")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(grad_scaler.GradScaler):
    """torch.amp.GradScaler("cuda", ...)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:  # fmt: skip
        _deprecated("torch.cuda.amp.GradScaler", "torch.amp.GradScaler('cuda', args...)")
        super().__init__(
            "cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled
        )


def custom_fwd(fwd: Callable | None = None, *, cast_inputs: Any = None) -> Callable:
    """torch.amp.custom_fwd(..., device_type="cuda")."""
    _deprecated("torch.cuda.amp.custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return autocast_mode.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd: Callable | None = None) -> Callable:
    """torch.amp.custom_bwd(..., device_type="cuda")."""
    _deprecated("torch.cuda.amp.custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return autocast_mode.custom_bwd(bwd, device_type="cuda")
