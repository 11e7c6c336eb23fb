"""Paddle 2.6's legacy names behave as real Paddle's: the same probe
(``legacy_names_probe.py``) run on real Paddle 2.6.2 in the side venv and
on sampan gives the same values."""
import json
import os
import subprocess

import pytest

import sampan

from . import legacy_names_probe

PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "legacy_names_probe.py")


@pytest.fixture(scope="module")
def both(paddle_side):
    out = subprocess.run([paddle_side.python, PROBE], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    real = json.loads(out.stdout.strip().splitlines()[-1])
    try:
        ours = json.loads(json.dumps(legacy_names_probe.probe(sampan)))
    finally:
        sampan.disable_static()
        sampan.jit.enable_to_static(True)
    return real, ours


KEYS = ["tv_f64", "tv_list_float", "tv_list_int", "tv_named", "tv_bad", "tv_static",
        "guard_dynamic", "guard_names", "guard_names_again", "after_guard", "check_dtype",
        "convert_dtype", "np_dtype", "grad_name", "unique", "framework", "flags",
        "flags_set", "globals", "flags_bad", "dygraph_only", "translator", "disabled_eager", "calls",
        "source", "ir_guard_dynamic", "after_ir_guard"]


@pytest.mark.parametrize("key", KEYS)
def test_same_as_paddle(both, key):
    real, ours = both
    assert ours[key] == real[key]


def test_var_type(both):
    real, ours = both
    # Paddle prints VarType.INT64 as paddle.int64 too; the rest are booleans
    assert ours["vartype"] == real["vartype"]
