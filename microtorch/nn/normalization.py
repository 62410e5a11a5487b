"""``LayerNorm``: normalise each sample over its last dims, then scale and shift."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import factories
from .._tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class LayerNorm(Module):
    """y = (x - mean) / sqrt(var + eps) * weight + bias, with mean and (biased) variance
    taken over the last ``len(normalized_shape)`` dims. weight starts at ones, bias at zeros;
    ``elementwise_affine=False`` drops both, ``bias=False`` drops the bias only."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            shape = self.normalized_shape
            self.weight = Parameter(factories.empty(*shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(factories.empty(*shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
            f", bias={self.bias is not None}"
        )
