"""``spectral_norm``: the weight divided by its largest singular value sigma, estimated by
power iteration, as PyTorch's hook-based ``torch.nn.utils.spectral_norm``.

The parameter ``weight`` becomes ``weight_orig``; the buffers ``weight_u`` and ``weight_v``
hold the current estimates of the top left and right singular vectors of the weight seen as
a matrix (``dim`` first, the other dims flattened). A forward pre-hook sets the plain
attribute ``weight = weight_orig / sigma`` with sigma = u . (W v) before every forward; in
training mode it first runs ``n_power_iterations`` steps v <- W^T u / |W^T u|,
u <- W v / |W v| (no gradient flows through them), in eval mode it uses u and v as they are."""

from __future__ import annotations

from typing import Any

from ... import functional as F
from ... import random
from ..._tensor import Tensor
from ...autograd import grad_mode
from ..functional import normalize
from ..module import Module
from ..parameter import Parameter
from .weight_norm import find_hook


class SpectralNorm:
    """The forward pre-hook that sets ``module.<name>`` to ``<name>_orig / sigma``."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:  # fmt: skip
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def as_matrix(self, weight: Tensor) -> Tensor:
        """The weight as a matrix: ``dim`` first, every other dim flattened into the columns."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        matrix = self.as_matrix(weight)
        if do_power_iteration:
            with grad_mode.no_grad():
                for _ in range(self.n_power_iterations):
                    v = normalize(F.mv(matrix.t(), u), dim=0, eps=self.eps)
                    u = normalize(F.mv(matrix, v), dim=0, eps=self.eps)
                u_buffer, v_buffer = (
                    getattr(module, self.name + "_u"),
                    getattr(module, self.name + "_v"),
                )
                u_buffer.copy_(u)  # the buffers keep the new estimates for the next forward
                v_buffer.copy_(v)
        sigma = F.dot(u, F.mv(matrix, v))  # u and v are constants here: d sigma = u^T dW v
        return weight / sigma

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:  # fmt: skip
    """Divide ``module.<name>`` by its spectral norm (largest singular value) before every
    forward, estimated with ``n_power_iterations`` power-iteration steps per training
    forward. ``dim`` (default 0, 1 for ConvTranspose modules) is the output dim."""
    if find_hook(module, SpectralNorm, name)[1] is not None:
        raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
    if n_power_iterations <= 0:
        raise ValueError(
            "Expected n_power_iterations to be positive, but got "
            f"n_power_iterations={n_power_iterations}"
        )
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    weight = module._parameters[name]
    hook = SpectralNorm(name, n_power_iterations, dim, eps)
    with grad_mode.no_grad():
        h, w = hook.as_matrix(weight).shape
        like = {"dtype": weight.dtype, "device": weight.device}
        u = normalize(random.randn(h, **like), dim=0, eps=eps)  # random starting vectors
        v = normalize(random.randn(w, **like), dim=0, eps=eps)
    del module._parameters[name]
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach())  # until the first forward computes it
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(hook)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``spectral_norm``: ``<name>`` is one parameter again, the current normalised
    weight (no power iteration)."""
    key, hook = find_hook(module, SpectralNorm, name)
    if hook is None:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    with grad_mode.no_grad():
        weight = hook.compute_weight(module, do_power_iteration=False)
    del module._forward_pre_hooks[key]
    delattr(module, name)
    del module._parameters[name + "_orig"]
    del module._buffers[name + "_u"], module._buffers[name + "_v"]
    module.register_parameter(name, Parameter(weight.detach()))
    return module
