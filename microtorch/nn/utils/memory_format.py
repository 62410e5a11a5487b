"""``convert_conv2d_weight_memory_format`` and ``convert_conv3d_weight_memory_format``: lay
the weights of a model's convolutions out in a memory format (e.g. ``channels_last``), as
``torch.nn.utils.memory_format`` does. Values are unchanged; only the strides move."""

from __future__ import annotations

from typing import Any

from ..conv import _ConvNd
from ..module import Module


def _convert_conv_weights(module: Module, memory_format: Any, weight_ndim: int) -> Module:
    """Give every convolution below ``module`` whose weight has ``weight_ndim`` dims (4: 2-d
    convolutions, 5: 3-d) a copy of its weight in ``memory_format``, in place."""
    if isinstance(module, _ConvNd) and module.weight.ndim == weight_ndim:
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert_conv_weights(child, memory_format, weight_ndim)
    return module


def convert_conv2d_weight_memory_format(module: Module, memory_format: Any) -> Module:
    """``module`` with the weight of each Conv2d in it stored in ``memory_format``."""
    return _convert_conv_weights(module, memory_format, 4)


def convert_conv3d_weight_memory_format(module: Module, memory_format: Any) -> Module:
    """``module`` with the weight of each 3-d convolution in it stored in ``memory_format``
    (microtorch has no Conv3d yet, so this changes nothing today)."""
    return _convert_conv_weights(module, memory_format, 5)
