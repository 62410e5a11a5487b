"""``ChannelShuffle``: interleave the channels of groups (ShuffleNet)."""

from __future__ import annotations

from .._tensor import Tensor
from . import functional as F
from .module import Module


class ChannelShuffle(Module):
    """(N, C, *) -> (N, C, *) with the channels of the ``groups`` groups interleaved:
    F.channel_shuffle(input, groups)."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
