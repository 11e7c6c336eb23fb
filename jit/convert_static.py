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

Lists that grow in a loop or in one branch of a tensor ``if`` only become
tensor arrays (a branch pair that grows a list argument apart is rebuilt with
the list entering as an array); their items are read, written, sliced,
iterated, stacked and summed through the array ops here.  A path on which
the function reached no ``return`` gives the "no value" marker (Paddle's
RETURN_NO_VALUE_MAGIC_NUM), which the partial program hands back as None.
"""
import contextlib

import numpy as np

from .. import tensor as T
from ..dygraph.tensor import Tensor
from ..ops import is_graph_value as is_static
from ..ops.dtypes import to_np_dtype
from ..static import nn as static_nn
from ..static.nn.control_flow import Print as static_Print, RETURN_NO_VALUE_MAGIC_NUM
from ..static.nn import nest
from ..program.program_guard import default_main_program
from ..program.variable import VarType, open_branch_writes, close_branch_writes
from ..ops.dtypes import get_default_dtype
from .errors import ConversionError, caller_location
from ..tensor import indexing as I

RET_VAL = "_jst_ret_val"
_CASTS = {"int": "int32", "float": "float32", "bool": "bool"}
_depth = [0]


def _is_tensor(x):
    return is_static(x) or isinstance(x, Tensor)


def _is_number(x):
    return isinstance(x, (bool, int, float, np.number)) and not isinstance(x, np.ndarray)


def _is_undefined(x):
    return type(x).__name__ == "UndefinedVar"


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


def no_value_like(x):
    """The return value of a path on which no ``return`` ran, beside tensor
    ``x``: Paddle's "no value" (every element RETURN_NO_VALUE_MAGIC_NUM, a
    float tensor of x's dtype and shape), which the partial program gives
    back as None, as the eager function returns None there.  (An integer or
    bool ``x`` gets zeros: the marker needs a float.)"""
    dtype = np.dtype(_np_dtype(x))
    if dtype.kind != "f" or dtype.itemsize < 4:
        return _full(0, dtype, x.shape)
    return mark_no_value(_full(RETURN_NO_VALUE_MAGIC_NUM, dtype, x.shape))


def mark_no_value(var):
    """Flag the program being built (an output may be the "no value" marker) and
    record that ``var`` is one (jit/no_value.py follows it to the outputs)."""
    program = default_main_program()
    program._jst_no_value = True
    program.__dict__.setdefault("_jst_no_value_vars", set()).add(var.name)
    return var


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
    """A tensor's truth value as eager Paddle 2.6 defines it: ``value > 0`` for
    a non-bool tensor (so -1.0 is False, where a bool cast would say True)."""
    if is_static(x) or isinstance(x, Tensor):
        if _np_dtype(x) == np.dtype(bool):
            return x
        return T.greater_than(x, T.full([], 0, _np_dtype(x)))
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
    if _is_undefined(b) and name == RET_VAL:       # no `return` ran on this side
        return no_value_like(a) if _is_tensor(a) else a
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
    if name == RET_VAL and _is_undefined(a):       # cond gives it placeholders
        return b
    raise ConversionError(
        f"'{name}' is {_kind(a)} in the {sides[0]} branch and {_kind(b)} in the "
        f"{sides[1]} branch of an `if` on a tensor{_where()}; both branches must give it "
        f"the same structure.")


class _NeedArrays(Exception):
    """A list comes out of the two branches with different lengths: it must
    be a tensor array, entering the ``cond`` as one when it is an argument
    ({argument position: dtype}) and leaving each branch as one ({output
    position: dtype})."""

    def __init__(self, args, outs):
        super().__init__(args, outs)
        self.arg_dtypes, self.out_dtypes = args, outs


def _array_dtype(*values):
    for v in values:
        if is_array(v):
            return np.dtype(_np_dtype(v))
        for x in v if isinstance(v, list) else ():
            if _is_tensor(x) and not is_array(x):
                return np.dtype(_np_dtype(x))
    return None


def _grows_apart(a, b):
    """Whether branch results ``a`` and ``b`` of one list differ in length or
    kind (one side made it a tensor array)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) != len(b)
    return isinstance(a, list) and is_array(b) or is_array(a) and isinstance(b, list)


def _mark():
    program = default_main_program()
    block = program.current_block()
    return program, block, program.num_blocks, len(block.ops), set(block.vars)


def _undo(mark):
    """Remove what was built since ``mark`` (a ``cond`` being rebuilt)."""
    program, block, keep, n_ops, names = mark
    del program.blocks[keep:]
    del program.desc.blocks[keep:]
    del block.ops[n_ops:]
    del block.desc.ops[n_ops:]
    for name in [n for n, v in block.vars.items() if n not in names and not v.persistable]:
        block._remove_var(name)              # (parameters bound meanwhile stay bound)
    program.current_block_idx = block.idx
    program._bump()


def static_ifelse(pred, true_fn, false_fn, args, names):
    pred = _pred(pred, "`if`")
    names, args = tuple(names), tuple(args)
    arrays = {}                          # outputs each branch gives as a tensor array
    writes = []                          # variables around it a branch writes in place
    for _ in range(len(names) + 2):
        mark = _mark()
        try:
            return _static_ifelse(pred, true_fn, false_fn, args, names, arrays, writes)
        except _NeedArrays as e:
            _undo(mark)
            args = tuple(list_to_array(a, e.arg_dtypes[k]) if k in e.arg_dtypes else a
                         for k, a in enumerate(args))
            arrays.update(e.out_dtypes)
        except _NeedWrites as e:
            _undo(mark)
            writes.extend(e.found)
    raise ConversionError(f"an `if` on a tensor{_where()} could not be built")


class _NeedWrites(Exception):
    """A branch wrote variables of the blocks around the ``cond`` in place
    (``x.add_(y)``, ``x[i] = v`` on a variable made before the ``if``): the
    ``cond`` is rebuilt with the value each holds at the end of each branch as
    one more output, and rebinds them to the merged values after it (as the
    eager in-place write changes the tensor whichever name reads it)."""

    def __init__(self, found):
        super().__init__(found)
        self.found = found


def _run_logged(fn, ins, block, writes):
    """``tuple(fn(*ins))`` with the in-place writes on variables around the
    branch logged and undone at its end (program/variable.py ``BranchWrites``):
    (outputs, {id(variable): (variable, its value at the end)}, {output
    position: the variable of ``writes`` it is}), each written variable among
    the outputs replaced by its value."""
    log = open_branch_writes(block)
    try:
        out = tuple(fn(*ins))
    finally:
        values = close_branch_writes(log)
    same = {k: v for k, y in enumerate(out) for v in writes if y is v}
    if values:
        out = tuple(nest.map_structure(
            lambda y: values[id(y)][1] if id(y) in values and values[id(y)][0] is y else y, o)
            for o in out)
    return out, values, same


def _static_ifelse(pred, true_fn, false_fn, args, names, arrays, writes):
    seen, origin, none_ret, raised = {}, {}, {}, {}
    found = []                           # written in place by a branch, not in ``writes``
    same = {}                            # side -> {output position: variable of ``writes``}
    known = {id(v) for v in writes}
    labels = tuple(names) + tuple(f"{v.name} (written in place)" for v in writes)

    def branch(fn, side):
        def run():
            ins = _copy_containers(args)
            block = default_main_program().current_block()
            values = {}
            same[side] = {}
            try:
                out, values, same[side] = _run_logged(fn, ins, block, writes)
            except BranchRaised as e:
                if e.block is not block:     # raised deeper (a loop's body): at once
                    raise e.error from None
                raised[side] = e.error
                out = tuple(_no_return() for _ in names)
            for key, (var, _) in values.items():
                if key not in known and all(v is not var for v in found):
                    found.append(var)
            out += tuple(values[id(v)][1] if id(v) in values else v for v in writes)
            if RET_VAL in names:               # `return` of nothing (None) on this side
                k = names.index(RET_VAL)
                if out[k] is None:
                    none_ret[side] = True
                    out = out[:k] + (_no_return(),) + out[k + 1:]
            lists = {id(x): k for k, x in enumerate(ins) if isinstance(x, list)}
            for j, y in enumerate(out):          # outputs that are list arguments grown
                if id(y) in lists:
                    origin[j] = lists[id(y)]
            if arrays:
                out = tuple(list_to_array(y, arrays[j]) if j in arrays and
                            isinstance(y, list) else y for j, y in enumerate(out))
            if seen:
                (first, a), = seen.items()
                need_args, need_outs = {}, {}
                for j, (x, y) in enumerate(zip(a, out)):
                    dt = _array_dtype(x, y)
                    if _grows_apart(x, y) and dt is not None:
                        need_outs[j] = dt
                        if j in origin:
                            need_args[origin[j]] = dt
                if need_outs:
                    raise _NeedArrays(need_args, need_outs)
                out = tuple(_fit(x, y, RET_VAL if raised else n, (first, side))
                            for x, y, n in zip(a, out, labels))
            seen[side] = out
            return out if out else None
        return run

    with _branch():
        merged = static_nn.cond(pred, branch(true_fn, "true"), branch(false_fn, "false"),
                                return_names=list(labels) or None)
    if found:
        raise _NeedWrites(found)
    if len(raised) == 2:         # either way the run fails here
        if _depth[0] == 0:
            raise raised["true"]
        raise BranchRaised(raised["true"], default_main_program().current_block())
    if merged is None:
        return ()
    if writes:
        merged = tuple(merged)
        for v, m in zip(writes, merged[len(names):]):
            v._inplace_assign(m, merge=True)     # outside the cond: rebound (or logged)
        # a name both branches leave on the written variable (x after x.add_(y))
        # is that variable after the cond, so later in-place writes reach it too
        merged = tuple(same["true"][k] if same["true"].get(k) is not None and
                       same["true"][k] is same["false"].get(k) else m
                       for k, m in enumerate(merged[:len(names)]))
    t, f = seen["true"], seen["false"]
    out = tuple(f[k] if _is_undefined(t[k]) and _is_undefined(f[k]) else m
                for k, m in enumerate(merged))
    if len(none_ret) == 2:
        k = names.index(RET_VAL)
        out = out[:k] + (None,) + out[k + 1:]
    return out


def _no_return():
    from .convert_runtime import UndefinedVar, RETURN_VALUE
    return UndefinedVar(RETURN_VALUE)


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
    if x.type == VarType.LOD_TENSOR_ARRAY:        # 0-D, as the Python int it stands for
        return T.reshape(T.array_length(x), [])
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
    """``int(x)``/``float(x)`` cast; ``bool(x)`` is eager Paddle's ``x > 0``."""
    if kind == "bool":
        return _as_bool(x)
    return T.cast(x, _CASTS[kind])


def static_print(args, kwargs):
    plain = [a for a in args if not is_static(a)]
    if plain:
        print(*plain, **{k: v for k, v in kwargs.items() if k in ("sep", "end", "file")})
    for a in args:
        if is_static(a):
            static_Print(a)


def static_assert(test, message):
    """A tensor ``assert``: an ``assert`` op checks it when the program runs (as
    Paddle's); in sampan's own runs it fails with the eager error, an
    AssertionError with the message (evaluated now: the values it would
    format are not known until the run)."""
    cond = _pred(test, "assert")
    try:
        text = message() if message is not None else None
    except Exception:            # a message that needs run-time values: the line says it
        text = None
    _assert_op(cond, AssertionError(text) if text is not None else AssertionError())


def _assert_op(cond, error):
    op = static_nn.control_flow.Assert(cond)
    op.python_error = error      # what the run raises in this process (not saved)
    return op


class BranchRaised(Exception):
    """A ``raise`` in a branch of a tensor ``if`` being built: the branch ends
    with an ``assert`` op that always fails (the error happens when, and only
    when, the run takes the branch), and gives no values."""

    def __init__(self, error, block):
        super().__init__(error)
        self.error, self.block = error, block


def static_raise(error):
    """``raise error`` met while a branch of a tensor ``if`` is built."""
    _assert_op(T.full([], False, "bool"), error)
    raise BranchRaised(error, default_main_program().current_block())


# ----------------------------------------------------------------- tensor arrays
def is_array(x):
    return is_static(x) and x.type == VarType.LOD_TENSOR_ARRAY


def array_sum(arr):
    return T.sum(T.tensor_array_to_tensor(arr, 0, True)[0], axis=0)


def list_to_array(items, dtype):
    """A new tensor array holding the items of Python list ``items`` (numbers
    become tensors of ``dtype``); an array is returned as it is."""
    if is_array(items):
        return items
    arr = T.create_array(dtype)
    for x in items:
        if _is_number(x):
            x = _full(x, dtype)
        elif not _is_tensor(x) or is_array(x):
            raise ConversionError(
                f"a list holding {_kind(x)} grows in a loop or branch on a tensor{_where()}; "
                f"such a list becomes a tensor array, which holds tensors only.")
        T.array_write(x, T.array_length(arr), arr)
    return arr


def array_join(arr, axis, use_stack):
    return T.tensor_array_to_tensor(arr, axis, use_stack)[0]


def array_append(arr, value):
    if _is_number(value):
        value = _full(value, _np_dtype(arr))
    return T.array_write(value, T.array_length(arr), arr)


def _array_copy(arr, start, stop, step):
    """A new array of ``arr[start:stop:step]`` (int64 [1] tensor bounds, a
    Python int step)."""
    new = T.create_array(arr.dtype)
    more = (lambda i, j, out: i < stop) if step > 0 else (lambda i, j, out: i > stop)

    def body(i, j, out):
        T.array_write(T.array_read(arr, i), j, out)
        return [i + step, j + 1, out]

    static_nn.while_loop(more, body, [start, T.zeros([1], "int64"), new])
    return new


def _array_index(n, i):
    """Item index ``i`` (a Python int or an int tensor, negative from the
    end) of an array of length ``n``, as an int64 [1] tensor."""
    if is_static(i) or isinstance(i, Tensor):
        i = T.reshape(T.cast(i, "int64"), [1])
        return T.where(i < 0, i + n, i)
    i = int(i)
    return n + i if i < 0 else T.full([1], i, "int64")


def static_setitem(x, index, value):
    """``x[index] = value`` on a static tensor, functionally: the new tensor
    (``set_value`` / ``index_put``), which converted code rebinds ``x`` to.
    (The eager path writes in place through ``tensor.indexing.setitem``;
    this is its write without the in-place rebinding, which a Variable
    cannot take.)"""
    return I.set_value_of(x, index, value)


def _is_int_index(i):
    return _is_number(i) and not isinstance(i, (float, np.floating)) or \
        _is_tensor(i) and np.dtype(_np_dtype(i)).kind in "iu"


def array_setitem(arr, index, value):
    """``arr[index] = value`` on a tensor array (written in place)."""
    if not _is_int_index(index):
        raise ConversionError(
            f"assigning to a list that became a tensor array (it grows in a loop on a "
            f"tensor){_where()} needs an int index, got {_kind(index)}")
    if _is_number(value):
        value = _full(value, _np_dtype(arr))
    return T.array_write(value, _array_index(T.array_length(arr), index), arr)


def array_getitem(arr, index):
    """``arr[index]``: one item (``array_read``) or, for a slice, a new array."""
    n = T.array_length(arr)
    if not isinstance(index, slice):
        if not _is_int_index(index):
            raise ConversionError(
                f"indexing a list that became a tensor array (it grows in a loop on a "
                f"tensor){_where()} needs an int index or a slice, got {_kind(index)}")
        return T.array_read(arr, _array_index(n, index))
    step = 1 if index.step is None else index.step
    if not isinstance(step, (int, np.integer)) or isinstance(step, bool) or step == 0:
        raise ConversionError(
            f"slicing a list that became a tensor array (it grows in a loop on a tensor)"
            f"{_where()} needs a nonzero Python int step, got {_kind(step)}")

    def bound(b, default_pos, default_neg):
        if b is None:
            return default_pos if step > 0 else default_neg
        b = _array_index(n, b)
        # clip as Python does: [0, n] going forward, [-1, n-1] going back
        lo, hi = (T.zeros([1], "int64"), n) if step > 0 else (T.full([1], -1, "int64"), n - 1)
        return T.minimum(T.maximum(b, lo), hi)

    start = bound(index.start, T.zeros([1], "int64"), n - 1)
    stop = bound(index.stop, n, T.full([1], -1, "int64"))
    return _array_copy(arr, start, stop, int(step))


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
