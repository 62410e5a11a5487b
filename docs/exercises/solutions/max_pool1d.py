"""Reference solution for exercise 4: max_pool1d.

In microtorch the class goes in a new file microtorch/ops/pooling.py and the function in
microtorch/nn/functional.py."""

from __future__ import annotations

from microtorch import Tensor
from microtorch.autograd.function import Function
from microtorch.backend import xp_of
from microtorch.functional import _check_tensor


class MaxPool1d(Function):
    """x (..., L) -> (..., L_out): the max of each window of ``kernel_size`` positions,
    windows starting every ``stride`` positions, after padding both ends with -inf.

    Backward sends each output's gradient to the position that won its window; windows
    overlap when stride < kernel_size, so one position can collect several (add.at)."""

    def forward(self, x, kernel_size=1, stride=1, padding=0):
        xp = xp_of(x)
        length = x.shape[-1]
        if padding:
            pad = xp.full(x.shape[:-1] + (padding,), -xp.inf, dtype=x.dtype)
            x = xp.concatenate([pad, x, pad], axis=-1)
        n_out = (length + 2 * padding - kernel_size) // stride + 1
        # window[i, j] = position of the j-th element of window i in the padded input
        starts = xp.arange(n_out) * stride
        window = starts[:, None] + xp.arange(kernel_size)[None, :]  # (L_out, k)
        values = x[..., window]  # (..., L_out, k)
        best = values.argmax(axis=-1)  # (..., L_out): first maximum wins ties
        self.winner = xp.take_along_axis(
            xp.broadcast_to(window, values.shape), best[..., None], axis=-1
        )[..., 0]  # (..., L_out): padded position of each window's maximum
        self.padded_shape, self.padding = x.shape, padding
        return xp.take_along_axis(values, best[..., None], axis=-1)[..., 0]

    def backward(self, grad):
        xp = xp_of(grad)
        full = xp.zeros(self.padded_shape, dtype=grad.dtype)
        index = list(xp.indices(self.winner.shape, sparse=True))
        index[-1] = self.winner
        xp.add.at(full, tuple(index), grad)
        if self.padding:
            full = full[..., self.padding : -self.padding]
        return full


def max_pool1d(input: Tensor, kernel_size: int, stride: int | None = None,
               padding: int = 0) -> Tensor:  # fmt: skip
    """PyTorch's F.max_pool1d on (N, C, L) or (C, L) input (no dilation, no ceil_mode)."""
    _check_tensor(input, "max_pool1d")
    stride = kernel_size if stride is None else stride
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"max_pool1d: expected a 2-D (C, L) or 3-D (N, C, L) input, got shape "
            f"{tuple(input.shape)}"
        )
    if kernel_size < 1 or stride < 1:
        raise RuntimeError(
            f"max_pool1d: kernel_size ({kernel_size}) and stride ({stride}) must be positive"
        )
    if not 0 <= padding <= kernel_size // 2:
        raise RuntimeError(
            f"max_pool1d: padding should be at most half of kernel size, but got "
            f"padding={padding} and kernel_size={kernel_size}"
        )
    if input.shape[-1] + 2 * padding < kernel_size:
        raise RuntimeError(
            f"max_pool1d: input length {input.shape[-1]} (padded: "
            f"{input.shape[-1] + 2 * padding}) is shorter than kernel_size {kernel_size}"
        )
    return MaxPool1d.apply(input, kernel_size=kernel_size, stride=stride, padding=padding)
