"""Creation functions: full/zeros/ones (and ``*_like``), empty, arange, linspace,
eye, assign, clone.

A ``shape`` argument may be a list of ints, a list mixing ints and integer
Tensors, or a 1-D integer Tensor; tensors travel as the op's ShapeTensor /
ShapeTensorList inputs, so the same call works on static Variables.
"""
import numbers

import numpy as np

from ..ops import bind, get_op, OpError, is_graph_value
from ..ops.dtypes import to_enum, to_np_dtype
from ..ops.defs.creation import assign_value_attrs
from .creation_base import default_float, to_tensor

__all__ = ["full", "zeros", "ones", "full_like", "zeros_like", "ones_like", "empty",
           "empty_like", "arange", "linspace", "eye", "assign", "clone"]
METHODS = ["clone"]

_FILL = get_op("fill_constant")
_FILL_LIKE = get_op("fill_any_like")
_EMPTY = get_op("empty")
_RANGE = get_op("range")
_LINSPACE = get_op("linspace")
_EYE = get_op("eye")
_ASSIGN = get_op("assign")
_ASSIGN_VALUE = get_op("assign_value")



def is_var(v):
    """A Tensor or a static Variable (anything op inputs accept)."""
    return hasattr(v, "_data") or is_graph_value(v)


def int_list_args(value, what="shape", cast_int32=True):
    """``(ints, tensor, tensor_list)`` for an int-list argument that may hold
    tensors, as Paddle takes it: a tensor is the whole list; a list holding
    tensors becomes a list of tensors (numbers as int32 ``fill_constant``)
    with -1 for them in the ints.  The creation functions cast the other
    tensors to int32 and fill numbers of shape [] (Paddle's ShapeTensorList);
    the manipulation functions (``cast_int32=False``) pass tensors as they
    are and fill numbers of shape [1]."""
    if type(value) is list or type(value) is tuple:    # the common case: Python ints
        for v in value:
            if type(v) is not int:
                break
        else:
            return list(value), None, None
    if is_var(value):
        return [], value, None
    if isinstance(value, (numbers.Integral, np.integer)):
        return [int(value)], None, None
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{what} must be a list, tuple or Tensor, got {type(value).__name__}")
    if any(is_var(v) for v in value):
        tensors = [((_cast_int32(v) if cast_int32 and to_np_dtype(v.dtype) != np.int32 else v)
                    if is_var(v) else full([] if cast_int32 else [1], int(v), "int32"))
                   for v in value]
        return [-1 if is_var(v) else int(v) for v in value], None, tensors
    return [int(v) for v in value], None, None


def _cast_int32(v):
    from .math import cast
    return cast(v, "int32")


def _fill_attrs(shape, value, dt):
    """Paddle's: the value also as ``str_value`` (the kernel reads that first:
    exact for int64 and float64), ``int(value)`` for an integer dtype, else
    ``float(value)`` (bool too)."""
    if dt.kind in "iu":
        try:
            value = int(value)
        except (ValueError, OverflowError):     # nan, inf: the float cast, as eager Paddle
            return {"shape": shape, "dtype": to_enum(dt), "value": float(value)}
    else:
        value = float(value)
    return {"shape": shape, "dtype": to_enum(dt), "value": float(value),
            "str_value": str(value)}


def full(shape, fill_value, dtype=None, name=None):
    dt = default_float() if dtype is None else to_np_dtype(dtype)
    ints, st, sl = int_list_args(shape)
    if is_var(fill_value):
        return bind(_FILL, (fill_value, st, sl), {"shape": ints, "dtype": to_enum(dt)})[0]
    return bind(_FILL, (None, st, sl), _fill_attrs(ints, fill_value, dt))[0]


def zeros(shape, dtype=None, name=None):
    return full(shape, 0, dtype)


def ones(shape, dtype=None, name=None):
    return full(shape, 1, dtype)


def empty(shape, dtype=None, name=None):
    """Uninitialised in Paddle; zero-filled here (op ``empty``)."""
    dt = default_float() if dtype is None else to_np_dtype(dtype)
    ints, st, sl = int_list_args(shape)
    return bind(_EMPTY, (st, sl), {"shape": ints, "dtype": to_enum(dt)})[0]


def full_like(x, fill_value, dtype=None, name=None):
    # Paddle writes the dtype (x's when None)
    return bind(_FILL_LIKE, (x,), {"value": float(fill_value),
                                   "dtype": to_enum(x.dtype if dtype is None else dtype)})[0]


def zeros_like(x, dtype=None, name=None):
    return full_like(x, 0.0, dtype)


def ones_like(x, dtype=None, name=None):
    return full_like(x, 1.0, dtype)


def empty_like(x, dtype=None, name=None):
    """``empty`` of x's runtime shape (``shape`` + ``empty``, as Paddle)."""
    from .manipulation import shape
    return empty(shape(x), x.dtype if dtype is None else dtype)


def _is_float(v):
    if is_var(v):
        return to_np_dtype(v.dtype).kind == "f"
    return isinstance(v, (float, np.floating))


def _scalar_tensor(v, dt):
    """A [1]-shaped tensor of dtype ``dt`` from a number or a tensor."""
    if is_var(v):
        if to_np_dtype(v.dtype) != dt:
            from .math import cast
            v = cast(v, dt)
        return v
    return full([1], v, dt)


def arange(start=0, end=None, step=1, dtype=None, name=None):
    """Values in [start, end) by step; int64 for integer arguments, the default
    float dtype when any argument is a float."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        dt = default_float() if any(_is_float(v) for v in (start, end, step)) else \
            np.dtype("int64")
    else:
        dt = to_np_dtype(dtype)
    if not any(is_var(v) for v in (start, end, step)) and step == 0:
        raise OpError("op 'range': arange step must not be 0")
    ins = tuple(_scalar_tensor(v, dt) for v in (start, end, step))
    return bind(_RANGE, ins)[0]


def linspace(start, stop, num, dtype=None, name=None):
    dt = default_float() if dtype is None else to_np_dtype(dtype)
    # numbers become [1] tensors of the output dtype (an integer dtype truncates
    # them first, as Paddle); tensors are computed with in a float dtype
    work = dt if dt.kind == "f" else np.dtype("float64")
    ins = (_scalar_tensor(start, work if is_var(start) else dt),
           _scalar_tensor(stop, work if is_var(stop) else dt),
           _scalar_tensor(num, np.dtype("int32")))
    return bind(_LINSPACE, ins, {"dtype": to_enum(dt)})[0]


def eye(num_rows, num_columns=None, dtype=None, name=None):
    dt = default_float() if dtype is None else to_np_dtype(dtype)
    cols = int(num_rows if num_columns is None else num_columns)     # Paddle writes rows
    return bind(_EYE, (), {"num_rows": int(num_rows), "num_columns": cols,
                           "dtype": to_enum(dt)})[0]


def _assign_value(arr):
    return bind(_ASSIGN_VALUE, (), assign_value_attrs(arr))[0]


def assign(x, output=None):
    """A copy of ``x`` (a Tensor, numpy array, list or number); when ``output``
    is given its value (and autograd position) is replaced by the copy."""
    if is_var(x):
        out = bind(_ASSIGN, (x,))[0]
    else:
        from .creation_base import _infer_array
        out = _assign_value(np.asarray(_infer_array(x)))
    if output is None:
        return out
    from .indexing import rebind
    return rebind(output, out)


def clone(x, name=None):
    return bind(_ASSIGN, (x,))[0]
