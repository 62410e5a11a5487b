"""Ops that move elements around without math: reshape, transpose, permute, expand,
cat, stack. Their backward moves the gradient back the same way.

Ops marked ``is_view`` may return a view of their input's memory, so the output shares
the input's version counter (an in-place change to one is a change to both)."""

from __future__ import annotations

from ..autograd.function import Function
from ..backend import xp_of


class Reshape(Function):
    is_view = True

    def forward(self, x, shape=()):
        self.in_shape = x.shape
        return x.reshape(shape)

    def backward(self, grad):
        return grad.reshape(self.in_shape)


class Permute(Function):
    """Reorder dims; transpose(d0, d1) is the permutation that swaps two of them."""

    is_view = True

    def forward(self, x, dims=()):
        self.dims = dims
        return x.transpose(dims)

    def backward(self, grad):
        inverse = [0] * len(self.dims)
        for i, d in enumerate(self.dims):
            inverse[d] = i
        return grad.transpose(inverse)


class Expand(Function):
    is_view = True

    def forward(self, x, shape=()):
        self.in_shape = x.shape
        return xp_of(x).broadcast_to(x, shape)

    def backward(self, grad):
        from ..autograd.function import unbroadcast

        return unbroadcast(grad, self.in_shape)


class Contiguous(Function):
    def forward(self, x):
        return xp_of(x).ascontiguousarray(x)

    def backward(self, grad):
        return grad


class Cat(Function):
    def forward(self, *arrays, dim=0):
        self.dim = dim
        self.sizes = [a.shape[dim] for a in arrays]
        return xp_of(arrays[0]).concatenate(arrays, axis=dim)

    def backward(self, grad):
        grads, start = [], 0
        for size, needed in zip(self.sizes, self.needs_input_grad):
            index = [slice(None)] * grad.ndim
            index[self.dim] = slice(start, start + size)
            grads.append(grad[tuple(index)] if needed else None)
            start += size
        return tuple(grads)


class Stack(Function):
    def forward(self, *arrays, dim=0):
        self.dim = dim
        return xp_of(arrays[0]).stack(arrays, axis=dim)

    def backward(self, grad):
        xp = xp_of(grad)
        return tuple(
            xp.take(grad, i, axis=self.dim) if needed else None
            for i, needed in enumerate(self.needs_input_grad)
        )
