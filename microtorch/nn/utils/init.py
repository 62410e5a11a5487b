"""``skip_init``: build a module without spending time or random numbers on its init."""

from __future__ import annotations

import inspect
from typing import Any

from ... import random as _random
from ..module import Module


def skip_init(module_cls: type[Module], *args: Any, **kwargs: Any) -> Module:
    """``module_cls(*args, **kwargs)`` with uninitialised parameters and buffers (arbitrary
    values, to be filled by the caller), leaving the random generator where it was.

    PyTorch builds the module on its "meta" device and then calls ``to_empty``; microtorch
    has no meta device, so it builds the module normally, puts the generator's state back
    and gives every tensor fresh empty memory with ``to_empty``. The module class must take
    a ``device`` argument, as PyTorch requires (RuntimeError otherwise)."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    state = _random.get_rng_state()
    module = module_cls(*args, device=final_device, **kwargs)
    _random.set_rng_state(state)
    return module.to_empty(device=final_device)
