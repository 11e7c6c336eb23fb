"""More math functions (``paddle.acosh``, ``paddle.lgamma``, ``paddle.gcd`` ...):
inverse hyperbolic and special functions over their own ops, and the functions
Paddle 2.6 writes in Python over other ops (hypot, frac, gcd/lcm, ldexp,
frexp, logaddexp, nan_to_num, multigammaln, diff, trapezoid ...), written the
same way so a static Program holds Paddle's op sequence.

In-place forms (``x.lgamma_()``) rebind ``x`` to the result (``indexing.inplace``);
in a Program they append the same ops as the plain function, as in Paddle.
"""
import math

import numpy as np

from ..ops import bind, get_op, while_loop, is_graph_value
from ..ops.dtypes import to_enum, to_np_dtype, default_float
from ..ops.meta_rules import broadcast_shapes
from ..dygraph.tensor import Tensor
from .creation import is_var, full, full_like, ones_like, zeros_like, arange
from .creation_base import to_tensor
from .indexing import inplace, where, gather
from .logic import isnan, isinf, equal, logical_xor
from .manipulation import concat, reshape, unsqueeze, broadcast_to
from .stat import sum as _sum, any as _any
from . import math as M

_PLAIN = ["acosh", "asinh", "atanh", "atan2", "hypot", "deg2rad", "rad2deg", "digamma",
          "lgamma", "polygamma", "multigammaln", "i0", "i0e", "i1", "i1e", "erfinv", "frac",
          "trunc", "sgn", "logit", "heaviside", "fmax", "fmin", "gcd", "lcm", "ldexp", "frexp",
          "nextafter", "lerp", "logaddexp", "nan_to_num", "stanh", "floor_mod", "diff",
          "trapezoid", "cumulative_trapezoid", "is_floating_point", "is_integer"]
_INPLACE = ["acosh_", "asinh_", "atanh_", "hypot_", "digamma_", "lgamma_", "polygamma_",
            "multigammaln_", "i0_", "frac_", "trunc_", "logit_", "gcd_", "lcm_", "ldexp_",
            "nan_to_num_", "floor_mod_", "remainder_", "mod_"]
__all__ = _PLAIN + _INPLACE + ["logspace"]
# Paddle has Tensor.erfinv_ and Tensor.lerp_ but no paddle.erfinv_ / paddle.lerp_
METHODS = _PLAIN + _INPLACE + ["erfinv_", "lerp_"]

_OPS = {t: get_op(t) for t in (
    "acosh", "asinh", "atanh", "digamma", "lgamma", "erfinv", "trunc", "logit", "stanh",
    "polygamma", "i0", "i0e", "i1", "i1e", "atan2", "elementwise_heaviside", "elementwise_fmax",
    "elementwise_fmin", "nextafter", "lerp", "logspace", "slice")}


def _unary(public, op_type):
    op = _OPS[op_type]

    def fn(x, name=None):
        return bind(op, (x,))[0]
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"Elementwise ``{public}`` (op ``{op_type}``)."
    return fn


acosh = _unary("acosh", "acosh")
asinh = _unary("asinh", "asinh")
atanh = _unary("atanh", "atanh")
digamma = _unary("digamma", "digamma")
lgamma = _unary("lgamma", "lgamma")
erfinv = _unary("erfinv", "erfinv")
i0 = _unary("i0", "i0")
i0e = _unary("i0e", "i0e")
i1 = _unary("i1", "i1")
i1e = _unary("i1e", "i1e")


def trunc(input, name=None):
    return bind(_OPS["trunc"], (input,))[0]


def _binary(public, op_type):
    op = _OPS[op_type]

    def fn(x, y, name=None):
        return bind(op, (x, y))[0]
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"Elementwise ``{public}`` (op ``{op_type}``)."
    return fn


atan2 = _binary("atan2", "atan2")
heaviside = _binary("heaviside", "elementwise_heaviside")
fmax = _binary("fmax", "elementwise_fmax")
fmin = _binary("fmin", "elementwise_fmin")
nextafter = _binary("nextafter", "nextafter")
floor_mod = M.remainder


def _check_tensor(v, what):
    if not is_var(v):
        raise TypeError(f"{what} must be tensor type, but got {type(v)}")


# ------------------------------------------------------------------ unary composites
def hypot(x, y, name=None):
    """sqrt(x^2 + y^2), as Paddle writes it: ``(pow(x, 2) + pow(y, 2)).sqrt()``."""
    _check_tensor(x, "x")
    _check_tensor(y, "y")
    return M.sqrt(M.pow(x, 2) + M.pow(y, 2))


def _int_to_float32(x):
    if to_np_dtype(x.dtype).name in ("int32", "int64"):
        return M.cast(x, "float32")
    return x


def deg2rad(x, name=None):
    return M.scale(_int_to_float32(x), np.pi / 180.0)


def rad2deg(x, name=None):
    return M.scale(_int_to_float32(x), 180.0 / np.pi)


def polygamma(x, n, name=None):
    """The n-th derivative of digamma (op ``polygamma``; ``digamma`` for n = 0)."""
    if not isinstance(n, int):
        raise TypeError(f"The input of n must be int type, but received: {type(n)}")
    if isinstance(n, bool):
        raise ValueError("polygamma(): argument 'n' must be an int, but got bool")
    if n < 0:
        raise ValueError(f"The input of n must be greater than or equal to 0. But received "
                         f"n = {n}")
    if n == 0:
        return digamma(x)
    return bind(_OPS["polygamma"], (x,), {"n": n})[0]


def multigammaln(x, p, name=None):
    """log of the multivariate gamma function of dimension p."""
    if not p >= 1:
        raise AssertionError(f"The p must be greater than or equal to 1, But received p is "
                             f"{p}.")
    c = 0.25 * p * (p - 1) * math.log(math.pi)
    b = 0.5 * arange(start=(1 - p), end=1, step=1, dtype=x.dtype)
    return _sum(lgamma(unsqueeze(x, -1) + b), axis=-1) + c


_FRAC_DTYPES = ("int32", "int64", "float32", "float64")


def frac(x, name=None):
    """x - trunc(x)."""
    dt = to_np_dtype(x.dtype).name
    if dt not in _FRAC_DTYPES:
        raise TypeError(f"The data type of input must be one of {list(_FRAC_DTYPES)}, but "
                        f"got {dt}")
    return M.subtract(x, trunc(x))


def sgn(x, name=None):
    """sign(x) for real x; x / |x| (0 at 0) for complex x."""
    dt = to_np_dtype(x.dtype).name
    if dt not in ("float16", "float32", "float64", "complex64", "complex128"):
        raise TypeError(f"The data type of input must be one of ['float16', 'float32', "
                        f"'float64', 'complex64', 'complex128'], but got {dt}")
    if dt.startswith("complex"):
        # as Paddle: the [..., 2] real view divided by |x|, NaN (at 0) made 0
        expand_x = bind(get_op("as_real"), (x,))[0]
        output = expand_x / unsqueeze(M.abs(x), axis=-1)
        zeros = zeros_like(output)
        output = where(isnan(output), zeros, output)
        return bind(get_op("as_complex"), (output,))[0]
    return M.sign(x)


def logit(x, eps=None, name=None):
    """log(x / (1 - x)), x clipped to [eps, 1 - eps] when eps is given."""
    return bind(_OPS["logit"], (x,), {"eps": 0.0 if eps is None else float(eps)})[0]


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """scale_b * tanh(scale_a * x)."""
    return bind(_OPS["stanh"], (x,), {"scale_a": float(scale_a), "scale_b": float(scale_b)})[0]


def frexp(x, name=None):
    """(mantissa, exponent) with x = mantissa * 2**exponent, 0.5 <= |mantissa| < 1."""
    dt = to_np_dtype(x.dtype).name
    if dt not in ("float32", "float64"):
        raise TypeError(f"The data type of input must be one of ['float32', 'float64'], but "
                        f"got {dt}")
    input_x = M.abs(x)
    exponent = M.floor(M.log2(input_x))
    exponent = where(isinf(exponent), full_like(exponent, 0), exponent)
    mantissa = M.divide(input_x, 2 ** exponent)
    exponent = where(mantissa >= 1, M.add(exponent, ones_like(exponent)), exponent)
    mantissa = where(mantissa >= 1, M.divide(mantissa, 2 ** ones_like(exponent)), mantissa)
    mantissa = where(x < 0, mantissa * -1, mantissa)
    return mantissa, exponent


def logaddexp(x, y, name=None):
    """log(exp(x) + exp(y)), as Paddle writes it."""
    return M.log1p(M.exp(-M.abs(x - y))) + M.maximum(x, y)


def _fill_like(x, value):
    """``full_like(x, value)``, exact for a float64 x: fill_any_like's ``value``
    attribute is a float32, so a value float32 cannot hold (float64's largest)
    is added to zeros as a float64 constant instead (Paddle's static Program
    stores it as inf; its eager result, which sampan gives in every mode, is
    the value itself)."""
    value = float(value)
    with np.errstate(over="ignore"):
        narrow = float(np.float32(value))
    if to_np_dtype(x.dtype) == np.float64 and np.isfinite(value) and narrow != value:
        return full_like(x, 0.0) + to_tensor(np.array(value))
    return full_like(x, value)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` (default: the dtype's
    largest value) and ``neginf`` (its lowest)."""
    dt = to_np_dtype(x.dtype)
    if dt.name not in ("float32", "float64"):
        raise AssertionError(f"nan_to_num: x must be float32 or float64, got {dt.name}")
    posinf_value = full_like(x, float("+inf"))
    neginf_value = full_like(x, float("-inf"))
    nan = _fill_like(x, nan)
    info = np.finfo(dt)
    posinf = _fill_like(x, float(info.max) if posinf is None else posinf)
    neginf = _fill_like(x, float(info.min) if neginf is None else neginf)
    x = where(isnan(x), nan, x)
    x = where(equal(x, posinf_value), posinf, x)
    return where(equal(x, neginf_value), neginf, x)


# ------------------------------------------------------------------ gcd / lcm
def _gcd_cond(x, y):
    return _any(y != 0)


def _gcd_body(x, y):
    # mod by a zero raises: those zeros become ones (their values are not used)
    nz = y != 0
    y_safe = where(nz, y, full(y.shape, 1, y.dtype))
    x, y = where(nz, y, x), where(nz, M.remainder(x, y_safe), full(y.shape, 0, y.dtype))
    return [where(x < y, y, x), where(x < y, x, y)]


def gcd(x, y, name=None):
    """Greatest common divisor of |x| and |y| (Euclid's loop: a ``while`` op in a Program)."""
    shape = list(broadcast_shapes(x.shape, y.shape))
    x, y = broadcast_to(x, shape), broadcast_to(y, shape)
    x, y = M.abs(x), M.abs(y)
    return while_loop(_gcd_cond, _gcd_body, [x, y])[0]


def lcm(x, y, name=None):
    """Least common multiple of |x| and |y| (0 where either is 0)."""
    d = gcd(x, y)
    d_zero = equal(d, 0)
    d_safe = where(d_zero, full(d.shape, 1, d.dtype), d)
    return where(d_zero, full(d.shape, 0, d.dtype), M.abs(x * y) // d_safe)


# ------------------------------------------------------------------ binary composites
def ldexp(x, y, name=None):
    """x * 2**y, computed in float64 when either is float64, else the default dtype."""
    _check_tensor(x, "x")
    _check_tensor(y, "y")
    if "float64" in (to_np_dtype(x.dtype).name, to_np_dtype(y.dtype).name):
        out_dtype = np.dtype("float64")
    else:
        out_dtype = default_float()
    x = M.cast(x, out_dtype)
    y = M.cast(y, out_dtype)
    two = to_tensor(2, dtype=out_dtype)
    return M.multiply(x, M.pow(two, y))


def lerp(x, y, weight, name=None):
    """x + weight * (y - x); a float weight becomes a 0-D tensor of x's dtype."""
    if isinstance(weight, float):
        weight = full(shape=[], fill_value=weight, dtype=x.dtype)
    elif not is_var(weight):
        raise ValueError(f"lerp(): argument 'weight' (position 2) must be Tensor or float, "
                         f"but got {type(weight).__name__}")
    return bind(_OPS["lerp"], (x, y, weight))[0]


# ------------------------------------------------------------------ diff, trapezoid
def _diff_once(x, axis, prepend, append):
    nd = len(x.shape)
    axis = min(max(axis + nd if axis < 0 else axis, 0), nd)
    pieces = [t for t in (prepend, x, append) if t is not None]
    new_input = concat(pieces, axis) if len(pieces) > 1 else x
    n = new_input.shape[axis]
    # Paddle's diff appends its slices itself, without infer_flags
    front = bind(_OPS["slice"], (new_input, None, None, None, None),
                 {"axes": [axis], "starts": [0], "ends": [n - 1]})[0]
    back = bind(_OPS["slice"], (new_input, None, None, None, None),
                {"axes": [axis], "starts": [1], "ends": [n]})[0]
    if to_np_dtype(x.dtype) == np.bool_:
        return logical_xor(back, front)
    return M.subtract(back, front)


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """The n-th forward difference along ``axis`` (xor for bool); ``prepend`` and
    ``append`` are joined to x first (again at every order, as in Paddle)."""
    if n < 1:
        raise ValueError(f"Diff expects input to be at least one-dimensional but got {n}")
    out = x
    for _ in range(n):
        out = _diff_once(out, axis, prepend, append)
    return out


_TRAPEZOID_DTYPES = ("float16", "float32", "float64")


def _trapezoid(y, x=None, dx=None, axis=-1, mode="sum"):
    if x is not None and dx is not None:
        raise ValueError("Not permitted to specify both x and dx input args.")
    if to_np_dtype(y.dtype).name not in _TRAPEZOID_DTYPES:
        raise TypeError(f"The data type of input must be Tensor, and dtype should be one of "
                        f"{list(_TRAPEZOID_DTYPES)}, but got {to_np_dtype(y.dtype).name}")
    length = y.shape[axis]
    if axis < 0:
        axis += len(y.shape)
    if x is None:
        dx = to_tensor(1.0 if dx is None else dx)
        if len(dx.shape) > 1:
            raise ValueError(f"Expected dx to be a scalar, got dx={dx}")
    else:
        if to_np_dtype(x.dtype).name not in _TRAPEZOID_DTYPES:
            raise TypeError(f"The data type of x must be one of {list(_TRAPEZOID_DTYPES)}, "
                            f"but got {to_np_dtype(x.dtype).name}")
        if len(x.shape) == 1:
            dx = diff(x)
            shape = [1] * len(y.shape)
            shape[axis] = dx.shape[0]
            dx = reshape(dx, shape)
        else:
            dx = diff(x, axis=axis)
    total = M.cumsum if mode == "cumsum" else _sum
    pairs = gather(y, arange(1, length), axis=axis) + gather(y, arange(0, length - 1),
                                                             axis=axis)
    return 0.5 * total(pairs * dx, axis=axis)


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The integral of y along ``axis`` by the trapezoidal rule (sample points x,
    or a spacing dx, default 1)."""
    return _trapezoid(y, x, dx, axis, mode="sum")


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The running trapezoidal integral of y along ``axis``."""
    return _trapezoid(y, x, dx, axis, mode="cumsum")


# ------------------------------------------------------------------ logspace
def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """``num`` values base**e, e evenly spaced from start to stop (numbers or
    [1] tensors); numbers become [1] tensors of ``dtype``, num an int32 one."""
    dt = default_float() if dtype is None else to_np_dtype(dtype)
    start = start if is_var(start) else full([1], start, dt)
    stop = stop if is_var(stop) else full([1], stop, dt)
    num = num if is_var(num) else full([1], num, "int32")
    base = base if is_var(base) else full([1], base, dt)
    return bind(_OPS["logspace"], (start, stop, num, base), {"dtype": to_enum(dt)})[0]


# ------------------------------------------------------------------ dtype predicates
def _dtype_of(x):
    if not (isinstance(x, Tensor) or is_graph_value(x)):
        raise TypeError(f"Expected Tensor, but received type of x: {type(x)}")
    return to_np_dtype(x.dtype)


def is_floating_point(x):
    """Whether x holds a float dtype (float16, float32, float64)."""
    return _dtype_of(x).kind == "f"


def is_integer(x):
    """Whether x holds an integer dtype (uint8, int8, int16, int32, int64)."""
    return _dtype_of(x).kind in "iu"


# ------------------------------------------------------------------ in place
def _same_shape_as_x(x, *others):
    """Paddle's in-place broadcast rule: the result must keep x's shape."""
    shape = tuple(x.shape)
    for o in others:
        if is_var(o):
            shape = broadcast_shapes(shape, o.shape)
    if list(shape) != list(x.shape):
        raise ValueError(f"The shape of broadcast output {list(shape)} is different from that "
                         f"of inplace tensor {list(x.shape)} in the Inplace operation.")


def acosh_(x, name=None):
    return inplace(x, acosh)


def asinh_(x, name=None):
    return inplace(x, asinh)


def atanh_(x, name=None):
    return inplace(x, atanh)


def digamma_(x, name=None):
    return inplace(x, digamma)


def lgamma_(x, name=None):
    return inplace(x, lgamma)


def erfinv_(x, name=None):
    return inplace(x, erfinv)


def i0_(x, name=None):
    return inplace(x, i0)


def frac_(x, name=None):
    return inplace(x, frac)


def trunc_(input, name=None):
    return inplace(input, trunc)


def polygamma_(x, n, name=None):
    return inplace(x, lambda t: polygamma(t, n))


def multigammaln_(x, p, name=None):
    return inplace(x, lambda t: multigammaln(t, p))


def logit_(x, eps=None, name=None):
    return inplace(x, lambda t: logit(t, eps))


def nan_to_num_(x, nan=0.0, posinf=None, neginf=None, name=None):
    return inplace(x, lambda t: nan_to_num(t, nan, posinf, neginf))


def hypot_(x, y, name=None):
    _same_shape_as_x(x, y)
    return inplace(x, lambda t: hypot(t, y))


def gcd_(x, y, name=None):
    _same_shape_as_x(x, y)
    return inplace(x, lambda t: gcd(t, y))


def lcm_(x, y, name=None):
    _same_shape_as_x(x, y)
    return inplace(x, lambda t: lcm(t, y))


def ldexp_(x, y, name=None):
    _same_shape_as_x(x, y)
    return inplace(x, lambda t: ldexp(t, y))


def remainder_(x, y, name=None):
    _same_shape_as_x(x, y)
    return inplace(x, lambda t: M.remainder(t, y))


mod_ = floor_mod_ = remainder_


def lerp_(x, y, weight, name=None):
    """In place: x becomes ``lerp(x, y, weight)`` (x's shape is kept)."""
    if not isinstance(weight, float) and not is_var(weight):
        raise TypeError(f"The type of 'weight' in lerp must be float or Tensor, but received "
                        f"{type(weight)}")
    _same_shape_as_x(x, y, weight)
    return inplace(x, lambda t: lerp(t, y, weight))
