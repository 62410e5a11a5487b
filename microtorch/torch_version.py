"""``torch.torch_version.TorchVersion``: a version string that compares as a version.

``torch.__version__ >= "2.0"`` compares release numbers, not characters ("0.10" > "0.9"):
the other side may be a string or a tuple/list of numbers such as ``(0, 1)``. Strings that
are not versions ("parrot") fall back to ordinary string comparison, as in PyTorch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# a subset of PEP 440 (the form pip and PyTorch use): 1.2.3, 1.2.3a1, 1.2rc1, 1.2.post1,
# 1.2.dev3, 1.2.3+cpu
_VERSION = re.compile(
    r"^\s*v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>\d*))?"
    r"(?:[-_.]?(?:post|rev|r)[-_.]?(?P<post>\d*))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev>\d*))?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$",
    re.IGNORECASE,
)
_PRE = {"a": "a", "alpha": "a", "b": "b", "beta": "b", "c": "rc", "rc": "rc", "pre": "rc"}
_PRE["preview"] = "rc"
_LOW, _HIGH = (-1,), (1 << 62,)  # before / after any number: "missing" in the sort key


def _version_key(text: str) -> tuple | None:
    """A tuple that sorts as the versions do (None when text is not a version)."""
    m = _VERSION.match(text)
    if m is None:
        return None
    release = [int(p) for p in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:  # 1.0 == 1.0.0
        release.pop()
    pre, post, dev = m["pre"], m["post"], m["dev"]
    if pre is not None:  # 1.0a1 < 1.0b1 < 1.0rc1 < 1.0
        pre_key = (("a", "b", "rc").index(_PRE[pre.lower()]), int(m["pre_n"] or 0))
    elif post is None and dev is not None:  # 1.0.dev1 comes before 1.0a1
        pre_key = _LOW
    else:
        pre_key = _HIGH
    post_key = _LOW if post is None else (int(post or 0),)
    dev_key = _HIGH if dev is None else (int(dev or 0),)
    # a local label sorts after the same version without one (2.1.0+cpu > 2.1.0); its parts
    # compare numbers above words
    parts = re.split(r"[-_.]", m["local"].lower()) if m["local"] else []
    local_key = tuple((1, int(p), "") if p.isdigit() else (0, 0, p) for p in parts)
    return (tuple(release), pre_key, post_key, dev_key, local_key)


class TorchVersion(str):
    """A ``str`` (it prints, hashes and equals as its text) whose comparisons with another
    version string or a tuple of numbers compare as versions: ``TorchVersion("0.10") >
    "0.9"``, ``TorchVersion("2.1.0") >= (2, 1)``. (``!=`` stays str's, as in PyTorch.)"""

    __slots__ = ()

    def _compare(self, other: Any, method: str) -> bool:
        if isinstance(other, str):
            text = str(other)
        elif isinstance(other, Iterable):  # (2, 1) -> "2.1"
            text = ".".join(str(part) for part in other)
        else:  # an int or None: str's own answer (NotImplemented, so a TypeError for <)
            return getattr(super(), method)(other)
        mine, theirs = _version_key(str(self)), _version_key(text)
        if mine is None or theirs is None:  # not versions: compare as strings
            return getattr(super(), method)(other)
        return getattr(mine, method)(theirs)

    def __gt__(self, other: Any) -> bool:
        return self._compare(other, "__gt__")

    def __ge__(self, other: Any) -> bool:
        return self._compare(other, "__ge__")

    def __lt__(self, other: Any) -> bool:
        return self._compare(other, "__lt__")

    def __le__(self, other: Any) -> bool:
        return self._compare(other, "__le__")

    def __eq__(self, other: Any) -> bool:
        return self._compare(other, "__eq__")

    __hash__ = str.__hash__


__all__ = ["TorchVersion"]
