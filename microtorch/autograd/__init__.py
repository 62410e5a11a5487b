"""Reverse-mode automatic differentiation: the graph (Function), the walk (engine),
grad mode switches, the gradient checker, and the functions backward() and grad()."""

from typing import Any

from .. import backend
from . import anomaly_mode, graph, profiler  # noqa: F401 (PyTorch's module paths)
from .anomaly import (
    AnomalyError,
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from .function import Function
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    is_multithreading_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from .gradcheck import GradcheckError, gradcheck
from .variable import Variable


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None) -> None:  # fmt: skip
    """``autograd.backward(loss)``: the same as ``loss.backward()``. Several tensors (each with
    its gradient in ``grad_tensors``; None for a one-element tensor) are one backward pass of
    the sum of each times its gradient, so they may share a graph. ``grad_variables`` is
    PyTorch's old name for ``grad_tensors``."""
    from .._tensor import Tensor

    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if not tensors:
        return  # nothing to differentiate, as in PyTorch
    if len(tensors) == 1:
        grad = grad_tensors[0] if isinstance(grad_tensors, (list, tuple)) else grad_tensors
        tensors[0].backward(grad, retain_graph, create_graph, inputs)
        return
    total = weighted_sum(tensors, grad_tensors, "autograd.backward", "tensors", "grad_tensors")
    total.backward(retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)


def weighted_sum(outputs: list, grad_outputs: Any, op: str, outputs_name: str,
                 grads_name: str) -> Any:  # fmt: skip
    """One scalar, the sum over ``outputs`` of (output * its grad_output).sum(): its gradient
    is what backward() gives for all the outputs at once, each weighted by its own
    grad_output (None: a one-element output, weighted by 1)."""
    from .. import functional as F
    from .._tensor import Tensor

    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(
            f"{op}: got {len(outputs)} tensors and {len(grad_outputs)} gradients; pass one "
            f"{grads_name} entry per tensor in {outputs_name} (None for a one-element one)"
        )
    with enable_grad():
        total = None
        for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
            if not out.requires_grad:
                raise RuntimeError(
                    f"{op}: element {i} of {outputs_name} does not require grad and does not "
                    "have a grad_fn"
                )
            if g is None and out.numel() != 1:
                raise RuntimeError(
                    f"{op}: grad can be implicitly created only for scalar outputs, but "
                    f"{outputs_name}[{i}] has shape {tuple(out.shape)}; pass {grads_name}"
                )
            if g is not None and tuple(g.shape) != tuple(out.shape):
                raise RuntimeError(
                    f"{op}: mismatch in shape: {grads_name}[{i}] has a shape of "
                    f"{tuple(g.shape)} and {outputs_name}[{i}] has a shape of "
                    f"{tuple(out.shape)}; they must be the same"
                )
            term = out.sum() if g is None else F.mul(out, g.detach()).sum()
            total = term if total is None else total + term
    return total


def no_gradients_of_gradients(what: str) -> NotImplementedError:
    """The one thing microtorch's autograd cannot do, and why."""
    return NotImplementedError(
        f"{what} not supported: microtorch's backward functions work on raw arrays, so "
        "they record no graph of their own (no gradients of gradients)"
    )


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False,
         materialize_grads=False) -> tuple:  # fmt: skip
    """``autograd.grad(loss, params)``: the gradients of ``outputs`` (summed, each weighted by
    its ``grad_outputs``) with respect to each of ``inputs``, returned as a tuple. Unlike
    ``backward()``, no leaf's ``.grad`` changes. An input no gradient reaches is an error, unless
    ``allow_unused=True`` (then None, or zeros with ``materialize_grads=True``).
    ``only_inputs`` is ignored, as in PyTorch (where it is deprecated)."""
    from .. import factories
    from .._tensor import Tensor
    from . import engine

    if create_graph:
        raise no_gradients_of_gradients("autograd.grad: create_graph=True is")
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, allow_unused,
                             materialize_grads)  # fmt: skip
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    single = isinstance(inputs, Tensor)
    inputs = [inputs] if single else list(inputs)
    if not inputs:
        raise RuntimeError("autograd.grad: the inputs argument cannot be empty")
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "autograd.grad: materialize_grads=True gives zeros for unused inputs, so it needs "
            "allow_unused=True or left out, but got allow_unused=False"
        )
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor) or not t.requires_grad:
            raise RuntimeError(
                f"autograd.grad: inputs[{i}] does not require grad (every input must be a "
                "tensor that requires grad)"
            )
    total = weighted_sum(outputs, grad_outputs, "autograd.grad", "outputs", "grad_outputs")
    if total is None:  # no outputs: no gradient reaches any input
        found = [None] * len(inputs)
    else:
        seed = backend.xp_of(total.array).ones_like(total.array)
        with engine.capturing_walk():
            found = engine.backward(total, seed, retain_graph=bool(retain_graph), capture=inputs)
    result = []
    for i, (t, g) in enumerate(zip(inputs, found)):
        if g is None:
            if not allow_unused and not materialize_grads:
                raise RuntimeError(
                    f"autograd.grad: inputs[{i}] was not used in computing the outputs; pass "
                    "allow_unused=True if that is expected"
                )
            result.append(factories.zeros_like(t) if materialize_grads else None)
        else:
            result.append(Tensor._make(backend.xp_of(g).asarray(g).astype(t.array.dtype)))
    return tuple(result)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, allow_unused,
                  materialize_grads) -> tuple:  # fmt: skip
    """``grad(..., is_grads_batched=True)``: one ``grad`` per entry along the first dim of
    the grad_outputs (a loop, as microtorch's vmap is), each input's gradients stacked along
    a new first dim (rows of a Jacobian, when the grad_outputs are rows of an identity)."""
    from .. import functional as F
    from .._tensor import Tensor

    batches = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs or ())
    if not batches or any(not isinstance(g, Tensor) or g.ndim == 0 for g in batches):
        raise RuntimeError(
            "autograd.grad: is_grads_batched=True needs grad_outputs, tensors whose first dim "
            "is the batch (each entry along it is one grad_outputs)"
        )
    n = batches[0].shape[0]
    if n == 0 or any(g.shape[0] != n for g in batches):
        raise RuntimeError(
            f"autograd.grad: is_grads_batched=True needs grad_outputs with one non-empty "
            f"batch size, got first dims {[g.shape[0] for g in batches]}"
        )
    rows = [
        grad(
            outputs,
            inputs,
            [g[b] for g in batches],
            retain_graph=retain_graph or b < n - 1,
            allow_unused=allow_unused,
            materialize_grads=materialize_grads,
        )  # fmt: skip
        for b in range(n)
    ]
    return tuple(None if row[0] is None else F.stack(list(row)) for row in zip(*rows))


def is_tensor_like(inp: Any) -> bool:
    """True for a tensor, the Tensor class (or a subclass), or anything that defines
    ``__torch_function__``: what PyTorch's functions treat as a tensor."""
    from .._tensor import Tensor

    if isinstance(inp, Tensor) or (isinstance(inp, type) and issubclass(inp, Tensor)):
        return True
    return hasattr(inp, "__torch_function__")


__all__ = [
    "AnomalyError",
    "Function",
    "GradcheckError",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "grad",
    "gradcheck",
    "inference_mode",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_multithreading_enabled",
    "is_tensor_like",
    "no_grad",
    "set_detect_anomaly",
    "set_grad_enabled",
    "set_multithreading_enabled",
    "Variable",
]
