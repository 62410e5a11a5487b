"""``autograd.functional``: derivatives of a whole function at a point, built on
``autograd.grad``, as in ``torch.autograd.functional``.

    J = jacobian(f, x)          # d f(x) / d x: shape f(x).shape + x.shape
    out, g = vjp(f, x, v)       # f(x), and v^T J without forming J

Each row of a Jacobian is one backward pass ("reverse mode"), so ``jacobian`` costs one
backward per element of f(x). What needs gradients of gradients (``hessian``, ``jvp``,
``hvp``, ``vhp``) is not here: microtorch's backward records no graph of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import factories
from .._tensor import Tensor
from . import grad as _grad
from . import grad_mode, no_gradients_of_gradients


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:  # fmt: skip
    """(func(inputs), the vector-Jacobian product v^T J): the gradient of sum(func(inputs)
    * v) with respect to each input (zeros for an input the output does not depend on).
    ``v`` may be left out when func returns one number."""
    if create_graph:
        raise no_gradients_of_gradients("vjp: create_graph=True is")
    single, xs = _as_inputs(inputs, "vjp")
    outputs = _call(func, xs, "vjp")
    single_out, outs = isinstance(outputs, Tensor), _as_tuple(outputs, "vjp", "outputs of func")
    if v is None:
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError(
                "vjp: v can be left out only when func returns a single tensor with a single "
                "element; pass v shaped like func's output"
            )
        vs = (None,)
    else:
        vs = _as_tuple(v, "vjp", "v")
        if len(vs) != len(outs):
            raise RuntimeError(
                f"vjp: v is a tuple of invalid length: should be {len(outs)} (one per output "
                f"of func) but got {len(vs)}"
            )
        for i, (o, w) in enumerate(zip(outs, vs)):
            if tuple(w.shape) != tuple(o.shape):
                raise RuntimeError(
                    f"vjp: v[{i}] has shape {tuple(w.shape)} but func's output {i} has shape "
                    f"{tuple(o.shape)}"
                )
    grads = _grads_of(outs, xs, vs, strict, "vjp")
    detached = tuple(o.detach() for o in outs)
    return (detached[0] if single_out else detached), (grads[0] if single else grads)


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:  # fmt: skip
    """d func(inputs) / d inputs: for one input x and one output y, a tensor of shape
    y.shape + x.shape whose [i..., j...] entry is d y[i...] / d x[j...]. With several inputs
    (a tuple) or outputs, a tuple over outputs of tuples over inputs, as in PyTorch.
    ``vectorize`` and ``strategy`` (speed options in PyTorch) change nothing here."""
    if create_graph:
        raise no_gradients_of_gradients("jacobian: create_graph=True is")
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(
            f"jacobian: strategy must be 'forward-mode' or 'reverse-mode', got {strategy!r}"
        )
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError(
            "jacobian: strategy='forward-mode' is only implemented for vectorize=True, as in "
            "PyTorch (the Jacobian is the same either way; here it is always reverse-mode)"
        )
    if strict and vectorize:
        raise RuntimeError(
            "jacobian: strict=True and vectorize=True are not supported together, as in "
            "PyTorch; set strict=False or vectorize=False"
        )
    single, xs = _as_inputs(inputs, "jacobian")
    outputs = _call(func, xs, "jacobian")
    single_out, outs = (
        isinstance(outputs, Tensor),
        _as_tuple(outputs, "jacobian", "outputs of func"),
    )
    per_output = []
    for o in outs:
        rows: list[list[Tensor]] = [[] for _ in xs]  # per input: one gradient per element of o
        with grad_mode.enable_grad():  # (the elements picked must stay in o's graph)
            flat = o.reshape(-1)
            elements = [flat[k] for k in range(flat.numel())]
        for element in elements:
            for i, g in enumerate(_grads_of((element,), xs, (None,), strict, "jacobian")):
                rows[i].append(g.reshape(-1))
        blocks = []
        for x, r in zip(xs, rows):
            if r:
                block = _stack(r).reshape((*o.shape, *x.shape))
            else:  # an empty output: a Jacobian with no rows
                block = factories.zeros((*o.shape, *x.shape), dtype=x.dtype, device=x.device)
            blocks.append(block)
        per_output.append(blocks[0] if single else tuple(blocks))
    return per_output[0] if single_out else tuple(per_output)


def _as_inputs(inputs: Any, op: str) -> tuple[bool, tuple]:
    """(was it one tensor?, the inputs as detached copies that require grad)."""
    single = isinstance(inputs, Tensor)
    xs = _as_tuple(inputs, op, "inputs")
    for i, x in enumerate(xs):
        if not isinstance(x, Tensor):
            raise TypeError(
                f"{op}: inputs[{i}] is a {type(x).__name__}; inputs must be a tensor or a tuple "
                "of tensors"
            )
        if not x.dtype.is_floating_point:  # (RuntimeError, as requires_grad_ raises)
            raise RuntimeError(
                f"{op}: inputs[{i}] is {x.dtype}, but only tensors of floating point dtype can "
                "require gradients; convert it first with .float()"
            )
    return single, tuple(x.detach().requires_grad_(True) for x in xs)


def _as_tuple(values: Any, op: str, what: str) -> tuple:
    """A tensor as a 1-tuple, a tuple as itself; anything else (a list...) is PyTorch's
    TypeError."""
    if isinstance(values, Tensor):
        return (values,)
    if not isinstance(values, tuple):
        raise TypeError(
            f"{op}: the {what} must be either a Tensor or a tuple of Tensors, but got "
            f"{type(values).__name__}; write tuple(...)"
        )
    return values


def _call(func: Callable, xs: tuple, op: str) -> Any:
    with grad_mode.enable_grad():
        outputs = func(*xs)
    for o in _as_tuple(outputs, op, "outputs of func"):
        if not isinstance(o, Tensor):
            raise TypeError(
                f"func must return a tensor or a tuple of tensors, got {type(o).__name__}"
            )
    return outputs


def _grads_of(outs: tuple, xs: tuple, vs: tuple, strict: bool, op: str) -> tuple:
    """The gradient of sum(out * v) with respect to each x, zeros where none reaches it (an
    error with ``strict``)."""
    used = [(o, w) for o, w in zip(outs, vs) if o.requires_grad]
    found: tuple = (None,) * len(xs)
    if used:
        found = _grad([o for o, _ in used], list(xs), [w for _, w in used], retain_graph=True,
                      allow_unused=True)  # fmt: skip
    grads = []
    for i, (x, g) in enumerate(zip(xs, found)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"{op}: output is independent of input {i}; with strict=False its "
                    "derivative would be all zeros"
                )
            g = factories.zeros_like(x)
        grads.append(g)
    return tuple(grads)


def _stack(rows: list[Tensor]) -> Tensor:
    from .. import functional as F

    return F.stack(rows)


def __getattr__(name: str) -> Any:
    if name in ("hessian", "hvp", "vhp", "jvp"):
        raise AttributeError(
            f"autograd.functional.{name} needs gradients of gradients, which microtorch does "
            "not record (its backward functions work on raw arrays); jacobian and vjp are here"
        )
    raise AttributeError(f"module 'microtorch.autograd.functional' has no attribute '{name}'")
