"""``backends.mha``: PyTorch's switch for the fast inference path of TransformerEncoder and
MultiheadAttention. microtorch has a single attention kernel, so the switch changes no
arithmetic; what it does change is visible in TransformerEncoder's output: in eval mode,
with a padding mask, PyTorch's fast path returns zeros at the padded positions (see
``nn.TransformerEncoder``), and with the switch off it does not."""

from __future__ import annotations

_fastpath_enabled = True


def get_fastpath_enabled() -> bool:
    """Whether TransformerEncoder may take PyTorch's fast inference path (True by default)."""
    return _fastpath_enabled


def set_fastpath_enabled(value: bool) -> None:
    """Allow (True) or forbid (False) the fast inference path."""
    global _fastpath_enabled
    _fastpath_enabled = bool(value)
