"""The real-Paddle side of tests/interop/test_vision_models.py (runs INSIDE the
side venv, never in sampan's process):

    <venv python> vision_side.py JOBS.json RESULTS_DIR

Each job: ``id``, ``builder`` (a name of paddle.vision.models), ``kwargs``,
``params`` (a state dict file sampan wrote), ``input`` (an .npz with ``x``).
Paddle builds the model, loads the file with ``paddle.load`` +
``set_state_dict``, runs it in eval mode and writes ``RESULTS_DIR/<id>.npz``
(``out0, out1, ...``).  RESULTS_DIR/results.json maps each id to ``ok``, the
keys the model lacked or did not expect, or the traceback.
"""
import json
import os
import sys
import traceback

import numpy as np


def run(paddle, job, results_dir):
    from paddle.vision import models
    model = getattr(models, job["builder"])(**job["kwargs"])
    missing, unexpected = model.set_state_dict(paddle.load(job["params"]))
    model.eval()
    with np.load(job["input"]) as data:
        x = paddle.to_tensor(data["x"])
    with paddle.no_grad():
        out = model(x)
    outs = out if isinstance(out, (list, tuple)) else [out]
    np.savez(os.path.join(results_dir, job["id"] + ".npz"),
             **{"out%d" % i: np.asarray(o.numpy()) for i, o in enumerate(outs)})
    return {"missing": list(missing), "unexpected": list(unexpected)}


def main():
    jobs_file, results_dir = sys.argv[1], sys.argv[2]
    import paddle
    paddle.set_device("cpu")
    with open(jobs_file) as fh:
        jobs = json.load(fh)
    results = {}
    for job in jobs:
        try:
            results[job["id"]] = {"ok": True, "result": run(paddle, job, results_dir)}
        except Exception as exc:   # one failing job never stops the batch
            results[job["id"]] = {"ok": False, "error": repr(exc),
                                  "traceback": traceback.format_exc()}
    with open(os.path.join(results_dir, "results.json"), "w") as fh:
        json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
