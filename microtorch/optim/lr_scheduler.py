"""Learning-rate schedules: each ``step()`` sets every parameter group's ``"lr"``.

    scheduler = CosineAnnealingLR(optimizer, T_max=1000)
    for batch in data:
        loss.backward(); optimizer.step(); optimizer.zero_grad()
        scheduler.step()

A scheduler remembers each group's starting lr as ``base_lrs`` (stored in the group as
``"initial_lr"``). Creating a scheduler already applies step 0's lr. Most schedules move
the group's current lr on by a factor each step, as PyTorch's do, so that two schedulers on
one optimizer compose (``ChainedScheduler``); each class's docstring gives the closed form
it amounts to alone.
"""

from __future__ import annotations

import bisect
import collections
import math
import types
import warnings
from collections.abc import Callable

from .._tensor import Tensor
from .._warn import warn_user
from .optimizer import Optimizer


class LRScheduler:
    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:  # (a tensor lr: a copy, as it changes in place)
                group.setdefault("initial_lr", _lr_copy(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                        "an optimizer (last_epoch != -1)"
                    )
        self.base_lrs = [float(group["initial_lr"]) for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    _get_lr_called_within_step = False  # (True while step() calls get_lr())

    def _initial_step(self) -> None:
        """The step a scheduler takes when it is made: step 0's lr (when resuming, most
        schedules leave the groups' lrs as they are). ``_step_count`` counts the steps
        taken, this one included, as PyTorch's does."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The lr of every group at step ``self.last_epoch``, worked out from the group's
        current lr (subclasses define it). Starting from the current lr, rather than from
        ``base_lrs``, is what lets schedulers chain: two schedulers stepped on one optimizer
        apply one after the other, as in PyTorch."""
        raise TypeError(f"{type(self).__name__} must define get_lr()")

    def _get_closed_form_lr(self) -> list[float]:
        """The lr of every group at step ``self.last_epoch`` worked out from ``base_lrs``
        alone, for ``step(epoch)``; schedules that never chain need nothing else."""
        return self.get_lr()

    def step(self, epoch: int | None = None) -> None:
        """Advance one step and write the new lrs into the groups.

        ``step(epoch)`` jumps to ``epoch`` instead, with the closed form of the schedule;
        PyTorch deprecates it (and warns), and so does microtorch. As PyTorch, the first
        call warns when optimizer.step() has not been called since the scheduler was made:
        the loop should call optimizer.step() first, or the schedule's first lr is skipped."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warn_user(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`: call "
                "`optimizer.step()` first, then `lr_scheduler.step()`, or the first value of "
                "the learning rate schedule is skipped (as in PyTorch)"
            )
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            self._set_lrs(self._next_lrs())
        else:
            warnings.warn(
                "scheduler.step(epoch) is deprecated, as in PyTorch: call scheduler.step() "
                "once per step; with an epoch the closed form of the schedule is used",
                UserWarning,
                stacklevel=2,
            )
            self._jump_to(epoch)

    def _jump_to(self, epoch: int) -> None:
        self.last_epoch = int(epoch)
        self._set_lrs(self._next_lrs(closed_form=True))

    def _next_lrs(self, closed_form: bool = False) -> list[float]:
        """get_lr() (or the closed form) as step() calls it, so that get_lr does not warn."""
        self._get_lr_called_within_step = True
        try:
            return self._get_closed_form_lr() if closed_form else self.get_lr()
        finally:
            self._get_lr_called_within_step = False

    def _set_lrs(self, lrs: list[float]) -> None:
        for group, lr in zip(self.optimizer.param_groups, lrs):
            _set_group_lr(group, lr)
        self._last_lr = self._copied_lrs()

    def _current_lrs(self) -> list[float]:
        return [float(group["lr"]) for group in self.optimizer.param_groups]

    def _copied_lrs(self) -> list[float | Tensor]:
        """The groups' lrs for get_last_lr(): numbers, or copies of tensor lrs."""
        return [_lr_copy(group["lr"]) for group in self.optimizer.param_groups]

    def get_last_lr(self) -> list[float]:
        return self._last_lr

    def state_dict(self) -> dict:
        """Everything but the optimizer. LambdaLR's and MultiplicativeLR's functions are not
        saved: ``"lr_lambdas"`` holds, per group, None for a function and the attributes of a
        callable object (which load_state_dict puts back into it), as in PyTorch."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        if "lr_lambdas" in self.__dict__:
            state["lr_lambdas"] = [_callable_state(fn) for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        saved_lambdas = state.pop("lr_lambdas", None) or ()
        self.__dict__.update(state)
        for fn, attributes in zip(getattr(self, "lr_lambdas", ()), saved_lambdas):
            if attributes is not None:
                fn.__dict__.update(attributes)


def _warn_if_outside_step(scheduler: LRScheduler) -> None:
    """Every get_lr() starts with this: called by the user rather than by step(), it warns,
    as PyTorch's does, that the lr the scheduler set last is get_last_lr()."""
    if not scheduler._get_lr_called_within_step:
        warn_user(
            "To get the last learning rate computed by the scheduler, please use "
            "`get_last_lr()`: get_lr() is what step() calls to work out the next one"
        )


def _set_group_lr(group: dict, lr: float) -> None:
    """``group["lr"] = lr``; a tensor lr (``lr=torch.tensor(0.01)``) is filled in place
    instead, so that it stays the tensor the user made, as in PyTorch."""
    if isinstance(group["lr"], Tensor):
        group["lr"].fill_(float(lr))
    else:
        group["lr"] = lr


def _lr_copy(lr: float | Tensor) -> float | Tensor:
    """An lr as get_last_lr() and initial_lr keep it: a tensor lr copied, so that a later
    change in place leaves it as it was (as PyTorch's copies)."""
    return lr.clone() if isinstance(lr, Tensor) else lr


def _callable_state(fn: Callable | None) -> dict | None:
    """What a scheduler's state dict keeps of a user's function: None for a plain function
    (or none at all), a copy of the attributes of a callable object."""
    if fn is None or isinstance(fn, types.FunctionType) or not hasattr(fn, "__dict__"):
        return None
    return fn.__dict__.copy()


class LambdaLR(LRScheduler):
    """lr = base_lr * lr_lambda(step); ``lr_lambda`` is one function or one per group.
    It sets the lr outright, so it does not chain with other schedulers."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list,
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.lr_lambdas = _lr_lambdas(lr_lambda, optimizer)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        return [base * fn(self.last_epoch) for base, fn in zip(self.base_lrs, self.lr_lambdas)]


def _lr_lambdas(lr_lambda: Callable[[int], float] | list, optimizer: Optimizer) -> list:
    """One function per parameter group: the list given, or the one function for each."""
    n = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != n:
            raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
        return list(lr_lambda)
    return [lr_lambda] * n


class CosineAnnealingLR(LRScheduler):
    """From base_lr at step 0 down to eta_min at step T_max along half a cosine, then back up
    (the cosine goes on); alone, at step t:

        lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * t / T_max)) / 2

    Each step moves the current lr by that curve's ratio around eta_min, as PyTorch does."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if T_max <= 0:
            raise ValueError(f"CosineAnnealingLR: T_max must be positive, got {T_max}")
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def _curve(self, step: int) -> float:
        return 1 + math.cos(math.pi * step / self.T_max)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        t, lrs = self.last_epoch, self._current_lrs()
        if self._is_initial:
            return lrs
        if (t - 1 - self.T_max) % (2 * self.T_max) == 0:  # leaving the bottom: the curve was 0
            rise = (1 - math.cos(math.pi / self.T_max)) / 2
            return [lr + (base - self.eta_min) * rise for lr, base in zip(lrs, self.base_lrs)]
        ratio = self._curve(t) / self._curve(t - 1)
        return [self.eta_min + (lr - self.eta_min) * ratio for lr in lrs]

    def _get_closed_form_lr(self) -> list[float]:
        half = self._curve(self.last_epoch) / 2
        return [self.eta_min + (base - self.eta_min) * half for base in self.base_lrs]


class StepLR(LRScheduler):
    """The lr is multiplied by gamma every step_size steps; alone:
    lr = base_lr * gamma ** (step // step_size)."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if step_size <= 0:
            raise ValueError(f"StepLR: step_size must be positive, got {step_size}")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        t = self.last_epoch
        factor = self.gamma if t != 0 and t % self.step_size == 0 else 1.0
        return [lr * factor for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """The lr is multiplied by gamma at each milestone (twice at a milestone given twice);
    alone: lr = base_lr * gamma ** (how many milestones step has reached)."""

    def __init__(self, optimizer: Optimizer, milestones: list[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:  # fmt: skip
        # milestone -> how many times it was given: a Counter, as PyTorch saves it
        self.milestones, self.gamma = collections.Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [lr * factor for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        passed = bisect.bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma**passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """The lr is multiplied by gamma every step; alone: lr = base_lr * gamma ** step."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        factor = 1.0 if self._is_initial else self.gamma
        return [lr * factor for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class LinearLR(LRScheduler):
    """lr = base_lr * factor, the factor going in a straight line from start_factor at step 0
    to end_factor at step total_iters, then staying there (a linear warmup, by default).
    Each step multiplies the current lr by factor(step) / factor(step - 1)."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:  # fmt: skip
        if not (0 < start_factor <= 1 and 0 <= end_factor <= 1):
            raise ValueError(
                "LinearLR: start_factor must be in (0, 1] and end_factor in [0, 1], got "
                f"{start_factor} and {end_factor}"
            )
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def _factor(self, step: int) -> float:
        done = min(step, self.total_iters) / self.total_iters if self.total_iters else 1
        return self.start_factor + (self.end_factor - self.start_factor) * done

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        t, lrs = self.last_epoch, self._current_lrs()
        if t == 0:
            return [lr * self.start_factor for lr in lrs]
        if self._is_initial or t > self.total_iters:
            return lrs
        ratio = self._factor(t) / self._factor(t - 1)
        return [lr * ratio for lr in lrs]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self._factor(self.last_epoch) for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr = base_lr * factor for the first ``total_iters`` steps, then base_lr (a constant
    warmup). Each step moves the current lr, so it chains: times factor at step 0, divided
    by factor at step total_iters, unchanged otherwise."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if not 0 <= factor <= 1:
            raise ValueError(f"ConstantLR: factor must be between 0 and 1, got {factor}")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        t, lrs = self.last_epoch, self._current_lrs()
        if t == 0:
            return [lr * self.factor for lr in lrs]
        if t != self.total_iters:
            return lrs
        return [lr * (1.0 / self.factor) for lr in lrs]

    def _get_closed_form_lr(self) -> list[float]:
        factor = 1.0 if self.last_epoch >= self.total_iters else self.factor
        return [base * factor for base in self.base_lrs]


class MultiplicativeLR(LRScheduler):
    """Each step multiplies the current lr by ``lr_lambda(step)`` (one function, or one per
    group); alone: lr = base_lr * lr_lambda(1) * ... * lr_lambda(step)."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list,
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.lr_lambdas = _lr_lambdas(lr_lambda, optimizer)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(
                    f"MultiplicativeLR: lr_lambda should be a function, but got {type(fn).__name__}"
                )
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        lrs = self._current_lrs()
        if self._is_initial:
            return lrs
        return [lr * fn(self.last_epoch) for lr, fn in zip(lrs, self.lr_lambdas)]


class PolynomialLR(LRScheduler):
    """lr = base_lr * (1 - min(step, total_iters) / total_iters) ** power: from base_lr down
    to 0 at step total_iters (a straight line for power 1). Each step multiplies the current
    lr by that curve's ratio to the step before."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:  # fmt: skip
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        t, lrs = self.last_epoch, self._current_lrs()
        if self._is_initial or t > self.total_iters:
            return lrs
        ratio = ((1.0 - t / self.total_iters) / (1.0 - (t - 1) / self.total_iters)) ** self.power
        return [lr * ratio for lr in lrs]

    def _get_closed_form_lr(self) -> list[float]:
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * left**self.power for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR (Loshchilov & Hutter): half a cosine from base_lr down to eta_min over T_i steps,
    then a restart at base_lr; the first period is T_0 steps and each next one T_mult times
    longer. At T_cur steps into the current period:

        lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2

    It sets the lr from base_lrs (it does not chain). As in PyTorch, ``step(epoch)`` takes a
    fractional epoch too (``scheduler.step(epoch + i / iters)`` within an epoch), and does
    not warn."""

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected a positive integer T_0, got {T_0}")  # fmt: skip
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected an integer T_mult >= 1, got {T_mult}")  # fmt: skip
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"CosineAnnealingWarmRestarts: expected a float or int eta_min, got {eta_min!r}"
            )
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        half = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base - self.eta_min) * half for base in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """One step on (a restart when the period ends), or to ``epoch`` (may be fractional)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0  # the step made with the scheduler
        if epoch is not None:
            self._jump_to(epoch)
            return
        self.last_epoch += 1
        self.T_cur += 1
        if self.T_cur >= self.T_i:  # the period is over: restart, with a longer one
            self.T_cur -= self.T_i
            self.T_i *= self.T_mult
        self._set_lrs(self._next_lrs())

    def _jump_to(self, epoch: float) -> None:
        if epoch < 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected a non-negative epoch, got {epoch}")  # fmt: skip
        if epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            # periods T_0, T_0 m, T_0 m^2...: n whole periods end at T_0 (m^n - 1) / (m - 1)
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult**n
        self.last_epoch = math.floor(epoch)
        self._set_lrs(self._next_lrs())


class SequentialLR(LRScheduler):
    """One schedule after another: ``schedulers[i]`` runs from ``milestones[i-1]`` (from step
    0 for the first), counting its own steps from 0 there. The usual warmup then decay:

        SequentialLR(opt, [LinearLR(opt, 0.01, total_iters=100),
                           CosineAnnealingLR(opt, T_max=4900)], milestones=[100])

    Making each scheduler already took its first step; SequentialLR undoes those and starts
    from the groups' initial lrs, as PyTorch does."""

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler],
                 milestones: list[int], last_epoch: int = -1) -> None:  # fmt: skip
        if not schedulers:
            raise ValueError("SequentialLR expects at least one scheduler, but got none")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                f"SequentialLR: expected {len(schedulers) - 1} milestones for "
                f"{len(schedulers)} schedulers, got {len(milestones)}"
            )
        _check_schedulers("SequentialLR", schedulers, optimizer)
        self.optimizer = optimizer
        self._schedulers, self._milestones = list(schedulers), list(milestones)
        self.last_epoch = last_epoch + 1
        for group in optimizer.param_groups:
            _set_group_lr(group, float(group["initial_lr"]))
        for scheduler in self._schedulers:
            _undo_first_step(scheduler)
        first = self._schedulers[bisect.bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self) -> None:  # type: ignore[override]
        self.last_epoch += 1
        i = bisect.bisect_right(self._milestones, self.last_epoch)
        current = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            current._jump_to(0)  # its own step 0, from the base lrs
        else:
            current.step()
        self._last_lr = current.get_last_lr()

    def state_dict(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [scheduler.state_dict() for scheduler in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        for scheduler, sub_state in zip(self._schedulers, state.pop("_schedulers")):
            scheduler.load_state_dict(sub_state)
        self.__dict__.update(state)


class ChainedScheduler(LRScheduler):
    """Steps several schedulers of one optimizer together, each after the other, so that
    their changes compose: ``ChainedScheduler([ExponentialLR(opt, 0.9), StepLR(opt, 30)])``.
    (Calling their ``step()`` one after the other in the loop does the same.)"""

    def __init__(self, schedulers: list[LRScheduler], optimizer: Optimizer | None = None) -> None:
        if not schedulers:
            raise ValueError("ChainedScheduler expects at least one scheduler, but got none")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers("ChainedScheduler", schedulers, optimizer)
        self.optimizer = optimizer
        self._schedulers = list(schedulers)
        self._last_lr = self._copied_lrs()

    def step(self) -> None:  # type: ignore[override]
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._copied_lrs()

    # saved with the inner schedulers' states, as SequentialLR is
    state_dict = SequentialLR.state_dict
    load_state_dict = SequentialLR.load_state_dict


def _check_schedulers(name: str, schedulers: list, optimizer: Optimizer) -> None:
    for i, scheduler in enumerate(schedulers):
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{name} does not support ReduceLROnPlateau (at index {i}): its step() needs "
                "the metric"
            )
        if getattr(scheduler, "optimizer", None) is not optimizer:
            raise ValueError(
                f"{name}: every scheduler must drive the same optimizer, but "
                f"{type(scheduler).__name__} at index {i} has another one"
            )


def _undo_first_step(scheduler: LRScheduler) -> None:
    """Take back the step count of the step a scheduler took when it was made."""
    for inner in getattr(scheduler, "_schedulers", []):
        _undo_first_step(inner)
    if not hasattr(scheduler, "_schedulers"):
        scheduler.last_epoch -= 1


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the lr climbs from max_lr / div_factor to max_lr over the first
    ``pct_start`` of ``total_steps``, then anneals to max_lr / div_factor / final_div_factor
    (with ``three_phase``: back down to the start first, then on to the minimum). Momentum
    (SGD's ``momentum``, Adam's beta1) moves the opposite way between max_momentum and
    base_momentum. Each stretch is a half cosine (or a straight line with
    anneal_strategy="linear"); as in PyTorch, call ``step()`` after every batch."""

    def __init__(self, optimizer: Optimizer, max_lr: float | list, total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None,
                 pct_start: float = 0.3, anneal_strategy: str = "cos",
                 cycle_momentum: bool = True, base_momentum: float | list = 0.85,
                 max_momentum: float | list = 0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("OneCycleLR: pass total_steps, or epochs and steps_per_epoch")
            total_steps = epochs * steps_per_epoch
        if total_steps <= 0 or not 0 <= pct_start <= 1:
            raise ValueError(
                f"OneCycleLR: need total_steps > 0 and 0 <= pct_start <= 1, got {total_steps} "
                f"and {pct_start}"
            )
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}"
            )
        self.total_steps = total_steps
        up = pct_start * total_steps - 1  # the step where each stretch ends
        if three_phase:
            self._schedule_phases = [
                _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(2 * pct_start * total_steps - 2, "max_lr", "initial_lr", "base_momentum",
                       "max_momentum"),
                _phase(total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]  # fmt: skip
        else:
            self._schedule_phases = [
                _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        # (set in PyTorch's order: a state dict lists the attributes so)
        self._anneal_func_type, self.cycle_momentum = anneal_strategy, cycle_momentum
        groups = optimizer.param_groups
        self.use_beta1 = "betas" in optimizer.defaults
        if cycle_momentum and not self.use_beta1 and "momentum" not in optimizer.defaults:
            raise ValueError("OneCycleLR: cycle_momentum needs an optimizer with momentum or betas")
        for group, top, low, high in zip(groups, _per_group(max_lr, groups, "max_lr"),
                                         _per_group(base_momentum, groups, "base_momentum"),
                                         _per_group(max_momentum, groups, "max_momentum")):  # fmt: skip
            if last_epoch == -1:
                group["initial_lr"] = top / div_factor
                group["max_lr"], group["min_lr"] = top, top / div_factor / final_div_factor
            if cycle_momentum and last_epoch == -1:  # a resumed group keeps its own
                _set_momentum(group, high, self.use_beta1)
                group["max_momentum"], group["base_momentum"] = high, low
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, fraction: float) -> float:
        if self._anneal_func_type == "linear":
            return start + (end - start) * fraction
        return end + (start - end) / 2 * (math.cos(math.pi * fraction) + 1)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"OneCycleLR: tried to step {step} times; the specified number of total steps "
                f"is {self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == len(self._schedule_phases) - 1:
                    fraction = (step - start) / (end - start)
                    lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]],
                                            fraction))  # fmt: skip
                    if self.cycle_momentum:
                        momentum = self._anneal(group[phase["start_momentum"]],
                                                group[phase["end_momentum"]], fraction)  # fmt: skip
                        _set_momentum(group, momentum, self.use_beta1)
                    break
                start = end
        return lrs


def _phase(end_step: float, start_lr: str, end_lr: str, start_momentum: str,
           end_momentum: str) -> dict:  # fmt: skip
    """One stretch of OneCycleLR: the step where it ends, and the group's lr and momentum it
    goes from and to (by their keys in the group), laid out as PyTorch's state dict has it."""
    return dict(end_step=end_step, start_lr=start_lr, end_lr=end_lr,
                start_momentum=start_momentum, end_momentum=end_momentum)  # fmt: skip


class CyclicLR(LRScheduler):
    """Cyclical learning rates (Smith): the lr goes in a straight line from base_lr up to
    max_lr over ``step_size_up`` steps, back down over ``step_size_down`` (default: the
    same), and again; call ``step()`` after every batch. The height of each cycle is scaled
    by mode: "triangular" (always 1), "triangular2" (halved every cycle) or "exp_range"
    (gamma ** step), or by a custom ``scale_fn`` of the cycle (or of the step, with
    scale_mode="iterations"). With ``cycle_momentum``, SGD's momentum or Adam's beta1 moves
    the opposite way, between max_momentum and base_momentum. It sets the lr outright."""

    def __init__(self, optimizer: Optimizer, base_lr: float | list, max_lr: float | list,
                 step_size_up: int = 2000, step_size_down: int | None = None,
                 mode: str = "triangular", gamma: float = 1.0,
                 scale_fn: Callable[[float], float] | None = None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum: float | list = 0.8,
                 max_momentum: float | list = 0.9, last_epoch: int = -1) -> None:  # fmt: skip
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        groups = optimizer.param_groups
        base_lrs = _per_group(base_lr, groups, "base_lr")
        if last_epoch == -1:
            for group, lr in zip(groups, base_lrs):
                _set_group_lr(group, lr)
        self.max_lrs = _per_group(max_lr, groups, "max_lr")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size, self.step_ratio = up + down, up / (up + down)
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError(
                f"CyclicLR: mode must be 'triangular', 'triangular2' or 'exp_range' (or pass a "
                f"scale_fn), got {mode!r}"
            )
        self.mode, self.gamma, self._scale_fn_custom = mode, gamma, scale_fn
        if scale_fn is None:  # the modes' own: per cycle, or per step for exp_range
            scale_mode = "iterations" if mode == "exp_range" else "cycle"
        self.scale_mode = scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "CyclicLR: optimizer must support momentum or beta1 with `cycle_momentum` "
                    "option enabled; pass cycle_momentum=False"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _per_group(base_momentum, groups, "base_momentum")
            self.max_momentums = _per_group(max_momentum, groups, "max_momentum")
            if last_epoch == -1:
                for group, low, high in zip(groups, self.base_momentums, self.max_momentums):
                    _set_momentum(group, high, self.use_beta1)
                    group["max_momentum"], group["base_momentum"] = high, low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x: float) -> float:
        """How much of the cycle's height is used in cycle (or at step) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        t = self.last_epoch
        cycle = math.floor(1 + t / self.total_size)
        x = 1.0 + t / self.total_size - cycle  # how far into the cycle, 0 to 1
        if x <= self.step_ratio:
            up = x / self.step_ratio  # going up: 0 to 1
        else:
            up = (x - 1) / (self.step_ratio - 1)  # coming down: 1 to 0
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else t)
        lrs = [base + (top - base) * up * scale for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums,
                                        self.max_momentums):  # fmt: skip
                _set_momentum(group, high - (high - low) * up * scale, self.use_beta1)
        return lrs

    def state_dict(self) -> dict:
        """As LRScheduler's, without a custom scale_fn (a function is not saved; a callable
        object's attributes are), as PyTorch does."""
        state = super().state_dict()
        state["_scale_fn_custom"] = _callable_state(state.pop("_scale_fn_custom"))  # (last)
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        fn_attributes = state.pop("_scale_fn_custom", None)
        super().load_state_dict(state)
        if fn_attributes is not None:
            self._scale_fn_custom.__dict__.update(fn_attributes)


def _set_momentum(group: dict, momentum: float, use_beta1: bool) -> None:
    """Set a group's momentum: Adam's beta1, or SGD's (and RMSprop's) ``momentum``."""
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


def _per_group(value: float | list, groups: list, name: str) -> list:
    """One value per parameter group: the list given, or the one value for every group."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(groups):
            raise ValueError(f"expected {len(groups)} values for {name}, got {len(value)}")
        return list(value)
    return [value] * len(groups)


class ReduceLROnPlateau(LRScheduler):
    """Multiply every group's lr by ``factor`` when a metric has stopped improving:

        scheduler = ReduceLROnPlateau(optimizer, mode="min", factor=0.1, patience=10)
        for epoch in range(epochs):
            train(...)
            scheduler.step(val_loss)  # the metric, once per evaluation

    A value improves on the best so far when it is lower (mode "min"; higher for "max") by
    more than ``threshold``: relative to the best (threshold_mode "rel") or absolute ("abs").
    After more than ``patience`` steps without improvement the lr drops, not below
    ``min_lr``, and not at all when the drop would be smaller than ``eps``; then the next
    ``cooldown`` steps do not count as bad ones."""

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: float | list = 0, eps: float = 1e-8) -> None:  # fmt: skip
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be < 1.0, got {factor}")
        if mode not in ("min", "max") or threshold_mode not in ("rel", "abs"):
            raise ValueError(
                f"ReduceLROnPlateau: mode must be 'min' or 'max' and threshold_mode 'rel' or "
                f"'abs', got {mode!r} and {threshold_mode!r}"
            )
        # (the attributes set in PyTorch's order: a state dict lists them so)
        self.factor, self.optimizer = factor, optimizer
        # the one min_lr given (None for a list), for groups added to the optimizer later
        self.default_min_lr = None if isinstance(min_lr, (list, tuple)) else min_lr
        self.min_lrs = _per_group(min_lr, optimizer.param_groups, "min_lr")  # (as given)
        self.patience, self.cooldown, self.eps, self.last_epoch = patience, cooldown, eps, 0
        self._last_lr = self._copied_lrs()
        self.mode_worse = math.inf if mode == "min" else -math.inf  # (the best to start from)
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.best, self.cooldown_counter, self.num_bad_epochs = self.mode_worse, 0, 0

    def _is_better(self, value: float) -> bool:
        """Better than the best so far by more than the threshold, in the mode's direction."""
        direction = 1 if self.mode == "max" else -1
        if self.threshold_mode == "rel":
            bar = self.best * (1 + direction * self.threshold)
        else:
            bar = self.best + direction * self.threshold
        return value > bar if self.mode == "max" else value < bar

    def step(self, metrics: float, epoch: int | None = None) -> None:  # type: ignore[override]
        """Record one value of the metric (a number or a 0-d tensor) and lower the lrs if it
        has not improved for more than ``patience`` steps."""
        value = float(metrics)
        if epoch is not None:
            warn_user(
                "ReduceLROnPlateau.step(metrics, epoch): the epoch argument is deprecated, as "
                "in PyTorch; call step(metrics) once per evaluation"
            )
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        if self._is_better(value):
            self.best, self.num_bad_epochs = value, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:  # just lowered: these steps do not count
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            groups = self.optimizer.param_groups
            if len(groups) != len(self.min_lrs):  # a group was added since
                if self.default_min_lr is None:
                    raise RuntimeError(
                        f"ReduceLROnPlateau: the optimizer has {len(groups)} param groups, "
                        f"but min_lr gave {len(self.min_lrs)} values (a group was added after "
                        "the scheduler was made); set scheduler.min_lrs to one per group"
                    )
                self.min_lrs = [self.default_min_lr] * len(groups)
            for group, floor in zip(groups, self.min_lrs):
                lowered = max(float(group["lr"]) * self.factor, floor)
                if float(group["lr"]) - lowered > self.eps:
                    _set_group_lr(group, lowered)
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = self._copied_lrs()

    def get_lr(self) -> list[float]:
        return list(self._last_lr)


def warmup_cosine_lr(step: int, base_lr: float, warmup_steps: int, total_steps: int,
                     eta_min: float = 0.0) -> float:  # fmt: skip
    """The lr at ``step`` (0-based) of a linear warmup followed by a cosine decay:

    step < warmup_steps:   base_lr * (step + 1) / warmup_steps
    step >= total_steps:   eta_min
    otherwise:             eta_min + (base_lr - eta_min) * (1 + cos(pi * r)) / 2,
                           r = (step - warmup_steps) / (total_steps - warmup_steps)
    """
    if step < warmup_steps:
        return base_lr * (step + 1) / warmup_steps
    if step >= total_steps:
        return eta_min
    ratio = (step - warmup_steps) / (total_steps - warmup_steps)
    return eta_min + (base_lr - eta_min) * (1 + math.cos(math.pi * ratio)) / 2


class WarmupCosineLR(LRScheduler):
    """Linear warmup for ``warmup_steps`` steps, then cosine decay to ``eta_min`` at
    ``total_steps`` (see :func:`warmup_cosine_lr`); the usual schedule for transformers.
    PyTorch spells it SequentialLR(LinearLR, CosineAnnealingLR), which works here too;
    this is the same schedule in one class."""

    def __init__(self, optimizer: Optimizer, warmup_steps: int, total_steps: int,
                 eta_min: float = 0.0, last_epoch: int = -1) -> None:  # fmt: skip
        if warmup_steps < 0 or total_steps <= warmup_steps:
            raise ValueError(
                f"WarmupCosineLR: need 0 <= warmup_steps < total_steps, got warmup_steps="
                f"{warmup_steps}, total_steps={total_steps}"
            )
        self.warmup_steps, self.total_steps, self.eta_min = warmup_steps, total_steps, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        _warn_if_outside_step(self)
        return [
            warmup_cosine_lr(
                self.last_epoch, base, self.warmup_steps, self.total_steps, self.eta_min
            )
            for base in self.base_lrs
        ]


_LRScheduler = LRScheduler  # the older PyTorch name

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
    "WarmupCosineLR",
    "warmup_cosine_lr",
]
