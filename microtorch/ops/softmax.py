"""softmax and log_softmax along one dim, each one fused op with a closed-form backward.

Both subtract the row maximum first so exp never overflows."""

from __future__ import annotations

import numpy

from .. import backend
from ..autograd.function import Function
from ..backend import xp_of


def softmax_array(x, axis):
    """Numerically stable softmax of a raw array (shared by attention and cross-entropy).
    float16 is computed in float32 and rounded once, as PyTorch's kernels do."""
    xp = xp_of(x)
    if x.dtype == xp.float16:
        return softmax_array(x.astype(xp.float32), axis).astype(xp.float16)
    if _use_cuda_rows(x, axis):
        return _softmax_cuda(x)
    e = x - x.max(axis=axis, keepdims=True)
    xp.exp(e, out=e)  # in place: one array for the whole computation
    e /= e.sum(axis=axis, keepdims=True)
    return e


def softmax_backward_array(y, grad, axis):
    """dx_i = y_i * (g_i - sum_j g_j y_j): the backward of y = softmax(x) (also used by
    attention); float16 in float32, rounded once."""
    xp = xp_of(y)
    if y.dtype == xp.float16:
        wide = softmax_backward_array(y.astype(xp.float32), grad.astype(xp.float32), axis)
        return wide.astype(xp.float16)
    if _use_cuda_rows(y, axis) and grad.flags.c_contiguous:
        return _softmax_backward_cuda(y, grad)
    gy = grad * y
    gy -= y * gy.sum(axis=axis, keepdims=True)
    return gy


# ----- the same two functions as CUDA kernels: one thread block per row, one pass each
_SOFTMAX_CUDA = backend.row_source(
    """
__device__ inline float t_exp(float v) { return expf(v); }
__device__ inline double t_exp(double v) { return exp(v); }
__device__ inline float t_log(float v) { return logf(v); }
__device__ inline double t_log(double v) { return log(v); }

// The largest element of a row, for every thread of the block.
__device__ T row_max(const T* row, long long cols, T* buf) {
    T top = (T)__longlong_as_double(0xfff0000000000000ULL);  // -inf
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) top = fmax(top, row[j]);
    return block_max(top, buf);
}

extern "C" __global__ void microtorch_softmax_forward(const T* x, T* y, long long cols) {
    __shared__ T buf[ROW_BLOCK];
    long long base = (long long)blockIdx.x * cols;
    T top = row_max(x + base, cols, buf);
    T total = 0;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
        T e = t_exp(x[base + j] - top);
        y[base + j] = e;
        total += e;
    }
    T inv = (T)1 / block_sum(total, buf);
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) y[base + j] *= inv;
}

extern "C" __global__ void microtorch_log_softmax_forward(const T* x, T* y, long long cols) {
    __shared__ T buf[ROW_BLOCK];
    long long base = (long long)blockIdx.x * cols;
    T top = row_max(x + base, cols, buf);
    T total = 0;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) total += t_exp(x[base + j] - top);
    T log_total = t_log(block_sum(total, buf));
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) y[base + j] = x[base + j] - top - log_total;
}

extern "C" __global__ void microtorch_softmax_backward(const T* y, const T* g, T* dx, long long cols) {
    __shared__ T buf[ROW_BLOCK];
    long long base = (long long)blockIdx.x * cols;
    T dot = 0;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) dot += g[base + j] * y[base + j];
    dot = block_sum(dot, buf);
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) dx[base + j] = y[base + j] * (g[base + j] - dot);
}
""",
    "microtorch_softmax_forward",
    "microtorch_log_softmax_forward",
    "microtorch_softmax_backward",
)


def _use_cuda_rows(x, axis):
    return (
        backend.has_cuda_kernels(x)
        and axis in (-1, x.ndim - 1)
        and x.flags.c_contiguous
        and x.size > 0
    )


def _softmax_cuda(x, log=False):
    y = xp_of(x).empty_like(x)
    cols = x.shape[-1]
    name = "microtorch_log_softmax_forward" if log else "microtorch_softmax_forward"
    kernel = backend.row_kernel(name, _SOFTMAX_CUDA, x.dtype)
    backend.launch_rows(kernel, x.size // cols, (x, y, numpy.int64(cols)))
    return y


def _softmax_backward_cuda(y, grad):
    dx = xp_of(y).empty_like(y)
    cols = y.shape[-1]
    kernel = backend.row_kernel("microtorch_softmax_backward", _SOFTMAX_CUDA, y.dtype)
    backend.launch_rows(kernel, y.size // cols, (y, grad, dx, numpy.int64(cols)))
    return dx


def log_softmax_array(x, axis):
    """log(softmax(x)) = x - max - log(sum(exp(x - max))), without forming softmax; float16
    in float32, rounded once."""
    xp = xp_of(x)
    if x.dtype == xp.float16:
        return log_softmax_array(x.astype(xp.float32), axis).astype(xp.float16)
    if _use_cuda_rows(x, axis):
        return _softmax_cuda(x, log=True)
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))


class Softmax(Function):
    def forward(self, x, dim=-1):
        self.dim = dim
        y = softmax_array(x, dim)
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        return softmax_backward_array(y, grad, self.dim)


class LogSoftmax(Function):
    def forward(self, x, dim=-1):
        self.dim = dim
        out = log_softmax_array(x, dim)
        self.save_for_backward(out)
        return out

    def backward(self, grad):
        # dx_i = g_i - softmax_i * sum_j g_j (float16: in float32, rounded once)
        (out,) = self.saved
        xp = xp_of(out)
        wide = xp.float32 if out.dtype == xp.float16 else out.dtype
        g = grad.astype(wide, copy=False)
        dx = g - xp.exp(out.astype(wide, copy=False)) * g.sum(axis=self.dim, keepdims=True)
        return dx.astype(out.dtype, copy=False)
