"""``.pdiparams`` (save_load/pdiparams.py) and ``.pdiparams.info`` (params_info.py) against
the files real Paddle 2.6.2 wrote: every reference file reads with the program's names,
writing gives byte-identical files, and damaged files raise FormatError naming the file and
the tensor (never a bare struct/Index error)."""
import glob
import os
import struct

import numpy as np
import pytest

from sampan.save_load import FormatError, pdiparams as P, params_info
from sampan.program.proto import framework_pb2 as pb

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared",
                   "paddle-reference")
PARAM_FILES = sorted(glob.glob(os.path.join(REF, "*", "*", "model.pdiparams")))
INFO_FILES = sorted(glob.glob(os.path.join(REF, "*", "*", "model.pdiparams.info")))
LINEAR = os.path.join(REF, "minimal", "linear", "model.pdiparams")
LENET = os.path.join(REF, "models", "lenet", "model.pdiparams")

assert PARAM_FILES, "reference .pdiparams files not found (../shared must sit beside the repo)"


def _ids(path):
    return "/".join(path.split(os.sep)[-3:-1])


def _persistables(model_dir):
    """{name: (dtype, dims)} of the persistable tensors of the folder's model.pdmodel."""
    prog = pb.ProgramDesc()
    with open(os.path.join(model_dir, "model.pdmodel"), "rb") as fh:
        prog.ParseFromString(fh.read())
    out = {}
    for block in prog.blocks:
        for v in block.vars:
            if v.persistable and v.type.type not in (pb.VarType.FEED_MINIBATCH,
                                                     pb.VarType.FETCH_LIST):
                td = v.type.lod_tensor.tensor
                out[v.name] = (td.data_type, tuple(td.dims))
    return out


def _bytes(path):
    with open(path, "rb") as fh:
        return fh.read()


# ---------------------------------------------------------------- reference files
def test_reference_files_found():
    assert len(PARAM_FILES) >= 5 and len(INFO_FILES) >= 4


@pytest.mark.parametrize("path", PARAM_FILES, ids=_ids)
def test_read_reference_with_program_names(path):
    expected = _persistables(os.path.dirname(path))
    # names given in program (block) order: the reader sorts them itself
    arrays = P.load_pdiparams(path, list(expected))
    assert list(arrays) == sorted(expected)
    for name, arr in arrays.items():
        dtype, dims = expected[name]
        assert arr.dtype == P.ENUM_TO_NP[dtype], name
        assert arr.shape == dims, name
        assert arr.flags.c_contiguous and arr.flags.writeable
        assert np.isfinite(arr).all()
    records = P.read_records(path)
    assert len(records) == len(expected)
    assert all(r.lod == [] and r.dtype == pb.VarType.FP32 for r in records)


@pytest.mark.parametrize("path", INFO_FILES, ids=_ids)
def test_info_names_the_same_tensors(path):
    info = params_info.read_params_info(path)
    model_dir = os.path.dirname(path)
    assert set(info) == set(_persistables(model_dir))
    arrays = P.load_pdiparams(os.path.join(model_dir, "model.pdiparams"), info.keys())
    assert set(arrays) == set(info)
    for entry in info.values():
        assert set(entry) == {"structured_name", "stop_gradient", "trainable"}


def test_info_facts_of_bn_embed():
    info = params_info.read_params_info(os.path.join(REF, "models", "bn_embed",
                                                     "model.pdiparams.info"))
    assert info["batch_norm1d_0.w_1"] == {"structured_name": "bn._mean",
                                          "stop_gradient": True, "trainable": False}
    assert info["linear_0.w_0"] == {"structured_name": "proj.weight",
                                    "stop_gradient": False, "trainable": True}


@pytest.mark.parametrize("path", INFO_FILES, ids=_ids)
def test_info_rewrite_is_byte_identical(path, tmp_path):
    info = params_info.read_params_info(path)
    out = tmp_path / "m.pdiparams.info"
    params_info.write_params_info(out, {k: params_info.make_entry(**v) for k, v in info.items()})
    assert out.read_bytes() == _bytes(path)
    assert out.read_bytes()[:2] == b"\x80\x02"


@pytest.mark.parametrize("path", PARAM_FILES, ids=_ids)
def test_rewrite_is_byte_identical(path, tmp_path):
    expected = _persistables(os.path.dirname(path))
    arrays = P.load_pdiparams(path, expected)
    out = tmp_path / "sub" / "model.pdiparams"
    # given in reverse order: the writer sorts by name
    order = P.save_pdiparams(out, dict(reversed(list(arrays.items()))))
    assert order == sorted(expected)
    assert out.read_bytes() == _bytes(path)
    assert [p.name for p in out.parent.iterdir()] == ["model.pdiparams"]  # no temp left


def test_first_record_layout_matches_format():
    data = _bytes(os.path.join(REF, "models", "mlp_cond", "model.pdiparams"))
    assert data[:24] == bytes(4) + bytes(8) + bytes(4) + b"\x04\x00\x00\x00" + b"\x08\x05\x10\x20"
    assert P.encode_tensor_desc(5, [16, 32]) == b"\x08\x05\x10\x10\x10\x20"


# ---------------------------------------------------------------- codec and writer details
@pytest.mark.parametrize("dims", [[], [0], [3], [-1, 4], [2 ** 40, 1, 7], [127, 128, 300]])
def test_tensor_desc_matches_protobuf(dims):
    ours = P.encode_tensor_desc(pb.VarType.FP64, dims)
    assert ours == pb.VarType.TensorDesc(data_type=pb.VarType.FP64, dims=dims)\
        .SerializeToString()
    assert P.decode_tensor_desc(ours) == (pb.VarType.FP64, dims)


def test_tensor_desc_packed_and_unknown_fields():
    packed = b"\x08\x02\x12\x03\x02\x03\x04"  # INT32, dims [2, 3, 4] packed
    assert P.decode_tensor_desc(packed) == (2, [2, 3, 4])
    assert P.decode_tensor_desc(b"\x18\x07" + packed) == (2, [2, 3, 4])  # field 3 skipped
    for bad in (b"", b"\x10\x03", b"\x08", b"\x08\x05\x12\x05\x01", b"\x08" + b"\xff" * 11,
                b"\x0b\x05"):
        with pytest.raises(ValueError):
            P.decode_tensor_desc(bad)


_DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32",
           "float64", "complex64", "complex128"]


@pytest.mark.parametrize("dtype", _DTYPES)
def test_roundtrip_every_dtype(dtype, tmp_path):
    rng = np.random.default_rng(0)
    arr = (rng.standard_normal((2, 3)) * 10).astype(dtype)
    scalar = np.asarray(7).astype(dtype)
    empty = np.zeros((0, 4), dtype)
    P.save_pdiparams(tmp_path / "p", {"a": arr, "b": scalar, "c": empty})
    got = P.load_pdiparams(tmp_path / "p", ["c", "b", "a"])
    for name, ref in (("a", arr), ("b", scalar), ("c", empty)):
        assert got[name].dtype == ref.dtype and got[name].shape == ref.shape
        np.testing.assert_array_equal(got[name], ref)


def test_bf16_lod_and_big_endian(tmp_path):
    raw = np.array([0x3F80, 0x4000], np.uint16)
    rec = P.TensorRecord(raw, P.BF16, [[0, 1, 2]])
    be = np.arange(6, dtype=">f4").reshape(2, 3)
    P.save_pdiparams(tmp_path / "p", {"x": rec, "y": be, "z": np.asfortranarray(be)})
    recs = P.read_records(tmp_path / "p", ["x", "y", "z"])
    assert recs[0].dtype == P.BF16 and recs[0].lod == [[0, 1, 2]]
    np.testing.assert_array_equal(recs[0].array, raw)
    np.testing.assert_array_equal(recs[1].array, be)
    np.testing.assert_array_equal(recs[2].array, be)
    assert recs[1].array.dtype == np.float32
    assert P.record_bytes(be) == P.record_bytes(be.astype("<f4"))


def test_accepts_sampan_tensors_and_bytes(tmp_path):
    import sampan
    t = sampan.to_tensor(np.ones((2, 2), "float32"))
    P.save_pdiparams(tmp_path / "p", {"t": t})
    data = (tmp_path / "p").read_bytes()
    assert P.read_records(data)[0].array.sum() == 4
    assert P.read_single_tensor(data).array.shape == (2, 2)


def test_writer_refuses_unstorable_dtype_and_leaves_old_file(tmp_path):
    target = tmp_path / "p"
    target.write_bytes(b"old")
    with pytest.raises(ValueError, match="'bad'"):
        P.save_pdiparams(target, {"a": np.ones(2), "bad": np.array(["s"])})
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p"]


# ---------------------------------------------------------------- damaged files
def _expect_format_error(data, path, names=None, match=None):
    path.write_bytes(data)
    with pytest.raises(FormatError) as info:
        P.read_records(path, names)
    msg = str(info.value)
    assert str(path) in msg
    if match:
        assert match in msg, msg
    return msg


def test_truncation_at_every_offset_of_linear(tmp_path):
    data = _bytes(LINEAR)
    names = ["b", "w"]
    for cut in range(1, len(data)):
        msg = _expect_format_error(data[:cut], tmp_path / "t.pdiparams", names)
        assert "tensor #" in msg
    assert len(P.read_records(data, names)) == 2


def test_truncation_at_many_offsets_of_lenet(tmp_path):
    data = _bytes(LENET)
    names = sorted(_persistables(os.path.dirname(LENET)))
    rng = np.random.default_rng(1)
    cuts = set(range(1, 200)) | set(rng.integers(1, len(data), 150).tolist()) | {len(data) - 1}
    for cut in sorted(cuts):
        msg = _expect_format_error(data[:cut], tmp_path / "t.pdiparams", names)
        assert "truncated" in msg or "holds" in msg, msg
    # without names the reader still refuses a cut inside a record
    _expect_format_error(data[:-5], tmp_path / "t.pdiparams", None, "truncated")


def test_cut_inside_last_tensor_names_it(tmp_path):
    msg = _expect_format_error(_bytes(LINEAR)[:-4], tmp_path / "t", ["b", "w"],
                               "tensor #1 (w)")
    assert "FP32[4, 3] data needs 48 bytes, only 44 left" in msg


def test_flipped_version_words(tmp_path):
    data = bytearray(_bytes(LINEAR))
    bad = bytearray(data)
    bad[0] = 1
    _expect_format_error(bytes(bad), tmp_path / "t", ["b", "w"], "LoDTensor version is 1")
    bad = bytearray(data)
    bad[12] = 1  # tensor version of the first record
    _expect_format_error(bytes(bad), tmp_path / "t", ["b", "w"], "tensor version is 1")
    second = 12 + 4 + 4 + 4 + 12  # header + desc(FP32 [3]) + 3 floats
    assert data[second:second + 4] == bytes(4)
    bad = bytearray(data)
    bad[second + 3] = 0x80
    msg = _expect_format_error(bytes(bad), tmp_path / "t", ["b", "w"], "tensor #1 (w)")
    assert "version" in msg


def test_wrong_dims(tmp_path):
    data = _bytes(LINEAR)
    # first record FP32 [3] -> [4]: its data swallows part of the next record
    bad = data.replace(b"\x08\x05\x10\x03", b"\x08\x05\x10\x04", 1)
    _expect_format_error(bad, tmp_path / "t", ["b", "w"])
    # [3] -> [2]: the leftover float is read as the next header
    bad = data.replace(b"\x08\x05\x10\x03", b"\x08\x05\x10\x02", 1)
    _expect_format_error(bad, tmp_path / "t", ["b", "w"])
    # huge dims: refused before allocating anything
    huge = P.encode_tensor_desc(5, [2 ** 40, 2 ** 20])
    rec = struct.pack("<IQIi", 0, 0, 0, len(huge)) + huge + bytes(16)
    _expect_format_error(rec, tmp_path / "t", None, "data needs")
    neg = P.encode_tensor_desc(5, [-1, 3])
    rec = struct.pack("<IQIi", 0, 0, 0, len(neg)) + neg + bytes(12)
    _expect_format_error(rec, tmp_path / "t", None, "negative")


def test_bad_desc_length_dtype_and_lod(tmp_path):
    desc = P.encode_tensor_desc(7, [1])  # LOD_TENSOR is a variable kind, not a data type
    rec = struct.pack("<IQIi", 0, 0, 0, len(desc)) + desc + bytes(4)
    _expect_format_error(rec, tmp_path / "t", None, "not a tensor element type")
    rec = struct.pack("<IQIi", 0, 0, 0, -3) + bytes(8)
    _expect_format_error(rec, tmp_path / "t", None, "corrupt TensorDesc length -3")
    rec = struct.pack("<IQ", 0, 2 ** 62) + bytes(40)
    _expect_format_error(rec, tmp_path / "t", None, "LoD level count")
    rec = struct.pack("<IQQ", 0, 1, 12) + bytes(40)
    _expect_format_error(rec, tmp_path / "t", None, "not a multiple of 8")
    rec = struct.pack("<IQIi", 0, 0, 0, 3) + b"\x10\x02\x10"
    _expect_format_error(rec, tmp_path / "t", None, "corrupt TensorDesc")


def test_count_mismatch(tmp_path):
    data = _bytes(LINEAR)
    _expect_format_error(data + bytes(16), tmp_path / "t", ["b", "w"], "16 bytes follow")
    _expect_format_error(data + data, tmp_path / "t", ["b", "w"], "bytes follow the last")
    _expect_format_error(data, tmp_path / "t", ["a", "b", "w"], "holds 2 tensors, expected 3")
    with pytest.raises(FormatError, match="last of the 1 expected"):
        P.read_single_tensor(data)


def test_random_corruption_never_escapes_as_other_errors(tmp_path):
    data = _bytes(os.path.join(REF, "models", "bn_embed", "model.pdiparams"))
    names = sorted(_persistables(os.path.join(REF, "models", "bn_embed")))
    rng = np.random.default_rng(2)
    for _ in range(300):
        bad = bytearray(data)
        for pos in rng.integers(0, len(bad), rng.integers(1, 4)):
            bad[pos] = rng.integers(0, 256)
        try:
            P.read_records(bytes(bad), names)
        except FormatError as exc:
            assert "<in-memory data>" in str(exc)


def test_info_reader_refuses_bad_structure(tmp_path):
    from sampan.save_load import safe_pickle
    path = tmp_path / "m.pdiparams.info"
    for bad, match in (([1, 2], "expected a dict"), ({"w": 3}, "expected a dict"),
                       ({"w": {"trainable": True}}, "structured_name"),
                       ({"w": {"structured_name": 3}}, "expected a str")):
        path.write_bytes(safe_pickle.dumps(bad, 2))
        with pytest.raises(FormatError, match=match):
            params_info.read_params_info(path)
    path.write_bytes(b"\x80\x02}q\x00(X")
    with pytest.raises(FormatError, match="not a valid pickle"):
        params_info.read_params_info(path)
