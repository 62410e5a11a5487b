"""PyTorch's top-level in-place names (torch.exp_(x), torch.clamp_(x, 0, 1), torch.zero_(x)...):
each calls the Tensor method of the same name, which writes into ``input`` and returns it.
microtorch/__init__.py exports them."""

from __future__ import annotations

from typing import Any

from . import functional as F
from ._tensor import Tensor
from .nn import functional as nn_functional


def abs_(input: Tensor) -> Tensor:
    """input.abs_(): |input| written into input."""
    return input.abs_()


def neg_(input: Tensor) -> Tensor:
    """input.neg_(): -input written into input."""
    return input.neg_()


def negative_(input: Tensor) -> Tensor:
    """input.negative_(): -input written into input."""
    return input.negative_()


def reciprocal_(input: Tensor) -> Tensor:
    """input.reciprocal_(): 1 / input written into input."""
    return input.reciprocal_()


def square_(input: Tensor) -> Tensor:
    """input.square_(): input * input written into input."""
    return input.square_()


def sqrt_(input: Tensor) -> Tensor:
    """input.sqrt_()."""
    return input.sqrt_()


def rsqrt_(input: Tensor) -> Tensor:
    """input.rsqrt_(): 1 / sqrt(input) written into input."""
    return input.rsqrt_()


def exp_(input: Tensor) -> Tensor:
    """input.exp_()."""
    return input.exp_()


def exp2_(input: Tensor) -> Tensor:
    """input.exp2_(): 2 ** input written into input."""
    return input.exp2_()


def expm1_(input: Tensor) -> Tensor:
    """input.expm1_(): exp(input) - 1 written into input."""
    return input.expm1_()


def log_(input: Tensor) -> Tensor:
    """input.log_()."""
    return input.log_()


def log2_(input: Tensor) -> Tensor:
    """input.log2_()."""
    return input.log2_()


def log10_(input: Tensor) -> Tensor:
    """input.log10_()."""
    return input.log10_()


def log1p_(input: Tensor) -> Tensor:
    """input.log1p_(): log(1 + input) written into input."""
    return input.log1p_()


def logit_(input: Tensor, eps: float | None = None) -> Tensor:
    """input.logit_(eps): log(p / (1 - p)) written into input."""
    return input.logit_(eps)


def xlogy_(input: Tensor, other: Any) -> Tensor:
    """input.xlogy_(other): input * log(other) written into input."""
    return input.xlogy_(other)


def sigmoid_(input: Tensor) -> Tensor:
    """input.sigmoid_()."""
    return input.sigmoid_()


def relu_(input: Tensor) -> Tensor:
    """input.relu_(): max(input, 0) written into input."""
    return input.relu_()


def erf_(input: Tensor) -> Tensor:
    """input.erf_()."""
    return input.erf_()


def erfc_(input: Tensor) -> Tensor:
    """input.erfc_(): 1 - erf(input) written into input."""
    return input.erfc_()


def i0_(input: Tensor) -> Tensor:
    """input.i0_(): the modified Bessel function I0 written into input."""
    return input.i0_()


def sinc_(input: Tensor) -> Tensor:
    """input.sinc_(): sin(pi x) / (pi x) written into input."""
    return input.sinc_()


def sin_(input: Tensor) -> Tensor:
    """input.sin_()."""
    return input.sin_()


def cos_(input: Tensor) -> Tensor:
    """input.cos_()."""
    return input.cos_()


def tan_(input: Tensor) -> Tensor:
    """input.tan_()."""
    return input.tan_()


def sinh_(input: Tensor) -> Tensor:
    """input.sinh_()."""
    return input.sinh_()


def cosh_(input: Tensor) -> Tensor:
    """input.cosh_()."""
    return input.cosh_()


def tanh_(input: Tensor) -> Tensor:
    """input.tanh_()."""
    return input.tanh_()


def asin_(input: Tensor) -> Tensor:
    """input.asin_()."""
    return input.asin_()


def acos_(input: Tensor) -> Tensor:
    """input.acos_()."""
    return input.acos_()


def atan_(input: Tensor) -> Tensor:
    """input.atan_()."""
    return input.atan_()


def asinh_(input: Tensor) -> Tensor:
    """input.asinh_()."""
    return input.asinh_()


def acosh_(input: Tensor) -> Tensor:
    """input.acosh_()."""
    return input.acosh_()


def atanh_(input: Tensor) -> Tensor:
    """input.atanh_()."""
    return input.atanh_()


# NumPy's names for the inverse functions, as PyTorch has them
arcsin_, arccos_, arctan_ = asin_, acos_, atan_
arcsinh_, arccosh_, arctanh_ = asinh_, acosh_, atanh_


def deg2rad_(input: Tensor) -> Tensor:
    """input.deg2rad_(): degrees converted to radians in place."""
    return input.deg2rad_()


def rad2deg_(input: Tensor) -> Tensor:
    """input.rad2deg_(): radians converted to degrees in place."""
    return input.rad2deg_()


def ceil_(input: Tensor) -> Tensor:
    """input.ceil_()."""
    return input.ceil_()


def floor_(input: Tensor) -> Tensor:
    """input.floor_()."""
    return input.floor_()


def round_(input: Tensor, *, decimals: int = 0) -> Tensor:
    """input.round_(decimals=decimals): rounded half to even, in place."""
    return input.round_(decimals=decimals)


def trunc_(input: Tensor) -> Tensor:
    """input.trunc_(): rounded towards 0, in place."""
    return input.trunc_()


def fix_(input: Tensor) -> Tensor:
    """input.fix_(): trunc_ under NumPy's name."""
    return input.fix_()


def frac_(input: Tensor) -> Tensor:
    """input.frac_(): input - trunc(input) written into input."""
    return input.frac_()


def nan_to_num_(input: Tensor, nan: float | None = None, posinf: float | None = None,
                neginf: float | None = None) -> Tensor:  # fmt: skip
    """input.nan_to_num_(nan, posinf, neginf): nan and infinities replaced in place."""
    return input.nan_to_num_(nan, posinf, neginf)


def clamp_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """input.clamp_(min, max): each element limited to [min, max], in place."""
    return input.clamp_(min, max)


clip_ = clamp_


def clamp_min_(input: Tensor, min: Any) -> Tensor:
    """input.clamp_min_(min): each element at least min, in place."""
    return input.clamp_min_(min)


def clamp_max_(input: Tensor, max: Any) -> Tensor:
    """input.clamp_max_(max): each element at most max, in place."""
    return input.clamp_max_(max)


def gcd_(input: Tensor, other: Tensor) -> Tensor:
    """input.gcd_(other): the greatest common divisor written into input."""
    return input.gcd_(other)


def lcm_(input: Tensor, other: Tensor) -> Tensor:
    """input.lcm_(other): the least common multiple written into input."""
    return input.lcm_(other)


def ldexp_(input: Tensor, other: Tensor) -> Tensor:
    """input.ldexp_(other): input * 2 ** other written into input."""
    return input.ldexp_(other)


def addmv_(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """input.addmv_(mat, vec): beta * input + alpha * (mat @ vec) written into input."""
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)


def index_put_(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """input.index_put_(indices, values, accumulate): input[indices] = (or +=) values."""
    return input.index_put_(indices, values, accumulate)


def zero_(input: Tensor) -> Tensor:
    """input.zero_(): every element set to 0."""
    return input.zero_()


def fill_(input: Tensor, value: Any) -> Tensor:
    """input.fill_(value): every element set to value (a number or a 0-d tensor)."""
    return input.fill_(value)


def fill(input: Tensor, value: Any) -> Tensor:
    """A new tensor of input's shape, dtype and device with value everywhere; the out-of-place
    fill_ (the gradient reaches a 0-d value tensor, none reaches input)."""
    return F.full_like_graph(F._check_tensor(input, "fill"), value)


def conj_physical_(input: Tensor) -> Tensor:
    """input.conj_physical_(): input, unchanged (every dtype here is real)."""
    return input.conj_physical_()


def as_strided_(input: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """input.as_strided_(...): input itself made that view of the memory it views."""
    return input.as_strided_(size, stride, storage_offset)


def resize_as_(input: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """input.resize_as_(the_template): input given the_template's sizes, in place."""
    return input.resize_as_(the_template, memory_format=memory_format)


def detach_(input: Tensor) -> Tensor:
    """input.detach_(): input cut out of the graph in place."""
    return input.detach_()


# torch.dropout_ and the alpha forms take (input, p, train), all three required
def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """F.dropout(input, p, train, inplace=True)."""
    return nn_functional.dropout(input, p, train, inplace=True)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """F.alpha_dropout(input, p, train, inplace=True)."""
    return nn_functional.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """F.feature_alpha_dropout(input, p, train, inplace=True)."""
    return nn_functional.feature_alpha_dropout(input, p, train, inplace=True)
