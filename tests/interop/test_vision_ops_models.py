"""A detection head built from paddle.vision.ops, saved by sampan
(``jit.save``), runs in real PaddlePaddle 2.6.2 (paddle.inference and
paddle.jit.load) with sampan's outputs: DeformConv2D (with a mask), roi_align,
roi_pool, box_coder (encode and decode), prior_box, yolo_box, nms,
distribute_fpn_proposals, generate_proposals and matrix_nms."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec
from sampan.vision import ops

from . import harness

MODES = ["inference", "jit_load"]


class _Head(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.offsets = paddle.nn.Conv2D(4, 27, 3, padding=1)
        self.deform = ops.DeformConv2D(4, 14, 3, padding=1)

    def forward(self, x, rois, num, img):
        om = self.offsets(x)
        off, mask = om[:, :18], paddle.nn.functional.sigmoid(om[:, 18:])
        feat = self.deform(x, off, mask)                              # (1, 14, 8, 8)
        align = ops.roi_align(feat, rois, num, 2, spatial_scale=0.5)
        pool = ops.roi_pool(feat, rois, num, 2, spatial_scale=0.5)
        priors, var = ops.prior_box(feat, img, [4.0], [8.0], [2.0], flip=True, clip=True)
        pb = priors.reshape([-1, 4])
        enc = ops.box_coder(pb, var.reshape([-1, 4]), rois / 16.0)
        dec = ops.box_coder(pb, [0.1, 0.1, 0.2, 0.2], enc, code_type="decode_center_size")
        size = paddle.to_tensor([[32, 32]], dtype="int32")
        boxes, scores = ops.yolo_box(feat, size, [10, 13, 16, 30], 2, 0.05, 4)
        keep = ops.nms(rois, 0.01)
        multi, restore, _ = ops.distribute_fpn_proposals(rois * 8, 2, 3, 3, 24, rois_num=num)
        a = pb[:192].reshape([8, 8, 3, 4]) * 32
        rpn, prob, rpn_num = ops.generate_proposals(
            feat[:, :3], feat[:, 2:14], paddle.to_tensor([[32.0, 32.0]]), a,
            paddle.ones_like(a) * 0.1, post_nms_top_n=10, return_rois_num=True)
        mn, mn_num, _ = ops.matrix_nms(boxes, scores.transpose([0, 2, 1]), 0.01, 0.01, 20, 10)
        return (feat, align, pool, enc, dec, boxes, scores, keep, multi[0], multi[1], restore,
                rpn, prob, rpn_num, mn, mn_num)


def _inputs():
    rng = np.random.RandomState(7)
    lo = rng.uniform(0, 10, (5, 2))
    return {"x": rng.uniform(-1, 1, (1, 4, 8, 8)).astype("float32"),
            "rois": np.concatenate([lo, lo + rng.uniform(2, 6, (5, 2))], 1).astype("float32"),
            "num": np.array([5], "int32"),
            "img": rng.uniform(0, 1, (1, 3, 32, 32)).astype("float32")}


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interop_vision_ops")
    feeds = _inputs()
    inputs = str(workdir / "inputs.npz")
    np.savez(inputs, **feeds)
    paddle.seed(5)
    model = _Head()
    model.eval()
    expected = [o.numpy() for o in model(*[paddle.to_tensor(v) for v in feeds.values()])]
    prefix = str(workdir / "head" / "model")
    spec = [InputSpec([1, 4, 8, 8], "float32", "x"), InputSpec([None, 4], "float32", "rois"),
            InputSpec([1], "int32", "num"), InputSpec([1, 3, 32, 32], "float32", "img")]
    paddle.jit.save(paddle.jit.to_static(model, input_spec=spec), prefix)
    jobs = [{"id": "head", "kind": "run_model", "prefix": prefix, "inputs": inputs,
             "modes": MODES}]
    return str(workdir), expected, paddle_side.run(jobs, workdir)


@pytest.mark.parametrize("mode", MODES)
def test_detection_head_runs_in_real_paddle(mode, batch):
    workdir, expected, results = batch
    failure = harness.mode_failure(results, "head", mode)
    assert failure is None, f"real Paddle ({mode}) failed on sampan's model:\n{failure}"
    got = harness.job_outputs(workdir, "head", mode)
    assert len(got) == len(expected) == 16
    for i, (g, w) in enumerate(zip(got, expected)):
        assert g.dtype == w.dtype and g.shape == w.shape, \
            f"output {i}: paddle {g.dtype}{g.shape}, sampan {w.dtype}{w.shape}"
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4, err_msg=f"output {i}")
