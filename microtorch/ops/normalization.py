"""layer_norm over the last len(normalized_shape) dims, as one fused op.

Forward: xhat = (x - mean) / sqrt(var + eps); y = xhat * weight + bias.
Backward (per normalized group of size N, g = dL/dxhat = dL/dy * weight):
    dx = (g - mean(g) - xhat * mean(g * xhat)) / sqrt(var + eps)"""

from __future__ import annotations

from ..autograd.function import Function
from ..backend import xp_of


class LayerNorm(Function):
    def forward(self, x, weight=None, bias=None, ndims=1, eps=1e-5):
        xp = xp_of(x)
        axes = tuple(range(x.ndim - ndims, x.ndim))
        mean = x.mean(axis=axes, keepdims=True)
        centered = x - mean
        var = (centered * centered).mean(axis=axes, keepdims=True)
        inv_std = 1 / xp.sqrt(var + x.dtype.type(eps))
        xhat = centered * inv_std
        self.axes = axes
        self.save_for_backward(xhat, inv_std, weight)
        out = xhat * weight if weight is not None else xhat.copy()
        if bias is not None:
            out += bias
        return out

    def backward(self, grad):
        xhat, inv_std, weight = self.saved
        batch_axes = tuple(range(grad.ndim - len(self.axes)))
        gw = gb = gx = None
        if len(self.needs_input_grad) > 1 and self.needs_input_grad[1]:
            gw = (grad * xhat).sum(axis=batch_axes)
        if len(self.needs_input_grad) > 2 and self.needs_input_grad[2]:
            gb = grad.sum(axis=batch_axes)
        if self.needs_input_grad[0]:
            g = grad * weight if weight is not None else grad
            mean_g = g.mean(axis=self.axes, keepdims=True)
            mean_gx = (g * xhat).mean(axis=self.axes, keepdims=True)
            gx = (g - mean_g - xhat * mean_gx) * inv_std
        return gx, gw, gb
