"""``paddle.io``: datasets, samplers and the DataLoader (with worker processes).

Files by concern: ``dataset.py`` (Dataset and its combinators), ``sampler.py``
(index samplers and batch samplers), ``collate.py`` (batching samples; the
flat form batches travel in), ``worker.py`` (the worker process loop and
``get_worker_info``), ``dataloader.py`` (``DataLoader`` and its iterators).
"""
from .dataset import (Dataset, IterableDataset, TensorDataset, ComposeDataset, ChainDataset,
                      ConcatDataset, Subset, random_split)
from .sampler import (Sampler, SequenceSampler, RandomSampler, WeightedRandomSampler,
                      SubsetRandomSampler, BatchSampler, DistributedBatchSampler)
from .worker import get_worker_info
from .dataloader import DataLoader
from .collate import default_collate_fn, default_convert_fn  # noqa: F401

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
           "ConcatDataset", "Subset", "random_split", "Sampler", "SequenceSampler",
           "RandomSampler", "WeightedRandomSampler", "SubsetRandomSampler", "BatchSampler",
           "DistributedBatchSampler", "get_worker_info", "DataLoader"]
