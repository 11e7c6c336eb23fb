"""Compare a sampan result with the recorded Paddle result of one mode.

What must agree: raising or not, and the builtin class of the error (sampan's
error is an instance of the builtin class Paddle raised: ``except IndexError:``
in user code catches both; the messages are recorded for the reader, not
compared); the kind of each returned value (tensor, int, float, bool,
sequence, dtype); a tensor's dtype, shape and values (exact for integers and
bools, within the case's tolerance for floats, NaN where Paddle has NaN); in
static mode the op types appended, in order.
"""
import math

import numpy as np


def _as_array(enc):
    vals = enc["value"]
    if enc["dtype"].startswith("complex"):
        vals = [complex(float(r), float(i)) for r, i in vals]
    else:
        vals = [float(v) if isinstance(v, str) else v for v in vals]
    return np.array(vals, dtype=enc["dtype"]).reshape(enc["shape"])


def diff_values(got, want, rtol, atol, where="out"):
    """A list of human-readable differences between two encoded values."""
    gk = "tensor" if got["kind"] == "ndarray" else got["kind"]
    wk = "tensor" if want["kind"] == "ndarray" else want["kind"]
    if gk != wk:
        return [f"{where}: kind {gk} vs Paddle's {wk} ({want.get('dtype', want.get('value'))})"]
    if wk == "tensor":
        if got["dtype"] != want["dtype"]:
            return [f"{where}: dtype {got['dtype']} vs Paddle's {want['dtype']}"]
        if got["shape"] != want["shape"]:
            return [f"{where}: shape {got['shape']} vs Paddle's {want['shape']}"]
        g, w = _as_array(got), _as_array(want)
        if w.dtype.kind in "fc":
            ok = np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
        else:
            ok = np.array_equal(g, w)
        if not ok:
            return [f"{where}: values {g.ravel()[:8].tolist()} vs Paddle's "
                    f"{w.ravel()[:8].tolist()}"]
        return []
    if wk == "seq":
        if len(got["items"]) != len(want["items"]):
            return [f"{where}: {len(got['items'])} items vs Paddle's {len(want['items'])}"]
        out = []
        for i, (g, w) in enumerate(zip(got["items"], want["items"])):
            out += diff_values(g, w, rtol, atol, f"{where}[{i}]")
        return out
    if wk == "float":
        g, w = float(got["value"]), float(want["value"])
        if not (math.isclose(g, w, rel_tol=rtol, abs_tol=atol) or (g != g and w != w)):
            return [f"{where}: {g} vs Paddle's {w}"]
        return []
    if got.get("value") != want.get("value"):
        return [f"{where}: {got.get('value')!r} vs Paddle's {want.get('value')!r}"]
    return []


PROMOTION_WARNING = "The input dtypes of OP"


def diff_warnings(got, want):
    """Whether each side warned of a dtype promotion (the one warning compared:
    Paddle's other warnings are about its own internals)."""
    g = any(w.startswith(PROMOTION_WARNING) for w in got.get("warn") or ())
    w = any(m.startswith(PROMOTION_WARNING) for m in want.get("warn") or ())
    if g != w:
        return [f"promotion warning: {'warned' if g else 'none'} vs Paddle's "
                f"{'warned' if w else 'none'}"]
    return []


# Paddle's recorded "errors" that are failures of Paddle, not a contract: its
# untranslated C++ exception (``EnforceNotMet``, e.g. an error raised inside a
# kernel), a crash or a hang of the recording process, and a ``paddle_bug``
# case whose ``want`` is "error".  Any exception raised by sampan agrees there.
PADDLE_FAILURES = frozenset({"EnforceNotMet", "Crash", "Hang", "(sampan raises)"})


def error_classes(res):
    """The builtin exception classes a recorded error is an instance of (as far
    as recorded: its own class name and, for a non-builtin class, ``bases``)."""
    return {res["error"], *res.get("bases", ())}


def diff_errors(got, want):
    """Both raised: sampan's error must be an instance of Paddle's builtin class."""
    if want["error"] in PADDLE_FAILURES or want["error"] in error_classes(got):
        return []
    return [f"error class {got['error']} ({', '.join(got.get('bases', ())) or 'builtin'}): "
            f"{got['msg']}; Paddle raised {want['error']}: {want['msg']}"]


def diff_results(got, want, rtol, atol):
    if want.get("errors_ok") and not got["ok"]:
        return []
    if got["ok"] != want["ok"]:
        if want["ok"]:
            return [f"raised {got['error']}: {got['msg']}; Paddle returned "
                    f"{_short(want['out'])}"]
        return [f"returned {_short(got['out'])}; Paddle raised {want['error']}: {want['msg']}"]
    if not want["ok"]:
        return diff_errors(got, want)
    return diff_values(got["out"], want["out"], rtol, atol)


def _short(enc):
    if enc["kind"] in ("tensor", "ndarray"):
        return f"{enc['dtype']}{enc['shape']}"
    return enc["kind"]


def agrees(a, b, rtol, atol):
    return not diff_results(a, b, rtol, atol)


def expected(entry, mode, rtol, atol, case=None):
    """(result to match, op types to match or None) for ``mode``.

    Eager Paddle is the truth for values: where Paddle's static Program or
    to_static disagrees with its own eager result, sampan follows eager, and
    the op sequence is then not checked.  Where eager Paddle raises, every mode
    must raise eager's class: Paddle's static checks often raise another one
    for the same fault (TypeError from its Python-side dtype checks where eager
    raises a C++ error, RuntimeError for ``x[i] = v`` in a static Program),
    while sampan's op is one declaration in every mode.  A case marked
    ``paddle_bug`` expects its ``want``; one with ``paddle_code`` (a sampan
    extension) checks no ops."""
    if case is not None and case.paddle_bug:
        import run_case
        return run_case.wanted(case), None
    if "eager" not in entry:
        # a static-only case (a static.nn builder): Paddle's Program is the truth
        mine = entry[mode]
        return mine, mine.get("ops")
    eager = entry["eager"]
    mine = entry.get(mode)
    if mode == "eager" or mine is None or not eager["ok"]:
        return eager, None
    if agrees(mine, eager, rtol, atol):
        return mine, (None if case is not None and case.paddle_code else mine.get("ops"))
    if mode == "static" and not mine["ok"] and eager["ok"]:
        # a hand-built Program cannot do what only eager can (x.numpy(), ...), and
        # Paddle's static checks are stricter: raising like Paddle or returning eager's
        # answer both agree
        return dict(eager, errors_ok=True), None
    return eager, None
