"""Peak memory of checkpoint I/O: ``save``/``load``/``jit.save``/``jit.load`` of a
100M-parameter float32 model (25 x ``Linear(2000, 2000)``, 400 MB), each in a fresh
subprocess, for this checkout's sampan and, when its side venv exists, real Paddle 2.6.2.

    python benchmarks/memory.py                    # sampan, and Paddle if its venv exists
    python benchmarks/memory.py --layers 5         # a smaller model (20M parameters)
    python benchmarks/memory.py --no-paddle --out /tmp/mem.jsonl

A row is the peak RSS of the child beyond the model itself, in MB (10^6 bytes, the issue's
unit): for ``save`` and ``jit.save`` the peak minus the RSS once the model is built (the
model is in the baseline); for ``load`` and ``jit.load`` the peak minus the RSS before
loading, minus the model's bytes (what loading must hold anyway; the ``+model`` rows keep
them in).  The baseline is taken after ``gc.collect()`` and glibc's ``malloc_trim(0)`` (so
memory freed while building the model is not counted as free room), and the peak is
``ru_maxrss``, reset to the current RSS (``/proc/self/clear_refs``) then, so building the
model does not count.  Paddle runs in ``$SAMPAN_INTEROP_CACHE/paddle-2.6.2`` (default
``~/.cache/sampan-interop``, made by ``tests/interop``), never in sampan's process.
"""
import argparse
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MB = 10 ** 6
WORKLOADS = ("save", "load", "jit.save", "jit.load")
# Paddle 2.6.2's figures from the issue (MB beyond the model), and the targets (half)
ISSUE_PADDLE = {"save": 768, "load": 449}
TARGET = {"save": 384, "load": 224}


# ---------------------------------------------------------------- the child
def _rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _reset_peak():
    """Make ru_maxrss restart from the current RSS (Linux >= 4.0); False if not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _trim():
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def _import_engine(engine):
    if engine == "paddle":
        import paddle
        paddle.set_device("cpu")
        return paddle
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "sampan", os.path.join(ROOT, "__init__.py"), submodule_search_locations=[ROOT])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sampan"] = mod
    spec.loader.exec_module(mod)
    return mod


def _net(paddle, layers, width):
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fcs = paddle.nn.LayerList([paddle.nn.Linear(width, width)
                                            for _ in range(layers)])

        def forward(self, x):
            for fc in self.fcs:
                x = fc(x)
            return x
    return Net()


def _spec(paddle, width):
    return [paddle.static.InputSpec([None, width], "float32", "x")]


def child(engine, workload, folder, layers, width):
    paddle = _import_engine(engine)
    pdparams = os.path.join(folder, "model.pdparams")
    prefix = os.path.join(folder, "jit", "model")
    model_bytes = layers * (width * width + width) * 4
    if workload in ("save", "jit.save"):
        net = _net(paddle, layers, width)
        net.eval()
    else:  # warm up: the modules a first load imports are not what is measured
        small = os.path.join(folder, "warm")
        tiny = _net(paddle, 1, 4)
        if workload == "load":
            paddle.save(tiny.state_dict(), small + ".pdparams")
            paddle.load(small + ".pdparams")
        else:
            paddle.jit.save(tiny, small, input_spec=_spec(paddle, 4))
            paddle.jit.load(small)
        del tiny
    gc.collect()
    _trim()
    base = _rss()
    reset = _reset_peak()
    t0 = time.perf_counter()
    if workload == "save":
        paddle.save(net.state_dict(), pdparams)
    elif workload == "jit.save":
        paddle.jit.save(net, prefix, input_spec=_spec(paddle, width))
    elif workload == "load":
        kept = paddle.load(pdparams)
    else:
        kept = paddle.jit.load(prefix)
    seconds = time.perf_counter() - t0
    peak = _peak()
    extra = peak - base - (model_bytes if workload in ("load", "jit.load") else 0)
    if workload == "load":
        assert len(kept) == 2 * layers, sorted(kept)[:4]
    print(json.dumps({"engine": engine, "workload": workload, "extra_mb": extra / MB,
                      "base_mb": base / MB, "peak_mb": peak / MB,
                      "model_mb": model_bytes / MB, "seconds": seconds,
                      "peak_reset": reset}))


# ---------------------------------------------------------------- the parent
def paddle_python():
    root = os.path.abspath(os.path.expanduser(
        os.environ.get("SAMPAN_INTEROP_CACHE") or os.path.join("~", ".cache", "sampan-interop")))
    py = os.path.join(root, "paddle-2.6.2", "bin", "python")
    return py if os.path.isfile(py) else None


def run_child(python, engine, workload, folder, args):
    cmd = [python, os.path.abspath(__file__), "--child", engine, workload, "--dir", folder,
           "--layers", str(args.layers), "--width", str(args.width)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               GLOG_minloglevel="2")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-6:]
        return {"engine": engine, "workload": workload, "error": " | ".join(tail)}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _fmt(v, spec=".0f"):
    if v is None:
        return "-"
    out = format(v, spec)
    return out[1:] if out.startswith("-") and float(out) == 0 else out  # no "-0" from noise


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, default=25, help="Linear layers (4M params each)")
    ap.add_argument("--width", type=int, default=2000)
    ap.add_argument("--no-paddle", action="store_true", help="skip real Paddle even if found")
    ap.add_argument("--out", default=None, help="also append JSON-line records here")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--child", nargs=2, metavar=("ENGINE", "WORKLOAD"), help=argparse.SUPPRESS)
    ap.add_argument("--dir", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child[0], args.child[1], args.dir, args.layers, args.width)

    engines = [("sampan", sys.executable)]
    ppy = None if args.no_paddle else paddle_python()
    if ppy:
        engines.append(("paddle", ppy))
    top = tempfile.mkdtemp(prefix="sampan-mem-")
    results = {}
    try:
        for engine, python in engines:
            folder = os.path.join(top, engine)
            os.makedirs(folder)
            for workload in WORKLOADS:
                r = run_child(python, engine, workload, folder, args)
                results[engine, workload] = r
                if args.out:
                    with open(args.out, "a") as fh:
                        fh.write(json.dumps(r) + "\n")
    finally:
        shutil.rmtree(top, ignore_errors=True)

    params = args.layers * (args.width * args.width + args.width)
    print(f"peak RSS beyond the model, MB: {params / 1e6:.1f}M float32 parameters "
          f"({params * 4 / MB:.0f} MB), fresh process per row"
          + ("" if ppy or args.no_paddle else "; no Paddle venv found"))
    head = ("workload", "sampan", "paddle 2.6.2", "ratio", "target", "issue's paddle",
            "sampan s", "paddle s")
    line = "%-16s %8s %13s %7s %8s %15s %9s %9s"
    print(line % head)
    for w in WORKLOADS:
        s, p = results.get(("sampan", w), {}), results.get(("paddle", w), {})
        for r in (s, p):
            if "error" in r:
                print(f"  {r['engine']} {w} failed: {r['error']}")
        rows = [(w, 0)]
        if w.endswith("load"):
            rows.append((w + " (+model)", 1))
        for label, with_model in rows:
            se, pe = (r.get("extra_mb") for r in (s, p))
            if with_model:
                se, pe = (None if v is None else v + r["model_mb"] for v, r in ((se, s), (pe, p)))
            ratio = se / pe if se is not None and pe else None
            target = TARGET.get(w) if not with_model else None
            print(line % (label, _fmt(se), _fmt(pe), _fmt(ratio, ".2f"),
                          f"<= {target}" if target else "-",
                          _fmt(ISSUE_PADDLE.get(w) if not with_model else None),
                          _fmt(s.get("seconds"), ".2f") if not with_model else "",
                          _fmt(p.get("seconds"), ".2f") if not with_model else ""))
    if not all(r.get("peak_reset", True) for r in results.values()):
        print("note: /proc/self/clear_refs was not writable; peaks include building the model")


if __name__ == "__main__":
    sys.exit(main())
