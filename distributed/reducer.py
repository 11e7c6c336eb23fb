"""DataParallel's gradient reducer: buckets of parameters whose gradients are
all-reduced (non-blocking ``Iallreduce``) while the backward is still running.

* ``prepare(outputs)`` (each synced forward) walks the grad graph from the
  forward's outputs once and notes, for every parameter, the stamp of the last
  node the backward runs that feeds it (the oldest consumer: the tape runs nodes
  newest first) - after that node its gradient is final.  Parameters the walk
  does not reach are the unused ones.
* The tape calls ``on_walk(node, leaves)`` after each node (``dygraph/tape.py``'s
  ``WALK_HOOK``): the parameters that became final are copied into their
  bucket's flat buffer; a full bucket starts its all-reduce, buckets always
  starting in the same order on every rank (MPI's rule for non-blocking
  collectives).  ``on_walk(None, leaves)`` (the ``.grad`` are written) fills in
  what is left (unused parameters: zeros, when ``find_unused_parameters``),
  waits for every bucket, and writes the averaged gradients into ``.grad``.
* A gradient that still changes after its bucket left (a parameter used
  outside the wrapped layer's forward, before it) is an error, not a silent
  wrong average.
"""
from __future__ import annotations

import numpy as np

from ..dygraph import Tensor
from ..dygraph.tensor import is_cleared, wrap
from ..dygraph import tape as _tape
from ..dygraph.engine import position

__all__ = ["Reducer", "build_buckets"]

_ARMED = []      # reducers waiting for their backward


def _dispatch(node, leaves):
    for r in list(_ARMED):
        r.on_walk(node, leaves)


def build_buckets(params, limit, last_limit):
    """Parameter indices in buckets, in the order the backward finishes them
    (reverse of declaration); one dtype per bucket; the bucket holding the first
    parameters is capped by ``last_limit`` bytes (it goes last, when nothing is
    left to overlap with), the others by ``limit``."""
    buckets, cur, cur_bytes, cur_dt = [], [], 0, None
    for i, p in enumerate(params):       # declaration order, the last bucket first
        nbytes = p._data.size * p._data.itemsize
        cap = last_limit if not buckets else limit
        if cur and (p._data.dtype != cur_dt or cur_bytes + nbytes > cap):
            buckets.append(cur)
            cur, cur_bytes = [], 0
        cur.append(i)
        cur_bytes += nbytes
        cur_dt = p._data.dtype
    if cur:
        buckets.append(cur)
    return [list(reversed(b)) for b in reversed(buckets)]


class _Bucket:
    __slots__ = ("index", "params", "offsets", "buf", "pending", "req", "seen")

    def __init__(self, index, members, params):
        self.index = index
        self.params = members
        sizes = [params[i]._data.size for i in members]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.buf = np.zeros(int(self.offsets[-1]), params[members[0]]._data.dtype)
        self.pending = 0
        self.req = None
        self.seen = None


class Reducer:
    def __init__(self, params, comm, comm_buffer_size, last_comm_buffer_size,
                 find_unused_parameters):
        self.params = params
        self.comm = comm
        self.find_unused = find_unused_parameters
        self.index = {id(p): i for i, p in enumerate(params)}
        groups = build_buckets(params, comm_buffer_size, last_comm_buffer_size)
        self.buckets = [_Bucket(k, g, params) for k, g in enumerate(groups)]
        self.where = {}
        for b in self.buckets:
            for j, i in enumerate(b.params):
                self.where[i] = (b, j)
        self.ready_at = {}            # node stamp -> indices of params final after it
        self.done = None              # per param: marked this backward
        self.next_launch = 0
        self.unused = []
        self.early = 0                # buckets started before the backward ended (last step)
        self.inflight = []            # requests of started buckets not yet seen complete

    # ------------------------------------------------------------ forward side
    def prepare(self, outputs):
        """Map each parameter to its oldest consumer in the graph of ``outputs``."""
        oldest = {}
        seen = set()
        stack = []
        for t in outputs:
            if isinstance(t, Tensor) and not t.stop_gradient and t._node is not None:
                if id(t._node) not in seen:
                    seen.add(id(t._node))
                    stack.append(t._node)
        index = self.index
        while stack:
            node = stack.pop()
            for t in node.ins:
                if t is None:
                    continue
                for x in (t if type(t) is list else (t,)):
                    if x is None:
                        continue
                    if x._history is None:
                        p, sg = x._node, x.stop_gradient
                    else:
                        p, _, sg = position(x, node)
                    if sg:
                        continue
                    if p is None:
                        i = index.get(id(x))
                        if i is not None and node.epoch < oldest.get(i, 1 << 62):
                            oldest[i] = node.epoch
                    elif id(p) not in seen:
                        seen.add(id(p))
                        stack.append(p)
        ready = {}
        for i, e in oldest.items():
            ready.setdefault(e, []).append(i)
        self.ready_at = ready
        self.unused = [i for i in range(len(self.params)) if i not in oldest]
        self.done = [False] * len(self.params)
        self.seen = {}
        for b in self.buckets:
            b.pending = len(b.params)
            b.req = None
        self.next_launch = 0
        self.early = 0
        self.inflight = []
        if self not in _ARMED:
            _ARMED.append(self)
            _tape.WALK_HOOK[0] = _dispatch

    def disarm(self):
        if self in _ARMED:
            _ARMED.remove(self)
        if not _ARMED:
            _tape.WALK_HOOK[0] = None

    # ------------------------------------------------------------ backward side
    def on_walk(self, node, leaves):
        if node is not None:
            if self.inflight:       # MPI progresses inside its calls: poke it between nodes
                self._progress()
            idx = self.ready_at.get(node.epoch)
            if idx:
                for i in idx:
                    p = self.params[i]
                    entry = leaves.get(id(p))
                    if entry is None or p._hooks:   # hooks run when the walk ends
                        continue
                    g = entry[1]
                    self.seen[i] = g
                    self._mark(i, self._with_old(p, g))
                self.early += self._launch()
            return
        # the walk is over and the leaves' .grad are written
        if not any(id(p) in leaves for p in self.params) and not any(self.done):
            return          # a backward of something else: stay armed
        self.disarm()
        self._finish(leaves)

    def _with_old(self, p, g):
        g = g._data if isinstance(g, Tensor) else g
        if g.shape != p._data.shape:
            g = np.broadcast_to(g, p._data.shape)
        old = p._grad
        if old is not None and old._data is not None and not is_cleared(old):
            return old._data + g
        return g

    def _mark(self, i, g):
        b, j = self.where[i]
        b.buf[b.offsets[j]:b.offsets[j + 1]] = np.ravel(g)
        self.done[i] = True
        b.pending -= 1

    def _progress(self):
        self.inflight = [r for r in self.inflight if not r.Test()]

    def _launch(self):
        """Start the ready buckets, in order; returns how many started."""
        bs, k = self.buckets, self.next_launch
        while self.next_launch < len(bs) and bs[self.next_launch].pending == 0:
            b = bs[self.next_launch]
            b.req = self.comm.iallreduce(b.buf)
            self.inflight.append(b.req)
            self.next_launch += 1
        return self.next_launch - k

    def _finish(self, leaves):
        missing = []
        for i, p in enumerate(self.params):
            if self.done[i]:
                e = leaves.get(id(p))
                if e is not None and i in self.seen and e[1] is not self.seen[i]:
                    raise RuntimeError(
                        f"DataParallel: parameter '{p.name}' got more gradient after its "
                        "bucket was all-reduced: it is used outside the wrapped layer's "
                        "forward before it; compute such terms inside forward")
                continue
            if p._grad is not None and not is_cleared(p._grad):
                self._mark(i, p._grad._data)
            elif self.find_unused:
                self._mark(i, np.zeros(p._data.shape, p._data.dtype))
            else:
                missing.append(p.name)
        if missing:
            raise RuntimeError(
                f"DataParallel: parameter(s) {missing} received no gradient in this backward; "
                "construct DataParallel(layer, find_unused_parameters=True) when the forward "
                "leaves some parameters unused")
        self._launch()
        n = self.comm.size
        for b in self.buckets:
            self.comm.wait(b.req, f"DataParallel's all-reduce of gradient bucket {b.index}")
            b.buf /= n
            for j, i in enumerate(b.params):
                p = self.params[i]
                val = b.buf[b.offsets[j]:b.offsets[j + 1]].reshape(p._data.shape)
                p._grad = wrap(val.copy())     # never into the old array: it may be shared
