"""torch.nn.modules.flatten: Flatten, Unflatten (PyTorch's module path)."""

from ..flatten import Flatten, Unflatten
