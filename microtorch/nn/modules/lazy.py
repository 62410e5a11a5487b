"""torch.nn.modules.lazy: the lazy modules' base (PyTorch's path)."""

from ..lazy import LazyModuleMixin
