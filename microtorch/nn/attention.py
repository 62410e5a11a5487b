"""``nn.attention``: PyTorch's choice of kernel for ``F.scaled_dot_product_attention``.

PyTorch picks among several attention kernels (flash, memory-efficient, cuDNN, math).
microtorch has one: the math, softmax(Q K^T * scale + mask) V, with fused CuPy kernels for
its softmax on a GPU. So ``sdpa_kernel`` accepts PyTorch's lines and records the choice in
``microtorch.backends.cuda`` (as PyTorch's does), and the results do not change:

    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from typing import Any

from ..backends import cuda as _cuda


class SDPBackend(enum.IntEnum):
    """The attention kernels PyTorch can choose from (with its numbers)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# which switch in backends.cuda each backend turns on
_SWITCHES = {
    SDPBackend.MATH: "math",
    SDPBackend.FLASH_ATTENTION: "flash",
    SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
    SDPBackend.CUDNN_ATTENTION: "cudnn",
}


@contextlib.contextmanager
def sdpa_kernel(backends: Any, set_priority: bool = False) -> Iterator[None]:
    """Allow only ``backends`` (one SDPBackend or a list) inside the block, then restore the
    switches. ``set_priority`` is accepted; with one kernel here there is no order to set."""
    chosen = [backends] if isinstance(backends, SDPBackend) else backends
    if not isinstance(chosen, (list, tuple, set)) or not all(
        isinstance(b, SDPBackend) for b in chosen
    ):
        raise TypeError(
            "sdpa_kernel: backends must be an SDPBackend or a list of them, e.g. "
            f"[SDPBackend.MATH], got {backends!r}"
        )
    before = dict(_cuda._sdp_enabled)
    _cuda._sdp_enabled.update({switch: False for switch in _SWITCHES.values()})
    _cuda._sdp_enabled.update({_SWITCHES[b]: True for b in chosen if b in _SWITCHES})
    try:
        yield
    finally:
        _cuda._sdp_enabled.update(before)
