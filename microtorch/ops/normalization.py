"""layer_norm over the last len(normalized_shape) dims, as one fused op.

Forward: xhat = (x - mean) / sqrt(var + eps); y = xhat * weight + bias.
Backward (per normalized group of size N, g = dL/dxhat = dL/dy * weight):
    dx = (g - mean(g) - xhat * mean(g * xhat)) / sqrt(var + eps)"""

from __future__ import annotations

import math

from .. import backend
from ..autograd.function import Function
from ..backend import xp_of


class LayerNorm(Function):
    def forward(self, x, weight=None, bias=None, ndims=1, eps=1e-5):
        xp = xp_of(x)
        if x.dtype == xp.float16:  # in float32, rounded once, as PyTorch computes it (the
            # float16 mean and variance were 3x PyTorch's error); backward likewise
            weight, bias = (None if a is None else a.astype(xp.float32) for a in (weight, bias))
            return self.forward(x.astype(xp.float32), weight, bias, ndims, eps).astype(x.dtype)
        axes = tuple(range(x.ndim - ndims, x.ndim))
        if _use_cuda_kernel(x, weight, bias):
            self.axes = axes
            y, xhat, inv_std = _layer_norm_cuda(x, weight, bias, ndims, eps)
            self.save_for_backward(xhat, inv_std, weight)
            return y
        # Work on rows: (R, n), one row per normalized group. Row means are products with a
        # vector of 1/n (one BLAS matrix-vector call, ~3x faster than .mean() on short rows).
        n = math.prod(x.shape[x.ndim - ndims :])
        rows = x.reshape(math.prod(x.shape[: x.ndim - ndims]), n)  # (not -1: n may be 0)
        avg = xp.full(n, 1 / max(n, 1), dtype=x.dtype)
        xhat = rows - (rows @ avg)[:, None]  # centered: x - mean
        var = (xhat * xhat) @ avg  # (R,)
        inv_std = 1 / xp.sqrt(var + x.dtype.type(eps))[:, None]  # (R, 1)
        xhat *= inv_std  # (x - mean) / sqrt(var + eps), in place
        self.axes = axes
        xhat = xhat.reshape(x.shape)  # back to x's shape (views)
        inv_std = inv_std.reshape(x.shape[: x.ndim - ndims] + (1,) * ndims)
        self.save_for_backward(xhat, inv_std, weight)
        out = xhat * weight if weight is not None else xhat.copy()
        if bias is not None:
            out += bias
        return out

    def backward(self, grad):
        xp = xp_of(grad)
        if grad.dtype == xp.float16:  # forward ran in float32 (see there)
            return backend.float16_results(self._backward(grad.astype(xp.float32)))
        return self._backward(grad)

    def _backward(self, grad):
        xhat, inv_std, weight = self.saved
        batch_axes = tuple(range(grad.ndim - len(self.axes)))
        gw = gb = gx = None
        if len(self.needs_input_grad) > 1 and self.needs_input_grad[1]:
            gw = (grad * xhat).sum(axis=batch_axes)
        if len(self.needs_input_grad) > 2 and self.needs_input_grad[2]:
            gb = grad.sum(axis=batch_axes)
        if self.needs_input_grad[0] and _use_cuda_kernel(grad, weight, None):
            gx = _layer_norm_backward_cuda(grad, xhat, inv_std, weight)
        elif self.needs_input_grad[0]:
            xp = xp_of(grad)
            n = math.prod(xhat.shape[xhat.ndim - len(self.axes) :])  # per normalized group
            r = math.prod(xhat.shape[: xhat.ndim - len(self.axes)])
            xhat_rows, grad_rows = xhat.reshape(r, n), grad.reshape(r, n)  # (R, n)
            w = weight.reshape(n) if weight is not None else xp.ones(n, dtype=grad.dtype)
            g = grad_rows * w  # dL/dxhat
            # row means of g and of g * xhat = (grad * xhat) * w, as matrix-vector products
            mean_g = (grad_rows @ (w / n))[:, None]
            mean_gx = ((grad_rows * xhat_rows) @ (w / n))[:, None]
            g -= mean_g
            g -= xhat_rows * mean_gx
            g *= inv_std.reshape(-1, 1)
            gx = g.reshape(grad.shape)
        return gx, gw, gb

    def name(self) -> str:
        return "NativeLayerNormBackward0"


# ----- the same forward and backward as CUDA kernels: one thread block per row -------
_LAYER_NORM_CUDA = backend.row_source(
    """
__device__ inline float t_rsqrt(float v) { return rsqrtf(v); }
__device__ inline double t_rsqrt(double v) { return rsqrt(v); }

extern "C" __global__ void microtorch_layer_norm_forward(
        const T* x, const T* w, const T* b, int has_bias, T* y, T* xhat, T* inv_std,
        long long cols, double eps) {
    __shared__ T buf[ROW_BLOCK];
    long long base = (long long)blockIdx.x * cols;
    T sum = 0;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) sum += x[base + j];
    T mean = block_sum(sum, buf) / (T)cols;
    T sq = 0;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
        T c = x[base + j] - mean;
        sq += c * c;
    }
    T r = t_rsqrt(block_sum(sq, buf) / (T)cols + (T)eps);
    if (threadIdx.x == 0) inv_std[blockIdx.x] = r;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
        T h = (x[base + j] - mean) * r;
        xhat[base + j] = h;
        y[base + j] = has_bias ? h * w[j] + b[j] : h * w[j];
    }
}

extern "C" __global__ void microtorch_layer_norm_backward(
        const T* grad, const T* xhat, const T* inv_std, const T* w, T* dx, long long cols) {
    __shared__ T buf[ROW_BLOCK];
    long long base = (long long)blockIdx.x * cols;
    T sum_g = 0, sum_gx = 0;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
        T g = grad[base + j] * w[j];
        sum_g += g;
        sum_gx += g * xhat[base + j];
    }
    T mean_g = block_sum(sum_g, buf) / (T)cols;
    T mean_gx = block_sum(sum_gx, buf) / (T)cols;
    T r = inv_std[blockIdx.x];
    for (long long j = threadIdx.x; j < cols; j += blockDim.x)
        dx[base + j] = (grad[base + j] * w[j] - mean_g - xhat[base + j] * mean_gx) * r;
}
""",
    "microtorch_layer_norm_forward",
    "microtorch_layer_norm_backward",
)


def _use_cuda_kernel(x, weight, bias):
    return (
        backend.has_cuda_kernels(x)
        and weight is not None
        and x.flags.c_contiguous
        and weight.flags.c_contiguous
        and (bias is None or bias.flags.c_contiguous)
        and x.size > 0
    )


def _layer_norm_cuda(x, weight, bias, ndims, eps):
    import numpy

    xp = xp_of(x)
    cols = weight.size
    rows = x.size // cols
    y, xhat = xp.empty_like(x), xp.empty_like(x)
    inv_std = xp.empty(x.shape[: x.ndim - ndims] + (1,) * ndims, dtype=x.dtype)
    kernel = backend.row_kernel("microtorch_layer_norm_forward", _LAYER_NORM_CUDA, x.dtype)
    has_bias = numpy.int32(bias is not None)  # without a bias, b is never read
    b = bias if bias is not None else weight
    args = (x, weight, b, has_bias, y, xhat, inv_std, numpy.int64(cols), numpy.float64(eps))
    backend.launch_rows(kernel, rows, args)
    return y, xhat, inv_std


def _layer_norm_backward_cuda(grad, xhat, inv_std, weight):
    import numpy

    grad = xp_of(grad).ascontiguousarray(grad)
    dx = xp_of(grad).empty_like(grad)
    cols = weight.size
    kernel = backend.row_kernel("microtorch_layer_norm_backward", _LAYER_NORM_CUDA, grad.dtype)
    backend.launch_rows(
        kernel, grad.size // cols, (grad, xhat, inv_std, weight, dx, numpy.int64(cols))
    )
    return dx
