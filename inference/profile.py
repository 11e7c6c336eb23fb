"""``Config.enable_profile()``: the Predictor times every op it runs and
reports, per op type, how often it ran and how long it took (Paddle
Inference's "Profiling Report", printed when the predictor goes away; sampan
also returns it from ``Predictor.profile_report()``).

The plan then runs through the executor's instrumented serial loop
(``ExecutionConfig(hook=...)``, executor/runner.py ``LoopSerial``): the time of
an op is the time from the previous op's end (or the run's start) to its own
end, so the frees and bookkeeping around it are counted with it.  What a run
spends outside its ops (taking the inputs, handing out the outputs) is the
"framework overhead" of the summary.  Profiling costs a little per op and
bypasses the compiled runner's fast kernel forms: times are for finding where
a model spends them, not for benchmarks.
"""
import threading
import time

__all__ = ["OpProfile"]


class OpProfile:
    """Per-op-type calls, total, min and max seconds over a predictor's runs."""

    def __init__(self):
        self.ops = {}               # op type -> [calls, total, min, max]
        self.runs = 0
        self.wall = 0.0             # seconds inside Predictor.run
        self._local = threading.local()
        self._lock = threading.Lock()

    # the executor's hook and the run's bracket
    def begin(self):
        self._local.start = self._local.last = time.perf_counter()

    def hook(self, instr, values):
        now = time.perf_counter()
        dt = now - self._local.last
        self._local.last = now
        with self._lock:
            entry = self.ops.get(instr.op.type)
            if entry is None:
                self.ops[instr.op.type] = [1, dt, dt, dt]
            else:
                entry[0] += 1
                entry[1] += dt
                entry[2] = min(entry[2], dt)
                entry[3] = max(entry[3], dt)

    def end(self):
        with self._lock:
            self.runs += 1
            self.wall += time.perf_counter() - self._local.start

    def report(self):
        """The report's text (Paddle's layout; times in ms)."""
        with self._lock:
            rows = sorted(self.ops.items(), key=lambda kv: -kv[1][1])
            wall, runs = self.wall, self.runs
        compute = sum(e[1] for _, e in rows)
        pct = (lambda part, whole: 100.0 * part / whole if whole else 0.0)
        lines = ["------------------------->     Profiling Report     <-------------------------",
                 "", "Place: CPU", "Time unit: ms",
                 "Sorted by total time in descending order in the same thread", "",
                 "-------------------------     Overhead Summary      -------------------------",
                 "", f"Total time: {wall * 1e3:.6g}   (runs: {runs})",
                 f"  Computation time       Total: {compute * 1e3:.6g}     "
                 f"Ratio: {pct(compute, wall):.4f}%",
                 f"  Framework overhead     Total: {max(wall - compute, 0.0) * 1e3:.6g}     "
                 f"Ratio: {pct(max(wall - compute, 0.0), wall):.4f}%", "",
                 "-------------------------       Event Summary       -------------------------",
                 "", f"{'Event':<36}{'Calls':>8}{'Total':>12}{'Min.':>12}{'Max.':>12}"
                 f"{'Ave.':>12}{'Ratio.':>10}"]
        for name, (calls, total, lo, hi) in rows:
            lines.append(f"{name:<36}{calls:>8}{total * 1e3:>12.5g}{lo * 1e3:>12.5g}"
                         f"{hi * 1e3:>12.5g}{total / calls * 1e3:>12.5g}"
                         f"{pct(total, compute) / 100:>10.6f}")
        return "\n".join(lines)
