"""Reference solution for exercise 3: cumsum.

In microtorch the class goes in microtorch/ops/reduction.py and the function in
microtorch/functional.py (exported in microtorch/__init__.py)."""

from __future__ import annotations

from microtorch import Tensor, dtypes
from microtorch.autograd.function import Function
from microtorch.backend import xp_of
from microtorch.functional import _check_tensor, wrap_dim


class Cumsum(Function):
    """out[i] = x[0] + ... + x[i] along ``dim``.

    Each x[j] appears in out[j], out[j+1], ..., so its gradient is grad[j] + ... + grad[n-1]:
    the cumulative sum of the gradient taken from the end (flip, cumsum, flip)."""

    def forward(self, x, dim=0, dtype=None):
        self.dim = dim
        return xp_of(x).cumsum(x, axis=dim, dtype=dtype)

    def backward(self, grad):
        xp = xp_of(grad)
        flipped = xp.flip(grad, axis=self.dim)
        return xp.flip(xp.cumsum(flipped, axis=self.dim), axis=self.dim)


def cumsum(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """PyTorch's torch.cumsum: integers and bools are summed as int64."""
    _check_tensor(input, "cumsum")
    d = wrap_dim(dim, input.ndim, "cumsum")
    out_dtype = None
    if dtype is not None:
        out_dtype = dtypes.get_dtype(dtype).np
    elif input.array.dtype.kind in "biu":
        out_dtype = dtypes.int64.np
    if input.ndim == 0:
        return Cumsum.apply(input.reshape(1), dim=0, dtype=out_dtype).reshape(())
    return Cumsum.apply(input, dim=d, dtype=out_dtype)
