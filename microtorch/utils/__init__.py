"""``microtorch.utils.data``: datasets, samplers and the DataLoader, as in ``torch.utils.data``;
``microtorch.utils.checkpoint``: activation checkpointing, as ``torch.utils.checkpoint``;
``microtorch.utils.hooks``: the hooks' RemovableHandle, as ``torch.utils.hooks``;
``microtorch.utils.dlpack``: DLPack capsules, as ``torch.utils.dlpack``."""

from . import checkpoint, data, dlpack, hooks

__all__ = ["checkpoint", "data", "dlpack", "hooks"]
