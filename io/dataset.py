"""Paddle's datasets: the map-style ``Dataset`` (``__getitem__``/``__len__``),
the stream-style ``IterableDataset`` (``__iter__``), and the combinators
``TensorDataset``, ``ComposeDataset``, ``ChainDataset``, ``ConcatDataset``,
``Subset`` and ``random_split``.

Validation follows Paddle 2.6.2: its checks are assertions, so bad arguments
raise ``AssertionError`` with Paddle's message; ``random_split`` draws its
permutation from the global generator (``paddle.seed``).
"""
import bisect

from ..ops import in_dynamic_mode
from ..tensor import randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
           "ConcatDataset", "Subset", "random_split"]


def _check(cond, msg):
    if not cond:
        raise AssertionError(msg)


class Dataset:
    """A map-style dataset: subclasses give ``__getitem__(idx)`` and ``__len__()``."""

    def __init__(self):
        pass

    def __getitem__(self, idx):
        raise NotImplementedError(
            f"'__getitem__' not implement in class {self.__class__.__name__}")

    def __len__(self):
        raise NotImplementedError(f"'__len__' not implement in class {self.__class__.__name__}")


class IterableDataset(Dataset):
    """A stream of samples: subclasses give ``__iter__``.  With several
    DataLoader workers each worker iterates its own copy; shard it with
    ``paddle.io.get_worker_info()``."""

    def __init__(self):
        pass

    def __iter__(self):
        raise NotImplementedError(f"'__iter__' not implement in class {self.__class__.__name__}")

    def __getitem__(self, idx):
        raise RuntimeError(
            f"'__getitem__' should not be called for IterableDataset {self.__class__.__name__}")

    def __len__(self):
        raise RuntimeError(
            f"'__len__' should not be called for IterableDataset {self.__class__.__name__}")


class TensorDataset(Dataset):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``; eager mode only."""

    def __init__(self, tensors):
        if not in_dynamic_mode():
            raise RuntimeError("TensorDataset con only be used in imperative mode")
        _check(all(t.shape[0] == tensors[0].shape[0] for t in tensors),
               "tensors not have same shape of the 1st dimension")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


def _as_list(value):
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


class ComposeDataset(Dataset):
    """Map-style datasets of one length side by side: sample ``i`` is the
    fields of every dataset's sample ``i`` concatenated into one tuple."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        _check(len(self.datasets) > 0, "input datasets shoule not be empty")
        for i, d in enumerate(self.datasets):
            _check(isinstance(d, Dataset), "each input dataset should be paddle.io.Dataset")
            _check(not isinstance(d, IterableDataset), "paddle.io.IterableDataset not supported")
            if i > 0:
                _check(len(d) == len(self.datasets[i - 1]), "lengths of datasets should be same")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        sample = []
        for d in self.datasets:
            sample.extend(_as_list(d[idx]))
        return tuple(sample)


class ChainDataset(IterableDataset):
    """Iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        _check(len(self.datasets) > 0, "input datasets shoule not be empty")
        for d in self.datasets:
            _check(isinstance(d, IterableDataset),
                   "ChainDataset only support paddle.io.IterableDataset")

    def __iter__(self):
        for d in self.datasets:
            yield from d


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices`` (in that order)."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def _cumulative(lengths):
    total = 0
    for n in lengths:
        total += n
        yield total


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping ``Subset``s of the given lengths
    by one random permutation (drawn from the global generator: ``paddle.seed``
    makes it reproducible; ``generator`` is accepted and unused, as in Paddle)."""
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths)).tolist()
    return [Subset(dataset, indices[end - n:end]) for end, n in zip(_cumulative(lengths), lengths)]


class ConcatDataset(Dataset):
    """Map-style datasets one after another; index ``i`` finds its dataset by
    the cumulative lengths (negative indices count from the end)."""

    @staticmethod
    def cumsum(sequence):
        return list(_cumulative(len(d) for d in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        _check(len(self.datasets) > 0, "datasets should not be an empty iterable")
        for d in self.datasets:
            _check(not isinstance(d, IterableDataset),
                   "ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]
