"""``DataLoader``: batches from a dataset, in the main process or in worker
processes.

The loader picks the batch indices (a ``BatchSampler``, the user's
``batch_sampler``, or an endless ``[None] * batch_size`` for an
IterableDataset), fetches and collates each batch, and hands it over with
its arrays as Tensors (eager mode) in the collated structure (tuples become
lists, numbers and strings a custom ``collate_fn`` left stay as they are).

With ``num_workers > 0`` the batches are made by worker processes
(``multiprocessing``, the platform's default start method): task ``idx`` goes
to worker ``idx % num_workers`` (skipping drained IterableDataset workers),
at most ``prefetch_factor * num_workers`` tasks are out at once, and results
are handed over in task order, so the batches equal the ``num_workers=0``
ones.  Workers stop when the iterator ends, is dropped (a ``break``), is
garbage collected, or the interpreter exits; a worker's exception is raised
in the main process with the worker's traceback in its message.

Where sampan differs from Paddle 2.6.2 (whose loader pushes batches through a
C++ queue): a batch holding no array (say, only strings) is yielded as it is
(Paddle silently ends the epoch); an exception in the main process's fetch is
raised where it happened (Paddle's reader thread dies and the loop hangs);
``timeout > 0`` raises ``RuntimeError`` when no batch came from the workers
in that many seconds (Paddle only uses it as the polling interval);
``places``, ``use_buffer_reader`` and ``use_shared_memory`` are accepted and
have no effect.
"""
import atexit
import itertools
import multiprocessing
import os
import queue
import sys
import weakref

import numpy as np

from ..ops import in_dynamic_mode
from ..tensor import to_tensor
from ..dygraph import Tensor
from .collate import default_collate_fn, default_convert_fn, flatten_batch, restore_batch
from .dataset import IterableDataset
from .sampler import BatchSampler, _InfiniteIterableSampler
from .worker import POLL_INTERVAL, Exhausted, WorkerError, make_fetcher, worker_loop

__all__ = ["DataLoader"]

JOIN_TIMEOUT = 5.0        # seconds a worker gets to exit before it is terminated


class DataLoader:
    def __init__(self, dataset, feed_list=None, places=None, return_list=True,
                 batch_sampler=None, batch_size=1, shuffle=False, drop_last=False,
                 collate_fn=None, num_workers=0, use_buffer_reader=True, prefetch_factor=2,
                 use_shared_memory=True, timeout=0, worker_init_fn=None,
                 persistent_workers=False):
        self.return_list = return_list
        self.collate_fn = collate_fn
        self.use_buffer_reader = use_buffer_reader
        self.prefetch_factor = prefetch_factor
        self.worker_init_fn = worker_init_fn
        self.dataset = dataset
        if not return_list and not in_dynamic_mode() and feed_list is None:
            raise AssertionError("feed_list should be set when return_list=False")
        self.feed_list = feed_list
        self.places = places
        if not isinstance(num_workers, int) or num_workers < 0:
            raise AssertionError("num_workers should be a non-negative value")
        self.num_workers = num_workers
        if not prefetch_factor > 0:
            raise AssertionError("prefetch_factor should be a positive value")
        self.use_shared_memory = bool(use_shared_memory) and num_workers > 0
        if not timeout >= 0:
            raise AssertionError("timeout should be a non-negative value")
        self.timeout = timeout
        self.iterable = isinstance(dataset, IterableDataset)
        if self.iterable:
            if shuffle:
                raise ValueError(
                    f"IterableDataset not support shuffle, but got shuffle={shuffle}")
            if batch_sampler is not None:
                raise ValueError("IterableDataset expect unspecified batch_sampler")
        if batch_sampler is not None:
            if not (batch_size == 1 and not shuffle and not drop_last):
                raise AssertionError("batch_size/shuffle/drop_last should not be set when "
                                     "batch_sampler is given")
            self.batch_sampler = batch_sampler
            self.batch_size = None
        elif batch_size is None:
            self.batch_sampler = None
            self.batch_size = None
        else:
            if not batch_size > 0:
                raise AssertionError("batch_size should be None or a positive value when "
                                     "batch_sampler is not given")
            self.batch_size = batch_size
            if self.iterable:
                self.batch_sampler = _InfiniteIterableSampler(dataset, batch_size)
            else:
                self.batch_sampler = BatchSampler(dataset=dataset, batch_size=batch_size,
                                                  shuffle=shuffle, drop_last=drop_last)
        self.drop_last = drop_last
        self.auto_collate_batch = self.batch_sampler is not None
        self._persistent_workers = persistent_workers
        self._iterator = None

    def __len__(self):
        if self.iterable:
            raise ValueError("length of IterableDataset not supported")
        if self.auto_collate_batch:
            return len(self.batch_sampler)
        return len(self.dataset)

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self._persistent_workers:
            if self._iterator is None or self._iterator._shutdown:
                self._iterator = _MultiProcessIter(self)
            else:
                self._iterator._new_epoch()
            return self._iterator
        return _MultiProcessIter(self)

    def __call__(self):
        return self.__iter__()


class _IterBase:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._iterable = loader.iterable
        self._auto_collate = loader.auto_collate_batch
        self._drop_last = loader.drop_last
        self._return_list = loader.return_list
        self._feed_names = [getattr(v, "name", v) for v in (loader.feed_list or [])]
        if self._auto_collate:
            self._index_sampler = loader.batch_sampler
            self._collate_fn = loader.collate_fn or default_collate_fn
        else:
            self._index_sampler = (_InfiniteIterableSampler(loader.dataset, 1) if self._iterable
                                   else range(len(loader.dataset)))
            self._collate_fn = loader.collate_fn or default_convert_fn
        self._batch_sampler = loader.batch_sampler

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._batch_sampler)

    def _emit(self, flat, structure):
        """The batch the user gets: Tensors (copies, on the default place) in
        eager mode, numpy arrays in static mode, or ``[{feed name: array}]``
        with ``return_list=False`` there."""
        if in_dynamic_mode():
            values = [v.detach() if isinstance(v, Tensor) else to_tensor(v) for v in flat]
            return restore_batch(values, structure)
        arrays = [v.numpy() if isinstance(v, Tensor) else np.asarray(v) for v in flat]
        if self._return_list:
            return restore_batch(arrays, structure)
        if len(arrays) != len(self._feed_names):
            raise ValueError(f"the batch has {len(arrays)} arrays but feed_list names "
                             f"{len(self._feed_names)} variables ({self._feed_names})")
        return [dict(zip(self._feed_names, arrays))]


class _SingleProcessIter(_IterBase):
    """Fetches each batch in the main process when asked."""

    def __init__(self, loader):
        super().__init__(loader)
        self._sampler_iter = iter(self._index_sampler)
        self._fetcher = make_fetcher(self._iterable, self._dataset, self._auto_collate,
                                     self._collate_fn, self._drop_last)

    def __next__(self):
        indices = next(self._sampler_iter)
        batch = self._fetcher.fetch(indices)
        flat, structure = flatten_batch(batch)
        return self._emit(flat, structure)


_LIVE = weakref.WeakSet()       # multi-process iterators whose workers may be running


@atexit.register
def _shutdown_all():
    for it in list(_LIVE):
        it._shutdown_workers()


class _MultiProcessIter(_IterBase):
    """Feeds index tasks to worker processes and hands results over in order."""

    def __init__(self, loader):
        super().__init__(loader)
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._persistent = loader._persistent_workers
        self._capacity = loader.prefetch_factor * self._num_workers
        self._owner = os.getpid()
        self._shutdown = True        # until the workers exist
        self._epoch = 0
        ctx = multiprocessing.get_context()
        base_seed = int(np.random.randint(0, sys.maxsize))
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        self._task_queues, self._workers = [], []
        try:
            for i in range(self._num_workers):
                tq = ctx.Queue()
                tq.cancel_join_thread()
                w = ctx.Process(target=worker_loop, daemon=True, args=(
                    self._dataset, self._iterable, tq, self._result_queue, self._done_event,
                    self._auto_collate, self._collate_fn, self._drop_last,
                    loader.worker_init_fn, i, self._num_workers, base_seed))
                w.start()
                self._task_queues.append(tq)
                self._workers.append(w)
        finally:
            self._shutdown = False
            _LIVE.add(self)
        self._new_epoch()

    # ---------------------------------------------------------------- tasks
    def _new_epoch(self):
        self._epoch += 1
        self._sampler_iter = iter(self._index_sampler)
        self._sampler_done = False
        self._send_idx = self._rcvd_idx = 0
        self._pending = {}            # task idx -> worker id, sent and not yet handed over
        self._results = {}            # task idx -> result that came early
        self._active = [True] * self._num_workers
        self._next_worker = itertools.cycle(range(self._num_workers))
        for _ in range(self._capacity):
            self._put_task()

    def _put_task(self):
        if self._sampler_done or len(self._pending) >= self._capacity:
            return
        for _ in range(self._num_workers):
            wid = next(self._next_worker)
            if self._active[wid]:
                break
        else:
            return
        try:
            indices = next(self._sampler_iter)
        except StopIteration:
            self._sampler_done = True
            return
        self._task_queues[wid].put((self._epoch, self._send_idx, indices))
        self._pending[self._send_idx] = wid
        self._send_idx += 1

    # ------------------------------------------------------------- results
    def __next__(self):
        while True:
            if self._shutdown or self._rcvd_idx not in self._pending:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            if self._rcvd_idx in self._results:
                data, structure = self._results.pop(self._rcvd_idx)
            else:
                idx, data, structure = self._receive()
                if idx != self._rcvd_idx:
                    self._results[idx] = (data, structure)
                    continue
            del self._pending[self._rcvd_idx]
            self._rcvd_idx += 1
            if isinstance(data, Exhausted):
                self._active[data.worker_id] = False
                self._put_task()
                continue
            if isinstance(data, WorkerError):
                self._shutdown_workers()
                data.reraise()
            self._put_task()
            return self._emit(data, structure)

    def _receive(self):
        """The next result of this epoch from any worker: waits (``timeout``
        seconds when set), checking that the workers owing results are alive."""
        waited = 0.0
        while True:
            step = POLL_INTERVAL if not self._timeout else min(POLL_INTERVAL,
                                                               self._timeout - waited)
            try:
                epoch, idx, data, structure = self._result_queue.get(timeout=step)
            except queue.Empty:
                waited += step
                self._check_workers()
                if self._timeout and waited >= self._timeout:
                    self._shutdown_workers(force=True)
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds "
                                       "waiting for a batch from its workers") from None
                continue
            if epoch == self._epoch:
                return idx, data, structure

    def _check_workers(self):
        dead = [w for i, w in enumerate(self._workers)
                if i in set(self._pending.values()) and not w.is_alive()]
        if dead:
            self._shutdown_workers()
            info = ", ".join(f"pid {w.pid} (exit code {w.exitcode})" for w in dead)
            raise RuntimeError(f"DataLoader {len(dead)} worker(s) exited unexpectedly: {info}")

    # ------------------------------------------------------------ shutdown
    def _shutdown_workers(self, force=False):
        """Tell the workers to exit and reap them (``force``: a stuck worker is
        terminated at once instead of being given ``JOIN_TIMEOUT`` seconds)."""
        if self._shutdown or os.getpid() != self._owner:
            return
        self._shutdown = True
        _LIVE.discard(self)
        try:
            self._done_event.set()
            for tq in self._task_queues:
                try:
                    tq.put(None)
                except Exception:       # a closed queue at interpreter exit
                    pass
            for w in self._workers:
                w.join(0.1 if force else JOIN_TIMEOUT)
                if w.is_alive():
                    w.terminate()
                    w.join()
        finally:
            for q in self._task_queues + [self._result_queue]:
                q.cancel_join_thread()
                q.close()

    def __del__(self):
        if not getattr(self, "_shutdown", True):
            self._shutdown_workers()
