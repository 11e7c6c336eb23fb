"""Indexing: gather/scatter/where/mask functions, ``Tensor.__getitem__`` and
``Tensor.__setitem__``, and the in-place rebinding they share.

``x[index]`` (numpy semantics: ints, slices with any step, None, Ellipsis, bool
masks, integer tensors/lists/arrays) appends the ops Paddle 2.6 appends (see
"index parsing" below): ``slice``/``strided_slice`` for the basic part,
``unsqueeze2`` for None, ``transpose2`` + ``gather_nd`` (with ``where_index``
for masks) for the advanced part.  ``x[index] = v`` becomes ``set_value``
(basic indices) or ``index_put`` + ``set_value`` (advanced ones), applied in
place:

In place, eagerly: the write runs as an ordinary op on a *snapshot* of ``x``
(a new Tensor holding x's current array and autograd position), then ``x``
takes the result's array and grad node.  No array is mutated, so grad nodes
that saved x's old array keep the old values, and ops recorded before the
write keep x's old autograd position (``engine.rebound``).  The tensors over
x's storage (its views and base: ``x[1:3]`` is one, see
``dygraph/aliases.py``) take the write too.  Writing into a leaf that requires
grad raises, as in Paddle, unless grad is disabled.
"""
import numbers

import numpy as np

from ..dygraph.tensor import Tensor
from ..dygraph.tensor import wrap
from ..dygraph.engine import rebound, unrecorded_array
from ..dygraph import aliases
from ..program import views as static_views
from ..dygraph.tape import is_grad_enabled
from ..ops import bind, get_op, OpError, in_static_mode, is_graph_value, update
from ..ops.defs.indexing import BIG
from ..ops.meta_rules import norm_axis
from ..ops.dtypes import to_enum, to_np_dtype
from .creation import is_var, full, zeros_like
from .creation_base import to_tensor
from .operators import promote_floats
from . import manipulation as M

__all__ = ["gather", "gather_nd", "scatter", "scatter_", "index_select", "index_sample",
           "take_along_axis", "where", "where_", "nonzero", "masked_select", "masked_fill",
           "masked_fill_", "index_put", "index_put_"]
METHODS = list(__all__)

# views of static Variables are linked as eager tensors' are (program/views.py)
aliases.STATIC_LINK[0] = static_views.link

_OPS = {t: get_op(t) for t in (
    "gather", "gather_nd", "scatter", "index_select", "index_sample", "take_along_axis",
    "where", "where_index", "masked_select", "set_value", "index_put", "slice",
    "strided_slice")}


# ------------------------------------------------------------ in place
def rebind(x, out, keep_grad=False):
    """Make ``x`` hold ``out``'s value and autograd position (x keeps its identity)."""
    if not isinstance(x, Tensor):
        hook = getattr(x, "_inplace_assign", None)
        if hook is None:
            raise TypeError(f"cannot write in place into a {type(x).__name__}")
        return hook(out)
    if not isinstance(out, Tensor) and is_graph_value(out):  # a Program writes x (bound)
        return update("assign", {"X": out}, x)
    x._data = out._data
    x._bump_inplace_version()
    if out._node is not None and not keep_grad:
        rebound(x, out._node, out._slot, False)   # earlier readers keep x's old position
    if getattr(x, "_alias", None) is not None:     # x's views and base see the write
        aliases.propagate(x, out, grad=not keep_grad)
    return x


def inplace(x, fn, view=False):
    """Run ``fn`` on a snapshot of ``x`` and rebind x to the result.
    ``view``: fn is a view op (``reshape_``): x stays a view of what it viewed."""
    if not isinstance(x, Tensor):
        return rebind(x, fn(x))
    if not x.stop_gradient and x._node is None and is_grad_enabled():
        raise ValueError(f"Leaf Tensor ({x.name}) that doesn't stop gradient can't use "
                         "inplace strategy (wrap the write in paddle.no_grad())")
    if in_static_mode():
        # an eager tensor a program binds (a layer's buffer or parameter written
        # inside to_static): the program reads x itself and an ``assign`` writes
        # it (``rebind``); an eager snapshot would put the value x has while the
        # program is built into the program, for good
        return rebind(x, fn(x))
    old = wrap(x._data, x.stop_gradient, x._node, x._slot)
    aliases.QUIET.depth += 1
    try:
        out = fn(old)
    finally:
        aliases.QUIET.depth -= 1
    if not view:
        return rebind(x, out)
    alias, x._alias = getattr(x, "_alias", None), None
    rebind(x, out)
    if alias is not None:
        x._alias = alias
        aliases.extend(x, fn)
    return x


# ------------------------------------------------------------ functions
def gather(x, index, axis=None, name=None):
    if is_var(axis):
        return bind(_OPS["gather"], (x, index, axis))[0]
    return bind(_OPS["gather"], (x, index, None), {"axis": 0 if axis is None else int(axis)})[0]


def gather_nd(x, index, name=None):
    return bind(_OPS["gather_nd"], (x, index))[0]


def scatter(x, index, updates, overwrite=True, name=None):
    return bind(_OPS["scatter"], (x, index, updates), {"overwrite": bool(overwrite)})[0]


def scatter_(x, index, updates, overwrite=True, name=None):
    return inplace(x, lambda t: scatter(t, index, updates, overwrite))


def index_select(x, index, axis=0, name=None):
    return bind(_OPS["index_select"], (x, index), {"dim": int(axis)})[0]


def index_sample(x, index):
    return bind(_OPS["index_sample"], (x, index))[0]


def take_along_axis(arr, indices, axis, broadcast=True):
    """``arr`` gathered along ``axis`` at ``indices`` (same rank).  With
    ``broadcast`` (Paddle's default) both are first broadcast to one shape
    outside ``axis`` (two ``expand_v2``, as Paddle appends them): to arr's
    shape with indices' size along axis, or to indices' shape where indices
    is larger than arr in some dim."""
    nd = len(arr.shape)
    if len(indices.shape) != nd:
        raise OpError(f"take_along_axis: `indices` and `arr` must have the same number of "
                      f"dimensions, got shapes {list(indices.shape)} and {list(arr.shape)}")
    # Paddle asserts the axis range: AssertionError
    ax = norm_axis(int(axis), nd, "take_along_axis: axis", AssertionError)
    if broadcast:
        ashape, ishape = list(arr.shape), list(indices.shape)
        if any(a < i for a, i in zip(ashape, ishape)):
            target = list(ishape)
        else:
            target = list(ashape)
            target[ax] = ishape[ax]
        indices = M.broadcast_to(indices, target)
        target[ax] = ashape[ax]
        arr = M.broadcast_to(arr, target)
    return bind(_OPS["take_along_axis"], (arr, indices), {"Axis": ax})[0]


def _scalar_operand(v):
    """A Python/numpy scalar as Paddle's where takes it: ``full([1], v)`` of
    numpy's dtype for it (int64, float64 or bool)."""
    if isinstance(v, (numbers.Number, np.generic)) and not is_var(v):
        return full([1], v, np.array([v]).dtype)
    return v


def where(condition, x=None, y=None, name=None):
    """Elementwise ``x if condition else y``; ``where(cond)`` is ``nonzero(cond, True)``.

    As Paddle 2.6: a scalar x or y is a [1] tensor of numpy's dtype for it;
    inputs of one shape go to one ``where`` op (two float dtypes promote to the
    wider); otherwise all three are broadcast by adding zeros (``fill_any_like``,
    ``cast``, ``elementwise_add``: the mixed dtypes Paddle's add rejects are
    rejected here too) before the ``where`` op."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError("paddle.where needs both x and y (or neither)")
    x, y = _scalar_operand(x), _scalar_operand(y)
    if isinstance(x, np.ndarray):
        x = to_tensor(x)
    if isinstance(y, np.ndarray):
        y = to_tensor(y)
    if list(condition.shape) == list(x.shape) == list(y.shape):
        x, y = promote_floats(x, y)
        return bind(_OPS["where"], (condition, x, y))[0]
    from .math import add, cast
    zx, zy, zc = zeros_like(x), zeros_like(y), zeros_like(condition)
    zc = cast(zc, x.dtype)
    cc = cast(condition, x.dtype)
    zeros = add(add(zx, zy), zc)
    bx, by = add(x, zeros), add(y, zeros)
    bc = cast(add(cc, zeros), "bool")
    return bind(_OPS["where"], (bc, bx, by))[0]


def where_(condition, x=None, y=None, name=None):
    """In place: x becomes ``where(condition, x, y)`` (both tensors)."""
    if x is None or y is None or not is_var(x) or not is_var(y):
        raise ValueError("paddle.where_: give both x and y, as tensors")
    return inplace(x, lambda t: where(condition, t, y))


def nonzero(x, as_tuple=False):
    """The [N, rank] int64 coordinates of x's nonzero entries (``where_index``);
    ``as_tuple``: one [N, 1] column per dim."""
    idx = bind(_OPS["where_index"], (x,))[0]
    if not as_tuple:
        return idx
    nd = len(x.shape)
    if nd == 1:
        return (idx,)
    return tuple(M.slice(idx, [1], [i], [i + 1]) for i in range(nd))


def masked_select(x, mask, name=None):
    return bind(_OPS["masked_select"], (x, mask))[0]


def masked_fill(x, mask, value, name=None):
    """x with ``value`` where ``mask`` is True: ``where(~mask, x, value)``, a
    number being a 0-D tensor of x's dtype (as Paddle composes it)."""
    if not is_var(value):
        value = full([], value, x.dtype)
    from .logic import logical_not
    return where(logical_not(mask), x, value)


def masked_fill_(x, mask, value, name=None):
    return inplace(x, lambda t: masked_fill(t, mask, value))


def index_put(x, indices, value, accumulate=False, name=None):
    """x with ``value`` written at ``indices`` (a tuple of index tensors, or one
    bool mask); a tensor value must have x's dtype, as in Paddle."""
    value = value if is_var(value) else _value_tensor(value, x)
    return bind(_OPS["index_put"], (x, list(indices), value),
                {"accumulate": bool(accumulate)})[0]


def index_put_(x, indices, value, accumulate=False, name=None):
    return inplace(x, lambda t: index_put(t, indices, value, accumulate))


# ------------------------------------------------------------ index parsing
# ``x[index]`` follows Paddle 2.6 (python/paddle/base/variable_index.py): ints,
# 0-D integer tensors and slices make one ``slice`` op (``strided_slice`` when a
# step is not 1) with the ints' axes decreased; None adds axes (one ``unsqueeze2``);
# the advanced items (lists, arrays, index tensors, bool masks) then index the
# result: the dims they index are moved first (``transpose2``), the index columns
# joined (``broadcast_tensors`` + ``stack``, or ``unsqueeze2`` for one), one
# ``gather_nd`` reads them (``where_index`` + ``gather_nd`` for a single mask),
# and the new dims are moved back to where numpy puts them.  sampan counts the
# positions of advanced items after None axes (Paddle 2.6 does not, and fails on
# ``x[None, [0, 1]]``) and takes negative entries of index lists (Paddle rejects
# ``x[[-1, 0]]``).

# Paddle's errors: an index of a bad type (a float, a str, a float array or tensor,
# two ellipses) is InvalidArgument, a ValueError; an index out of range, too many
# indices or a mask of the wrong shape is OutOfRange, an IndexError.
def _bad_index(it):
    return OpError(f"Valid index accept int / bool / slice / ellipsis / list / tuple / "
                      f"ndarray / Tensor, but received {it!r} ({type(it).__name__})")


def _is_bool_dtype(t):
    return to_np_dtype(t.dtype).kind == "b"


def _convert_item(it):
    """numpy arrays and ranges become tensors / lists, as Paddle does first."""
    if isinstance(it, np.ndarray):
        if it.dtype.kind not in "iub":
            raise OpError(f"an index array must be of integer or bool dtype, got {it.dtype}")
        return to_tensor(it)
    if isinstance(it, range):
        return list(it)
    return it


def _expand_ellipsis(x, items):
    n_ell = sum(1 for it in items if it is Ellipsis)
    if n_ell == 0:
        return items
    if n_ell > 1:
        raise OpError("An index can only have a single ellipsis ('...')")
    used = 0
    for it in items:
        if it is None or it is Ellipsis:
            continue
        used += len(it.shape) if is_var(it) and _is_bool_dtype(it) and len(it.shape) else 1
    k = items.index(Ellipsis)
    return items[:k] + [slice(None)] * max(len(x.shape) - used, 0) + items[k + 1:]


class _Index:
    """A parsed index: the basic part (``axes/starts/ends/steps`` of one slice op,
    ``decrease`` axes, ``none`` axes of the result) and the advanced items
    ``adv`` as ``(position in the basic result, index tensor, dims it spans)``."""

    def __init__(self, x, index):
        items = list(index) if isinstance(index, tuple) else [index]
        items = _expand_ellipsis(x, [_convert_item(it) for it in items])
        self.axes, self.starts, self.ends, self.steps = [], [], [], []
        self.decrease, self.none, self.adv = [], [], []
        shape, nd = list(x.shape), len(x.shape)
        d = r = 0       # d: the next axis of x; r: the next axis of the basic result
        for it in items:
            if it is None:
                self.none.append(r)
                r += 1
                continue
            if isinstance(it, (bool, np.bool_)):
                # a Python bool: a new axis indexed by a [1] mask (x[True], x[False])
                self.none.append(r)
                self.adv.append((r, to_tensor([bool(it)]), 1))
                r += 1
                continue
            if d >= nd and not (is_var(it) and _is_bool_dtype(it) and len(it.shape) == 0):
                raise IndexError(f"too many indices for a tensor of shape {shape}: index "
                                 f"{index!r} indexes more than its {nd} dims")
            if isinstance(it, (numbers.Integral, np.integer)):
                i = int(it)
                if shape[d] >= 0 and not -shape[d] <= i < shape[d]:
                    raise IndexError(f"index {i} is out of range for axis {d} with size "
                                     f"{shape[d]} (tensor shape {shape})")
                self._basic(d, i, i + 1 if i != -1 else BIG, 1)
                self.decrease.append(d)
                d += 1
            elif isinstance(it, slice):
                if not (it.start is None and it.stop is None and it.step is None):
                    self._basic(d, *_slice_bounds(it, shape[d]))
                d += 1
                r += 1
            elif isinstance(it, (list, tuple)):
                t = to_tensor(list(it))
                kind = to_np_dtype(t.dtype).kind
                if kind == "b":
                    if len(t.shape) != 1 or (shape[d] >= 0 and t.shape[0] != shape[d]):
                        raise IndexError(f"The shape of boolean index {list(t.shape)} did not "
                                         f"match indexed tensor {shape[d]} along axis {d}")
                elif kind not in "iu":
                    raise OpError(f"an index list must hold ints or bools, got {it!r}")
                else:
                    _check_list_index(it, shape, d)
                self.adv.append((r, t, 1))
                d += 1
                r += 1
            elif is_var(it):
                kind = to_np_dtype(it.dtype).kind
                if kind == "b" and len(it.shape) == 0:
                    # a 0-D bool tensor: a new axis indexed by a [1] mask
                    self.none.append(r)
                    self.adv.append((r, M.reshape(it, [1]), 1))
                    r += 1
                elif kind == "b":
                    k = len(it.shape)
                    want = shape[d:d + k]
                    if len(want) < k or any(a >= 0 and b >= 0 and a != b
                                            for a, b in zip(it.shape, want)):
                        raise IndexError(f"The shape of boolean index {list(it.shape)} did "
                                         f"not match indexed tensor dims {want} from axis {d} "
                                         f"(tensor shape {shape})")
                    self.adv.append((r, it, k))
                    d += k
                    r += k
                elif kind not in "iu":
                    raise OpError(f"an index tensor must be of integer or bool dtype, got "
                                  f"{to_np_dtype(it.dtype)}")
                elif len(it.shape) == 0:
                    # a 0-D integer tensor is an int: Paddle's slice with tensor bounds
                    _ = it != -1        # noqa: F841  (Paddle appends this comparison)
                    self._basic(d, it, it + 1, 1)
                    self.decrease.append(d)
                    d += 1
                else:
                    self.adv.append((r, it, 1))
                    d += 1
                    r += 1
            else:
                raise _bad_index(it)

    def _basic(self, axis, start, end, step):
        self.axes.append(axis)
        self.starts.append(start)
        self.ends.append(end)
        self.steps.append(step)

    @property
    def strided(self):
        return any(s != 1 for s in self.steps)

    def bounds_inputs(self):
        """(attrs, StartsTensorList, EndsTensorList): tensor bounds (0-D index
        tensors) turn every bound of the list into a [1] int64 tensor."""
        out = []
        for vals in (self.starts, self.ends):
            if any(is_var(v) for v in vals):
                out.append(([-1 if is_var(v) else v for v in vals],
                            [v if is_var(v) else full([1], v, "int64") for v in vals]))
            else:
                out.append((list(vals), None))
        return out

    def positions(self):
        """The axes of the basic result the advanced items index, in order."""
        pos = []
        for r, _, k in self.adv:
            pos += list(range(r, r + k))
        return pos


def _check_list_index(values, shape, d):
    """The entries of an index list lie in [-size, size) of the axis they index."""
    flat = np.asarray(values).reshape(-1)
    if flat.size and shape[d] >= 0:
        lo, hi = int(flat.min()), int(flat.max())
        if lo < -shape[d] or hi >= shape[d]:
            bad = hi if hi >= shape[d] else lo
            raise OpError(f"index {bad} is out of range for axis {d} with size {shape[d]} "
                          f"(tensor shape {shape})")


def _bound(v):
    """A slice bound: an int, or a static integer Variable of one value (``x[:n //
    2]`` with ``n = x.shape[0]`` of a dynamic dim), which the slice op reads from
    its tensor list at run time (``bounds_inputs``)."""
    if isinstance(v, (float, np.floating)) or (is_var(v) and (
            to_np_dtype(v.dtype).kind not in "iu" or list(v.shape) not in ([], [1]))):
        what = f"a {type(v).__name__}" if not is_var(v) else \
            f"{v.name} of shape {list(v.shape)} and dtype {to_np_dtype(v.dtype)}"
        raise ValueError(f"a slice bound must be None, an int or an integer tensor of one "
                         f"value (Paddle's rule), got {what}")
    if is_graph_value(v):
        return v                # 0-D or [1]: the slice op's tensor list takes either
    return int(v)


def _slice_bounds(s, dim):
    """(start, end, step) as Paddle's ops read them, for Python's meaning of ``s``.
    Going down, Paddle reads an end of -1 as the open stop (through index 0) and
    clamps an end below -dim to stop before index 0; so a stop the user wrote is
    given non-negative (or as -1 when it lies below index 0) where dim is known;
    a stop in [-dim, -2] reads the same in both and is kept as written (Paddle's
    attribute)."""
    step = 1 if s.step is None else int(s.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step > 0:
        start = 0 if s.start is None else _bound(s.start)
        end = BIG if s.stop is None else _bound(s.stop)
        return start, end, step
    start = BIG if s.start is None else _bound(s.start)
    end = -1 if s.stop is None else _bound(s.stop)
    if is_graph_value(end):
        return start, end, step
    if s.stop is not None and (end == -1 or end < -dim) and dim >= 0:
        end = max(end + dim, -1)
    return start, end, step


# ------------------------------------------------------------ __getitem__
def _basic(x, p):
    """The basic part: one slice (or strided_slice) op, then one unsqueeze2."""
    if p.axes:
        (s_attr, s_list), (e_attr, e_list) = p.bounds_inputs()
        flags = [-1 if is_var(v) else 1 for v in p.starts]
        if p.strided:
            x = bind(_OPS["strided_slice"], (x, None, None, None, s_list, e_list, None),
                     {"axes": p.axes, "starts": s_attr, "ends": e_attr, "strides": p.steps,
                      "infer_flags": flags, "decrease_axis": p.decrease})[0]
        else:
            x = bind(_OPS["slice"], (x, None, None, s_list, e_list),
                     {"axes": p.axes, "starts": s_attr, "ends": e_attr, "infer_flags": flags,
                      "decrease_axis": p.decrease})[0]
    if p.none:
        x = M.unsqueeze(x, p.none)
    return x


def _new_dims_at(p):
    """Where numpy puts the advanced result dims: at the first advanced axis
    when the advanced items are adjacent, else first."""
    pos = p.positions()
    if pos == list(range(pos[0], pos[0] + len(pos))):
        return pos[0]
    return 0


def _move_first(y, p):
    """y with the advanced axes moved first (one transpose2 when needed)."""
    pos = p.positions()
    nd = len(y.shape)
    perm = pos + [i for i in range(nd) if i not in pos]
    if perm != list(range(nd)):
        y = M.transpose(y, perm)
    return y, perm


def _index_columns(p):
    """The index tensors of a multi-item (or integer) advanced index, as Paddle
    joins them: bool masks become their nonzero columns, several columns are
    broadcast (``broadcast_tensors``) and stacked on a last axis, one column
    gets a last axis of 1 (``unsqueeze2``)."""
    cols = []
    for _, t, k in p.adv:
        if _is_bool_dtype(t):
            nz = nonzero(t)
            cols += [nz[:, j] for j in range(k)]
        else:
            cols.append(t)
    if len(cols) > 1:
        dts = {to_np_dtype(c.dtype) for c in cols}
        if len(dts) > 1:
            from .math import cast
            cols = [c if to_np_dtype(c.dtype) == np.int64 else cast(c, "int64") for c in cols]
        return M.stack(M.broadcast_tensors(cols), -1)
    return M.unsqueeze(cols[0], -1)


def _plain(item):
    """An index item numpy and Paddle read alike: an int, a slice of ints with a
    positive step, None or Ellipsis (not a bool, a tensor or a list)."""
    t = type(item)
    if t is int or item is None or item is Ellipsis:
        return True
    if t is slice:
        step = item.step
        return (step is None or (type(step) is int and step > 0)) and \
            (item.start is None or type(item.start) is int) and \
            (item.stop is None or type(item.stop) is int)
    return False


def _numpy_view(x, index):
    """``x[index]`` straight from numpy for an eager CPU tensor that records no
    gradient and an index of ``_plain`` items (the slice op's result, computed
    without building it), or None: the general path then runs (and words any
    error)."""
    a = unrecorded_array(x)
    if a is None:
        return None
    if not (_plain(index) or (type(index) is tuple and all(_plain(i) for i in index))):
        return None
    try:
        out = a[index]
    except (IndexError, TypeError, ValueError):
        return None
    return wrap(out if type(out) is np.ndarray else np.asarray(out))


_PARSED = {}     # (index key, x's shape) -> its _Index, for indices of ints and slices


def _index_key(index):
    """A hashable key of an index of ints, int/None slices, None and Ellipsis
    (an _Index of those holds no tensor, so it can be reused), else None."""
    items = index if type(index) is tuple else (index,)
    key = []
    for it in items:
        t = type(it)
        if t is slice:
            if not all(v is None or type(v) is int for v in (it.start, it.stop, it.step)):
                return None
            key.append((it.start, it.stop, it.step))
        elif t is int or it is None or it is Ellipsis:
            key.append(it)
        else:
            return None
    return type(index) is tuple, tuple(key)


def _parsed(x, index):
    """``_Index(x, index)``, parsed once per plain index and shape."""
    key = _index_key(index)
    if key is None:
        return _Index(x, index)
    key = (key, tuple(x.shape))
    p = _PARSED.get(key)
    if p is None:
        p = _Index(x, index)         # a bad index raises here: nothing is cached
        if len(_PARSED) >= 4096:
            _PARSED.clear()
        _PARSED[key] = p
    return p


def getitem(x, index):
    if type(x) is Tensor:
        y = _numpy_view(x, index)
        if y is not None:
            return aliases.link(x, y, lambda b: getitem(b, index))
    p = _parsed(x, index)
    y = _basic(x, p)
    if not p.adv:      # a basic index is a view of x (Paddle shares the storage)
        return aliases.link(x, y, lambda b: _basic(b, _parsed(b, index)))
    y, _ = _move_first(y, p)
    if len(p.adv) == 1 and _is_bool_dtype(p.adv[0][1]):
        out = gather_nd(y, nonzero(p.adv[0][1]))
    else:
        out = gather_nd(y, _index_columns(p))
    at = _new_dims_at(p)
    if at:
        nb = len(out.shape) - (len(y.shape) - len(p.positions()))
        n = len(out.shape)
        out = M.transpose(out, list(range(nb, nb + at)) + list(range(nb)) +
                          list(range(nb + at, n)))
    return out


# ------------------------------------------------------------ __setitem__
def _value_tensor(value, x):
    """A value to write into x as a tensor of x's dtype (numbers and arrays are
    converted as numpy converts them, e.g. 2.5 into int64 is 2)."""
    dt = to_np_dtype(x.dtype)
    if is_var(value):
        if to_np_dtype(value.dtype) != dt:
            from .math import cast
            value = cast(value, dt)
        return value
    if isinstance(value, (str, bytes)) or not isinstance(
            value, (numbers.Number, np.generic, np.ndarray, list, tuple)):
        raise OpError(f"Only support to assign an integer, float, numpy.ndarray or Tensor "
                      f"to a Tensor, but received {type(value).__name__}")
    return to_tensor(np.asarray(value).astype(dt))


def _set_value_attrs(x, p):
    (s_attr, s_list), (e_attr, e_list) = p.bounds_inputs()
    attrs = {"axes": p.axes, "starts": s_attr, "ends": e_attr, "steps": p.steps,
             "decrease_axes": p.decrease, "none_axes": p.none, "dtype": to_enum(x.dtype)}
    if not p.axes:      # x[...] = v, x[None] = v: one whole-axis slice
        if len(x.shape):
            attrs.update(axes=[0], starts=[0], ends=[BIG], steps=[1])
    return attrs, s_list, e_list


def _set_basic(x, p, value):
    attrs, s_list, e_list = _set_value_attrs(x, p)
    dt = to_np_dtype(x.dtype)
    vt = None
    if isinstance(value, (numbers.Number, np.number, np.bool_)) and dt.kind in "biuf":
        v = np.asarray(value).astype(dt)        # the Scalar Paddle writes: bool, int64, float64
        attrs["values"] = [bool(v) if dt.kind == "b" else int(v) if dt.kind in "iu"
                           else float(v)]
        attrs["shape"] = [1]
    else:
        vt = _value_tensor(value, x)
    return bind(_OPS["set_value"], (x, vt, s_list, e_list, None), attrs)[0]


def _set_advanced(x, p, value):
    """Paddle's way: take the basic part, move the advanced axes first, write
    with ``index_put`` (the value laid out as the index shape, then the other
    axes), move the axes back and write the part into x (``set_value``)."""
    value = _value_tensor(value, x)
    sub = _basic(x, p)
    subt, perm = _move_first(sub, p)
    if len(p.adv) == 1 and _is_bool_dtype(p.adv[0][1]):
        indices, nb = [p.adv[0][1]], 1
    else:
        indices = []
        for _, t, k in p.adv:
            if _is_bool_dtype(t):
                nz = nonzero(t)
                indices += [nz[:, j] for j in range(k)]
            else:
                indices.append(t)
        nb = max(len(t.shape) for t in indices)
    at = _new_dims_at(p)
    if at and len(value.shape) > 1:
        # numpy's result puts the index dims at ``at``: move them first, as index_put
        # lays them out (the value padded to the result's rank first)
        rank = nb + len(sub.shape) - len(p.positions())
        if len(value.shape) < rank:
            value = M.reshape(value, [1] * (rank - len(value.shape)) + list(value.shape))
        vperm = list(range(at, at + nb)) + list(range(at)) + list(range(at + nb, rank))
        value = M.transpose(value, vperm)
    out = index_put(subt, indices, value)
    if perm != list(range(len(perm))):
        out = M.transpose(out, [int(i) for i in np.argsort(perm)])
    if not (p.axes or p.none):
        return out
    attrs, s_list, e_list = _set_value_attrs(x, p)
    return bind(_OPS["set_value"], (x, out, s_list, e_list, None), attrs)[0]


def set_value_of(x, index, value):
    """``x[index] = value`` as a new tensor (x unchanged): ``set_value`` for a
    basic index, ``index_put`` (+ ``set_value``) for an advanced one."""
    p = _parsed(x, index)
    if p.adv:
        return _set_advanced(x, p, value)
    return _set_basic(x, p, value)


def _written_by_numpy(x, index, value):
    """``x[index] = value`` done by numpy on a copy of x's array, for an eager
    CPU tensor that records nothing, a ``_plain`` index and a Python number or
    an unrecorded tensor of the indexed region's exact shape (the set_value
    op's result, without the op); False where the general path must run."""
    a = unrecorded_array(x)
    if a is None or not 0 < a.ndim < 7 or \
            not (_plain(index) or (type(index) is tuple and all(_plain(i) for i in index))):
        return False            # (Paddle's set_value refuses ranks 0 and 7+: its error)
    tv = type(value)
    if tv is float or tv is int:
        v = value
    elif tv is Tensor:
        v = unrecorded_array(value)
        if v is None or np.shape(a[index]) != v.shape:
            return False
    else:
        return False
    new = a.copy()
    try:
        with np.errstate(all="raise"):
            new[index] = v
    except (IndexError, TypeError, ValueError, OverflowError, FloatingPointError):
        return False
    rebind(x, wrap(new))
    return True


def setitem(x, index, value):
    if type(x) is Tensor and _written_by_numpy(x, index, value):
        return
    inplace(x, lambda t: set_value_of(t, index, value))


def _getitem_method(self, index):
    return getitem(self, index)


def _setitem_method(self, index, value):
    setitem(self, index, value)


EXTRA_METHODS = {"__getitem__": _getitem_method, "__setitem__": _setitem_method}
