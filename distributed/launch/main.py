"""The launcher: ``python -m sampan.distributed.launch --nproc_per_node N
[--ips IP1,IP2] [--log_dir DIR] script.py args...``.

It runs one ``mpiexec`` for the whole job (N ranks per machine, one machine
per ``--ips`` entry: mpiexec reaches the others over ssh, so run it once, on
any of them).  Each rank first runs ``worker.py``, which sets Paddle's
variables (``PADDLE_TRAINER_ID``, ``PADDLE_TRAINERS_NUM``,
``PADDLE_TRAINER_ENDPOINTS``, ``PADDLE_CURRENT_ENDPOINT``, ``PADDLE_LOCAL_RANK``,
``PADDLE_NNODES``) and then runs the script as ``__main__``.  The exit status is
mpiexec's: non-zero when a rank failed (MPI stops the others).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

__all__ = ["launch", "build_command", "find_mpiexec"]

START_PORT = 6170


def find_mpiexec(explicit=None):
    """mpiexec from ``--mpiexec``, ``$SAMPAN_MPIEXEC``, beside this Python (the
    ``mpich`` wheel installs it there), or on PATH."""
    for cand in (explicit, os.environ.get("SAMPAN_MPIEXEC"),
                 os.path.join(os.path.dirname(sys.executable), "mpiexec")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    found = shutil.which("mpiexec") or shutil.which("mpirun")
    if found is None:
        raise FileNotFoundError(
            "no mpiexec found: pip install 'sampan[distributed]' (mpi4py and mpich bring "
            "mpiexec), install a system MPI, or name one with --mpiexec / $SAMPAN_MPIEXEC")
    return found


def _flavour(mpiexec):
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "hydra"
    return "openmpi" if "Open MPI" in out or "OpenRTE" in out else "hydra"


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m sampan.distributed.launch",
        description="Run a training script on several processes (and machines) through MPI.")
    p.add_argument("--nproc_per_node", type=int, default=None,
                   help="ranks per machine (default: $PADDLE_NPROC_PER_NODE or 1)")
    p.add_argument("--ips", type=str, default="127.0.0.1",
                   help="comma-separated machine addresses (default: this machine)")
    p.add_argument("--devices", "--gpus", dest="devices", type=str, default=None,
                   help="Paddle's device list (e.g. 0,1): one rank per entry when "
                        "--nproc_per_node is not given (sampan's ranks run on the CPU)")
    p.add_argument("--log_dir", type=str, default=None,
                   help="write rank i's output to LOG_DIR/workerlog.i")
    p.add_argument("--mpiexec", type=str, default=None, help="the mpiexec to use")
    p.add_argument("--start_port", type=int, default=START_PORT,
                   help="first port of PADDLE_TRAINER_ENDPOINTS")
    p.add_argument("training_script", help="the script every rank runs")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def build_command(nproc_per_node, ips, script, script_args, mpiexec, log_dir=None,
                  start_port=START_PORT, flavour=None):
    """(argv, env additions) of the mpiexec call."""
    if not isinstance(nproc_per_node, int) or nproc_per_node < 1:
        raise ValueError(f"--nproc_per_node must be a positive integer, got {nproc_per_node!r}")
    hosts = [h.strip() for h in ips.split(",") if h.strip()]
    if not hosts:
        raise ValueError(f"--ips names no machine: {ips!r}")
    n = nproc_per_node * len(hosts)
    endpoints = [f"{h}:{start_port + i}" for h in hosts for i in range(nproc_per_node)]
    env = {"PADDLE_TRAINERS_NUM": str(n), "PADDLE_TRAINER_ENDPOINTS": ",".join(endpoints),
           "PADDLE_NNODES": str(len(hosts)), "PADDLE_LOCAL_SIZE": str(nproc_per_node),
           "SAMPAN_LAUNCH_NPROC_PER_NODE": str(nproc_per_node)}
    if log_dir:
        env["SAMPAN_LAUNCH_LOG_DIR"] = os.path.abspath(log_dir)
    flavour = flavour or _flavour(mpiexec)
    argv = [mpiexec, "-n", str(n)]
    local = all(h in ("127.0.0.1", "localhost") for h in hosts)
    if flavour == "openmpi":
        if not local:
            argv += ["--host", ",".join(f"{h}:{nproc_per_node}" for h in hosts)]
        for k in sorted(env):
            argv += ["-x", k]
        argv += ["-x", "PYTHONPATH", "-x", "PATH"] if "PYTHONPATH" in os.environ else \
            ["-x", "PATH"]
    elif not local:
        argv += ["-hosts", ",".join(hosts), "-ppn", str(nproc_per_node)]
    argv += [sys.executable, "-u", "-m", "sampan.distributed.launch.worker", script]
    return argv + list(script_args), env


def launch(argv=None):
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    nproc = args.nproc_per_node
    if nproc is None and args.devices:
        nproc = len([d for d in args.devices.split(",") if d.strip()])
    if nproc is None:
        nproc = int(os.environ.get("PADDLE_NPROC_PER_NODE", "1"))
    if not os.path.isfile(args.training_script):
        raise FileNotFoundError(f"training script {args.training_script!r} does not exist")
    mpiexec = find_mpiexec(args.mpiexec)
    cmd, extra = build_command(nproc, args.ips, args.training_script,
                               args.training_script_args, mpiexec, args.log_dir,
                               args.start_port)
    if args.log_dir:
        os.makedirs(args.log_dir, exist_ok=True)
    env = dict(os.environ)
    for k in ("PADDLE_TRAINER_ID", "PADDLE_CURRENT_ENDPOINT"):
        env.pop(k, None)          # per rank: set by the worker
    env.update(extra)
    return run_job(cmd, env)


_BAD = re.compile(r"PID (\d+) RUNNING AT (\S+)")
_CODE = re.compile(r"EXIT CODE: (-?\d+)")


def run_job(cmd, env):
    """Run mpiexec, relaying its output; when MPI reports a process that died
    (hydra's "BAD TERMINATION ... PID n"), name its rank (the workers record
    their pids in ``$SAMPAN_LAUNCH_PIDS``).  Hydra names one process, and once
    it has killed the others after the first death it may name one of those:
    so the ranks on this host are also watched (``_watch``), and the one that
    died first (not one that ended normally: worker.py marks those) is named."""
    piddir = tempfile.mkdtemp(prefix="sampan-launch-")
    env = dict(env, SAMPAN_LAUNCH_PIDS=piddir)
    dead = []
    order = []             # (rank, pid) of this host's ranks, in the order they died
    try:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        threads = [threading.Thread(target=_relay, args=(src, dst, dead), daemon=True)
                   for src, dst in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr))]
        watcher = threading.Thread(target=_watch, args=(proc, piddir, order), daemon=True)
        for t in threads + [watcher]:
            t.start()
        try:
            rc = proc.wait()
        except KeyboardInterrupt:
            proc.terminate()
            rc = proc.wait()
        for t in threads + [watcher]:
            t.join()
        if dead:
            pids = _pid_files(piddir)
            codes = {pid: code for pid, _, code in dead}
            first = _first_death(order, piddir)
            if first is not None:
                rank, pid = first
                code = codes.get(pid)
                sys.stderr.write(f"[sampan.distributed.launch] rank {rank} (pid {pid} on "
                                 f"{socket.gethostname()}) died first"
                                 f"{'' if code is None else f' with exit code {code}'}: "
                                 f"MPI stopped the other ranks\n")
            else:
                for pid, host, code in dead:
                    rank = pids.get((host, pid), pids.get(pid))
                    who = f"rank {rank}" if rank is not None else "a rank"
                    sys.stderr.write(f"[sampan.distributed.launch] {who} (pid {pid} on {host}) "
                                     f"died with exit code {code}: MPI stopped the other ranks\n")
        return rc
    finally:
        shutil.rmtree(piddir, ignore_errors=True)


def _first_death(order, piddir):
    """The first (rank, pid) of ``order`` whose rank did not end normally
    (worker.py's ``done.<rank>``), or None."""
    done = {n.split(".", 1)[1] for n in os.listdir(piddir) if n.startswith("done.")}
    return next(((r, p) for r, p in order if str(r) not in done), None)


def _alive(pid):
    """Whether process ``pid`` is running (a zombie, dead but not yet reaped by
    hydra's proxy, counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return not os.path.isdir("/proc")       # no /proc to tell a zombie: alive
    return True


def _watch(proc, piddir, order, period=0.002):
    """Until mpiexec ends, note each local rank's death in ``order`` (rank, pid):
    every ``period`` seconds a listing of the pid files (a rank that started
    is watched from its file's first reading) and a stat read per rank."""
    host = socket.gethostname()
    live, parsed = {}, set()
    while proc.poll() is None:
        for name in os.listdir(piddir):
            if name not in parsed:
                got = _read_pid_file(piddir, name)      # None: read again next time
                if got is not None:
                    parsed.add(name)
                    if got[1] == host:
                        live[got[2]] = got[0]
        for pid, rank in list(live.items()):
            if not _alive(pid):
                order.append((rank, pid))
                del live[pid]
        time.sleep(period)


def _relay(src, dst, dead):
    last = [None]
    for raw in iter(src.readline, b""):
        line = raw.decode("utf-8", "replace")
        dst.write(line)
        dst.flush()
        m = _BAD.search(line)
        if m:
            last[0] = [int(m.group(1)), m.group(2), "?"]
            dead.append(last[0])
        m = _CODE.search(line)
        if m and last[0] is not None:
            last[0][2] = m.group(1)


def _read_pid_file(piddir, name):
    """(rank, host, pid) from worker.py's ``rank.<n>`` file, or None (another
    file, or one not written yet)."""
    if not name.startswith("rank."):
        return None
    try:
        with open(os.path.join(piddir, name)) as fh:
            host, pid = fh.read().split()
        return int(name.split(".", 1)[1]), host, int(pid)
    except (OSError, ValueError):
        return None


def _pid_files(piddir):
    out = {}
    for name in os.listdir(piddir):
        got = _read_pid_file(piddir, name)
        if got is not None:
            r, host, pid = got
            out[(host, pid)] = r
            out[pid] = r
    return out
