"""paddle.vision.ops beyond the op table and the conformance fixtures: the
file ops (read_file eager and static, decode_jpeg with and without Pillow), the
layers (RoIAlign / RoIPool / PSRoIPool / DeformConv2D) eager, under to_static
and saved with jit.save, gradients flowing to a DeformConv2D's parameters, and
argument errors."""
import io
import os

import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec
from sampan.vision import ops

BOXES = np.array([[0.4, 0.6, 4.3, 3.9], [1.0, 1.2, 5.6, 3.1], [0.0, 0.0, 7.9, 5.8]],
                 "float32")


def test_read_file_eager_and_static(tmp_path):
    path = str(tmp_path / "bytes.bin")
    data = bytes(range(256)) + b"sampan"
    with open(path, "wb") as fh:
        fh.write(data)
    t = ops.read_file(path)
    assert t.dtype == paddle.uint8 and t.shape == [len(data)]
    assert t.numpy().tobytes() == data
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            out = ops.read_file(path)
        assert [op.type for op in main.global_block().ops] == ["read_file"]
        got, = paddle.static.Executor().run(main, fetch_list=[out])
    finally:
        paddle.disable_static()
    assert got.tobytes() == data


def test_read_file_missing_names_the_file(tmp_path):
    with pytest.raises(ValueError, match="nothere"):
        ops.read_file(str(tmp_path / "nothere.jpg"))


def _has_pillow():
    try:
        import PIL  # noqa: F401
        return True
    except ImportError:
        return False


@pytest.mark.skipif(_has_pillow(), reason="Pillow is installed")
def test_decode_jpeg_without_pillow_names_the_package():
    with pytest.raises(NotImplementedError, match="Pillow"):
        ops.decode_jpeg(paddle.to_tensor(np.frombuffer(b"\xff\xd8\xff", np.uint8)))


@pytest.mark.skipif(not _has_pillow(), reason="needs Pillow")
@pytest.mark.parametrize("mode,channels", [("unchanged", 3), ("gray", 1), ("rgb", 3)])
def test_decode_jpeg_with_pillow(mode, channels):
    from PIL import Image
    img = (np.arange(6 * 8 * 3).reshape(6, 8, 3) * 5 % 256).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", quality=100)
    out = ops.decode_jpeg(paddle.to_tensor(np.frombuffer(buf.getvalue(), np.uint8)), mode)
    assert out.dtype == paddle.uint8 and out.shape == [channels, 6, 8]
    if mode != "gray":
        assert np.abs(out.numpy().transpose(1, 2, 0).astype(int) - img).max() < 16


def test_decode_jpeg_bad_mode():
    with pytest.raises(ValueError, match="mode"):
        ops.decode_jpeg(paddle.to_tensor(np.zeros(4, np.uint8)), mode="cmyk")


class Head(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.align = ops.RoIAlign(2, spatial_scale=0.5)
        self.pool = ops.RoIPool((2, 2), spatial_scale=0.5)
        self.ps = ops.PSRoIPool(2, spatial_scale=0.5)

    def forward(self, x, boxes, num):
        return self.align(x, boxes, num) + self.pool(x, boxes, num), self.ps(x, boxes, num)


def test_roi_layers_to_static_and_jit_save(tmp_path):
    x = paddle.to_tensor(np.random.default_rng(0).uniform(-1, 1, (2, 8, 6, 7)).astype("float32"))
    boxes, num = paddle.to_tensor(BOXES * 2), paddle.to_tensor(np.array([1, 2], "int32"))
    head = Head()
    eager = [o.numpy() for o in head(x, boxes, num)]
    specs = [InputSpec([None, 8, 6, 7], "float32", "x"), InputSpec([None, 4], "float32", "b"),
             InputSpec([None], "int32", "n")]
    static = paddle.jit.to_static(head, input_spec=specs)
    for got, want in zip(static(x, boxes, num), eager):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6)
    paddle.jit.save(static, str(tmp_path / "head"))
    loaded = paddle.jit.load(str(tmp_path / "head"))
    for got, want in zip(loaded(x, boxes, num), eager):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6)


def test_deform_conv2d_layer_trains():
    paddle.seed(0)
    layer = ops.DeformConv2D(4, 6, 3, padding=1)
    assert layer.weight.shape == [6, 4, 3, 3] and layer.bias.shape == [6]
    x = paddle.rand([2, 4, 5, 5])
    off = paddle.rand([2, 18, 5, 5]) - 0.5
    mask = paddle.rand([2, 9, 5, 5])
    for m in (None, mask):
        out = layer(x, off, m)
        assert out.shape == [2, 6, 5, 5]
        out.sum().backward()
        assert layer.weight.grad is not None and layer.bias.grad is not None
        np.testing.assert_allclose(layer.bias.grad.numpy(), np.full(6, 50.0 * (1 + (m is not None))),
                                   rtol=1e-6)
    with pytest.raises(ValueError, match="divisible by groups"):
        ops.DeformConv2D(5, 6, 3, groups=2)


def test_deform_conv2d_matches_conv2d_at_zero_offset():
    x, w, b = paddle.rand([1, 3, 6, 6]), paddle.rand([4, 3, 3, 3]), paddle.rand([4])
    off = paddle.zeros([1, 18, 4, 4])
    np.testing.assert_allclose(ops.deform_conv2d(x, off, w, b).numpy(),
                               paddle.nn.functional.conv2d(x, w, b).numpy(), rtol=1e-5,
                               atol=1e-6)


def test_nms_categories_and_errors():
    boxes = paddle.to_tensor([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]], "float32")
    scores = paddle.to_tensor([0.5, 0.9, 0.3])
    cats = paddle.to_tensor([0, 1, 1], "int64")
    # overlapping boxes of different categories both survive
    assert ops.nms(boxes, 0.5, scores, cats, [0, 1]).numpy().tolist() == [1, 0, 2]
    assert ops.nms(boxes, 0.5, scores).numpy().tolist() == [1, 2]
    with pytest.raises(AssertionError, match="categories"):
        ops.nms(boxes, 0.5, scores, cats)
    with pytest.raises(AssertionError, match="top_k"):
        ops.nms(boxes, 0.5, scores, cats, [0, 1], top_k=5)


def test_roi_errors_name_the_problem():
    x = paddle.rand([2, 8, 6, 7])
    boxes = paddle.to_tensor(BOXES)
    with pytest.raises(ValueError, match="RoisNum"):
        ops.roi_align(x, boxes, paddle.to_tensor(np.array([1, 1], "int32")), 2)
    with pytest.raises(ValueError, match="output_size should not contain 0"):
        ops.psroi_pool(x, boxes, paddle.to_tensor(np.array([1, 2], "int32")), (0, 2))
    with pytest.raises(TypeError, match="prior_box_var"):
        ops.box_coder(paddle.rand([3, 4]), 0.1, paddle.rand([2, 4]))
    with pytest.raises(ValueError, match="steps"):
        ops.prior_box(x, x, [2.0], steps=[1.0])
