"""Runs mutants in this process and classifies each (mutant, loader) outcome.

``python -m tests.faults.worker`` is the child-process loop of the campaign: one JSON request
per stdin line (``{"mutant": id, "level": ..., "loaders": [...]}``), JSON events on the
original stdout (``start`` before each loader, ``done`` with its result, ``end`` after the
mutant); anything a loader prints goes to stderr so it cannot corrupt the protocol. The
process works in a scratch folder of its own (its cwd), where the mutant's files are written.

Outcomes of one loader on one mutant (the campaign adds CRASH and HANG from outside):
CLEAN_ERROR (an error class defined by sampan -- FormatError, OpError of any kind (an OpError
is an instance of the builtin class Paddle raises: ValueError, or RuntimeError for an op with
no kernel for a dtype, ...) -- whose message names a file of the model; or a builtin
ValueError/FileNotFoundError raised by sampan's own code that names it), SAME_OUTPUT, DATA_CHANGED (different outputs where the mutant allows
it: tensor payload bytes, attribute values), SILENT_WRONG (different outputs otherwise),
BAD_ERROR (any other exception, or a message not naming the file), REJECTS_VALID (an error on a
valid variant of the file), EXECUTED_CODE (a pickle in the file ran code).
"""
import atexit
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
import traceback

import numpy as np

from . import MODELS_DIR, REPO_ROOT, TESTS_DIR, ensure_sampan
from . import mutate as M
from . import regions as R
from .mutate_files import SENTINEL
from .wellformed import problems

ensure_sampan()
import sampan as paddle  # noqa: E402
from sampan.inference import Config, create_predictor  # noqa: E402

CLEAN_ERROR, SAME_OUTPUT, DATA_CHANGED = "CLEAN_ERROR", "SAME_OUTPUT", "DATA_CHANGED"
SILENT_WRONG, BAD_ERROR, REJECTS_VALID = "SILENT_WRONG", "BAD_ERROR", "REJECTS_VALID"
EXECUTED_CODE, CRASH, HANG = "EXECUTED_CODE", "CRASH", "HANG"
ALLOWED = (CLEAN_ERROR, SAME_OUTPUT, DATA_CHANGED)
# worst first: the outcome of a mutant is its worst over the loaders
SEVERITY = (CRASH, HANG, EXECUTED_CODE, SILENT_WRONG, REJECTS_VALID, BAD_ERROR, DATA_CHANGED,
            CLEAN_ERROR, SAME_OUTPUT)
LOADERS = ("jit", "static", "predictor")
PREFIX = "model"


# ------------------------------------------------------------------ loaders
def run_jit(prefix, input_sets):
    layer = paddle.jit.load(prefix)
    layer.eval()
    outs = []
    with paddle.no_grad():
        for arrays in input_sets:
            res = layer(*[paddle.to_tensor(a) for a in arrays])
            res = res if isinstance(res, (list, tuple)) else [res]
            outs.append([np.asarray(r.numpy()) for r in res])
    return outs


def run_static(prefix, input_sets):
    exe = paddle.static.Executor()
    with paddle.static.scope_guard(paddle.static.Scope()):   # no values from earlier mutants
        program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        return [[np.asarray(o) for o in exe.run(program, feed=dict(zip(feeds, arrays)),
                                               fetch_list=fetches)]
                for arrays in input_sets]


def run_predictor(prefix, input_sets):
    predictor = create_predictor(Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    return [[np.asarray(o) for o in predictor.run(list(arrays))] for arrays in input_sets]


RUN = {"jit": run_jit, "static": run_static, "predictor": run_predictor}


def input_sets(model):
    """The model's input sets (inputs.npz, inputs_alt.npz) as arrays in ``col`` order."""
    desc = M.model_files(model).desc
    feeds = sorted((next(a.i for a in op.attrs if a.name == "col"), op.outputs[0].arguments[0])
                   for op in desc.blocks[0].ops if op.type == "feed")
    sets = []
    for fname in ("inputs.npz", "inputs_alt.npz"):
        path = os.path.join(MODELS_DIR, model, fname)
        if os.path.isfile(path):
            with np.load(path) as z:
                sets.append([z[name] for _, name in feeds])
    return sets


# ------------------------------------------------------------------ judging
def same_outputs(got, want):
    if len(got) != len(want):
        return False
    for g_set, w_set in zip(got, want):
        if len(g_set) != len(w_set):
            return False
        for g, w in zip(g_set, w_set):
            if g.shape != w.shape or g.dtype != w.dtype:
                return False
            if not np.array_equal(g, w, equal_nan=g.dtype.kind in "fc"):
                if g.dtype.kind not in "fc" or not np.allclose(g, w, rtol=1e-6, atol=1e-7,
                                                               equal_nan=True):
                    return False
    return True


def change_allowed(mutant, data):
    """May this mutant legitimately change outputs? (see mutate.Mutant.change)"""
    if mutant.change == "value":
        return True
    if data is None:
        return False
    if mutant.change == "wellformed":
        desc = R.parse(data)
        return desc is not None and not problems(desc)
    if mutant.change != "auto":
        return False
    mf = M.model_files(mutant.model)
    if mutant.file == "pdiparams":
        return R.payload_only(mf.bytes["pdiparams"], data, mf.records)
    if mutant.file == "pdmodel":
        sk = R.skeleton(data)
        return sk is not None and sk == mf.skeleton
    return False


def _sampan_frame(tb):
    """The innermost frame of the traceback, and whether it is sampan's own code."""
    frames = traceback.extract_tb(tb)
    if not frames:
        return "?", False
    f = frames[-1]
    path = os.path.abspath(f.filename)
    own = path.startswith(REPO_ROOT + os.sep) and not path.startswith(TESTS_DIR + os.sep)
    return f"{os.path.relpath(path, REPO_ROOT) if own else path}:{f.lineno} {f.name}", own


def classify_error(exc, folder):
    """(outcome, reason) of an exception raised by a loader on the files in ``folder``."""
    msg = str(exc)
    named = folder in msg or any(f in msg for f in M.FILES.values())
    where, own = _sampan_frame(exc.__traceback__)
    kind = type(exc)
    mod = kind.__module__ or ""
    if isinstance(exc, (ValueError, paddle.ops.OpError)) and (
            mod == "sampan" or mod.startswith("sampan.")):
        if named:
            return CLEAN_ERROR, kind.__name__
        return BAD_ERROR, f"{kind.__name__} does not name the file"
    if kind in (ValueError, FileNotFoundError) and own:
        if named:
            return CLEAN_ERROR, f"builtin {kind.__name__} from sampan"
        return BAD_ERROR, f"builtin {kind.__name__} does not name the file"
    return BAD_ERROR, f"bare {kind.__name__} at {where}"


# ------------------------------------------------------------------ one mutant
class Bench:
    """The scratch folder, the unmutated outputs per (model, loader), the mutant on disk."""

    def __init__(self, root):
        self.root = root
        self.folder = os.path.join(root, "m")
        os.makedirs(self.folder, exist_ok=True)
        self.baselines = {}
        self.current = None

    def baseline(self, model, loader):
        key = (model, loader)
        if key not in self.baselines:
            prefix = os.path.join(MODELS_DIR, model, PREFIX)
            with contextlib.redirect_stdout(sys.stderr):
                self.baselines[key] = RUN[loader](prefix, input_sets(model))
        return self.baselines[key]

    def place(self, mutant, data):
        """Write the model's files with ``mutant``'s replacement into the scratch folder."""
        if self.current == mutant.id:
            return
        for f in os.listdir(self.folder):
            os.remove(os.path.join(self.folder, f))
        mf = M.model_files(mutant.model)
        for key, fname in M.FILES.items():
            content = data if key == mutant.file else mf.bytes[key]
            if content is not None:
                with open(os.path.join(self.folder, fname), "wb") as fh:
                    fh.write(content)
        self.current = mutant.id

    def check(self, mutant, loader):
        """The result dict of one loader on one mutant."""
        data = mutant.make()
        self.place(mutant, data)
        base = self.baseline(mutant.model, loader)
        result = {"id": mutant.id, "model": mutant.model, "file": mutant.file,
                  "cls": mutant.cls, "loader": loader}
        sentinel = os.path.join(self.root, SENTINEL)
        try:
            with contextlib.redirect_stdout(sys.stderr):
                got = RUN[loader](os.path.join(self.folder, PREFIX), input_sets(mutant.model))
        except Exception as exc:        # noqa: BLE001 -- judging the exception is the point
            outcome, reason = classify_error(exc, self.folder)
            if mutant.expect_same:
                outcome, reason = REJECTS_VALID, f"{type(exc).__name__} on a valid file"
            result.update(outcome=outcome, reason=reason, error=type(exc).__name__,
                          message=str(exc)[:600], where=_sampan_frame(exc.__traceback__)[0])
        else:
            if same_outputs(got, base):
                result.update(outcome=SAME_OUTPUT)
            elif change_allowed(mutant, data):
                result.update(outcome=DATA_CHANGED)
            else:
                result.update(outcome=SILENT_WRONG, reason="runs with different outputs")
        if os.path.exists(sentinel):
            os.rmdir(sentinel)
            result.update(outcome=EXECUTED_CODE, reason="unpickling ran os.mkdir from the file")
        return result


def repro(mutant_id, level="full", loaders=LOADERS, keep=None):
    """Run one mutant here, printing each loader's traceback (for a failure report)."""
    mutant = M.by_id(mutant_id, level)
    root = keep or tempfile.mkdtemp(prefix="sampan_fault_")
    os.chdir(root)
    bench = Bench(root)
    for loader in loaders:
        res = bench.check(mutant, loader)
        print(json.dumps(res, indent=1))
        if res.get("error"):
            try:
                RUN[loader](os.path.join(bench.folder, PREFIX), input_sets(mutant.model))
            except Exception:       # noqa: BLE001
                traceback.print_exc()
    print(f"files: {bench.folder}")


# ------------------------------------------------------------------ the child loop
def _limit_memory():
    try:
        import resource
        cap = 6 << 30
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (ImportError, ValueError, OSError):
        pass


def _selftest(req, send):
    """Test double for the campaign's isolation: with the ``jit`` loader ``selftest:crash``
    kills this process and ``selftest:hang`` never answers; otherwise SAME_OUTPUT."""
    kind = req["mutant"].split(":", 1)[1]
    for loader in req.get("loaders", LOADERS):
        send({"ev": "start", "loader": loader})
        if kind == "crash" and loader == "jit":
            os._exit(3)
        if kind == "hang" and loader == "jit":
            time.sleep(3600)
        send({"ev": "done", "result": {"id": req["mutant"], "loader": loader,
                                       "outcome": SAME_OUTPUT}})
    send({"ev": "end"})


def main():
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())      # prints cannot reach the protocol
    _limit_memory()
    root = os.environ.get("SAMPAN_FAULT_SCRATCH")     # the campaign's, removed by it
    if not root:
        root = tempfile.mkdtemp(prefix="sampan_fault_worker_")
        atexit.register(shutil.rmtree, root, True)
    os.chdir(root)
    bench = Bench(root)
    send = lambda ev: out.write(json.dumps(ev) + "\n")     # noqa: E731
    send({"ev": "ready"})
    for line in sys.stdin:
        req = json.loads(line)
        if req["mutant"].startswith("selftest:") and os.environ.get("SAMPAN_FAULT_SELFTEST"):
            _selftest(req, send)
            continue
        mutant = M.by_id(req["mutant"], req.get("level", "full"))
        for loader in req.get("loaders", LOADERS):
            send({"ev": "start", "loader": loader})
            send({"ev": "done", "result": bench.check(mutant, loader)})
        send({"ev": "end"})


if __name__ == "__main__":
    main()
