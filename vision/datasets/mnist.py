"""``paddle.vision.datasets.MNIST`` / ``FashionMNIST``: the idx files
(gzip-compressed), as Paddle distributes them."""
import gzip
import struct

import numpy as np

from ...io import Dataset
from ._common import check_exists_and_download, default_dtype, resolve_backend, to_image

__all__ = []

_IDX_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: '>i2', 0x0C: '>i4', 0x0D: '>f4',
               0x0E: '>f8'}


def read_idx(path):
    """The array stored in an idx file (gzip-compressed or not)."""
    with open(path, 'rb') as f:
        head = f.read(2)
    opener = gzip.open if head == b'\x1f\x8b' else open
    with opener(path, 'rb') as f:
        buf = f.read()
    if len(buf) < 4 or buf[0] != 0 or buf[1] != 0 or buf[2] not in _IDX_DTYPES:
        raise ValueError(f"{path} is not an idx file (bad magic number {buf[:4]!r})")
    ndim = buf[3]
    shape = struct.unpack_from('>' + 'I' * ndim, buf, 4)
    dtype = np.dtype(_IDX_DTYPES[buf[2]])
    offset = 4 + 4 * ndim
    count = int(np.prod(shape)) if shape else 1
    if len(buf) - offset < count * dtype.itemsize:
        raise ValueError(f"{path} is truncated: its header announces shape {shape}")
    return np.frombuffer(buf, dtype, count, offset).reshape(shape)


class MNIST(Dataset):
    """MNIST from ``image_path`` / ``label_path`` (idx .gz files), or the files
    Paddle downloads to ``~/.cache/paddle/dataset/mnist``.  Items: an image
    (float32 [rows, cols] array with backend 'cv2', a PIL 'L' image with 'pil')
    and an int64 label of shape [1]."""
    NAME = 'mnist'
    URL_PREFIX = 'https://dataset.bj.bcebos.com/mnist/'
    TEST_IMAGE_URL = URL_PREFIX + 't10k-images-idx3-ubyte.gz'
    TEST_IMAGE_MD5 = '9fb629c4189551a2d022fa330f9573f3'
    TEST_LABEL_URL = URL_PREFIX + 't10k-labels-idx1-ubyte.gz'
    TEST_LABEL_MD5 = 'ec29112dd5afa0611ce80d1b7f02629c'
    TRAIN_IMAGE_URL = URL_PREFIX + 'train-images-idx3-ubyte.gz'
    TRAIN_IMAGE_MD5 = 'f68b3c2dcbeaaa9fbdd348bbdeb94873'
    TRAIN_LABEL_URL = URL_PREFIX + 'train-labels-idx1-ubyte.gz'
    TRAIN_LABEL_MD5 = 'd53e105ee54ea40749a09fcbcd1e9432'

    def __init__(self, image_path=None, label_path=None, mode='train', transform=None,
                 download=True, backend=None):
        if mode.lower() not in ('train', 'test'):
            raise AssertionError(f"mode should be 'train' or 'test', but got {mode}")
        self.backend = resolve_backend(backend)
        self.mode = mode.lower()
        train = self.mode == 'train'
        self.image_path = image_path
        if self.image_path is None:
            if not download:
                raise AssertionError("image_path is not set and downloading automatically is "
                                 "disabled")
            self.image_path = check_exists_and_download(
                image_path, self.TRAIN_IMAGE_URL if train else self.TEST_IMAGE_URL,
                self.TRAIN_IMAGE_MD5 if train else self.TEST_IMAGE_MD5, self.NAME, download)
        self.label_path = label_path
        if self.label_path is None:
            if not download:
                raise AssertionError("label_path is not set and downloading automatically is "
                                 "disabled")
            self.label_path = check_exists_and_download(
                label_path, self.TRAIN_LABEL_URL if train else self.TEST_LABEL_URL,
                self.TRAIN_LABEL_MD5 if train else self.TEST_LABEL_MD5, self.NAME, download)
        self.transform = transform
        self._parse_dataset()
        self.dtype = default_dtype()

    def _parse_dataset(self):
        images = read_idx(self.image_path)
        labels = read_idx(self.label_path)
        if images.ndim != 3 or labels.ndim != 1:
            raise ValueError(f"expected images [n, rows, cols] and labels [n], got "
                             f"{images.shape} and {labels.shape}")
        if len(labels) > len(images):
            raise ValueError(f"{self.label_path} has {len(labels)} labels but "
                             f"{self.image_path} only {len(images)} images")
        n = len(labels)
        self.images = list(images[:n].reshape(n, -1).astype('float32'))
        self.labels = [np.array([v], dtype='int64') for v in labels]
        self._shape = images.shape[1:]

    def __getitem__(self, idx):
        image, label = self.images[idx], self.labels[idx]
        image = np.reshape(image, self._shape)
        if self.backend == 'pil':
            image = to_image(image.astype('uint8'), mode='L')
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == 'pil':
            return image, label.astype('int64')
        return image.astype(self.dtype), label.astype('int64')

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST: MNIST's file format, Zalando's images."""
    NAME = 'fashion-mnist'
    URL_PREFIX = 'https://dataset.bj.bcebos.com/fashion_mnist/'
    TEST_IMAGE_URL = URL_PREFIX + 't10k-images-idx3-ubyte.gz'
    TEST_IMAGE_MD5 = 'bef4ecab320f06d8554ea6380940ec79'
    TEST_LABEL_URL = URL_PREFIX + 't10k-labels-idx1-ubyte.gz'
    TEST_LABEL_MD5 = 'bb300cfdad3c16e7a12a480ee83cd310'
    TRAIN_IMAGE_URL = URL_PREFIX + 'train-images-idx3-ubyte.gz'
    TRAIN_IMAGE_MD5 = '8d4fb7e6c68d591d4c3dfef9ec88bf0d'
    TRAIN_LABEL_URL = URL_PREFIX + 'train-labels-idx1-ubyte.gz'
    TRAIN_LABEL_MD5 = '25c81989df183df01b3e8a0aad5dffbe'
