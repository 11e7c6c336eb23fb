"""What the image datasets share: where Paddle keeps downloaded data
(``~/.cache/paddle/dataset/<module>/``), the offline "download" (a file already
there is used; a missing one is a clear error naming the URL and the path, as
sampan never reaches the network), the image backend, and image decoding."""
import hashlib
import os

import numpy as np

DATA_HOME = os.path.join(os.path.expanduser('~'), '.cache', 'paddle', 'dataset')


def md5file(fname):
    h = hashlib.md5()
    with open(fname, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def check_exists_and_download(path, url, md5, module_name, download=True):
    """``path`` if it exists, else the file Paddle's downloader would have saved
    (``DATA_HOME/module_name/<url basename>``) when it is there with the right md5."""
    if path and os.path.exists(path):
        return path
    if not download:
        raise ValueError(f'{path} does not exist and downloading automatically is disabled')
    target = os.path.join(DATA_HOME, module_name, url.split('/')[-1])
    if os.path.exists(target):
        if md5 is None or md5file(target) == md5:
            return target
        raise RuntimeError(f"{target} exists but its md5 is not {md5} (an incomplete or "
                           f"different file); replace it with a fresh copy of {url}")
    raise RuntimeError(f"the data file is missing and sampan does not download: fetch {url} "
                       f"yourself and save it as {target} (or pass its path to the dataset)")


def resolve_backend(backend):
    if backend is None:
        from ..image import get_image_backend
        backend = get_image_backend()
    if backend not in ('pil', 'cv2'):
        raise ValueError(f"Expected backend are one of ['pil', 'cv2'], but got {backend}")
    return backend


def pil_image():
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError("this needs the 'Pillow' package (pip install Pillow): PIL images "
                          "(backend='pil') and decoding JPEG/PNG files use it") from e
    return Image


def default_dtype():
    from ...ops.dtypes import get_default_dtype
    return get_default_dtype()


def to_image(array, mode=None):
    """A numpy array as a PIL image (the 'pil' backend)."""
    return pil_image().fromarray(np.asarray(array), mode=mode) if mode else \
        pil_image().fromarray(np.asarray(array))


def decode(data_or_file):
    """Open an encoded image (a path or a file object) with Pillow."""
    return pil_image().open(data_or_file)
