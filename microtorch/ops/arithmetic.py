"""+ - * / ** and negation, with NumPy broadcasting.

Each input may be a tensor or a Python number (a constant that needs no gradient).
Backward sums the gradient over broadcast dims (``unbroadcast``) so that every
gradient has its input's shape.
"""

from __future__ import annotations

from typing import Any

from ..autograd.function import Function, unbroadcast
from ..backend import xp_of


def _shape(x: Any) -> tuple:
    return getattr(x, "shape", ())


class Add(Function):
    def forward(self, a, b):
        self.shapes = _shape(a), _shape(b)
        return a + b

    def backward(self, grad):
        a_shape, b_shape = self.shapes
        ga = unbroadcast(grad, a_shape) if self.needs_input_grad[0] else None
        gb = unbroadcast(grad, b_shape) if self.needs_input_grad[1] else None
        return ga, gb


class Sub(Function):
    def forward(self, a, b):
        self.shapes = _shape(a), _shape(b)
        return a - b

    def backward(self, grad):
        a_shape, b_shape = self.shapes
        ga = unbroadcast(grad, a_shape) if self.needs_input_grad[0] else None
        gb = unbroadcast(-grad, b_shape) if self.needs_input_grad[1] else None
        return ga, gb


class Mul(Function):
    # d(ab)/da = b and d(ab)/db = a: forward keeps each input only if the other one's
    # gradient needs it, as PyTorch does (so after h * mask, changing h in place is fine);
    # b is saved first, as PyTorch's node does (what saved_tensors_hooks see, in order)
    def forward(self, a, b):
        self.shapes = _shape(a), _shape(b)
        need_a, need_b = self.needs_input_grad
        self.save_for_backward(b if need_a else None, a if need_b else None)
        return a * b

    def backward(self, grad):
        b, a = self.saved
        ga = unbroadcast(grad * b, self.shapes[0]) if self.needs_input_grad[0] else None
        gb = unbroadcast(grad * a, self.shapes[1]) if self.needs_input_grad[1] else None
        return ga, gb


class Div(Function):
    def forward(self, a, b):
        # d(a/b)/da = 1/b needs only b; a is kept only for b's gradient (as in PyTorch)
        self.shapes = _shape(a), _shape(b)
        self.save_for_backward(b, a if self.needs_input_grad[1] else None)  # (PyTorch's order)
        return a / b

    def backward(self, grad):
        b, a = self.saved
        a_shape, b_shape = self.shapes
        ga = unbroadcast(grad / b, a_shape) if self.needs_input_grad[0] else None
        # -grad * a / b^2, as -grad * ((a / b) / b): b * b would overflow (or underflow) first;
        # PyTorch's order, which float16 rounds at each step (a third of the gradients moved)
        gb = unbroadcast(-grad * ((a / b) / b), b_shape) if self.needs_input_grad[1] else None
        return ga, gb


class Pow(Function):
    """a ** b. With a constant exponent, d/da = b * a**(b-1); d/db = a**b * log(a)."""

    def forward(self, a, b):
        if hasattr(b, "strides") and (b.size == 1 or 0 in b.strides):
            # NumPy reads an exponent array of one repeated value as a number, with shortcuts
            # (0.5: sqrt, giving nan for -inf ** 0.5); PyTorch's tensor exponent is pow
            # everywhere (inf): the repeats are written out, into at least one dim
            xp = xp_of(b)
            shape = xp.broadcast_shapes(_shape(a), b.shape)
            exponent = xp.array(xp.broadcast_to(b, shape or (1,)))  # (a fresh copy)
            base = a.reshape(1) if hasattr(a, "shape") and not shape else a
            out = (base**exponent).reshape(shape)
        else:
            out = a**b
        self.save_for_backward(a, b, out)
        self.number_base, self.number_exponent = not hasattr(a, "shape"), not hasattr(b, "shape")
        return out

    def backward(self, grad):
        a, b, out = self.saved
        xp = xp_of(grad)
        ga = gb = None
        if self.needs_input_grad[0]:
            # where b == 0, a ** b is the constant 1 (PyTorch's rule: even at a == 0); those
            # places use exponent 1 so that 0 ** -1 is never computed
            if hasattr(b, "shape"):
                local = xp.where(b == 0, 0, b * a ** xp.where(b == 0, 1, b - 1))
            else:
                local = b * a ** (b - 1) if b != 0 else xp.zeros_like(a)
            ga = unbroadcast(grad * local, _shape(a))
        if self.needs_input_grad[1]:
            # at a == 0 with b >= 0, 0 ** b does not change with b (PyTorch's rule)
            a_arr = a if hasattr(a, "shape") else b.dtype.type(a)
            flat = (a_arr == 0) & (b >= 0)
            local = xp.where(flat, 0, out * xp.log(xp.where(flat, 1, a_arr)))
            gb = unbroadcast(grad * local, _shape(b))
        return ga, gb

    def name(self) -> str:  # PyTorch's three: tensor ** number, tensor ** tensor, number ** tensor
        return "PowBackward2" if self.number_base else f"PowBackward{int(not self.number_exponent)}"


class Remainder(Function):
    """a % b, with the sign of b (Python's and PyTorch's rule): a - floor(a / b) * b; a zero
    keeps a's sign, as PyTorch's does (NumPy's takes b's). d/da = 1; d/db = -floor(a / b)."""

    def forward(self, a, b):
        self.save_for_backward(a, b)
        self.number_divisor = not hasattr(b, "shape")
        r = a % b
        if r.dtype.kind != "f":
            return r
        xp = xp_of(r)
        return xp.where(r == 0, xp.copysign(r, a), r)

    def backward(self, grad):
        a, b = self.saved
        ga = unbroadcast(grad, _shape(a)) if self.needs_input_grad[0] else None
        gb = None
        if self.needs_input_grad[1]:
            gb = unbroadcast(-grad * xp_of(grad).floor_divide(a, b), _shape(b))
        return ga, gb

    def name(self) -> str:  # (PyTorch's node for a number divisor is its Backward0)
        return "RemainderBackward0" if self.number_divisor else "RemainderBackward1"


class RoundedDiv(Function):
    """a / b rounded down ("floor", as //) or towards zero ("trunc"): steps, so the gradient
    is 0 for both inputs (PyTorch's convention). Integers divide exactly, with no float on
    the way."""

    def forward(self, a, b, rounding_mode="floor"):
        self.shapes = (_shape(a), _shape(b))
        array = a if hasattr(a, "dtype") else b  # (the other may be a Python number)
        xp = xp_of(array)
        if rounding_mode == "floor":
            return a // b
        if array.dtype.kind == "f":  # (div brought both operands to one dtype first)
            return xp.trunc(a / b)
        # a Python number as an array of the tensor's dtype, so that sign() keeps that dtype
        a, b = xp.asarray(a, dtype=array.dtype), xp.asarray(b, dtype=array.dtype)
        return xp.sign(a) * xp.sign(b) * (xp.abs(a) // xp.abs(b))  # |a| // |b|, signed

    def backward(self, grad):
        xp = xp_of(grad)
        return tuple(
            xp.zeros(shape, dtype=grad.dtype) if need else None
            for shape, need in zip(self.shapes, self.needs_input_grad)
        )


class Neg(Function):
    def forward(self, x):
        return -x

    def backward(self, grad):
        return -grad
