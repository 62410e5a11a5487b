"""torch.nn.modules.linear: Identity, Linear, Bilinear (PyTorch's module path)."""

from ..linear import Bilinear, Identity, Linear
