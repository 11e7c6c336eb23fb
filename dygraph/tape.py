"""Backward over the recorded grad nodes, in decreasing record stamp.

Every grad node is stamped when it is recorded (``engine.STAMP``); its
producers were recorded before it, so decreasing stamp is a topological order
that needs no pass over the graph.  The walk starts from the roots' nodes and
queues a node when a gradient first reaches it (a heap keyed by -stamp; in a
chain the next node runs directly): when a node is taken, every node newer
than it has run, so its output gradients are complete (summed where a tensor
was used several times).  Running a node runs its grad ops' kernels (the same
grad ops the static backward emits) and delivers the input gradients: into
leaves' sums for this walk (written to ``.grad`` at the end) or into the
producing node's pending gradients.  The common node (one output, one grad
op) runs a backward compiled for its op (``grad_fast.py``).

With ``create_graph=True`` the grad ops run through the eager dispatch on
Tensors, so the gradients are themselves differentiable.  The order is
deterministic and needs no recursion.
"""
from __future__ import annotations

import contextlib
import functools
from heapq import heapify, heappop, heappush

import numpy as np

from ..ops import OpError
from ..ops.errors import BackwardTwiceError
from ..kernels.transform import transform_inputs
from .engine import (set_recording, recording, position, grad_steps, run_op, differentiable_outputs,
                     _kernel_for, _wrap_error)
from .tensor import Tensor, is_cleared
from .tensor import wrap
from .grad_fast import node_backward
from ..ops import get_op, set_grad_query, is_graph_value, graph_grad


# --------------------------------------------------------------- grad mode
set_grad_query(recording)

class no_grad(contextlib.ContextDecorator):
    """Context manager and decorator: ops record no grad nodes inside."""

    def __enter__(self):
        self._prev = set_recording(False)
        return self

    def __exit__(self, *exc):
        set_recording(self._prev)
        return False

    def __call__(self, fn=None):
        if fn is None:   # paddle.no_grad() used as a decorator factory
            return self
        mode = type(self)       # enable_grad()(fn) must enable, not disable

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with mode():
                return fn(*a, **k)
        return wrapper


class enable_grad(no_grad):
    def __enter__(self):
        self._prev = set_recording(True)
        return self


class set_grad_enabled:
    def __init__(self, mode):
        self._prev = set_recording(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        set_recording(self._prev)
        return False


def is_grad_enabled():
    return recording()


# --------------------------------------------------------------- the walk
# Nodes run in decreasing stamp order (engine.STAMP, given at record time): a
# node's producers are older than it, so once every node newer than it has run,
# all of its output gradients have arrived.  Only nodes some gradient reaches
# are queued (a heap keyed by -stamp; a chain takes the next node directly).


class _ArrayMath:
    """Gradient values as raw arrays (the usual, fast backward)."""
    create_graph = False

    @staticmethod
    def add(a, b):
        return a + b

    @staticmethod
    def zeros_like(a):
        return np.zeros_like(a) if isinstance(a, np.ndarray) else a * 0

    @staticmethod
    def run_step(node, step, ins, need):
        op = step.opdef
        attrs = node.attrs if step.attrs_fn is None else op.complete_attrs(step.attrs_fn(node.attrs))
        d = ins[op.dtype_index] if op.dtype_index is not None else None
        entry = op.eager_cache.get(d.dtype) if type(d) is np.ndarray else None
        fn, moved, backend, _ = entry or _kernel_for(op, ins, attrs)
        if moved:
            ins = transform_inputs(ins, backend)
        try:
            return fn(ins, attrs, need)
        except Exception as e:
            raise _wrap_error(op, ins, attrs, e) from e

    @staticmethod
    def fwd_value(node, kind, i):
        return node.arrays[i] if kind == 0 else node.outs[i]

    @staticmethod
    def to_user(a):
        return wrap(a)

    @staticmethod
    def from_user(t):
        return t._data


class _TensorMath:
    """Gradient values as Tensors recorded on the tape (create_graph=True)."""
    create_graph = True

    @staticmethod
    def add(a, b):
        return run_op(get_op("elementwise_add"), (a, b))[0]

    @staticmethod
    def zeros_like(a):
        return wrap(np.zeros_like(a._data))

    @staticmethod
    def run_step(node, step, ins, need):
        attrs = node.attrs if step.attrs_fn is None else step.attrs_fn(node.attrs)
        return run_op(step.opdef, ins, step.own_attrs(attrs))

    @staticmethod
    def fwd_value(node, kind, i):
        if kind == 0:
            return node.ins[i]
        return wrap(node.outs[i], False, node, i)

    @staticmethod
    def to_user(t):
        return t

    @staticmethod
    def from_user(t):
        return t


def _run_hooks(hooks, g, m):
    for h in list(hooks):
        r = h(m.to_user(g))
        if r is not None:
            g = m.from_user(r)
    return g


def _accumulate_leaf(t, g, m):
    if t._hooks:
        g = _run_hooks(t._hooks, g, m)
    if m.create_graph:
        t._grad = g if t._grad is None or is_cleared(t._grad) else m.add(t._grad, g)
    elif t._grad is None or is_cleared(t._grad):
        # a leaf that does not stop gradients, as Paddle's: ops on it record
        t._grad = wrap(g if g.shape == t._data.shape else np.broadcast_to(g, t._data.shape).copy(),
                       False)
    else:
        t._grad = wrap(t._grad._data + g, False)


def run_backward(roots, root_grads, retain_graph=False, create_graph=False, capture=None):
    """Core walk.  ``capture`` (for ``sampan.grad``): {id(tensor) or (id(node),slot):
    key} whose gradients are returned instead of written to leaves; when given,
    no leaf's ``.grad`` is touched."""
    m = _TensorMath if create_graph else _ArrayMath
    results = {}
    pending = {}
    leaves = {}
    heap = []
    for t, g in zip(roots, root_grads):
        if t.stop_gradient:     # nothing flows from it (Paddle: no error, no gradient)
            continue
        if g is None:
            g = np.ones_like(t._data)
            g = wrap(g) if create_graph else g
        else:
            g = g if create_graph else (g._data if isinstance(g, Tensor) else np.asarray(g))
        node = t._node
        if node is None:
            _deliver_leaf(t, g, m, leaves)
            continue
        slots = pending.get(node)
        if slots is None:
            slots = pending[node] = [None] * node.op.n_outputs
            heap.append((-node.epoch, node))
        _add_slot(slots, t._slot, g, m, node)
    hook = WALK_HOOK[0] if capture is None else None
    if not heap:
        _flush_leaves(leaves, m, capture, results)
        if hook is not None:
            hook(None, leaves)
        return results
    heapify(heap)
    prev = set_recording(create_graph)
    try:
        if create_graph or capture is not None or not _FAST[0]:
            _walk(heap, pending, m, capture, results, leaves, retain_graph, hook)
        else:
            _walk_arrays(heap, pending, leaves, retain_graph, hook)
        _flush_leaves(leaves, m, capture, results)
    finally:
        set_recording(prev)
    if hook is not None:
        hook(None, leaves)
    return results


# Gradient readiness (DataParallel's bucketed all-reduce, distributed/reducer.py):
# when set, ``fn(node, leaves)`` runs after each node of a backward that writes
# leaves' ``.grad`` (``leaves``: {id(leaf): [leaf, its gradient so far]}), and
# ``fn(None, leaves)`` once those ``.grad`` are written.  None: nothing is called.
WALK_HOOK = [None]


# the compiled per-op backward of common nodes (grad_fast.py); off, every grad
# op runs through ``_ArrayMath.run_step`` (which FLAGS_check_nan_inf wraps)
_FAST = [True]


def set_fast_backward(flag):
    """Use the compiled node backward (the default) or not; returns the previous setting."""
    prev = _FAST[0]
    _FAST[0] = bool(flag)
    return prev


def _freed(node):
    return BackwardTwiceError(
        f"trying to run backward through the graph a second time (node of op "
        f"'{node.op.type}' was freed); pass retain_graph=True to the first backward")


def _walk(heap, pending, m, capture, results, leaves, retain_graph, hook=None):
    """The general walk (create_graph, or ``sampan.grad``'s capture)."""
    while heap:
        node = heappop(heap)[1]
        gouts = pending.pop(node)
        if node.outs is None:
            raise _freed(node)
        _run_node(node, gouts, m, pending, heap, capture, results, leaves)
        if not retain_graph:
            node.arrays = node.outs = None
        if hook is not None:
            hook(node, leaves)


def _walk_arrays(heap, pending, leaves, retain_graph, hook=None):
    """The usual walk: gradients as arrays, into leaves' ``.grad``.  Nodes of
    ``fast_bw`` ops without hooks run their compiled backward (grad_fast.py)
    and deliver inline; when a node reaches exactly one new node, of one plain
    output, and none is waiting (a chain), it hands that node and its gradient
    back, and the node runs next without the heap or ``pending``."""
    node = heappop(heap)[1]
    gouts = pending.pop(node)
    g = None
    while True:
        if node.outs is None:
            raise _freed(node)
        op = node.op
        try:
            bw = op._node_bw
        except AttributeError:
            bw = node_backward(op)
        if bw is not None and node.hooks is None:
            nxt = bw(node, g if gouts is None else gouts[0], pending, heap, leaves)
        else:
            nxt = None
            _run_node(node, [g] if gouts is None else gouts, _ArrayMath, pending, heap,
                      None, None, leaves)
        if not retain_graph:
            node.arrays = node.outs = None
        if hook is not None:
            hook(node, leaves)
        if nxt is not None:
            node, g = nxt
            gouts = None
        elif heap:
            node = heappop(heap)[1]
            gouts = pending.pop(node)
        else:
            return


def _add_slot(slots, s, g, m, node):
    """Sum ``g`` into a node's pending output gradients; ``s`` is a slot index,
    or ``(slot, k)`` for element k of a duplicable output (split's Out*)."""
    if type(s) is tuple:
        s, k = s
        lst = slots[s]
        if lst is None:
            lst = slots[s] = [None] * len(node.outs[s])
        lst[k] = g if lst[k] is None else m.add(lst[k], g)
    else:
        slots[s] = g if slots[s] is None else m.add(slots[s], g)


def _deliver_leaf(t, g, m, leaves):
    """Sum a leaf's incoming gradients for this backward; they are written (hooks
    first, once, on the sum) by ``_flush_leaves`` when the walk ends."""
    entry = leaves.get(id(t))
    if entry is None:
        leaves[id(t)] = [t, g]
    else:
        entry[1] = m.add(entry[1], g)


def _flush_leaves(leaves, m, capture, results):
    for t, g in leaves.values():
        if capture is not None:
            key = capture.get(id(t))
            if key is not None:
                results[key] = g
        else:
            _accumulate_leaf(t, g, m)


def _run_node(node, gouts, m, pending, heap, capture, results, leaves):
    op = node.op
    if gouts is not None and node.hooks:
        for s, hooks in node.hooks.items():
            lst, s = (gouts[s[0]], s[1]) if type(s) is tuple else (gouts, s)
            if lst is not None and lst[s] is not None:
                lst[s] = _run_hooks(hooks, lst[s], m)
    if capture is not None and gouts is not None:
        for s, g in enumerate(gouts):
            for sk, gk in (enumerate(g) if type(g) is list else ((None, g),)):
                key = capture.get((id(node), s if sk is None else (s, sk)))
                if key is not None and gk is not None:
                    results[key] = gk
    in_grads = None
    if gouts is not None and (gouts[0] is not None if len(gouts) == 1
                              else any(g is not None for g in gouts)):
        if op.grad is None:
            raise OpError(f"op '{op.type}' has no gradient rule: higher-order gradients "
                          f"through '{op.type}' are not supported")
        py = getattr(op, "py_backward", None)      # a Python backward (py_node.py)
        in_grads = _compute_input_grads(node, gouts, m) if py is None else \
            py(node, gouts, m, _wanted(node, capture))
    if in_grads is None:
        return
    # deliver: a producer reached for the first time is queued
    for i, t in enumerate(node.ins):
        gi = in_grads[i]
        if t is None or gi is None:
            continue
        for k, x in enumerate(t) if type(t) is list else ((-1, t),):
            if x._history is None:
                p, sl, sg = x._node, x._slot, x.stop_gradient
            else:
                p, sl, sg = position(x, node)
            if sg:
                continue
            g = gi if k < 0 else gi[k]
            if g is None:
                continue
            if p is None:
                _deliver_leaf(x, g, m, leaves)
                continue
            slots = pending.get(p)
            if slots is None:
                slots = pending[p] = [None] * p.op.n_outputs
                heappush(heap, (-p.epoch, p))
            if type(sl) is int:
                slots[sl] = g if slots[sl] is None else m.add(slots[sl], g)
            else:
                _add_slot(slots, sl, g, m, p)


def _wanted(node, capture):
    """Per input of ``node``: whether this walk uses its gradient (a leaf's is
    dropped by ``sampan.grad`` unless it is one of the requested inputs)."""
    out = []
    for t in node.ins:
        items = t if type(t) is list else (t,)
        out.append(any(x is not None and not x.stop_gradient and
                       (capture is None or x._node is not None or id(x) in capture)
                       for x in items))
    return out


def _needs(ins):
    need_in = []
    for t in ins:
        if t is None:
            need_in.append(False)
        elif type(t) is list:
            need_in.append(any(not x.stop_gradient for x in t))
        else:
            need_in.append(not t.stop_gradient)
    return need_in


def _compute_input_grads(node, gouts, m):
    op = node.op
    if op.n_outputs > 1 or op.list_outputs:
        for s in differentiable_outputs(op):
            o = node.outs[s]
            if type(o) is list:        # zeros for the elements no gradient reached
                gs = gouts[s] or [None] * len(o)
                gouts[s] = [m.zeros_like(wrap(a) if m.create_graph else a)
                            if g is None else g for g, a in zip(gs, o)]
            elif gouts[s] is None and o is not None:
                gouts[s] = m.zeros_like(m.fwd_value(node, 1, s))
    need_in = _needs(node.ins)
    in_grads = [None] * len(need_in)
    if node.outs is None:
        raise RuntimeError("trying to run backward through the graph a second time; "
                           "pass retain_graph=True to the first backward")
    arrays, outs = node.arrays, node.outs
    for step in grad_steps(op, node.attrs):
        need = tuple([d is not None and need_in[d] for d in step.dsts])
        if True not in need:
            continue
        if m.create_graph:
            ins = [None if src is None else gouts[src[1]] if src[0] == 2
                   else m.fwd_value(node, src[0], src[1]) for src in step.srcs]
        else:
            ins = [None if src is None else gouts[src[1]] if src[0] == 2
                   else arrays[src[1]] if src[0] == 0 else outs[src[1]] for src in step.srcs]
        res = m.run_step(node, step, ins, need)
        for d, o, n in zip(step.dsts, res, need):
            if o is None or not n:
                continue
            prev = in_grads[d]
            if prev is None:
                in_grads[d] = o
            elif type(o) is list:
                in_grads[d] = [b if a is None else a if b is None else m.add(a, b)
                               for a, b in zip(prev, o)]
            else:
                in_grads[d] = m.add(prev, o)
    return in_grads


# --------------------------------------------------------------- public API
def backward(tensors, grad_tensors=None, retain_graph=False):
    """``paddle.autograd.backward``: accumulate d(sum tensors)/d(leaf) into leaves."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    elif isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors]
    if len(grad_tensors) != len(tensors):
        raise ValueError(f"backward got {len(tensors)} tensors but {len(grad_tensors)} "
                         "grad_tensors")
    for t, g in zip(tensors, grad_tensors):
        if g is not None and list(np.shape(g._data if isinstance(g, Tensor) else g)) != t.shape:
            raise ValueError(f"grad_tensor shape {list(np.shape(g))} does not match tensor "
                             f"shape {t.shape}")
    run_backward(tensors, grad_tensors, retain_graph)


def _graph_value(xs):
    if isinstance(xs, (list, tuple)):
        return any(is_graph_value(x) for x in xs)
    return is_graph_value(xs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """``paddle.grad``: gradients of ``outputs`` w.r.t. ``inputs``, returned, not
    accumulated.  ``create_graph=True`` makes them differentiable.  Given static
    Variables (user code inside a to_static function), the backward is
    appended to their program instead (``ops.graph_grad``).  The graph is
    kept whatever ``retain_graph`` says, as Paddle 2.6.2 keeps it: a second
    ``paddle.grad`` or a ``backward()`` through it runs (Paddle's documentation
    says it is freed when retain_graph is False; its eager engine does not)."""
    if _graph_value(outputs) or _graph_value(inputs):
        return graph_grad(outputs, inputs, grad_outputs, create_graph, allow_unused,
                          no_grad_vars)
    single = isinstance(inputs, Tensor)
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    inputs = [inputs] if single else list(inputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    capture = {}
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"inputs[{i}] must be a Tensor, got {type(t).__name__}")
        capture[id(t) if t._node is None else (id(t._node), t._slot)] = i
    no_grad_saved = []
    for v in (no_grad_vars or []):
        no_grad_saved.append((v, v.stop_gradient))
        v.stop_gradient = True
    try:
        res = run_backward(outputs, grad_outputs, True, create_graph, capture)
    finally:
        for v, sg in no_grad_saved:
            v.stop_gradient = sg
    out = []
    for i, t in enumerate(inputs):
        g = res.get(i)
        if g is None:
            if not allow_unused:
                raise ValueError(f"inputs[{i}] ({t.name}) is not reachable from the "
                                   "outputs; pass allow_unused=True to get None for it")
            out.append(None)
        elif isinstance(g, Tensor):
            out.append(g)
        else:
            out.append(wrap(g if g.shape == t._data.shape else
                            np.broadcast_to(g, t._data.shape).copy()))
    return out
