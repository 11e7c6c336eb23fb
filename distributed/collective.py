"""Paddle's collectives on eager Tensors (``paddle.distributed.all_reduce`` ...),
with Paddle's signatures: ranks given to ``broadcast``/``reduce``/``scatter``/
``send``/``recv`` are global ranks; results land in the given tensors in place.
``sync_op=False`` returns a task whose ``wait()`` is a no-op (sampan's
collectives complete before returning).  A rank outside ``group`` returns at
once, as in Paddle."""
from __future__ import annotations

import numpy as np

from ..dygraph.aliases import write_data
from ..dygraph import Tensor
from ..dygraph.tensor import wrap
from . import comm as _c
from .env import world_group

__all__ = ["ReduceOp", "all_reduce", "broadcast", "all_gather", "all_gather_object", "reduce",
           "scatter", "barrier", "send", "recv", "isend", "irecv", "broadcast_object_list",
           "scatter_object_list", "wait"]


class ReduceOp:
    """Element-wise reductions (Paddle's values)."""
    SUM = _c.SUM
    MAX = _c.MAX
    MIN = _c.MIN
    PROD = _c.PROD
    AVG = _c.AVG


class _Task:
    """What an asynchronous call returns (the work is already done)."""

    def wait(self):
        return True

    def is_completed(self):
        return True


def _group(group, fn):
    g = world_group() if group is None else group
    if not hasattr(g, "process_group") or not hasattr(g, "ranks"):
        raise TypeError(f"{fn}: group must be a paddle.distributed Group (from new_group), "
                        f"got {type(group).__name__}")
    return g


def _tensor(t, fn, what="tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}: {what} must be a Tensor, got {type(t).__name__}")
    return t


def _array(t):
    a = t._data
    return a if isinstance(a, np.ndarray) else np.asarray(t.numpy())


def _store(t, res):
    if res is not t._data:
        write_data(t, res)
    t._bump_inplace_version()


def _in_group(g, rank, fn, what):
    if not isinstance(rank, (int, np.integer)) or rank not in g.ranks:
        raise ValueError(f"{fn}: {what} {rank} is not a rank of the group {g.ranks}")
    return g.ranks.index(int(rank))


def _op(op, fn):
    if op not in (0, 1, 2, 3, 4):
        raise ValueError(f"{fn}: op must be a paddle.distributed.ReduceOp (SUM, MAX, MIN, "
                         f"PROD, AVG), got {op!r}")
    return int(op)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce ``tensor`` over the group; every rank gets the result in ``tensor``."""
    g = _group(group, "all_reduce")
    _tensor(tensor, "all_reduce")
    op = _op(op, "all_reduce")
    if not g.is_member():
        return None
    a = _array(tensor)
    g.process_group.check(1, a, op)
    _store(tensor, g.process_group.allreduce(a, op))
    return _Task()


def broadcast(tensor, src, group=None, sync_op=True):
    """Rank ``src``'s ``tensor`` into every rank's ``tensor``."""
    g = _group(group, "broadcast")
    _tensor(tensor, "broadcast")
    if not g.is_member():
        return None
    root = _in_group(g, src, "broadcast", "src")
    a = _array(tensor)
    g.process_group.check(2, a, int(src))
    _store(tensor, g.process_group.bcast(a, root))
    return _Task()


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce ``tensor`` over the group into rank ``dst``'s ``tensor``."""
    g = _group(group, "reduce")
    _tensor(tensor, "reduce")
    op = _op(op, "reduce")
    if not g.is_member():
        return None
    root = _in_group(g, dst, "reduce", "dst")
    a = _array(tensor)
    g.process_group.check(5, a, int(dst))
    _store(tensor, g.process_group.reduce(a, root, op))
    return _Task()


def all_gather(tensor_list, tensor, group=None, sync_op=True):
    """Every rank's ``tensor`` into ``tensor_list`` (filled when empty,
    overwritten in place when it holds one tensor per rank)."""
    g = _group(group, "all_gather")
    _tensor(tensor, "all_gather")
    if not isinstance(tensor_list, list):
        raise TypeError(f"all_gather: tensor_list must be a list, got "
                        f"{type(tensor_list).__name__}")
    if not g.is_member():
        return None
    a = _array(tensor)
    g.process_group.check(3, a)
    parts = g.process_group.allgather(a)
    if not tensor_list:
        tensor_list.extend(wrap(p.copy()) for p in parts)
    elif len(tensor_list) == len(parts):
        for t, p in zip(tensor_list, parts):
            _tensor(t, "all_gather", "each element of tensor_list")
            _store(t, p.copy())
    else:
        raise ValueError(f"all_gather: tensor_list holds {len(tensor_list)} tensors; give an "
                         f"empty list or one of {len(parts)} (one per rank)")
    return _Task()


def all_gather_object(object_list, obj, group=None):
    """Every rank's picklable ``obj`` into ``object_list`` (cleared first)."""
    g = _group(group, "all_gather_object")
    if not isinstance(object_list, list):
        raise TypeError(f"all_gather_object: object_list must be a list, got "
                        f"{type(object_list).__name__}")
    if not g.is_member():
        return None
    g.process_group.check(4)
    objs = g.process_group.allgather_object(obj)
    object_list.clear()
    object_list.extend(objs)


def broadcast_object_list(object_list, src, group=None):
    """Rank ``src``'s objects into every rank's ``object_list`` (same length)."""
    g = _group(group, "broadcast_object_list")
    if not g.is_member():
        return None
    root = _in_group(g, src, "broadcast_object_list", "src")
    g.process_group.check(2, None, int(src))
    objs = g.process_group.allgather_object(list(object_list) if g.rank == root else None)
    object_list[:] = objs[root]


def scatter(tensor, tensor_list=None, src=0, group=None, sync_op=True):
    """Rank ``src``'s ``tensor_list[i]`` into rank i's ``tensor``."""
    g = _group(group, "scatter")
    _tensor(tensor, "scatter")
    if not g.is_member():
        return None
    root = _in_group(g, src, "scatter", "src")
    a = _array(tensor)
    arrs = None
    if g.rank == root:
        if not tensor_list:
            raise RuntimeError("The tensor_list should not be empty on src rank.")
        if len(tensor_list) != g.nranks:
            raise ValueError(f"scatter: tensor_list holds {len(tensor_list)} tensors, the "
                             f"group has {g.nranks} ranks")
        arrs = [_array(_tensor(t, "scatter", "each element of tensor_list")) for t in tensor_list]
        for i, x in enumerate(arrs):
            if x.shape != a.shape or x.dtype != a.dtype:
                raise ValueError(f"scatter: tensor_list[{i}] is {x.dtype}{list(x.shape)}, the "
                                 f"output tensor {a.dtype}{list(a.shape)}")
    g.process_group.check(6, a, int(src))
    _store(tensor, g.process_group.scatter(arrs, a, root))
    return _Task()


def scatter_object_list(out_object_list, in_object_list=None, src=0, group=None):
    g = _group(group, "scatter_object_list")
    if not g.is_member():
        return None
    root = _in_group(g, src, "scatter_object_list", "src")
    g.process_group.check(6, None, int(src))
    objs = g.process_group.allgather_object(list(in_object_list or []) if g.rank == root
                                            else None)[root]
    out_object_list[:] = [objs[g.rank]]


def barrier(group=None):
    """Wait until every rank of the group reaches it."""
    g = _group(group, "barrier")
    if not g.is_member():
        return None
    g.process_group.check(7)
    g.process_group.barrier()


def _p2p_header(a, peer):
    h = np.full(10, -1, np.int64)
    h[0] = a.ndim
    h[1:1 + min(a.ndim, 8)] = a.shape[:8]
    h[9] = _c._DTYPES.index(a.dtype.name) if a.dtype.name in _c._DTYPES else 99
    return h


def _describe_p2p(h):
    dt = _c._DTYPES[h[9]] if 0 <= h[9] < len(_c._DTYPES) else "object"
    return f"{dt}[{', '.join(str(int(d)) for d in h[1:1 + min(int(h[0]), 8)])}]"


def send(tensor, dst=0, group=None, sync_op=True):
    """Send ``tensor`` to rank ``dst`` (which calls ``recv``)."""
    g = _group(group, "send")
    _tensor(tensor, "send")
    if not g.is_member():
        return None
    peer = _in_group(g, dst, "send", "dst")
    if peer == g.rank:
        raise ValueError(f"send: dst {dst} is this rank")
    a = _array(tensor)
    if _c._checks_on():     # the receiver compares shape and dtype before the data moves
        g.process_group.send(_p2p_header(a, peer), peer)
    g.process_group.send(a, peer)
    return _Task()


def recv(tensor, src=0, group=None, sync_op=True):
    """Receive into ``tensor`` what rank ``src`` sends."""
    g = _group(group, "recv")
    _tensor(tensor, "recv")
    if not g.is_member():
        return None
    peer = _in_group(g, src, "recv", "src")
    if peer == g.rank:
        raise ValueError(f"recv: src {src} is this rank")
    a = _array(tensor)
    if _c._checks_on():
        h = np.empty(10, np.int64)
        g.process_group.recv(h, peer)
        mine = _p2p_header(a, peer)
        if not np.array_equal(h, mine):
            raise ValueError(f"recv: rank {src} sends {_describe_p2p(h)} but this rank "
                             f"receives into {_describe_p2p(mine)}")
    _store(tensor, g.process_group.recv(a, peer))
    return _Task()


def isend(tensor, dst, group=None):
    return send(tensor, dst, group, sync_op=False)


def irecv(tensor, src=None, group=None):
    return recv(tensor, 0 if src is None else src, group, sync_op=False)


def wait(tensor, group=None, use_calc_stream=True):
    """Collectives complete before returning: nothing to wait for."""
    return None
