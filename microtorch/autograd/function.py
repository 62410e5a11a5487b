"""``Function``: the base class of every differentiable op.

An op is a small class with two methods that work on raw arrays (numpy or cupy):

    class Exp(Function):
        def forward(self, x):
            y = xp_of(x).exp(x)
            self.save_for_backward(y)      # what backward will need
            return y

        def backward(self, grad):          # grad = dLoss/dOutput
            (y,) = self.saved_arrays
            return grad * y                # dLoss/dInput, one per input

``Exp.apply(tensor)`` runs forward on the tensor's array and, when a gradient is
needed, records the Function instance as the output's ``grad_fn``. The instance
*is* the graph node: ``parents`` points at the nodes (or leaf tensors) that
produced its inputs, and ``autograd.engine.backward`` walks those links
(``next_functions`` is PyTorch's view of them: graph.py).

PyTorch's form, ``@staticmethod def forward(ctx, x)`` on tensors, works too (custom.py).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy

from . import grad_mode, graph
from .graph import Node


class Function(Node):
    # Set by apply(): needs_input_grad before forward (all False when no graph is recorded),
    # parents after it, when the graph is recorded.
    needs_input_grad: tuple  # per input: does backward need to compute this gradient?
    parents: tuple  # per input: the producing Function, a leaf Tensor, or None
    hooks: list | None = None  # hooks registered on the output tensor (non-leaf)
    retained: Any = None  # weakref to the output tensor when retain_grad() was called
    creation_trace: Any = None  # user source line, recorded only under detect_anomaly()
    saved_arrays: tuple | None = ()
    _saved_versions: Any = ()  # (version counter, value at save time, array) per saved array
    pack_hooks: Any = None  # (pack, unpack) of the saved_tensors_hooks active at save time
    is_view = False  # True for ops whose output may share memory with input 0
    pytorch_style = False  # set for each subclass: is forward a staticmethod (custom.py)?

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # PyTorch's form of a custom op (staticmethods on tensors, with ctx): see custom.py
        cls.pytorch_style = isinstance(inspect.getattr_static(cls, "forward"), staticmethod)

    def forward(self, *arrays: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def backward(self, grad: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not support backward()")

    # --- used inside forward -------------------------------------------------------
    def save_for_backward(self, *arrays: Any) -> None:
        """Keep arrays for backward; apply() remembers the version of each saved input or
        output, so an in-place change before backward is caught instead of giving a wrong
        gradient."""
        self.saved_arrays = arrays
        if _saved_tensors_hooks is not None:  # autograd.graph.saved_tensors_hooks is active
            self.pack_hooks = _saved_tensors_hooks  # (apply packs them, once they are recorded)

    # --- the graph -----------------------------------------------------------------
    @classmethod
    def apply(cls, *inputs: Any, **params: Any) -> Any:
        """Run the op and record it in the graph when any input requires grad.

        ``inputs`` are tensors, ``None`` (an absent optional input such as a bias) or
        Python numbers (constants); ``params`` are passed to forward unchanged."""
        if cls.pytorch_style:
            from . import custom

            return custom.apply(cls, *inputs, **params)
        Tensor = _Tensor or _tensor_class()
        # One pass over the inputs: their arrays, whether any needs a gradient, and a check
        # that all tensors live on one device (their arrays are all numpy or all cupy).
        arrays = []
        nodes = []  # per input: the node that made it (or the leaf itself), None if no grad
        needs = []  # per input: does it need a gradient?
        requires_grad = False
        array_type = None
        for t in inputs:
            if isinstance(t, Tensor):
                if t._view is not None and t._view[3] != t._version_counter.value:
                    _refresh_view(t)  # its base changed in place since: see functional.py
                a = t.array
                if array_type is None:
                    array_type = type(a)
                elif type(a) is not array_type:
                    _check_same_device(cls, inputs, Tensor)  # raises, naming the devices
                arrays.append(a)
                if t.requires_grad:
                    requires_grad = True
                    nodes.append(t.grad_fn or t)
                    needs.append(True)
                else:
                    nodes.append(None)
                    needs.append(False)
            else:
                arrays.append(t)
                nodes.append(None)
                needs.append(False)
        fn = cls()
        recording = requires_grad and grad_mode.enabled
        # set before forward, so that forward can skip work only backward would use
        fn.needs_input_grad = tuple(needs) if recording else (False,) * len(inputs)
        if _profiler is None:
            out = fn.forward(*arrays, **params)
        else:  # microtorch.profiler.profile() is active: it times the forward
            out = _profiler.run(cls.__name__, lambda: fn.forward(*arrays, **params), (), inputs)
        if isinstance(out, numpy.generic):  # numpy reductions may return scalars
            out = numpy.asarray(out)

        if not recording:
            fn.saved_arrays = None
            result = Tensor._make(out)
        else:
            result = Tensor._make(out, requires_grad=True, grad_fn=fn)
            fn.parents = tuple(nodes)
            if fn.saved_arrays:
                fn._record_saved_versions(inputs, result)
            if _anomaly_hook is not None:
                _anomaly_hook(fn, result)
        if fn.is_view:  # output may share the input's memory: share its version counter
            result._version_counter = inputs[0]._version_counter
            # (base, index, op, version when made): see functional.inplace and refresh_view
            result._view = (inputs[0], None, fn, result._version_counter.value)
        if _trace_hook is not None:  # microtorch.trace() / detect_anomaly() watch every op
            _trace_hook(fn, inputs, params, result)
        return result

    def _record_saved_versions(self, inputs: tuple, output: Any) -> None:
        if self.pack_hooks is not None:  # the hooks keep the arrays (and check them) instead
            graph.pack_saved(self, inputs, output)
            return
        versions = []
        for array in self.saved_arrays or ():
            if array is None:  # an absent optional input (e.g. no weight) saved as None
                continue
            for t in inputs:
                if getattr(t, "array", None) is array:
                    versions.append((t._version_counter, t._version_counter.value, array))
                    break
            else:  # not an input's array: the output's, or one the op made (nothing to check)
                if output.array is array:
                    versions.append((output._version_counter, output._version_counter.value, array))
        self._saved_versions = versions

    @property
    def saved(self) -> tuple:
        """The saved arrays, after checking that none was modified in place since forward."""
        if self.saved_arrays is None:
            raise RuntimeError(
                f"{self.name()}: trying to backward through the graph a second time (or directly "
                "access saved arrays after they have already been freed). Saved intermediate "
                "values of the graph are freed when you call .backward(). Specify "
                "retain_graph=True if you need to backward through the graph a second time."
            )
        if self.pack_hooks is not None:  # saved_tensors_hooks: unpack them now
            return graph.unpack_saved(self)
        for counter, version, array in self._saved_versions:
            if counter.value != version:
                raise RuntimeError(
                    f"{self.name()}: one of the variables needed for gradient computation has been "
                    f"modified by an inplace operation: the {array.dtype} tensor of shape "
                    f"{tuple(array.shape)} was at version {version} when "
                    f"{type(self).__name__} saved it and is now at version {counter.value}. "
                    "Use an out-of-place op (e.g. x = x + 1 instead of x += 1) or .clone() first."
                )
        return self.saved_arrays

    def release(self) -> None:
        """Free the saved arrays once backward has used them."""
        self.saved_arrays = None

    def name(self) -> str:
        """PyTorch's name for the op's node: the class name and ``Backward0``
        (``MulBackward0``). An op whose class is named otherwise, or that is several of
        PyTorch's nodes, overrides this (``Log1PBackward0``; ``SumBackward0`` and
        ``SumBackward1``). Where microtorch's op is not PyTorch's (``Matmul`` for PyTorch's
        ``MmBackward0``, ``DotBackward0``, ...), the name is microtorch's."""
        return f"{type(self).__name__}Backward0"


def once_differentiable(fn: Any) -> Any:
    """PyTorch's decorator for a custom Function's ``backward`` that cannot itself be
    differentiated (``from torch.autograd.function import once_differentiable``). In
    microtorch every backward is like that (no gradients of gradients), and a PyTorch-style
    backward already runs under no_grad (custom.py), so it returns the backward ``fn``
    unchanged."""
    return fn


class InplaceFunction(Function):
    """PyTorch's base for a custom Function that may change its input in place: it only
    keeps an ``inplace`` flag (``self.inplace``) for the subclass to read."""

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = inplace


def __getattr__(name: str) -> Any:
    """``FunctionCtx``, the class of a custom Function's ctx, from here as in PyTorch
    (``torch.autograd.function.FunctionCtx``); it lives in custom.py, which imports us."""
    if name == "FunctionCtx":
        from .custom import FunctionCtx

        return FunctionCtx
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# (pack, unpack) while an autograd.graph.saved_tensors_hooks block is active; None costs
# nothing.
_saved_tensors_hooks: Any = None
# Set by autograd.anomaly while detect_anomaly() is active; None costs nothing.
_anomaly_hook: Any = None
# Set by microtorch.trace() and detect_anomaly(): called as hook(fn, inputs, params, output)
# after every op (recorded in the graph or not); None costs nothing.
_trace_hook: Any = None
# Set by microtorch.profiler.profile() while it is active: it times each op's forward (here)
# and backward (in engine.backward); None costs nothing.
_profiler: Any = None


def _check_same_device(cls: type, inputs: tuple, Tensor: type) -> None:
    first = None
    for t in inputs:
        if not isinstance(t, Tensor):
            continue
        if first is None:
            first = type(t.array)
        elif type(t.array) is not first:
            devices = ", ".join(str(t.device) for t in inputs if isinstance(t, Tensor))
            raise RuntimeError(
                f"{cls.__name__}: expected all tensors to be on the same device, but found "
                f"tensors on {devices}; move them with .to(device) first"
            )


_Tensor: Any = None


def _refresh_view(view: Any) -> None:
    from ..functional import refresh_view  # (functional imports this module)

    refresh_view(view)


def _tensor_class() -> Any:
    """The Tensor class (imported late: Tensor's module imports the ops, which import us)."""
    global _Tensor
    if _Tensor is None:
        from .._tensor import Tensor

        _Tensor = Tensor
    return _Tensor


def unbroadcast(grad: Any, shape: tuple) -> Any:
    """Sum ``grad`` down to ``shape``: the backward of NumPy broadcasting.

    Broadcasting added leading dims and stretched size-1 dims; their gradient is
    the sum over them. A float16 gradient is summed in float32, as PyTorch does (in float16
    the rounding errors of long sums grow to a few percent)."""
    if grad.shape == shape:
        return grad
    dtype = grad.dtype
    wide = "float32" if dtype == "float16" else None
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=tuple(range(extra)), dtype=wide)
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True, dtype=wide)
    return grad.astype(dtype, copy=False)
