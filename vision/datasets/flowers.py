"""``paddle.vision.datasets.Flowers``: Oxford 102 Flowers as Paddle ships it
(102flowers.tgz of jpg/image_%05d.jpg, imagelabels.mat, setid.mat).  Reading
the .mat files needs scipy, decoding the JPEGs needs Pillow."""
import os
import tarfile

import numpy as np

from ...io import Dataset
from ._common import check_exists_and_download, decode, default_dtype, resolve_backend

__all__ = []

DATA_URL = 'http://paddlemodels.bj.bcebos.com/flowers/102flowers.tgz'
LABEL_URL = 'http://paddlemodels.bj.bcebos.com/flowers/imagelabels.mat'
SETID_URL = 'http://paddlemodels.bj.bcebos.com/flowers/setid.mat'
DATA_MD5 = '52808999861908f626f3c1f4e79d11fa'
LABEL_MD5 = 'e0620be6f572b9609742df49c70aed4d'
SETID_MD5 = 'a5357ecc9cb78c4bef273ce3793fc85c'
# Paddle's own (swapped) choice: 'train' reads the larger 'tstid' split
MODE_FLAG_MAP = {'train': 'tstid', 'test': 'trnid', 'valid': 'valid'}


def _loadmat(path):
    try:
        from scipy import io as scio
    except ImportError as e:
        raise ImportError("Flowers reads its .mat label files with scipy "
                          "(pip install scipy)") from e
    return scio.loadmat(path)


class Flowers(Dataset):
    """Items: an image (float32 HWC array with backend 'cv2', a PIL image with
    'pil') and an int64 label of shape [1]."""

    def __init__(self, data_file=None, label_file=None, setid_file=None, mode='train',
                 transform=None, download=True, backend=None):
        if mode.lower() not in ('train', 'valid', 'test'):
            raise AssertionError(f"mode should be 'train', 'valid' or 'test', but got {mode}")
        self.backend = resolve_backend(backend)
        flag = MODE_FLAG_MAP[mode.lower()]
        files = {}
        for name, given, url, md5 in (('data_file', data_file, DATA_URL, DATA_MD5),
                                      ('label_file', label_file, LABEL_URL, LABEL_MD5),
                                      ('setid_file', setid_file, SETID_URL, SETID_MD5)):
            if not given:
                if not download:
                    raise AssertionError(f"{name} is not set and downloading automatically "
                                         "is disabled")
                given = check_exists_and_download(given, url, md5, 'flowers', download)
            files[name] = given
        self.transform = transform
        data_file = files['data_file']
        # like Paddle: the archive is extracted beside itself, once
        self.data_path = data_file.replace(".tgz", "/")
        if not os.path.exists(os.path.join(self.data_path, 'jpg')):
            os.makedirs(self.data_path, exist_ok=True)
            with tarfile.open(data_file) as tar:
                safe = {'filter': 'data'} if hasattr(tarfile, 'data_filter') else {}
                tar.extractall(self.data_path, **safe)
        self.labels = _loadmat(files['label_file'])['labels'][0]
        self.indexes = _loadmat(files['setid_file'])[flag][0]

    def __getitem__(self, idx):
        index = self.indexes[idx]
        label = np.array([self.labels[index - 1]])
        image = decode(os.path.join(self.data_path, "jpg/image_%05d.jpg" % index))
        if self.backend == 'cv2':
            image = np.array(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == 'pil':
            return image, label.astype('int64')
        return image.astype(default_dtype()), label.astype('int64')

    def __len__(self):
        return len(self.indexes)
