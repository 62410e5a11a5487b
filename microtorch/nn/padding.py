"""Padding layers, thin modules over ``F.pad``: ZeroPad, ConstantPad, ReflectionPad,
ReplicationPad and CircularPad, each in a 1-d (last dim), a 2-d (last two dims) and a 3-d
(last three dims) form."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import functional as F
from .module import Module


class _PadNd(Module):
    """``padding``: one int for every side, or (left, right[, top, bottom[, front, back]]) as
    F.pad reads it, from the last dim."""

    _dims = 1
    _mode = "constant"

    def __init__(self, padding: Any, value: float | None = None) -> None:
        super().__init__()
        sides = 2 * self._dims
        name = type(self).__name__
        self.padding = tuple(F._ntuple(padding, sides, name, "padding"))
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode, self.value)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ConstantPad1d(_PadNd):
    """Pads the last dim with ``value``."""

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad2d(ConstantPad1d):
    """Pads the last two dims with ``value``."""

    _dims = 2


class ConstantPad3d(ConstantPad1d):
    """Pads the last three dims with ``value``."""

    _dims = 3


class ZeroPad1d(_PadNd):
    """Pads the last dim with zeros."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)


class ZeroPad2d(ZeroPad1d):
    """Pads the last two dims with zeros."""

    _dims = 2


class ZeroPad3d(ZeroPad1d):
    """Pads the last three dims with zeros."""

    _dims = 3


class ReflectionPad1d(_PadNd):
    """Pads the last dim with its mirror image (the edge not repeated)."""

    _mode = "reflect"


class ReflectionPad2d(ReflectionPad1d):
    """Pads the last two dims with their mirror images."""

    _dims = 2


class ReflectionPad3d(ReflectionPad1d):
    """Pads the last three dims with their mirror images."""

    _dims = 3


class ReplicationPad1d(_PadNd):
    """Pads the last dim by repeating its edge values."""

    _mode = "replicate"


class ReplicationPad2d(ReplicationPad1d):
    """Pads the last two dims by repeating their edge values."""

    _dims = 2


class ReplicationPad3d(ReplicationPad1d):
    """Pads the last three dims by repeating their edge values."""

    _dims = 3


class CircularPad1d(_PadNd):
    """Pads the last dim with the values from its other end (it wraps around)."""

    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        # PyTorch's circular pad modules (only these) check the input's dims themselves
        wanted = (self._dims + 1, self._dims + 2)
        if input.ndim not in wanted:
            raise ValueError(
                f"{type(self).__name__}: expected {wanted[0]}D or {wanted[1]}D input (got "
                f"{input.ndim}D input of shape {tuple(input.shape)})"
            )
        return super().forward(input)


class CircularPad2d(CircularPad1d):
    """Pads the last two dims with the values from their other ends."""

    _dims = 2


class CircularPad3d(CircularPad1d):
    """Pads the last three dims with the values from their other ends."""

    _dims = 3
