"""``weight_norm``: the weight written as a direction times a length, w = g * v / ||v||, as
PyTorch's classic hook-based ``torch.nn.utils.weight_norm``.

The module's parameter ``weight`` is replaced by two parameters, ``weight_g`` (the norms, one
per slice along ``dim``) and ``weight_v`` (the direction); a forward pre-hook recomputes the
plain attribute ``weight`` from them before every forward, so autograd carries the gradient
on to g and v. ``remove_weight_norm`` folds them back into one parameter."""

from __future__ import annotations

import warnings
from typing import Any

from ..._tensor import Tensor
from ...autograd import grad_mode
from ..module import Module
from ..parameter import Parameter


def norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """The 2-norm of each slice of ``v`` along ``dim``, keeping v's number of dims (size 1
    elsewhere); ``dim=-1``: the norm of the whole tensor, a 0-d tensor (as PyTorch)."""
    if dim == -1:
        return v.norm()
    others = tuple(d for d in range(v.dim()) if d != dim)
    return v.norm(dim=others, keepdim=True) if others else v.abs()


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g``, ``<name>_v``."""

    def __init__(self, name: str, dim: int) -> None:
        self.name, self.dim = name, dim

    def compute_weight(self, module: Module) -> Tensor:
        g, v = getattr(module, self.name + "_g"), getattr(module, self.name + "_v")
        return v * (g / norm_except_dim(v, self.dim))  # w = g * v / ||v||

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def find_hook(module: Module, kind: type, name: str) -> Any:
    """(key, hook) of the ``kind`` forward pre-hook for parameter ``name``, or (None, None)."""
    for key, (hook, _, _) in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            return key, hook
    return None, None


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrise ``module.<name>`` as ``<name>_g * <name>_v / ||<name>_v||`` (norms over
    every dim but ``dim``; over the whole tensor for ``dim=None``). Deprecated, as in
    PyTorch: ``nn.utils.parametrizations.weight_norm`` is the newer form."""
    warnings.warn(
        "nn.utils.weight_norm is deprecated: use nn.utils.parametrizations.weight_norm (the "
        "same reparametrisation as a parametrization)",
        FutureWarning,
        stacklevel=2,
    )
    if find_hook(module, WeightNorm, name)[1] is not None:
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    weight = getattr(module, name)
    if dim is None:
        dim = -1
    elif dim < -1:  # (-1 itself means the whole tensor, as in PyTorch)
        dim += weight.dim()
    hook = WeightNorm(name, dim)
    del module._parameters[name]
    with grad_mode.no_grad():
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, dim)))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, hook.compute_weight(module))
    module.register_forward_pre_hook(hook)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``weight_norm``: ``<name>`` is one parameter again, with the current value."""
    key, hook = find_hook(module, WeightNorm, name)
    if hook is None:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    with grad_mode.no_grad():
        weight = hook.compute_weight(module)
    del module._forward_pre_hooks[key]
    delattr(module, name)
    del module._parameters[name + "_g"], module._parameters[name + "_v"]
    module.register_parameter(name, Parameter(weight))
    return module
