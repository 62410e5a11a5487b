"""``Upsample``: resize the spatial dims with F.interpolate; ``UpsamplingNearest2d`` and
``UpsamplingBilinear2d`` (align_corners=True), its older fixed-mode forms."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import functional as F
from .module import Module


class Upsample(Module):
    """(N, C, *S) -> (N, C, *size) or (N, C, *floor(S * scale_factor)) by F.interpolate's
    ``mode``: "nearest" (a copy of the nearest input element), "nearest-exact", "linear",
    "bilinear", "bicubic", "trilinear" or "area"."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:  # fmt: skip
        super().__init__()
        modes = ("nearest", "nearest-exact", "area", *F._LINEAR_MODES)
        if mode not in modes:
            raise NotImplementedError(
                f"Upsample: mode={mode!r} is not implemented in microtorch, only "
                f"{', '.join(repr(m) for m in modes)}"
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


class UpsamplingNearest2d(Upsample):
    """(N, C, H, W) -> (N, C, *size) or scaled by scale_factor, mode="nearest"."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """(N, C, H, W) -> (N, C, *size) or scaled by scale_factor, mode="bilinear" with
    align_corners=True (the corner pixels kept)."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
