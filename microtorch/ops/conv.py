"""Sliding windows for convolution and pooling: im2col and its adjoint col2im.

For an input (N, C, *S) with 1 or 2 spatial dims S, a kernel K, dilation d, padding
(lo, hi) per dim and stride s, output position o along a dim reads the padded input at
o*s + k*d for k < K. ``im2col`` lays those windows out as (N, C, *K, *O): for each kernel
offset (k0, k1, ...) one strided slice of the zero-padded input, so the loop runs prod(K)
times over views and needs no index arrays. A convolution is then one matmul of the
weight with these columns (nn/functional.py).

``col2im`` is the adjoint (the transpose of that linear map): each kernel offset's slice is
added back where it was read from. Windows overlap when s < d*(K-1) + 1, and the offsets
then add up; within one offset the positions are distinct, so a plain ``+=`` on the slice
is a correct scatter-add. Each function is the other's backward.
"""

from __future__ import annotations

import itertools

from ..autograd.function import Function
from ..backend import xp_of


def conv_out_size(size: int, kernel: int, dilation: int, lo: int, hi: int, stride: int) -> int:
    """How many windows of a dilated kernel fit along a dim of ``size`` padded by lo + hi."""
    return (size + lo + hi - dilation * (kernel - 1) - 1) // stride + 1


def _windows(kernel, dilation, stride, out):
    """Each kernel offset ks = (k0, k1, ...) with the slices of the padded input it reads:
    along each dim, positions k*d, k*d + s, ..., k*d + s*(o-1)."""
    for ks in itertools.product(*(range(k) for k in kernel)):
        yield (
            ks,
            tuple(
                slice(k * d, k * d + s * (o - 1) + 1, s)
                for k, d, s, o in zip(ks, dilation, stride, out)
            ),
        )


def _geometry(size, kernel, dilation, padding, stride):
    """(padded size, output size, slices of the unpadded input inside the padded one)."""
    padded = tuple(n + lo + hi for n, (lo, hi) in zip(size, padding))
    out = tuple(
        conv_out_size(n, k, d, lo, hi, s)
        for n, k, d, (lo, hi), s in zip(size, kernel, dilation, padding, stride)
    )
    inner = tuple(slice(lo, lo + n) for n, (lo, _) in zip(size, padding))
    return padded, out, inner


def im2col(x, kernel, dilation, padding, stride):
    """(N, C, *S) -> (N, C, *K, *O): the window of every output position, zeros where it
    reaches into the padding."""
    xp = xp_of(x)
    n, c, *size = x.shape
    padded_size, out, inner = _geometry(size, kernel, dilation, padding, stride)
    all_nc = (slice(None), slice(None))
    padded = x
    if padded_size != tuple(size):
        padded = xp.zeros((n, c) + padded_size, dtype=x.dtype)  # (N, C, *(S + lo + hi))
        padded[all_nc + inner] = x
    cols = xp.zeros((n, c) + tuple(kernel) + out, dtype=x.dtype)  # (N, C, *K, *O)
    if 0 in out:
        return cols
    for ks, window in _windows(kernel, dilation, stride, out):
        cols[all_nc + ks] = padded[all_nc + window]
    return cols


def col2im(cols, size, kernel, dilation, padding, stride):
    """(N, C, *K, *O) -> (N, C, *S): every window's values added back to the input positions
    they came from (the padding is dropped)."""
    xp = xp_of(cols)
    n, c = cols.shape[:2]
    padded_size, out, inner = _geometry(size, kernel, dilation, padding, stride)
    all_nc = (slice(None), slice(None))
    padded = xp.zeros((n, c) + padded_size, dtype=cols.dtype)
    if 0 not in out:
        for ks, window in _windows(kernel, dilation, stride, out):
            padded[all_nc + window] += cols[all_nc + ks]
    return xp.ascontiguousarray(padded[all_nc + inner])  # (N, C, *S)


class Im2Col(Function):
    """x (N, C, *S) -> windows (N, C, *K, *O). Linear in x, so its backward is the adjoint
    map applied to the gradient: col2im (the windows' gradients summed where they overlap)."""

    def forward(self, x, kernel=(1,), dilation=(1,), padding=((0, 0),), stride=(1,)):
        self.geometry = (tuple(x.shape[2:]), kernel, dilation, padding, stride)
        return im2col(x, kernel, dilation, padding, stride)

    def backward(self, grad):
        return col2im(grad, *self.geometry)


class Col2Im(Function):
    """windows (N, C, *K, *O) -> (N, C, *size), summing overlaps (``F.fold``). Its backward is
    im2col: each window position's gradient is the gradient at the place it was added to."""

    def forward(self, cols, size=(1,), kernel=(1,), dilation=(1,), padding=((0, 0),),
                stride=(1,)):  # fmt: skip
        self.geometry = (kernel, dilation, padding, stride)
        return col2im(cols, size, kernel, dilation, padding, stride)

    def backward(self, grad):
        return im2col(grad, *self.geometry)
