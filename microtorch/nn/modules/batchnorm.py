"""torch.nn.modules.batchnorm: BatchNorm and its bases (PyTorch's module path)."""

from ..lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, _LazyNormBase
from ..normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase
