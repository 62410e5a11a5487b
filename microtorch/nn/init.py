"""``nn.init``: fill a tensor in place with starting values (PyTorch's names and formulas).

Every function writes into the tensor's own array without recording a graph (as if under
``no_grad``), bumps its version counter and returns it. Random values come from the
seeded host generator in ``microtorch.random``, so a seeded model starts identically on
the CPU and on the GPU.

The fan-in of a weight of shape (out, in, *kernel) is in * prod(kernel); its fan-out is
out * prod(kernel).
"""

from __future__ import annotations

import math
from typing import Any

from .. import backend
from .. import random as _random
from .._tensor import Tensor


def _write(tensor: Tensor, host_or_device_array: Any) -> Tensor:
    """Copy values into ``tensor`` in place (no graph) and count the change."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init: expected a Tensor, got {type(tensor).__name__}")
    tensor.array[...] = backend.to_device(host_or_device_array, tensor.device)
    tensor._version_counter.value += 1
    return tensor


def _check_float(tensor: Tensor, name: str) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init.{name}: expected a Tensor, got {type(tensor).__name__}")
    if not tensor.dtype.is_floating_point:
        raise TypeError(f"nn.init.{name}: expected a floating point tensor, got {tensor.dtype}")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended scale for a nonlinearity: 1 for linear/sigmoid, 5/3 for tanh,
    sqrt(2) for relu, sqrt(2 / (1 + slope^2)) for leaky_relu (slope 0.01 by default)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")  # fmt: skip
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = float(param)
        else:
            raise ValueError(f"calculate_gain: negative_slope {param!r} is not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"calculate_gain: unsupported nonlinearity {nonlinearity!r}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.ndim < 2:
        raise ValueError(
            f"Fan in and fan out can not be computed for tensor with fewer than 2 dimensions "
            f"(got shape {tuple(tensor.shape)})"
        )
    receptive_field = 1
    for s in tensor.shape[2:]:
        receptive_field *= s
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"nn.init: mode {mode!r} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Values drawn uniformly from [a, b)."""
    _check_float(tensor, "uniform_")
    sample = _random.uniform_array(tensor.shape, a, b, tensor.dtype, tensor.device, generator)
    return _write(tensor, sample)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Values drawn from N(mean, std^2)."""
    _check_float(tensor, "normal_")
    sample = _random.normal_array(tensor.shape, mean, std, tensor.dtype, tensor.device, generator)
    return _write(tensor, sample)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Any = None) -> Tensor:  # fmt: skip
    """N(mean, std^2) restricted to [a, b]: values outside are drawn again."""
    _check_float(tensor, "trunc_normal_")
    if not a < b:
        raise ValueError(f"trunc_normal_: expected a < b, got a={a}, b={b}")
    rng = (generator or _random.default_generator).rng
    values = rng.normal(mean, std, size=tuple(tensor.shape))
    outside = (values < a) | (values > b)
    while outside.any():
        values[outside] = rng.normal(mean, std, size=int(outside.sum()))
        outside = (values < a) | (values > b)
    return _write(tensor, values.astype(tensor.dtype.np))


def constant_(tensor: Tensor, val: float) -> Tensor:
    _check_float(tensor, "constant_")
    tensor.array.fill(val)
    tensor._version_counter.value += 1
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """U(-bound, bound) with bound = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:  # fmt: skip
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al.). With a=sqrt(5), as
    ``nn.Linear`` uses, the bound is 1 / sqrt(fan_in)."""
    fan = _fan(tensor, mode)
    if fan == 0:
        return tensor  # an empty tensor has nothing to initialise
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:  # fmt: skip
    """N(0, std^2) with std = gain / sqrt(fan)."""
    fan = _fan(tensor, mode)
    if fan == 0:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (ones on the diagonal of a 2-D tensor, also when not square)."""
    _check_float(tensor, "eye_")
    if tensor.ndim != 2:
        raise ValueError(f"nn.init.eye_: only 2-D tensors are supported, got {tuple(tensor.shape)}")
    host = backend.xp_for(backend.device("cpu"))
    return _write(tensor, host.eye(*tensor.shape, dtype=tensor.dtype.np))


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix times ``gain``: orthonormal rows or columns, whichever
    there are fewer of. A tensor of more dims is taken as one (rows, rest) matrix. It is the
    Q of a QR factorization of a normal matrix, with Q's columns signed by R's diagonal so
    that every orthogonal matrix is equally likely (PyTorch's recipe)."""
    _check_float(tensor, "orthogonal_")
    if tensor.ndim < 2:
        raise ValueError(
            f"nn.init.orthogonal_: needs 2 or more dims, got shape {tuple(tensor.shape)}"
        )
    rows = tensor.shape[0]
    cols = tensor.numel() // rows if rows else 0
    if rows == 0 or cols == 0:
        return tensor
    host = backend.xp_for(backend.device("cpu"))
    sample = (generator or _random.default_generator).rng.normal(0.0, 1.0, size=(rows, cols))
    tall = sample if rows >= cols else sample.T  # QR of the tall way round
    q, r = host.linalg.qr(tall)
    q = q * host.sign(host.diag(r))
    q = q if rows >= cols else q.T
    return _write(tensor, (gain * q).reshape(tuple(tensor.shape)).astype(tensor.dtype.np))
