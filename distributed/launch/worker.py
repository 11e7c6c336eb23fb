"""What each rank runs before the user's script (the launcher's and
``spawn``'s): find this process's MPI rank, set Paddle's per-rank variables,
optionally send output to ``workerlog.<rank>``, then run the script as
``__main__`` (or, for ``spawn``, the pickled function)."""
from __future__ import annotations

import os
import runpy
import socket
import sys


def _mpi_rank():
    for var in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK"):
        if var in os.environ:
            return int(os.environ[var])
    from ..comm import mpi
    return mpi().COMM_WORLD.Get_rank()


def setup_rank():
    rank = _mpi_rank()
    os.environ["PADDLE_TRAINER_ID"] = str(rank)
    eps = os.environ.get("PADDLE_TRAINER_ENDPOINTS", "").split(",")
    if rank < len(eps) and eps[rank]:
        os.environ["PADDLE_CURRENT_ENDPOINT"] = eps[rank]
    per_node = int(os.environ.get("SAMPAN_LAUNCH_NPROC_PER_NODE", "0") or 0)
    if per_node:
        os.environ["PADDLE_LOCAL_RANK"] = os.environ["PADDLE_RANK_IN_NODE"] = \
            str(rank % per_node)
    piddir = os.environ.get("SAMPAN_LAUNCH_PIDS")
    if piddir and os.path.isdir(piddir):        # the launcher names a rank that dies
        with open(os.path.join(piddir, f"rank.{rank}"), "w") as fh:
            fh.write(f"{socket.gethostname()} {os.getpid()}")
    log_dir = os.environ.get("SAMPAN_LAUNCH_LOG_DIR")
    if log_dir:
        fd = os.open(os.path.join(log_dir, f"workerlog.{rank}"),
                     os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    return rank


def _mark_done(rank):
    """Tell the launcher this rank ended normally (``done.<rank>`` beside its
    pid file): a rank that ends is not the one that died."""
    piddir = os.environ.get("SAMPAN_LAUNCH_PIDS")
    if piddir and os.path.isdir(piddir):
        open(os.path.join(piddir, f"done.{rank}"), "w").close()


def main(argv):
    if not argv:
        raise SystemExit("usage: python -m sampan.distributed.launch.worker script.py [args]")
    rank = setup_rank()
    try:
        if argv[0] == "--spawn":
            from ..spawn import run_spawned
            result = run_spawned(argv[1])
        else:
            script = argv[0]
            sys.argv = list(argv)
            sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
            result = runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        if e.code in (None, 0):
            _mark_done(rank)
        raise
    _mark_done(rank)
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
