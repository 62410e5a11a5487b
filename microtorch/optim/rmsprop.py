"""RMSprop (Hinton's lecture 6e), with PyTorch's ``torch.optim.RMSprop`` rule: each step is
divided by a running root-mean-square of the recent gradients.

For each parameter p with gradient g (negated when ``maximize``):

    g = g + weight_decay * p                   (if weight_decay != 0)
    v = alpha * v + (1 - alpha) * g * g        (running mean of squared gradients)
    a = alpha * a + (1 - alpha) * g            (centered only: running mean of gradients)
    d = sqrt(v) + eps,  or  sqrt(v - a * a) + eps when centered
    b = momentum * b + g / d;  p = p - lr * b  (if momentum != 0)
    p = p - lr * g / d                         (otherwise)
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


class RMSprop(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False) -> None:  # fmt: skip
        check_hyperparameters("RMSprop", lr, eps=eps, weight_decay=weight_decay,
                              momentum=momentum)  # fmt: skip
        if not alpha >= 0.0:
            raise ValueError(f"RMSprop: invalid alpha value: {alpha}")
        check_unsupported("RMSprop", differentiable=differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable,
                        foreach=foreach, maximize=maximize, differentiable=differentiable)  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, alpha, eps = float(group["lr"]), float(group["alpha"]), float(group["eps"])
            weight_decay, momentum = float(group["weight_decay"]), float(group["momentum"])
            centered, maximize = group["centered"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                buffers = (["square_avg"] + (["momentum_buffer"] if momentum > 0 else [])
                           + (["grad_avg"] if centered else []))  # fmt: skip
                state = self._state_of(p, group, *buffers)
                self._next_step(state)
                a = p.array
                xp = backend.xp_of(a)
                g = grad_for_update(p, maximize, weight_decay)
                v = state_array(state["square_avg"], a)
                v *= alpha
                v += (1.0 - alpha) * g * g
                if centered:
                    mean = state_array(state["grad_avg"], a)
                    mean *= alpha
                    mean += (1.0 - alpha) * g
                    denominator = xp.sqrt(v - mean * mean)
                else:
                    denominator = xp.sqrt(v)
                denominator += eps
                if momentum > 0:
                    b = state_array(state["momentum_buffer"], a)
                    b *= momentum
                    b += g / denominator
                    a -= lr * b
                else:
                    a -= lr * (g / denominator)
                p._version_counter.value += 1
        return loss
