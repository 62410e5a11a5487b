"""``backends.mps``: Apple-GPU support. microtorch has none (its devices are "cpu" and
"cuda"), so both questions are answered False, as PyTorch answers them off a Mac."""

from __future__ import annotations


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
