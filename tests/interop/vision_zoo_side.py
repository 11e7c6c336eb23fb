"""The real-Paddle side of tests/interop/test_vision_zoo.py (runs INSIDE the
side venv, never in sampan's process):

    <venv python> vision_zoo_side.py JOBS.json RESULTS_DIR

Each job: ``id``, ``builder`` (a name of paddle.vision.models), ``kwargs``,
``seed``, ``input`` (an .npz with ``x``).  Paddle seeds its generator, builds
the model with its own random initialisation, ``paddle.save``s the state dict
to ``RESULTS_DIR/<id>.pdparams``, runs the model in eval mode on ``x`` and
writes ``RESULTS_DIR/<id>.npz`` (``out0, out1, ...``).  After each job
``RESULTS_DIR/<id>.json`` lands (atomically) with ``ok`` and the seconds, or
the traceback, so the caller can start on a model while the next one builds.
"""
import json
import os
import sys
import time
import traceback

import numpy as np


def run(paddle, job, results_dir):
    from paddle.vision import models
    paddle.seed(job["seed"])
    model = getattr(models, job["builder"])(**job["kwargs"])
    model.eval()
    paddle.save(model.state_dict(), os.path.join(results_dir, job["id"] + ".pdparams"))
    with np.load(job["input"]) as data:
        x = paddle.to_tensor(data["x"])
    with paddle.no_grad():
        out = model(x)
    outs = out if isinstance(out, (list, tuple)) else [out]
    np.savez(os.path.join(results_dir, job["id"] + ".npz"),
             **{"out%d" % i: np.asarray(o.numpy()) for i, o in enumerate(outs)})


def main():
    jobs_file, results_dir = sys.argv[1], sys.argv[2]
    import paddle
    paddle.set_device("cpu")
    with open(jobs_file) as fh:
        jobs = json.load(fh)
    for job in jobs:
        t0 = time.perf_counter()
        try:
            run(paddle, job, results_dir)
            result = {"ok": True}
        except Exception as exc:   # one failing job never stops the batch
            result = {"ok": False, "error": repr(exc), "traceback": traceback.format_exc()}
        result["seconds"] = time.perf_counter() - t0
        path = os.path.join(results_dir, job["id"] + ".json")
        with open(path + ".tmp", "w") as fh:
            json.dump(result, fh)
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
