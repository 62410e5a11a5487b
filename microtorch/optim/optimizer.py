"""``Optimizer``: the base class of every optimizer (SGD, Adam, AdamW, RMSprop, Adagrad...).

An optimizer holds ``param_groups``, a list of dicts: each has its ``"params"`` (a list of
tensors) and its own hyperparameters (``"lr"``, ``"weight_decay"``...). A training loop may
change them between steps (``group["lr"] = new_lr``). ``state`` maps each parameter to what
the update rule remembers about it (momentum, running averages, the step count).

Subclasses implement ``step()``. For speed, updates work on the raw arrays (``p.array``,
``p.grad.array``) with in-place NumPy/CuPy operations and record no graph, then bump the
parameter's version counter, as any in-place change does.
"""

from __future__ import annotations

import math
import numbers
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .. import backend, dtypes
from .._tensor import Tensor, clear_grads
from .._warn import warn_user
from ..autograd import grad_mode
from ..nn.module import _add_hook, _RemovableHandle
from ..ops.elementwise import _in_float32

# Step hooks every optimizer runs (register_optimizer_step_pre_hook / _post_hook below).
_global_step_pre_hooks: OrderedDict = OrderedDict()
_global_step_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable) -> _RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` before every optimizer's step(), ahead of
    its own pre-hooks; it may return new ``(args, kwargs)``. ``.remove()`` takes it out."""
    return _add_hook(_global_step_pre_hooks, hook, prepend=False)


def register_optimizer_step_post_hook(hook: Callable) -> _RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` after every optimizer's step(), after its own
    post-hooks. ``.remove()`` takes it out."""
    return _add_hook(_global_step_post_hooks, hook, prepend=False)


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    def __init__(self, params: Iterable[Any], defaults: dict) -> None:
        self.defaults = defaults
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        self._step_pre_hooks: OrderedDict = OrderedDict()
        self._step_post_hooks: OrderedDict = OrderedDict()
        self._state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._state_dict_post_hooks: OrderedDict = OrderedDict()
        self._load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._load_state_dict_post_hooks: OrderedDict = OrderedDict()
        # id(0-d state tensor on a GPU) -> (tensor, its version, the value step() wrote)
        self._host_copies: dict = {}
        # opt.step(...) runs the step hooks around the class's own step(): this instance
        # attribute shadows the method, so no optimizer's step() has to call the hooks.
        self.step = self._step_with_hooks
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {type(params).__name__}; pass model.parameters()"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own hyperparameters (missing ones are taken
        from the optimizer's defaults). Its params may be (name, tensor) pairs, as from
        ``model.named_parameters()``: the names are kept in the group's ``"param_names"``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        group = dict(param_group)
        params = group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs; use a list instead"
            )
        params = list(params)
        named = bool(params) and isinstance(params[0], tuple)  # model.named_parameters()
        if named:
            group["param_names"] = [name for name, _ in params]
            params = [p for _, p in params]
        if self.param_groups and named != ("param_names" in self.param_groups[0]):
            raise ValueError(
                "all optimizer param groups should be with or without names: cannot add a "
                f"param group {'with' if named else 'without'} names to an optimizer whose "
                f"groups are {'without' if named else 'with'} them"
            )
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}"
                )
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group["params"] = params
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            group.setdefault(name, default)
        ids = {id(p) for p in params}
        if len(ids) != len(params):  # (PyTorch warns, and steps such a parameter twice)
            warn_user(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error (as in PyTorch); list each parameter once"
            )
        for other in self.param_groups:
            if ids & {id(p) for p in other["params"]}:
                raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    # ------------------------------------------------------------ gradients
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's gradient: to None (the default, so the next backward
        allocates a fresh one), or to zeros in place."""
        for group in self.param_groups:
            clear_grads(group["params"], set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        raise TypeError(f"{type(self).__name__} must define step()")

    # ------------------------------------------------------------ hooks
    def _step_with_hooks(self, *args: Any, **kwargs: Any) -> Any:
        """type(self).step(self, *args, **kwargs) between the step pre- and post-hooks. As
        in PyTorch, a hook's ``args`` start with the optimizer itself."""
        args = (self, *args)
        self._opt_called = True  # (for the schedulers' warning when they step first)
        for group in self.param_groups:
            if group.get("capturable"):
                _check_capturable(type(self).__name__, group["params"])
        for hook in (*_global_step_pre_hooks.values(), *self._step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"{type(self).__name__}.step: a step pre-hook must return None or a "
                        f"tuple of (new_args, new_kwargs), but got {result!r}"
                    )
                args, kwargs = result
        out = type(self).step(*args, **kwargs)
        for hook in (*self._step_post_hooks.values(), *_global_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    def register_step_pre_hook(self, hook: Callable) -> _RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` before each step(); it may return new
        ``(args, kwargs)`` for the step. ``.remove()`` on the handle takes it out."""
        return _add_hook(self._step_pre_hooks, hook, prepend=False)

    def register_step_post_hook(self, hook: Callable) -> _RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` after each step()."""
        return _add_hook(self._step_post_hooks, hook, prepend=False)

    def register_state_dict_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> _RemovableHandle:
        """Run ``hook(optimizer)`` at the start of state_dict() (first if ``prepend``)."""
        return _add_hook(self._state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(
        self, hook: Callable, prepend: bool = False
    ) -> _RemovableHandle:
        """Run ``hook(optimizer, state_dict)`` at the end of state_dict(); a returned dict
        replaces the state dict."""
        return _add_hook(self._state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable,
                                          prepend: bool = False) -> _RemovableHandle:  # fmt: skip
        """Run ``hook(optimizer, state_dict)`` at the start of load_state_dict(); a returned
        dict is loaded instead."""
        return _add_hook(self._load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable,
                                           prepend: bool = False) -> _RemovableHandle:  # fmt: skip
        """Run ``hook(optimizer)`` at the end of load_state_dict()."""
        return _add_hook(self._load_state_dict_post_hooks, hook, prepend)

    def _run_closure(self, closure: Callable[[], Any] | None) -> Any:
        if closure is None:
            return None
        with grad_mode.enable_grad():
            return closure()

    def _state_of(self, p: Tensor, group: dict, *buffers: str, **numbers: float) -> dict:
        """``self.state[p]``, set up on p's first step: ``"step"`` 0, then the scalar state
        in ``numbers`` (NAdam's mu_product...), all 0-d tensors as in PyTorch, and, for each
        name in ``buffers``, an array of zeros like p (a running average, a momentum...), in
        PyTorch's order."""
        state = self.state[p]
        if not state:
            xp = backend.xp_of(p.array)
            state["step"] = self._scalar_tensor(0.0, p, group, "step")
            for name, value in numbers.items():
                state[name] = self._scalar_tensor(value, p, group, name)
            for name in buffers:
                state[name] = Tensor._make(xp.zeros_like(p.array))
        return state

    # -------------------------------------------- the 0-d state: step count, eta, mu...
    # PyTorch keeps these as 0-d tensors (on the CPU, or on p's device for capturable or
    # fused); step() computes with their Python values. On the CPU reading one is free; on a
    # GPU it would wait for the device, so step() remembers the value it wrote last.
    def _scalars_on_device(self, group: dict) -> bool:
        """Whether this group's 0-d state lives on its parameters' device (PyTorch's rule:
        with capturable or fused; ASGD's always) rather than on the CPU."""
        return bool(group.get("capturable") or group.get("fused"))

    def _scalar_tensor(self, value: float, p: Tensor, group: dict, name: str) -> Tensor:
        """A new 0-d state tensor holding ``value``, of PyTorch's dtype (float32, or float64
        when that is the default dtype; a fused optimizer's step always float32)."""
        fused_step = name == "step" and bool(group.get("fused"))
        wide = dtypes.get_default_dtype() is dtypes.float64 and not fused_step
        array = np.array(value, dtype=np.float64 if wide else np.float32)
        on_device = self._scalars_on_device(group) and p.device.type != "cpu"
        t = Tensor._make(backend.to_device(array, p.device) if on_device else array)
        if on_device:  # (its value known here: no read back at the first step)
            self._host_copies[id(t)] = (t, t._version_counter.value, float(array))
        return t

    def _scalar(self, state: dict, name: str) -> float:
        """The 0-d state ``state[name]`` as a Python float, read back from a GPU only when it
        was changed outside step() (or never written by it)."""
        t = state[name]
        if not isinstance(t, Tensor):  # (a number put there by hand)
            return float(t)
        if isinstance(t.array, np.ndarray):
            return float(t.array)
        kept = self._host_copies.get(id(t))
        if kept is not None and kept[0] is t and kept[1] == t._version_counter.value:
            return kept[2]
        return float(t.item())

    def _set_scalar(self, state: dict, name: str, value: float) -> float:
        """Write ``value`` into the 0-d state ``state[name]`` in place; returns it rounded
        to the tensor's dtype, as the tensor now holds it."""
        t = state[name]
        if not isinstance(t, Tensor):  # (a number put there by hand: a tensor from now on)
            t = state[name] = Tensor._make(np.array(0.0, dtype=_default_scalar_dtype()))
        array = t.array
        value = rounded_as(value, t)
        array.fill(value)
        if not isinstance(array, np.ndarray):
            self._host_copies[id(t)] = (t, t._version_counter.value, value)
        return value

    def _next_step(self, state: dict) -> int:
        """Add one to ``state["step"]``; returns the new count."""
        return int(self._set_scalar(state, "step", self._scalar(state, "step") + 1.0))

    # ------------------------------------------------------------ saving and resuming
    def state_dict(self) -> dict:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}``.

        Parameters are named by their position across all groups (0, 1, 2...), as PyTorch
        does, so a state dict can be loaded into a new optimizer over a new model of the
        same shape. The state's tensors are the live ones (save or copy them). As in
        PyTorch, the step count (and ASGD's eta and mu, NAdam's mu_product) is saved as a
        0-d tensor, in float32 (float64 when that is the default dtype)."""
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self)
        index: dict[int, int] = {}
        groups = []
        start = 0  # a group's first index: past every entry of the groups before it
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index[id(p)] = i  # (a parameter listed twice in a group: its last place)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(group["params"])
            groups.append(packed)
        state = {}
        for p, s in self.state.items():
            if id(p) in index:
                state[index[id(p)]] = {name: _saved_state_value(name, v) for name, v in s.items()}
        state_dict = {"state": state, "param_groups": groups}
        for hook in list(self._state_dict_post_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore hyperparameters and per-parameter state saved by ``state_dict()``. State
        tensors are copied onto each parameter's device (floating ones in its dtype). A
        hyperparameter the state dict lacks (one saved before it existed, such as
        ``maximize``) gets this optimizer's default, as PyTorch's optimizers fill them in."""
        for hook in list(self._load_state_dict_pre_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        if not isinstance(state_dict, dict):
            raise TypeError(
                "optimizer.load_state_dict: expected a dict with 'state' and 'param_groups', "
                f"as made by optimizer.state_dict(), but got {type(state_dict).__name__}"
            )
        for key in ("state", "param_groups"):  # a missing one: PyTorch's KeyError
            if key not in state_dict:
                raise KeyError(
                    f"optimizer.load_state_dict: the state dict has no {key!r}; pass a dict "
                    "made by optimizer.state_dict()"
                )
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(
                f"loaded state dict has a different number of parameter groups "
                f"({len(saved_groups)}) than the optimizer ({len(self.param_groups)})"
            )
        for i, (group, saved) in enumerate(zip(self.param_groups, saved_groups)):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(
                    f"loaded state dict contains a parameter group that doesn't match the size "
                    f"of optimizer's group: group {i} has {len(saved['params'])} parameters in "
                    f"the state dict and {len(group['params'])} in the optimizer"
                )
        by_index = {}
        for group, saved in zip(self.param_groups, saved_groups):
            for p, saved_index in zip(group["params"], saved["params"]):
                by_index[int(saved_index)] = (p, saved)
        new_state: defaultdict = defaultdict(dict)
        for key, values in state_dict["state"].items():
            p, saved = by_index.get(int(key), (None, None))
            if p is None:
                continue
            new_state[p] = {
                name: self._state_value_for(p, saved, name, v) for name, v in values.items()
            }
        new_groups = []
        for group, saved in zip(self.param_groups, saved_groups):
            restored = {k: v for k, v in saved.items() if k != "params"}
            restored["params"] = group["params"]
            for name, default in self.defaults.items():  # a key an older state dict lacks
                if default is not required:
                    restored.setdefault(name, default)
            new_groups.append(restored)
        self.state = new_state
        self.param_groups = new_groups
        self._host_copies = {}
        for hook in list(self._load_state_dict_post_hooks.values()):
            hook(self)

    def _state_value_for(self, p: Tensor, group: dict, name: str, value: Any) -> Any:
        """One saved state entry as PyTorch loads it: the step count as saved (made float32
        on p's device for capturable or fused), other tensors moved to p's device (floating
        ones in p's dtype); a number saved for a 0-d state (older state dicts) becomes its 0-d
        tensor. A tensor that needs no change is the saved tensor itself, not a copy (PyTorch
        2.13's .to() returns it), so the steps that follow update it in the state dict too."""
        if name in _SCALAR_STATE and isinstance(value, numbers.Real):
            return self._scalar_tensor(float(value), p, group, name)
        if not isinstance(value, Tensor):
            return value
        array = value.array
        if name != "step":
            if array.dtype.kind == "f":
                array = array.astype(p.array.dtype, copy=False)
            array = backend.to_device(array, p.device)
        elif self._scalars_on_device(group):
            array = backend.to_device(array.astype(np.float32, copy=False), p.device)
        return value if array is value.array else Tensor._make(array)

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _check_capturable(name: str, params: list) -> None:
    """capturable=True (for CUDA graph capture in PyTorch; the step is the same) needs every
    parameter it steps on the GPU: elsewhere PyTorch's step fails with this AssertionError."""
    for p in params:
        if p.grad is not None and p.device.type != "cuda":
            raise AssertionError(
                f"{name}: if capturable=True, params and state_steps must be on supported "
                f"devices: ['cuda'], but a parameter is on {p.device.type}; leave capturable "
                "False there"
            )


# The state entries PyTorch keeps as 0-d tensors (the step count, ASGD's eta and mu, NAdam's
# mu_product)
_SCALAR_STATE = ("step", "eta", "mu", "mu_product")


def _default_scalar_dtype() -> Any:
    """The NumPy dtype of a 0-d optimizer state: float32, or float64 when that is the
    default dtype (PyTorch's rule)."""
    return np.float64 if dtypes.get_default_dtype() is dtypes.float64 else np.float32


def default_rounded(value: float) -> float:
    """``value`` rounded to the 0-d optimizer state's default dtype (float32, or float64 when
    that is the default dtype), as PyTorch rounds a number it makes into a new state tensor."""
    return float(np.asarray(value, dtype=_default_scalar_dtype()))


def _saved_state_value(name: str, value: Any) -> Any:
    """One state entry as ``state_dict()`` gives it: the live tensor (as PyTorch's), or, for
    a 0-d state set to a number by hand, the 0-d tensor PyTorch would keep."""
    if name in _SCALAR_STATE and isinstance(value, numbers.Real):
        return Tensor._make(np.array(value, dtype=_default_scalar_dtype()))
    return value


def state_array(state_tensor: Tensor, a: Any) -> Any:
    """The array of a state entry (a running average...), first moved and cast to match the
    parameter's array ``a`` if the model was moved with ``.to()`` after the state was made."""
    array = state_tensor.array
    if type(array) is not type(a) or array.dtype != a.dtype:
        array = state_tensor.array = backend.to_device(array.astype(a.dtype), backend.device_of(a))
    return array


def lr_value(lr: Any) -> Any:
    """A group's lr as step() computes with it: a Python float or, for a tensor lr
    (``lr=torch.tensor(0.01)``), a NumPy scalar of its dtype, so that the step sizes made
    from it are rounded in that dtype (float32), as PyTorch's arithmetic on the tensor is."""
    if isinstance(lr, Tensor):
        return lr.array.dtype.type(lr.item())
    return float(lr)


def check_unsupported(name: str, **flags: Any) -> None:
    """Clear errors for PyTorch options that change what step() computes but that
    microtorch does not implement."""
    why = {
        "differentiable": "microtorch's step() records no graph, so it cannot be differentiated",
    }
    for flag, value in flags.items():
        if value:
            raise ValueError(f"{name}: {flag}=True is not supported ({why[flag]}); leave it False")


def check_fused(name: str, fused: bool | None, foreach: bool | None) -> None:
    """PyTorch's error for asking for both of its fused and foreach kernels (microtorch's
    step is the same either way, so each alone is accepted)."""
    if fused and foreach:
        raise RuntimeError(f"{name}: `fused` and `foreach` cannot be `True` together.")


def check_hyperparameters(name: str, lr: Any, eps: float | None = None, betas: Any = None,
                          weight_decay: float = 0.0, momentum: float | None = None) -> None:  # fmt: skip
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError(f"{name}: Tensor lr must be 1-element, but it has {lr.numel()}")
    if not isinstance(lr, (numbers.Real, Tensor)):
        raise TypeError(
            f"{name}: lr must be a number or a 1-element tensor, not {type(lr).__name__}"
        )
    lr_value = float(lr.item() if isinstance(lr, Tensor) else lr)
    if not lr_value >= 0.0 or math.isnan(lr_value):
        raise ValueError(f"{name}: invalid learning rate: {lr}")
    if eps is not None and not eps >= 0.0:
        raise ValueError(f"{name}: invalid epsilon value: {eps}")
    if betas is not None:
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"{name}: invalid beta parameter at index {i}: {beta}")
    if not weight_decay >= 0.0:
        raise ValueError(f"{name}: invalid weight_decay value: {weight_decay}")
    if momentum is not None and not momentum >= 0.0:
        raise ValueError(f"{name}: invalid momentum value: {momentum}")


def grad_for_update(p: Tensor, maximize: bool, weight_decay: float) -> Any:
    """The gradient array the update rule sees: ``p.grad`` negated when ``maximize``, plus
    ``weight_decay * p`` (an L2 penalty) when it is not 0. The stored gradient is unchanged."""
    g = p.grad.array
    if maximize:
        g = -g
    if weight_decay != 0.0:
        g = scaled_sum(g, p.array, weight_decay)  # a new array
    return g


# Arithmetic on parameter and state arrays as PyTorch's CPU kernels do it for float16:
# computed in float32 and rounded once (NumPy's float16 arithmetic rounds the number to
# float16 first, then each step); add's alpha is rounded to float16 first, mul's number is
# not. Other dtypes: plain NumPy / CuPy arithmetic, in place where the name ends in _.
def scaled_sum(a: Any, b: Any, alpha: float) -> Any:
    """a + alpha * b, a new array (PyTorch's a.add(b, alpha=alpha))."""
    if a.dtype != np.float16:
        return a + alpha * b
    alpha = float(np.float16(alpha))
    return _in_float32(lambda a, b: a + alpha * b, a, b)


def add_scaled_(a: Any, b: Any, alpha: float) -> None:
    """a += alpha * b in place (PyTorch's a.add_(b, alpha=alpha))."""
    if a.dtype == np.float16:
        a[...] = scaled_sum(a, b, alpha)
    elif alpha == 1.0:  # (no temporary alpha * b: SGD's momentum without dampening)
        a += b
    else:
        a += alpha * b


def scale_(a: Any, factor: float) -> None:
    """a *= factor in place (PyTorch's a.mul_(factor))."""
    if a.dtype == np.float16:
        a[...] = _in_float32(lambda a: a * factor, a)
    else:
        a *= factor


def decay_weights(p: Tensor, g: Any, lr: float, weight_decay: float, decoupled: bool) -> Any:
    """Weight decay as NAdam and RAdam apply it: ``decoupled`` shrinks p in place by
    ``1 - lr * weight_decay`` (as AdamW); otherwise the gradient gets ``weight_decay * p``.
    Returns the gradient to use."""
    if weight_decay == 0.0:
        return g
    if decoupled:
        p.array *= 1.0 - lr * weight_decay
        return g
    return g + weight_decay * p.array


def lerp_(start: Any, end: Any, weight: float) -> None:
    """``start += weight * (end - start)`` in place (a running average), rounded as
    ``torch.lerp`` rounds: from ``end`` when ``weight >= 0.5``."""
    if weight < 0.5:
        start += weight * (end - start)
    else:
        start[...] = end - (end - start) * (1.0 - weight)


def update_moments_(m: Any, v: Any, g: Any, beta1: float, beta2: float) -> None:
    """Adam's running averages, in place: ``m`` of the gradient g (as ``torch.lerp``
    rounds) and ``v`` of ``g * g``; NAdam and RAdam keep them as Adam does."""
    lerp_(m, g, 1.0 - beta1)
    v *= beta2
    v += (1.0 - beta2) * g * g


def rounded_as(value: float, state_tensor: Tensor) -> float:
    """``value`` rounded to the dtype of a 0-d state tensor (float32 or float64), as PyTorch
    rounds a Python number that multiplies it."""
    return float(np.asarray(value, dtype=state_tensor.array.dtype))
