"""torch.nn.modules.normalization: LayerNorm, GroupNorm (PyTorch's module path)."""

from ..normalization import GroupNorm, LayerNorm, LocalResponseNorm
