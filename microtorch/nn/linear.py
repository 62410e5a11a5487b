"""``Linear``: y = x W^T + b, ``Bilinear``: y = x1^T A x2 + b, and ``Identity``."""

from __future__ import annotations

import math
from typing import Any

from .. import factories
from .._tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


def register_weight_and_bias(module: Module, shape: tuple, bias: bool, device: Any,
                             dtype: Any, bias_size: int | None = None) -> None:  # fmt: skip
    """``module.weight`` of ``shape`` and ``module.bias`` of (bias_size,), by default
    (shape[0],) (None without ``bias``), uninitialised until reset_weight_and_bias fills
    them."""
    module.weight = Parameter(factories.empty(shape, device=device, dtype=dtype))
    if bias:
        size = shape[0] if bias_size is None else bias_size
        module.bias = Parameter(factories.empty(size, device=device, dtype=dtype))
    else:
        module.register_parameter("bias", None)


def reset_weight_and_bias(weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's default init of Linear and Conv layers: kaiming_uniform_ with a=sqrt(5),
    i.e. U(-1/sqrt(fan_in), 1/sqrt(fan_in)), for the weight; the same bound for the bias.
    fan_in = weight.shape[1] * prod(kernel)."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        init.uniform_(bias, -bound, bound)


class Identity(Module):
    """Returns its input unchanged (any constructor arguments are ignored, as in PyTorch)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """Applies y = x W^T + b to the last dim: (..., in_features) -> (..., out_features).

    weight (out_features, in_features) and bias (out_features,) both start from
    U(-1/sqrt(in_features), 1/sqrt(in_features)), PyTorch's default."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        register_weight_and_bias(self, (out_features, in_features), bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under the name PyTorch gives MultiheadAttention's ``out_proj`` (PyTorch uses
    the name to keep its quantization tools off that layer; here it is a plain Linear), so
    that the attention modules print as PyTorch's do."""


class Bilinear(Module):
    """Applies y[..., o] = input1 A_o input2 + b_o: (..., in1), (..., in2) -> (..., out).

    weight (out_features, in1_features, in2_features) and bias (out_features,) both start
    from U(-1/sqrt(in1_features), 1/sqrt(in1_features)), PyTorch's default."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={in1_features})")
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        shape = (out_features, in1_features, in2_features)
        register_weight_and_bias(self, shape, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
