"""torch.nn.modules.linear: Identity, Linear, Bilinear, NonDynamicallyQuantizableLinear
(PyTorch's module path)."""

from ..lazy import LazyLinear
from ..linear import Bilinear, Identity, Linear, NonDynamicallyQuantizableLinear

__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear"]  # PyTorch's; not the attention's
