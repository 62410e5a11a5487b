"""``gradcheck``: compare backward() with finite differences, in float64.

For a function f and inputs x, backward gives the gradient of L = sum(f(x) * r) for a
fixed random r. Finite differences estimate the same gradient:

    dL/dx_i ~ (L(x + eps e_i) - L(x - eps e_i)) / (2 eps)

Small inputs are checked element by element; large ones along a few random directions
u, comparing (L(x + eps u) - L(x - eps u)) / (2 eps) with <grad, u>."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

from .. import backend
from . import grad_mode

ELEMENTWISE_LIMIT = 2000  # inputs with more elements in total are checked along directions
RANDOM_DIRECTIONS = 8


class GradcheckError(RuntimeError):
    pass


def _outputs(result: Any) -> list:
    from .._tensor import Tensor

    if isinstance(result, Tensor):
        return [result]
    return [r for r in result if isinstance(r, Tensor)]


def gradcheck(func: Callable, inputs: Sequence[Any], *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, seed: int = 0, raise_exception: bool = True,
              nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False,
              masked: bool | None = None) -> bool:  # fmt: skip
    """Check ``func``'s gradients with respect to every float64 input that requires grad.

    ``func(*inputs)`` returns a tensor or a tuple of tensors. backward() is compared with
    central finite differences (step ``eps``) of the float64 forward: element by element
    when the checked inputs have at most ``ELEMENTWISE_LIMIT`` elements in total (and not
    ``fast_mode``), otherwise along ``RANDOM_DIRECTIONS`` random directions. An element
    passes when ``|analytic - numeric| <= atol + rtol * |numeric|``.

    Returns True, or raises ``GradcheckError`` naming the worst input and index (returns
    False instead with ``raise_exception=False``). The inputs' ``.grad`` are left as they were.

    PyTorch's other options are accepted: ``nondet_tol``, ``check_undefined_grad``,
    ``check_grad_dtypes``, ``check_batched_grad`` and ``masked`` change nothing here (the
    backward functions are deterministic, every gradient has its input's dtype, and vmap is
    a loop over the plain backward); forward-mode checks raise, as there is no forward mode.

        x = microtorch.randn(3, 4, dtype=microtorch.float64, requires_grad=True)
        gradcheck(lambda t: t.tanh().sum(dim=1), (x,))"""
    from .._tensor import Tensor

    if check_forward_ad or check_batched_forward_grad:
        raise NotImplementedError(
            "gradcheck: check_forward_ad and check_batched_forward_grad are not supported: "
            "microtorch has reverse-mode autograd only; leave them False"
        )
    if not isinstance(inputs, (tuple, list)):
        inputs = (inputs,)
    checked = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not checked:
        raise ValueError("gradcheck: no input requires grad, so there is nothing to check")
    for i in checked:
        if inputs[i].dtype.name != "float64":
            raise ValueError(
                f"gradcheck: input {i} is {inputs[i].dtype}; use float64 inputs, finite "
                "differences are too coarse in lower precision"
            )
    rng = numpy.random.default_rng(seed)
    with grad_mode.enable_grad():
        outs = _outputs(func(*inputs))
    projections = [rng.standard_normal(o.shape) for o in outs]

    def scalar_loss() -> float:
        with grad_mode.no_grad():
            results = _outputs(func(*inputs))
        return float(
            sum((backend.to_numpy(o.array).astype(numpy.float64) * r).sum()
                for o, r in zip(results, projections))
        )  # fmt: skip

    # analytic gradients through backward(), without touching the inputs' .grad
    with grad_mode.enable_grad():
        outs = _outputs(func(*inputs))
        total = None
        for o, r in zip(outs, projections):
            if not o.requires_grad:
                continue
            term = (o * Tensor._make(backend.to_device(r.astype(o.array.dtype), o.device))).sum()
            total = term if total is None else total + term
    if total is None:
        raise GradcheckError("gradcheck: no output requires grad, so backward cannot be checked")
    from . import grad as autograd_grad

    found = autograd_grad(total, [inputs[i] for i in checked], allow_unused=True)
    analytic = {}
    for i, g in zip(checked, found):
        analytic[i] = numpy.zeros(inputs[i].shape) if g is None else backend.to_numpy(g.array)

    n_total = sum(inputs[i].numel() for i in checked)
    worst = (0.0, None)  # (excess over tolerance, message)
    for i in checked:
        x = inputs[i].array
        if n_total <= ELEMENTWISE_LIMIT and not fast_mode:
            for flat in range(x.size):
                idx = numpy.unravel_index(flat, x.shape)
                original = x[idx].item()
                x[idx] = original + eps
                plus = scalar_loss()
                x[idx] = original - eps
                minus = scalar_loss()
                x[idx] = original
                numeric = (plus - minus) / (2 * eps)
                a = float(analytic[i][idx])
                worst = _compare(
                    worst,
                    a,
                    numeric,
                    atol,
                    rtol,
                    f"input {i} at index {tuple(int(j) for j in idx)}",
                )
        else:
            original = x.copy()
            for k in range(RANDOM_DIRECTIONS):
                u = rng.standard_normal(x.shape)
                u_dev = backend.to_device(u, inputs[i].device)
                x[...] = original + eps * u_dev
                plus = scalar_loss()
                x[...] = original - eps * u_dev
                minus = scalar_loss()
                x[...] = original
                numeric = (plus - minus) / (2 * eps)
                a = float((analytic[i] * u).sum())
                worst = _compare(
                    worst, a, numeric, atol, rtol, f"input {i} along random direction {k}"
                )
    if worst[1] is not None:
        if not raise_exception:
            return False
        raise GradcheckError(worst[1])
    return True


def _compare(worst: tuple, analytic: float, numeric: float, atol: float, rtol: float, where: str):
    excess = abs(analytic - numeric) - (atol + rtol * abs(numeric))
    if not numpy.isfinite(analytic) or not numpy.isfinite(numeric):
        excess = float("inf") if numpy.isfinite(numeric) != numpy.isfinite(analytic) else -1
    if excess > 0 and excess > worst[0]:
        message = (
            f"gradcheck: gradient mismatch for {where}: backward gives {analytic:.8g}, finite "
            f"differences give {numeric:.8g} (difference {abs(analytic - numeric):.3g} > "
            f"atol {atol} + rtol {rtol} * |numeric|)"
        )
        return (excess, message)
    return worst
