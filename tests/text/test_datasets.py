"""paddle.text's datasets on small synthetic archives in the real formats
(dataset_files.py) against what real Paddle 2.6.2 returned on the same files
(fixtures/datasets.json, recorded by tests/interop/record_text.py); the offline errors."""
import json
import os

import numpy as np
import pytest

import sampan as paddle
from sampan.text import (Conll05st, Imdb, Imikolov, Movielens, UCIHousing, WMT14, WMT16)
from sampan.text.datasets import _common

from . import dataset_files as files

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "datasets.json")) as _f:
    REF = json.load(_f)


def dec(e):
    return np.array(e["data"], dtype=e["dtype"]).reshape(e["shape"])


def dec_dict(entries):
    return {(k.encode("latin-1") if kind == "bytes" else k): v for kind, k, v in entries}


def check_items(ds, ref, remap=None):
    """Every item of ``ds`` equals the recorded one: dtype, shape, values (item
    fields in ``remap`` - position -> (ours, paddle's) id->name maps - compared
    by the names their ids stand for)."""
    assert len(ds) == ref["len"]
    for i, want in enumerate(ref["items"]):
        got = ds[i]
        assert isinstance(got, tuple) and len(got) == len(want)
        for pos, (g, w) in enumerate(zip(got, want)):
            w = dec(w)
            assert isinstance(g, np.ndarray)
            assert g.dtype == w.dtype and g.shape == w.shape, (i, pos, g, w)
            if remap and pos in remap:
                ours, theirs = remap[pos]
                assert [ours[v] for v in g.ravel()] == [theirs[v] for v in w.ravel()]
            else:
                np.testing.assert_array_equal(g, w)


def inverse(d):
    return {v: k for k, v in d.items()}


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return str(tmp_path_factory.mktemp("text_data"))


@pytest.mark.parametrize("mode", ["train", "test"])
def test_uci_housing(tmp, mode):
    ds = UCIHousing(data_file=files.uci_file(tmp), mode=mode)
    check_items(ds, REF[f"uci_{mode}"])
    assert isinstance(ds, paddle.io.Dataset)


@pytest.mark.parametrize("mode,cutoff", [("train", 1), ("test", 2)])
def test_imdb(tmp, mode, cutoff):
    ds = Imdb(data_file=files.imdb_file(tmp), mode=mode, cutoff=cutoff)
    assert ds.word_idx == dec_dict(REF[f"imdb_{mode}"]["word_idx"])
    check_items(ds, REF[f"imdb_{mode}"])


@pytest.mark.parametrize("key,kw", [
    ("ngram3_train", dict(data_type="NGRAM", window_size=3)),
    ("ngram2_test", dict(data_type="NGRAM", window_size=2, mode="test")),
    ("seq_train", dict(data_type="SEQ")),
    ("seq5_test", dict(data_type="SEQ", window_size=5, mode="test"))])
def test_imikolov(tmp, key, kw):
    ds = Imikolov(data_file=files.imikolov_file(tmp), min_word_freq=1, **kw)
    assert ds.word_idx == dec_dict(REF[f"imikolov_{key}"]["word_idx"])
    check_items(ds, REF[f"imikolov_{key}"])


def test_imikolov_ngram_needs_a_window(tmp):
    with pytest.raises(AssertionError, match="gram length"):
        Imikolov(data_file=files.imikolov_file(tmp), min_word_freq=1)


@pytest.mark.parametrize("mode", ["train", "test"])
def test_movielens(tmp, mode):
    state = np.random.get_state()[1].copy()
    ds = Movielens(data_file=files.movielens_file(tmp), mode=mode, test_ratio=0.3, rand_seed=3)
    ref = REF[f"movielens_{mode}"]
    titles, cats = dec_dict(ref["movie_title_dict"]), dec_dict(ref["categories_dict"])
    # the ids number a Python set's iteration order (hash seed dependent, in Paddle too)
    assert set(ds.movie_title_dict) == set(titles) and set(ds.categories_dict) == set(cats)
    assert sorted(ds.movie_title_dict.values()) == list(range(len(titles)))
    check_items(ds, ref, remap={5: (inverse(ds.categories_dict), inverse(cats)),
                                6: (inverse(ds.movie_title_dict), inverse(titles))})
    np.testing.assert_array_equal(np.random.get_state()[1], state)   # global RNG untouched


def test_conll05(tmp):
    kw = files.conll05_files(tmp)
    ds = Conll05st(**kw)
    ref = REF["conll05"]
    labels = dec_dict(ref["label_dict"])
    assert ds.word_dict == dec_dict(ref["word_dict"])
    assert ds.predicate_dict == dec_dict(ref["predicate_dict"])
    assert set(ds.label_dict) == set(labels) and ds.label_dict["O"] == labels["O"]
    for tag in labels:
        if tag.startswith("B-"):    # B- and I- of a tag are consecutive ids
            assert ds.label_dict["I-" + tag[2:]] == ds.label_dict[tag] + 1
    check_items(ds, ref, remap={8: (inverse(ds.label_dict), inverse(labels))})
    assert ds.get_dict() == (ds.word_dict, ds.predicate_dict, ds.label_dict)
    assert ds.get_embedding() == kw["emb_file"]


@pytest.mark.parametrize("mode,size", [("train", 8), ("test", 20), ("gen", 5)])
def test_wmt14(tmp, mode, size):
    ds = WMT14(data_file=files.wmt14_file(tmp), mode=mode, dict_size=size)
    ref = REF[f"wmt14_{mode}"]
    src, trg = ds.get_dict()
    assert src == dec_dict(ref["src_dict"]) and trg == dec_dict(ref["trg_dict"])
    check_items(ds, ref)
    rsrc, _ = ds.get_dict(reverse=True)
    assert rsrc == inverse(src)


def test_wmt16(tmp, monkeypatch):
    home = os.path.join(tmp, "wmt16_home")
    monkeypatch.setattr(_common, "DATA_HOME", home)
    path = files.wmt16_file(tmp)
    for mode, src, trg, lang in (("train", 10, 12, "en"), ("test", 9, 30, "de"),
                                 ("val", 3, 2, "en")):
        ds = WMT16(data_file=path, mode=mode, src_dict_size=src, trg_dict_size=trg, lang=lang)
        ref = REF[f"wmt16_{mode}"]
        assert ds.src_dict == dec_dict(ref["src_dict"])
        assert ds.trg_dict == dec_dict(ref["trg_dict"])
        check_items(ds, ref)
    # the dictionaries are cached where Paddle keeps them, and get_dict reads them
    assert os.path.exists(os.path.join(home, "wmt16", "en_10.dict"))
    ds = WMT16(data_file=path, mode="train", src_dict_size=10, trg_dict_size=12)
    assert ds.get_dict("en") == ds.src_dict
    assert ds.get_dict("de", reverse=True) == inverse(ds.trg_dict)


@pytest.mark.parametrize("cls,kw", [
    (UCIHousing, {}), (Imdb, {}), (Imikolov, {"window_size": 2}), (Movielens, {}),
    (Conll05st, {}), (WMT14, {"dict_size": 10}),
    (WMT16, {"src_dict_size": 10, "trg_dict_size": 10})])
def test_no_network(tmp, monkeypatch, cls, kw):
    monkeypatch.setattr(_common, "DATA_HOME", os.path.join(tmp, "empty_cache"))
    with pytest.raises(RuntimeError, match="cannot download") as info:
        cls(**kw)
    msg = str(info.value)
    assert "data_file" in msg and "http" in msg and "empty_cache" in msg
    with pytest.raises(AssertionError, match="downloading automatically is disabled"):
        cls(download=False, **kw)


def test_cached_archive_is_used(tmp, monkeypatch):
    home = os.path.join(tmp, "cache_home")
    monkeypatch.setattr(_common, "DATA_HOME", home)
    target = _common.cached_path("http://paddlemodels.bj.bcebos.com/uci_housing/housing.data",
                                 "uci_housing")
    os.makedirs(os.path.dirname(target))
    with open(files.uci_file(tmp)) as src, open(target, "w") as dst:
        dst.write(src.read())
    check_items(UCIHousing(mode="test"), REF["uci_test"])


@pytest.mark.parametrize("cls,kw", [
    (UCIHousing, {"mode": "valid"}), (Imdb, {"mode": "valid"}),
    (Imikolov, {"data_type": "CHAR"}), (Movielens, {"mode": "x"}),
    (WMT14, {"mode": "val"}), (WMT16, {"mode": "gen"})])
def test_bad_mode(tmp, cls, kw):
    with pytest.raises(AssertionError):
        cls(data_file=os.path.join(tmp, "unused"), **kw)


_SAME_SEED = """
import json, sys
sys.path.insert(0, {here!r})
import dataset_files as files
from sampan.text import Conll05st, Movielens
ml = Movielens(data_file=files.movielens_file({tmp!r}), test_ratio=0.3, rand_seed=3)
c = Conll05st(**files.conll05_files({tmp!r}))
print(json.dumps([ml.movie_title_dict, ml.categories_dict, c.label_dict]))
"""


def test_set_ordered_ids_match_paddle_under_the_same_hash_seed(tmp):
    """Paddle numbers Movielens' title words and categories and Conll05st's tags
    in a str set's iteration order; under the hash seed of the recording
    (PYTHONHASHSEED=0) sampan gives exactly Paddle's ids."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", _SAME_SEED.format(here=HERE, tmp=tmp)],
                         env=dict(os.environ, PYTHONHASHSEED="0"), capture_output=True,
                         text=True, check=True).stdout
    titles, cats, labels = json.loads(out)
    assert titles == dec_dict(REF["movielens_train"]["movie_title_dict"])
    assert cats == dec_dict(REF["movielens_train"]["categories_dict"])
    assert labels == dec_dict(REF["conll05"]["label_dict"])
