"""The ``out=`` argument: ``torch.mul(a, b, out=c)`` writes the product into ``c``.

Every function that takes ``out=`` computes its result as usual, then hands it to
``write_out``, which copies it into the given tensor (in place, so a view's base sees it
too) and returns that tensor, as PyTorch does:

- the result is cast to ``out``'s dtype when PyTorch's casting rule allows it (an integer
  result into a float tensor, float64 into float32), else RuntimeError (TypeError for cat);
  for ops with several results (``max(x, 0, out=(values, indices))``), and the many ops
  whose PyTorch kernels take no cast (``exact_dtype``: matmul, abs, clamp by numbers, the
  norms, the ``*_copy`` views, index_copy...), out's dtype must be the result's own;
- ``out`` is resized to the result's shape, with PyTorch's warning if it had elements;
- ``out=`` records no graph, so it is refused (RuntimeError) where a gradient would be
  needed: under grad mode with an input or ``out`` that requires grad.
"""

from __future__ import annotations

from typing import Any

from . import dtypes as _dtypes
from ._tensor import Tensor
from ._warn import warn_user
from .autograd import grad_mode


def write_out(
    result: Any, out: Any, op: str, *, exact_dtype: bool = False, cast_error: type = RuntimeError
) -> Any:
    """``result`` if ``out`` is None; else ``result`` copied into ``out``, which is returned
    (a tuple of tensors for ops with several results, as the same named tuple). With
    ``exact_dtype`` (ops that PyTorch does not cast into out: index_copy, scatter_reduce...)
    out must have the result's dtype; ``cast_error`` is the error for a dtype the result
    can't be cast to (TypeError for cat and the stacks, as in PyTorch)."""
    if out is None:
        return result
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(
                f"{op}(): out must be a tuple of {len(result)} tensors, got {_describe(out)}"
            )
        outs = [_check_out(r, o, op, exact_dtype=True) for r, o in zip(result, out)]
        for r, o in zip(result, outs):
            _copy_into(r, o)
        return type(result)(*outs) if hasattr(result, "_fields") else tuple(outs)
    _copy_into(result, _check_out(result, out, op, exact_dtype, cast_error))
    return out


def _tensor_out(out: Any, op: str) -> Tensor:
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    return out


def _check_out(
    result: Tensor, out: Any, op: str, exact_dtype: bool, cast_error: type = RuntimeError
) -> Tensor:
    _tensor_out(out, op)
    from .functional import _check_writable  # (functional imports this module)

    _check_writable(out, f"{op}(): out=")  # an expanded out: many elements, one memory cell
    if grad_mode.enabled and (result.requires_grad or out.requires_grad):
        raise RuntimeError(
            f"{op}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    if out.device != result.device:
        raise RuntimeError(
            f"{op}(): expected out tensor to be on device {result.device}, but got "
            f"{out.device}; make it with device={str(result.device)!r}"
        )
    if exact_dtype and out.dtype != result.dtype:
        raise RuntimeError(
            f"{op}(): expected out tensor to have dtype {result.dtype}, but got {out.dtype} instead"
        )
    if not _dtypes.can_cast(result.dtype, out.dtype):
        raise cast_error(
            f"{op}(): result type {result.dtype} can't be cast to the desired output type "
            f"{out.dtype}"
        )
    return out


def _copy_into(result: Tensor, out: Tensor) -> None:
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            warn_user(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                "with t.resize_(0)."
            )
        out.resize_(result.shape)
    with grad_mode.no_grad():
        out.copy_(result)


def _describe(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    return type(value).__name__


def factory_target(dtype: Any, device: Any, out: Any, op: str) -> tuple:
    """The (dtype, device) a factory makes its tensor with when given ``out=`` (``zeros(2,
    out=t)``): out's, where none is given; a given dtype must be out's."""
    if out is None:
        return dtype, device
    _tensor_out(out, op)
    if dtype is not None and _dtypes.get_dtype(dtype) != out.dtype:
        raise RuntimeError(
            f"{op}(): dtype {_dtypes.get_dtype(dtype)} does not match dtype of out parameter "
            f"({out.dtype})"
        )
    return out.dtype, out.device if device is None else device
