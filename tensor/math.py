"""Elementwise arithmetic, unary math, matrix products, scale, clip, cast,
add_n and cumsum (``paddle.add``, ``paddle.exp``, ``paddle.matmul`` ...).

Tensor methods: ``METHODS`` (same name as the function) and ``EXTRA_METHODS``
(``astype``, ``__neg__``, ``__abs__``); the other operators are in operators.py.
"""
import numbers

import numpy as np

from ..ops import bind, get_op, has_op, OpError
from ..ops.dtypes import to_enum, to_np_dtype
from .operators import promote_floats, promote_complex

_BINARY = ["add", "subtract", "multiply", "divide", "pow", "maximum", "minimum",
           "remainder", "mod", "floor_divide", "matmul", "bmm", "dot"]
# public name -> op type of the elementwise unary functions
_UNARY_OPS = {
    "exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10",
    "log1p": "log1p", "sqrt": "sqrt", "rsqrt": "rsqrt", "square": "square",
    "reciprocal": "reciprocal", "abs": "abs", "sign": "sign", "floor": "floor",
    "ceil": "ceil", "round": "round", "sin": "sin", "cos": "cos", "tan": "tan",
    "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh",
    "erf": "erf", "tanh": "tanh", "sigmoid": "sigmoid",
}
__all__ = _BINARY + list(_UNARY_OPS) + ["neg", "scale", "clip", "cast", "add_n", "cumsum"]
METHODS = [n for n in __all__ if n != "add_n"]

_ADD = get_op("elementwise_add")
_SUB = get_op("elementwise_sub")
_MUL = get_op("elementwise_mul")
_DIV = get_op("elementwise_div")
_EPOW = get_op("elementwise_pow")
_MAX = get_op("elementwise_max")
_MIN = get_op("elementwise_min")
_MOD = get_op("elementwise_mod")
_FLOORDIV = get_op("elementwise_floordiv")
_MATMUL = get_op("matmul_v2")
_BMM = get_op("bmm")
_DOT = get_op("dot")
_POW = get_op("pow")
_SCALE = get_op("scale")
_CLIP = get_op("clip")
_CAST = get_op("cast")
_SUM = get_op("sum")
_CUMSUM = get_op("cumsum")


def _is_number(v):
    return isinstance(v, (numbers.Number, np.number)) and not isinstance(v, np.ndarray)


# ------------------------------------------------------------------ binary
# add/subtract/multiply promote two float dtypes to the wider (Paddle 2.6); other
# mixes raise in the op, as in Paddle (the operators cast instead: operators.py)
def add(x, y, name=None):
    return bind(_ADD, promote_floats(x, y))[0]


def subtract(x, y, name=None):
    return bind(_SUB, promote_floats(x, y))[0]


def multiply(x, y, name=None):
    return bind(_MUL, promote_floats(x, y))[0]


def divide(x, y, name=None):
    return bind(_DIV, promote_complex(x, y))[0]


def pow(x, y, name=None):
    """``x ** y``: a Python number exponent uses the ``pow`` op (attribute
    ``factor``), a tensor exponent ``elementwise_pow``."""
    if _is_number(y) and not isinstance(y, bool):
        return bind(_POW, (x, None), {"factor": float(y)})[0]
    if not hasattr(y, "shape"):
        raise TypeError(f"pow: y must be a number or a Tensor, got {type(y).__name__}")
    return bind(_EPOW, (x, y))[0]


def maximum(x, y, name=None):
    return bind(_MAX, (x, y))[0]


def minimum(x, y, name=None):
    return bind(_MIN, (x, y))[0]


def remainder(x, y, name=None):
    return bind(_MOD, (x, y))[0]


mod = remainder


def floor_divide(x, y, name=None):
    return bind(_FLOORDIV, (x, y))[0]


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    if transpose_x or transpose_y:     # (matmul_v2 renames them trans_x, trans_y)
        return bind(_MATMUL, promote_complex(x, y),
                    {"transpose_x": transpose_x, "transpose_y": transpose_y})[0]
    return bind(_MATMUL, promote_complex(x, y))[0]


def bmm(x, y, name=None):
    return bind(_BMM, (x, y))[0]


def dot(x, y, name=None):
    return bind(_DOT, (x, y))[0]


# ------------------------------------------------------------------ unary
def _make_unary(public, op_type):
    op = get_op(op_type)

    def fn(x, name=None):
        return bind(op, (x,))[0]
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"Elementwise ``{public}`` (op ``{op_type}``)."
    return fn


for _name, _type in _UNARY_OPS.items():
    globals()[_name] = _make_unary(_name, _type)


def neg(x, name=None):
    return bind(_SCALE, (x, None), {"scale": -1.0, "bias": 0.0})[0]


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """``scale * x + bias`` (or ``scale * (x + bias)``); ``scale`` may be a Tensor."""
    attrs = {"bias": float(bias), "bias_after_scale": bool(bias_after_scale)}
    if hasattr(scale, "shape"):
        out = bind(_SCALE, (x, scale), attrs)[0]
    else:
        attrs["scale"] = float(scale)
        out = bind(_SCALE, (x, None), attrs)[0]
    if act is not None:
        out = _activation(act, out)
    return out


def _activation(act, x):
    """The activation op ``act`` (``relu``, ``tanh`` ...) on x, as Paddle's ``act=``."""
    op = get_op(act) if has_op(act) else None
    if op is None or len(op.inputs) != 1:
        raise ValueError(f"unknown activation '{act}'")
    return bind(op, (x,))[0]


def _clip_defaults(dtype):
    d = to_np_dtype(dtype)
    if d == np.int32:
        return float(np.iinfo(np.int32).min), float(np.iinfo(np.int32).max - 2 ** 7)
    if d == np.int64:
        return float(np.iinfo(np.int64).min), float(np.iinfo(np.int64).max - 2 ** 39)
    if d == np.float16:
        return float(np.finfo(np.float16).min), float(np.finfo(np.float16).max)
    return float(np.finfo(np.float32).min), float(np.finfo(np.float32).max)


def clip(x, min=None, max=None, name=None):
    """Clamp x into [min, max]; either bound may be a number, a Tensor or None."""
    lo, hi = _clip_defaults(x.dtype)
    attrs = {"min": lo, "max": hi}
    lo_t = hi_t = None
    if hasattr(min, "shape"):
        lo_t = min
    elif min is not None:
        attrs["min"] = float(min)
    if hasattr(max, "shape"):
        hi_t = max
    elif max is not None:
        attrs["max"] = float(max)
    if lo_t is None and hi_t is None and attrs["min"] > attrs["max"]:
        raise OpError(f"op 'clip': max ({max}) must be greater than or equal to min ({min})")
    return bind(_CLIP, (x, lo_t, hi_t), attrs)[0]


def cast(x, dtype):
    """A copy of x converted to ``dtype`` (any dtype spelling)."""
    return bind(_CAST, (x,), {"in_dtype": to_enum(x.dtype), "out_dtype": to_enum(dtype)})[0]


def astype(x, dtype):
    return cast(x, dtype)


def add_n(inputs, name=None):
    """Sum of a list of tensors of one shape and dtype (op ``sum``)."""
    if hasattr(inputs, "shape"):
        inputs = [inputs]
    inputs = list(inputs)
    if not inputs:
        raise OpError("op 'sum': add_n needs at least one input tensor")
    return bind(_SUM, (inputs,))[0]


def cumsum(x, axis=None, dtype=None, name=None):
    """Cumulative sum along ``axis`` (of the flattened tensor when axis is None)."""
    if dtype is not None and to_np_dtype(dtype) != to_np_dtype(x.dtype):
        x = cast(x, dtype)
    if axis is None:
        return bind(_CUMSUM, (x,), {"flatten": True})[0]
    return bind(_CUMSUM, (x,), {"axis": int(axis)})[0]


EXTRA_METHODS = {
    "astype": astype,
    "__neg__": neg,
    "__abs__": globals()["abs"],
}
