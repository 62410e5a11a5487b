"""Window functions for signal processing (torch.hann_window, hamming_window,
blackman_window, bartlett_window, kaiser_window): window_length samples of a taper that is 0
(or small) at the ends and 1 in the middle. ``periodic=True`` (the default, as in PyTorch)
gives the first window_length samples of the symmetric window one longer, the form spectral
analysis wants; ``periodic=False`` the symmetric window itself. microtorch/__init__.py
exports them."""

from __future__ import annotations

import operator
from typing import Any

import numpy

from . import dtypes as _dtypes
from ._tensor import Tensor
from .factories import tensor
from .memory_format import check_layout


def _positions(window_length: int, periodic: bool, op: str) -> tuple:
    """(n, m): the sample numbers 0..window_length-1 as float64, and m, the last position of
    the symmetric window they come from (window_length, or window_length - 1 when not
    periodic). Also checks window_length."""
    if isinstance(window_length, bool) or not isinstance(window_length, (int, Tensor)):
        raise TypeError(f"{op}: window_length must be an int, got {window_length!r}")
    window_length = operator.index(window_length)  # (a 0-d integer tensor too, as in PyTorch)
    if window_length < 0:
        raise RuntimeError(
            f"{op} requires non-negative window_length, got window_length={window_length}"
        )
    m = window_length if periodic else window_length - 1
    return numpy.arange(window_length, dtype=numpy.float64), m


def _window(values: Any, dtype: Any, device: Any, requires_grad: bool, op: str,
            layout: Any = None, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """The window as a tensor of a floating dtype (the default one unless given)."""
    check_layout(layout, pin_memory, op)
    target = _dtypes.get_default_dtype() if dtype is None else _dtypes.get_dtype(dtype)
    if not target.is_floating_point:
        raise RuntimeError(f"{op} expects floating point dtypes, got: {target}")
    return tensor(values, dtype=target, device=device, requires_grad=requires_grad)


def _cosine_sum(window_length: int, periodic: bool, coefficients: tuple, op: str) -> Any:
    """sum_k (-1)^k a_k cos(2 pi k n / m): Hann, Hamming and Blackman are such sums. A window
    of one sample is [1]."""
    n, m = _positions(window_length, periodic, op)
    if window_length == 1:
        return numpy.ones(1)
    return sum(
        (-1) ** k * a * numpy.cos(2 * numpy.pi * k * n / m) for k, a in enumerate(coefficients)
    )


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                layout: Any = None, device: Any = None, pin_memory: bool = False,
                requires_grad: bool = False) -> Tensor:  # fmt: skip
    """0.5 - 0.5 cos(2 pi n / m): a raised cosine, 0 at both ends of the symmetric window."""
    values = _cosine_sum(window_length, periodic, (0.5, 0.5), "hann_window")
    return _window(values, dtype, device, requires_grad, "hann_window", layout, pin_memory)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: Any = None, layout: Any = None,
                   device: Any = None, pin_memory: bool = False,
                   requires_grad: bool = False) -> Tensor:  # fmt: skip
    """alpha - beta cos(2 pi n / m): a raised cosine that stops short of 0 at the ends."""
    values = _cosine_sum(window_length, periodic, (alpha, beta), "hamming_window")
    return _window(values, dtype, device, requires_grad, "hamming_window", layout, pin_memory)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    layout: Any = None, device: Any = None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:  # fmt: skip
    """0.42 - 0.5 cos(2 pi n / m) + 0.08 cos(4 pi n / m)."""
    values = _cosine_sum(window_length, periodic, (0.42, 0.5, 0.08), "blackman_window")
    return _window(values, dtype, device, requires_grad, "blackman_window", layout, pin_memory)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    layout: Any = None, device: Any = None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:  # fmt: skip
    """1 - |2 n / m - 1|: a triangle, 0 at both ends of the symmetric window."""
    n, m = _positions(window_length, periodic, "bartlett_window")
    values = numpy.ones(1) if window_length == 1 else 1 - numpy.abs(2 * n / m - 1)
    return _window(values, dtype, device, requires_grad, "bartlett_window", layout, pin_memory)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: Any = None, layout: Any = None, device: Any = None,
                  pin_memory: bool = False, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """I0(beta sqrt(1 - (2 n / m - 1)^2)) / I0(beta), I0 the modified Bessel function of
    order 0: larger beta, narrower window."""
    n, m = _positions(window_length, periodic, "kaiser_window")
    if window_length == 1:
        values = numpy.ones(1)
    else:
        values = numpy.i0(beta * numpy.sqrt(1 - (2 * n / m - 1) ** 2)) / numpy.i0(beta)
    return _window(values, dtype, device, requires_grad, "kaiser_window", layout, pin_memory)
