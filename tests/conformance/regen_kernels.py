"""Regenerate ``fixtures/kernel_dtypes.json`` with real Paddle 2.6.2 (one command):

    python -m tests.conformance.regen_kernels

Writes every op type sampan declares (``sampan.ops.list_ops()``) to a temporary
file and runs ``tests/interop/conformance_kernels.py`` on it in the interop tier's side venv
(``tests/interop/harness.py``).
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "kernel_dtypes.json")


def record_per_op(recorder, fixture):
    """Run ``tests/interop/<recorder>`` in the interop tier's side venv on the list
    of every op type sampan declares, writing ``fixture``; its exit status."""
    from sampan.ops import list_ops
    from tests.interop import harness

    os.environ.setdefault("SAMPAN_INTEROP", "1")
    python, _, _ = harness.ensure_venv()
    env = dict(os.environ, GLOG_minloglevel="2", CUDA_VISIBLE_DEVICES="")
    with tempfile.TemporaryDirectory() as tmp:
        ops_file = os.path.join(tmp, "ops.json")
        with open(ops_file, "w") as f:
            json.dump(sorted(list_ops()), f)
        script = os.path.join(os.path.dirname(HERE), "interop", recorder)
        return subprocess.run([python, script, ops_file, fixture], env=env).returncode


def main(argv):
    return record_per_op("conformance_kernels.py", FIXTURE)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
