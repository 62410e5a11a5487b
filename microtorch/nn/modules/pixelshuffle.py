"""torch.nn.modules.pixelshuffle: PixelShuffle, PixelUnshuffle (PyTorch's module path)."""

from ..pixelshuffle import PixelShuffle, PixelUnshuffle
