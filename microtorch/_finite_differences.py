"""``torch.gradient``: the derivative of sampled values estimated by finite differences.

Along each dim, interior points use the second-order central difference (for uneven
spacing, the one that is exact for quadratics through the point and its two neighbours);
the two end points use a one-sided difference of first or second order (``edge_order``).
Written as slices and arithmetic of existing ops, so autograd differentiates it (it is
linear in the values).
"""

from __future__ import annotations

import builtins
import numbers
from typing import Any

from . import functional as F
from ._tensor import Tensor


def _coefficient(c: Tensor, dim: int, ndim: int) -> Tensor:
    """A 1-D tensor of per-position coefficients shaped to broadcast along ``dim``."""
    return c.reshape([-1 if d == dim else 1 for d in range(ndim)])


def _along(f: Tensor, dim: int, start: int, length: int) -> Tensor:
    return F.narrow(f, dim, start, length)


def _uniform(f: Tensor, dim: int, h: Any, edge_order: int) -> Tensor:
    """df/dx along dim for samples h apart."""
    n = f.shape[dim]
    inner = (_along(f, dim, 2, n - 2) - _along(f, dim, 0, n - 2)) / (2 * h)
    f0, f1, fn, fm = (_along(f, dim, i, 1) for i in (0, 1, n - 1, n - 2))
    if edge_order == 1:
        first, last = (f1 - f0) / h, (fn - fm) / h
    else:  # the parabola through the first (last) three points: (-3 f0 + 4 f1 - f2) / 2h
        f2, fl = _along(f, dim, 2, 1), _along(f, dim, n - 3, 1)
        first = (-1.5 * f0 + 2 * f1 - 0.5 * f2) / h
        last = (0.5 * fl - 2 * fm + 1.5 * fn) / h
    return F.cat([first, inner, last], dim)


def _uneven(f: Tensor, dim: int, x: Tensor, edge_order: int) -> Tensor:
    """df/dx along dim for samples at the coordinates x (1-D, one per position)."""
    n, ndim = f.shape[dim], f.ndim
    dx = x[1:] - x[:-1]
    left, right = dx[:-1], dx[1:]  # each interior point's distances to its neighbours
    # the derivative at 0 of the parabola through (-l, a), (0, b), (r, c):
    #   -r / (l (l + r)) a + (r - l) / (l r) b + l / (r (l + r)) c
    a = _coefficient(-right / (left * (left + right)), dim, ndim)
    b = _coefficient((right - left) / (left * right), dim, ndim)
    c = _coefficient(left / (right * (left + right)), dim, ndim)
    inner = (
        a * _along(f, dim, 0, n - 2) + b * _along(f, dim, 1, n - 2) + c * _along(f, dim, 2, n - 2)
    )
    f0, f1, fn, fm = (_along(f, dim, i, 1) for i in (0, 1, n - 1, n - 2))
    if edge_order == 1:
        first, last = (f1 - f0) / dx[0], (fn - fm) / dx[-1]
    else:  # the same parabola's derivative at its first (last) point
        f2, fl = _along(f, dim, 2, 1), _along(f, dim, n - 3, 1)
        l1, r1 = dx[0], dx[1]
        first = (
            -(2 * l1 + r1) / (l1 * (l1 + r1)) * f0
            + (l1 + r1) / (l1 * r1) * f1
            - l1 / (r1 * (l1 + r1)) * f2
        )
        l2, r2 = dx[-2], dx[-1]
        last = (
            r2 / (l2 * (l2 + r2)) * fl
            - (l2 + r2) / (l2 * r2) * fm
            + (2 * r2 + l2) / (r2 * (l2 + r2)) * fn
        )
    return F.cat([first, inner, last], dim)


def _is_scalar(value: Any) -> bool:
    return isinstance(value, numbers.Number) or (isinstance(value, Tensor) and value.ndim == 0)


def gradient(input: Tensor, *, spacing: Any = None, dim: Any = None,
             edge_order: int = 1) -> tuple[Tensor, ...]:  # fmt: skip
    """The derivative of ``input``'s values along each of ``dim`` (all dims by default),
    one tensor per dim: samples ``spacing`` apart (a number, one number per dim, or one
    1-D tensor of coordinates per dim; None: 1)."""
    if F._check_tensor(input, "gradient").dtype is F._dtypes.bool:
        raise RuntimeError("gradient: bool tensors are not supported (it subtracts); use .float()")
    spacing = 1 if spacing is None else spacing
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dim is None:
        dims = list(range(input.ndim))
    else:
        dims = [dim] if isinstance(dim, builtins.int) else list(dim)
        dims = [F.wrap_dim(d, input.ndim, "gradient") for d in dims]
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"gradient: dim {dim} names a dimension more than once")
    if _is_scalar(spacing):
        spacings = [spacing] * len(dims)
    else:
        spacings = list(spacing)
        if len(spacings) != len(dims):
            given = (
                f"since dim argument was given as {dim}" if dim is not None
                else "since dim argument was not given"
            )  # fmt: skip
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar, or a list of "
                f"length equal to 'self.dim() = {input.ndim}', {given}, but got a list of "
                f"length {len(spacings)}"
            )
    f = F._float_input(input, "gradient")
    results = []
    for d, h in zip(dims, spacings):
        if f.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1 "
                f"(dim {d} has size {f.shape[d]}, edge_order is {edge_order})"
            )
        if _is_scalar(h):
            results.append(_uniform(f, d, h.item() if isinstance(h, Tensor) else h, edge_order))
            continue
        if not isinstance(h, Tensor) or h.ndim != 1 or h.shape[0] != f.shape[d]:
            raise RuntimeError(
                f"torch.gradient expected each tensor in spacing to be 1-D with as many "
                f"coordinates as dim {d} has values ({f.shape[d]}), got "
                f"{tuple(h.shape) if isinstance(h, Tensor) else type(h).__name__}"
            )
        x = h if h.dtype.is_floating_point else h.to(f.dtype)
        results.append(_uneven(f, d, x, edge_order))
    return tuple(results)
