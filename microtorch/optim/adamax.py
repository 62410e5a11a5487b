"""Adamax (Kingma & Ba, section 7.1), with PyTorch's ``torch.optim.Adamax`` rule: Adam with
the running root-mean-square of gradients replaced by a decaying running maximum of their
absolute values (the infinity norm).

For each parameter p with gradient g (negated when ``maximize``), at step t = 1, 2, ...:

    g = g + weight_decay * p                  (if weight_decay != 0)
    m = beta1 * m + (1 - beta1) * g           (running mean of gradients)
    u = max(beta2 * u, |g| + eps)             (decaying maximum of |g|)
    p = p - lr / (1 - beta1^t) * m / u
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
    lerp_,
    lr_value,
    state_array,
)


class Adamax(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:  # fmt: skip
        check_hyperparameters("Adamax", lr, eps=eps, betas=betas, weight_decay=weight_decay)
        check_unsupported("Adamax", differentiable=differentiable)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, eps = lr_value(group["lr"]), float(group["eps"])
            beta1, beta2 = float(group["betas"][0]), float(group["betas"][1])
            weight_decay, maximize = float(group["weight_decay"]), group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self._state_of(p, group, "exp_avg", "exp_inf")
                step = self._next_step(state)
                a = p.array
                xp = backend.xp_of(a)
                g = grad_for_update(p, maximize, weight_decay)
                m, u = state_array(state["exp_avg"], a), state_array(state["exp_inf"], a)
                lerp_(m, g, 1.0 - beta1)
                u *= beta2
                xp.maximum(u, xp.abs(g) + eps, out=u)
                step_size = lr / (1.0 - beta1**step)  # lr with m's bias correction
                a -= step_size * (m / u)
                p._version_counter.value += 1
        return loss
