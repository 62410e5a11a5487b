"""torch.nn.modules.fold: Fold, Unfold (PyTorch's module path)."""

from ..conv import Fold, Unfold
