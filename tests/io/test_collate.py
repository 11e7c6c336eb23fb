"""Batches as Paddle 2.6.2's DataLoader yields them: the structures, dtypes,
shapes and values recorded from real Paddle (tests/interop/record_io_collate.py)."""
import json
import os

import numpy as np
import pytest

import sampan as paddle
from sampan.io import default_collate_fn, default_convert_fn

import io_cases as cases

FIXTURE = json.load(open(os.path.join(os.path.dirname(__file__), "fixtures",
                                      "paddle_collate.json")))


def _same(got, want, path="batch"):
    """``got`` (a described sampan batch) equals ``want`` (Paddle's), floats
    within a tolerance."""
    assert got.keys() == want.keys(), f"{path}: {got} != {want}"
    for k in want:
        g, w = got[k], want[k]
        if k == "values":
            np.testing.assert_allclose(np.array(g, dtype=complex), np.array(w, dtype=complex),
                                       rtol=1e-6, err_msg=path)
        elif k in ("list", "tuple"):
            assert len(g) == len(w), f"{path}: {len(g)} fields, Paddle {len(w)}"
            for i, (a, b) in enumerate(zip(g, w)):
                _same(a, b, f"{path}[{i}]")
        elif k == "dict":
            assert sorted(g) == sorted(w), f"{path}: keys {list(g)} != {list(w)}"
            for key in w:
                _same(g[key], w[key], f"{path}[{key!r}]")
        else:
            assert g == w, f"{path}.{k}: {g!r}, Paddle {w!r}"


def _run(name, workers):
    sample, kwargs = cases.COLLATE[name]
    loader = paddle.io.DataLoader(cases.map_dataset(paddle, sample), num_workers=workers,
                                  **cases.loader_kwargs(paddle, kwargs))
    return [cases.describe(paddle, b) for b in loader]


@pytest.mark.parametrize("name", sorted(cases.COLLATE))
def test_batches_match_paddle(name):
    got, want = _run(name, 0), FIXTURE["collate"][name]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        _same(g, w, f"{name} batch {i}")


@pytest.mark.parametrize("name", ["nested", "tensor", "collate_numbers", "batch_size_none",
                                  "complex", "dict"])
def test_batches_match_paddle_with_workers(name):
    got, want = _run(name, 2), FIXTURE["collate"][name]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        _same(g, w, f"{name} batch {i} (2 workers)")


@pytest.mark.parametrize("key", sorted(FIXTURE["iterable"]))
def test_iterable_dataset_matches_paddle(key):
    workers, shard = int(key[7]), key.endswith("1")
    loader = paddle.io.DataLoader(cases.iter_dataset(paddle, 5, shard), batch_size=2,
                                  num_workers=workers)
    got = [cases.describe(paddle, b) for b in loader]
    want = FIXTURE["iterable"][key]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        _same(g, w, f"{key} batch {i}")


def test_default_collate_fn_directly():
    out = default_collate_fn([(1, 2.0, "a"), (3, 4.0, "b")])
    assert isinstance(out, list) and out[0].dtype == np.int64 and out[1].dtype == np.float64
    assert out[2] == ["a", "b"]
    assert default_collate_fn([b"x", b"y"]) == [b"x", b"y"]
    t = default_collate_fn([paddle.ones([2]), paddle.zeros([2])])
    assert isinstance(t, paddle.Tensor) and t.shape == [2, 2]
    d = default_collate_fn([{"a": np.ones(2)}, {"a": np.zeros(2)}])
    assert list(d) == ["a"] and d["a"].shape == (2, 2)


def test_default_collate_fn_errors():
    with pytest.raises(TypeError, match="NoneType"):
        default_collate_fn([None, None])
    with pytest.raises(TypeError, match="object"):
        default_collate_fn([object()])
    with pytest.raises(RuntimeError, match="fileds number not same"):
        default_collate_fn([[1], [1, 2]])
    with pytest.raises(ValueError, match="same shape"):
        default_collate_fn([np.ones(1), np.ones(2)])


def test_default_convert_fn_keeps_leaves_and_lists_tuples():
    out = default_convert_fn((np.ones(2), 1, "a", {"k": (1, 2)}))
    assert isinstance(out, list) and out[1:3] == [1, "a"] and out[3] == {"k": [1, 2]}


def test_batch_without_arrays_is_yielded():
    # Paddle 2.6.2 ends the epoch silently on such batches (a C++ queue quirk);
    # sampan hands them over (the docstring of io/dataloader.py lists the differences)
    loader = paddle.io.DataLoader(cases.map_dataset(paddle, lambda p, i: f"s{i}"),
                                  batch_size=2)
    assert list(loader) == [["s0", "s1"], ["s2", "s3"], ["s4"]]


def test_static_mode_feeds():
    paddle.enable_static()
    try:
        x = paddle.static.data("x", [None, 2], "float32")
        y = paddle.static.data("y", [None], "int64")
        ds = cases.map_dataset(paddle, lambda p, i: (np.ones(2, "float32") * i, i))
        with pytest.raises(AssertionError, match="feed_list"):
            paddle.io.DataLoader(ds, batch_size=2, return_list=False)
        batch = next(iter(paddle.io.DataLoader(ds, feed_list=[x, y], batch_size=2,
                                               return_list=False)))
        assert isinstance(batch, list) and len(batch) == 1 and set(batch[0]) == {"x", "y"}
        np.testing.assert_array_equal(batch[0]["x"], [[0, 0], [1, 1]])
        assert batch[0]["y"].dtype == np.int64
        exe = paddle.static.Executor(paddle.CPUPlace())
        out, = exe.run(feed=batch[0], fetch_list=[x * 2])
        np.testing.assert_allclose(out, [[0, 0], [2, 2]])
        lst = next(iter(paddle.io.DataLoader(ds, batch_size=2)))
        assert isinstance(lst, list) and lst[0].dtype == np.float32
    finally:
        paddle.disable_static()
