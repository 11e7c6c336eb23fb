"""Benchmark runner: the performance workloads of ``../shared/perf/README.md`` on
sampan, each row a ratio to the plain-numpy floor timed in the same process,
round-robin with it (``harness.interleaved``), so the ratio survives a noisy
machine.

    python benchmarks/run.py                       # every row, 1 thread
    python benchmarks/run.py --rows W1 --samples 21
    python benchmarks/run.py --profile "W1 eager fwd"
    python benchmarks/run.py --peer-python ~/.cache/sampan-bench/torch/bin/python

The sampan imported is this checkout (not an installed copy).  Rows come from
``rows_*.py`` beside this file (see ``rows.py``).  ``--strict`` exits 1 when a
row misses its target or fails.  ``--peer-python`` (or ``SAMPAN_PEER_PYTHON``):
a Python that has torch, which runs ``peers_torch.py`` on the selected rows'
workloads after sampan's; each row then shows PyTorch's ratio on its workload
(its own floor, timed in its own process) in a ``torch`` column.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PERF_DIR = os.environ.get("SAMPAN_PERF_DIR",
                          os.path.join(os.path.dirname(ROOT), "shared", "perf"))
sys.path[:0] = [HERE, PERF_DIR]

import harness  # noqa: E402  (first: pins math-library threads before numpy loads)
import argparse  # noqa: E402
import contextlib  # noqa: E402
import cProfile  # noqa: E402
import io  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import pstats  # noqa: E402
import subprocess  # noqa: E402

import floor_numpy as fl  # noqa: E402
from rows import all_rows  # noqa: E402


def load_checkout():
    """Import this checkout as ``sampan``."""
    spec = importlib.util.spec_from_file_location(
        "sampan", os.path.join(ROOT, "__init__.py"), submodule_search_locations=[ROOT])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sampan"] = mod
    spec.loader.exec_module(mod)
    return mod


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=1, help="math-library threads (harness)")
    ap.add_argument("--rows", default="", help="substring filter on row labels, comma list")
    ap.add_argument("--samples", type=int, default=11)
    ap.add_argument("--target", type=float, default=0.05, help="seconds per timing sample")
    ap.add_argument("--out", default=None, help="also append JSON-line records here")
    ap.add_argument("--profile", default=None, metavar="LABEL",
                    help="cProfile one row instead of timing (top 15 by own time)")
    ap.add_argument("--strict", action="store_true", help="exit 1 if a row misses its target")
    ap.add_argument("--peer-python", default=os.environ.get("SAMPAN_PEER_PYTHON"),
                    help="a Python with torch: PyTorch's ratio beside each row (peers_torch.py)")
    ap.add_argument("--peer-no-compile", action="store_true",
                    help="skip PyTorch's torch.compile variants (their first calls are slow)")
    return ap.parse_args()


def selected(rows, spec):
    keys = [k.strip().lower() for k in spec.split(",") if k.strip()]
    return [r for r in rows if not keys or any(k in r.label.lower() for k in keys)]


def measure(paddle, rows, args):
    """Time the rows of each workload interleaved with the floors they need.
    Returns one result dict per row."""
    results = []
    by_workload = {}
    for r in rows:
        by_workload.setdefault(r.workload, []).append(r)
    for w, wrows in by_workload.items():
        unit, scale = fl.UNITS[w]
        floors = fl.floor_cases(w)
        fns, made = {}, {}
        for r in wrows:
            try:
                seed(paddle)
                fn, checks = r.make(paddle)
                fn()
                fns[r.label], made[r.label] = fn, checks
            except Exception as e:  # a missing piece of the engine: reported, not fatal
                results.append(dict(row=r, error=f"{type(e).__name__}: {e}"[:120]))
        for v in sorted({r.floor for r in wrows if r.label in fns}):
            fns[v] = floors[v]
        if not made:
            continue
        res, inner = harness.interleaved(fns, args.samples, args.target)
        med = {}
        for k, v in res.items():
            with contextlib.redirect_stdout(io.StringIO()):  # JSON lines go to --out only
                rec = harness.emit(w.upper(), k, unit, [t * scale for t in v],
                                   inner=inner[k], checks=made.get(k))
            med[k] = rec["median"]
        for r in wrows:
            if r.label in made:
                results.append(dict(row=r, unit=unit, median=med[r.label],
                                    floor=med[r.floor], ratio=med[r.label] / med[r.floor],
                                    checks=made[r.label]))
    order = {id(r): i for i, r in enumerate(rows)}
    return sorted(results, key=lambda x: order[id(x["row"])])


def measure_peers(python, rows, args):
    """{(workload, variant): record} of PyTorch on the workloads of ``rows`` that
    name a peer, from ``peers_torch.py`` run by ``python``; {} (with a note on
    stderr) when it cannot run."""
    workloads = sorted({r.workload for r in rows if r.peer})
    if not python or not workloads:
        return {}
    cmd = [python, os.path.join(HERE, "peers_torch.py"), "--workloads", ",".join(workloads),
           "--samples", str(args.samples), "--target", str(args.target),
           "--threads", str(args.threads)] + (["--no-compile"] if args.peer_no_compile else [])
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600,
                              env=dict(os.environ, SAMPAN_PERF_DIR=PERF_DIR))
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"peer run failed ({' '.join(cmd)}): {e}", file=sys.stderr)
        return {}
    if proc.returncode != 0:
        print(f"peer run failed with exit status {proc.returncode} ({' '.join(cmd)}):\n"
              f"{proc.stderr[-2000:]}", file=sys.stderr)
        return {}
    peers = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            rec = json.loads(line)
            peers[rec["workload"], rec["variant"]] = rec
    return peers


def _peer_cell(row, peers):
    rec = peers.get((row.workload, row.peer)) or peers.get((row.workload, "*"))
    if rec is None:
        return ""
    if "error" in rec:
        return "torch error"
    return f"{rec['ratio']:.2f}x {row.peer}"


def print_table(results, out=sys.stdout, peers=None):
    peer_col = bool(peers)
    head = (f"{'row':<24} {'median':>16} {'floor median':>16} {'ratio':>8} {'target':>8}  ok  "
            + (f"  {'torch':<20}" if peer_col else "") + "  check")
    print(head, file=out)
    print("-" * len(head), file=out)
    for x in results:
        r = x["row"]
        peer = f"  {_peer_cell(r, peers):<20}" if peer_col else ""
        if "error" in x:
            print(f"{r.label:<24} {'error':>16} {'':>16} {'':>8} {'<=%gx' % r.target:>8}  "
                  f"FAIL{peer}  {x['error']}", file=out)
            continue
        ok = "yes" if x["ratio"] <= r.target else "NO"
        checks = ", ".join(f"{k}={v:.1e}" for k, v in x["checks"].items())
        print(f"{r.label:<24} {x['median']:>8.3f} {x['unit']:<7} {x['floor']:>8.3f} "
              f"{x['unit']:<7} {x['ratio']:>7.2f}x {'<=%gx' % r.target:>8}  {ok:<4}{peer}  "
              f"{checks}", file=out)


def seed(paddle):
    if hasattr(paddle, "seed"):   # rows build their models from a fixed seed
        paddle.seed(0)


def profile(paddle, row, calls=200):
    seed(paddle)
    fn, _ = row.make(paddle)
    fn()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    print(f"cProfile of '{row.label}', {calls} calls, top 15 by own time:")
    pstats.Stats(prof).sort_stats("tottime").print_stats(15)


def main():
    args = parse_args()
    paddle = load_checkout()
    harness.open_out(args.out)
    harness.set_meta(**harness.base_meta("sampan", paddle.__version__), impl="sampan")
    rows = selected(all_rows(), args.rows)
    if args.profile:
        matches = [r for r in rows if r.label.lower() == args.profile.lower()]
        if not matches:
            sys.exit(f"no row labelled {args.profile!r}; rows: {[r.label for r in rows]}")
        profile(paddle, matches[0])
        return 0
    results = measure(paddle, rows, args)
    peers = measure_peers(args.peer_python, rows, args)
    print()
    from sampan.kernels.blas_threads import blas_core
    print(f"sampan {paddle.__version__}, {args.threads} thread(s), medians of "
          f"{args.samples} samples; ratio = sampan / numpy floor (same process, interleaved); "
          f"OpenBLAS kernels: {blas_core()}")
    versions = sorted({rec["torch"] for rec in peers.values() if "torch" in rec})
    if versions:
        print(f"torch: PyTorch {', '.join(versions)} on the same workload, its ratio to the "
              "numpy floor timed in its own process (benchmarks/peers_torch.py)")
    print_table(results, peers=peers)
    bad = [x for x in results if "error" in x or x["ratio"] > x["row"].target]
    return 1 if args.strict and bad else 0


if __name__ == "__main__":
    sys.exit(main())
