"""``FLAGS_check_nan_inf`` in the eager engine: while the flag is on, every op
run eagerly, and every grad op run by ``backward``, has its floating outputs
checked (``kernels/numerics.py``: Paddle's report, and a RuntimeError at
level 0).

The check costs nothing while the flag is off: turning it on installs a
checking eager handler (``ops.mode``: what ``bind`` calls) and checking
gradient steps on the tape's two gradient arithmetics; turning it off puts
the plain ones back.  A thread already running eager code when the flag
changes keeps its handler until it next switches mode (a new thread starts
with the current one).
"""
from ..kernels import numerics
from ..ops import set_mode_handler
from ..ops.flags import on_change
from .engine import run_op
from .tape import _ArrayMath, _TensorMath, set_fast_backward

_PLAIN = {"handler": run_op,
          "array_step": _ArrayMath.__dict__["run_step"].__func__,
          "tensor_step": _TensorMath.__dict__["run_step"].__func__}


def _data(o):
    if type(o) is list:
        return [getattr(t, "_data", None) for t in o]
    return getattr(o, "_data", None)


def checked_run_op(op, ins, attrs=None):
    """``run_op``, then the check of the outputs (a Variable given to an eager
    op is built into its program; the executor checks it when it runs)."""
    outs = run_op(op, ins, attrs)
    numerics.check_outputs(op.type, [_data(o) for o in outs])
    return outs


def _checked_array_step(node, step, ins, need):
    res = _PLAIN["array_step"](node, step, ins, need)
    numerics.check_outputs(step.opdef.type, res)
    return res


def _checked_tensor_step(node, step, ins, need):
    res = _PLAIN["tensor_step"](node, step, ins, need)
    numerics.check_outputs(step.opdef.type, [_data(o) for o in res])
    return res


def _switch(on):
    set_mode_handler("eager", checked_run_op if on else _PLAIN["handler"])
    _ArrayMath.run_step = staticmethod(_checked_array_step if on else _PLAIN["array_step"])
    _TensorMath.run_step = staticmethod(_checked_tensor_step if on else _PLAIN["tensor_step"])
    set_fast_backward(not on)       # every grad op through the checked step


on_change("FLAGS_check_nan_inf", _switch)
