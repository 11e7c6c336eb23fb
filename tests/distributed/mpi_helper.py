"""Running a script on 2 ranks from pytest: mpiexec (or sampan's launcher) in
a subprocess, importing this checkout (a temp folder whose ``sampan`` links to
the repository root goes first on PYTHONPATH).  Tests that need MPI are
skipped, with the reason, where mpi4py or mpiexec are missing."""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))


def _mpiexec():
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.isfile(beside):
        return beside
    return shutil.which("mpiexec")


MPIEXEC = _mpiexec()
HAVE_MPI = importlib.util.find_spec("mpi4py") is not None and MPIEXEC is not None
requires_mpi = pytest.mark.skipif(
    not HAVE_MPI, reason="needs mpi4py and mpiexec: pip install '.[distributed]' "
                         "(mpi4py and mpich; the test extra has them)")

_LINK = []


def pythonpath():
    if not _LINK:
        d = tempfile.mkdtemp(prefix="sampan-dist-tests-")
        os.symlink(ROOT, os.path.join(d, "sampan"))
        _LINK.append(d)
    return os.pathsep.join([_LINK[0], HERE])


def env(**extra):
    e = dict(os.environ)
    for k in ("PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM", "PADDLE_TRAINER_ENDPOINTS",
              "PADDLE_CURRENT_ENDPOINT"):
        e.pop(k, None)
    e["PYTHONPATH"] = pythonpath()
    e.setdefault("PADDLE_PG_TIMEOUT", "60000")
    e.update({k: str(v) for k, v in extra.items()})
    return e


def run(args, n=None, timeout=120, launcher=False, cwd=None, **extra):
    """Run ``python args...`` (n=None: one plain process; n: n ranks under mpiexec,
    or under ``python -m sampan.distributed.launch`` when ``launcher``)."""
    if n is None:
        cmd = [sys.executable] + list(args)
    elif launcher:
        cmd = [sys.executable, "-m", "sampan.distributed.launch", "--nproc_per_node", str(n)] \
            + list(args)
    else:
        cmd = [MPIEXEC, "-n", str(n), sys.executable] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env=env(**extra), cwd=cwd or HERE)


def script(name):
    return os.path.join(HERE, name)
