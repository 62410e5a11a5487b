"""torch.nn.modules.upsampling: Upsample (PyTorch's module path)."""

from ..upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
