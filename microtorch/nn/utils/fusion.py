"""Folding an eval-mode BatchNorm into the convolution or linear layer before it, as
``torch.nn.utils.fusion`` does: the fused layer alone gives what layer -> BatchNorm gave.

In eval, BatchNorm is an affine map per channel c:

    bn(y)_c = (y_c - running_mean_c) * scale_c + bias_c,  scale_c = weight_c / sqrt(var_c + eps)

so for y = W x + b it is (scale_c * W_c) x + (b_c - running_mean_c) * scale_c + bias_c: the
output channel c of the layer's weight is multiplied by scale_c and its bias moved.
"""

from __future__ import annotations

import copy

from ... import factories
from ..._tensor import Tensor
from ..module import Module
from ..parameter import Parameter


def _check_eval(layer: Module, bn: Module) -> None:
    """PyTorch asserts both are in eval mode and that bn tracks running statistics."""
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError(
            "fusion: the BatchNorm has no running statistics (track_running_stats=False), so "
            "it has no eval-mode affine map to fold"
        )


def fuse_conv_bn_eval(conv: Module, bn: Module, transpose: bool = False) -> Module:
    """A copy of ``conv`` (eval mode) whose output equals ``bn(conv(x))`` with ``bn`` in eval
    mode; ``transpose`` for a transposed convolution (output channels on weight dim 1)."""
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose,
    )  # fmt: skip
    return fused


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor,
                         bn_eps: float, bn_w: Tensor | None, bn_b: Tensor | None,
                         transpose: bool = False) -> tuple[Parameter, Parameter]:  # fmt: skip
    """The (weight, bias) Parameters of a convolution followed by an eval-mode BatchNorm with
    these running statistics and affine weight/bias (None: 1 and 0)."""
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    if conv_b is None:
        conv_b = factories.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = factories.ones_like(bn_rm)
    if bn_b is None:
        bn_b = factories.zeros_like(bn_rm)
    inv_std = (bn_rv + bn_eps).rsqrt()
    channel_shape = [1] * conv_w.ndim  # the scale along the output-channel dim of the weight
    channel_shape[1 if transpose else 0] = -1
    fused_w = (conv_w * (bn_w * inv_std).reshape(channel_shape)).to(weight_dtype)
    fused_b = ((conv_b - bn_rm) * inv_std * bn_w + bn_b).to(bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: Module, bn: Module) -> Module:
    """A copy of ``linear`` (eval mode) whose output equals ``bn(linear(x))`` with ``bn`` in
    eval mode; bn's features must equal linear's out_features, or be 1."""
    _check_eval(linear, bn)
    if not (linear.out_features == bn.num_features or bn.num_features == 1):
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1"
        )
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor,
                           bn_rv: Tensor, bn_eps: float, bn_w: Tensor,
                           bn_b: Tensor) -> tuple[Parameter, Parameter]:  # fmt: skip
    """The (weight, bias) Parameters of a linear layer followed by an eval-mode BatchNorm with
    these running statistics and affine weight/bias."""
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    if linear_b is None:
        linear_b = factories.zeros_like(bn_rm)
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * scale.unsqueeze(-1).to(weight_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
