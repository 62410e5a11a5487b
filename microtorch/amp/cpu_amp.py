"""``torch.cpu.amp``: the older spellings of torch.amp for "cpu", deprecated in PyTorch 2.4
(each warns FutureWarning, as PyTorch's do, and then does what torch.amp's does)."""

from __future__ import annotations

from ._deprecated import DeprecatedAutocast, DeprecatedGradScaler


class autocast(DeprecatedAutocast):  # noqa: N801 (PyTorch's name)
    """torch.amp.autocast("cpu", ...): PyTorch's default dtype here is bfloat16, which
    microtorch lacks, so pass dtype=torch.float16 (without it autocast warns and is off)."""

    _device_type = "cpu"


class GradScaler(DeprecatedGradScaler):
    """torch.amp.GradScaler("cpu", ...)."""

    _device_type = "cpu"
