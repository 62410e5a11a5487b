"""torch.nn.modules.instancenorm: InstanceNorm and its base (PyTorch's module path)."""

from ..normalization import InstanceNorm1d, InstanceNorm2d, _InstanceNorm
