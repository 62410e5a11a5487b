"""Rprop (Riedmiller & Braun, resilient backpropagation), with PyTorch's
``torch.optim.Rprop`` rule: only the sign of the gradient is used. Each coordinate keeps
its own step size, which grows while the gradient keeps its sign and shrinks when it flips.

For each parameter p with gradient g (negated when ``maximize``), and the previous step's
(masked) gradient g_prev:

    s = sign(g * g_prev)
    step_size = clamp(step_size * (etaplus if s > 0, etaminus if s < 0, 1 if s == 0),
                      step_size_min, step_size_max)      (it starts at lr)
    g = 0 where s < 0                                    (the sign flipped: no move this step)
    p = p - sign(g) * step_size;  g_prev = g

``etas`` is (etaminus, etaplus) and ``step_sizes`` (step_size_min, step_size_max).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import backend
from .._tensor import Tensor
from .optimizer import (
    Optimizer,
    check_hyperparameters,
    check_unsupported,
    grad_for_update,
    state_array,
)


class Rprop(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:  # fmt: skip
        check_hyperparameters("Rprop", lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(
                f"Rprop: invalid eta values: {etas[0]}, {etas[1]} (need 0 < etaminus < 1 < etaplus)"
            )
        check_unsupported("Rprop", differentiable=differentiable)
        defaults = dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes), foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
                        capturable=capturable)  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            etaminus, etaplus = float(group["etas"][0]), float(group["etas"][1])
            smallest, largest = float(group["step_sizes"][0]), float(group["step_sizes"][1])
            maximize = group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                a = p.array
                xp = backend.xp_of(a)
                state = self._state_of(p, group, "prev")
                if "step_size" not in state:  # every step size starts at the group's lr
                    state["step_size"] = Tensor._make(xp.full_like(a, float(group["lr"])))
                self._next_step(state)
                g = grad_for_update(p, maximize, 0.0)
                prev = state_array(state["prev"], a)
                step_size = state_array(state["step_size"], a)
                s = xp.sign(g * prev)
                # the factor in p's dtype, as PyTorch writes the etas into a tensor like p
                factor = xp.where(s > 0, etaplus, xp.where(s < 0, etaminus, 1.0)).astype(
                    a.dtype, copy=False
                )
                step_size *= factor
                xp.clip(step_size, smallest, largest, out=step_size)
                g = xp.where(s < 0, 0.0, g).astype(a.dtype, copy=False)
                a -= xp.sign(g) * step_size
                prev[...] = g
                p._version_counter.value += 1
        return loss
