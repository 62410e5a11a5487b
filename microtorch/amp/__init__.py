"""``microtorch.amp``: automatic mixed precision, as ``torch.amp``.

``autocast`` (autocast_mode.py) runs the matrix products of a region in float16 and the
range-sensitive ops in float32, following the per-device op lists in op_lists.py;
``GradScaler`` (grad_scaler.py) scales the loss so that float16 gradients do not underflow,
and skips the steps whose gradients overflowed. docs/gpu.md has a walk-through.
"""

from . import autocast_mode, grad_scaler
from .autocast_mode import (
    autocast,
    custom_bwd,
    custom_fwd,
    get_autocast_dtype,
    is_autocast_available,
    is_autocast_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from .grad_scaler import GradScaler

__all__ = [
    "GradScaler",
    "autocast",
    "autocast_mode",
    "custom_bwd",
    "custom_fwd",
    "get_autocast_dtype",
    "grad_scaler",
    "is_autocast_available",
    "is_autocast_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
]
