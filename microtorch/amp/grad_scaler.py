"""``GradScaler``: loss scaling, so that small float16 gradients do not flush to zero.

    scaler = torch.amp.GradScaler("cuda")
    for x, y in batches:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()   # the gradients are `scale` times too large
        scaler.step(optimizer)          # divide them by scale; step only if all are finite
        scaler.update()                 # grow the scale after growth_interval good steps,
                                        # halve it after a step with an inf or a NaN

The scale, its growth tracker and the found-inf flag are 0-d tensors on the device of the
loss, updated by array operations there: nothing is copied to the host until ``step``
reads the flag once to decide whether to call ``optimizer.step()``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

from .. import backend, dtypes
from .._tensor import Tensor
from ..autograd import grad_mode

# where an optimizer is within one iteration
READY, UNSCALED, STEPPED = "ready", "unscaled", "stepped"


def _fresh_state() -> dict:
    return {"stage": READY, "found_inf_per_device": {}}


class GradScaler:
    """Multiply the loss by ``scale`` before backward and the gradients by 1/scale before
    the step, skipping steps whose gradients overflowed and adapting the scale to them."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:  # fmt: skip
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not backend.cuda_is_available():
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )
            self._enabled = False
        if not self._enabled:
            return
        if growth_factor <= 1.0:
            raise AssertionError("The growth factor must be > 1.0.")
        if backoff_factor >= 1.0:
            raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._scale: Tensor | None = None  # made by the first scale(), on the loss's device
        self._growth_tracker: Tensor | None = None  # good steps in a row since the last change
        self._per_optimizer_states: dict[int, dict] = {}

    # ----- the three calls of a training step
    def scale(self, outputs: Any) -> Any:
        """outputs (a tensor, or lists/tuples of them) multiplied by the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale.to(outputs.device)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(v) for v in outputs)
        if isinstance(outputs, Iterable):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer: Any) -> None:
        """Divide the optimizer's gradients by the scale, in place, noting any inf or NaN.
        Once per optimizer and step: call it before clipping gradients, then step()."""
        if not self._enabled:
            return
        self._check_started("unscale_")
        state = self._state_of(optimizer)
        if state["stage"] is UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()  # 1/scale, rounded once
        found = state["found_inf_per_device"]
        with grad_mode.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.dtype is dtypes.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    key = str(p.grad.device)
                    if key not in found:
                        found[key] = _zero(p.grad.device)
                    _unscale_and_check(p.grad, inv_scale.to(p.grad.device), found[key])
        state["stage"] = UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale (if unscale_ was not called) and run optimizer.step(*args, **kwargs)
        unless a gradient is inf or NaN; return what it returns (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_started("step")
        state = self._state_of(optimizer)
        if state["stage"] is STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None
        # the one host read of the iteration: did any gradient overflow?
        if not sum(f.item() for f in state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = STEPPED
        return result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Set the scale for the next iteration: ``new_scale`` if given; else the scale times
        backoff_factor after an overflow, times growth_factor after growth_interval
        overflow-free steps in a row, unchanged otherwise."""
        if not self._enabled:
            return
        self._check_started("update")
        if new_scale is not None:
            self._set_scale(new_scale)
        else:
            found = [f for s in self._per_optimizer_states.values()
                     for f in s["found_inf_per_device"].values()]  # fmt: skip
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            overflow = found[0].array
            for f in found[1:]:
                overflow = overflow + backend.to_device(f.array, self._scale.device)
            self._update_scale(overflow)
        self._per_optimizer_states = {}

    # ----- the scale rule, on device arrays (no host copy)
    def _update_scale(self, overflow: Any) -> None:
        scale, tracker = self._scale.array, self._growth_tracker.array
        xp = backend.xp_of(scale)
        good_steps = tracker + 1
        grow = (overflow == 0) & (good_steps >= self._growth_interval)
        grown = scale * self._growth_factor
        new_scale = xp.where(
            overflow > 0,
            scale * self._backoff_factor,
            xp.where(grow & xp.isfinite(grown), grown, scale),  # (an inf scale is not taken)
        )
        scale[...] = new_scale
        tracker[...] = xp.where((overflow > 0) | grow, 0, good_steps)

    def _set_scale(self, new_scale: Any) -> None:
        if isinstance(new_scale, float):
            self._scale.fill_(new_scale)
            return
        reason = (
            "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
            "torch.FloatTensor with requires_grad=False."
        )
        if not isinstance(new_scale, Tensor) or new_scale.device.type != self._scale.device.type:
            raise AssertionError(reason)
        if new_scale.numel() != 1 or new_scale.requires_grad:
            raise AssertionError(reason)
        self._scale.copy_(new_scale.reshape(()))

    # ----- helpers
    def _lazy_init(self, device: Any) -> None:
        self._scale = _full(self._init_scale, dtypes.float32, device)
        self._growth_tracker = _full(self._init_growth_tracker, dtypes.int32, device)

    def _check_started(self, op: str) -> None:
        if self._scale is None:
            raise AssertionError(
                f"Attempted {op} but _scale is None.  This may indicate your script did not "
                "use scaler.scale(loss or outputs) earlier in the iteration."
            )

    def _state_of(self, optimizer: Any) -> dict:
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_state())

    # ----- settings and state, with PyTorch's names
    def get_scale(self) -> float:
        """The current scale as a Python float (a host read); 1.0 when disabled."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return self._growth_tracker.item()

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker, as
        PyTorch's (so either library loads the other's); {} when disabled."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict) -> None:
        """Take the settings and the scale of a state_dict() (ours or PyTorch's)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._init_scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(self._init_growth_tracker)


def _full(value: float, dtype: Any, device: Any) -> Tensor:
    from ..factories import full

    return full((), value, dtype=dtype, device=device)


def _zero(device: Any) -> Tensor:
    return _full(0.0, dtypes.float32, device)


def _unscale_and_check(grad: Tensor, inv_scale: Tensor, found_inf: Tensor) -> None:
    """grad *= inv_scale in place; found_inf becomes 1 if grad holds an inf or a NaN."""
    g = grad.array
    xp = backend.xp_of(g)
    bad = xp.logical_not(xp.isfinite(g)).any()
    found_inf.array[...] = xp.maximum(found_inf.array, bad.astype(found_inf.array.dtype))
    grad.mul_(inv_scale)
