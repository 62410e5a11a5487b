"""torch.nn.modules.adaptive: AdaptiveLogSoftmaxWithLoss (PyTorch's path)."""

from ..adaptive import AdaptiveLogSoftmaxWithLoss, _ASMoutput  # noqa: F401
