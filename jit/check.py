"""Equivalence check: ``to_static(fn, check=True)`` runs the eager function
beside the static program for the first N calls and compares them.

A checked call runs the static program (its result is what the call
returns), then the original function eagerly on the same inputs, with the
eager op handler wrapped so it keeps, per user source line (``Location``),
the values each op computed.  Every output is compared (``np.allclose`` with
``rtol``/``atol``), then every gradient (of the outputs' sum, with respect to
the inputs that need one and the layer's trainable parameters: ``sampan.grad``
on both results, so nothing accumulates into ``.grad``).  On a difference the
static program is run once more fetching the output of every op that carries
a user Location, and its ops are compared in program order with the eager op
of the same type at the same line (the k-th such op of that line): the first
that differs is named, with its output variable, both values and the user's
source line, in an ``EquivalenceError`` (``policy="raise"``) or an
``EquivalenceWarning`` (``policy="warn"``).

Cost when off: nothing.  ``to_static`` reads the option (or the global
switch, ``set_check``) once, when it decorates; only then does it build a
``CheckedStaticFunction`` (this module's subclass) instead of a
StaticFunction, so unchecked functions keep their call path unchanged.  After
its N checked calls a CheckedStaticFunction pays one counter test per call.

Limits: a gradient difference is reported with the parameter or input whose
gradient differs (grad ops are not localized); random ops draw differently
in the two runs; Python side effects of the function (and batch-norm's
running statistics) happen twice on a checked call.
"""
import threading
import warnings

import numpy as np

from ..dygraph.tensor import Tensor
from ..dygraph.tensor import wrap
from ..dygraph.tape import grad as _grad
from ..ops import mode as _mode
from ..program.location import user_location, user_stacklevel
from ..static.nn import nest
from .graph_break import source_line
from .partial_program import _plan
from .static_function import StaticFunction, _with_amp

__all__ = ["CheckedStaticFunction", "EquivalenceError", "EquivalenceWarning", "set_check",
           "check_options"]

_POLICIES = ("raise", "warn")
_DEFAULTS = {"calls": 1, "rtol": 1e-5, "atol": 1e-6, "policy": "raise"}
_GLOBAL = [None]          # the global switch: None (off) or the options dict
_LOCK = threading.RLock()     # a checked function may call another


class EquivalenceError(AssertionError):
    """The static program and the eager function disagree (``policy="raise"``)."""

    def __init__(self, message, op_type=None, location=None, static_value=None,
                 eager_value=None):
        super().__init__(message)
        self.op_type, self.location = op_type, location
        self.static_value, self.eager_value = static_value, eager_value


class EquivalenceWarning(UserWarning):
    """The static program and the eager function disagree (``policy="warn"``)."""


def _options(calls=1, rtol=1e-5, atol=1e-6, policy="raise"):
    if not isinstance(calls, int) or isinstance(calls, bool) or calls < 1:
        raise ValueError(f"check: calls must be a positive int, got {calls!r}")
    for name, v in (("rtol", rtol), ("atol", atol)):
        if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
            raise ValueError(f"check: {name} must be a non-negative number, got {v!r}")
    if policy not in _POLICIES:
        raise ValueError(f"check: policy must be one of {_POLICIES}, got {policy!r}")
    return {"calls": calls, "rtol": float(rtol), "atol": float(atol), "policy": policy}


def set_check(enable=True, calls=1, rtol=1e-5, atol=1e-6, policy="raise"):
    """The global switch: functions decorated by ``to_static`` from now on
    (without their own ``check=``) are checked as ``check=True`` would with
    these options; ``set_check(False)`` turns it off for later decorations."""
    if not isinstance(enable, bool):
        raise TypeError(f"set_check: enable must be a bool, got {type(enable).__name__}")
    _GLOBAL[0] = _options(calls, rtol, atol, policy) if enable else None


def check_options(check):
    """The options of to_static's ``check=`` (None: the global switch):
    None when off, else a dict.  ``check`` may be a bool, an int (the number
    of calls checked) or a dict of ``calls``/``rtol``/``atol``/``policy``."""
    if check is None:
        return _GLOBAL[0]
    if check is False:
        return None
    if check is True:
        return dict(_DEFAULTS)
    if isinstance(check, int):
        return _options(calls=check)
    if isinstance(check, dict):
        unknown = set(check) - set(_DEFAULTS)
        if unknown:
            raise TypeError(f"to_static(check=...): unknown option(s) {sorted(unknown)}; "
                            f"expected {sorted(_DEFAULTS)}")
        return _options(**check)
    raise TypeError(f"to_static(check=...) must be a bool, an int or a dict, got "
                    f"{type(check).__name__}")


class CheckedStaticFunction(StaticFunction):
    """A StaticFunction whose first ``calls`` calls are checked against eager."""

    def __init__(self, function, input_spec=None, build_strategy=None, backend=None,
                 full_graph=False, check=None, **kwargs):
        super().__init__(function, input_spec, build_strategy, backend, full_graph, **kwargs)
        self._check = check_options(True if check is None else check) or dict(_DEFAULTS)
        self._checks_left = self._check["calls"]

    def _bound_to(self, instance):
        import types
        return CheckedStaticFunction(types.MethodType(self._dygraph_function, instance),
                                     self._input_spec, self._build_strategy, self._backend,
                                     self._full_graph, self._check, **self._kwargs)

    def __call__(self, *args, **kwargs):
        if self._checks_left <= 0 or _mode._local.static:
            return StaticFunction.__call__(self, *args, **kwargs)
        from .static_function import to_static_enabled
        if not to_static_enabled():
            return self.dygraph_function(*args, **kwargs)
        self._checks_left -= 1
        return self._checked_call(args, kwargs)

    # ------------------------------------------------------------- the check
    def _checked_call(self, args, kwargs):
        self._found = {}
        out_s = StaticFunction.__call__(self, *args, **kwargs)
        out_e, records = _run_recorded(self.dygraph_function, args, kwargs)
        opts = self._check
        flat_s, flat_e = nest.flatten(out_s), nest.flatten(out_e)
        problem = None
        if len(flat_s) != len(flat_e):
            problem = (f"the static program returned {len(flat_s)} value(s), the eager "
                       f"function {len(flat_e)}")
        else:
            for k, (s, e) in enumerate(zip(flat_s, flat_e)):
                why = _differs(s, e, opts)
                if why:
                    problem = f"output {k} differs: {why}"
                    break
        if problem is not None:
            self._report(problem + self._localize(args, kwargs, records), records)
            return out_s
        why = self._compare_grads(flat_s, flat_e, args, kwargs)
        if why:
            self._report(why, records)
        return out_s

    def _report(self, message, records):
        name = getattr(self, "__name__", "function")
        msg = f"to_static check of '{name}': the static program differs from eager code: " \
              f"{message}"
        if self._check["policy"] == "warn":
            warnings.warn(msg, EquivalenceWarning, stacklevel=user_stacklevel())
        else:
            raise EquivalenceError(msg, **self._found)

    def _compare_grads(self, flat_s, flat_e, args, kwargs):
        from ..dygraph.engine import recording
        if not recording():
            return None
        pairs = [(s, e) for s, e in zip(flat_s, flat_e)
                 if isinstance(s, Tensor) and isinstance(e, Tensor) and not s.stop_gradient
                 and not e.stop_gradient and np.asarray(s._data).dtype.kind in "fc"]
        if not pairs:
            return None
        sources, names = [], []
        for k, a in enumerate(nest.flatten((args, kwargs))):
            if isinstance(a, Tensor) and not a.stop_gradient:
                sources.append(a)
                names.append(f"input {k}")
        inst = self._class_instance
        if inst is not None and hasattr(inst, "named_parameters"):
            for n, p in inst.named_parameters():
                if not p.stop_gradient:
                    sources.append(p)
                    names.append(f"parameter '{n}' ({p.name})")
        if not sources:
            return None
        ones_s = [wrap(np.ones_like(np.asarray(s._data))) for s, _ in pairs]
        ones_e = [wrap(np.ones_like(np.asarray(e._data))) for _, e in pairs]
        g_s = _grad([s for s, _ in pairs], sources, ones_s, retain_graph=True,
                    allow_unused=True)
        g_e = _grad([e for _, e in pairs], sources, ones_e, allow_unused=True)
        for n, a, b in zip(names, g_s, g_e):
            if (a is None) != (b is None):
                return (f"the gradient of {n} is "
                        f"{'missing' if a is None else 'present'} in the static program but "
                        f"{'missing' if b is None else 'present'} in eager code")
            why = a is not None and _differs(a, b, self._check)
            if why:
                return f"the gradient of {n} differs: {why}"
        return None

    def _localize(self, args, kwargs, records):
        """The first op of the program whose output differs from eager's value
        of the same op at the same user line (as text for the message)."""
        sig = self._signature
        a, kw = sig.positional(args, kwargs) if (kwargs or len(args) < sig.n_positional) \
            else (args, kwargs)
        key, inputs = sig.flatten(a, kw)
        entry = self._entries.get(_with_amp(key))
        if entry is None:
            return "; the call ran as eager code (a graph break), nothing to localize"
        pp = entry.partial_program
        block = pp.program.global_block()
        ops, fetch, seen = [], [], set(pp.feed_names)
        for op in block.ops:
            loc = getattr(op, "location", None)
            if loc is None:
                continue
            outs = []
            for n in op.output_arg_names:
                v = block._find_var_recursive(n)
                if v is None or v.persistable or n in seen or \
                        getattr(v, "np_dtype", None) is None:
                    continue
                seen.add(n)
                fetch.append(n)
                outs.append(n)
            ops.append((op, loc, outs))
        if not fetch:
            return ""
        plan = _plan(pp.program, pp.feed_names, fetch, pp.bound, pp.backend(inputs),
                     write_back=False)
        values = dict(zip(fetch, plan.run_arrays([t._data for t in inputs])))
        counts = {}
        for op, loc, outs in ops:
            k = (loc.filename, loc.lineno, op.type)
            i = counts[k] = counts.get(k, -1) + 1
            found = records.get(k)
            if not outs or found is None or i >= len(found):
                continue
            eager = found[i]
            for n in outs:
                s = values.get(n)
                if s is None:
                    continue
                s = np.asarray(s)
                same = [e for e in eager if e.shape == s.shape]
                if not same or any(_close(s, e, self._check) for e in same):
                    continue
                e = same[0]
                self._found = {"op_type": op.type, "location": loc, "static_value": s,
                               "eager_value": e}
                code = source_line(loc)
                return (f"; the first op that differs is '{op.type}' (output '{n}') at "
                        f"{loc.filename}:{loc.lineno}, in {loc.function}"
                        + (f": `{code}`" if code else "")
                        + f"\n  static value: {_show(s)}\n  eager value:  {_show(e)}"
                        + f"\n  max abs difference: {_maxdiff(s, e)}")
        return "; no single op's output differs from eager's value of the same line " \
               "(the difference comes from ops without a user line, or from control flow)"


# ----------------------------------------------------------------- eager recording
def _run_recorded(function, args, kwargs):
    """Run ``function`` eagerly; return its result and, per (file, line, op
    type), the list of each op's output arrays in call order."""
    records = {}
    me = threading.get_ident()

    with _LOCK:
        prev = _mode._handlers["eager"]

        def recording_handler(op, inputs, attrs):
            out = prev(op, inputs, attrs)
            if threading.get_ident() == me:
                loc = user_location()
                if loc is not None:
                    arrays = [np.array(t._data) for t in nest.flatten(out)
                              if isinstance(t, Tensor) and t._data is not None]
                    records.setdefault((loc.filename, loc.lineno, op.type), []).append(arrays)
            return out

        _mode.set_mode_handler("eager", recording_handler)
        try:
            result = function(*args, **kwargs)
        finally:
            _mode.set_mode_handler("eager", prev)
    return result, records


# ----------------------------------------------------------------- comparing
def _arr(x):
    if isinstance(x, Tensor):
        return None if x._data is None else np.asarray(x._data)
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x)
    return None


def _close(s, e, opts):
    if s.shape != e.shape:
        return False
    if s.dtype.kind in "fc" or e.dtype.kind in "fc":
        return bool(np.allclose(s, e, rtol=opts["rtol"], atol=opts["atol"], equal_nan=True))
    return bool(np.array_equal(s, e))


def _differs(s, e, opts):
    """Why ``s`` (static) and ``e`` (eager) differ, or '' when they agree."""
    a, b = _arr(s), _arr(e)
    if a is None and b is None:
        if isinstance(s, Tensor) or isinstance(e, Tensor):
            return ""
        try:
            return "" if s == e else f"{s!r} vs {e!r}"
        except Exception:
            return ""
    if a is None or b is None:
        return f"{type(s).__name__} in the static program vs {type(e).__name__} in eager code"
    if a.shape != b.shape:
        return f"shape {list(a.shape)} in the static program vs {list(b.shape)} in eager code"
    if _close(a, b, opts):
        return ""
    return f"max abs difference {_maxdiff(a, b)} (rtol={opts['rtol']}, atol={opts['atol']})"


def _maxdiff(a, b):
    with np.errstate(all="ignore"):
        return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) \
            if a.size else 0.0


def _show(a):
    a = np.asarray(a)
    flat = a.reshape(-1)
    head = np.array2string(flat[:6], precision=6, separator=", ")
    more = " ..." if flat.size > 6 else ""
    return f"shape {list(a.shape)} {a.dtype} {head}{more}"
