"""Datasets and their combinators: lengths, index mapping, errors."""
import numpy as np
import pytest

import sampan as paddle
from sampan.io import (ChainDataset, ComposeDataset, ConcatDataset, Dataset, IterableDataset,
                       Subset, TensorDataset, random_split)


class Range(Dataset):
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def __len__(self):
        return self.hi - self.lo

    def __getitem__(self, i):
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.lo + i


class Stream(IterableDataset):
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)


def test_base_classes_name_what_is_missing():
    with pytest.raises(NotImplementedError, match="__getitem__"):
        Dataset()[0]
    with pytest.raises(NotImplementedError, match="__len__"):
        len(Dataset())
    with pytest.raises(NotImplementedError, match="__iter__"):
        iter(IterableDataset())
    with pytest.raises(RuntimeError, match="__len__"):
        len(Stream([1]))
    with pytest.raises(RuntimeError, match="__getitem__"):
        Stream([1])[0]


def test_tensor_dataset():
    x = paddle.to_tensor(np.arange(12, dtype="float32").reshape(4, 3))
    y = paddle.to_tensor(np.arange(4))
    ds = TensorDataset([x, y])
    assert len(ds) == 4
    a, b = ds[2]
    np.testing.assert_array_equal(a.numpy(), [6, 7, 8])
    assert int(b) == 2
    with pytest.raises(AssertionError, match="1st dimension"):
        TensorDataset([x, paddle.ones([3])])
    paddle.enable_static()
    try:
        with pytest.raises(RuntimeError, match="imperative mode"):
            TensorDataset([x])
    finally:
        paddle.disable_static()


def test_compose_dataset():
    ds = ComposeDataset([Range(0, 3), TensorDataset([paddle.ones([3, 2])])])
    assert len(ds) == 3
    sample = ds[1]
    assert isinstance(sample, tuple) and sample[0] == 1 and sample[1].shape == [2]
    with pytest.raises(AssertionError, match="same"):
        ComposeDataset([Range(0, 3), Range(0, 4)])
    with pytest.raises(AssertionError, match="not supported"):
        ComposeDataset([Stream([1])])
    with pytest.raises(AssertionError, match="empty"):
        ComposeDataset([])


def test_chain_dataset():
    assert [x for x in ChainDataset([Stream([1, 2]), Stream([3])])] == [1, 2, 3]
    with pytest.raises(AssertionError, match="IterableDataset"):
        ChainDataset([Range(0, 2)])


def test_concat_dataset_index_mapping():
    ds = ConcatDataset([Range(0, 3), Range(10, 12), Range(20, 24)])
    assert len(ds) == 9 and ds.cumulative_sizes == [3, 5, 9]
    assert [ds[i] for i in range(9)] == [0, 1, 2, 10, 11, 20, 21, 22, 23]
    assert ds[-1] == 23 and ds[-9] == 0
    with pytest.raises(ValueError, match="exceed"):
        ds[-10]
    with pytest.raises(AssertionError, match="IterableDataset"):
        ConcatDataset([Stream([1])])


def test_subset_and_random_split():
    base = Range(100, 110)
    sub = Subset(base, [9, 0, 4])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [109, 100, 104]
    paddle.seed(11)
    parts = random_split(base, [3, 7])
    assert [len(p) for p in parts] == [3, 7]
    values = sorted(p[i] for p in parts for i in range(len(p)))
    assert values == list(range(100, 110))
    paddle.seed(11)
    again = random_split(base, [3, 7])
    assert [again[0][i] for i in range(3)] == [parts[0][i] for i in range(3)]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(base, [3, 3])


def test_dataloader_over_combinators():
    ds = ConcatDataset([Range(0, 3), Range(10, 12)])
    got = [b.numpy().tolist() for b in paddle.io.DataLoader(ds, batch_size=2)]
    assert got == [[0, 1], [2, 10], [11]]
    got = [b.numpy().tolist() for b in paddle.io.DataLoader(
        ChainDataset([Stream([1, 2, 3]), Stream([4])]), batch_size=3)]
    assert got == [[1, 2, 3], [4]]
