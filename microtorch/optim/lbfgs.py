"""L-BFGS (Nocedal & Wright, Numerical Optimization, algorithms 7.4 and 7.5), with PyTorch's
``torch.optim.LBFGS`` rule: a quasi-Newton method that needs ``step(closure)``, the closure
re-evaluating the loss (and its gradients) as often as the method asks.

All parameters are seen as one flat vector x with gradient g. Each of up to ``max_iter``
iterations of one step():

    d = -H g                 H the inverse-Hessian estimate from the last ``history_size``
                             pairs (s = x_new - x_old, y = g_new - g_old), applied by the
                             two-loop recursion (kept only when y . s > 1e-10)
    t = lr                   (first iteration ever: min(1, 1 / sum|g|) * lr)
    x = x + t d              or, with line_search_fn="strong_wolfe", t chosen along d so
                             that the strong Wolfe conditions hold (sufficient decrease,
                             c1 = 1e-4, and curvature, c2 = 0.9), by cubic interpolation

and it stops early when max|g| <= tolerance_grad, when the loss or the move changes by
less than tolerance_change, or after ``max_eval`` closure calls.

The arithmetic is on the raw arrays (NumPy or CuPy); scalars (t, y . s...) are Python
floats, which is exact in float64 and rounds float32 parameters' scalars less than PyTorch's
0-d float32 tensors do.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from .. import backend
from .._tensor import Tensor
from ..autograd import grad_mode
from .optimizer import Optimizer


def _cubic_interpolate(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                       bounds: tuple[float, float] | None = None) -> float:  # fmt: skip
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clamped
    to ``bounds`` (default: between x1 and x2); their middle when the cubic has none."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 * d1 - g1 * g2
    if d2_square < 0:
        return (low + high) / 2.0
    d2 = math.sqrt(d2_square)
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, low), high)


def _strong_wolfe(evaluate: Callable[[float], tuple[float, Any]], t: float, d: Any, f: float,
                  g: Any, gtd: float, c1: float = 1e-4, c2: float = 0.9,
                  tolerance_change: float = 1e-9,
                  max_ls: int = 25) -> tuple[float, Any, float, int]:  # fmt: skip
    """A step t along d satisfying the strong Wolfe conditions, from the loss f, gradient g
    and slope gtd = g . d at t = 0; ``evaluate(t)`` gives (loss, gradient) at x + t d.
    Returns (loss, gradient, t, number of evaluations)."""
    xp = backend.xp_of(d)
    d_norm = float(xp.abs(d).max())
    g = g.copy()
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = float(xp.dot(g_new, d))
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    # 1. bracketing: grow t until an interval [t_prev, t] must hold an acceptable step
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:  # both conditions hold at t: done
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:  # the slope turned: the minimum is behind
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        # extrapolate: the cubic's minimiser between a bit beyond t and ten times t
        t_next = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                    bounds=(t + 0.01 * (t - t_prev), t * 10))  # fmt: skip
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new.copy(), gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = float(xp.dot(g_new, d))
        ls_iter += 1
    if ls_iter == max_ls:  # never bracketed
        bracket, bracket_f, bracket_g = [0.0, t], [f, f_new], [g, g_new]
    # 2. zoom: shrink the bracket by cubic interpolation until t satisfies both conditions
    insufficient_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1],
                               bracket_f[1], bracket_gtd[1])  # fmt: skip
        # keep t at least 10% of the bracket away from its ends (or from the end it is
        # nearest, when the last try was already too close)
        top, bottom = max(bracket), min(bracket)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            if insufficient_progress or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = float(xp.dot(g_new, d))
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:  # not low enough: new high end
            bracket[high], bracket_f[high] = t, f_new
            bracket_g[high], bracket_gtd[high] = g_new.copy(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:  # the old low becomes high
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low] = t, f_new
            bracket_g[low], bracket_gtd[low] = g_new.copy(), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals


class LBFGS(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:  # fmt: skip
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)  # fmt: skip
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # ----- the parameters as one flat vector
    def _flat_grad(self) -> Any:
        """Every parameter's gradient, flattened and joined (zeros where there is none)."""
        xp = backend.xp_of(self._params[0].array)
        parts = [
            p.grad.array.reshape(-1) if p.grad is not None else xp.zeros(p.array.size, p.array.dtype)
            for p in self._params
        ]  # fmt: skip
        return xp.concatenate(parts)

    def _add_to_params(self, t: float, d: Any) -> None:
        """x = x + t d, each parameter its slice of d."""
        offset = 0
        for p in self._params:
            n = p.array.size
            p.array += t * d[offset : offset + n].reshape(p.array.shape)
            p._version_counter.value += 1
            offset += n

    def _set_params(self, values: list) -> None:
        for p, value in zip(self._params, values, strict=True):
            p.array[...] = value
            p._version_counter.value += 1

    def _evaluate(self, closure: Callable[[], Any]) -> float:
        with grad_mode.enable_grad():
            return float(closure())

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Up to ``max_iter`` L-BFGS iterations; returns the loss of the first closure call."""
        if closure is None:
            raise RuntimeError(
                "LBFGS.step() needs a closure that clears the gradients, computes the loss, "
                "calls backward() and returns the loss: optimizer.step(closure)"
            )
        group = self.param_groups[0]
        lr = float(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        xp = backend.xp_of(self._params[0].array)
        state = self.state[self._params[0]]  # all of the state lives with the first parameter
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with grad_mode.enable_grad():
            first_loss = closure()
        loss = float(first_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if float(xp.abs(flat_grad).max()) <= tolerance_grad:  # already optimal
            return first_loss

        # (a state dict saved by PyTorch holds t, H_diag, ro and al as 0-d tensors: numbers here)
        d, t = _array(state.get("d")), _number(state.get("t"))
        old_dirs = [_array(y) for y in state.get("old_dirs", [])]  # the y's
        old_stps = [_array(s) for s in state.get("old_stps", [])]  # the s's
        ro = [_number(r) for r in state.get("ro", [])]  # 1 / (y . s)
        h_diag = _number(state.get("H_diag", 1.0))
        prev_flat_grad = _array(state.get("prev_flat_grad"))
        prev_loss = _number(state.get("prev_loss"))

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            # the direction d = -H g
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro, h_diag = [], [], [], 1  # (an int until a pair is kept)
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = float(xp.dot(y, s))
                if ys > 1e-10:  # keep the pair only where the curvature is positive
                    if len(old_dirs) == history_size:
                        del old_dirs[0], old_stps[0], ro[0]
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / float(xp.dot(y, y))  # H's scale: s . y / y . y
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"] = [_number(a) for a in state["al"]]
                q = -flat_grad  # two-loop recursion: newest pair first, then oldest first
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = float(xp.dot(old_stps[i], q)) * ro[i]
                    q -= al[i] * old_dirs[i]
                d = q * h_diag
                for i in range(len(old_dirs)):
                    be_i = float(xp.dot(old_dirs[i], d)) * ro[i]
                    d += (al[i] - be_i) * old_stps[i]
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            # the step length
            if state["n_iter"] == 1:
                scale = 1.0 / float(xp.abs(flat_grad).sum())
                t = min(1.0, scale) * lr
                t_kind = "tensor" if scale < 1.0 else "float"  # (PyTorch: min(1.0, a tensor))
            else:
                t = lr
                t_kind = "int" if isinstance(group["lr"], int) else "float"  # (the lr given)
            gtd = float(xp.dot(flat_grad, d))  # the slope along d
            if gtd > -tolerance_change:  # not a descent direction (any more)
                break
            ls_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p.array.copy() for p in self._params]

                def evaluate(step: float, direction: Any = d, start: list = x_init) -> tuple:
                    """(loss, flat gradient) at x + step * direction; x is put back."""
                    self._add_to_params(step, direction)
                    value = self._evaluate(closure)
                    grad = self._flat_grad()
                    self._set_params(start)
                    return value, grad

                tried = t
                loss, flat_grad, t, ls_evals = _strong_wolfe(
                    evaluate, t, d, loss, flat_grad, gtd, max_ls=max_eval - evals
                )
                t_kind = t_kind if t == tried else "tensor"  # (PyTorch's search makes tensors)
                self._add_to_params(t, d)
                optimal = float(xp.abs(flat_grad).max()) <= tolerance_grad
            else:
                self._add_to_params(t, d)
                optimal = False
                if n_iter != max_iter:  # (the last iteration's loss is the next step's first)
                    loss = self._evaluate(closure)
                    flat_grad = self._flat_grad()
                    optimal = float(xp.abs(flat_grad).max()) <= tolerance_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals
            if n_iter == max_iter or evals >= max_eval or optimal:
                break
            if float(xp.abs(d * t).max()) <= tolerance_change:  # the move is negligible
                break
            if abs(loss - prev_loss) < tolerance_change:  # so is the change in loss
                break

        state["d"] = Tensor._make(d)
        kinds = {"tensor": lambda: _scalar(t, flat_grad), "int": lambda: int(t), "float": lambda: t}
        state["t"] = kinds[t_kind]() if n_iter else t
        state["old_dirs"] = [Tensor._make(y) for y in old_dirs]
        state["old_stps"] = [Tensor._make(s) for s in old_stps]
        # as PyTorch keeps them: ro, al and H_diag as 0-d tensors of the parameters' dtype
        # (H_diag stays the int 1 until a pair is kept), t and prev_loss as numbers
        state["ro"] = [_scalar(r, flat_grad) for r in ro]
        if "al" in state:
            state["al"] = [None if a is None else _scalar(a, flat_grad) for a in state["al"]]
        state["H_diag"] = h_diag if isinstance(h_diag, int) else _scalar(h_diag, flat_grad)
        state["prev_flat_grad"] = Tensor._make(prev_flat_grad)
        state["prev_loss"] = prev_loss
        return first_loss


def _number(value: Any) -> Any:
    """A saved scalar state as a Python number (a 0-d tensor's value; None stays None)."""
    return value.item() if isinstance(value, Tensor) else value


def _scalar(value: float, like: Any) -> Tensor:
    """A number kept in the state as PyTorch keeps it: a 0-d tensor of like's dtype."""
    return Tensor._make(backend.xp_of(like).asarray(value, dtype=like.dtype))


def _array(value: Any) -> Any:
    """The array of a saved state tensor (None stays None)."""
    return value.array if isinstance(value, Tensor) else value
