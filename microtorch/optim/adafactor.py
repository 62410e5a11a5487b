"""Adafactor (Shazeer & Stern, 2018), with PyTorch's ``torch.optim.Adafactor`` rule (2.5+):
Adam-like steps whose second-moment estimate of a matrix is factored into one running
average per row and one per column, so the state of an (R, C) weight is R + C numbers.

For each parameter p with gradient g (negated when ``maximize``), at step t = 1, 2, ...:

    beta2_t' = t ** beta2_decay                      (1 - beta2_t: the weight of the new g^2)
    rho   = min(lr, 1 / sqrt(t))
    alpha = max(eps2, rms(p)) * rho                  (a step relative to p's size)
    p     = p * (1 - lr * weight_decay)
    matrix (and batches of them):
        r = lerp(r, mean of g^2 along each row, beta2_t')         (..., R, 1)
        c = lerp(c, mean of g^2 along each column, beta2_t')      (..., 1, C)
        v = (r @ c) / max(mean(r), eps1)             (the rank-1 estimate of g^2)
    vector or 0-d:
        v = lerp(v, g^2, beta2_t')
    u = g / sqrt(max(v, eps1^2))
    p = p - alpha / max(1, rms(u) / d) * u           (the update's rms clipped to d)

eps1 None is the machine epsilon of the (group's first) parameter's dtype, as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import backend
from .. import dtypes as _dtypes
from .._tensor import Tensor
from .optimizer import Optimizer, lerp_, lr_value, state_array


class Adafactor(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:  # fmt: skip
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= float(lr):
            raise ValueError(f"Adafactor: Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"Adafactor: beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"Adafactor: epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"Adafactor: epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Adafactor: Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Adafactor: weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize)  # fmt: skip
        super().__init__(params, defaults)

    def _state_for(self, p: Tensor, group: dict) -> dict:
        """p's state, made on its first step: the step count and the running averages of
        g^2 (per row and per column of a matrix, elementwise otherwise)."""
        state = self.state[p]
        if not state:
            xp = backend.xp_of(p.array)
            state["step"] = self._scalar_tensor(0.0, p, group, "step")
            if p.ndim > 1:
                state["row_var"] = Tensor._make(xp.zeros(p.shape[:-1] + (1,), p.array.dtype))
                state["col_var"] = Tensor._make(
                    xp.zeros(p.shape[:-2] + (1, p.shape[-1]), p.array.dtype)
                )
            else:
                state["variance"] = Tensor._make(xp.zeros_like(p.array))
        return state

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, d = lr_value(group["lr"]), float(group["d"])
            beta2_decay, weight_decay = float(group["beta2_decay"]), float(group["weight_decay"])
            eps1, eps2 = group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if eps1 is None:  # (fixed by the group's first parameter, as in PyTorch)
                    eps1 = _dtypes.finfo(p.dtype).eps
                state = self._state_for(p, group)
                t = float(self._next_step(state))
                a = p.array
                xp = backend.xp_of(a)
                g = -p.grad.array if group["maximize"] else p.grad.array
                new_weight = t**beta2_decay  # of the new g^2 in the running averages
                rho = min(lr, 1 / t**0.5)
                alpha = max(eps2, float(xp.sqrt((a * a).sum())) / a.size**0.5) * rho
                if weight_decay != 0:
                    a *= 1 - lr * weight_decay
                if a.ndim > 1:
                    row_var = state_array(state["row_var"], a)
                    col_var = state_array(state["col_var"], a)
                    lerp_(row_var, _mean_square(xp, g, -1), new_weight)
                    lerp_(col_var, _mean_square(xp, g, -2), new_weight)
                    row_level = xp.maximum(row_var.mean(axis=-2, keepdims=True), eps1)
                    v = (row_var @ col_var) / row_level
                else:
                    variance = state_array(state["variance"], a)
                    lerp_(variance, g * g, new_weight)
                    v = variance.copy()
                update = (1.0 / xp.sqrt(xp.maximum(v, eps1 * eps1))) * g  # as rsqrt(v) * g
                rms = float(xp.sqrt((update * update).sum())) / (update.size**0.5 * d)
                a -= (alpha / max(1.0, rms)) * update
                p._version_counter.value += 1
        return loss


def _mean_square(xp: Any, g: Any, axis: int) -> Any:
    """The mean of g^2 along ``axis`` (kept as size 1), as PyTorch forms it: the squared
    2-norm over the length."""
    norm = xp.sqrt((g * g).sum(axis=axis, keepdims=True))
    return norm * norm / g.shape[axis]
