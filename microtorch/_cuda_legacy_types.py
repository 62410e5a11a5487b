"""PyTorch's legacy CUDA tensor types, torch.cuda.FloatTensor, torch.cuda.LongTensor...:
``isinstance(t, microtorch.cuda.FloatTensor)`` holds exactly for CUDA float32 tensors, and
calling one makes a CUDA tensor of its dtype (sizes or data, as microtorch.FloatTensor), or
raises TypeError where CUDA is not available, as PyTorch does. microtorch.cuda exports them;
their metaclass is CudaLegacyTensorType (microtorch/_legacy_types.py)."""

from __future__ import annotations

from . import dtypes as _dtypes
from ._legacy_types import CudaLegacyTensorType


class FloatTensor(metaclass=CudaLegacyTensorType):
    """CUDA float32 tensors."""

    dtype = _dtypes.float32


class DoubleTensor(metaclass=CudaLegacyTensorType):
    """CUDA float64 tensors."""

    dtype = _dtypes.float64


class HalfTensor(metaclass=CudaLegacyTensorType):
    """CUDA float16 tensors."""

    dtype = _dtypes.float16


class LongTensor(metaclass=CudaLegacyTensorType):
    """CUDA int64 tensors."""

    dtype = _dtypes.int64


class IntTensor(metaclass=CudaLegacyTensorType):
    """CUDA int32 tensors."""

    dtype = _dtypes.int32


class ShortTensor(metaclass=CudaLegacyTensorType):
    """CUDA int16 tensors."""

    dtype = _dtypes.int16


class CharTensor(metaclass=CudaLegacyTensorType):
    """CUDA int8 tensors."""

    dtype = _dtypes.int8


class ByteTensor(metaclass=CudaLegacyTensorType):
    """CUDA uint8 tensors."""

    dtype = _dtypes.uint8


class BoolTensor(metaclass=CudaLegacyTensorType):
    """CUDA bool tensors."""

    dtype = _dtypes.bool
