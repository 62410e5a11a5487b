"""Random numbers from one seeded host generator.

Every random array (randn, rand, randint, multinomial samples, parameter initialisation,
dropout masks on the CPU) is drawn on the host by a NumPy generator and then moved to the
device, so a seeded model is identical on the CPU and the GPU. On a GPU a dropout mask is
hashed by a kernel from one seed the host generator draws (``bernoulli_mask``)."""

from __future__ import annotations

import contextlib
import math
import numbers
import operator
from collections.abc import Iterator
from typing import Any

import numpy

from . import backend
from . import dtypes as _dtypes
from . import memory_format as _formats
from ._out import factory_target, write_out
from ._tensor import Tensor
from .factories import _like, _size, laid_out_as
from .ops import elementwise


class Generator:
    """A seeded random stream (PCG64). ``manual_seed`` restarts it; ``get_state`` /
    ``set_state`` save and restore it exactly (for resuming training) as a uint8 tensor,
    as PyTorch's do. Its draws are made on the host whatever its ``device`` (see the module
    docstring)."""

    def __init__(self, device: Any = "cpu") -> None:
        self.device = backend.device(device)
        self.seed_value = 0
        self.rng = numpy.random.Generator(numpy.random.PCG64(0))

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from ``seed`` (any int in [-2**63, 2**64); a negative one
        counts modulo 2**64, as in PyTorch) and return the generator."""
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise RuntimeError(
                f"manual_seed expected a long, but got {type(seed).__name__}; pass an int "
                "(microtorch.manual_seed(seed) converts it with int() first, as PyTorch's does)"
            )
        seed = int(seed)
        if not -(2**63) <= seed < 2**64:
            raise ValueError(f"manual_seed: seed {seed} is outside [-2**63, 2**64)")
        self.seed_value = seed % 2**64
        self.rng = numpy.random.Generator(numpy.random.PCG64(self.seed_value))
        return self

    def seed(self) -> int:
        """Restart the stream from a fresh non-deterministic seed, and return that seed."""
        fresh = int(numpy.random.SeedSequence().entropy % (2**63))
        self.manual_seed(fresh)
        return fresh

    def initial_seed(self) -> int:
        """The seed the stream was last started from (manual_seed's, or seed()'s)."""
        return self.seed_value

    def get_state(self) -> Tensor:
        """The stream's state as a uint8 CPU tensor (set_state takes it back), as PyTorch's
        ByteTensor state: it goes into a checkpoint with microtorch.save like any tensor."""
        host = numpy.frombuffer(state_bytes(self.seed_value, self.rng.bit_generator.state),
                                dtype=numpy.uint8)  # fmt: skip
        return Tensor._make(host.copy())

    def set_state(self, new_state: Tensor, /) -> Generator:
        """Resume from a state get_state returned (and return the generator). A dict, the
        form earlier microtorch versions returned (NumPy's PCG64 state), is taken too, so old
        checkpoints still resume; it leaves initial_seed() as it is."""
        if isinstance(new_state, dict):
            self.rng.bit_generator.state = new_state
            return self
        self.seed_value, self.rng.bit_generator.state = state_from_bytes(new_state)
        return self


# The bytes of a generator's state (get_state's uint8 tensor), little-endian: the seed it
# started from (8), then NumPy's PCG64 state: its 128-bit state (16) and increment (16), and
# the cached half of a 64-bit draw, has_uint32 (4) and uinteger (4).
STATE_SIZE = 48


def state_bytes(seed: int, pcg64: dict) -> bytes:
    """A generator's seed and NumPy PCG64 state dict, as STATE_SIZE bytes."""
    inner = pcg64["state"]
    return b"".join((
        seed.to_bytes(8, "little"),
        int(inner["state"]).to_bytes(16, "little"),
        int(inner["inc"]).to_bytes(16, "little"),
        int(pcg64["has_uint32"]).to_bytes(4, "little"),
        int(pcg64["uinteger"]).to_bytes(4, "little"),
    ))  # fmt: skip


def state_from_bytes(state: Any) -> tuple[int, dict]:
    """(seed, NumPy PCG64 state dict) from a uint8 CPU tensor state_bytes wrote, refusing
    anything else with PyTorch's error types (TypeError for a wrong type or dtype,
    RuntimeError for a wrong size or a state no generator can be in)."""
    if not isinstance(state, Tensor):
        raise TypeError(
            f"expected a microtorch.ByteTensor (the uint8 tensor get_rng_state() returns), but "
            f"got {type(state).__name__}"
        )
    if state.dtype is not _dtypes.uint8 or state.device.type != "cpu":
        raise TypeError(
            f"RNG state must be a microtorch.ByteTensor (uint8, on the CPU), got "
            f"{state.dtype} on {state.device}; pass get_rng_state()'s tensor as it was"
        )
    if not state.is_contiguous():
        raise RuntimeError("RNG state must be contiguous; pass state.contiguous()")
    if state.numel() != STATE_SIZE:
        raise RuntimeError(
            f"Expected a microtorch generator state of size {STATE_SIZE} but found the input "
            f"RNG state size to be {state.numel()}"
        )
    raw = numpy.ascontiguousarray(state.array).tobytes()
    seed, inc = int.from_bytes(raw[:8], "little"), int.from_bytes(raw[24:40], "little")
    has_uint32 = int.from_bytes(raw[40:44], "little")
    if inc % 2 == 0 or has_uint32 not in (0, 1):
        raise RuntimeError(
            "Invalid PCG64 state: its increment must be odd and its has_uint32 0 or 1; pass "
            "a state get_rng_state() returned"
        )
    pcg64 = {
        "bit_generator": "PCG64",
        "state": {"state": int.from_bytes(raw[8:24], "little"), "inc": inc},
        "has_uint32": has_uint32,
        "uinteger": int.from_bytes(raw[44:48], "little"),
    }
    return seed, pcg64


default_generator = Generator()
default_generator.manual_seed(0)


def manual_seed(seed: int) -> Generator:
    """Seed the global generator: the same seed gives the same numbers on every run (a seed
    that is not an int goes through int() first, as in PyTorch)."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seed the global generator non-deterministically and return the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the global generator was last started from."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The global generator's state, a uint8 CPU tensor (as PyTorch's ByteTensor)."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator to a state from get_rng_state()."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str | None = None) -> Iterator[None]:  # fmt: skip
    """Run a block with the global generator's state saved before it and restored after,
    so draws inside it leave the draws after it unchanged (as torch.random.fork_rng; one
    host generator serves every device here, so ``devices`` and ``device_type`` change
    nothing; _caller and _devices_kw are PyTorch's names for its warnings)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator() -> Generator | None:
    """The generator for a DataLoader thread worker's draws, as torch.random's: None, which
    means the global generator (microtorch's DataLoader loads in the calling thread)."""
    return None


def _rng(generator: Generator | None) -> numpy.random.Generator:
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"generator must be a microtorch.Generator, got {type(generator).__name__}")
    return (generator or default_generator).rng


def _finish(host: numpy.ndarray, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    t = Tensor._make(backend.to_device(host, backend.as_device(device)))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _float_dtype(dtype: Any, op: str) -> Any:
    """The NumPy dtype for samples of ``dtype`` (the default float if None); an integer or
    bool dtype is a NotImplementedError (a RuntimeError), as in PyTorch (samples cast to it
    would be silently truncated)."""
    chosen = _dtypes.get_default_dtype() if dtype is None else _dtypes.get_dtype(dtype)
    if not chosen.is_floating_point:
        raise NotImplementedError(
            f"{op}: random samples need a floating point dtype, got {chosen}; draw floats and "
            "round them, or use randint for integers"
        )
    return chosen.np


def normal_array(size: tuple, mean: float, std: float, dtype: Any, device: Any, generator=None):
    """A device array of normal samples (drawn in float64 on the host, then cast); a
    negative std is a RuntimeError, as in PyTorch."""
    np_dtype = _float_dtype(dtype, "normal")
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    host = _rng(generator).normal(mean, std, size=tuple(size)).astype(np_dtype)
    return backend.to_device(host, backend.as_device(device))


def uniform_array(size: tuple, low: float, high: float, dtype: Any, device: Any, generator=None):
    """A device array of samples uniform in [low, high); low > high is a RuntimeError."""
    np_dtype = _float_dtype(dtype, "uniform")
    if not low <= high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}"
        )
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"uniform_: from={low} and to={high} must be finite numbers")
    return backend.to_device(_rng(generator).uniform(low, high, size=tuple(size)).astype(np_dtype),
                             backend.as_device(device))  # fmt: skip


def fill_from_host(tensor: Tensor, host: numpy.ndarray) -> Tensor:
    """``tensor`` overwritten in place (as copy_ does) by host draws cast to its dtype: the
    end of every in-place sampler (exponential_, geometric_, random_, ...)."""
    from . import functional as F

    sample = Tensor._make(backend.to_device(host.astype(tensor.array.dtype), tensor.device))
    return F.inplace(tensor, F.copy_from, sample)


def check_floating(tensor: Tensor, op: str, error: type = RuntimeError) -> None:
    """``error`` unless tensor has a floating dtype: a continuous distribution's draws
    would be truncated (PyTorch refuses integer and bool tensors too)."""
    if not tensor.dtype.is_floating_point:
        raise error(
            f"{op}: draws of a continuous distribution need a floating point tensor, got "
            f"{tensor.dtype}; fill a float tensor and round it, or use random_ for integers"
        )


def _is_int(value: Any) -> bool:
    """Whether PyTorch's parser reads ``value`` as an int: an int, a NumPy int or a one-element
    integer tensor (and a bool, which callers refuse where PyTorch does)."""
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def random_bounds(tensor: Tensor, low: int | None, high: int | None) -> tuple:
    """[low, high] (both included) for Tensor.random_: random_() is 0 to the largest value
    of an integer dtype, or to 2**mantissa bits for a float one (every integer there is
    exact); random_(to) is [0, to - 1]; random_(from, to) is [from, to - 1]. Bounds that
    do not fit the dtype, or from >= to, raise a RuntimeError as in PyTorch."""
    dtype = tensor.dtype
    for name, bound in (("from", low), ("to", high)):
        if bound is not None and (isinstance(bound, bool) or not _is_int(bound)):
            raise TypeError(f"random_(): argument '{name}' must be int, not {type(bound).__name__}")
    if high is None and low is None:
        if dtype is _dtypes.bool:
            return 0, 1
        if dtype.is_floating_point:
            return 0, 2 ** (numpy.finfo(dtype.np).nmant + 1)
        return 0, int(numpy.iinfo(dtype.np).max)
    if high is None:
        low, high = 0, low
    low = 0 if low is None else low  # random_(to=10)
    if not low < high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    if not dtype.is_floating_point:
        smallest, largest = (0, 1) if dtype is _dtypes.bool else _int_range(dtype)
        for name, bound in (("from", low), ("to - 1", high - 1)):
            if not smallest <= bound <= largest:
                raise RuntimeError(
                    f"random_: {name} is out of bounds for {dtype} ({bound} is not in "
                    f"{smallest}..{largest})"
                )
    return low, high - 1


def randn(
    *shape: Any,
    size: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    out: Any = None,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """Standard normal samples of the given size: randn(2, 3), randn((2, 3)), randn(size=...)."""
    _formats.check_layout(layout, pin_memory, "randn")
    dtype, device = factory_target(dtype, device, out, "randn")
    size = _size(shape, size, op="randn")
    host = _rng(generator).standard_normal(size).astype(_float_dtype(dtype, "randn"))
    return write_out(_finish(host, dtype, device, requires_grad), out, "randn")


def rand(
    *shape: Any,
    size: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    generator: Generator | None = None,
    out: Any = None,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """Uniform samples in [0, 1) of the given size (as for randn)."""
    _formats.check_layout(layout, pin_memory, "rand")
    dtype, device = factory_target(dtype, device, out, "rand")
    size = _size(shape, size, op="rand")
    host = _rng(generator).random(size).astype(_float_dtype(dtype, "rand"))
    return write_out(_finish(host, dtype, device, requires_grad), out, "rand")


def bernoulli(input: Tensor, p: float | None = None, *,
              generator: Generator | None = None, out: Any = None) -> Tensor:  # fmt: skip
    """1 with probability ``input`` (elementwise; or ``p`` for every element), else 0, in
    input's dtype and on its device, recorded with gradient 0 to input (as in PyTorch).
    Probabilities in an integer or bool tensor are refused (NotImplementedError), as in
    PyTorch."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"bernoulli: input must be a tensor of probabilities, got {type(input).__name__}"
        )
    if p is not None:  # a number, or a one-element tensor (as PyTorch's parser takes it)
        from . import functional as F

        try:
            p = F._float_argument(p, "bernoulli", "p")
        except TypeError as error:
            raise TypeError(
                f"{error}; for a probability per element, pass them as the input "
                "(bernoulli(probs)) or use bernoulli_(probs)"
            ) from None
    if p is None and not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"bernoulli: probabilities must be floating point, got {input.dtype}; use "
            ".float(), or bernoulli(input, p=...) to draw into an integer tensor's shape"
        )
    probs = input.array if p is None else None
    host_probs = backend.to_numpy(probs) if probs is not None else p
    if probs is not None and not ((host_probs >= 0) & (host_probs <= 1)).all():
        raise RuntimeError("bernoulli: all probabilities must be between 0 and 1")
    if p is not None and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli: p must be between 0 and 1, got {p}")
    draws = _rng(generator).random(tuple(input.shape)) < host_probs
    drawn = Tensor._make(backend.to_device(draws.astype(input.array.dtype), input.device))
    return write_out(
        elementwise.RandomDraw.apply(drawn, input), out, "bernoulli"
    )  # gradient 0 to input, as in PyTorch


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """One Poisson sample per element of the rates ``input``, in its (floating) dtype and
    on its device, recorded with gradient 0 to the rates, as in PyTorch."""
    if not isinstance(input, Tensor):
        raise TypeError(f"poisson: input must be a tensor of rates, got {type(input).__name__}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"poisson: rates must be floating point, got {input.dtype}")
    rates = backend.to_numpy(input.array).astype(numpy.float64)
    if not (rates >= 0).all():  # (also refuses nan)
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    if not (rates < 1e18).all():  # NumPy's limit; PyTorch returns garbage there
        raise RuntimeError("invalid Poisson rate, expected rate below 1e18")
    draws = numpy.asarray(_rng(generator).poisson(rates)).astype(input.array.dtype)
    drawn = Tensor._make(backend.to_device(draws, input.device))
    return elementwise.RandomDraw.apply(drawn, input)  # gradient 0 to the rates


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """One Binomial(count, prob) sample per element of count and prob (broadcast together):
    how many of ``count`` trials succeed, each with probability ``prob``. Both must be
    tensors of one floating dtype; as in PyTorch the draw has no derivative (backward
    raises), negative counts draw 0, probabilities are clipped to [0, 1] and a nan gives nan."""
    for name, t in (("count", count), ("prob", prob)):
        if not isinstance(t, Tensor):
            raise TypeError(f"binomial(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if not count.dtype.is_floating_point:
        raise ValueError(
            f"binomial only supports floating-point dtypes for count, got: {count.dtype}"
        )
    if prob.dtype is not count.dtype:
        raise RuntimeError(
            f"binomial: Found dtype {prob.dtype} but expected {count.dtype} (count and prob must "
            "have one dtype)"
        )
    from . import functional as F

    shape = F.broadcast_shapes(tuple(count.shape), tuple(prob.shape))
    n = numpy.broadcast_to(backend.to_numpy(count.array).astype(numpy.float64), shape)
    p = numpy.broadcast_to(backend.to_numpy(prob.array).astype(numpy.float64), shape)
    undefined = numpy.isnan(n) | numpy.isnan(p)
    trials = numpy.floor(numpy.clip(numpy.where(undefined, 0, n), 0, None)).astype(numpy.int64)
    chance = numpy.clip(numpy.where(undefined, 0, p), 0, 1)
    draws = numpy.where(undefined, numpy.nan, _rng(generator).binomial(trials, chance))
    drawn = Tensor._make(backend.to_device(draws.astype(count.array.dtype), count.device))
    return elementwise.Undifferentiable.apply(drawn, count, prob, op="binomial")


def normal(
    mean: Any,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    out: Any = None,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """Normal samples: ``size`` of them for a number mean and std; for tensors, one per
    element of mean and std broadcast together (mean + std * a standard normal sample),
    in the first tensor's dtype and on its device. As in PyTorch, the result depends on a
    mean or std that requires grad, with gradient 0 (RandomDraw)."""
    _formats.check_layout(layout, pin_memory, "normal")
    dtype, device = factory_target(dtype, device, out, "normal")
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    if not isinstance(std, Tensor) and not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    if not tensors:
        if size is None:
            raise TypeError("normal: with numbers for mean and std, give the size= of the result")
        shape = _size((size,), op="normal")
        samples = Tensor._make(normal_array(shape, mean, std, dtype, device, generator))
        return write_out(samples.requires_grad_(True) if requires_grad else samples, out, "normal")
    if size is not None:
        raise TypeError("normal: size= goes with numbers for mean and std; a tensor sets the shape")
    from . import functional as F
    from .autograd import grad_mode

    if isinstance(std, Tensor) and bool((std < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    first = tensors[0]
    shape = F.broadcast_shapes(*(tuple(t.shape) for t in tensors))  # RuntimeError if they do not
    sample = randn(shape, dtype=first.dtype, device=first.device, generator=generator)
    with grad_mode.no_grad():
        drawn = F.add(mean, F.mul(std, sample))
    return write_out(elementwise.RandomDraw.apply(drawn, *tensors), out, "normal")


def randn_like(
    input: Tensor,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = _formats.preserve_format,
    generator: Generator | None = None,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """randn of input's shape, dtype and device (unless given)."""
    return _like(randn, input, dtype, device, requires_grad, tuple(input.shape),
                 memory_format=memory_format, layout=layout, pin_memory=pin_memory,
                 generator=generator)  # fmt: skip


def rand_like(
    input: Tensor,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = _formats.preserve_format,
    generator: Generator | None = None,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """rand of input's shape, dtype and device (unless given)."""
    return _like(rand, input, dtype, device, requires_grad, tuple(input.shape),
                 memory_format=memory_format, layout=layout, pin_memory=pin_memory,
                 generator=generator)  # fmt: skip


def randint(low: int = 0, high: int | None = None, size: Any = None, *,
            generator: Generator | None = None, dtype: Any = None, device: Any = None,
            requires_grad: bool = False, out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """Integers in [low, high) (or [0, low) when high is omitted), int64 by default: as in
    PyTorch, the bounds are ints and the size a tuple (randint(0, 10, (3,)), randint(10,
    (3,)), randint(high=10, size=(3,)))."""
    _formats.check_layout(layout, pin_memory, "randint")
    dtype, device = factory_target(dtype, device, out, "randint")
    if size is None and isinstance(high, (tuple, list)):  # randint(high, size), as in PyTorch
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint: missing the 'size' argument, e.g. randint(0, 10, (3,))")
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"randint: size must be a tuple of ints, got {type(size).__name__}; write "
            f"randint({low}, {high}, ({size},)) for a 1-D result"
        )
    # (a bool is an int to Python, not to PyTorch)
    if any(isinstance(v, bool) or not _is_int(v) for v in (low, high)):
        raise TypeError(
            f"randint: low and high must be ints, got low={low!r}, high={high!r}; round them "
            "first (a float bound would be truncated)"
        )
    low, high = operator.index(low), operator.index(high)
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
    return write_out(_finish(host.astype(target.np), dtype, device, requires_grad), out, "randint")


def _int_range(dtype: Any) -> tuple:
    info = numpy.iinfo(dtype.np)
    return int(info.min), int(info.max)


def randint_like(input: Tensor, low: int | None = None, high: int | None = None, *,
                 dtype: Any = None, device: Any = None, requires_grad: bool = False,
                 memory_format: Any = _formats.preserve_format,
                 generator: Generator | None = None, layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """randint of input's shape, dtype and device (unless given): randint_like(x, high) or
    randint_like(x, low, high)."""
    if high is None and low is None:
        raise TypeError(
            "randint_like: missing the 'high' argument, e.g. randint_like(x, 10) or "
            "randint_like(x, 0, 10)"
        )
    _formats.check_layout(layout, pin_memory, "randint_like")
    if high is None:
        low, high = 0, low
    t = randint(0 if low is None else low, high, tuple(input.shape), generator=generator,
                dtype=dtype or input.dtype, device=device or input.device,
                requires_grad=requires_grad)  # fmt: skip
    return laid_out_as(t, input, memory_format, "randint_like")


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    out: Any = None,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """0..n-1 in random order (int64 unless ``dtype`` says otherwise; n - 1 must fit it)."""
    _formats.check_layout(layout, pin_memory, "randperm")
    dtype, device = factory_target(dtype, device, out, "randperm")
    if isinstance(n, (tuple, list)):
        raise TypeError(f"randperm(): argument 'n' must be int, not {type(n).__name__}")
    (n,) = _size((n,), op="randperm")
    target = _dtypes.int64 if dtype is None else _dtypes.get_dtype(dtype)
    if target is _dtypes.bool:
        raise NotImplementedError("randperm: not implemented for bool, as in PyTorch")
    if not target.is_floating_point and n - 1 > _int_range(target)[1]:
        raise RuntimeError(
            f"randperm: {n - 1} cannot be converted to {target} without overflow; use a wider "
            "dtype (int64 by default)"
        )
    return write_out(
        _finish(_rng(generator).permutation(n).astype(target.np), dtype, device, requires_grad),
        out,
        "randperm",
    )


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
                generator: Generator | None = None, out: Any = None) -> Tensor:  # fmt: skip
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
    samples = numpy.empty((probs.shape[0], num_samples), dtype=numpy.int64)
    for row, p in enumerate(probs):
        total = p.sum()
        if total <= 0:
            raise RuntimeError("multinomial: a row of the probability tensor sums to zero")
        p = p / total
        if replacement:
            samples[row] = numpy.searchsorted(
                numpy.cumsum(p), rng.random(num_samples), side="right"
            )
            numpy.minimum(samples[row], n_categories - 1, out=samples[row])
        else:
            possible = int(numpy.count_nonzero(p))
            drawn = rng.choice(n_categories, size=min(num_samples, possible), replace=False, p=p)
            impossible = rng.permutation(numpy.flatnonzero(p == 0))[: num_samples - len(drawn)]
            samples[row] = numpy.concatenate([drawn, impossible])
    if one_d:
        samples = samples[0]
    result = Tensor._make(backend.to_device(samples, input.device))
    return write_out(result, out, "multinomial", exact_dtype=True)
