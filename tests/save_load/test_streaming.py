"""Checkpoints are streamed: ``sampan.save`` and ``.pdiparams`` writers send each array's
data to the file straight from its memory, loading reads each array once into the memory it
keeps, and the files are the bytes they were before streaming (numpy's own ``__reduce__``
opcodes) for every protocol, dtype and memory layout.  (Peak memory itself is measured by
``benchmarks/memory.py``, not here.)"""
import io
import pickle
import struct

import numpy as np
import pytest

import sampan
from sampan.save_load import FormatError, UnsafePickleError, array_bytes, pdiparams, \
    safe_pickle, state_dict_io

PROTOCOLS = [2, 3, 4]


class _NumpyReducePickler(safe_pickle._PaddlePickler):
    """The writer as it was before streaming: numpy's ``__reduce_ex__`` (a bytes copy of
    the data) for every array."""

    def reducer_override(self, obj):
        if isinstance(obj, np.ndarray):
            if obj.dtype.hasobject:
                raise TypeError("object dtype")
            return np.asarray(obj).__reduce_ex__(self.proto)
        return super().reducer_override(obj)


def _reference_dumps(obj, protocol):
    buf = io.BytesIO()
    _NumpyReducePickler(buf, protocol).dump(obj)
    return buf.getvalue()


def _arrays():
    rng = np.random.default_rng(3)
    big = rng.standard_normal((150, 170)).astype("float32")  # ~100 KiB: written unframed
    cube = rng.standard_normal((6, 7, 8))
    return {
        "f32": rng.standard_normal((3, 4)).astype("float32"),
        "f64": cube,
        "f16": rng.standard_normal(9).astype("float16"),
        "bf16": rng.integers(0, 1 << 16, (4, 5), dtype="uint16"),
        "bool": rng.integers(0, 2, 11).astype(bool),
        "i8": np.arange(-5, 5, dtype="int8"), "u8": np.arange(256, dtype="uint8"),
        "i16": np.arange(7, dtype="int16"), "i32": np.arange(8, dtype="int32"),
        "i64": np.arange(12, dtype="int64").reshape(3, 4),
        "c64": (rng.standard_normal(3) + 2j).astype("complex64"),
        "c128": rng.standard_normal(2) + 1j,
        "zero_d": np.array(1.5, "float32"), "zero_d_bool": np.array(True),
        "empty": np.zeros((0, 4), "float32"), "empty1": np.zeros(0, "int64"),
        "short": np.arange(63, dtype="float32"),    # 252 bytes: SHORT_BINBYTES
        "edge": np.arange(64, dtype="float32"),     # 256 bytes: BINBYTES
        "big": big, "big_fortran": np.asfortranarray(big),
        "big_T": big.T, "strided": big[::2, 1::3], "reversed": big[::-1],
        "cube_T": cube.transpose(2, 0, 1), "cube_slice": cube[:, 2, ::2],
        "broadcast": np.broadcast_to(np.arange(5, dtype="float32"), (300, 5)),
        "big_endian": np.arange(6, dtype=">f4").reshape(2, 3),
        "scalar": np.float32(2.5), "scalar_i": np.int64(-3),
    }


def _same(a, b):
    assert type(a) is type(b)
    if isinstance(a, np.ndarray):
        assert a.shape == b.shape and a.dtype.newbyteorder("=") == b.dtype.newbyteorder("=")
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


@pytest.fixture(params=[None, 64], ids=["chunk1MiB", "chunk64B"])
def chunk(request, monkeypatch):
    """Also run with 64-byte chunks, so copies and protocol-2 text span many pieces."""
    if request.param:
        monkeypatch.setattr(array_bytes, "CHUNK", request.param)
    return request.param


# ---------------------------------------------------------------- pickles: same bytes
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_each_array_pickles_to_numpys_bytes(protocol, chunk):
    for key, a in _arrays().items():
        data = safe_pickle.dumps({key: a}, protocol)
        assert data == _reference_dumps({key: a}, protocol), key
        _same(pickle.loads(data)[key], a)        # the standard unpickler reads it
        _same(safe_pickle.loads(data)[key], a)   # and so does the strict one


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_shared_and_repeated_arrays_pickle_to_numpys_bytes(protocol, chunk):
    arrays = _arrays()
    obj = [arrays, arrays["big"], (arrays["f32"], arrays["f32"]), {"again": arrays}]
    data = safe_pickle.dumps(obj, protocol)
    assert data == _reference_dumps(obj, protocol)
    back = safe_pickle.loads(data)
    assert back[0]["big"] is back[1] and back[2][0] is back[2][1]  # memo kept


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_state_dict_file_bytes_unchanged(protocol, chunk, tmp_path):
    arrays = {k: v for k, v in _arrays().items() if isinstance(v, np.ndarray)}
    sd = {}
    for i, (k, a) in enumerate(arrays.items()):
        sd[k] = sampan.Tensor(a, zero_copy=True)   # the tensor's own array, whatever its layout
        sd[k].name = "p_%d" % i
    path = tmp_path / "sd.pdparams"
    sampan.save(sd, str(path), protocol=protocol)
    saved = state_dict_io._build_saved_state_dict(sd)
    assert path.read_bytes() == _reference_dumps(saved, protocol)
    buf = io.BytesIO()
    sampan.save(sd, buf, protocol=protocol)
    assert buf.getvalue() == path.read_bytes()
    back = sampan.load(str(path))
    for k, a in arrays.items():
        _same(back[k].numpy(), np.asarray(a))


def test_protocol_2_splits_big_arrays_without_copying_them(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(state_dict_io, "_MAX_PICKLE_BYTES", 4000)  # 1000 float32 a slice
    w = np.arange(2600, dtype="float32").reshape(2, 1300)
    sd = {"w": sampan.Tensor(w, zero_copy=True), "b": sampan.Tensor(np.ones(3, "float32"))}
    path = tmp_path / "split.pdparams"
    for protocol in (2, 3):
        sampan.save(sd, str(path), protocol=protocol)
        saved = state_dict_io._unpack_big_arrays(state_dict_io._build_saved_state_dict(sd),
                                                 protocol)
        assert saved["UnpackBigParamInfor@@"]["w"]["slices"] == ["w@@.0", "w@@.1", "w@@.2"]
        assert all(np.shares_memory(saved["w@@.%d" % i], w) for i in range(3))
        assert path.read_bytes() == _reference_dumps(saved, protocol)
        back = sampan.load(str(path))
        assert list(back) == ["b", "w"]
        np.testing.assert_array_equal(back["w"].numpy(), w)
        assert back["w"].numpy().flags.owndata


class _CountingSink:
    """A write-only file that keeps the first bytes and counts the rest."""

    def __init__(self, keep=512):
        self.head, self.size, self.keep = bytearray(), 0, keep

    def write(self, data):
        n = memoryview(data).nbytes
        if len(self.head) < self.keep:
            self.head += bytes(memoryview(data).cast("B")[:self.keep - len(self.head)])
        self.size += n
        return n


def test_arrays_over_4_gib_use_binbytes8_without_allocating(monkeypatch):
    # a broadcast array reports 4 GiB + 8 bytes but holds 4; its bytes are copied (it is
    # not contiguous) a chunk at a time into a sink that keeps only the header
    monkeypatch.setattr(array_bytes, "CHUNK", 1 << 26)
    n = (1 << 30) + 2
    huge = np.broadcast_to(np.float32(1.0), (n,))
    sink = _CountingSink()
    safe_pickle.dump(huge, sink, 4)
    head = bytes(sink.head)
    at = head.index(pickle.BINBYTES8)
    assert struct.unpack("<Q", head[at + 1:at + 9])[0] == 4 * n
    assert head[at + 9:at + 13] == np.float32(1.0).tobytes()
    assert sink.size > 4 * n
    with pytest.raises(struct.error):  # protocol 3 has no 8-byte length (state dicts split)
        safe_pickle.dump(huge, _CountingSink(), 3)


# ---------------------------------------------------------------- writing without copies
class _RecordingFile(io.BytesIO):
    def __init__(self):
        super().__init__()
        self.pieces = []

    def write(self, data):
        self.pieces.append(data)
        return super().write(data)


def _written_from(fh, arr):
    return any(isinstance(p, np.ndarray) and np.shares_memory(p, arr) for p in fh.pieces)


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_pickle_writes_array_memory_itself(protocol, chunk):
    big = np.random.default_rng(0).standard_normal((200, 100))
    fortran = np.asfortranarray(big[:, :50])
    fh = _RecordingFile()
    safe_pickle.dump({"a": big, "f": fortran, "s": big[::2]}, fh, protocol)
    if protocol >= 3:  # protocol 2 writes text, converted a chunk at a time
        assert _written_from(fh, big) and _written_from(fh, fortran)
    copied = [memoryview(p).nbytes for p in fh.pieces
              if not (isinstance(p, np.ndarray) and np.shares_memory(p, big))
              and not (isinstance(p, np.ndarray) and np.shares_memory(p, fortran))]
    assert max(copied) <= (1 << 17 if protocol == 4 else 2 * (chunk or array_bytes.CHUNK))


def test_pdiparams_writes_array_memory_itself(chunk):
    big = np.random.default_rng(0).standard_normal((200, 100)).astype("float32")
    fh = _RecordingFile()
    pdiparams.write_records(fh, [("a", big), ("b", big[:, ::3]), ("c", big.T)])
    assert _written_from(fh, big)
    want = b"".join(pdiparams.record_bytes(np.ascontiguousarray(a))
                    for a in (big, big[:, ::3], big.T))
    assert fh.getvalue() == want
    if chunk:
        assert max(memoryview(p).nbytes for p in fh.pieces
                   if not np.shares_memory(p, big)) <= max(chunk, 100 * 4)


def test_byte_chunks_match_tobytes():
    for a in _arrays().values():
        if isinstance(a, np.ndarray):
            for limit in (None, 1, 7, 64, 1 << 20):
                got = b"".join(bytes(c) for c in array_bytes.byte_chunks(a, limit))
                assert got == a.tobytes()


# ---------------------------------------------------------------- loading without copies
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_loaded_tensors_keep_the_files_bytes(protocol, tmp_path):
    w = np.random.default_rng(1).standard_normal((64, 64)).astype("float32")
    sd = {"w": sampan.to_tensor(w), "b": sampan.to_tensor(w[0])}
    sampan.save(sd, str(tmp_path / "m.pdparams"), protocol=protocol)
    back = sampan.load(str(tmp_path / "m.pdparams"))
    data = back["w"]._data      # the tensor's own buffer (numpy() gives a copy)
    # one copy: the array is a view of the bytes object the unpickler read the data into
    assert isinstance(data.base, bytes) and len(data.base) == data.nbytes
    assert data.flags.writeable and not np.shares_memory(data, back["b"]._data)
    data[0, 0] = 5.0                # writable in place, as a loaded Paddle tensor is
    assert back["w"].numpy()[0, 0] == 5.0
    raw = sampan.load(str(tmp_path / "m.pdparams"), return_numpy=True)
    assert isinstance(raw["w"].base, bytes)


def test_one_array_twice_in_a_file_loads_as_two_tensors(tmp_path):
    a = np.arange(4000, dtype="float32")
    sampan.save([a, a, {"k": a}], str(tmp_path / "l"))
    back = sampan.load(str(tmp_path / "l"))
    datas = [back[0]._data, back[1]._data, back[2]["k"]._data]     # the tensors' own buffers
    assert not any(np.shares_memory(x, y) for i, x in enumerate(datas) for y in datas[i + 1:])
    assert sum(isinstance(x.base, bytes) for x in datas) == 1  # the first one keeps the bytes


def test_pdiparams_reads_into_final_arrays(tmp_path):
    arrays = {"a": np.arange(10000, dtype="float32").reshape(100, 100), "b": np.ones(3, "int64")}
    pdiparams.save_pdiparams(tmp_path / "p", arrays)
    back = pdiparams.load_pdiparams(tmp_path / "p", ["a", "b"])
    assert all(v.flags.owndata and v.base is None for v in back.values())
    t = sampan.to_tensor(np.arange(5, dtype="float32"))
    sampan.save(t, str(tmp_path / "t"), use_binary_format=True)
    single = sampan.load(str(tmp_path / "t"))
    assert single.numpy().flags.owndata and single.numpy().tolist() == [0, 1, 2, 3, 4]


# ---------------------------------------------------------------- edges
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_empty_arrays_round_trip(protocol, tmp_path):
    # protocol 2 stores empty bytes as builtins.bytes() (as pickle and Paddle do)
    sd = {"e": sampan.to_tensor(np.zeros((0, 3), "float32")), "s": sampan.to_tensor([1.0])}
    sampan.save(sd, str(tmp_path / "e"), protocol=protocol)
    back = sampan.load(str(tmp_path / "e"))
    assert back["e"].shape == [0, 3] and back["s"].numpy().tolist() == [1.0]
    assert pickle.loads((tmp_path / "e").read_bytes())["e"].shape == (0, 3)


def test_bytes_global_only_makes_empty_bytes():
    assert safe_pickle.loads(b"\x80\x02c__builtin__\nbytes\n)R.") == b""
    with pytest.raises(UnsafePickleError):
        safe_pickle.loads(b"\x80\x02c__builtin__\nbytes\nJ\x00\x00\x00\x40\x85R.")


def test_failed_save_leaves_buffers_and_files_alone(tmp_path):
    good = {"a": sampan.to_tensor(np.arange(30000, dtype="float32"))}
    bad = [np.arange(30000, dtype="float32"), object()]  # fails after the array is written
    buf = io.BytesIO(b"keep")
    buf.seek(4)
    with pytest.raises(TypeError):
        sampan.save(bad, buf)
    assert buf.getvalue() == b"keep" and buf.tell() == 4
    buf.seek(1)  # over existing data: nothing is written unless the whole pickle is made
    with pytest.raises(TypeError):
        sampan.save(bad, buf)
    assert buf.getvalue() == b"keep" and buf.tell() == 1
    sampan.save(good, buf)
    buf.seek(1)
    assert sampan.load(buf)["a"].numpy()[-1] == 29999
    path = tmp_path / "f.pdparams"
    sampan.save(good, str(path))
    before = path.read_bytes()
    with pytest.raises(TypeError):
        sampan.save(bad, str(path))
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["f.pdparams"]


def test_truncated_streamed_file_is_a_format_error(tmp_path):
    path = tmp_path / "t.pdparams"
    sampan.save({"a": sampan.to_tensor(np.arange(50000, dtype="float32"))}, str(path))
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 3, 40):
        path.write_bytes(data[:cut])
        with pytest.raises(FormatError) as info:
            sampan.load(str(path))
        assert str(path) in str(info.value)
