"""``microtorch.utils.data``: datasets and the DataLoader, as in ``torch.utils.data``."""

from . import data

__all__ = ["data"]
