"""Muon (Keller Jordan, 2024): momentum SGD for weight matrices whose step is orthogonalised,
PyTorch's ``torch.optim.Muon`` rule (2.9+). Only 2-D parameters: biases, norms and
embeddings go to another optimizer (AdamW), in a second optimizer object.

For each matrix p (A rows, B columns) with gradient g, with buffer b (zeros at first):

    b = lerp(b, g, 1 - momentum)                    (= momentum * b + (1 - momentum) * g)
    u = lerp(g, b, momentum) if nesterov else b     (nesterov: looks one step ahead)
    O = newton_schulz(u)                            (about U V^T for u = U S V^T)
    p = p * (1 - lr * weight_decay)                 (decoupled weight decay, plain lr)
    p = p - lr * ratio * O

ratio makes the step's size alike for every shape: sqrt(max(1, A / B)) ("original", the
default) or 0.2 * sqrt(max(A, B)) ("match_rms_adamw": the rms of an AdamW step, so that
AdamW's lr and weight decay carry over).

newton_schulz(u) works on the wide way round (u^T when A > B): X = u / max(||u||_F, eps),
then ns_steps times, with (a, b, c) = ns_coefficients and G = X X^T,

    X = a X + (b G + c G G) X

an odd polynomial of X's singular values that pushes each towards 1 (to somewhere between
about 0.7 and 1.2 with the default coefficients: near enough, and fast).

PyTorch runs newton_schulz in bfloat16; microtorch has no bfloat16, so it runs in the
parameter's own dtype (a float64 trajectory is then PyTorch's with bfloat16 taken out).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from .. import backend
from .._tensor import Tensor
from .optimizer import Optimizer, lerp_, lr_value, state_array

# PyTorch's defaults (from Keller Jordan's post): the quintic's coefficients, the norm's floor
# and the number of iterations
NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
EPS = 1e-7
NS_STEPS = 5


class Muon(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = NS_COEFFICIENTS,
                 eps: float = EPS, ns_steps: int = NS_STEPS,
                 adjust_lr_fn: str | None = None) -> None:  # fmt: skip
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= float(lr):
            raise ValueError(f"Muon: Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"Muon: momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Muon: weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in (None, "original", "match_rms_adamw"):
            raise ValueError(
                f"Muon: Adjust learning rate function {adjust_lr_fn} is not supported (use "
                "'original', 'match_rms_adamw' or None)"
            )
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)  # fmt: skip
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        f"Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {p.size()}; give the others to another optimizer (e.g. AdamW)"
                    )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, momentum = lr_value(group["lr"]), float(group["momentum"])
            weight_decay = float(group["weight_decay"])
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad.array
                if g.ndim != 2:
                    raise ValueError("Muon: Param gradient must be a 2D matrix")
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = Tensor._make(backend.xp_of(g).zeros_like(g))
                buf = state_array(state["momentum_buffer"], g)
                lerp_(buf, g, 1.0 - momentum)
                update = buf
                if group["nesterov"]:
                    update = g.copy()
                    lerp_(update, buf, momentum)
                ortho = newton_schulz(update, group["ns_coefficients"], group["ns_steps"],
                                      group["eps"])  # fmt: skip
                a = p.array
                a *= 1.0 - lr * weight_decay
                a -= adjusted_lr(lr, group["adjust_lr_fn"], p.shape) * ortho
                p._version_counter.value += 1
        return loss


def newton_schulz(u: Any, coefficients: tuple, steps: int, eps: float) -> Any:
    """The Newton-Schulz iteration of the module docstring on the matrix ``u`` (an array):
    about the orthogonal factor U V^T of u = U S V^T, in u's dtype."""
    if steps >= 100:
        raise ValueError("Muon: Number of steps must be less than 100 for computational efficiency")
    if u.ndim != 2:
        raise ValueError("Muon: Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Muon: Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    xp = backend.xp_of(u)
    tall = u.shape[0] > u.shape[1]
    x = u.T if tall else u  # wide: X X^T is the smaller Gram matrix
    x = x / xp.maximum(xp.sqrt((x * x).sum()), eps)  # now every singular value is <= 1
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * (gram @ gram)) @ x
    return x.T if tall else x


def adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: tuple) -> float:
    """lr scaled for a matrix of this shape (rows, columns): see the module docstring."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1.0, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * (0.2 * math.sqrt(max(rows, cols)))  # (the ratio first, as PyTorch rounds)
    return lr
