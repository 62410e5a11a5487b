"""``microtorch.func.rearrange``: einops-style axis shuffling, as ``torch.func.rearrange``.

    rearrange(images, "b h w c -> b c h w")                    # a permute
    rearrange(images, "b h w c -> (b h) w c")                  # merge axes: a reshape
    rearrange(images, "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=2)  # split and merge

Each side names the axes, one word per axis; ``(a b)`` is one dim made of axes a and b
(a outer); ``...`` stands for the dims the names leave over. It is three differentiable
ops: a reshape into the left side's single axes, a permute into the right side's order,
and a reshape that merges the right side's groups.
"""

from __future__ import annotations

import math
from typing import Any

from . import functional as F
from ._tensor import Tensor


def rearrange(tensor: Any, pattern: str, **axes_lengths: int) -> Tensor:
    """``tensor`` (or a list/tuple of tensors, stacked first) with its axes rearranged as
    ``pattern`` says; ``axes_lengths`` gives the sizes a split cannot infer."""
    if isinstance(tensor, (list, tuple)):
        tensor = F.stack(list(tensor))
    left_text, arrow, right_text = pattern.partition("->")
    if not arrow:
        raise ValueError(f"rearrange: pattern {pattern!r} must have '->' between its two sides")
    left, right = _groups(left_text), _groups(right_text)
    left_names = [n for group in left for n in group]
    right_names = [n for group in right for n in group]
    if set(left_names) != set(right_names):
        raise ValueError(
            "rearrange: identifiers only on one side of the expression (should be on both): "
            f"{set(left_names) ^ set(right_names)}"
        )
    covered = tensor.ndim - (len(left) - 1) if ["..."] in left else 0  # dims "..." stands for
    if len(left) - (["..."] in left) + covered != tensor.ndim or covered < 0:
        raise ValueError(
            f"rearrange: the pattern {pattern!r} names {len(left)} dims; the tensor has "
            f"{tensor.ndim}"
        )
    left, right = _expand_ellipsis(left, covered), _expand_ellipsis(right, covered)
    sizes: dict[str, int] = {}
    for group, size in zip(left, tensor.shape):
        _bind(group, size, axes_lengths, sizes)
    order = [n for group in left for n in group]
    wanted = [n for group in right for n in group]
    out = F.reshape(tensor, tuple(sizes[n] for n in order))
    out = F.permute(out, tuple(order.index(n) for n in wanted))
    return F.reshape(out, tuple(math.prod(sizes[n] for n in group) for group in right))


def _groups(side: str) -> list[list[str]]:
    """The axes of one side: each dim a list of names ("(h w)" gives ["h", "w"])."""
    groups: list[list[str]] = []
    current: list[str] | None = None
    for token in side.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            if current is not None:
                raise ValueError(f"rearrange: nested brackets in {side.strip()!r}")
            current = []
        elif token == ")":
            if current is None:
                raise ValueError(f"rearrange: unopened ')' in {side.strip()!r}")
            groups.append(current)
            current = None
        elif current is not None:
            current.append(token)
        else:
            groups.append([token])
    if current is not None:
        raise ValueError(f"rearrange: unclosed '(' in {side.strip()!r}")
    names = [n for group in groups for n in group]
    for n in names:
        if n != "..." and not n.isidentifier():
            raise ValueError(f"rearrange: {n!r} is not an axis name")
    if len(set(names)) != len(names):
        raise ValueError(f"rearrange: {side.strip()!r} names an axis twice")
    return groups


def _expand_ellipsis(groups: list[list[str]], covered: int) -> list[list[str]]:
    """``...`` (a dim of its own on a side) as the ``covered`` single axes it stands for."""
    if ["..."] not in groups:
        return groups
    at = groups.index(["..."])
    return groups[:at] + [[f"...{i}"] for i in range(covered)] + groups[at + 1 :]


def _bind(group: list[str], size: int, axes_lengths: dict, sizes: dict) -> None:
    """The size of each axis of one left-side dim of ``size`` elements: given ones from
    axes_lengths, at most one unknown, which takes what is left."""
    unknown = [n for n in group if n not in axes_lengths]
    known = math.prod(axes_lengths[n] for n in group if n in axes_lengths)
    if len(unknown) > 1:
        raise ValueError(f"rearrange: give the sizes of all but one of {group} (axes_lengths)")
    if (unknown and (known == 0 or size % known)) or (not unknown and known != size):
        raise ValueError(f"rearrange: the axes {group} do not fit a dim of size {size}")
    for n in group:
        sizes[n] = axes_lengths[n] if n in axes_lengths else size // known
