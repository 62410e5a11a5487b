"""``autocast``: run the listed ops in float16 (or float32) inside a region, as PyTorch does.

    with torch.autocast(device_type="cuda", dtype=torch.float16):
        loss = model(x)          # matmuls and linears in float16, softmax and losses in float32

Autocast is a per-device-type switch, not a change to the model: parameters stay float32.
Each listed op (op_lists.py) calls ``autocast_inputs("matmul", a, b)`` first; outside any
region that is one flag check and returns the inputs as they are. Inside one, the inputs
are cast with ``Tensor.to``-like casts that autograd records, so gradients flow back to the
float32 parameters in float32.

The state is per device type ("cpu", "cuda"): enabled or not, and the lower dtype. Regions
nest; leaving one restores the state it found. With ``cache_enabled`` (the default), the
float16 copy of a float32 leaf that requires grad (a parameter) is made once per outermost
region and reused by every op that needs it, as PyTorch does.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy

from .. import dtypes as _dtypes
from .op_lists import BANNED, FLOAT32, LOWER, POLICIES

# PyTorch's device types: any other name is an error; those microtorch lacks are disabled
_TORCH_DEVICE_TYPES = (
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
    "vulkan, mps, meta, hpu, mtia, privateuseone"
)
_DEVICE_TYPES = ("cpu", "cuda")  # the ones microtorch has

_active = False  # is autocast enabled for any device type? (the one check on the hot path)
_enabled = {"cpu": False, "cuda": False}
_dtype = {"cpu": _dtypes.float16, "cuda": _dtypes.float16}
_cache_enabled = True
_depth = 0  # how many autocast regions are open (the cache is cleared when it falls to 0)
_cache: dict[int, tuple] = {}  # id(parameter) -> (parameter, its version, its float16 copy)


def _set_active() -> None:
    global _active
    _active = _enabled["cpu"] or _enabled["cuda"]


def _check_device_type(device_type: Any, op: str = "autocast") -> str:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    name = device_type.split(":")[0]
    if name not in _TORCH_DEVICE_TYPES.split(", "):
        raise RuntimeError(
            f"Expected one of {_TORCH_DEVICE_TYPES} device type at start of device string: "
            f"{device_type} ({op}: microtorch's device types are 'cpu' and 'cuda')"
        )
    return name


def is_autocast_available(device_type: str) -> bool:
    """True for the device types microtorch's autocast knows: "cpu" and "cuda"."""
    return _check_device_type(device_type, "is_autocast_available") in _DEVICE_TYPES


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Is autocast on for ``device_type``? Without one, for "cuda" (PyTorch's old meaning)."""
    name = "cuda" if device_type is None else _check_device_type(device_type, "is_autocast_enabled")
    return _enabled.get(name, False)


def set_autocast_enabled(device_type: Any, enabled: Any = None) -> None:
    """Switch autocast on or off for a device type (what ``autocast`` does on entry and exit).
    The old one-argument form ``set_autocast_enabled(True)`` means "cuda"."""
    if enabled is None:  # set_autocast_enabled(True)
        device_type, enabled = "cuda", device_type
    name = _check_device_type(device_type, "set_autocast_enabled")
    if name in _DEVICE_TYPES:
        _enabled[name] = bool(enabled)
        _set_active()


def get_autocast_dtype(device_type: str) -> Any:
    """The dtype the LOWER ops of ``device_type`` run in: float16 unless set otherwise (for
    "cpu" PyTorch's default is bfloat16, which microtorch does not have)."""
    name = _check_device_type(device_type, "get_autocast_dtype")
    return _dtype.get(name, _dtypes.float16)


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    """Set the dtype the LOWER ops of ``device_type`` run in (microtorch has only float16)."""
    name = _check_device_type(device_type, "set_autocast_dtype")
    if name in _DEVICE_TYPES:
        _dtype[name] = _dtypes.get_dtype(dtype)


def is_autocast_cache_enabled() -> bool:
    return _cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    global _cache_enabled
    _cache_enabled = bool(enabled)


def autocast_increment_nesting() -> int:
    """One more autocast region is open: returns how many are (autocast's own bookkeeping)."""
    global _depth
    _depth += 1
    return _depth


def autocast_decrement_nesting() -> int:
    """One region fewer: returns how many are left open (the caller clears the cache at 0)."""
    global _depth
    _depth -= 1
    return _depth


def clear_autocast_cache() -> None:
    """Forget the float16 copies of parameters made so far (autocast does this on exit)."""
    _cache.clear()


class autocast:  # noqa: N801 (PyTorch's name)
    """Context manager and decorator: inside, the listed ops of ``device_type`` autocast.

    ``dtype`` is the lower dtype (float16; None means float16 for "cuda" and PyTorch's
    bfloat16 for "cpu", which microtorch lacks: that warns and disables, as PyTorch does for
    an unsupported dtype). ``enabled=False`` turns autocast off inside an enabled region."""

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:  # fmt: skip
        self.device = _check_device_type(device_type)
        self._args = (device_type, dtype, enabled, cache_enabled)
        self.fast_dtype = _dtypes.get_dtype(dtype) if dtype is not None else None
        self._cache_enabled = _cache_enabled if cache_enabled is None else bool(cache_enabled)
        self._enabled = bool(enabled) and self._supported()

    def _supported(self) -> bool:
        """Can this region autocast? If not, say why (a UserWarning, as PyTorch's)."""
        if self.device not in _DEVICE_TYPES:
            warnings.warn(
                f"autocast: microtorch has no '{self.device}' device (only 'cpu' and 'cuda'). "
                "Disabling autocast.",
                stacklevel=3,
            )
            return False
        if self.device == "cuda" and not _cuda_available():
            warnings.warn("CUDA is not available. Disabling autocast.", stacklevel=3)
            return False
        if self.fast_dtype is None and self.device == "cpu":
            warnings.warn(
                "In CPU autocast, but the target dtype is not supported. Disabling autocast. "
                "PyTorch's default CPU autocast dtype is bfloat16, which microtorch does not "
                "have: pass dtype=torch.float16 (the one dtype microtorch's autocast supports).",
                stacklevel=3,
            )
            return False
        if self.fast_dtype is None:
            self.fast_dtype = _dtypes.float16
        if self.fast_dtype is not _dtypes.float16:
            where = "CPU" if self.device == "cpu" else "CUDA"
            warnings.warn(
                f"In {where} autocast, but the target dtype is not supported. Disabling "
                f"autocast. microtorch's autocast supports only dtype=torch.float16 (got "
                f"{self.fast_dtype}).",
                stacklevel=3,
            )
            return False
        return True

    def __enter__(self) -> autocast:
        global _cache_enabled, _depth
        if not isinstance(self._args[2], bool):  # (PyTorch's check, when the region starts)
            raise TypeError(f"autocast: enabled must be a bool, not {type(self._args[2]).__name__}")
        name = self.device if self.device in _DEVICE_TYPES else None
        self._previous = (
            _enabled.get(name, False), _dtype.get(name), _cache_enabled
        )  # fmt: skip
        _depth += 1
        if name is not None:
            _enabled[name] = self._enabled
            if self._enabled:
                _dtype[name] = self.fast_dtype
            _set_active()
        _cache_enabled = self._cache_enabled
        return self

    def __exit__(self, *exc: object) -> None:
        global _cache_enabled, _depth
        name = self.device if self.device in _DEVICE_TYPES else None
        enabled, dtype, _cache_enabled = self._previous
        if name is not None:
            _enabled[name], _dtype[name] = enabled, dtype
            _set_active()
        _depth -= 1
        if _depth == 0:
            _cache.clear()  # (PyTorch's rule: the copies live as long as the outermost region)

    def __call__(self, func: Callable) -> Callable:
        """As a decorator: every call of func runs inside a fresh region with these settings."""
        args = self._args

        @functools.wraps(func)
        def run_in_autocast(*f_args: Any, **f_kwargs: Any) -> Any:
            with autocast(*args):
                return func(*f_args, **f_kwargs)

        return run_in_autocast


def _cuda_available() -> bool:
    from .. import backend

    return backend.cuda_is_available()


# ------------------------------------------------------------------- the hook in each op
def autocast_inputs(op: str, *inputs: Any) -> tuple:
    """The inputs of ``op`` as autocast wants them: returned unchanged outside autocast;
    inside, cast as op_lists.py says for the device type of the first tensor among them."""
    if not _active:
        return inputs
    return _cast_inputs(op, inputs)


def _cast_inputs(op: str, inputs: tuple) -> tuple:
    from .._tensor import Tensor

    device = None
    for t in inputs:
        if isinstance(t, (list, tuple)) and t:  # cat's and stack's tensors: look at the first
            t = t[0]
        if isinstance(t, Tensor):
            device = "cpu" if isinstance(t.array, numpy.ndarray) else "cuda"
            break
    if device is None or not _enabled[device]:
        return inputs  # autocast is per device type: a CPU op in a "cuda" region is left alone
    policy = POLICIES[device].get(op)
    if policy is None:
        return inputs
    if policy == BANNED:
        raise RuntimeError(
            f"{op}: refused inside a {device} autocast region, as in PyTorch (it is unsafe to "
            "autocast: the log of float16 probabilities near 0 or 1 loses them). Give the "
            "logits to F.binary_cross_entropy_with_logits (or nn.BCEWithLogitsLoss) instead of "
            "the sigmoid's output; that one is safe to autocast"
        )
    if policy == LOWER:
        target = _dtype[device]
    elif policy == FLOAT32:
        target = _dtypes.float32
    else:  # PROMOTE: float32 if any eligible input is float32, else leave them all as they are
        wide = any(_eligible(t, device) and t.array.dtype == numpy.float32 for t in inputs)
        if not wide:
            return inputs
        target = _dtypes.float32
    return tuple(_cast(t, target, device, policy == LOWER) for t in inputs)


def _eligible(t: Any, device: str) -> bool:
    """Autocast casts only floating tensors on the region's device type, and never float64."""
    from .._tensor import Tensor

    if not isinstance(t, Tensor):
        return False
    a = t.array
    return a.dtype.kind == "f" and a.dtype != numpy.float64 and (
        isinstance(a, numpy.ndarray) == (device == "cpu")
    )  # fmt: skip


def _cast(t: Any, target: Any, device: str, may_cache: bool) -> Any:
    """t in the target dtype, through the differentiable cast; parameters' float16 copies are
    kept for the rest of the outermost region (when the cache is enabled), except those made
    under no_grad, which have no graph to give the gradient back through."""
    from .. import functional as F
    from ..autograd import grad_mode

    if isinstance(t, (list, tuple)):  # the tensors of cat/stack/multi_dot
        return type(t)(_cast(u, target, device, may_cache) for u in t)
    if not _eligible(t, device) or t.array.dtype == target.np:
        return t
    if not (may_cache and _cache_enabled and t.requires_grad and t.grad_fn is None
            and grad_mode.enabled):  # fmt: skip
        return F.cast(t, target)
    hit = _cache.get(id(t))
    if hit is not None and hit[0] is t and hit[1] == t._version:
        return hit[2]
    copy = F.cast(t, target)
    _cache[id(t)] = (t, t._version, copy)
    return copy


def cast_tensors(value: Any, dtype: Any, device_type: str) -> Any:
    """value with every eligible floating tensor in it (nested in lists, tuples and dicts)
    cast to dtype: what custom_fwd(cast_inputs=...) does to a forward's arguments."""
    if isinstance(value, (list, tuple)):
        return type(value)(cast_tensors(v, dtype, device_type) for v in value)
    if isinstance(value, dict):
        return {k: cast_tensors(v, dtype, device_type) for k, v in value.items()}
    if _eligible(value, device_type) and value.array.dtype != dtype.np:
        return value.to(dtype)
    return value


# ------------------------------------------------------------------- custom autograd.Functions
def custom_fwd(fwd: Callable | None = None, *, device_type: str,
               cast_inputs: Any = None) -> Callable:  # fmt: skip
    """Decorator for the ``forward`` staticmethod of a custom autograd.Function: with
    ``cast_inputs`` set, inside an enabled region its floating tensor arguments are cast to
    that dtype and forward runs with autocast off; without, forward runs under the region as
    it is. Either way the state is remembered on ctx for ``custom_bwd``."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    name = _check_device_type(device_type, "custom_fwd")

    @functools.wraps(fwd)
    def decorated_forward(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(name)
        if cast_inputs is None or not is_autocast_enabled(name):
            ctx._fwd_used_autocast = is_autocast_enabled(name)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        target = _dtypes.get_dtype(cast_inputs)
        with autocast(device_type=name, enabled=False):
            return fwd(*cast_tensors(args, target, name), **cast_tensors(kwargs, target, name))

    return decorated_forward


def custom_bwd(bwd: Callable | None = None, *, device_type: str) -> Callable:
    """Decorator for the ``backward`` staticmethod of a custom autograd.Function: backward
    runs with the autocast state its forward ran with (recorded by ``custom_fwd``)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    name = _check_device_type(device_type, "custom_bwd")

    @functools.wraps(bwd)
    def decorated_backward(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        with autocast(device_type=name, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorated_backward
