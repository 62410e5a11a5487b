"""``microtorch.utils.data``: datasets, samplers and the DataLoader, as in ``torch.utils.data``."""

from . import data

__all__ = ["data"]
