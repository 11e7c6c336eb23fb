"""The interop tier: models saved by sampan run in real PaddlePaddle 2.6.2, and
Paddle's own reference models run through the same harness.

Real Paddle lives in a side virtual environment (never imported here; see
harness.py), cached outside the repository in ``$SAMPAN_INTEROP_CACHE``
(default ``~/.cache/sampan-interop/paddle-2.6.2``).  When the tier runs:

* ``CI`` set (``.ci/run`` on a clean clone): always.  The first run creates
  the venv (``python -m venv`` + ``pip install paddlepaddle==2.6.2 "numpy<2"``,
  once, under a lock file); later runs reuse it.  If the registry cannot be
  reached (or has no wheel for this Python) every interop test is SKIPPED
  with that reason and a warning banner is printed in the terminal summary:
  the tier never passes silently.  Any other setup failure FAILS the tests.
* outside CI: runs when the venv already exists and works; creates it when
  ``SAMPAN_INTEROP=1``; otherwise skips loudly (a plain ``pytest`` on a
  laptop should not download a large wheel unasked).  ``SAMPAN_INTEROP=0``
  turns the tier off (outside CI only).
* ``SAMPAN_INTEROP_PYTHON``: the interpreter to build the venv from (default:
  the one running pytest); ``SAMPAN_INTEROP_INSTALL_TIMEOUT`` /
  ``SAMPAN_INTEROP_BATCH_TIMEOUT``: seconds (1800 / 600).

Each test module sends its whole batch of jobs to one ``paddle_side.py``
subprocess (a module-scoped fixture); tests then compare its results.
"""
import pytest

from . import harness

_LOUD = []      # reasons the tier was skipped, repeated in the terminal summary
_INFO = {}      # venv versions and set-up time, for the summary line


class PaddleSide:
    """The working side venv: ``run(jobs, workdir)`` runs one batch."""

    def __init__(self, python, versions):
        self.python = python
        self.versions = versions

    def run(self, jobs, workdir):
        try:
            return harness.run_batch(self.python, jobs, str(workdir))
        except harness.SetupError as exc:
            pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def paddle_side():
    try:
        python, versions, seconds = harness.ensure_venv()
    except harness.Unavailable as exc:
        reason = "real-Paddle interop tier SKIPPED: %s" % exc
        if reason not in _LOUD:
            _LOUD.append(reason)
        pytest.skip(reason)
    except harness.SetupError as exc:
        pytest.fail("real-Paddle interop tier could not set up its venv: %s" % exc, pytrace=False)
    _INFO.update(versions, venv=harness.venv_dir(), created_seconds=seconds)
    return PaddleSide(python, versions)


def pytest_terminal_summary(terminalreporter):
    if _LOUD:
        terminalreporter.write_sep("!", "WARNING: real-Paddle interop tier did not run",
                                   red=True, bold=True)
        for reason in _LOUD:
            terminalreporter.write_line(reason, yellow=True, bold=True)
    elif _INFO:
        how = ("created in %.0fs" % _INFO["created_seconds"] if _INFO["created_seconds"]
               else "cached")
        terminalreporter.write_line("interop tier: paddle %s, numpy %s, venv %s (%s)"
                                    % (_INFO["paddle"], _INFO["numpy"], _INFO["venv"], how))
