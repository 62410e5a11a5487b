"""How a tensor prints: PyTorch's layout, so the numbers read as in PyTorch tutorials.

    tensor([[ 0.1000,  2.5000, -1.0000],
            [ 3.0000,  0.0000,  7.2500]], dtype=microtorch.float32, device='cpu')

- Floats get 4 decimals ("2.5000"); when every value is a whole number they get a dot
  only ("2."); when the values span more than 1000x, pass 1e8 or (not whole) go under
  1e-4, they get scientific notation ("1.0000e-08"). The choice looks at the nonzero
  finite values; nan, inf and 0 print as they are.
- Every element is padded to one width; rows wrap at 80 characters.
- A tensor of more than 1000 elements shows its first and last 3 along each dim around "...".
- Unlike PyTorch, dtype and device are always shown: learners should see them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from . import backend

LINE_WIDTH = 80  # characters
THRESHOLD = 1000  # more elements than this are summarized...
EDGE_ITEMS = 3  # ...to this many at each end of each dim
DECIMALS = 4
PREFIX = "tensor("


def tensor_repr(values: Any, extras: list[str]) -> str:
    """``tensor(values, extra, ...)``; ``values`` a NumPy or CuPy array, ``extras`` the
    ``name=value`` texts to append (moved to a new line where the last one is full)."""
    a = backend.to_numpy(values)
    summarize = a.size > THRESHOLD
    element, width = _formatter(_edges(a) if summarize else a)
    body = _nested(a, element, width, len(PREFIX), summarize) if a.size else "[]"
    text = PREFIX + body
    line = len(text) - text.rfind("\n") + 1  # (PyTorch counts the last line this way)
    for extra in extras:
        if line + len(extra) + 2 > LINE_WIDTH:
            text += ",\n" + " " * len(PREFIX) + extra
            line = len(PREFIX) + len(extra)
        else:
            text += ", " + extra
            line += len(extra) + 2
    return text + ")"


def _formatter(shown: numpy.ndarray) -> tuple[Callable[[Any], str], int]:
    """One element's text, padded to the common width, and that width; chosen from the
    elements that will be shown."""
    if shown.dtype.kind != "f":  # integers and bools: as Python writes them
        width = max((len(str(v)) for v in shown.ravel().tolist()), default=1)
        return (lambda v: str(v).rjust(width)), width
    nonzero = shown[numpy.isfinite(shown) & (shown != 0)].astype(numpy.float64)
    whole = bool((nonzero == numpy.ceil(nonzero)).all())
    scientific = False
    if nonzero.size:
        largest, smallest = numpy.abs(nonzero).max(), numpy.abs(nonzero).min()
        scientific = largest / smallest > 1000 or largest > 1e8 or (not whole and smallest < 1e-4)
    spec = f".{DECIMALS}e" if scientific else (".0f" if whole else f".{DECIMALS}f")
    dot = whole and not scientific  # "2." for a whole number (not for nan or inf)

    def text(v: float) -> str:
        return format(v, spec) + ("." if dot and numpy.isfinite(v) else "")

    width = max((len(text(v)) for v in nonzero.tolist()), default=1)
    return (lambda v: text(v).rjust(width)), width


def _edges(a: numpy.ndarray) -> numpy.ndarray:
    """The elements a summarized print shows: the first and last EDGE_ITEMS of each long dim."""
    for dim, size in enumerate(a.shape):
        if size > 2 * EDGE_ITEMS:
            keep = list(range(EDGE_ITEMS)) + list(range(size - EDGE_ITEMS, size))
            a = numpy.take(a, keep, axis=dim)
    return a


def _nested(a: numpy.ndarray, element: Callable, width: int, indent: int,
            summarize: bool) -> str:  # fmt: skip
    """The bracketed text of ``a``, its rows indented to line up under ``indent``."""
    if a.ndim == 0:
        return element(a.item())
    cut = summarize and a.shape[0] > 2 * EDGE_ITEMS
    rows = [*range(EDGE_ITEMS), None, *range(len(a) - EDGE_ITEMS, len(a))] if cut else range(len(a))
    if a.ndim == 1:
        items = [" ..." if i is None else element(a[i].item()) for i in rows]
        per_line = max(1, (LINE_WIDTH - indent) // (width + 2))  # ", " after each
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = ["..." if i is None else _nested(a[i], element, width, indent + 1, summarize)
             for i in rows]  # fmt: skip
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"
