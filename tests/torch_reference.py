"""Which PyTorch release the torch comparisons follow, for the few behaviours that older
releases do not share.

Tests compare microtorch with whatever PyTorch is installed. With an older one (the GPU
machine's image has PyTorch 2.11) a few answers differ because PyTorch itself changed since:
a module's repr gained ``bias=``, aminmax gained a gradient, ... Those checks ask
``torch_before(release)`` (or carry ``needs_torch(release, what)``), so that they run from
that release on and skip, saying why, below it. Each such release is the one the check was
written against (2.13); 2.11 was checked to differ."""

from __future__ import annotations

import importlib.metadata

import pytest

REFERENCE = (2, 13)  # the release the comparisons were written against


def installed_torch() -> tuple[int, int] | None:
    """(major, minor) of the installed PyTorch, read without importing it; None if absent."""
    try:
        major, minor = importlib.metadata.version("torch").split(".")[:2]
    except importlib.metadata.PackageNotFoundError:
        return None
    return int(major), int(minor)


def torch_before(release: tuple[int, int]) -> bool:
    """Whether an installed PyTorch is older than ``release`` (False without PyTorch)."""
    found = installed_torch()
    return found is not None and found < release


def needs_torch(release: tuple[int, int], what: str) -> pytest.MarkDecorator:
    """A mark that skips the test or case where the installed PyTorch predates ``what``."""
    return pytest.mark.skipif(
        torch_before(release),
        reason=f"the installed PyTorch is older than {release[0]}.{release[1]}, whose "
        f"behaviour microtorch follows here ({what})",
    )


def value_and_grad(lib, fn, x, g):
    """fn(lib.tensor(x)) and the input's gradient for the upstream gradient g, as arrays
    (the same source run in microtorch and in torch)."""
    t = lib.tensor(x, requires_grad=True)
    y = fn(t)
    y.backward(lib.tensor(g))
    return y.detach().numpy(), t.grad.numpy()
