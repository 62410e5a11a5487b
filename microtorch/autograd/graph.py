"""``torch.autograd.graph``: look at the recorded graph and hook into it.

Every ``grad_fn`` is a ``Node`` (each op's ``Function`` instance); a leaf tensor that
requires grad is reached through an ``AccumulateGrad`` node, made the first time something
asks for it (``next_functions`` or ``get_gradient_edge``), which adds the gradient into its
``.variable.grad``:

    y = x * w
    y.grad_fn.name()              # 'MulBackward0'
    y.grad_fn.next_functions      # ((<AccumulateGrad>, 0), (<AccumulateGrad>, 0))
    y.grad_fn.register_prehook(lambda grad_outputs: print(grad_outputs))

The engine itself follows ``fn.parents`` (the producing node, the leaf tensor itself, or
None, per input): ``next_functions`` is PyTorch's view of the same links.

``saved_tensors_hooks(pack, unpack)`` (and ``save_on_cpu``) change how the arrays an op
saves for backward are kept. Outside such a block it costs one test of a module variable
in ``Function.save_for_backward`` (``function._saved_tensors_hooks``, None); inside, the op
remembers the hooks, ``Function.apply`` packs what it saved once the node is recorded
(``pack_saved``) and ``Function.saved`` unpacks it when backward reads it.

Differences from PyTorch: every microtorch node has one output (``output_nr`` is always 0;
each piece of a ``split`` has a node of its own, ``SplitPieceBackward0``); a node's inputs
are those of microtorch's op, which are not always PyTorch's (see ``Function.name``), nor
are the arrays it saves (``Mul`` saves ``(a, b)``, PyTorch ``(other, self)``). Under
``autograd.grad`` a node's ``register_hook`` sees a gradient for every input that required
grad when the op ran, where PyTorch gives None for those the call does not need. With
``register_multi_grad_hook(mode="any")``, the gradient passed is the first microtorch's
engine finishes, which may be another tensor's than PyTorch's.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from .._hooks import RemovableHandle  # (torch.autograd.graph has it too)


class Node:
    """The common base of the graph's nodes: each op's ``Function`` and ``AccumulateGrad``."""

    parents: tuple = ()  # per input: the producing Function, a leaf Tensor, or None
    pre_hooks: list | None = None  # register_prehook: hook(grad_outputs)
    post_hooks: list | None = None  # register_hook: hook(grad_inputs, grad_outputs)
    _metadata: dict | None = None

    def name(self) -> str:
        """The node's name, as PyTorch's (``MulBackward0``, ``AccumulateGrad``)."""
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        """Per input, ``(node, 0)``: the node its gradient goes to (``AccumulateGrad`` for a
        leaf), or ``(None, 0)`` for an input that needs no gradient."""
        return tuple((_node_of(p), 0) for p in self.parents)

    @property
    def metadata(self) -> dict:
        """A dict of your own to keep things on this node (empty at first)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_prehook(self, fn: Callable) -> Any:
        """Call ``fn(grad_outputs)`` (a tuple with the gradient of this node's output)
        before the node runs; a returned tuple replaces it. Returns a handle with
        ``.remove()``. Tensor hooks of the output run first, as in PyTorch."""
        if self.pre_hooks is None:
            self.pre_hooks = []
        return _handle(self.pre_hooks, fn)

    def register_hook(self, fn: Callable) -> Any:
        """Call ``fn(grad_inputs, grad_outputs)`` after the node has run: the gradients it
        computed for its inputs (None for an input that needs none) and the one it got; a
        returned tuple replaces grad_inputs. Returns a handle with ``.remove()``."""
        if self.post_hooks is None:
            self.post_hooks = []
        return _handle(self.post_hooks, fn)

    def __repr__(self) -> str:
        return f"<{self.name()}>"


class AccumulateGrad(Node):
    """The node of a leaf tensor that requires grad: it adds the gradient into
    ``variable.grad``. One per leaf while something refers to it, as in PyTorch."""

    def __init__(self, variable: Any) -> None:
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # (PyTorch's, from its C++ class)

    def __repr__(self) -> str:
        return "<AccumulateGrad>"


# id(leaf) -> its AccumulateGrad, while that node is alive (it refers to the leaf, so the id
# cannot be reused meanwhile). Keep a node to keep hooks registered on it, as in PyTorch.
accumulators: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _node_of(parent: Any) -> Node | None:
    """A parent link as a node: itself, a leaf's AccumulateGrad, or None."""
    if parent is None or isinstance(parent, Node):
        return parent
    node = accumulators.get(id(parent))
    if node is None:
        node = accumulators[id(parent)] = AccumulateGrad(parent)
    return node


def _handle(hooks: list, hook: Callable) -> Any:
    from .._tensor import _HookHandle  # (the tensor module imports the ops, which import us)

    hooks.append(hook)
    return _HookHandle(hooks, hook)


def _tensors(arrays: Iterable) -> tuple:
    from .._tensor import Tensor
    from ..backend import xp_of

    return tuple(None if a is None else Tensor._make(xp_of(a).asarray(a)) for a in arrays)


def run_pre_hooks(node: Node, grad: Any) -> Any:
    """The gradient of the node's output after its register_prehook hooks."""
    for hook in list(node.pre_hooks or ()):
        replaced = hook(_tensors((grad,)))
        if replaced is not None:
            grad = _arrays(node, replaced, 1, "pre-hook")[0]
    return grad


def run_post_hooks(node: Node, grad_inputs: tuple, grad: Any) -> tuple:
    """The gradients the node computed for its inputs, after its register_hook hooks."""
    grad_outputs = _tensors((grad,))
    for hook in list(node.post_hooks or ()):
        given = _tensors(None if p is None else g for p, g in zip(node.parents, grad_inputs))
        replaced = hook(given, grad_outputs)
        if replaced is not None:
            grad_inputs = _arrays(node, replaced, len(grad_inputs), "hook")
    return grad_inputs


def _arrays(node: Node, replaced: Any, n: int, kind: str) -> tuple:
    if not isinstance(replaced, (tuple, list)) or len(replaced) != n:
        raise RuntimeError(
            f"{node.name()}: a {kind} must return None or a tuple of {n} gradients (tensors "
            f"or None), got {type(replaced).__name__}"
            + (f" of length {len(replaced)}" if isinstance(replaced, (tuple, list)) else "")
        )
    return tuple(None if g is None else g.array for g in replaced)


def accumulate(leaf: Any, grad: Any, add: Callable) -> None:
    """``add(leaf, grad)`` (engine.add_to_grad), with the hooks of the leaf's AccumulateGrad
    around it: its pre-hooks may replace grad, its hooks then get ``((), (grad,))``."""
    node = accumulators.get(id(leaf))
    if node is None or (node.pre_hooks is None and node.post_hooks is None):
        add(leaf, grad)
        return
    grad = run_pre_hooks(node, grad)
    add(leaf, grad)
    for hook in list(node.post_hooks or ()):
        hook((), _tensors((grad,)))


class GradientEdge(NamedTuple):
    """Where a tensor's gradient goes in the graph: ``node`` (its grad_fn, or a leaf's
    AccumulateGrad) and which of the node's outputs it is (always 0 in microtorch)."""

    node: Node
    output_nr: int
    ownership_token: Any = None


def get_gradient_edge(tensor: Any) -> GradientEdge:
    """The ``GradientEdge`` of ``tensor``: its grad_fn, or its AccumulateGrad for a leaf."""
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    return GradientEdge(_node_of(tensor.grad_fn or tensor), 0)


def increment_version(tensor: Any) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor in an iterable), as an
    in-place change does: a graph that saved it then refuses to use it in backward."""
    from .._tensor import Tensor

    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        t._version_counter.value += 1


class _MultiHandle(RemovableHandle):
    """What register_multi_grad_hook returns: ``.remove()`` takes out every tensor's hook
    (a RemovableHandle, as PyTorch's, also a context manager)."""

    def __init__(self, handles: tuple) -> None:
        super().__init__({})
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors: Iterable, fn: Callable, *, mode: str = "all") -> Any:
    """Call ``fn`` once per backward that reaches some of ``tensors``: with ``mode="all"``,
    ``fn(grads)`` after the backward, grads a list with each tensor's gradient (None for
    those that got none); with ``mode="any"``, ``fn(grad)`` with the first gradient
    computed. ``fn`` cannot change the gradients. Returns a handle with ``.remove()``."""
    from . import engine

    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    grads: list = [None] * len(tensors)
    started = [False]  # has a hook fired in the current backward?

    def finish() -> None:  # queued at the first hook of a backward, run at its end
        started[0] = False
        if mode == "all":
            found, grads[:] = list(grads), [None] * len(tensors)
            fn(found)

    def hook_for(i: int) -> Callable:
        def hook(grad: Any) -> None:
            first = not started[0]
            if first:
                started[0] = True
                engine.queue_callback(finish)
            if mode == "all":
                grads[i] = grad
            elif first:
                fn(grad)

        return hook

    return _MultiHandle(
        tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors) if t.requires_grad)
    )


# --- saved tensors hooks -----------------------------------------------------------
class saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """Inside ``with saved_tensors_hooks(pack_hook, unpack_hook):``, each tensor an op saves
    for backward is handed to ``pack_hook(tensor)``, and the graph keeps what it returns;
    when backward needs the tensor, ``unpack_hook(packed)`` must give it back (a tensor of
    the same values). The hooks then own the saved values: microtorch no longer checks
    them for in-place changes, as PyTorch does not. The innermost block's hooks apply."""

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        from . import function

        if _hooks_disabled is not None:
            raise RuntimeError(_hooks_disabled)
        self._previous = function._saved_tensors_hooks
        function._saved_tensors_hooks = (self.pack_hook, self.unpack_hook)
        return self

    def __exit__(self, *exc: Any) -> None:
        from . import function

        function._saved_tensors_hooks = self._previous


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 (PyTorch's name)
    """Keep the tensors saved for backward in host memory (a CUDA tensor is copied to the
    CPU when saved and back when backward needs it). ``pin_memory`` is accepted and has no
    effect: NumPy and microtorch's CuPy use have no pinned memory. ``device_type`` likewise."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(tensor: Any) -> tuple:
            return tensor.device, tensor.cpu()

        def unpack(packed: tuple) -> Any:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack, unpack)


# The message of the innermost active disable_saved_tensors_hooks block, or None.
_hooks_disabled: str | None = None


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Inside the block, entering ``saved_tensors_hooks`` raises RuntimeError(error_message);
    so does entering this block while such hooks are active."""
    global _hooks_disabled
    from . import function

    if function._saved_tensors_hooks is not None:
        raise RuntimeError(error_message)
    previous, _hooks_disabled = _hooks_disabled, error_message
    try:
        yield
    finally:
        _hooks_disabled = previous


class Packed:
    """What a pack hook returned for one saved tensor (to tell it from an unpacked value)."""

    def __init__(self, value: Any) -> None:
        self.value = value


def pack(hooks: tuple, tensor: Any) -> Packed:
    """``pack_hook(tensor)``, with the hooks off meanwhile (ops it runs save nothing packed)."""
    from . import function

    previous, function._saved_tensors_hooks = function._saved_tensors_hooks, None
    try:
        return Packed(hooks[0](tensor))
    finally:
        function._saved_tensors_hooks = previous


def unpack(hooks: tuple, packed: Packed) -> Any:
    """``unpack_hook(packed)``: the saved tensor again."""
    from .._tensor import Tensor

    tensor = hooks[1](packed.value)
    if not isinstance(tensor, Tensor):
        raise TypeError(
            "Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
            f"{type(tensor).__name__}"
        )
    return tensor


def pack_saved(fn: Any, inputs: tuple, output: Any) -> None:
    """Hand each array ``fn`` saved to its pack hook, as a tensor: the input or output it
    is the array of (so the hook sees that tensor itself, as in PyTorch), else a new one."""
    from .._tensor import Tensor
    from ..backend import is_array

    packed = []
    for array in fn.saved_arrays:
        if not is_array(array):  # None (an absent input) or a value that is no array
            packed.append(array)
            continue
        tensor = next((t for t in (*inputs, output) if getattr(t, "array", None) is array), None)
        packed.append(pack(fn.pack_hooks, Tensor._make(array) if tensor is None else tensor))
    fn.saved_arrays = tuple(packed)


def unpack_saved(fn: Any) -> tuple:
    """The arrays ``fn`` saved, each packed one through its unpack hook."""
    return tuple(unpack(fn.pack_hooks, a).array if isinstance(a, Packed) else a
                 for a in fn.saved_arrays)  # fmt: skip
