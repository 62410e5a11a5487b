"""The default ``dim`` of reductions whose PyTorch form without a dim is another overload.

``torch.max(x)`` (the largest value) and ``torch.max(x, dim)`` (values and indices) are two
signatures in PyTorch; its parser refuses ``max(x, dim=None)`` (TypeError), and the form
without a dim takes no ``out=``. microtorch writes both as one function, so ``dim`` defaults
to ``NO_DIM``: leaving dim out reduces over everything, while None given is refused as in
PyTorch.
"""

from __future__ import annotations

from typing import Any


class _NoDim:
    def __repr__(self) -> str:
        return "<no dim>"


NO_DIM: Any = _NoDim()


def given_dim(dim: Any, op: str, out: Any = None, keepdim: Any = False) -> Any:
    """``dim`` as the function uses it (None for "every element"), refusing dim=None, and
    out= or keepdim=True without a dim, with PyTorch's TypeError."""
    if dim is None:
        raise TypeError(
            f"{op}(): argument 'dim' must be int, not NoneType; leave dim out to reduce over "
            "every element"
        )
    if dim is NO_DIM:
        if out is not None:
            raise TypeError(f"{op}(): out= needs a dim: {op}(input) without one takes no out")
        if keepdim is not False:
            raise TypeError(
                f"{op}(): keepdim= needs a dim: {op}(input) without one takes no keepdim; give "
                "the dim(s) to keep as size 1"
            )
        return None
    return dim
