"""Scaled dot-product attention as one fused op.

    S = Q K^T * scale          (..., L, S)    scores
    S = S masked               boolean mask: False -> -inf; float mask: added
    P = softmax(S, dim=-1)                    attention weights (0 in a row of only -inf)
    O = (P * dropout_mask) V   (..., L, Ev)

Backward, with Pd = P * dropout_mask:
    dV = Pd^T dO,  dPd = dO V^T,  dP = dPd * dropout_mask,
    dS = P * (dP - sum(dP * P, -1)),  dQ = dS K * scale,  dK = dS^T Q * scale

On a GPU (no mask or a causal one), the steps between the two products (scale, mask,
softmax, dropout; and backward's dropout, softmax backward, scale) are one CUDA kernel
each way, at the end of this file.
"""

from __future__ import annotations

import numpy

from .. import backend
from .. import random as _random
from ..autograd.function import Function, unbroadcast
from ..backend import xp_of
from .linalg import matmul_arrays
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
    def forward(self, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=1.0):
        xp = xp_of(q)
        if q.dtype == xp.float16:  # in float32, rounded once, as PyTorch computes it (the
            # float16 scores and softmax were 5x PyTorch's error); backward likewise
            q, k, v = (a.astype(xp.float32) for a in (q, k, v))
            if attn_mask is not None and attn_mask.dtype != bool:
                attn_mask = attn_mask.astype(xp.float32)
            out = self.forward(q, k, v, attn_mask, dropout_p, is_causal, scale)
            return out.astype(xp.float16)
        scores = matmul_arrays(q, xp.swapaxes(k, -1, -2))  # (..., L, S)
        self.scale, self.keep = scale, 1.0 - dropout_p
        self.fused = _fused_on_gpu(scores, attn_mask)
        if self.fused:  # on a GPU, one kernel: scale, causal mask, softmax, dropout
            self.seed = _random.gpu_dropout_seed() if dropout_p > 0 else 0
            p, p_used = _attention_softmax_cuda(scores, scale, is_causal, self.seed, self.keep)
            self.save_for_backward(q, k, v, p, p_used)
            return matmul_arrays(p_used, v)  # (..., L, Ev)
        scores *= q.dtype.type(scale)
        if is_causal:  # add -inf above the diagonal, in place (cached 0 / -inf matrix)
            scores += causal_bias(xp, q.shape[-2], k.shape[-2], q.dtype)
        if attn_mask is not None:
            if attn_mask.dtype == bool:
                scores = xp.where(attn_mask, scores, q.dtype.type(-xp.inf))
            else:
                scores = scores + attn_mask
        p = softmax_array(scores, -1)
        if attn_mask is not None:
            # As in PyTorch, a query that the mask lets see no key at all (a row of -inf,
            # e.g. a padding position) gets weights 0, so output 0 and gradient 0, where
            # softmax alone would give nan (0 / 0) and the nan would reach every weight.
            sees_nothing = (scores == -xp.inf).all(axis=-1, keepdims=True)
            xp.copyto(p, p.dtype.type(0), where=sees_nothing)
        self.dropout_mask = None
        if dropout_p > 0:
            self.dropout_mask = _random.bernoulli_mask(
                scores.shape, self.keep, q.dtype, backend.device_of(q)
            )
        p_used = p if self.dropout_mask is None else p * self.dropout_mask
        self.save_for_backward(q, k, v, p)  # (p_used is made again in backward: less memory)
        return matmul_arrays(p_used, v)  # (..., L, Ev)

    def backward(self, grad):
        xp = xp_of(grad)
        if grad.dtype == xp.float16:  # forward ran in float32 (see there)
            return backend.float16_results(self._backward(grad.astype(xp.float32)))
        return self._backward(grad)

    def _backward(self, grad):
        if self.fused:
            q, k, v, p, p_used = self.saved
        else:
            q, k, v, p = self.saved
            p_used = p if self.dropout_mask is None else p * self.dropout_mask
        xp = xp_of(grad)
        gq = gk = gv = None
        # dV = Pd^T dO and dK = dS^T Q are computed as (dO^T Pd)^T and (Q^T dS)^T: the same
        # products, but a batched product on CuPy first copies each transposed operand into
        # a contiguous array, and dO^T, Q^T (..., E, L) are much smaller than Pd^T, dS^T.
        if self.needs_input_grad[2]:
            gv = xp.swapaxes(matmul_arrays(xp.swapaxes(grad, -1, -2), p_used), -1, -2)
            gv = unbroadcast(gv, v.shape)
        if self.needs_input_grad[0] or self.needs_input_grad[1]:
            dp = matmul_arrays(grad, xp.swapaxes(v, -1, -2))  # (..., L, S)
            if self.fused:  # dropout, softmax backward and scale in one kernel
                ds = _attention_softmax_backward_cuda(p, dp, self.scale, self.seed, self.keep)
            else:
                if self.dropout_mask is not None:
                    dp *= self.dropout_mask
                ds = softmax_backward_array(p, dp, -1)  # = P * (dP - sum(dP * P, -1))
                ds *= q.dtype.type(self.scale)
            if self.needs_input_grad[0]:
                gq = unbroadcast(matmul_arrays(ds, k), q.shape)
            if self.needs_input_grad[1]:
                gk = xp.swapaxes(matmul_arrays(xp.swapaxes(q, -1, -2), ds), -1, -2)
                gk = unbroadcast(gk, k.shape)
        return gq, gk, gv


# ----- the same forward and backward as CUDA row kernels (one thread block per row) -----
# On a GPU the (..., L, S) scores are the biggest arrays of a transformer step, and every
# elementwise pass over them (scale, mask, dropout) costs a full read and write. These two
# kernels do all of it in the softmax's own passes. They compute exactly what the array
# code above does on a GPU: the same scaled scores, -inf above the diagonal, the same
# softmax kernel arithmetic, and dropout masks hashed like random.bernoulli_mask's.
_ATTENTION_CUDA = backend.row_source(
    """
__device__ inline float t_exp(float v) { return expf(v); }
__device__ inline double t_exp(double v) { return exp(v); }

// u for element i of a dropout mask drawn with `seed` (see random.DROPOUT_UNIFORM_CUDA)
__device__ inline float dropout_uniform(unsigned long long seed, long long i) {"""
    + _random.DROPOUT_UNIFORM_CUDA
    + """
    return u;
}

// scores (rows of cols) -> p = softmax(scores * scale, causal: j <= row % q_len) and
// p_used = p * dropout mask (0 or inv_keep; not written when keep >= 1)
extern "C" __global__ void microtorch_attention_forward(
        const T* s, T* p, T* p_used, long long cols, long long q_len, T scale, int causal,
        unsigned long long seed, float keep, double inv_keep) {
    __shared__ T buf[ROW_BLOCK];
    long long base = (long long)blockIdx.x * cols;
    long long last = causal ? blockIdx.x % q_len : cols - 1;  // the last column it may see
    T top = (T)__longlong_as_double(0xfff0000000000000ULL);  // -inf
    for (long long j = threadIdx.x; j <= last && j < cols; j += blockDim.x)
        top = fmax(top, s[base + j] * scale);
    top = block_max(top, buf);
    T total = 0;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
        T e = j <= last ? t_exp(s[base + j] * scale - top) : (T)0;
        p[base + j] = e;
        total += e;
    }
    T inv = (T)1 / block_sum(total, buf);
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
        T y = p[base + j] * inv;
        p[base + j] = y;
        if (keep < 1.0f)
            p_used[base + j] = dropout_uniform(seed, base + j) < keep ? y * (T)inv_keep : (T)0;
    }
}

// dP_used (upstream of p_used) -> dS = p * (dP - sum(dP * p)) * scale, dP = dP_used * mask
extern "C" __global__ void microtorch_attention_backward(
        const T* p, const T* dp_used, T* ds, long long cols, T scale,
        unsigned long long seed, float keep, double inv_keep) {
    __shared__ T buf[ROW_BLOCK];
    long long base = (long long)blockIdx.x * cols;
    T dot = 0;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
        T d = dp_used[base + j];
        if (keep < 1.0f) d = dropout_uniform(seed, base + j) < keep ? d * (T)inv_keep : (T)0;
        dot += d * p[base + j];
    }
    dot = block_sum(dot, buf);
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
        T d = dp_used[base + j];
        if (keep < 1.0f) d = dropout_uniform(seed, base + j) < keep ? d * (T)inv_keep : (T)0;
        ds[base + j] = p[base + j] * (d - dot) * scale;
    }
}
""",
    "microtorch_attention_forward",
    "microtorch_attention_backward",
)


def _fused_on_gpu(scores, attn_mask) -> bool:
    """The kernels: a CuPy float32/float64 scores array, causal or no mask."""
    return (
        attn_mask is None
        and backend.has_cuda_kernels(scores)
        and scores.flags.c_contiguous
        and scores.size > 0
    )


def _attention_softmax_cuda(scores, scale, is_causal, seed, keep):
    """(p, p_used) from the (..., L, S) scores; p_used is p itself without dropout."""
    xp = xp_of(scores)
    p = xp.empty_like(scores)
    p_used = xp.empty_like(scores) if keep < 1.0 else p
    q_len, cols = scores.shape[-2], scores.shape[-1]
    kernel = backend.row_kernel("microtorch_attention_forward", _ATTENTION_CUDA, scores.dtype)
    args = (scores, p, p_used, numpy.int64(cols), numpy.int64(q_len),
            scores.dtype.type(scale), numpy.int32(is_causal), numpy.uint64(seed),
            numpy.float32(keep), numpy.float64(1.0 / keep))  # fmt: skip
    backend.launch_rows(kernel, scores.size // cols, args)
    return p, p_used


def _attention_softmax_backward_cuda(p, dp_used, scale, seed, keep):
    xp = xp_of(p)
    ds = xp.empty_like(p)
    cols = p.shape[-1]
    kernel = backend.row_kernel("microtorch_attention_backward", _ATTENTION_CUDA, p.dtype)
    args = (p, xp.ascontiguousarray(dp_used), ds, numpy.int64(cols), p.dtype.type(scale),
            numpy.uint64(seed), numpy.float32(keep), numpy.float64(1.0 / keep))  # fmt: skip
    backend.launch_rows(kernel, p.size // cols, args)
    return ds
