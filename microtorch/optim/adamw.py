"""AdamW (Loshchilov & Hutter): Adam with decoupled weight decay, PyTorch's
``torch.optim.AdamW`` rule. Instead of adding ``weight_decay * p`` to the gradient (which
Adam's normalisation then rescales), each step shrinks the parameter directly:

    p = p * (1 - lr * weight_decay)

and then applies the plain Adam update (see adam.py). The default weight_decay is 0.01.
A common recipe decays matrices but not biases and LayerNorm weights, with two groups:

    AdamW([{"params": matrices, "weight_decay": 0.1},
           {"params": vectors, "weight_decay": 0.0}], lr=3e-4, betas=(0.9, 0.95))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .adam import Adam


class AdamW(Adam):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:  # fmt: skip
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                         amsgrad=amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)  # fmt: skip
