"""Average pooling layers: ``AvgPool1d/2d/3d``, ``AdaptiveAvgPool1d/2d/3d`` and the power-average
``LPPool1d/2d/3d``."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import functional as F
from .module import Module


class AvgPool1d(Module):
    """(N, C, L) -> (N, C, L_out): the mean of each window (F.avg_pool1d)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:  # fmt: skip
        super().__init__()
        # PyTorch keeps AvgPool1d's sizes as 1-tuples (and AvgPool2d's as given)
        self.kernel_size = F._ntuple(kernel_size, 1, "AvgPool1d", "kernel_size")
        given_stride = stride if stride is not None else kernel_size
        self.stride = F._ntuple(given_stride, 1, "AvgPool1d", "stride")
        self.padding = F._ntuple(padding, 1, "AvgPool1d", "padding")
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)  # fmt: skip

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    """(N, C, H, W) -> (N, C, H_out, W_out): the mean of each window (F.avg_pool2d)."""

    _pool = staticmethod(F.avg_pool2d)

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._pool(input, self.kernel_size, self.stride, self.padding,
                                self.ceil_mode, self.count_include_pad,
                                self.divisor_override)  # fmt: skip

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3d(AvgPool2d):
    """(N, C, D, H, W) -> (N, C, D_out, H_out, W_out): the mean of each window (F.avg_pool3d)."""

    _pool = staticmethod(F.avg_pool3d)


class _LPPoolNd(Module):
    """The p-norm of each window, (sum x^p)^(1/p) (F.lp_pool*d); the sizes kept as given."""

    _pool: Any = None

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None,
                 ceil_mode: bool = False) -> None:  # fmt: skip
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._pool(input, float(self.norm_type), self.kernel_size, self.stride,
                                self.ceil_mode)  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """(N, C, L) -> (N, C, L_out): the p-norm of each window (F.lp_pool1d)."""

    _pool = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """(N, C, H, W) -> (N, C, H_out, W_out): the p-norm of each window (F.lp_pool2d)."""

    _pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """(N, C, D, H, W) -> (N, C, D_out, H_out, W_out): the p-norm of each window."""

    _pool = staticmethod(F.lp_pool3d)


class _AdaptiveAvgPoolNd(Module):
    """What every adaptive pool keeps: the output size (an int, a tuple, None = unchanged)."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """(N, C, L) -> (N, C, output_size) by window means (F.adaptive_avg_pool1d)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """(N, C, H, W) -> (N, C, *output_size) by window means (F.adaptive_avg_pool2d)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """(N, C, D, H, W) -> (N, C, *output_size) by window means (F.adaptive_avg_pool3d)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)
