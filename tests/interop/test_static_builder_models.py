"""A static Program built by sampan's static.nn builders (row_conv, data_norm
with scale and shift, deform_conv2d with a mask and without, sparse_embedding),
saved with ``save_inference_model``, runs in real PaddlePaddle 2.6.2's
inference Predictor and gives sampan's outputs: Paddle reads the row_conv,
data_norm, deformable_conv, deformable_conv_v1 and lookup_table ops sampan
writes."""
import numpy as np
import pytest

import sampan as paddle

from . import harness

MODES = ["inference"]


def _build_and_save(prefix):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [2, 5, 4], "float32")
            img = paddle.static.data("img", [2, 4, 5, 5], "float32")
            off = paddle.static.data("off", [2, 18, 5, 5], "float32")
            msk = paddle.static.data("msk", [2, 9, 5, 5], "float32")
            ids = paddle.static.data("ids", [3, 1], "int64")
            r = paddle.static.nn.row_conv(x, 2, act="tanh")
            d = paddle.static.nn.data_norm(paddle.reshape(r, [2, 20]),
                                           enable_scale_and_shift=True,
                                           param_attr={"scale_w": 0.7, "bias": 0.1,
                                                       "batch_sum": 0.5})
            o = paddle.static.nn.deform_conv2d(img, off, msk, 4, 3, padding=1, groups=2)
            o1 = paddle.static.nn.deform_conv2d(img, off, None, 2, 3, padding=1,
                                                bias_attr=False)
            e = paddle.static.nn.sparse_embedding(ids, [6, 3], padding_idx=5)
        exe = paddle.static.Executor()
        exe.run(startup)
        rng = np.random.default_rng(0)
        feeds = {"x": rng.normal(size=(2, 5, 4)).astype("float32"),
                 "img": rng.normal(size=(2, 4, 5, 5)).astype("float32"),
                 "off": rng.uniform(-1, 1, (2, 18, 5, 5)).astype("float32"),
                 "msk": rng.uniform(0, 1, (2, 9, 5, 5)).astype("float32"),
                 "ids": np.array([[1], [5], [0]], "int64")}
        outs = [d, o, o1, e]
        expected = exe.run(main, feed=feeds, fetch_list=outs)
        paddle.static.save_inference_model(prefix, [x, img, off, msk, ids], outs, exe,
                                           program=main)
        return feeds, expected
    finally:
        paddle.disable_static()


@pytest.fixture(scope="module")
def batch(paddle_side, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interop_static_builders")
    prefix = str(workdir / "builders" / "model")
    feeds, expected = _build_and_save(prefix)
    inputs = str(workdir / "inputs.npz")
    np.savez(inputs, **feeds)
    jobs = [{"id": "builders", "kind": "run_model", "prefix": prefix, "inputs": inputs,
             "modes": MODES}]
    return str(workdir), expected, paddle_side.run(jobs, workdir)


@pytest.mark.parametrize("mode", MODES)
def test_static_builder_model_runs_in_real_paddle(mode, batch):
    workdir, expected, results = batch
    failure = harness.mode_failure(results, "builders", mode)
    assert failure is None, f"real Paddle ({mode}) failed on sampan's model:\n{failure}"
    got = harness.job_outputs(workdir, "builders", mode)
    assert len(got) == len(expected) == 4
    for i, (g, w) in enumerate(zip(got, expected)):
        assert g.dtype == w.dtype and g.shape == w.shape, \
            f"output {i}: paddle {g.dtype}{g.shape}, sampan {w.dtype}{w.shape}"
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=f"output {i}")
