"""Tracing: run a (converted) function once in static mode to get its Program.

``trace`` builds a ``ConcreteProgram`` for one input signature:
1. a fresh Program (and startup program) under ``building`` (static mode on,
   one thread at a time), a fresh name generator;
2. ``static.data`` for every tensor input, named after its InputSpec or
   parameter (``x``; ``x_0`` ... inside lists), with the signature's shape
   (-1 where the InputSpec has None), dtype and stop_gradient;
3. the function runs with those Variables in place of the tensors; every
   eager tensor it touches (a Layer's parameters and buffers, captured
   constants) becomes a persistable Variable of the same name bound to that
   very tensor (``Program.bind_tensor``), so the program refers to the live
   parameters;
4. the outputs are flattened: static Variables become the program's outputs,
   Python values are kept as constants of the result structure.
"""
import re

import numpy as np

from ..dygraph.tensor import Tensor
from ..program.framework import Program
from ..program.program_guard import building
from ..program.data import data, InputSpec
from .program_cache import spec_covers
from ..utils import unique_name
from ..ops import is_graph_value

__all__ = ["ConcreteProgram", "trace", "flatten_outputs", "rebuild_outputs",
           "parse_source"]


class ConcreteProgram:
    """One traced program: ``main_program``, its feed Variables ``inputs`` (in
    call order), its output Variables ``outputs`` (flat), the result structure,
    and ``parameters`` (the bound eager tensors: parameters and buffers)."""

    def __init__(self, main_program, startup_program, inputs, outputs, template,
                 function, kwargs=None):
        self.main_program = main_program
        self.startup_program = startup_program
        self.inputs = inputs
        self.outputs = outputs
        self.template = template
        self.function = function
        self.kwargs = kwargs or {}
        self.input_stop_gradients = [v.stop_gradient for v in inputs]

    @property
    def parameters(self):
        """Bound tensors of the program (parameters first, then buffers)."""
        bound = list(self.main_program.bound_tensors.values())
        params = [t for t in bound if getattr(t, "trainable", None) is not None]
        return params + [t for t in bound if getattr(t, "trainable", None) is None]

    def __repr__(self):
        ins = ", ".join(f"{v.name}: {v.type_str()}" for v in self.inputs)
        outs = ", ".join(f"{v.name}: {v.type_str()}" for v in self.outputs)
        return f"<ConcreteProgram ({ins}) -> ({outs}), {len(self.main_program.global_block().ops)} ops>"


class _Slot:
    """Placeholder for output k in the result template."""
    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k

    def __repr__(self):
        return f"<output {self.k}>"


# ----------------------------------------------------------------- tracing
def trace(function, instance, args, kwargs, signature):
    """Run ``function`` (``instance`` first when it is a method) in static mode on
    Variables standing for the tensors of ``args``/``kwargs``."""
    program, startup = Program(), Program()
    with building(program, startup), unique_name.guard():
        leaves = _leaf_specs(signature, args, kwargs)
        feeds = [_feed_var(name, value, spec) for name, value, spec in leaves]
        feed_sg = [v.stop_gradient for v in feeds]
        # the function gets views of the feed variables: an in-place op rebinding
        # one (x.reshape_()) leaves the feed itself untouched
        it = iter([v._view() for v in feeds])
        s_args = [_substitute(a, it) for a in args]
        s_kwargs = {k: _substitute(kwargs[k], it) for k in sorted(kwargs)}
        out = function(instance, *s_args, **s_kwargs) if instance is not None \
            else function(*s_args, **s_kwargs)
        outputs = []
        template = flatten_outputs(out, outputs, program)
    concrete = ConcreteProgram(program, startup, feeds, outputs, template, function, kwargs)
    concrete.input_stop_gradients = feed_sg
    return concrete


def _leaf_specs(signature, args, kwargs):
    """(unique name, value, covering InputSpec) per tensor leaf, in feed order."""
    names = signature.leaf_names(args, kwargs)
    specs = []
    _collect_specs(args, signature.specs, specs)
    for k in sorted(kwargs):
        _collect_specs([kwargs[k]], [], specs)
    seen, out = set(), []
    for name, (value, spec) in zip(names, specs):
        base, n = name, 1
        while name in seen:
            name = f"{base}_{n}"
            n += 1
        seen.add(name)
        out.append((name, value, spec))
    return out


def _collect_specs(values, specs, out):
    for i, a in enumerate(values):
        spec = specs[i] if i < len(specs) else None
        if isinstance(a, (Tensor, np.ndarray, InputSpec)):
            out.append((a, spec if isinstance(spec, InputSpec) else None))
        elif isinstance(a, (list, tuple)):
            _collect_specs(a, list(spec) if isinstance(spec, (list, tuple)) else [], out)
        elif isinstance(a, dict):
            sub = spec if isinstance(spec, dict) else {}
            keys = sorted(a, key=str)
            _collect_specs([a[k] for k in keys], [sub.get(k) for k in keys], out)


def _feed_var(name, value, spec):
    if isinstance(value, InputSpec):
        v = data(name, list(value.shape), value.dtype.np_dtype
                 if hasattr(value.dtype, "np_dtype") else value.dtype)
        v.stop_gradient = value.stop_gradient
        return v
    arr = value._data if isinstance(value, Tensor) else value
    # an input outside its spec is traced for its own shape (program_cache warns)
    covered = spec is not None and spec_covers(spec, arr.shape)
    shape = list(spec.shape) if covered else list(arr.shape)
    v = data(name, shape, arr.dtype)
    v.stop_gradient = spec.stop_gradient if spec is not None else \
        value.stop_gradient if isinstance(value, Tensor) else True
    return v


def _substitute(a, it):
    if isinstance(a, (Tensor, np.ndarray, InputSpec)):
        return next(it)
    if isinstance(a, (list, tuple)):
        items = [_substitute(x, it) for x in a]
        if isinstance(a, tuple):
            return type(a)(*items) if hasattr(a, "_fields") else tuple(items)
        return items
    if isinstance(a, dict):
        subs = {k: _substitute(a[k], it) for k in sorted(a, key=str)}
        return type(a)((k, subs[k]) for k in a) if type(a) is not dict else \
            {k: subs[k] for k in a}
    return a


# ----------------------------------------------------------------- source lines
_SOURCE = re.compile(r'File "(?P<file>.*)", line (?P<line>\d+), in (?P<fn>.*)$')


def parse_source(text):
    """``(file, line, function)`` of an ``op_callstack`` entry, or None."""
    m = _SOURCE.match(text or "")
    return (m["file"], int(m["line"]), m["fn"]) if m else None


# ----------------------------------------------------------------- outputs
def flatten_outputs(out, outputs, program):
    """The result template: static Variables replaced by ``_Slot(k)`` (k indexes
    ``outputs``, which this fills); an eager tensor is bound to the program."""
    if is_graph_value(out):
        outputs.append(out)
        return _Slot(len(outputs) - 1)
    if isinstance(out, Tensor):
        outputs.append(program.bind_tensor(out))
        return _Slot(len(outputs) - 1)
    if isinstance(out, (list, tuple)):
        items = [flatten_outputs(x, outputs, program) for x in out]
        if isinstance(out, tuple):
            return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
        return items
    if isinstance(out, dict):
        return type(out)((k, flatten_outputs(v, outputs, program)) for k, v in out.items())
    return out


def rebuild_outputs(template, values):
    """The user's result: the template with ``values[k]`` at each slot; None
    when every slot is None (the partial program's "no value": the function
    returned nothing on this call's path)."""
    if values and all(v is None for v in values) and isinstance(template, (list, tuple)):
        return None
    return _rebuild(template, values)


def _rebuild(template, values):
    if type(template) is _Slot:
        return values[template.k]
    if isinstance(template, (list, tuple)):
        items = [_rebuild(x, values) for x in template]
        if isinstance(template, tuple):
            return type(template)(*items) if hasattr(template, "_fields") else tuple(items)
        return items
    if isinstance(template, dict):
        return type(template)((k, _rebuild(v, values)) for k, v in template.items())
    return template


def is_slot(template):
    return type(template) is _Slot
