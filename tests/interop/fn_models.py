"""Functions of two inputs saved as models by sampan and run in real Paddle 2.6.2: each
function becomes a Layer (a learned scale first: Paddle's predictor wants parameters),
is jit.saved, and every model runs in the side venv in one batch; the check compares
Paddle's outputs with sampan's (dtype, shape, values)."""
import numpy as np

import sampan as paddle

from . import harness

MODES = ["inference", "jit_load"]


class ScaledModel(paddle.nn.Layer):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self.scale = self.create_parameter(
            [1], default_initializer=paddle.nn.initializer.Constant(1.5))

    def forward(self, x, y):
        return self.fn(x * self.scale, y)


def save_and_run(paddle_side, workdir, models, feeds, spec, modes_of=None):
    """(workdir, {name: sampan's outputs}, Paddle's results) for {name: fn(x, y)}."""
    inputs = str(workdir / "inputs.npz")
    np.savez(inputs, **feeds)
    expected, jobs = {}, []
    for name, fn in models.items():
        model = ScaledModel(fn)
        model.eval()
        outs = model(*[paddle.to_tensor(feeds[k]) for k in ("x", "y")])
        outs = outs if isinstance(outs, (tuple, list)) else [outs]
        expected[name] = [o.numpy() for o in outs]
        prefix = str(workdir / name / "model")
        paddle.jit.save(paddle.jit.to_static(model, input_spec=spec), prefix)
        jobs.append({"id": name, "kind": "run_model", "prefix": prefix, "inputs": inputs,
                     "modes": (modes_of or {}).get(name, MODES)})
    return str(workdir), expected, paddle_side.run(jobs, workdir)


def check(batch, name, mode, rtol=2e-4, atol=2e-4):
    workdir, expected, results = batch
    failure = harness.mode_failure(results, name, mode)
    assert failure is None, f"real Paddle ({mode}) failed on sampan's {name} model:\n{failure}"
    got = harness.job_outputs(workdir, name, mode)
    want = expected[name]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, \
            f"output {i}: paddle {g.dtype}{g.shape}, sampan {w.dtype}{w.shape}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{name} output {i}")
