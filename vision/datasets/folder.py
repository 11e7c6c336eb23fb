"""``paddle.vision.datasets.DatasetFolder`` / ``ImageFolder``: samples found
by walking a directory (``root/<class>/.../<file>`` for DatasetFolder)."""
import os

import numpy as np

from ...io import Dataset
from ._common import default_dtype, pil_image

__all__ = []

IMG_EXTENSIONS = ('.jpg', '.jpeg', '.png', '.ppm', '.bmp', '.pgm', '.tif', '.tiff', '.webp')


def has_valid_extension(filename, extensions):
    if not isinstance(extensions, (list, tuple)):
        raise AssertionError("`extensions` must be list or tuple.")
    return filename.lower().endswith(tuple(x.lower() for x in extensions))


def make_dataset(dir, class_to_idx, extensions, is_valid_file=None):
    """[(path, class index)] of the files under each class folder, sorted."""
    images = []
    dir = os.path.expanduser(dir)
    if extensions is not None:
        def is_valid_file(x):
            return has_valid_extension(x, extensions)
    for target in sorted(class_to_idx):
        d = os.path.join(dir, target)
        if not os.path.isdir(d):
            continue
        for root, _, fnames in sorted(os.walk(d, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    images.append((path, class_to_idx[target]))
    return images


def pil_loader(path):
    with open(path, 'rb') as f:
        return pil_image().open(f).convert('RGB')


def cv2_loader(path):
    """An RGB uint8 HWC array (OpenCV when installed, else Pillow decodes it)."""
    try:
        import cv2
    except ImportError:
        return np.array(pil_loader(path))
    img = cv2.imread(path)
    if img is None:
        raise ValueError(f"cannot decode the image file {path}")
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)


def default_loader(path):
    from ..image import get_image_backend
    return cv2_loader(path) if get_image_backend() == 'cv2' else pil_loader(path)


class DatasetFolder(Dataset):
    """``root/<class>/**/<file>``: items (loader(path), class index); classes are
    the sorted sub-folder names."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        self.transform = transform
        if extensions is None:
            extensions = IMG_EXTENSIONS
        classes, class_to_idx = self._find_classes(self.root)
        samples = make_dataset(self.root, class_to_idx, extensions, is_valid_file)
        if not samples:
            raise RuntimeError("Found 0 directories in subfolders of: " + self.root + "\n"
                               "Supported extensions are: " + ",".join(extensions))
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]
        self.dtype = default_dtype()

    def _find_classes(self, dir):
        classes = sorted(d.name for d in os.scandir(dir) if d.is_dir())
        return classes, {c: i for i, c in enumerate(classes)}

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    """Every matching file under ``root`` (no classes): items ``[loader(path)]``."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        if extensions is None:
            extensions = IMG_EXTENSIONS
        if extensions is not None:
            def is_valid_file(x):
                return has_valid_extension(x, extensions)
        samples = []
        for r, _, fnames in sorted(os.walk(os.path.expanduser(root), followlinks=True)):
            for fname in sorted(fnames):
                f = os.path.join(r, fname)
                if is_valid_file(f):
                    samples.append(f)
        if not samples:
            raise RuntimeError("Found 0 files in subfolders of: " + self.root + "\n"
                               "Supported extensions are: " + ",".join(extensions))
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.samples = samples
        self.transform = transform

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)
