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
        if data is None:
            from ..factories import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter: expected a Tensor as data, got {type(data).__name__}; "
                "wrap it first with microtorch.tensor(...)"
            )
        # Share the values (like PyTorch's Parameter(t)): no copy, and the same version
        # counter, so an in-place change through either name is seen by autograd.
        self.array = data.array
        self._version_counter = data._version_counter
        self.grad = None
        self.grad_fn = None
        self._hooks = self._post_accumulate_hooks = None
        self._is_param = True
        self._view = None
        self._requires_grad = False
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


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


class Buffer(Tensor):
    """A tensor that registers itself as a buffer when assigned to a module attribute:
    ``self.mask = nn.Buffer(t, persistent=False)`` is ``self.register_buffer("mask", t,
    persistent=False)``. It shares ``t``'s values, out of the graph (as ``t.detach()``), and
    keeps ``t.requires_grad``."""

    __slots__ = ("persistent",)

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        if data is None:
            from ..factories import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Buffer: expected a Tensor as data, got {type(data).__name__}; "
                "wrap it first with microtorch.tensor(...)"
            )
        # as data.detach(): the same values and version counter, out of the graph
        self.array = data.array
        self._version_counter = data._version_counter
        self._grad = self.grad_fn = self._hooks = self._post_accumulate_hooks = None
        self._is_param = False
        self._view = None
        self._requires_grad = False
        if data.requires_grad:
            self.requires_grad_(True)
        self.persistent = persistent
