"""``paddle.vision.datasets.Cifar10`` / ``Cifar100``: the python-pickle
tarballs (cifar-10-python.tar.gz, cifar-100-python.tar.gz)."""
import pickle
import tarfile

import numpy as np

from ...io import Dataset
from ._common import check_exists_and_download, default_dtype, resolve_backend, to_image

__all__ = []

URL_PREFIX = 'https://dataset.bj.bcebos.com/cifar/'
CIFAR10_URL = URL_PREFIX + 'cifar-10-python.tar.gz'
CIFAR10_MD5 = 'c58f30108f718f92721af3b95e74349a'
CIFAR100_URL = URL_PREFIX + 'cifar-100-python.tar.gz'
CIFAR100_MD5 = 'eb9058c3a382ffc7106e4002c42a8d85'
MODE_FLAG_MAP = {'train10': 'data_batch', 'test10': 'test_batch', 'train100': 'train',
                 'test100': 'test'}


class Cifar10(Dataset):
    """Items: an image (float32 HWC [32, 32, 3] array with backend 'cv2', a PIL
    image with 'pil') and an int64 label (a 0-d array)."""

    def __init__(self, data_file=None, mode='train', transform=None, download=True,
                 backend=None):
        if mode.lower() not in ('train', 'test'):
            raise AssertionError(f"mode.lower() should be 'train' or 'test', but got {mode}")
        self.mode = mode.lower()
        self.backend = resolve_backend(backend)
        self._init_url_md5_flag()
        self.data_file = data_file
        if self.data_file is None:
            if not download:
                raise AssertionError("data_file is not set and downloading automatically is "
                                 "disabled")
            self.data_file = check_exists_and_download(data_file, self.data_url,
                                                       self.data_md5, 'cifar', download)
        self.transform = transform
        self._load_data()
        self.dtype = default_dtype()

    def _init_url_md5_flag(self):
        self.data_url, self.data_md5 = CIFAR10_URL, CIFAR10_MD5
        self.flag = MODE_FLAG_MAP[self.mode + '10']

    def _load_data(self):
        self.data = []
        with tarfile.open(self.data_file, mode='r') as f:
            names = sorted(m.name for m in f if self.flag in m.name)
            for name in names:
                batch = pickle.load(f.extractfile(name), encoding='bytes')
                labels = batch.get(b'labels', batch.get(b'fine_labels', None))
                if labels is None:
                    raise ValueError(f"{name} in {self.data_file} has neither b'labels' nor "
                                     "b'fine_labels'")
                self.data.extend(zip(batch[b'data'], labels))

    def __getitem__(self, idx):
        image, label = self.data[idx]
        image = np.reshape(image, [3, 32, 32]).transpose([1, 2, 0])
        if self.backend == 'pil':
            image = to_image(image.astype('uint8'))
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == 'pil':
            return image, np.array(label).astype('int64')
        return image.astype(self.dtype), np.array(label).astype('int64')

    def __len__(self):
        return len(self.data)


class Cifar100(Cifar10):
    """CIFAR-100 (fine labels)."""

    def _init_url_md5_flag(self):
        self.data_url, self.data_md5 = CIFAR100_URL, CIFAR100_MD5
        self.flag = MODE_FLAG_MAP[self.mode + '100']
