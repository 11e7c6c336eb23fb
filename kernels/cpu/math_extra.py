"""numpy kernels of ops/defs/math_extra.py: the inverse hyperbolic functions,
the special functions (their numerics in special.py), trunc, logit, stanh,
atan2, heaviside/fmax/fmin, nextafter, lerp, logspace, and their grads.

The special functions compute float32 (and float16) in float64 and round the
result to the input's dtype.
"""
import math

import numpy as np

from ...ops import OpError
from ...ops.defs.creation import attr_dtype
from ...ops.defs.math_extra import nextafter_check
from ..registry import kernel, FLOATS, NUMERIC
from .elementwise import reduce_to
from .math import register_unary
from . import special as S


def f32(v):
    """A FLOAT attribute as Paddle's kernels read it, in every mode: a float32
    (a static Program's attribute is one already; eager Paddle passes a C++ float)."""
    return float(np.float32(v))


def _in64(fn):
    """``fn`` (float64 -> float64) computed for any float dtype, cast back."""
    def f(x, *rest):
        return np.asarray(fn(x.astype(np.float64, copy=False), *rest), dtype=x.dtype)
    return f


# ------------------------------------------------------------------ unary
_SQRT_PI_2 = math.sqrt(math.pi) / 2


def _trunc(x):
    return np.trunc(x) if x.dtype.kind == "f" else x.copy()


def _logit(x, attrs):
    eps = f32(attrs["eps"])
    if eps > 0:     # Paddle's clip: min(x, 1 - eps), then max(., eps) (eps > 0.5: eps)
        lo, hi = x.dtype.type(eps), x.dtype.type(1 - eps)
        x = np.where(x > hi, hi, x)
        x = np.where(x < lo, lo, x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x / (1 - x))


def _logit_grad(x, g, attrs):
    eps = f32(attrs["eps"])
    with np.errstate(divide="ignore", invalid="ignore"):
        d = g / (x * (1 - x))
    # Paddle: no gradient outside [eps, 1 - eps] (for eps = 0, outside [0, 1])
    return np.where((x < eps) | (x > 1 - eps), np.zeros_like(d), d)


def _stanh(x, attrs):
    a, b = x.dtype.type(f32(attrs["scale_a"])), x.dtype.type(f32(attrs["scale_b"]))
    return b * np.tanh(a * x)


def _stanh_grad(x, g, attrs):
    a, b = x.dtype.type(f32(attrs["scale_a"])), x.dtype.type(f32(attrs["scale_b"]))
    t = np.tanh(a * x)
    return g * (a * b) * (1 - t * t)


def _errs(fn):
    def f(*xs):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return fn(*xs)
    return f


UNARY = {
    # name: (forward, grad of (uses..., Out@GRAD), forward dtypes)
    "acosh": (np.arccosh, lambda x, g: g / np.sqrt(x * x - 1), FLOATS),
    "asinh": (np.arcsinh, lambda x, g: g / np.sqrt(x * x + 1), FLOATS),
    "atanh": (np.arctanh, lambda x, g: g / (1 - x * x), FLOATS),
    "digamma": (_in64(S.digamma), lambda x, g: g * _in64(lambda v: S.polygamma(1, v))(x),
                FLOATS),
    "lgamma": (_in64(S.lgamma), lambda x, g: g * _in64(S.digamma)(x), FLOATS),
    "erfinv": (_in64(S.erfinv), lambda out, g: g * _SQRT_PI_2 * np.exp(out * out), FLOATS),
    "trunc": (_trunc, lambda g: np.zeros_like(g), NUMERIC),
    # the lower-case ops: i0e, i1 and i1e grads read out too
    "i0": (_in64(S.i0), lambda x, g: g * _in64(S.i1)(x), FLOATS),
    "i0e": (_in64(S.i0e), lambda x, out, g: g * (_in64(S.i1e)(x) - np.sign(x) * out), FLOATS),
    "i1": (_in64(S.i1), lambda x, out, g: g * _bessel_ratio(_in64(S.i0)(x), x, out, 0), FLOATS),
    "i1e": (_in64(S.i1e),
            lambda x, out, g: g * _bessel_ratio(_in64(S.i0e)(x), x, out, 1), FLOATS),
}


def _bessel_ratio(i0v, x, out, scaled):
    """d/dx of I1 (scaled=0: I0 - I1/x) or of e^-|x| I1 (scaled=1: I0e - I1e (sign
    + 1/x)), with the limit 1/2 at x = 0."""
    safe = np.where(x == 0, np.ones_like(x), x)
    d = i0v - out * (np.sign(x) * scaled + 1 / safe)
    return np.where(x == 0, np.full_like(d, 0.5), d)


for _name, (_f, _g, _dts) in UNARY.items():
    register_unary(_name, _errs(_f), _errs(_g), _dts,
                   grad_dtypes=FLOATS if _dts is NUMERIC else _dts)

register_unary("logit", _logit, _logit_grad, FLOATS, attrs=True)
register_unary("stanh", _errs(_stanh), _stanh_grad, FLOATS, attrs=True)


def _polygamma(x, attrs):
    return np.asarray(S.polygamma(attrs["n"], x.astype(np.float64)), dtype=x.dtype)


def _polygamma_grad(x, g, attrs):
    return g * np.asarray(S.polygamma(attrs["n"] + 1, x.astype(np.float64)), dtype=x.dtype)


register_unary("polygamma", _errs(_polygamma), _errs(_polygamma_grad), FLOATS, attrs=True)


# ------------------------------------------------------------------ atan2
@kernel("atan2", dtypes=NUMERIC)
def atan2(ins, attrs, need):
    x, y = ins
    if x.shape != y.shape:
        raise OpError(f"op 'atan2': X1 {list(x.shape)} and X2 {list(y.shape)} must have the "
                      f"same shape")
    if x.dtype.kind in "iu":          # Paddle's integer kernels return float64
        x, y = x.astype(np.float64), y.astype(np.float64)
    return (np.arctan2(x, y),)


@kernel("atan2_grad", dtypes=FLOATS)
def atan2_grad(ins, attrs, need):
    x, y, g = ins
    with np.errstate(divide="ignore", invalid="ignore"):
        r = g / (x * x + y * y)
    return r * y, -r * x


# ------------------------------------------------------------------ heaviside, fmax, fmin
def _heaviside(x, y):
    # Paddle's functor: y where x == 0, else (x > 0); a NaN x gives 0
    out = np.where(x == 0, y, (x > 0).astype(x.dtype))
    return np.asarray(out, dtype=x.dtype)


def _binary(op_type, fn):
    @kernel(op_type, dtypes=NUMERIC)
    def k(ins, attrs, need):
        return (np.asarray(fn(ins[0], ins[1])),)
    k.fast = lambda attrs: (lambda x, y: np.asarray(fn(x, y)))
    k.fresh = True
    return k


_binary("elementwise_heaviside", _heaviside)
_binary("elementwise_fmax", np.fmax)
_binary("elementwise_fmin", np.fmin)


def _binary_grad(op_type, masks):
    """Grad of X and Y from ``masks(x, y) -> (mx, my)``: dX = g mx, dY = g my,
    each summed back to its input's shape."""
    @kernel(f"{op_type}_grad", dtypes=NUMERIC)
    def k(ins, attrs, need):
        x, y, g = ins
        mx, my = masks(x, y)
        dx = dy = None
        if need is None or need[0]:
            dx = reduce_to(np.where(mx, g, 0).astype(g.dtype, copy=False), x.shape)
        if need is None or need[1]:
            dy = reduce_to(np.where(my, g, 0).astype(g.dtype, copy=False), y.shape)
        return dx, dy
    return k


def _fmax_masks(x, y):
    with np.errstate(invalid="ignore"):
        take_x = (x >= y) | np.isnan(y)
    return take_x, ~take_x


def _fmin_masks(x, y):
    with np.errstate(invalid="ignore"):
        take_x = (x <= y) | np.isnan(y)
    return take_x, ~take_x


_binary_grad("elementwise_heaviside", lambda x, y: (np.zeros(np.broadcast_shapes(
    x.shape, y.shape), bool), np.broadcast_to(x == 0, np.broadcast_shapes(x.shape, y.shape))))
_binary_grad("elementwise_fmax", _fmax_masks)
_binary_grad("elementwise_fmin", _fmin_masks)


# ------------------------------------------------------------------ nextafter
@kernel("nextafter", dtypes=("float32", "float64"))
def nextafter(ins, attrs, need):
    x, y = ins
    nextafter_check(x.dtype, y.dtype, x.shape, y.shape)
    return (np.nextafter(x, y),)


# ------------------------------------------------------------------ lerp
@kernel("lerp", dtypes=FLOATS)
def lerp(ins, attrs, need):
    x, y, w = ins
    return (np.asarray(x + w * (y - x), dtype=x.dtype),)


@kernel("lerp_grad", dtypes=FLOATS)
def lerp_grad(ins, attrs, need):
    x, y, w, out, g = ins
    shape = np.broadcast_shapes(x.shape, y.shape, w.shape)
    g = np.broadcast_to(g, shape)
    dx = dy = None
    if need is None or need[0]:
        dx = reduce_to(np.asarray(g * (1 - w), dtype=g.dtype), x.shape)
    if need is None or need[1]:
        dy = reduce_to(np.asarray(g * w, dtype=g.dtype), y.shape)
    return dx, dy


# ------------------------------------------------------------------ logspace
def _one(a, name):
    if a.size != 1:
        raise OpError(f"op 'logspace': {name} must hold one value, got shape {list(a.shape)}")
    return a.reshape(-1)[0].item()


@kernel("logspace", dtypes=NUMERIC)
def logspace(ins, attrs, need):
    start, stop, num, base = (_one(a, n) for a, n in zip(ins, ("Start", "Stop", "Num",
                                                                "Base")))
    num = int(num)
    if num < 1:
        raise OpError(f"op 'logspace': num must be >= 1, got {num}")
    dt = attr_dtype(attrs)
    if num == 1:
        exps = np.array([start], dtype=np.float64)
    else:
        # Paddle's symmetric steps: the first half from start, the rest from stop
        step = (float(stop) - float(start)) / (num - 1)
        i = np.arange(num, dtype=np.float64)
        exps = np.where(i < num // 2, start + step * i, stop - step * (num - 1 - i))
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.power(float(base), exps)
    if dt.kind in "iu":
        out = np.trunc(out)
    return (out.astype(dt),)
