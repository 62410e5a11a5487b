"""torch.nn.modules.transformer: the Transformer modules (PyTorch's module path)."""

from ..transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
