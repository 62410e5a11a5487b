"""Adadelta (Zeiler), with PyTorch's ``torch.optim.Adadelta`` rule: the step is the
gradient scaled by the ratio of two running root-mean-squares, of past updates over past
gradients, so it has the parameter's units and needs no tuned lr (the default is 1.0).

For each parameter p with gradient g (negated when ``maximize``):

    g = g + weight_decay * p                  (if weight_decay != 0)
    v = rho * v + (1 - rho) * g * g           (running mean of squared gradients)
    d = sqrt(u + eps) / sqrt(v + eps) * g     (the update)
    u = rho * u + (1 - rho) * d * d           (running mean of squared updates)
    p = p - lr * d
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import backend
from .optimizer import (
    Optimizer,
    check_hyperparameters,
    check_unsupported,
    grad_for_update,
    state_array,
)


class Adadelta(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:  # fmt: skip
        check_hyperparameters("Adadelta", lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Adadelta: invalid rho value: {rho}")
        check_unsupported("Adadelta", differentiable=differentiable)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach,
                        differentiable=differentiable)  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, rho, eps = float(group["lr"]), float(group["rho"]), float(group["eps"])
            weight_decay, maximize = float(group["weight_decay"]), group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self._state_of(p, group, "square_avg", "acc_delta")
                self._next_step(state)
                a = p.array
                xp = backend.xp_of(a)
                g = grad_for_update(p, maximize, weight_decay)
                v = state_array(state["square_avg"], a)
                u = state_array(state["acc_delta"], a)
                v *= rho
                v += (1.0 - rho) * g * g
                delta = xp.sqrt(u + eps) / xp.sqrt(v + eps) * g
                u *= rho
                u += (1.0 - rho) * delta * delta
                a -= lr * delta
                p._version_counter.value += 1
        return loss
