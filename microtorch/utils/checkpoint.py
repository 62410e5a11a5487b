"""``utils.checkpoint``: trade compute for memory, as ``torch.utils.checkpoint``.

    y = checkpoint(block, x, use_reentrant=False)

runs ``block(x)`` under no_grad, so none of the activations inside ``block`` are kept: the
graph gets one ``CheckpointFunction`` node that stores only the inputs. When backward reaches
that node it runs ``block`` again, this time recording a graph, and backpropagates through
that recomputed graph. The host generator's state is put back first, so dropout draws the
same masks.

``use_reentrant=True``: that inner backward goes into the inputs (whose gradients the node
returns to the outer walk) and straight into the ``.grad`` of every parameter ``block`` used,
as PyTorch's reentrant variant does; so it cannot run under ``autograd.grad`` or
``backward(inputs=...)``, which must not change ``.grad`` (an error, as in PyTorch).

``use_reentrant=False``: the first run notes every tensor from outside that ``block``'s ops
read and that requires grad (its parameters, a tensor it closes over) through the ops' trace
hook, and the node lists them as inputs too. The inner backward then only returns their
gradients (``capture``) and the outer walk does the rest, as for any op: ``.grad``, hooks,
``autograd.grad`` and ``backward(inputs=...)`` work as without the checkpoint.

Several outputs: each tensor output gets a small ``CheckpointOutput`` node that only hands its
gradient to the shared ``CheckpointFunction`` node and passes on an empty placeholder. The
engine runs every node before the nodes that made its inputs, so all the output gradients are
in by the time ``CheckpointFunction.backward`` runs.

Differences from PyTorch: with ``use_reentrant=False``, when no input requires grad the
function simply runs with gradients on (nothing is saved), so that its parameters still get
gradients, as they would in PyTorch; a non-leaf tensor that ``block`` closes over is
backpropagated into by the inner walk too (its hooks run twice; a leaf's run once).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from .. import backend, random
from .. import functional as F
from .._tensor import Tensor
from .._warn import warn_user
from ..autograd import engine, grad_mode
from ..autograd import function as _function
from ..autograd.anomaly import chain_hooks
from ..autograd.function import Function


class CheckpointFunction(Function):
    """The graph node of one checkpoint() call: it keeps the inputs, not the activations."""

    def __init__(self, function: Callable, args: tuple, kwargs: dict,
                 rng_state: dict | None, outside: tuple | None = None) -> None:  # fmt: skip
        self.function, self.args, self.kwargs = function, args, kwargs  # stored ...
        self.rng_state = rng_state  # ... with the generator's state before the first run
        self.versions = [a._version if isinstance(a, Tensor) else None for a in args]
        self.output_grads: list = []  # filled in by the CheckpointOutput nodes during backward
        # use_reentrant=False: the tensors from outside that the function used (its
        # parameters...), inputs of the node after args; None for use_reentrant=True
        self.outside = outside
        self.recompute_context: Any = contextlib.nullcontext()  # (context_fn's second)

    def backward(self, grad: Any) -> tuple:
        """Recompute the function with gradients on, then backpropagate through it."""
        if engine.capturing and self.outside is None:
            raise RuntimeError(
                "checkpoint: not compatible with autograd.grad() or backward(inputs=...): the "
                "recomputation adds the parameters' gradients into their .grad; call "
                ".backward() without inputs"
            )
        if self.args is None:
            raise RuntimeError(
                "checkpoint: trying to backward through the graph a second time; the saved "
                "inputs were freed by the first backward. Specify retain_graph=True if you "
                "need to backward through the graph a second time."
            )
        self._check_versions()
        # fresh leaves on the same memory: the recomputed graph stops at them, and their .grad
        # is the gradient this node returns for each input
        inputs = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a
                  for a in self.args]  # fmt: skip
        outputs = self._recompute(inputs)
        total = None  # one root: sum over outputs of (output * its gradient)
        with grad_mode.enable_grad():  # (the outer walk runs with grad mode off)
            for out, g in zip(outputs, self.output_grads):
                if g is not None and isinstance(out, Tensor) and out.requires_grad:
                    term = F.mul(out, Tensor._make(g)).sum()
                    total = term if total is None else total + term
        self.output_grads = [None] * len(self.output_grads)  # ready for another backward
        if total is None:
            return (None,) * len(self.parents)
        seed = backend.xp_of(total.array).ones_like(total.array)
        if self.outside is None:  # reentrant: into the inputs' and the parameters' .grad
            engine.backward(total, seed)
            return tuple(x.grad.array if isinstance(x, Tensor) and x.grad is not None else None
                         for x in inputs)  # fmt: skip
        # not reentrant: the gradients of the inputs and of the outside tensors, for the outer
        # walk (the recomputed graph is dropped after it; retain_graph keeps the nodes of a
        # closed-over non-leaf's graph for the outer walk)
        targets = [x if isinstance(x, Tensor) and x.requires_grad else None for x in inputs]
        targets += self.outside
        found = iter(engine.backward(total, seed, retain_graph=True, leaf_hooks=False,
                                     capture=[t for t in targets if t is not None]))  # fmt: skip
        return tuple(None if t is None else next(found) for t in targets)

    def _recompute(self, inputs: list) -> tuple:
        """Run the function again on ``inputs`` with gradients on and the saved RNG state."""
        state_now = random.get_rng_state() if self.rng_state is not None else None
        if self.rng_state is not None:
            random.set_rng_state(self.rng_state)
        try:
            with grad_mode.enable_grad(), self.recompute_context:
                outputs = self.function(*inputs, **self.kwargs)
        finally:
            if state_now is not None:  # the generator goes on as if nothing had been redrawn
                random.set_rng_state(state_now)
        return outputs if isinstance(outputs, tuple) else (outputs,)

    def _check_versions(self) -> None:
        for i, (a, version) in enumerate(zip(self.args, self.versions)):
            if version is not None and a._version != version:
                raise RuntimeError(
                    f"checkpoint: input {i} has been modified by an inplace operation since the "
                    f"forward pass (version {version}, now {a._version}), so recomputing the "
                    "function would give different values. Use an out-of-place op or .clone()."
                )

    def release(self) -> None:
        self.args = None

    def name(self) -> str:
        return "CheckpointFunctionBackward"


class CheckpointOutput(Function):
    """One tensor output of a checkpoint() call: hands its gradient to the shared node."""

    def __init__(self, run: CheckpointFunction, index: int) -> None:
        self.run, self.index = run, index

    def backward(self, grad: Any) -> Any:
        self.run.output_grads[self.index] = grad
        return backend.xp_of(grad).zeros((0,), dtype=grad.dtype)  # the placeholder's gradient


def noop_context_fn() -> tuple:
    """checkpoint's default ``context_fn``: no context around either run."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable = noop_context_fn, determinism_check: str = "default",
               debug: bool = False, early_stop: bool = True, preserve_rng_state: bool = True,
               **kwargs: Any) -> Any:  # fmt: skip
    """``function(*args, **kwargs)``, keeping only the inputs for backward, which runs the
    function again (with the same random numbers when ``preserve_rng_state``).

    ``use_reentrant=False`` only: ``context_fn()`` gives two context managers, entered around
    the first run and around the recomputation. ``determinism_check``, ``debug`` and
    ``early_stop`` are accepted for PyTorch code (checked, with no effect here: the
    recomputation always runs the whole function)."""
    if use_reentrant is None:
        warn_user(
            "checkpoint: pass use_reentrant explicitly (True or False; False is recommended). "
            "Left out, it means True, as in PyTorch, which warns the same way."
        )
        use_reentrant = True
    if use_reentrant and (context_fn is not noop_context_fn or debug):
        raise ValueError(
            "checkpoint: context_fn and debug are only supported with use_reentrant=False"
        )
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"checkpoint: determinism_check should be 'default' or 'none', got {determinism_check!r}"
        )
    if use_reentrant and kwargs:
        raise ValueError(f"Unexpected keyword arguments: {','.join(kwargs)}")
    needs = [isinstance(a, Tensor) and a.requires_grad for a in args]
    if not grad_mode.enabled or not any(needs):
        if grad_mode.enabled and use_reentrant:
            warn_user("None of the inputs have requires_grad=True. Gradients will be None")
        if use_reentrant:
            with grad_mode.no_grad():  # nothing to backpropagate into: no graph at all
                return function(*args, **kwargs)
        return function(*args, **kwargs)  # parameters may still need gradients: a plain run

    rng_state = random.get_rng_state() if preserve_rng_state else None
    outside: dict | None = None if use_reentrant else {}  # id -> tensor, in order of use
    previous_hook = _function._trace_hook

    def note_outside(fn: Any, op_inputs: tuple, params: dict, result: Any) -> None:
        for t in op_inputs:
            if isinstance(t, Tensor) and t.requires_grad and not any(t is a for a in args):
                outside.setdefault(id(t), t)  # (under no_grad only outside tensors require grad)

    forward_context, recompute_context = context_fn()
    if outside is not None:
        _function._trace_hook = chain_hooks(previous_hook, note_outside)
    try:
        with forward_context, grad_mode.no_grad():  # the first run: no graph, no activations
            outputs = function(*args, **kwargs)
    finally:
        _function._trace_hook = previous_hook

    extra = () if outside is None else tuple(outside.values())
    run = CheckpointFunction(function, args, kwargs, rng_state, None if outside is None else extra)
    run.recompute_context = recompute_context
    run.needs_input_grad = tuple(needs) + (True,) * len(extra)
    run.parents = tuple((a.grad_fn or a) if need else None for a, need in zip(args, needs))
    run.parents += tuple(t.grad_fn or t for t in extra)
    single = not isinstance(outputs, tuple)
    outs = (outputs,) if single else outputs
    run.output_grads = [None] * len(outs)
    # the node's own output: an empty placeholder that only links the output nodes to it
    first = next((o for o in outs if isinstance(o, Tensor)), None)
    if first is None:
        raise TypeError("checkpoint: function must return a tensor or a tuple with tensors")
    placeholder = Tensor._make(backend.xp_of(first.array).zeros((0,), dtype=first.array.dtype),
                               requires_grad=True, grad_fn=run)  # fmt: skip
    wrapped = []
    for i, out in enumerate(outs):
        if isinstance(out, Tensor) and out.dtype.is_floating_point:
            node = CheckpointOutput(run, i)
            node.needs_input_grad, node.parents = (True,), (placeholder.grad_fn,)
            out = Tensor._make(out.array, requires_grad=True, grad_fn=node)
        wrapped.append(out)
    return wrapped[0] if single else tuple(wrapped)


def checkpoint_sequential(functions: Any, segments: int, input: Tensor,
                          use_reentrant: bool | None = None, **kwargs: Any) -> Tensor:  # fmt: skip
    """Run ``functions`` (a Sequential or a list of modules) one after the other, in
    ``segments`` chunks: every chunk but the last is checkpointed."""
    if use_reentrant is None:
        warn_user(
            "checkpoint_sequential: pass use_reentrant explicitly (True or False; False is "
            "recommended). Left out, it means True, as in PyTorch, which warns the same way."
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError(f"Unexpected keyword arguments: {','.join(kwargs)}")
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        chunk = functions[start : end + 1]
        input = checkpoint(_run_in_order, chunk, input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)  # fmt: skip
    return _run_in_order(functions[end + 1 :], input)


def _run_in_order(functions: list, input: Any) -> Any:
    for f in functions:
        input = f(input)
    return input


__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn"]
