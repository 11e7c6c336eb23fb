"""Buffer reuse, decided once per plan: an instruction whose input dies at it
writes its output into that input's array instead of a new one.

A kernel offers candidate ``(out_pos, in_pos, rule)`` pairs (``inplace``) and
an in-place variant (``reuse``; kernels/registry.py).  A pair is taken when
the input's value is a buffer nothing else can see and that is dead after
the instruction:

- the input is a temporary (never a persistable, feed or value from the
  scope, nor a fetch target unless the caller reads only its shape) written
  by exactly one instruction, whose kernel declares ``fresh`` outputs (or
  which itself got a reused buffer);
- no instruction that read its values can have made an alias of it: every
  such reader declares ``fresh`` outputs (a reshape, an assign, a control-flow
  op may hand the same array on);
- every other use of it happens before this instruction (so the threaded
  runner may reuse it too) or reads only its shape (an input the declarations
  say it reads only for its shape, ``ops.shape_only_inputs``: X of
  elementwise_add_grad, which may run at any time); this
  instruction reads it through one slot and does not write it;
- the shapes and dtypes declared by the program allow it (the rule; ``"any"``:
  the output is the input itself, e.g. assign; otherwise never a 0-d value,
  which may be a numpy scalar).

The runners see nothing of this: the instruction's ``fn``/``fast`` are the
variant's.  ``assign(plan, deps, shape_only)`` returns ``{instr: pairs}``
(``explain`` lists them).
"""
import math

from ..ops import shape_only_inputs as _declared_shape_only


def _bcast_ok(plan, ins, in_pos):
    """The declared shapes say input ``in_pos`` already has the broadcast shape
    of all array inputs, whatever the unknown (-1) dims turn out to be."""
    tv = plan.vars[ins.ins[in_pos]]
    dt, target = tv.np_dtype, tv.shape
    if dt is None:
        return False
    for j, s in enumerate(ins.ins):
        if s is None or j == in_pos:
            continue
        if type(s) is not int:
            return False
        v = plan.vars[s]
        if v.np_dtype != dt or len(v.shape) > len(target):
            return False
        for dk, dj in zip(target[len(target) - len(v.shape):], v.shape):
            if not (dj == 1 or (dk not in (-1, 1) and dj in (dk, -1))):
                return False
    return True


def _rule_ok(plan, ins, out_pos, in_pos, rule):
    if rule == "any":
        return True
    iv = plan.vars[ins.ins[in_pos]]
    shape = iv.shape
    if not shape:               # 0-d values may be numpy scalars: nothing to write into
        return False
    small = getattr(ins.fn, "reuse_min", 0)
    if small and -1 not in shape and math.prod(shape) < small:
        return False            # the kernel's plain form is cheaper at this size
    if rule == "same":
        return True
    if rule == "bcast":
        ov = plan.vars[ins.outs[out_pos]]
        return ov.np_dtype == iv.np_dtype and _bcast_ok(plan, ins, in_pos)
    return False


def _shape_only(ins):
    """Input slot positions ``ins`` reads only for their shapes, as the
    declarations say (``ops.shape_only_inputs``: X of elementwise_add_grad),
    for an instruction whose inputs are still the declared slots (a kernel
    call, not a control-flow op's rewired reads)."""
    if ins.opdef is None or ins.key is None:
        return ()
    return _declared_shape_only(ins.op.type)


def _content_reads(ins):
    """The variables ``ins`` reads for their values (not only their shapes,
    ``_shape_only``)."""
    skip = _shape_only(ins)
    if not skip:
        return set(ins.reads)
    out = set()
    for pos, s in enumerate(ins.ins):
        if pos in skip or s is None:
            continue
        out.update((s,) if type(s) is int else s)
    return out


def shape_only_inputs(plan):
    """Indices of the loaded values (``plan.loaded``) that every instruction
    reads only for their shapes (``no_need_buffer``: a caller may hand in
    buffers it reused)."""
    content = set()
    for ins in plan.instrs:
        content |= _content_reads(ins)
        content.update(ins.writes)
    return tuple(i for i in plan.loaded if i not in content and i not in plan.fetch_idx)


def assign(plan, deps, shape_only=()):
    """``shape_only``: fetch targets the caller reads only for their shapes;
    their buffers may be reused like a temporary's.

    No alias sets are needed: once an instruction took a variable's buffer,
    every other use of that variable happened before it (or reads only its
    shape), so only the new variable can read or hand on the buffer later.
    Linear in the program's size."""
    temps = set(plan.temporaries) | set(shape_only)
    writers, users = {}, {}
    for ins in plan.instrs:
        for v in ins.writes:
            writers[v] = writers.get(v, 0) + 1
        for v in ins.reads + ins.writes:
            users.setdefault(v, []).append(ins.idx)
    content = [_content_reads(ins) for ins in plan.instrs]
    reach = deps.reach

    def dead_after(v, me):
        """Every use of ``v`` other than ``me`` happens before ``me`` or needs
        only its (unchanged) shape."""
        for u in users[v]:
            if u == me or (reach[u] >> me) & 1:
                continue
            if v in content[u] or v in plan.instrs[u].writes:
                return False
        return True

    owned, chosen = set(), {}
    for ins in plan.instrs:
        fn, me = ins.fn, ins.idx
        fresh = getattr(fn, "fresh", False) if ins.opdef is not None else False
        cands = getattr(fn, "inplace", None) if fresh else None
        pairs, taken = [], {}
        for out_pos, in_pos, rule in cands or ():
            in_pos %= len(ins.ins)
            s_in = ins.ins[in_pos]
            s_out = ins.outs[out_pos] if out_pos < len(ins.outs) else None
            if type(s_in) is not int or type(s_out) is not int or out_pos in taken:
                continue
            if s_in not in owned or s_in in ins.writes or s_in in taken.values():
                continue
            if ins.reads.count(s_in) != 1 or not dead_after(s_in, me):
                continue
            if not _rule_ok(plan, ins, out_pos, in_pos, rule):
                continue
            pairs.append((out_pos, in_pos))
            taken[out_pos] = s_in
        if pairs:
            variant = fn.reuse(ins.attrs, tuple(pairs))
            if variant is not None:
                ins.fn = variant
                plan._set_fast(ins)
                chosen[me] = tuple(pairs)
                owned.difference_update(taken.values())     # now the outputs' buffers
        if fresh:
            owned.update(o for o in ins.writes if o in temps and writers[o] == 1)
        else:
            owned.difference_update(content[me])
    return chosen
