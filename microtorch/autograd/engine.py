"""Reverse-mode autodiff: ``backward()`` walks the recorded graph from the loss to the leaves.

The graph is made of ``Function`` nodes (one per op that ran on tensors requiring grad).
Each node links to the nodes that made its inputs (``parents``), or to a leaf tensor
(a parameter), or to ``None`` (an input that needs no gradient).

    1. order the nodes so that every node comes before the nodes that made its inputs
       (a topological order, found with an explicit stack: no recursion limit);
    2. go through them in that order, calling each node's own ``backward`` with the
       gradient of its output, and add what it returns onto its inputs' gradients;
    3. leaves get their summed gradient added into ``.grad`` (or, for ``autograd.grad``,
       the gradients of the tensors asked for are returned and no ``.grad`` changes).
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from typing import Any

from .. import backend
from . import anomaly, function, grad_mode, graph
from .function import Function


def topological_order(root: Function) -> list[Function]:
    """All nodes reachable from ``root``, each before every node it depends on."""
    order: list[Function] = []
    visited = {root}
    stack = [(root, iter(root.parents))]
    while stack:
        node, parents = stack[-1]
        for parent in parents:
            if isinstance(parent, Function) and parent not in visited:
                visited.add(parent)
                stack.append((parent, iter(parent.parents)))
                break
        else:  # every parent is done: node can go after them
            stack.pop()
            order.append(node)
    order.reverse()
    return order


# > 0 while func.vmap calls its function once per index (a loop where PyTorch makes one
# batched call): a backward inside keeps the graph for the next index's backward.
keep_graphs = 0


def backward(root_tensor: Any, grad: Any, retain_graph: bool = False,
             capture: list | None = None, leaf_hooks: bool = True) -> list | None:  # fmt: skip
    """Accumulate d(root_tensor)/d(leaf) * grad into every leaf's ``.grad``.

    With ``capture`` (a list of tensors; ``autograd.grad``), return d(root_tensor)/d(t) * grad
    for each t in it instead (None where no gradient reaches t), and leave the leaves'
    ``.grad`` as they are (a retain_grad() non-leaf still gets its own, as in PyTorch).

    The walk records no graph (as PyTorch's without create_graph): hooks and custom
    backward()s see grad mode off, and may update a leaf in place."""
    # no graph is recorded during the walk; queue_callback(f) in a hook: f() runs at its end
    with grad_mode.no_grad(), queued_callbacks():
        root = root_tensor.grad_fn
        if root is None:  # backward() called on a leaf: its gradient is grad itself
            if capture is not None:
                return [grad if t is root_tensor else None for t in capture]
            _accumulate_leaf(root_tensor, grad)
            return None

        grads: dict[Function, Any] = {root: grad}  # node -> gradient of its output so far
        leaf_grads: dict[int, list] = {}  # id(leaf) -> [leaf, summed gradient]
        wanted = {t.grad_fn: None for t in capture or () if t.grad_fn is not None}  # non-leaves
        for fn in topological_order(root):
            grad_out = grads.pop(fn, None)
            if grad_out is None:  # nothing flowed into this node
                continue
            grad_out = _run_output_hooks(fn, grad_out)
            if fn in wanted:  # the whole gradient of fn's output is in by now
                wanted[fn] = grad_out
            if function._profiler is None:
                grad_inputs = fn.backward(grad_out)  # <- the op's own backward
            else:  # microtorch.profiler.profile() is active: it times the backward
                grad_inputs = function._profiler.run(fn.name(), fn.backward, (grad_out,),
                                                     (grad_out,))  # fmt: skip
            if not isinstance(grad_inputs, tuple):
                grad_inputs = (grad_inputs,)
            if fn.post_hooks is not None:  # node.register_hook(hook)
                grad_inputs = graph.run_post_hooks(fn, grad_inputs, grad_out)
            if anomaly.enabled:  # detect_anomaly(): stop at the first NaN/Inf gradient
                anomaly.check_backward(fn, grad_inputs)
            if not retain_graph and not keep_graphs:
                fn.release()
            for parent, g in zip(fn.parents, grad_inputs):
                if parent is None or g is None:
                    continue
                if isinstance(parent, Function):
                    previous = grads.get(parent)
                    grads[parent] = g if previous is None else previous + g
                else:  # a leaf tensor
                    entry = leaf_grads.get(id(parent))
                    if entry is None:
                        leaf_grads[id(parent)] = [parent, g]
                    else:
                        entry[1] = entry[1] + g

        if capture is not None:
            found = []
            for t in capture:
                if t.grad_fn is not None:  # a non-leaf: the gradient of its node's output
                    found.append(wanted[t.grad_fn])
                elif id(t) in leaf_grads:  # a leaf: its summed gradient, after its hooks
                    g = leaf_grads[id(t)][1]  # (leaf_hooks=False: before them, for the
                    found.append(_leaf_hooks(t, g) if leaf_hooks else g)  # checkpoint's walk)
                else:
                    found.append(None)  # no path from the root to t
            return found
        for leaf, g in leaf_grads.values():
            _accumulate_leaf(leaf, g)
        return None


def _run_output_hooks(fn: Function, grad: Any) -> Any:
    """Tensor hooks and retain_grad() of a non-leaf, then the node's pre-hooks
    (register_prehook): they see the gradient of fn's output."""
    if fn.hooks is None and fn.retained is None and fn.pre_hooks is None:
        return grad
    from .._tensor import Tensor

    grad = backend.xp_of(grad).asarray(grad)  # a NumPy scalar (from 0-d math) -> 0-d array
    for hook in fn.hooks or ():
        replaced = hook(Tensor._make(grad))
        if replaced is not None:
            grad = replaced.array
    output = fn.retained() if fn.retained is not None else None
    if output is not None:
        total = grad if output.grad is None else output.grad.array + grad
        output.grad = Tensor._make(backend.xp_of(total).array(total))
    if fn.pre_hooks is not None:
        grad = graph.run_pre_hooks(fn, grad)
    return grad


def _leaf_hooks(leaf: Any, grad: Any) -> Any:
    """The leaf's gradient as an array, after the leaf's register_hook hooks."""
    from .._tensor import Tensor

    grad = backend.xp_of(grad).asarray(grad)  # a NumPy scalar (from 0-d math) -> 0-d array
    for hook in leaf._hooks or ():
        replaced = hook(Tensor._make(grad))
        if replaced is not None:
            grad = replaced.array
    return grad


def _accumulate_leaf(leaf: Any, grad: Any) -> None:
    grad = _leaf_hooks(leaf, grad)
    if graph.accumulators:  # someone has the AccumulateGrad node of a leaf: it may have hooks
        graph.accumulate(leaf, grad, add_to_grad)
    else:
        add_to_grad(leaf, grad)


def add_to_grad(tensor: Any, grad: Any) -> None:
    """``tensor.grad += grad`` (the first time, ``tensor.grad = grad``)."""
    from .._tensor import Tensor

    wanted = getattr(tensor, "_grad_dtype", False)  # a leaf's grad_dtype, when set
    if wanted:
        grad = grad.astype(wanted.np, copy=False)
    if grad.shape != tensor.shape or (grad.dtype != tensor.array.dtype and wanted is False):
        raise RuntimeError(
            f"internal error: gradient of shape {grad.shape} {grad.dtype} for a tensor of "
            f"shape {tuple(tensor.shape)} {tensor.array.dtype}"
        )
    if tensor._grad is None:  # (._grad: .grad would warn for a non-leaf in backward(inputs=))
        # a fresh array: the same array may also be another leaf's gradient (and NumPy math
        # on 0-d arrays gives NumPy scalars, which xp.array turns back into a 0-d array)
        tensor.grad = Tensor._make(backend.xp_of(grad).array(grad))
    else:
        tensor._grad.array += grad
    for hook in tensor._post_accumulate_hooks or ():  # register_post_accumulate_grad_hook
        hook(tensor)  # (after the sum is in .grad; what it returns is ignored)


# One list per backward() walk running (a hook may start another inside, as checkpoint's
# does): the functions hooks asked to run at the end of it.
queued: list[list] = []


def queue_callback(callback: Any) -> None:
    """Run ``callback()`` once the backward() walk running now is done (from inside a hook;
    register_multi_grad_hook uses it)."""
    if not queued:
        raise RuntimeError("queue_callback: callbacks can only be queued during a backward pass")
    queued[-1].append(callback)


@contextlib.contextmanager
def queued_callbacks() -> Iterator[None]:
    """Around one walk: what it queued runs after it (and is dropped if it raised)."""
    queued.append([])
    try:
        yield
    except BaseException:
        queued.pop()
        raise
    for callback in queued.pop():
        callback()


# How many walks with ``capture`` (autograd.grad, backward(inputs=)) are running. Only
# utils.checkpoint reads it: its backward puts parameter gradients into .grad, which a
# capturing walk must not change, so it refuses to run inside one.
capturing = 0


@contextlib.contextmanager
def capturing_walk() -> Iterator[None]:
    """Mark the backward() calls inside the block as capturing walks."""
    global capturing
    capturing += 1
    try:
        yield
    finally:
        capturing -= 1


def make_retained(tensor: Any) -> Any:
    return weakref.ref(tensor)
