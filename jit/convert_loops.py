"""Loops on static tensors: ``while`` and ``for`` as ``static.nn.while_loop``.

Every loop variable gets a plan before the loop is built, from its value at
entry and (when that is not already a tensor) its value after trial traces
of the body, made in a scratch block that is dropped afterwards:

    entry              after the body          carried as
    tensor             tensor of same dtype    a copy of the tensor
    tensor array       the array               the array (written in place, as a list)
    Python number      the same number         constant (not carried)
    Python number      another number/tensor   tensor (int64 / default float / the body's dtype)
    undefined          undefined               constant (a temporary of the body)
    undefined          tensor(s)               zero placeholders of the body's shape and dtype
                                               (the return value: the "no value" marker)
    list               longer list / an array  tensor array (the body appends)
    any other value    the same object         constant
    anything else                              ConversionError (the type changes)

What becomes a tensor can change what the body does (a counter that became a
tensor turns ``if c > 1: brk = True`` into an ``if`` on a tensor, so the flag
becomes a tensor too): the trial repeats from the widened entry values until
one ran on exactly what the loop will carry.

The body's results are held to the plan on every trace: numbers become
tensors of the planned dtype, anything else that differs is refused with
the variable's name, the user's line and a suggested rewrite.
"""
import numpy as np

from .. import tensor as T
from ..static import nn as static_nn
from ..static.nn import nest
from ..program.program_guard import default_main_program
from .convert_static import (RET_VAL, ConversionError, _array_dtype, _branch, _run_logged,
                             _copy_containers, _full, _is_number, _is_tensor, _is_undefined,
                             _kind, _natural_dtype, _np_dtype, _pred, _where, is_array,
                             is_static, list_to_array, no_value_like, static_ifelse)

_CONST, _TENSOR, _ARRAY = "const", "tensor", "array"


# ----------------------------------------------------------------- trial trace
def _trial(body, values):
    """``body(*values)`` traced into a scratch block that is then removed."""
    program = default_main_program()
    keep, current = program.num_blocks, program.current_block_idx
    program._create_block()
    try:
        with _branch():
            return tuple(body(*_copy_containers(values)))
    finally:
        program.current_block_idx = current
        del program.blocks[keep:]
        del program.desc.blocks[keep:]
        program._bump()


# ----------------------------------------------------------------- plans
def _type_change(name, before, after):
    example = "paddle.zeros(shape, dtype)"
    if _is_tensor(after):
        shape = [d if d >= 0 else 1 for d in after.shape]
        example = f"paddle.zeros({shape}, '{_np_dtype(after)}')"
    return ConversionError(
        f"loop variable '{name}' changes type in a loop on a tensor{_where()}: it is "
        f"{_kind(before)} before the loop and {_kind(after)} after one iteration. A "
        f"program loop needs one type per variable: initialise it before the loop with a "
        f"value of its final type (e.g. {name} = {example}).")


def _leaf_plan(name, v, o):
    """(kind, entry value) for one leaf ``v`` whose trial result is ``o``."""
    if is_array(v):                      # written in place, as a Python list
        if not is_array(o):
            raise _type_change(name, v, o)
        return _ARRAY, v
    if _is_tensor(v):
        if _is_tensor(o) and _np_dtype(o) != _np_dtype(v):
            raise _type_change(name, v, o)
        if not (_is_tensor(o) or _is_number(o)):
            raise _type_change(name, v, o)
        return _TENSOR, T.assign(v)
    if _is_number(v):
        if _is_number(o) and type(o) is type(v) and o == v:
            return _CONST, v
        if _is_number(o):
            dt = _natural_dtype(o) if isinstance(o, float) else _natural_dtype(v)
            return _TENSOR, _full(v, dt)
        if _is_tensor(o):
            return _TENSOR, _full(v, _np_dtype(o), o.shape)
        raise _type_change(name, v, o)
    if _is_undefined(v):
        if _is_undefined(o):
            return _CONST, v
        if _is_tensor(o):
            return _TENSOR, (no_value_like(o) if name == RET_VAL else
                             _full(0, _np_dtype(o), o.shape))
        if _is_number(o):
            return _TENSOR, _full(o, _natural_dtype(o))
        raise _type_change(name, v, o)
    if o is v:
        return _CONST, v
    raise _type_change(name, v, o)


def _plan(name, v, o):
    """(structure, [(kind, entry leaf)]) for loop variable ``name``."""
    if o is None:                                      # no trial: all leaves are tensors
        leaves = nest.flatten(v)
        return v, [(_ARRAY, x) if is_array(x) else (_TENSOR, T.assign(x)) for x in leaves]
    if nest.same_structure(v, o):
        plans = [_leaf_plan(name, x, y) for x, y in zip(nest.flatten(v), nest.flatten(o))]
        return v, plans
    if _is_undefined(v):
        return o, [_leaf_plan(name, v, y) for y in nest.flatten(o)]
    if isinstance(v, list) and isinstance(o, list) and len(o) > len(v) and \
            all(_is_tensor(y) or _is_number(y) for y in o[len(v):]):
        dtype = _array_dtype(o[len(v):], v)
        if dtype is not None:
            arr = list_to_array(v, dtype)
            return arr, [(_ARRAY, arr)]
    if isinstance(v, list) and is_array(o):           # an inner loop or `if` made it one
        arr = list_to_array(v, _np_dtype(o))
        return arr, [(_ARRAY, arr)]
    raise _type_change(name, v, o)


def _hold(name, structure, plans, out):
    """The body's result ``out`` for one variable, held to its plan."""
    if not nest.same_structure(structure, out):
        raise _type_change(name, structure, out)
    leaves = []
    for (kind, entry), y in zip(plans, nest.flatten(out)):
        if kind == _CONST:
            if not (y is entry or (_is_number(y) and type(y) is type(entry) and y == entry)):
                raise _type_change(name, entry, y)
            leaves.append(y)
        elif kind == _ARRAY:
            if not is_array(y):
                raise _type_change(name, entry, y)
            leaves.append(y)
        elif _is_number(y):
            leaves.append(_full(y, _np_dtype(entry)))
        elif _is_tensor(y) and _np_dtype(y) == _np_dtype(entry):
            leaves.append(y)
        else:
            raise _type_change(name, entry, y)
    return nest.pack_sequence_as(structure, leaves)


# ----------------------------------------------------------------- while
def _has_list(v):
    """Lists may grow in the body (appends): their plan needs a trial."""
    if isinstance(v, (list, dict)):
        return True
    return isinstance(v, tuple) and any(_has_list(x) for x in v)


def _still_const(entry, y):
    return y is entry or (_is_number(y) and type(y) is type(entry) and y == entry)


def _replan(name, v, plan, o):
    """``plan`` for variable ``name`` (entry value ``v``) widened by a later
    trial's result ``o``: constants the body changed are promoted (None when
    nothing changed)."""
    structure, leaves = plan
    if not nest.same_structure(structure, o):
        return _plan(name, v, o)
    changed, out = False, []
    for (kind, entry), y in zip(leaves, nest.flatten(o)):
        if kind == _CONST and not _still_const(entry, y):
            out.append(_leaf_plan(name, entry, y))
            changed = True
        else:
            out.append((kind, entry))
    return (structure, out) if changed else None


def _entry(plan):
    structure, leaves = plan
    return nest.pack_sequence_as(structure, [e for _, e in leaves])


def _fed(x, plan):
    """Whether a trial that started from ``x`` ran the body on what the plan
    will feed it (tensors where it carries tensors, an array where a list
    becomes one), so its results are the loop's own."""
    structure, leaves = plan
    if not nest.same_structure(x, structure):
        return False
    for (kind, entry), y in zip(leaves, nest.flatten(x)):
        if kind == _ARRAY and not is_array(y) or \
                kind == _TENSOR and not (_is_tensor(y) and not is_array(y)) or \
                kind == _CONST and not _still_const(entry, y):
            return False
    return True


def _plans(body, values, names):
    """The plan of every loop variable.  One trial trace shows which Python
    values the body changes; those become tensors, and that can change more
    (a counter that became a tensor turns ``if c > 1: brk = True`` into an
    ``if`` on a tensor, so the break flag becomes a tensor too, and a list
    appended to under that ``if`` a tensor array): trials repeat from the
    widened entry values until a trial ran on what the loop will carry."""
    leaves = nest.flatten(list(values))
    if all(_is_tensor(x) for x in leaves) and not any(_has_list(v) for v in values):
        return [_plan(n, v, None) for n, v in zip(names, values)]
    plans, init = None, values
    for _ in range(len(leaves) + 2):
        trial = _trial(body, init)
        if len(trial) != len(values):
            raise ConversionError(f"loop body returned {len(trial)} values for "
                                  f"{len(values)} loop variables{_where()}")
        if plans is None:
            plans = [_plan(n, v, o) for n, v, o in zip(names, values, trial)]
        else:
            for k, (n, v, o) in enumerate(zip(names, values, trial)):
                new = _replan(n, v, plans[k], o)
                if new is not None:
                    plans[k] = new
        if all(_fed(x, p) for x, p in zip(init, plans)):
            return plans
        init = tuple(_entry(p) for p in plans)
    return plans


def static_while(cond, body, values, names):
    """``while cond(*values): values = body(*values)`` as a while_loop op."""
    values = tuple(values)
    plans = _plans(body, values, names)
    init = [_entry(p) for p in plans]

    def cond_w(*vals):
        c = cond(*vals)
        if not is_static(c):
            c = T.full([], bool(c), "bool")
        return _pred(c, "a `while` loop")

    written = []                     # positions whose variable the body writes in place

    def body_w(*vals):               # (copies: the body may assign list items)
        ins = _copy_containers(vals)
        block = default_main_program().current_block()
        out, logged, same = _run_logged(body, ins, block, [v for v in ins if is_static(v)])
        written.extend((k, v._written_with_grad) for k, v in same.items()
                       if v is ins[k] and id(v) in logged)
        return [_hold(n, s, p, o) for n, (s, p), o in zip(names, plans, out)]

    with _branch():
        result = list(static_nn.while_loop(cond_w, body_w, init))
    for k, with_grad in written:
        # x.add_(y) in the body, x still that tensor at its end: the tensor the loop
        # started from is written, as eagerly (a to_static input: the caller's)
        v = values[k]
        if is_static(v) and not v.persistable and v is not result[k]:
            result[k] = v._inplace_assign(result[k], merge=True)
            v._written_with_grad = v._written_with_grad or with_grad
    return tuple(result)


# ----------------------------------------------------------------- for
class StaticRange:
    """``range(...)`` with a static tensor bound (the step must be an int)."""

    def __init__(self, *args):
        if len(args) == 1:
            args = (0, args[0], 1)
        elif len(args) == 2:
            args = (args[0], args[1], 1)
        self.start, self.stop, self.step = args
        if is_static(self.step) or not isinstance(self.step, (int, np.integer)) or \
                self.step == 0:
            raise ConversionError(f"range() over tensors{_where()} needs a nonzero Python "
                                  f"int step, got {_kind(self.step)}")

    def first(self):
        dt = _np_dtype(self.stop) if is_static(self.stop) else np.dtype("int64")
        return T.cast(self.start, dt) if is_static(self.start) else _full(self.start, dt)

    def more(self, i):
        return i < self.stop if self.step > 0 else i > self.stop

    def next(self, i):
        return i + self.step

    def item(self, i):
        return i

    def count(self, i):
        return (i - self.start) // self.step if self.start != 0 or self.step != 1 else i


class _Rows:
    """Iterating a static tensor: its rows, by index."""

    def __init__(self, x):
        self.x = x
        n = x.shape[0] if x.shape else -1
        self.n = n if n >= 0 else T.shape(x)[0]

    def first(self):
        return _full(0, _np_dtype(self.n) if is_static(self.n) else "int64")

    def more(self, i):
        return i < self.n

    def next(self, i):
        return i + 1

    def item(self, i):
        return self.x[i]

    def count(self, i):
        return i


class _Items:
    """Iterating a tensor array (a list grown in a loop on a tensor): its
    items, by index, up to its length when the loop starts."""

    def __init__(self, arr):
        self.arr = arr
        self.n = T.array_length(arr)

    def first(self):
        return T.zeros([1], "int64")

    def more(self, i):
        return i < self.n

    def next(self, i):
        return i + 1

    def item(self, i):
        return T.array_read(self.arr, i)

    def count(self, i):
        return T.reshape(i, [])


class StaticEnumerate:
    def __init__(self, iterable, start=0):
        self.inner = _iteration(iterable)
        self.start = start
        self.first, self.more, self.next = self.inner.first, self.inner.more, self.inner.next

    def item(self, i):
        c = self.inner.count(i)
        return (c + self.start if self.start else c), self.inner.item(i)

    def count(self, i):
        return self.inner.count(i)


def _iteration(x):
    if isinstance(x, (StaticRange, StaticEnumerate)):
        return x
    if is_array(x):
        return _Items(x)
    if is_static(x):
        return _Rows(x)
    raise TypeError(f"not a static iterable: {type(x).__name__}")


def is_static_iterable(x):
    return isinstance(x, (StaticRange, StaticEnumerate)) or is_static(x)


def static_for(iterable, cond, body, values, names):
    """``for item in iterable: values = body(item, *values)`` over an index."""
    it = _iteration(iterable)

    def cond2(i, *vals):
        c = it.more(i)
        if cond is not None:
            user = cond(*vals)
            c = T.logical_and(_pred(c, "a `for` loop"), _pred(user, "a `for` loop")) \
                if is_static(user) else (c if user else T.full([], False, "bool"))
        return c

    def body2(i, *vals):
        return (it.next(i),) + tuple(body(it.item(i), *vals))

    out = static_while(cond2, body2, (it.first(),) + values, ("<loop index>",) + tuple(names))
    return out[1:]


def guarded_rest(it, c, cond, body, values, names):
    """The rest of a Python loop once its break flag is a static tensor: each
    remaining iteration runs under ``cond`` (a static ``if``)."""
    for item in it:
        values = static_ifelse(c, lambda *v: tuple(body(item, *v)), lambda *v: tuple(v),
                               values, names)
        c = cond(*values)
        if not is_static(c) and not c:
            break
    return values
