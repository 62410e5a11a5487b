"""NAdam (Dozat: Adam with Nesterov momentum), with PyTorch's ``torch.optim.NAdam`` rule.
The momentum coefficient mu_t warms up over the first steps (``momentum_decay``), and each
step looks one step ahead: it mixes the current gradient with the next step's momentum.

For each parameter p with gradient g (negated when ``maximize``), at step t = 1, 2, ...:

    g = g + weight_decay * p, or, with decoupled_weight_decay,
    p = p * (1 - lr * weight_decay)            (as AdamW)
    mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))
    P_t = mu_1 * mu_2 * ... * mu_t             ("mu_product" in the state)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    d = sqrt(v / (1 - beta2^t)) + eps
    p = p - lr * (1 - mu_t) / (1 - P_t) * g / d - lr * mu_{t+1} / (1 - P_t * mu_{t+1}) * m / d

As PyTorch, the product P_t is kept in float32 (float64 when that is the default dtype), and
in the parameter's dtype once loaded from a state dict.
"""

from __future__ import annotations

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
    rounded_as,
    state_array,
    update_moments_,
)


class NAdam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:  # fmt: skip
        check_hyperparameters("NAdam", lr, eps=eps, betas=betas, weight_decay=weight_decay)
        if not momentum_decay >= 0.0:
            raise ValueError(f"NAdam: invalid momentum_decay value: {momentum_decay}")
        check_unsupported("NAdam", differentiable=differentiable)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable,
                        differentiable=differentiable)  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, eps = lr_value(group["lr"]), float(group["eps"])
            beta1, beta2 = float(group["betas"][0]), float(group["betas"][1])
            weight_decay = float(group["weight_decay"])
            momentum_decay = float(group["momentum_decay"])
            decoupled, maximize = group["decoupled_weight_decay"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self._state_of(p, group, "exp_avg", "exp_avg_sq", mu_product=1.0)
                t = self._next_step(state)
                a = p.array
                xp = backend.xp_of(a)
                g = decay_weights(p, grad_for_update(p, maximize, 0.0), lr, weight_decay,
                                  decoupled)  # fmt: skip
                mu = beta1 * (1.0 - 0.5 * 0.96 ** (t * momentum_decay))
                mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
                # P_t = P_{t-1} * mu_t, multiplied in the state's precision as PyTorch does
                mu_product = self._set_scalar(
                    state,
                    "mu_product",
                    self._scalar(state, "mu_product") * rounded_as(mu, state["mu_product"]),
                )
                m, v = state_array(state["exp_avg"], a), state_array(state["exp_avg_sq"], a)
                update_moments_(m, v, g, beta1, beta2)
                denominator = xp.sqrt(v / (1.0 - beta2**t))
                denominator += eps
                a -= lr * (1.0 - mu) / (1.0 - mu_product) * (g / denominator)
                a -= lr * mu_next / (1.0 - mu_product * mu_next) * (m / denominator)
                p._version_counter.value += 1
        return loss
