"""When each temporary's buffer can be dropped.

Only temporaries are ever freed: never persistables (the scope owns them),
feeds or values taken from the scope, or fetch targets (the caller gets them).

- serial order: a temporary is freed right after the last instruction (in
  program order) that reads or writes it (``serial_frees``);
- any order (threaded): its *last users* are the users that happen before no
  other user; each of them decrements the variable's count when it finishes,
  and the one that reaches zero frees it (``gc_vars``, ``refcount``).

With ``reuse`` (the default), instructions where a temporary dies may write
their output into its buffer (executor/reuse.py; ``reused``: instruction ->
chosen ``(out_pos, in_pos)`` pairs); ``shape_only``: fetch targets whose
caller needs only their shapes, reusable likewise.
"""
from . import reuse as R


class Liveness:
    __slots__ = ("serial_frees", "gc_vars", "refcount", "reused")


def build(plan, deps, reuse=True, shape_only=(), gc=True):
    """``gc=False``: no temporary is freed before the run ends (what
    ``BuildStrategy.memory_optimize=False`` asks of a CompiledProgram)."""
    temps = set(plan.temporaries) if gc else set()
    users = {}
    for ins in plan.instrs:
        for v in ins.reads + ins.writes:
            if v in temps:
                users.setdefault(v, []).append(ins.idx)
    n = len(plan.instrs)
    serial = [[] for _ in range(n)]
    gc = [[] for _ in range(n)]
    refcount = [0] * len(plan.names)
    reach = deps.reach
    for v, us in users.items():
        serial[max(us)].append(v)
        mask = 0
        for u in us:
            mask |= 1 << u
        last = [u for u in dict.fromkeys(us) if reach[u] & mask == 0]
        refcount[v] = len(last)
        for u in last:
            gc[u].append(v)
    lv = Liveness()
    lv.serial_frees = tuple(tuple(f) for f in serial)
    lv.gc_vars = tuple(tuple(g) for g in gc)
    lv.refcount = tuple(refcount)
    lv.reused = R.assign(plan, deps, shape_only) if reuse else {}
    return lv
