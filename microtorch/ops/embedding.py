"""Embedding lookup: out[...] = weight[idx[...]]. The weight gradient adds each output
row's gradient into the row it came from (rows used twice get both)."""

from __future__ import annotations

from ..autograd.function import Function
from ..backend import xp_of


class Embedding(Function):
    def forward(self, idx, weight, padding_idx=None):
        self.idx, self.num_rows, self.padding_idx = idx, weight.shape[0], padding_idx
        return weight[idx]

    def backward(self, grad):
        xp = xp_of(grad)
        dim = grad.shape[-1]
        idx, rows = self.idx.reshape(-1), grad.reshape(-1, dim)  # (N,), (N, dim)
        gw = xp.zeros((self.num_rows, dim), dtype=grad.dtype)
        if xp.__name__ == "cupy" or idx.size == 0:
            xp.add.at(gw, idx, rows)  # scatter-add: gw[idx[n]] += rows[n] for every n
        else:
            # The same sum on the CPU, 3-6x faster than add.at (which adds one row at a
            # time): sort the indices so that equal ones are neighbours, then add up each
            # run of equal indices with one reduceat.
            order = xp.argsort(idx, kind="stable")
            sorted_idx = idx[order]
            starts = xp.flatnonzero(xp.concatenate(([True], sorted_idx[1:] != sorted_idx[:-1])))
            gw[sorted_idx[starts]] = xp.add.reduceat(rows[order], starts, axis=0)
        if self.padding_idx is not None:
            gw[self.padding_idx] = 0
        return None, gw
