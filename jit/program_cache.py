"""The program cache of one StaticFunction, keyed by the input signature.

A call's key (``Signature.of``) has one entry per argument, in order:
- a tensor: ``(shape, dtype, stop_gradient)``; where the argument has an
  InputSpec, the spec's shape (-1 for None dims) and stop_gradient stand for
  the tensor's (as in Paddle), so one program serves every batch size (the
  fixed dims are checked);
- a list/tuple/dict holding tensors: the entries of its items, nested;
- anything else: ``(type, value)`` (the value must be hashable; an unhashable
  object counts by identity);
then the bound Layer's ``training`` flag.  The same walk collects the tensors
to feed, in order, so a call computes its key and its feed list in one pass.

When a function has traced more than ``MAX_TRACED_PROGRAM_COUNT`` programs, a
new trace warns, naming the argument (and dimension, dtype, stop_gradient or
value) that differs from the closest cached key.
"""
import warnings
from collections import OrderedDict

import numpy as np

from ..dygraph.tensor import Tensor
from ..program.data import InputSpec

__all__ = ["ProgramCache", "Signature", "MAX_TRACED_PROGRAM_COUNT", "TENSOR", "SPEC"]

MAX_TRACED_PROGRAM_COUNT = 10
_SCALARS = (int, float, bool, str, type(None), complex, np.integer, np.floating, np.bool_)
TENSOR = "tensor"        # marker types of the feed list built beside the key
SPEC = "spec"


class Signature:
    """Turns call arguments into (key, flat inputs).  Built once per function
    from its parameter names and input_spec."""

    def __init__(self, arg_names, input_spec=None, instance=None, defaults=None):
        self.arg_names = list(arg_names)
        self.defaults = dict(defaults or {})
        self.n_positional = len(self.arg_names)
        self.instance = instance
        self.specs = list(input_spec) if input_spec is not None else []

    def name_of(self, i):
        if i < len(self.arg_names):
            return self.arg_names[i]
        return f"args_{i}"

    def positional(self, args, kwargs):
        """Every positional parameter as a positional argument: keyword
        arguments naming them moved into ``args``, skipped ones filled with
        their defaults (as Paddle does), so ``f(x)``, ``f(x, n=2)`` and
        ``f(x, 2)`` share a program and InputSpecs apply to keywords too.
        Unchanged when a required parameter is missing (the call reports it)."""
        names = self.arg_names
        if len(args) >= len(names):
            return args, kwargs
        rest = dict(kwargs)
        full = list(args)
        for name in names[len(args):]:
            if name in rest:
                full.append(rest.pop(name))
            elif name in self.defaults:
                full.append(self.defaults[name])
            else:
                return args, kwargs
        return tuple(full), rest

    # ------------------------------------------------------------- names
    def leaf_names(self, args, kwargs):
        """The data-variable name of each input ``of`` collects, in its order:
        the InputSpec's name, else the parameter's (``x``; ``x_0``, ``x_1`` ...
        inside a list; ``x_key`` inside a dict)."""
        names = []
        specs = self.specs
        for i, a in enumerate(args):
            self._names(a, specs[i] if i < len(specs) else None, self.name_of(i), names)
        for k in sorted(kwargs or ()):
            self._names(kwargs[k], None, k, names)
        return names

    def _names(self, a, spec, name, names):
        if isinstance(a, (Tensor, np.ndarray, InputSpec)):
            given = getattr(spec, "name", None) or (a.name if isinstance(a, InputSpec) else None)
            names.append(given or name)
        elif isinstance(a, (list, tuple)):
            sub = list(spec) if isinstance(spec, (list, tuple)) else []
            for k, x in enumerate(a):
                self._names(x, sub[k] if k < len(sub) else None, f"{name}_{k}", names)
        elif isinstance(a, dict):
            sub = spec if isinstance(spec, dict) else {}
            for k in sorted(a, key=str):
                self._names(a[k], sub.get(k), f"{name}_{k}", names)

    # ------------------------------------------------------------- the hot path
    def of(self, args, kwargs):
        """``(key, inputs)``: inputs are the tensors (or InputSpecs) to feed."""
        inputs = []
        parts = []
        specs = self.specs
        ns = len(specs)
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                d = a._data
                spec = specs[i] if i < ns else None
                if spec is not None and isinstance(spec, InputSpec):
                    parts.append((self._masked(spec, d.shape, i), d.dtype, spec.stop_gradient))
                else:
                    parts.append((d.shape, d.dtype, a.stop_gradient))
                inputs.append(a)
            elif type(a) in _SCALARS:
                parts.append((type(a), a))
            else:
                parts.append(self._generic(a, specs[i] if i < ns else None, inputs))
        if kwargs:
            for k in sorted(kwargs):
                parts.append((k, self._generic(kwargs[k], None, inputs)))
        inst = self.instance
        if inst is not None:
            parts.append(getattr(inst, "training", None))
        return tuple(parts), inputs

    def _masked(self, spec, shape, i):
        return _spec_shape(spec, shape, f"argument '{self.name_of(i)}'")

    def _generic(self, a, spec, inputs):
        if isinstance(a, Tensor):
            d = a._data
            inputs.append(a)
            if isinstance(spec, InputSpec):
                return (_spec_shape(spec, d.shape, "a tensor"), d.dtype, spec.stop_gradient)
            return (d.shape, d.dtype, a.stop_gradient)
        if isinstance(a, np.ndarray):
            t = Tensor(a)
            return self._generic(t, spec, inputs)
        if isinstance(a, InputSpec):
            inputs.append(a)
            return (a.shape, a.dtype.np_dtype if hasattr(a.dtype, "np_dtype")
                    else np.dtype(a.dtype), a.stop_gradient)
        if isinstance(a, (list, tuple)):
            sub = spec if isinstance(spec, (list, tuple)) else [None] * len(a)
            sub = list(sub) + [None] * (len(a) - len(sub))
            return (type(a), tuple(self._generic(x, s, inputs) for x, s in zip(a, sub)))
        if isinstance(a, dict):
            sub = spec if isinstance(spec, dict) else {}
            return (dict, tuple((k, self._generic(a[k], sub.get(k), inputs))
                                for k in sorted(a, key=str)))
        if type(a) in _SCALARS:
            return (type(a), a)
        try:
            hash(a)
            return (type(a), a)
        except TypeError:
            return (type(a), id(a))


def _spec_shape(spec, shape, what):
    """The InputSpec's shape standing for ``shape``; an input outside its spec
    (another rank, or another size of a fixed dim) is traced for its own shape,
    as Paddle does, with a warning naming both."""
    sshape = spec.shape
    if not spec_covers(spec, shape):
        warnings.warn(f"to_static: {what} has shape {list(shape)}, outside its InputSpec "
                      f"shape {list(sshape)} (-1 / None dims may vary); tracing a program "
                      f"for this shape", stacklevel=5)
        return tuple(shape)
    return sshape


def spec_covers(spec, shape):
    """Whether an input of ``shape`` fits ``spec`` (same rank, equal fixed dims)."""
    return len(shape) == len(spec.shape) and all(shape[j] == d for j, d in _fixed(spec))


def _fixed(spec):
    f = spec.__dict__.get("_fixed_dims")
    if f is None or f[0] != spec.shape:
        f = (spec.shape, tuple((j, d) for j, d in enumerate(spec.shape) if d != -1))
        spec.__dict__["_fixed_dims"] = f
    return f[1]


# ----------------------------------------------------------------- the cache
class ProgramCache:
    """key -> cache entry (a ConcreteProgram with its partial program), in
    insertion order."""

    def __init__(self):
        self._entries = OrderedDict()
        self.last = None

    def get(self, key):
        return self._entries.get(key)

    def __setitem__(self, key, entry):
        self._entries[key] = entry
        self.last = entry

    def __getitem__(self, key):
        return self._entries[key]

    def __contains__(self, key):
        return key in self._entries

    def __len__(self):
        return len(self._entries)

    def __iter__(self):
        return iter(self._entries)

    def keys(self):
        return list(self._entries)

    def values(self):
        return list(self._entries.values())

    def items(self):
        return list(self._entries.items())

    def clear(self):
        self._entries.clear()
        self.last = None

    def concrete_programs(self):
        return [e.concrete_program for e in self._entries.values()]

    def warn_if_too_many(self, key, signature, fn_name):
        """Called before a new program is added for ``key``."""
        n = len(self._entries)
        if n < MAX_TRACED_PROGRAM_COUNT:
            return
        why = explain_difference(key, list(self._entries), signature)
        warnings.warn(
            f"to_static: function '{fn_name}' is tracing program #{n + 1} (more than "
            f"{MAX_TRACED_PROGRAM_COUNT}); each new input signature builds a new program. "
            f"This call differs from the closest cached one in: {why}. Pass an input_spec "
            f"with None for dimensions that vary, or tensors instead of changing Python "
            f"values.", RetraceWarning, stacklevel=4)


class RetraceWarning(UserWarning):
    """Too many programs traced for one function."""


# ----------------------------------------------------------------- explaining
def explain_difference(key, cached, signature):
    """Text naming what differs between ``key`` and the closest of ``cached``."""
    best = None
    for other in cached:
        diffs = _diff(key, other, signature)
        if best is None or len(diffs) < len(best):
            best = diffs
    return "; ".join(best) if best else "nothing visible (identical keys)"


def _diff(a, b, signature):
    out = []
    if len(a) != len(b):
        return [f"the number of arguments ({len(a) - _has_flag(signature)} vs "
                f"{len(b) - _has_flag(signature)})"]
    n = len(a)
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        if signature.instance is not None and i == n - 1:
            out.append(f"the layer's training flag ({x} vs cached {y})")
            continue
        if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) and \
                isinstance(y, tuple) and len(y) == 2 and x[0] == y[0]:
            out.extend(_part_diff(f"keyword argument '{x[0]}'", x[1], y[1]))
        else:
            out.extend(_part_diff(f"argument '{signature.name_of(i)}'", x, y))
    return out


def _has_flag(signature):
    return 1 if signature.instance is not None else 0


def _is_tensor_part(p):
    return (isinstance(p, tuple) and len(p) == 3 and isinstance(p[0], tuple)
            and isinstance(p[1], np.dtype) and isinstance(p[2], (bool, np.bool_)))


def _part_diff(label, x, y):
    if _is_tensor_part(x) and _is_tensor_part(y):
        (sx, dx, gx), (sy, dy, gy) = x, y
        out = []
        if len(sx) != len(sy):
            out.append(f"{label} rank: shape {_shape(sx)} vs cached {_shape(sy)}")
        else:
            for j, (p, q) in enumerate(zip(sx, sy)):
                if p != q:
                    out.append(f"{label} dimension {j}: {_dim(p)} vs cached {_dim(q)} "
                               f"(shape {_shape(sx)} vs {_shape(sy)})")
        if dx != dy:
            out.append(f"{label} dtype: {dx} vs cached {dy}")
        if gx != gy:
            out.append(f"{label} stop_gradient: {gx} vs cached {gy}")
        return out
    if _is_tensor_part(x) or _is_tensor_part(y):
        return [f"{label}: {'a tensor' if _is_tensor_part(x) else 'not a tensor'} vs cached "
                f"{'a tensor' if _is_tensor_part(y) else 'not a tensor'}"]
    if (isinstance(x, tuple) and isinstance(y, tuple) and len(x) == 2 and len(y) == 2
            and x[0] is y[0] and x[0] in (list, tuple, dict)):
        xs, ys = x[1], y[1]
        if len(xs) != len(ys):
            return [f"{label}: length {len(xs)} vs cached {len(ys)}"]
        out = []
        for k, (p, q) in enumerate(zip(xs, ys)):
            if x[0] is dict:
                out.extend(_part_diff(f"{label}['{p[0]}']", p[1], q[1]))
            else:
                out.extend(_part_diff(f"{label}[{k}]", p, q))
        return out
    if isinstance(x, tuple) and isinstance(y, tuple) and len(x) == 2 and len(y) == 2 \
            and isinstance(x[0], type):
        if x[0] is not y[0]:
            return [f"{label} type: {x[0].__name__} vs cached {y[0].__name__}"]
        return [f"{label} value: {x[1]!r} vs cached {y[1]!r}"]
    return [f"{label}: {x!r} vs cached {y!r}"]


def _dim(d):
    return "None" if d == -1 else str(d)


def _shape(s):
    return "[" + ", ".join(_dim(d) for d in s) + "]"
