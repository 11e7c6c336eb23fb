"""A 3-D CNN saved by sampan (``jit.save``) runs in real PaddlePaddle 2.6.2
(paddle.inference and paddle.jit.load) and gives sampan's outputs: conv3d
(grouped), conv3d_transpose, max/avg/adaptive pool3d (NDHWC too),
max_pool3d_with_index (return_mask) and local_response_norm.  (No NDHWC conv3d:
Paddle Inference 2.6.2 fails on its own NDHWC conv3d models, a layout pass
treating the input as NCDHW.)"""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec

from . import harness

MODES = ["inference", "jit_load"]
F = paddle.nn.functional


class _Net3D(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv3D(2, 4, 3, padding=1)
        self.grouped = paddle.nn.Conv3D(4, 4, [1, 3, 3], stride=[1, 2, 2], groups=2)
        self.last = paddle.nn.AvgPool3D(2, data_format="NDHWC")
        self.up = paddle.nn.Conv3DTranspose(4, 2, 3, stride=2, padding=1, output_padding=1)
        self.lrn = paddle.nn.LocalResponseNorm(3, alpha=0.1)
        self.pool = paddle.nn.MaxPool3D(2, ceil_mode=True)
        self.avg = paddle.nn.AvgPool3D(3, 2, 1, exclusive=False)
        self.aavg = paddle.nn.AdaptiveAvgPool3D([2, 3, 3])
        self.amax = paddle.nn.AdaptiveMaxPool3D(2, return_mask=True)

    def forward(self, x):
        h = F.relu(self.conv(x))
        h = self.lrn(h)
        p = self.pool(h)
        a = self.avg(h)
        g = self.grouped(h)
        u = self.up(h)
        m, mask = F.max_pool3d(h, 2, return_mask=True)
        am, amask = self.amax(h)
        c = self.last(paddle.transpose(h, [0, 2, 3, 4, 1]))
        return p, a, g, u, m, mask, self.aavg(h), am, amask, c


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interop_conv3d")
    feeds = {"x": np.random.RandomState(3).uniform(-1, 1, (2, 2, 5, 6, 6)).astype("float32")}
    inputs = str(workdir / "inputs.npz")
    np.savez(inputs, **feeds)
    paddle.seed(7)
    model = _Net3D()
    model.eval()
    expected = [o.numpy() for o in model(paddle.to_tensor(feeds["x"]))]
    prefix = str(workdir / "net3d" / "model")
    spec = [InputSpec([2, 2, 5, 6, 6], "float32", "x")]
    paddle.jit.save(paddle.jit.to_static(model, input_spec=spec), prefix)
    jobs = [{"id": "net3d", "kind": "run_model", "prefix": prefix, "inputs": inputs,
             "modes": MODES}]
    return str(workdir), expected, paddle_side.run(jobs, workdir)


@pytest.mark.parametrize("mode", MODES)
def test_conv3d_model_runs_in_real_paddle(mode, batch):
    workdir, expected, results = batch
    failure = harness.mode_failure(results, "net3d", mode)
    assert failure is None, f"real Paddle ({mode}) failed on sampan's model:\n{failure}"
    got = harness.job_outputs(workdir, "net3d", mode)
    assert len(got) == len(expected) == 10
    for i, (g, w) in enumerate(zip(got, expected)):
        assert g.dtype == w.dtype and g.shape == w.shape, \
            f"output {i}: paddle {g.dtype}{g.shape}, sampan {w.dtype}{w.shape}"
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=f"output {i}")
