"""paddle.vision's image backend: get/set_image_backend and image_load, with
PIL and OpenCV optional (replaced here by stand-ins, or hidden to check the
error that names the package to install)."""
import sys
import types

import pytest

import sampan as paddle
from sampan.vision import image


@pytest.fixture(autouse=True)
def _restore_backend():
    before = paddle.vision.get_image_backend()
    yield
    paddle.vision.set_image_backend(before)


def test_default_and_set_backend():
    assert paddle.vision.get_image_backend() == "pil"
    for backend in ("cv2", "tensor", "pil"):
        paddle.vision.set_image_backend(backend)
        assert paddle.vision.get_image_backend() == backend


@pytest.mark.parametrize("call", [lambda: paddle.vision.set_image_backend("skimage"),
                                  lambda: paddle.vision.image_load("a.png", backend="skimage")])
def test_unknown_backend_is_a_value_error(call):
    with pytest.raises(ValueError, match=r"Expected backend are one of \['pil', 'cv2', "
                                         r"'tensor'\], but got skimage"):
        call()


def test_image_load_dispatches_to_the_backend(monkeypatch):
    pil_image = types.ModuleType("PIL.Image")
    pil_image.open = lambda path: ("pil", path)
    cv2 = types.ModuleType("cv2")
    cv2.imread = lambda path: ("cv2", path)
    monkeypatch.setitem(sys.modules, "PIL.Image", pil_image)
    monkeypatch.setitem(sys.modules, "cv2", cv2)
    assert paddle.vision.image_load("x.png") == ("pil", "x.png")
    assert paddle.vision.image_load("x.png", backend="cv2") == ("cv2", "x.png")
    paddle.vision.set_image_backend("cv2")
    assert paddle.vision.image_load("y.jpg") == ("cv2", "y.jpg")
    assert paddle.vision.image_load("y.jpg", backend="tensor") is None   # as Paddle 2.6


@pytest.mark.parametrize("backend, module, package", [("pil", "PIL.Image", "pillow"),
                                                      ("cv2", "cv2", "opencv-python")])
def test_missing_library_names_the_package(monkeypatch, backend, module, package):
    monkeypatch.setitem(sys.modules, module, None)     # `import module` raises ImportError
    with pytest.raises(ImportError, match=f"pip install {package}"):
        image.image_load("x.png", backend=backend)


def test_real_pil_loads_an_image(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    import numpy as np
    path = str(tmp_path / "a.png")
    Image.fromarray(np.arange(48, dtype=np.uint8).reshape(4, 4, 3)).save(path)
    img = paddle.vision.image_load(path, backend="pil").convert("RGB")
    assert np.array_equal(np.asarray(img), np.arange(48, dtype=np.uint8).reshape(4, 4, 3))
