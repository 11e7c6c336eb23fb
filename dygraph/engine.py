"""Eager execution of one op: the handler ``bind`` calls in dynamic mode.

Hot path.  Per call: gather input arrays, pick the kernel from a per-op cache
keyed by the deciding input's dtype, run it, wrap outputs, and, when grad mode
is on and an input needs a gradient, record one ``GradNode``.  Everything that
can be computed once per op (grad plans, differentiable outputs, attribute
defaults) is cached on the OpDef.
"""
from __future__ import annotations

import itertools
import threading

import numpy as np

from ..ops import (OpError, kind_of, set_mode_handler, set_constant_handler, is_graph_value,
                   bind_in_graph)
from ..ops.grad_rules import GradStep, grad_steps, differentiable_outputs  # noqa: F401
from ..ops.dtypes import to_np_dtype
from ..kernels.registry import KernelKey, select_kernel, CPU, ANY
from ..kernels.transform import backend_of, transform_inputs
from .tensor import Tensor
from .tensor import wrap
from ..ops.registry import Meta
from ..ops.mode import BIND as _BIND

_ndarray = np.ndarray
class _GradMode(threading.local):
    """Whether ops record grad nodes: per thread, as Paddle's tracer (one
    thread's ``no_grad`` does not stop another's recording); on in a new thread."""

    def __init__(self):
        self.enabled = True


GRAD = _GradMode()
# the hot path reads RECORDING[0] first: True while no thread has recording off
RECORDING = [True]
_off = [0]
_off_lock = threading.Lock()


def set_recording(flag):
    """Turn this thread's recording on or off; returns what it was."""
    prev = GRAD.enabled
    flag = bool(flag)
    if flag != prev:
        with _off_lock:
            _off[0] += -1 if flag else 1
            GRAD.enabled = flag
            RECORDING[0] = _off[0] == 0
    return prev


def recording():
    """Whether ops record grad nodes in this thread."""
    return RECORDING[0] or GRAD.enabled


# --------------------------------------------------------------- grad nodes
# One counter stamps every grad node when it is recorded and every in-place
# write when it happens (``STAMP``).  A node's inputs exist before it, so its
# producers have smaller stamps: the backward runs nodes in decreasing stamp
# order (a topological order known at record time, no dependency count).
# In-place writes move a tensor to a new autograd position (its write's node);
# ops recorded before the write read the old one: a written tensor keeps its
# earlier positions (``Tensor._history``: (stamp of the write, node, slot,
# stop_gradient)), and a consumer stamped before a write read what it replaced.
STAMP = itertools.count(1).__next__


def rebound(x, node, slot, stop_gradient):
    """Record that ``x`` leaves its autograd position for (node, slot)."""
    entry = (STAMP(), x._node, x._slot, x.stop_gradient)
    x._history = (x._history or ()) + (entry,)
    x._node, x._slot, x.stop_gradient = node, slot, stop_gradient


def position(x, consumer):
    """``(node, slot, stop_gradient)`` of input ``x`` as ``consumer`` read it."""
    for stamp, node, slot, sg in x._history:
        if consumer.epoch < stamp:
            return node, slot, sg
    return x._node, x._slot, x.stop_gradient


class GradNode:
    """What the backward of one op call needs: the op, its attrs, the input
    tensors (edges to producers/leaves), and the forward arrays.  ``epoch``:
    its stamp (``STAMP``), unique and larger than its producers'.  A backward
    without retain_graph releases the node: ``outs`` (and ``arrays``) become None."""
    __slots__ = ("op", "attrs", "ins", "arrays", "outs", "hooks", "epoch")

    def __init__(self, op, attrs, ins, arrays, outs):
        self.op = op
        self.attrs = attrs
        self.ins = ins
        self.arrays = arrays
        self.outs = outs
        self.hooks = None
        self.epoch = STAMP()

    def output_hooks(self, slot):
        if self.hooks is None:
            self.hooks = {}
        return self.hooks.setdefault(slot, [])

    def name(self):
        return f"{self.op.type}_grad_node"

    def __repr__(self):
        return f"<GradNode {self.op.type}>"


# --------------------------------------------------------------- kernels
def _kernel_for(op, arrays, attrs):
    """Cached kernel for the dtype/backend of the op's deciding input."""
    di = op.dtype_index
    a = arrays[di] if di is not None and di < len(arrays) else None
    if type(a) is list:
        a = a[0] if a else None
    if a is None:
        dt = attrs.get("dtype")
        dt = np.dtype("float32") if dt is None or dt == -1 else to_np_dtype(dt)
        backend = CPU
    else:
        dt = a.dtype
        backend = CPU if type(a) is _ndarray else backend_of(a)
    cache_key = dt if backend is CPU else (backend, dt)
    entry = op.eager_cache.get(cache_key)
    if entry is None:
        fn, used = select_kernel(op, KernelKey(backend, ANY, dt.name))
        fast_form = getattr(fn, "fast", None)
        fast = fast_form(op.default_attrs) if fast_form is not None and \
            not op.required_attrs else None
        entry = op.eager_cache[cache_key] = (fn, used.backend != backend, used.backend, fast)
    return entry


def _wrap_error(op, arrays, attrs, exc):
    shapes = []
    for slot, a in zip(op.inputs, arrays):
        if a is None:
            continue
        if isinstance(a, list):
            shapes.append(f"{slot.name}=[{', '.join(f'{list(x.shape)}:{x.dtype}' for x in a)}]")
        else:
            shapes.append(f"{slot.name}={list(a.shape)}:{a.dtype}")
    if op.infer_meta is not None:
        metas = [None if a is None else
                 [Meta(x.shape, x.dtype) for x in a] if isinstance(a, list)
                 else Meta(a.shape, a.dtype) for a in arrays]
        try:
            op.infer_meta(tuple(metas), attrs)
        except OpError as e:
            return OpError(f"op '{op.type}': {e} (inputs {', '.join(shapes)})",
                           kind=kind_of(e))
        except Exception:
            pass
    msg = str(exc)
    if isinstance(exc, OpError) and msg.startswith(f"op '{op.type}'"):
        return exc
    return OpError(f"op '{op.type}' failed on inputs {', '.join(shapes)}: "
                   f"{type(exc).__name__}: {msg}", kind=kind_of(exc))


def _not_tensor(op, ins, attrs):
    """An input is not an eager Tensor: a static Variable sends the call to the
    static handler; anything else is a clear error."""
    for slot, t in zip(op.inputs, ins):
        items = t if isinstance(t, (list, tuple)) else [t]
        for x in items:
            if x is None or isinstance(x, Tensor):
                continue
            if is_graph_value(x):       # a Variable captured by eager code
                return bind_in_graph(op, ins, attrs)
            raise OpError(f"op '{op.type}': input {slot.name} must be a Tensor, "
                          f"got {type(x).__name__}")
    raise OpError(f"op '{op.type}': malformed inputs")


# --------------------------------------------------------------- the handler
def run_op(op, ins, attrs=None):
    """Run ``op`` eagerly on Tensors ``ins`` (one entry per input slot).

    Ops with one or two plain inputs (most calls) take an unrolled path; every
    other op, absent inputs, non-Tensor inputs and backend fallbacks go
    through ``_run_general``.  Both end in ``_finish``'s semantics."""
    if attrs is None:
        attrs = op.default_attrs
        default = True
    else:
        attrs = op.complete_attrs(attrs)
        default = False
    n, di, check, cache, records, n_out = op.fast
    try:
        if n == 2:
            x, y = ins
            a = x._data
            if y is None:           # an absent dispensable input (scale's ScaleTensor)
                if di:
                    return _run_general(op, ins, attrs)
                req = not x.stop_gradient
                entry = cache.get(a.dtype) if type(a) is _ndarray else None
                if entry is None or entry[1]:
                    return _run_general(op, ins, attrs)
                fast = entry[3] if default else None
                arrays = (a, None)
                outs = (fast(a, None),) if fast is not None else entry[0](arrays, attrs, None)
            else:
                b = y._data
                req = not (x.stop_gradient and y.stop_gradient)
                d = b if di else a
                if check and a.dtype is not b.dtype:
                    return _run_general(op, ins, attrs)
                entry = cache.get(d.dtype) if type(d) is _ndarray else None
                if entry is None or entry[1]:
                    return _run_general(op, ins, attrs)
                fast = entry[3] if default else None
                arrays = (a, b)
                # the kernel's own fast form for default attrs (kernels/registry.py)
                outs = (fast(a, b),) if fast is not None else entry[0](arrays, attrs, None)
        elif n == 1:
            x, = ins
            d = x._data
            req = not x.stop_gradient
            entry = cache.get(d.dtype) if type(d) is _ndarray else None
            if entry is None or entry[1]:
                return _run_general(op, ins, attrs)
            fast = entry[3] if default else None
            arrays = (d,)
            outs = (fast(d),) if fast is not None else \
                entry[0](arrays, attrs, None if req else op.need_unrecorded)
        else:
            return _run_general(op, ins, attrs)
    except AttributeError:          # an absent input, or not a Tensor
        return _run_general(op, ins, attrs)
    except OpError:
        raise
    except Exception as e:
        raise _wrap_error(op, [getattr(t, "_data", None) for t in ins], attrs, e) from e
    if fast is not None and type(outs[0]) is not _ndarray:   # a 0-d result
        outs = (np.asarray(outs[0]),)
    if req and records and (RECORDING[0] or GRAD.enabled):
        node = GradNode(op, attrs, ins, arrays, outs)
        if n_out == 1:
            return (wrap(outs[0], False, node, 0),)
        return _wrap_outputs(op, outs, node)
    if n_out == 1:
        return (wrap(outs[0]),)
    return tuple([None if o is None else wrap(o) for o in outs])


def _wrap_outputs(op, outs, node):
    diff = differentiable_outputs(op) if op.grad is not None else op.all_outputs
    if op.list_outputs:
        return tuple(_wrap_list(o, node if i in diff else None, i) for i, o in enumerate(outs))
    return tuple(None if o is None else
                 wrap(o, False, node, i) if i in diff else wrap(o)
                 for i, o in enumerate(outs))


def _wrap_list(o, node, i):
    """An output of an op with duplicable outputs: element k of list slot i is
    recorded as output ``(i, k)`` of the node."""
    if o is None:
        return None
    if type(o) is not list:
        return wrap(o) if node is None else wrap(o, False, node, i)
    if node is None:
        return [wrap(x) for x in o]
    return [wrap(x, False, node, (i, k)) for k, x in enumerate(o)]


def _run_general(op, ins, attrs):
    arrays = []
    req = False
    try:
        for t in ins:
            if t is None:
                arrays.append(None)
            elif type(t) is list:
                arrays.append([x._data for x in t])
                for x in t:
                    if not x.stop_gradient:
                        req = True
            else:
                arrays.append(t._data)
                if not t.stop_gradient:
                    req = True
    except AttributeError:
        return _not_tensor(op, ins, attrs)
    for i, j in op.same_dtype_pairs:     # before the kernel: the error Paddle gives
        a, b = arrays[i], arrays[j]
        if a is not None and b is not None and type(a) is not list and type(b) is not list \
                and a.dtype != b.dtype:
            raise op.dtype_mismatch(i, j, a.dtype, b.dtype)
    return _finish(op, ins, arrays, attrs, _kernel_for(op, arrays, attrs), req)


def _finish(op, ins, arrays, attrs, entry, req):
    fn, moved, backend, _ = entry
    if moved:
        arrays = transform_inputs(arrays, backend)
    record = req and (RECORDING[0] or GRAD.enabled) and op.records_grad
    try:
        outs = fn(arrays, attrs, None if record else op.need_unrecorded)
    except Exception as e:
        raise _wrap_error(op, arrays, attrs, e) from e
    if record:
        node = GradNode(op, attrs, ins, arrays, outs)
        if op.n_outputs == 1 and not op.list_outputs:
            return (wrap(outs[0], False, node, 0),)
        return _wrap_outputs(op, outs, node)
    if op.list_outputs:
        return tuple(_wrap_list(o, None, i) for i, o in enumerate(outs))
    if op.n_outputs == 1:
        return (wrap(outs[0]),)
    return tuple([None if o is None else wrap(o) for o in outs])


def unrecorded_array(x):
    """The numpy array of eager tensor ``x`` when an op on it alone would run
    plainly and record nothing (eager mode with no handler wrapping ``run_op``:
    no AMP, no nan/inf check; x on the CPU; no gradient to record), else None.
    Functions whose result is a numpy view of that array (reshape, transpose,
    basic indexing) compute it directly then: the op's value, without the op."""
    a = getattr(x, "_data", None)
    if type(a) is not _ndarray or _BIND[0] is not run_op or \
            not (x.stop_gradient or not (RECORDING[0] or GRAD.enabled)):
        return None
    return a


set_mode_handler("eager", run_op)
set_constant_handler("eager", lambda array, stop_gradient, dtype: wrap(
    array if dtype is None else array.astype(dtype, copy=False), stop_gradient))
