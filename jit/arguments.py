"""The arguments of a to_static call, walked once: the typed key and the feed.

``Signature.flatten(args, kwargs)`` returns ``(key, inputs)``.  ``key`` is a
``CallKey``: one entry per positional argument, ``(name, entry)`` per keyword
argument (sorted by name), and the bound Layer's ``training`` flag.  An entry is

- ``TensorLeaf(shape, dtype, stop_gradient)`` for a tensor (also a numpy array,
  or an InputSpec given to ``get_concrete_program``): exactly the data variable
  a trace declares for it.  Where the argument has an InputSpec, the spec's
  shape (-1 for None dims) and stop_gradient stand for the tensor's (as in
  Paddle), so one program serves every batch size; a tensor outside its spec
  (another rank, another size of a fixed dim) keeps its own shape and is
  traced for it, with a warning naming both;
- ``ValueLeaf(type, value)`` for any other value (``id(value)`` when it is
  not hashable);
- ``Nested(type, keys, items)`` for a list, tuple or dict: its items' entries
  (dict items in the order of ``str`` of their keys, ``keys`` holding them).

``inputs`` holds the tensor leaves in the key's order: the feed list.  The key
and its entries are tuples (NamedTuples), so hashing and comparing it runs in C
(this walk runs on every call: a call of positional tensors and scalars takes a
short inline loop).  Entries compare as tuples, and the kinds cannot collide: a
ValueLeaf has two fields, a TensorLeaf's first is a shape tuple, a Nested's a
type.  The key is also the structure the other consumers walk, reading fields:

- ``Signature.feeds(key, inputs)``: the unique name and TensorLeaf of each
  input (the data variables of a trace);
- ``Signature.substitute(key, args, kwargs, values)``: the call's arguments
  with ``values`` (Variables) in place of the tensor leaves;
- ``program_cache.explain_difference``: what differs between two keys.
"""
import warnings
from typing import NamedTuple

import numpy as np

from ..dygraph.tensor import Tensor
from ..dygraph.tensor import wrap
from ..program.data import InputSpec
from ..program.location import user_stacklevel
from .symbols import relations, check as check_relations

__all__ = ["Signature", "CallKey", "TensorLeaf", "ValueLeaf", "Nested", "spec_covers"]

_SCALARS = frozenset((int, float, bool, str, type(None), complex, np.int32, np.int64,
                      np.float32, np.float64, np.bool_))
_new = tuple.__new__     # a NamedTuple without its Python-level __new__ (runs per call)


class TensorLeaf(NamedTuple):
    """A tensor argument, as the data variable standing for it."""
    shape: tuple            # -1 where its InputSpec has None
    dtype: np.dtype
    stop_gradient: bool


class ValueLeaf(NamedTuple):
    """Any other argument: a program is traced per value."""
    type: type
    value: object           # the value itself, or id() of an unhashable one


class Nested(NamedTuple):
    """A list, tuple or dict argument."""
    type: type
    keys: tuple             # a dict's keys, sorted by str(); None for a list/tuple
    items: tuple            # the items' entries


class CallKey(tuple):
    """The program-cache key of one call, read through its fields: ``args``,
    ``kwargs``, ``training``.

    Built on every call, it is one flat tuple (``CallKey(...)`` makes one
    from the entries of the positional arguments, the kwargs pairs and the
    flag).  The common argument, a tensor passed positionally, is stored as
    the bare tuple ``(shape, dtype, stop_gradient)``, which equals (and hashes
    as) its ``TensorLeaf``: a NamedTuple costs an allocation more per tensor
    per call.  ``args`` gives it back typed; every other entry is typed as
    built."""
    __slots__ = ()

    @property
    def args(self):
        """The entry of each positional argument."""
        return tuple(TensorLeaf._make(e) if type(e) is tuple else e for e in self[:-2])

    @property
    def kwargs(self):
        """``(name, entry)`` per keyword argument, sorted by name."""
        return self[-2]

    @property
    def training(self):
        """The bound Layer's training flag (None for a plain function)."""
        return self[-1]

    def __repr__(self):
        return f"CallKey(args={self.args!r}, kwargs={self.kwargs!r}, training={self.training!r})"


class Signature:
    """Turns call arguments into ``(key, inputs)`` and the key into feeds and
    substituted arguments.  Built once per function from its parameter names,
    defaults and input_spec."""

    def __init__(self, arg_names, input_spec=None, instance=None, defaults=None):
        self.arg_names = list(arg_names)
        self.defaults = dict(defaults or {})
        self.n_positional = len(self.arg_names)
        self.instance = instance
        self.specs = list(input_spec) if input_spec is not None else []
        self.relations = relations(self.specs) if self.specs else []   # symbols.py

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

    # ------------------------------------------------------------- the hot path
    def flatten(self, args, kwargs):
        """``(CallKey, inputs)``; inputs are the tensors (or InputSpecs) to feed
        (``args`` itself when it holds tensors only)."""
        inst = self.instance
        entries = []
        if not kwargs and not self.specs:
            tensors_only = True
            for a in args:           # the common call: positional tensors and scalars
                if isinstance(a, Tensor):
                    d = a._data
                    entries.append((d.shape, d.dtype, a.stop_gradient))    # = its TensorLeaf
                elif type(a) in _SCALARS:
                    entries.append(_new(ValueLeaf, (type(a), a)))
                    tensors_only = False
                else:
                    break
            else:
                entries.append(())
                entries.append(getattr(inst, "training", None) if inst is not None else None)
                return CallKey(entries), args if tensors_only else \
                    [a for a in args if isinstance(a, Tensor)]
            entries.clear()
        # the general walk: InputSpecs, keyword arguments, containers, arrays
        inputs = []
        specs = self.specs
        ns = len(specs)
        i = 0
        for a in args:
            spec = specs[i] if i < ns else None
            if isinstance(a, Tensor) and (spec is None or isinstance(spec, InputSpec)):
                d = a._data
                entries.append((d.shape, d.dtype, a.stop_gradient) if spec is None else
                               (_spec_shape(spec, d.shape, self, i), d.dtype,
                                spec.stop_gradient))
                inputs.append(a)
            elif type(a) in _SCALARS:
                entries.append(_new(ValueLeaf, (type(a), a)))
            else:
                entries.append(_entry(a, spec, inputs, self, i))
            i += 1
        entries.append(tuple((k, _entry(kwargs[k], None, inputs, self, k))
                             for k in sorted(kwargs)) if kwargs else ())
        entries.append(getattr(inst, "training", None) if inst is not None else None)
        if self.relations:          # InputSpecs sharing a symbol: the sizes must agree
            check_relations(self.relations, args, self)
        return CallKey(entries), inputs

    # ------------------------------------------------------------- reading the key
    def feeds(self, key, inputs):
        """``(name, TensorLeaf)`` per input, in feed order.  The name is the
        InputSpec's, else the parameter's (``x``; ``x_0``, ``x_1`` ... inside a
        list; ``x_key`` inside a dict), made unique (``x_1`` ...)."""
        named = []
        specs = self.specs
        for i, e in enumerate(key.args):
            _names(e, specs[i] if i < len(specs) else None, self.name_of(i), named)
        for k, e in key.kwargs:
            _names(e, None, k, named)
        seen, out = set(), []
        for (given, path, leaf), value in zip(named, inputs):
            if given is None and isinstance(value, InputSpec):
                given = value.name
            name = base = given or path
            n = 1
            while name in seen:
                name = f"{base}_{n}"
                n += 1
            seen.add(name)
            out.append((name, leaf))
        return out

    def substitute(self, key, args, kwargs, values):
        """``(args, kwargs)`` with ``values`` in place of the tensor leaves (in
        feed order); containers rebuilt as their own types, Python values kept."""
        it = iter(values)
        new_args = [_put(e, a, it) for e, a in zip(key.args, args)]
        new_kwargs = {k: _put(e, kwargs[k], it) for k, e in key.kwargs}
        return new_args, new_kwargs

    def label(self, where):
        """How messages name argument ``where`` (a position or a keyword)."""
        if isinstance(where, str):
            return f"keyword argument '{where}'"
        return f"argument '{self.name_of(where)}'"


# ----------------------------------------------------------------- the walk
def _entry(a, spec, inputs, sig, where):
    """The key entry of argument ``a`` (``spec``: its InputSpec, or a list /
    dict of them); its tensors are appended to ``inputs``."""
    if isinstance(a, Tensor):
        inputs.append(a)
        return _tensor_leaf(a._data, a.stop_gradient, spec, sig, where)
    if isinstance(a, np.ndarray):
        inputs.append(wrap(a))
        return _tensor_leaf(a, True, spec, sig, where)
    if isinstance(a, InputSpec):
        inputs.append(a)
        dtype = a.dtype     # a public dtype (its np_dtype), or a numpy one
        return TensorLeaf(a.shape, np.dtype(getattr(dtype, "np_dtype", dtype)),
                          a.stop_gradient)
    if isinstance(a, (list, tuple)):
        sub = spec if isinstance(spec, (list, tuple)) else ()
        n = len(sub)
        return _new(Nested, (type(a), None, tuple(_entry(x, sub[k] if k < n else None, inputs,
                                                         sig, where) for k, x in enumerate(a))))
    if isinstance(a, dict):
        sub = spec if isinstance(spec, dict) else {}
        keys = tuple(sorted(a, key=str))
        return _new(Nested, (type(a), keys, tuple(_entry(a[k], sub.get(k), inputs, sig, where)
                                                  for k in keys)))
    try:
        hash(a)
    except TypeError:
        return _new(ValueLeaf, (type(a), id(a)))
    return _new(ValueLeaf, (type(a), a))


def _tensor_leaf(arr, stop_gradient, spec, sig, where):
    if not isinstance(spec, InputSpec):
        return _new(TensorLeaf, (arr.shape, arr.dtype, stop_gradient))
    return _new(TensorLeaf, (_spec_shape(spec, arr.shape, sig, where), arr.dtype,
                             spec.stop_gradient))


def _spec_shape(spec, shape, sig, where):
    """The InputSpec's shape standing for ``shape``; an input outside its spec
    is traced for its own shape (as Paddle does), with a warning naming both."""
    if spec_covers(spec, shape):
        return spec.shape
    warnings.warn(f"to_static: {sig.label(where)} has shape {list(shape)}, outside its "
                  f"InputSpec shape {list(spec.shape)} (-1 / None dims may vary); tracing a "
                  f"program for this shape", stacklevel=user_stacklevel())
    return tuple(shape)


def spec_covers(spec, shape):
    """Whether an input of ``shape`` fits ``spec`` (same rank, equal fixed dims)."""
    return len(shape) == len(spec.shape) and all(shape[j] == d for j, d in _fixed(spec))


def _fixed(spec):
    f = spec.__dict__.get("_fixed_dims")
    if f is None or f[0] != spec.shape:
        f = (spec.shape, tuple((j, d) for j, d in enumerate(spec.shape) if d != -1))
        spec.__dict__["_fixed_dims"] = f
    return f[1]


def _names(e, spec, name, out):
    """(InputSpec name or None, path name, TensorLeaf) per tensor leaf of ``e``."""
    if type(e) is TensorLeaf:
        out.append((getattr(spec, "name", None) if isinstance(spec, InputSpec) else None,
                    name, e))
    elif type(e) is Nested:
        if e.keys is None:
            sub = spec if isinstance(spec, (list, tuple)) else ()
            for k, x in enumerate(e.items):
                _names(x, sub[k] if k < len(sub) else None, f"{name}_{k}", out)
        else:
            sub = spec if isinstance(spec, dict) else {}
            for k, x in zip(e.keys, e.items):
                _names(x, sub.get(k), f"{name}_{k}", out)


def _put(e, a, it):
    """``a`` (whose entry is ``e``) with its tensor leaves taken from ``it``."""
    kind = type(e)
    if kind is TensorLeaf:
        return next(it)
    if kind is ValueLeaf:
        return a
    if e.keys is None:
        items = [_put(x, v, it) for x, v in zip(e.items, a)]
        if isinstance(a, tuple):
            return type(a)(*items) if hasattr(a, "_fields") else tuple(items)
        return items
    subs = {k: _put(x, a[k], it) for k, x in zip(e.keys, e.items)}
    return {k: subs[k] for k in a} if type(a) is dict else type(a)((k, subs[k]) for k in a)
