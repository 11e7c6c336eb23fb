"""``sampan.jit.explain(fn, *args, **kwargs)``: what to_static does with a call.

In the spirit of ``torch._dynamo.explain`` (Paddle has no such report).  The
call runs through the function's StaticFunction (so its cache is filled as a
normal call would), then the report tells, for this call's key:

- a single program (no break): its op count, and how many programs the
  function has traced;
- a graph break (jit/graph_break.py): the line and reason the trace stopped
  at, and every value read of the call, found by running the function once
  more as eager code with the value reads of tensors watched: the graphs are
  the runs of ops between reads (their op counts and op types), each break
  is a read (user's line, source text, reason), and each guard is the Python
  value it produced (what later Python code, a branch or a trip count, was
  decided by).  It also says how such a key runs (as eager code) and how
  many times it was traced and called.

The analysis run executes the function a second time (its Python side
effects happen twice); the report's ``result`` is the normal call's.
"""
import sys
import threading

import numpy as np

from ..dygraph.tensor import Tensor
from ..nn.layer.layers import Layer
from ..ops import mode as _mode
from ..program.location import internal, user_location
from .graph_break import describe, source_line
from .static_function import StaticFunction, _with_amp

__all__ = ["explain", "ExplainOutput"]

# the Tensor methods that hand a value to Python, and the reason each names
_READS = {"numpy": ".numpy()", "item": ".item()", "tolist": ".tolist()",
          "__float__": "float()", "__int__": "int()", "__bool__": "bool()",
          "__index__": "an index (operator.index)",
          "__array__": "a numpy conversion (np.asarray / a numpy function)"}
_LOCK = threading.Lock()


class ExplainOutput:
    """The report: ``graphs`` (list of dicts: ``ops``, ``op_types``),
    ``breaks`` (dicts: ``file``, ``line``, ``code``, ``reason``), ``guards``
    (strings), ``traced`` (programs traced for the function), ``mode``
    ("one program" or "graph break: eager"), ``result``."""

    def __init__(self, name, mode, graphs, breaks, guards, traced, calls, result):
        self.name, self.mode = name, mode
        self.graphs, self.breaks, self.guards = graphs, breaks, guards
        self.traced, self.calls, self.result = traced, calls, result

    @property
    def graph_count(self):
        return len(self.graphs)

    @property
    def graph_break_count(self):
        return len(self.breaks)

    def __str__(self):
        lines = [f"to_static explain: '{self.name}'",
                 f"  this call: {self.mode}",
                 f"  graphs: {self.graph_count}, graph breaks: {self.graph_break_count}, "
                 f"programs traced for the function: {self.traced}"]
        for k, g in enumerate(self.graphs):
            kinds = ", ".join(g["op_types"][:8]) + (" ..." if len(g["op_types"]) > 8 else "")
            lines.append(f"  graph {k}: {g['ops']} op(s) [{kinds}]")
            if k < len(self.breaks):
                b = self.breaks[k]
                lines.append(f"  break {k}: {b['file']}:{b['line']}: `{b['code']}` -- "
                             f"{b['reason']}")
        if self.guards:
            lines.append("  guards (Python values read from tensors):")
            lines += [f"    {g}" for g in self.guards]
        if self.calls is not None:
            lines.append(f"  calls of this key so far: {self.calls} (each runs the "
                         f"function as eager code; traced once, stopped at the first "
                         f"break)")
        return "\n".join(lines)

    __repr__ = __str__


def explain(fn, *args, **kwargs):
    """The graphs, graph breaks and guards of calling ``fn(*args, **kwargs)``
    under to_static (``fn``: a function, a StaticFunction or a Layer)."""
    sf = _static_function(fn)
    result = sf(*args, **kwargs)
    sig = sf._signature
    a, kw = sig.positional(args, kwargs) if (kwargs or len(args) < sig.n_positional) \
        else (args, kwargs)
    key, _ = sig.flatten(a, kw)
    key = _with_amp(key)
    name = getattr(sf, "__name__", "function")
    traced = len(sf._program_cache)
    entry = sf._entries.get(key)
    if entry is not None:
        ops = entry.concrete_program.main_program.global_block().ops
        graph = {"ops": len(ops), "op_types": [op.type for op in ops]}
        return ExplainOutput(name, "one program (no graph break)", [graph], [], [], traced,
                             None, result)
    brk = sf._broken.get(key)
    if brk is None:
        raise RuntimeError(f"explain: the call of '{name}' left no program and no graph "
                           f"break in its cache")
    graphs, breaks, guards = _analyse(sf.dygraph_function, a, kw)
    first = describe(brk.request)
    return ExplainOutput(name, f"graph break (first at {first}); runs as eager code",
                         graphs, breaks, guards, traced + len(sf._broken), brk.calls,
                         result)


def _static_function(fn):
    if isinstance(fn, StaticFunction):
        return fn
    if isinstance(fn, Layer):
        fwd = fn.forward
        return fwd if isinstance(fwd, StaticFunction) else StaticFunction(fwd)
    if callable(fn):
        return StaticFunction(fn)
    raise TypeError(f"explain needs a function, a StaticFunction or a Layer, got "
                    f"{type(fn).__name__}")


# ----------------------------------------------------------------- the analysis run
def _analyse(function, args, kwargs):
    """Run ``function`` eagerly, watching value reads and counting ops."""
    segments = [[]]
    breaks, guards = [], []
    state = threading.local()
    me = threading.get_ident()
    saved = {n: Tensor.__dict__[n] for n in _READS if n in Tensor.__dict__}

    def watch(name, method):
        def read(self, *a, **k):
            if threading.get_ident() != me or getattr(state, "depth", 0):
                return method(self, *a, **k)
            caller = sys._getframe(1).f_code.co_filename
            state.depth = 1
            try:
                value = method(self, *a, **k)
            finally:
                state.depth = 0
            if internal(caller):
                return value
            loc = user_location()
            breaks.append({"file": loc.filename if loc else "?",
                           "line": loc.lineno if loc else 0,
                           "code": source_line(loc), "reason": _READS[name]})
            guards.append(f"line {loc.lineno if loc else '?'}: {_READS[name]} -> "
                          f"{_summary(value)}")
            segments.append([])
            return value
        return read

    prev = _mode._handlers["eager"]

    def counting(op, inputs, attrs):
        if threading.get_ident() == me and not getattr(state, "depth", 0):
            segments[-1].append(op.type)
        return prev(op, inputs, attrs)

    with _LOCK:
        for n, m in saved.items():
            setattr(Tensor, n, watch(n, m))
        _mode.set_mode_handler("eager", counting)
        try:
            function(*args, **kwargs)
        finally:
            _mode.set_mode_handler("eager", prev)
            for n, m in saved.items():
                setattr(Tensor, n, m)
    graphs = [{"ops": len(s), "op_types": s} for s in segments]
    return graphs, breaks, guards


def _summary(value):
    if isinstance(value, np.ndarray):
        return f"array shape {list(value.shape)} {value.dtype}" if value.size > 4 else \
            f"array {value.tolist()!r}"
    if isinstance(value, list):
        return f"list of {len(value)}"
    return repr(value)
