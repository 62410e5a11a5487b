"""``Conv1d`` / ``Conv2d`` / ``Conv3d`` (cross-correlation layers) and ``Unfold`` / ``Fold``."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import functional as F
from .linear import register_weight_and_bias, reset_weight_and_bias
from .module import Module

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """What Conv1d, Conv2d and Conv3d share: weight (out_channels, in_channels / groups, *kernel_size)
    and bias (out_channels,), both from PyTorch's default init: kaiming_uniform_(a=sqrt(5)),
    i.e. U(-1/sqrt(fan_in), 1/sqrt(fan_in)), with fan_in = in_channels / groups * prod(kernel)."""

    _spatial = 0
    _conv: Any = None

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        name, n = type(self).__name__, self._spatial
        if groups <= 0:
            raise ValueError(f"{name}: groups must be a positive integer, got {groups}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(
                f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) must "
                f"be divisible by groups ({groups})"
            )
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"{name}: padding_mode must be one of {list(_PADDING_MODES)}, got {padding_mode!r}"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = F._ntuple(kernel_size, n, name, "kernel_size")
        self.stride = F._ntuple(stride, n, name, "stride")
        self.dilation = F._ntuple(dilation, n, name, "dilation")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"{name}: Invalid padding string {padding!r}, should be one "
                                 "of ['valid', 'same']")  # fmt: skip
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError(f"{name}: padding='same' is not supported for strided "
                                 "convolutions")  # fmt: skip
            self.padding: Any = padding
        else:
            self.padding = F._ntuple(padding, n, name, "padding")
        self.groups, self.padding_mode = groups, padding_mode
        # PyTorch's attributes that code inspecting a conv reads (no transposed conv here)
        self.transposed, self.output_padding = False, (0,) * n
        # F.pad's (left, right) widths from the last dim, for padding modes other than zeros
        pairs = F._conv_padding(self.padding, self.kernel_size, self.dilation, self.stride, name)
        self._reversed_padding_repeated_twice = tuple(w for pair in reversed(pairs) for w in pair)
        shape = (out_channels, in_channels // groups) + self.kernel_size
        register_weight_and_bias(self, shape, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode == "zeros":
            return type(self)._conv(input, self.weight, self.bias, self.stride, self.padding,
                                    self.dilation, self.groups)  # fmt: skip
        padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return type(self)._conv(padded, self.weight, self.bias, self.stride, 0, self.dilation,
                                self.groups)  # fmt: skip

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"
        s += f", stride={self.stride}"
        n = self._spatial
        if isinstance(self.padding, str):
            s += f", padding={self.padding}"
        elif self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """(N, C_in, L) -> (N, C_out, L_out): a learned 1-d cross-correlation (F.conv1d)."""

    _spatial = 1
    _conv = staticmethod(F.conv1d)


class Conv2d(_ConvNd):
    """(N, C_in, H, W) -> (N, C_out, H_out, W_out): a learned 2-d cross-correlation."""

    _spatial = 2
    _conv = staticmethod(F.conv2d)


class Conv3d(_ConvNd):
    """(N, C_in, D, H, W) -> (N, C_out, D_out, H_out, W_out): a learned 3-d cross-correlation."""

    _spatial = 3
    _conv = staticmethod(F.conv3d)


class Unfold(Module):
    """(N, C, H, W) -> (N, C * kH * kW, L): the sliding blocks as columns (F.unfold)."""

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}"
            f", stride={self.stride}"
        )


class Fold(Module):
    """(N, C * kH * kW, L) -> (N, C, *output_size): columns summed back into blocks (F.fold)."""

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:  # fmt: skip
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation="
            f"{self.dilation}, padding={self.padding}, stride={self.stride}"
        )
