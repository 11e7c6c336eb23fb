"""The in-place ``_`` forms of functions sampan already has (``x.exp_()``,
``paddle.tanh_(x)``, ``x.add_(y)``, ``x.cast_('float64')`` ...), the in-place
fills (``fill_``, ``zero_``, ``normal_``, ``exponential_``, ``cauchy_``,
``geometric_``), and ``copy_``/``detach_``.

One mechanism (``_inplace_form``) makes every form of the tables below from
its out-of-place function: the result is computed by that function on a
snapshot of x, then x takes it (``indexing.inplace``: x keeps its identity,
its autograd position moves to the result, ``inplace_version`` counts the
write).  Paddle's rules, in order: a binary form whose broadcast would change
x's shape raises ValueError; x keeps its dtype (a form whose result would
have another one, ``exp_`` of an integer tensor, raises ValueError), except
the comparisons and logical forms (x becomes bool) and ``cast_``; a leaf
that needs a gradient refuses the write (ValueError).  On a static Variable
the out-of-place op is appended, with Paddle's warning that it "does not
perform inplace operation", and the Python name is rebound to its result.
"""
import math as _math
import warnings

import numpy as np

from ..dygraph.aliases import DETACH, link, write_data
from ..dygraph.tensor import Tensor
from ..ops import bind, get_op, is_graph_value, OpError
from ..ops.dtypes import to_np_dtype
from ..ops.meta_rules import broadcast_shapes
from . import logic as L
from . import math as M
from .creation_base import to_tensor
from .indexing import inplace, rebind
from .random import uniform

# public name -> out-of-place function
_UNARY = {n: getattr(M, n) for n in (
    "abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "exp", "floor", "log", "log10",
    "log1p", "log2", "reciprocal", "round", "rsqrt", "sigmoid", "sin", "sinh", "sqrt",
    "square", "tan", "tanh", "neg", "erf", "expm1")}
_UNARY.update(logical_not=L.logical_not, bitwise_not=L.bitwise_not)
_BINARY = {n: getattr(M, n) for n in ("add", "subtract", "multiply", "divide", "floor_divide")}
_BINARY.update({n: getattr(L, n) for n in (
    "equal", "not_equal", "greater_equal", "greater_than", "less_equal", "less_than",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor")})
# forms whose result is bool whatever x's dtype (x becomes bool, as in Paddle)
_TO_BOOL = {"equal", "not_equal", "greater_equal", "greater_than", "less_equal", "less_than",
            "logical_and", "logical_or", "logical_xor", "logical_not"}

# Paddle 2.6 has these at top level (``paddle.X_``) ...
_TOP = ["abs_", "acos_", "atan_", "bitwise_and_", "bitwise_not_", "bitwise_or_",
        "bitwise_xor_", "cast_", "cauchy_", "cos_", "divide_", "equal_", "erf_", "expm1_",
        "floor_divide_", "geometric_", "greater_equal_", "greater_than_", "less_equal_",
        "less_than_", "log10_", "log2_", "log_", "logical_and_", "logical_not_",
        "logical_or_", "multiply_", "neg_", "normal_", "pow_", "sin_", "sinh_", "square_",
        "tan_", "tanh_"]
# ... and these as methods of Tensor and of the static Variable (not erf_, expm1_, square_)
_METHODS = ([n + "_" for n in _UNARY if n not in ("erf", "expm1", "square")]
            + [n + "_" for n in _BINARY]
            + ["cast_", "pow_", "scale_", "clip_", "normal_", "exponential_", "cauchy_",
               "geometric_"])


def _check_broadcast(x, y):
    """Paddle's in-place rule: the broadcast result must have x's shape."""
    if not hasattr(y, "shape"):
        raise TypeError(f"y must be a Tensor, but received {type(y).__name__}")
    out = list(broadcast_shapes(x.shape, y.shape))
    if out != list(x.shape):
        raise ValueError(f"The shape of broadcast output {out} is different from that of "
                         f"inplace tensor {list(x.shape)} in the Inplace operation.")


def _inplace_form(public, fn, check_dtype=True, before=None):
    """``public(x, *args)``: x rebound to ``fn(x, *args)`` (module docstring)."""
    plain = public[:-1]

    def write(x, *args, **kwargs):
        kwargs.pop("name", None)
        if before is not None:
            before(x, *args, **kwargs)
        if is_graph_value(x) and not getattr(x.block.program, "to_static_trace", False):
            # (inside to_static the write reaches the caller's tensor: jit/partial_program.py)
            warnings.warn(f"In static graph mode, {public}() is the same as {plain}() and does "
                          "not perform inplace operation.", stacklevel=2)

        def compute(t):
            out = fn(t, *args, **kwargs)
            if check_dtype and to_np_dtype(out.dtype) != to_np_dtype(t.dtype):
                raise ValueError(f"{public}: the result of {plain} on a {t.dtype.name} tensor "
                                 f"is {out.dtype.name}, but an inplace operation keeps the "
                                 f"tensor's data type")
            return out
        return inplace(x, compute)
    write.__name__ = write.__qualname__ = public
    write.__doc__ = f"In place: x becomes ``{plain}(x, ...)`` (see tensor/inplace.py)."
    return write


for _n, _f in _UNARY.items():
    globals()[_n + "_"] = _inplace_form(_n + "_", _f, _n not in _TO_BOOL)
for _n, _f in _BINARY.items():
    globals()[_n + "_"] = _inplace_form(_n + "_", _f, _n not in _TO_BOOL,
                                        before=_check_broadcast)


def _check_exponent(x, y):
    if not isinstance(y, (int, float)):
        raise TypeError(f"y must be scalar type, but received: {type(y)} ")


pow_ = _inplace_form("pow_", M.pow, before=_check_exponent)
cast_ = _inplace_form("cast_", M.cast, check_dtype=False)


def _scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None):
    return M.scale(x, scale, bias, bias_after_scale)   # Paddle's scale_ ignores act


def _clip(x, min=None, max=None):
    # Paddle's clip_ reads tensor bounds as numbers
    lo = min.item(0) if hasattr(min, "shape") else min
    hi = max.item(0) if hasattr(max, "shape") else max
    return M.clip(x, lo, hi)


scale_ = _inplace_form("scale_", _scale)
clip_ = _inplace_form("clip_", _clip)


# ------------------------------------------------------------------ fills
_FILL = get_op("fill_any")
_GAUSSIAN = get_op("gaussian_inplace")
_EXPONENTIAL = get_op("exponential")


def _dygraph_only(x, public):
    if is_graph_value(x):
        raise AssertionError(f"We only support '{public}()' in dynamic graph mode, please "
                             "call 'paddle.disable_static()' to enter dynamic graph mode.")


def _filled(t, value):
    """t's shape and dtype, every value ``value`` (zero gradient to t)."""
    return bind(_FILL, (t,), {"value": float(value)})[0]


def fill_(x, value):
    """In place: every value of x becomes ``value`` (an int or a float)."""
    if not isinstance(value, (int, float)):
        raise TypeError(f"The type of 'value'  must be int or float, but received "
                        f"{type(value)}.")
    return inplace(x, lambda t: _filled(t, value))


def zero_(x):
    """In place: every value of x becomes 0."""
    return fill_(x, 0.0)


def normal_(x, mean=0.0, std=1.0, name=None):
    """In place: x is refilled with samples of N(mean, std**2)."""
    _dygraph_only(x, "normal_")
    return inplace(x, lambda t: bind(_GAUSSIAN, (t,), {"mean": float(mean), "std": float(std),
                                                       "seed": 0})[0])


def exponential_(x, lam=1.0, name=None):
    """In place: x is refilled with samples of Exp(lam)."""
    return inplace(x, lambda t: bind(_EXPONENTIAL, (t,), {"lambda": float(lam)})[0])


def _uniform_like(t, lo, hi):
    """Samples of U(lo, hi) of t's shape and dtype, with a zero gradient to t."""
    return M.add(_filled(t, 0.0), uniform(list(t.shape), t.dtype, lo, hi))


def cauchy_(x, loc=0, scale=1, name=None):
    """In place: x is refilled with samples of the Cauchy distribution
    (``loc + scale * tan(pi * (u - 0.5))``, u uniform in [0, 1))."""
    _dygraph_only(x, "cauchy_")

    def draw(t):
        u = _uniform_like(t, 0.0, 1.0)
        c = M.tan(M.scale(u, _math.pi, -0.5 * _math.pi))
        loc_t = M.cast(to_tensor(loc), t.dtype)
        return M.add(M.scale(c, float(scale)), loc_t)
    return inplace(x, draw)


def geometric_(x, probs, name=None):
    """In place: x is refilled with ``log(u) / log1p(-probs)``, u uniform in
    (tiny, 1): Paddle's geometric_ (its samples are not rounded to integers)."""
    _dygraph_only(x, "geometric_")
    tiny = float(np.finfo(to_np_dtype(x.dtype)).tiny)

    def draw(t):
        p = M.cast(to_tensor(probs), t.dtype)
        return M.divide(M.log(_uniform_like(t, tiny, 1.0)), M.log1p(M.neg(p)))
    return inplace(x, draw)


# ------------------------------------------------------------------ eager only
def copy_(x, other, blocking):
    """x takes a copy of ``other``'s values (and shape); nothing is recorded for
    autograd and x's place on the tape is unchanged.  Returns None."""
    if not isinstance(other, Tensor):
        raise ValueError(f"copy_: argument (position 1) must be Tensor, but got "
                         f"{type(other).__name__}")
    if other._data.dtype != x._data.dtype:
        raise OpError(f"Tensor {x.name} has different data type ({x.dtype.name}) with Tensor "
                      f"{other.name} ({other.dtype.name}), Tensor Copy cannot be performed!",
                      kind=RuntimeError)
    write_data(x, other._data.copy())
    return None


def inplace_assign(x, y):
    """x becomes ``y``: its value (shape too), its autograd position (the
    gradient flows to y) and its storage (a later write into either is seen
    by the other), as Paddle's ``Tensor._inplace_assign``, which its to_static
    tests use (a static Variable has its own).  Returns None."""
    if not isinstance(y, Tensor):
        raise ValueError(f"_inplace_assign: the value must be a Tensor, got "
                         f"{type(y).__name__}")
    if y is not x:
        rebind(x, y)
        link(y, x, DETACH)
        x._version = getattr(y, "_version", 0)      # one storage, one counter
    return None


def detach_(x):
    """x leaves the autograd graph (it becomes a leaf that stops gradients)."""
    x._node, x._slot, x.stop_gradient = None, 0, True
    return x


__all__ = list(_TOP)
METHODS = list(_METHODS)
# the fills take a Variable too (inside to_static, where the input written is
# the caller's tensor: jit/partial_program.py)
EXTRA_METHODS = {"fill_": fill_, "zero_": zero_}
EAGER_METHODS = {"copy_": copy_, "detach_": detach_,
                 "_inplace_assign": inplace_assign}
