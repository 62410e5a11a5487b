"""Stochastic gradient descent, with optional momentum, dampening, Nesterov momentum and
(L2) weight decay: PyTorch's ``torch.optim.SGD`` rule.

For each parameter p with gradient g (negated when ``maximize``):

    g = g + weight_decay * p                       (if weight_decay != 0)
    b = g                                          (first step)
    b = momentum * b + (1 - dampening) * g         (later steps; if momentum != 0)
    g = g + momentum * b   if nesterov   else   b  (if momentum != 0)
    p = p - lr * g
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .. import backend
from .._tensor import Tensor
from .optimizer import (
    Optimizer,
    add_scaled_,
    check_fused,
    check_hyperparameters,
    check_unsupported,
    grad_for_update,
    scale_,
    scaled_sum,
    state_array,
)


class SGD(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:  # fmt: skip
        check_hyperparameters("SGD", lr, weight_decay=weight_decay, momentum=momentum)
        check_unsupported("SGD", differentiable=differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)  # fmt: skip
        super().__init__(params, defaults)
        check_fused("SGD", fused, foreach)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, momentum = float(group["lr"]), float(group["momentum"])
            dampening, weight_decay = float(group["dampening"]), float(group["weight_decay"])
            nesterov, maximize = group["nesterov"], group["maximize"]
            # which buffers exist as the step starts: a parameter listed twice (PyTorch warns)
            # then starts a fresh buffer for each copy on its first step, as there
            started = {
                id(p)
                for p in group["params"]
                if self.state.get(p, {}).get("momentum_buffer") is not None
            }
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = grad_for_update(p, maximize, weight_decay)
                if momentum != 0.0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None or id(p) not in started:
                        # a copy of g, as an array: for a 0-d p, NumPy's arithmetic gave a scalar
                        first = backend.xp_of(p.array).array(g, dtype=p.array.dtype)
                        buf = state["momentum_buffer"] = Tensor._make(first)
                    else:
                        b = state_array(buf, p.array)
                        scale_(b, momentum)
                        add_scaled_(b, g, 1.0 - dampening)
                    g = scaled_sum(g, buf.array, momentum) if nesterov else buf.array
                add_scaled_(p.array, g, -lr)  # (float16: rounded as PyTorch's, see there)
                p._version_counter.value += 1
        return loss
