"""``microtorch.utils.dlpack``, as ``torch.utils.dlpack``: DLPack capsules, the older way
to share a tensor's memory with another library without a copy (``from_dlpack`` also takes
any object with ``__dlpack__``: a NumPy or CuPy array, a torch tensor)."""

from __future__ import annotations

import enum
from typing import Any

from ..factories import from_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes (``__dlpack_device__()[0]``)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def to_dlpack(tensor: Any) -> Any:
    """A DLPack capsule of ``tensor``'s memory, for ``from_dlpack`` (here or in another
    library); usable once."""
    try:
        return tensor.array.__dlpack__(max_version=(1, 0))  # (writable where it is consumed)
    except TypeError:  # a producer without DLPack 1.0 (an older CuPy): the first form
        return tensor.array.__dlpack__()
