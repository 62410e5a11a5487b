"""torch.nn.modules.instancenorm: InstanceNorm and its base (PyTorch's module path)."""

from ..lazy import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d
from ..normalization import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
