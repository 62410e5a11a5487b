"""``torch.range``: deprecated since it includes its end, unlike Python's range and
``arange``. Its own file, since a module-level ``range`` would hide the built-in one from
every other function in factories.py."""

from __future__ import annotations

import math
from typing import Any

import numpy

from . import dtypes as _dtypes
from ._out import factory_target, write_out
from ._tensor import Tensor
from ._warn import warn_user
from .factories import _placed, _plain
from .memory_format import check_layout


def range(start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None,
          device: Any = None, requires_grad: bool = False, out: Any = None,
          layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """Deprecated: start, start + step, ... up to end included (arange stops before end);
    in the default float dtype unless ``dtype`` says otherwise, whatever the arguments."""
    check_layout(layout, pin_memory, "range")
    dtype, device = factory_target(dtype, device, out, "range")
    warn_user(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
        "which produces values in [start, end)."
    )
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    start, end, step = [_plain(v) for v in (start, end, step)]
    if step == 0:
        raise RuntimeError("range: step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(
            f"range: upper bound and lower bound inconsistent with step sign (start {start}, "
            f"end {end}, step {step})"
        )
    count = math.floor((end - start) / step) + 1  # how many steps fit, end included
    target = _dtypes.get_default_dtype() if dtype is None else _dtypes.get_dtype(dtype)
    if not target.is_floating_point and step != int(step):
        raise ValueError(
            f"range: with the integer dtype {target} the step must be a whole number, got "
            f"{step}; use a float dtype"
        )
    kind = numpy.float64 if target.is_floating_point else numpy.int64
    host = start + numpy.arange(count, dtype=kind) * step  # in float64 (or int64), then cast
    return write_out(_placed(host.astype(kind), target, device, requires_grad), out, "range")
