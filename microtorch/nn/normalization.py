"""Normalization layers: ``LayerNorm``, ``BatchNorm1d/2d/3d``, ``InstanceNorm1d/2d/3d``,
``GroupNorm`` and ``LocalResponseNorm``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes, factories
from .._tensor import Tensor
from .._warn import warn_user
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


def _register_affine(module: Module, shape: tuple, affine: bool, bias: bool, device: Any,
                     dtype: Any) -> None:  # fmt: skip
    """Register ``weight`` and ``bias`` of ``shape`` (None when not ``affine``; the bias also
    when not ``bias``), as every normalization layer has them."""
    if affine:
        module.weight = Parameter(factories.empty(shape, device=device, dtype=dtype))
        if bias:
            module.bias = Parameter(factories.empty(shape, device=device, dtype=dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module: Module) -> None:
    """weight to ones, bias to zeros (where they exist)."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """y = (x - mean) / sqrt(var + eps) * weight + bias, with mean and (biased) variance
    taken over the last ``len(normalized_shape)`` dims. weight starts at ones, bias at zeros;
    ``elementwise_affine=False`` drops both, ``bias=False`` drops the bias only."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
            f", bias={self.bias is not None}"
        )


class _NormBase(Module):
    """What BatchNorm and InstanceNorm share: weight (ones) and bias (zeros) per channel when
    ``affine``, and with ``track_running_stats`` the buffers running_mean (zeros),
    running_var (ones) and num_batches_tracked (0, int64), named as in PyTorch."""

    _expected_dims: tuple = ()

    def __init__(self, num_features: int, eps: float, momentum: float | None, affine: bool,
                 track_running_stats: bool, device: Any, dtype: Any,
                 bias: bool) -> None:  # fmt: skip
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _register_affine(self, (num_features,), affine, bias, device, dtype)
        if track_running_stats:
            self.register_buffer(
                "running_mean", factories.zeros(num_features, device=device, dtype=dtype)
            )
            self.register_buffer(
                "running_var", factories.ones(num_features, device=device, dtype=dtype)
            )
            self.register_buffer(
                "num_batches_tracked", factories.tensor(0, dtype=dtypes.int64, device=device)
            )
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def _older_checkpoint_defaults(self) -> dict[str, Tensor]:
        """A checkpoint from before num_batches_tracked existed loads, the count left as it
        is, as in PyTorch."""
        if not self.track_running_stats:
            return {}
        return {"num_batches_tracked": self.num_batches_tracked}

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim not in self._expected_dims:
            wanted = " or ".join(f"{d}D" for d in self._expected_dims)
            raise ValueError(
                f"{type(self).__name__}: expected {wanted} input (got {input.ndim}D input of "
                f"shape {tuple(input.shape)})"
            )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine="
            f"{self.affine}, bias={self.bias is not None}, track_running_stats="
            f"{self.track_running_stats}"
        )


class _BatchNorm(_NormBase):
    """y = (x - mean) / sqrt(var + eps) * weight + bias per channel (dim 1), with the batch's
    statistics in training (the running ones move towards them by ``momentum``; None: their
    cumulative average over the batches seen) and the running ones in eval."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias)  # fmt: skip

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor: Any = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average: weight 1/n for batch n
                count = self.num_batches_tracked.to(self.running_mean.dtype)
                factor = 1.0 / count  # 0-d, on the device: the host need not wait for it
        use_batch_stats = self.training or self.running_mean is None
        # in training without tracking, no running statistics are updated
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None,
                            self.running_var if track else None, self.weight, self.bias,
                            use_batch_stats, factor, self.eps)  # fmt: skip


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) per channel C."""

    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) per channel C."""

    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalization of (N, C, D, H, W) per channel C."""

    _expected_dims = (5,)


class _InstanceNorm(_NormBase):
    """Each sample's channels normalised over their own spatial dims (F.instance_norm);
    no affine parameters and no running statistics by default, as in PyTorch."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias)  # fmt: skip

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        unbatched = input.ndim == self._expected_dims[0]
        channels = input.shape[0 if unbatched else 1]
        if channels != self.num_features:  # PyTorch's check: an error only with affine
            message = (
                f"{type(self).__name__}: expected input's size at dim={0 if unbatched else 1} "
                f"to match num_features ({self.num_features}), but got: {channels} (input "
                f"shape {tuple(input.shape)})"
            )
            if self.affine:
                raise ValueError(message)
            warn_user(message + "; num_features is not used when affine=False")
        x = input.unsqueeze(0) if unbatched else input
        # momentum=None is 0 here, as in PyTorch: the running statistics then stay put
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              0.0 if self.momentum is None else self.momentum,
                              self.eps)  # fmt: skip
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or (C, L)."""

    _expected_dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or (C, H, W)."""

    _expected_dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) or (C, D, H, W)."""

    _expected_dims = (4, 5)


class GroupNorm(Module):
    """The channels of (N, C, *) split into num_groups groups, each sample's group normalised
    over its channels and positions, then weight and bias per channel (ones and zeros)."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:  # fmt: skip
        super().__init__()
        if num_groups <= 0 or num_channels % num_groups:
            raise ValueError(
                f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups "
                f"({num_groups})"
            )
        self.num_groups, self.num_channels, self.eps, self.affine = (
            num_groups,
            num_channels,
            eps,
            affine,
        )
        _register_affine(self, (num_channels,), affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class LocalResponseNorm(Module):
    """Each channel divided by (k + alpha * the mean square over ``size`` neighbouring
    channels)^beta (F.local_response_norm); no parameters."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:  # fmt: skip
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
