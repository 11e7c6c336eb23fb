"""The dead-op pass: which instructions of a plan are worth running.

An instruction is *dead*, and is not planned, when nothing can observe what it
does:

- none of the variables it writes is read afterwards: by a later live
  instruction (a control-flow op's instruction reads what its sub-blocks read,
  executor/control_flow.py), by the plan's fetches (a sub-block's fetches are
  the outer variables it writes), or by an instruction of a loop body's next
  iteration (a variable read before any write in the block stays needed);
- it writes no persistable (the scope keeps those) and no variable it also
  reads (an in-place update: ``increment``, ``set_value`` on its input, a
  control-flow op passing on the values of a branch not taken);
- its OpDef is neither ``side_effect`` (``print``, ``assert``) nor ``random``
  (a draw moves the one generator: dropping it would change later draws); a
  control-flow op carries the flags of its sub-blocks' ops;
- it is declared (an op run only by a registered runner, with no OpDef, is
  kept: nothing says what it does).

The pass removes from the *plan* only: the Program keeps every op (it is what
is saved and compared with Paddle's).  One backward sweep over the
instructions; ``live(...)`` returns the kept ones in program order.
"""

__all__ = ["live"]


def _observable(ins, persistable):
    od = ins.opdef
    if od is None or getattr(od, "side_effect", False) or getattr(od, "random", False):
        return True
    reads = ins.reads
    for w in ins.writes:
        if persistable[w] or w in reads:
            return True
    return False


def live(instrs, fetch_idx, variables):
    """The instructions of ``instrs`` (in order) whose effects someone can see;
    ``fetch_idx``: the plan's fetch targets, ``variables``: its variable table."""
    persistable = [bool(getattr(v, "persistable", False)) for v in variables]
    needed = set(fetch_idx)
    written = set()
    for ins in instrs:                  # read before written: carried into the block
        needed.update(r for r in ins.reads if r not in written)
        written.update(ins.writes)
    keep = []
    for ins in reversed(instrs):
        if _observable(ins, persistable) or any(w in needed for w in ins.writes):
            keep.append(ins)
            needed.update(ins.reads)
    keep.reverse()
    return keep
