"""The fault-injection campaign: mutants of the reference models through crash- and
hang-isolated worker processes (``tests/faults/worker.py``), with counts by class and outcome.

    python -m tests.faults.campaign --models all --out DIR [--level full|ci] [--jobs 2]
                                    [--timeout 30] [--classes PREFIX,...] [--limit N]
    python -m tests.faults.campaign --repro MUTANT_ID [--level full]   # tracebacks, in-process

Each worker serves mutants one after another and announces each loader before running it, so a
worker that dies (CRASH) or stops answering (HANG, after ``--timeout`` seconds) is charged to
one (mutant, loader); the runner kills it, records that, and gives the rest to a fresh worker.
``--out`` gets ``results.jsonl`` (one line per mutant and loader), ``summary.json`` and
``failures.md`` (every outcome outside CLEAN_ERROR / SAME_OUTPUT / allowed DATA_CHANGED, with a
repro command).
"""
import argparse
import collections
import json
import os
import queue
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from . import MODELS, REPO_ROOT
from .worker import ALLOWED, CRASH, HANG, LOADERS, SEVERITY

STARTUP_S = 120        # a fresh worker imports sampan before it answers
RECYCLE = 3000         # mutants per worker before a fresh one (bounds memory growth)


def _env():
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    env["PYTHONHASHSEED"] = "0"
    return env


class Worker:
    """One child process running ``tests.faults.worker``."""

    def __init__(self):
        self.proc, self.buf, self.served = None, b"", 0

    def start(self):
        self.scratch = tempfile.mkdtemp(prefix="sampan_fault_worker_")
        env = dict(_env(), SAMPAN_FAULT_SCRATCH=self.scratch)
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.faults.worker"],
                                     cwd=REPO_ROOT, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buf, self.served, self.err = b"", 0, collections.deque(maxlen=40)
        threading.Thread(target=self._drain, args=(self.proc,), daemon=True).start()
        ev = self._event(time.monotonic() + STARTUP_S)
        if not isinstance(ev, dict) or ev.get("ev") != "ready":
            raise RuntimeError(f"fault worker did not start: {ev!r}\n{self.stderr()}")

    def _drain(self, proc):
        for line in proc.stderr:
            self.err.append(line.decode(errors="replace"))

    def stderr(self):
        return "".join(self.err)[-2000:]

    def stop(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None
            shutil.rmtree(self.scratch, ignore_errors=True)

    def _event(self, deadline):
        """The next JSON event; 'eof' when the process died; None at the deadline."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return "eof"
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def run(self, mutant_id, level, loaders, timeout):
        """Results for each loader of one mutant (CRASH/HANG results included)."""
        results, todo = [], list(loaders)
        while todo:
            if self.proc is None or self.proc.poll() is not None or self.served >= RECYCLE:
                self.stop()
                self.start()
            self.served += 1
            req = {"mutant": mutant_id, "level": level, "loaders": todo}
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
            current = None
            while True:
                ev = self._event(time.monotonic() + timeout)
                if isinstance(ev, dict) and ev["ev"] == "start":
                    current = ev["loader"]
                    continue
                if isinstance(ev, dict) and ev["ev"] == "done":
                    results.append(ev["result"])
                    todo.remove(ev["result"]["loader"])
                    continue
                if isinstance(ev, dict) and ev["ev"] == "end":
                    break
                # died or hung: charge the loader it was running, go on with a fresh worker
                outcome = CRASH if ev == "eof" else HANG
                code = self.proc.poll()
                self.stop()
                loader = current or todo[0]
                results.append({"id": mutant_id, "loader": loader, "outcome": outcome,
                                "reason": f"worker exit code {code}" if outcome == CRASH
                                else f"no answer in {timeout}s",
                                "message": self.stderr()[-600:]})
                todo.remove(loader)
                break
        return results


def run_mutants(mutants, level="ci", jobs=2, timeout=30, loaders=LOADERS, progress=None):
    """Results (dicts, see worker.Bench.check) of every loader on every mutant."""
    work = queue.Queue()
    for m in mutants:
        work.put(m)
    results, lock, errors = [], threading.Lock(), []
    meta = {m.id: m for m in mutants}

    def loop():
        w = Worker()
        try:
            while True:
                try:
                    m = work.get_nowait()
                except queue.Empty:
                    return
                got = w.run(m.id, level, loaders, timeout)
                for r in got:
                    r.setdefault("model", m.model)
                    r.setdefault("file", m.file)
                    r.setdefault("cls", m.cls)
                with lock:
                    results.extend(got)
                    if progress:
                        progress(len(results), len(meta) * len(loaders))
        except Exception as exc:    # noqa: BLE001 -- reported by the caller
            errors.append(exc)
        finally:
            w.stop()
    threads = [threading.Thread(target=loop) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    order = {m.id: i for i, m in enumerate(mutants)}
    results.sort(key=lambda r: (order[r["id"]], LOADERS.index(r["loader"])))
    return results


# ------------------------------------------------------------------ reporting
def worst(outcomes):
    return min(outcomes, key=SEVERITY.index)


def summarize(results):
    """Counts: per (mutant, loader) outcome, per mutant (worst over loaders), by class."""
    per_mutant = collections.defaultdict(list)
    for r in results:
        per_mutant[(r["id"], r["cls"], r["file"])].append(r["outcome"])
    mutant_outcome = {k: worst(v) for k, v in per_mutant.items()}
    by_class = collections.defaultdict(collections.Counter)
    for (_, cls, file), o in mutant_outcome.items():
        by_class[f"{file}:{cls}"][o] += 1
    return {
        "mutants": len(per_mutant),
        "runs": len(results),
        "by_outcome_runs": dict(collections.Counter(r["outcome"] for r in results)),
        "by_outcome_mutants": dict(collections.Counter(mutant_outcome.values())),
        "by_loader": {ld: dict(collections.Counter(r["outcome"] for r in results
                                                   if r["loader"] == ld)) for ld in LOADERS},
        "by_model": {m: dict(collections.Counter(o for (i, _, _), o in mutant_outcome.items()
                                                 if i.startswith(m + ":")))
                     for m in sorted({r["model"] for r in results})},
        "by_class": {k: dict(v) for k, v in sorted(by_class.items())},
        "failures": sum(1 for r in results if r["outcome"] not in ALLOWED),
    }


def failures(results):
    return [r for r in results if r["outcome"] not in ALLOWED]


def failure_report(results, level):
    """Markdown: failures grouped by (outcome, reason, class), one example each + repro."""
    groups = collections.defaultdict(list)
    for r in failures(results):
        groups[(r["outcome"], r.get("reason", ""), r["file"], r["cls"])].append(r)
    lines = [f"{len(failures(results))} failing runs in {len(groups)} groups\n"]
    for (outcome, reason, file, cls), rs in sorted(groups.items()):
        ex = rs[0]
        loaders = ", ".join(sorted({r["loader"] for r in rs}))
        first = (ex.get("message") or "").strip().splitlines()[:1] or [""]
        lines += [f"### {outcome}: {file}:{cls} ({len(rs)} runs; loaders {loaders})",
                  f"- reason: {reason}",
                  f"- example: `{ex['id']}` ({ex['loader']})",
                  f"- message: `{first[0][:300]}`",
                  f"- where: {ex.get('where', '')}",
                  f"- repro: `python -m tests.faults.campaign --repro '{ex['id']}' "
                  f"--level {level}`",
                  ""]
    return "\n".join(lines)


def _select(models, level, classes, limit, ids=None):
    from .mutate import all_mutants, pick
    ms = all_mutants(models, level)
    if ids is not None:
        ms = [m for m in ms if m.id in ids]
    if classes:
        ms = [m for m in ms if any(f"{m.file}:{m.cls}".startswith(c) or m.cls.startswith(c)
                                   for c in classes)]
    if limit:
        ms = pick(ms, limit, f"limit:{level}")
    return ms


def _read_ids(path):
    """Ids from a file: plain lines, or the failing lines of a results.jsonl."""
    if not path:
        return None
    ids = set()
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                if r["outcome"] not in ALLOWED:
                    ids.add(r["id"])
            elif line:
                ids.add(line)
    return ids


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tests.faults.campaign", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="all", help="comma list of " + ",".join(MODELS))
    ap.add_argument("--level", default="full", choices=("ci", "full"))
    ap.add_argument("--out", help="folder for results.jsonl, summary.json, failures.md")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per mutant and loader")
    ap.add_argument("--classes", default="", help="comma list of class prefixes to run")
    ap.add_argument("--limit", type=int, default=0, help="a deterministic sample of N mutants")
    ap.add_argument("--ids", help="a file of mutant ids to run (e.g. an earlier run's failures: "
                                  "one id per line, or its results.jsonl)")
    ap.add_argument("--repro", help="run one mutant id in this process, with tracebacks")
    args = ap.parse_args(argv)
    if args.repro:
        from .worker import repro
        repro(args.repro, args.level)
        return 0
    models = MODELS if args.models == "all" else tuple(args.models.split(","))
    classes = [c for c in args.classes.split(",") if c]
    ms = _select(models, args.level, classes, args.limit, _read_ids(args.ids))
    print(f"{len(ms)} mutants x {len(LOADERS)} loaders, {args.jobs} workers", flush=True)
    t0, last = time.time(), [0.0]

    def progress(done, total):
        if time.time() - last[0] > 10:
            last[0] = time.time()
            print(f"  {done}/{total} runs, {time.time() - t0:.0f}s", flush=True)
    results = run_mutants(ms, args.level, args.jobs, args.timeout, progress=progress)
    summary = summarize(results)
    summary["seconds"] = round(time.time() - t0, 1)
    summary["level"] = args.level
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "results.jsonl"), "w") as fh:
            for r in results:
                fh.write(json.dumps(r) + "\n")
        with open(os.path.join(args.out, "summary.json"), "w") as fh:
            json.dump(summary, fh, indent=1)
        with open(os.path.join(args.out, "failures.md"), "w") as fh:
            fh.write(failure_report(results, args.level))
    print(json.dumps({k: summary[k] for k in ("mutants", "runs", "by_outcome_mutants",
                                               "by_outcome_runs", "failures", "seconds")},
                     indent=1))
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
