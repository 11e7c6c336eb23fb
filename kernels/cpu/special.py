"""Special functions in numpy, accurate to float64 rounding (no scipy):
lgamma, digamma, polygamma (through the Hurwitz zeta function), the modified
Bessel functions I0 and I1 (and their exponentially scaled forms) and erfinv.

Each takes and returns float64 arrays; the kernels (math_extra.py) compute
float32 inputs in float64 and round the result.  Values at the poles are
Paddle's: lgamma is +inf at 0, -1, -2, ...; digamma is NaN there; polygamma
is +-inf (the sign of (-1)^(n+1)).
"""
import math

import numpy as np

# ------------------------------------------------------------------ lgamma
# Lanczos approximation, g = 7, n = 9 (relative error about 1e-15 for x >= 0.5)
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028,
            771.32342877765313, -176.61502916214059, 12.507343278686905,
            -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _sinpi(x):
    """sin(pi x), exact at the integers (x reduced to [-1, 1] first)."""
    r = x - 2.0 * np.round(0.5 * x)
    return np.sin(np.pi * r)


def _lgamma_pos(x):
    """log Gamma(x) for x >= 0.5 (Lanczos)."""
    z = x - 1.0
    a = np.full_like(z, _LANCZOS[0])
    for k, c in enumerate(_LANCZOS[1:], 1):
        a += c / (z + k)
    t = z + _LANCZOS_G + 0.5
    return _HALF_LOG_2PI + (z + 0.5) * np.log(t) - t + np.log(a)


def lgamma(x):
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        small = x < 0.5
        out = _lgamma_pos(np.where(small, 1.0 - x, x))
        if small.any():
            # reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x)
            s = np.abs(_sinpi(x))
            refl = np.log(np.pi / s) - out
            out = np.where(small, refl, out)
            out = np.where(small & (x == np.floor(x)), np.inf, out)
        # exact zeros at 1 and 2 (the approximation is off by an ulp there)
        out = np.where((x == 1.0) | (x == 2.0), 0.0, out)
        out = np.where(np.isposinf(x), np.inf, out)
    return out


# ------------------------------------------------------------------ digamma
# psi(x) ~ log x - 1/(2x) - sum B_2k / (2k x^2k), for x >= 10
_DIGAMMA_B = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def digamma(x):
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        neg = x < 0.5
        y = np.where(neg, 1.0 - x, x)
        acc = np.zeros_like(y)
        for _ in range(10):                 # recurrence psi(y) = psi(y + 1) - 1/y
            low = y < 10.0
            if not low.any():
                break
            acc -= np.where(low, 1.0 / y, 0.0)
            y = np.where(low, y + 1.0, y)
        inv2 = 1.0 / (y * y)
        series = np.zeros_like(y)
        for b in reversed(_DIGAMMA_B):
            series = series * inv2 + b
        out = np.log(y) - 0.5 / y - inv2 * series + acc
        if neg.any():
            # reflection: psi(1 - x) - psi(x) = pi / tan(pi x)
            r = x - np.round(x)
            refl = out - np.pi / np.tan(np.pi * r)
            out = np.where(neg, refl, out)
        out = np.where((x <= 0) & (x == np.floor(x)), np.nan, out)
        out = np.where(np.isposinf(x), np.inf, out)
    return out


# ------------------------------------------------------------------ polygamma
# Hurwitz zeta(s, q) = sum_k (q + k)^-s, summed directly up to q + N >= 9 and
# finished with the Euler-Maclaurin tail (Cephes' coefficients (2j)!/B_2j)
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def hurwitz_zeta(s, q):
    """zeta(s, q) for an integer s > 1 and float64 array q (+inf at q = 0, -1, ...)."""
    q = np.asarray(q, dtype=np.float64)
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == np.floor(q))
        qq = np.where(pole, 1.0, q)
        finite = np.isfinite(qq)
        lo = float(np.min(qq[finite])) if finite.any() else 1.0
        n = 9 + max(0, int(math.ceil(9.0 - lo)))
        total = np.zeros_like(qq)
        a = qq.copy()
        for _ in range(n):
            total += a ** -s
            a += 1.0
        # Euler-Maclaurin: a^(1-s)/(s-1) + a^-s/2 + sum_j s(s+1)..(s+2j-2) a^(-s-2j+1) / A_j
        total += a ** (1.0 - s) / (s - 1.0) + 0.5 * a ** -s
        fac, b = 1.0, a ** -s
        for k, den in enumerate(_ZETA_A):
            fac *= s + 2 * k
            b = b / a
            total += fac * b / den
            fac *= s + 2 * k + 1
            b = b / a
        total = np.where(pole, np.inf, total)
        total = np.where(np.isposinf(q), 0.0, total)
    return total


def polygamma(n, x):
    """The n-th derivative of digamma (n >= 1): (-1)^(n+1) n! zeta(n + 1, x)."""
    if n == 0:
        return digamma(x)
    sign = 1.0 if n % 2 else -1.0
    return sign * math.factorial(n) * hurwitz_zeta(n + 1, x)


# ------------------------------------------------------------------ Bessel I0, I1
# |x| <= 30: the power series I_nu(x) = sum (x/2)^(2k+nu) / (k! (k+nu)!) (positive
# terms, no cancellation); beyond, the asymptotic series
# I_nu(x) ~ e^x / sqrt(2 pi x) sum_k (-1)^k a_k(nu) / x^k
_SERIES_MAX = 30.0
_SERIES_TERMS = 70
_ASYM_TERMS = 30


def _bessel_series(nu, x):
    q = 0.25 * x * x
    term = (0.5 * x) ** nu / math.factorial(nu)
    total = term.copy()
    for k in range(1, _SERIES_TERMS):
        term = term * q / (k * (k + nu))
        total += term
    return total


def _bessel_asym_scaled(nu, ax):
    """e^-x I_nu(x) for x > 30, by the asymptotic series."""
    mu = 4.0 * nu * nu
    total = np.ones_like(ax)
    term = np.ones_like(ax)
    for k in range(1, _ASYM_TERMS):
        term = term * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * ax)
        total += term
    return total / np.sqrt(2 * np.pi * ax)


def _bessel(nu, x, scaled):
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        near = ax <= _SERIES_MAX
        xs = np.where(near, ax, 0.0)
        series = _bessel_series(nu, xs)
        if scaled:
            series = series * np.exp(-xs)
        xa = np.where(near, _SERIES_MAX + 1.0, ax)
        asym = _bessel_asym_scaled(nu, xa)
        if not scaled:
            asym = asym * np.exp(xa)
        out = np.where(near, series, asym)
        out = np.where(np.isnan(x), np.nan, out)
    if nu == 1:
        out = np.where(x < 0, -out, out)      # I1 is odd
    return out


def i0(x):
    return _bessel(0, x, False)


def i0e(x):
    return _bessel(0, x, True)


def i1(x):
    return _bessel(1, x, False)


def i1e(x):
    return _bessel(1, x, True)


# ------------------------------------------------------------------ erfinv
_erf = np.frompyfunc(math.erf, 1, 1)
_erfc = np.frompyfunc(math.erfc, 1, 1)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
# Giles' single-precision approximation, the start of the Newton steps
_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                  0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
               0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner(coefs, w):
    p = np.full_like(w, coefs[0])
    for c in coefs[1:]:
        p = p * w + c
    return p


def erfinv(x):
    """Inverse error function: +-inf at +-1 and beyond (Paddle's ndtri-based
    kernel saturates), NaN for NaN."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        inside = np.abs(x) < 1.0
        xi = np.where(inside, x, 0.0)
        w = -np.log((1.0 - xi) * (1.0 + xi))
        y = np.where(w < 5.0, _horner(_GILES_CENTRAL, w - 2.5),
                     _horner(_GILES_TAIL, np.sqrt(w) - 3.0)) * xi
        ax = np.abs(xi)
        tail = ax > 0.5
        for _ in range(3):
            # Newton on erf(y) = x, in the tails on erfc(|y|) = 1 - |x| (exact)
            ay = np.abs(y)
            deriv = _TWO_OVER_SQRT_PI * np.exp(-ay * ay)
            f_mid = np.asarray(_erf(y), np.float64) - xi
            f_tail = (1.0 - ax) - np.asarray(_erfc(ay), np.float64)
            step = np.where(tail, np.sign(xi) * f_tail, f_mid) / deriv
            y = y - np.where(deriv > 0, step, 0.0)
        out = np.where(inside, y, np.where(x >= 1.0, np.inf, -np.inf))
        out = np.where(np.isnan(x), np.nan, out)
    return out
