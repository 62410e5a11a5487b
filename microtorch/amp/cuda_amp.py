"""``torch.cuda.amp``: the older spellings of torch.amp for "cuda", deprecated in PyTorch 2.4
(each warns FutureWarning, as PyTorch's do, and then does what torch.amp's does)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import autocast_mode
from ._deprecated import DeprecatedAutocast, DeprecatedGradScaler, deprecated


class autocast(DeprecatedAutocast):  # noqa: N801 (PyTorch's name)
    """torch.amp.autocast("cuda", ...)."""

    _device_type = "cuda"


class GradScaler(DeprecatedGradScaler):
    """torch.amp.GradScaler("cuda", ...)."""

    _device_type = "cuda"


def custom_fwd(fwd: Callable | None = None, *, cast_inputs: Any = None) -> Callable:
    """torch.amp.custom_fwd(..., device_type="cuda")."""
    deprecated("torch.cuda.amp.custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return autocast_mode.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd: Callable | None = None) -> Callable:
    """torch.amp.custom_bwd(..., device_type="cuda")."""
    deprecated("torch.cuda.amp.custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return autocast_mode.custom_bwd(bwd, device_type="cuda")
