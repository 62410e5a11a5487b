"""``microtorch.cpu``: the CPU's counterparts of microtorch.cuda's calls, as torch.cpu."""

from __future__ import annotations

import sys
from typing import Any

from .amp import cpu_amp as amp  # torch.cpu.amp: the deprecated spellings of torch.amp

sys.modules[f"{__name__}.amp"] = amp  # (so that `from torch.cpu.amp import autocast` works)


def is_available() -> bool:
    """Always True: NumPy runs on the CPU."""
    return True


def device_count() -> int:
    return 1


def synchronize(device: Any = None) -> None:
    """Nothing to wait for: CPU ops finish before they return."""
