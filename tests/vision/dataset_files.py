"""Tiny files in the formats of Paddle's vision datasets, written by the tests
(tests/vision/test_datasets.py) and by the recorder of Paddle's answers
(tests/interop/record_vision_datasets.py) alike.  No paddle/sampan."""
import gzip
import io
import os
import pickle
import struct
import tarfile
import zlib

import numpy as np


def _rng():
    return np.random.RandomState(11)


def write_idx(path, array):
    array = np.ascontiguousarray(array, np.uint8)
    head = struct.pack('>BBBB', 0, 0, 0x08, array.ndim) + struct.pack(
        '>' + 'I' * array.ndim, *array.shape)
    with gzip.open(path, 'wb') as f:
        f.write(head + array.tobytes())


def mnist_files(root, n=100):
    """(images.gz, labels.gz): Paddle's reader needs a multiple of 100 images."""
    rng = _rng()
    images = rng.randint(0, 256, size=(n, 28, 28)).astype(np.uint8)
    labels = rng.randint(0, 10, size=(n,)).astype(np.uint8)
    ip, lp = os.path.join(root, 'images-idx3-ubyte.gz'), os.path.join(root, 'labels-idx1.gz')
    write_idx(ip, images)
    write_idx(lp, labels)
    return ip, lp


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def cifar_file(root, hundred=False):
    rng = _rng()
    if hundred:
        batches = {'cifar-100-python/train': 3, 'cifar-100-python/test': 2}
        key = b'fine_labels'
    else:
        batches = {'cifar-10-batches-py/data_batch_2': 2, 'cifar-10-batches-py/data_batch_1': 3,
                   'cifar-10-batches-py/test_batch': 2}
        key = b'labels'
    path = os.path.join(root, 'cifar-100-python.tar.gz' if hundred else 'cifar-10.tar.gz')
    with tarfile.open(path, 'w:gz') as tar:
        for name, n in batches.items():
            batch = {b'data': rng.randint(0, 256, size=(n, 3072)).astype(np.uint8),
                     key: [int(v) for v in rng.randint(0, 100 if hundred else 10, size=n)]}
            _add(tar, name, pickle.dumps(batch, protocol=2))
    return path


def png_bytes(array):
    """A PNG (8-bit gray 'L' for 2-D arrays, RGB for HxWx3) written with zlib."""
    a = np.ascontiguousarray(array, np.uint8)
    color = 0 if a.ndim == 2 else 2
    h, w = a.shape[:2]
    raw = b''.join(b'\x00' + a[i].tobytes() for i in range(h))

    def chunk(kind, data):
        return (struct.pack('>I', len(data)) + kind + data +
                struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, color, 0, 0,
                                                                0)) +
            chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))


def voc_file(root):
    rng = _rng()
    path = os.path.join(root, 'voc.tar')
    names = {'trainval': ['a1', 'b2', 'c3'], 'train': ['a1', 'c3'], 'val': ['b2']}
    with tarfile.open(path, 'w') as tar:
        for flag, ns in names.items():
            _add(tar, f'VOCdevkit/VOC2012/ImageSets/Segmentation/{flag}.txt',
                 ('\n'.join(ns) + '\n').encode())
        for n in names['trainval']:
            # PNG content under the .jpg name: lossless, and decoders go by content
            _add(tar, f'VOCdevkit/VOC2012/JPEGImages/{n}.jpg',
                 png_bytes(rng.randint(0, 256, size=(5, 6, 3))))
            _add(tar, f'VOCdevkit/VOC2012/SegmentationClass/{n}.png',
                 png_bytes(rng.randint(0, 21, size=(5, 6))))
    return path


def npy_folder(root):
    """root/<class>/.../*.npy plus files the default extensions skip."""
    rng = _rng()
    files = ['cat/1.npy', 'cat/sub/0.npy', 'dog/2.NPY', 'dog/skip.txt', 'emu/x.npy']
    for f in files:
        p = os.path.join(root, f)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        np.save(p if p.endswith('.npy') else p + '.tmp', rng.rand(2, 2).astype(np.float32))
        if not p.endswith('.npy'):
            os.replace(p + '.tmp' + '.npy', p)
    os.makedirs(os.path.join(root, 'empty'), exist_ok=True)
    return root
