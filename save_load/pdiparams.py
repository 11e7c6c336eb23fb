"""The combined tensor binary of ``.pdiparams`` (Paddle's ``save_combine``), FORMAT.md §2-§3.

A file is a run of tensor records with no header, count, names or padding.  One record:
uint32 LoDTensor version (0), uint64 LoD level count, per level (uint64 byte length + uint64
offsets), uint32 tensor version (0), int32 TensorDesc length, the serialized
``VarType.TensorDesc`` (data_type, dims), then the raw little-endian C-order data.  Names are
implied: the records are the persistable variables in byte-wise sorted name order.

Reading is strict: every count, length and version is checked, exactly ``prod(dims) * elsize``
bytes must be present per tensor and nothing may follow the last one; any fault raises
``FormatError`` naming the file, the tensor (index and name when known) and what is wrong.
The same single-record layout is what ``paddle.save(tensor, path, use_binary_format=True)``
writes.  The TensorDesc is coded by hand here (two fields) so this module needs no protobuf.
"""
import io
import os
import struct
from collections import namedtuple

import numpy as np

from ..ops.dtypes import ENUM_NAMES, ENUM_TO_NP, NP_TO_ENUM
from .array_bytes import write_array
from .fileio import FormatError, atomic_open, describe, ensure_parent

BF16 = 22  # VarType.BF16: no numpy type, stored and returned as raw uint16

# VarType data type -> little-endian storage dtype of the raw bytes
_STORAGE = {k: v.newbyteorder("<") for k, v in ENUM_TO_NP.items()}
_STORAGE[BF16] = np.dtype("<u2")
_HEAD = struct.Struct("<IQ")      # LoDTensor version, LoD level count
_TENSOR_HEAD = struct.Struct("<Ii")  # tensor version, TensorDesc byte length
_U64 = struct.Struct("<Q")
_MASK64 = (1 << 64) - 1

TensorRecord = namedtuple("TensorRecord", "array dtype lod")
TensorRecord.__doc__ = """One record: ``array`` (numpy, BF16 as uint16), ``dtype`` (the
VarType.Type value stored in the file) and ``lod`` (list of offset lists, usually empty)."""


# ---------------------------------------------------------------- TensorDesc codec
def _put_varint(out, value):
    value &= _MASK64  # negative int64 -> two's complement, 10 bytes (no zig-zag)
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def encode_tensor_desc(dtype, dims):
    """Serialize ``VarType.TensorDesc{data_type, dims}`` as Paddle does (dims not packed)."""
    out = bytearray(b"\x08")
    _put_varint(out, int(dtype))
    for d in dims:
        out.append(0x10)
        _put_varint(out, int(d))
    return bytes(out)


def _get_varint(buf, pos):
    result = shift = 0
    for i in range(10):
        if pos >= len(buf):
            raise ValueError("a varint runs past the end of the TensorDesc")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & _MASK64, pos
        shift += 7
    raise ValueError("a varint is longer than 10 bytes")


def _signed64(v):
    return v - (1 << 64) if v >> 63 else v


def _skip_field(buf, pos, wire):
    if wire == 0:
        return _get_varint(buf, pos)[1]
    if wire in (1, 5):
        pos += 8 if wire == 1 else 4
    elif wire == 2:
        n, pos = _get_varint(buf, pos)
        pos += n
    else:
        raise ValueError(f"unsupported protobuf wire type {wire}")
    if pos > len(buf):
        raise ValueError("a field runs past the end of the TensorDesc")
    return pos


def decode_tensor_desc(buf):
    """Parse a serialized TensorDesc -> (data_type, dims); accepts packed dims too.

    Raises ValueError describing the fault (callers add the file and tensor)."""
    dtype, dims, pos = None, [], 0
    while pos < len(buf):
        key, pos = _get_varint(buf, pos)
        field, wire = key >> 3, key & 7
        if field == 1 and wire == 0:
            dtype, pos = _get_varint(buf, pos)
        elif field == 2 and wire == 0:
            v, pos = _get_varint(buf, pos)
            dims.append(_signed64(v))
        elif field == 2 and wire == 2:
            n, pos = _get_varint(buf, pos)
            end = pos + n
            if end > len(buf):
                raise ValueError("packed dims run past the end of the TensorDesc")
            while pos < end:
                v, pos = _get_varint(buf, pos)
                dims.append(_signed64(v))
            if pos != end:
                raise ValueError("packed dims overrun their length")
        else:
            pos = _skip_field(buf, pos, wire)
    if dtype is None:
        raise ValueError("the TensorDesc has no data_type (a required field)")
    return dtype, dims


# ---------------------------------------------------------------- reading
class _Stream:
    """A binary stream with a known size, reporting faults against one tensor record."""

    def __init__(self, fh, source):
        self.fh, self.source = fh, describe(source)
        self.start = fh.tell()
        fh.seek(0, io.SEEK_END)
        self.size = fh.tell()
        fh.seek(self.start)
        self.index, self.name = 0, None

    @property
    def pos(self):
        return self.fh.tell()

    def left(self):
        return self.size - self.pos

    def error(self, what, at=None):
        who = f"tensor #{self.index}" + (f" ({self.name})" if self.name else "")
        at = self.pos if at is None else at
        return FormatError(f"{self.source}: {who} at byte {at}: {what}")

    def take(self, n, what):
        at = self.pos
        if n > self.left():
            raise self.error(f"truncated: {what} needs {n} bytes, only {self.left()} left", at)
        data = self.fh.read(n)
        if len(data) != n:
            raise self.error(f"truncated: {what} needs {n} bytes, got {len(data)}", at)
        return data

    def take_into(self, arr, what):
        view = memoryview(arr.reshape(-1).view(np.uint8))
        at, need = self.pos, view.nbytes
        if need > self.left():
            raise self.error(f"truncated: {what} needs {need} bytes, only {self.left()} left",
                             at)
        got = 0
        while got < need:
            n = self.fh.readinto(view[got:])
            if not n:
                raise self.error(f"truncated: {what} needs {need} bytes, got {got}", at)
            got += n


def _read_lod(st, levels):
    if levels > st.left() // 8:
        raise st.error(f"corrupt LoD level count {levels} (only {st.left()} bytes left)")
    lod = []
    for k in range(levels):
        (nbytes,) = _U64.unpack(st.take(8, f"length of LoD level {k}"))
        if nbytes % 8:
            raise st.error(f"LoD level {k} byte length {nbytes} is not a multiple of 8")
        data = st.take(nbytes, f"LoD level {k}")
        lod.append(np.frombuffer(data, "<u8").tolist())
    return lod


def _read_record(st):
    version, levels = _HEAD.unpack(st.take(_HEAD.size, "record header"))
    if version != 0:
        raise st.error(f"LoDTensor version is {version}, only version 0 is supported "
                       "(not a Paddle parameter file?)", st.pos - _HEAD.size)
    lod = _read_lod(st, levels)
    tversion, desc_len = _TENSOR_HEAD.unpack(st.take(_TENSOR_HEAD.size, "tensor header"))
    if tversion != 0:
        raise st.error(f"tensor version is {tversion}, only version 0 is supported",
                       st.pos - _TENSOR_HEAD.size)
    if desc_len < 0:
        raise st.error(f"corrupt TensorDesc length {desc_len}")
    if desc_len > st.left():
        raise st.error(f"truncated: TensorDesc of {desc_len} bytes, only {st.left()} left")
    at = st.pos
    try:
        dtype, dims = decode_tensor_desc(st.take(desc_len, "TensorDesc"))
    except ValueError as exc:
        raise st.error(f"corrupt TensorDesc: {exc}", at) from None
    storage = _STORAGE.get(dtype)
    if storage is None:
        kind = ENUM_NAMES.get(dtype, f"VarType {dtype}")
        raise st.error(f"TensorDesc data_type {kind} is not a tensor element type", at)
    if any(d < 0 for d in dims):
        raise st.error(f"TensorDesc dims {dims} has a negative size", at)
    numel = 1
    for d in dims:
        numel *= d
    if numel * storage.itemsize > st.left():
        raise st.error(f"truncated: {ENUM_NAMES.get(dtype)}{dims} data needs "
                       f"{numel * storage.itemsize} bytes, only {st.left()} left")
    arr = np.empty(tuple(dims), storage)
    st.take_into(arr, f"{ENUM_NAMES.get(dtype)}{dims} data")
    if not storage.isnative:
        arr = arr.astype(storage.newbyteorder("="))
    return TensorRecord(arr, dtype, lod)


def _open_source(source):
    """(file object, needs closing) for a path, bytes-like or binary file object."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(source), True
    if isinstance(source, (str, os.PathLike)):
        return open(source, "rb"), True
    return source, False


def read_records(source, names=None, count=None):
    """All tensor records of ``source`` (path, bytes or binary file) in file order.

    ``names``: the file-order names, used in messages and to check the count (bytes left
    after the last named tensor, or fewer tensors, raise FormatError).  ``count``: expected
    number of records when names are unknown."""
    if names is not None:
        names = list(names)
        count = len(names)
    fh, close = _open_source(source)
    try:
        st = _Stream(fh, source)
        records = []
        while st.left() > 0:
            st.index = len(records)
            if count is not None and st.index >= count:
                raise FormatError(
                    f"{st.source}: {st.left()} bytes follow the last of the {count} expected "
                    f"tensors" + (f" ({names[-1]})" if names else ""))
            st.name = names[st.index] if names else None
            records.append(_read_record(st))
        if count is not None and len(records) != count:
            missing = f" ({names[len(records)]})" if names else ""
            raise FormatError(f"{st.source}: holds {len(records)} tensors, expected {count}: "
                              f"tensor #{len(records)}{missing} is missing")
        return records
    finally:
        if close:
            fh.close()


def load_pdiparams(source, names):
    """{name: ndarray} for a ``.pdiparams`` holding the persistable variables ``names``.

    ``names`` may be in any order: the file holds them sorted byte-wise (FORMAT.md §3),
    which is the order of the returned dict."""
    order = sorted(set(names))
    if len(order) != len(list(names)):
        raise ValueError("load_pdiparams: duplicate variable names")
    records = read_records(source, order)
    return {n: r.array for n, r in zip(order, records)}


def read_single_tensor(source):
    """The one record of a file written with ``use_binary_format=True``."""
    return read_records(source, count=1)[0]


# ---------------------------------------------------------------- writing
def _as_record(name, value):
    if isinstance(value, TensorRecord):
        return value
    arr = np.asarray(value)
    dtype = NP_TO_ENUM.get(arr.dtype.newbyteorder("="))
    if dtype is None:
        raise ValueError(f"cannot write tensor {name!r}: dtype {arr.dtype} has no Paddle "
                         "VarType (for bfloat16 pass a TensorRecord with dtype=BF16)")
    return TensorRecord(arr, dtype, [])


def _record_parts(value, name):
    """(header bytes, little-endian C-order data array) of one record."""
    rec = _as_record(name, value)
    storage = _STORAGE.get(rec.dtype)
    if storage is None:
        raise ValueError(f"cannot write tensor {name!r}: VarType {rec.dtype} is not a data type")
    arr = np.asarray(rec.array)
    if arr.dtype.itemsize != storage.itemsize:
        raise ValueError(f"cannot write tensor {name!r}: array dtype {arr.dtype} does not "
                         f"match VarType {ENUM_NAMES.get(rec.dtype)}")
    parts = [_HEAD.pack(0, len(rec.lod))]
    for level in rec.lod:
        offsets = np.asarray(level, "<u8")
        parts += [_U64.pack(offsets.nbytes), offsets.tobytes()]
    desc = encode_tensor_desc(rec.dtype, arr.shape)
    parts += [_TENSOR_HEAD.pack(0, len(desc)), desc]
    little = arr.dtype.newbyteorder("<")
    if arr.dtype != little:
        arr = arr.astype(little)  # big-endian data: the one case that copies the tensor
    return b"".join(parts), arr


def record_bytes(value, name="tensor"):
    """The bytes of one record for an array, Tensor or TensorRecord."""
    buf = io.BytesIO()
    write_records(buf, [(name, value)])
    return buf.getvalue()


def write_records(fh, items):
    """Write (name, value) pairs in the given order to a binary file object; each tensor's
    data goes to the file straight from its array (a non-contiguous one a chunk at a time),
    never through a copy of the whole record."""
    for name, value in items:
        head, arr = _record_parts(value, name)
        fh.write(head)
        write_array(fh.write, arr)


def save_pdiparams(path, tensors):
    """Write ``{name: array | Tensor | TensorRecord}`` as a ``.pdiparams`` file, atomically.

    Records are written in byte-wise sorted name order (what Paddle's loader expects).
    Returns the names in file order."""
    order = sorted(tensors)
    ensure_parent(path)
    with atomic_open(path) as fh:
        write_records(fh, ((n, tensors[n]) for n in order))
    return order
