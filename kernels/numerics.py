"""``FLAGS_check_nan_inf``: the check of an op's floating outputs for NaN and Inf.

The eager engine (``dygraph/numerics.py``) and the executor
(``executor/numerics.py``) call ``check_outputs`` after every op while the flag
is on; while it is off they run their usual code, which never reads it (each
installs its checking variant when the flag changes, ``ops.flags.on_change``).

As Paddle: a NaN or Inf in an output is reported on stderr as a
``[PRECISION] [ERROR]`` line with the output's statistics; with
``FLAGS_check_nan_inf_level`` 0 (the default) it then raises a RuntimeError
("There are NAN or INF ... in [device=cpu, op=log, tensor=log_0.tmp_0,
dtype=fp32]"), with a higher level the run goes on.
"""
import sys

import numpy as np

from ..ops import OpError
from ..ops.flags import on_change

__all__ = ["STATE", "check_outputs", "check_array"]


class _State:
    """The flags as the checks read them."""
    on = False
    level = 0


STATE = _State()

_NAMES = {"float16": "fp16", "float32": "fp32", "float64": "fp64"}


def _stats(a):
    """Paddle's counts and statistics of a float array with a NaN or Inf."""
    a = np.asarray(a)
    if a.dtype.kind == "c":
        a = np.concatenate([a.real.ravel(), a.imag.ravel()])
    with np.errstate(all="ignore"):
        num_nan = int(np.isnan(a).sum())
        num_inf = int(np.isinf(a).sum())
        num_zero = int((a == 0).sum())
        finite_or_inf = a[~np.isnan(a)]
        hi = float(finite_or_inf.max()) if finite_or_inf.size else float("nan")
        lo = float(finite_or_inf.min()) if finite_or_inf.size else float("nan")
        mean = float(a.astype(np.float64).mean())
    return num_nan, num_inf, num_zero, hi, lo, mean


def check_array(op_type, name, a, where=""):
    """Report (and, at level 0, raise) a NaN or Inf in output ``a`` of op
    ``op_type``; ``name`` is the output's variable name ("" eagerly)."""
    dt = getattr(a, "dtype", None)
    if dt is None or dt.kind not in "fc" or bool(np.isfinite(a).all()):
        return
    num_nan, num_inf, num_zero, hi, lo, mean = _stats(a)
    place = f"[device=cpu, op={op_type}, tensor={name}, dtype={_NAMES.get(dt.name, dt.name)}]"
    print(f"[PRECISION] [ERROR] in {place}, numel={int(np.size(a))}, num_nan={num_nan}, "
          f"num_inf={num_inf}, num_zero={num_zero}, max={hi:e}, min={lo:e}, mean={mean:e}",
          file=sys.stderr)
    if STATE.level == 0:
        raise OpError(f"There are NAN or INF (num_nan={num_nan}, num_inf={num_inf}, "
                      f"num_zero={num_zero}) in {place} (FLAGS_check_nan_inf is on)"
                      + (f"\n  defined at {where}" if where else ""), kind=RuntimeError)


def check_outputs(op_type, outputs, names=None, where=""):
    """``check_array`` for each output (an array, a list of arrays, or None)."""
    for k, o in enumerate(outputs):
        name = names[k] if names is not None else ""
        if type(o) is list:
            for j, a in enumerate(o):
                if a is not None:
                    check_array(op_type, name[j] if isinstance(name, (list, tuple)) else name,
                                a, where)
        elif o is not None:
            check_array(op_type, name, o, where)


def _set_on(v):
    STATE.on = bool(v)


def _set_level(v):
    STATE.level = int(v)


on_change("FLAGS_check_nan_inf", _set_on)
on_change("FLAGS_check_nan_inf_level", _set_level)
