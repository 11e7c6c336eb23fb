"""The image backend of ``paddle.vision``: which library ``image_load`` (and
the image datasets) decode files with.  PIL and OpenCV are optional: each is
imported when it is used, and a missing one is an ImportError that says
which package to install."""
import importlib

__all__ = []

_BACKENDS = ("pil", "cv2", "tensor")
_image_backend = "pil"

_PACKAGES = {"PIL": "pillow", "cv2": "opencv-python"}


def _check(backend):
    if backend not in _BACKENDS:
        raise ValueError(f"Expected backend are one of {list(_BACKENDS)}, but got {backend}")


def _require(module):
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{module} is needed to load images with this backend but cannot be "
                          f"imported ({exc}); install it with `pip install "
                          f"{_PACKAGES[module.split('.')[0]]}`") from exc


def set_image_backend(backend):
    """Use ``backend`` ('pil', 'cv2' or 'tensor') for loading images from now on."""
    global _image_backend
    _check(backend)
    _image_backend = backend


def get_image_backend():
    """The name of the backend images are loaded with ('pil' unless set)."""
    return _image_backend


def image_load(path, backend=None):
    """Load the image at ``path``: a ``PIL.Image`` with the 'pil' backend, a BGR
    ``numpy.ndarray`` with 'cv2' (as ``cv2.imread``).  ``backend=None`` uses the
    global one (``set_image_backend``).  As in Paddle 2.6, the 'tensor'
    backend loads nothing here and returns None."""
    if backend is None:
        backend = _image_backend
    _check(backend)
    if backend == "pil":
        return _require("PIL.Image").open(path)
    if backend == "cv2":
        return _require("cv2").imread(path)
    return None
