"""Regenerate ``fixtures/static_attrs.json`` with real Paddle 2.6.2 (one command):

    python -m tests.conformance.regen_attrs [family ...]

Runs ``tests/interop/conformance_attrs.py`` in the interop tier's side venv
(``tests/interop/harness.py``); with families named, only their entries change.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "static_attrs.json")


def main(argv):
    from tests.interop import harness

    os.environ.setdefault("SAMPAN_INTEROP", "1")
    python, versions, _ = harness.ensure_venv()
    env = dict(os.environ, GLOG_minloglevel="2", CUDA_VISIBLE_DEVICES="")
    recorder = os.path.join(os.path.dirname(HERE), "interop", "conformance_attrs.py")
    sys.path.insert(0, HERE)
    from cases import families
    failed = []
    # one process per family: a case that crashes Paddle loses its family only
    for family in argv or sorted(families()):
        if subprocess.run([python, recorder, FIXTURE, family], env=env).returncode:
            failed.append(family)
    if failed:
        print(f"Paddle crashed recording: {' '.join(failed)} (their entries are unchanged)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
