"""Weight averaging, as ``torch.optim.swa_utils``: stochastic weight averaging (SWA: the plain
mean of the weights seen at chosen steps) and exponential moving averages (EMA).

    swa_model = AveragedModel(model)                 # a copy whose weights are the average
    scheduler = SWALR(optimizer, swa_lr=0.05)        # anneal each group's lr to swa_lr
    for epoch in ...:
        train(model); swa_model.update_parameters(model); scheduler.step()
    update_bn(loader, swa_model)                     # BatchNorm statistics for the average

The average after n updates, a_n, of the weights w_1, w_2, ...:

    SWA   a_n = a_{n-1} + (w_n - a_{n-1}) / n       (the mean of w_1 .. w_n)
    EMA   a_n = decay * a_{n-1} + (1 - decay) * w_n (a_1 = w_1)
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any

from .. import dtypes as _dtypes
from .. import factories
from .._tensor import Tensor
from ..autograd import grad_mode
from ..nn.module import Module
from ..nn.normalization import _BatchNorm
from .lr_scheduler import LRScheduler, _per_group, _warn_if_outside_step
from .optimizer import Optimizer

__all__ = [
    "SWALR",
    "AveragedModel",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]


# ------------------------------------------------------------------ averaging rules
def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[[list, list, Any], None]:
    """An EMA update of a list of averages in place: a = decay * a + (1 - decay) * w."""

    def ema_update(ema_param_list: list, current_param_list: list, _: Any) -> None:
        with grad_mode.no_grad():
            for ema, current in zip(ema_param_list, current_param_list, strict=True):
                if ema.is_floating_point():
                    ema.lerp_(current, 1 - decay)  # a + (1 - decay) * (w - a)
                else:
                    ema.copy_(ema * decay + current * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable[[list, list, Any], None]:
    """An SWA update of a list of averages in place: a = a + (w - a) / (n + 1), n the number
    of models averaged so far."""

    def swa_update(averaged_param_list: list, current_param_list: list,
                   num_averaged: Any) -> None:  # fmt: skip
        # a count given as a tensor makes the weight a tensor of the default dtype (float32
        # unless changed), rounded so, as in PyTorch
        weight = _number(1 / (num_averaged + 1))
        with grad_mode.no_grad():
            for averaged, current in zip(averaged_param_list, current_param_list, strict=True):
                if averaged.is_floating_point():
                    averaged.lerp_(current, weight)
                else:
                    averaged.add_((current - averaged) / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable[[Tensor, Tensor, Any], Tensor]:
    """The EMA of one tensor: returns decay * a + (1 - decay) * w."""

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with grad_mode.no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable[[Tensor, Tensor, Any], Tensor]:
    """The SWA of one tensor: returns a + (w - a) / (n + 1), n the models averaged so far."""

    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with grad_mode.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _number(value: Any) -> Any:
    return value.item() if isinstance(value, Tensor) else value


# ------------------------------------------------------------------ the averaged model
class AveragedModel(Module):
    """A copy of ``model`` (``self.module``) whose parameters, after ``update_parameters``,
    are the average of the parameters of the models it was given: SWA by default, or the
    rule of ``avg_fn(average, current, n)`` (one tensor; returns the new average) or
    ``multi_avg_fn(averages, currents, n)`` (lists, in place). With ``use_buffers`` the
    buffers are averaged too; otherwise they are copied from the latest model. The count is
    the buffer ``n_averaged``, so the state_dict has "module.<name>" and "n_averaged"."""

    def __init__(self, model: Module, device: Any = None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False) -> None:  # fmt: skip
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", factories.tensor(0, dtype=_dtypes.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters (and buffers, with ``use_buffers``) into the
        average; the first call copies them."""
        if self.use_buffers:
            averages = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            currents = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            averages, currents = list(self.parameters()), list(model.parameters())
        averages = [a.detach() for a in averages]  # (updated in place: the same memory)
        currents = [c.detach().to(a.device) for a, c in zip(averages, currents)]
        n = self.n_averaged
        with grad_mode.no_grad():
            if n.item() == 0:
                for a, c in zip(averages, currents):
                    a.copy_(c)
            elif self.avg_fn is not None:
                for a, c in zip(averages, currents):
                    a.copy_(self.avg_fn(a, c, n.to(a.device)))
            else:
                for (device, _), (group_averages, group_currents) in _by_device_and_dtype(
                    averages, currents
                ).items():
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(group_averages, group_currents, n.to(device))
                    elif device.type == "cuda":  # PyTorch's foreach (lerp) form there
                        get_swa_multi_avg_fn()(group_averages, group_currents, n.to(device))
                    else:
                        swa = get_swa_avg_fn()
                        for a, c in zip(group_averages, group_currents):
                            a.copy_(swa(a, c, n))
            if not self.use_buffers:  # the buffers follow the latest model
                for b_average, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                    b_average.detach().copy_(b_model.detach().to(b_average.device))
            self.n_averaged += 1


def _by_device_and_dtype(averages: list, currents: list) -> dict:
    """{(device, dtype): (averages, currents)} in order of first appearance."""
    groups: dict = {}
    for a, c in zip(averages, currents):
        pair = groups.setdefault((a.device, a.dtype), ([], []))
        pair[0].append(a)
        pair[1].append(c)
    return groups


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute the running statistics of every BatchNorm in ``model`` as the plain average
    over one pass through ``loader`` (each batch, or its first element, is the input)."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None  # a cumulative average over the batches
    with grad_mode.no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


# ------------------------------------------------------------------ the SWA learning rate
class SWALR(LRScheduler):
    """Anneal each group's lr from where it is to its ``swa_lr`` (one value, or one per group)
    over ``anneal_epochs`` steps, along a cosine ("cos") or a straight line ("linear"), then
    hold it there. At step s, with t = min(1, s / anneal_epochs) and alpha = anneal(t):

        lr_s = alpha * swa_lr + (1 - alpha) * lr_start
    """

    def __init__(self, optimizer: Optimizer, swa_lr: float | list, anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1) -> None:  # fmt: skip
        if isinstance(swa_lr, (list, tuple)) and len(swa_lr) != len(optimizer.param_groups):
            raise ValueError(
                "swa_lr must have the same length as optimizer.param_groups. swa_lr has "
                f"{len(swa_lr)} values, param_groups has {len(optimizer.param_groups)}."
            )
        for value, group in zip(_per_group(swa_lr, optimizer.param_groups, "swa_lr"),
                                optimizer.param_groups):  # fmt: skip
            group["swa_lr"] = value
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self._anneal_strategy = anneal_strategy
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def anneal_func(self, t: float) -> float:
        """How far along (0 to 1) the lr is at the fraction ``t`` of the annealing."""
        if self._anneal_strategy == "cos":
            return (1 - math.cos(math.pi * t)) / 2
        return t

    def get_lr(self) -> list[float]:
        """Each group's lr at this step, found from its current lr: the current lr is undone
        to the starting lr it implies, then this step's point of the annealing taken."""
        _warn_if_outside_step(self)
        step = self._step_count - 1  # (the steps taken, counted apart from last_epoch)
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        lrs = []
        for group in self.optimizer.param_groups:
            swa_lr = group["swa_lr"]
            if prev_alpha == 1:
                start = swa_lr
            else:
                start = (float(group["lr"]) - prev_alpha * swa_lr) / (1 - prev_alpha)
            lrs.append(swa_lr * alpha + start * (1 - alpha))
        return lrs
