"""Fault injection of model loading: every mutant of a reference model's files, loaded by
``jit.load``, ``static.load_inference_model`` and the inference Predictor and run, must raise
sampan's own clear error naming the file, or give the unmutated outputs (issue 6).

regions.py maps the files' bytes (protobuf fields of ``.pdmodel``, record parts of
``.pdiparams``, pickle opcodes of ``.pdiparams.info``) and decides which changes may
legitimately change outputs; wellformed.py judges mutated programs independently of sampan;
mutate.py (byte level), mutate_struct.py (.pdmodel through the protobuf) and mutate_files.py
(.pdiparams records, .pdiparams.info) enumerate deterministic mutants; worker.py runs and
classifies them; campaign.py drives crash- and hang-isolated workers (the CLI).
"""
import importlib.util
import os
import sys

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(TESTS_DIR)
REFERENCE = os.path.join(os.path.dirname(REPO_ROOT), "shared", "paddle-reference")
MODELS_DIR = os.path.join(REFERENCE, "models")
MODELS = ("lenet", "bn_embed", "loop", "mlp_cond")


def ensure_sampan():
    """Make ``import sampan`` give this checkout in processes started outside pytest
    (what tests/conftest.py does)."""
    if "sampan" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "_faults_conftest", os.path.join(TESTS_DIR, "conftest.py"))
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
