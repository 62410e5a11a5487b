"""torch.nn.modules.linear: Identity, Linear, Bilinear (PyTorch's module path)."""

from ..lazy import LazyLinear
from ..linear import Bilinear, Identity, Linear
