"""Averaged SGD (Polyak & Juditsky), with PyTorch's ``torch.optim.ASGD`` rule: SGD with a
decaying step size eta, plus a running average ``ax`` of the parameters, which starts
averaging at step ``t0`` (before that it is a copy of p). The average is kept in the state;
p itself follows plain SGD.

For each parameter p with gradient g (negated when ``maximize``), at step t = 1, 2, ...:

    g = g + weight_decay * p                  (if weight_decay != 0)
    p = p * (1 - lambd * eta) - eta * g       (eta starts at lr)
    ax = ax + mu * (p - ax)                   (ax = p while mu is 1)
    eta = lr / (1 + lambd * lr * t)^alpha     (the next step's eta and mu)
    mu = 1 / max(1, t - t0)

As PyTorch, eta and mu are kept in float32 (float64 when that is the default dtype), and in
the parameter's dtype once loaded from a state dict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .optimizer import (
    Optimizer,
    check_hyperparameters,
    check_unsupported,
    default_rounded,
    grad_for_update,
    lr_value,
    state_array,
)


class ASGD(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:  # fmt: skip
        check_hyperparameters("ASGD", lr, weight_decay=weight_decay)
        check_unsupported("ASGD", differentiable=differentiable)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)  # fmt: skip
        super().__init__(params, defaults)

    def _scalars_on_device(self, group: dict) -> bool:
        """ASGD keeps its step, eta and mu on the parameter's device, as PyTorch's does."""
        return True

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, lambd, alpha = lr_value(group["lr"]), float(group["lambd"]), float(group["alpha"])
            t0, weight_decay = float(group["t0"]), float(group["weight_decay"])
            maximize = group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self._state_of(p, group, "ax", eta=lr, mu=1.0)
                t = self._next_step(state)
                eta, mu = self._scalar(state, "eta"), self._scalar(state, "mu")
                a = p.array
                g = grad_for_update(p, maximize, weight_decay)
                a *= 1.0 - lambd * eta
                a -= eta * g
                ax = state_array(state["ax"], a)
                if mu != 1.0:
                    ax += (a - ax) * mu
                else:
                    ax[...] = a
                # PyTorch makes each new value a default-dtype tensor, then copies it into
                # the kept one (float64 once loaded for a float64 model): rounded twice
                self._set_scalar(
                    state, "eta", default_rounded(lr / (1.0 + lambd * lr * t) ** alpha)
                )
                self._set_scalar(state, "mu", default_rounded(1.0 / max(1.0, t - t0)))
                p._version_counter.value += 1
        return loss
