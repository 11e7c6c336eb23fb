"""The static half of the runtime helpers: what a construct becomes when its
deciding value is a static Variable (``jit.convert_runtime`` chooses).

- ``static_ifelse``: ``static.nn.cond`` over the two branch functions.  The
  branch traced second sees the first one's results, so Python numbers next
  to tensors become tensors of the same dtype, and a variable bound on one
  side only (and read later) is refused with its name and line.
- ``static_while``: ``static.nn.while_loop``.  Loop variables that enter as
  Python values or undefined markers are learned from one trial trace of
  the body in a scratch block (dropped afterwards): a counter ``i = 0`` that
  the body increments becomes an int64 tensor, ``s = 0`` that the body adds a
  float32 tensor to becomes float32, a list the body appends to becomes a
  tensor array.  Tensor loop variables enter as copies, so the loop never
  writes into a variable the caller still reads (an argument reassigned in
  the loop keeps its value outside).
- ``static_for``: a while loop over an index (``range`` with a tensor bound,
  a static tensor's rows, ``enumerate`` of either).
"""
import contextlib

import numpy as np

from .. import tensor as T
from ..dygraph.tensor import Tensor
from ..ops import in_static_mode
from ..ops.dtypes import to_np_dtype
from ..static import nn as static_nn
from ..static.nn.control_flow import Print as static_Print
from ..static.nn import nest
from ..static.variable import VarType
from ..tensor.creation_base import get_default_dtype
from .errors import ConversionError, caller_location

RET_VAL = "_jst_ret_val"
_CASTS = {"int": "int32", "float": "float32", "bool": "bool"}
_depth = [0]


def is_static(x):
    return getattr(x, "is_static_variable", False)


def _is_tensor(x):
    return is_static(x) or isinstance(x, Tensor)


def _is_number(x):
    return isinstance(x, (bool, int, float, np.number)) and not isinstance(x, np.ndarray)


def _is_undefined(x):
    return type(x).__name__ == "UndefinedVar"


def building():
    """Whether a static program is being built now."""
    return in_static_mode()


def branch_depth():
    return _depth[0]


@contextlib.contextmanager
def _branch():
    _depth[0] += 1
    try:
        yield
    finally:
        _depth[0] -= 1


def _where():
    loc = caller_location(2)
    return f" at {loc}" if loc else ""


def _np_dtype(x):
    return x.np_dtype if is_static(x) else x._data.dtype


def _natural_dtype(v):
    if isinstance(v, (bool, np.bool_)):
        return np.dtype(bool)
    if isinstance(v, (int, np.integer)):
        return np.dtype("int64")
    return to_np_dtype(get_default_dtype())


def _full(value, dtype, shape=()):
    shape = [d if d >= 0 else 1 for d in shape]
    return T.full(shape, value, dtype)


def _copy_containers(x):
    """Lists and dicts copied (recursively) so one traced branch or trial
    cannot mutate what the next one starts from."""
    if isinstance(x, list):
        return [_copy_containers(v) for v in x]
    if isinstance(x, dict):
        return type(x)((k, _copy_containers(v)) for k, v in x.items())
    if isinstance(x, tuple) and not hasattr(x, "_fields"):
        return tuple(_copy_containers(v) for v in x)
    return x


def _kind(x):
    """A short description of a value for messages (``a float32 tensor [-1, 3]``)."""
    if _is_undefined(x):
        return "not bound yet"
    if _is_tensor(x):
        return f"a {_np_dtype(x)} tensor of shape {list(x.shape)}"
    if isinstance(x, (list, tuple)):
        inner = ", ".join(_kind(v) for v in x[:3]) + (", ..." if len(x) > 3 else "")
        return f"a {type(x).__name__} [{inner}]" if x else f"an empty {type(x).__name__}"
    if x is None:
        return "None"
    return f"the {type(x).__name__} {x!r:.40}"


def _as_bool(x):
    if is_static(x) or isinstance(x, Tensor):
        return x if _np_dtype(x) == np.dtype(bool) else T.cast(x, "bool")
    return T.full([], bool(x), "bool")


def _pred(pred, what):
    n = 1
    for d in pred.shape:
        n *= d if d >= 0 else 1
    if n != 1:                  # the eager Tensor's own error type
        raise ValueError(
            f"the condition of {what}{_where()} is a tensor of shape {list(pred.shape)}; "
            f"its truth value is ambiguous. Reduce it to one element first "
            f"(e.g. with .all() or .any()).")
    pred = _as_bool(pred)
    if len(pred.shape) and any(d < 0 for d in pred.shape):
        pred = T.reshape(pred, [])
    return pred


# ----------------------------------------------------------------- if / else
def _fit_leaf(a, b, name, sides):
    """Branch value ``b`` (traced second) made compatible with ``a``."""
    first, second = sides
    if _is_tensor(a) and _is_tensor(b):
        if _np_dtype(a) != _np_dtype(b):
            raise ConversionError(
                f"'{name}' is a {_np_dtype(a)} tensor in the {first} branch and a "
                f"{_np_dtype(b)} tensor in the {second} branch of an `if` on a tensor"
                f"{_where()}; both branches must give it the same dtype (cast one).")
        return b
    if _is_tensor(a) and _is_number(b):
        return _full(b, _np_dtype(a))
    if _is_number(a) and _is_tensor(b):
        if _natural_dtype(a) != _np_dtype(b):
            raise ConversionError(
                f"'{name}' is the Python {type(a).__name__} {a!r} in the {first} branch and "
                f"a {_np_dtype(b)} tensor in the {second} branch of an `if` on a tensor"
                f"{_where()}; make both branches give a tensor of one dtype (e.g. "
                f"paddle.full([], {a!r}, '{_np_dtype(b)}')).")
        return b
    if _is_undefined(b) and name == RET_VAL:       # never read: the return flag says so
        return _full(0, _np_dtype(a), a.shape) if _is_tensor(a) else a
    if _is_undefined(a) and _is_undefined(b):
        return b
    if _is_undefined(a) != _is_undefined(b) and name != RET_VAL:
        side = first if not _is_undefined(a) else second
        raise ConversionError(
            f"'{name}' is bound only in the {side} branch of an `if` on a tensor{_where()} "
            f"and is used after it. A program needs a value on both paths: bind it before "
            f"the `if` (e.g. {name} = paddle.zeros_like(...)) or in both branches.")
    if _is_number(a) and _is_number(b) or (a is b) or _is_undefined(a):
        return b
    raise ConversionError(
        f"'{name}' is {_kind(a)} in the {first} branch and {_kind(b)} in the {second} "
        f"branch of an `if` on a tensor{_where()}; both branches must give it the same "
        f"kind of value (a tensor on both sides, or the same Python value).")


def _fit(a, b, name, sides):
    if nest.same_structure(a, b):
        leaves = [_fit_leaf(x, y, name, sides) for x, y in
                  zip(nest.flatten(a), nest.flatten(b))]
        return nest.pack_sequence_as(b, leaves)
    if name == RET_VAL and _is_undefined(b):
        return nest.map_structure(lambda x: _fit_leaf(x, b, name, sides), a)
    raise ConversionError(
        f"'{name}' is {_kind(a)} in the {sides[0]} branch and {_kind(b)} in the "
        f"{sides[1]} branch of an `if` on a tensor{_where()}; both branches must give it "
        f"the same structure.")


def static_ifelse(pred, true_fn, false_fn, args, names):
    pred = _pred(pred, "`if`")
    names = tuple(names)
    seen = {}

    def branch(fn, side):
        def run():
            out = tuple(fn(*_copy_containers(args)))
            if seen:
                (first, a), = seen.items()
                out = tuple(_fit(x, y, n, (first, side)) for x, y, n in zip(a, out, names))
            seen[side] = out
            return out if out else None
        return run

    with _branch():
        merged = static_nn.cond(pred, branch(true_fn, "true"), branch(false_fn, "false"),
                                return_names=list(names) or None)
    if merged is None:
        return ()
    t, f = seen["true"], seen["false"]
    return tuple(f[k] if _is_undefined(t[k]) and _is_undefined(f[k]) else m
                 for k, m in enumerate(merged))


def static_ifexp(pred, true_fn, false_fn):
    out = static_ifelse(pred, lambda: (true_fn(),), lambda: (false_fn(),), (),
                        ("<if expression>",))
    return out[0]


# ----------------------------------------------------------------- logic
def static_logical(op, value, thunks):
    fn = T.logical_and if op == "and" else T.logical_or
    acc = _as_bool(value)
    for thunk in thunks:
        acc = fn(acc, _as_bool(thunk()))
    return acc


def static_not(x):
    return T.logical_not(_as_bool(x))


# ----------------------------------------------------------------- builtins
def static_len(x):
    if x.type == VarType.LOD_TENSOR_ARRAY:
        return T.array_length(x)
    if not x.shape:
        raise TypeError(f"len() of a 0-D tensor ('{x.name}')")
    n = x.shape[0]
    return n if n >= 0 else T.shape(x)[0]


def static_shape(x):
    dims = list(x.shape)
    if all(d >= 0 for d in dims):
        return dims
    runtime = T.shape(x)
    return [d if d >= 0 else runtime[i] for i, d in enumerate(dims)]


def static_cast(x, kind):
    return T.cast(x, _CASTS[kind])


def static_print(args, kwargs):
    plain = [a for a in args if not is_static(a)]
    if plain:
        print(*plain, **{k: v for k, v in kwargs.items() if k in ("sep", "end", "file")})
    for a in args:
        if is_static(a):
            static_Print(a)


def static_assert(test, message):
    """Paddle checks a tensor assert with an ``assert`` op when the program
    runs; sampan has no such op yet, so a tensor assert is not checked."""
    return None


# ----------------------------------------------------------------- tensor arrays
def is_array(x):
    return is_static(x) and x.type == VarType.LOD_TENSOR_ARRAY


def array_join(arr, axis, use_stack):
    return T.tensor_array_to_tensor(arr, axis, use_stack)[0]


def array_append(arr, value):
    return T.array_write(value, T.array_length(arr), arr)


def array_pop(arr, *index):
    if index and not (isinstance(index[0], int) and index[0] == -1):
        raise ConversionError(
            f"pop({index[0]!r}) on a list that became a tensor array (it grows in a loop "
            f"on a tensor){_where()}: only pop() of the last item is supported.")
    last = T.array_length(arr) - 1
    item = T.array_read(arr, last)
    new = T.create_array(arr.dtype)

    def body(i, out):
        T.array_write(T.array_read(arr, i), i, out)
        return [i + 1, out]

    static_nn.while_loop(lambda i, out: i < last, body, [T.zeros([1], "int64"), new])
    return new, item
