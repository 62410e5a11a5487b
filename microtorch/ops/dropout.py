"""Dropout: zero each element with probability p and scale the rest by 1/(1-p), so the
expected value is unchanged. The mask is drawn from the seeded host generator."""

from __future__ import annotations

from ..autograd.function import Function


class Dropout(Function):
    def forward(self, x, mask=None):
        self.mask = mask  # already scaled: 0 or 1/(1-p), in x's dtype
        return x * mask

    def backward(self, grad):
        return grad * self.mask
