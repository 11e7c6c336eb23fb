"""paddle.vision.transforms against real Paddle 2.6.2's recorded results
(tests/vision/fixtures/paddle_transforms.npz, recorded by
tests/interop/record_vision_transforms.py from the calls of transform_cases.py),
plus the behaviour the recordings do not pin down."""
import json
import os
import random
import sys

import numpy as np
import pytest

import sampan as paddle
import sampan.vision.transforms as T
from sampan.vision.transforms import functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import transform_cases  # noqa: E402

FIX = os.path.join(HERE, "fixtures")
REF = np.load(os.path.join(FIX, "paddle_transforms.npz"))
ERRORS = json.load(open(os.path.join(FIX, "paddle_transforms_errors.json")))
CASES = transform_cases.cases(T, paddle)


def _array(x):
    if isinstance(x, (list, tuple)):
        return np.stack([_array(v) for v in x])
    return x.numpy() if isinstance(x, paddle.Tensor) else np.asarray(x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_paddle(name):
    if name.startswith("pil_"):
        pytest.importorskip("PIL.Image")
    if name in ERRORS:
        with pytest.raises(Exception) as info:
            CASES[name]()
        assert type(info.value).__name__ == ERRORS[name]
        return
    got, ref = _array(CASES[name]()), REF[name]
    assert got.shape == ref.shape and got.dtype == ref.dtype, (got.shape, got.dtype)
    if ref.dtype == np.uint8:
        # OpenCV's fixed-point rounding: at most one grey level apart, on few pixels
        diff = np.abs(got.astype(int) - ref)
        assert diff.max() <= 1 and (diff > 0).mean() <= 0.1, (diff.max(), (diff > 0).mean())
    else:
        # 'compose' normalises a uint8 resize: one grey level is 1/127.5
        atol = 1 / 127.5 + 1e-6 if name == "compose" else 1e-4 * max(1.0, np.abs(ref).max())
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=atol)


def test_public_names():
    assert len(T.__all__) == 38
    for n in T.__all__:
        assert getattr(T, n) is not None


def _img():
    return transform_cases.images()[0]


def test_bad_inputs_raise_paddles_errors():
    with pytest.raises(TypeError, match="PIL Image or Tensor Image or ndarray"):
        F.hflip([[1, 2]])
    with pytest.raises(TypeError, match="inappropriate size"):
        F.resize(_img(), (1, 2, 3))
    with pytest.raises(ValueError, match="2, or 4 element"):
        F.pad(_img(), (1, 2, 3))
    with pytest.raises(AssertionError):
        F.pad(_img(), 1, padding_mode="wrap")
    with pytest.raises(ValueError, match="hue_factor"):
        F.adjust_hue(_img(), 0.7)
    with pytest.raises(ValueError, match="num_output_channels"):
        F.to_grayscale(_img(), 2)
    with pytest.raises(ValueError, match="scale should be positive"):
        F.affine(_img(), 0, (0, 0), 0.0, 0)
    with pytest.raises(ValueError, match="interpolation"):
        F.resize(_img(), (4, 4), "cubic")
    with pytest.raises(AssertionError):
        T.RandomHorizontalFlip(1.5)
    with pytest.raises(ValueError, match="'random'"):
        T.RandomErasing(value="noise")
    with pytest.raises(ValueError, match="brightness"):
        T.BrightnessTransform([2, 1])
    with pytest.raises(ValueError, match="symmetric"):
        F.pad(paddle.to_tensor(np.zeros((3, 4, 4), "float32")), 1, padding_mode="symmetric")
    with pytest.raises(NotImplementedError, match="unsupported"):
        T.Resize(4, keys=("image", "video"))


def test_base_transform_keys_and_compose():
    class Shift(T.BaseTransform):
        def _apply_image(self, img):
            return img + 1

        def _apply_mask(self, mask):
            return mask * 2

    t = Shift(keys=("image", "mask"))
    img, mask, extra = t((np.zeros(2), np.ones(2), "kept"))
    assert img.tolist() == [1, 1] and mask.tolist() == [2, 2] and extra == "kept"
    c = T.Compose([T.Resize(4), T.CenterCrop(2)])
    assert repr(c).startswith("Compose(") and c(_img()).shape == (2, 2, 3)


def test_to_tensor_dtypes():
    u8 = _img()
    t = T.ToTensor()(u8)
    assert t.dtype == paddle.float32 and t.shape == [3, 8, 10]
    np.testing.assert_allclose(t.numpy(), u8.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    f = F.to_tensor(u8.astype("float64"))
    assert f.dtype == paddle.float64      # only uint8 is scaled


def test_random_erasing_random_value_on_tensor():
    paddle.seed(3)
    random.seed(3)
    np.random.seed(3)
    x = paddle.to_tensor(np.full((3, 8, 10), 5.0, "float32"))
    out = T.RandomErasing(prob=1.0, value="random")(x).numpy()
    changed = out != 5.0
    assert changed.any() and x.numpy().min() == 5.0       # not in place
    rows, cols = np.nonzero(changed.any(0))
    box = changed[:, rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    assert box.all()                                     # one filled rectangle


def test_inplace_erase_on_tensor():
    x = paddle.to_tensor(np.zeros((3, 4, 4), "float32"))
    out = F.erase(x, 0, 0, 2, 2, paddle.to_tensor([[[1.0]]]), inplace=True)
    assert x.numpy()[:, :2, :2].min() == 1.0 and out.numpy().sum() == 12


def test_batched_tensor_flip_and_normalize():
    x = paddle.to_tensor(np.arange(2 * 3 * 2 * 2, dtype="float32").reshape(2, 3, 2, 2))
    np.testing.assert_array_equal(F.hflip(x).numpy(), x.numpy()[..., ::-1])
    y = F.normalize(x, [1, 2, 3], [2, 2, 2])
    np.testing.assert_allclose(y.numpy(), (x.numpy() - np.array([1, 2, 3]).reshape(3, 1, 1))
                               / 2)


def test_pil_missing_is_a_clear_error(monkeypatch):
    from sampan.vision.transforms import functional_pil
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="Pillow"):
        functional_pil._pil()
    assert not functional_pil.is_pil_image(_img())


def test_pil_images_when_pillow_is_installed():
    Image = pytest.importorskip("PIL.Image")
    u8 = _img()
    pil = Image.fromarray(u8)
    np.testing.assert_array_equal(np.asarray(F.hflip(pil)), u8[:, ::-1])
    np.testing.assert_array_equal(np.asarray(F.crop(pil, 1, 2, 3, 4)), u8[1:4, 2:6])
    np.testing.assert_allclose(F.to_tensor(pil).numpy(), F.to_tensor(u8).numpy())
    assert F.resize(pil, 4).size == (5, 4)
    assert np.asarray(F.to_grayscale(pil, 3)).shape == (8, 10, 3)
    assert np.asarray(F.pad(pil, (1, 2), padding_mode="reflect")).shape == (12, 12, 3)


def test_tensor_geometry_builds_static_programs():
    data = np.random.RandomState(0).rand(3, 8, 10).astype("float32")
    eager = [F.hflip, lambda x: F.crop(x, 1, 2, 4, 5), lambda x: F.resize(x, (5, 7)),
             lambda x: F.pad(x, (1, 2)), lambda x: F.normalize(x, [0.5] * 3, [0.2] * 3),
             lambda x: F.center_crop(x, 4)]
    want = [f(paddle.to_tensor(data)).numpy() for f in eager]
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [3, 8, 10], "float32")
            ys = [f(x) for f in eager]
            with pytest.raises(TypeError, match="static Variable"):
                F.adjust_hue(x, 0.1)
        got = paddle.static.Executor().run(main, feed={"x": data}, fetch_list=ys)
    finally:
        paddle.disable_static()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


def test_perspective_solve_is_lapack_free_and_rejects_degenerate_points():
    from sampan.vision.transforms import _cv
    src = [[0, 0], [7, 0], [7, 5], [0, 5]]
    dst = [[1, 0], [6, 1], [7, 4], [0, 5]]
    m = _cv.perspective_transform(src, dst)
    for (x, y), (u, v) in zip(src, dst):        # maps each point onto its pair
        p = m @ np.array([x, y, 1.0])
        np.testing.assert_allclose(p[:2] / p[2], [u, v], atol=1e-12)
    with pytest.raises(ValueError, match="degenerate"):
        _cv.perspective_transform([[0, 0], [1, 1], [2, 2], [3, 3]], dst)
