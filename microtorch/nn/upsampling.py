"""``Upsample``: resize the spatial dims with F.interpolate (mode="nearest" only here)."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import functional as F
from .module import Module


class Upsample(Module):
    """(N, C, *S) -> (N, C, *size) or (N, C, *floor(S * scale_factor)), each output element
    a copy of its nearest input element. Other modes are refused (microtorch has only
    "nearest")."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:  # fmt: skip
        super().__init__()
        if mode != "nearest":
            raise NotImplementedError(
                f"Upsample: mode={mode!r} is not implemented in microtorch, only mode='nearest'"
            )
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor: Any = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)  # fmt: skip

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"
