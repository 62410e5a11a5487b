"""``Conv1d/2d/3d`` (cross-correlation layers), ``ConvTranspose1d/2d/3d`` (their adjoints)
and ``Unfold`` / ``Fold``."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import functional as F
from .linear import register_weight_and_bias, reset_weight_and_bias
from .module import Module

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """What the convolutions share: weight (out_channels, in_channels / groups, *kernel_size)
    (a transposed conv's: (in_channels, out_channels / groups, *kernel_size)) and bias
    (out_channels,), both from PyTorch's default init: kaiming_uniform_(a=sqrt(5)), i.e.
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)), with fan_in = weight.shape[1] * prod(kernel)."""

    _spatial = 0
    _conv: Any = None
    _transposed = False

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
        if self._transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = F._ntuple(kernel_size, n, name, "kernel_size")
        self.stride = F._ntuple(stride, n, name, "stride")
        self.dilation = F._ntuple(dilation, n, name, "dilation")
        if isinstance(padding, str) and self._transposed:
            raise ValueError(f"{name}: padding must be an int or a tuple of ints, got "
                             f"{padding!r} ('same' and 'valid' are for Conv{n}d)")  # fmt: skip
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
        # PyTorch's attributes that code inspecting a conv reads (ConvTranspose sets its own
        # output_padding)
        self.transposed, self.output_padding = self._transposed, (0,) * n
        # F.pad's (left, right) widths from the last dim, for padding modes other than zeros
        pairs = F._conv_padding(self.padding, self.kernel_size, self.dilation, self.stride, name)
        self._reversed_padding_repeated_twice = tuple(w for pair in reversed(pairs) for w in pair)
        shape = self._weight_shape()
        register_weight_and_bias(self, shape, bias, device, dtype, bias_size=out_channels)
        self.reset_parameters()

    def _weight_shape(self) -> tuple:
        """(out_channels, in_channels / groups, *kernel_size); transposed: (in_channels,
        out_channels / groups, *kernel_size)."""
        if self._transposed:
            return (self.in_channels, self.out_channels // self.groups) + self.kernel_size
        return (self.out_channels, self.in_channels // self.groups) + self.kernel_size

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
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
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


class _ConvTransposeNd(_ConvNd):
    """A learned transposed convolution (F.conv_transpose*d): the adjoint of the Conv with
    the same arguments, mapping its output shape back to its input shape. ``output_padding``
    (or ``output_size=`` in forward) picks among the input sizes that conv maps to one size."""

    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)  # fmt: skip
        name = type(self).__name__
        self.output_padding = F._ntuple(output_padding, self._spatial, name, "output_padding")

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple:
        """The output_padding that gives ``output_size`` (its last spatial-many entries; a
        batched input also takes (N, C, *S), an unbatched one (C, *S)), or the module's."""
        if output_size is None:
            return self.output_padding
        n, name = self._spatial, type(self).__name__
        sizes = list(output_size)
        allowed = (n, input.ndim) if input.ndim == n + 2 else (n, n + 1)
        if len(sizes) not in allowed:
            raise ValueError(
                f"{name}: for {input.ndim}D input, output_size must have {allowed[0]} or "
                f"{allowed[1]} elements (got {len(sizes)})"
            )
        sizes = sizes[-n:]
        in_size = tuple(input.shape[-n:])
        smallest = [(i - 1) * s - 2 * p + d * (k - 1) + 1 for i, s, p, d, k in
                    zip(in_size, self.stride, self.padding, self.dilation, self.kernel_size)]  # fmt: skip
        largest = [m + s - 1 for m, s in zip(smallest, self.stride)]
        if any(not lo <= o <= hi for o, lo, hi in zip(sizes, smallest, largest)):
            raise ValueError(
                f"{name}: requested an output size of {output_size}, but valid sizes range "
                f"from {smallest} to {largest} (for an input of {list(in_size)})"
            )
        return tuple(o - lo for o, lo in zip(sizes, smallest))

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        extra = self._output_padding(input, output_size)
        return type(self)._conv(input, self.weight, self.bias, self.stride, self.padding, extra,
                                self.groups, self.dilation)  # fmt: skip


class ConvTranspose1d(_ConvTransposeNd):
    """(N, C_in, L) -> (N, C_out, L_out): a learned 1-d transposed convolution."""

    _spatial = 1
    _conv = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """(N, C_in, H, W) -> (N, C_out, H_out, W_out): a learned 2-d transposed convolution."""

    _spatial = 2
    _conv = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """(N, C_in, D, H, W) -> (N, C_out, D_out, H_out, W_out): a learned 3-d transposed
    convolution."""

    _spatial = 3
    _conv = staticmethod(F.conv_transpose3d)


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
