"""The side virtual environment with real PaddlePaddle 2.6.2, and batches of
jobs run in it (tests/interop/paddle_side.py) in one subprocess each.

sampan's own process never imports paddle: everything real-Paddle happens in
``<venv>/bin/python paddle_side.py``.  The venv lives outside the repository,
in ``$SAMPAN_INTEROP_CACHE`` (default ``~/.cache/sampan-interop``) as
``paddle-2.6.2/``; it is created once (under a lock file, so parallel test
runs wait for one install) and reused.  A marker file written after a
successful install and an ``import paddle`` check on every run tell a usable
venv from a half-made or broken one, which is rebuilt.

Two outcomes besides a usable venv: ``Unavailable`` (the tier cannot run
here: registry unreachable, no wheel for this Python, creation not allowed
by the policy -- the tests skip loudly) and ``SetupError`` (anything else
going wrong: the tests fail, showing pip's output).
"""
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

PADDLE_VERSION = "2.6.2"
REQUIREMENTS = ["paddlepaddle==%s" % PADDLE_VERSION, "numpy<2"]
VENV_NAME = "paddle-%s" % PADDLE_VERSION
MARKER = ".sampan-interop-ok"
SIDE_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paddle_side.py")

INSTALL_TIMEOUT = float(os.environ.get("SAMPAN_INTEROP_INSTALL_TIMEOUT", 1800))
BATCH_TIMEOUT = float(os.environ.get("SAMPAN_INTEROP_BATCH_TIMEOUT", 600))

# pip output that means the package index could not be reached at all.
_NETWORK_ERRORS = re.compile(
    r"NewConnectionError|ConnectTimeout|ReadTimeout|ConnectionError|ProxyError|SSLError"
    r"|Could not fetch URL|Temporary failure in name resolution|Name or service not known"
    r"|Network is unreachable|Connection refused|No route to host|nodename nor servname",
    re.I)
_NO_DISTRIBUTION = re.compile(r"No matching distribution found for paddlepaddle", re.I)


class Unavailable(Exception):
    """The tier cannot run in this environment (reported as a loud skip)."""


class SetupError(Exception):
    """Creating or checking the side venv failed for an unexpected reason."""


def _truthy(value):
    return (value or "").strip().lower() not in ("", "0", "false", "no", "off")


def cache_root():
    return os.path.abspath(os.path.expanduser(
        os.environ.get("SAMPAN_INTEROP_CACHE") or os.path.join("~", ".cache", "sampan-interop")))


def venv_dir():
    return os.path.join(cache_root(), VENV_NAME)


def venv_python(path=None):
    path = path or venv_dir()
    if os.name == "nt":
        return os.path.join(path, "Scripts", "python.exe")
    return os.path.join(path, "bin", "python")


def may_create():
    """Policy (documented in conftest.py): create the venv in CI or on request."""
    return _truthy(os.environ.get("CI")) or os.environ.get("SAMPAN_INTEROP", "").strip() == "1"


def disabled():
    """SAMPAN_INTEROP=0 turns the tier off, except in CI where it always runs."""
    return (os.environ.get("SAMPAN_INTEROP", "").strip() == "0"
            and not _truthy(os.environ.get("CI")))


@contextlib.contextmanager
def _lock(path):
    """An exclusive lock file, so concurrent test runs create the venv once."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a") as fh:
        try:
            import fcntl
        except ImportError:   # no flock (Windows): run unlocked
            yield
            return
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


_CHECK = ("import json, numpy, paddle; "
          "print(json.dumps({'paddle': paddle.__version__, 'numpy': numpy.__version__}))")


def check(path=None):
    """Versions of a working venv at ``path``, else None (missing or broken)."""
    path = path or venv_dir()
    py = venv_python(path)
    if not (os.path.isfile(py) and os.path.isfile(os.path.join(path, MARKER))):
        return None
    try:
        proc = subprocess.run([py, "-c", _CHECK], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    try:
        versions = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    if versions["paddle"] != PADDLE_VERSION or int(versions["numpy"].split(".")[0]) >= 2:
        return None
    return versions


def _run_logged(cmd, log, timeout):
    log.write("$ %s\n" % " ".join(cmd))
    log.flush()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        out = exc.output or ""
        log.write(out if isinstance(out, str) else out.decode("utf-8", "replace"))
        raise SetupError("timed out after %ds: %s" % (timeout, " ".join(cmd)))
    log.write(proc.stdout)
    log.flush()
    return proc.returncode, proc.stdout


def _create(path, log):
    base = os.environ.get("SAMPAN_INTEROP_PYTHON") or sys.executable
    shutil.rmtree(path, ignore_errors=True)
    rc, out = _run_logged([base, "-m", "venv", path], log, 600)
    if rc != 0:
        raise Unavailable("`%s -m venv` failed (is the venv/ensurepip module installed?): %s"
                          % (base, out.strip()[-500:]))
    cmd = [venv_python(path), "-m", "pip", "install", "--disable-pip-version-check"] + REQUIREMENTS
    rc, out = _run_logged(cmd, log, INSTALL_TIMEOUT)
    if rc != 0:
        tail = out.strip()[-1500:]
        if _NETWORK_ERRORS.search(out):
            raise Unavailable("the package registry could not be reached to install %s:\n%s"
                              % (" ".join(REQUIREMENTS), tail))
        if _NO_DISTRIBUTION.search(out):
            raise Unavailable("pip found no paddlepaddle==%s for %s (Python %s): the registry "
                              "is unreachable, or has no wheel for this Python (then set "
                              "SAMPAN_INTEROP_PYTHON to one Paddle supports):\n%s"
                              % (PADDLE_VERSION, base, sys.version.split()[0], tail))
        raise SetupError("pip install failed (rc=%d):\n%s" % (rc, tail))
    with open(os.path.join(path, MARKER), "w") as fh:
        fh.write(" ".join(REQUIREMENTS) + "\n")


def ensure_venv():
    """Path of the venv's python, creating the venv if the policy allows.
    Returns (python, versions, seconds spent creating or 0.0)."""
    if disabled():
        raise Unavailable("SAMPAN_INTEROP=0: the real-Paddle interop tier is turned off")
    path = venv_dir()
    versions = check(path)
    if versions:
        return venv_python(path), versions, 0.0
    if not may_create():
        raise Unavailable(
            "no side venv with paddlepaddle==%s at %s; set SAMPAN_INTEROP=1 to create it "
            "(downloads the paddlepaddle wheel once; CI=true always does)" % (PADDLE_VERSION, path))
    t0 = time.perf_counter()
    try:
        os.makedirs(cache_root(), exist_ok=True)
    except OSError as exc:
        raise SetupError("cannot create the interop cache %s: %s (set SAMPAN_INTEROP_CACHE)"
                         % (cache_root(), exc))
    with _lock(path + ".lock"):
        versions = check(path)   # another run may have made it while we waited
        if not versions:
            log_path = path + ".install.log"
            with open(log_path, "w") as log:
                _create(path, log)
            versions = check(path)
            if not versions:
                raise SetupError("the new venv at %s does not import paddle==%s with numpy<2 "
                                 "(see %s)" % (path, PADDLE_VERSION, log_path))
    return venv_python(path), versions, time.perf_counter() - t0


def run_batch(python, jobs, workdir):
    """Run ``jobs`` (see paddle_side.py) in one subprocess; returns results.json."""
    os.makedirs(workdir, exist_ok=True)
    jobs_file = os.path.join(workdir, "jobs.json")
    with open(jobs_file, "w") as fh:
        json.dump(jobs, fh, indent=1)
    env = dict(os.environ, PYTHONHASHSEED="0", GLOG_minloglevel="2", OMP_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)   # the side never sees this checkout
    try:
        proc = subprocess.run([python, SIDE_SCRIPT, jobs_file, workdir], capture_output=True,
                              text=True, timeout=BATCH_TIMEOUT, env=env, cwd=workdir)
    except subprocess.TimeoutExpired:
        raise SetupError("paddle_side.py ran past %ds on %s" % (BATCH_TIMEOUT, jobs_file))
    results_file = os.path.join(workdir, "results.json")
    if proc.returncode != 0 or not os.path.isfile(results_file):
        raise SetupError("paddle_side.py failed (rc=%d)\nstdout:\n%s\nstderr:\n%s"
                         % (proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:]))
    with open(results_file) as fh:
        return json.load(fh)


def job_outputs(workdir, job_id, mode):
    """Outputs of one run_model job in one mode, as a list in fetch order."""
    import numpy as np
    with np.load(os.path.join(workdir, "%s.%s.npz" % (job_id, mode))) as data:
        return [data["out%d" % i] for i in range(len(data.files))]


def mode_failure(results, job_id, mode):
    """None if real Paddle ran job ``job_id`` in ``mode``, else why not (with traceback)."""
    res = results.get(job_id)
    if res is None:
        return "job %s was not run" % job_id
    if not res["ok"]:
        return res["traceback"]
    info = res["result"][mode]
    return None if info["ok"] else info["traceback"]
