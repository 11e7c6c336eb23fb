"""What a DataLoader worker process runs, and what it can ask about itself.

A worker reads ``(epoch, idx, indices)`` tasks from its own queue, fetches and
collates the batch, and puts ``(epoch, idx, flat numpy arrays, structure)`` on
the shared result queue (Tensors cross the process boundary as numpy arrays);
an exception is sent as a ``WorkerError`` holding its formatted traceback, an
exhausted IterableDataset as ``Exhausted``.  ``None`` tells it to exit, and it
also exits when its parent is gone.  A new ``epoch`` restarts an
IterableDataset's iterator (persistent workers).
"""
import os
import pickle
import queue
import random
import sys
import traceback

import numpy as np

from ..kernels import random as _random
from .collate import flatten_batch

__all__ = ["get_worker_info", "WorkerInfo"]

POLL_INTERVAL = 1.0      # seconds between checks that the parent is alive

_worker_info = None


def get_worker_info():
    """In a DataLoader worker process: a ``WorkerInfo`` with ``id``,
    ``num_workers``, ``dataset`` (this worker's copy) and ``seed``; ``None``
    in the main process."""
    return _worker_info


class WorkerInfo:
    """Read-only facts about the current worker."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, key, val):
        raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")

    def __repr__(self):
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, "
                f"seed={self.seed})")


class WorkerError:
    """An exception raised in a worker, carried to the main process as text."""

    def __init__(self, worker_id):
        exc_type, exc, tb = sys.exc_info()
        self.worker_id = worker_id
        self.name = exc_type.__name__
        self.text = "".join(traceback.format_exception(exc_type, exc, tb))
        try:                        # a class the main process cannot import comes back
            pickle.loads(pickle.dumps(exc_type))    # as RuntimeError, its name in the text
            self.exc_type = exc_type
        except Exception:
            self.exc_type = RuntimeError

    def reraise(self):
        msg = (f"DataLoader worker({self.worker_id}) caught {self.name} "
               f"with message:\n{self.text}")
        try:
            err = self.exc_type(msg)
        except Exception:          # an exception class that wants other arguments
            err = RuntimeError(msg)
        raise err


class Exhausted:
    """An IterableDataset worker has no more samples this epoch."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class MapFetcher:
    def __init__(self, dataset, auto_collate, collate_fn, drop_last):
        self.dataset, self.auto_collate, self.collate_fn = dataset, auto_collate, collate_fn

    def fetch(self, indices):
        if self.auto_collate:
            data = [self.dataset[i] for i in indices]
        else:
            data = self.dataset[indices]
        return self.collate_fn(data) if self.collate_fn else data


class IterableFetcher:
    def __init__(self, dataset, auto_collate, collate_fn, drop_last):
        self.auto_collate, self.collate_fn, self.drop_last = auto_collate, collate_fn, drop_last
        self.it = iter(dataset)

    def fetch(self, indices):
        """The next batch; StopIteration when the stream has none (or, with
        ``drop_last``, only a short one) left."""
        if self.auto_collate:
            data = []
            for _ in indices:
                try:
                    data.append(next(self.it))
                except StopIteration:
                    break
            if not data or (self.drop_last and len(data) < len(indices)):
                raise StopIteration
        else:
            data = next(self.it)
        return self.collate_fn(data) if self.collate_fn else data


def make_fetcher(iterable, dataset, auto_collate, collate_fn, drop_last):
    cls = IterableFetcher if iterable else MapFetcher
    return cls(dataset, auto_collate, collate_fn, drop_last)


def _seed_worker(base_seed, worker_id):
    seed = base_seed + worker_id
    random.seed(seed)
    _random.seed(seed)
    np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))


def worker_loop(dataset, iterable, task_queue, result_queue, done_event, auto_collate,
                collate_fn, drop_last, init_fn, worker_id, num_workers, base_seed):
    global _worker_info
    parent = os.getppid()
    try:
        _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, dataset=dataset,
                                  seed=base_seed)
        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
        except Exception:
            init_error = WorkerError(worker_id)
        fetcher, fetcher_epoch, drained = None, None, False
        while True:
            try:
                task = task_queue.get(timeout=POLL_INTERVAL)
            except queue.Empty:
                if os.getppid() != parent:
                    break
                continue
            if task is None:
                break
            epoch, idx, indices = task
            if done_event.is_set():
                continue
            if init_error is not None:
                result_queue.put((epoch, idx, init_error, None))
                init_error = None
                continue
            try:
                if fetcher is None or epoch != fetcher_epoch:
                    fetcher = make_fetcher(iterable, dataset, auto_collate, collate_fn,
                                           drop_last)
                    fetcher_epoch, drained = epoch, False
                if drained:
                    raise StopIteration
                batch = fetcher.fetch(indices)
            except StopIteration:
                if not iterable:
                    result_queue.put((epoch, idx, WorkerError(worker_id), None))
                    continue
                drained = True
                result_queue.put((epoch, idx, Exhausted(worker_id), None))
            except Exception:
                result_queue.put((epoch, idx, WorkerError(worker_id), None))
            else:
                try:
                    flat, structure = flatten_batch(batch, to_numpy=True)
                    pickle.dumps(structure)     # fail here, not in the queue's feeder thread
                except Exception:
                    result_queue.put((epoch, idx, WorkerError(worker_id), None))
                    continue
                result_queue.put((epoch, idx, flat, structure))
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        result_queue.cancel_join_thread()
    result_queue.close()
