"""A model saved with symbolic dims (InputSpec(['B', 8, 16]): the sidecar holds
``B``, ``B*8``, ``B+1``) still loads and runs in real PaddlePaddle 2.6.2
(paddle.inference and paddle.jit.load), which ignores the sidecar: its
``.pdmodel`` holds -1 where Paddle needs it."""

import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec

from . import harness
from tests.jit.symbolic.models import Block

MODES = ["inference", "jit_load"]


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interop_symbolic")
    x = np.random.RandomState(4).randn(3, 8, 16).astype("float32")
    inputs = str(workdir / "inputs.npz")
    np.savez(inputs, x=x)
    paddle.seed(9)
    model = Block()
    model.eval()
    expected = [o.numpy() for o in model(paddle.to_tensor(x))]
    prefix = str(workdir / "block" / "model")
    paddle.jit.save(model, prefix, input_spec=[InputSpec(["B", 8, 16], "float32", "x")])
    with open(prefix + ".sampan.json", encoding="utf-8") as fh:
        assert '"B*8"' in fh.read()
    jobs = [{"id": "block", "kind": "run_model", "prefix": prefix, "inputs": inputs,
             "modes": MODES}]
    return str(workdir), expected, paddle_side.run(jobs, workdir)


@pytest.mark.parametrize("mode", MODES)
def test_symbolic_model_runs_in_real_paddle(mode, batch):
    workdir, expected, results = batch
    failure = harness.mode_failure(results, "block", mode)
    assert failure is None, f"real Paddle ({mode}) failed on sampan's model:\n{failure}"
    got = harness.job_outputs(workdir, "block", mode)
    assert len(got) == len(expected) == 2
    assert got[0].shape == (24, 16) and got[1].shape == (4, 8, 16)
    for i, (g, w) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=f"output {i}")
