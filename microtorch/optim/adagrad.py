"""Adagrad (Duchi, Hazan & Singer), with PyTorch's ``torch.optim.Adagrad`` rule: each
coordinate's step is divided by the root of the sum of all its squared gradients so far,
so coordinates that have seen large gradients move less.

For each parameter p with gradient g (negated when ``maximize``), at step t = 1, 2, ...:

    g = g + weight_decay * p                  (if weight_decay != 0)
    s = s + g * g                             (s starts at initial_accumulator_value)
    p = p - lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps)

As in PyTorch, the state (``"step"`` and ``"sum"``) is made when the optimizer is made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import backend
from .._tensor import Tensor
from .optimizer import (
    Optimizer,
    check_fused,
    check_hyperparameters,
    check_unsupported,
    grad_for_update,
    lr_value,
    state_array,
)


class Adagrad(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:  # fmt: skip
        check_hyperparameters("Adagrad", lr, eps=eps, weight_decay=weight_decay)
        if not lr_decay >= 0.0:
            raise ValueError(f"Adagrad: invalid lr_decay value: {lr_decay}")
        if not initial_accumulator_value >= 0.0:
            raise ValueError(
                f"Adagrad: invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        check_unsupported("Adagrad", differentiable=differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)  # fmt: skip
        super().__init__(params, defaults)
        check_fused("Adagrad", fused, foreach)
        for group in self.param_groups:
            for p in group["params"]:
                self._adagrad_state(p, group)

    def _adagrad_state(self, p: Tensor, group: dict) -> dict:
        """p's state, made on first use: step 0 and the sum of squares at its starting value."""
        state = self.state[p]
        if not state:
            xp = backend.xp_of(p.array)
            state["step"] = self._scalar_tensor(0.0, p, group, "step")
            start = float(group["initial_accumulator_value"])
            state["sum"] = Tensor._make(xp.full_like(p.array, start))
        return state

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, lr_decay, eps = lr_value(group["lr"]), float(group["lr_decay"]), float(group["eps"])
            weight_decay, maximize = float(group["weight_decay"]), group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self._adagrad_state(p, group)
                step = self._next_step(state)
                a = p.array
                xp = backend.xp_of(a)
                g = grad_for_update(p, maximize, weight_decay)
                s = state_array(state["sum"], a)
                s += g * g
                std = xp.sqrt(s)
                std += eps
                clr = lr / (1.0 + (step - 1) * lr_decay)  # the decayed lr
                a -= clr * (g / std)
                p._version_counter.value += 1
        return loss
