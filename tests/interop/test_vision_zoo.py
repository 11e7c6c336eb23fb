"""Every builder of paddle.vision.models with weights real PaddlePaddle 2.6.2
initialised and saved: ``paddle.save`` of Paddle's own seeded model loads into
sampan's model (no key missing or unexpected), whose eval output equals
Paddle's; ``to_static`` gives the eager output; ``jit.save`` of it runs in
``paddle.inference`` with the same output.

Inputs are batch 1 at the smallest spatial size each model accepts (AlexNet
and GoogLeNet's auxiliary heads have fixed Linear sizes).  The VGG classifier
(25088 x 4096 x 4096, identical for every depth) is checked once, on vgg11; the
other VGGs are built with ``num_classes=0`` (features only) to keep the file
traffic small.  Paddle builds the models in one subprocess while sampan checks
the ones already written (vision_zoo_side.py)."""
import json
import os
import subprocess
import time

import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec
from sampan.vision import models

from . import harness

S = [1, 3, 32, 32]
# case -> (builder, kwargs, input shape)
CASES = {name: (name, {}, S) for name in [
    "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
    "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d",
    "resnext152_32x4d", "resnext152_64x4d", "wide_resnet50_2", "wide_resnet101_2",
    "mobilenet_v1", "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large",
    "shufflenet_v2_x0_25", "shufflenet_v2_x0_33", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
    "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "shufflenet_v2_swish",
    "squeezenet1_0", "squeezenet1_1",
    "densenet121", "densenet161", "densenet169", "densenet201", "densenet264", "vgg11"]}
CASES.update({
    "vgg11_bn": ("vgg11", {"batch_norm": True, "num_classes": 0}, S),
    "vgg13": ("vgg13", {"num_classes": 0}, S),
    "vgg13_bn": ("vgg13", {"batch_norm": True, "num_classes": 0}, S),
    "vgg16": ("vgg16", {"num_classes": 0}, S),
    "vgg16_bn": ("vgg16", {"batch_norm": True, "num_classes": 0}, S),
    "vgg19": ("vgg19", {"num_classes": 0}, S),
    "vgg19_bn": ("vgg19", {"batch_norm": True, "num_classes": 0}, S),
    "alexnet": ("alexnet", {}, [1, 3, 224, 224]),
    "googlenet": ("googlenet", {}, [1, 3, 192, 192]),
    "inception_v3": ("inception_v3", {}, [1, 3, 75, 75]),
    "lenet": ("LeNet", {}, [1, 1, 28, 28]),
})
SIDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vision_zoo_side.py")
WAIT = 300   # seconds to wait for Paddle to write one model


def _outs(out):
    return [o.numpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


def _check_case(case, paddle_dir, workdir):
    """sampan's side of one case: load Paddle's state dict, run eager and
    to_static, jit.save.  Returns a result dict (never raises)."""
    builder, kwargs, shape = CASES[case]
    res = {}
    try:
        params = os.path.join(paddle_dir, case + ".pdparams")
        model = getattr(models, builder)(**kwargs)
        missing, unexpected = model.set_state_dict(paddle.load(params))
        os.remove(params)   # big files: keep the disk traffic down
        res["keys"] = {"missing": list(missing), "unexpected": list(unexpected)}
        model.eval()
        x = np.load(os.path.join(workdir, case + ".inputs.npz"))["x"]
        with paddle.no_grad():
            res["eager"] = _outs(model(paddle.to_tensor(x)))
        static = paddle.jit.to_static(model, input_spec=[InputSpec([None] + shape[1:],
                                                                   "float32", "x")])
        with paddle.no_grad():
            res["to_static"] = _outs(static(paddle.to_tensor(x)))
        paddle.jit.save(static, os.path.join(workdir, case, "model"))
    except Exception as exc:   # reported by the tests of this case
        import traceback
        res["error"] = "%s\n%s" % (exc, traceback.format_exc())
    return res


@pytest.fixture(scope="module")
def zoo(paddle_side, tmp_path_factory):
    workdir = str(tmp_path_factory.mktemp("interop_vision_zoo"))
    paddle_dir = os.path.join(workdir, "paddle")
    os.makedirs(paddle_dir)
    jobs = []
    for i, (case, (builder, kwargs, shape)) in enumerate(CASES.items()):
        inputs = os.path.join(workdir, case + ".inputs.npz")
        np.savez(inputs, x=np.random.RandomState(100 + i).uniform(-1, 1, shape)
                 .astype("float32"))
        jobs.append({"id": case, "builder": builder, "kwargs": kwargs, "seed": 1000 + i,
                     "input": inputs})
    jobs_file = os.path.join(workdir, "zoo_jobs.json")
    with open(jobs_file, "w") as fh:
        json.dump(jobs, fh)
    env = dict(os.environ, GLOG_minloglevel="2", OMP_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    proc = subprocess.Popen([paddle_side.python, SIDE, jobs_file, paddle_dir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=workdir)
    paddle_results, ours = {}, {}
    try:
        for case in CASES:   # pipelined: sampan checks a model while Paddle builds the next
            marker = os.path.join(paddle_dir, case + ".json")
            deadline = time.monotonic() + WAIT
            while not os.path.exists(marker):
                if proc.poll() is not None and not os.path.exists(marker):
                    pytest.fail("vision_zoo_side.py stopped (rc=%s) before %s:\n%s"
                                % (proc.returncode, case, proc.stderr.read()[-3000:]),
                                pytrace=False)
                if time.monotonic() > deadline:
                    pytest.fail("real Paddle did not build %s in %ds" % (case, WAIT),
                                pytrace=False)
                time.sleep(0.05)
            with open(marker) as fh:
                paddle_results[case] = json.load(fh)
            if paddle_results[case]["ok"]:
                ours[case] = _check_case(case, paddle_dir, workdir)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stderr.close()
    jit_jobs = [{"id": case, "kind": "run_model", "prefix": os.path.join(workdir, case, "model"),
                 "inputs": os.path.join(workdir, case + ".inputs.npz"), "modes": ["inference"]}
                for case in CASES if case in ours and "error" not in ours[case]]
    jit_results = paddle_side.run(jit_jobs, os.path.join(workdir, "jit"))
    return workdir, paddle_dir, paddle_results, ours, jit_results


def _ours(zoo, case):
    _, paddle_dir, paddle_results, ours, _ = zoo
    res = paddle_results[case]
    assert res["ok"], f"real Paddle could not build/run {case}:\n{res['traceback']}"
    assert "error" not in ours[case], f"sampan failed on {case}:\n{ours[case]['error']}"
    return ours[case]


def _compare(got, want, what, rtol=1e-4):
    assert len(got) == len(want), what
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, \
            f"{what} output {i}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        scale = float(np.abs(w).max())
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale, err_msg=f"{what} [{i}]")


def _paddle_outs(paddle_dir, case):
    with np.load(os.path.join(paddle_dir, case + ".npz")) as data:
        return [data["out%d" % i] for i in range(len(data.files))]


@pytest.mark.parametrize("case", list(CASES))
def test_paddle_weights_give_paddles_eval_outputs(case, zoo):
    ours = _ours(zoo, case)
    assert ours["keys"] == {"missing": [], "unexpected": []}
    _compare(ours["eager"], _paddle_outs(zoo[1], case), f"{case} eager vs Paddle")


@pytest.mark.parametrize("case", list(CASES))
def test_to_static_equals_eager(case, zoo):
    ours = _ours(zoo, case)
    _compare(ours["to_static"], ours["eager"], f"{case} to_static vs eager", rtol=1e-5)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", list(CASES))
def test_jit_saved_model_runs_in_paddle_inference(case, zoo):
    ours = _ours(zoo, case)
    workdir, _, _, _, results = zoo
    failure = harness.mode_failure(results, case, "inference")
    assert failure is None, f"paddle.inference failed on sampan's {case}:\n{failure}"
    got = harness.job_outputs(os.path.join(workdir, "jit"), case, "inference")
    _compare(got, ours["eager"], f"{case} paddle.inference vs sampan")
