"""Models saved by sampan load in real PaddlePaddle 2.6.2 -- with
paddle.inference and with paddle.jit.load -- and give sampan's outputs to
1e-5 (issue 5, "Interchange with real Paddle").  Models and save routes:
sampan_models.py.  All saved models go to real Paddle in one subprocess.

A (model, route) pair whose sampan API does not exist yet is skipped with
the missing names; a pair whose saving raises fails with sampan's traceback.
"""
import traceback

import numpy as np
import pytest

from . import harness
from . import sampan_models as sm

MODES = ["inference", "jit_load"]
PAIRS = [(m, r) for m in sm.MODELS for r in sm.ROUTES]


def _job_id(model, route, case):
    return "%s.%s.%d" % (model, route, case)


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    """Save every pair whose API exists, then run them all in real Paddle.
    Returns (workdir, {pair: sampan outputs per case, or a traceback str}, results)."""
    workdir = tmp_path_factory.mktemp("interop_sampan")
    saved, jobs = {}, []
    for model, route in PAIRS:
        if sm.missing_api(model, route):
            continue
        prefix = str(workdir / ("%s.%s" % (model, route)) / "model")
        try:
            saved[model, route] = sm.SAVERS[route](model, prefix)
        except Exception:   # reported by this pair's tests, not by the whole module
            saved[model, route] = traceback.format_exc()
            continue
        for k, inputs in enumerate(sm.write_cases(model, str(workdir))):
            jobs.append({"id": _job_id(model, route, k), "kind": "run_model",
                         "prefix": prefix, "inputs": inputs, "modes": MODES})
    results = paddle_side.run(jobs, workdir) if jobs else {}
    return workdir, saved, results


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("model,route", PAIRS, ids=["%s-%s" % p for p in PAIRS])
def test_sampan_model_in_real_paddle(model, route, mode, request):
    missing = sm.missing_api(model, route)
    if missing:
        pytest.skip("waiting for sampan API: " + ", ".join(missing))
    limit = sm.PADDLE_LIMITS.get((model, route, mode))
    if limit:
        pytest.skip("real Paddle 2.6.2 cannot: " + limit)
    workdir, saved, results = request.getfixturevalue("batch")
    expected = saved[model, route]
    if isinstance(expected, str):
        pytest.fail("sampan could not save %s via %s:\n%s" % (model, route, expected),
                    pytrace=False)
    for k, want in enumerate(expected):
        failure = harness.mode_failure(results, _job_id(model, route, k), mode)
        assert failure is None, "real Paddle (%s) failed on sampan's %s (%s), case %d:\n%s" % (
            mode, model, route, k, failure)
        got = harness.job_outputs(str(workdir), _job_id(model, route, k), mode)
        assert len(got) == len(want), "case %d: %d outputs, sampan has %d" % (k, len(got), len(want))
        for i, (g, w) in enumerate(zip(got, want)):
            assert g.dtype == w.dtype and g.shape == w.shape, \
                "case %d output %d: paddle %s%s, sampan %s%s" % (k, i, g.dtype, g.shape, w.dtype, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5,
                                       err_msg="%s %s case %d output %d" % (model, route, k, i))
