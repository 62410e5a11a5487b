"""torch.nn.modules.dropout: the dropout modules (PyTorch's module path)."""

from ..dropout import (
    AlphaDropout,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    FeatureAlphaDropout,
    _DropoutNd,
)
