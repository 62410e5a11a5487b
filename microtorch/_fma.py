"""A fused multiply-add, a * b + c rounded once instead of twice, for places where PyTorch's
compiled kernels compute one (linspace's values, grid_sample's pixel positions) and the
last bit decides something (which pixel a position on a pixel's edge reads from).

It works on anything with + - * in float64: NumPy or CuPy arrays, tensors, Python floats.
The product and the sum are each kept as their rounded value plus its exact rounding
error (Dekker's product, Knuth's sum); the errors are added back before the last rounding.
"""

from __future__ import annotations

from typing import Any


def fused_multiply_add(a: Any, b: Any, c: Any) -> Any:
    """a * b + c in float64 with one rounding (as a fused multiply-add instruction)."""
    product = a * b
    a_high, a_low = _split_halves(a)
    b_high, b_low = _split_halves(b)
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    c_part = total - product
    sum_error = (product - (total - c_part)) + (c - c_part)
    return total + (product_error + sum_error)


def _split_halves(x: Any) -> tuple[Any, Any]:
    """x = high + low exactly, each with at most 26 significant bits, so that the product
    of two halves is exact in float64."""
    scaled = x * 134217729.0  # 2 ** 27 + 1
    high = scaled - (scaled - x)
    return high, x - high
