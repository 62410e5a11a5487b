"""PyTorch's way to write your own op, for code that comes from PyTorch:

    class Cube(microtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):                  # tensors in, tensors out (runs under no_grad)
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad_output):       # one dLoss/dOutput per output -> one dLoss/dInput
                                              # per input
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x**2

    y = Cube.apply(x)

microtorch's own ops are written on raw arrays instead (function.py). A Function subclass
whose ``forward`` is a staticmethod is taken to be of PyTorch's kind: ``Function.apply``
hands it to ``apply`` here, which runs ``forward`` with gradients off and records one
``CustomBackward`` node; the engine calls that node's ``backward`` like any op's, and it
calls the class's own ``backward`` with tensors.

Also as in PyTorch: ``setup_context(ctx, inputs, output)`` beside a ``forward`` without ctx;
``ctx.needs_input_grad``; ``ctx.mark_non_differentiable(output)``; ``ctx.mark_dirty(x)`` for
an input changed in place and returned; ``ctx.set_materialize_grads(False)``; any attribute
stored on ctx; a tuple of outputs, tensors or not (backward gets one gradient per output:
zeros for a tensor output that got none, None for the others).

Several outputs: the engine gives every node one output, so (as ``split`` does, ops/shape.py)
each differentiable output gets a node of its own (``CustomOutput``) that hands its gradient
on to the call's one ``CustomBackward`` node, labelled with the output's position (a
``PieceGrads``); the engine adds those up, and ``CustomBackward`` passes them to your
backward together. So, unlike PyTorch, the outputs' ``grad_fn`` are different objects (each
named, and listing the inputs, as the call's node).
"""

from __future__ import annotations

import inspect
from typing import Any

from .. import backend
from . import function, grad_mode, graph
from .function import Function, unbroadcast


class FunctionCtx:
    """The ``ctx`` that a call's ``forward`` (or ``setup_context``) and ``backward`` share."""

    def __init__(self, needs_input_grad: tuple) -> None:
        self.needs_input_grad = needs_input_grad  # per input: is its gradient wanted?
        self.to_save: tuple = ()
        self.saved_versions: tuple = ()
        self.freed = False
        self.non_differentiable: tuple = ()
        self.dirty: tuple = ()
        self.materialize_grads = True
        self.pack_hooks: tuple | None = None  # the saved_tensors_hooks that packed to_save

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors for backward; an in-place change to one before backward is an error."""
        Tensor = function._tensor_class()
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save tensors (or None), but argument {i} is of "
                    f"type {type(t).__name__}; keep other values as attributes of ctx "
                    "(ctx.value = ...)"
                )
        self.to_save = tensors
        self.saved_versions = tuple(None if t is None else t._version for t in tensors)

    @property
    def saved_tensors(self) -> tuple:
        if self.freed:
            raise RuntimeError(
                "saved_tensors: trying to backward through the graph a second time; the saved "
                "tensors were freed by the first backward. Specify retain_graph=True if you "
                "need to backward through the graph a second time."
            )
        if self.pack_hooks is not None:  # autograd.graph.saved_tensors_hooks: unpack them
            return tuple(t if t is None else graph.unpack(self.pack_hooks, t) for t in self.to_save)
        for t, version in zip(self.to_save, self.saved_versions):
            if t is not None and t._version != version:
                raise RuntimeError(
                    f"saved_tensors: one of the variables needed for gradient computation has "
                    f"been modified by an inplace operation: the tensor of shape "
                    f"{tuple(t.shape)} was at version {version} when it was saved and is now "
                    f"at version {t._version}. Use an out-of-place op or .clone() first."
                )
        return self.to_save

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """The output (an integer result, say) gets no gradient and no grad_fn."""
        self.non_differentiable = tensors

    def mark_dirty(self, *tensors: Any) -> None:
        """Inputs that forward changed in place (and returns): the returned input itself
        then becomes the output, its graph node this call's, as in PyTorch."""
        self.dirty = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward gets None (instead of zeros) for the gradient of an output
        that no gradient reached."""
        self.materialize_grads = value


class CustomBackward(Function):
    """The graph node of one call of a PyTorch-style Function."""

    # Several outputs: the register_prehook / register_hook hooks of the call, registered
    # through an output's node (CustomOutput); run here, on all the outputs' gradients.
    call_pre_hooks: list | None = None
    call_post_hooks: list | None = None

    def __init__(self, function_class: type, ctx: FunctionCtx, inputs: tuple,
                 outputs: tuple | None = None) -> None:  # fmt: skip
        self.function_class, self.ctx = function_class, ctx
        # per input: (shape, dtype, array type) of a tensor, None for anything else
        self.inputs_like = [(t.array.shape, t.array.dtype, type(t.array)) if hasattr(t, "array")
                            else None for t in inputs]  # fmt: skip
        # per output of a forward that returned a tuple: (shape, dtype, array module) of a
        # tensor, None for anything else; None for a forward that returned one tensor
        self.outputs_like = None if outputs is None else [
            (t.array.shape, t.array.dtype, backend.xp_of(t.array)) if hasattr(t, "array") else None
            for t in outputs
        ]  # fmt: skip

    def backward(self, grad: Any) -> tuple:
        Tensor = function._tensor_class()
        if self.outputs_like is None:  # one output: grad is its gradient
            given = (grad,)
            grad_outputs = (Tensor._make(grad),)
        else:  # a PieceGrads: {output position: gradient} from the CustomOutput nodes
            given = tuple(grad.grads.get(i) for i in range(len(self.outputs_like)))
            for hook in list(self.call_pre_hooks or ()):  # hook(grad_outputs) -> None or new
                replaced = hook(graph._tensors(given))
                if replaced is not None:
                    given = graph._arrays(self, replaced, len(given), "pre-hook")
            grad_outputs = tuple(self._output_grad(i, g) for i, g in enumerate(given))
        with grad_mode.no_grad():
            grads = _user_backward(self.function_class)(self.ctx, *grad_outputs)  # <- yours
        grads = grads if isinstance(grads, tuple) else (grads,)
        n = len(self.inputs_like)
        if len(grads) < n or any(g is not None for g in grads[n:]):
            raise RuntimeError(
                f"{self.name()}: backward returned an incorrect number of gradients (expected "
                f"{n}, one per input of forward, got {len(grads)})"
            )
        grad_inputs = tuple(self._as_input_grad(i, g) for i, g in enumerate(grads[:n]))
        for hook in list(self.call_post_hooks or ()):  # hook(grad_inputs, grad_outputs)
            replaced = hook(graph._tensors(grad_inputs), graph._tensors(given))
            if replaced is not None:
                grad_inputs = graph._arrays(self, replaced, n, "hook")
        return grad_inputs

    def _output_grad(self, i: int, grad: Any) -> Any:
        """What backward gets for output ``i``: its gradient; zeros of its shape and dtype
        when none reached it (None with set_materialize_grads(False)); None for a non-tensor
        output."""
        like = self.outputs_like[i]
        if like is None:
            return None
        if grad is None:
            if not self.ctx.materialize_grads:
                return None
            shape, dtype, xp = like
            grad = xp.zeros(shape, dtype=dtype)
        return function._tensor_class()._make(grad)

    def _as_input_grad(self, i: int, g: Any) -> Any:
        """Gradient ``i`` as an array of input ``i``'s shape and dtype (None: no gradient)."""
        like = self.inputs_like[i]
        if g is not None and like is None:
            raise RuntimeError(
                f"{self.name()}: backward returned a gradient different than None at position "
                f"{i}, but the corresponding forward input was not a tensor"
            )
        if g is None or not self.ctx.needs_input_grad[i]:
            return None
        shape, dtype, array_type = like
        if not isinstance(g, function._tensor_class()) or type(g.array) is not array_type:
            raise RuntimeError(
                f"{self.name()}: backward must return tensors on the input's device "
                f"({array_type.__module__.split('.')[0]} arrays); gradient {i} is {type(g)}"
            )
        array = g.array
        if array.shape != shape:
            try:  # a gradient of a broadcast shape is summed down, as PyTorch does
                array = unbroadcast(array, shape).reshape(shape)
            except ValueError:
                array = None
            if array is None or array.shape != shape:
                raise RuntimeError(
                    f"{self.name()}: backward returned an invalid gradient at index {i} - got "
                    f"{list(g.shape)} but expected shape compatible with {list(shape)}"
                )
        return array.astype(dtype, copy=False)

    @property
    def next_functions(self) -> tuple:
        """As in PyTorch, one ``(node, 0)`` per tensor input (numbers and None are left out)."""
        edges = super().next_functions
        return tuple(edge for edge, like in zip(edges, self.inputs_like) if like is not None)

    @property
    def saved_tensors(self) -> tuple:
        """What forward saved with ctx.save_for_backward (an error once backward freed it)."""
        return self.ctx.saved_tensors

    def release(self) -> None:
        self.ctx.freed, self.ctx.to_save = True, ()

    def name(self) -> str:
        return f"{self.function_class.__name__}Backward"


class CustomOutput(Function):
    """The node of output ``position`` of a custom Function that returned several: it hands
    its gradient to the call's CustomBackward node, labelled with the position."""

    def __init__(self, call: CustomBackward, position: int) -> None:
        self.call, self.position = call, position
        self.parents = (call,)
        self.needs_input_grad = (True,)

    def backward(self, grad: Any) -> Any:
        from ..ops.shape import PieceGrads  # (the ops import autograd, which imports us)

        return PieceGrads({self.position: grad})

    @property
    def next_functions(self) -> tuple:
        """The call's inputs, as PyTorch's one node for all the outputs lists them."""
        return self.call.next_functions

    def register_prehook(self, hook: Any) -> Any:
        """``hook(grad_outputs)`` with the gradients of all the call's outputs (None for one
        that got none), as on PyTorch's one node; a returned tuple replaces them."""
        if self.call.call_pre_hooks is None:
            self.call.call_pre_hooks = []
        return graph._handle(self.call.call_pre_hooks, hook)

    def register_hook(self, hook: Any) -> Any:
        """``hook(grad_inputs, grad_outputs)`` once the call's backward has run, as on
        PyTorch's one node; a returned tuple replaces grad_inputs."""
        if self.call.call_post_hooks is None:
            self.call.call_post_hooks = []
        return graph._handle(self.call.call_post_hooks, hook)

    def name(self) -> str:
        return self.call.name()


def apply(cls: type, *inputs: Any, **kwargs: Any) -> Any:
    """Run ``cls.forward`` with gradients off; record a CustomBackward node if any input
    tensor requires grad (and gradients are on)."""
    Tensor = function._tensor_class()
    function._check_same_device(cls, inputs, Tensor)
    needs = tuple(isinstance(t, Tensor) and t.requires_grad for t in inputs)
    recording = grad_mode.enabled and any(needs)
    ctx = FunctionCtx(needs)  # from requires_grad alone, also under no_grad, as in PyTorch
    with grad_mode.no_grad():
        if _has_setup_context(cls):  # forward(*inputs), then setup_context(ctx, inputs, output)
            output = cls.forward(*inputs, **kwargs)
            cls.setup_context(ctx, inputs, output)
        else:
            output = cls.forward(ctx, *inputs, **kwargs)
    several = isinstance(output, tuple)
    if not several and not isinstance(output, Tensor):
        raise TypeError(
            f"{cls.__name__}.forward must return a tensor or a tuple (of tensors and other "
            f"values), got {type(output).__name__}"
        )
    outputs = output if several else (output,)
    if any(not any(o is t for o in outputs) for t in ctx.dirty):
        raise RuntimeError(
            f"{cls.__name__}: the tensors marked dirty (changed in place) in forward must be "
            "returned as its outputs; return the inputs you changed"
        )
    outputs = tuple(_own_output(cls, o, inputs, ctx) for o in outputs)
    if recording:
        node = CustomBackward(cls, ctx, inputs, outputs if several else None)
        node.needs_input_grad = needs
        node.parents = tuple((t.grad_fn or t) if need else None for t, need in zip(inputs, needs))
        for position, o in enumerate(outputs):
            if not isinstance(o, Tensor) or any(o is t for t in ctx.non_differentiable):
                continue
            o.requires_grad = True
            o.grad_fn = CustomOutput(node, position) if several else node
            if function._anomaly_hook is not None:  # detect_anomaly(): remember the user's line
                function._anomaly_hook(o.grad_fn, o)
        if function._saved_tensors_hooks is not None:  # autograd.graph.saved_tensors_hooks
            ctx.pack_hooks = hooks = function._saved_tensors_hooks
            ctx.to_save = tuple(t if t is None else graph.pack(hooks, t) for t in ctx.to_save)
        if function._anomaly_hook is not None:
            function._anomaly_hook(node, outputs[0])
    # (microtorch.trace() lists the ops forward ran, each on its own row)
    return outputs if several else outputs[0]


def _own_output(cls: type, output: Any, inputs: tuple, ctx: FunctionCtx) -> Any:
    """An output as the call returns it: a dirty input itself (its version bumped, as
    PyTorch does), a new tensor on the memory of an input returned unchanged, or as it is."""
    Tensor = function._tensor_class()
    if not isinstance(output, Tensor):
        return output
    if any(output is t for t in ctx.dirty):
        if output.requires_grad and output.grad_fn is None:
            raise RuntimeError(
                f"{cls.__name__}: a leaf tensor that requires grad has been used in an in-place "
                "operation (mark_dirty); change a copy of it (x.clone()) instead"
            )
        output._version_counter.value += 1
        return output
    if any(output is t for t in inputs):  # forward returned an input: a new tensor on its memory
        new = Tensor._make(output.array)
        new._version_counter = output._version_counter
        return new
    return output


def _user_backward(cls: type) -> Any:
    """The class's ``backward``, or its ``vjp`` (PyTorch's other name for it)."""
    if cls.backward is not Function.backward:
        return cls.backward
    if getattr(cls, "vjp", None) is not None:
        return cls.vjp
    raise NotImplementedError(
        f"{cls.__name__}: define backward (or vjp) as a staticmethod to use this custom "
        "Function in backward()"
    )


def _has_setup_context(cls: type) -> bool:
    return isinstance(inspect.getattr_static(cls, "setup_context", None), staticmethod)
