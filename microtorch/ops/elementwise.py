"""Elementwise math: exp expm1 log log1p sqrt rsqrt sin cos erf tanh sigmoid relu gelu abs clamp
maximum minimum where, and the rounding ops (floor ceil round trunc sign).

Each op's backward is the derivative written next to its forward."""

from __future__ import annotations

import math

from .. import backend
from ..autograd.function import Function, unbroadcast
from ..backend import xp_of


class Exp(Function):
    def forward(self, x):
        y = xp_of(x).exp(x)
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        return grad * y  # d/dx e^x = e^x


class Log(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).log(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad / x


class Sqrt(Function):
    def forward(self, x):
        y = xp_of(x).sqrt(x)
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        return grad / (2 * y)  # d/dx sqrt(x) = 1 / (2 sqrt(x))


class Sin(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).sin(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * xp_of(x).cos(x)  # d/dx sin x = cos x


class Cos(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).cos(x)

    def backward(self, grad):
        (x,) = self.saved
        return -grad * xp_of(x).sin(x)  # d/dx cos x = -sin x


class Log1p(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).log1p(x)  # log(1 + x), exact for tiny x

    def backward(self, grad):
        (x,) = self.saved
        return grad / (1 + x)


class Expm1(Function):
    def forward(self, x):
        y = xp_of(x).expm1(x)  # exp(x) - 1, exact for tiny x
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        return grad * (y + 1)  # d/dx (e^x - 1) = e^x


class Erf(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return erf(x)

    def backward(self, grad):
        (x,) = self.saved
        return (
            grad * (2 / math.sqrt(math.pi)) * xp_of(x).exp(-x * x)
        )  # d/dx erf = 2/sqrt(pi) e^-x^2


class Rounding(Function):
    """floor, ceil, round (to ``decimals`` places, half to even), trunc or sign: steps, so
    the gradient is 0 wherever it exists (PyTorch's convention)."""

    def forward(self, x, how="floor", decimals=0):
        xp = xp_of(x)
        if how == "round":
            return xp.round(x, decimals)
        if how == "sign":
            return _sign(x)
        return getattr(xp, how)(x)

    def backward(self, grad):
        return xp_of(grad).zeros_like(grad)


class NormRoot(Function):
    """y = s ** (1/p), the root that ends a p-norm (s = sum of |x|^p) and std (s = the
    variance, p = 2); s >= 0. Where s is 0 (a zero vector, or values all equal) the gradient
    is taken as 0, as in PyTorch: the true d/ds = s^(1/p) / (p s) is inf there, and further
    back it would meet a zero and make 0 * inf = nan."""

    def forward(self, s, p=2.0):
        self.p = p
        y = xp_of(s).sqrt(s) if p == 2 else s ** (1.0 / p)
        self.save_for_backward(s, y)
        return y

    def backward(self, grad):
        s, y = self.saved
        xp = xp_of(y)
        d = grad * y / (self.p * xp.where(s == 0, 1, s))  # the 1 only keeps 1 / 0 away
        return xp.where(s == 0, 0, d)


class Rsqrt(Function):
    def forward(self, x):
        y = 1 / xp_of(x).sqrt(x)
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        return grad * (-0.5 * y * y * y)  # d/dx x^-1/2 = -1/2 x^-3/2


class Tanh(Function):
    def forward(self, x):
        y = xp_of(x).tanh(x)
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        return grad * (1 - y * y)


class Sigmoid(Function):
    def forward(self, x):
        xp = xp_of(x)
        # 1 / (1 + e^-x) written so that no exp overflows for large |x|: with e = exp(-|x|),
        # it is 1 / (1 + e) for x >= 0 and e / (1 + e) for x < 0. The numerator is picked by
        # arithmetic on the sign masks (where() on a random sign mask is branchy and 4x slower).
        e = xp.abs(x, out=xp.empty_like(x))  # out=: an array even for a 0-d x
        xp.negative(e, out=e)
        xp.exp(e, out=e)
        y = (x < 0).astype(x.dtype)
        y *= e  # e where x < 0, 0 elsewhere
        y += x >= 0  # 1 where x >= 0
        e += 1
        y /= e
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        dx = 1 - y
        dx *= y
        dx *= grad
        return dx  # y (1 - y) grad


class Relu(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).maximum(x, 0)

    def backward(self, grad):
        (x,) = self.saved
        # where, not grad * (x > 0): a nan or inf gradient stops where x <= 0, as in PyTorch
        return xp_of(grad).where(x <= 0, grad.dtype.type(0), grad)


def erf(x):
    """The error function (NumPy has none; on a GPU it is CUDA's own erf).

    float64: a Maclaurin series for |x| <= 2 and a continued fraction for erfc beyond,
    accurate to about 1e-14. float32: Abramowitz & Stegun's formula 7.1.26, absolute error
    below 1.5e-7 (about float32's own rounding near 1), and cheap. float16: via float32."""
    xp = xp_of(x)
    if x.dtype == xp.float16:  # computed in float32 and rounded once, as PyTorch does
        return erf(x.astype(xp.float32)).astype(xp.float16)
    if backend.has_cuda_kernels(x):
        return backend.elementwise_kernel(*_ERF_CUDA)(x)
    if x.dtype == xp.float64:
        return _erf_float64(x)
    return _erf_and_gaussian(x)[0]


def _erf_and_gaussian(x):
    """erf(x) and exp(-x^2) of a float32/float16 NumPy array: the formula computes exp(-x^2)
    on the way (GELU reuses it for its derivative)."""
    xp = xp_of(x)
    if x.ndim == 0:  # NumPy's arithmetic on a 0-d array gives scalars, which out= refuses
        erf_x, gaussian = _erf_and_gaussian(x.reshape(1))
        return erf_x.reshape(()), gaussian.reshape(())
    # erfc(z) = poly(t) * exp(-z^2) with t = 1 / (1 + p z), z = |x|; then erf(x) =
    # sign(x) * (1 - erfc(|x|)). Written with in-place array ops: three buffers in all
    # instead of a fresh array per operation (5x faster on a (768, 512) array).
    z = xp.abs(x)
    t = z * _ERFC_P
    t += 1
    xp.divide(1, t, out=t)
    poly = t * _ERFC_POLY[-1]  # Horner's rule, highest coefficient first
    for c in _ERFC_POLY[-2::-1]:
        poly += c
        poly *= t  # poly(t) = a1 t + a2 t^2 + ... + a5 t^5
    z *= z
    xp.negative(z, out=z)
    gaussian = xp.exp(z, out=z)  # exp(-x^2)
    erfc = poly
    erfc *= gaussian
    one_minus = xp.subtract(1, erfc, out=erfc)  # erf(|x|)
    return xp.copysign(one_minus, x, out=one_minus), gaussian  # erf is odd (copysign: no branches)


# Abramowitz & Stegun 7.1.26: p and a1..a5.
_ERFC_P = 0.3275911
_ERFC_POLY = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


_ERF_CUDA = backend.elementwise_source("microtorch_erf", "T x", "T y", "y = erf(x);")


def _erf_float64(x):
    xp = xp_of(x)
    z = xp.abs(x)
    small = z <= 2
    # erf(z) = 2/sqrt(pi) * sum_n (-1)^n z^(2n+1) / (n! (2n+1))
    zs = xp.where(small, z, 0.0)
    term, total = zs.copy(), zs.copy()
    for n in range(1, 50):
        term *= -zs * zs / n
        total += term / (2 * n + 1)
    series = total * (2 / math.sqrt(math.pi))
    # erfc(z) = e^(-z^2)/sqrt(pi) / (z + (1/2)/(z + (2/2)/(z + (3/2)/(z + ...))))
    zl = xp.where(small, 3.0, z)
    fraction = zl.copy()
    for k in range(80, 0, -1):
        fraction = zl + (k / 2) / fraction
    erfc = xp.exp(-zl * zl) / math.sqrt(math.pi) / fraction
    return xp.sign(x) * xp.where(small, series, 1 - erfc)


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_INV_SQRT_2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


class Gelu(Function):
    """GELU(x) = x * Phi(x), Phi the standard normal CDF; ``approximate="tanh"`` uses
    Phi(x) ~ (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2."""

    def forward(self, x, approximate="none"):
        xp = xp_of(x)
        self.approximate = approximate
        self.fused = backend.has_cuda_kernels(x)
        if self.fused:  # one fused CUDA kernel instead of ~8 array passes
            self.save_for_backward(x)
            return _gelu_cuda_kernel("forward", approximate)(x)
        # In-place steps on arrays this op owns: each line is one pass, no extra copies.
        if x.ndim == 0:  # (NumPy's arithmetic on a 0-d array gives scalars: out= refuses)
            return self.forward(x.reshape(1), approximate).reshape(())
        if approximate == "tanh":
            inner = x * x
            inner *= 0.044715
            inner += 1
            inner *= x
            inner *= _SQRT_2_OVER_PI  # inner = sqrt(2/pi) (x + 0.044715 x^3)
            t = xp.tanh(inner, out=inner)
            self.save_for_backward(x, t)
            out = t + 1
            out *= 0.5
            out *= x
            return out  # 0.5 x (1 + t)
        u = x * _INV_SQRT_2
        if x.dtype == xp.float64:
            cdf, gaussian = erf(u), xp.exp(-u * u)
        else:
            cdf, gaussian = _erf_and_gaussian(u)  # erf(x / sqrt(2)), exp(-x^2 / 2)
        cdf += 1
        cdf *= 0.5  # Phi(x) = (1 + erf(x / sqrt(2))) / 2
        out = x * cdf
        if not self.needs_input_grad[0]:  # no backward will run (e.g. under no_grad)
            return out
        # The derivative d/dx x Phi(x) = Phi(x) + x phi(x), phi(x) = exp(-x^2 / 2) / sqrt(2 pi),
        # shares exp(-x^2 / 2) with erf: computed here, it makes backward one multiply (and
        # only one array is kept for it).
        deriv = gaussian
        deriv *= _INV_SQRT_2PI  # phi(x)
        deriv *= x
        deriv += cdf
        self.save_for_backward(deriv)
        return out

    def backward(self, grad):
        if self.fused:
            (x,) = self.saved
            return _gelu_cuda_kernel("backward", self.approximate)(x, grad)
        if self.approximate != "tanh":
            (deriv,) = self.saved  # Phi(x) + x phi(x), from forward
            return (grad * deriv).reshape(grad.shape)  # (reshape: for a 0-d x, saved as (1,))
        x, s = self.saved  # s = tanh(inner)
        xp = xp_of(x)
        # d/dx = 0.5 (1 + s) + 0.5 x (1 - s^2) d_inner, d_inner = sqrt(2/pi) (1 + 3 * 0.044715 x^2)
        d_inner = x * x
        d_inner *= 3 * 0.044715
        d_inner += 1
        d_inner *= _SQRT_2_OVER_PI
        dx = s * s
        xp.subtract(1, dx, out=dx)
        dx *= x
        dx *= d_inner  # x (1 - s^2) d_inner
        dx += s
        dx += 1
        dx *= 0.5
        dx *= grad
        return dx.reshape(grad.shape)


# The same formulas as Gelu above, as CUDA C++ (T = float or double), one kernel each.
_GELU_CUDA_BODIES = {
    ("forward", "none"): "y = x * (T)0.5 * ((T)1 + erf(x * (T)0.7071067811865476));",
    ("backward", "none"): """
        T cdf = (T)0.5 * ((T)1 + erf(x * (T)0.7071067811865476));
        T pdf = (T)0.3989422804014327 * exp((T)-0.5 * x * x);
        dx = g * (cdf + x * pdf);""",
    ("forward", "tanh"): """
        T t = tanh((T)0.7978845608028654 * (x + (T)0.044715 * x * x * x));
        y = (T)0.5 * x * ((T)1 + t);""",
    ("backward", "tanh"): """
        T t = tanh((T)0.7978845608028654 * (x + (T)0.044715 * x * x * x));
        T d_inner = (T)0.7978845608028654 * ((T)1 + (T)3 * (T)0.044715 * x * x);
        dx = g * ((T)0.5 * ((T)1 + t) + (T)0.5 * x * ((T)1 - t * t) * d_inner);""",
}
_GELU_CUDA = {
    (direction, approximate): backend.elementwise_source(
        f"microtorch_gelu_{direction}_{approximate}",
        "T x" if direction == "forward" else "T x, T g",
        "T y" if direction == "forward" else "T dx",
        body,
    )
    for (direction, approximate), body in _GELU_CUDA_BODIES.items()
}


def _gelu_cuda_kernel(direction, approximate):
    return backend.elementwise_kernel(*_GELU_CUDA[direction, approximate])


class Abs(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).abs(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * _sign(x)


def _sign(x):
    """-1, 0 or 1, and 0 for nan as in PyTorch (NumPy's sign(nan) is nan)."""
    xp = xp_of(x)
    signs = xp.sign(x)
    return xp.where(xp.isnan(x), 0, signs) if x.dtype.kind == "f" else signs


class Clamp(Function):
    """Gradient flows where min <= x <= max (PyTorch's convention at the edges)."""

    def forward(self, x, min=None, max=None):
        self.save_for_backward(x)
        self.bounds = min, max
        return xp_of(x).clip(x, min, max)

    def backward(self, grad):
        (x,) = self.saved
        low, high = self.bounds
        inside = True
        if low is not None:
            inside = x >= low
        if high is not None:
            inside = inside & (x <= high)
        return grad * inside


class Maximum(Function):
    """The gradient goes to the larger operand; ties split it half and half, as PyTorch
    does (and, as there, a nan on either side sends it to both)."""

    def forward(self, a, b):
        self.save_for_backward(a, b)
        return xp_of(a).maximum(a, b)

    def backward(self, grad):
        a, b = self.saved
        return _split_by_winner(grad, a, b, a < b, a > b, self.needs_input_grad)


class Minimum(Function):
    def forward(self, a, b):
        self.save_for_backward(a, b)
        return xp_of(a).minimum(a, b)

    def backward(self, grad):
        a, b = self.saved
        return _split_by_winner(grad, a, b, a > b, a < b, self.needs_input_grad)


def _split_by_winner(grad, a, b, a_loses, b_loses, needs):
    xp = xp_of(grad)
    half = grad * 0.5
    tie = a == b
    ga = gb = None
    if needs[0]:
        ga = unbroadcast(xp.where(tie, half, grad * ~a_loses), a.shape)
    if needs[1]:
        gb = unbroadcast(xp.where(tie, half, grad * ~b_loses), b.shape)
    return ga, gb


class Where(Function):
    """where(cond, a, b): the gradient goes to a where cond holds, to b elsewhere."""

    def forward(self, cond, a, b):
        self.cond = cond
        self.shapes = getattr(a, "shape", ()), getattr(b, "shape", ())
        return xp_of(cond).where(cond, a, b)

    def backward(self, grad):
        zero = grad.dtype.type(0)
        ga = gb = None
        if self.needs_input_grad[1]:
            ga = unbroadcast(xp_of(grad).where(self.cond, grad, zero), self.shapes[0])
        if self.needs_input_grad[2]:
            gb = unbroadcast(xp_of(grad).where(self.cond, zero, grad), self.shapes[1])
        return None, ga, gb


class Cast(Function):
    """Change dtype; the gradient is cast back to the input's dtype."""

    def forward(self, x, dtype=None):
        self.input_dtype = x.dtype
        return x.astype(dtype)

    def backward(self, grad):
        return grad.astype(self.input_dtype)
