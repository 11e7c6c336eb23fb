"""Samplers: index orders over a map-style dataset, and the batch samplers
that group them into lists of indices for ``DataLoader``.

Randomness follows Paddle 2.6.2: ``RandomSampler`` and
``WeightedRandomSampler`` draw from numpy's global RNG (``np.random.seed``
makes them reproducible), ``SubsetRandomSampler`` from the global generator
(``paddle.seed``), and ``DistributedBatchSampler`` shuffles with
``np.random.RandomState(epoch)``, so every rank sees the same permutation.
"""
import math
import os

import numpy as np

from ..tensor import randperm
from .dataset import IterableDataset

__all__ = ["Sampler", "SequenceSampler", "RandomSampler", "WeightedRandomSampler",
           "SubsetRandomSampler", "BatchSampler", "DistributedBatchSampler"]


def _check(cond, msg):
    if not cond:
        raise AssertionError(msg)


class Sampler:
    """Base class: ``__iter__`` yields dataset indices (``__len__`` optional)."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError


class SequenceSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, or ``num_samples`` indices drawn
    with replacement.  ``generator``, as in Paddle, is an iterator of indices
    that replaces the random draw."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError("expect boolean value for replacement, but got "
                            f"replacement={replacement}")
        if num_samples is not None and not replacement:
            raise ValueError("num_samples should not be specified while replacement is False")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer, "
                             f"but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator:
            for _ in range(self.num_samples):
                try:
                    yield next(self.generator)
                except StopIteration:
                    return
        elif self.replacement:
            yield from np.random.choice(np.arange(n), self.num_samples, replace=True).tolist()
        else:
            yield from np.random.choice(np.arange(n), n, replace=False).tolist()

    def __len__(self):
        return self.num_samples


def _weights_array(weights):
    if hasattr(weights, "numpy") and not isinstance(weights, np.ndarray):
        weights = weights.numpy()
    if isinstance(weights, (list, tuple)):
        weights = np.array(weights)
    _check(isinstance(weights, np.ndarray),
           "weights should be paddle.Tensor, numpy.ndarray, list or tuple")
    _check(weights.ndim <= 2, "weights should be a 1-D or 2-D array")
    return weights.reshape((-1, weights.shape[-1]))


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probability proportional to
    ``weights`` (a 2-D ``weights`` draws ``num_samples`` per row, flattened)."""

    def __init__(self, weights, num_samples, replacement=True):
        if not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement

    def __iter__(self):
        w = _weights_array(self.weights).astype(np.float64)
        _check(np.all(w >= 0.0), "weights should be positive value")
        _check(not np.any(np.isinf(w)), "weights shoule not be INF")
        _check(not np.any(np.isnan(w)), "weights shoule not be NaN")
        positive = np.sum(w > 0.0, axis=1)
        _check(np.all(positive > 0), "weights should have positive values")
        if not self.replacement:
            _check(np.all(positive >= self.num_samples),
                   "weights positive value number should not less than num_samples "
                   "when replacement=False")
        p = w / w.sum(axis=1, keepdims=True)
        rows = [np.random.choice(w.shape[1], self.num_samples, self.replacement, p[i])
                for i in range(w.shape[0])]
        return iter(np.array(rows).reshape(-1).tolist())

    def __len__(self):
        return self.num_samples * _weights_array(self.weights).shape[0]


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (a permutation from ``paddle.seed``'s
    generator)."""

    def __init__(self, indices):
        if len(indices) == 0:
            raise ValueError("The length of `indices` in SubsetRandomSampler should be "
                             "greater than 0.")
        self.indices = indices

    def __iter__(self):
        for i in randperm(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


def _batches(indices, batch_size, drop_last):
    batch = []
    for idx in indices:
        batch.append(idx)
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (or from a sequence or
    random sampler over ``dataset``); the last short one unless ``drop_last``."""

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1,
                 drop_last=False):
        if dataset is None:
            _check(sampler is not None, "either dataset or sampler should be set")
            _check(isinstance(sampler, Sampler),
                   f"sampler should be a paddle.io.Sampler, but got {type(sampler)}")
            _check(not shuffle, "shuffle should be False when sampler is set")
            self.sampler = sampler
        else:
            _check(not isinstance(dataset, IterableDataset),
                   "dataset should not be a paddle.io.IterableDataset")
            _check(sampler is None, "should not set both dataset and sampler")
            _check(isinstance(shuffle, bool),
                   f"shuffle should be a boolean value, but got {type(shuffle)}")
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        _check(isinstance(batch_size, int) and not isinstance(batch_size, bool)
               and batch_size > 0,
               f"batch_size should be a positive integer, but got {batch_size}")
        self.batch_size = batch_size
        _check(isinstance(drop_last, bool),
               f"drop_last should be a boolean value, but got {type(drop_last)}")
        self.drop_last = drop_last

    def __iter__(self):
        return _batches(self.sampler, self.batch_size, self.drop_last)

    def __len__(self):
        n = len(self.sampler) + int(not self.drop_last) * (self.batch_size - 1)
        return n // self.batch_size


class _InfiniteIterableSampler:
    """Batch "indices" for an IterableDataset: ``[None] * batch_size`` forever
    (the dataset's iterator decides where the data ends)."""

    def __init__(self, dataset, batch_size=1):
        _check(isinstance(dataset, IterableDataset),
               "dataset should be an instance of paddle.io.IterableDataset")
        self.dataset = dataset
        self.batch_size = batch_size

    def __iter__(self):
        while True:
            yield [None] * self.batch_size


class DistributedBatchSampler(BatchSampler):
    """The share of the batches that rank ``rank`` of ``num_replicas`` reads:
    the indices are padded (by repeating the first ones) to a multiple of
    ``num_replicas``, optionally shuffled by ``RandomState(epoch)`` (call
    ``set_epoch`` each epoch), and dealt out a batch at a time per rank.
    Without ``num_replicas``/``rank`` the launcher's ``PADDLE_TRAINERS_NUM`` /
    ``PADDLE_TRAINER_ID`` are read (1 and 0 when unset)."""

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False,
                 drop_last=False):
        self.dataset = dataset
        _check(isinstance(batch_size, int) and batch_size > 0,
               "batch_size should be a positive integer")
        self.batch_size = batch_size
        _check(isinstance(shuffle, bool), "shuffle should be a boolean value")
        self.shuffle = shuffle
        _check(isinstance(drop_last, bool), "drop_last should be a boolean number")
        if num_replicas is not None:
            _check(isinstance(num_replicas, int) and num_replicas > 0,
                   "num_replicas should be a positive integer")
            self.nranks = num_replicas
        else:
            self.nranks = int(os.environ.get("PADDLE_TRAINERS_NUM", "1"))
        if rank is not None:
            _check(isinstance(rank, int) and rank >= 0, "rank should be a non-negative integer")
            self.local_rank = rank
        else:
            self.local_rank = int(os.environ.get("PADDLE_TRAINER_ID", "0"))
        self.drop_last = drop_last
        self.epoch = 0
        self.num_samples = int(math.ceil(len(self.dataset) * 1.0 / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def _rank_indices(self, indices):
        """This rank's indices: whole batches dealt round-robin, then an even
        share of the tail that does not fill a batch on every rank."""
        step = self.batch_size * self.nranks
        tail = self.total_size % step
        local_tail = tail // self.nranks
        mine = []
        for i in range(self.local_rank * self.batch_size, len(indices) - tail, step):
            mine.extend(indices[i:i + self.batch_size])
        rest = indices[len(indices) - tail:]
        mine.extend(rest[self.local_rank * local_tail:(self.local_rank + 1) * local_tail])
        return mine

    def __iter__(self):
        n = len(self.dataset)
        indices = list(range(n))
        pad = self.total_size - n
        indices += (indices * math.ceil(pad / n))[:pad] if n else []
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks > 1:
            indices = self._rank_indices(indices)
        return _batches(indices, self.batch_size, self.drop_last)

    def __len__(self):
        n = self.num_samples + int(not self.drop_last) * (self.batch_size - 1)
        return n // self.batch_size

    def set_epoch(self, epoch):
        """The shuffle seed of the next epoch (the same on every rank)."""
        self.epoch = epoch
