"""``torch.nn.utils.stateless.functional_call``: the name ``torch.func.functional_call`` had
before PyTorch 2.0, kept (with PyTorch's FutureWarning) so that older code runs."""

from __future__ import annotations

import warnings
from typing import Any

from ... import func


def functional_call(module: Any, parameters_and_buffers: dict, args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:  # fmt: skip
    """``module(*args, **kwargs)`` with the named parameters and buffers replaced for the call:
    ``microtorch.func.functional_call``, which this deprecated name warns about and calls."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
        "removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return func.functional_call(module, parameters_and_buffers, args, kwargs,
                                tie_weights=tie_weights, strict=strict)  # fmt: skip
