"""Dropout: zero each element with probability p and scale the rest by 1/(1-p), so the
expected value is unchanged.

On the CPU the mask is drawn from the seeded host generator and kept for backward. On a
GPU (float32/float64) no mask is stored: the host draws one seed, a kernel hashes each
element's keep-or-drop from (seed, element index) as it multiplies, and backward hashes
the same seed again. The result is exactly ``x * random.bernoulli_mask(...)`` for that
seed, with one kernel instead of two and no mask array kept alive until backward."""

from __future__ import annotations

import numpy

from .. import backend
from .. import random as _random
from ..autograd.function import Function


class Dropout(Function):
    def forward(self, x, p=0.5):
        self.keep = 1.0 - p
        if backend.has_cuda_kernels(x):
            self.mask, self.seed = None, _random.gpu_dropout_seed()
            return _apply_hashed_mask(x, self.seed, self.keep)
        self.mask = _random.bernoulli_mask(x.shape, self.keep, x.dtype, backend.device_of(x))
        return x * self.mask  # mask: 0 or 1/(1-p), in x's dtype

    def backward(self, grad):
        if self.mask is None:
            return _apply_hashed_mask(grad, self.seed, self.keep)
        return grad * self.mask


_DROPOUT_APPLY_CUDA = backend.elementwise_source(
    "microtorch_dropout_apply",
    "T x, uint64 seed, float32 keep, float64 scale",
    "T y",
    _random.DROPOUT_UNIFORM_CUDA + "\n        y = x * (u < keep ? (T)scale : (T)0);\n",
)


def _apply_hashed_mask(x, seed: int, keep: float):
    """x * the mask random.bernoulli_mask hashes from ``seed`` (``i``: x's element index in
    C order, whatever its strides), in one CUDA kernel."""
    kernel = backend.elementwise_kernel(*_DROPOUT_APPLY_CUDA)
    return kernel(x, numpy.uint64(seed), numpy.float32(keep), 1.0 / keep)
