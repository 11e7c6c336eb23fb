"""An independent judge of whether a ProgramDesc is a well-formed inference program, used to
decide if a mutated program is *broken* (a loader must refuse it) or merely *different* (it may
run with other outputs: an op removed whose output is also written earlier, a loop body that
no longer updates a carried value...).

``problems(desc)`` lists what breaks the program, from Paddle's op registry facts
(``ops.json``): a required input or output slot missing, an op reading a variable that nothing
has written yet (feeds, persistables, tensor arrays and step scopes count as written), a
``while`` whose body never writes its condition (it could never end), a control-flow op whose
``Out`` is not written inside its sub-block, a sub-block index out of range, a variable used
but declared nowhere on the block's parent chain.

``normal_attrs`` / ``normal_slots`` give the view of an op that a loader can check: declared
attributes (an attribute left out that has a declared default reads as the default; unknown
ones are ignored, as Paddle ignores them) and input slots (an optional slot left out or empty
is a valid op). regions.skeleton uses them.
"""
import functools
import json
import os

from . import REFERENCE, ensure_sampan

ensure_sampan()
from sampan.program.proto import framework_pb2 as pb  # noqa: E402

VT = pb.VarType
_IMPLICIT_KINDS = (VT.LOD_TENSOR_ARRAY, VT.STEP_SCOPES, VT.FEED_MINIBATCH, VT.FETCH_LIST)
_HOLDERS = ("feed", "fetch")
_CONTROL = ("while", "conditional_block")


@functools.lru_cache(maxsize=None)
def paddle_ops():
    with open(os.path.join(REFERENCE, "ops.json")) as fh:
        return json.load(fh)["ops"]


def required_slots(op_type, kind):
    """Non-optional slots of a known op: (name, duplicable) pairs; None if the op is unknown."""
    spec = paddle_ops().get(op_type)
    if spec is None:
        return None
    return [(s["name"], s["duplicable"]) for s in spec[kind]
            if not (s["dispensable"] or s["extra"] or s.get("intermediate"))]


def _slots(op, kind):
    return {s.parameter: list(s.arguments) for s in getattr(op, kind)}


def _writes(desc, bi, seen=None):
    """Every variable written by the ops of block ``bi`` and the blocks they own."""
    seen = set() if seen is None else seen
    if bi in seen or not 0 <= bi < len(desc.blocks):
        return set()
    seen.add(bi)
    out = set()
    for op in desc.blocks[bi].ops:
        for s in op.outputs:
            out.update(s.arguments)
        for k in _sub_blocks(op):
            out |= _writes(desc, k, seen)
    return out


def _sub_blocks(op):
    return [a.block_idx for a in op.attrs if a.type == pb.BLOCK] + \
        [k for a in op.attrs if a.type == pb.BLOCKS for k in a.blocks_idx]


def problems(desc):
    """What makes ``desc`` a broken inference program (empty list: well-formed)."""
    found = []
    nb = len(desc.blocks)
    if nb == 0:
        return ["no blocks"]
    implicit = {v.name for b in desc.blocks for v in b.vars
                if v.persistable or v.type.type in _IMPLICIT_KINDS}

    def declared(bi, name, hops=0):
        while 0 <= bi < nb and hops <= nb:
            if any(v.name == name for v in desc.blocks[bi].vars):
                return True
            bi, hops = (desc.blocks[bi].parent_idx if bi else -1), hops + 1
        return False

    def walk(bi, defined, depth):
        if depth > nb:
            found.append(f"block {bi}: sub-blocks nest in a cycle")
            return
        for oi, op in enumerate(desc.blocks[bi].ops):
            at = f"block {bi} op {oi} {op.type}"
            ins, outs = _slots(op, "inputs"), _slots(op, "outputs")
            for kind, slots in (("inputs", ins), ("outputs", outs)):
                for name, dup in required_slots(op.type, kind) or ():
                    if name not in slots or (not dup and not slots[name]):
                        found.append(f"{at}: required {kind[:-1]} {name} missing")
            if op.type != "feed":
                for slot, args in ins.items():
                    if op.type == "fetch" and slot != "X":
                        continue
                    for n in args:
                        if n not in defined and n not in implicit:
                            found.append(f"{at}: reads {n} before anything writes it")
                for args in list(ins.values()) + list(outs.values()):
                    for n in args:
                        if not declared(bi, n):
                            found.append(f"{at}: {n} is not declared")
            for k in _sub_blocks(op):
                if not 0 < k < nb or k == bi:
                    found.append(f"{at}: sub-block {k} out of range")
                    continue
                walk(k, set(defined), depth + 1)
                written = _writes(desc, k)
                if op.type in _CONTROL:
                    for n in outs.get("Out", []):
                        if n not in written:
                            found.append(f"{at}: Out {n} is not written in block {k}")
                if op.type == "while":
                    for n in ins.get("Condition", []):
                        if n not in written:
                            found.append(f"{at}: condition {n} is never updated in block {k}")
            for args in outs.values():
                defined.update(args)
    walk(0, set(), 0)
    return found


# ------------------------------------------------------------------ what a loader can check
def normal_attrs(op, scalar_fields):
    """Attributes as a loader sees them: for ops in ops.json, unknown attributes are dropped
    and declared ones with a default that are absent, or present with the declared type and a
    payload, read ``(name, 'ok')``; anything else keeps its raw (name, type, payload fields)."""
    spec = paddle_ops().get(op.type)
    raw = {}
    for a in op.attrs:
        present = tuple(f for f in scalar_fields if a.HasField(f))
        blocks = (a.block_idx,) if a.type == pb.BLOCK else tuple(a.blocks_idx)
        col = a.i if a.name == "col" else None
        raw[a.name] = (a.name, a.type, present, blocks, col)
    if spec is None:
        return tuple(sorted(raw.values()))
    out = []
    for s in spec["attrs"]:
        if s["extra"]:
            continue
        got = raw.get(s["name"])
        if got is None:
            out.append((s["name"], "ok") if s.get("has_default") else (s["name"], "missing"))
        elif got[1] == s["type_id"] and (got[2] or s["type"] not in
                                         ("INT", "FLOAT", "STRING", "BOOLEAN", "LONG",
                                          "FLOAT64", "BLOCK")) and got[3:] == ((), None):
            out.append((s["name"], "ok"))
        else:
            out.append(got)
    return tuple(out)


def normal_slots(op, kind):
    """Slots as a loader sees them: for ops in ops.json, unknown slots and optional input
    slots are dropped (an op without an optional input is another valid op: batch_norm
    without Scale; a corrupted slot name reads as the slot left out)."""
    spec = paddle_ops().get(op.type)
    slots = [(s.parameter, tuple(s.arguments)) for s in getattr(op, kind)]
    if spec is None:
        return tuple(slots)
    known = {s["name"]: s for s in spec[kind]}
    return tuple((n, args) for n, args in slots
                 if n in known and not (kind == "inputs" and known[n]["dispensable"]))
