"""Run conformance cases three ways against a Paddle-like module.

The same code runs in real Paddle 2.6.2 (``tests/interop/conformance_record.py``, in the side venv) and
in sampan (``test_conformance.py``, with ``sampan`` passed as ``paddle``), so
both sides do exactly the same calls.  Only the standard library, numpy and
the public API of the module given are used.

A mode's result is a JSON-able dict:
``{"ok": True, "out": <encoded value>, "warn": [...], "ops": [...]}`` or
``{"ok": False, "error": "<class>", "msg": "<first line>"}`` (plus ``"bases"``, the
builtin exception classes it is an instance of, when the class is not a builtin
one: what compare.py matches Paddle's class against).  ``ops`` (static
mode) lists the op types appended to the main Program's global block, in
order; ``warn`` the UserWarnings raised while building/running.
"""
import importlib.util
import math
import os
import sys
import warnings

import numpy as np

from spec import ARG_NAMES, inputs_of, module_source  # noqa: E402  (flat import on both sides)


# ----------------------------------------------------------------- encoding
def _is_tensor(v):
    return hasattr(v, "shape") and hasattr(v, "dtype") and not isinstance(v, np.generic)


def _num(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return repr(v)
    return v


def encode_array(a):
    a = np.asarray(a)
    flat = [_num(v) for v in a.ravel().tolist()]
    if a.dtype.kind == "c":
        flat = [[_num(v.real), _num(v.imag)] for v in a.ravel().tolist()]
    return {"kind": "tensor", "dtype": a.dtype.name, "shape": list(a.shape), "value": flat}


def encode(v, fetched=None):
    """A returned value as JSON; ``fetched`` maps id(Variable) -> array (static)."""
    if fetched is not None and id(v) in fetched:
        return encode_array(fetched[id(v)])
    if _is_tensor(v) and not isinstance(v, np.ndarray):
        return encode_array(v.numpy())
    if isinstance(v, np.ndarray):
        return dict(encode_array(v), kind="ndarray")
    if isinstance(v, (bool, np.bool_)):
        return {"kind": "bool", "value": bool(v)}
    if isinstance(v, (int, np.integer)):
        return {"kind": "int", "value": int(v)}
    if isinstance(v, (float, np.floating)):
        return {"kind": "float", "value": _num(float(v))}
    if isinstance(v, (list, tuple)):
        return {"kind": "seq", "items": [encode(i, fetched) for i in v]}
    if v is None:
        return {"kind": "none"}
    if hasattr(v, "name") and hasattr(v, "np_dtype") or type(v).__name__ in ("DataType", "VarType"):
        return {"kind": "dtype", "value": str(v).replace("paddle.", "").lower()
                .replace("fp32", "float32")}
    return {"kind": "other", "type": type(v).__name__, "value": str(v)[:200]}


def _variables(v, out):
    """The static Variables inside a returned structure, in order (to fetch)."""
    if hasattr(v, "block") and hasattr(v, "dtype"):
        out.append(v)
    elif isinstance(v, (list, tuple)):
        for i in v:
            _variables(i, out)
    return out


# ----------------------------------------------------------------- modes
def _user_warnings(caught):
    return [str(w.message).splitlines()[0][:160] for w in caught
            if issubclass(w.category, UserWarning)]


_ROOTS = ("BaseException", "Exception", "object")


def _error(exc):
    msg = str(exc).strip().splitlines()
    res = {"ok": False, "error": type(exc).__name__, "msg": (msg[0] if msg else "")[:300]}
    if type(exc).__module__ != "builtins":
        bases = [c.__name__ for c in type(exc).__mro__
                 if c.__module__ == "builtins" and c.__name__ not in _ROOTS]
        if bases:
            res["bases"] = bases
    return res


def run_eager(paddle, fn, case, arrays):
    args = [paddle.to_tensor(a) for a in arrays]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(*args)
            res = {"ok": True, "out": encode(out), "warn": _user_warnings(caught)}
        except Exception as exc:  # noqa: BLE001  (the error is the result)
            return _error(exc)
    if case.grad:
        res["grad"] = _grads(paddle, fn, arrays)
    return res


def _grads(paddle, fn, arrays):
    """The gradients of the float and complex inputs of the sum of the float
    outputs plus the sums of the complex outputs' real and imaginary parts
    (a complex input's gradient is dL/dRe + i dL/dIm, Paddle's convention)."""
    args = [paddle.to_tensor(a, stop_gradient=a.dtype.kind not in "fc") for a in arrays]
    try:
        out = fn(*args)
        outs = out if isinstance(out, (list, tuple)) else [out]
        loss = None
        for o in outs:
            if not _is_tensor(o):
                continue
            dt = str(o.dtype)
            if dt.endswith(("float32", "float64")):
                s = o.sum()
            elif dt.endswith(("complex64", "complex128")):
                s = o.real().sum() + o.imag().sum()
            else:
                continue
            loss = s if loss is None else loss + s
        loss.backward()
        return [encode_array(a.grad.numpy()) if a.grad is not None else None
                for a in args if not a.stop_gradient]
    except Exception as exc:  # noqa: BLE001
        return _error(exc)


def run_static(paddle, fn, case, arrays):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with paddle.static.program_guard(main, startup):
                    args = [paddle.static.data(ARG_NAMES[i], list(a.shape), a.dtype.name)
                            for i, a in enumerate(arrays)]
                    out = fn(*args)
                ops = [op.type for op in main.global_block().ops]
                fetch = _variables(out, [])
                exe = paddle.static.Executor(paddle.CPUPlace())
                exe.run(startup)
                feed = {ARG_NAMES[i]: a for i, a in enumerate(arrays)}
                values = exe.run(main, feed=feed, fetch_list=fetch) if fetch else []
            except Exception as exc:  # noqa: BLE001
                return _error(exc)
        fetched = {id(v): np.asarray(r) for v, r in zip(fetch, values)}
        return {"ok": True, "out": encode(out, fetched), "ops": ops,
                "warn": _user_warnings(caught)}
    finally:
        paddle.disable_static()


def run_to_static(paddle, fn, case, arrays):
    args = [paddle.to_tensor(a) for a in arrays]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            sfn = paddle.jit.to_static(fn, full_graph=True)
            out = sfn(*args)
            return {"ok": True, "out": encode(out), "warn": _user_warnings(caught)}
        except Exception as exc:  # noqa: BLE001
            return _error(exc)


RUNNERS = {"eager": run_eager, "static": run_static, "to_static": run_to_static}


# ----------------------------------------------------------------- families
def load_functions(cases, workdir, name, paddle, paddle_side=False):
    """Write the cases' module to ``workdir`` and import it with ``paddle`` bound."""
    os.makedirs(workdir, exist_ok=True)
    path = os.path.join(workdir, f"conformance_{name}.py")
    with open(path, "w") as fh:
        fh.write(module_source(cases, paddle_side))
    mod_name = f"conformance_{name}_{id(paddle)}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    mod = importlib.util.module_from_spec(spec)
    mod.paddle, mod.np = paddle, np
    sys.modules[mod_name] = mod
    spec.loader.exec_module(mod)
    return [getattr(mod, f"case_{k}") for k in range(len(cases))]


def run_one(paddle, fn, case, modes=None):
    arrays = inputs_of(case)
    return {m: RUNNERS[m](paddle, fn, case, arrays) for m in (modes or case.modes)}


def wanted(case):
    """The expected result of a case where Paddle is wrong (``case.want``)."""
    if case.want == "error":
        return {"ok": False, "error": "(sampan raises)", "msg": case.paddle_bug}
    env = dict(zip(ARG_NAMES, inputs_of(case)), np=np)
    with np.errstate(all="ignore"):
        value = eval(case.want, env)  # noqa: S307 (an expression of the case table)
    return {"ok": True, "out": encode(value)}
