"""Views: eager tensors that share storage, as Paddle's do.

In Paddle 2.6 ``x.detach()``, ``paddle.Tensor(x)``, basic indexing, ``reshape``,
``transpose``, ``squeeze`` ... return tensors over x's memory: a later write
into any of them (``v[0] = 5``, ``v.add_(y)``, ``x.zero_()``, an optimizer
step) is seen by all.  sampan never mutates an array (grad nodes keep the
arrays they saved), so sharing is kept by bookkeeping instead:

- ``link(x, out, step)``: a view op records that ``out`` is ``step(x)``.  The
  tensors over one storage form a ``Group``: the storage's current value (the
  *base*: array and autograd position) and weak references to its members,
  each with its *path*, the steps from the base to its value (the root's is ()).
- ``propagate(t, new)``: after member ``t`` took ``new`` in place, the write
  goes into the base (``t``'s elements found through its path applied to an
  index map: base.flat[ids] = new, recorded as ``scatter`` when grad records),
  then every other live member is computed again from the new base by its
  path (recorded ops: the gradient follows what the values did).

    before:  v = x[1];  v[0] = 100        # x unchanged in a value-semantics engine
    after:   x.flat[3] = 100; w = x.reshape([3, 2]) is computed again, ...

Differences from Paddle, deliberate: a gradient through a member computed
again follows the write (Paddle's backward uses the member's position before
the write, and a saved tensor written in place raises there); a write that
changes a member's dtype or shape (``cast_``, ``copy_`` of another shape)
takes that member out of its group (Paddle reinterprets the bytes).  A leaf
that needs a gradient takes the values only and stays a leaf, as in Paddle.
Dtype views (``view(dtype)``, ``as_real``, ``as_complex``) and ``zero_copy``
numpy arrays do not share.
"""
from __future__ import annotations

import functools
import inspect
import threading
import weakref

import numpy as np

from ..ops import bind, get_op
from ..kernels.transform import backend_of, to_backend
from .tensor import Tensor, wrap
from .engine import rebound, set_recording

DETACH = None            # a path step: the same values, cut from autograd
_SCATTER = get_op("scatter")
_RESHAPE = get_op("reshape2")
_GATHER = get_op("gather")
_ref = weakref.ref


class _Quiet(threading.local):
    """Depth of code whose views are internal (replays, in-place snapshots)."""
    depth = 0


QUIET = _Quiet()


class Group:
    """The tensors over one storage: the base (``data``, ``node``, ``slot``,
    ``stop_gradient``) and weak references to the members."""
    __slots__ = ("data", "node", "slot", "stop_gradient", "members", "prune_at")

    def __init__(self, root):
        self.data, self.node, self.slot = root._data, root._node, root._slot
        self.stop_gradient = root.stop_gradient
        self.members = [_ref(root)]
        self.prune_at = 16

    def prune(self):
        """Forget dead members (amortized: when the list has doubled)."""
        self.members = [r for r in self.members if r() is not None]
        self.prune_at = max(16, 2 * len(self.members))

    def live(self):
        out = []
        for r in self.members:
            t = r()
            if t is not None and getattr(t, "_alias", None) is not None \
                    and t._alias[0] is self:
                out.append(t)
        return out


# views among static Variables (a Program being built: program/views.py ``link``,
# installed by the tensor layer, which sees both)
STATIC_LINK = [None]


def link(x, out, step):
    """Record that ``out`` (a tensor or a list of them, ``step(x)``) is a view of ``x``."""
    if QUIET.depth:
        return out
    if not isinstance(x, Tensor):
        hook = STATIC_LINK[0]
        return out if hook is None else hook(x, out, step)
    if not isinstance(out, (Tensor, list)):
        return out          # (a parameter read by a static Program gives a Variable)
    a = getattr(x, "_alias", None)
    if a is None:
        x._alias = a = (Group(x), ())
    group, path = a
    members = group.members
    if isinstance(out, Tensor):
        if out is not x:
            out._alias = (group, path + (step,))
            members.append(_ref(out))
    else:                          # unbind: one member per element
        for i, o in enumerate(out):
            if isinstance(o, Tensor):
                o._alias = (group, path + (_item(step, i),))
                members.append(_ref(o))
    if len(members) >= group.prune_at:
        group.prune()
    return out


def _item(step, i):
    return lambda b: step(b)[i]


def extend(x, step):
    """``x`` became ``step(x)`` in place (``reshape_``, ``squeeze_`` ...): still a member."""
    a = getattr(x, "_alias", None)
    if a is not None:
        x._alias = (a[0], a[1] + (step,))


def _apply(path, t):
    for step in path:
        t = wrap(t._data, True) if step is DETACH else step(t)
    return t


def _index_map(shape, path):
    """For each element of the path's result, its flat index in the base."""
    ids = wrap(np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape))
    return np.asarray(_apply(path, ids)._data).reshape(-1)


def _changed(ids, upd, before):
    """Where view elements share a base element, the ones the write changed
    decide it (the last of them, where several did)."""
    a = np.asarray(to_backend(upd._data, "CPU"))
    b = np.asarray(to_backend(before._data, "CPU")).reshape(-1)
    pos = np.nonzero((a != b) & ~(np.isnan(a) & np.isnan(b)) if a.dtype.kind in "fc"
                     else a != b)[0]
    sel = wrap(to_backend(pos.astype(np.int64), backend_of(upd._data)))
    return ids[pos], bind(_GATHER, (upd, sel, None), {"axis": 0})[0]


def _base(group, live):
    """The base as a tensor: the root itself while it lives (a parameter's
    gradient must reach the parameter), else a stand-in with its position."""
    for t in live:
        if not t._alias[1]:
            return t
    return wrap(group.data, group.stop_gradient, group.node, group.slot)


def _needs_grad_leaf(t):
    return t._node is None and not t.stop_gradient


def propagate(t, new, grad=True):
    """Member ``t`` just took ``new`` (a tensor) in place: write it into the
    base and compute the other members again.  ``grad=False``: values only."""
    group, path = t._alias
    old = group.data
    if new._data.dtype != old.dtype or (path == () and tuple(new._data.shape) != old.shape):
        t._alias = None                   # another dtype or shape: no longer a view
        return
    live = group.live()
    if len(live) == 1:      # t alone over its storage: nothing sees the write
        t._alias = None     # (a later view makes t the root of a new group)
        return
    QUIET.depth += 1
    prev = None if grad else set_recording(False)
    try:
        base = _base(group, live)
        if _needs_grad_leaf(base) and grad:
            prev, grad = set_recording(False), False    # a parameter takes values only
        if not path:
            fresh = new
        else:
            n = int(np.prod(tuple(new._data.shape), dtype=np.int64))
            if n == 0:
                return
            ids = _index_map(old.shape, path)
            upd = bind(_RESHAPE, (new, None, None), {"shape": [-1]})[0]
            if np.unique(ids).size < ids.size:     # overlapping windows (unfold, as_strided)
                ids, upd = _changed(ids, upd, _apply(path, base))
                t = None        # t's own copies of an element are made equal below
            ids = wrap(to_backend(ids, backend_of(old)))
            flat = bind(_RESHAPE, (base, None, None), {"shape": [-1]})[0]
            fresh = bind(_SCATTER, (flat, ids, upd), {"overwrite": True})[0]
            fresh = bind(_RESHAPE, (fresh, None, None), {"shape": list(old.shape)})[0]
        group.data = fresh._data
        if grad and fresh._node is not None:
            group.node, group.slot, group.stop_gradient = fresh._node, fresh._slot, False
        for m in live:
            if m is t:
                continue
            value = fresh if not m._alias[1] else _apply(m._alias[1], fresh)
            m._data = value._data
            m._bump_inplace_version()
            if grad and value._node is not None and not _needs_grad_leaf(m):
                rebound(m, value._node, value._slot, False)
    finally:
        QUIET.depth -= 1
        if prev is not None:
            set_recording(prev)


def write_data(t, data):
    """``t``'s values become the array ``data`` (which may be ``t``'s own array,
    written into by a kernel), outside autograd (an optimizer step,
    ``set_value``, ``copy_``): its views see them."""
    t._data = data
    if getattr(t, "_alias", None) is not None:
        propagate(t, wrap(data), grad=False)


def view_op(fn):
    """Decorate a function whose result is a view of its first argument (a
    tensor, or a list of them for ``unbind``): eager results join x's group."""
    first = next(iter(inspect.signature(fn).parameters))     # x, or input

    @functools.wraps(fn)
    def shared(*args, **kwargs):
        out = fn(*args, **kwargs)
        if QUIET.depth:
            return out
        if args:
            x, rest = args[0], args[1:]
            return link(x, out, lambda b: fn(b, *rest, **kwargs))
        x = kwargs.get(first)
        rest = {k: v for k, v in kwargs.items() if k != first}
        return link(x, out, lambda b: fn(b, **rest))
    return shared
