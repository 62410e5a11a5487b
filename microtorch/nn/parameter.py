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
