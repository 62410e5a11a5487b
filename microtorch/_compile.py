"""``microtorch.compile``: PyTorch 2's ``torch.compile``, for a framework without a compiler."""

from __future__ import annotations

from typing import Any


def compile(model: Any = None, *, fullgraph: bool = False, dynamic: Any = None,
            backend: Any = None, mode: Any = None, options: Any = None, name: Any = None,
            disable: bool = False, **kwargs: Any) -> Any:  # fmt: skip
    """torch.compile as PyTorch's ``torch.compile(..., disable=True)`` behaves: microtorch has
    no compiler and runs every op as it comes, so the model or function is returned as it is
    and computes exactly what it computed before (nothing gets faster). It is here so that
    training scripts written for PyTorch 2 (``model = torch.compile(model)``) run unchanged;
    it works as a decorator too (``@torch.compile`` or ``@torch.compile(mode=...)``)."""
    if model is None:  # @compile(...): the decorator itself
        return lambda fn: compile(fn)
    if not callable(model):
        raise RuntimeError(f"compile: expected a module or a function, got {type(model).__name__}")
    return model
