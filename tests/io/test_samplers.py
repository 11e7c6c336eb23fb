"""Samplers: orders, seeds, weighted statistics, batch grouping, and the
distributed split (index orders recorded from real Paddle where they depend
only on numpy's RNG)."""
import json
import os

import numpy as np
import pytest

import sampan as paddle
from sampan.io import (BatchSampler, DistributedBatchSampler, RandomSampler, Sampler,
                       SequenceSampler, SubsetRandomSampler, WeightedRandomSampler)

REC = json.load(open(os.path.join(os.path.dirname(__file__), "fixtures",
                                  "paddle_collate.json")))["samplers"]
DATA = list(range(10))


def test_sequence_sampler():
    s = SequenceSampler(DATA)
    assert list(s) == DATA and len(s) == 10
    with pytest.raises(NotImplementedError):
        iter(Sampler(DATA))


def test_random_sampler_follows_numpy_seed_like_paddle():
    np.random.seed(3)
    assert list(RandomSampler(DATA)) == REC["random_seed3"]
    assert list(RandomSampler(DATA, True, 15)) == REC["random_replacement_seed3"]
    np.random.seed(3)
    a = list(RandomSampler(DATA))
    assert sorted(a) == DATA
    assert len(RandomSampler(DATA, replacement=True, num_samples=4)) == 4


def test_random_sampler_generator_and_errors():
    s = RandomSampler(DATA, generator=iter([3, 1, 2]))
    assert list(s) == [3, 1, 2]
    with pytest.raises(TypeError, match="replacement"):
        RandomSampler(DATA, replacement=1)
    with pytest.raises(ValueError, match="num_samples should not be specified"):
        RandomSampler(DATA, num_samples=3)
    with pytest.raises(ValueError, match="positive integer"):
        RandomSampler(DATA, replacement=True, num_samples=0)
    with pytest.raises(ValueError, match="positive integer"):
        RandomSampler([])


def test_subset_random_sampler_uses_paddle_seed():
    idx = [5, 7, 9, 11, 13]
    paddle.seed(7)
    a = list(SubsetRandomSampler(idx))
    paddle.seed(7)
    b = list(SubsetRandomSampler(idx))
    assert a == b and sorted(a) == idx and len(SubsetRandomSampler(idx)) == 5
    with pytest.raises(ValueError, match="greater than 0"):
        SubsetRandomSampler([])


def test_weighted_sampler_matches_paddle_draws():
    np.random.seed(3)               # the draws the recording made before these
    list(RandomSampler(DATA))
    list(RandomSampler(DATA, True, 15))
    w = np.array([0.1, 0.2, 0.3, 0.4, 0.0])
    assert list(WeightedRandomSampler(w, 12)) == REC["weighted_seed3"]
    assert list(WeightedRandomSampler(np.array([1, 2, 3, 4, 0.0]), 3, False)) == \
        REC["weighted_noreplace_seed3"]


def test_weighted_sampler_statistics():
    np.random.seed(0)
    w = [1.0, 2.0, 3.0, 4.0, 0.0]
    draws = np.array(list(WeightedRandomSampler(w, 20000)))
    freq = np.bincount(draws, minlength=5) / draws.size
    np.testing.assert_allclose(freq, np.array(w) / 10, atol=0.015)
    assert freq[4] == 0
    no_rep = list(WeightedRandomSampler(paddle.to_tensor(w), 4, replacement=False))
    assert sorted(no_rep) == [0, 1, 2, 3]
    two = WeightedRandomSampler(np.array([[1, 0, 0], [0, 0, 1.0]]), 3)
    assert len(two) == 6 and list(two) == [0, 0, 0, 2, 2, 2]


def test_weighted_sampler_errors():
    with pytest.raises(ValueError, match="num_samples"):
        WeightedRandomSampler([1, 2], 0)
    with pytest.raises(ValueError, match="replacement"):
        WeightedRandomSampler([1, 2], 2, replacement=None)
    with pytest.raises(AssertionError, match="positive value"):
        list(WeightedRandomSampler([1, -2], 2))
    with pytest.raises(AssertionError, match="INF"):
        list(WeightedRandomSampler([1, float("inf")], 2))
    with pytest.raises(AssertionError, match="less than num_samples"):
        list(WeightedRandomSampler([1, 0, 0], 2, replacement=False))


def test_batch_sampler_groups_and_drop_last():
    b = BatchSampler(DATA, batch_size=4)
    assert list(b) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] and len(b) == 3
    b = BatchSampler(DATA, batch_size=4, drop_last=True)
    assert list(b) == [[0, 1, 2, 3], [4, 5, 6, 7]] and len(b) == 2
    b = BatchSampler(sampler=SequenceSampler(DATA[:5]), batch_size=5)
    assert list(b) == [[0, 1, 2, 3, 4]] and len(b) == 1
    np.random.seed(1)
    shuffled = [i for batch in BatchSampler(DATA, shuffle=True, batch_size=3) for i in batch]
    assert sorted(shuffled) == DATA and shuffled != DATA


def test_batch_sampler_errors():
    with pytest.raises(AssertionError, match="either dataset or sampler"):
        BatchSampler()
    with pytest.raises(AssertionError, match="paddle.io.Sampler"):
        BatchSampler(sampler=[1, 2])
    with pytest.raises(AssertionError, match="shuffle should be False"):
        BatchSampler(sampler=SequenceSampler(DATA), shuffle=True)
    with pytest.raises(AssertionError, match="both dataset and sampler"):
        BatchSampler(DATA, sampler=SequenceSampler(DATA))
    with pytest.raises(AssertionError, match="batch_size should be a positive integer"):
        BatchSampler(DATA, batch_size=0)
    with pytest.raises(AssertionError, match="drop_last"):
        BatchSampler(DATA, drop_last=1)
    with pytest.raises(AssertionError, match="IterableDataset"):
        BatchSampler(paddle.io.IterableDataset())


@pytest.mark.parametrize("key", sorted(k for k in REC if k.startswith("dist_")))
def test_distributed_batch_sampler_matches_paddle(key):
    parts = dict((p[0], int(p[1:])) for p in key.split("_")[1:])
    s = DistributedBatchSampler(DATA, parts["b"], num_replicas=parts["n"], rank=parts["r"],
                                shuffle=bool(parts["s"]), drop_last=bool(parts["d"]))
    assert len(s) == REC[key]["len"]
    assert [list(s), list(s)] == REC[key]["epochs"]


def test_distributed_ranks_cover_the_data_and_set_epoch():
    seen = []
    for r in range(3):
        s = DistributedBatchSampler(DATA, 2, num_replicas=3, rank=r, shuffle=True)
        s.set_epoch(4)
        seen += [i for b in s for i in b]
    assert sorted(set(seen)) == DATA and len(seen) == 12      # padded to 3 * 4
    with pytest.raises(AssertionError, match="num_replicas"):
        DistributedBatchSampler(DATA, 2, num_replicas=0)
    with pytest.raises(AssertionError, match="rank"):
        DistributedBatchSampler(DATA, 2, num_replicas=2, rank=-1)
    with pytest.raises(AssertionError, match="batch_size"):
        DistributedBatchSampler(DATA, 0)


def test_distributed_defaults_read_the_launcher_env(monkeypatch):
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    monkeypatch.setenv("PADDLE_TRAINER_ID", "1")
    s = DistributedBatchSampler(DATA, 5)
    assert (s.nranks, s.local_rank) == (2, 1) and list(s) == [[5, 6, 7, 8, 9]]
