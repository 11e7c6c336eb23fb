"""Views among the Variables of a Program being built, so code traced by
to_static writes through a view as eager code does.

Eagerly ``x.reshape(...)``, ``x[i]``, ``x.transpose(...)`` ... are views of
x's storage (dygraph/aliases.py): a write into either is seen by both.  A
Program has no storage to share, so the same bookkeeping is done on the
Variable objects: ``link(x, out, step)`` (called by the view functions through
``dygraph.aliases.link``) records that ``out`` is ``step(x)``; the objects over
one storage form a group (a root and members, each with the steps from the root
to its value).  When a member is written in place (``Variable._inplace_assign``
calls ``propagate``) the write goes into the root and every other member is
computed again from the new root (those the traced code still holds: a
view only the block keeps is a library function's intermediate, not read
again):

    z = x[1]; z.add_(y)          # before: x unchanged in the program
    ids = x's element numbers, taken by z's steps; x = scatter(x, ids, z) ...

Only programs traced by to_static link views: a Program built in static
mode keeps Paddle's static semantics (every variable its own value).  A
root with unknown (-1) dims numbers its elements at run time (``shape``,
``size`` and ``range`` ops; a known shape makes them constants).  A write
that changes a member's shape or dtype takes it out of its group (as
eagerly).  Parameters are not linked.  Each write into a root is recorded on
the program (``_jst_root_writes``: the root's first variable, the scatter's
output): a to_static input whose caller passes a leaf that needs a gradient
stays that leaf eagerly, so jit/partial_program.py differentiates those
scatters as the leaf itself for such a call.
"""
import sys
import weakref

import numpy as np

from ..ops import bind_in_graph, get_op, constant, is_graph_value

__all__ = ["link", "propagate", "quiet"]

_RANGE, _RESHAPE, _SCATTER = get_op("range"), get_op("reshape2"), get_op("scatter")
_SHAPE, _SIZE = get_op("shape"), get_op("size")
_QUIET = [0]                # depth of internal view steps (replays): they link nothing


class quiet:
    """``with quiet():`` view steps run inside are not linked (replays)."""

    def __enter__(self):
        _QUIET[0] += 1

    def __exit__(self, *exc):
        _QUIET[0] -= 1
        return False


class _Group:
    __slots__ = ("root", "members", "origin")

    def __init__(self, root):
        self.root = weakref.ref(root)
        self.members = [weakref.ref(root)]
        self.origin = root.name         # the root's first variable (a to_static input's)

    def live(self):
        out = []
        for r in self.members:
            v = r()
            if v is not None and v._view_of is not None and v._view_of[0] is self:
                out.append(v)
        self.members = [weakref.ref(v) for v in out]
        return out


def link(x, out, step):
    """Record that ``out`` (a Variable or a list of them: unbind) is ``step(x)``,
    in a program traced by to_static (eager code's semantics); a Program built
    in static mode keeps Paddle's static semantics, where every variable is its
    own value."""
    if _QUIET[0] or not is_graph_value(x) or getattr(x, "persistable", True) or \
            not getattr(x.block.program, "to_static_trace", False):
        return out
    outs = out if isinstance(out, list) else [out]
    if not all(is_graph_value(o) for o in outs):
        return out
    if x._view_of is None:
        x._view_of = (_Group(x), ())
    group, path = x._view_of
    for i, o in enumerate(outs):
        if o is x:
            continue
        s = step if not isinstance(out, list) else _item(step, i)
        o._view_of = (group, path + (s,))
        group.members.append(weakref.ref(o))
    return out


def _item(step, i):
    return lambda b: step(b)[i]


def _apply(path, v):
    with quiet():
        for step in path:
            v = step(v)
    return v


def _known(shape):
    return all(isinstance(d, (int, np.integer)) and d >= 0 for d in shape)


def _root_shape(root):
    """(the Shape input of a reshape to root's shape: None, or root's shape
    read at run time where a dim is unknown, the ``shape`` attribute)."""
    if _known(root.shape):
        return None, list(root.shape)
    return bind_in_graph(_SHAPE, (root,))[0], [int(d) for d in root.shape]


def _element_numbers(root, path, shape):
    """int64 Variable: for each element of ``path(root)``, its flat index in root
    (``shape``: ``_root_shape(root)``)."""
    tensor, dims = shape
    start = constant(np.array(0, np.int64))
    n = bind_in_graph(_SIZE, (root,))[0] if tensor is not None else \
        constant(np.array(int(np.prod(dims, dtype=np.int64)), np.int64))
    ids = bind_in_graph(_RANGE, (start, n, constant(np.array(1, np.int64))))[0]
    ids = bind_in_graph(_RESHAPE, (ids, tensor, None), {"shape": dims})[0]
    return _apply(path, ids)


def propagate(t, shape, dtype):
    """``t`` (a member of a group, of ``shape`` and ``dtype`` before) was just
    written in place: write it into the root and compute the other members
    again."""
    group, path = t._view_of
    root = group.root()
    if tuple(t.shape) != tuple(shape) or t.dtype != dtype:
        t._view_of = None                       # written to another shape or dtype
        if root is t:
            group.root = _gone
        return
    live = group.live()
    if root is None or len(live) == 1:
        t._view_of = None
        return
    with quiet():
        if path:
            shape = _root_shape(root)
            ids = _element_numbers(root, path, shape)
            flat = bind_in_graph(_RESHAPE, (root, None, None), {"shape": [-1]})[0]
            upd = bind_in_graph(_RESHAPE, (t, None, None), {"shape": [-1]})[0]
            ids = bind_in_graph(_RESHAPE, (ids, None, None), {"shape": [-1]})[0]
            fresh = bind_in_graph(_SCATTER, (flat, ids, upd), {"overwrite": True})[0]
            # which writes went into which root (by its first variable's name): where
            # that root is a caller's leaf tensor, jit/partial_program.py differentiates
            # the new root as the leaf itself, as the eager write leaves it a leaf
            fresh.block.program.__dict__.setdefault("_jst_root_writes", []).append(
                (group.origin, fresh.name))
            fresh = bind_in_graph(_RESHAPE, (fresh, shape[0], None), {"shape": shape[1]})[0]
            root._inplace_assign(fresh, merge=True)
        for m in live:
            if m is not t and m is not root and _held(m):
                m._inplace_assign(_apply(m._view_of[1], root), merge=True)


def _held(m):
    """Whether something besides its block holds ``m`` (the code being traced
    may read it again): a view only the block's table keeps (a library
    function's intermediate) is not computed again, which would add ops no
    one reads.  References counted here: the caller's list and loop
    variable, this argument, getrefcount's own, and the block's table."""
    return sys.getrefcount(m) > 4 + (m.block.vars.get(m.name) is m)


def _gone():
    return None
