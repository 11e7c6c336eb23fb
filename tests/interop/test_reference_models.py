"""The harness itself, proved on Paddle's own exports: every reference model in
shared/paddle-reference/models runs in real Paddle 2.6.2 (paddle.inference
and paddle.jit.load, one subprocess for all) and reproduces its outputs*.npz."""
import glob
import os

import numpy as np
import pytest

from . import harness

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared",
                      "paddle-reference", "models")


def _cases():
    """(model, case suffix) for every inputs*.npz that has its outputs*.npz."""
    out = []
    for inputs in sorted(glob.glob(os.path.join(MODELS, "*", "inputs*.npz"))):
        folder, name = os.path.split(inputs)
        suffix = name[len("inputs"):-len(".npz")]
        if os.path.isfile(os.path.join(folder, "outputs%s.npz" % suffix)):
            out.append((os.path.basename(folder), suffix))
    return out


CASES = _cases()
MODES = ["inference", "jit_load"]


def _job_id(model, suffix):
    return model + (suffix or "_main")


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interop_reference")
    jobs = [{"id": _job_id(m, s), "kind": "run_model",
             "prefix": os.path.join(MODELS, m, "model"),
             "inputs": os.path.join(MODELS, m, "inputs%s.npz" % s), "modes": MODES}
            for m, s in CASES]
    return workdir, paddle_side.run(jobs, workdir)


def test_reference_models_found():
    assert {m for m, _ in CASES} >= {"lenet", "bn_embed", "loop", "mlp_cond"}, \
        "reference models not found under %s (../shared must sit beside the repo)" % MODELS


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("model,suffix", CASES, ids=["%s%s" % c for c in CASES])
def test_reference_model_in_real_paddle(batch, model, suffix, mode):
    workdir, results = batch
    failure = harness.mode_failure(results, _job_id(model, suffix), mode)
    assert failure is None, "real Paddle (%s) failed on %s:\n%s" % (mode, model, failure)
    res = results[_job_id(model, suffix)]
    with np.load(os.path.join(MODELS, model, "outputs%s.npz" % suffix)) as data:
        names, expected = list(data.files), [data[k] for k in data.files]
    got = harness.job_outputs(workdir, _job_id(model, suffix), mode)
    if mode == "inference":
        assert res["result"]["inference"]["output_names"] == names
    assert len(got) == len(expected)
    for name, g, e in zip(names, got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape, (name, g.dtype, g.shape, e.dtype, e.shape)
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=name)
