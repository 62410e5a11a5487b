"""Gradient clipping: rescale (``clip_grad_norm_``, which is ``get_total_norm`` then
``clip_grads_with_norm_``) or clamp (``clip_grad_value_``) the ``.grad`` of parameters in
place, between ``loss.backward()`` and ``optimizer.step()``.

Both work on the raw gradient arrays. On a GPU the total norm stays a device array and
the scale factor is applied without reading it back to the host, so clipping does not
make the CPU wait for the GPU."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from typing import Any

import numpy

from ... import backend, dtypes
from ..._tensor import Tensor


def _arrays(tensors: Tensor | Iterable[Tensor | None]) -> list:
    """The raw arrays of the non-empty tensors, all on one device."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    arrays = [t.array for t in tensors if t is not None and t.array.size]
    if len({type(a) for a in arrays}) > 1:
        raise RuntimeError(
            "clip_grad: the gradients are on different devices (CPU and CUDA); move the "
            "model to one device first"
        )
    return arrays


def _grad_arrays(parameters: Tensor | Iterable[Tensor]) -> list:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return _arrays([p.grad for p in parameters])


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:  # fmt: skip
    """The norm of all ``tensors`` (usually gradients) together, as if joined into one
    vector (for the 2-norm: sqrt of the sum of every element squared), as a 0-d tensor."""
    arrays = _arrays(tensors)
    norm_type = float(norm_type)
    if not arrays:  # no gradients at all: 0, in the default float dtype as in PyTorch
        return Tensor._make(numpy.zeros((), dtype=dtypes.get_default_dtype().np))
    xp = backend.xp_of(arrays[0])
    if len(arrays) > 1 and any(a.dtype.itemsize < 4 for a in arrays):
        # as PyTorch: each half-precision gradient's norm is rounded to its dtype first, and
        # then the per-gradient norms are combined, the result in their common dtype
        norms = [_norm_of([a], norm_type, xp) for a in arrays]
        wide = [n.astype(numpy.float32) if n.dtype.itemsize < 4 else n for n in norms]
        total = _norm_of(wide, norm_type, xp).astype(xp.result_type(*norms))
    else:
        total = _norm_of(arrays, norm_type, xp)
    if error_if_nonfinite and not bool(xp.isfinite(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return Tensor._make(total)


def _norm_of(arrays: list, norm_type: float, xp) -> Any:  # noqa: ANN001 (numpy or cupy)
    """The norm of ``arrays`` joined into one vector (for the 0-"norm": how many of them are
    not all 0), a 0-d array in their common dtype."""
    # Half-precision sums overflow easily: measure in at least float32.
    measured = [a if a.dtype.itemsize >= 4 else a.astype(numpy.float32) for a in arrays]
    if norm_type == math.inf:
        total = xp.stack([xp.abs(a).max() for a in measured]).max()
    elif norm_type == -math.inf:  # the smallest magnitude of any element
        total = xp.stack([xp.abs(a).min() for a in measured]).min()
    elif norm_type == 2.0:
        # vdot of a flat array with itself = its sum of squares, in one BLAS call
        squares = [xp.vdot(a.ravel(), a.ravel()) for a in measured]
        total = xp.sqrt(xp.stack(squares).sum())
    elif norm_type == 0.0:  # PyTorch's "0-norm" of the per-tensor 0-norms: how many
        counts = xp.stack([xp.count_nonzero(a) for a in measured])  # tensors are not all 0
        total = xp.count_nonzero(counts).astype(measured[0].dtype)
    else:
        sums = [(xp.abs(a) ** norm_type).sum() for a in measured]
        total = xp.stack(sums).sum() ** (1.0 / norm_type)
    # a 0-d array (numpy reductions may give scalars) in the gradients' common dtype, as in
    # PyTorch: float16 gradients alone have a float16 norm (measured in float32, rounded once)
    return xp.asarray(total).astype(xp.result_type(*arrays), copy=False)


def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                          total_norm: Tensor, foreach: bool | None = None) -> None:  # fmt: skip
    """Multiply every gradient by min(1, max_norm / (total_norm + 1e-6)), in place (with
    ``total_norm`` from get_total_norm of those gradients)."""
    grads = _grad_arrays(parameters)
    if not grads:
        return
    xp = backend.xp_of(grads[0])
    coef = float(max_norm) / (xp.asarray(total_norm.array) + 1e-6)  # 0-d, still on the device
    if xp is numpy:
        # on the host the test is free: multiplying by 1 changes nothing (a nan norm scales
        # every gradient to nan, as in PyTorch and on the GPU)
        if not coef >= 1.0:
            _scale(grads, coef)
    else:
        _scale(grads, xp.minimum(coef, 1.0))  # no host sync: always scale, by 1 if not clipping


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                    norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:  # fmt: skip
    """Scale all gradients together so that their combined norm is at most ``max_norm``.

    The combined norm is get_total_norm of the gradients; clip_grads_with_norm_ then
    multiplies each by min(1, max_norm / (total_norm + 1e-6)). Returns the total norm
    *before* clipping, as a 0-d tensor."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    parameters = list(parameters)  # walked twice: a generator would be empty the second time
    total = get_total_norm([p.grad for p in parameters], norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters: Tensor | Iterable[Tensor], max_norm: float,
                   norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:  # fmt: skip
    """Deprecated, as in PyTorch (FutureWarning): clip_grad_norm_."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def _scale(grads: list, coef) -> None:  # noqa: ANN001 (a 0-d float32/float64 array)
    for g in grads:
        if g.dtype.itemsize < 4:  # float16: scaled in float32 and rounded once, as PyTorch does
            g[...] = g.astype(coef.dtype) * coef
        else:
            g *= coef


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float,
                     foreach: bool | None = None) -> None:  # fmt: skip
    """Clamp every gradient element into [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    for g in _grad_arrays(parameters):
        backend.xp_of(g).clip(g, -clip_value, clip_value, out=g)
