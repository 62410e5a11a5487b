"""Elementwise math: exp log log1p sqrt rsqrt sin cos erf tanh sigmoid relu gelu abs clamp maximum
minimum where, and the rounding ops (floor ceil round trunc sign); tan sinh cosh asin acos atan
asinh acosh atanh atan2, log2 log10 exp2 expm1 logaddexp logaddexp2 xlogy xlog1py logit, erfc
erfinv erfcx log_ndtr ndtri entr, hypot fmod copysign heaviside sinc nan_to_num fmax fmin, frexp
nextafter, lgamma digamma polygamma igamma igammac, the modified Bessel functions i0 i0e i1 i1e.

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


class Tan(Function):
    def forward(self, x):
        y = xp_of(x).tan(x)
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        return grad * (1 + y * y)  # d/dx tan x = 1 + tan^2 x


class Sinh(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).sinh(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * xp_of(x).cosh(x)  # d/dx sinh x = cosh x


class Cosh(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).cosh(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * xp_of(x).sinh(x)  # d/dx cosh x = sinh x


class Asin(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).arcsin(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * _rsqrt(1 - x * x)  # d/dx asin x = 1 / sqrt(1 - x^2)


class Acos(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).arccos(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * -_rsqrt(1 - x * x)  # d/dx acos x = -1 / sqrt(1 - x^2)


class Atan(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).arctan(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad / (1 + x * x)  # d/dx atan x = 1 / (1 + x^2)


class Asinh(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).arcsinh(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * _rsqrt(x * x + 1)  # d/dx asinh x = 1 / sqrt(x^2 + 1)


class Acosh(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).arccosh(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * _rsqrt(x * x - 1)  # d/dx acosh x = 1 / sqrt(x^2 - 1)


class Atanh(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).arctanh(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad / (1 - x * x)  # d/dx atanh x = 1 / (1 - x^2)


class Atan2(Function):
    """atan2(a, b): the angle of the point (b, a), in (-pi, pi]. d/da = b / (a^2 + b^2),
    d/db = -a / (a^2 + b^2); where a^2 + b^2 is 0 (or underflows to 0) both are taken as 0,
    as in PyTorch."""

    def forward(self, a, b):
        self.save_for_backward(a, b)
        return xp_of(a).arctan2(a, b)

    def backward(self, grad):
        a, b = self.saved
        xp = xp_of(a)
        squared = a * a + b * b
        inverse = 1 / xp.where(squared == 0, 1, squared)  # (the 1 only keeps 1 / 0 away)
        inverse = xp.where((squared == 0) | xp.isinf(inverse), 0, inverse)
        ga = unbroadcast(grad * b * inverse, a.shape) if self.needs_input_grad[0] else None
        gb = unbroadcast(grad * -a * inverse, b.shape) if self.needs_input_grad[1] else None
        return ga, gb


class Log1p(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).log1p(x)  # log(1 + x), exact for tiny x

    def backward(self, grad):
        (x,) = self.saved
        return grad / (1 + x)

    def name(self) -> str:
        return "Log1PBackward0"  # (PyTorch capitalises after the digit)


class Log2(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).log2(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad / _in_float32(lambda x: x * math.log(2), x)  # d/dx log2 x = 1 / (x ln 2)


class Log10(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).log10(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad / _in_float32(lambda x: x * math.log(10), x)  # d/dx log10 x = 1 / (x ln 10)


class Exp2(Function):
    def forward(self, x):
        y = xp_of(x).exp2(x)
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        return _in_float32(lambda gy: gy * math.log(2), grad * y)  # d/dx 2^x = 2^x ln 2


class Expm1(Function):
    def forward(self, x):
        y = xp_of(x).expm1(x)  # e^x - 1, exact for tiny x
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        return grad * (y + 1)  # d/dx (e^x - 1) = e^x


class LogAddExp(Function):
    """log(e^a + e^b), with no overflow. d/da = e^a / (e^a + e^b) = 1 / (1 + e^(b - a)), and
    likewise for b (PyTorch's formula: nan where a and b are the same inf)."""

    def forward(self, a, b):
        self.save_for_backward(a, b)
        return xp_of(a).logaddexp(a, b)

    def backward(self, grad):
        a, b = self.saved
        power = xp_of(a).exp
        ga = unbroadcast(grad * _share(a, b, power), a.shape) if self.needs_input_grad[0] else None
        gb = unbroadcast(grad * _share(b, a, power), b.shape) if self.needs_input_grad[1] else None
        return ga, gb

    def name(self) -> str:
        return "LogaddexpBackward0"


class LogAddExp2(Function):
    """log2(2^a + 2^b). d/da = 2^a / (2^a + 2^b) = 1 / (1 + 2^(b - a)), likewise for b."""

    def forward(self, a, b):
        self.save_for_backward(a, b)
        return xp_of(a).logaddexp2(a, b)

    def backward(self, grad):
        a, b = self.saved
        power = xp_of(a).exp2
        ga = unbroadcast(grad * _share(a, b, power), a.shape) if self.needs_input_grad[0] else None
        gb = unbroadcast(grad * _share(b, a, power), b.shape) if self.needs_input_grad[1] else None
        return ga, gb

    def name(self) -> str:
        return "Logaddexp2Backward0"


def _share(a, b, power):
    """a's share of power(a) + power(b), 1 / (1 + power(b - a)), computed from
    e = power(-|a - b|) <= 1 so that nothing overflows: 1 / (1 + e) where a >= b, else
    e / (1 + e)."""
    xp = xp_of(a)
    d = a - b
    e = power(-xp.abs(d))
    return xp.where(d >= 0, 1 / (1 + e), e / (1 + e))


def _xlogy(x, y, log_of_y=None):
    """x * log(y) (or x * log_of_y, the log already taken), and 0 where x == 0 (unless y is
    nan), as in PyTorch."""
    xp = xp_of(y)
    with_log = x * (xp.log(y) if log_of_y is None else log_of_y)
    return xp.where((x == 0) & ~xp.isnan(y), 0, with_log)


class Xlogy(Function):
    """x * log(y), 0 where x == 0 (the limit of x log x at 0). (A Python number comes as a
    0-d array of the other's dtype: functional.xlogy.) d/dx = log(y), taken as 0 where x == 0 and y <= 0 (PyTorch's convention, where log(y)
    is -inf or nan); d/dy = x / y."""

    def forward(self, x, y):
        self.save_for_backward(x, y)
        return _xlogy(x, y)

    def backward(self, grad):
        x, y = self.saved
        xp = xp_of(grad)
        gx = gy = None
        if self.needs_input_grad[0]:
            gx = xp.where((x == 0) & (y <= 0), 0, _xlogy(grad, y))
            gx = unbroadcast(gx, x.shape)
        if self.needs_input_grad[1]:
            gy = unbroadcast(grad * x / y, y.shape)
        return gx, gy


class Xlog1py(Function):
    """x * log1p(y), 0 where x == 0 (unless y is nan): xlogy(x, 1 + y), with log1p's
    accuracy for a small y. d/dx = log1p(y), taken as 0 where x == 0 and y <= -1 (as for
    xlogy); d/dy = x / (1 + y)."""

    def forward(self, x, y):
        self.save_for_backward(x, y)
        return _xlogy(x, y, xp_of(y).log1p(y))

    def backward(self, grad):
        x, y = self.saved
        xp = xp_of(grad)
        gx = gy = None
        if self.needs_input_grad[0]:
            gx = xp.where((x == 0) & (y <= -1), 0, _xlogy(grad, y, xp.log1p(y)))
            gx = unbroadcast(gx, x.shape)
        if self.needs_input_grad[1]:
            gy = unbroadcast(grad * x / (1 + y), y.shape)
        return gx, gy

    def name(self) -> str:
        return "SpecialXlog1PyBackward0"


class FrexpMantissa(Function):
    """The mantissa m of x = m * 2**e, 0.5 <= |m| < 1 (for 0, inf and nan: x itself, e = 0);
    functional.frexp gives e beside it, with no gradient. dm/dx = 2**-e, an exact power of
    two (as PyTorch's)."""

    def forward(self, x):
        mantissa, exponent = xp_of(x).frexp(x)
        self.save_for_backward(exponent)
        return mantissa

    def backward(self, grad):
        (exponent,) = self.saved
        return xp_of(grad).ldexp(grad, -exponent)

    def name(self) -> str:
        return "FrexpBackward0"


class Nextafter(Function):
    """The next float after x towards y (x itself where they are equal). PyTorch's gradients:
    1 for x except where x == y, where it is 0 (there the result is y); 0 for y."""

    def forward(self, x, y):
        self.save_for_backward(x, y)
        return xp_of(x).nextafter(x, y)

    def backward(self, grad):
        x, y = self.saved
        xp = xp_of(grad)
        gx = gy = None
        if self.needs_input_grad[0]:
            gx = unbroadcast(xp.where(x == y, grad.dtype.type(0), grad), x.shape)
        if self.needs_input_grad[1]:
            gy = xp.zeros(y.shape, dtype=y.dtype)
        return gx, gy


class Logit(Function):
    """log(x / (1 - x)), the inverse of sigmoid; with ``eps``, x is first clamped to
    [eps, 1 - eps]. d/dx = 1 / (x (1 - x)); PyTorch's conventions elsewhere: 0 where the
    clamp moved x (and at nan), nan outside [0, 1] when there is no eps, and grad * inf at
    0 and 1."""

    def forward(self, x, eps=None):
        xp = xp_of(x)
        self.eps = eps
        self.save_for_backward(x)
        if eps is not None:  # (in this order, as PyTorch: with eps > 0.5 the bounds cross)
            x = xp.where(
                x < eps, x.dtype.type(eps), xp.where(x > 1 - eps, x.dtype.type(1 - eps), x)
            )
        return xp.log(x / (1 - x))

    def backward(self, grad):
        (x,) = self.saved
        xp = xp_of(x)
        edge = (x == 0) | (x == 1)  # grad * inf there, whatever the sign of a zero x
        d = grad / xp.where(edge, 1, x * (1 - x))
        d = xp.where(edge, grad * d.dtype.type("inf"), d)
        if self.eps is not None:  # (nan is not inside, so its gradient is 0 too)
            inside = (x >= self.eps) & (x <= 1 - self.eps)
            return xp.where(inside, d, d.dtype.type(0))
        return xp.where((x < 0) | (x > 1), d.dtype.type("nan"), d)


class Erf(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return erf(x)

    def backward(self, grad):
        (x,) = self.saved
        # d/dx erf = 2/sqrt(pi) e^-x^2
        return _in_float32(lambda e: e * (2 / math.sqrt(math.pi)), xp_of(x).exp(-x * x)) * grad


class Erfc(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return erfc(x)

    def backward(self, grad):
        (x,) = self.saved
        # d/dx erfc = -d/dx erf
        return _in_float32(lambda e: e * (-2 / math.sqrt(math.pi)), xp_of(x).exp(-x * x)) * grad


class Erfinv(Function):
    def forward(self, x):
        y = erfinv(x)
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        # the inverse function's derivative, 1 / erf'(y) = sqrt(pi)/2 e^(y^2)
        return _in_float32(lambda e: e * (math.sqrt(math.pi) / 2), xp_of(y).exp(y * y)) * grad


def _shift_up(z, steps=10):
    """(z + k, [1/z, 1/(z+1), ...]) with z moved up by one until it reaches ``steps``: the
    series below (in 1/z) are accurate to about 1e-14 from 10 on."""
    xp = xp_of(z)
    terms = []
    for _ in range(steps):
        small = z < steps
        terms.append(xp.where(small, 1 / z, 0.0))
        z = xp.where(small, z + 1, z)
    return z, terms


def lgamma(x):
    """log|Gamma(x)| in float64 (NumPy has none): Stirling's series at z >= 10, reached by
    lgamma(z) = lgamma(z + 1) - log z; for x < 1/2, the reflection formula
    lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x). +inf at 0 and the negative integers."""
    xp = xp_of(x)
    if x.dtype != xp.float64:
        return lgamma(x.astype(xp.float64)).astype(x.dtype)
    reflect = x < 0.5
    z, inverses = _shift_up(xp.where(reflect, 1 - x, x))
    inv, inv2 = 1 / z, 1 / (z * z)
    series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680 - inv2 / 1188))))
    stirling = (z - 0.5) * xp.log(z) - z + 0.5 * math.log(2 * math.pi) + series
    result = stirling + sum(xp.log(xp.where(t > 0, t, 1.0)) for t in inverses)
    # log(pi / |sin(pi x)|), where |x| < 1e-8 as -log|x| (sin(pi x) = pi x there, and
    # pi / sin(pi x) would overflow for a subnormal x)
    tiny = xp.abs(x) < 1e-8
    log_ratio = xp.where(
        tiny,
        -xp.log(xp.abs(xp.where(tiny, x, 1.0))),
        xp.log(math.pi / xp.abs(xp.sin(math.pi * xp.where(tiny, 1.0, x)))),
    )
    reflected = log_ratio - result
    pole = ((x <= 0) & (xp.floor(x) == x)) | (x == math.inf)  # where sin(pi x) only nearly 0
    result = xp.where((x == 1) | (x == 2), 0.0, xp.where(reflect, reflected, result))  # exact
    return xp.where(pole, math.inf, result)


def digamma(x):
    """psi(x) = d/dx log Gamma(x) in float64: the asymptotic series at z >= 10, reached by
    psi(z) = psi(z + 1) - 1/z; for x < 1/2, psi(x) = psi(1 - x) - pi / tan(pi x)."""
    xp = xp_of(x)
    if x.dtype != xp.float64:
        return digamma(x.astype(xp.float64)).astype(x.dtype)
    reflect = x < 0.5
    z, inverses = _shift_up(xp.where(reflect, 1 - x, x))
    inv2 = 1 / (z * z)
    tail = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    result = xp.log(z) - 0.5 / z - tail - sum(inverses)
    reflected = result - math.pi / xp.tan(math.pi * x)
    result = xp.where(reflect, reflected, result)
    result = xp.where((x < 0) & (xp.floor(x) == x), math.nan, result)  # poles, as PyTorch
    return xp.where(x == 0, xp.where(xp.signbit(x), math.inf, -math.inf), result)  # psi(-+0)


def trigamma(x):
    """psi'(x) in float64: the asymptotic series at z >= 10, reached by
    psi'(z) = psi'(z + 1) + 1/z^2; for x < 1/2, psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x)."""
    xp = xp_of(x)
    if x.dtype != xp.float64:
        return trigamma(x.astype(xp.float64)).astype(x.dtype)
    reflect = x < 0.5
    z, inverses = _shift_up(xp.where(reflect, 1 - x, x))
    inv, inv2 = 1 / z, 1 / (z * z)
    tail = (
        inv * inv2 * (1 / 6 - inv2 * (1 / 30 - inv2 * (1 / 42 - inv2 * (1 / 30 - inv2 * 5 / 66))))
    )
    result = inv + 0.5 * inv2 + tail + sum(t * t for t in inverses)
    reflected = (math.pi / xp.sin(math.pi * x)) ** 2 - result
    pole = (x <= 0) & (xp.floor(x) == x)
    result = xp.where(pole, math.inf, xp.where(reflect, reflected, result))
    return xp.where(x == -math.inf, math.nan, result)


def bessel_i(x, order, scaled=False):
    """The modified Bessel function of the first kind I_order(x), order 0 or 1 (times
    exp(-|x|) if ``scaled``), in float64. For |x| <= 20 the power series
    I_n(x) = (x/2)^n sum_k (x^2/4)^k / (k! (k + n)!), whose terms are all positive (50 terms
    reach 1e-16); beyond, the asymptotic series
    I_n(z) ~ e^z / sqrt(2 pi z) sum_k prod_{j<=k} ((2j - 1)^2 - 4n^2) / (8 j z), whose
    terms shrink until k ~ 2z (30 terms: below 1e-17 from z = 20 on). I_0 is even, I_1 odd;
    at +-inf, I_0 and I_1 are nan, as in PyTorch (and SciPy)."""
    xp = xp_of(x)
    if x.dtype != xp.float64:  # float32/float16: through float64, rounded once
        return bessel_i(x.astype(xp.float64), order, scaled).astype(x.dtype)
    z = xp.abs(x)
    small = z <= 20
    zs = xp.where(small, z, 0.0)
    quarter_square = zs * zs / 4
    term = zs / 2 if order == 1 else xp.ones_like(zs)
    series = term.copy()
    for k in range(1, 50):
        term = term * quarter_square / (k * (k + order))
        series = series + term
    if scaled:
        series = series * xp.exp(-zs)
    zl = xp.where(small, 30.0, z)
    term = xp.ones_like(zl)
    asymptotic = term.copy()
    for j in range(1, 30):
        term = term * (((2 * j - 1) ** 2 - 4 * order * order) / (8 * j)) / zl
        asymptotic = asymptotic + term
    asymptotic = asymptotic / xp.sqrt(2 * math.pi * zl)
    if not scaled:  # (inf once e^z overflows, z > 709.78, as PyTorch's)
        asymptotic = asymptotic * xp.exp(zl)
    result = xp.where(small, series, asymptotic)
    return xp.where(x < 0, -result, result) if order == 1 else result


# B_2, B_4, ..., B_20: the Bernoulli numbers of the asymptotic series of polygamma
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330)  # fmt: skip


def _cot_derivative_coefficients(n):
    """The coefficients (lowest power first) of P_n with d^n/dx^n cot(x) = P_n(cot x):
    P_0(c) = c, P_(k+1)(c) = -(1 + c^2) P_k'(c), since cot' = -(1 + cot^2)."""
    p = [0, 1]
    for _ in range(n):
        derivative = [i * a for i, a in enumerate(p)][1:]
        p = [0] * (len(derivative) + 2)
        for i, a in enumerate(derivative):  # -(1 + c^2) * derivative
            p[i] -= a
            p[i + 2] -= a
    return p


def polygamma(n, x):
    """psi^(n)(x), the n-th derivative of digamma, for n >= 2, in float64. For z >= 20 the
    asymptotic series (-1)^(n+1) [(n-1)!/z^n + n!/(2 z^(n+1)) + sum_k B_2k (2k+n-1)! /
    ((2k)! z^(2k+n))], reached by psi^(n)(z) = psi^(n)(z + 1) + (-1)^(n+1) n! / z^(n+1);
    for x < 1/2 the reflection psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi d^n/dx^n cot(pi x),
    with cot(pi x) taken from r = x - round(x) (exact, so large negative x keep their
    digits). At the
    poles 0, -1, -2...: (-1)^(n+1) inf; at +inf nan, at -inf as at a pole (PyTorch's)."""
    xp = xp_of(x)
    if x.dtype != xp.float64:
        return polygamma(n, x.astype(xp.float64)).astype(x.dtype)
    reflect = x < 0.5
    z, inverses = _shift_up(xp.where(reflect, 1 - x, x), steps=20)
    sign, factorial = (-1) ** (n + 1), math.factorial(n)
    inv = 1 / z
    series = math.factorial(n - 1) * inv**n + factorial / 2 * inv ** (n + 1)
    for k, b in enumerate(_BERNOULLI, start=1):
        series += b * math.factorial(2 * k + n - 1) / math.factorial(2 * k) * inv ** (2 * k + n)
    result = sign * (series + factorial * sum(t ** (n + 1) for t in inverses))
    r = x - xp.round(x)  # in [-1/2, 1/2]; cot(pi x) = cot(pi r) and, as tan(pi (1/2 - |r|)),
    a = xp.abs(r)  # exactly 0 at the half-integers, where psi^(n) of an even n is small
    cot = xp.where(a < 0.25, 1 / xp.tan(math.pi * r), xp.copysign(xp.tan(math.pi * (0.5 - a)), r))
    d_cot = sum(a * cot**i for i, a in enumerate(_cot_derivative_coefficients(n)) if a)
    reflected = (-1) ** n * result - math.pi ** (n + 1) * d_cot
    result = xp.where(reflect, reflected, result)
    pole = ((x <= 0) & (xp.floor(x) == x)) | (x == -math.inf)
    result = xp.where(pole, sign * math.inf, result)
    return xp.where(x == math.inf, math.nan, result)


def _until_converged(step, state, xp, max_steps=5000):
    """Run ``state = step(state, k)`` for k = 1, 2, ... until it reports every element
    converged (checked every 16 steps, each check one host round trip) or max_steps."""
    for k in range(1, max_steps + 1):
        state, done = step(state, k)
        if k % 16 == 0 and bool(xp.all(done)):
            break
    return state


def gammainc(a, x, upper=False):
    """The regularised lower incomplete gamma function P(a, x) = (1 / Gamma(a)) *
    integral_0^x t^(a-1) e^-t dt, or (``upper``) its complement Q(a, x) = 1 - P(a, x), in
    float64. Below x = a + 1 P's power series sum_n x^n / (a (a+1) ... (a+n)); above, Q's
    continued fraction (evaluated by Lentz's method), so that the smaller of P and Q is
    never found as a difference. As PyTorch: P = 1 at x = inf and for a = 0 < x, 0 for
    a = inf > x; nan for other a <= 0, for x < 0 and for a = x = inf (Q likewise, 1 - P)."""
    xp = xp_of(a)
    if a.dtype != xp.float64 or x.dtype != xp.float64:
        out_dtype = xp.result_type(a, x)
        p = gammainc(a.astype(xp.float64), x.astype(xp.float64), upper)
        return p.astype(out_dtype)
    a, x = xp.broadcast_arrays(a, x)
    one = ((a == 0) & (x > 0)) | ((x == math.inf) & (a >= 0) & (a < math.inf))
    zero = (a == math.inf) & (x >= 0) & (x < math.inf)
    bad = (a <= 0) | (x < 0) | xp.isnan(a) | xp.isnan(x) | (a == math.inf)
    a = xp.where(bad, 1.0, a)
    x = xp.where(bad | (x == math.inf), 1.0, x)
    log_front = xp.where(x > 0, a * xp.log(xp.where(x > 0, x, 1.0)), -math.inf) - x - lgamma(a)

    def series_step(state, k):
        term, total = state
        term = term * x / (a + k)
        return (term, total + term), term <= 1e-17 * total

    _, total = _until_converged(series_step, (1 / a, 1 / a), xp)
    tiny = 1e-300

    def fraction_step(state, k):  # Lentz: h = b0 + a1/(b1 + a2/(b2 + ...))
        b, c, d, h = state
        an = -k * (k - a)
        b = b + 2
        d = an * d + b
        d = 1 / xp.where(xp.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = xp.where(xp.abs(c) < tiny, tiny, c)
        return (b, c, d, h * d * c), xp.abs(d * c - 1) <= 1e-16

    b0 = x + 1 - a
    d0 = 1 / xp.where(xp.abs(b0) < tiny, tiny, b0)
    *_, h = _until_converged(fraction_step, (b0, xp.full(a.shape, 1 / tiny), d0, d0), xp)
    series = x < a + 1
    lower, upper_part = xp.exp(log_front) * total, xp.exp(log_front) * h
    if upper:  # Q = 1 - P: 1 at x = 0 and where P is 0, 0 where P is 1
        q = xp.where(series, 1 - lower, upper_part)
        q = xp.where((x == 0) | zero, 1.0, q)
        return xp.where(one, 0.0, xp.where(bad & ~zero, math.nan, q))
    p = xp.where(series, lower, 1 - upper_part)
    p = xp.where((x == 0) | zero, 0.0, p)
    return xp.where(one, 1.0, xp.where(bad & ~zero, math.nan, p))


class Igamma(Function):
    """P(a, x), the regularised lower incomplete gamma function, or (``upper``, igammac)
    Q(a, x) = 1 - P(a, x). dP/dx is the gamma density x^(a-1) e^-x / Gamma(a) and
    dQ/dx = -dP/dx; d/da has no closed form and, as in PyTorch, is not implemented."""

    def forward(self, a, x, upper=False):
        self.upper = upper
        self.save_for_backward(a, x)
        return gammainc(a, x, upper)

    def backward(self, grad):
        a, x = self.saved
        name = "igammac" if self.upper else "igamma"
        if self.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        xp = xp_of(x)
        density = xp.exp((a - 1) * xp.log(x) - x - lgamma(a))
        return None, unbroadcast(grad * (-density if self.upper else density), x.shape)

    def name(self) -> str:
        return "IgammacBackward0" if self.upper else "IgammaBackward0"


def standard_gamma_grad(a, x):
    """d x / d a for a standard gamma draw x held at its quantile u = P(a, x): by implicit
    differentiation, -(dP/da) / (dP/dx). With P = e^L S, L = a log x - x - lgamma(a) and
    S = sum_n t_n, t_n = x^n / (a (a+1) ... (a+n)) (all terms positive):
    dP/da = e^L ((log x - psi(a)) S + sum_n t_n h_n), h_n = -sum_{k<=n} 1 / (a + k), and
    dP/dx = x^(a-1) e^-x / Gamma(a) = e^L / x, so
    d x / d a = -x ((log x - psi(a)) S + sum_n t_n h_n). In float64."""
    xp = xp_of(a)
    if a.dtype != xp.float64 or x.dtype != xp.float64:
        return standard_gamma_grad(a.astype(xp.float64), x.astype(xp.float64)).astype(x.dtype)

    def step(state, k):
        t, h, total, total_h = state
        t = t * x / (a + k)
        h = h - 1 / (a + k)
        return (t, h, total + t, total_h + t * h), t <= 1e-17 * total

    t0, h0 = 1 / a, -1 / a
    *_, total, total_h = _until_converged(step, (t0, h0, t0, t0 * h0), xp)
    return -x * ((xp.log(x) - digamma(a)) * total + total_h)


class StandardGammaSample(Function):
    """Passes a standard gamma draw x (drawn for concentration a) through, recording
    d x / d a so that the draw is differentiable in a (implicit reparameterisation)."""

    def forward(self, a, x):
        self.save_for_backward(a, x)
        return x

    def backward(self, grad):
        a, x = self.saved
        return grad * standard_gamma_grad(a, x), None


class RandomDraw(Function):
    """A random draw recorded as depending on the parameters it was drawn with (normal's
    mean and std, bernoulli's probabilities), with gradient 0 to each, as PyTorch records
    it: the draw passes through unchanged."""

    def forward(self, draw, *params):
        self.param_shapes = [(p.shape, p.dtype) for p in params]
        return draw

    def backward(self, grad):
        xp = xp_of(grad)
        return (None, *(xp.zeros(shape, dtype) for shape, dtype in self.param_shapes))


class Undifferentiable(Function):
    """A result whose dependence on its inputs PyTorch leaves undefined (a random draw on
    binomial's count and prob, floor_divide or unique on their inputs): recorded in the
    graph, so that it requires grad as there, and backward through it raises, as there."""

    def forward(self, result, *inputs, op="binomial", not_implemented=False):
        self.op, self.not_implemented = op, not_implemented
        return result

    def backward(self, grad):
        if self.not_implemented:  # (PyTorch's words for unique's missing derivative)
            raise NotImplementedError(f"the derivative for '{self.op}' is not implemented.")
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


class Lgamma(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return lgamma(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * digamma(x)  # d/dx log Gamma(x) = psi(x)


class Digamma(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return digamma(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * trigamma(x)  # psi'(x), the trigamma function


class BesselI(Function):
    """The modified Bessel function I_0 or I_1 (``order``), or its scaled form
    exp(-|x|) I_n(x) (``scaled``; i0e, i1e). The derivatives: I_0' = I_1,
    I_1' = I_0 - I_1 / x (1/2 at 0); scaled, i0e' = i1e - sign(x) i0e and
    i1e' = i0e - i1e (sign(x) + 1/x) (1/2 at 0)."""

    def forward(self, x, order=0, scaled=False):
        self.order, self.scaled = order, scaled
        self.save_for_backward(x)
        return bessel_i(x, order, scaled)

    def backward(self, grad):
        (x,) = self.saved
        xp = xp_of(x)
        x = x.astype(xp.float64)  # (in float64: i1e - i0e cancels for a large x)
        i0, i1 = bessel_i(x, 0, self.scaled), bessel_i(x, 1, self.scaled)
        if self.order == 0:
            slope = i1 - xp.sign(x) * i0 if self.scaled else i1
        else:
            inverse = 1 / xp.where(x == 0, 1.0, x)
            slope = i0 - i1 * (xp.sign(x) + inverse) if self.scaled else i0 - i1 * inverse
            slope = xp.where(x == 0, 0.5, slope)
        return grad * slope.astype(grad.dtype)

    def name(self) -> str:
        if not self.scaled:
            return "I0Backward0" if self.order == 0 else "SpecialI1Backward0"
        return "SpecialI0EBackward0" if self.order == 0 else "SpecialI1EBackward0"


class Polygamma(Function):
    """psi^(n)(x) for n >= 1 (n = 0 is Digamma); its derivative is psi^(n+1)(x)."""

    def forward(self, x, n=1):
        self.n = n
        self.save_for_backward(x)
        return _polygamma(n, x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * _polygamma(self.n + 1, x)


def _polygamma(n, x):
    return trigamma(x) if n == 1 else polygamma(n, x)


class Rounding(Function):
    """floor, ceil, round (to ``decimals`` places, half to even), trunc or sign: steps, so
    the gradient is 0 wherever it exists (PyTorch's convention)."""

    def forward(self, x, how="floor", decimals=0):
        self.how, self.decimals = how, decimals
        xp = xp_of(x)
        if how == "round":  # (float16 through float32: x * 10**decimals would overflow it)
            return xp.round(_float16_as_float32(x), decimals).astype(x.dtype, copy=False)
        if how == "sign":
            return _sign(x)
        return getattr(xp, how)(x)

    def backward(self, grad):
        return xp_of(grad).zeros_like(grad)

    def name(self) -> str:
        if self.how == "round":  # round(x) and round(x, decimals=d): two PyTorch nodes
            return "RoundBackward1" if self.decimals else "RoundBackward0"
        return f"{self.how.capitalize()}Backward0"  # FloorBackward0, SignBackward0...


class Rsqrt(Function):
    def forward(self, x):
        y = _rsqrt(x)
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        # d/dx x^-1/2 = -1/2 x^-3/2 (float16: in PyTorch's steps, -1/2 grad times y^3)
        return _in_float32(lambda g: g * -0.5, grad) * y**3


class Reciprocal(Function):
    def forward(self, x):
        y = 1 / x
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        # d/dx 1/x = -1/x^2, as PyTorch writes it: -grad * (y * y) (float16 rounds each step)
        return -grad * (y * y)


class Tanh(Function):
    def forward(self, x):
        y = xp_of(x).tanh(x)
        self.save_for_backward(y)
        return y

    def backward(self, grad):
        (y,) = self.saved
        return _in_float32(lambda g, y: g * (1 - y * y), grad, y)  # float16: in float32


class Sigmoid(Function):
    def forward(self, x):
        xp = xp_of(x)
        if x.dtype == xp.float16:  # in float32, rounded once, as PyTorch computes it
            y = self.forward(x.astype(xp.float32)).astype(xp.float16)
            self.save_for_backward(y)
            return y
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
        xp = xp_of(y)
        if y.dtype == xp.float16:  # PyTorch's float16 sigmoid gradient rounds at each step
            return grad * (1 - y) * y
        dx = 1 - y
        dx *= y
        dx *= grad
        return dx  # y (1 - y) grad


class Relu(Function):
    def forward(self, x):
        y = xp_of(x).maximum(x, 0)
        self.save_for_backward(y)  # y > 0 where x > 0; PyTorch saves the output too
        return y

    def backward(self, grad):
        (y,) = self.saved
        # where, not grad * (y > 0): a nan or inf gradient stops where y <= 0, as in PyTorch
        return xp_of(grad).where(y <= 0, grad.dtype.type(0), grad)


def erf(x):
    """The error function (NumPy has none; on a GPU it is CUDA's own erf).

    float64: a Maclaurin series for |x| <= 1.2 and a continued fraction for erfc beyond,
    accurate to about 1e-15. float32: Abramowitz & Stegun's formula 7.1.26, absolute error
    below 1.5e-7 (about float32's own rounding near 1), and cheap; for |x| < 0.5, where that
    error would be large next to erf itself (erf(1e-5) came out 0.6% low), seven terms of
    the Maclaurin series instead (GELU keeps the formula alone). float16: via float32."""
    xp = xp_of(x)
    if x.dtype == xp.float16:  # computed in float32 and rounded once, as PyTorch does
        return erf(x.astype(xp.float32)).astype(xp.float16)
    if backend.has_cuda_kernels(x):
        return backend.elementwise_kernel(*_ERF_CUDA)(x)
    if x.dtype == xp.float64:
        return _erf_float64(x)
    return xp.where(xp.abs(x) < 0.5, _erf_series_float32(x), _erf_and_gaussian(x)[0])


def _erf_series_float32(x):
    """erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1)), n = 0..6: for |x| < 0.5
    the first term left out is below 2e-9 of the sum (float32's precision is 6e-8)."""
    x2 = x * x
    total = x2 * _ERF_SERIES[-1]  # Horner's rule in x^2, highest coefficient first
    for c in _ERF_SERIES[-2:0:-1]:
        total += c
        total *= x2
    total += _ERF_SERIES[0]
    return total * x


# 2/sqrt(pi) * (-1)^n / (n! (2n+1)), n = 0..6
_ERF_SERIES = tuple(
    2 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(7)
)


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
    erf_z, _ = _erf_and_erfc_float64(xp.abs(x))
    return xp.copysign(erf_z, x)  # erf is odd (and erf(-0.0) is -0.0)


def _erf_and_erfc_float64(z):
    """erf(z) and erfc(z) = 1 - erf(z) of a float64 array z >= 0, each to about 1e-14 of its
    own size: a Maclaurin series for erf where z <= 1.2, a continued fraction for erfc beyond
    (where erf is close to 1 and 1 - erf would lose erfc's digits; 120 terms converge there)."""
    xp = xp_of(z)
    small = z <= 1.2
    # erf(z) = 2/sqrt(pi) * sum_n (-1)^n z^(2n+1) / (n! (2n+1))
    zs = xp.where(small, z, 0.0)
    term, total = zs.copy(), zs.copy()
    for n in range(1, 50):
        term *= -zs * zs / n
        total += term / (2 * n + 1)
    series = total * (2 / math.sqrt(math.pi))
    zl = xp.where(small, 3.0, z)
    tail = xp.exp(-zl * zl) / math.sqrt(math.pi) / (zl + 0.5 / _erfc_fraction(zl))
    return xp.where(small, series, 1 - tail), xp.where(small, 1 - series, tail)


def _erfc_fraction(z):
    """G(z) = z + (2/2)/(z + (3/2)/(z + ...)), the continued fraction with
    erfc(z) = e^(-z^2) / (sqrt(pi) (z + (1/2) / G(z))), for z >= 1.2 (120 terms converge
    there). (erfcx' needs F - z = (1/2) / G without cancellation, so G is returned.)"""
    fraction = z.copy()
    for k in range(120, 1, -1):
        fraction = z + (k / 2) / fraction
    return fraction


def erfc(x):
    """1 - erf(x), accurate also where it is tiny (large x), computed in float64."""
    xp = xp_of(x)
    if x.dtype != xp.float64:  # float32/float16: through float64, rounded once
        return erfc(x.astype(xp.float64)).astype(x.dtype)
    _, erfc_z = _erf_and_erfc_float64(xp.abs(x))
    return xp.where(x < 0, 2 - erfc_z, erfc_z)  # erfc(-z) = 2 - erfc(z)


def erfinv(y):
    """The inverse of erf: x with erf(x) = y for y in (-1, 1), +-inf at +-1, nan outside;
    computed in float64. NumPy has none, so: a first guess good to about 2e-3 (Winitzki's
    closed form), then Newton steps on erf(x) = |y|, each doubling the correct digits."""
    xp = xp_of(y)
    if y.dtype != xp.float64:
        return erfinv(y.astype(xp.float64)).astype(y.dtype)
    a = xp.abs(y)
    inside = a < 1
    a = xp.where(inside, a, 0.0)  # solved for |y| only: erfinv is odd
    one_minus = 1 - a  # exact where it matters (a >= 0.5)
    # first guess: with L = log(1 - a^2) and c = 2 / (pi k) + L / 2 (k = 0.147),
    # erfinv(a) ~ sqrt(sqrt(c^2 - L / k) - c)
    log_term = xp.log(one_minus * (1 + a))  # log(1 - a^2), no cancellation near a = 1
    c = 2 / (math.pi * 0.147) + log_term / 2
    x = xp.sqrt(xp.maximum(xp.sqrt(c * c - log_term / 0.147) - c, 0.0))
    for _ in range(4):
        erf_x, erfc_x = _erf_and_erfc_float64(x)
        # erf(x) - a, near a = 1 as (1 - a) - erfc(x): there erf(x) - a would cancel
        residual = xp.where(a < 0.5, erf_x - a, one_minus - erfc_x)
        x = x - residual / ((2 / math.sqrt(math.pi)) * xp.exp(-x * x))  # x - f(x) / f'(x)
    x = xp.where(inside, x, xp.where(xp.abs(y) == 1, math.inf, math.nan))
    return xp.copysign(x, y)


def erfcx(x):
    """The scaled complementary error function exp(x^2) erfc(x), in float64: for
    0 <= x <= 1.2 as that product, beyond as 1 / (sqrt(pi) F(x)) with erfc's continued
    fraction (no exp, so no overflow); erfcx(-z) = 2 exp(z^2) - erfcx(z) (inf below -26.6)."""
    xp = xp_of(x)
    if x.dtype != xp.float64:
        return erfcx(x.astype(xp.float64)).astype(x.dtype)
    z = xp.abs(x)
    small = z <= 1.2
    zs = xp.where(small, z, 0.0)
    near = xp.exp(zs * zs) * _erf_and_erfc_float64(zs)[1]
    zl = xp.where(small, 3.0, z)
    far = 1 / (math.sqrt(math.pi) * (zl + 0.5 / _erfc_fraction(zl)))
    positive = xp.where(small, near, far)  # erfcx(|x|)
    zn = xp.where(x < 0, z, 0.0)
    return xp.where(x < 0, 2 * xp.exp(zn * zn) - positive, positive)


def erfcx_slope(x, y):
    """d/dx erfcx(x) = 2x erfcx(x) - 2/sqrt(pi), y = erfcx(x). Beyond 1.2 the two terms
    cancel (to -1/(sqrt(pi) x^2) far out), so there it is -(2/sqrt(pi)) (F - x) / F with
    F = x + (1/2) / G, from erfc's continued fraction."""
    xp = xp_of(x)
    x64 = x.astype(xp.float64)
    far = x64 > 1.2
    xl = xp.where(far, x64, 3.0)
    g = _erfc_fraction(xl)
    f = xl + 0.5 / g
    from_fraction = -(2 / math.sqrt(math.pi)) * (0.5 / g) / f
    direct = 2 * x64 * y - 2 / math.sqrt(math.pi)
    return xp.where(far, from_fraction, direct).astype(x.dtype)


def log_ndtr(x):
    """log Phi(x), Phi the standard normal CDF, in float64: below -1 as
    log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 (Phi underflows long before its log does), above
    as log1p(-erfc(x / sqrt 2) / 2) (keeping the digits of a Phi close to 1)."""
    xp = xp_of(x)
    if x.dtype != xp.float64:
        return log_ndtr(x.astype(xp.float64)).astype(x.dtype)
    low = x < -1
    xl, xh = xp.where(low, x, -2.0), xp.where(low, 0.0, x)
    from_low = xp.log(erfcx(-xl * _INV_SQRT_2) / 2) - xl * xl / 2
    from_high = xp.log1p(-erfc(xh * _INV_SQRT_2) / 2)
    return xp.where(low, from_low, from_high)


def log_ndtr_slope(x):
    """d/dx log Phi(x) = phi(x) / Phi(x) = sqrt(2/pi) / erfcx(-x / sqrt 2), in float64:
    no exp(-x^2/2) / Phi(x) to cancel or overflow."""
    xp = xp_of(x)
    return _SQRT_2_OVER_PI / erfcx(x.astype(xp.float64) * -_INV_SQRT_2)


def ndtri(p):
    """The inverse of Phi: x with Phi(x) = p, in float64; -inf at 0, inf at 1, nan outside
    [0, 1]. Solved for q = min(p, 1 - p) on the left (x <= 0), then mirrored: a first guess
    from Abramowitz & Stegun 26.2.23 (|error| < 4.5e-4), then Newton steps on
    log Phi(x) = log q (log Phi is concave: they close in from one side, each doubling the
    correct digits, also for q = 1e-300)."""
    xp = xp_of(p)
    if p.dtype != xp.float64:
        return ndtri(p.astype(xp.float64)).astype(p.dtype)
    inside = (p > 0) & (p < 1)
    q = xp.where(inside, xp.where(p < 0.5, p, 1 - p), 0.5)  # (1 - p is exact for p >= 1/2)
    t = xp.sqrt(-2 * xp.log(q))
    x = -(t - (2.515517 + t * (0.802853 + t * 0.010328))
          / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))))  # fmt: skip
    log_q = xp.log(q)
    for _ in range(4):
        x = x - (log_ndtr(x) - log_q) / log_ndtr_slope(x)
    x = xp.where(p < 0.5, x, -x)
    x = xp.where(p == 0.5, 0.0, x)  # (+0.0, as PyTorch)
    edge = xp.where(p == 0, -math.inf, xp.where(p == 1, math.inf, math.nan))
    return xp.where(inside, x, edge)


class Erfcx(Function):
    """exp(x^2) erfc(x); d/dx = 2x erfcx(x) - 2/sqrt(pi) (erfcx_slope: without the
    cancellation of the two terms for a large x)."""

    def forward(self, x):
        y = erfcx(x)
        self.save_for_backward(x, y)
        return y

    def backward(self, grad):
        x, y = self.saved
        return grad * erfcx_slope(x, y)

    def name(self) -> str:
        return "SpecialErfcxBackward0"


class LogNdtr(Function):
    """log Phi(x); d/dx = phi(x) / Phi(x), as log_ndtr_slope() computes it."""

    def forward(self, x):
        self.save_for_backward(x)
        return log_ndtr(x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * log_ndtr_slope(x).astype(grad.dtype)

    def name(self) -> str:
        return "SpecialLogNdtrBackward0"


class Ndtri(Function):
    """The inverse of Phi; d/dp = 1 / phi(x) = sqrt(2 pi) exp(x^2 / 2), x = ndtri(p)."""

    def forward(self, p):
        x = ndtri(p)
        self.save_for_backward(x)
        return x

    def backward(self, grad):
        (x,) = self.saved
        return grad * math.sqrt(2 * math.pi) * xp_of(x).exp(x * x / 2)

    def name(self) -> str:
        return "SpecialNdtriBackward0"


class Entr(Function):
    """-x log x for x > 0, 0 at 0, -inf below (nan stays nan); d/dx = -(log x + 1), taken
    as it comes at 0 (inf) and below (nan), as PyTorch does."""

    def forward(self, x):
        xp = xp_of(x)
        self.save_for_backward(x)
        positive = xp.where(x > 0, x, x.dtype.type(1))
        values = xp.where(x > 0, -x * xp.log(positive), xp.where(x == 0, 0, -math.inf))
        return xp.where(xp.isnan(x), x, values).astype(x.dtype, copy=False)

    def backward(self, grad):
        (x,) = self.saved
        return grad * -(xp_of(x).log(x) + 1)

    def name(self) -> str:
        return "SpecialEntrBackward0"


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_INV_SQRT_2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


class Gelu(Function):
    """GELU(x) = x * Phi(x), Phi the standard normal CDF; ``approximate="tanh"`` uses
    Phi(x) ~ (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2."""

    def forward(self, x, approximate="none"):
        xp = xp_of(x)
        if x.dtype == xp.float16:  # in float32, rounded once, as PyTorch computes it (and
            # NumPy's float16 arithmetic is ~10x slower than float32's); backward likewise
            return self.forward(x.astype(xp.float32), approximate).astype(xp.float16)
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
        xp = xp_of(grad)
        if grad.dtype == xp.float16:  # forward ran in float32 (see there)
            return self._backward(grad.astype(xp.float32)).astype(xp.float16)
        return self._backward(grad)

    def _backward(self, grad):
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
    """Gradient flows where min <= x <= max (PyTorch's convention at the edges); elsewhere
    it is 0 even where the incoming gradient is inf or nan (selected, not multiplied by
    0, as PyTorch does)."""

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
        return xp_of(grad).where(inside, grad, 0).astype(grad.dtype, copy=False)

    def name(self) -> str:
        return "ClampBackward1"  # (PyTorch's node for number bounds)


class ClampTensors(Function):
    """clamp with tensor bounds (either may be None; all one dtype, broadcast together):
    max(x, low), then min(., high), nan where any of them is nan. PyTorch's gradient rule:
    x's where low <= x <= high (so not at a nan), low's where x < low < high, high's where
    x > high or high < low; where low == high and x is outside, none of them gets it."""

    def forward(self, x, low, high):
        xp = xp_of(x)
        self.save_for_backward(x, low, high)
        y = x if low is None else xp.maximum(x, low)
        return y if high is None else xp.minimum(y, high)

    def backward(self, grad):
        x, low, high = self.saved
        xp = xp_of(grad)
        to_x = True
        if low is not None:
            to_x = x >= low
            to_low = x < low if high is None else (x < low) & (low < high)
        if high is not None:
            to_x = to_x & (x <= high)
            to_high = x > high if low is None else (x > high) | (high < low)
        zero = grad.dtype.type(0)
        return (
            unbroadcast(xp.where(to_x, grad, zero), x.shape),
            None if low is None else unbroadcast(xp.where(to_low, grad, zero), low.shape),
            None if high is None else unbroadcast(xp.where(to_high, grad, zero), high.shape),
        )

    def name(self) -> str:
        return "ClampBackward0"  # (PyTorch's node for tensor bounds)


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


class Hypot(Function):
    """sqrt(a^2 + b^2), without overflow. d/da = a / hypot, d/db = b / hypot (nan at
    (0, 0), as in PyTorch)."""

    def forward(self, a, b):
        y = xp_of(a).hypot(a, b)
        self.save_for_backward(a, b, y)
        return y

    def backward(self, grad):
        a, b, y = self.saved
        ga = unbroadcast(grad * a / y, a.shape) if self.needs_input_grad[0] else None
        gb = unbroadcast(grad * b / y, b.shape) if self.needs_input_grad[1] else None
        return ga, gb


class Fmod(Function):
    """C's fmod: a - trunc(a / b) * b, with the sign of a (remainder's has the sign of b).
    d/da = 1; d/db = -trunc(a / b). b may be a Python number."""

    def forward(self, a, b):
        self.save_for_backward(a, b)
        self.number_divisor = not hasattr(b, "shape")
        return xp_of(a).fmod(a, b)

    def backward(self, grad):
        a, b = self.saved
        xp = xp_of(grad)
        ga = unbroadcast(grad, a.shape) if self.needs_input_grad[0] else None
        gb = unbroadcast(-grad * xp.trunc(a / b), b.shape) if self.needs_input_grad[1] else None
        return ga, gb

    def name(self) -> str:
        return "FmodBackward0" if self.number_divisor else "FmodBackward1"  # (PyTorch's two)


class Copysign(Function):
    """|a| with the sign of b (-0.0 counts as negative). d/da = copysign(a, b) / a, which is
    +-1, and 0 where a == 0 (PyTorch's convention); d/db = 0 (the sign only jumps)."""

    def forward(self, a, b):
        y = xp_of(a).copysign(a, b)
        self.save_for_backward(a, y)
        self.b_shape = getattr(b, "shape", None)  # None: b is a Python number
        return y

    def backward(self, grad):
        a, y = self.saved
        xp = xp_of(grad)
        ga = gb = None
        if self.needs_input_grad[0]:
            ratio = xp.where(a == 0, 0, y / xp.where(a == 0, 1, a))  # (the 1 keeps 0 / 0 away)
            ga = unbroadcast(grad * ratio, a.shape)
        if self.needs_input_grad[1]:
            gb = xp.zeros(self.b_shape, dtype=grad.dtype)
        return ga, gb


class Heaviside(Function):
    """The step function: 0 for x < 0, 1 for x > 0 and ``values`` where x == 0 (0 for nan,
    as in PyTorch). PyTorch has no derivative for it, so backward raises, as there."""

    def forward(self, x, values):
        xp = xp_of(x)
        return xp.where(x == 0, values, x > 0).astype(x.dtype)

    def backward(self, grad):
        raise RuntimeError(
            "heaviside: the derivative is not implemented (as in PyTorch); for a gradient "
            "through a step use a smooth stand-in such as sigmoid(k * x)"
        )


class Sinc(Function):
    """sin(pi x) / (pi x), and 1 at x = 0. d/dx = (pi x cos(pi x) - sin(pi x)) / (pi x^2),
    and 0 at x = 0 (its limit); near 0, where the two terms cancel, its Taylor series."""

    def forward(self, x):
        xp = xp_of(x)
        self.save_for_backward(x)
        wide = _float16_as_float32(x)  # (pi * x rounded to float16 would miss sin's zeros)
        px = math.pi * xp.where(wide == 0, 1, wide)  # (the 1 only keeps 0 / 0 away)
        return xp.where(wide == 0, 1, xp.sin(px) / px).astype(x.dtype)

    def backward(self, grad):
        (x,) = self.saved
        xp = xp_of(x)
        # PyTorch's steps, each rounded in x's dtype: (px cos(px) - sin(px)) / (x x pi), 0
        # where x x pi is 0 (x 0, or x x underflowing: its limit 0 is the gradient there too)
        px = _in_float32(lambda x: x * math.pi, x)
        denominator = _in_float32(lambda sq: sq * math.pi, x * x)
        d = (px * xp.cos(px) - xp.sin(px)) / xp.where(denominator == 0, 1, denominator)
        return xp.where(denominator == 0, 0, grad * d)


def _float16_as_float32(x):
    """x in float32 if it is float16 (computed there and rounded once, as PyTorch does)."""
    xp = xp_of(x)
    return x.astype(xp.float32) if x.dtype == xp.float16 else x


def _in_float32(fn, *arrays):
    """fn(*arrays); float16 arrays computed in float32 and the result rounded once, as one
    PyTorch float16 kernel does (NumPy's float16 x * 0.5 rounds 0.5 to float16 first)."""
    xp = xp_of(arrays[0])
    if not any(a.dtype == xp.float16 for a in arrays):
        return fn(*arrays)
    return fn(*(_float16_as_float32(a) for a in arrays)).astype(xp.float16)


def _rsqrt(x):
    """1 / sqrt(x), float16 rounded once (PyTorch's rsqrt kernel)."""
    return _in_float32(lambda x: 1 / xp_of(x).sqrt(x), x)


class NanToNum(Function):
    """nan, +inf and -inf replaced by the given numbers (for None: the dtype's largest and
    lowest finite values). The gradient passes where x is finite, 0 elsewhere."""

    def forward(self, x, nan=0.0, posinf=None, neginf=None):
        self.save_for_backward(x)
        return xp_of(x).nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)

    def backward(self, grad):
        (x,) = self.saved
        return grad * xp_of(x).isfinite(x)


class NanToZero(Function):
    """nan replaced by 0 (nansum's first step). The gradient is grad times "x is not nan",
    as PyTorch's nansum has it: a nan or inf grad at a nan gives nan there (nanmean of a
    row of nans: grad / 0 * 0), not 0."""

    def forward(self, x):
        self.save_for_backward(x)
        return xp_of(x).where(xp_of(x).isnan(x), 0, x)

    def backward(self, grad):
        (x,) = self.saved
        return grad * ~xp_of(x).isnan(x)


class Fmax(Function):
    """The larger operand, a nan ignored (fmax(nan, 1) = 1; nan only where both are): a
    where a >= b or b is nan, else b. On a tie it is a (-0.0 or 0.0 as a has it) and so is
    the whole gradient, as in PyTorch (maximum splits it)."""

    def forward(self, a, b):
        self.shapes = a.shape, b.shape
        self.pick_a = (a >= b) | xp_of(b).isnan(b)
        return xp_of(a).where(self.pick_a, a, b)

    def backward(self, grad):
        return _route(grad, self.pick_a, self.shapes, self.needs_input_grad)


class Fmin(Function):
    """The smaller operand, a nan ignored: a where a <= b or b is nan, else b (the gradient
    likewise)."""

    def forward(self, a, b):
        self.shapes = a.shape, b.shape
        self.pick_a = (a <= b) | xp_of(b).isnan(b)
        return xp_of(a).where(self.pick_a, a, b)

    def backward(self, grad):
        return _route(grad, self.pick_a, self.shapes, self.needs_input_grad)


def _route(grad, to_a, shapes, needs):
    """All of the gradient to a where ``to_a`` holds, to b elsewhere."""
    xp = xp_of(grad)
    zero = grad.dtype.type(0)
    ga = unbroadcast(xp.where(to_a, grad, zero), shapes[0]) if needs[0] else None
    gb = unbroadcast(xp.where(to_a, zero, grad), shapes[1]) if needs[1] else None
    return ga, gb


class Cast(Function):
    """Change dtype; the gradient is cast back to the input's dtype."""

    def forward(self, x, dtype=None):
        self.input_dtype = x.dtype
        return x.astype(dtype)

    def backward(self, grad):
        return grad.astype(self.input_dtype)
