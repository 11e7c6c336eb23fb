"""``.pdparams`` files between sampan and real PaddlePaddle 2.6.2, for protocols 2, 3 and 4
and every dtype a state dict holds (float16/32/64, bfloat16 as Paddle's uint16 arrays, bool,
ints, complex, 0-d, empty, an array over one pickle frame): ``sampan.save`` writes the bytes
``paddle.save`` writes for the same tensors; ``sampan.load`` reads Paddle's files; and
``paddle.load`` reads what sampan wrote, including non-contiguous and Fortran-ordered
arrays and protocol 2's split of big arrays (``UnpackBigParamInfor@@``)."""
import numpy as np
import pytest

import sampan
from sampan.save_load import state_dict_io

from .paddle_side import build_nested

PROTOCOLS = [2, 3, 4]


def _arrays():
    rng = np.random.default_rng(7)
    return {
        "fc.weight": rng.standard_normal((3, 4)).astype("float32"),
        "fc.bias": rng.standard_normal(4).astype("float32"),
        "w64": rng.standard_normal((2, 2)),
        "half": rng.standard_normal(5).astype("float16"),
        "bf16": rng.integers(0, 1 << 16, (2, 3), dtype="uint16"),  # Paddle's bfloat16 arrays
        "mask": rng.integers(0, 2, 6).astype(bool),
        "i8": np.arange(-3, 3, dtype="int8"),
        "u8": np.arange(250, 256, dtype="uint8"),
        "i16": np.arange(4, dtype="int16"),
        "i32": np.arange(5, dtype="int32"),
        "i64": np.arange(6, dtype="int64").reshape(2, 3),
        "c64": (rng.standard_normal(3) + 1j).astype("complex64"),
        "scalar": np.array(2.5, "float32"),
        "empty": np.zeros((0, 3), "float32"),
        "big": rng.standard_normal((200, 300)).astype("float32"),  # > one 64 KiB frame
    }


def _names(arrays):
    return {k: "t_%d.w_0" % i for i, k in enumerate(arrays)}


def _state_dict(arrays, names):
    sd = {}
    for k, a in arrays.items():
        t = sampan.to_tensor(a)
        t.name = names[k]
        sd[k] = t
    return sd


def _nested(arrays):
    """Not a state dict: tensors go as (name, ndarray) tuples, arrays stay arrays."""
    big = arrays["big"]
    return {"fortran": sampan.Tensor(np.asfortranarray(big[:20, :30]), zero_copy=True),
            "list": [sampan.Tensor(big[::3, 1::7], zero_copy=True), big[::-2, ::5],
                     np.asfortranarray(big)],
            "scalar": sampan.to_tensor(arrays["scalar"]), "step": 3}


def _nested_expected(arrays):
    big = arrays["big"]
    return {"fortran": big[:20, :30], "list/0": big[::3, 1::7], "list/1": big[::-2, ::5],
            "list/2": big, "scalar": arrays["scalar"]}


# a container that is not a state dict (a list, an int): pickled as it is, tensors as
# (name, ndarray) tuples, numpy arrays by numpy's reduce, whatever their memory order
NESTED = {"t": ["tensor", "i64", "my_tensor"], "step": 3, "lr": 0.5, "tag": "x",
          "list": [["array", "big", "reversed"], ["array", "big", "fortran"],
                   ["tensor", "scalar", "s_0"], ["array", "mask", "plain"], None, True]}


def _sampan_tensor(a, name):
    t = sampan.to_tensor(a)
    t.name = name
    return t


@pytest.fixture(scope="module")
def exchange(paddle_side, tmp_path_factory):
    work = tmp_path_factory.mktemp("interop_state_dicts")
    arrays, names = _arrays(), _names(_arrays())
    np.savez(work / "arrays.npz", **arrays)
    files, nested_names = [], {}
    for p in PROTOCOLS:
        files.append(("sd", p, str(work / ("sd.p%d.pdparams" % p))))
        sampan.save(_state_dict(arrays, names), files[-1][2], protocol=p)
        files.append(("nested", p, str(work / ("nested.p%d.pdparams" % p))))
        nested = _nested(arrays)
        nested_names[p] = {"fortran": nested["fortran"].name,
                           "list/0": nested["list"][0].name, "scalar": nested["scalar"].name}
        sampan.save(nested, files[-1][2], protocol=p)
    split = str(work / "split.p2.pdparams")
    old = state_dict_io._MAX_PICKLE_BYTES
    state_dict_io._MAX_PICKLE_BYTES = 4000  # 1000 float32 per slice: "big" in 60 slices
    try:
        sampan.save(_state_dict(arrays, names), split, protocol=2)
    finally:
        state_dict_io._MAX_PICKLE_BYTES = old
    files.append(("split", 2, split))
    job = {"id": "sd", "kind": "state_dicts", "arrays": str(work / "arrays.npz"),
           "names": names, "protocols": PROTOCOLS, "load": [f for _, _, f in files],
           "nested": NESTED}
    res = paddle_side.run([job], work / "paddle")["sd"]
    assert res["ok"], "real Paddle failed:\n" + res.get("traceback", res.get("error", ""))
    return arrays, names, files, res["result"], work / "paddle", nested_names


def _loaded(folder, i, how):
    with np.load(folder / ("sd.load%d.%s.npz" % (i, how))) as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_sampan_writes_paddles_bytes(exchange, protocol, tmp_path):
    arrays, names, _, result, _, _ = exchange
    path = tmp_path / "s.pdparams"
    sampan.save(_state_dict(arrays, names), str(path), protocol=protocol)
    with open(result["saved"][str(protocol)], "rb") as fh:
        want = fh.read()
    assert path.read_bytes() == want


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_sampan_writes_paddles_bytes_nested(exchange, protocol, tmp_path):
    arrays, _, _, result, _, _ = exchange
    path = tmp_path / "n.pdparams"
    sampan.save(build_nested(NESTED, arrays, _sampan_tensor), str(path), protocol=protocol)
    with open(result["saved"]["nested%d" % protocol], "rb") as fh:
        want = fh.read()
    assert path.read_bytes() == want
    back = sampan.load(str(path))
    assert back["t"].name == "my_tensor" and back["list"][2].name == "s_0"
    np.testing.assert_array_equal(back["list"][1], arrays["big"])
    assert back["list"][1].flags.f_contiguous and back["list"][4:] == [None, True]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_sampan_reads_paddles_files(exchange, protocol):
    arrays, names, _, result, _, _ = exchange
    back = sampan.load(result["saved"][str(protocol)], keep_name_table=True)
    assert back.pop("StructuredToParameterName@@") == names
    assert list(back) == list(arrays)
    for k, a in arrays.items():
        assert back[k].numpy().dtype == a.dtype and back[k].shape == list(a.shape), k
        np.testing.assert_array_equal(back[k].numpy(), a)


def test_paddle_reads_sampans_files(exchange):
    arrays, names, files, result, folder, nested_names = exchange
    nested = _nested_expected(arrays)
    for i, (kind, protocol, _) in enumerate(files):
        want = nested if kind == "nested" else arrays
        for how in ("tensors", "numpy"):
            got = _loaded(folder, i, how)
            where = "%s protocol %d (%s)" % (kind, protocol, how)
            assert sorted(got) == sorted(want), where
            for k, a in want.items():
                assert got[k].dtype == a.dtype and got[k].shape == a.shape, (where, k)
                np.testing.assert_array_equal(got[k], a, err_msg="%s %s" % (where, k))
        # tensors keep their names: from the name table, or from the (name, ndarray) tuples
        want_names = nested_names[protocol] if kind == "nested" else names
        assert result["loaded"][i]["tensors"]["names"] == want_names, (kind, protocol)
