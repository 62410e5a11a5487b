"""RAdam (Liu et al., "rectified" Adam), with PyTorch's ``torch.optim.RAdam`` rule: Adam
whose adaptive step is switched on only once the running variance has seen enough steps to
be trusted, and then scaled by a rectification factor r_t; before that it is SGD with
momentum.

For each parameter p with gradient g (negated when ``maximize``), at step t = 1, 2, ...:

    g = g + weight_decay * p, or, with decoupled_weight_decay,
    p = p * (1 - lr * weight_decay)            (as AdamW)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    m_hat = m / (1 - beta1^t)
    rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
    if rho_t > 5:
        r_t = sqrt((rho_t - 4) (rho_t - 2) rho_inf / ((rho_inf - 4) (rho_inf - 2) rho_t))
        p = p - lr * m_hat * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r_t
    else:
        p = p - lr * m_hat
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from .. import backend
from .optimizer import (
    Optimizer,
    check_hyperparameters,
    check_unsupported,
    decay_weights,
    grad_for_update,
    lr_value,
    state_array,
    update_moments_,
)


class RAdam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:  # fmt: skip
        check_hyperparameters("RAdam", lr, eps=eps, betas=betas, weight_decay=weight_decay)
        check_unsupported("RAdam", differentiable=differentiable)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, eps = lr_value(group["lr"]), float(group["eps"])
            beta1, beta2 = float(group["betas"][0]), float(group["betas"][1])
            weight_decay = float(group["weight_decay"])
            decoupled, maximize = group["decoupled_weight_decay"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self._state_of(p, group, "exp_avg", "exp_avg_sq")
                t = self._next_step(state)
                a = p.array
                xp = backend.xp_of(a)
                g = decay_weights(p, grad_for_update(p, maximize, 0.0), lr, weight_decay,
                                  decoupled)  # fmt: skip
                m, v = state_array(state["exp_avg"], a), state_array(state["exp_avg_sq"], a)
                update_moments_(m, v, g, beta1, beta2)
                bias_correction2 = 1.0 - beta2**t
                m_hat = m / (1.0 - beta1**t)
                rho_inf = 2.0 / (1.0 - beta2) - 1.0  # the longest the running average gets
                rho_t = rho_inf - 2.0 * t * beta2**t / bias_correction2  # its length at step t
                if rho_t > 5.0:
                    rect = math.sqrt((rho_t - 4.0) * (rho_t - 2.0) * rho_inf
                                     / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t))  # fmt: skip
                    adaptive = math.sqrt(bias_correction2) / (xp.sqrt(v) + eps)
                    a -= m_hat * lr * adaptive * rect
                else:
                    a -= m_hat * lr
                p._version_counter.value += 1
        return loss
