"""``torch.autograd.variable``: where PyTorch keeps ``Variable``, its pre-0.4 tensor wrapper."""

from __future__ import annotations

from typing import Any


def Variable(data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:  # noqa: N802
    """PyTorch's old wrapper (before 0.4), kept for old code: ``Variable(t, requires_grad=True)``
    is a new leaf tensor sharing t's memory, with that flag (tensors carry their own gradient
    now, so there is nothing else to wrap). ``volatile`` has no effect, as in PyTorch: use
    ``with microtorch.no_grad():`` instead."""
    import warnings

    from .._tensor import Tensor

    if not isinstance(data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    if volatile:
        warnings.warn(
            "volatile was removed and now has no effect. Use `with microtorch.no_grad():` instead.",
            UserWarning,
            stacklevel=2,
        )
    return data.detach().requires_grad_(requires_grad)


__all__ = ["Variable"]
