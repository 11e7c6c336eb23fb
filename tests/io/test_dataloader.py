"""DataLoader in the main process and with worker processes: the same batches
in the same order, worker info and seeds, errors with the worker's traceback,
no worker left alive after a ``break``, ``timeout``, persistent workers."""
import gc
import json
import multiprocessing
import os
import time

import numpy as np
import pytest

import sampan as paddle
from sampan.io import DataLoader, Dataset, IterableDataset, get_worker_info

REC = json.load(open(os.path.join(os.path.dirname(__file__), "fixtures",
                                  "paddle_collate.json")))["samplers"]


class Squares(Dataset):
    def __init__(self, n=11):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.array([i, i * i], "float32"), {"i": i, "name": f"n{i}"}


class WhoAmI(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        info = get_worker_info()
        return np.array([info.id, info.num_workers, os.getpid(), np.random.randint(1 << 30),
                         int(paddle.randint(0, 1 << 30, [1])), i])


class Broken(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise KeyError(f"no sample {i}")
        return np.array([i])


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(3)
        return np.array([i])


class Counter(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        wid, nw = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(wid, self.n, nw):
            yield np.array([i])


def _as_lists(batch):
    if isinstance(batch, paddle.Tensor):
        return batch.numpy().tolist()
    if isinstance(batch, dict):
        return {k: _as_lists(v) for k, v in batch.items()}
    if isinstance(batch, list):
        return [_as_lists(v) for v in batch]
    return batch


def _no_children(wait=2.0):
    end = time.time() + wait
    while multiprocessing.active_children() and time.time() < end:
        time.sleep(0.05)
    return multiprocessing.active_children() == []


@pytest.mark.parametrize("kwargs", [dict(batch_size=3), dict(batch_size=4, drop_last=True),
                                    dict(batch_size=None), dict(batch_size=2, prefetch_factor=1)])
def test_workers_give_the_main_process_batches(kwargs):
    ds = Squares()
    want = [_as_lists(b) for b in DataLoader(ds, **kwargs)]
    got = [_as_lists(b) for b in DataLoader(ds, num_workers=2, **kwargs)]
    assert got == want and len(want) == len(DataLoader(ds, **kwargs))
    assert _no_children()


def test_batch_sampler_argument_and_len():
    sampler = paddle.io.BatchSampler(sampler=paddle.io.SequenceSampler(Squares(5)), batch_size=2)
    loader = DataLoader(Squares(5), batch_sampler=sampler, num_workers=2)
    assert len(loader) == 3
    assert [_as_lists(b)[1]["i"] for b in loader] == [[0, 1], [2, 3], [4]]


def test_shuffle_follows_numpy_seed_like_paddle():
    class Ints(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return i
    np.random.seed(5)
    got = [b.numpy().tolist() for b in DataLoader(Ints(), batch_size=2, shuffle=True)]
    assert got == REC["shuffle_loader_seed5"]


def test_worker_info_and_worker_seeds():
    assert get_worker_info() is None
    rows = np.concatenate([b.numpy() for b in DataLoader(WhoAmI(), batch_size=1,
                                                         num_workers=2)])
    assert rows[:, 5].tolist() == list(range(6))
    assert rows[:, 0].tolist() == [0, 1, 0, 1, 0, 1]        # task i goes to worker i % 2
    assert (rows[:, 1] == 2).all()
    pids = set(rows[:, 2].tolist())
    assert len(pids) == 2 and os.getpid() not in pids
    assert rows[0, 3] != rows[1, 3] and rows[0, 4] != rows[1, 4]   # per-worker seeds differ


def _init(worker_id):
    np.random.seed(1000 + worker_id)


def _bad_init(worker_id):
    raise ValueError(f"init of worker {worker_id} failed")


def test_worker_init_fn():
    rows = np.concatenate([b.numpy() for b in DataLoader(WhoAmI(), batch_size=1, num_workers=2,
                                                         worker_init_fn=_init)])
    for wid in (0, 1):
        rng = np.random.RandomState(1000 + wid)
        assert rows[rows[:, 0] == wid, 3].tolist() == [rng.randint(1 << 30) for _ in range(3)]
    with pytest.raises(ValueError, match="init of worker 0 failed"):
        list(DataLoader(WhoAmI(), batch_size=1, num_workers=2, worker_init_fn=_bad_init))
    assert _no_children()


def test_worker_exception_carries_its_traceback():
    with pytest.raises(KeyError) as err:
        for _ in DataLoader(Broken(), batch_size=2, num_workers=2):
            pass
    msg = str(err.value)
    assert "DataLoader worker(0) caught KeyError" in msg
    assert "no sample 5" in msg and "test_dataloader.py" in msg and "__getitem__" in msg
    assert _no_children()


def test_exception_in_the_main_process_is_raised_where_it_happens():
    with pytest.raises(KeyError, match="no sample 5"):
        list(DataLoader(Broken(), batch_size=2))


def test_break_leaves_no_worker_alive():
    loader = DataLoader(Squares(200), batch_size=2, num_workers=2)
    for i, _ in enumerate(loader):
        if i == 1:
            break
    assert _no_children()
    it = iter(loader)
    next(it)
    assert len(multiprocessing.active_children()) == 2
    del it
    gc.collect()
    assert _no_children()


def test_timeout_raises_and_stops_the_workers():
    start = time.time()
    with pytest.raises(RuntimeError, match="timed out after 0.5 seconds"):
        next(iter(DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.5)))
    assert time.time() - start < 2.8          # the 3 s sample was not waited for
    assert _no_children(wait=4)


def test_iterable_dataset_sharded_over_workers():
    got = [b.numpy().ravel().tolist() for b in DataLoader(Counter(7), batch_size=2,
                                                          num_workers=2)]
    assert got == [[0, 2], [1, 3], [4, 6], [5]]
    got = [b.numpy().ravel().tolist() for b in DataLoader(Counter(7), batch_size=2,
                                                          num_workers=2, drop_last=True)]
    assert got == [[0, 2], [1, 3], [4, 6]]
    got = [b.numpy().ravel().tolist() for b in DataLoader(Counter(3), batch_size=None,
                                                          num_workers=2)]
    assert got == [[0], [1], [2]]
    with pytest.raises(ValueError, match="length of IterableDataset"):
        len(DataLoader(Counter(3)))
    assert _no_children()


def test_persistent_workers_serve_several_epochs():
    loader = DataLoader(WhoAmI(), batch_size=2, num_workers=2, persistent_workers=True)
    first = [b.numpy() for b in loader]
    pids = {int(r[2]) for b in first for r in b}
    assert len(multiprocessing.active_children()) == 2       # kept between epochs
    for i, _ in enumerate(loader):                           # a broken-off epoch ...
        if i == 0:
            break
    second = [b.numpy() for b in loader]                     # ... then a whole one
    assert [b[:, 5].tolist() for b in second] == [[0, 1], [2, 3], [4, 5]]
    assert {int(r[2]) for b in second for r in b} == pids
    it = loader._iterator
    del loader, it
    gc.collect()
    assert _no_children()
    stream = DataLoader(Counter(5), batch_size=2, num_workers=2, persistent_workers=True)
    for _ in range(2):
        assert [b.numpy().ravel().tolist() for b in stream] == [[0, 2], [1, 3], [4]]
    del stream
    gc.collect()
    assert _no_children()


def test_argument_errors():
    with pytest.raises(AssertionError, match="num_workers"):
        DataLoader(Squares(), num_workers=-1)
    with pytest.raises(AssertionError, match="timeout"):
        DataLoader(Squares(), timeout=-1)
    with pytest.raises(AssertionError, match="prefetch_factor"):
        DataLoader(Squares(), prefetch_factor=0)
    with pytest.raises(AssertionError, match="batch_size should be None or a positive"):
        DataLoader(Squares(), batch_size=0)
    with pytest.raises(AssertionError, match="should not be set when batch_sampler"):
        DataLoader(Squares(), batch_size=2,
                   batch_sampler=paddle.io.BatchSampler(Squares(), batch_size=2))
    with pytest.raises(ValueError, match="not support shuffle"):
        DataLoader(Counter(3), shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler"):
        DataLoader(Counter(3), batch_sampler=paddle.io.BatchSampler(Squares()))


def test_loader_is_callable_and_accepts_paddle_options():
    loader = DataLoader(Squares(4), batch_size=2, places=paddle.CPUPlace(),
                        use_shared_memory=False, use_buffer_reader=False)
    assert len(list(loader())) == 2


class Dies(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 2:
            os._exit(3)
        return np.array([i])


def test_a_worker_that_dies_is_reported():
    with pytest.raises(RuntimeError, match=r"exited unexpectedly: pid \d+ \(exit code 3\)"):
        list(DataLoader(Dies(), batch_size=1, num_workers=2))
    assert _no_children()


EXIT_SCRIPT = """
import importlib.util, sys, numpy as np
spec = importlib.util.spec_from_file_location("sampan", {init!r},
                                              submodule_search_locations=[{root!r}])
paddle = importlib.util.module_from_spec(spec)
sys.modules["sampan"] = paddle
spec.loader.exec_module(paddle)
class D(paddle.io.Dataset):
    def __len__(self): return 1000
    def __getitem__(self, i): return np.ones(3) * i
it = iter(paddle.io.DataLoader(D(), batch_size=4, num_workers=2))
next(it)
keep = it                       # still alive when the interpreter exits
print(" ".join(str(w.pid) for w in it._workers), flush=True)
"""


def test_interpreter_exit_stops_the_workers(tmp_path):
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    script = tmp_path / "exit.py"
    script.write_text(EXIT_SCRIPT.format(root=root, init=os.path.join(root, "__init__.py")))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 2
    for pid in pids:                   # joined (reaped) by the atexit hook, not orphaned
        assert not os.path.exists(f"/proc/{pid}"), f"worker {pid} outlived the interpreter"
