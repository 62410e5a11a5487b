"""``torch.overrides``: the protocol by which a type takes over a function for its own
arguments. A class that defines ``__torch_function__(cls, func, types, args=(), kwargs=None)``
is "tensor-like"; a function written to honour the protocol starts with

    if has_torch_function((x,)):
        return handle_torch_function(my_function, (x,), x, ...)

and handle_torch_function calls the arguments' ``__torch_function__`` (subclasses before
their bases, otherwise in order of the arguments), returning the first result that is not
NotImplemented, as PyTorch's does. ``Tensor.__torch_function__`` is PyTorch's default: it
calls the function with the protocol switched off and returns its tensors as the subclass.

Difference from PyTorch: microtorch's own functions and Tensor methods do not consult
``__torch_function__`` (PyTorch checks every argument of every call, in C). There is no one
place to do it here: the public functions call one or several autograd Functions each, so
Function.apply would hand ``__torch_function__`` its primitive ops (Add, Reshape...), not
``torch.add`` or ``Tensor.view``, and checking at each of the thousand public entries is
the per-call cost and wrapping this codebase avoids. So a subclass's
``__torch_function__`` runs for the functions that call handle_torch_function (a user's
own), and the results of microtorch's functions are plain Tensors.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .autograd import is_tensor_like

__all__ = [
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
]

_disabled = 0  # > 0 inside Tensor.__torch_function__'s call of the function
_dispatching = 0  # > 0 inside handle_torch_function


@contextlib.contextmanager
def _protocol_off() -> Iterator[None]:
    """No argument's ``__torch_function__`` is consulted inside (PyTorch's
    DisableTorchFunctionSubclass), so the default implementation does not call itself."""
    global _disabled
    _disabled += 1
    try:
        yield
    finally:
        _disabled -= 1


def _overrides(arg: Any) -> bool:
    """Whether ``arg``'s type takes part: it defines ``__torch_function__`` and is not
    exactly Tensor or Parameter (whose default implementation only calls the function)."""
    from ._tensor import Tensor
    from .nn.parameter import Parameter

    kind = type(arg)
    return kind is not Tensor and kind is not Parameter and hasattr(kind, "__torch_function__")


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """True if any of ``relevant_args`` takes over functions through ``__torch_function__``
    (a Tensor subclass, or another type defining it)."""
    return not _disabled and any(_overrides(arg) for arg in relevant_args)


def has_torch_function_unary(arg: Any) -> bool:
    """has_torch_function((arg,))."""
    return not _disabled and _overrides(arg)


def has_torch_function_variadic(*args: Any) -> bool:
    """has_torch_function(args)."""
    return not _disabled and any(_overrides(arg) for arg in args)


def _overloaded_types(relevant_args: Iterable[Any]) -> list[type]:
    """The types of the arguments that define ``__torch_function__``, each once, in the order
    PyTorch tries them: as given, except that a subclass comes before its bases."""
    types: list[type] = []
    for arg in relevant_args:
        kind = type(arg)
        if kind in types or not hasattr(kind, "__torch_function__"):
            continue
        place = len(types)
        for i, earlier in enumerate(types):
            if issubclass(kind, earlier):
                place = i
                break
        types.insert(place, kind)
    return types


def handle_torch_function(public_api: Callable, relevant_args: Iterable[Any], *args: Any,
                          **kwargs: Any) -> Any:  # fmt: skip
    """``public_api(*args, **kwargs)`` as the tensor-like arguments' ``__torch_function__``
    implement it: the first result that is not NotImplemented (TypeError if all are)."""
    global _dispatching
    types = tuple(_overloaded_types(relevant_args))
    for kind in types:
        _dispatching += 1
        try:
            result = kind.__torch_function__(public_api, types, args, kwargs)
        finally:
            _dispatching -= 1
        if result is not NotImplemented:
            return result
    name = f"{getattr(public_api, '__module__', '')}.{getattr(public_api, '__name__', public_api)}"
    raise TypeError(
        f"no implementation found for '{name}' on types that implement __torch_function__: "
        f"{list(types)}"
    )


def default_torch_function(cls: type, func: Callable, types: Iterable[type], args: Any = (),
                           kwargs: Any = None) -> Any:  # fmt: skip
    """Tensor.__torch_function__: NotImplemented unless ``cls`` is a subclass of every type
    in ``types``; else ``func(*args, **kwargs)`` with the protocol off, its tensors returned
    as ``cls`` (PyTorch's default). Called from outside handle_torch_function (by PyTorch
    itself, when a microtorch tensor meets one of its tensors: ``torch.ones(2) + x``), it
    answers NotImplemented, so that Python falls back on microtorch's own operators."""
    if not _dispatching or not all(issubclass(cls, kind) for kind in types):
        return NotImplemented
    with _protocol_off():
        result = func(*args, **(kwargs or {}))
    return _as_subclass(result, cls)


def _as_subclass(result: Any, cls: type) -> Any:
    """The tensors in ``result`` (itself, or in a tuple or list) seen as ``cls``."""
    from ._tensor import Tensor

    if isinstance(result, (tuple, list)):
        converted = [_as_subclass(r, cls) for r in result]
        return (
            type(result)(converted) if not hasattr(result, "_fields") else type(result)(*converted)
        )
    if isinstance(result, Tensor) and not isinstance(result, cls):
        return result.as_subclass(cls)
    return result
