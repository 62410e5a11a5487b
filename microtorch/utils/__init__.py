"""``microtorch.utils.data``: datasets, samplers and the DataLoader, as in ``torch.utils.data``;
``microtorch.utils.checkpoint``: activation checkpointing, as ``torch.utils.checkpoint``;
``microtorch.utils.hooks``: the hooks' RemovableHandle, as ``torch.utils.hooks``."""

from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
