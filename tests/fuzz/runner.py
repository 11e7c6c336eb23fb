"""Campaign runner: generated programs through crash- and hang-isolated worker processes.

Each worker (``python -m tests.fuzz.worker``) serves programs one at a time and announces
``start`` before each, so when a worker dies (CRASH) or stops answering (TIMEOUT) the runner
knows which program did it; it kills that worker, records the program, starts a fresh worker
and goes on with the rest of the batch. Several workers run in parallel (``--jobs``).

    python -m tests.fuzz.runner --n 10000 --seed 0 --out /tmp/fuzz [--jobs 8] [--shrink 10]

writes ``results.jsonl`` (one line per program), ``summary.json``, ``failures/<CLASS>_<seed>.py``
(each a runnable reproduction) and, with ``--shrink``, ``failures/<CLASS>_<seed>_min.py`` for
the smallest program of each distinct failure signature. ``--flags setitem_read,int_left_grad``
turns on constructs the CI range leaves out while they hit known bugs (gen.py, `Config`);
``--second-order P`` sets the share of programs whose second-order gradients are compared.
"""
import argparse
import collections
import json
import os
import queue
import select
import subprocess
import sys
import tempfile
import threading
import time

from . import REPO_ROOT
from .gen import Config, generate
from .worker import AGREE, CLASSES, CRASH, TIMEOUT, signature

STARTUP_S = 120  # a fresh worker imports sampan before it can announce its first program


class Worker:
    """One child process; `run(request)` returns that request's result dict."""

    def __init__(self, log_dir):
        self.log_path = os.path.join(log_dir, "worker_%d.log" % id(self))
        self.proc = None
        self.buf = b""
        self.served = 0

    def start(self):
        self.log = open(self.log_path, "w+b")
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.fuzz.worker"], cwd=REPO_ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log)
        self.buf, self.served = b"", 0

    def stop(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None
            self.log.close()

    def _event(self, deadline):
        """The next JSON event, 'eof' when the process died, None at the deadline."""
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

    def run(self, req, timeout, retried=False):
        if self.proc is None or self.proc.poll() is not None or self.served >= 500:
            self.stop()
            self.start()
        try:
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        started = self._event(time.monotonic() + STARTUP_S)
        if not isinstance(started, dict):
            # Died (or hung) before taking this program: not the program's doing, once.
            tail = self._tail()
            self.stop()
            if retried:
                raise RuntimeError("fuzz worker does not start:\n" + tail)
            return self.run(req, timeout, retried=True)
        done = self._event(time.monotonic() + timeout)
        self.served += 1
        if isinstance(done, dict):
            return done["result"]
        res = {"status": TIMEOUT if done is None else CRASH, "notes": []}
        if done is None:
            res["message"] = "no answer within %.0f s" % timeout
            self.stop()
        else:
            rc = self.proc.wait()
            res.update(returncode=rc, message="worker exited with %s" % rc, stderr_tail=self._tail())
            self.stop()
        return res

    def _tail(self, n=3000):
        try:
            self.log.flush()
            with open(self.log_path, "rb") as fh:
                return fh.read()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""


def run_requests(requests, jobs=2, timeout=30.0, on_result=None):
    """Results by request id; each request is a dict (id, source, seed, static, inputs, k)."""
    todo = queue.Queue()
    for r in requests:
        todo.put(r)
    results, lock = {}, threading.Lock()
    logs = tempfile.TemporaryDirectory(prefix="sampan_fuzz_logs_")
    log_dir = logs.name
    errors = []

    def serve():
        w = Worker(log_dir)
        try:
            while True:
                try:
                    req = todo.get_nowait()
                except queue.Empty:
                    return
                res = w.run(req, timeout)
                with lock:
                    results[req["id"]] = res
                    if on_result:
                        on_result(req, res)
        except Exception as exc:  # infrastructure failure: surface it, do not hide it
            errors.append(exc)
        finally:
            w.stop()

    threads = [threading.Thread(target=serve, daemon=True) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    logs.cleanup()
    if errors:
        raise errors[0]
    return results


# -- reproductions ------------------------------------------------------------------------------
BOOTSTRAP = '''import os
import sys

if "sampan" not in sys.modules:  # the repository root is the package: load that checkout
    import importlib.util
    _root = os.environ.get("SAMPAN_ROOT", {root!r})
    _spec = importlib.util.spec_from_file_location(
        "sampan", os.path.join(_root, "__init__.py"), submodule_search_locations=[_root])
    sys.modules["sampan"] = _mod = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_mod)
'''

FOOTER = '''

INPUTS = {inputs!r}


def _run(fn):
    import numpy as np
    args = [paddle.to_tensor(np.array(a, dtype="float32"), stop_gradient=False) for a in INPUTS]
    out = fn(*args)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    loss = None
    for o in outs:
        if isinstance(o, paddle.Tensor) and "float" in str(o.dtype) and not o.stop_gradient:
            loss = o.sum() if loss is None else loss + o.sum()
    vals = [o.numpy() if isinstance(o, paddle.Tensor) else o for o in outs]
    if not globals().get("SECOND_ORDER"):
        if loss is not None:
            loss.backward()
        return vals, [None if a.grad is None else a.grad.numpy() for a in args], None
    firsts = paddle.grad(loss, args, create_graph=True, allow_unused=True)
    live = [g for g in firsts if g is not None and not g.stop_gradient]
    seconds = paddle.grad(sum(g.sum() for g in live), args, allow_unused=True) if live else []
    return (vals, [None if g is None else g.numpy() for g in firsts],
            [None if g is None else g.numpy() for g in seconds])


if __name__ == "__main__":
    import sampan.jit
    for label in ("eager", "to_static"):
        vals, grads, grads2 = _run(f if label == "eager" else sampan.jit.to_static(f))
        print(label, "outputs:", vals)
        print(label, "input grads:", grads)
        if grads2 is not None:
            print(label, "second-order input grads:", grads2)
'''


def render_repro(source, result, root=REPO_ROOT):
    """A runnable file: header saying what failed, the program, its failing inputs."""
    head = ["# sampan to_static fuzz finding: %s" % signature(result)]
    for key in ("message", "kind"):
        if result.get(key):
            head.append("#   %s: %s" % (key, str(result[key]).splitlines()[0][:200]))
    head.append("# Run: python this_file.py   (SAMPAN_ROOT=<checkout> picks the checkout)")
    return "\n".join(head) + "\n" + BOOTSTRAP.format(root=root) + "\n" + source.rstrip() + \
        FOOTER.format(inputs=result.get("inputs"))


# -- campaigns ----------------------------------------------------------------------------------
def campaign(n, seed=0, out=None, jobs=2, timeout=30.0, static="sampan", cfg=None, k=3,
             shrink=0, progress=False, seeds=None):
    """Generate n programs from `seed` on (or the given `seeds`), judge them all, write
    reports under `out`."""
    cfg = cfg or Config()
    seeds = list(seeds) if seeds is not None else range(seed, seed + n)
    n = len(seeds)
    programs = {str(s): generate(s, cfg) for s in seeds}
    reqs = [{"id": sid, "source": p.source, "seed": p.seed, "static": static, "k": k}
            for sid, p in programs.items()]
    fail_dir = os.path.join(out, "failures") if out else None
    if out:
        os.makedirs(fail_dir, exist_ok=True)
        log = open(os.path.join(out, "results.jsonl"), "w")
    counts = collections.Counter()
    t0 = time.monotonic()

    def on_result(req, res):
        counts[res["status"]] += 1
        if out:
            p = programs[req["id"]]
            log.write(json.dumps({"seed": p.seed, "status": res["status"], "signature": signature(res),
                                  "features": sorted(p.features), **{
                                      k_: res[k_] for k_ in ("kind", "message", "phase", "exc_type",
                                                             "notes", "returncode") if res.get(k_)}}) + "\n")
            log.flush()
            if res["status"] != AGREE:
                with open(os.path.join(fail_dir, "%s_%d.py" % (res["status"], p.seed)), "w") as fh:
                    fh.write(render_repro(p.source, res))
        done = sum(counts.values())
        if progress and (done % 100 == 0 or done == n):
            print("%6d/%d  %s  %.0fs" % (done, n, dict(counts), time.monotonic() - t0), flush=True)

    results = run_requests(reqs, jobs, timeout, on_result)
    if out:
        log.close()
    summary = summarize(programs, results)
    summary["seconds"] = round(time.monotonic() - t0, 1)
    if shrink and out:
        summary["shrunk"] = shrink_failures(programs, results, fail_dir, shrink, jobs, timeout, static)
    if out:
        with open(os.path.join(out, "summary.json"), "w") as fh:
            json.dump(summary, fh, indent=1)
    return summary, results


def summarize(programs, results):
    counts = collections.Counter(r["status"] for r in results.values())
    groups = collections.defaultdict(list)
    for sid, r in results.items():
        if r["status"] != AGREE:
            groups[signature(r)].append(int(sid))
    feats = collections.Counter(f for p in programs.values() for f in p.features)
    notes = collections.Counter(n_.split(":")[0] for r in results.values() for n_ in r.get("notes", ()))
    return {"generated": len(programs), "counts": {c: counts.get(c, 0) for c in CLASSES},
            "signatures": {s: sorted(v) for s, v in sorted(groups.items(), key=lambda kv: -len(kv[1]))},
            "features": dict(sorted(feats.items())), "notes": dict(notes)}


def shrink_failures(programs, results, fail_dir, limit, jobs, timeout, static):
    """Shrink the shortest program of each failure signature (at most `limit` signatures)."""
    from .shrink import shrink_result
    groups = collections.defaultdict(list)
    for sid, r in results.items():
        if r["status"] != AGREE:
            groups[signature(r)].append(sid)
    done = {}
    for sig, sids in list(groups.items())[:limit]:
        sid = min(sids, key=lambda s: len(programs[s].source))
        small, res = shrink_result(programs[sid].source, results[sid], static=static, seed=programs[sid].seed,
                                   timeout=timeout)
        path = os.path.join(fail_dir, "%s_%s_min.py" % (results[sid]["status"], sid))
        with open(path, "w") as fh:
            fh.write(render_repro(small, res))
        done[sig] = path
    return done


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.runner", description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000, help="programs to generate")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--seeds", help="comma-separated seeds to run instead (re-checking findings)")
    ap.add_argument("--out", default="fuzz_out", help="report folder")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per program")
    ap.add_argument("--static", default="sampan", help="sampan | sampan_none_batch (InputSpec with a None first dim) | identity | module:attr")
    ap.add_argument("--k", type=int, default=3, help="inputs per program")
    ap.add_argument("--wide", action="store_true", help="also constructs beyond issue 4's contract")
    ap.add_argument("--flags", default="", help="comma-separated Config switches to turn on, for "
                    "constructs that hit known bugs: setitem_read, int_left_grad")
    ap.add_argument("--second-order", type=float, default=None,
                    help="share of programs that also check second-order gradients")
    ap.add_argument("--shrink", type=int, default=0, help="shrink up to this many failure signatures")
    a = ap.parse_args(argv)
    cfg = Config(wide=a.wide, **{f: True for f in a.flags.split(",") if f})
    if a.second_order is not None:
        cfg.second_order_p = a.second_order
    summary, _ = campaign(a.n, a.seed, a.out, a.jobs, a.timeout, a.static, cfg,
                          a.k, a.shrink, progress=True,
                          seeds=[int(x) for x in a.seeds.split(",")] if a.seeds else None)
    print(json.dumps({k: summary[k] for k in ("generated", "counts", "seconds")}, indent=1))
    for sig, seeds in summary["signatures"].items():
        print("%5d  %s  e.g. seeds %s" % (len(seeds), sig[:150], seeds[:5]))
    for sig, path in summary.get("shrunk", {}).items():
        print("shrunk %s -> %s" % (sig[:80], path))
    return 0 if summary["counts"][AGREE] == summary["generated"] else 1


if __name__ == "__main__":
    sys.exit(main())
