"""``fuse_elementwise``: trees of elementwise ops (binary arithmetic with
numpy or Paddle-axis broadcasting, activations, scale), optionally ending in
one reduction (sum / mean / max / min), each become one
``sampan_fused_elementwise`` op (ops/defs/fused_elementwise.py), compiled by
numba into one pass over memory (kernels/cpu/fused_elementwise.py).

Run on the programs sampan executes, never on the ones it saves: a
CompiledProgram's clone (``BuildStrategy.enable_auto_fusion``), the
Predictor's private copy, a to_static forward plan whose BuildStrategy turns
fusion on.  Without numba it rewrites nothing (the fused op would only replay
the same kernels), unless ``force=True`` (tests of the unfused path).

The rule that keeps gradients intact: an op joins a tree only when the value
it computes is read by nothing but ops of that tree (no other op of any
block, a grad op included, no fetch target, not persistable), and the tree's
inputs are not rewritten between its first op and its last.  So every value
the rest of the program reads is still computed, under its own name: in an
inference or eval program whole chains fuse; in a training program the
backward reads most forward intermediates (``elementwise_mul_grad`` reads
X and Y), which keeps those ops apart, and only values no grad op reads
fuse.
"""
import json

from ...kernels.cpu.fused_elementwise import numba_available, scalar_code, SCALAR, REDUCTIONS
from ...ops.defs.fused_elementwise import FUSED_OP
from ..attrs import BOOKKEEPING
from .graph import Uses, replace

__all__ = ["fuse_elementwise", "fused_clone"]

FLOAT_DTYPES = ("float32", "float64")
MAX_INPUTS = 32             # (numpy ufuncs take at most 64 operands)
_SLOTS = {1: ("X",), 2: ("X", "Y")}


def fuse_elementwise(program, keep=(), force=False):
    """Fuse the trees of ``program``'s global block (in place); returns how many
    fused ops were written.  ``keep``: names that must stay computed."""
    if not (force or numba_available()):
        return 0
    u = Uses(program, keep)
    block = u.block
    ops = list(block.ops)
    pos = {id(op): i for i, op in enumerate(ops)}
    info = {id(op): _fusible(u, op) for op in ops}
    taken, groups = set(), []
    for root in reversed(ops):
        if id(root) in taken or info[id(root)] is None:
            continue
        group = _grow(u, root, info, taken)
        if len(group) < 2:
            continue
        group.sort(key=lambda op: pos[id(op)])
        made = _expression(u, group, info)
        if made is None or _hazard(u, group, pos, ops):
            continue
        taken.update(id(op) for op in group)
        groups.append((group, made))
    for group, (names, expr) in groups:
        root = group[-1]
        replace(block, group, root, FUSED_OP, {"X": names},
                {"Out": [root.output("Out")[0]]}, {"expr": expr})
    return len(groups)


def _fusible(u, op):
    """None, or (role, slot names read, attrs for the expression, the Y-alignment
    pad or 0): role "inner" (may sit anywhere in a tree) or "root" (a
    reduction, only at its end)."""
    od = op.opdef
    if od is None or op.output_arg_names != op.output("Out") or len(op.output("Out")) != 1:
        return None
    # (attributes the op's declaration does not know, which Paddle's files may
    # carry, are left out as the executor leaves them out)
    attrs = {k: v for k, v in op.all_attrs().items()
             if k not in BOOKKEEPING and k in od.attr_specs}
    if op.type in REDUCTIONS:
        role, slots = "root", ("X",)
        if attrs.get("in_dtype", -1) != -1 or attrs.get("out_dtype", -1) != -1:
            return None
    elif op.type in SCALAR:
        role, slots = "inner", _SLOTS[SCALAR[op.type][0]]
        if not scalar_code(op.type, od.complete_attrs(attrs)):
            return None
    else:
        return None
    if any(op.input(s) for s in op.input_names if s not in slots) or \
            any(len(op.input(s)) != 1 for s in slots):
        return None
    vs = [u.var(op.input(s)[0]) for s in slots] + [u.var(op.output("Out")[0])]
    if any(v is None or v.np_dtype is None or v.np_dtype.name not in FLOAT_DTYPES
           or v.np_dtype != vs[0].np_dtype or v.shape is None for v in vs):
        return None
    pad = 0
    axis = attrs.get("axis", -1)
    if len(slots) == 2 and axis != -1:
        xr, yr = len(vs[0].shape), len(vs[1].shape)
        if yr >= xr or axis == xr - yr:
            attrs["axis"] = -1          # numpy's trailing alignment says the same
        elif 0 <= axis < xr - yr:
            pad = xr - axis - yr        # Y reshaped with `pad` trailing ones
        else:
            return None
    return role, slots, attrs, pad


def _grow(u, root, info, taken):
    """The ops of the tree ending at ``root``: producers of its inputs, added
    while every reader of the value they compute is in the tree (a value read
    by two ops of the tree is looked at again when its second reader joins)."""
    group, ids, todo = [root], {id(root)}, [root]
    while todo:
        m = todo.pop()
        for s in info[id(m)][1]:
            name = m.input(s)[0]
            p = u.writer(name)
            if p is None or id(p) in ids or id(p) in taken:
                continue
            pi = info.get(id(p))
            if pi is None or pi[0] != "inner" or name in u.keep:
                continue
            v = u.var(name)
            if v is None or v.persistable or \
                    any(id(r) not in ids for r in u.readers_of(name)):
                continue
            group.append(p)
            ids.add(id(p))
            todo.append(p)
    return group


def _expression(u, group, info):
    """(input names, expr JSON) of ``group`` (in program order), or None when
    it reads too many inputs or a Y that needs aligning is computed inside."""
    step_of = {op.output("Out")[0]: j for j, op in enumerate(group)}
    names, index, steps, align = [], {}, [], {}
    for j, op in enumerate(group):
        _, slots, attrs, pad = info[id(op)]
        refs = {}
        for s in slots:
            name = op.input(s)[0]
            if name in step_of and step_of[name] < j:
                if s == "Y" and pad:
                    return None
                refs[s] = -1 - step_of[name]
                continue
            k = index.get(name)
            if k is None:
                k = index[name] = len(names)
                names.append(name)
            if s == "Y" and pad:
                if align.get(k, pad) != pad or any(
                        op2 is not op and name in op2.input_arg_names for op2 in group):
                    return None         # (one alignment per input, read by this op alone)
                align[k] = pad
            refs[s] = k
        steps.append([op.type, refs, attrs])
    if len(names) > MAX_INPUTS or not names:
        return None
    body = {"steps": steps}
    if align:
        body["align"] = {str(k): p for k, p in align.items()}
    try:
        expr = json.dumps(body, separators=(",", ":"))
    except TypeError:
        return None
    return names, expr


def _hazard(u, group, pos, ops):
    """True when an op outside the tree, between its first and last op, writes a
    value the tree reads or computes (moving the tree to its last op would
    change what it reads)."""
    ids = {id(op) for op in group}
    touched = set()
    for op in group:
        touched.update(op.input_arg_names)
        touched.update(op.output_arg_names)
    lo, hi = pos[id(group[0])], pos[id(group[-1])]
    for op in ops[lo:hi + 1]:
        if id(op) not in ids and touched.intersection(op.output_arg_names):
            return True
    return False



def fused_clone(program, keep=()):
    """``program`` itself when nothing would fuse (no numba, no tree), else a
    fused clone (for a runner that plans it; the program itself stays as
    traced, which is what gets saved)."""
    if not numba_available():
        return program
    p = program.clone()
    return p if fuse_elementwise(p, keep) else program
