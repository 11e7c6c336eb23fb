"""The program cache of one StaticFunction, keyed by the call's ``CallKey``.

The key (``arguments.Signature.flatten``) has one typed entry per argument:
``TensorLeaf(shape, dtype, stop_gradient)`` for a tensor (its InputSpec's shape
and stop_gradient where it has one, so one program serves every batch size),
``ValueLeaf(type, value)`` for a Python value, ``Nested(type, keys, items)``
for a list/tuple/dict; keyword arguments by name, then the bound Layer's
``training`` flag.

When a function has traced more than ``MAX_TRACED_PROGRAM_COUNT`` programs, a
new trace warns, naming the argument (and dimension, dtype, stop_gradient or
value) that differs from the closest cached key.
"""
import warnings
from collections import OrderedDict

from ..program.location import user_stacklevel
from .arguments import TensorLeaf, ValueLeaf, Nested

__all__ = ["ProgramCache", "RetraceWarning", "explain_difference", "MAX_TRACED_PROGRAM_COUNT"]

MAX_TRACED_PROGRAM_COUNT = 10


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
            f"values.", RetraceWarning, stacklevel=user_stacklevel())


class RetraceWarning(UserWarning):
    """Too many programs traced for one function."""


# ----------------------------------------------------------------- explaining
def explain_difference(key, cached, signature):
    """Text naming what differs between ``key`` and the closest of ``cached``
    (CallKeys of ``signature``'s function)."""
    best = None
    for other in cached:
        diffs = _diff(key, other, signature)
        if best is None or len(diffs) < len(best):
            best = diffs
    return "; ".join(best) if best else "nothing visible (identical keys)"


def _diff(key, other, signature):
    if len(key.args) != len(other.args):
        return [f"the number of arguments ({len(key.args)} vs cached {len(other.args)})"]
    out = []
    for i, (x, y) in enumerate(zip(key.args, other.args)):
        if x != y:
            out.extend(_entry_diff(signature.label(i), x, y))
    kx, ky = dict(key.kwargs), dict(other.kwargs)
    for k in sorted(kx.keys() | ky.keys()):
        label = signature.label(k)
        if k not in ky:
            out.append(f"{label}: given vs not given in the cached call")
        elif k not in kx:
            out.append(f"{label}: not given vs given in the cached call")
        elif kx[k] != ky[k]:
            out.extend(_entry_diff(label, kx[k], ky[k]))
    if key.training != other.training:
        out.append(f"the layer's training flag ({key.training} vs cached {other.training})")
    return out


def _entry_diff(label, x, y):
    kx, ky = type(x), type(y)
    if kx is not ky:
        return [f"{label}: {_kind(x)} vs cached {_kind(y)}"]
    if kx is TensorLeaf:
        return _tensor_diff(label, x, y)
    if kx is ValueLeaf:
        if x.type is not y.type:
            return [f"{label} type: {x.type.__name__} vs cached {y.type.__name__}"]
        return [f"{label} value: {x.value!r} vs cached {y.value!r}"]
    if x.type is not y.type:                      # Nested
        return [f"{label} type: {x.type.__name__} vs cached {y.type.__name__}"]
    if x.keys != y.keys:
        if x.keys is None or y.keys is None or len(x.keys) != len(y.keys):
            return [f"{label}: length {len(x.items)} vs cached {len(y.items)}"]
        return [f"{label} keys: {list(x.keys)} vs cached {list(y.keys)}"]
    if len(x.items) != len(y.items):
        return [f"{label}: length {len(x.items)} vs cached {len(y.items)}"]
    out = []
    names = x.keys if x.keys is not None else range(len(x.items))
    for k, p, q in zip(names, x.items, y.items):
        if p != q:
            out.extend(_entry_diff(f"{label}[{k!r}]", p, q))
    return out


def _tensor_diff(label, x, y):
    out = []
    if len(x.shape) != len(y.shape):
        out.append(f"{label} rank: shape {_shape(x.shape)} vs cached {_shape(y.shape)}")
    else:
        for j, (p, q) in enumerate(zip(x.shape, y.shape)):
            if p != q:
                out.append(f"{label} dimension {j}: {_dim(p)} vs cached {_dim(q)} "
                           f"(shape {_shape(x.shape)} vs {_shape(y.shape)})")
    if x.dtype != y.dtype:
        out.append(f"{label} dtype: {x.dtype} vs cached {y.dtype}")
    if x.stop_gradient != y.stop_gradient:
        out.append(f"{label} stop_gradient: {x.stop_gradient} vs cached {y.stop_gradient}")
    return out


def _kind(e):
    if type(e) is TensorLeaf:
        return "a tensor"
    if type(e) is Nested:
        return f"a {e.type.__name__}"
    return f"{e.type.__name__} {e.value!r}"


def _dim(d):
    return "None" if d == -1 else str(d)


def _shape(s):
    return "[" + ", ".join(_dim(d) for d in s) + "]"
