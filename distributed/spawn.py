"""``paddle.distributed.spawn(func, args, nprocs)``: run ``func(*args)`` on
``nprocs`` ranks started by mpiexec (the launcher's worker), the function and
its arguments passed by pickle (so ``func`` must be importable: defined at a
module's top level, as Paddle's spawn requires).  A rank that raises makes
``join`` raise an ``Exception`` naming it, with its traceback."""
from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import traceback

__all__ = ["spawn", "MultiprocessContext", "run_spawned"]


class MultiprocessContext:
    """The running job: ``join()`` waits and raises when a rank failed."""

    def __init__(self, proc, workdir, nprocs):
        self.proc = proc
        self.processes = [proc]
        self._dir = workdir
        self.nprocs = nprocs

    def join(self, timeout=None):
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        errors = []                # a rank's own failure first, then relayed ones
        for kind in ("error", "relayed"):
            for r in range(self.nprocs):
                f = os.path.join(self._dir, f"{kind}.{r}")
                if os.path.isfile(f):
                    with open(f) as fh:
                        errors.append((r, fh.read()))
        shutil.rmtree(self._dir, ignore_errors=True)
        if errors:
            r, text = errors[0]
            raise Exception(f"\n\n----------------------------------------------\n"
                            f"Process {r} terminated with the following error:\n"
                            f"----------------------------------------------\n\n{text}")
        if rc != 0:
            raise Exception(f"spawn: the job exited with status {rc} (a rank died)")
        return True


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options):
    """Start ``nprocs`` ranks (-1: the CPU count) each running ``func(*args)``."""
    if not callable(func):
        raise TypeError(f"spawn: func must be callable, got {type(func).__name__}")
    if not isinstance(nprocs, int) or nprocs == 0 or nprocs < -1:
        raise ValueError(f"spawn: nprocs must be a positive integer or -1, got {nprocs!r}")
    if nprocs == -1:
        nprocs = int(os.environ.get("CPU_NUM", os.cpu_count() or 1))
    from .launch.main import find_mpiexec
    workdir = tempfile.mkdtemp(prefix="sampan-spawn-")
    payload = os.path.join(workdir, "payload.pkl")
    try:
        with open(payload, "wb") as fh:
            pickle.dump((func, tuple(args)), fh)
    except (pickle.PicklingError, AttributeError, TypeError) as e:
        shutil.rmtree(workdir, ignore_errors=True)
        raise TypeError(f"spawn: func and args must be picklable (func defined at a module's "
                        f"top level): {e}") from None
    env = dict(os.environ)
    env.update({"PADDLE_TRAINERS_NUM": str(nprocs),
                "PADDLE_TRAINER_ENDPOINTS": ",".join(f"127.0.0.1:{6170 + i}"
                                                     for i in range(nprocs))})
    for k in ("PADDLE_TRAINER_ID", "PADDLE_CURRENT_ENDPOINT"):
        env.pop(k, None)
    main = sys.modules.get("__main__")
    path = [os.path.dirname(os.path.abspath(main.__file__))] if getattr(main, "__file__", None) \
        else []
    env["PYTHONPATH"] = os.pathsep.join(path + [p for p in sys.path if p])
    cmd = [find_mpiexec(options.get("mpiexec")), "-n", str(nprocs), sys.executable, "-u", "-m",
           "sampan.distributed.launch.worker", "--spawn", payload]
    proc = subprocess.Popen(cmd, env=env)
    ctx = MultiprocessContext(proc, workdir, nprocs)
    if join:
        ctx.join()
    return ctx


def run_spawned(payload):
    """In a rank: load (func, args) and call it; a failure is written for ``join``."""
    with open(payload, "rb") as fh:
        func, args = pickle.load(fh)
    try:
        func(*args)
    except BaseException as e:
        from .comm import RankFailedError
        rank = os.environ.get("PADDLE_TRAINER_ID", "0")
        name = f"relayed.{rank}" if isinstance(e, RankFailedError) else f"error.{rank}"
        with open(os.path.join(os.path.dirname(payload), name), "w") as fh:
            fh.write(traceback.format_exc())
        raise
