"""Config.enable_profile(): the Predictor times every op it runs and reports per
op type calls and times (Paddle Inference's Profiling Report), printed when the
predictor goes away and returned by Predictor.profile_report(); outputs are
those of an unprofiled predictor."""
import os
import re
import subprocess
import sys
from collections import Counter

import numpy as np

from sampan.inference import Config, create_predictor

HERE = os.path.dirname(os.path.abspath(__file__))
LENET = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared",
                     "paddle-reference", "models", "lenet")


def _config(profile):
    cfg = Config(os.path.join(LENET, "model.pdmodel"), os.path.join(LENET, "model.pdiparams"))
    if profile:
        cfg.enable_profile()
    return cfg


def _inputs():
    return list(dict(np.load(os.path.join(LENET, "inputs.npz"))).values())


def _events(report):
    rows = {}
    for line in report.split("Event Summary")[1].splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+([\d.e+-]+)\s+([\d.e+-]+)\s+([\d.e+-]+)\s+"
                     r"([\d.e+-]+)\s+([\d.e+-]+)$", line)
        if m:
            rows[m.group(1)] = (int(m.group(2)),) + tuple(float(v) for v in m.groups()[2:])
    return rows


def test_report_counts_every_op_of_every_run():
    pred = create_predictor(_config(True))
    plain = create_predictor(_config(False))
    assert plain.profile_report() is None
    x = _inputs()
    for _ in range(3):
        got = pred.run(x)
    for a, b in zip(got, plain.run(x)):
        np.testing.assert_array_equal(a, b)
    rows = _events(pred.profile_report())
    ops = Counter(op.type for op in pred.program.global_block().ops
                  if op.type not in ("feed", "fetch"))
    assert {k: v[0] for k, v in rows.items()} == {k: 3 * n for k, n in ops.items()}
    for calls, total, lo, hi, ave, ratio in rows.values():
        assert 0 <= lo <= ave <= hi <= total and abs(ave * calls - total) <= 1e-3 * total + 1e-6
    assert abs(sum(r[-1] for r in rows.values()) - 1.0) < 1e-3
    assert "(runs: 3)" in pred.profile_report()


def test_report_printed_when_the_predictor_goes_away():
    code = f"""
import numpy as np
from sampan.inference import Config, create_predictor
cfg = Config({os.path.join(LENET, 'model.pdmodel')!r}, {os.path.join(LENET, 'model.pdiparams')!r})
cfg.enable_profile()
x = list(dict(np.load({os.path.join(LENET, 'inputs.npz')!r})).values())
pred = create_predictor(cfg)
twin = pred.clone()
twin.run(x)
del pred
print("clone alive", flush=True)
del twin
print("both gone", flush=True)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.count("Profiling Report") == 1 and "(runs: 1)" in out
    # printed once, when the last predictor sharing the model went away
    assert out.index("clone alive") < out.index("Profiling Report") < out.index("both gone")
