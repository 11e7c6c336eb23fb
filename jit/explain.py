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
  decided by).  It also lists the compiled segments the function was split
  into (jit/segments.py): each one's first line, how many times it was
  traced (one program per signature and guard values), the guard values of
  each program (its Python inputs), and whether it now runs as eager code
  (past its limit of programs).

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
from .convert_runtime import UndefinedVar
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

    def __init__(self, name, mode, graphs, breaks, guards, traced, calls, result,
                 segments=()):
        self.name, self.mode = name, mode
        self.graphs, self.breaks, self.guards = graphs, breaks, guards
        self.traced, self.calls, self.result = traced, calls, result
        self.segments = list(segments)

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
            if g.get("signature"):          # inputs -> outputs, symbolic dims as B, B*8
                lines.append(f"  graph {k} shapes: {g['signature']}")
            if k < len(self.breaks):
                b = self.breaks[k]
                lines.append(f"  break {k}: {b['file']}:{b['line']}: `{b['code']}` -- "
                             f"{b['reason']}")
        if self.guards:
            lines.append("  guards (Python values read from tensors):")
            lines += [f"    {g}" for g in self.guards]
        if self.segments:
            lines.append("  compiled segments (straight runs between breaks; guards are "
                         "their Python inputs):")
            for g in self.segments:
                state = "; now eager (past its program limit)" if g["eager"] else \
                    "; split at a break (its parts follow)" if g["split"] else ""
                lines.append(f"    segment {g['name']} from line {g['line']}: traced "
                             f"{g['traced']} time(s){state}")
                lines += [f"      program {k}: {guard}" for k, guard in
                          enumerate(g["guards"])]
        if self.calls is not None:
            how = "the Python between breaks, and the segments' cached programs" if \
                self.segments else "the function as eager code"
            lines.append(f"  calls of this key so far: {self.calls} (each runs {how}; the "
                         f"whole function was traced once, stopped at the first break)")
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
        graph = {"ops": len(ops), "op_types": [op.type for op in ops],
                 "signature": _signature_text(entry.concrete_program)}
        return ExplainOutput(name, "one program (no graph break)", [graph], [], [], traced,
                             None, result)
    brk = sf._broken.get(key)
    if brk is None:
        raise RuntimeError(f"explain: the call of '{name}' left no program and no graph "
                           f"break in its cache")
    graphs, breaks, guards = _analyse(sf.dygraph_function, a, kw)
    first = describe(brk.request)
    segments = _segments(brk.segmented) if brk.segmented is not None else []
    how = f"runs as {len(segments)} compiled segment(s) and the Python between them" \
        if segments else "runs as eager code"
    return ExplainOutput(name, f"graph break (first at {first}); {how}", graphs, breaks,
                         guards, traced + len(sf._broken), brk.calls, result, segments)


def _segments(seg, prefix=""):
    """One dict per compiled segment of ``seg`` (jit.segments.Segmented),
    nested splits included (``1.0`` is segment 0 of segment 1's split)."""
    out = []
    for k, sf in enumerate(seg.segments):
        names = sf._signature.arg_names
        guards = []
        for key in sf._program_cache.keys():
            vals = [f"{names[i] if i < len(names) else i} == {e.value!r}"
                    for i, e in enumerate(key.args)
                    if hasattr(e, "value") and not _undefined(e.value)]
            guards.append(", ".join(vals) or "no Python inputs")
        out.append({"name": f"{prefix}{k}", "line": sf._segment_of[2],
                    "traced": len(sf._program_cache) + len(sf._broken), "guards": guards,
                    "eager": sf._over_cap is not None, "split": sf._segments is not None})
        if sf._segments is not None:
            out += _segments(sf._segments, f"{prefix}{k}.")
    return out


def _undefined(value):
    return isinstance(value, UndefinedVar)


def _signature_text(concrete):
    ins = ", ".join(f"{v.name}: {v.type_str()}" for v in concrete.inputs)
    outs = ", ".join(f"{v.name}: {v.type_str()}" for v in concrete.outputs)
    return f"({ins}) -> ({outs})"


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
