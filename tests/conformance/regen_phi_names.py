"""Regenerate ``fixtures/phi_kernel_names.json`` with real Paddle 2.6.2 (one command):

    python -m tests.conformance.regen_phi_names

Writes every op type sampan declares (``sampan.ops.list_ops()``) to a temporary
file and runs ``tests/interop/conformance_phi_names.py`` on it in the interop
tier's side venv (``tests/interop/harness.py``).
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "phi_kernel_names.json")


def main(argv):
    from sampan.ops import list_ops
    from tests.interop import harness

    os.environ.setdefault("SAMPAN_INTEROP", "1")
    python, _, _ = harness.ensure_venv()
    env = dict(os.environ, GLOG_minloglevel="2", CUDA_VISIBLE_DEVICES="")
    with tempfile.TemporaryDirectory() as tmp:
        ops_file = os.path.join(tmp, "ops.json")
        with open(ops_file, "w") as f:
            json.dump(sorted(list_ops()), f)
        recorder = os.path.join(os.path.dirname(HERE), "interop", "conformance_phi_names.py")
        proc = subprocess.run([python, recorder, ops_file, FIXTURE], env=env)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
