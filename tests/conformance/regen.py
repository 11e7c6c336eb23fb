"""Regenerate the conformance fixtures with real Paddle 2.6.2 (one command):

    python -m tests.conformance.regen [family ...]

Finds (or creates) the interop tier's side venv with paddlepaddle==2.6.2 and
runs ``tests/interop/conformance_record.py`` in it, one process per family (two at
a time), writing
``tests/conformance/fixtures/<family>.json``.
"""
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDER = os.path.join(os.path.dirname(HERE), "interop", "conformance_record.py")
sys.path.insert(0, HERE)

from cases import families  # noqa: E402
from tests.interop import harness  # noqa: E402


def main(argv):
    os.environ.setdefault("SAMPAN_INTEROP", "1")
    python, versions, _ = harness.ensure_venv()
    names = list(families(set(argv) or None))
    out = os.path.join(HERE, "fixtures")
    env = dict(os.environ, GLOG_minloglevel="2", FLAGS_call_stack_level="1",
               CUDA_VISIBLE_DEVICES="")

    def one(name):
        proc = subprocess.run([python, RECORDER, out, name],
                              capture_output=True, text=True, env=env)
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
        return name, proc.returncode, tail

    failed = 0
    with ThreadPoolExecutor(2) as pool:
        for name, rc, tail in pool.map(one, names):
            print(f"{name}: rc={rc} " + " | ".join(tail), flush=True)
            failed += rc != 0
    print(f"paddle {versions['paddle']}: {len(names)} families, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
