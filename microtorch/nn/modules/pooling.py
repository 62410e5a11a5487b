"""torch.nn.modules.pooling: the pooling modules (PyTorch's module path)."""

from ..pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    _AdaptiveAvgPoolNd,
    _LPPoolNd,
)
