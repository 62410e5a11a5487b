"""Adam (Kingma & Ba) with PyTorch's ``torch.optim.Adam`` rule; ``AdamW`` (adamw.py) is the
same update with decoupled weight decay.

For each parameter p with gradient g (negated when ``maximize``), at step t = 1, 2, ...:

    g = g + weight_decay * p                  (Adam's L2 penalty; AdamW skips this and
    p = p * (1 - lr * weight_decay)            instead shrinks p directly: "decoupled")
    m = beta1 * m + (1 - beta1) * g           (running mean of gradients)
    v = beta2 * v + (1 - beta2) * g * g       (running mean of squared gradients)
    v_max = max(v_max, v)                     (amsgrad only; then v_max replaces v below)
    p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)

The two ``1 - beta^t`` factors correct m and v for starting at zero.

On the CPU each line is one or two in-place NumPy operations on the raw arrays. On a GPU
the whole update is one fused CUDA kernel per parameter (no amsgrad) instead of about ten
array operations, each of which would be a separate kernel launch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .. import backend
from ..ops.elementwise import _in_float32
from .optimizer import (
    Optimizer,
    check_fused,
    check_hyperparameters,
    check_unsupported,
    lr_value,
    scale_,
    scaled_sum,
    state_array,
)


class Adam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:  # fmt: skip
        name = type(self).__name__
        check_hyperparameters(name, lr, eps=eps, betas=betas, weight_decay=weight_decay)
        check_unsupported(name, differentiable=differentiable)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)  # fmt: skip
        super().__init__(params, defaults)
        check_fused(name, fused, foreach)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            # Python floats, so that NumPy keeps float32 arrays in float32
            lr, eps = lr_value(group["lr"]), float(group["eps"])
            beta1, beta2 = float(group["betas"][0]), float(group["betas"][1])
            weight_decay = float(group["weight_decay"])
            decoupled = group["decoupled_weight_decay"]
            amsgrad, maximize = group["amsgrad"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                buffers = ["exp_avg", "exp_avg_sq"] + (["max_exp_avg_sq"] if amsgrad else [])
                state = self._state_of(p, group, *buffers)
                step = self._next_step(state)
                step_size = lr / (1.0 - beta1**step)
                bias_correction2_sqrt = math.sqrt(1.0 - beta2**step)
                # what multiplies p before the update: decoupled decay shrinks p directly
                keep = 1.0 - lr * weight_decay if decoupled else 1.0
                l2 = 0.0 if decoupled else weight_decay
                a, g = p.array, p.grad.array
                m, v = state_array(state["exp_avg"], a), state_array(state["exp_avg_sq"], a)
                if a.dtype == np.float16:  # (before the kernel, which would round each step)
                    v_max = state_array(state["max_exp_avg_sq"], a) if amsgrad else None
                    _adam_float16_arrays(a, g, m, v, v_max, keep, l2, beta1, beta2, step_size,
                                         bias_correction2_sqrt, eps, maximize)  # fmt: skip
                elif amsgrad or not backend.has_cuda_kernels(a):  # (the kernel: no amsgrad)
                    v_max = state_array(state["max_exp_avg_sq"], a) if amsgrad else None
                    _adam_arrays(a, g, m, v, v_max, keep, l2, beta1, beta2, step_size,
                                 bias_correction2_sqrt, eps, maximize)  # fmt: skip
                else:
                    t = a.dtype.type
                    _adam_cuda_kernel()(
                        g, t(-1.0 if maximize else 1.0), t(keep), t(l2), t(beta1), t(beta2),
                        t(step_size), t(bias_correction2_sqrt), t(eps), a, m, v,
                    )  # fmt: skip
                p._version_counter.value += 1
        return loss


def _adam_arrays(a: Any, g: Any, m: Any, v: Any, v_max: Any, keep: float, l2: float,
                 beta1: float, beta2: float, step_size: float, bias_correction2_sqrt: float,
                 eps: float, maximize: bool) -> None:  # fmt: skip
    """One Adam/AdamW update of the parameter array ``a`` in place (NumPy or CuPy)."""
    xp = backend.xp_of(a)
    if maximize:
        g = -g
    if l2 != 0.0:
        g = g + l2 * a  # Adam's L2 penalty: a new array, the stored gradient is unchanged
    if keep != 1.0:
        a *= keep  # AdamW: decoupled weight decay
    tmp = xp.multiply(g, 1.0 - beta1, out=xp.empty_like(a))  # the one scratch array, reused below
    m *= beta1
    m += tmp  # m = beta1 * m + (1 - beta1) * g
    xp.multiply(g, g, out=tmp)
    tmp *= 1.0 - beta2
    v *= beta2
    v += tmp  # v = beta2 * v + (1 - beta2) * g^2
    if v_max is not None:
        xp.maximum(v_max, v, out=v_max)
        v = v_max
    xp.sqrt(v, out=tmp)
    tmp /= bias_correction2_sqrt
    tmp += eps  # denominator: sqrt(v) / sqrt(1 - beta2^t) + eps
    xp.divide(m, tmp, out=tmp)
    tmp *= step_size
    a -= tmp


def _adam_float16_arrays(a: Any, g: Any, m: Any, v: Any, v_max: Any, keep: float, l2: float,
                         beta1: float, beta2: float, step_size: float,
                         bias_correction2_sqrt: float, eps: float, maximize: bool) -> None:  # fmt: skip
    """The same update of float16 arrays in PyTorch's steps (its for-loop Adam, the CPU's
    default), each computed in float32 and rounded once as its float16 kernels do: m by
    lerp, v by mul then addcmul, p by addcdiv; eps is added as a float16 number (1e-8 is 0
    there, as in PyTorch)."""
    xp = backend.xp_of(a)
    if maximize:
        g = -g
    if l2 != 0.0:
        g = scaled_sum(g, a, l2)  # Adam's L2 penalty
    if keep != 1.0:
        scale_(a, keep)  # AdamW: decoupled weight decay
    w = 1.0 - beta1  # m = lerp(m, g, w), PyTorch's two forms for small and large weights
    m[...] = _in_float32(lambda m, g: m + w * (g - m) if w < 0.5 else g - (g - m) * beta1, m, g)
    scale_(v, beta2)
    v[...] = _in_float32(lambda v, g: v + (1.0 - beta2) * g * g, v, g)
    if v_max is not None:
        xp.maximum(v_max, v, out=v_max)
        v = v_max
    denom = _in_float32(lambda root: root / bias_correction2_sqrt, xp.sqrt(v)) + a.dtype.type(eps)
    a[...] = _in_float32(lambda a, m, d: a + -step_size * m / d, a, m, denom)


# The same update as _adam_arrays (without amsgrad) as one CUDA elementwise kernel.
# p, m and v are read and written in place; every scalar is passed in p's dtype T.
_ADAM_CUDA_BODY = """
    T grad = sign * g + l2 * p;
    m = beta1 * m + ((T)1 - beta1) * grad;
    v = beta2 * v + ((T)1 - beta2) * grad * grad;
    p = p * keep - step_size * m / (sqrt(v) / bias_correction2_sqrt + eps);
"""


_ADAM_CUDA = backend.elementwise_source(
    "microtorch_adam_step",
    "T g, T sign, T keep, T l2, T beta1, T beta2, T step_size, T bias_correction2_sqrt, T eps",
    "T p, T m, T v",
    _ADAM_CUDA_BODY,
)


def _adam_cuda_kernel() -> Any:
    return backend.elementwise_kernel(*_ADAM_CUDA)
