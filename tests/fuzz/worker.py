"""Runs one fuzz program eagerly and through to_static, in this process, and classifies it.

`check_program(source, seed, ...)` is the whole judgement for one program:
  1. load the program from a real file (to_static reads source through `inspect`, as for a user);
  2. run `f` eagerly on candidate inputs under a line-arc tracer and keep the few inputs that
     together take the most distinct paths (both sides of the program's conditions);
  3. on each kept input: eager outputs and input gradients (`sum(o.sum())` over float outputs,
     `.backward()`), then the same through one `to_static(f)` object (so its program cache is
     reused across inputs that take different paths), and compare. A program that says
     `SECOND_ORDER = True` gets its input gradients from `paddle.grad(..., create_graph=True)`
     and also the gradients of their sum (second order), compared the same way.
The classes: AGREE, MISMATCH (outputs, dtypes, shapes, structure or gradients differ),
STATIC_ERROR (to_static raised), EAGER_ERROR (the program itself is invalid: a generator bug).
CRASH and TIMEOUT are decided by the runner, which watches this process from outside.

`python -m tests.fuzz.worker` is the child-process loop: one JSON request per stdin line,
JSON events (`start`, `done`) on the original stdout; everything the program prints goes to
stderr so it cannot corrupt the protocol.
"""
import importlib
import importlib.util
import itertools
import json
import os
import re
import sys
import tempfile
import traceback

import numpy as np

from . import ensure_sampan

ensure_sampan()
import sampan as paddle  # noqa: E402

AGREE, MISMATCH, STATIC_ERROR, EAGER_ERROR = "AGREE", "MISMATCH", "STATIC_ERROR", "EAGER_ERROR"
CRASH, TIMEOUT = "CRASH", "TIMEOUT"
CLASSES = (AGREE, MISMATCH, STATIC_ERROR, CRASH, TIMEOUT, EAGER_ERROR)
RTOL, ATOL, SCALE_TOL = 1e-4, 1e-5, 1e-6


# -- what "static" means ---------------------------------------------------------------------
def _to_static(fn):
    # full_graph=True: the converter's graph is what the campaign checks (the default
    # mode would run a program whose trace reads a value as eager code; see
    # tests/jit/graph_breaks for that mode)
    return importlib.import_module("sampan.jit").to_static(fn, full_graph=True)


def _to_static_none_batch(fn):
    """to_static with an InputSpec whose first dimension is None for every input: shape-based
    Python control flow (`range(x.shape[0])`, `len(x)`) becomes runtime-valued."""
    spec = importlib.import_module("sampan.static").InputSpec
    shapes = fn.__globals__["INPUT_SHAPES"]
    specs = [spec([None] + list(s[1:]), "float32", name=n)
             for s, n in zip(shapes, fn.__code__.co_varnames)]
    return importlib.import_module("sampan.jit").to_static(fn, input_spec=specs,
                                                          full_graph=True)


def _identity(fn):
    return fn


def _fail_on_cos(fn):
    """Test double of a converter bug: refuses any program that calls paddle.cos."""
    def run(*args):
        if "paddle.cos(" in open(fn.__code__.co_filename).read():
            raise NotImplementedError("cannot convert cos")
        return fn(*args)
    return run


def _sin_off(fn):
    """Test double of a wrong static kernel: sin is off by 0.01 while the program runs."""
    def run(*args):
        real = paddle.sin
        paddle.sin = lambda x, name=None: real(x) + 0.01
        try:
            return fn(*args)
        finally:
            paddle.sin = real
    return run


STATIC_IMPLS = {"sampan": _to_static, "sampan_none_batch": _to_static_none_batch, "identity": _identity, "fail_on_cos": _fail_on_cos,
                "sin_off": _sin_off}


def static_available():
    jit = importlib.import_module("sampan.jit")
    return hasattr(jit, "to_static")


# -- programs and inputs ----------------------------------------------------------------------
def load_program(source, name, directory):
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def candidate_inputs(shapes, seed, n):
    """n input sets; means and scales vary so tensor conditions go both ways."""
    out = []
    for c in range(n):
        rng = np.random.RandomState((seed * 7919 + c * 104729) % (2 ** 32))
        arrays = []
        for shape in shapes:
            scale = 1.0 if c == 0 else rng.choice([0.3, 1.0, 2.0])
            shift = 0.0 if c == 0 else rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0])
            arrays.append((rng.randn(*shape) * scale + shift).astype("float32"))
        out.append(arrays)
    return out


def arcs_taken(fn, arrays, filename):
    """Line-to-line transitions executed inside the program's own file (a path signature)."""
    arcs, last = set(), {}

    def local(frame, event, arg):
        if event == "line":
            key = id(frame)
            arcs.add((last.get(key), frame.f_lineno))
            last[key] = frame.f_lineno
        return local

    def glob(frame, event, arg):
        return local if frame.f_code.co_filename == filename else None

    args = [paddle.to_tensor(a) for a in arrays]
    sys.settrace(glob)
    try:
        fn(*args)
    finally:
        sys.settrace(None)
    return arcs


def select_inputs(fn, candidates, filename, k):
    """Greedy: inputs adding the most new arcs, at least two (the cache must serve both)."""
    covers = [arcs_taken(fn, c, filename) for c in candidates]
    chosen, seen = [], set()
    while len(chosen) < k:
        gain, best = max((len(cov - seen), i) for i, cov in enumerate(covers) if i not in chosen)
        if gain == 0 and len(chosen) >= 2:
            break
        chosen.append(best)
        seen |= covers[best]
    return sorted(chosen)


# -- running and comparing ---------------------------------------------------------------------
def flatten(out, path="out"):
    """[(path, kind, value)] with kind in tensor/number/none/other; containers become
    ('container', type-name, length) entries so structure differences show."""
    if isinstance(out, (tuple, list)):
        leaves = [(path, "container", (type(out).__name__, len(out)))]
        for i, item in enumerate(out):
            leaves += flatten(item, "%s[%d]" % (path, i))
        return leaves
    if isinstance(out, paddle.Tensor):
        return [(path, "tensor", out)]
    if isinstance(out, (bool, int, float, np.number)):
        return [(path, "number", out)]
    if out is None:
        return [(path, "none", None)]
    return [(path, "other", repr(out)[:80])]


def execute(fn, arrays, order=1):
    """Outputs (path, kind, value, stop_gradient, dtype) and input gradients of one call; with
    order=2 also the second-order input gradients: d/dx of the sum of the first ones, taken
    with `paddle.grad(create_graph=True)` (None where no first gradient depends on x)."""
    args = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    leaves = flatten(fn(*args))
    record, terms = [], []
    for path, kind, val in leaves:
        if kind == "tensor":
            record.append((path, kind, np.array(val.numpy()), val.stop_gradient, str(val.dtype)))
            if "float" in str(val.dtype) and not val.stop_gradient:
                term = val.sum()
                terms.append(term if "float32" in str(val.dtype) else term.astype("float32"))
        else:
            record.append((path, kind, val, None, None))
    loss = None
    for t in terms:
        loss = t if loss is None else loss + t
    if order == 1:
        if loss is not None:
            loss.backward()
        return record, [None if a.grad is None else np.array(a.grad) for a in args]
    firsts = [None] * len(args) if loss is None else \
        paddle.grad(loss, args, create_graph=True, allow_unused=True)
    grads = [None if g is None else np.array(g.numpy()) for g in firsts]
    live = [g for g in firsts if g is not None and not g.stop_gradient]
    seconds = [None] * len(args)
    if live:
        total = live[0].sum()
        for g in live[1:]:
            total = total + g.sum()
        seconds = paddle.grad(total, args, allow_unused=True)
    return record, grads, [None if g is None else np.array(g.numpy()) for g in seconds]


def _value(kind, val):
    return np.asarray(val) if kind in ("tensor", "number") else val


def compare(eager, static):
    """None when the two runs agree, else (kind, message)."""
    (e_out, e_grads), (s_out, s_grads) = eager[:2], static[:2]
    if [(p, k) for p, k, *_ in e_out if k == "container"] != \
            [(p, k) for p, k, *_ in s_out if k == "container"] or len(e_out) != len(s_out):
        return "structure", "eager %s vs static %s" % (_shape_of(e_out), _shape_of(s_out))
    for (path, ek, ev, esg, edt), (_, sk, sv, ssg, sdt) in zip(e_out, s_out):
        if ek == "container":
            if ev != sv:
                return "structure", "%s: eager %s vs static %s" % (path, ev, sv)
            continue
        if {ek, sk} <= {"tensor", "number"}:
            a, b = _value(ek, ev), _value(sk, sv)
            if ek == sk == "tensor" and edt != sdt:
                return "dtype", "%s: eager %s vs static %s" % (path, edt, sdt)
            if a.shape != b.shape:
                return "shape", "%s: eager shape %s vs static %s" % (path, list(a.shape), list(b.shape))
            if not _close(a, b):
                return "value", "%s: %s" % (path, _diff(a, b))
            if esg is False and ssg is True:
                return "stop_gradient", "%s: eager output needs grad, static output has stop_gradient=True" % path
        elif (ek, ev) != (sk, sv):
            return "structure", "%s: eager %s %r vs static %s %r" % (path, ek, ev, sk, sv)
    bad = _compare_grads(e_grads, s_grads, "grad")
    if bad is None and len(eager) > 2:
        bad = _compare_grads(eager[2], static[2], "grad2")
    return bad


def _compare_grads(e_grads, s_grads, kind):
    what = "grad" if kind == "grad" else "second-order grad"
    for j, (eg, sg) in enumerate(zip(e_grads, s_grads)):
        if eg is None and sg is None:
            continue
        # An input the outputs do not depend on: eager leaves grad None, a zero grad is equal.
        eg = np.zeros_like(sg) if eg is None else eg
        if sg is None:
            if np.any(eg != 0):
                return kind, "input %d: eager %s %s, static %s None" % (j, what, _brief(eg), what)
            continue
        if eg.shape != sg.shape:
            return kind, "input %d: %s shape eager %s vs static %s" % (j, what, list(eg.shape), list(sg.shape))
        if not _close(eg, sg):
            return kind, "input %d %s: %s" % (j, what, _diff(eg, sg))
    return None


def _close(a, b):
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        a, b = a.astype("float64"), b.astype("float64")
        # float32 sums in another order differ by ~eps * the largest magnitude involved, so
        # near-zero entries of a large array (cancellation residue) get an absolute slack.
        finite = np.abs(np.concatenate([a[np.isfinite(a)], b[np.isfinite(b)]]))
        atol = ATOL + SCALE_TOL * (finite.max() if finite.size else 0.0)
        return np.allclose(a, b, rtol=RTOL, atol=atol, equal_nan=True)
    return np.array_equal(a, b)


def _brief(a):
    return np.array2string(np.asarray(a), precision=4, threshold=12).replace("\n", "")


def _diff(a, b):
    err = np.max(np.abs(a.astype("float64") - b.astype("float64"))) if a.size else 0.0
    return "max abs diff %.3g; eager %s vs static %s" % (err, _brief(a), _brief(b))


def _shape_of(out):
    return [(p, k) for p, k, *_ in out]


def _exc_info(exc, phase):
    lines = str(exc).strip().splitlines() or [""]
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return {"phase": phase, "exc_type": type(exc).__name__, "message": lines[0][:300],
            "full_message": str(exc)[:2000], "traceback": "".join(tb)[-4000:]}


def check_program(source, seed=0, static="sampan", inputs=None, k=3, n_candidates=8,
                  name=None, directory=None):
    """Judge one program. `inputs` (list of input sets, each a list of arrays) overrides the
    coverage-driven choice (the shrinker pins the failing input this way)."""
    directory = directory or _scratch()
    name = name or "fuzz_prog_%d" % next(_NAMES)  # a fresh file and module per program
    res = {"status": AGREE, "notes": []}
    try:
        mod = load_program(source, name, directory)
        fn = getattr(mod, getattr(mod, "ENTRY", "f"))
        if inputs is None:
            cands = candidate_inputs(mod.INPUT_SHAPES, seed, n_candidates)
            inputs = [cands[i] for i in select_inputs(fn, cands, mod.__file__, k)]
        inputs = [[np.asarray(a, dtype="float32") for a in s] for s in inputs]
        order = 2 if getattr(mod, "SECOND_ORDER", False) else 1
        eager = [execute(fn, arrays, order) for arrays in inputs]
    except Exception as exc:  # the program itself is broken: a generator (or shrinker) bug
        res.update(status=EAGER_ERROR, **_exc_info(exc, "eager"))
        return res
    finally:
        if not paddle.in_dynamic_mode():
            paddle.disable_static()
    try:
        phase = "to_static"
        sfn = STATIC_IMPLS[static](fn) if static in STATIC_IMPLS else _resolve(static)(fn)
        for idx, arrays in enumerate(inputs):
            phase = "call"
            got = execute(sfn, arrays, order)
            bad = compare(eager[idx], got)
            if bad:
                res.update(status=MISMATCH, kind=bad[0], message=bad[1], input_index=idx,
                           inputs=[a.tolist() for a in arrays])
                break
            if not paddle.in_dynamic_mode():
                res.update(status=MISMATCH, kind="mode_leak", input_index=idx,
                           message="static mode still enabled after the to_static call returned",
                           inputs=[a.tolist() for a in arrays])
                break
        traced = getattr(sfn, "get_traced_count", None)
        if res["status"] == AGREE and traced is not None and traced() == 0:
            # Agreement that never went through a program proves nothing (e.g. to_static
            # silently disabled): count it as a failure.
            res.update(status=MISMATCH, kind="not_traced", message="to_static traced no program")
        elif res["status"] == AGREE and traced is not None and traced() > 1:
            res["notes"].append("retraced: %d programs for one input signature" % traced())
    except Exception as exc:
        res.update(status=STATIC_ERROR, input_index=idx if phase == "call" else None,
                   inputs=[a.tolist() for a in arrays] if phase == "call" else None,
                   **_exc_info(exc, phase))
    finally:
        if not paddle.in_dynamic_mode():
            res["notes"].append("static mode leaked")
            paddle.disable_static()
        sys.modules.pop(name, None)
    res["n_inputs"] = len(inputs)
    return res


_SCRATCH = []
_NAMES = itertools.count()


def _scratch():
    """One temporary folder per process for programs judged in-process (removed at exit)."""
    if not _SCRATCH:
        _SCRATCH.append(tempfile.TemporaryDirectory(prefix="sampan_fuzz_"))
    return _SCRATCH[0].name


def _resolve(spec):
    mod, _, attr = spec.partition(":")
    return getattr(importlib.import_module(mod), attr)


def signature(res):
    """What 'fails the same way' means: class, and for errors the exception and its first line
    with numbers blurred; for mismatches the kind of difference."""
    status = res["status"]
    if status == STATIC_ERROR:
        msg = res.get("message", "").split(" at File ")[0]  # where it happened is not what
        msg = re.sub(r'File "[^"]*"', "File", msg)          # happened
        msg = re.sub(r"\d+", "#", msg)
        while re.search(r"\[[^\[\]]*\]", msg):  # shapes and list descriptions vary per program
            msg = re.sub(r"\[[^\[\]]*\]", "<>", msg)
        msg = msg[:100]
        return "%s:%s:%s:%s" % (status, res.get("phase"), res.get("exc_type"), msg)
    if status == MISMATCH:
        return "%s:%s" % (status, res.get("kind"))
    if status == CRASH:
        return "%s:%s" % (status, res.get("returncode"))
    return status


# -- the child-process loop ---------------------------------------------------------------------
def main():
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)                      # native writes to fd 1 land on stderr too
    sys.stdout = sys.stderr
    with tempfile.TemporaryDirectory(prefix="sampan_fuzz_") as directory:
        for line in sys.stdin:
            if not line.strip():
                continue
            req = json.loads(line)
            proto.write(json.dumps({"id": req["id"], "event": "start"}) + "\n")
            res = check_program(req["source"], req.get("seed", 0), req.get("static", "sampan"),
                                req.get("inputs"), req.get("k", 3), name="fz_" + _safe(req["id"]),
                                directory=directory)
            proto.write(json.dumps({"id": req["id"], "event": "done", "result": res}) + "\n")


def _safe(text):
    return re.sub(r"\W", "_", str(text))


if __name__ == "__main__":
    main()
