"""``Parameter``: a tensor that a Module learns.

A Parameter is an ordinary :class:`Tensor` (``isinstance(p, Tensor)`` is True) with
``requires_grad=True``. Assigning one to a module attribute registers it, so
``module.parameters()`` finds it and the optimizer can update it.

Assigning the *same* Parameter to two modules ties them: both modules then share one
tensor, one gradient and one optimizer state (``lm_head.weight = wte.weight``).
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor


class Parameter(Tensor):
    __slots__ = ()  # Tensor has __slots__; a Parameter holds nothing more

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        _share_values(self, data, "Parameter")
        self._is_param = True
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> Parameter:
        """copy.deepcopy: a new Parameter with copied values and no ``.grad``, as PyTorch's
        (a plain tensor's deepcopy keeps its ``.grad``; a Parameter's does not, so
        ``copy.deepcopy(model)`` starts with clean gradients)."""
        if id(self) not in memo:
            values = Tensor._make(self.array.copy())
            memo[id(self)] = Parameter(values, self.requires_grad)
        return memo[id(self)]

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild_parameter, (Tensor._make(self.array), self.requires_grad))


def _share_values(t: Tensor, data: Tensor | None, kind: str) -> Tensor:
    """Make the new Parameter or Buffer ``t`` a leaf that shares ``data``'s values (like
    PyTorch's ``Parameter(data)``): no copy, and the same version counter, so an in-place
    change through either name is seen by autograd. Returns data (``empty(0)`` for None)."""
    if data is None:
        from ..factories import empty

        data = empty(0)
    if not isinstance(data, Tensor):
        raise TypeError(
            f"{kind}: expected a Tensor as data, got {type(data).__name__}; "
            "wrap it first with microtorch.tensor(...)"
        )
    t.array = data.array
    t._version_counter = data._version_counter
    t._grad = t.grad_fn = t._hooks = t._post_accumulate_hooks = None
    t._is_param = False
    t._view = None
    t._requires_grad = False
    return data


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


class Buffer(Tensor):
    """A tensor that registers itself as a buffer when assigned to a module attribute:
    ``self.mask = nn.Buffer(t, persistent=False)`` is ``self.register_buffer("mask", t,
    persistent=False)``. It shares ``t``'s values, out of the graph (as ``t.detach()``), and
    keeps ``t.requires_grad``."""

    __slots__ = ("persistent",)

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        data = _share_values(self, data, "Buffer")  # as data.detach()
        if data.requires_grad:
            self.requires_grad_(True)
        self.persistent = persistent


# ------------------------------------------------------------ parameters of lazy modules
_ARRAY = Tensor.array  # the slot that holds a tensor's array (a placeholder here, see below)


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (a Lazy module's, until its first
    forward). It holds an empty placeholder array of the dtype and device it will be made
    with, so ``.to()`` / ``.double()`` on the module still work; reading its values (any op,
    ``.shape``) raises. ``materialize(shape)`` gives it memory and turns it, in place, into
    an ordinary ``cls_to_become`` (Parameter or Tensor)."""

    __slots__ = ()
    cls_to_become: Any = None

    @property
    def array(self) -> Any:
        raise ValueError(
            f"Attempted to use an uninitialized parameter or buffer (nn.parameter."
            f"{type(self).__name__}): it has no shape or values yet. A "
            "Lazy module (nn.LazyLinear, nn.LazyConv2d, ...) makes its parameters in its first "
            "forward: call it on a batch of input first (or call .materialize(shape))"
        )

    @array.setter
    def array(self, value: Any) -> None:
        _ARRAY.__set__(self, value)

    @property
    def _placeholder(self) -> Any:
        """The empty array that records the dtype and device to materialize with."""
        return _ARRAY.__get__(self)

    @property
    def dtype(self) -> Any:
        from .. import dtypes

        return dtypes.from_numpy_dtype(self._placeholder.dtype)

    @property
    def device(self) -> Any:
        from .. import backend

        return backend.device_of(self._placeholder)

    @property
    def shape(self) -> Any:
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer; call the Lazy "
            "module's forward on a batch of input first to make its parameters"
        )

    def requires_grad_(self, requires_grad: bool = True) -> Any:
        self._requires_grad = requires_grad
        return self

    def detach(self) -> Any:
        """Itself: there are no values to detach (state_dict holds it as it is)."""
        return self

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Give it uninitialised memory of ``shape`` (on its device, in its dtype unless
        given), and make it an ordinary ``cls_to_become`` in place: the same object, so
        whatever holds it (a module, an optimizer) sees the change."""
        from .. import factories

        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        values = factories.empty(tuple(shape), device=device, dtype=dtype)
        self.__class__ = self.cls_to_become
        self.array = values.array

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __deepcopy__(self, memo: dict) -> Any:
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (type(self), (self.requires_grad, str(self.device), self.dtype))


def _placeholder(device: Any, dtype: Any) -> Tensor:
    from ..factories import empty

    return empty(0, device=device, dtype=dtype)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter of a Lazy module before its first forward (see UninitializedTensorMixin)."""

    __slots__ = ()
    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(_placeholder(device, dtype), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a Lazy module (e.g. LazyBatchNorm's running_mean) before its first
    forward; it becomes an ordinary Tensor."""

    __slots__ = ()
    cls_to_become = Tensor

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__(_placeholder(device, dtype))
        self._requires_grad = requires_grad


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an uninitialized parameter or buffer (of a Lazy module)."""
    return isinstance(param, UninitializedTensorMixin)
