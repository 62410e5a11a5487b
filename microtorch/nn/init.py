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
import warnings
from typing import Any

from .. import backend
from .. import random as _random
from .._tensor import Tensor
from .._warn import warn_user


def _write(tensor: Tensor, host_or_device_array: Any) -> Tensor:
    """Copy values into ``tensor`` in place (no graph) and count the change."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init: expected a Tensor, got {type(tensor).__name__}")
    tensor.array[...] = backend.to_device(host_or_device_array, tensor.device)
    tensor._version_counter.value += 1
    return tensor


def _check_tensor(tensor: Tensor, name: str) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init.{name}: expected a Tensor, got {type(tensor).__name__}")


def _check_float(tensor: Tensor, name: str) -> None:
    """A floating tensor: PyTorch draws no random integers or bools here
    (NotImplementedError, as there); the fills (constant_, eye_...) take any dtype."""
    _check_tensor(tensor, name)
    if not tensor.dtype.is_floating_point:
        raise NotImplementedError(
            f"nn.init.{name}: expected a floating point tensor, got {tensor.dtype}, as in "
            "PyTorch; create it with a float dtype"
        )


def calculate_gain(nonlinearity: str, param: float | None = None) -> float | int:
    """The recommended scale for a nonlinearity: 1 for linear/sigmoid, 5/3 for tanh,
    sqrt(2) for relu, sqrt(2 / (1 + slope^2)) for leaky_relu (slope 0.01 by default)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")  # fmt: skip
    if nonlinearity in linear:
        return 1  # an int, as PyTorch returns
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


def _normal_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Any = None) -> Tensor:  # fmt: skip
    """N(mean, std^2) restricted to [a, b]. Where most normal draws land inside, those
    outside are drawn again; where few do (a narrow [a, b], or one far in a tail, which
    would take forever so), uniform draws on [a, b] are kept with probability
    pdf(x) / max(pdf on [a, b]); PyTorch switches methods at the same point (30% inside)."""
    _check_float(tensor, "trunc_normal_")
    if not a <= b:  # (a == b gives a everywhere, as in PyTorch)
        raise RuntimeError(f"trunc_normal_: expected a <= b, got a={a}, b={b}")
    if mean < a - 2 * std or mean > b + 2 * std:
        warn_user(
            "nn.init.trunc_normal_: mean is more than 2 std from [a, b]; the distribution "
            "of values may be incorrect."
        )
    rng = (generator or _random.default_generator).rng
    host = backend.xp_for(backend.device("cpu"))
    size = tuple(tensor.shape)
    if _normal_cdf((b - mean) / std) - _normal_cdf((a - mean) / std) > 0.3:
        values = rng.normal(mean, std, size=size)
        outside = (values < a) | (values > b)
        while outside.any():
            values[outside] = rng.normal(mean, std, size=int(outside.sum()))
            outside = (values < a) | (values > b)
    else:  # the likeliest point of [a, b], standardised: x is kept with pdf(x) / pdf(peak)
        peak = (min(max(mean, a), b) - mean) / std
        values = host.empty(size)
        pending = host.ones(size, dtype=bool)
        while pending.any():
            x = rng.uniform(a, b, size=int(pending.sum()))
            keep = rng.random(x.shape) < host.exp(0.5 * (peak**2 - ((x - mean) / std) ** 2))
            values[pending] = host.where(keep, x, values[pending])
            pending[pending] = ~keep
    return _write(tensor, values.astype(tensor.dtype.np))


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Every element set to ``val`` (cast to the tensor's dtype: 2.7 fills an integer
    tensor with 2, as in PyTorch)."""
    _check_tensor(tensor, "constant_")
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
    _check_tensor(tensor, "eye_")
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


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity convolution: a 3-, 4- or 5-D weight (out, in, *kernel) that is 1 at the
    kernel's centre where the output channel equals the input channel (within each of
    ``groups`` blocks of out / groups channels) and 0 elsewhere."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init.dirac_: expected a Tensor, got {type(tensor).__name__}")
    if tensor.ndim not in (3, 4, 5):
        raise ValueError(
            f"nn.init.dirac_: only tensors with 3, 4, or 5 dimensions are supported, got shape "
            f"{tuple(tensor.shape)}"
        )
    if tensor.shape[0] % groups != 0:
        raise ValueError(
            f"nn.init.dirac_: dim 0 must be divisible by groups, got {tensor.shape[0]} and "
            f"groups={groups}"
        )
    host = backend.xp_for(backend.device("cpu"))
    values = host.zeros(tuple(tensor.shape), dtype=tensor.dtype.np)
    out_per_group = tensor.shape[0] // groups
    centre = tuple(k // 2 for k in tensor.shape[2:])
    for g in range(groups):
        for d in range(min(out_per_group, tensor.shape[1])):
            values[(g * out_per_group + d, d) + centre] = 1
    return _write(tensor, values)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """A 2-D matrix drawn from N(0, std^2) with ceil(sparsity * rows) entries of each column,
    at random rows, set to 0 (Martens, 2010)."""
    _check_float(tensor, "sparse_")
    if tensor.ndim != 2:
        raise ValueError(
            f"nn.init.sparse_: only tensors with 2 dimensions are supported, got shape "
            f"{tuple(tensor.shape)}"
        )
    rows, cols = tensor.shape
    rng = (generator or _random.default_generator).rng
    values = rng.normal(0.0, std, size=(rows, cols))
    num_zeros = int(math.ceil(sparsity * rows))
    for col in range(cols):
        values[rng.permutation(rows)[:num_zeros], col] = 0.0
    return _write(tensor, values.astype(tensor.dtype.np))


# PyTorch's old names without the trailing underscore: they still work, with a FutureWarning.
def _warn_deprecated(old: str) -> None:
    warnings.warn(
        f"`nn.init.{old}` is now deprecated in favor of `nn.init.{old}_`.",
        FutureWarning,
        stacklevel=3,  # the line that called the old name
    )


def uniform(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Deprecated: ``uniform_``."""
    _warn_deprecated("uniform")
    return uniform_(tensor, a, b, generator)


def normal(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Deprecated: ``normal_``."""
    _warn_deprecated("normal")
    return normal_(tensor, mean, std, generator)


def constant(tensor: Tensor, val: float) -> Tensor:
    """Deprecated: ``constant_``."""
    _warn_deprecated("constant")
    return constant_(tensor, val)


def eye(tensor: Tensor) -> Tensor:
    """Deprecated: ``eye_``."""
    _warn_deprecated("eye")
    return eye_(tensor)


def dirac(tensor: Tensor, groups: int = 1) -> Tensor:
    """Deprecated: ``dirac_``."""
    _warn_deprecated("dirac")
    return dirac_(tensor, groups)


def xavier_uniform(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Deprecated: ``xavier_uniform_``."""
    _warn_deprecated("xavier_uniform")
    return xavier_uniform_(tensor, gain, generator)


def xavier_normal(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Deprecated: ``xavier_normal_``."""
    _warn_deprecated("xavier_normal")
    return xavier_normal_(tensor, gain, generator)


def kaiming_uniform(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:  # fmt: skip
    """Deprecated: ``kaiming_uniform_``."""
    _warn_deprecated("kaiming_uniform")
    return kaiming_uniform_(tensor, a, mode, nonlinearity, generator)


def kaiming_normal(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                   nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:  # fmt: skip
    """Deprecated: ``kaiming_normal_``."""
    _warn_deprecated("kaiming_normal")
    return kaiming_normal_(tensor, a, mode, nonlinearity, generator)


def orthogonal(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Deprecated: ``orthogonal_``."""
    _warn_deprecated("orthogonal")
    return orthogonal_(tensor, gain, generator)


def sparse(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Deprecated: ``sparse_``."""
    _warn_deprecated("sparse")
    return sparse_(tensor, sparsity, std, generator)
