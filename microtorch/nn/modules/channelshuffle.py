"""torch.nn.modules.channelshuffle: ChannelShuffle (PyTorch's module path)."""

from ..channelshuffle import ChannelShuffle
