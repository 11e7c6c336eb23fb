"""Per-op backward functions for the tape's common node, compiled once per op.

Most grad nodes are of an op with one output, non-duplicable inputs and one
grad op (``OpDef.fast_bw``).  For such an op the work of running its node is
the same every time except for the arrays: which input slots the grad op's
outputs are the gradients of, where each grad-op input comes from (forward
input, forward output, output gradient), the grad op's attrs rule and the
input deciding its kernel.  ``node_backward(op)`` turns the op's ``GradStep``
into one straight-line Python function (generated source, compiled on the
op's first backward and cached on the OpDef), so running a node is one call:

    nxt = op._node_bw(node, g, pending, heap, leaves)

where ``g`` is the gradient of the node's output (an array).  It computes the
gradients of the inputs that need one (``stop_gradient`` read at backward
time, as the general path does) and delivers each: into a leaf's sum for
this walk, or to the producing node.  A producer reached first while nothing
is queued (a chain) is handed back with its gradient, ``nxt = (node,
gradient)``, and runs next without the queue; a second one reached sends it
to the queue after all (``spill``), and producers reached otherwise gather
their gradients in ``pending`` and wait in the heap (``queue``).  ``nxt`` is
None when nothing is handed back.

The kernel is the grad op's cached eager kernel for the dtype of its deciding
input (``OpDef.eager_cache``, shared with the forward dispatch); for nodes
recorded with the forward op's default attrs, that kernel's form for the need
mask (``grad_fast``, or ``fast`` for a one-output grad op: kernels/registry.py)
skips the kernel convention's lists and checks.  Other backends and first uses
go through ``_kernel_for`` and the data transform, exactly as the general path.
The walk switches all of this off with ``tape.set_fast_backward(False)``.
"""
from __future__ import annotations

from heapq import heappush

import numpy as np

from ..kernels.registry import CPU
from ..kernels.transform import transform_inputs
from ..ops.grad_rules import grad_steps
from .engine import _kernel_for, _wrap_error, position

__all__ = ["node_backward"]


def _slow(gop, kin, attrs, need):
    """A first use, another backend or a dtype without a cached kernel."""
    fn, moved, backend, _ = _kernel_for(gop, kin, attrs)
    if moved:
        kin = transform_inputs(kin, backend)
    try:
        return fn(kin, attrs, need)
    except Exception as e:
        raise _wrap_error(gop, kin, attrs, e) from e


def spill(pending, heap, nxt, gn):
    """The chain's next node ``nxt`` (gradient ``gn``) goes to the queue after all:
    the node reached another one, so the order among them is the heap's."""
    pending[nxt] = [gn]
    heappush(heap, (-nxt.epoch, nxt))


def _add_slot(slots, s, g, node):
    """Element k of duplicable output slot s: ``s`` is ``(s, k)``."""
    s, k = s
    lst = slots[s]
    if lst is None:
        lst = slots[s] = [None] * len(node.outs[s])
    lst[k] = g if lst[k] is None else lst[k] + g


def queue(p, sl, g, pending, heap):
    """Sum ``g`` into output slot ``sl`` of node ``p``'s pending gradients,
    queueing ``p`` when this is the first gradient to reach it."""
    slots = pending.get(p)
    if slots is None:
        pending[p] = slots = [None] * p.op.n_outputs
        heappush(heap, (-p.epoch, p))
    if type(sl) is int:
        prev = slots[sl]
        slots[sl] = g if prev is None else prev + g
    else:
        _add_slot(slots, sl, g, p)


def deliver(x, g, node, pending, heap, leaves, nxt, gn):
    """Gradient ``g`` of input ``x`` of ``node``, which was written in place
    after ``node`` read it (``x._history``): to the node that produced the
    value ``node`` read, or to that leaf's sum.  Queues the chain's next node
    first (``spill``), so it returns None, the new ``nxt``."""
    p, sl, sg = position(x, node)
    if sg:
        return nxt
    if p is None:
        entry = leaves.get(id(x))
        if entry is None:
            leaves[id(x)] = [x, g]
        else:
            entry[1] = entry[1] + g
        return nxt
    if nxt is not None:
        spill(pending, heap, nxt, gn)
    queue(p, sl, g, pending, heap)
    return None


class _FastForms(dict):
    """grad kernel -> list of its fast forms (its ``grad_fast`` for the forward's
    default attrs), indexed by the need mask (bit k: the k-th input the grad op
    gives a gradient to); None where the kernel has none.  Keyed by the kernel
    the eager cache holds, so a kernel replaced there is never bypassed."""

    def __init__(self, gop, step, op, order):
        super().__init__()
        self.dsts, self.order = step.dsts, order
        self.cache = gop.eager_cache
        self.attrs = op.default_attrs if step.attrs_fn is None else \
            gop.complete_attrs(step.attrs_fn(op.default_attrs))
        # one output, the gradient of the one input that wants it: the kernel's
        # ``fast`` form (one array) serves, as in the executor
        self.single = gop.n_outputs == 1 and not gop.list_outputs and len(order) == 1

    def build(self, fn):
        n = 1 << len(self.order)
        form = getattr(fn, "grad_fast", None)
        forms = [None] * n
        if self.single:
            fast = getattr(fn, "fast", None)
            forms[1] = None if fast is None else fast(self.attrs)
        elif form is not None:
            for mask in range(1, n):
                need = tuple(d is not None and bool(mask >> self.order.index(d) & 1)
                             for d in self.dsts)
                forms[mask] = form(self.attrs, need)
        self[fn] = forms
        return forms

    def lookup(self, dt, last):
        """The forms of the kernel the grad op's eager cache holds for arrays of
        ``dt`` (None before its first use, or when it runs on another backend),
        remembered in ``last`` as ``(dt, forms)``, one tuple, so threads see a
        consistent pair."""
        entry = self.cache.get(dt)
        if entry is None or entry[1]:
            return None
        fl = self.get(entry[0]) or self.build(entry[0])
        last[0] = (dt, fl)
        return fl


_INLINED = object()      # ``f`` of a node whose gradients the inlined formulas gave


def _inline_exprs(gop, forms, items):
    """``(forms of the kernel, expressions, names)`` when a CPU kernel of the grad
    op gives its formulas as source (``grad_inline(attrs)``: one expression per
    output, ``{k}`` standing for grad-op input k; kernels/registry.py), else
    None.  The node backward evaluates them in place of calling the kernel's
    form when that kernel is the one cached for the dtype (the forms list,
    compared by identity, says so), and each only for an input that wants it."""
    kernels = {fn for key, fn in gop.kernels.items()
               if key.backend == CPU and hasattr(fn, "grad_inline")}
    if len(kernels) != 1 or forms.single:
        return None
    k = kernels.pop()
    exprs = k.grad_inline(forms.attrs)
    if exprs is None:
        return None
    exprs = [None if e is None else e.format(*items) for e in exprs]
    # the names the formulas call resolve in the kernel's own module
    names = {n for e in exprs if e is not None
             for n in compile(e, "<grad_inline>", "eval").co_names if n in k.__globals__}
    return forms.get(k) or forms.build(k), exprs, {n: k.__globals__[n] for n in names}


def node_backward(op):
    """The compiled backward of ``op``'s nodes, cached on the OpDef as
    ``_node_bw`` (None: the op's nodes take the tape's general path: a grad
    rule that depends on the attrs, several grad ops or outputs, duplicable
    inputs)."""
    fn = None
    if op.grad is not None and not callable(op.grad):
        grad_steps(op, op.default_attrs)        # compiles the steps, sets fast_bw
        if op.fast_bw:
            fn = _compile(op)
    op._node_bw = fn
    return fn


def _compile(op):
    step = op._grad_steps[0]
    dsts = step.dsts
    targets = [d for d in dsts if d is not None]
    if len(set(targets)) != len(targets) or not targets:
        return None                      # two grad outputs for one input: general path
    gop = step.opdef
    lines = ["def bw(node, g, pending, heap, leaves):", "    ins = node.ins"]
    for d in sorted(set(targets)):
        lines.append(f"    t{d} = ins[{d}]")
        # an input that is not dispensable always holds a tensor
        lines.append(f"    n{d} = t{d} is not None and not t{d}.stop_gradient"
                     if op.inputs[d].dispensable else f"    n{d} = not t{d}.stop_gradient")
    lines.append(f"    if not ({' or '.join(f'n{d}' for d in sorted(set(targets)))}):")
    lines.append("        return None")
    kinds = {s[0] for s in step.srcs if s is not None}
    if 0 in kinds:
        lines.append("    a = node.arrays")
    if 1 in kinds:
        lines.append("    o = node.outs")
    items = []
    for s in step.srcs:
        if s is None:
            items.append("None")
        elif s[0] == 0:
            items.append(f"a[{s[1]}]")
        elif s[0] == 1:
            items.append(f"o[{s[1]}]")
        else:
            if s[1] != 0:
                return None              # (one output: only its gradient exists)
            items.append("g")
    order = sorted(set(targets))
    di = gop.dtype_index
    need = [f"n{d}" if d is not None else "False" for d in dsts]
    general = [f"kin = [{', '.join(items)}]", f"need = ({', '.join(need)},)",
               "attrs = node.attrs" if step.attrs_fn is None else
               "attrs = complete(attrs_fn(node.attrs))"]
    fast_forms = inline_forms = None
    inline_names = {}
    if di is None or di >= len(step.srcs) or step.srcs[di] is None:
        lines += ["    " + x for x in general] + ["    res = slow(gop, kin, attrs, need)"]
        ind = "    "
    else:
        # the grad op's cached kernel for the dtype of its deciding input; for the
        # forward's default attrs, the kernel's form for this need mask
        # (``grad_fast``, kernels/registry.py), looked up by the kernel itself
        # and kept for the dtype of the last call (``last``: no hashing)
        lines.append(f"    d = {items[di]}")
        if not op.required_attrs:
            fast_forms = _FastForms(gop, step, op, order)
            index = " + ".join(f"{1 << k} * n{d}" if k else f"n{d}" for k, d in enumerate(order))
            call = f"f({', '.join(items)})"
            if fast_forms.single:       # a one-output grad op: its kernel's ``fast`` form
                call = f"(out if type(out := {call}) is ndarray else asarray(out),)"
            inline = _inline_exprs(gop, fast_forms, items)
            lines += ["    f = None",
                      "    if type(d) is ndarray and node.attrs is defaults:",
                      "        seen = last[0]",
                      "        fl = seen[1] if d.dtype is seen[0] else forms.lookup(d.dtype, last)"]
            if inline is not None:
                # the kernel whose formulas are inlined is the one cached for this
                # dtype: its gradients computed here, without a call
                inline_forms, exprs, inline_names = inline
                lines += ["        if fl is inline_forms:",
                          "            try:"]
                lines += [f"                r{i} = ({exprs[dsts.index(i)]}) if n{i} else None"
                          for i in order]
                kin = ", ".join(items)
                lines += ["            except Exception as e:",
                          f"                raise wrap(gop, [{kin}], forms.attrs, e) from e",
                          "            f = inlined"]
                lines += ["        elif fl is not None:"]
            else:
                lines += ["        if fl is not None:"]
            lines += [f"            f = fl[{index}]",
                      "    if f is inlined:",
                      "        pass",
                      "    elif f is not None:",
                      "        try:",
                      f"            res = {call}",
                      "        except Exception as e:",
                      f"            raise wrap(gop, [{', '.join(items)}], forms.attrs, e) from e",
                      ] + [f"        r{i} = res[{dsts.index(i)}]" for i in order] + ["    else:"]
            ind = "        "
        else:
            ind = "    "
        lines += [ind + x for x in general]
        lines += [ind + "entry = cache.get(d.dtype) if type(d) is ndarray else None",
                  ind + "if entry is None or entry[1]:",
                  ind + "    res = slow(gop, kin, attrs, need)",
                  ind + "else:",
                  ind + "    try:",
                  ind + "        res = entry[0](kin, attrs, need)",
                  ind + "    except Exception as e:",
                  ind + "        raise wrap(gop, kin, attrs, e) from e"]
    lines += [ind + f"r{i} = res[{dsts.index(i)}]" for i in order]
    lines += ["    nxt = gn = None"]
    for i in order:
        t = f"t{i}"
        lines += [f"    if n{i}:",
                  f"        r = r{i}",
                  "        if r is not None:",
                  f"            p = {t}._node",
                  f"            if {t}._history is not None:",
                  f"                nxt = deliver({t}, r, node, pending, heap, leaves, nxt, gn)",
                  "            elif p is None:",
                  f"                e = leaves.get(id({t}))",
                  "                if e is None:",
                  f"                    leaves[id({t})] = [{t}, r]",
                  "                else:",
                  "                    e[1] = e[1] + r",
                  "            elif p is nxt:",
                  "                gn = gn + r",
                  "            elif nxt is None and not heap and p.op.one_output:",
                  "                nxt, gn = p, r",
                  "            else:",
                  "                if nxt is not None:",
                  "                    spill(pending, heap, nxt, gn)",
                  "                    nxt = None",
                  f"                queue(p, {t}._slot, r, pending, heap)"]
    lines += ["    if nxt is not None:", "        return nxt, gn"]
    src = "\n".join(lines) + "\n"
    scope = {"__name__": __name__, "cache": gop.eager_cache, "ndarray": np.ndarray,
             "asarray": np.asarray, "slow": _slow, "gop": gop,
             "wrap": _wrap_error, "attrs_fn": step.attrs_fn, "complete": gop.complete_attrs,
             "deliver": deliver, "spill": spill, "queue": queue,
             "forms": fast_forms, "defaults": op.default_attrs, "last": [(None, None)],
             "inlined": _INLINED, "inline_forms": inline_forms}
    clash = set(inline_names) & set(scope)
    if clash:
        raise RuntimeError(f"grad_inline of {gop.type} names {sorted(clash)}, which the "
                           "node backward's own scope uses")
    scope.update(inline_names)
    exec(compile(src, f"<backward of {op.type}>", "exec"), scope)
    bw = scope["bw"]
    bw.source = src
    return bw
