"""torch.nn.modules.module: Module (PyTorch's module path)."""

from ..module import Module, _IncompatibleKeys
