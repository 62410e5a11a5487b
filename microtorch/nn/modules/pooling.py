"""torch.nn.modules.pooling: the pooling modules (PyTorch's module path)."""

from ..pooling import AdaptiveAvgPool1d, AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, _AdaptiveAvgPoolNd
