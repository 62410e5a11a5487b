"""``torch.autograd.profiler``: the older spelling of ``microtorch.profiler``.

``autograd.profiler.profile(use_cuda=..., record_shapes=...)`` records what
``profiler.profile`` does (see microtorch/profiler.py); ``enabled=False`` records nothing."""

from __future__ import annotations

from typing import Any

from .. import profiler as _profiler
from ..profiler import EventList, FunctionEvent, FunctionEventAvg, record_function

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]


class profile(_profiler.profile):
    """The legacy profiler: ``with autograd.profiler.profile() as prof:``, then
    ``prof.key_averages().table()``."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False,
                 use_device: str | None = None, record_shapes: bool = False,
                 with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False,
                 use_cpu: bool = True, experimental_config: Any = None,
                 acc_events: bool = False, custom_trace_id_callback: Any = None) -> None:  # fmt: skip
        activities = {_profiler.ProfilerActivity.CPU}
        if use_cuda or use_device == "cuda":
            activities.add(_profiler.ProfilerActivity.CUDA)
        super().__init__(activities=activities, record_shapes=record_shapes,
                         profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules)  # fmt: skip
        self.enabled = enabled

    def start(self) -> None:
        if self.enabled:
            super().start()

    @property
    def function_events(self) -> EventList:
        """Every recorded event (PyTorch's attribute of the legacy profiler)."""
        return self.events()

    def table(self, **kwargs: Any) -> str:
        """``self.function_events.table(...)``."""
        return self.events().table(**kwargs)
