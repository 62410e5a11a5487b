"""Lazy modules: layers whose input size is inferred from the first batch they see.

``nn.LazyLinear(out_features)`` is a Linear whose in_features is not given: its weight and
bias start as :class:`~microtorch.nn.parameter.UninitializedParameter` (no shape, no values)
and a forward pre-hook, on the first call, reads in_features from the input, materializes
them, initialises them as Linear would, removes itself and turns the module, in place, into
an ordinary ``nn.Linear`` (its ``cls_to_become``). From then on it is a Linear: its
state_dict, optimizers built on its parameters (the same objects) and repr are Linear's.

The same for the convolutions (in_channels from dim 1 of a batch, or dim 0 of an unbatched
input), the transposed convolutions, BatchNorm and InstanceNorm (num_features, with the
running statistics as UninitializedBuffer). Loading a state_dict into a lazy module that has
not run yet materializes its tensors with the checkpoint's shapes.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes, factories
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from .conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
)
from .linear import Linear
from .normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    _InstanceNorm,
)
from .parameter import UninitializedBuffer, UninitializedParameter, is_lazy


class LazyModuleMixin:
    """Put first among a module's bases: the first forward calls
    ``initialize_parameters(*args, **kwargs)`` (which must materialize every uninitialized
    parameter and buffer), then the module becomes ``cls_to_become``."""

    cls_to_become: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(
            self._infer_parameters, with_kwargs=True
        )

    def has_uninitialized_params(self) -> bool:
        """Whether any of this module's own parameters or buffers has no shape yet."""
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(is_lazy(t) for t in tensors)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materialize the parameters from the first input (each lazy module defines it)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {type(self).__name__}"
        )

    def _infer_parameters(self, module: Any, args: tuple, kwargs: dict) -> None:
        """The forward pre-hook: initialize from this call's input, then become the ordinary
        class (the hook removes itself; later calls go straight to forward)."""
        with no_grad():
            self.initialize_parameters(*args, **kwargs)
        if self.has_uninitialized_params():
            raise RuntimeError(
                f"module {type(self).__name__} has not been fully initialized by "
                "initialize_parameters: some parameters or buffers are still uninitialized"
            )
        self._initialize_hook.remove()
        del self._initialize_hook
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become


def _uninitialized(device: Any, dtype: Any) -> UninitializedParameter:
    return UninitializedParameter(device=device, dtype=dtype)


# ------------------------------------------------------------ Linear
class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is the size of the last dim of its first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(0, 0, False)
        self.weight = _uninitialized(device, dtype)
        self.out_features = out_features
        if bias:
            self.bias = _uninitialized(device, dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        if input.ndim == 0:
            raise RuntimeError("LazyLinear: expected an input with a features dim, got a 0-d one")
        self.in_features = input.shape[-1]
        if self.has_uninitialized_params():
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


# ------------------------------------------------------------ convolutions
class _LazyConvMixin(LazyModuleMixin):
    """in_channels from the first input: dim 1 of (N, C, *S), dim 0 of (C, *S)."""

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode)  # fmt: skip
        self._make_uninitialized(out_channels, bias, device, dtype)

    def _make_uninitialized(self, out_channels: int, bias: bool, device: Any,
                            dtype: Any) -> None:  # fmt: skip
        self.weight = _uninitialized(device, dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = _uninitialized(device, dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        n, name = self._spatial, type(self).__name__
        if input.ndim not in (n + 1, n + 2):
            raise RuntimeError(
                f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got "
                f"input of size: {list(input.shape)}"
            )
        self.in_channels = input.shape[1] if input.ndim == n + 2 else input.shape[0]
        if self.in_channels % self.groups or self.out_channels % self.groups:
            raise ValueError(
                f"{name}: in_channels ({self.in_channels}, from the input) and out_channels "
                f"({self.out_channels}) must be divisible by groups ({self.groups})"
            )
        if self.has_uninitialized_params():
            self.weight.materialize(self._weight_shape())
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


class _LazyConvTransposeMixin(_LazyConvMixin):
    """The transposed convolutions' argument order (output_padding; dilation after bias)."""

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, output_padding,
                                 groups, False, dilation, padding_mode)  # fmt: skip
        self._make_uninitialized(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConvMixin, Conv1d):
    """A Conv1d whose in_channels is read from its first input."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConvMixin, Conv2d):
    """A Conv2d whose in_channels is read from its first input."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConvMixin, Conv3d):
    """A Conv3d whose in_channels is read from its first input."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTransposeMixin, ConvTranspose1d):
    """A ConvTranspose1d whose in_channels is read from its first input."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeMixin, ConvTranspose2d):
    """A ConvTranspose2d whose in_channels is read from its first input."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeMixin, ConvTranspose3d):
    """A ConvTranspose3d whose in_channels is read from its first input."""

    cls_to_become = ConvTranspose3d


# ------------------------------------------------------------ batch and instance norm
class _LazyNormBase(LazyModuleMixin):
    """num_features from the first input's channel dim; weight, bias, running_mean and
    running_var uninitialized until then (num_batches_tracked is a plain 0 from the start).
    affine and track_running_stats default to True for every lazy norm, as in PyTorch;
    bias=False leaves the bias out (weight only)."""

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__(0, eps, momentum, False, False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = _uninitialized(device, dtype)
            if bias:
                self.bias = _uninitialized(device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", UninitializedBuffer(device=device, dtype=dtype))
            self.register_buffer("running_var", UninitializedBuffer(device=device, dtype=dtype))
            count = factories.tensor(0, dtype=dtypes.int64, device=device)
            self.register_buffer("num_batches_tracked", count)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        self._check_input_dim(input)
        unbatched = isinstance(self, _InstanceNorm) and input.ndim == self._expected_dims[0]
        self.num_features = input.shape[0 if unbatched else 1]
        if self.has_uninitialized_params():
            for t in (self.weight, self.bias, self.running_mean, self.running_var):
                if t is not None:
                    t.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    """A BatchNorm1d whose num_features is read from its first input."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    """A BatchNorm2d whose num_features is read from its first input."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    """A BatchNorm3d whose num_features is read from its first input."""

    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    """An InstanceNorm1d whose num_features is read from its first input."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    """An InstanceNorm2d whose num_features is read from its first input."""

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    """An InstanceNorm3d whose num_features is read from its first input."""

    cls_to_become = InstanceNorm3d
