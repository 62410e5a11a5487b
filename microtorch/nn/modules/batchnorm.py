"""torch.nn.modules.batchnorm: BatchNorm and its bases (PyTorch's module path)."""

from ..normalization import BatchNorm1d, BatchNorm2d, _BatchNorm, _NormBase
