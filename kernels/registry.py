"""Kernel registration by ``KernelKey(backend, layout, dtype)`` and the one
selection routine (exact -> any layout -> CPU fallback).

A kernel is ``fn(ins, attrs, need) -> tuple``: ``ins`` holds one entry per
input slot of the op (an array, a list of arrays for duplicable slots, or
None), ``attrs`` the complete attribute dict, ``need`` a tuple of bools per
output slot (None = every output); it returns one entry per output slot
(None for outputs not needed).  Forward and grad ops follow the same
convention, so eager dispatch, the tape and the executor call kernels alike.

Optional attributes of a kernel function, read once when a plan is built
(executor/plan.py, executor/reuse.py) or an eager op is first cached:

- ``fast(attrs)`` -> ``g(*arrays) -> array`` or None: the same computation for
  a single-output op, called with one array (or None for an absent
  dispensable slot) per input slot, skipping the list/tuple convention.
- ``grad_fast(attrs, need)`` -> ``g(*arrays) -> tuple`` or None (grad ops): the
  same computation for these attrs and this need mask (a tuple of bools, one
  per output), called with one array per input slot; the eager tape's
  compiled node backward (dygraph/grad_fast.py) calls it for nodes recorded
  with the forward op's default attrs.
- ``grad_inline(attrs)`` -> a tuple of Python expressions, one per output, or
  None (grad ops with a ``grad_fast``): the same formulas as source, ``{k}``
  standing for input slot k, names resolved in the kernel's module; the node
  backward evaluates them in place of calling the form when this kernel is the
  one cached for the dtype, each only for an input that wants its gradient.
- ``fresh = True``: every array it returns is new: it shares memory with no
  input, no other output, and nothing else keeps a reference to it.
- ``inplace = ((out_pos, in_pos, rule), ...)`` with ``reuse(attrs, pairs)``:
  the kernel can write output ``out_pos`` into the array of input ``in_pos``
  (``pairs``: the chosen ``(out_pos, in_pos)`` of those, at most one per
  output); ``reuse`` returns a kernel-convention function doing so (it may
  carry its own ``fast``), or None when these attrs do not allow it.  The
  executor chooses a pair at plan time only when that input's buffer dies at
  the op and nothing else can see it.  ``rule``: ``"same"`` (the output has
  that input's shape and dtype by the op's definition), ``"bcast"`` (an
  elementwise broadcast of the array inputs: the declared shapes must show
  that the reused input already has the result's shape, the declared dtypes
  must agree) or ``"any"`` (the output is the input value itself, e.g.
  assign).  Results are bit-identical to the allocating kernel.  ``in_pos``
  may count from the end (-1: the last input slot, a grad op's Out@GRAD).
  ``reuse_min``: no reuse below this many (declared) elements, where the
  plain fast form is cheaper than the in-place one.

Which inputs a kernel reads only for their shape and dtype is a fact of the
op, not of one kernel: the OpDef's ``no_need_buffer`` (every kernel of the op
honours it; the executor may reuse those buffers before the op runs).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..ops import get_op, OpError
from ..ops.errors import NOT_FOUND

CPU, GPU = "CPU", "GPU"
ANY = "ANY"

FLOATS = ("float16", "float32", "float64")
INTS = ("int8", "int16", "int32", "int64", "uint8")
NUMERIC = FLOATS + INTS
ALL = NUMERIC + ("bool",)
COMPLEX = ("complex64", "complex128")

# Backends that may borrow a CPU kernel (inputs moved by the data transform).
FALLBACK_TO_CPU = {GPU: True}


class KernelKey(NamedTuple):
    backend: str
    layout: str
    dtype: str

    def __str__(self):
        return f"{self.backend}/{self.layout}/{self.dtype}"


def register_kernel(op_type, dtypes=FLOATS, backend=CPU, layout=ANY):
    """Decorator: register ``fn`` for ``op_type`` under one key per dtype."""
    opdef = get_op(op_type)
    if isinstance(dtypes, str):
        dtypes = (dtypes,)

    def deco(fn):
        for dt in dtypes:
            opdef.kernels[KernelKey(backend, layout, np.dtype(dt).name)] = fn
        return fn
    return deco


def kernel(*op_types, dtypes=FLOATS, backend=CPU, layout=ANY):
    """Register one function for several op types (same math, same slots)."""
    def deco(fn):
        for t in op_types:
            register_kernel(t, dtypes, backend, layout)(fn)
        return fn
    return deco


def select_kernel(opdef, key: KernelKey):
    """Return ``(fn, key_used)``: the exact key, else any layout, else CPU."""
    ks = opdef.kernels
    fn = ks.get(key)
    if fn is not None:
        return fn, key
    k = KernelKey(key.backend, ANY, key.dtype)
    fn = ks.get(k)
    if fn is not None:
        return fn, k
    if key.backend != CPU and FALLBACK_TO_CPU.get(key.backend):
        for layout in (key.layout, ANY):
            k = KernelKey(CPU, layout, key.dtype)
            fn = ks.get(k)
            if fn is not None:
                return fn, k
    have = sorted(str(k) for k in ks) or ["none"]
    raise OpError(f"op '{opdef.type}' has no kernel for {key} "
                  f"(dtype '{key.dtype}' not supported); registered: {', '.join(have)}",
                  kind=NOT_FOUND)


def kernels_of(op_type):
    """Introspection: the keys registered for an op."""
    return sorted(get_op(op_type).kernels, key=str)
