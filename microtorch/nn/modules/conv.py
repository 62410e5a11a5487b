"""torch.nn.modules.conv: the convolutions (PyTorch's module path)."""

from ..conv import Conv1d, Conv2d, _ConvNd
