"""Comparisons, logical and bitwise functions, isnan/isinf/isfinite, equal_all,
allclose, isclose, and the comparison / bitwise operators of Tensor.

A Python number operand of these functions becomes a tensor of x's dtype.
The operators (``x == y`` ...) are in operators.py.
"""
import numbers

import numpy as np

from ..ops import bind, get_op, OpError

_CMP = {"equal": "equal", "not_equal": "not_equal", "less_than": "less_than",
        "less_equal": "less_equal", "greater_than": "greater_than",
        "greater_equal": "greater_equal"}
_LOGICAL = ("logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
            "bitwise_xor")
_UNARY = {"logical_not": "logical_not", "bitwise_not": "bitwise_not", "isnan": "isnan_v2",
          "isinf": "isinf_v2", "isfinite": "isfinite_v2"}

__all__ = list(_CMP) + list(_LOGICAL) + list(_UNARY) + ["equal_all", "allclose", "isclose"]
METHODS = list(__all__)

_EQUAL_ALL = get_op("equal_all")
_ALLCLOSE = get_op("allclose")
_ISCLOSE = get_op("isclose")


def _is_number(v):
    return isinstance(v, (numbers.Number, np.number, bool)) and not isinstance(v, np.ndarray)


def _operand(public, x, y, numbers_ok=False):
    """y as Paddle 2.6's functional forms take it: a Tensor; paddle.equal also
    takes a Python number (a 0-D tensor of x's dtype, ``fill_constant``).
    Anything else: Paddle's errors (TypeError from paddle.equal's own check,
    InvalidArgument -- ValueError -- from the others)."""
    if hasattr(y, "dtype") and not isinstance(y, (np.ndarray, np.generic)):
        return y
    if numbers_ok and _is_number(y):
        from .creation import full
        return full([], y, x.dtype)
    if numbers_ok:
        raise TypeError(f"paddle.{public}: y must be a float, bool, int or Tensor, got "
                        f"{type(y).__name__}")
    hint = " (use the operator form for a Python number)" if _is_number(y) else ""
    raise OpError(f"paddle.{public}: y must be a Tensor, got {type(y).__name__}{hint}")


def _make_binary(public, op_type):
    op = get_op(op_type)
    numbers_ok = public == "equal"      # Paddle 2.6: only paddle.equal takes a Python number

    def fn(x, y, name=None):
        return bind(op, (x, _operand(public, x, y, numbers_ok)))[0]
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"Elementwise ``{public}`` with broadcasting (op ``{op_type}``), bool result."
    return fn


def _make_logical(public):
    op = get_op(public)

    def fn(x, y, out=None, name=None):
        return bind(op, (x, _operand(public, x, y)))[0]
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"Elementwise ``{public}`` with broadcasting (op ``{public}``)."
    return fn


def _make_unary(public, op_type):
    op = get_op(op_type)
    if public in ("logical_not", "bitwise_not"):
        def fn(x, out=None, name=None):
            return bind(op, (x,))[0]
    else:
        def fn(x, name=None):
            return bind(op, (x,))[0]
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"Elementwise ``{public}`` (op ``{op_type}``)."
    return fn


for _n, _t in _CMP.items():
    globals()[_n] = _make_binary(_n, _t)
for _n in _LOGICAL:
    globals()[_n] = _make_logical(_n)
for _n, _t in _UNARY.items():
    globals()[_n] = _make_unary(_n, _t)


def equal_all(x, y, name=None):
    """True (a 0-D bool tensor) when x and y have one shape and equal values."""
    return bind(_EQUAL_ALL, (x, y))[0]


def _close(op, x, y, rtol, atol, equal_nan):
    attrs = {"equal_nan": bool(equal_nan)}
    rt = at = None
    if hasattr(rtol, "shape"):
        rt = rtol
    else:
        attrs["rtol"] = str(float(rtol))
    if hasattr(atol, "shape"):
        at = atol
    else:
        attrs["atol"] = str(float(atol))
    return bind(op, (x, y, rt, at), attrs)[0]


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    return _close(_ALLCLOSE, x, y, rtol, atol, equal_nan)


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    return _close(_ISCLOSE, x, y, rtol, atol, equal_nan)


EXTRA_METHODS = {
    # ``==``, ``<``, ``&`` ... are in operators.py; ``~`` is bitwise_not (logical on bool)
    "__invert__": globals()["bitwise_not"],
}
