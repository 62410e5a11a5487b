"""Scaled dot-product attention as one fused op.

    S = Q K^T * scale          (..., L, S)    scores
    S = S masked               boolean mask: False -> -inf; float mask: added
    P = softmax(S, dim=-1)                    attention weights
    O = (P * dropout_mask) V   (..., L, Ev)

Backward, with Pd = P * dropout_mask:
    dV = Pd^T dO,  dPd = dO V^T,  dP = dPd * dropout_mask,
    dS = P * (dP - sum(dP * P, -1)),  dQ = dS K * scale,  dK = dS^T Q * scale
"""

from __future__ import annotations

from ..autograd.function import Function, unbroadcast
from ..backend import xp_of
from .softmax import softmax_array, softmax_backward_array

_causal_cache: dict = {}


def causal_mask(xp, q_len: int, k_len: int):
    """Boolean (q_len, k_len) lower-triangular mask, True where attention is allowed.
    Top-left aligned like PyTorch's is_causal. Cached per size and device."""
    key = (xp.__name__, q_len, k_len)
    mask = _causal_cache.get(key)
    if mask is None:
        mask = xp.tril(xp.ones((q_len, k_len), dtype=bool))
        _causal_cache[key] = mask
    return mask


def causal_bias(xp, q_len: int, k_len: int, dtype):
    """(q_len, k_len) additive mask: 0 where causal_mask allows attention, -inf elsewhere.
    Adding it in place is cheaper than a where() that builds a new scores array."""
    key = ("bias", xp.__name__, q_len, k_len, str(dtype))
    bias = _causal_cache.get(key)
    if bias is None:
        bias = xp.where(causal_mask(xp, q_len, k_len), 0, -xp.inf).astype(dtype)
        _causal_cache[key] = bias
    return bias


class ScaledDotProductAttention(Function):
    def forward(self, q, k, v, attn_mask=None, dropout_mask=None, is_causal=False, scale=1.0):
        xp = xp_of(q)
        scores = xp.matmul(q, xp.swapaxes(k, -1, -2))  # (..., L, S)
        scores *= q.dtype.type(scale)
        if is_causal:  # add -inf above the diagonal, in place (cached 0 / -inf matrix)
            scores += causal_bias(xp, q.shape[-2], k.shape[-2], q.dtype)
        if attn_mask is not None:
            if attn_mask.dtype == bool:
                scores = xp.where(attn_mask, scores, q.dtype.type(-xp.inf))
            else:
                scores = scores + attn_mask
        p = softmax_array(scores, -1)
        p_used = p if dropout_mask is None else p * dropout_mask
        self.scale, self.dropout_mask = scale, dropout_mask
        self.save_for_backward(q, k, v, p)
        return xp.matmul(p_used, v)  # (..., L, Ev)

    def backward(self, grad):
        q, k, v, p = self.saved
        xp = xp_of(grad)
        p_used = p if self.dropout_mask is None else p * self.dropout_mask
        gq = gk = gv = None
        if self.needs_input_grad[2]:
            gv = unbroadcast(xp.matmul(xp.swapaxes(p_used, -1, -2), grad), v.shape)
        if self.needs_input_grad[0] or self.needs_input_grad[1]:
            dp = xp.matmul(grad, xp.swapaxes(v, -1, -2))  # (..., L, S)
            if self.dropout_mask is not None:
                dp *= self.dropout_mask
            ds = softmax_backward_array(p, dp, -1)  # = P * (dP - sum(dP * P, -1))
            ds *= q.dtype.type(self.scale)
            if self.needs_input_grad[0]:
                gq = unbroadcast(xp.matmul(ds, k), q.shape)
            if self.needs_input_grad[1]:
                gk = unbroadcast(xp.matmul(xp.swapaxes(ds, -1, -2), q), k.shape)
        return gq, gk, gv
