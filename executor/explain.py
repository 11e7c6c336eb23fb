"""``explain``: a plan as text (``PlanRun.explain``, ``Executor.explain``): its
instructions with their kernels (a control-flow op's sub-block plans nested
under it, an output written in place named), the reduced dependency edges,
and the frees in serial order."""

__all__ = ["explain"]


def explain(plan, deps, live, runner):
    """The plan as text (module docstring)."""
    names = plan.names

    def nm(i):
        return names[i]

    lines = [f"plan of block {plan.block.idx}: {len(plan.instrs)} instructions, "
             f"{len(names)} variables, runner {type(runner).__name__}",
             f"  feeds: {', '.join(map(nm, plan.feed_idx)) or '-'}",
             f"  fetches: {', '.join(map(nm, plan.fetch_idx)) or '-'}",
             f"  persistables read: {', '.join(map(nm, plan.persist_read)) or '-'}",
             f"  persistables written: {', '.join(map(nm, plan.persist_written)) or '-'}",
             "instructions:"]
    lines += _instr_lines(plan, getattr(runner, "use_fast", None), "  ", live.reused)
    lines.append("edges (reduced):")
    edges = [f"#{i} -> {', '.join(f'#{s}' for s in out)}"
             for i, out in enumerate(deps.succ) if out]
    lines += ["  " + e for e in edges] or ["  -"]
    lines.append("frees (serial order):")
    lines += ["  " + f for f in _free_lines(plan, live)] or ["  -"]
    return "\n".join(lines)


def _instr_lines(plan, use_fast, pad, reused=None):
    """One line per instruction (``in place``: an output written into the
    buffer of an input that dies there, executor/reuse.py); under a
    control-flow op, its sub-block plans (cached by its runner:
    ``fn.sub_blocks``, executor/control_flow.py)."""
    names = plan.names
    fast = use_fast or [False] * len(plan.instrs)
    reused = reused or {}

    def slot(s):
        return "-" if s is None else names[s] if type(s) is int else \
            "[" + ", ".join(names[k] for k in s) + "]"

    lines = []
    for ins in plan.instrs:
        slots = [s.name for s in ins.opdef.inputs] if ins.opdef else list(ins.op._inputs)
        args = ", ".join(f"{n}={slot(s)}" for n, s in zip(slots, ins.ins) if s is not None)
        outs = ", ".join(slot(s) for s in ins.outs if s is not None)
        key = f"  [{ins.key}{', fast' if fast[ins.idx] else ''}]" if ins.key else ""
        pairs = reused.get(ins.idx)
        if pairs:
            key += "  in place: " + ", ".join(
                f"{slot(ins.outs[o])} <- {slot(ins.ins[i])}" for o, i in pairs)
        lines.append(f"{pad}#{ins.idx} {outs} = {ins.op.type}({args}){key}")
        for sub in getattr(ins.fn, "sub_blocks", ()):
            lines += _sub_lines(sub, pad + "    ")
    return lines


def _sub_lines(sub, pad):
    plan = sub.plan
    keep = ", keeps its scopes" if sub.keep else ""
    lines = [f"{pad}block {plan.block.idx}: {len(plan.instrs)} instructions{keep}",
             f"{pad}  reads: {', '.join(sub.in_names) or '-'}",
             f"{pad}  returns: {', '.join(sub.out_names) or '-'}"]
    lines += _instr_lines(plan, getattr(sub.fn, "use_fast", None), pad + "  ",
                          getattr(sub.live, "reused", None))
    frees = _free_lines(plan, sub.live)
    if frees:
        lines.append(f"{pad}  frees: {'; '.join(frees)}")
    return lines


def _free_lines(plan, live):
    return [f"after #{i}: {', '.join(plan.names[v] for v in f)}"
            for i, f in enumerate(live.serial_frees) if f]
