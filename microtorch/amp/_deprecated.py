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


# ----- the per-device getters and setters of PyTorch before 2.4 (torch.get_autocast_cpu_dtype
# and friends): each warns DeprecationWarning, naming its replacement, as PyTorch's do, then
# reads or sets autocast_mode's state. Device types microtorch lacks (ipu, xla) read as
# disabled, and setting them does nothing, as set_autocast_enabled does for them.
def _deprecated_state(old: str, new: str) -> None:
    warnings.warn(
        f"torch.{old} is deprecated. Please use torch.{new} instead.",
        DeprecationWarning,
        stacklevel=3,
    )


def _check_bool(enabled: Any) -> bool:
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    return enabled


def _check_dtype(dtype: Any) -> Any:
    from ..dtypes import dtype as dtype_class

    if not isinstance(dtype, dtype_class):
        raise TypeError(f"dtype must be a torch.dtype (got {type(dtype).__name__})")
    return dtype


def is_autocast_cpu_enabled() -> bool:
    """Deprecated: is_autocast_enabled("cpu")."""
    _deprecated_state("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return autocast_mode.is_autocast_enabled("cpu")


def is_autocast_ipu_enabled() -> bool:
    """Deprecated: is_autocast_enabled("ipu") (always False: microtorch has no IPU)."""
    _deprecated_state("is_autocast_ipu_enabled()", "is_autocast_enabled('ipu')")
    return autocast_mode.is_autocast_enabled("ipu")


def is_autocast_xla_enabled() -> bool:
    """Deprecated: is_autocast_enabled("xla") (always False: microtorch has no XLA)."""
    _deprecated_state("is_autocast_xla_enabled()", "is_autocast_enabled('xla')")
    return autocast_mode.is_autocast_enabled("xla")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Deprecated: set_autocast_enabled("cpu", enabled)."""
    _deprecated_state("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    autocast_mode.set_autocast_enabled("cpu", _check_bool(enabled))


def set_autocast_ipu_enabled(enabled: bool) -> None:
    """Deprecated: set_autocast_enabled("ipu", enabled) (nothing to switch here)."""
    _deprecated_state("set_autocast_ipu_enabled(enabled)", "set_autocast_enabled('ipu', enabled)")
    autocast_mode.set_autocast_enabled("ipu", _check_bool(enabled))


def set_autocast_xla_enabled(enabled: bool) -> None:
    """Deprecated: set_autocast_enabled("xla", enabled) (nothing to switch here)."""
    _deprecated_state("set_autocast_xla_enabled(enabled)", "set_autocast_enabled('xla', enabled)")
    autocast_mode.set_autocast_enabled("xla", _check_bool(enabled))


def get_autocast_cpu_dtype() -> Any:
    """Deprecated: get_autocast_dtype("cpu")."""
    _deprecated_state("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return autocast_mode.get_autocast_dtype("cpu")


def get_autocast_gpu_dtype() -> Any:
    """Deprecated: get_autocast_dtype("cuda")."""
    _deprecated_state("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return autocast_mode.get_autocast_dtype("cuda")


def get_autocast_ipu_dtype() -> Any:
    """Deprecated: get_autocast_dtype("ipu")."""
    _deprecated_state("get_autocast_ipu_dtype()", "get_autocast_dtype('ipu')")
    return autocast_mode.get_autocast_dtype("ipu")


def get_autocast_xla_dtype() -> Any:
    """Deprecated: get_autocast_dtype("xla")."""
    _deprecated_state("get_autocast_xla_dtype()", "get_autocast_dtype('xla')")
    return autocast_mode.get_autocast_dtype("xla")


def set_autocast_cpu_dtype(dtype: Any) -> None:
    """Deprecated: set_autocast_dtype("cpu", dtype)."""
    _deprecated_state("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    autocast_mode.set_autocast_dtype("cpu", _check_dtype(dtype))


def set_autocast_gpu_dtype(dtype: Any) -> None:
    """Deprecated: set_autocast_dtype("cuda", dtype)."""
    _deprecated_state("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    autocast_mode.set_autocast_dtype("cuda", _check_dtype(dtype))


def set_autocast_ipu_dtype(dtype: Any) -> None:
    """Deprecated: set_autocast_dtype("ipu", dtype) (nothing to set here)."""
    _deprecated_state("set_autocast_ipu_dtype(dtype)", "set_autocast_dtype('ipu', dtype)")
    autocast_mode.set_autocast_dtype("ipu", _check_dtype(dtype))


def set_autocast_xla_dtype(dtype: Any) -> None:
    """Deprecated: set_autocast_dtype("xla", dtype) (nothing to set here)."""
    _deprecated_state("set_autocast_xla_dtype(dtype)", "set_autocast_dtype('xla', dtype)")
    autocast_mode.set_autocast_dtype("xla", _check_dtype(dtype))
