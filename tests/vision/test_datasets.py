"""paddle.vision.datasets on tiny files in Paddle's formats (written by
dataset_files.py), compared with what real Paddle 2.6.2 returned on the same
files (fixtures/paddle_datasets.npz, recorded by
tests/interop/record_vision_datasets.py)."""
import os
import sys

import numpy as np
import pytest

from sampan.vision import datasets as D
from sampan.vision.datasets import _common

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dataset_files as files  # noqa: E402

REF = np.load(os.path.join(HERE, "fixtures", "paddle_datasets.npz"))


def _pil_or_skip(backend):
    if backend == "pil":
        pytest.importorskip("PIL.Image")


def _same(got, key):
    ref = REF[key]
    got = np.asarray(got)
    assert got.shape == ref.shape and got.dtype == ref.dtype, (key, got.shape, got.dtype)
    np.testing.assert_array_equal(got, ref)


def test_public_names():
    assert sorted(D.__all__) == sorted(['DatasetFolder', 'ImageFolder', 'MNIST', 'FashionMNIST',
                                        'Flowers', 'Cifar10', 'Cifar100', 'VOC2012'])


@pytest.mark.parametrize("backend", ["cv2", "pil"])
@pytest.mark.parametrize("cls", [D.MNIST, D.FashionMNIST])
def test_mnist(tmp_path, cls, backend):
    _pil_or_skip(backend)
    ip, lp = files.mnist_files(str(tmp_path))
    ds = cls(image_path=ip, label_path=lp, mode="test", backend=backend)
    key = f"{cls.__name__}_{backend}"
    assert len(ds) == int(REF[key + "_len"])
    for i in (0, 57, 99):
        img, label = ds[i]
        _same(img, f"{key}_{i}_img")
        _same(label, f"{key}_{i}_label")


def test_mnist_reads_any_count_and_transform(tmp_path):
    # Paddle's reader needs multiples of 100 images; the idx header is enough here
    ip, lp = str(tmp_path / "i.gz"), str(tmp_path / "l.gz")
    files.write_idx(ip, np.arange(5 * 4 * 3).reshape(5, 4, 3))
    files.write_idx(lp, [3, 1, 4, 1, 5])
    ds = D.MNIST(image_path=ip, label_path=lp, backend="cv2", transform=lambda x: x * 2)
    img, label = ds[4]
    assert len(ds) == 5 and img.dtype == np.float32 and label.tolist() == [5]
    np.testing.assert_array_equal(img, np.arange(48, 60).reshape(4, 3) * 2)


@pytest.mark.parametrize("backend", ["cv2", "pil"])
@pytest.mark.parametrize("mode", ["train", "test"])
@pytest.mark.parametrize("cls", [D.Cifar10, D.Cifar100])
def test_cifar(tmp_path, cls, mode, backend):
    _pil_or_skip(backend)
    path = files.cifar_file(str(tmp_path), hundred=cls is D.Cifar100)
    ds = cls(data_file=path, mode=mode, backend=backend)
    key = f"{cls.__name__}_{mode}_{backend}"
    assert len(ds) == int(REF[key + "_len"])
    for i in range(len(ds)):
        img, label = ds[i]
        _same(img, f"{key}_{i}_img")
        _same(label, f"{key}_{i}_label")


@pytest.mark.parametrize("backend", ["cv2", "pil"])
@pytest.mark.parametrize("mode", ["train", "valid", "test"])
def test_voc2012(tmp_path, mode, backend):
    ds = D.VOC2012(data_file=files.voc_file(str(tmp_path)), mode=mode, backend=backend)
    key = f"VOC2012_{mode}_{backend}"
    assert len(ds) == int(REF[key + "_len"])
    pytest.importorskip("PIL.Image")       # decoding the members needs Pillow
    for i in range(len(ds)):
        img, label = ds[i]
        _same(img, f"{key}_{i}_img")
        _same(label, f"{key}_{i}_label")


@pytest.mark.parametrize("ext", [None, (".npy",), [".NPY", ".txt"]])
def test_folders(tmp_path, ext):
    root = files.npy_folder(str(tmp_path / "folder"))
    tag = "default" if ext is None else "_".join(e.strip(".") for e in ext)
    for cls, name in ((D.DatasetFolder, "folder"), (D.ImageFolder, "imagefolder")):
        if f"{name}_{tag}_error" in REF:
            with pytest.raises(RuntimeError, match="Found 0"):
                cls(root, loader=np.load, extensions=ext)
            continue
        ds = cls(root, loader=np.load, extensions=ext)
        if cls is D.DatasetFolder:
            assert ds.classes == REF[f"folder_{tag}_classes"].tolist()
            assert ds.targets == REF[f"folder_{tag}_targets"].tolist()
            paths = [os.path.relpath(p, root) for p, _ in ds.samples]
            np.testing.assert_array_equal(ds[1][0], REF[f"folder_{tag}_item1"])
        else:
            paths = [os.path.relpath(p, root) for p in ds.samples]
            item = ds[0]
            assert isinstance(item, list) and len(item) == 1
            np.testing.assert_array_equal(item[0], REF[f"imagefolder_{tag}_item0"])
        assert paths == REF[f"{name}_{tag}_paths"].tolist()


def test_folder_is_valid_file_is_shadowed_by_the_extensions(tmp_path):
    # Paddle 2.6 fills extensions=None with the image extensions, which then
    # replace is_valid_file: the callable is never consulted (kept as Paddle has it)
    root = files.npy_folder(str(tmp_path / "f"))
    with pytest.raises(RuntimeError, match="Found 0"):
        D.DatasetFolder(root, loader=np.load, extensions=None,
                        is_valid_file=lambda p: p.endswith("x.npy"))


def test_missing_files_are_offline_errors(tmp_path, monkeypatch):
    monkeypatch.setattr(_common, "DATA_HOME", str(tmp_path))
    with pytest.raises(RuntimeError) as info:
        D.MNIST(mode="test", backend="cv2")
    msg = str(info.value)
    assert "https://dataset.bj.bcebos.com/mnist/t10k-images-idx3-ubyte.gz" in msg
    assert os.path.join(str(tmp_path), "mnist", "t10k-images-idx3-ubyte.gz") in msg
    with pytest.raises(RuntimeError, match="cifar-100-python.tar.gz"):
        D.Cifar100(backend="cv2")
    with pytest.raises(AssertionError, match="downloading automatically is disabled"):
        D.Cifar10(download=False, backend="cv2")
    with pytest.raises(AssertionError, match="mode"):
        D.Cifar10(mode="val", backend="cv2")
    with pytest.raises(ValueError, match="backend"):
        D.MNIST(backend="tensor")


def test_files_in_the_paddle_cache_are_used(tmp_path, monkeypatch):
    monkeypatch.setattr(_common, "DATA_HOME", str(tmp_path))
    os.makedirs(tmp_path / "cifar")
    made = files.cifar_file(str(tmp_path / "cifar"), hundred=True)
    # a file with the wrong md5 is reported, not used
    with pytest.raises(RuntimeError, match="md5"):
        D.Cifar100(backend="cv2")
    assert made.endswith("cifar-100-python.tar.gz")
    monkeypatch.setattr("sampan.vision.datasets.cifar.CIFAR100_MD5", _common.md5file(made))
    assert len(D.Cifar100(backend="cv2", mode="test")) == 2


def test_pil_backend_without_pillow_names_the_package(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    path = files.cifar_file(str(tmp_path))
    ds = D.Cifar10(data_file=path, backend="pil")
    with pytest.raises(ImportError, match="Pillow"):
        ds[0]


def test_flowers(tmp_path):
    scio = pytest.importorskip("scipy.io")
    Image = pytest.importorskip("PIL.Image")
    import tarfile
    rng = np.random.RandomState(0)
    jpg = tmp_path / "jpg"
    jpg.mkdir()
    arrays = []
    for i in (1, 2, 3):
        a = rng.randint(0, 256, size=(4, 5, 3)).astype(np.uint8)
        arrays.append(a)
        Image.fromarray(a).save(str(jpg / ("image_%05d.jpg" % i)), format="PNG")
    data = str(tmp_path / "102flowers.tgz")
    with tarfile.open(data, "w:gz") as tar:
        tar.add(str(jpg), arcname="jpg")
    labels, setid = str(tmp_path / "labels.mat"), str(tmp_path / "setid.mat")
    scio.savemat(labels, {"labels": np.array([[7, 8, 9]])})
    scio.savemat(setid, {"tstid": np.array([[3, 1]]), "trnid": np.array([[2]]),
                         "valid": np.array([[1]])})
    ds = D.Flowers(data, labels, setid, mode="train", backend="cv2")
    assert len(ds) == 2
    img, label = ds[0]
    assert img.dtype == np.float32 and label.tolist() == [9]
    np.testing.assert_array_equal(img, arrays[2])
