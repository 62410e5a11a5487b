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

``microtorch.set_printoptions`` changes the numbers above, as ``torch.set_printoptions`` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy

from . import backend

PREFIX = "tensor("


PROFILES = {  # PyTorch's print profiles
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}
# precision: decimals; threshold: more elements than this are summarized to edgeitems at
# each end of each dim; linewidth: characters; sci_mode None: the values decide
OPTIONS: dict[str, Any] = dict(PROFILES["default"], sci_mode=None)


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:  # fmt: skip
    """Change how tensors print, as ``torch.set_printoptions`` does: ``profile`` ('default',
    'short' or 'full') sets the first four at once; ``sci_mode`` True or False forces
    scientific notation on or off, None (what every call without it sets) lets the values
    decide."""
    if profile is not None:
        if profile not in PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of {list(PROFILES)}, "
                             f"got {profile!r}")  # fmt: skip
        OPTIONS.update(PROFILES[profile])
    given = dict(precision=precision, threshold=threshold, edgeitems=edgeitems,
                 linewidth=linewidth)  # fmt: skip
    OPTIONS.update({name: value for name, value in given.items() if value is not None})
    OPTIONS["sci_mode"] = sci_mode


def tensor_repr(values: Any, extras: list[str]) -> str:
    """``tensor(values, extra, ...)``; ``values`` a NumPy or CuPy array, ``extras`` the
    ``name=value`` texts to append (moved to a new line where the last one is full)."""
    a = backend.to_numpy(values)
    summarize = a.size > OPTIONS["threshold"]
    element, width = _formatter(_edges(a) if summarize else a)
    body = _nested(a, element, width, len(PREFIX), summarize) if a.size else "[]"
    text = PREFIX + body
    line = len(text) - text.rfind("\n") + 1  # (PyTorch counts the last line this way)
    for extra in extras:
        if line + len(extra) + 2 > OPTIONS["linewidth"]:
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
    scientific = False  # (all zeros, nan or inf: "0.", "nan")
    if nonzero.size:
        largest, smallest = numpy.abs(nonzero).max(), numpy.abs(nonzero).min()
        scientific = largest / smallest > 1000 or largest > 1e8 or (not whole and smallest < 1e-4)
        if OPTIONS["sci_mode"] is not None:
            scientific = OPTIONS["sci_mode"]
    decimals = OPTIONS["precision"]
    spec = f".{decimals}e" if scientific else (".0f" if whole else f".{decimals}f")
    dot = whole and not scientific  # "2." for a whole number (not for nan or inf)

    def text(v: float) -> str:
        return format(v, spec) + ("." if dot and numpy.isfinite(v) else "")

    width = max((len(text(v)) for v in nonzero.tolist()), default=1)
    return (lambda v: text(v).rjust(width)), width


def _edges(a: numpy.ndarray) -> numpy.ndarray:
    """The elements a summarized print shows: the first and last few of each long dim."""
    edge = OPTIONS["edgeitems"]
    for dim, size in enumerate(a.shape):
        if size > 2 * edge:
            a = numpy.take(a, list(range(edge)) + list(range(size - edge, size)), axis=dim)
    return a


def _nested(a: numpy.ndarray, element: Callable, width: int, indent: int,
            summarize: bool) -> str:  # fmt: skip
    """The bracketed text of ``a``, its rows indented to line up under ``indent``."""
    if a.ndim == 0:
        return element(a.item())
    edge = OPTIONS["edgeitems"]
    cut = summarize and a.shape[0] > 2 * edge
    rows = [*range(edge), None, *range(len(a) - edge, len(a))] if cut else range(len(a))
    if a.ndim == 1:
        items = [" ..." if i is None else element(a[i].item()) for i in rows]
        per_line = max(1, (OPTIONS["linewidth"] - indent) // (width + 2))  # ", " after each
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = ["..." if i is None else _nested(a[i], element, width, indent + 1, summarize)
             for i in rows]  # fmt: skip
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"
