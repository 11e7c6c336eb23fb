"""Regenerate ``fixtures/phi_kernel_names.json`` with real Paddle 2.6.2 (one command):

    python -m tests.conformance.regen_phi_names

Runs ``tests/interop/conformance_phi_names.py`` on every op type sampan declares
in the interop tier's side venv (``regen_kernels.record_per_op``).
"""
import os
import sys

from tests.conformance.regen_kernels import record_per_op

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "phi_kernel_names.json")


def main(argv):
    return record_per_op("conformance_phi_names.py", FIXTURE)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
