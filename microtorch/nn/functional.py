"""``microtorch.nn.functional``: the neural-network ops in PyTorch's functional form
(softmax, cross_entropy, layer_norm, embedding, dropout, linear,
scaled_dot_product_attention...), plus re-exports of the elementwise ones."""

from __future__ import annotations

import builtins
import math
import operator
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from .. import backend
from .. import dtypes as _dtypes
from .. import functional as _functional
from .. import random as _random
from .._tensor import Tensor
from .._warn import warn_user
from ..amp.autocast_mode import autocast_inputs
from ..autograd.grad_mode import no_grad as _no_grad
from ..factories import arange as _arange
from ..factories import empty_like as _empty_like
from ..factories import full as _full
from ..factories import full_like as _full_like
from ..factories import whole_numbers
from ..factories import zeros_like as _zeros_like
from ..functional import (  # noqa: F401  (re-exported under F.*)
    _check_broadcast,
    _check_tensor,
    _float_input,
    _floating_only,
    _rounded_once,
    gelu,
    hardshrink,
    pairwise_distance,
    pdist,
    prelu,
    sigmoid,
    tanh,
)
from ..ops import attention as _attention
from ..ops import binary_loss as _binary_loss
from ..ops import conv as _conv_ops
from ..ops import ctc as _ctc
from ..ops import dropout as _dropout
from ..ops import elementwise as _elementwise
from ..ops import embedding as _embedding
from ..ops import linalg as _linalg
from ..ops import loss as _loss
from ..ops import normalization as _normalization
from ..ops import regression_loss as _regression_loss
from .grid import affine_grid, grid_sample  # noqa: F401  (re-exported under F.*)
from .multihead_attention import multi_head_attention_forward  # noqa: F401  (re-exported)


def _check_same_dtype(op: str, input: Tensor, weight: Tensor | None,
                      bias: Tensor | None) -> None:  # fmt: skip
    """input, weight and bias (those given) must share one dtype, as PyTorch requires."""
    if op.startswith("conv") and input.dtype is _dtypes.bool:  # (no bool convolution kernel)
        raise NotImplementedError(
            f"{op}: not implemented for bool inputs, as in PyTorch; use .float()"
        )
    dtypes = [t.dtype for t in (input, weight, bias) if t is not None]
    if any(d is not dtypes[0] for d in dtypes):
        raise RuntimeError(
            f"{op}: input, weight and bias must have the same dtype, got "
            f"{', '.join(str(d) for d in dtypes)}; convert with .to(dtype) first"
        )


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = input @ weight.T + bias; input (..., in), weight (out, in), bias (out,). A 1-D
    weight (in,) gives one output per row without the out dim, (...), as in PyTorch."""
    input, weight, bias = autocast_inputs("linear", input, weight, bias)
    _check_tensor(input, "linear")
    if input.ndim == 0:
        raise RuntimeError(
            "linear: input must have at least 1 dimension (features), got a 0-d tensor"
        )
    if weight.ndim == 1 and input.shape[-1] == weight.shape[0]:
        if bias is not None and bias.ndim != 0:
            raise RuntimeError(
                f"linear: with a 1-D weight {tuple(weight.shape)} the bias must be 0-d, got "
                f"shape {tuple(bias.shape)}"
            )
        out = _functional.matmul(input, weight)  # (..., in) @ (in,) -> (...)
        return out if bias is None else out + bias
    if input.shape[-1:] != weight.shape[-1:] or weight.ndim != 2:
        raise RuntimeError(
            f"linear: input of shape {tuple(input.shape)} cannot be multiplied by weight^T of "
            f"weight shape {tuple(weight.shape)} ({input.shape[-1] if input.ndim else None} != "
            f"{weight.shape[-1]})"
        )
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise RuntimeError(
            f"linear: bias of shape {tuple(bias.shape)} does not match weight of shape "
            f"{tuple(weight.shape)} (expected ({weight.shape[0]},))"
        )
    _check_same_dtype("linear", input, weight, bias)
    return _linalg.Linear.apply(input, weight, bias)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]; input1
    (..., in1), input2 (..., in2) with the same leading dims, weight (out, in1, in2)."""
    input1, input2, weight, bias = autocast_inputs("bilinear", input1, input2, weight, bias)
    _check_tensor(input1, "bilinear", "input1")
    _check_tensor(input2, "bilinear", "input2")
    _check_tensor(weight, "bilinear", "weight")
    if weight.ndim != 3:
        raise RuntimeError(
            f"bilinear(): weight must be 3-D (out_features, in1_features, in2_features), got "
            f"shape {tuple(weight.shape)}"
        )
    if input1.ndim == 0 or input1.ndim != input2.ndim:
        raise RuntimeError(
            f"bilinear(): input1 and input2 must have the same number of dims (at least 1), "
            f"got shapes {tuple(input1.shape)} and {tuple(input2.shape)}"
        )
    for d, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:  # (no broadcasting between the two inputs, as in PyTorch)
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {d}: got {a} and {b}"
            )
    for name, t, d in (("input1", input1, 1), ("input2", input2, 2)):
        if t.shape[-1] != weight.shape[d]:
            raise RuntimeError(
                f"bilinear(): {name} size does not match weight size: got {t.shape[-1]} but "
                f"expected {weight.shape[d]}"
            )
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {tuple(bias.shape)} but "
            f"expected ({weight.shape[0]},)"
        )
    tensors = {"input1": input1, "input2": input2, "weight": weight, "bias": bias}
    if len({t.dtype for t in tensors.values() if t is not None}) > 1:
        got = ", ".join(f"{k}: {t.dtype}" for k, t in tensors.items() if t is not None)
        raise RuntimeError(f"bilinear(): all tensors must have the same dtype, got {got}")
    # einsum's backward gives each operand its gradient: d/dinput1 = weight . input2, ...
    out = _functional._einsum("...i,oij,...j->...o", (input1, weight, input2), autocast=False)
    return out if bias is None else out + bias


# inplace=True writes the result into ``input``'s own memory and returns ``input``, as in
# PyTorch; ``_functional.inplace`` is the one place every in-place write goes through.
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0)."""
    if inplace:
        return _functional.inplace(input, _functional.relu)
    return _functional.relu(input)


def relu_(input: Tensor) -> Tensor:
    return relu(input, inplace=True)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x)."""
    if inplace:
        return _functional.inplace(input, silu)
    return _rounded_once(lambda x: x * sigmoid(x), _floating_only(input, "silu"))


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else negative_slope * x."""
    if inplace:
        return _functional.inplace(input, leaky_relu, negative_slope)
    x = _floating_only(input, "leaky_relu")
    return _rounded_once(lambda x: _functional.where(x > 0, x, x * negative_slope), x)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """leaky_relu written into ``input``, which is returned."""
    return leaky_relu(input, negative_slope, inplace=True)


# The piecewise activations below are compositions of where(): where routes the gradient to
# the branch it picked, so at an edge (x == min_val, x == threshold...) the gradient is the
# one of the branch PyTorch picks there. clamp() would pass the gradient at both edges.
def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:  # fmt: skip
    """min_val below min_val, max_val above max_val, input in between (gradient 0 at the
    two edges, as in PyTorch)."""
    if min_val > max_val:
        raise ValueError(
            f"hardtanh: min_val cannot be greater than max_val, got min_val={min_val} and "
            f"max_val={max_val}"
        )
    if inplace:
        return _functional.inplace(input, hardtanh, min_val, max_val)
    if _check_tensor(input, "hardtanh").dtype is _dtypes.bool:
        raise RuntimeError("hardtanh: Bool inputs not supported, as in PyTorch; convert first")
    if not input.dtype.is_floating_point:  # integers stay integers, bounds truncated to ints
        return _functional.clamp(input, int(min_val), int(max_val))
    # x <= min_val and x >= max_val pick the constants: a nan goes to x, as in PyTorch
    inner = _functional.where(input >= max_val, max_val, input)
    return _functional.where(input <= min_val, min_val, inner)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """hardtanh written into ``input``, which is returned."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6): hardtanh between 0 and 6."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6: 0 below -3, 1 above 3, a straight line in between."""
    if inplace:
        return _functional.inplace(input, hardsigmoid)
    return _rounded_once(lambda x: relu6(x + 3) / 6, _floating_only(input, "hardsigmoid"))


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6: 0 below -3, x above 3."""
    if inplace:
        return _functional.inplace(input, hardswish)
    return _rounded_once(lambda x: x * relu6(x + 3) / 6, _floating_only(input, "hardswish"))


def _exponential_unit(x: Tensor, alpha: float, input_scale: float) -> Tensor:
    """x where x > 0, else alpha * (exp(x * input_scale) - 1): elu, selu and celu. The
    exponential sees only min(x, 0), so a large x cannot overflow it (exp(1000) = inf, and
    the masked-out branch's gradient 0 * inf would be nan); x == 0 takes the exponential
    branch (gradient alpha * input_scale), as in PyTorch."""
    # (Expm1 itself: autocast lists expm1 but not elu, so the public expm1 would cast)
    negative = alpha * _elementwise.Expm1.apply(x.clamp(max=0.0) * input_scale)
    return _functional.where(x <= 0, negative, x)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else alpha * (exp(x) - 1)."""
    if inplace:
        return _functional.inplace(input, elu, alpha)
    return _rounded_once(lambda x: _exponential_unit(x, alpha, 1.0), _floating_only(input, "elu"))


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """elu written into ``input``, which is returned."""
    return elu(input, alpha, inplace=True)


# SELU's constants (Klambauer et al. 2017), the digits PyTorch uses
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with SELU's fixed alpha ~ 1.6733 and scale ~ 1.0507."""
    if inplace:
        return _functional.inplace(input, selu)
    x = _floating_only(input, "selu")
    return _rounded_once(lambda x: SELU_SCALE * _exponential_unit(x, SELU_ALPHA, 1.0), x)


def selu_(input: Tensor) -> Tensor:
    """selu written into ``input``, which is returned."""
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else alpha * (exp(x / alpha) - 1)."""
    if alpha == 0:
        raise RuntimeError("celu: ZeroDivisionError: alpha cannot be 0 for CELU")
    if inplace:
        return _functional.inplace(input, celu, alpha)
    x = _floating_only(input, "celu")
    return _rounded_once(lambda x: _exponential_unit(x, alpha, 1.0 / alpha), x)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """celu written into ``input``, which is returned."""
    return celu(input, alpha, inplace=True)


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|)."""
    if _check_tensor(input, "softsign").dtype is _dtypes.bool:  # integers give floats
        raise NotImplementedError("softsign: not implemented for bool tensors, as in PyTorch")
    return input / (_functional.abs(input) + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    return input - tanh(_check_tensor(input, "tanhshrink"))


def _log1p_exp(x: Tensor) -> Tensor:
    """log(1 + exp(x)) that never overflows: max(x, 0) + log1p(exp(-|x|)), the exp of a
    number <= 0. Private on purpose: the public softplus is left for learners to write."""
    zero = _functional.as_tensor_like(0.0, x)  # (maximum's tie rule gives sigmoid(0) = 0.5)
    # (the ops themselves: autocast lists log1p and exp but not logsigmoid or mish)
    small = _elementwise.Log1p.apply(_elementwise.Exp.apply(-_functional.abs(x)))
    return _functional.maximum(x, zero) + small


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)) = -log(1 + exp(-x)), without overflow for large negative x."""
    return _rounded_once(lambda x: -_log1p_exp(-x), _floating_only(input, "logsigmoid"))


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(log(1 + exp(x)))."""
    if inplace:
        return _functional.inplace(input, mish)
    x = _floating_only(input, "mish")
    return _rounded_once(lambda x: x * tanh(_log1p_exp(x)), x)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b), where a and b are the first and second half of input along ``dim``."""
    x = _check_tensor(input, "glu")
    if x.ndim == 0:
        raise RuntimeError("glu: does not support scalars because halving size must be even")
    d = _functional.wrap_dim(dim, x.ndim, "glu")
    half, odd = divmod(x.shape[d], 2)
    if odd:
        raise RuntimeError(
            f"glu: Halving dimension must be even, but dimension {d} is size {x.shape[d]} "
            f"(input shape {tuple(x.shape)})"
        )
    _floating_only(x, "glu")
    return _functional.narrow(x, d, 0, half) * sigmoid(_functional.narrow(x, d, half, half))


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:  # fmt: skip
    """exp(input) normalised to sum to 1 along ``dim``: torch.softmax with F.softmax's
    signature, whose third argument is PyTorch's warning stack level (unused here). Without
    ``dim`` it picks one, with PyTorch's warning (torch.softmax refuses)."""
    if dim is None:
        dim = _functional._implicit_softmax_dim(_check_tensor(input, "softmax").ndim, "softmax")
    return _functional.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: Any = None) -> Tensor:  # fmt: skip
    """log(softmax(input, dim)) without overflow: torch.log_softmax with F.log_softmax's
    signature (its third argument, the warning stack level, is unused here); without
    ``dim`` it picks one as F.softmax does."""
    if dim is None:
        ndim = _check_tensor(input, "log_softmax").ndim
        dim = _functional._implicit_softmax_dim(ndim, "log_softmax")
    return _functional.log_softmax(input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:  # fmt: skip
    """softmax(-input) along ``dim``: the smallest entries get the largest weights.
    ``dtype`` casts the input first (an integer input needs it, as in PyTorch)."""
    if dtype is None:  # (a dtype given is kept under autocast too, as in PyTorch)
        (input,) = autocast_inputs("softmin", input)
    negated = -_check_tensor(input, "softmin")  # (a bool one: neg's RuntimeError, as PyTorch)
    if dtype is None:
        _floating_only(input, "softmin")
    if dim is None:
        dim = _functional._implicit_softmax_dim(input.ndim, "softmin")
    _functional.wrap_dim(dim, input.ndim, "softmin")
    return softmax(negated, dim, dtype=dtype)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:  # fmt: skip
    """A sample from the Gumbel-softmax (concrete) distribution: softmax((logits + g) / tau)
    with g standard Gumbel noise. ``hard``: the one-hot of its argmax in the forward, with the
    soft sample's gradient (the straight-through estimator). ``eps`` is unused, as in
    PyTorch (which warns when it is set)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    _check_tensor(logits, "gumbel_softmax", "logits")
    # -log(E), E ~ Exponential(1), is standard Gumbel (exponential_ refuses integer logits)
    with _no_grad():
        gumbels = -_empty_like(logits).exponential_().log()
    y_soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = _zeros_like(logits).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft  # the value of y_hard, the gradient of y_soft


def _threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """threshold out of place (the public function's argument ``threshold`` hides its name)."""
    if _check_tensor(input, "threshold").dtype is _dtypes.bool:
        raise NotImplementedError("threshold: not implemented for bool tensors, as in PyTorch")
    if not input.dtype.is_floating_point:  # integers stay integers: both truncated to ints
        threshold, value = int(threshold), int(value)
    # x <= threshold picks value: a nan stays nan (gradient 1), as in PyTorch
    return _functional.where(input <= threshold, value, input)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """input where input > threshold, else value."""
    if inplace:
        return _functional.inplace(input, _threshold, threshold, value)
    return _threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """threshold written into ``input``, which is returned."""
    return _functional.inplace(input, _threshold, threshold, value)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 where |input| <= lambd, else input moved lambd towards 0."""
    x = _floating_only(input, "softshrink")
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be at least 0, but found {lambd}")
    # x - lambd * sign(x) where |x| > lambd: a nan goes there too (gradient 1, as in PyTorch)
    return _functional.where(_functional.abs(x) <= lambd, 0.0, x - _functional.sign(x) * lambd)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:  # fmt: skip
    """leaky_relu with slope (lower + upper) / 2; in training, each element's slope is drawn
    uniformly from [lower, upper) by the host generator (the same numbers on CPU and GPU)."""
    if inplace:
        return _functional.inplace(input, _random_leaky_relu, lower, upper, training)
    return _random_leaky_relu(input, lower, upper, training)


def _random_leaky_relu(input: Tensor, lower: float, upper: float, training: bool,
                      generator: Any = None) -> Tensor:  # fmt: skip
    """rrelu's values, its slopes drawn by ``generator`` (the default one if None): F.rrelu
    and torch.rrelu (which takes a generator where F.rrelu takes inplace) share it."""
    if lower > upper:
        raise RuntimeError(
            f"rrelu: Lower bound should be less than or equal to the upper bound, got "
            f"lower={lower} and upper={upper}"
        )
    x = _floating_only(input, "rrelu")
    if not training:
        return leaky_relu(x, (lower + upper) / 2)
    slopes = _random.uniform_array(tuple(x.shape), lower, upper, x.dtype, x.device, generator)
    return _functional.where(x > 0, x, x * Tensor._make(slopes))


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False, generator: Any = None) -> Tensor:  # fmt: skip
    """rrelu written into ``input``, which is returned (its slopes drawn by ``generator``)."""
    return _functional.inplace(input, _random_leaky_relu, lower, upper, training, generator)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:  # fmt: skip
    """input divided by its p-norm along ``dim`` (at least ``eps``): unit vectors."""
    (input,) = autocast_inputs("normalize", input)
    _functional._dims(dim, _check_tensor(input, "normalize").ndim, "normalize")  # (int or tuple)
    if not input.dtype.is_floating_point:  # (the norm's rule, under this op's name)
        raise RuntimeError(f"normalize: expected a floating point input, got {input.dtype}")
    return _functional.div(input, input.norm(p, dim, keepdim=True).clamp(min=eps), out=out)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """x1 . x2 / (max(|x1|, eps) max(|x2|, eps)) along ``dim`` (after broadcasting the two),
    which goes away: the cosine of the angle between the vectors."""
    x1, x2 = autocast_inputs("cosine_similarity", x1, x2)
    _check_tensor(x1, "cosine_similarity", "x1"), _check_tensor(x2, "cosine_similarity", "x2")
    _functional._check_broadcast(x1.shape, x2.shape, "cosine_similarity")
    x1, x2 = _functional.broadcast_tensors(x1, x2)
    if not (x1.dtype.is_floating_point or x2.dtype.is_floating_point):
        raise RuntimeError(
            f"cosine_similarity: expected a floating point x1 or x2, got {x1.dtype} and "
            f"{x2.dtype}; convert them with .float()"
        )
    x1, x2 = _float_input(x1, "cosine_similarity"), _float_input(x2, "cosine_similarity")
    # As in PyTorch: each vector divided by its norm, which is clamped at eps for the value
    # only (the gradient flows through the norm as if it were not clamped)
    n1 = x1.norm(dim=dim, keepdim=True)
    n2 = x2.norm(dim=dim, keepdim=True)
    n1 = n1 + (n1.clamp(min=eps) - n1).detach()
    n2 = n2 + (n2.clamp(min=eps) - n2).detach()
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:  # fmt: skip
    """Normalise over the last ``len(normalized_shape)`` dims to mean 0, variance 1, then
    scale by ``weight`` and shift by ``bias``."""
    input, weight, bias = autocast_inputs("layer_norm", input, weight, bias)
    _check_tensor(input, "layer_norm")
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    if not normalized_shape:
        raise RuntimeError(
            "layer_norm: normalized_shape must name at least one dim (the last dims of the "
            f"input, e.g. ({input.shape[-1] if input.ndim else 'n'},)), got ()"
        )
    if tuple(input.shape[input.ndim - len(normalized_shape) :]) != normalized_shape:
        raise RuntimeError(
            f"layer_norm: input of shape {tuple(input.shape)} does not end in normalized_shape "
            f"{list(normalized_shape)}"
        )
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != normalized_shape:
            raise RuntimeError(
                f"layer_norm: {name} of shape {tuple(p.shape)} does not match normalized_shape "
                f"{list(normalized_shape)}"
            )
    if _half_input_float_params(input, weight, bias):
        return layer_norm(input.float(), normalized_shape, weight, bias, eps).to(input.dtype)
    _check_same_dtype("layer_norm", input, weight, bias)
    return _normalization.LayerNorm.apply(
        _floating_only(input, "layer_norm"), weight, bias, ndims=len(normalized_shape), eps=eps
    )


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:  # fmt: skip
    """Rows of ``weight`` picked by the integer tensor ``input``: (...) -> (..., dim).
    With ``max_norm``, each picked row whose ``norm_type``-norm is above it is first scaled
    down to it, in place in ``weight`` (as in PyTorch). With ``scale_grad_by_freq``, each
    row's gradient is divided by the number of times its id occurs in ``input``."""
    if sparse:
        raise ValueError("embedding: sparse=True is not supported; leave it False")
    _check_tensor(input, "embedding")
    if _check_tensor(weight, "embedding", "weight").ndim != 2:
        raise RuntimeError(
            f"embedding: 'weight' must be 2-D (num_embeddings, embedding_dim), got shape "
            f"{tuple(weight.shape)}"
        )
    if input.dtype not in (_dtypes.int64, _dtypes.int32):  # PyTorch's "Long, Int"
        raise RuntimeError(
            f"embedding: indices must be an int64 (long) or int32 tensor, got {input.dtype}; "
            "convert them with .long()"
        )
    if input.device != weight.device:
        raise RuntimeError(
            f"embedding: indices are on {input.device} but the weight is on {weight.device}"
        )
    num = weight.shape[0]
    _check_index_range("embedding", input.array, num, f"an embedding of {num} rows", None)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += num
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    return _embedding.Embedding.apply(
        input, weight, padding_idx=padding_idx, scale_grad_by_freq=bool(scale_grad_by_freq)
    )


def _renorm_rows(weight: Tensor, ids: Tensor, max_norm: float, norm_type: float) -> None:
    """PyTorch's embedding renorm: each row of ``weight`` that ``ids`` picks and whose norm
    is above ``max_norm`` is scaled in place by max_norm / (norm + 1e-7). Not part of the
    graph (it changes the weight itself, like an optimizer step)."""
    with _no_grad():
        rows = _functional.unique(ids.reshape(-1))
        picked = weight[rows]
        norms = picked.norm(norm_type, dim=1, keepdim=True)
        scale = _functional.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = picked * scale.to(weight.dtype)


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:  # fmt: skip
    """The sum, mean or max of the ``weight`` rows of each bag of indices: a 2-D ``input``
    (B, L) is B bags of L; a 1-D ``input`` is cut into bags starting at ``offsets``.
    Entries equal to ``padding_idx`` are left out; an empty bag gives zeros. (B, dim)."""
    _check_tensor(input, "embedding_bag")
    _check_tensor(weight, "embedding_bag", "weight")
    if scale_grad_by_freq or sparse:  # (max_norm is supported: see F.embedding)
        raise ValueError(
            "embedding_bag: scale_grad_by_freq and sparse=True are not supported; leave them False"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"embedding_bag: mode has to be one of sum, mean or max, got {mode!r}")
    if input.dtype not in (_dtypes.int64, _dtypes.int32):  # PyTorch's "Long, Int"
        raise RuntimeError(
            f"embedding_bag: indices must be an int64 (long) or int32 tensor, got {input.dtype}; "
            "convert them with .long()"
        )
    if not weight.dtype.is_floating_point or weight.ndim != 2:
        raise RuntimeError(
            f"embedding_bag: weight must be a 2-D floating point tensor, got {weight.dtype} of "
            f"shape {tuple(weight.shape)}"
        )
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(
                f"embedding_bag: per_sample_weights is only supported for mode='sum' (got "
                f"mode={mode!r}); weight the rows yourself or use mode='sum'"
            )
        _check_tensor(per_sample_weights, "embedding_bag", "per_sample_weights")
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(
                f"embedding_bag: per_sample_weights {tuple(per_sample_weights.shape)} must have "
                f"the same shape as the input {tuple(input.shape)}"
            )
        if per_sample_weights.dtype is not weight.dtype:
            raise RuntimeError(
                f"embedding_bag: per_sample_weights ({per_sample_weights.dtype}) must have the "
                f"weight's dtype ({weight.dtype})"
            )
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError(
                f"embedding_bag: padding_idx must be within the number of embeddings, {-num} "
                f"through {num - 1}, but got {padding_idx}"
            )
        padding_idx %= num
    idx = input.array
    xp = backend.xp_of(idx)
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "embedding_bag: if input is 2-D (bags of equal length), offsets has to be None"
            )
        starts = xp.arange(idx.shape[0]) * idx.shape[1]  # B bags of L
    elif input.ndim == 1:
        if offsets is None or not isinstance(offsets, Tensor) or offsets.ndim != 1:
            raise ValueError(
                "embedding_bag: with a 1-D input, offsets has to be a 1-D tensor of the bags' "
                f"start positions, got {offsets if offsets is None else tuple(offsets.shape)}"
            )
        starts = _bag_starts(offsets, idx.size, include_last_offset)
    else:
        raise ValueError(f"embedding_bag: input has to be 1-D or 2-D, got shape {tuple(idx.shape)}")
    flat = input.reshape(-1)
    positions, counts = _bag_positions(flat.array, starts, padding_idx)
    # (N, dim): the rows of every entry, each picked row first renormed to max_norm if given
    rows = embedding(flat, weight, max_norm=max_norm, norm_type=norm_type)
    if weight.dtype is _dtypes.float16 and mode != "max":  # summed in float32, rounded once
        # (then divided in float16 for "mean", as PyTorch's kernel)
        return _float16_bags(rows, per_sample_weights, positions, counts, mode)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1)
    # Each bag gathers its rows into one padded row of ``positions``; the holes point at an
    # extra row that cannot change the result (0 for a sum, -inf for a max).
    fill = -math.inf if mode == "max" else 0.0
    filler = _full((1, weight.shape[1]), fill, dtype=weight.dtype, device=weight.device)
    bags = _functional.cat([rows, filler])[Tensor._make(positions)]  # (B, L, dim)
    if mode == "sum":
        return bags.sum(1, dtype=bags.dtype)  # (dtype: autocast does not list embedding_bag)
    counts = Tensor._make(counts.astype(weight.dtype.np)).reshape(-1, 1)
    if mode == "mean":
        return bags.sum(1, dtype=bags.dtype) / counts.clamp(min=1)
    largest = bags.max(1).values  # (the gradient goes to the first largest entry, as PyTorch)
    return _functional.where(counts > 0, largest, 0.0)


def _float16_bags(rows: Tensor, per_sample_weights: Tensor | None, positions: Any, counts: Any,
                  mode: str) -> Tensor:  # fmt: skip
    """embedding_bag's sums of float16 rows (times their weights), as PyTorch's kernel
    computes them: in float32, rounded once; a mean is that sum divided by the count."""
    wide = rows.float()
    if per_sample_weights is not None:
        wide = wide * per_sample_weights.float().reshape(-1, 1)
    filler = _full((1, rows.shape[1]), 0.0, dtype=wide.dtype, device=rows.device)
    total = _functional.cat([wide, filler])[Tensor._make(positions)].sum(1).half()
    if mode == "sum":
        return total
    counts = Tensor._make(counts.astype("float16")).reshape(-1, 1)
    return total / counts.clamp(min=1)


def _bag_starts(offsets: Tensor, n: int, include_last_offset: bool) -> Any:
    """The start position of every bag, checked as PyTorch checks them."""
    off = offsets.array
    if off.dtype.kind not in "iu":
        raise RuntimeError(f"embedding_bag: offsets must be an integer tensor, got {offsets.dtype}")
    if off.size == 0:
        raise RuntimeError("embedding_bag: offsets must hold at least one start (0)")
    xp = backend.xp_of(off)
    if int(off[0]) != 0:  # (on a GPU each check is a sync: bags change the output's shape)
        raise RuntimeError(
            f"embedding_bag: offsets[0] has to be 0 (the first bag starts at position 0), "
            f"got {int(off[0])}"
        )
    if bool((off[1:] < off[:-1]).any()):
        raise RuntimeError("embedding_bag: offsets must be non-decreasing (start positions)")
    if int(off[-1]) > n:
        raise RuntimeError(
            f"embedding_bag: offsets[-1] can not be greater than input's length {n}, got "
            f"{int(off[-1])}"
        )
    if include_last_offset:
        if int(off[-1]) != n:
            raise RuntimeError(
                f"embedding_bag: with include_last_offset=True the last offset must be the "
                f"input's length {n}, got {int(off[-1])}"
            )
        return off[:-1]
    return xp.asarray(off)


def _bag_positions(idx: Any, starts: Any, padding_idx: int | None) -> tuple[Any, Any]:
    """(positions, counts): row b of positions lists the entries of bag b (entry n of the
    flat input) padded with n_entries; counts[b] is how many it lists. Entries equal to
    padding_idx are left out."""
    xp = backend.xp_of(idx)
    n, n_bags = idx.size, starts.size
    entry = xp.arange(n)
    ends = xp.concatenate([starts[1:], xp.asarray([n], dtype=starts.dtype)]) if n_bags else starts
    longest = int((ends - starts).max()) if n_bags else 0
    bag = xp.searchsorted(starts, entry, side="right") - 1  # the last bag starting at or before
    slot = entry - starts[bag]
    keep = entry >= 0 if padding_idx is None else idx != padding_idx
    positions = xp.full((n_bags, max(longest, 1)), n, dtype=xp.int64)
    positions[bag[keep], slot[keep]] = entry[keep]
    return positions, (positions < n).sum(1)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Reorders the channels (dim 1) of (N, C, *) by viewing them as (groups, C / groups) and
    transposing to (C / groups, groups): channel c*groups + g of the result is channel
    g*(C/groups) + c of the input."""
    _check_tensor(input, "channel_shuffle")
    if not isinstance(groups, int) or isinstance(groups, bool):
        raise TypeError(f"channel_shuffle(): groups must be int, not {type(groups).__name__}")
    if input.ndim <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, got shape {tuple(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(f"channel_shuffle: the number of groups must be positive, got {groups}")
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(
            f"channel_shuffle: number of channels must be divisible by groups. Got {c} channels "
            f"and {groups} groups."
        )
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(input.shape)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """channel_shuffle(input, groups) (PyTorch's native entry point of the same op)."""
    return channel_shuffle(input, groups)


def _check_index_range(op: str, idx: Any, n: int, what: str, ignore: int | None,
                       error: type = IndexError) -> None:  # fmt: skip
    """Raise a clear IndexError (or ``error``) if an index is outside 0..n-1 (``ignore`` is
    allowed). On a GPU the check stays on the GPU, read at the next sync (backend.check_on_device)."""
    if idx.size == 0:
        return
    xp = backend.xp_of(idx)
    allowed = "" if ignore is None else f" or ignore_index={ignore}"
    if xp.__name__ == "numpy":
        valid = idx if ignore is None else idx[idx != ignore]  # (a mask: on a GPU, a sync)
        if valid.size and (valid.min() < 0 or valid.max() >= n):
            bad = int(valid.min()) if valid.min() < 0 else int(valid.max())
            name = "target" if ignore is not None else "index"
            raise error(
                f"{op}: {name} {bad} is out of range for {what} (expected 0..{n - 1}{allowed})"
            )
        return
    outside = (idx < 0) | (idx >= n)
    if ignore is not None:
        outside &= idx != ignore
    backend.check_on_device(
        outside.any(), f"{op}: an index is out of range for {what} (expected 0..{n - 1}{allowed})"
    )


def _check_p(op: str, p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{op}: probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero elements with probability ``p`` and scale the others by 1/(1-p) (training only)."""
    _check_p("dropout", p)
    if not training or p == 0.0:
        return input
    if inplace:
        return _functional.inplace(input, dropout, p)
    if p == 1.0:
        return input * 0.0
    return _dropout.Dropout.apply(input, p=p)


def _keep_mask(input: Tensor, shape: tuple, p: float, op: str) -> Any:
    """A 0/1 array of ``shape`` (broadcastable to input), each entry 1 with probability
    1 - p, drawn from the seeded generator as F.dropout's mask is."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{op}: result type Float can't be cast to the input's {input.dtype}")
    scaled = _random.bernoulli_mask(shape, 1.0 - p, input.array.dtype, input.device)
    return scaled != 0


def _channel_mask_shape(input: Tensor, op: str) -> tuple:
    """(N, C, 1, ..., 1): one mask entry per channel of each sample."""
    if input.ndim < 2:
        raise RuntimeError(f"{op}: Feature dropout requires at least 2 dimensions in the input")
    return tuple(input.shape[:2]) + (1,) * (input.ndim - 2)


def _feature_dropout(input: Tensor, p: float, op: str) -> Tensor:
    """Zero whole channels (dim 1) with probability ``p``; scale the rest by 1/(1-p)."""
    if p == 1.0:
        return input * 0.0
    keep = _keep_mask(input, _channel_mask_shape(input, op), p, op)
    return input * Tensor._make(keep.astype(input.array.dtype) * (1.0 / (1.0 - p)))


def _feature_dropout_nd(input: Tensor, p: float, training: bool, inplace: bool, op: str,
                        unbatched: bool) -> Tensor:  # fmt: skip
    """dropout1d/2d/3d once the input's rank is checked: an unbatched input gets a batch
    dim of 1 for the mask (so dim 0 is its channel dim), then loses it again."""
    if not training or p == 0.0:
        return input
    if inplace:
        return _functional.inplace(input, _feature_dropout_nd, p, True, False, op, unbatched)
    if unbatched:
        return _feature_dropout(input.unsqueeze(0), p, op).squeeze(0)
    return _feature_dropout(input, p, op)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:  # fmt: skip
    """Zero whole channels of a (N, C, L) or (C, L) input with probability ``p`` and scale
    the others by 1/(1-p) (training only)."""
    _check_p("dropout1d", p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input: (N, C, L) "
            "or unbatched (C, L), with C the channel dim zeroed as a whole"
        )
    return _feature_dropout_nd(input, p, training, inplace, "dropout1d", input.ndim == 2)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:  # fmt: skip
    """Zero whole channels of a (N, C, H, W) input with probability ``p`` and scale the
    others by 1/(1-p) (training only). A 3-D input is taken as (N, C, L), as in PyTorch."""
    _check_p("dropout2d", p)
    if input.ndim not in (3, 4):
        warn_user(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated in "
            "PyTorch; use dropout for element-wise dropout (channels of dim 1 are zeroed)"
        )
    if input.ndim == 3:
        warn_user(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L); use "
            "dropout1d for that"
        )
    return _feature_dropout_nd(input, p, training, inplace, "dropout2d", False)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:  # fmt: skip
    """Zero whole channels of a (N, C, D, H, W) or (C, D, H, W) input with probability ``p``
    and scale the others by 1/(1-p) (training only)."""
    _check_p("dropout3d", p)
    if input.ndim not in (4, 5):
        warn_user(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated in "
            "PyTorch; use dropout for element-wise dropout (channels of dim 1 are zeroed)"
        )
    # As in PyTorch, any input that is not 5-D is taken as unbatched: dim 0 is its channels.
    return _feature_dropout_nd(input, p, training, inplace, "dropout3d", input.ndim != 5)


# SELU's scale * alpha: a dropped unit is set to -_SELU_ALPHA, SELU's lowest output.
_SELU_ALPHA = 1.7580993408473766


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, op: str,
                   per_channel: bool) -> Tensor:  # fmt: skip
    """Set dropped units to -alpha, then a * x + b so that a zero-mean, unit-variance
    input keeps its mean and variance: a = ((1-p)(1 + p alpha^2))^-1/2, b = a alpha p."""
    _check_p(op, p)
    if not training or p == 0.0:
        return input
    if inplace:
        return _functional.inplace(input, _alpha_dropout, p, True, False, op, per_channel)
    if p == 1.0:
        return input * 0.0
    shape = _channel_mask_shape(input, op) if per_channel else tuple(input.shape)
    keep = _keep_mask(input, shape, p, op).astype(input.array.dtype)
    a = ((1.0 - p) * (1.0 + p * _SELU_ALPHA**2)) ** -0.5
    # kept: a x + a alpha p; dropped: a (-alpha) + a alpha p. d/dx = a * keep.
    shift = a * _SELU_ALPHA * (p - 1.0 + keep)
    return input * Tensor._make(keep * a) + Tensor._make(shift)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:  # fmt: skip
    """Dropout for SELU networks: dropped elements take SELU's negative saturation value and
    the result is rescaled so mean and variance are kept (training only; off by default)."""
    return _alpha_dropout(input, p, training, inplace, "alpha_dropout", False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:  # fmt: skip
    """alpha_dropout that drops whole channels (dim 1) of each sample together."""
    return _alpha_dropout(input, p, training, inplace, "feature_alpha_dropout", True)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:  # fmt: skip
    """Cross-entropy between logits ``input`` (N, C), (N, C, d1, ...) or (C,) and class
    indices ``target`` (N), (N, d1, ...) or (); or, with a float ``target`` of input's shape,
    class probabilities (soft labels)."""
    input, target, weight = autocast_inputs("cross_entropy", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction, "cross_entropy")
    if label_smoothing > 1.0:
        raise RuntimeError(
            f"cross_entropy: label_smoothing must be between 0.0 and 1.0, got {label_smoothing}"
        )
    label_smoothing = max(label_smoothing, 0.0)  # PyTorch smooths only when it is positive
    logits = _floating_only(input, "cross_entropy")  # no integer kernel, as in PyTorch
    if isinstance(target, Tensor) and target.dtype.is_floating_point:
        if ignore_index >= 0:  # (PyTorch's default, -100, and other negatives are fine)
            raise RuntimeError(
                f"cross_entropy: ignore_index ({ignore_index}) is not supported for a target "
                "of class probabilities (floating point); give that class probability 0 "
                "instead"
            )
        return _cross_entropy_with_probabilities(logits, target, weight, reduction,
                                                 label_smoothing)  # fmt: skip
    rows, targets, out_shape = _rows_of_classes(logits, target, ignore_index, "cross_entropy")
    if weight is not None:  # from ordinary ops: the fused op has no class weights
        logp = rows.log_softmax(1)
        loss = _weighted_nll(logp, targets, weight, ignore_index, reduction, "cross_entropy",
                             label_smoothing)  # fmt: skip
    else:
        loss = _loss.CrossEntropy.apply(
            rows, targets, ignore_index=ignore_index, reduction=reduction,
            label_smoothing=label_smoothing,
        )  # fmt: skip
    return loss.reshape(out_shape) if reduction == "none" else loss


def _cross_entropy_with_probabilities(logits: Tensor, target: Tensor, weight: Tensor | None,
                                      reduction: str, label_smoothing: float) -> Tensor:  # fmt: skip
    """Cross-entropy against a distribution over classes (soft labels: distillation, mixup):
    target has input's shape, and loss = -sum_c target_c * weight_c * log_softmax(input)_c
    over the class dim (dim 1, or the only dim). "mean" divides by the number of samples
    (positions), not by the weights, as in PyTorch. From ordinary ops."""
    if tuple(target.shape) != tuple(logits.shape):
        raise RuntimeError(
            f"cross_entropy: target is {target.dtype} of shape {tuple(target.shape)}: class "
            f"indices must have dtype long (e.g. target.long()), and a float target of class "
            f"probabilities must have the input's shape {tuple(logits.shape)}"
        )
    class_dim = 0 if logits.ndim == 1 else 1
    num_classes = logits.shape[class_dim]
    # (no cast of target: float32 logits with a float64 target give float64, as in PyTorch)
    if label_smoothing:
        target = target * (1 - label_smoothing) + label_smoothing / num_classes
    logp = logits.log_softmax(class_dim)
    if weight is not None:
        if tuple(weight.shape) != (num_classes,) or not weight.dtype.is_floating_point:
            raise RuntimeError(
                f"cross_entropy: weight must be a float tensor of shape ({num_classes},), one "
                f"per class, got {weight.dtype} of shape {tuple(weight.shape)}"
            )
        logp = logp * weight.to(logits.dtype).reshape(
            (num_classes,) + (1,) * (logits.ndim - 1 - class_dim)
        )
    losses = -(target * logp).sum(class_dim)  # (N, d1, ...) or ()
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.mean()


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:  # fmt: skip
    """Negative log-likelihood of log-probabilities ``input`` (N, C), (N, C, d1, ...) or (C,)
    at class indices ``target`` (N), (N, d1, ...) or ()."""
    input, target, weight = autocast_inputs("nll_loss", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction, "nll_loss")
    _floating_only(input, "nll_loss")
    if input.ndim == 0:  # a ValueError in PyTorch
        raise ValueError("nll_loss: input must have a dim of classes, got a 0-d tensor")
    rows, targets, out_shape = _rows_of_classes(input, target, ignore_index, "nll_loss")
    loss = _weighted_nll(rows, targets, weight, ignore_index, reduction, "nll_loss")
    return loss.reshape(out_shape) if reduction == "none" else loss


def _reduction(size_average: Any, reduce: Any, reduction: str, op: str) -> str:
    """``reduction``, or what PyTorch's deprecated size_average/reduce flags mean, with
    PyTorch's warning: reduce=False -> "none", else size_average=False -> "sum"."""
    if size_average is not None or reduce is not None:
        reduction = "none" if reduce is False else "sum" if size_average is False else "mean"
        warn_user(f"{op}: size_average and reduce are deprecated; use reduction='{reduction}'")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction


def _rows_of_classes(input: Tensor, target: Tensor, ignore_index: int, op: str) -> tuple:
    """Check a class-index ``target`` against ``input`` (classes in dim 1, or the only dim),
    then return (rows (M, C), targets (M,), the shape of an unreduced loss)."""
    _check_tensor(target, op, "target")
    if target.dtype not in (_dtypes.int64, _dtypes.uint8):  # PyTorch's "Long or Byte"
        raise RuntimeError(
            f"{op}: expected target of class indices with dtype long (int64) or uint8, got "
            f"{target.dtype}; convert it with target.long()"
        )
    if input.ndim == 0:
        raise RuntimeError(f"{op}: input must have a dim of classes, got a 0-d tensor")
    # a batch size that differs is a ValueError in PyTorch (other shape mismatches below
    # are RuntimeErrors); a (C,) input is one sample, whose target may also be (1,)
    target_batch = target.shape[0] if target.ndim else 0
    if (input.ndim >= 2 and target_batch != input.shape[0]) or (
        input.ndim == 1 and target.ndim == 1 and target_batch != 1
    ):
        raise ValueError(
            f"{op}: input of shape {tuple(input.shape)} and target of shape "
            f"{tuple(target.shape)} have different batch sizes (dim 0 of each; a 1-D input "
            f"is one sample, whose target is 0-d)"
        )
    # (C,) is one sample with a 0-d target; (N, C, d1, ...) has targets (N, d1, ...)
    expected = () if input.ndim == 1 else (input.shape[0],) + tuple(input.shape[2:])
    if input.ndim == 1 and tuple(target.shape) == (1,):  # PyTorch takes this one too
        target = target.reshape(())
    if tuple(target.shape) != expected:
        hint = ""
        if input.ndim == 3 and tuple(target.shape) == tuple(input.shape[:2]):
            hint = (
                "; classes go in dim 1: for (B, T, C) logits pass logits.view(-1, C) and "
                "targets.view(-1), or logits.transpose(1, 2)"
            )
        raise RuntimeError(
            f"{op}: target of shape {tuple(target.shape)} does not match input of shape "
            f"{tuple(input.shape)} (expected target shape {expected}){hint}"
        )
    if input.ndim == 1:
        input, target = input.unsqueeze(0), target.reshape(1)
    num_classes = input.shape[1]
    _check_index_range(op, target.array, num_classes, f"{num_classes} classes", ignore_index)
    if input.ndim > 2:  # (N, C, d...) -> (N, d..., C)
        input = input.permute(0, *range(2, input.ndim), 1)
    rows = math.prod(input.shape[:-1])  # (not -1: it can't be inferred when there are 0 classes)
    return input.reshape(rows, num_classes), target.reshape(-1), expected


def _weighted_nll(logp: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int,
                  reduction: str, op: str, label_smoothing: float = 0.0) -> Tensor:  # fmt: skip
    """-logp[n, target_n] for rows logp (M, C), from ordinary ops. With a weight per class,
    row n counts weight[target_n] times, and "mean" divides by the sum of those weights (the
    number of rows kept, without). Label smoothing adds the (weighted) mean over classes."""
    from .. import functional as F

    num_classes = logp.shape[1]
    keep = target != ignore_index
    # ignored rows pick class 0, then weigh nothing; int64, as gather and indexing want
    safe_target = F.where(keep, target, 0).long()
    row_weight = keep.to(logp.dtype)  # 1 for a row that counts, 0 for an ignored one
    if weight is not None:
        _check_tensor(weight, op, "weight")
        if tuple(weight.shape) != (num_classes,) or not weight.dtype.is_floating_point:
            raise RuntimeError(
                f"{op}: weight must be a float tensor of shape ({num_classes},), one per "
                f"class, got {weight.dtype} of shape {tuple(weight.shape)}"
            )
        if weight.dtype is not logp.dtype:  # PyTorch: "expected scalar type ... but found"
            raise RuntimeError(
                f"{op}: weight is {weight.dtype} but input is {logp.dtype}; they must have one "
                "dtype (convert the weight with .to(input.dtype))"
            )
        row_weight = weight[safe_target] * row_weight  # (M,)
    losses = -F.gather(logp, 1, safe_target.reshape(-1, 1)).reshape(-1) * row_weight
    if label_smoothing:
        per_class = logp if weight is None else logp * weight
        smooth = -per_class.sum(1) * keep.to(logp.dtype)
        losses = (1 - label_smoothing) * losses + label_smoothing / num_classes * smooth
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    # As in PyTorch, every row ignored gives a nan loss (0 / 0) but zero gradients, so one
    # batch of padding does not turn the weights to nan: divide by a total of at least 1
    # (the same where any row counts), then add a constant nan where the total is 0.
    total = row_weight.sum().detach()
    nothing = total == 0
    nan_if_nothing = F.where(nothing, math.nan, 0.0).to(logp.dtype)
    return losses.sum() / F.where(nothing, 1.0, total) + nan_if_nothing


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:  # fmt: skip
    """(input - target)^2, averaged (or summed, or per element with reduction="none");
    ``weight`` (input's shape) multiplies each element's loss, and "mean" is then the
    weighted mean."""
    input, target, weight = autocast_inputs("mse_loss", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction, "mse_loss")
    _check_floating_kernel(input, target, "mse_loss")
    _warn_if_broadcast(input, target, "mse_loss")
    if weight is None:  # (one op: its float16 steps are PyTorch's kernel's)
        input, target = _functional._binary_operands(input, target, "mse_loss")
        return _regression_loss.MseLoss.apply(input, target, reduction=reduction)
    diff = input - target
    return _reduce_weighted(diff * diff, weight, input, reduction, "mse_loss")


def _weighted(losses: Tensor, weight: Tensor | None, input: Tensor, op: str) -> Tensor:
    """The per-element losses times ``weight``, which must have input's shape (PyTorch's
    rule for the regression losses' weight)."""
    if weight is None:
        return losses
    if tuple(_check_tensor(weight, op, "weight").shape) != tuple(input.shape):
        raise ValueError(
            f"{op}: weight of shape {tuple(weight.shape)} must have the input's shape "
            f"{tuple(input.shape)} (one weight per element)"
        )
    return losses * weight


def _reduce_weighted(losses: Tensor, weight: Tensor | None, input: Tensor, reduction: str,
                     op: str) -> Tensor:  # fmt: skip
    """mse_loss's and l1_loss's reduction: with a weight, "mean" is the weighted mean, the
    sum divided by the sum of the weights, as in PyTorch (huber_loss divides by the count)."""
    losses = _weighted(losses, weight, input, op)
    if weight is None or reduction != "mean":
        return _reduce(losses, reduction)
    return losses.sum() / weight.sum()


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    """The per-element losses as they are ("none"), summed, or averaged."""
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.mean()


def _warn_if_broadcast(input: Tensor, target: Tensor, op: str) -> None:
    """Refuse shapes that do not broadcast; warn where they broadcast but differ."""
    _functional._check_broadcast(input.shape, target.shape, op)
    if tuple(input.shape) != tuple(target.shape):  # (N, 1) vs (N,) broadcasts to (N, N)
        warn_user(
            f"{op}: target of shape {tuple(target.shape)} differs from input of shape "
            f"{tuple(input.shape)}; they broadcast together, which is likely not what you want "
            "(e.g. pred.squeeze(-1) or target.unsqueeze(-1) first)"
        )


def _check_floating_kernel(input: Tensor, target: Tensor, op: str,
                           into_input: bool = False) -> None:  # fmt: skip
    """mse_loss, smooth_l1_loss and huber_loss compute in floating types only, as in PyTorch:
    integer (or bool) input and target raise NotImplementedError; ``into_input`` (huber_loss,
    whose result takes input's dtype): an integer input with a float target raises
    RuntimeError."""
    _check_tensor(input, op)
    _check_tensor(target, op, "target")
    common = _functional.result_type(input, target)
    if not common.is_floating_point:
        raise NotImplementedError(
            f"{op}: not implemented for {input.dtype} input and {target.dtype} target (no "
            "floating point among them); convert them first, e.g. input.float()"
        )
    if into_input and not input.dtype.is_floating_point:
        raise RuntimeError(
            f"{op}: result type {common} can't be cast to the desired output type "
            f"{input.dtype} (the input's); convert the input first, e.g. input.float()"
        )


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:  # fmt: skip
    """|input - target|, averaged (or summed, or per element with reduction="none");
    ``weight`` (input's shape) multiplies each element's loss, and "mean" is then the
    weighted mean."""
    input, target, weight = autocast_inputs("l1_loss", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction, "l1_loss")
    _warn_if_broadcast(input, target, "l1_loss")
    return _reduce_weighted((input - target).abs(), weight, input, reduction, "l1_loss")


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:  # fmt: skip
    """With d = |input - target|: 0.5 d^2 / beta where d < beta, else d - 0.5 beta (a
    squared error near 0, an absolute one further out); beta = 0 is l1_loss."""
    input, target = autocast_inputs("smooth_l1_loss", input, target)
    reduction = _reduction(size_average, reduce, reduction, "smooth_l1_loss")
    if beta < 0:
        raise RuntimeError(f"smooth_l1_loss: beta must not be negative, got {beta}")
    _check_floating_kernel(input, target, "smooth_l1_loss")
    _warn_if_broadcast(input, target, "smooth_l1_loss")
    if beta == 0:
        return _reduce((input - target).abs(), reduction)
    input, target = _functional._binary_operands(input, target, "smooth_l1_loss")
    return _regression_loss.SmoothL1Loss.apply(input, target, reduction=reduction, beta=beta)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:  # fmt: skip
    """With d = |input - target|: 0.5 d^2 where d < delta, else delta (d - 0.5 delta);
    smooth_l1_loss times delta (with beta = delta). ``weight`` multiplies each element."""
    input, target, weight = autocast_inputs("huber_loss", input, target, weight)
    reduction = _reduction(None, None, reduction, "huber_loss")
    if not delta > 0:
        raise RuntimeError(f"huber_loss: delta must be positive, got {delta}")
    _check_floating_kernel(input, target, "huber_loss", into_input=True)
    _warn_if_broadcast(input, target, "huber_loss")
    input, target = _functional._binary_operands(input, target, "huber_loss")
    if weight is None:
        return _regression_loss.HuberLoss.apply(input, target, reduction=reduction, delta=delta)
    d = (input - target).abs()
    losses = _functional.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce(_weighted(losses, weight, input, "huber_loss"), reduction)


def _check_binary_targets(input: Tensor, target: Tensor, op: str, one_dtype: bool = True) -> None:
    """Binary cross-entropy wants one shape for input and target, both floating point and
    (``one_dtype``, binary_cross_entropy's rule in PyTorch) of one dtype."""
    _check_tensor(input, op)
    _check_tensor(target, op, "target")
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"{op}: target of shape {tuple(target.shape)} must have the same shape as input "
            f"{tuple(input.shape)}"
        )
    floats = input.dtype.is_floating_point and target.dtype.is_floating_point
    if not floats or (one_dtype and target.dtype is not input.dtype):
        kind = "floating point of one dtype" if one_dtype else "floating point"
        raise RuntimeError(
            f"{op}: input and target must be {kind}, got {input.dtype} and {target.dtype}; "
            "convert the target with .to(input.dtype)"
        )


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:  # fmt: skip
    """-(y log x + (1 - y) log(1 - x)) for probabilities x = ``input`` in [0, 1] and targets
    y; each log is clamped at -100, as in PyTorch, so a wrong certainty costs 100, not inf.
    ``weight`` multiplies each element's loss. For logits use
    binary_cross_entropy_with_logits (more stable than sigmoid then this)."""
    input, target, weight = autocast_inputs("binary_cross_entropy", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction, "binary_cross_entropy")
    _check_binary_targets(input, target, "binary_cross_entropy")
    x = input.array
    why = "binary_cross_entropy: all elements of input should be between 0 and 1"
    if backend.xp_of(x).__name__ == "numpy":
        if x.size and not ((x >= 0) & (x <= 1)).all():
            raise RuntimeError(f"{why} (probabilities: apply sigmoid first, or use the _with_logits form)")  # fmt: skip
    else:  # on a GPU: checked at the next sync, without making the host wait here
        backend.check_on_device(((x < 0) | (x > 1)).any(), why)
    weight = _fixed_weight(weight, input, "binary_cross_entropy")
    return _binary_loss.BinaryCrossEntropy.apply(input, target, weight=weight, reduction=reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: Any = None, reduce: Any = None,
                                     reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:  # fmt: skip
    """binary_cross_entropy of sigmoid(input), computed from the logits without ever
    overflowing. ``pos_weight`` (broadcast along the last dim: one per class) scales the
    loss of the positive targets; ``weight`` multiplies each element's loss."""
    input, target, weight, pos_weight = autocast_inputs(
        "binary_cross_entropy_with_logits", input, target, weight, pos_weight
    )
    op = "binary_cross_entropy_with_logits"
    reduction = _reduction(size_average, reduce, reduction, op)
    _floating_only(input, op)  # (no integer logits: NotImplementedError, as in PyTorch)
    _check_binary_targets(input, target, op, one_dtype=False)
    if target.dtype is not input.dtype:  # e.g. float32 logits, float64 labels: promoted
        common = _dtypes.promote_types(input.dtype, target.dtype)
        input, target = input.to(common), target.to(common)
    positive = None
    if pos_weight is not None:
        if pos_weight.requires_grad:
            raise RuntimeError(f"{op}: a pos_weight that requires grad is not supported")
        shapes = tuple(input.shape), tuple(pos_weight.shape)
        _check_broadcasts_to(*shapes, f"{op}: pos_weight", "input's shape")
        positive = pos_weight.array.astype(input.array.dtype, copy=False)
    return _binary_loss.BinaryCrossEntropyWithLogits.apply(
        input, target, pos_weight=positive, weight=_fixed_weight(weight, input, op),
        reduction=reduction,
    )  # fmt: skip


def _fixed_weight(weight: Tensor | None, input: Tensor, op: str) -> Any:
    """The binary cross-entropies' ``weight`` as an array in input's dtype (None if none);
    PyTorch's have no gradient for it and refuse one that requires grad."""
    if weight is None:
        return None
    if _check_tensor(weight, op, "weight").requires_grad:
        raise RuntimeError(
            f"{op}: not differentiable with respect to argument 'weight', which cannot have "
            "requires_grad=True; pass weight.detach()"
        )
    _check_broadcasts_to(tuple(input.shape), tuple(weight.shape), f"{op}: weight",
                         "input's shape")  # fmt: skip
    return weight.array.astype(input.array.dtype, copy=False)


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:  # fmt: skip
    """KL(target || model) with ``input`` the model's log-probabilities: per element
    target * (log target - input), 0 where target is 0 (``log_target=True``: the target is
    given as log-probabilities too). reduction="batchmean" divides the sum by the batch size
    (dim 0): the true KL divergence per sample; "mean" divides by every element, as PyTorch
    does (and warns)."""
    input, target = autocast_inputs("kl_div", input, target)
    if reduction == "batchmean":
        reduction_kind = "batchmean"
    else:
        reduction_kind = _reduction(size_average, reduce, reduction, "kl_div")
        if reduction_kind == "mean":
            warn_user(
                "kl_div: reduction='mean' divides the total by the batch size and the support "
                "size; 'batchmean' divides by the batch size only, which is the KL divergence"
            )
    for name, t in (("input", input), ("target", target)):
        if not _check_tensor(t, "kl_div", name).dtype.is_floating_point:
            raise RuntimeError(
                f"kl_div: integer inputs are not supported, got {name} of dtype {t.dtype}; "
                "pass floating point log-probabilities and probabilities"
            )
    _functional._check_broadcast(input.shape, target.shape, "kl_div")
    if log_target:
        losses = target.exp() * (target - input)
    else:  # target * log(target), taken as 0 where target is 0 (not 0 * -inf = nan); a
        # negative target is no probability: its log is nan, and so is its loss (PyTorch's)
        # (written so that autograd adds target's three gradients up in PyTorch's order,
        # xlogy's two first, which float16 rounds differently)
        losses = -(target * input) + _functional.xlogy(target, target)
    if reduction_kind == "batchmean":
        return losses.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(losses, reduction_kind)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:  # fmt: skip
    """Negative log-likelihood of a Poisson distribution with rate exp(input)
    (``log_input=True``: exp(input) - target * input) or rate input (input - target *
    log(input + eps)). ``full`` adds Stirling's approximation of log(target!),
    target log target - target + 0.5 log(2 pi target), where target > 1."""
    input, target = autocast_inputs("poisson_nll_loss", input, target)
    reduction = _reduction(size_average, reduce, reduction, "poisson_nll_loss")
    _check_tensor(input, "poisson_nll_loss")
    _check_tensor(target, "poisson_nll_loss", "target")
    _functional._check_broadcast(input.shape, target.shape, "poisson_nll_loss")
    if log_input:
        losses = input.exp() - target * input
    else:
        losses = input - target * (input + eps).log()
    if full:  # computed on target > 1 only (a 1 elsewhere keeps log(0) out of the graph)
        big = target > 1
        t = _functional.where(big, target, 1.0)
        stirling = t * t.log() - t + 0.5 * (2 * math.pi * t).log()
        losses = losses + _functional.where(big, stirling, 0.0)
    return _reduce(losses, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:  # fmt: skip
    """Negative log-likelihood of target under a Gaussian of mean ``input`` and variance
    ``var``: 0.5 (log var + (input - target)^2 / var) (+ 0.5 log(2 pi) with ``full``). var
    has input's shape, or one dim fewer, or a 1 in one dim (one variance shared along it), or
    is a float. var is clamped at eps for the value only: the gradient passes as if it were
    not, as in PyTorch."""
    _check_tensor(input, "gaussian_nll_loss")
    _check_tensor(target, "gaussian_nll_loss", "target")
    _functional._check_broadcast(input.shape, target.shape, "gaussian_nll_loss")
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("gaussian_nll_loss: var has negative entry/entries")
        var = _full_like(input, float(var))
    else:
        negative = (_check_tensor(var, "gaussian_nll_loss", "var").array < 0).any()
        why = "gaussian_nll_loss: var has negative entry/entries"
        if backend.xp_of(var.array).__name__ == "numpy":
            if negative:
                raise ValueError(why)
        else:  # on a GPU: checked at the next sync, without making the host wait here
            backend.check_on_device(negative, why)
    in_shape, var_shape = tuple(input.shape), tuple(var.shape)
    if var_shape != in_shape:
        mismatched = [v for i, v in zip(in_shape, var_shape) if i != v]
        if in_shape[:-1] == var_shape:  # one variance per row: broadcast along the last dim
            var = var.unsqueeze(-1)
        elif not (len(var_shape) == len(in_shape) and builtins.sum(mismatched) == 1):
            raise ValueError(
                f"gaussian_nll_loss: var of shape {var_shape} is of incorrect size for input "
                f"{in_shape}: give it input's shape, input's without the last dim, or a 1 in "
                "one dim"
            )
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"gaussian_nll_loss: {reduction} is not valid")
    var = var + (var.clamp(min=eps) - var).detach()  # the clamped value, var's gradient
    losses = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        losses = losses + 0.5 * math.log(2 * math.pi)
    return _reduce(losses, reduction)


def _check_same_ndim(op: str, **tensors: Tensor) -> None:
    """PyTorch's ranking and triplet losses want tensors of one number of dims."""
    for name, t in tensors.items():
        _check_tensor(t, op, name)
    if len({t.ndim for t in tensors.values()}) > 1:
        dims = ", ".join(f"{name} {t.ndim}D" for name, t in tensors.items())
        raise RuntimeError(
            f"{op}: the tensors are expected to have the same number of dimensions, got {dims}"
        )


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:  # fmt: skip
    """max(0, -target * (input1 - input2) + margin) with target 1 (input1 should rank
    higher) or -1; at the kink (0) the gradient passes, as in PyTorch."""
    input1, input2, target = autocast_inputs("margin_ranking_loss", input1, input2, target)
    reduction = _reduction(size_average, reduce, reduction, "margin_ranking_loss")
    _check_same_ndim("margin_ranking_loss", input1=input1, input2=input2, target=target)
    # a float margin, as in PyTorch: integer inputs give a float loss
    return _reduce((-target * (input1 - input2) + float(margin)).clamp(min=0), reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:  # fmt: skip
    """input where target is 1, max(0, margin - input) where target is -1 (``input`` is
    usually a distance). As in PyTorch, a target that is neither counts both terms."""
    input, target = autocast_inputs("hinge_embedding_loss", input, target)
    reduction = _reduction(size_average, reduce, reduction, "hinge_embedding_loss")
    _check_tensor(input, "hinge_embedding_loss")
    _check_tensor(target, "hinge_embedding_loss", "target")
    below_margin = _functional.where(target != 1, (margin - input).clamp(min=0), 0.0)
    return _reduce(below_margin + _functional.where(target != -1, input, 0.0), reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Tensor:  # fmt: skip
    """With cos the cosine similarity of input1 and input2 along their last dim: 1 - cos
    where target is 1, max(0, cos - margin) where target is -1. Inputs (N, D) with a target
    (N,), or (D,) with a 0-d target. As in PyTorch, each squared length gets 1e-12."""
    input1, input2, target = autocast_inputs("cosine_embedding_loss", input1, input2, target)
    reduction = _reduction(size_average, reduce, reduction, "cosine_embedding_loss")
    for name, t in (("input1", input1), ("input2", input2), ("target", target)):
        _check_tensor(t, "cosine_embedding_loss", name)
    if target.ndim > 1 or input1.ndim != target.ndim + 1 or input2.ndim != target.ndim + 1:
        raise RuntimeError(
            f"cosine_embedding_loss: expects inputs (N, D) with a target (N,), or (D,) with a "
            f"0-d target, got {tuple(input1.shape)}, {tuple(input2.shape)} and target "
            f"{tuple(target.shape)}"
        )
    _functional._check_broadcast(input1.shape, input2.shape, "cosine_embedding_loss")
    dim = target.ndim
    squares1 = (input1 * input1).sum(dim) + 1e-12
    squares2 = (input2 * input2).sum(dim) + 1e-12
    cos = (input1 * input2).sum(dim) / (squares1 * squares2).sqrt()
    similar = _functional.where(target == 1, 1 - cos, 0.0)
    dissimilar = _functional.where(target == -1, (cos - margin).clamp(min=0), 0.0)
    return _reduce(similar + dissimilar, reduction)


def _check_target_fits(input: Tensor, target: Tensor, op: str) -> None:
    """The target must broadcast to input's own shape (the loss has input's shape)."""
    _check_broadcasts_to(tuple(input.shape), tuple(target.shape), f"{op}: target", "input's shape")


def _check_broadcasts_to(shape: tuple, other: tuple, what: str, onto: str) -> None:
    """``other`` must broadcast to ``shape`` itself, not to a bigger shape (as PyTorch
    requires where the result keeps ``shape``: a loss's target, a mask of the scores)."""
    _check_broadcast(shape, other, what)
    pairs = zip(reversed(shape), reversed(other))
    if len(other) > len(shape) or any(o != 1 and s == 1 for s, o in pairs):
        raise RuntimeError(f"{what} of shape {other} does not broadcast to {onto} {shape}")


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:  # fmt: skip
    """log(1 + exp(-target * input)) for targets 1 or -1: a smooth two-class hinge."""
    input, target = autocast_inputs("soft_margin_loss", input, target)
    reduction = _reduction(size_average, reduce, reduction, "soft_margin_loss")
    _check_tensor(input, "soft_margin_loss")
    _check_tensor(target, "soft_margin_loss", "target")
    _check_target_fits(input, target, "soft_margin_loss")
    if not input.dtype.is_floating_point:  # PyTorch writes the loss into input's dtype
        raise RuntimeError(
            f"soft_margin_loss: result type float can't be cast to the desired output type "
            f"{input.dtype} (the input's); convert the input first, e.g. input.float()"
        )
    return _reduce(_functional.log1p((-target * input).exp()), reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: Any = None, reduce: Any = None,
                                reduction: str = "mean") -> Tensor:  # fmt: skip
    """Binary cross-entropy of the logits ``input`` (N, C) against 0/1 targets, averaged
    over the C classes (last dim) of each sample; ``weight`` (C,) weighs each class."""
    reduction = _reduction(size_average, reduce, reduction, "multilabel_soft_margin_loss")
    _check_tensor(input, "multilabel_soft_margin_loss")
    _check_tensor(target, "multilabel_soft_margin_loss", "target")
    if input.ndim == 0:
        raise IndexError("multilabel_soft_margin_loss: input needs a dim of classes, got 0-d")
    losses = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        losses = losses * weight
    return _reduce(losses.sum(-1) / input.shape[-1], reduction)


def _class_rows(input: Tensor, target: Tensor, op: str) -> tuple:
    """(rows (N, C), class ids (N,)) for the margin losses: input (N, C) with target (N,),
    or (C,) with a target of one element."""
    _floating_only(input, op)
    _check_tensor(target, op, "target")
    if input.ndim not in (1, 2) or input.shape[-1] == 0:
        raise RuntimeError(
            f"{op}: expected a non-empty vector or matrix (N, C) input, got shape "
            f"{tuple(input.shape)}"
        )
    if target.array.dtype.kind not in "iu":
        raise RuntimeError(f"{op}: expected target of class indices with dtype long, got {target.dtype}")  # fmt: skip
    rows = input.reshape(-1, input.shape[-1])
    if target.ndim > 1 or target.numel() != rows.shape[0]:
        raise RuntimeError(
            f"{op}: inconsistent target size, expected {rows.shape[0]} class ids for input "
            f"{tuple(input.shape)}, got target shape {tuple(target.shape)}"
        )
    _check_class_ids(op, target.array, rows.shape[1])
    return rows, target.reshape(-1)


def _check_class_ids(op: str, ids: Any, num_classes: int) -> None:
    """Class ids outside 0..num_classes-1 are a RuntimeError for the margin losses, as in
    PyTorch (an IndexError for cross_entropy)."""
    try:
        _check_index_range(op, ids, num_classes, f"{num_classes} classes", None)
    except IndexError as error:
        raise RuntimeError(str(error)) from None


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average: Any = None,
                      reduce: Any = None, reduction: str = "mean") -> Tensor:  # fmt: skip
    """Multi-class hinge: for each sample, the sum over the classes i other than its class
    y of max(0, margin - x[y] + x[i])^p, divided by the number of classes C; ``weight`` (C,)
    scales each sample by weight[y]. At the kink the gradient is 0, as in PyTorch."""
    input, target, weight = autocast_inputs("multi_margin_loss", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction, "multi_margin_loss")
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: only p == 1 and p == 2 supported, got p={p}")
    if weight is not None and weight.ndim != 1:
        raise ValueError(f"multi_margin_loss: weight must be one-dimensional, got shape {tuple(weight.shape)}")  # fmt: skip
    if weight is not None and weight.requires_grad:  # PyTorch has no gradient for it either
        raise RuntimeError("multi_margin_loss: a weight that requires grad is not supported")
    if _check_tensor(input, "multi_margin_loss").ndim == 0:  # one class, as in PyTorch
        input = input.reshape(1)
    rows, classes = _class_rows(input, target, "multi_margin_loss")
    num_classes = rows.shape[1]
    own = classes.unsqueeze(1)
    hinge = relu(margin - _functional.gather(rows, 1, own) + rows)  # relu: gradient 0 at 0
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        hinge = hinge * weight[classes].unsqueeze(1)
    others = own != _arange(num_classes, device=rows.device)  # not the own class
    losses = _functional.where(others, hinge, 0.0).sum(1) / num_classes
    out_shape = tuple(target.shape) if input.ndim == 1 else (rows.shape[0],)
    return _reduce(losses.reshape(out_shape), reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None,
                           reduce: Any = None, reduction: str = "mean") -> Tensor:  # fmt: skip
    """Multi-label hinge: target (C,) or (N, C) lists each sample's classes, ended by the
    first -1; the loss is the sum over its classes j and the other classes i of
    max(0, 1 - (x[j] - x[i])), divided by C. At the kink the gradient is 0, as in PyTorch."""
    input, target = autocast_inputs("multilabel_margin_loss", input, target)
    op = "multilabel_margin_loss"
    reduction = _reduction(size_average, reduce, reduction, op)
    _floating_only(input, op)
    _check_tensor(target, op, "target")
    if input.ndim == 0 and target.ndim == 0:  # one class, as in PyTorch
        input, target = input.reshape(1), target.reshape(1)
    if input.ndim not in (1, 2) or input.shape[-1] == 0 or target.shape != input.shape:
        raise RuntimeError(
            f"{op}: expected a non-empty vector or matrix (N, C) input and a target of the "
            f"same shape, got input {tuple(input.shape)} and target {tuple(target.shape)}"
        )
    if target.dtype is not _dtypes.int64:
        raise RuntimeError(f"{op}: expected target of class indices with dtype long, got {target.dtype}")  # fmt: skip
    rows, labels = input.reshape(-1, input.shape[-1]), target.array.reshape(-1, input.shape[-1])
    num_classes = rows.shape[1]
    xp = backend.xp_of(labels)
    listed = xp.cumprod(labels != -1, axis=1).astype(bool)  # (N, C): before the first -1
    safe = xp.where(listed, labels, 0)  # the unlisted entries (from the first -1 on) as 0
    _check_class_ids(op, safe, num_classes)
    # is_label[n, i]: class i is among sample n's classes
    is_label = ((safe[:, :, None] == xp.arange(num_classes)) & listed[:, :, None]).any(1)
    picked = _functional.gather(rows, 1, Tensor._make(safe))  # (N, C): x[j] for each listed j
    hinge = relu(1 - picked.unsqueeze(2) + rows.unsqueeze(1))  # (N, j, i)
    counted = Tensor._make(listed[:, :, None] & ~is_label[:, None, :])
    losses = _functional.where(counted, hinge, 0.0).sum((1, 2)) / num_classes
    return _reduce(losses.reshape(tuple(input.shape[:-1])), reduction)


def _check_triplet_broadcast(op: str, anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    """anchor and each of positive and negative must broadcast, as pairwise_distance needs
    (the error names the loss and the pair)."""
    for name, other in (("positive", positive), ("negative", negative)):
        _functional._check_broadcast(anchor.shape, other.shape, f"{op} (anchor and {name})")


def _triplet_loss(anchor: Tensor, positive: Tensor, negative: Tensor, distance: Any,
                  margin: float, swap: bool, reduction: str) -> Tensor:  # fmt: skip
    """max(0, margin + d(anchor, positive) - d(anchor, negative)); with ``swap``, the
    negative's distance is the smaller of d(anchor, negative) and d(positive, negative)."""
    to_negative = distance(anchor, negative)
    if swap:
        to_negative = _functional.minimum(to_negative, distance(positive, negative))
    return _reduce((margin + distance(anchor, positive) - to_negative).clamp(min=0), reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:  # fmt: skip
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with d the
    pairwise_distance of order p (eps added to the difference); ``swap`` measures the
    negative from whichever of anchor and positive is closer. The gradient passes at 0."""
    anchor, positive, negative = autocast_inputs("triplet_margin_loss", anchor, positive, negative)
    reduction = _reduction(size_average, reduce, reduction, "triplet_margin_loss")
    _check_same_ndim("triplet_margin_loss", anchor=anchor, positive=positive, negative=negative)
    if margin <= 0:
        raise ValueError(f"triplet_margin_loss: margin must be greater than 0, got {margin}")
    _check_triplet_broadcast("triplet_margin_loss", anchor, positive, negative)

    def distance(a: Tensor, b: Tensor) -> Tensor:
        return pairwise_distance(a, b, p, eps)

    return _triplet_loss(anchor, positive, negative, distance, margin, swap, reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Any = None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean") -> Tensor:  # fmt: skip
    """triplet_margin_loss with any ``distance_function(x1, x2)`` (default:
    pairwise_distance)."""
    op = "triplet_margin_with_distance_loss"
    reduction = _reduction(None, None, reduction, op)
    if margin <= 0:
        raise ValueError(f"{op}: margin must be greater than 0, got {margin}")
    _check_same_ndim(op, anchor=anchor, positive=positive, negative=negative)
    if distance_function is None:  # (a given one may take any shapes)
        _check_triplet_broadcast(op, anchor, positive, negative)
    distance = pairwise_distance if distance_function is None else distance_function
    return _triplet_loss(anchor, positive, negative, distance, margin, swap, reduction)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:  # fmt: skip
    """Connectionist temporal classification loss: -log of the probability of each target
    summed over its alignments to the frames of log_probs (T, N, C), or unbatched (T, C).
    targets: padded (N, S) or concatenated 1-D; the lengths: tensors or sequences of ints.
    "mean" divides each loss by its target length (at least 1), then averages. The gradient
    is PyTorch's, the one of logits whose log_softmax log_probs is (see ops/ctc.py): feed
    log_softmax's output, as PyTorch asks."""
    op = "ctc_loss"
    (log_probs,) = autocast_inputs("ctc_loss", log_probs)
    reduction = _reduction(None, None, reduction, op)
    if not _check_tensor(log_probs, op, "log_probs").dtype.is_floating_point:
        raise NotImplementedError(  # (PyTorch's ctc kernel exists for floats only)
            f"{op}: log_probs must be floating point, got {log_probs.dtype}; use .float()"
        )
    _check_tensor(targets, op, "targets")
    if log_probs.ndim not in (2, 3):
        raise ValueError(
            f"{op}: log_probs must be (T, N, C) or unbatched (T, C), got shape "
            f"{tuple(log_probs.shape)}"
        )
    if log_probs.numel() == 0:
        raise RuntimeError(f"{op}: log_probs tensor must not be empty")
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs, targets = log_probs.unsqueeze(1), targets.reshape(1, -1)
    T, N, C = log_probs.shape
    input_lengths = _ctc_lengths(input_lengths, N, "input_lengths")
    target_lengths = _ctc_lengths(target_lengths, N, "target_lengths")
    if not 0 <= blank < C:
        raise RuntimeError(f"{op}: blank ({blank}) must be in the label range [0, {C})")
    if builtins.any(n < 0 or n > T for n in input_lengths):
        raise RuntimeError(f"{op}: input_lengths must be in [0, {T}] (the frames), got "
                           f"{input_lengths}")  # fmt: skip
    if builtins.any(n < 0 for n in target_lengths):
        raise RuntimeError(f"{op}: target_lengths must be at least 0, got {target_lengths}")
    padded = _ctc_padded_targets(targets, target_lengths, log_probs.device)
    xp = backend.xp_of(padded.array)
    inside = xp.arange(padded.shape[1])[None, :] < xp.asarray(target_lengths)[:, None]
    labels = xp.where(inside, padded.array, 0)  # (PyTorch reads past the classes; we refuse)
    _check_index_range(op, labels, C, f"log_probs with {C} classes", None)
    lengths = [
        _functional.as_tensor_like(v, log_probs).long() for v in (input_lengths, target_lengths)
    ]
    losses = _ctc.CTCLoss.apply(log_probs, padded, *lengths, blank=blank,
                                zero_infinity=zero_infinity)  # fmt: skip
    if reduction == "sum":
        return losses.sum()
    if reduction == "mean":
        return (losses / lengths[1].clamp(min=1).to(losses.dtype)).mean()
    return losses.squeeze(0) if unbatched else losses


def _ctc_lengths(lengths: Any, batch: int, name: str) -> list[int]:
    """ctc_loss's input_lengths or target_lengths (a tensor, a sequence of ints or, unbatched,
    one int) as a list of batch ints."""
    if isinstance(lengths, Tensor):
        if lengths.dtype.is_floating_point or lengths.dtype is _dtypes.bool:
            raise RuntimeError(f"ctc_loss: {name} must be integers, got {lengths.dtype}")
        lengths = lengths.reshape(-1).tolist()
    elif isinstance(lengths, int):
        lengths = [lengths]
    else:
        lengths = [operator.index(n) for n in lengths]
    if len(lengths) != batch:
        raise RuntimeError(f"ctc_loss: {name} must be of size batch_size ({batch}), got "
                           f"{len(lengths)} values")  # fmt: skip
    return lengths


def _ctc_padded_targets(targets: Tensor, target_lengths: list[int], device: Any) -> Tensor:
    """The targets as (N, S) int64: padded ones as they are, concatenated 1-D ones cut at
    the target lengths and padded with 0."""
    targets = targets.to(device=device, dtype=_dtypes.int64)
    if targets.ndim == 2:
        if targets.shape[0] != len(target_lengths):
            raise RuntimeError(
                f"ctc_loss: padded targets must be (N, S) with N = {len(target_lengths)}, got "
                f"shape {tuple(targets.shape)}"
            )
        if builtins.any(n > targets.shape[1] for n in target_lengths):
            raise RuntimeError(
                f"ctc_loss: target_lengths {target_lengths} must be at most the padded "
                f"targets' length {targets.shape[1]}"
            )
        return targets
    if targets.ndim != 1 or targets.shape[0] < sum(target_lengths):
        raise RuntimeError(
            f"ctc_loss: concatenated targets must be 1-D with at least sum(target_lengths) = "
            f"{sum(target_lengths)} labels, got shape {tuple(targets.shape)}"
        )
    xp = backend.xp_of(targets.array)
    width = builtins.max(target_lengths, default=0)
    starts = [0]
    for n in target_lengths[:-1]:
        starts.append(starts[-1] + n)
    position = xp.asarray(starts)[:, None] + xp.arange(width)[None, :]
    inside = xp.arange(width)[None, :] < xp.asarray(target_lengths)[:, None]
    flat = targets.array if targets.shape[0] else xp.zeros(1, dtype="int64")
    picked = flat[xp.where(inside, position, 0)]
    return Tensor._make(xp.where(inside, picked, 0).astype("int64"))


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """(..., num_classes) int64: 1 at each class index, 0 elsewhere. num_classes=-1: one
    more than the largest index."""
    _check_tensor(tensor, "one_hot")
    if tensor.dtype is not _dtypes.int64:
        raise RuntimeError(
            f"one_hot: expects an index tensor of dtype long (int64), got {tensor.dtype}; "
            "convert with .long()"
        )
    xp = backend.xp_of(tensor.array)
    (num_classes,) = whole_numbers((num_classes,), "one_hot", "num_classes")
    if num_classes < 0:
        if tensor.array.size == 0:
            raise RuntimeError("one_hot: can not infer the number of classes of an empty tensor")
        num_classes = int(tensor.array.max()) + 1
    what = f"one_hot with num_classes={num_classes}"
    # (RuntimeError here, as in PyTorch; embedding and the losses raise IndexError)
    _check_index_range("one_hot", tensor.array, num_classes, what, None, RuntimeError)
    return Tensor._make((tensor.array[..., None] == xp.arange(num_classes)).astype("int64"))


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, *,
                                 scale: float | None = None, enable_gqa: bool = False) -> Tensor:  # fmt: skip
    """softmax(Q K^T * scale + mask) V over the last two dims, as one fused op.

    query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev).
    A boolean ``attn_mask`` marks the positions allowed to take part (True); a float mask
    is added to the scores. ``is_causal`` masks future positions (top-left aligned).
    ``scale`` defaults to 1/sqrt(E). A query the mask lets see no key (all False, or all
    -inf) gets output 0 and gradient 0, as in PyTorch (softmax alone would give nan).
    ``enable_gqa`` (grouped-query attention): key and value may have fewer heads (dim -3)
    than query, each a divisor of query's; each of their heads then serves that many
    query heads in a row."""
    query, key, value, attn_mask = autocast_inputs(
        "scaled_dot_product_attention", query, key, value, attn_mask
    )
    for name, t in (("query", query), ("key", key), ("value", value)):
        _check_tensor(t, "scaled_dot_product_attention", name)
    q_shape, k_shape, v_shape = tuple(query.shape), tuple(key.shape), tuple(value.shape)
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(
            f"scaled_dot_product_attention: query, key and value need at least 2 dims, got "
            f"{q_shape}, {k_shape}, {v_shape}"
        )
    if q_shape[-1] != k_shape[-1] or k_shape[-2] != v_shape[-2]:
        raise RuntimeError(
            f"scaled_dot_product_attention: query {q_shape}, key {k_shape} and value {v_shape} "
            "do not fit: query and key need the same last dim, key and value the same "
            "sequence length (dim -2)"
        )
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "scaled_dot_product_attention: pass either attn_mask or is_causal, not both"
        )
    if enable_gqa and query.ndim >= 3:
        key = _repeat_heads(key, q_shape[-3], "key")
        value = _repeat_heads(value, q_shape[-3], "value")
        k_shape, v_shape = tuple(key.shape), tuple(value.shape)
    for batch in (k_shape[:-2], v_shape[:-2]):
        for x, y in zip(reversed(q_shape[:-2]), reversed(batch)):
            if x != y and x != 1 and y != 1:
                raise RuntimeError(
                    f"scaled_dot_product_attention: the batch dims of query {q_shape}, key "
                    f"{k_shape} and value {v_shape} (all but the last two) cannot be broadcast "
                    "together; for key and value with fewer heads than query pass "
                    "enable_gqa=True"
                )
    mask_array = None
    if attn_mask is not None:
        if attn_mask.device != query.device:
            raise RuntimeError(
                f"scaled_dot_product_attention: attn_mask is on {attn_mask.device} but query is on "
                f"{query.device}"
            )
        scores_shape = q_shape[:-1] + (k_shape[-2],)  # (..., L, S)
        what = "scaled_dot_product_attention: attn_mask"
        _check_broadcasts_to(scores_shape, tuple(attn_mask.shape), what, "the scores' shape")
        mask_array = attn_mask.array
        if mask_array.dtype != bool and not attn_mask.dtype.is_floating_point:
            raise RuntimeError(
                f"scaled_dot_product_attention: attn_mask must be bool (True: may attend) or "
                f"floating point (added to the scores), got {attn_mask.dtype}"
            )
        if mask_array.dtype != bool:
            mask_array = mask_array.astype(query.array.dtype, copy=False)
    q, k, v = query, key, value
    if not (q.dtype is k.dtype is v.dtype):
        raise RuntimeError(
            f"scaled_dot_product_attention: query, key and value must have the same dtype, got "
            f"{q.dtype}, {k.dtype}, {v.dtype}"
        )
    if not q.dtype.is_floating_point:
        raise RuntimeError(
            f"scaled_dot_product_attention: query, key and value must be floating point, got "
            f"{q.dtype}; convert them with .float()"
        )
    if not 0.0 <= dropout_p <= 1.0:  # (a RuntimeError here in PyTorch, unlike F.dropout's)
        raise RuntimeError(
            f"scaled_dot_product_attention: dropout_p has to be between 0 and 1, got {dropout_p}"
        )
    if dropout_p == 1.0:  # every attention weight dropped
        return scaled_dot_product_attention(q, k, v, attn_mask, 0.0, is_causal, scale=scale) * 0.0
    if k_shape[-2] == 0:  # no keys at all: output 0 and gradients 0, as in PyTorch
        return (q @ k.transpose(-2, -1)) @ v
    scale = 1.0 / math.sqrt(q_shape[-1]) if scale is None else float(scale)
    if attn_mask is not None and attn_mask.requires_grad:
        return _attention_with_learned_mask(q, k, v, attn_mask, float(dropout_p), scale)
    return _attention.ScaledDotProductAttention.apply(
        q, k, v, attn_mask=mask_array, dropout_p=float(dropout_p), is_causal=is_causal,
        scale=scale,
    )  # fmt: skip


def _attention_with_learned_mask(q: Tensor, k: Tensor, v: Tensor, mask: Tensor, dropout_p: float,
                                 scale: float) -> Tensor:  # fmt: skip
    """softmax(q k^T * scale + mask) v from ordinary ops, for a float mask that requires
    grad (a learned bias, e.g. of relative positions), which then gets its gradient. A query
    whose scores are all -inf gets output 0 and gradient 0, as in the fused op."""
    scores = (q @ k.transpose(-2, -1)) * scale + mask.to(q.dtype)
    sees_nothing = _functional.isneginf(scores).all(dim=-1, keepdim=True)
    weights = _functional.softmax(_functional.where(sees_nothing, 0.0, scores), dim=-1)
    return dropout(_functional.where(sees_nothing, 0.0, weights), dropout_p) @ v


def _repeat_heads(t: Tensor, query_heads: int, name: str) -> Tensor:
    """Grouped-query attention: each of ``t``'s heads (dim -3) repeated for the
    ``query_heads // heads`` query heads it serves, (..., H, S, E) -> (..., query_heads, S, E)."""
    if t.ndim < 3 or query_heads % t.shape[-3]:
        raise RuntimeError(
            f"scaled_dot_product_attention with enable_gqa=True: {name} {tuple(t.shape)} needs "
            f"a heads dim (-3) whose size divides query's {query_heads} heads"
        )
    heads = t.shape[-3]
    return t if heads == query_heads else t.repeat_interleave(query_heads // heads, dim=-3)


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant",
        value: float | None = None) -> Tensor:  # fmt: skip
    """Pad with ``value`` (mode="constant"), the mirror image without the edge ("reflect"),
    the edge value ("replicate") or the other end ("circular"); ``pad`` lists (left, right)
    pairs starting from the last dim. A negative width takes that many elements away
    instead, as in PyTorch."""
    if mode == "reflect":
        (input,) = autocast_inputs("reflection_pad", input)
    elif mode == "replicate":
        (input,) = autocast_inputs("replication_pad", input)
    from .. import functional as F

    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(
            f"pad: Unrecognised padding mode {mode} (constant, reflect, replicate or circular)"
        )
    pad = tuple(pad)
    if mode != "constant":
        return _pad_by_index(input, pad, mode, value)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise RuntimeError(
            f"pad: {pad} must be (left, right) pairs, at most one per dim, from the last; the "
            f"input has shape {tuple(input.shape)}"
        )
    fill = _pad_value(value, input.dtype)
    out = input
    for i in range(len(pad) // 2):
        dim = input.ndim - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        if left < 0 or right < 0:  # take elements away first
            start, stop = builtins.max(-left, 0), out.shape[dim] - builtins.max(-right, 0)
            if stop < start:
                raise RuntimeError(
                    f"pad: {pad} takes more than the {out.shape[dim]} elements of dim {dim} "
                    f"away (input shape {tuple(input.shape)})"
                )
            out = F.narrow(out, dim, start, stop - start)
        if left > 0 or right > 0:
            parts = []
            for width in (builtins.max(left, 0), builtins.max(right, 0)):
                shape = list(out.shape)
                shape[dim] = width
                filled = backend.xp_of(out.array).full(shape, fill, dtype=out.array.dtype)
                parts.append(Tensor._make(filled))
            out = F.cat([parts[0], out, parts[1]], dim)
    return out


def _pad_value(value: float | None, dtype: Any) -> Any:
    """The number constant padding writes, refused as in PyTorch when ``dtype`` cannot hold
    it (an integer beyond the dtype's range, nan or inf into integers, a float beyond the
    dtype's largest) rather than wrapped around or overflowed to inf."""
    value = 0 if value is None else value
    if dtype is _dtypes.bool:
        return value
    if dtype.is_floating_point:
        fits = not math.isfinite(value) or abs(value) <= _dtypes.finfo(dtype).max
    else:
        info = _dtypes.iinfo(dtype)
        fits = math.isfinite(value) and info.min <= int(value) <= info.max
    if not fits:
        raise RuntimeError(
            f"pad: value {value} cannot be converted to type {dtype} without overflow"
        )
    return value


def _pad_by_index(input: Tensor, pad: tuple, mode: str, value: float | None) -> Tensor:
    """reflect / replicate / circular padding: along each padded dim of size n, the output
    reads input positions -left ... n - 1 + right mapped back into [0, n) (circular: into
    what negative widths leave of it), one index_select per dim (its backward adds the
    gradients of repeated positions)."""
    if value is not None:
        raise RuntimeError(f'pad: Padding mode "{mode}" doesn\'t take in value argument')
    if mode != "circular" and input.dtype is _dtypes.bool:  # PyTorch has no bool kernel
        raise NotImplementedError(
            f"pad: mode={mode!r} is not implemented for bool tensors, as in PyTorch; convert "
            "the input with .to(torch.uint8) first"
        )
    dims = len(pad) // 2
    if len(pad) % 2 or not 1 <= dims <= 3 or input.ndim not in (dims + 1, dims + 2):
        raise NotImplementedError(
            f"pad: padding size {len(pad)} is not supported for {input.ndim}D input tensor with "
            f"mode={mode!r}: pad the last dim of a 2D or 3D input with 2 values, the last 2 of "
            "a 3D or 4D input with 4, the last 3 of a 4D or 5D input with 6"
        )
    if mode != "circular" and 0 in input.shape[-(dims + 1) :]:  # (N, C, *S): only N may be 0
        raise RuntimeError(
            f"pad: mode={mode!r} expects a tensor whose dims other than the batch dim are "
            f"non-zero, but got input of shape {list(input.shape)}"
        )
    sizes = [input.shape[-1 - i] + pad[2 * i] + pad[2 * i + 1] for i in range(dims)]
    xp = backend.xp_of(input.array)
    out = input
    for i in range(dims):
        dim = input.ndim - 1 - i
        n, left, right = input.shape[dim], pad[2 * i], pad[2 * i + 1]
        if mode == "circular":  # PyTorch crops the negative widths first, then wraps
            cut = builtins.max(-left, 0)
            kept = n - cut - builtins.max(-right, 0)  # what is left to wrap around
            too_small = sizes[i] < 0 or (kept <= 0 and sizes[i] > 0)  # empty is fine
        else:  # PyTorch's kernels: no negative size, and not all the padded dims empty
            kept = n
            too_small = sizes[i] < 0 or not any(sizes)
        if too_small:
            raise RuntimeError(
                f"pad: padding ({left}, {right}) at dimension {dim} of input "
                f"{list(input.shape)} takes away more than mode={mode!r} allows (the output "
                f"would have {sizes[i]} elements, {kept} of them from the input)"
            )
        # circular: at most what the negative widths leave, so that it wraps around once
        # (PyTorch raises, or reads memory it never wrote, when a width is wider)
        widest = builtins.max(left, right)
        too_wide = {"reflect": widest >= n, "replicate": n == 0,
                    "circular": sizes[i] > 0 and widest > kept}[mode]  # fmt: skip
        if too_wide:
            raise RuntimeError(
                f"pad: padding ({left}, {right}) at dimension {dim} of input "
                f"{list(input.shape)} is too wide for mode={mode!r} (reflect: less than the "
                "dim's size; circular: at most the size left after negative widths, as "
                "wrapping around more than once is refused; replicate: a non-empty dim)"
            )
        if mode == "circular":  # -1 -> kept - 1, kept -> 0
            stop = kept + builtins.max(right, 0)
            positions = cut + xp.arange(-builtins.max(left, 0), stop) % kept
        else:
            positions = xp.arange(-left, n + right)
        if mode == "reflect":  # -1 -> 1, n -> n - 2
            positions = (n - 1) - xp.abs((n - 1) - xp.abs(positions))
        elif mode == "replicate":  # -1 -> 0, n -> n - 1
            positions = xp.clip(positions, 0, n - 1)
        out = _functional.index_select(out, dim, Tensor._make(positions))
    return out


# ---------------------------------------------------------------- convolution and pooling
# Every sliding-window op takes its windows with ops/conv.py's Im2Col: (N, C, *S) ->
# (N, C, *K, *O). A convolution is then one matmul with the weight, an average pool a sum
# over the kernel dims; autograd chains their backwards (col2im, matmul, sum).
def _ntuple(value: Any, n: int, op: str, name: str) -> tuple:
    """An int, or a sequence of 1 or n ints, as a tuple of n ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    values = tuple(value)
    if len(values) == 1:
        values *= n
    if len(values) != n or not all(isinstance(v, int) for v in values):
        raise RuntimeError(
            f"{op}: expected {name} to be a single integer value or a list of {n} values, but "
            f"got {name}={list(values)}"
        )
    return values


def _check_positive(op: str, **sizes: tuple) -> None:
    """kernel_size, stride, dilation (those given) at least 1 in every dim, as PyTorch's
    sliding-window ops require (0 would divide by zero, or give empty windows)."""
    for name, values in sizes.items():
        if any(v < 1 for v in values):
            raise RuntimeError(
                f"{op}: {name} should be greater than zero, but got {name}={list(values)}"
            )


def _batched(input: Tensor, spatial: int, op: str) -> tuple[Tensor, bool]:
    """(input with a batch dim, whether one was added): (C, *S) or (N, C, *S) accepted."""
    _check_tensor(input, op)
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"{op}: expected {spatial + 1}-D (unbatched) or {spatial + 2}-D (batched) input, "
            f"but got input of size: {list(input.shape)}"
        )
    return (input.unsqueeze(0), True) if input.ndim == spatial + 1 else (input, False)


def _conv_padding(padding: Any, kernel: tuple, dilation: tuple, stride: tuple, op: str) -> tuple:
    """(lo, hi) zero padding per spatial dim from an int, a tuple, "valid" or "same". "same"
    pads d*(k-1) in all, the odd one on the right (an even kernel), as PyTorch does."""
    n = len(kernel)
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * n
        if padding != "same":
            raise RuntimeError(f"{op}: Invalid padding string: {padding!r} ('valid' or 'same')")
        if any(s != 1 for s in stride):
            raise RuntimeError(f"{op}: padding='same' is not supported for strided convolutions")
        return tuple((d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2)
                     for k, d in zip(kernel, dilation))  # fmt: skip
    pads = _ntuple(padding, n, op, "padding")
    if any(p < 0 for p in pads):
        raise RuntimeError(f"{op}: negative padding is not supported, got padding={list(pads)}")
    return tuple((p, p) for p in pads)


def _check_windows_fit(input: Tensor, kernel: tuple, dilation: tuple, padding: tuple,
                       op: str) -> None:  # fmt: skip
    padded = tuple(n + lo + hi for n, (lo, hi) in zip(input.shape[2:], padding))
    reach = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if any(p < r for p, r in zip(padded, reach)):
        raise RuntimeError(
            f"{op}: Calculated padded input size per channel: {padded}. Kernel size: {reach}. "
            f"Kernel size can't be greater than actual input size (input {tuple(input.shape)})"
        )


def _check_conv_weight(x: Tensor, weight: Tensor, bias: Tensor | None, groups: int,
                       spatial: int, op: str, transposed: bool = False) -> int:  # fmt: skip
    """The weight (C_out, C_in/groups, *K), or (C_in, C_out/groups, *K) for a transposed
    conv, fits the batched input x (N, C_in, *S), groups and the bias (C_out,); returns
    C_out."""
    _check_tensor(weight, op, "weight")
    layout = (
        "in_channels, out_channels/groups" if transposed else "out_channels, in_channels/groups"
    )
    if weight.ndim != spatial + 2:
        raise RuntimeError(
            f"{op}: expected weight to be {spatial + 2}-D ({layout}, *kernel_size), but got "
            f"weight of size {list(weight.shape)}"
        )
    if weight.shape[1 if transposed else 0] == 0:  # no output channels: PyTorch refuses it
        raise RuntimeError(
            f"{op}: expected weight of size {list(weight.shape)} to have at least 1 "
            f"{'output channel per group at dimension 1' if transposed else 'at dimension 0'}"
        )
    # the dim of the weight that groups splits, and the input channels it expects
    split, in_channels = (weight.shape[0],) * 2 if transposed else weight.shape[:2]
    if groups < 1 or split % groups:
        raise RuntimeError(
            f"{op}: {'in' if transposed else 'out'}_channels {split} of weight "
            f"{list(weight.shape)} must be divisible by groups={groups}"
        )
    if not transposed:
        in_channels *= groups
    if x.shape[1] != in_channels:
        raise RuntimeError(
            f"{op}: Given groups={groups}, weight of size {list(weight.shape)}, expected "
            f"input{list(x.shape)} to have {in_channels} channels, but got {x.shape[1]} "
            "channels instead"
        )
    out_channels = weight.shape[1] * groups if transposed else weight.shape[0]
    if bias is not None and tuple(bias.shape) != (out_channels,):
        raise RuntimeError(
            f"{op}: bias of shape {tuple(bias.shape)} does not match weight {list(weight.shape)}"
            f" (expected ({out_channels},))"
        )
    _check_same_dtype(op, x, weight, bias)
    return out_channels


def _conv(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
          dilation: Any, groups: int, spatial: int, op: str) -> Tensor:  # fmt: skip
    """The N-d convolution (cross-correlation, as PyTorch) of conv1d, conv2d and conv3d."""
    x, unbatched = _batched(input, spatial, op)
    out_channels = _check_conv_weight(x, weight, bias, groups, spatial, op)
    group_in, kernel = weight.shape[1], tuple(weight.shape[2:])
    stride = _ntuple(stride, spatial, op, "stride")
    dilation = _ntuple(dilation, spatial, op, "dilation")
    _check_positive(op, kernel_size=kernel, stride=stride, dilation=dilation)
    pads = _conv_padding(padding, kernel, dilation, stride, op)
    _check_windows_fit(x, kernel, dilation, pads, op)
    n = x.shape[0]
    cols = _conv_ops.Im2Col.apply(x, kernel=kernel, dilation=dilation, padding=pads, stride=stride)
    out_size = tuple(cols.shape[2 + spatial :])
    # (N, C, *K, *O) -> (N, G, C/G * prod(K), prod(O)); weight -> (G, Cout/G, C/G * prod(K))
    cols = cols.reshape(n, groups, group_in * math.prod(kernel), math.prod(out_size))
    w = weight.reshape(groups, out_channels // groups, group_in * math.prod(kernel))
    out = _functional.matmul(w, cols).reshape((n, out_channels) + out_size)  # (N, Cout, *O)
    if bias is not None:
        out = out + bias.reshape((out_channels,) + (1,) * spatial)
    return out.squeeze(0) if unbatched else out


def _rounded_once_conv(conv: Callable[..., Tensor], input: Tensor, weight: Tensor,
                       bias: Tensor | None, *args: Any) -> Tensor:  # fmt: skip
    """conv(input, weight, bias, *args); float16 computed in float32, the bias included,
    and rounded once (gradients too), as PyTorch's convolution kernels: rounding the product
    and then the sum with the bias was an ulp off in a quarter of the entries."""
    if bias is None:
        return _rounded_once(lambda x, w: conv(x, w, None, *args), input, weight)
    return _rounded_once(lambda x, w, b: conv(x, w, b, *args), input, weight, bias)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """1-d cross-correlation: input (N, C_in, L) or (C_in, L), weight (C_out, C_in/groups, k),
    bias (C_out,) -> (N, C_out, L_out)."""
    input, weight, bias = autocast_inputs("conv1d", input, weight, bias)
    return _rounded_once_conv(_conv, input, weight, bias, stride, padding, dilation, groups,
                              1, "conv1d")  # fmt: skip


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """2-d cross-correlation: input (N, C_in, H, W) or (C_in, H, W), weight
    (C_out, C_in/groups, kH, kW), bias (C_out,) -> (N, C_out, H_out, W_out)."""
    input, weight, bias = autocast_inputs("conv2d", input, weight, bias)
    return _rounded_once_conv(_conv, input, weight, bias, stride, padding, dilation, groups,
                              2, "conv2d")  # fmt: skip


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    """3-d cross-correlation: input (N, C_in, D, H, W) or (C_in, D, H, W), weight
    (C_out, C_in/groups, kD, kH, kW), bias (C_out,) -> (N, C_out, D_out, H_out, W_out)."""
    input, weight, bias = autocast_inputs("conv3d", input, weight, bias)
    return _rounded_once_conv(_conv, input, weight, bias, stride, padding, dilation, groups,
                              3, "conv3d")  # fmt: skip


def _conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
                    padding: Any, output_padding: Any, groups: int, dilation: Any, spatial: int,
                    op: str) -> Tensor:  # fmt: skip
    """The N-d transposed convolution: the gradient of a convolution with respect to its
    input, as a map of its own. Each input position spreads weight-times-value over a
    kernel-sized window of the output (W^T @ x gives those windows), and col2im adds the
    overlapping windows up: exactly the path a conv's backward takes (Im2Col's backward).
    Output size (I - 1) * s - 2p + d * (k - 1) + output_padding + 1 per dim."""
    x, unbatched = _batched(input, spatial, op)
    out_channels = _check_conv_weight(x, weight, bias, groups, spatial, op, transposed=True)
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        raise TypeError(f"{op}(): argument 'padding' must be tuple of ints, not str "
                        "(padding='same'/'valid' is for the non-transposed convs)")  # fmt: skip
    stride = _ntuple(stride, spatial, op, "stride")
    dilation = _ntuple(dilation, spatial, op, "dilation")
    pads = _ntuple(padding, spatial, op, "padding")
    extra = _ntuple(output_padding, spatial, op, "output_padding")
    _check_positive(op, kernel_size=kernel, stride=stride, dilation=dilation)
    if any(p < 0 for p in pads + extra):
        raise RuntimeError(f"{op}: negative padding or output_padding is not supported, got "
                           f"padding={list(pads)}, output_padding={list(extra)}")  # fmt: skip
    if any(e >= s and e >= d for e, s, d in zip(extra, stride, dilation)):
        raise RuntimeError(
            f"{op}: output padding must be smaller than either stride or dilation, but got "
            f"output_padding={list(extra)}, stride={list(stride)}, dilation={list(dilation)}"
        )
    in_size = tuple(x.shape[2:])
    out_size = tuple((i - 1) * s - 2 * p + d * (k - 1) + e + 1
                     for i, s, p, d, k, e in zip(in_size, stride, pads, dilation, kernel, extra))  # fmt: skip
    if any(o < 1 for o in out_size):
        raise RuntimeError(
            f"{op}: Given input size per channel: {list(in_size)}. Calculated output size per "
            f"channel: {list(out_size)}. Output size is too small (input {list(input.shape)}, "
            f"weight {list(weight.shape)})"
        )
    n, group_in, group_out = x.shape[0], weight.shape[0] // groups, weight.shape[1]
    # weight (Cin, Cout/G, *K) -> (G, Cout/G * prod(K), Cin/G); x -> (N, G, Cin/G, prod(I))
    w = weight.reshape(groups, group_in, group_out * math.prod(kernel)).transpose(1, 2)
    rows = x.reshape(n, groups, group_in, math.prod(in_size))
    cols = _functional.matmul(w, rows).reshape((n, out_channels) + kernel + in_size)
    # output_padding adds e positions at the high end: they take the place of the last e of
    # the p cropped there (a window may reach them); past the padding nothing reaches, zeros
    cropped = tuple((p, builtins.max(p - e, 0)) for p, e in zip(pads, extra))
    reached = tuple(o - builtins.max(e - p, 0) for o, p, e in zip(out_size, pads, extra))
    out = _conv_ops.Col2Im.apply(cols, size=reached, kernel=kernel, dilation=dilation,
                                 padding=cropped, stride=stride)  # fmt: skip
    if reached != out_size:
        out = pad(
            out, [w for r, o in zip(reversed(reached), reversed(out_size)) for w in (0, o - r)]
        )
    if bias is not None:
        out = out + bias.reshape((out_channels,) + (1,) * spatial)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    """1-d transposed convolution ("deconvolution"): input (N, C_in, L) or (C_in, L), weight
    (C_in, C_out/groups, k), bias (C_out,) -> (N, C_out, L_out)."""
    input, weight, bias = autocast_inputs("conv_transpose1d", input, weight, bias)
    return _rounded_once_conv(_conv_transpose, input, weight, bias, stride, padding,
                              output_padding, groups, dilation, 1, "conv_transpose1d")  # fmt: skip


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    """2-d transposed convolution: input (N, C_in, H, W) or (C_in, H, W), weight
    (C_in, C_out/groups, kH, kW), bias (C_out,) -> (N, C_out, H_out, W_out)."""
    input, weight, bias = autocast_inputs("conv_transpose2d", input, weight, bias)
    return _rounded_once_conv(_conv_transpose, input, weight, bias, stride, padding,
                              output_padding, groups, dilation, 2, "conv_transpose2d")  # fmt: skip


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    """3-d transposed convolution: input (N, C_in, D, H, W) or (C_in, D, H, W), weight
    (C_in, C_out/groups, kD, kH, kW), bias (C_out,) -> (N, C_out, D_out, H_out, W_out)."""
    input, weight, bias = autocast_inputs("conv_transpose3d", input, weight, bias)
    return _rounded_once_conv(_conv_transpose, input, weight, bias, stride, padding,
                              output_padding, groups, dilation, 3, "conv_transpose3d")  # fmt: skip


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """A 1-D convolution in (time, batch, channels) layout: input (T, N, C_in), weight
    (kernel, C_in, C_out), bias (C_out) -> (T_out, N, C_out), zero-padded by pad at both
    ends; conv1d with the dims moved."""
    for name, t, ndim in (("input", input, 3), ("weight", weight, 3), ("bias", bias, 1)):
        if not isinstance(t, Tensor) or t.ndim != ndim:
            got = f"shape {tuple(t.shape)}" if isinstance(t, Tensor) else type(t).__name__
            raise RuntimeError(f"conv_tbc: {name} must be a {ndim}-D tensor, got {got}")
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:  # fmt: skip
    """The sliding kH x kW blocks of (N, C, H, W) (or (C, H, W)) as columns:
    (N, C * kH * kW, L), L the number of block positions."""
    x, unbatched = _batched(input, 2, "unfold")
    if x.dtype is not _dtypes.bool:  # (PyTorch's im2col takes floats and bools only)
        _floating_only(x, "unfold")
    kernel = _ntuple(kernel_size, 2, "unfold", "kernel_size")
    dilation = _ntuple(dilation, 2, "unfold", "dilation")
    stride = _ntuple(stride, 2, "unfold", "stride")
    _check_positive("unfold", kernel_size=kernel, dilation=dilation, stride=stride)
    pads = tuple((p, p) for p in _ntuple(padding, 2, "unfold", "padding"))
    _check_windows_fit(x, kernel, dilation, pads, "unfold")
    cols = _conv_ops.Im2Col.apply(x, kernel=kernel, dilation=dilation, padding=pads, stride=stride)
    n, c = x.shape[:2]
    blocks = math.prod(cols.shape[4:])  # L = oH * oW
    out = cols.reshape(
        n, c * math.prod(kernel), blocks
    )  # (N, C, kH, kW, oH, oW) -> (N, C*kH*kW, L)
    return out.squeeze(0) if unbatched else out


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:  # fmt: skip
    """The inverse layout of unfold: columns (N, C * kH * kW, L) (or 2-D) summed back into
    (N, C, *output_size), overlapping blocks adding up."""
    if _check_tensor(input, "fold").dtype is not _dtypes.bool:  # (as unfold: floats, bools)
        _floating_only(input, "fold")
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"fold: expected 2-D or 3-D input (batch mode), but got input of size "
            f"{list(input.shape)}"
        )
    cols = input.unsqueeze(0) if input.ndim == 2 else input
    size = _ntuple(output_size, 2, "fold", "output_size")
    kernel = _ntuple(kernel_size, 2, "fold", "kernel_size")
    dilation = _ntuple(dilation, 2, "fold", "dilation")
    stride = _ntuple(stride, 2, "fold", "stride")
    _check_positive("fold", kernel_size=kernel, dilation=dilation, stride=stride)
    pads = tuple((p, p) for p in _ntuple(padding, 2, "fold", "padding"))
    blocks = tuple(
        _conv_ops.conv_out_size(n, k, d, lo, hi, s)
        for n, k, d, (lo, hi), s in zip(size, kernel, dilation, pads, stride)
    )
    n, ck, length = cols.shape
    if ck % math.prod(kernel) or length != math.prod(blocks):
        raise RuntimeError(
            f"fold: expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size {list(kernel)} and dimension 2 to match the {math.prod(blocks)} "
            f"blocks {list(blocks)} of output_size {list(size)}, but got input of size "
            f"{list(input.shape)}"
        )
    c = ck // math.prod(kernel)
    cols = cols.reshape((n, c) + kernel + blocks)  # (N, C, kH, kW, bH, bW)
    out = _conv_ops.Col2Im.apply(
        cols, size=size, kernel=kernel, dilation=dilation, padding=pads, stride=stride
    )
    return out.squeeze(0) if input.ndim == 2 else out


def _pool_size(size: int, kernel: int, pad: int, stride: int, ceil_mode: bool) -> int:
    """Windows along a dim; with ceil_mode a last partial window counts if it starts inside
    the input or its left padding."""
    span = size + 2 * pad - kernel
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _avg_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
              count_include_pad: bool, divisor_override: int | None, spatial: int,
              op: str) -> Tensor:  # fmt: skip
    """The mean of each window; the divisor counts the window's input elements (and its
    padding with count_include_pad, never the part past it that ceil_mode adds). float16 is
    summed and divided in float32, rounded once, as PyTorch's kernels (its float16 sums had
    1.7x PyTorch's error)."""
    if isinstance(input, Tensor) and input.dtype is _dtypes.float16:
        return _avg_pool(input.float(), kernel_size, stride, padding, ceil_mode,
                         count_include_pad, divisor_override, spatial, op).half()  # fmt: skip
    x, unbatched = _batched(input, spatial, op)
    if x.dtype is _dtypes.bool:  # (integers are averaged, bools not: as PyTorch's kernels)
        raise NotImplementedError(
            f"{op}: not implemented for bool tensors, as in PyTorch; use .float()"
        )
    kernel = _ntuple(kernel_size, spatial, op, "kernel_size")
    no_stride = stride is None or (isinstance(stride, (tuple, list)) and not stride)
    stride = kernel if no_stride else _ntuple(stride, spatial, op, "stride")  # () as torch.xxx
    _check_positive(op, kernel_size=kernel, stride=stride)
    pads = _ntuple(padding, spatial, op, "padding")
    if any(p < 0 or 2 * p > k for p, k in zip(pads, kernel)):
        raise RuntimeError(
            f"{op}: pad should be at most half of effective kernel size, but got pad={pads}, "
            f"kernel_size={kernel}"
        )
    if divisor_override is not None:
        if not isinstance(divisor_override, int) or isinstance(divisor_override, bool):
            raise TypeError(
                f"{op}(): argument 'divisor_override' must be int, not "
                f"{type(divisor_override).__name__}"
            )
        if divisor_override == 0:
            raise RuntimeError(f"{op}: divisor must be not zero")
    size = tuple(x.shape[2:])
    if 0 in x.shape[1:]:  # only the batch may be empty, as in PyTorch
        raise RuntimeError(
            f"{op}: expected an input whose dims other than the batch dim are non-zero, but "
            f"got input of size {list(input.shape)}"
        )
    if spatial == 3 and any(n < k for n, k in zip(size, kernel)):  # PyTorch's 3-d check
        raise RuntimeError(
            f"{op}: input image (D, H, W) = {size} is smaller than the kernel size {kernel} "
            f"(the padding is not counted in 3-d pooling; input {list(input.shape)})"
        )
    out = tuple(_pool_size(*a, ceil_mode) for a in zip(size, kernel, pads, stride))
    if any(o < 1 for o in out):
        raise RuntimeError(
            f"{op}: Given input size {list(x.shape)}, kernel_size {kernel}, stride {stride} "
            f"and padding {pads}, the calculated output size {out} is too small"
        )
    extra = tuple(max(0, (o - 1) * s + k - (n + 2 * p))
                  for o, s, k, n, p in zip(out, stride, kernel, size, pads))  # fmt: skip
    geometry = dict(kernel=kernel, dilation=(1,) * spatial, stride=stride)
    windows = _conv_ops.Im2Col.apply(
        x, padding=tuple((p, p + e) for p, e in zip(pads, extra)), **geometry
    )
    sums = windows.sum(tuple(range(2, 2 + spatial)), dtype=_functional._own_dtype(windows))
    if divisor_override is not None:
        divisor: Any = divisor_override
    else:  # how many counted elements each window covers: the windows of a mask of ones
        xp = backend.xp_of(x.array)
        if count_include_pad:
            ones = xp.ones((1, 1) + tuple(n + 2 * p for n, p in zip(size, pads)), x.array.dtype)
            counting = tuple((0, e) for e in extra)
        else:
            ones = xp.ones((1, 1) + size, dtype=x.array.dtype)
            counting = tuple((p, p + e) for p, e in zip(pads, extra))
        counts = _conv_ops.im2col(ones, padding=counting, **geometry)
        divisor = Tensor._make(counts.sum(axis=tuple(range(2, 2 + spatial))))  # (1, 1, *O)
    if x.dtype.is_floating_point:
        out_t = sums / divisor
    else:  # integers stay integers, the quotient truncated as in PyTorch
        out_t = _functional.div(sums, divisor, rounding_mode="trunc")
    return out_t.squeeze(0) if unbatched else out_t


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:  # fmt: skip
    """The mean of each length-k window of (N, C, L) or (C, L), every ``stride`` (default k)
    steps, over the input zero-padded by ``padding`` on both sides."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1,
                     "avg_pool1d")  # fmt: skip


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:  # fmt: skip
    """The mean of each kH x kW window of (N, C, H, W) or (C, H, W); ``divisor_override``
    divides every window's sum by that number instead."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 2, "avg_pool2d")  # fmt: skip


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:  # fmt: skip
    """The mean of each kD x kH x kW window of (N, C, D, H, W) or (C, D, H, W)."""
    (input,) = autocast_inputs("avg_pool3d", input)
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 3, "avg_pool3d")  # fmt: skip


def _lp_pool(input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool,
             spatial: int, op: str) -> Tensor:  # fmt: skip
    """(sum over each window of x^p)^(1/p), as PyTorch computes it: the window mean of x^p
    times the kernel's size, a negative mean set to 0 keeping its sign (so an odd p over
    negative sums gives nan, as PyTorch's), then the 1/p power."""
    if math.isinf(norm_type):
        raise NotImplementedError(
            f"{op}: norm_type=inf is max pooling, which microtorch leaves for learners to "
            "write; use a finite norm_type"
        )
    kernel = _ntuple(kernel_size, spatial, op, "kernel_size")
    powers = input.pow(norm_type)
    if spatial == 3:  # PyTorch's goes through avg_pool3d: autocast as it does
        (powers,) = autocast_inputs("avg_pool3d", powers)
    means = _avg_pool(powers, kernel, stride, 0, ceil_mode, True, None, spatial, op)
    sums = _functional.sign(means) * _functional.relu(_functional.abs(means)) * math.prod(kernel)
    return sums.pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:  # fmt: skip
    """The p-norm of each length-k window of (N, C, L) or (C, L): (sum x^p)^(1/p)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, "lp_pool1d")


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:  # fmt: skip
    """The p-norm of each kH x kW window of (N, C, H, W) or (C, H, W)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, "lp_pool2d")


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:  # fmt: skip
    """The p-norm of each kD x kH x kW window of (N, C, D, H, W) or (C, D, H, W)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, "lp_pool3d")


def _adaptive_average_matrix(size: int, out: int, like: Tensor) -> Tensor:
    """(out, size): row i averages input positions floor(i*size/out) to ceil((i+1)*size/out)."""
    xp = backend.xp_of(like.array)
    i = xp.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    j = xp.arange(size)
    inside = (j >= start[:, None]) & (j < end[:, None])
    weights = inside / (end - start)[:, None]
    return Tensor._make(weights.astype(like.array.dtype))


def _adaptive_avg_pool(input: Tensor, output_size: Any, spatial: int, op: str) -> Tensor:
    """Average pooling to a given output size; the windows along each dim are independent,
    so it is a product with an averaging matrix along each spatial dim."""
    if spatial > 1 and isinstance(output_size, Sequence):  # (PyTorch's Python-level check)
        if _check_tensor(input, op).ndim <= len(output_size):
            raise ValueError(
                f"{op}: input must have at least {len(output_size) + 1} dims (channels and "
                f"{len(output_size)} spatial dims), got shape {tuple(input.shape)}"
            )
    x, unbatched = _batched(input, spatial, op)
    _floating_only(x, op)
    sizes = (output_size,) * spatial if not isinstance(output_size, Sequence) else output_size
    if len(sizes) != spatial:
        raise RuntimeError(f"{op}: output_size must be {spatial} values, got {output_size!r}")
    if spatial == 1 and sizes[0] is None:  # None (keep the size) is for the 2-d pool only
        raise TypeError(f"{op}: output_size must be an int or a tuple of one int, got None")
    sizes = tuple(n if s is None else _functional._int_argument(s, op, "output_size")
                  for s, n in zip(sizes, x.shape[2:]))  # fmt: skip
    if any(s < 0 for s in sizes) or any(n == 0 for n in x.shape[2:]):
        raise RuntimeError(
            f"{op}: expected a non-empty input and output_size >= 0, got input "
            f"{list(input.shape)} and output_size {output_size!r}"
        )
    matrices = [_adaptive_average_matrix(n, o, x) for n, o in zip(x.shape[2:], sizes)]
    out = _along_spatial_dims(x, matrices)
    return out.squeeze(0) if unbatched else out


def _along_spatial_dims(x: Tensor, matrices: list) -> Tensor:
    """(N, C, *S) -> (N, C, *O): each spatial dim d mapped by its (O_d, S_d) matrix (each
    output position a weighted sum of that dim's input positions), one matmul per dim."""
    out = x
    for d, rows in zip(range(2, x.ndim), matrices):
        if d == x.ndim - 1:  # W: each row of the image times the matrix's transpose
            out = _functional._matmul(out, rows.transpose(0, 1))
        elif d == x.ndim - 2:  # H: the matrix times each (H, W) image
            out = _functional._matmul(rows, out)
        else:  # D: moved next to W first
            out = _functional._matmul(rows, out.transpose(d, -2)).transpose(d, -2)
    return out


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """(N, C, L) -> (N, C, output_size): the means of output_size windows that cover L."""
    return _adaptive_avg_pool(input, output_size, 1, "adaptive_avg_pool1d")


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """(N, C, H, W) -> (N, C, oH, oW) by window means; None in output_size keeps that size."""
    return _adaptive_avg_pool(input, output_size, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """(N, C, D, H, W) -> (N, C, oD, oH, oW) by window means; None keeps that size."""
    (input,) = autocast_inputs("adaptive_avg_pool3d", input)
    return _adaptive_avg_pool(input, output_size, 3, "adaptive_avg_pool3d")


# ---------------------------------------------------------------- batch, group and instance norm
def _channel_shape(input: Tensor) -> tuple:
    """(1, C, 1, ...): a per-channel vector shaped to broadcast over (N, C, *S)."""
    return (1, input.shape[1]) + (1,) * (input.ndim - 2)


def _affine(out: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """out * weight + bias with one weight and bias per channel (dim 1)."""
    if weight is not None:
        out = out * weight.reshape(_channel_shape(out))
    if bias is not None:
        out = out + bias.reshape(_channel_shape(out))
    return out


def _check_norm_input(input: Tensor, op: str, min_ndim: int, *vectors: Tensor | None) -> None:
    """A floating input (N, C, ...) of at least ``min_ndim`` dims, and running_mean,
    running_var, weight and bias (those given) each of shape (C,)."""
    _floating_only(input, op)
    if input.ndim < min_ndim:
        raise ValueError(
            f"{op}: expected an input (N, C{', *spatial' if min_ndim > 2 else ', ...'}) of at "
            f"least {min_ndim} dims, got shape {tuple(input.shape)}"
        )
    _check_channel_vectors(input, op, *vectors)


def _check_channel_vectors(input: Tensor, op: str, *vectors: Tensor | None) -> None:
    """Each of running_mean, running_var, weight, bias (in that order; those given) is (C,)."""
    names = ("running_mean", "running_var", "weight", "bias")[-len(vectors) :]
    c = input.shape[1] if input.ndim > 1 else None
    for name, v in zip(names, vectors):
        if v is not None and (_check_tensor(v, op, name).ndim != 1 or v.shape[0] != c):
            raise RuntimeError(
                f"{op}: {name} of shape {tuple(v.shape)} does not match the {c} channels of "
                f"input {tuple(input.shape)} (expected ({c},))"
            )


def _check_vector_dtypes(input: Tensor, op: str, **vectors: Tensor | None) -> None:
    """Each vector given has input's dtype: PyTorch refuses to mix them (a float64 input
    through a float32 BatchNorm raises rather than promoting)."""
    for name, v in vectors.items():
        if v is not None and v.dtype is not input.dtype:
            raise RuntimeError(
                f"{op}: {name} is {v.dtype} but the input is {input.dtype}; they must share "
                "one dtype (convert the module or the input with .to(dtype) first)"
            )


def _half_input_float_params(input: Tensor, *params: Tensor | None) -> bool:
    """A float16 input with float32 parameters (a float32 norm layer after a float16 layer,
    as under autocast): PyTorch's batch, layer and group norms accept that mix, compute in
    float32 and return float16; the norms here then run on input.float() and cast back."""
    given = [p for p in params if p is not None]
    return (input.dtype is _dtypes.float16 and bool(given)
            and all(p.dtype is _dtypes.float32 for p in given))  # fmt: skip


def _update_running(running: Tensor, batch_value: Tensor, momentum: Any) -> None:
    """running = (1 - momentum) * running + momentum * batch_value, in place, untracked."""
    with _no_grad():  # (float16 statistics: in float32, rounded once, as PyTorch)
        wide = running.float() if running.dtype is _dtypes.float16 else running
        running.copy_(wide * (1 - momentum) + batch_value.detach() * momentum)


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:  # fmt: skip
    """Normalise each channel (dim 1) of (N, C, *S) over the batch and spatial dims, then
    scale and shift per channel. In training the batch's mean and biased variance are used
    and the running statistics (when given) move towards the batch's mean and unbiased
    variance by ``momentum``; otherwise the running statistics are used."""
    if _half_input_float_params(input, running_mean, running_var, weight, bias):
        out = batch_norm(input.float(), running_mean, running_var, weight, bias, training,
                         momentum, eps)  # fmt: skip
        return out.to(input.dtype)
    if training and eps <= 0:  # sqrt(var + eps) of a constant channel would be 0
        raise ValueError(f"batch_norm: eps must be positive during training, but got {eps}")
    if eps < 0:  # (checked before the tensors, as PyTorch does)
        raise ValueError(f"batch_norm: eps must be non-negative, but got {eps}")
    _check_norm_input(input, "batch_norm", 2, running_mean, running_var, weight, bias)
    _check_vector_dtypes(input, "batch_norm", running_mean=running_mean, running_var=running_var,
                         weight=weight, bias=bias)  # fmt: skip
    if input.numel() == 0:  # nothing to normalise; running statistics unchanged (PyTorch)
        return _affine(input, weight, bias)
    dims = (0,) + tuple(range(2, input.ndim))  # all but the channel dim
    count = input.shape[0] * math.prod(input.shape[2:])  # values per channel
    if training:
        if count == 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size "
                f"{tuple(input.shape)} (batch_norm)"
            )
        if input.dtype is _dtypes.float16:  # (in float32, as PyTorch's kernel: see there)
            return _float16_batch_norm(input, running_mean, running_var, weight, bias,
                                       momentum, eps, dims)  # fmt: skip
        var, mean = _functional.var_mean(input, dims, unbiased=False, keepdim=True)
        if running_mean is not None:
            _update_running(running_mean, mean.reshape(-1), momentum)
        if running_var is not None:  # the running variance is the unbiased one
            _update_running(running_var, var.reshape(-1) * (count / (count - 1)), momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be given when "
                               "training=False")  # fmt: skip
        mean = running_mean.reshape(_channel_shape(input))
        var = running_var.reshape(_channel_shape(input))
    out = (input - mean) * _elementwise.Rsqrt.apply(var + eps)  # (rsqrt's op: no autocast)
    return _affine(out, weight, bias)


def _float16_batch_norm(input: Tensor, running_mean: Tensor | None,
                        running_var: Tensor | None, weight: Tensor | None, bias: Tensor | None,
                        momentum: float, eps: float, dims: tuple) -> Tensor:  # fmt: skip
    """batch_norm in training of float16 input and parameters, as PyTorch's CPU kernel: the
    batch statistics in float32 (the running ones move towards them, rounded once), the
    mean and 1/std rounded to float16 (what it saves), then the output computed in float32
    from those and rounded once. (Rounding each step was an ulp off in a third of it.)"""
    wide = input.float()
    var, mean = _functional.var_mean(wide, dims, unbiased=False, keepdim=True)
    count = input.numel() // input.shape[1]
    if running_mean is not None:
        _update_running(running_mean, mean.reshape(-1), momentum)
    if running_var is not None:  # the running variance is the unbiased one
        _update_running(running_var, var.reshape(-1) * (count / (count - 1)), momentum)
    inv_std = _elementwise.Rsqrt.apply(var + eps).half().float()
    out = (wide - mean.half().float()) * inv_std
    widened = [None if t is None else t.float() for t in (weight, bias)]
    return _affine(out, *widened).half()


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:  # fmt: skip
    """Normalise each (sample, channel) of (N, C, *S) over its spatial dims, then scale and
    shift per channel. Running statistics (when given) move towards the batch average of the
    instances' means and unbiased variances; use_input_stats=False normalises with them."""
    if _half_input_float_params(input, running_mean, running_var, weight, bias):
        out = instance_norm(input.float(), running_mean, running_var, weight, bias,
                            use_input_stats, momentum, eps)  # fmt: skip
        return out.to(input.dtype)
    _check_norm_input(input, "instance_norm", 3, running_mean, running_var, weight, bias)
    _check_vector_dtypes(input, "instance_norm", weight=weight, bias=bias)
    if input.numel() == 0:  # nothing to normalise; running statistics unchanged (PyTorch)
        return _affine(input, weight, bias)
    if not use_input_stats:  # running statistics of another dtype are fine here (PyTorch)
        if running_mean is None or running_var is None:
            raise RuntimeError("instance_norm: running_mean and running_var must be given "
                               "when use_input_stats=False")  # fmt: skip
        mean, var = running_mean.to(input.dtype), running_var.to(input.dtype)
        return batch_norm(input, mean, var, weight, bias, False, momentum, eps)
    n, c = input.shape[:2]
    count = math.prod(input.shape[2:])  # values per instance
    if count == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size "
            f"{tuple(input.shape)} (instance_norm)"
        )
    rows = input.reshape(n, c, count)
    # (LayerNorm's op itself: autocast lists layer_norm, not instance_norm)
    normalised = _normalization.LayerNorm.apply(rows, None, None, ndims=1, eps=eps)
    out = normalised.reshape(tuple(input.shape))
    if running_mean is not None or running_var is not None:
        var, mean = _functional.var_mean(rows, 2, unbiased=True)  # (N, C) each
        if running_mean is not None:
            _update_running(running_mean, mean.mean(0), momentum)
        if running_var is not None:
            _update_running(running_var, var.mean(0), momentum)
    return _affine(out, weight, bias)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:  # fmt: skip
    """Split the channels of (N, C, *S) into num_groups groups, normalise each sample's group
    over its channels and spatial dims (layer_norm on (N, G, rest)), then scale and shift
    per channel."""
    input, weight, bias = autocast_inputs("group_norm", input, weight, bias)
    _floating_only(input, "group_norm")
    num_groups = _functional._int_argument(num_groups, "group_norm", "num_groups")
    if input.ndim < 2 or num_groups < 1 or input.shape[1] % num_groups:
        raise RuntimeError(
            f"group_norm: Expected number of channels in input to be divisible by num_groups, "
            f"but got input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    _check_channel_vectors(input, "group_norm", weight, bias)
    if _half_input_float_params(input, weight, bias):
        return group_norm(input.float(), num_groups, weight, bias, eps).to(input.dtype)
    _check_vector_dtypes(input, "group_norm", weight=weight, bias=bias)
    if input.numel() == 0:
        return _affine(input, weight, bias)
    n = input.shape[0]
    group_size = input.shape[1] // num_groups * math.prod(input.shape[2:])
    groups = input.reshape(n, num_groups, group_size)  # (N, G, C/G * prod(S))
    out = layer_norm(groups, (group_size,), eps=eps).reshape(tuple(input.shape))
    return _affine(out, weight, bias)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:  # fmt: skip
    """x / (k + alpha * mean of x^2 over ``size`` neighbouring channels)^beta on (N, C, *):
    channel c's window is c - size // 2 .. c + (size - 1) // 2, zeros past the ends (the
    mean still divides by ``size``; for integers rounded down, as PyTorch's pooling does)."""
    _check_tensor(input, "local_response_norm")
    if input.ndim < 3:
        raise ValueError(
            f"local_response_norm: Expected 3D or higher dimensionality input (N, C, *), got "
            f"{input.ndim} dimensions (shape {tuple(input.shape)})"
        )
    if size < 1:
        raise RuntimeError(
            f"local_response_norm: size (the channels each window averages) should be greater "
            f"than zero, but got size={size}"
        )
    if input.dtype is _dtypes.bool:
        raise NotImplementedError(
            "local_response_norm: not implemented for bool input (PyTorch's avg_pool has no "
            "bool kernel); convert it with .float()"
        )
    if input.numel() == 0:
        return input
    if input.ndim > 3:  # PyTorch averages these through avg_pool3d: autocast as it does
        (input,) = autocast_inputs("avg_pool3d", input)
    squares = pad(input * input, (0, 0) * (input.ndim - 2) + (size // 2, (size - 1) // 2))
    windows = squares.unfold(1, size, 1)  # (N, C, *, size)
    if not input.dtype.is_floating_point:  # PyTorch's integer average pooling: floor of the mean
        means = windows.sum(-1).div(size, rounding_mode="floor")
    else:
        means = windows.mean(-1)  # (N, C, *)
    return input / (means * alpha + k).pow(beta)


# ---------------------------------------------------------------- pixel shuffle and upsampling
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r): each group of r^2 channels becomes an
    r x r block of pixels."""
    _check_tensor(input, "pixel_shuffle")
    r = upscale_factor
    if input.ndim < 3 or r < 1 or input.shape[-3] % (r * r):
        raise RuntimeError(
            f"pixel_shuffle: expects an input of at least 3 dims whose channel dim (-3) is "
            f"divisible by upscale_factor^2 = {r * r}, got input of shape {tuple(input.shape)}"
        )
    *batch, c, h, w = input.shape
    nb = len(batch)
    x = input.reshape((*batch, c // (r * r), r, r, h, w))
    # (*, C, r, r, H, W) -> (*, C, H, r, W, r): row offset next to H, column offset next to W
    x = x.permute(tuple(range(nb)) + tuple(nb + d for d in (0, 3, 1, 4, 2)))
    return x.reshape((*batch, c // (r * r), h * r, w * r))


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W), the inverse of pixel_shuffle."""
    _check_tensor(input, "pixel_unshuffle")
    r = downscale_factor
    if input.ndim < 3 or r < 1 or input.shape[-2] % r or input.shape[-1] % r:
        raise RuntimeError(
            f"pixel_unshuffle: expects an input of at least 3 dims whose height and width are "
            f"divisible by downscale_factor={r}, got input of shape {tuple(input.shape)}"
        )
    *batch, c, h, w = input.shape
    nb = len(batch)
    x = input.reshape((*batch, c, h // r, r, w // r, r))
    # (*, C, H, r, W, r) -> (*, C, r, r, H, W)
    x = x.permute(tuple(range(nb)) + tuple(nb + d for d in (0, 2, 4, 1, 3)))
    return x.reshape((*batch, c * r * r, h // r, w // r))


# the interpolating modes (those align_corners applies to): their spatial dims
_LINEAR_MODES = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None,
                mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:  # fmt: skip
    """Resize the spatial dims of (N, C, *S) (1 to 3 of them) to ``size`` or ``S *
    scale_factor``. mode="nearest": output position i reads input position floor(i * scale),
    scale = 1 / scale_factor (or in / out with a size or recompute_scale_factor), computed in
    float32 as PyTorch does; for a 2-d image a dim that keeps (doubles) its size reads
    position i (i // 2) whatever the scale, as PyTorch's CPU kernel does (scale_factor=1.3 on
    3 rows gives 3 rows, read as 0, 1, 2 and not 0, 0, 1). "nearest-exact" reads
    floor((i + 0.5) * scale). "linear" / "bilinear" / "trilinear" (3-D / 4-D / 5-D input)
    mix the two input positions around (i + 0.5) * scale - 0.5 (clamped at 0), or
    i * (in - 1) / (out - 1) with align_corners=True, one dim after the other (a dim that
    keeps its size is copied). "bicubic" (4-D input) mixes the four input positions around
    that point with cubic convolution weights. antialias=True (bilinear, bicubic) widens
    the filter by the downsampling factor, so that every input is averaged in. "area" is
    adaptive average pooling to the output size."""
    _check_tensor(input, "interpolate")
    modes = ("nearest", "nearest-exact", "area", *_LINEAR_MODES)
    if mode not in modes:
        raise NotImplementedError(
            f"interpolate: mode={mode!r} is not implemented in microtorch, only "
            f"{', '.join(repr(m) for m in modes)}"
        )
    linear = mode in _LINEAR_MODES
    if align_corners is not None and not linear:
        raise ValueError(
            "interpolate: align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    if antialias and mode not in ("bilinear", "bicubic"):
        raise ValueError("interpolate: anti-alias option is only supported for bilinear and "
                         "bicubic modes")  # fmt: skip
    spatial = input.ndim - 2
    if not 1 <= spatial <= 3:
        raise NotImplementedError(
            f"interpolate: expected a 3-D, 4-D or 5-D input (N, C, *spatial), got shape "
            f"{tuple(input.shape)}"
        )
    if linear and spatial != _LINEAR_MODES[mode]:
        raise NotImplementedError(
            f"interpolate: Got {input.ndim}D input, but {mode} mode needs "
            f"{_LINEAR_MODES[mode] + 2}D input (N, C, *spatial)"
        )
    if (size is None) == (scale_factor is None):
        raise ValueError(
            "interpolate: only one of size or scale_factor should be defined"
            if size is not None
            else "interpolate: either size or scale_factor should be defined"
        )
    if mode in ("nearest", "nearest-exact"):
        if not input.dtype.is_floating_point and input.dtype is not _dtypes.uint8:
            raise NotImplementedError(
                f"interpolate: mode={mode!r} is not implemented for {input.dtype} inputs, as "
                "in PyTorch (floating and uint8 only); convert the input with .float() first"
            )
    elif input.dtype is _dtypes.uint8 and mode in ("bilinear", "bicubic"):
        raise NotImplementedError(  # PyTorch's CPU kernels round in fixed point there
            f"interpolate: mode={mode!r} of a uint8 image is not implemented in microtorch "
            "(PyTorch has a uint8 kernel for it); convert the input with .float() first"
        )
    else:
        _floating_only(input, f"interpolate (mode={mode!r})")
    in_sizes = tuple(input.shape[2:])
    if size is not None and recompute_scale_factor:
        raise ValueError("interpolate: recompute_scale_factor is not meaningful with an "
                         "explicit size.")  # fmt: skip
    if size is not None:
        out_sizes = (size,) * spatial if not isinstance(size, Sequence) else tuple(size)
        if len(out_sizes) != spatial:  # one size per spatial dim (no broadcasting of (3,))
            raise ValueError(
                f"interpolate: Input and output must have the same number of spatial "
                f"dimensions, but got input with spatial dimensions of {list(in_sizes)} and "
                f"output size of {size}; give one size per dim of (N, C, d1, ..., dK)"
            )
        try:
            out_sizes = tuple(operator.index(o) for o in out_sizes)  # ints, NumPy's too
        except TypeError:
            raise TypeError(f"interpolate: expected size to be ints, but got size={size}") from None
        scales: tuple = (None,) * spatial
    else:
        factors = (
            (scale_factor,) * spatial
            if not isinstance(scale_factor, Sequence)
            else tuple(scale_factor)
        )
        if len(factors) != spatial:
            raise ValueError(
                f"interpolate: scale_factor shape must match input shape; input is "
                f"{spatial}D, scale_factor size is {len(factors)}"
            )
        if not all(math.isfinite(float(f)) for f in factors):
            raise RuntimeError(
                f"interpolate: scale_factor must be finite, got {scale_factor} (the output "
                "size cannot be converted to an int64 without overflow)"
            )
        out_sizes = tuple(math.floor(n * float(f)) for n, f in zip(in_sizes, factors))
        scales = (None,) * spatial if recompute_scale_factor else factors
    if mode != "area" and input.shape[1] == 0:  # PyTorch's resampling kernels refuse it
        raise RuntimeError(
            f"interpolate: Non-empty {input.ndim}D data tensor expected (only the batch may be "
            f"empty) but got a tensor with sizes {list(input.shape)}"
        )
    # "area" is adaptive average pooling, which gives an empty output for a size of 0
    if any(n < 1 for n in in_sizes + (out_sizes if mode != "area" else ())):
        raise RuntimeError(
            f"interpolate: Input and output sizes should be greater than 0, but got input "
            f"{list(in_sizes)} and output {list(out_sizes)} (input shape {tuple(input.shape)})"
        )
    if mode == "area":
        return _adaptive_avg_pool(input, out_sizes, spatial, "interpolate (mode='area')")
    if linear:
        # float16: source positions, weights and sums in float32, rounded once, as PyTorch's
        # kernels (float16 positions are 0.03 apart past 32: the weights were off that much)
        wide = input.float() if input.dtype is _dtypes.float16 else input
        if antialias and wide is not input:
            raise NotImplementedError(
                f"interpolate: antialias=True (mode={mode!r}) is not implemented for float16 "
                "inputs, as in PyTorch's CPU kernel; convert the input with .float() first"
            )
        if antialias:
            matrices = [_antialias_matrix(n, o, factor, bool(align_corners), mode, wide)
                        for n, o, factor in zip(in_sizes, out_sizes, scales)]  # fmt: skip
        else:
            along = (_cubic_interpolation_matrix if mode == "bicubic"
                     else _linear_interpolation_matrix)  # fmt: skip
            matrices = [along(n, o, factor, bool(align_corners), wide)
                        for n, o, factor in zip(in_sizes, out_sizes, scales)]  # fmt: skip
        out = _along_spatial_dims(wide, matrices)
        return out.half() if wide is not input else out
    xp = backend.xp_of(input.array)
    out = input
    for d, (n, o, factor) in enumerate(zip(in_sizes, out_sizes, scales)):
        scale = xp.float32(1.0 / factor if factor is not None and factor > 0 else n / o)
        offset = xp.float32(0.5 if mode == "nearest-exact" else 0.0)
        positions = xp.arange(o, dtype=xp.float32) + offset
        positions = xp.floor(positions * scale).astype(xp.int64)  # in float32, as PyTorch
        positions = xp.minimum(positions, n - 1)  # (o,): the input position each output reads
        if mode == "nearest" and spatial == 2 and o in (n, 2 * n):  # PyTorch's 2-d kernel
            positions = xp.arange(o) // (o // n)  # (CPU) ignores the scale when a dim keeps
        out = _functional.index_select(out, 2 + d, Tensor._make(positions))  # or doubles
    return out


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:  # fmt: skip
    """Deprecated name of interpolate (it warns, as PyTorch's does)."""
    warn_user("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: interpolate(mode="nearest") (it warns, as PyTorch's does)."""
    warn_user(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead."
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: interpolate(mode="bilinear", align_corners=True) of a 4-D input (it warns,
    as PyTorch's does)."""
    warn_user(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead."
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _linear_interpolation_matrix(size: int, out: int, factor: Any, align_corners: bool,
                                 like: Tensor) -> Tensor:  # fmt: skip
    """(out, size): row i mixes the input positions i0 = floor(src) and i0 + 1 (both kept
    inside [0, size)) with weights 1 - (src - i0) and src - i0, for the source position src
    of output i; computed in the input's dtype, as PyTorch does. A dim that keeps its size
    is copied whatever the scale or align_corners, as PyTorch's CPU kernels do."""
    xp = backend.xp_of(like.array)
    dtype = like.array.dtype
    if out == size:
        return Tensor._make(xp.eye(size, dtype=dtype))
    i = xp.arange(out, dtype=dtype)
    if align_corners:  # the corner pixels' centres line up: 0 -> 0, out - 1 -> size - 1
        src = i * dtype.type((size - 1) / (out - 1) if out > 1 else 0.0)
    else:  # pixel centres: (i + 0.5) * scale - 0.5, never below 0
        scale = dtype.type(1.0 / factor if factor is not None and factor > 0 else size / out)
        src = xp.maximum((i + dtype.type(0.5)) * scale - dtype.type(0.5), dtype.type(0.0))
    low = xp.minimum(xp.floor(src).astype(xp.int64), size - 1)
    high = xp.minimum(low + 1, size - 1)
    frac = src - low.astype(dtype)  # (out,), in [0, 1)
    j = xp.arange(size)
    weights = (j == low[:, None]) * (1 - frac)[:, None] + (j == high[:, None]) * frac[:, None]
    return Tensor._make(weights.astype(dtype))


def _keys_cubic(d: Any, a: Any) -> Any:
    """Keys' cubic convolution kernel at distances d (an array): 1 at 0, 0 at 1 and from 2
    on; a = -0.75 for PyTorch's bicubic interpolation, -0.5 for its antialiasing filter."""
    xp = backend.xp_of(d)
    d = xp.abs(d)
    near = ((a + 2) * d - (a + 3)) * d * d + 1  # |d| <= 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a  # 1 < |d| < 2
    return xp.where(d <= 1, near, xp.where(d < 2, far, 0 * d))


def _cubic_interpolation_matrix(size: int, out: int, factor: Any, align_corners: bool,
                                like: Tensor) -> Tensor:  # fmt: skip
    """(out, size) for mode="bicubic": row i mixes the four input positions i0 - 1 .. i0 + 2
    around the source position src (i0 = floor(src), each kept inside [0, size)) with Keys'
    cubic convolution weights (a = -0.75, as PyTorch) of t = src - i0, clamped to [0, 1].
    src is i * (size - 1) / (out - 1) with align_corners, else (i + 0.5) * scale - 0.5 (not
    clamped at 0, unlike linear); computed in the input's dtype, as PyTorch does."""
    xp = backend.xp_of(like.array)
    dtype = like.array.dtype
    i = xp.arange(out, dtype=dtype)
    if align_corners:
        src = i * dtype.type((size - 1) / (out - 1) if out > 1 else 0.0)
    else:
        scale = dtype.type(1.0 / factor if factor is not None and factor > 0 else size / out)
        src = (i + dtype.type(0.5)) * scale - dtype.type(0.5)
    low = xp.minimum(xp.floor(src).astype(xp.int64), size - 1)
    t = xp.clip(src - low.astype(dtype), 0, 1)  # (out,)
    j = xp.arange(size)
    weights = xp.zeros((out, size), dtype=dtype)
    for offset in (-1, 0, 1, 2):  # the neighbour at offset is |offset - t| away
        column = xp.clip(low + offset, 0, size - 1)  # positions past the edge read the edge
        w = _keys_cubic(offset - t, dtype.type(-0.75))
        weights += (j == column[:, None]) * w[:, None]
    return Tensor._make(weights.astype(dtype))


def _antialias_matrix(size: int, out: int, factor: Any, align_corners: bool, mode: str,
                      like: Tensor) -> Tensor:  # fmt: skip
    """(out, size) for antialias=True: output i is the normalised average of the input
    positions j whose centres j + 0.5 lie within the filter's support around its centre
    c = scale * (i + 0.5), weighted by the triangle (bilinear) or Keys' cubic (a = -0.5,
    bicubic) filter of (j + 0.5 - c) / max(scale, 1): when downsampling (scale > 1) the
    filter stretches to cover every input it stands for. A dim that keeps its size is
    copied, as PyTorch's kernel skips it."""
    xp = backend.xp_of(like.array)
    dtype = like.array.dtype
    if out == size:
        return Tensor._make(xp.eye(size, dtype=dtype))
    if align_corners:
        scale = (size - 1) / (out - 1) if out > 1 else 0.0
    else:
        scale = 1.0 / factor if factor is not None and factor > 0 else size / out
    stretch = max(scale, 1.0)
    support = (2.0 if mode == "bicubic" else 1.0) * stretch  # half the filter's width
    centre = scale * (xp.arange(out, dtype=xp.float64) + 0.5)  # (out,)
    first = xp.maximum(xp.floor(centre - support + 0.5), 0)  # the window of inputs read
    stop = xp.minimum(xp.floor(centre + support + 0.5), size)
    j = xp.arange(size, dtype=xp.float64)
    distance = (j[None, :] + 0.5 - centre[:, None]) / stretch  # (out, size)
    if mode == "bicubic":
        weights = _keys_cubic(distance, -0.5)
    else:
        weights = xp.maximum(1 - xp.abs(distance), 0)
    weights = weights * ((j >= first[:, None]) & (j < stop[:, None]))
    total = weights.sum(1, keepdims=True)
    weights = weights / xp.where(total == 0, 1.0, total)
    return Tensor._make(weights.astype(dtype))
