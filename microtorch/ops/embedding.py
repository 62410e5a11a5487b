"""Embedding lookup: out[...] = weight[idx[...]]. The weight gradient adds each output
row's gradient into the row it came from (rows used twice get both); with
``scale_grad_by_freq`` each row's sum is then divided by how often its id occurs in idx."""

from __future__ import annotations

from ..autograd.function import Function
from ..backend import xp_of
from .indexing import add_rows_at


class Embedding(Function):
    def forward(self, idx, weight, padding_idx=None, scale_grad_by_freq=False):
        # the ids are saved as PyTorch saves them: freed by backward, checked for in-place
        # changes (a second backward through the lookup raises, as in PyTorch)
        self.save_for_backward(idx)
        self.num_rows, self.padding_idx = weight.shape[0], padding_idx
        self.scale_grad_by_freq = scale_grad_by_freq
        return weight[idx]

    def backward(self, grad):
        xp = xp_of(grad)
        dim = grad.shape[-1]
        (idx,) = self.saved
        idx, rows = idx.reshape(-1), grad.reshape(-1, dim)  # (N,), (N, dim)
        gw = xp.zeros((self.num_rows, dim), dtype=grad.dtype)
        add_rows_at(gw, idx, rows)  # gw[idx[n]] += rows[n] for every n
        if self.scale_grad_by_freq:  # d/dweight of the mean, not the sum, over a row's uses
            uses = xp.bincount(idx, minlength=self.num_rows)
            gw /= xp.maximum(uses, 1).astype(gw.dtype)[:, None]
        if self.padding_idx is not None:
            gw[self.padding_idx] = 0
        return None, gw
