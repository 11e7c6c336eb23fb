"""paddle.vision.models saved by sampan and run in real PaddlePaddle 2.6.2:
state dicts written by ``sampan.save`` load into Paddle's own models (no key
missing or unexpected) and give sampan's eval outputs; ``jit.save`` of the
to_static models runs in ``paddle.inference`` and ``paddle.jit.load`` with
sampan's outputs.  Weights are model_cases.make_weights (tests/vision)."""
import importlib.util
import json
import os
import subprocess

import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec
from sampan.vision import models

from . import harness


def _cases_module():
    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "vision", "model_cases.py")
    spec = importlib.util.spec_from_file_location("vision_model_cases_interop", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mc = _cases_module()
CASES = ["resnet18", "shufflenet_v2_x0_25", "mobilenet_v3_small_x0_25", "googlenet"]
JIT_MODES = ["inference", "jit_load"]
SIDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vision_side.py")


def _build(case):
    builder, kwargs, shape = mc.OUTPUT_CASES[case]
    model = getattr(models, builder)(**kwargs)
    model.set_state_dict(mc.make_weights(case, {k: v.shape
                                                for k, v in model.state_dict().items()}))
    model.eval()
    return model, builder, kwargs, shape


def _outs(out):
    return [o.numpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interop_vision")
    expected, state_jobs, jit_jobs = {}, [], []
    for case in CASES:
        model, builder, kwargs, shape = _build(case)
        x = mc.make_input(case, shape)
        inputs = str(workdir / (case + ".inputs.npz"))
        np.savez(inputs, x=x)
        with paddle.no_grad():
            expected[case] = _outs(model(paddle.to_tensor(x)))
        params = str(workdir / (case + ".pdparams"))
        paddle.save(model.state_dict(), params)
        state_jobs.append({"id": case, "builder": builder, "kwargs": kwargs, "params": params,
                           "input": inputs})
        prefix = str(workdir / case / "model")
        static = paddle.jit.to_static(model, input_spec=[InputSpec([None] + shape[1:],
                                                                   "float32", "x")])
        paddle.jit.save(static, prefix)
        jit_jobs.append({"id": case, "kind": "run_model", "prefix": prefix, "inputs": inputs,
                         "modes": JIT_MODES})
    jobs_file = str(workdir / "vision_jobs.json")
    with open(jobs_file, "w") as fh:
        json.dump(state_jobs, fh)
    state_dir = workdir / "state"
    state_dir.mkdir()
    env = dict(os.environ, GLOG_minloglevel="2", OMP_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([paddle_side.python, SIDE, jobs_file, str(state_dir)],
                          capture_output=True, text=True, timeout=harness.BATCH_TIMEOUT,
                          env=env, cwd=str(workdir))
    if proc.returncode != 0:
        pytest.fail(f"vision_side.py failed (rc={proc.returncode}):\n{proc.stderr[-3000:]}",
                    pytrace=False)
    with open(state_dir / "results.json") as fh:
        state_results = json.load(fh)
    jit_results = paddle_side.run(jit_jobs, workdir / "jit")
    return str(workdir), expected, str(state_dir), state_results, jit_results


def _compare(got, want, what):
    assert len(got) == len(want), what
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, \
            f"{what} output {i}: paddle {g.dtype}{g.shape}, sampan {w.dtype}{w.shape}"
        scale = float(np.abs(w).max())
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4 * scale,
                                   err_msg=f"{what} output {i}")


@pytest.mark.parametrize("case", CASES)
def test_sampan_state_dict_loads_in_paddles_model(case, batch):
    _, expected, state_dir, results, _ = batch
    res = results[case]
    assert res["ok"], f"real Paddle failed on sampan's {case} state dict:\n{res['traceback']}"
    assert res["result"] == {"missing": [], "unexpected": []}
    with np.load(os.path.join(state_dir, case + ".npz")) as data:
        got = [data["out%d" % i] for i in range(len(data.files))]
    _compare(got, expected[case], f"{case} (paddle.load + set_state_dict)")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("mode", JIT_MODES)
@pytest.mark.parametrize("case", CASES)
def test_jit_saved_model_runs_in_paddle(case, mode, batch):
    workdir, expected, _, _, results = batch
    failure = harness.mode_failure(results, case, mode)
    assert failure is None, f"real Paddle ({mode}) failed on sampan's {case}:\n{failure}"
    got = harness.job_outputs(os.path.join(workdir, "jit"), case, mode)
    _compare(got, expected[case], f"{case} ({mode})")
