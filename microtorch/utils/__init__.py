"""``microtorch.utils.data``: datasets, samplers and the DataLoader, as in ``torch.utils.data``;
``microtorch.utils.checkpoint``: activation checkpointing, as ``torch.utils.checkpoint``."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
