"""``FLAGS_check_nan_inf`` in the executor: a plan's run checks every op's
floating outputs (``kernels/numerics.py``) while the flag is on.

``switch(plan, live, plain)`` is the runner ``PlanRun`` calls: one test of the
flag per run; while it is on the run goes through an instrumented loop over
the same plan (``runner.LoopSerial``) whose hook checks each instruction's
outputs, named by their variables, before a later op reads them.  Control-flow
sub-blocks run their own compiled code and are not checked.
"""
from ..kernels.numerics import STATE, check_outputs
from .runner import LoopSerial


def switch(plan, live, plain, hook=None):
    """A runner: ``plain`` while the flag is off, else the checking loop
    (built on first use; ``hook``, the config's instrumentation, still runs)."""
    names = plan.names
    loop = []

    def check(ins, vals):
        if hook is not None:
            hook(ins, vals)
        outs = [None if s is None else vals[s] if type(s) is int else [vals[k] for k in s]
                for s in ins.outs]
        labels = [None if s is None else names[s] if type(s) is int else [names[k] for k in s]
                  for s in ins.outs]
        check_outputs(ins.op.type, outs, labels, ins.op.source or "")

    def run(inputs):
        if not STATE.on:
            return plain(inputs)
        if not loop:
            loop.append(LoopSerial(plan, live, check))
        return loop[0](inputs)
    return run
