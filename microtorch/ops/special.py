"""The numerics of torch.special's Bessel, Airy, Hurwitz zeta functions and orthogonal
polynomials, on raw arrays (numpy or cupy, through ``xp_of``). All are evaluated in
float64 and cast back. Apart from zeta (differentiable in q, as PyTorch) they have no
gradient in PyTorch, so they are plain array functions, wrapped without a graph.

Accuracy, checked against PyTorch in float64 (tests/test_special_functions.py): about
1e-15 relative for K0, K1, their scaled forms, Ai on x > 0, zeta and the polynomials;
J0, J1, Y0, Y1 and Ai on x < 0 oscillate, and there it is about 1e-15 of the local
amplitude (so relative accuracy is lost right at their zeros, as for any method that
does not factor the zeros out)."""

from __future__ import annotations

import functools
import math
from decimal import Decimal, localcontext

from ..autograd.function import Function, unbroadcast
from ..backend import xp_of
from .elementwise import _BERNOULLI

_EULER_GAMMA = 0.5772156649015329


def _as_float64(x):
    xp = xp_of(x)
    return xp, x.astype(xp.float64)


# ------------------------------------------------------------------ orthogonal polynomials
def _first_polynomial(kind, x):
    """The degree-1 polynomial of each family."""
    if kind == "chebyshev_u" or kind == "hermite_h":
        return 2 * x
    if kind == "chebyshev_v":
        return 2 * x - 1
    if kind == "chebyshev_w":
        return 2 * x + 1
    if kind == "laguerre":
        return 1 - x
    return x  # chebyshev_t, hermite_he, legendre


def _next_polynomial(kind, j, x, p, p_prev):
    """p_(j+1) from p_j and p_(j-1): each family's three-term recurrence."""
    if kind == "hermite_h":
        return 2 * x * p - 2 * j * p_prev
    if kind == "hermite_he":
        return x * p - j * p_prev
    if kind == "laguerre":
        return ((2 * j + 1 - x) * p - j * p_prev) / (j + 1)
    if kind == "legendre":
        return ((2 * j + 1) * x * p - j * p_prev) / (j + 1)
    return 2 * x * p - p_prev  # the four Chebyshev families share it


def _chebyshev_by_angle(kind, x, n):
    """The Chebyshev polynomials on |x| < 1 through x = cos(theta): T_n = cos(n theta),
    U_n = sin((n+1) theta) / sin(theta), V_n = cos((n+1/2) theta) / cos(theta/2),
    W_n = sin((n+1/2) theta) / sin(theta/2) (for a large n, cheaper than the recurrence)."""
    xp = xp_of(x)
    theta = xp.arccos(x)
    if kind == "chebyshev_t":
        return xp.cos(n * theta)
    if kind == "chebyshev_u":
        return xp.sin((n + 1) * theta) / xp.sin(theta)
    if kind == "chebyshev_v":
        return xp.cos((n + 0.5) * theta) / xp.cos(theta / 2)
    return xp.sin((n + 0.5) * theta) / xp.sin(theta / 2)


def orthogonal_polynomial(kind, x, n):
    """The polynomial of degree n of the family ``kind`` at x, by its three-term recurrence
    (shifted Chebyshev: at 2x - 1). As PyTorch: n is truncated to an integer; a negative,
    nan or infinite n gives 0; the Chebyshev polynomials take their closed forms at
    |x| = 1 and, for |x| < 1 and n > 6 (T) or n > 8 (U, V, W), the angle forms."""
    out_dtype = x.dtype
    xp, x = _as_float64(x)
    x, n = xp.broadcast_arrays(x, n.astype(xp.float64))
    if kind.startswith("shifted_"):
        kind, x = kind[len("shifted_") :], 2 * x - 1
    degree = xp.where(xp.isfinite(n) & (n > -1), xp.trunc(xp.where(xp.isfinite(n), n, 0)), -1)
    result = xp.where(degree == 0, 1.0, 0.0)
    by_recurrence = degree >= 1
    if kind.startswith("chebyshev"):
        angle = (xp.abs(x) < 1) & (degree > (6 if kind == "chebyshev_t" else 8))
        result = xp.where(angle, _chebyshev_by_angle(kind, xp.where(angle, x, 0.0), degree), result)
        by_recurrence = by_recurrence & ~angle
    p_prev, p = xp.ones_like(x), _first_polynomial(kind, x)
    result = xp.where(by_recurrence & (degree == 1), p, result)
    highest = int(xp.max(xp.where(by_recurrence, degree, 0))) if x.size else 0
    for j in range(1, highest):
        p_prev, p = p, _next_polynomial(kind, j, x, p, p_prev)
        result = xp.where(by_recurrence & (degree == j + 1), p, result)
    return result.astype(out_dtype)


# ---------------------------------------------------------- Bessel functions J0 J1 Y0 Y1
def _jy_series(x):
    """J0, J1, Y0, Y1 for 0 < x < 1 by their power series in u = x^2 / 4:
    J0 = sum (-u)^k / k!^2, J1 = (x/2) sum (-u)^k / (k! (k+1)!),
    Y0 = (2/pi) [(log(x/2) + gamma) J0 + sum_(k>=1) (-1)^(k+1) H_k u^k / k!^2],
    Y1 = -2/(pi x) + (2/pi) log(x/2) J1 - (x/(2 pi)) sum (-u)^k (psi(k+1) + psi(k+2))
    / (k! (k+1)!), with H_k the harmonic numbers and psi(k+1) = H_k - gamma."""
    xp = xp_of(x)
    u = x * x / 4
    log_half = xp.log(x / 2)
    t0, t1 = xp.ones_like(x), xp.ones_like(x)  # (-u)^k / k!^2 and (-u)^k / (k! (k+1)!)
    j0, j1, s0 = t0, t1, xp.zeros_like(x)
    s1 = t1 * (1 - 2 * _EULER_GAMMA)  # psi(1) + psi(2) = 1 - 2 gamma
    harmonic = 0.0
    for k in range(1, 25):
        harmonic += 1 / k
        t0 = -t0 * u / (k * k)
        t1 = -t1 * u / (k * (k + 1))
        j0, j1 = j0 + t0, j1 + t1
        s0 = s0 - harmonic * t0
        s1 = s1 + (2 * harmonic + 1 / (k + 1) - 2 * _EULER_GAMMA) * t1
    j1 = j1 * x / 2
    y0 = 2 / math.pi * ((log_half + _EULER_GAMMA) * j0 + s0)
    y1 = -2 / (math.pi * x) + 2 / math.pi * log_half * j1 - x / (2 * math.pi) * s1
    return j0, j1, y0, y1


def _jy_miller(x):
    """J0, J1, Y0, Y1 for 1 <= x <= 20: J_n by Miller's backward recurrence
    J_(n-1) = (2n/x) J_n - J_(n+1) from far above, normalised by J0 + 2 (J2 + J4 + ...) = 1;
    then Neumann's series Y0 = (2/pi) (log(x/2) + gamma) J0 - (4/pi) sum (-1)^k J_2k / k
    and its derivative Y1 = -Y0' = (2/pi) [(log(x/2) + gamma) J1 - J0 / x
    + sum (-1)^k (J_(2k-1) - J_(2k+1)) / k]."""
    xp = xp_of(x)
    top = 2 * (int(float(xp.max(x)) + math.sqrt(60 * float(xp.max(x)))) // 2 + 12)
    j_above, j = xp.zeros_like(x), xp.full(x.shape, 1e-30)  # J_(top+1), J_top (unscaled)
    norm, s0, s1 = xp.zeros_like(x), xp.zeros_like(x), xp.zeros_like(x)
    for m in range(top - 1, -1, -1):
        j_above, j = j, (2 * (m + 1) / x) * j - j_above  # j is now J_m
        if m % 2 == 0 and m > 0:
            norm = norm + 2 * j
            s0 = s0 + (-1) ** (m // 2) * j / (m // 2)
        elif m % 2 == 1:  # J_m's coefficient in sum (-1)^k (J_(2k-1) - J_(2k+1)) / k
            i = m // 2
            s1 = s1 + (-1) ** (i + 1) * (1 / (i + 1) + (1 / i if i else 0)) * j
    norm = norm + j
    j0, j1 = j / norm, j_above / norm
    log_term = xp.log(x / 2) + _EULER_GAMMA
    y0 = 2 / math.pi * (log_term * j0 - 2 * s0 / norm)
    y1 = 2 / math.pi * (log_term * j1 - j0 / x + s1 / norm)
    return j0, j1, y0, y1


def _hankel_series(order, x, terms=40):
    """P and Q of Hankel's asymptotic expansion of J and Y of ``order`` (x >= 20):
    the terms a_k = prod_(i<=k) (4 order^2 - (2i - 1)^2) / (8 i x), P = a_0 - a_2 + a_4 ...
    and Q = a_1 - a_3 + ... (at x = 20 the terms are below 1e-16 from k = 21 and smallest,
    5e-19, at k = 40, where the sums stop)."""
    xp = xp_of(x)
    term, p, q = xp.ones_like(x), xp.ones_like(x), xp.zeros_like(x)
    for k in range(1, terms):
        term = term * (4 * order * order - (2 * k - 1) ** 2) / (8 * k * x)
        if k % 2:
            q = q + (-1) ** (k // 2) * term
        else:
            p = p + (-1) ** (k // 2) * term
    return p, q


def _jy_asymptotic(order, x):
    """J and Y of ``order`` 0 or 1 for x >= 20: sqrt(2 / (pi x)) (P cos(chi) - Q sin(chi))
    and sqrt(2 / (pi x)) (P sin(chi) + Q cos(chi)), chi = x - (2 order + 1) pi / 4, with
    cos(chi) and sin(chi) from cos x and sin x (x - pi/4 would round away x's digits)."""
    xp = xp_of(x)
    p, q = _hankel_series(order, x)
    c, s = xp.cos(x), xp.sin(x)
    if order == 0:
        cos_chi, sin_chi = (c + s) / math.sqrt(2), (s - c) / math.sqrt(2)
    else:
        cos_chi, sin_chi = (s - c) / math.sqrt(2), -(s + c) / math.sqrt(2)
    scale = xp.sqrt(2 / (math.pi * x))
    return scale * (p * cos_chi - q * sin_chi), scale * (p * sin_chi + q * cos_chi)


def bessel_jy(kind, x):
    """J0, J1, Y0 or Y1 (``kind``) of x: power series below 1, Miller's recurrence up to
    20, Hankel's expansion beyond. As PyTorch: J0 even, J1 odd, Y0 and Y1 nan for x < 0
    and -inf at 0; nan at +-inf."""
    out_dtype = x.dtype
    xp, x = _as_float64(x)
    a = xp.abs(x)
    small, large = a < 1, a > 20
    middle = ~small & ~large & xp.isfinite(a)
    order = int(kind[1])
    result = xp.full(x.shape, math.nan)
    index = ("j0", "j1", "y0", "y1").index(kind)  # (the order the two methods return them)
    for mask, method in ((small, _jy_series), (middle, _jy_miller)):
        if bool(xp.any(mask)):
            values = method(xp.where(mask, a, 1.0))[index]
            result = xp.where(mask, values, result)
    if bool(xp.any(large)):
        j, y = _jy_asymptotic(order, xp.where(large, a, 20.0))
        result = xp.where(large, j if kind[0] == "j" else y, result)
    if kind == "j0":
        result = xp.where(x == 0, 1.0, result)
    elif kind == "j1":
        result = xp.where(x < 0, -result, xp.where(x == 0, x, result))
    else:
        result = xp.where(x < 0, math.nan, xp.where(x == 0, -math.inf, result))
    return result.astype(out_dtype)


def spherical_bessel_j0(x):
    """sin(x) / x: 1 at 0, 0 at +-inf (PyTorch's)."""
    out_dtype = x.dtype
    xp, x = _as_float64(x)
    safe = xp.where((x == 0) | xp.isinf(x), 1.0, x)
    result = xp.where(x == 0, 1.0, xp.sin(safe) / safe)
    return xp.where(xp.isinf(x), 0.0, result).astype(out_dtype)


# ------------------------------------------------------------ modified Bessel K0 K1
def _k_series(order, x):
    """K0 or K1 for 0 < x <= 1 by their series in u = x^2 / 4:
    K0 = -(log(x/2) + gamma) I0 + sum_(k>=1) H_k u^k / k!^2,
    K1 = 1/x + log(x/2) I1 - (x/4) sum (psi(k+1) + psi(k+2)) u^k / (k! (k+1)!)."""
    xp = xp_of(x)
    u = x * x / 4
    log_half = xp.log(x / 2)
    t0, t1 = xp.ones_like(x), xp.ones_like(x)
    i0, i1, s0 = t0, t1, xp.zeros_like(x)
    s1 = t1 * (1 - 2 * _EULER_GAMMA)
    harmonic = 0.0
    for k in range(1, 20):
        harmonic += 1 / k
        t0 = t0 * u / (k * k)
        t1 = t1 * u / (k * (k + 1))
        i0, i1 = i0 + t0, i1 + t1
        s0 = s0 + harmonic * t0
        s1 = s1 + (2 * harmonic + 1 / (k + 1) - 2 * _EULER_GAMMA) * t1
    if order == 0:
        return -(log_half + _EULER_GAMMA) * i0 + s0
    return 1 / x + log_half * i1 * x / 2 - x / 4 * s1


def scaled_bessel_k_integral(order, x, points=64):
    """exp(x) K_order(x) for x > 0 from K_v(x) = integral_0^inf exp(-x cosh t) cosh(v t) dt:
    exp(x) K_v(x) = integral_0^inf exp(-2 x sinh(t/2)^2) cosh(v t) dt by the trapezoidal
    rule on [0, T], T where the integrand has fallen to e^-40. The integrand is even and
    analytic, so the rule converges geometrically (``points`` nodes reach float64 for
    x >= 0.2), and every term is positive: no cancellation."""
    xp = xp_of(x)
    end = 2 * xp.arcsinh(xp.sqrt(20 / x))
    step = end / points
    total = 0.5 * xp.ones_like(x)  # (the t = 0 node, weight 1/2)
    for i in range(1, points + 1):
        t = i * step
        total = total + xp.exp(-2 * x * xp.sinh(t / 2) ** 2) * xp.cosh(order * t)
    return total * step


def bessel_k(order, x, scaled):
    """K0 or K1 (``order``) of x, or exp(x) K (``scaled``): series up to 1, the integral
    beyond. As PyTorch: inf at 0, nan for x < 0, 0 at inf."""
    out_dtype = x.dtype
    xp, x = _as_float64(x)
    positive = (x > 0) & (x < math.inf)
    small = positive & (x <= 1)
    safe = xp.where(positive, x, 1.0)
    integral = scaled_bessel_k_integral(order, xp.where(small, 2.0, safe))
    if not scaled:
        integral = integral * xp.exp(-safe)
    series = _k_series(order, xp.where(small, safe, 1.0))
    if scaled:
        series = series * xp.exp(safe)
    result = xp.where(small, series, integral)
    result = xp.where(x == 0, math.inf, xp.where(x == math.inf, 0.0, result))
    return xp.where((x < 0) | xp.isnan(x), math.nan, result).astype(out_dtype)


# ---------------------------------------------------------------------------- Airy Ai
_AIRY_NODES = 11  # the Taylor nodes 0, -1, ..., -10


@functools.lru_cache(maxsize=1)
def _airy_node_values():
    """(Ai(-m), Ai'(-m)) for m = 0 .. 10, from the Maclaurin series summed in 60-digit
    decimals (the series loses ~9 digits to cancellation at -10, which they absorb).
    Ai(0) = 1 / (3^(2/3) Gamma(2/3)), Ai'(0) = -1 / (3^(1/3) Gamma(1/3))."""
    with localcontext() as context:
        context.prec = 60
        three = Decimal(3)
        gamma_third = Decimal("2.6789385347077476336556929409746776441286893779573")
        gamma_two_thirds = Decimal("1.3541179394264004169452880281545137855193272660568")
        c1 = 1 / (three ** (Decimal(2) / 3) * gamma_two_thirds)
        c2 = 1 / (three ** (Decimal(1) / 3) * gamma_third)
        nodes = []
        for m in range(_AIRY_NODES):
            x = Decimal(-m)
            f, g, df, dg = Decimal(1), x, Decimal(0), Decimal(1)
            a, b = Decimal(1), Decimal(1)  # coefficients of x^3k in f, of x^(3k+1) in g
            for k in range(1, 120):
                a = a / ((3 * k - 1) * (3 * k))
                b = b / ((3 * k) * (3 * k + 1))
                f += a * x ** (3 * k)
                g += b * x ** (3 * k + 1)
                df += 3 * k * a * x ** (3 * k - 1)
                dg += (3 * k + 1) * b * x ** (3 * k)
            nodes.append((float(c1 * f - c2 * g), float(c1 * df - c2 * dg)))
    return nodes


def _airy_taylor(x):
    """Ai on [-10.5, 0.5) by Taylor's series about the nearest node x0 (|h| <= 1/2): with
    Ai'' = x Ai, its coefficients obey c_(n+2) = (x0 c_n + c_(n-1)) / ((n+2)(n+1))."""
    xp = xp_of(x)
    x0 = xp.round(x)
    h = x - x0
    table = xp.asarray(_airy_node_values())
    index = xp.clip(-x0, 0, _AIRY_NODES - 1).astype(xp.int64)
    c_prev, c, c_next = xp.zeros_like(x), table[index, 0], table[index, 1]
    total, power = c + c_next * h, h
    for n in range(0, 40):  # (c_prev, c, c_next) = (c_(n-1), c_n, c_(n+1)) -> c_(n+2)
        c_prev, c, c_next = c, c_next, (x0 * c + c_prev) / ((n + 2) * (n + 1))
        power = power * h
        total = total + c_next * power
    return total


def _airy_negative_asymptotic(x):
    """Ai(-z) for z > 10.5: z^(-1/4) / sqrt(pi) [sin(zeta + pi/4) P - cos(zeta + pi/4) Q],
    zeta = (2/3) z^(3/2), P = sum (-1)^k u_2k zeta^-2k, Q = sum (-1)^k u_(2k+1)
    zeta^-(2k+1), u_k = u_(k-1) (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k)."""
    xp = xp_of(x)
    z = -x
    zeta = 2 / 3 * z * xp.sqrt(z)
    u, p, q, term = 1.0, xp.ones_like(x), xp.zeros_like(x), xp.ones_like(x)
    for k in range(1, 30):
        u = u * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k)
        term = term / zeta
        if k % 2:
            q = q + (-1) ** (k // 2) * u * term
        else:
            p = p + (-1) ** (k // 2) * u * term
    s, c = xp.sin(zeta), xp.cos(zeta)
    sin_phase, cos_phase = (s + c) / math.sqrt(2), (c - s) / math.sqrt(2)
    return (sin_phase * p - cos_phase * q) / (math.sqrt(math.pi) * z**0.25)


def airy_ai(x):
    """The Airy function Ai(x): Taylor series about the nodes 0, -1, ..., -10 on
    [-10.5, 0.5); above, Ai(x) = sqrt(x/3) K_(1/3)(zeta) / pi with zeta = (2/3) x^(3/2)
    (K by its integral); below, the asymptotic expansion. nan at +-inf (PyTorch's)."""
    out_dtype = x.dtype
    xp, x = _as_float64(x)
    finite = xp.isfinite(x)
    taylor = finite & (x >= -10.5) & (x < 0.5)
    positive = finite & (x >= 0.5)
    negative = finite & (x < -10.5)
    result = xp.full(x.shape, math.nan)
    if bool(xp.any(taylor)):
        result = xp.where(taylor, _airy_taylor(xp.where(taylor, x, 0.0)), result)
    if bool(xp.any(positive)):
        safe = xp.where(positive, x, 1.0)
        zeta = 2 / 3 * safe * xp.sqrt(safe)
        k = scaled_bessel_k_integral(1 / 3, zeta) * xp.exp(-zeta)
        result = xp.where(positive, xp.sqrt(safe / 3) * k / math.pi, result)
    if bool(xp.any(negative)):
        values = _airy_negative_asymptotic(xp.where(negative, x, -20.0))
        result = xp.where(negative, values, result)
    return result.astype(out_dtype)


# -------------------------------------------------------------------- Hurwitz zeta
def hurwitz_zeta(s, q):
    """zeta(s, q) = sum_(k>=0) (q + k)^-s, by Euler-Maclaurin: the first ten terms, and
    more while q + k < 10, summed directly, then at w = q + k, w^(1-s) / (s-1) + w^-s / 2
    + sum_j B_2j / (2j)! s (s+1) ... (s+2j-2) w^(-s-2j+1) (10 terms; error below 1e-20 of
    the result). As PyTorch: inf at s = 1 and at q = 0, -1, -2 ...; nan for s < 1, for a
    negative q with s not whole, and at q = inf; for s = inf, 1 at q = 1, inf for q < 1 and
    nan for q > 1."""
    out_dtype = xp_of(s).result_type(s, q)
    xp, s = _as_float64(s)
    s, q = xp.broadcast_arrays(s, q.astype(xp.float64))
    pole = (q <= 0) & (xp.floor(q) == q)
    bad = (s < 1) | xp.isnan(s) | xp.isnan(q) | ((q < 0) & (xp.floor(s) != s)) | (q == xp.inf)
    ok = ~(bad | pole | (s == 1) | (s == xp.inf))
    s_ok, w = xp.where(ok, s, 2.0), xp.where(ok, q, 1.0)
    total = xp.zeros_like(s_ok)
    for _ in range(10):  # (ten terms always: for a large s they are nearly all of it)
        total, w = total + w ** (-s_ok), w + 1
    below = w < 10
    while bool(xp.any(below)):
        total = total + xp.where(below, w ** (-s_ok), 0.0)
        w = xp.where(below, w + 1, w)
        below = w < 10
    total = total + w ** (1 - s_ok) / (s_ok - 1) + w ** (-s_ok) / 2
    rising, power, factorial = s_ok, w ** (-s_ok - 1), 2.0
    for j, b in enumerate(_BERNOULLI, start=1):
        total = total + b / factorial * rising * power
        rising = rising * (s_ok + 2 * j - 1) * (s_ok + 2 * j)
        power = power / (w * w)
        factorial *= (2 * j + 1) * (2 * j + 2)
    result = xp.where(ok, total, math.nan)
    result = xp.where((pole & ((s >= 1) | xp.isnan(s))) | (s == 1), math.inf, result)
    at_inf = (s == xp.inf) & ~xp.isnan(q) & (q != xp.inf)
    inf_values = xp.where(q == 1, 1.0, xp.where(q < 1, math.inf, math.nan))
    return xp.where(at_inf, inf_values, result).astype(out_dtype)


class Zeta(Function):
    """The Hurwitz zeta function zeta(s, q). d/dq zeta(s, q) = -s zeta(s + 1, q); d/ds has
    no closed form and, as in PyTorch, is not implemented."""

    def forward(self, s, q):
        self.save_for_backward(s, q)
        return hurwitz_zeta(s, q)

    def backward(self, grad):
        s, q = self.saved
        if self.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        slope = -s * hurwitz_zeta(s + 1, q)
        return None, unbroadcast(grad * slope.astype(grad.dtype), q.shape)

    def name(self) -> str:
        return "SpecialZetaBackward0"
