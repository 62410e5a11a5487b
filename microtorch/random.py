"""Random numbers from one seeded host generator.

Every random array (randn, rand, randint, multinomial samples, parameter initialisation,
dropout masks on the CPU) is drawn on the host by a NumPy generator and then moved to the
device, so a seeded model is identical on the CPU and the GPU. On a GPU a dropout mask is
hashed by a kernel from one seed the host generator draws (``bernoulli_mask``)."""

from __future__ import annotations

import math
from typing import Any

import numpy

from . import backend
from . import dtypes as _dtypes
from ._tensor import Tensor
from .factories import _like, _size


class Generator:
    """A seeded random stream (PCG64). ``manual_seed`` restarts it; ``get_state`` /
    ``set_state`` save and restore it exactly (for resuming training)."""

    def __init__(self, device: Any = "cpu") -> None:
        self.seed_value = 0
        self.rng = numpy.random.Generator(numpy.random.PCG64(0))

    def manual_seed(self, seed: int) -> Generator:
        self.seed_value = int(seed)
        self.rng = numpy.random.Generator(numpy.random.PCG64(self.seed_value))
        return self

    def initial_seed(self) -> int:
        return self.seed_value

    def get_state(self) -> dict:
        return self.rng.bit_generator.state

    def set_state(self, state: dict) -> None:
        self.rng.bit_generator.state = state


default_generator = Generator()
default_generator.manual_seed(0)


def manual_seed(seed: int) -> Generator:
    """Seed the global generator: the same seed gives the same numbers on every run."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    s = int(numpy.random.SeedSequence().entropy % (2**63))
    manual_seed(s)
    return s


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> dict:
    return default_generator.get_state()


def set_rng_state(state: dict) -> None:
    default_generator.set_state(state)


def _rng(generator: Generator | None) -> numpy.random.Generator:
    return (generator or default_generator).rng


def _finish(host: numpy.ndarray, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    t = Tensor._make(backend.to_device(host, backend.as_device(device)))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _float_dtype(dtype: Any, op: str) -> Any:
    """The NumPy dtype for samples of ``dtype`` (the default float if None); an integer or
    bool dtype is an error, as in PyTorch (samples cast to it would be silently truncated)."""
    chosen = _dtypes.get_default_dtype() if dtype is None else _dtypes.get_dtype(dtype)
    if not chosen.is_floating_point:
        raise RuntimeError(
            f"{op}: random samples need a floating point dtype, got {chosen}; draw floats and "
            "round them, or use randint for integers"
        )
    return chosen.np


def normal_array(size: tuple, mean: float, std: float, dtype: Any, device: Any, generator=None):
    """A device array of normal samples (drawn in float64 on the host, then cast)."""
    if not std >= 0:  # PyTorch's check and error type (NumPy's would be a ValueError)
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    host = _rng(generator).normal(mean, std, size=tuple(size)).astype(_float_dtype(dtype, "normal"))
    return backend.to_device(host, backend.as_device(device))


def uniform_array(size: tuple, low: float, high: float, dtype: Any, device: Any, generator=None):
    """A device array of samples uniform on [low, high) (drawn in float64 on the host)."""
    if not low <= high:  # PyTorch's checks and error type (NumPy's: ValueError, OverflowError)
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}"
        )
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"uniform_: from={low} and to={high} must be finite numbers")
    host = _rng(generator).uniform(low, high, size=tuple(size))
    host = host.astype(_float_dtype(dtype, "uniform"))
    return backend.to_device(host, backend.as_device(device))


def randn(*shape: Any, size: Any = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False, generator: Generator | None = None) -> Tensor:  # fmt: skip
    """Standard normal samples of the given size: randn(2, 3), randn((2, 3)), randn(size=...)."""
    size = _size(shape, size, op="randn")
    host = _rng(generator).standard_normal(size).astype(_float_dtype(dtype, "randn"))
    return _finish(host, dtype, device, requires_grad)


def rand(*shape: Any, size: Any = None, dtype: Any = None, device: Any = None,
         requires_grad: bool = False, generator: Generator | None = None) -> Tensor:  # fmt: skip
    """Uniform samples in [0, 1) of the given size (as for randn)."""
    size = _size(shape, size, op="rand")
    host = _rng(generator).random(size).astype(_float_dtype(dtype, "rand"))
    return _finish(host, dtype, device, requires_grad)


def bernoulli(input: Tensor, p: float | None = None, *,
              generator: Generator | None = None) -> Tensor:  # fmt: skip
    """1 with probability ``input`` (elementwise; or ``p`` for every element), else 0, in
    input's dtype and on its device; no gradient."""
    probs = input.array if p is None else None
    host_probs = backend.to_numpy(probs) if probs is not None else p
    if probs is not None and not ((host_probs >= 0) & (host_probs <= 1)).all():
        raise RuntimeError("bernoulli: all probabilities must be between 0 and 1")
    if p is not None and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli: p must be between 0 and 1, got {p}")
    draws = _rng(generator).random(tuple(input.shape)) < host_probs
    return Tensor._make(backend.to_device(draws.astype(input.array.dtype), input.device))


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Generator | None = None,
           dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """Normal samples: ``size`` of them for a number mean and std; for tensors, one per
    element of mean and std broadcast together (mean + std * a standard normal sample),
    in the first tensor's dtype and on its device. As in PyTorch, no gradient reaches mean
    or std through the samples (here the result records none)."""
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    if not isinstance(std, Tensor) and not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    if not tensors:
        if size is None:
            raise TypeError("normal: with numbers for mean and std, give the size= of the result")
        shape = _size((size,), op="normal")
        samples = Tensor._make(normal_array(shape, mean, std, dtype, device, generator))
        return samples.requires_grad_(True) if requires_grad else samples
    if size is not None:
        raise TypeError("normal: size= goes with numbers for mean and std; a tensor sets the shape")
    from . import functional as F
    from .autograd import grad_mode

    first = tensors[0]
    shape = numpy.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    sample = randn(shape, dtype=first.dtype, device=first.device, generator=generator)
    with grad_mode.no_grad():
        return F.add(mean, F.mul(std, sample))


def randn_like(input: Tensor, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:  # fmt: skip
    """randn of input's shape, dtype and device (unless given)."""
    return _like(randn, input, dtype, device, requires_grad, tuple(input.shape))


def rand_like(input: Tensor, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:  # fmt: skip
    """rand of input's shape, dtype and device (unless given)."""
    return _like(rand, input, dtype, device, requires_grad, tuple(input.shape))


def randint(low: int, high: int | None = None, size: Any = None, *, dtype: Any = None,
            device: Any = None, generator: Generator | None = None) -> Tensor:  # fmt: skip
    """Integers in [low, high) (or [0, low) when high is omitted), int64 by default."""
    if size is None and isinstance(high, (tuple, list)):  # randint(high, size), as in PyTorch
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint: missing the 'size' argument, e.g. randint(0, 10, (3,))")
    if low >= high:
        raise RuntimeError(f"randint: expected low < high, got low={low}, high={high}")
    target = _dtypes.int64 if dtype is None else _dtypes.get_dtype(dtype)
    if not target.is_floating_point:  # the values must fit the dtype, as in PyTorch
        smallest, largest = (0, 1) if target is _dtypes.bool else _int_range(target)
        if not (smallest <= low and high - 1 <= largest):
            raise RuntimeError(
                f"randint: [{low}, {high}) is out of bounds for {target}, which holds "
                f"{smallest}..{largest}"
            )
    host = _rng(generator).integers(low, high, size=_size((size,), op="randint"))
    return _finish(host.astype(target.np), dtype, device, False)


def _int_range(dtype: Any) -> tuple:
    info = numpy.iinfo(dtype.np)
    return int(info.min), int(info.max)


def randint_like(input: Tensor, low: int = 0, high: int | None = None, *, dtype: Any = None,
                 device: Any = None) -> Tensor:  # fmt: skip
    """randint of input's shape, dtype and device (unless given): randint_like(x, high) or
    randint_like(x, low, high)."""
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), dtype=dtype or input.dtype,
                   device=device or input.device)  # fmt: skip


def randperm(n: int, *, generator: Generator | None = None, dtype: Any = None,
             device: Any = None) -> Tensor:  # fmt: skip
    """0..n-1 in random order (int64 unless ``dtype`` says otherwise)."""
    (n,) = _size((n,), op="randperm")
    np_dtype = _dtypes.int64.np if dtype is None else _dtypes.get_dtype(dtype).np
    return _finish(_rng(generator).permutation(n).astype(np_dtype), dtype, device, False)


def bernoulli_mask(shape: tuple, keep_prob: float, dtype: Any, device: Any) -> Any:
    """Device array of 0 or 1/keep_prob (an inverted-dropout mask) in ``dtype``.

    On the CPU the mask comes from the host generator. On a GPU, drawing millions of
    numbers on the host and copying them over would cost more than the layer itself, so
    the host generator draws one seed and a CUDA kernel hashes (seed, element index) into
    uniform numbers: still fully determined by manual_seed, and resumable exactly."""
    dtype = numpy.dtype(dtype)
    dev = backend.as_device(device)
    if dev.type == "cuda":
        seed = gpu_dropout_seed()
        out = backend.xp_for(dev).empty(shape, dtype=backend.kernel_dtype(dtype))
        _dropout_kernel()(numpy.uint64(seed), numpy.float32(keep_prob), 1.0 / keep_prob, out)
        if out.dtype != dtype:  # e.g. float16: the mask is made in float32
            out = out.astype(dtype)
        return out
    host = _rng(None).random(shape, dtype=numpy.float32) < keep_prob
    scaled = host.astype(dtype) * dtype.type(1.0 / keep_prob)
    return backend.to_device(scaled, dev)


def gpu_dropout_seed() -> int:
    """The seed a GPU dropout mask is hashed from, drawn from the host generator."""
    return int(_rng(None).integers(0, 2**63))


# CUDA C++ that sets ``float u``, uniform in [0, 1), from ``seed`` and the element index
# ``i``: splitmix64 mixes (seed + i * golden ratio) into 64 well-spread bits, and the top 24
# bits make u. Element i is kept when u < keep. The fused attention kernel
# (ops/attention.py) hashes the same way, so its dropout equals this mask's.
DROPOUT_UNIFORM_CUDA = """
        unsigned long long z = seed + (unsigned long long)i * 0x9E3779B97F4A7C15ULL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z = z ^ (z >> 31);
        float u = (float)(z >> 40) * (1.0f / 16777216.0f);"""

_DROPOUT_CUDA = backend.elementwise_source(
    "microtorch_dropout_mask",
    "uint64 seed, float32 keep, float64 scale",
    "T mask",
    DROPOUT_UNIFORM_CUDA + "\n        mask = u < keep ? (T)scale : (T)0;\n",
)


def _dropout_kernel() -> Any:
    return backend.elementwise_kernel(*_DROPOUT_CUDA)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:  # fmt: skip
    """Draw category indices from the (unnormalised) probabilities in each row of ``input``.
    Without replacement, categories of probability 0 come only after all the others."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"multinomial: expects floating-point probabilities, got {input.dtype}; use .float()"
        )
    if num_samples <= 0:
        raise RuntimeError(f"multinomial: cannot sample {num_samples} <= 0 samples")
    probs = backend.to_numpy(input.array).astype(numpy.float64)
    one_d = probs.ndim == 1
    if one_d:
        probs = probs[None]
    if probs.ndim != 2:
        raise RuntimeError(
            f"multinomial: expected a 1-D or 2-D tensor, got shape {tuple(input.shape)}"
        )
    if (probs < 0).any() or not numpy.isfinite(probs).all():
        raise RuntimeError("multinomial: probability tensor contains inf, nan or an element < 0")
    n_categories = probs.shape[1]
    if not replacement and num_samples > n_categories:
        raise RuntimeError(
            f"multinomial: cannot sample {num_samples} > {n_categories} categories without replacement"
        )
    rng = _rng(generator)
    out = numpy.empty((probs.shape[0], num_samples), dtype=numpy.int64)
    for row, p in enumerate(probs):
        total = p.sum()
        if total <= 0:
            raise RuntimeError("multinomial: a row of the probability tensor sums to zero")
        p = p / total
        if replacement:
            out[row] = numpy.searchsorted(numpy.cumsum(p), rng.random(num_samples), side="right")
            numpy.minimum(out[row], n_categories - 1, out=out[row])
        else:
            possible = int(numpy.count_nonzero(p))
            drawn = rng.choice(n_categories, size=min(num_samples, possible), replace=False, p=p)
            impossible = rng.permutation(numpy.flatnonzero(p == 0))[: num_samples - len(drawn)]
            out[row] = numpy.concatenate([drawn, impossible])
    if one_d:
        out = out[0]
    return Tensor._make(backend.to_device(out, input.device))
