"""Python operators of tensors (``+ - * / ** // % @``, comparisons, ``& | ^ ~``)
with Paddle 2.6's rules for mixed operands, written once for the eager Tensor
and the static Variable.

The rules (recorded from real Paddle 2.6.2 in tests/conformance/fixtures/
operators.json; the eager result decides where Paddle's modes disagree):

1. A Python ``float`` meeting an integer or bool tensor casts the tensor to
   float32 first.  A Python ``int`` (or bool) keeps the tensor's dtype, except
   for ``/`` where an integer tensor becomes float32.
2. ``+ - * /`` with a Python number use the ``scale`` op.  Every other operator
   turns the number into a tensor of the tensor's dtype: ``fill_constant`` of
   shape [] on the right, of the tensor's shape when the number is on the left.
   A bool tensor with a bool number under ``+``/``-`` raises, as in eager Paddle
   (it has no bool add/subtract kernel).
3. Two tensors of different dtypes: under ``+ - *`` two float dtypes promote to
   the wider one; otherwise the right operand is cast to the left's dtype
   (``int64_tensor * float32_tensor`` is int64).
4. ``/`` on integer (or bool) operands casts both to float32 after rule 3.
5. Comparisons return bool; ``& | ^`` take tensors of one integer/bool dtype
   only (no Python numbers, no casts), as in Paddle: ``x & 1`` raises
   ValueError (Paddle's InvalidArgument), ``1 & x`` Python's TypeError.
6. A complex tensor meeting a tensor of another dtype (``+ - * / @``): both
   become the complex dtype as wide as the wider of the two (complex64 and
   float64 give complex128); only float32, float64, complex64 and complex128
   mix so (another dtype raises RuntimeError, Paddle's Unavailable).  The
   functions add/subtract/multiply/divide/matmul promote the same way and
   take float16 too (``promote_complex``).
7. A Python complex number under ``* / @`` is a complex64 [1] tensor meeting
   the tensor by rule 6 (``x * 2j`` of float32 is complex64, of an integer
   tensor an error); under the other operators it takes the tensor's dtype
   (``x + 1j`` of float32 is float32: the real part).
8. A numpy array is a tensor of its own dtype meeting the tensor by rules 3,
   4 and 6 (``float32_tensor + float64_array`` is float64, ``* int64_array``
   float32); numpy defers its operators to the tensor's (Tensor's
   ``__array_ufunc__ = None``), so ``array * tensor`` is a tensor too.  A list
   or tuple takes the tensor's dtype (sampan's; Paddle refuses lists).

Each rule is one branch of ``binary`` below; ``OPERATORS`` is the table of
method name -> (op type, reversed, scale rule).
"""
import numbers
import warnings

import numpy as np

from ..ops import bind, get_op, OpError, is_graph_value
from ..ops.errors import NOT_FOUND, UNAVAILABLE
from ..ops.dtypes import to_enum, to_np_dtype
from ..ops.mode import BIND

_SCALE = get_op("scale")
_CAST = get_op("cast")
_FILL = get_op("fill_constant")
_FILL_BATCH = get_op("fill_constant_batch_size_like")
_FLOAT32 = np.dtype("float32")
_PROMOTING = frozenset(("elementwise_add", "elementwise_sub", "elementwise_mul"))
_COMPLEX_MIX = _PROMOTING | {"elementwise_div", "matmul_v2"}
_COMPLEX_SCALAR = frozenset(("elementwise_mul", "elementwise_div", "matmul_v2"))
_FLOAT_RANK = {np.dtype("float16"): 0, np.dtype("float32"): 1, np.dtype("float64"): 2}
_EXACT_INT = 1 << 24                      # the integers a float32 attribute holds exactly
_WIDE_FLOAT = frozenset((np.dtype("float64"), np.dtype("complex128")))


def _np(t):
    return to_np_dtype(t.dtype)


def _is_int(dt):
    return dt.kind in "iub"


def _cast(x, dt):
    return bind(_CAST, (x,), {"in_dtype": to_enum(x.dtype), "out_dtype": to_enum(dt)})[0]


def _fill(value, dt, like=None):
    """A tensor holding ``value``: shape [] (right operand), or ``like``'s shape
    (left operand), with a batch-size-like fill when that shape has -1 dims."""
    shape = [] if like is None else list(like.shape)
    attrs = {"shape": shape, "dtype": to_enum(dt), "value": float(value)}
    # Paddle writes no str_value here; sampan adds one only where the float
    # attribute cannot hold the number (eager Paddle's result is the exact one)
    if dt.kind in "iu" and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if not -_EXACT_INT <= value <= _EXACT_INT:
            attrs["str_value"] = str(int(value))
    elif dt in _WIDE_FLOAT and float(np.float32(value)) != value and value == value:
        attrs["str_value"] = str(float(value))
    if any(d < 0 for d in shape):
        attrs.pop("str_value", None)
        return bind(_FILL_BATCH, (like,), attrs)[0]
    return bind(_FILL, (None, None, None), attrs)[0]


# ---------------------------------------------------------------- scale rules
# method -> the scale op's attrs for ``x <method> v`` (v a Python float); None: not a scale
SCALE_ATTRS = {
    "__add__": lambda v: {"scale": 1.0, "bias": v},
    "__radd__": lambda v: {"scale": 1.0, "bias": v},
    "__sub__": lambda v: {"scale": 1.0, "bias": -v},
    "__rsub__": lambda v: {"scale": -1.0, "bias": v},
    "__mul__": lambda v: {"scale": v, "bias": 0.0},
    "__rmul__": lambda v: {"scale": v, "bias": 0.0},
    # x / 0.0 is inf/nan as in eager Paddle: not a scale (1 / 0 raises in Python)
    "__truediv__": lambda v: {"scale": 1.0 / v, "bias": 0.0} if v != 0 else None,
}


def _scale_rule(attrs_of):
    def rule(x, v):
        attrs = attrs_of(v)
        return None if attrs is None else bind(_SCALE, (x, None), attrs)[0]
    return rule


SCALE_RULES = {m: _scale_rule(f) for m, f in SCALE_ATTRS.items()}


def _is_number(v):
    return isinstance(v, (numbers.Number, np.number)) and not isinstance(v, np.ndarray)


def _promote(a, b):
    """Rule 3: the dtype both operands take, or None to cast right to left."""
    ra, rb = _FLOAT_RANK.get(a), _FLOAT_RANK.get(b)
    if ra is None or rb is None:
        return None
    return a if ra >= rb else b


_WIDTH = {np.dtype("float16"): 32, np.dtype("float32"): 32, np.dtype("float64"): 64,
          np.dtype("complex64"): 32, np.dtype("complex128"): 64}
_COMPLEX_OF_WIDTH = {32: np.dtype("complex64"), 64: np.dtype("complex128")}
_OPERATOR_MIX = frozenset(map(np.dtype, ("float32", "float64", "complex64", "complex128")))


def _complex_common(a, b, operator):
    """Rule 6: the complex dtype two different dtypes meet in when one is
    complex (None when neither is); None for the functions' refused mixes
    (integers, bool: the op raises), an error for the operators'."""
    if a.kind != "c" and b.kind != "c":
        return None
    if operator and not (a in _OPERATOR_MIX and b in _OPERATOR_MIX):
        raise OpError(f"a {a.name} tensor and a {b.name} tensor cannot be combined: only "
                      f"float32, float64, complex64 and complex128 are promoted to a complex "
                      f"dtype (cast one with .astype())", kind=UNAVAILABLE)
    if a not in _WIDTH or b not in _WIDTH:
        return None
    return _COMPLEX_OF_WIDTH[max(_WIDTH[a], _WIDTH[b])]


def _same_eager_dtype(x, y):
    """Two eager tensors of one dtype (the common case: nothing to promote),
    told without building public dtype objects."""
    try:
        return x._data.dtype is y._data.dtype
    except AttributeError:
        return False


def promote_complex(x, y):
    """``(x, y)`` cast to one complex dtype when one is complex and the other a
    float or complex tensor of another dtype (rule 6, as paddle.divide and
    paddle.matmul do); anything else as it is."""
    if _same_eager_dtype(x, y) or not (hasattr(x, "dtype") and hasattr(y, "dtype")):
        return x, y
    a, b = _np(x), _np(y)
    if a != b:
        common = _complex_common(a, b, False)
        if common is not None:
            x = x if a == common else _cast(x, common)
            y = y if b == common else _cast(y, common)
    return x, y


def promote_floats(x, y):
    """``(x, y)`` with two different float dtypes cast to the wider one (what
    Paddle 2.6 does for ``+ - *`` and for paddle.add/subtract/multiply), and a
    complex one meeting a float one promoted (``promote_complex``).  What is
    not a tensor is left to the op, which refuses it (ValueError, as Paddle)."""
    if _same_eager_dtype(x, y) or not (hasattr(x, "dtype") and hasattr(y, "dtype")):
        return x, y
    a, b = _np(x), _np(y)
    if a != b and (a.kind == "c" or b.kind == "c"):
        return promote_complex(x, y)
    if a != b:
        common = _promote(a, b)
        if common is not None:
            x = x if a == common else _cast(x, common)
            y = y if b == common else _cast(y, common)
    return x, y


def _is_complex_number(v):
    return isinstance(v, (complex, np.complexfloating))


def binary(method, op, reverse, self, other):
    """``self <method> other`` under Paddle's rules (module docstring)."""
    lhs = _np(self)
    if _is_complex_number(other) and op.type in _COMPLEX_SCALAR:
        from .creation_base import to_tensor      # rule 7: a complex64 [1] tensor
        other = to_tensor([complex(other)])
    elif _is_number(other) and not _is_complex_number(other):
        is_bool = isinstance(other, (bool, np.bool_))
        if isinstance(other, (float, np.floating)):
            if _is_int(lhs):                                       # rule 1
                self, lhs = _cast(self, _FLOAT32), _FLOAT32
        else:
            if is_bool and lhs.kind == "b" and op.type in ("elementwise_add",
                                                           "elementwise_sub"):
                raise OpError(f"op '{op.type}': a bool tensor and a bool number cannot be "
                              f"added or subtracted (Paddle has no bool {op.type} kernel)",
                              kind=NOT_FOUND)
            if op.type == "elementwise_div" and _is_int(lhs):       # rule 1, division
                self, lhs = _cast(self, _FLOAT32), _FLOAT32
        scale = SCALE_RULES.get(method)
        if scale is not None:                                       # rule 2
            out = scale(self, float(other))
            if out is not None:
                return out
        other = _fill(other, lhs, self if reverse else None)
    elif isinstance(other, np.ndarray):         # rule 8: a tensor of its own dtype
        from .creation_base import to_tensor
        other = to_tensor(other)
    elif isinstance(other, (list, tuple)) or _is_complex_number(other):
        from .creation_base import to_tensor
        other = to_tensor(other, dtype=self.dtype)
    elif not hasattr(other, "dtype"):
        return NotImplemented
    rhs = _np(other)
    cplx = _complex_common(lhs, rhs, True) if rhs != lhs and op.type in _COMPLEX_MIX else None
    if cplx is not None:                                            # rule 6
        self = self if lhs == cplx else _cast(self, cplx)
        other = other if rhs == cplx else _cast(other, cplx)
    elif rhs != lhs:                                                # rule 3
        common = _promote(lhs, rhs) if op.type in _PROMOTING else None
        if common is None:
            other = _cast(other, lhs)
        else:
            if is_graph_value(self):
                # Paddle's static operators say so (its eager ones do not)
                warnings.warn(f"The input dtypes of OP {op.type} are paddle.{lhs.name} and "
                              f"paddle.{rhs.name}, the output will be auto-promoted to "
                              f"paddle.{common.name}")
            if rhs != common:
                other = _cast(other, common)
            if lhs != common:
                self = _cast(self, common)
    if reverse:
        self, other = other, self
    if op.type == "elementwise_div" and _is_int(_np(self)):         # rule 4
        self, other = _cast(self, _FLOAT32), _cast(other, _FLOAT32)
    return bind(op, (self, other))[0]


def _bitwise(op, reverse, symbol):
    def method(self, other):
        if not hasattr(other, "dtype") or _is_number(other) or isinstance(other, np.ndarray):
            if reverse:                     # rule 5: Paddle's Tensor has no __rand__ ...
                return NotImplemented
            raise OpError(f"op '{op.type}': y of `x {symbol} y` must be a Tensor, got "  # ... and
                          f"{type(other).__name__} (make it one with paddle.full_like(x, "
                          f"value) or paddle.to_tensor)")   # its __and__ raises InvalidArgument
        a, b = (other, self) if reverse else (self, other)
        return bind(op, (a, b))[0]
    return method


def _make(method, op_type, reverse=False):
    op = get_op(op_type)
    is_div = op_type == "elementwise_div"
    scale = SCALE_ATTRS.get(method)

    def fn(self, other):
        # tensor operands of one dtype go straight to the op (the hot path); an eager
        # Tensor's array dtype is read directly, a static Variable's through .dtype
        tp = type(other)
        if tp is type(self):
            try:
                dt, odt = self._data.dtype, other._data.dtype
            except AttributeError:
                dt, odt = self.dtype.np_dtype, other.dtype.np_dtype
            if dt is odt and not (is_div and dt.kind in "iub"):
                return BIND[0](op, (other, self) if reverse else (self, other), None)[0]
        elif scale is not None and (tp is float or tp is int):
            # an eager tensor and a Python number: rule 2 (a scale op) where ``binary``
            # goes straight to it: a float tensor, or an integer one with an int
            # (not dividing); every other case takes ``binary``'s rules
            k = getattr(getattr(self, "_data", None), "dtype", None)
            k = None if k is None else k.kind
            if k == "f" or (k is not None and k in "iu" and tp is int and not is_div):
                attrs = scale(float(other))
                if attrs is not None:
                    return BIND[0](_SCALE, (self, None), attrs)[0]
        return binary(method, op, reverse, self, other)
    fn.__name__ = fn.__qualname__ = method
    fn.__doc__ = f"``{method}`` (op ``{op_type}``) under Paddle's operand rules."
    return fn


_TABLE = {   # method: (op type, reversed)
    "__add__": ("elementwise_add", False), "__radd__": ("elementwise_add", False),
    "__sub__": ("elementwise_sub", False), "__rsub__": ("elementwise_sub", True),
    "__mul__": ("elementwise_mul", False), "__rmul__": ("elementwise_mul", False),
    "__truediv__": ("elementwise_div", False), "__rtruediv__": ("elementwise_div", True),
    "__pow__": ("elementwise_pow", False), "__rpow__": ("elementwise_pow", True),
    "__floordiv__": ("elementwise_floordiv", False),
    "__rfloordiv__": ("elementwise_floordiv", True),
    "__mod__": ("elementwise_mod", False), "__rmod__": ("elementwise_mod", True),
    "__matmul__": ("matmul_v2", False), "__rmatmul__": ("matmul_v2", True),
    "__eq__": ("equal", False), "__ne__": ("not_equal", False),
    "__lt__": ("less_than", False), "__le__": ("less_equal", False),
    "__gt__": ("greater_than", False), "__ge__": ("greater_equal", False),
}

_POW = get_op("pow")


def _eager_pow(self, other):
    """The eager Tensor's ``x ** number`` is Paddle's ``pow`` op (its C++ operator
    does that); a static Variable's is ``fill_constant`` + ``elementwise_pow``
    (``OPERATORS['__pow__']``), as Paddle's static patch does."""
    if _is_number(other) and not isinstance(other, (bool, np.bool_, complex)):
        if isinstance(other, (float, np.floating)) and _is_int(_np(self)):
            self = _cast(self, _FLOAT32)
        return bind(_POW, (self, None), {"factor": float(other)})[0]
    return OPERATORS["__pow__"](self, other)


OPERATORS = {m: _make(m, t, r) for m, (t, r) in _TABLE.items()}
EAGER_OPERATORS = {"__pow__": _eager_pow}      # the eager Tensor's own forms
OPERATORS.update({
    "__and__": _bitwise(get_op("bitwise_and"), False, "&"),
    "__or__": _bitwise(get_op("bitwise_or"), False, "|"),
    "__xor__": _bitwise(get_op("bitwise_xor"), False, "^"),
    "__rand__": _bitwise(get_op("bitwise_and"), True, "&"),
    "__ror__": _bitwise(get_op("bitwise_or"), True, "|"),
    "__rxor__": _bitwise(get_op("bitwise_xor"), True, "^"),
})
