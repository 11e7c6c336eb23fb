"""numpy kernels of unary math, scale, pow, clip, cast, sum (add_n) and norms,
and the double / triple grads of abs, log, square, sqrt, rsqrt, sin, cos, pow
and clip.

Unary ops are a table ``name -> (forward, grad, dtypes)``; a grad function
receives the grad op's inputs in slot order (the forward slots it uses, then
Out@GRAD).
"""
import math

import numpy as np

from ...ops.dtypes import ENUM_TO_NP
from ...ops import OpError
from ..registry import kernel, FLOATS, NUMERIC, ALL
from .elementwise import REUSE_MIN



@kernel("scale", dtypes=ALL)
def scale(ins, attrs, need):
    x, st = ins
    s = attrs["scale"] if st is None else st.reshape(()).item()
    b = attrs["bias"]
    dt = x.dtype
    if dt.kind == "b":
        # Paddle computes in bool: scale and bias become bools, * is and, + is or
        s, b = bool(s), bool(b)
        out = (x & s) | b if attrs["bias_after_scale"] else (x | b) & s
        return (np.asarray(out, dtype=dt),)
    if dt.kind == "f":
        s, b = _typed(dt, s), _typed(dt, b)
        out = x * s + b if attrs["bias_after_scale"] else (x + b) * s
        if type(out) is np.ndarray and out.dtype is dt:
            return (out,)
    elif dt.kind in "iu":
        s, b = _int_consts(dt, s, b)
        out = x * s + b if attrs["bias_after_scale"] else (x + b) * s
    else:               # complex: the float attributes in float64, cast back
        if type(s) is float and type(b) is float:
            s, b = _typed(_F64, s), _typed(_F64, b)
        out = x * s + b if attrs["bias_after_scale"] else (x + b) * s
    return (np.asarray(out, dtype=dt),)


_F64 = np.dtype("float64")


def _int_const(dt, v):
    """``v`` as Paddle's integer scale kernel takes it (recorded with Paddle
    2.6.2: scale 0.5 on int64 is 0, -1.5 is -1, and on uint8 -1.5 is 255):
    truncated toward zero and cast to ``dt`` with wrap-around, a 0-d array;
    the arithmetic then stays in ``dt`` (exact past 2**53, wrapping as
    Paddle's does)."""
    try:
        iv = math.trunc(v)
    except (OverflowError, ValueError):          # inf, NaN: the C cast's own value
        with np.errstate(invalid="ignore"):
            return np.asarray(np.float64(v)).astype(dt)
    return np.asarray(iv % (1 << 64), dtype=np.uint64).astype(dt)


def _int_consts(dt, s, b):
    return _int_const(dt, s), _int_const(dt, b)


_TYPED = {}


def _typed(dt, v):
    """``v`` as a read-only 0-d array of ``dt`` (numpy computes with those faster
    than with numpy scalars), from a bounded table: an eager ``x * 2.0`` converts
    its two attributes on every call, which costs more than the arithmetic on
    small arrays.  Zeros are keyed with their sign (0.0 == -0.0, but
    ``x + -0.0`` keeps a -0.0 of x where ``x + 0.0`` does not)."""
    key = (dt, v) if v != 0 else (dt, v, math.copysign(1.0, v))
    c = _TYPED.get(key)
    if c is None:
        if len(_TYPED) >= 1024:
            _TYPED.clear()
        c = np.asarray(v, dtype=dt)
        c.flags.writeable = False
        _TYPED[key] = c
    return c


_SCALE_TYPED = (np.dtype("float32"), np.dtype("float64"))


def _scale_consts(attrs):
    """{dtype: (scale, bias) as 0-d arrays of that dtype} for float32/float64
    (the values the kernel computes with; 0-d arrays, not numpy scalars, which
    numpy converts on every call), made once per plan."""
    with np.errstate(over="ignore"):
        return {dt: (np.asarray(attrs["scale"], dt), np.asarray(attrs["bias"], dt))
                for dt in _SCALE_TYPED}


def _scale_fast(attrs):
    typed = _scale_consts(attrs)
    ints = {}           # integer dtype -> the kernel's (scale, bias) in it, made once

    def general(x, st):
        dt = x.dtype
        if st is None and dt.kind in "iu":      # the kernel's integer path
            sb = ints.get(dt)
            if sb is None:
                sb = ints[dt] = _int_consts(dt, attrs["scale"], attrs["bias"])
            out = x * sb[0] + sb[1] if after else (x + sb[1]) * sb[0]
            return out if type(out) is np.ndarray else np.asarray(out, dtype=dt)
        return scale([x, st], attrs, None)[0]

    after = attrs["bias_after_scale"]
    if after and attrs["scale"] == 1.0:
        # x * 1 is x exactly (signed zeros, inf and NaN too): one pass (x + 1.0)
        def f(x, st):
            sb = typed.get(x.dtype) if st is None else None
            if sb is None:
                return general(x, st)
            out = x + sb[1]
            return out if type(out) is np.ndarray else np.asarray(out)
    elif after:
        def f(x, st):
            sb = typed.get(x.dtype) if st is None else None
            if sb is None:
                return general(x, st)
            out = x * sb[0] + sb[1]
            return out if type(out) is np.ndarray else np.asarray(out)
    else:
        def f(x, st):
            sb = typed.get(x.dtype) if st is None else None
            if sb is None:
                return general(x, st)
            out = (x + sb[1]) * sb[0]
            return out if type(out) is np.ndarray else np.asarray(out)
    return f


def _scale_reuse(attrs, pairs):
    """scale computed in X's array (executor/reuse.py): float32/float64 only."""
    typed = _scale_consts(attrs)
    after = attrs["bias_after_scale"]

    def f(x, st):
        sb = typed.get(x.dtype) if st is None else None
        if sb is None:
            return scale([x, st], attrs, None)[0]
        if after:
            np.multiply(x, sb[0], out=x)
            return np.add(x, sb[1], out=x)
        np.add(x, sb[1], out=x)
        return np.multiply(x, sb[0], out=x)

    def k(ins, a, need):
        return (f(ins[0], ins[1]),)
    k.fast = lambda a: f
    return k


scale.fast = _scale_fast
scale.fresh = True
scale.inplace = ((0, 0, "same"),)
scale.reuse = _scale_reuse


def register_unary(name, fwd, grad=None, dtypes=FLOATS, grad_dtypes=None, attrs=False,
                   fwd_into=None, grad_into=None, into_attrs=None):
    """Register ``name`` (and ``name_grad``).  ``fwd(x)`` / ``grad(*ins)``, or with
    ``attrs=True`` ``fwd(x, attrs)`` / ``grad(*ins, attrs)``.

    Both kernels get fast forms and return new arrays (``fresh``).  ``fwd_into``
    / ``grad_into`` compute the same values into X's / the Out@GRAD input's
    array, for the executor's buffer reuse; they take the attrs last when
    ``into_attrs`` (default: ``attrs``).  A ufunc forward has one by itself."""
    into_attrs = attrs if into_attrs is None else into_attrs
    ufunc_into = fwd_into is None and not attrs and isinstance(fwd, np.ufunc)
    if ufunc_into:
        def fwd_into(x):
            return fwd(x, x)
    if attrs:
        @kernel(name, dtypes=dtypes)
        def k(ins, a, need):
            return (fwd(ins[0], a),)
        k.fast = lambda a: (lambda x: fwd(x, a))
    else:
        @kernel(name, dtypes=dtypes)
        def k(ins, a, need):
            return (fwd(ins[0]),)
        k.fast = lambda a: fwd
    _reusable(k, fwd_into, 0, into_attrs)
    if ufunc_into:          # small arrays: the plain ufunc call is cheaper (elementwise.py)
        k.reuse_min = REUSE_MIN
    if grad is None:
        return
    if attrs:
        @kernel(f"{name}_grad", dtypes=grad_dtypes or dtypes)
        def kg(ins, a, need):
            return (grad(*ins, a),)
        kg.fast = lambda a: (lambda *xs: grad(*xs, a))
    else:
        @kernel(f"{name}_grad", dtypes=grad_dtypes or dtypes)
        def kg(ins, a, need):
            return (grad(*ins),)
        kg.fast = lambda a: grad
    _reusable(kg, grad_into, -1, into_attrs)


def _reusable(k, into, in_pos, with_attrs):
    """Mark a one-output elementwise kernel ``fresh``; with an in-place form
    ``into``, Out may take input ``in_pos``'s buffer (kernels/registry.py)."""
    k.fresh = True
    if into is None:
        return
    k.inplace = ((0, in_pos, "same"),)

    def reuse(a, pairs):
        fast = (lambda *xs: into(*xs, a)) if with_attrs else into

        def variant(ins, attrs, need):
            return (fast(*ins),)
        variant.fast = lambda attrs: fast
        return variant
    k.reuse = reuse


def _zero_grad(g):
    return np.zeros_like(g)


def _round(x):
    # Paddle rounds half away from zero (std::round); numpy rounds half to even
    return np.copysign(np.floor(np.abs(x) + 0.5), x).astype(x.dtype, copy=False)


# ------------------------------------------------------------------ erf
# float64 uses math.erf / math.erfc elementwise (exact); float32/16 use a
# Chebyshev fit of erfc on z >= 0 (relative error < 1.2e-7, Numerical Recipes'
# erfcc) evaluated in float32 with few temporaries.
_erf_exact = np.frompyfunc(math.erf, 1, 1)
_erfc_exact = np.frompyfunc(math.erfc, 1, 1)
_ERFC_C = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
           -1.13520398, 1.48851587, -0.82215223, 0.17087277)
# erf(x) = 2/sqrt(pi) * x * sum_n (-x^2)^n / (n! (2n + 1)), used for |x| < 0.5
_ERF_TAYLOR = tuple(2 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1))
                    for n in range(7))


def _exact(fn, x):
    return fn(x).astype(x.dtype) if x.ndim else np.asarray(fn(x.item()), x.dtype)


def _fast(x):
    """float64 arrays (and tiny ones) take the exact path; the rest float32."""
    return x.dtype != np.float64 and x.size > 64


def erfc_pos(z):
    """erfc(z) for z >= 0 in z's (float32) dtype, relatively accurate in the tail."""
    f = z.dtype.type
    t = z * f(0.5)
    t += 1
    np.reciprocal(t, out=t)
    p = t * f(_ERFC_C[-1])
    for c in _ERFC_C[-2:0:-1]:
        p += f(c)
        p *= t
    p += f(_ERFC_C[0])
    p -= z * z
    np.exp(p, out=p)
    p *= t
    return p


def erf(x):
    if not _fast(x):
        return _exact(_erf_exact, x)
    x32 = x.astype(np.float32, copy=False)
    a = np.abs(x32)
    far = np.subtract(1, erfc_pos(a))
    np.copysign(far, x32, out=far)
    x2 = x32 * x32
    near = np.full_like(x32, _ERF_TAYLOR[-1])
    for c in _ERF_TAYLOR[-2::-1]:
        near *= x2
        near += np.float32(c)
    near *= x32
    return np.where(a < 0.5, near, far).astype(x.dtype, copy=False)


def norm_cdf(x):
    """The standard normal CDF 0.5 * erfc(-x / sqrt(2)), accurate in both tails."""
    if not _fast(x):
        return _exact(_erfc_exact, x * -_INV_SQRT_2) * 0.5
    x32 = x.astype(np.float32, copy=False)
    half = erfc_pos(np.abs(x32) * np.float32(_INV_SQRT_2))
    half *= np.float32(0.5)
    return np.where(x32 < 0, half, 1 - half).astype(x.dtype, copy=False)


_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

UNARY = {
    # name: (forward, grad of (uses..., Out@GRAD), forward dtypes)
    "abs": (np.abs, lambda x, g: g * np.sign(x), NUMERIC),
    "exp": (np.exp, lambda out, g: g * out, FLOATS),
    "expm1": (np.expm1, lambda out, g: g * (out + 1), FLOATS),
    "log": (np.log, lambda x, g: g / x, FLOATS),
    "log2": (np.log2, lambda x, g: g / (x * math.log(2.0)), FLOATS),
    "log10": (np.log10, lambda x, g: g / (x * math.log(10.0)), FLOATS),
    "log1p": (np.log1p, lambda x, g: g / (x + 1), FLOATS),
    "sqrt": (np.sqrt, lambda out, g: g * 0.5 / out, FLOATS),
    "rsqrt": (lambda x: 1 / np.sqrt(x), lambda out, g: g * -0.5 * out * out * out, FLOATS),
    "square": (np.square, lambda x, g: g * 2 * x, NUMERIC),
    "reciprocal": (lambda x: 1 / x, lambda out, g: -g * out * out, FLOATS),
    "floor": (np.floor, _zero_grad, FLOATS),
    "ceil": (np.ceil, _zero_grad, FLOATS),
    "round": (_round, _zero_grad, FLOATS),
    "sin": (np.sin, lambda x, g: g * np.cos(x), FLOATS),
    "cos": (np.cos, lambda x, g: -g * np.sin(x), FLOATS),
    "tan": (np.tan, lambda x, g: g / np.square(np.cos(x)), FLOATS),
    "asin": (np.arcsin, lambda x, g: g / np.sqrt(1 - x * x), FLOATS),
    "acos": (np.arccos, lambda x, g: -g / np.sqrt(1 - x * x), FLOATS),
    "atan": (np.arctan, lambda x, g: g / (1 + x * x), FLOATS),
    "sinh": (np.sinh, lambda x, g: g * np.cosh(x), FLOATS),
    "cosh": (np.cosh, lambda x, g: g * np.sinh(x), FLOATS),
    "erf": (erf, lambda x, g: g * _TWO_OVER_SQRT_PI * np.exp(-x * x), FLOATS),
}



def _square_grad_into(x, g):
    np.multiply(g, 2, out=g)          # (g * 2) * x, as the grad above, in g's array
    return np.multiply(g, x, out=g)


# in-place forms of grads (into Out@GRAD's array) for the executor's buffer reuse
UNARY_GRAD_INTO = {"square": _square_grad_into}

# abs_grad and square_grad have Paddle's int32/int64 kernels too (an integer
# branch of a program is differentiated through them: gcd's loop)
for _name, (_f, _g, _dts) in UNARY.items():
    register_unary(_name, _f, _g, _dts,
                   grad_dtypes=FLOATS + ("int32", "int64") if _dts is NUMERIC else _dts,
                   grad_into=UNARY_GRAD_INTO.get(_name))

register_unary("sign", np.sign, dtypes=NUMERIC)


def _float32_of_int(fwd):
    """Paddle 2.6's int32/int64 kernels of exp, expm1 and the logs: X is
    computed in float32 and Out is float32 (the ops' infer_meta says so)."""
    def f(x):
        return fwd(x.astype(np.float32))

    def k(ins, attrs, need):
        return (f(ins[0]),)
    k.fast = lambda attrs: f
    k.fresh = True
    return k


for _name in ("exp", "expm1", "log", "log2", "log10", "log1p"):
    kernel(_name, dtypes=("int32", "int64"))(_float32_of_int(UNARY[_name][0]))


# ------------------------------------------------------------------ pow
def _factor(ft, attrs):
    return attrs["factor"] if ft is None else ft.reshape(-1)[0].item()


@kernel("pow", dtypes=NUMERIC)
def pow_(ins, attrs, need):
    x, ft = ins
    f = _factor(ft, attrs)
    if x.dtype.kind in "iu":
        f = int(f)          # Paddle's integer pow truncates the factor: x ** 2.5 is x ** 2
        if f < 0:
            raise OpError(f"op 'pow': an integer tensor cannot be raised to the negative "
                          f"power {f} (cast X to a float dtype first)")
    out = np.power(x, f)
    return (out if out.dtype == x.dtype else out.astype(x.dtype),)


@kernel("pow_grad", dtypes=FLOATS)
def pow_grad(ins, attrs, need):
    x, ft, g = ins
    f = _factor(ft, attrs)
    return (g * f * np.power(x, f - 1),)


# ------------------------------------------------------------------ clip
def _bounds(x, lo_t, hi_t, attrs):
    lo = attrs["min"] if lo_t is None else lo_t.reshape(-1)[0].item()
    hi = attrs["max"] if hi_t is None else hi_t.reshape(-1)[0].item()
    if lo > hi:
        raise OpError(f"op 'clip': max ({hi}) must be >= min ({lo})")
    if x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        lo, hi = int(max(lo, info.min)), int(min(hi, info.max))
    return lo, hi


@kernel("clip", dtypes=NUMERIC)
def clip(ins, attrs, need):
    x, lo_t, hi_t = ins
    lo, hi = _bounds(x, lo_t, hi_t, attrs)
    return (np.clip(x, lo, hi),)


@kernel("clip_grad", dtypes=NUMERIC)
def clip_grad(ins, attrs, need):
    x, lo_t, hi_t, g = ins
    lo, hi = _bounds(x, lo_t, hi_t, attrs)
    return (g * ((x > lo) & (x < hi)),)


# ------------------------------------------------------------------ cast
@kernel("cast", dtypes=ALL + ("complex64", "complex128"))
def cast(ins, attrs, need):
    x, dt = ins[0], ENUM_TO_NP[attrs["out_dtype"]]
    if x.dtype.kind == "c" and dt.kind != "c":
        x = x.real if dt.kind != "b" else x != 0     # Paddle keeps the real part
    return (x.astype(dt),)


# ------------------------------------------------------------------ sum (add_n)
@kernel("sum", dtypes=NUMERIC)
def sum_(ins, attrs, need):
    xs = ins[0]
    x0 = xs[0]
    if type(x0) is not np.ndarray and (x0 is None or type(x0) is list):
        return (_sum_general(xs),)
    if len(xs) == 1:
        return (x0.copy(),)
    x1 = xs[1]
    if x1 is None or type(x1) is list:
        return (_sum_general(xs),)
    if x1.dtype is not x0.dtype or any(x is not None and x.dtype != x0.dtype for x in xs[2:]):
        raise OpError(f"op 'sum' (add_n): inputs have dtypes "
                      f"{[None if x is None else str(x.dtype) for x in xs]}; they must match")
    out = x0 + x1
    for x in xs[2:]:
        if x is not None:        # a gradient an untaken branch left unset
            out += x
    return (out,)


def _sum_general(xs):
    """``sum`` of tensor arrays (Python lists), elementwise; a None (an array or
    tensor never written, an array entry never written) counts as zeros."""
    given = [a for a in xs if a is not None]
    if not given:
        return None
    if type(given[0]) is not list:
        return sum_((given,), None, None)[0]
    out = [None] * max(len(a) for a in given)
    for a in given:
        for k, v in enumerate(a):
            if v is not None:
                out[k] = v if out[k] is None else out[k] + v
    return out


@kernel("sum_grad", dtypes=NUMERIC)
def sum_grad(ins, attrs, need):
    xs, g = ins
    return ([g if x.dtype == g.dtype else g.astype(x.dtype) for x in xs],)


# ------------------------------------------------------------------ norms
@kernel("squared_l2_norm", dtypes=FLOATS)
def squared_l2_norm(ins, attrs, need):
    x = ins[0].reshape(-1)
    return (np.asarray([np.dot(x, x)], dtype=x.dtype),)


@kernel("squared_l2_norm_grad", dtypes=FLOATS)
def squared_l2_norm_grad(ins, attrs, need):
    x, g = ins
    return (x * (2 * g.reshape(())),)


@kernel("clip_by_norm", dtypes=FLOATS)
def clip_by_norm(ins, attrs, need):
    x = ins[0]
    flat = x.reshape(-1)
    norm = math.sqrt(float(np.dot(flat, flat)))
    max_norm = attrs["max_norm"]
    if norm > max_norm:
        return (x * x.dtype.type(max_norm / norm),)
    return (x.copy(),)


def _pnorm_layout(x, attrs):
    """(array, axis, whole): the whole tensor is reduced when asvector or 0-D."""
    if attrs["asvector"] or x.ndim == 0:
        return x.reshape(-1), 0, True
    return x, attrs["axis"], False


@kernel("p_norm", dtypes=FLOATS)
def p_norm(ins, attrs, need):
    x = ins[0]
    xa, axis, whole = _pnorm_layout(x, attrs)
    p = attrs["porder"]
    a = np.abs(xa)
    if p == np.inf:
        out = a.max(axis=axis)
    elif p == -np.inf:
        out = a.min(axis=axis)
    elif p == 0:
        out = (xa != 0).sum(axis=axis)
    elif p == 2:
        out = np.sqrt(np.sum(xa * xa, axis=axis))
    else:
        out = np.power(np.sum(np.power(a, p), axis=axis), 1.0 / p)
    out = np.asarray(out, dtype=x.dtype)
    if attrs["keepdim"]:
        out = out.reshape((1,) * x.ndim) if whole else np.expand_dims(out, axis)
    return (out,)


@kernel("p_norm_grad", dtypes=FLOATS)
def p_norm_grad(ins, attrs, need):
    x, out, g = ins
    xa, axis, whole = _pnorm_layout(x, attrs)
    if whole:
        o, gg = out.reshape(()), g.reshape(())
    elif attrs["keepdim"]:
        o, gg = out, g
    else:
        o, gg = np.expand_dims(out, axis), np.expand_dims(g, axis)
    p = attrs["porder"]
    if p in (np.inf, -np.inf):
        dx = gg * np.sign(xa) * (np.abs(xa) == o)
    elif p == 0:
        dx = np.zeros_like(xa)
    else:
        denom = np.maximum(np.power(o, p - 1), attrs["epsilon"])
        dx = gg * np.sign(xa) * np.power(np.abs(xa), p - 1) / denom
    return (np.asarray(dx, dtype=x.dtype).reshape(x.shape),)


# ------------------------------------------------------------------ higher-order grads
# Inputs and outputs in the slot order of ops/defs/math.py.  In the comments, d
# = DOut (the first-order grad's incoming gradient), dd = DDX (the incoming
# gradient of dX); a triple grad also gets ``a`` and ``b``, the gradients of
# the double grad's two outputs (absent: zero).
def _zero_if_none(v, like):
    return np.zeros_like(like) if v is None else v


@kernel("abs_double_grad", dtypes=FLOATS)
def abs_double_grad(ins, attrs, need):
    # dX = d sign(x), linear in d
    x, ddx = ins
    return (ddx * np.sign(x),)


@kernel("log_grad_grad", dtypes=FLOATS)
def log_grad_grad(ins, attrs, need):
    # dX = d / x
    x, dout, ddx = ins
    return -dout * ddx / (x * x), ddx / x


@kernel("square_grad_grad", dtypes=FLOATS)
def square_grad_grad(ins, attrs, need):
    # dX = 2 x d
    x, dout, ddx = ins
    return 2 * dout * ddx, 2 * x * ddx


@kernel("sqrt_grad_grad", dtypes=FLOATS)
def sqrt_grad_grad(ins, attrs, need):
    # dX = 0.5 d / y (y = Out, an input of sqrt_grad): d/dy = -dd dX / y
    out, dx, ddx = ins
    return -ddx * dx / out, ddx * 0.5 / out


@kernel("rsqrt_grad_grad", dtypes=FLOATS)
def rsqrt_grad_grad(ins, attrs, need):
    # dX = -0.5 d y^3 (y = Out): d/dy = -1.5 d y^2 dd = 3 dd dX / y
    out, dx, ddx = ins
    return 3 * ddx * dx / out, -0.5 * ddx * out * out * out


def _trig(df, d2f):
    """Double and triple grads of Out = f(x) with dX = d f1(x), f1 = ``df``,
    f2 = ``d2f`` its derivative, and f3 = -f1 (sin, cos)."""
    def double(ins, attrs, need):
        x, dout, ddx = ins
        return dout * ddx * d2f(x), ddx * df(x)

    def triple(ins, attrs, need):
        # L = a d dd f2(x) + b dd f1(x)
        x, dout, ddx, a, b = ins
        a, b = _zero_if_none(a, x), _zero_if_none(b, x)
        f1, f2 = df(x), d2f(x)
        return ddx * (b * f2 - a * dout * f1), a * ddx * f2, a * dout * f2 + b * f1
    return double, triple


for _name, _d in (("sin", (np.cos, lambda x: -np.sin(x))),
                  ("cos", (lambda x: -np.sin(x), lambda x: -np.cos(x)))):
    _double, _triple = _trig(*_d)
    kernel(f"{_name}_double_grad", dtypes=FLOATS)(_double)
    kernel(f"{_name}_triple_grad", dtypes=FLOATS)(_triple)


def _dpow(x, f, k):
    """The k-th derivative of x^f: f (f-1) ... (f-k+1) x^(f-k), zeros where the
    coefficient is 0 (without evaluating x^(f-k) at 0)."""
    c = 1.0
    for i in range(k):
        c *= f - i
    if c == 0:
        return np.zeros_like(x)
    return c * np.power(x, f - k)


@kernel("pow_double_grad", dtypes=FLOATS)
def pow_double_grad(ins, attrs, need):
    # dX = p1(x) d, p = x^f
    x, ft, dout, ddx = ins
    f = _factor(ft, attrs)
    return _dpow(x, f, 2) * dout * ddx, _dpow(x, f, 1) * ddx


@kernel("pow_triple_grad", dtypes=FLOATS)
def pow_triple_grad(ins, attrs, need):
    # L = a p2(x) d dd + b p1(x) dd
    x, ft, dout, ddx, a, b = ins
    f = _factor(ft, attrs)
    a, b = _zero_if_none(a, x), _zero_if_none(b, x)
    p1, p2 = _dpow(x, f, 1), _dpow(x, f, 2)
    return (ddx * (a * dout * _dpow(x, f, 3) + b * p2),
            a * p2 * ddx,
            a * p2 * dout + b * p1)


@kernel("clip_double_grad", dtypes=FLOATS)
def clip_double_grad(ins, attrs, need):
    # dX = d where min < x < max, linear in d
    x, lo_t, hi_t, ddx = ins
    lo, hi = _bounds(x, lo_t, hi_t, attrs)
    return (ddx * ((x > lo) & (x < hi)),)
