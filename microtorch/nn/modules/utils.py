"""torch.nn.modules.utils: the small helpers custom layers import from PyTorch: ``_pair(3)``
is (3, 3), ``_pair((2, 3))`` stays (2, 3); and the prefix fix for state dicts saved from a
wrapped model (DataParallel / DDP / compile save keys as "module.weight")."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    """A function that turns one value into an ``n``-tuple of it, and leaves an iterable (a
    tuple or list of sizes) as a tuple of its items."""

    def parse(x: Any) -> tuple:
        if isinstance(x, Iterable):  # (a string too, as in PyTorch)
            return tuple(x)
        return tuple(itertools.repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: Iterable, n: int) -> tuple:
    """Each item of ``t``, last first, repeated ``n`` times: F.pad's order of paddings from
    a conv's (2, 3) -> (3, 3, 2, 2) for n=2."""
    return tuple(x for x in reversed(tuple(t)) for _ in range(n))


def consume_prefix_in_state_dict_if_present(state_dict: dict, prefix: str) -> None:
    """Strip ``prefix`` from the keys of ``state_dict`` that start with it, in place, as
    PyTorch's does (a renamed key moves to the end; the others keep their places). The keys
    of its ``_metadata``, if any, too: "module" (the wrapped model's own entry) becomes ""."""
    for key in [k for k in state_dict if k.startswith(prefix)]:
        state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    for key in [k for k in metadata if k and (k.startswith(prefix) or k == prefix.rstrip("."))]:
        metadata[key[len(prefix) :]] = metadata.pop(key)


__all__ = [
    "_ntuple",
    "_pair",
    "_quadruple",
    "_reverse_repeat_tuple",
    "_single",
    "_triple",
    "consume_prefix_in_state_dict_if_present",
]
