"""Differential fuzzing of ``sampan.jit.to_static`` against eager execution.

gen.py writes seeded random tensor programs (as source text a user would write), worker.py runs
one program eagerly and through to_static in a child process and compares outputs and input
gradients, runner.py drives batches of programs through crash/hang-isolated workers (and is the
CLI for long local campaigns), shrink.py reduces a failing program to a minimal one.
"""
import importlib.util
import os
import sys

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(TESTS_DIR)


def ensure_sampan():
    """Make `import sampan` give this checkout (what tests/conftest.py does for pytest), in
    worker processes started outside pytest."""
    if "sampan" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "_fuzz_conftest", os.path.join(TESTS_DIR, "conftest.py"))
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
