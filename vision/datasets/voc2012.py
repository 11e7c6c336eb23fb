"""``paddle.vision.datasets.VOC2012``: the segmentation part of
VOCtrainval_11-May-2012.tar, read from the tar without extracting it
(decoding the JPEG/PNG members needs Pillow)."""
import io
import tarfile

import numpy as np

from ...io import Dataset
from ._common import check_exists_and_download, decode, default_dtype, resolve_backend

__all__ = []

VOC_URL = 'https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar'
VOC_MD5 = '6cd6e144f989b92b3379bac3b3de84fd'
SET_FILE = 'VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt'
DATA_FILE = 'VOCdevkit/VOC2012/JPEGImages/{}.jpg'
LABEL_FILE = 'VOCdevkit/VOC2012/SegmentationClass/{}.png'
CACHE_DIR = 'voc2012'
# Paddle's mapping: 'train' reads trainval, 'test' reads train
MODE_FLAG_MAP = {'train': 'trainval', 'test': 'train', 'valid': "val"}


class VOC2012(Dataset):
    """Items: (image, segmentation label): float32 arrays with backend 'cv2',
    PIL images with 'pil'."""

    def __init__(self, data_file=None, mode='train', transform=None, download=True,
                 backend=None):
        if mode.lower() not in ('train', 'valid', 'test'):
            raise AssertionError(f"mode should be 'train', 'valid' or 'test', but got {mode}")
        self.backend = resolve_backend(backend)
        self.flag = MODE_FLAG_MAP[mode.lower()]
        self.data_file = data_file
        self.data_tar = None
        if self.data_file is None:
            if not download:
                raise AssertionError("data_file is not set and downloading automatically is "
                                     "disabled")
            self.data_file = check_exists_and_download(data_file, VOC_URL, VOC_MD5, CACHE_DIR,
                                                       download)
        self.transform = transform
        self._load_anno()
        self.dtype = default_dtype()

    def _load_anno(self):
        self.data_tar = tarfile.open(self.data_file)
        self.name2mem = {m.name: m for m in self.data_tar.getmembers()}
        set_file = SET_FILE.format(self.flag)
        if set_file not in self.name2mem:
            raise ValueError(f"{self.data_file} has no {set_file}: not a VOC2012 archive")
        self.data, self.labels = [], []
        for line in self.data_tar.extractfile(self.name2mem[set_file]):
            name = line.strip().decode('utf-8')
            if not name:
                continue
            self.data.append(DATA_FILE.format(name))
            self.labels.append(LABEL_FILE.format(name))

    def _read(self, member):
        return decode(io.BytesIO(self.data_tar.extractfile(self.name2mem[member]).read()))

    def __getitem__(self, idx):
        data, label = self._read(self.data[idx]), self._read(self.labels[idx])
        if self.backend == 'cv2':
            data, label = np.array(data), np.array(label)
        if self.transform is not None:
            data = self.transform(data)
        if self.backend == 'cv2':
            return data.astype(self.dtype), label.astype(self.dtype)
        return data, label

    def __len__(self):
        return len(self.data)

    def __del__(self):
        if getattr(self, 'data_tar', None):
            self.data_tar.close()
