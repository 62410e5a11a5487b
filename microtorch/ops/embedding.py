"""Embedding lookup: out[...] = weight[idx[...]]. The weight gradient adds each output
row's gradient into the row it came from (rows used twice get both)."""

from __future__ import annotations

from ..autograd.function import Function
from ..backend import xp_of
from .indexing import add_rows_at


class Embedding(Function):
    def forward(self, idx, weight, padding_idx=None):
        self.idx, self.num_rows, self.padding_idx = idx, weight.shape[0], padding_idx
        return weight[idx]

    def backward(self, grad):
        xp = xp_of(grad)
        dim = grad.shape[-1]
        idx, rows = self.idx.reshape(-1), grad.reshape(-1, dim)  # (N,), (N, dim)
        gw = xp.zeros((self.num_rows, dim), dtype=grad.dtype)
        add_rows_at(gw, idx, rows)  # gw[idx[n]] += rows[n] for every n
        if self.padding_idx is not None:
            gw[self.padding_idx] = 0
        return None, gw
