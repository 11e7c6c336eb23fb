"""Op-spec cases: the inverse hyperbolic functions, the special functions
(digamma, lgamma, polygamma, i0/i0e/i1/i1e, erfinv), trunc, logit, stanh,
atan2, elementwise_heaviside/fmax/fmin, nextafter, lerp, logspace.

The special functions' references are independent of sampan's numerics:
lgamma is the standard library's, digamma its central difference, polygamma
the defining series, the Bessel functions their integral representation,
erfinv the bisection of math.erf."""
import math

import numpy as np

from .spec import Case, rand, away_from

A = rand(2, 3, seed=61)
B = rand(2, 3, seed=62)
UNIT = rand(2, 3, low=-0.9, high=0.9, seed=63)
POS = rand(2, 3, low=0.3, high=3.0, seed=64)
BIG = rand(2, 3, low=1.2, high=3.0, seed=65)
WIDE = away_from(rand(3, 4, low=-6.0, high=6.0, seed=66), [-5, -4, -3, -2, -1, 0], 0.1)
BESSEL = rand(3, 5, low=-40.0, high=40.0, seed=67)

_lgamma = np.vectorize(math.lgamma)


def _digamma(x):
    h = 1e-5
    return (_lgamma(x + h) - _lgamma(x - h)) / (2 * h)


def _polygamma(n, x):
    # (-1)^(n+1) n! sum_k (x + k)^-(n+1), the tail past K by its integral
    k = np.arange(20000.0)
    terms = (x[..., None] + k) ** -(n + 1.0)
    tail = (x + 20000.0) ** -float(n) / n + 0.5 * (x + 20000.0) ** -(n + 1.0)
    return (-1.0) ** (n + 1) * math.factorial(n) * (terms.sum(-1) + tail)


def _bessel(nu, x):
    # I_nu(x) = 1/pi int_0^pi e^(x cos t) cos(nu t) dt (trapezoid: exact for periodic)
    t = np.linspace(0.0, np.pi, 4001)
    w = np.full(t.shape, 1.0)
    w[0] = w[-1] = 0.5
    f = np.exp(np.multiply.outer(x, np.cos(t))) * np.cos(nu * t)
    return (f * w).sum(-1) * (t[1] - t[0]) / np.pi


def _bessel_e(nu, x):
    t = np.linspace(0.0, np.pi, 4001)
    w = np.full(t.shape, 1.0)
    w[0] = w[-1] = 0.5
    f = np.exp(np.multiply.outer(x, np.cos(t)) - np.abs(x)[..., None]) * np.cos(nu * t)
    return (f * w).sum(-1) * (t[1] - t[0]) / np.pi


def _erfinv(x):
    def one(v):
        lo, hi = -6.0, 6.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if math.erf(mid) < v else (lo, mid)
        return 0.5 * (lo + hi)
    return np.vectorize(one)(x)


def _unary(op, x, ref, attrs=None, **kw):
    return Case(op, {"X": x}, attrs or {}, ref=lambda X: ref(X), **kw)


def _lower(op, x, ref, attrs=None, **kw):
    return Case(op, {"x": x}, attrs or {}, ref=lambda x: ref(x), **kw)


def _masked(x, y, take_x):
    return np.where(take_x, x, y)


def _logspace(start, stop, num, base, dtype="float64"):
    ins = {"Start": np.array([start], dtype), "Stop": np.array([stop], dtype),
           "Num": np.array([num], "int32"), "Base": np.array([base], dtype)}
    enum = {"float32": 5, "float64": 6, "int32": 2, "int64": 3}[dtype]
    ref = (lambda Start, Stop, Num, Base: np.power(float(base), np.linspace(
        float(start), float(stop), num)).astype(dtype))
    return Case("logspace", ins, {"dtype": enum}, ref=ref, grad=False,
                id=f"logspace_{dtype}_{num}")


CASES = [
    _unary("acosh", BIG, np.arccosh),
    _unary("asinh", A * 3, np.arcsinh),
    _unary("atanh", UNIT, np.arctanh),
    _unary("digamma", WIDE, _digamma, rtol=1e-6, atol=1e-7),
    _unary("digamma", rand(6, low=10.0, high=200.0, seed=68), _digamma, rtol=1e-7,
           grad=False, id="digamma_asymptotic"),
    _unary("lgamma", WIDE, _lgamma, rtol=1e-12, atol=1e-12),
    _unary("lgamma", np.array([0.0, -1.0, -3.0, 1.0, 2.0, 1e-12, 1e8]),
           lambda X: np.array([np.inf, np.inf, np.inf, 0.0, 0.0, math.lgamma(1e-12),
                               math.lgamma(1e8)]), grad=False, id="lgamma_poles"),
    _unary("lgamma", WIDE.astype("float32"), lambda X: _lgamma(X.astype("float64"))
           .astype("float32"), rtol=1e-6, atol=1e-6, grad=False, id="lgamma_float32"),
    _unary("erfinv", UNIT, _erfinv, rtol=1e-10),
    _unary("erfinv", np.array([-1.0, 1.0, 1.5, -2.0, 0.0, 1 - 1e-12]),
           lambda X: np.array([-np.inf, np.inf, np.inf, -np.inf, 0.0,
                               _erfinv(np.array(1 - 1e-12))]), grad=False, id="erfinv_edges"),
    _unary("trunc", away_from(A * 3, [-2, -1, 0, 1, 2]), np.trunc),
    _unary("trunc", np.array([-3, 0, 4], "int64"), lambda X: X, grad=False, id="trunc_int"),
    _unary("logit", rand(2, 3, low=0.05, high=0.95, seed=69), lambda X: np.log(X / (1 - X))),
    _unary("logit", away_from(rand(2, 4, low=-0.2, high=1.2, seed=70), [0.1, 0.9], 0.03),
           lambda X: np.log(np.clip(X, 0.1, 0.9) / (1 - np.clip(X, 0.1, 0.9))),
           {"eps": 0.1}, id="logit_eps"),
    _unary("stanh", A * 2, lambda X: 1.7159 * np.tanh(0.67 * X)),
    _unary("stanh", A * 2, lambda X: 0.5 * np.tanh(1.5 * X), {"scale_a": 1.5, "scale_b": 0.5},
           id="stanh_scales"),
    # ---------------------------------------------------------------- lower-case slots
    _lower("polygamma", POS, lambda x: _polygamma(1, x), {"n": 1}, rtol=1e-7),
    _lower("polygamma", WIDE, lambda x: _polygamma(2, x), {"n": 2}, rtol=1e-6,
           id="polygamma_n2_negative"),
    _lower("polygamma", np.array([0.0, -2.0]), lambda x: np.array([-np.inf, -np.inf]),
           {"n": 2}, grad=False, id="polygamma_poles"),
    _lower("i0", BESSEL / 4, lambda x: _bessel(0, x), rtol=1e-10),
    _lower("i0", BESSEL, lambda x: _bessel(0, x), rtol=1e-10, grad=False, id="i0_wide"),
    _lower("i0e", BESSEL, lambda x: _bessel_e(0, x), rtol=1e-10),
    _lower("i1", BESSEL / 4, lambda x: _bessel(1, x), rtol=1e-10),
    _lower("i1", np.array([0.0, 1e-9, -0.3]), lambda x: _bessel(1, x), rtol=1e-10,
           atol=1e-15, id="i1_zero"),
    _lower("i1", np.array([-31.0, 50.0, 29.5]), lambda x: _bessel(1, x), rtol=1e-10,
           grad=False, id="i1_asymptotic"),
    _lower("i1e", BESSEL, lambda x: _bessel_e(1, x), rtol=1e-10),
    _lower("i1e", np.array([0.0, -1e-9, 0.5]), lambda x: _bessel_e(1, x), rtol=1e-10,
           atol=1e-15, id="i1e_zero"),
    # ---------------------------------------------------------------- binary
    Case("atan2", {"X1": A, "X2": B}, ref=lambda X1, X2: np.arctan2(X1, X2)),
    Case("atan2", {"X1": np.array([1, -2, 0], "int32"), "X2": np.array([3, 4, -1], "int32")},
         ref=lambda X1, X2: np.arctan2(X1.astype("float64"), X2.astype("float64")),
         grad=False, id="atan2_int_float64_out"),
    Case("elementwise_heaviside", {"X": np.array([[-1.5, 0.0, 2.0], [0.0, 3.0, -0.1]]),
                                   "Y": B}, ref=lambda X, Y: np.heaviside(X, Y), grad=("Y",)),
    Case("elementwise_heaviside", {"X": A, "Y": rand(3, seed=74)},
         ref=lambda X, Y: np.heaviside(X, Y), id="heaviside_bcast"),
    Case("elementwise_heaviside", {"X": np.array([-2, 0, 5], "int64"),
                                   "Y": np.array([7], "int64")},
         ref=lambda X, Y: np.where(X == 0, 7, (X > 0).astype("int64")), grad=False,
         id="heaviside_int"),
    Case("elementwise_fmax", {"X": A, "Y": away_from(B, [], 0)},
         ref=lambda X, Y: np.fmax(X, Y)),
    Case("elementwise_fmax", {"X": np.array([[np.nan, 1.0, 2.0]]),
                              "Y": np.array([[0.5], [np.nan]])},
         ref=lambda X, Y: np.fmax(X, Y), grad=False, id="fmax_nan_bcast"),
    Case("elementwise_fmin", {"X": A, "Y": rand(3, seed=71)}, ref=lambda X, Y: np.fmin(X, Y)),
    Case("elementwise_fmin", {"X": np.array([3, -1], "int32"), "Y": np.array([2, 5], "int32")},
         ref=lambda X, Y: np.fmin(X, Y), grad=False, id="fmin_int"),
    Case("nextafter", {"x": A, "y": B}, ref=lambda x, y: np.nextafter(x, y), grad=False),
    Case("nextafter", {"x": A.astype("float32"), "y": np.zeros((2, 3), "float32")},
         ref=lambda x, y: np.nextafter(x, y), grad=False, id="nextafter_float32"),
    Case("lerp", {"X": A, "Y": B, "Weight": UNIT}, ref=lambda X, Y, Weight: X + Weight * (Y - X)),
    Case("lerp", {"X": rand(2, 1, seed=72), "Y": rand(3, seed=73), "Weight": np.array(0.3)},
         ref=lambda X, Y, Weight: X + Weight * (Y - X), id="lerp_bcast"),
    _logspace(0.0, 2.0, 5, 10.0),
    _logspace(1.0, 4.0, 4, 2.0, "float32"),
    _logspace(0, 3, 4, 10, "int64"),
    _logspace(2.0, 2.0, 1, 3.0),
]
