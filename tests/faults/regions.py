"""Maps of a model's bytes, written independently of sampan's readers (a mutator must not
share the bugs of what it tests), and the rule for which mutations may change outputs.

* ``proto_regions``: every protobuf field of a ``.pdmodel`` (recursively, guided by the
  ``framework_pb2`` descriptors) as ``Region(start, value, end, path, wire)``: ``start`` is the
  tag, ``value`` the first payload byte (after a length prefix), ``end`` one past the field.
* ``param_records``: every record of a ``.pdiparams`` (FORMAT.md §2) with its parts
  (``lod_version``, ``lod_count``, ``lod_levels``, ``tensor_version``, ``desc_len``, ``desc``,
  ``data``) as byte ranges.
* ``pickle_boundaries``: opcode offsets of a ``.pdiparams.info`` pickle.
* ``skeleton``: what a strict loader can check in a ProgramDesc (blocks, variables with types
  and dims, ops with their slots, declared attributes with types and payload presence,
  sub-block indices, feed/fetch ``col``) but not attribute values. Two files with the same
  skeleton are the same model up to attribute values (an attribute left out reads as its
  declared default; an optional input left out is a valid op), so different outputs are
  legitimate (DATA_CHANGED).
* ``payload_only``: a ``.pdiparams`` change confined to tensor data bytes.
"""
import pickletools
from collections import namedtuple

import numpy as np

from . import ensure_sampan

ensure_sampan()
from sampan.program.proto import framework_pb2 as pb  # noqa: E402

Region = namedtuple("Region", "start value end path wire")
Part = namedtuple("Part", "name start end")
Record = namedtuple("Record", "index start end parts dtype dims elsize")

ELSIZE = {0: 1, 1: 2, 2: 4, 3: 8, 4: 2, 5: 4, 6: 8, 19: 8, 20: 1, 21: 1, 22: 2, 23: 8, 24: 16}


# ------------------------------------------------------------------ protobuf wire
def varint(buf, pos):
    """(value, next position) of the varint at ``pos``; ValueError past the end."""
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("varint runs past the end")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def encode_varint(value):
    value &= (1 << 64) - 1
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def proto_regions(buf, descriptor=None, start=0, end=None, path="", out=None):
    """All fields of the message in ``buf[start:end]``, nested ones included, in file order
    of their starts (a parent before its children)."""
    descriptor = descriptor or pb.ProgramDesc.DESCRIPTOR
    end = len(buf) if end is None else end
    out = [] if out is None else out
    counts = {}
    pos = start
    while pos < end:
        fstart = pos
        key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        field = descriptor.fields_by_number.get(number)
        name = field.name if field is not None else f"#{number}"
        k = counts[name] = counts.get(name, -1) + 1
        fpath = f"{path}.{name}[{k}]" if path else f"{name}[{k}]"
        if wire == 0:
            value = pos
            _, pos = varint(buf, pos)
        elif wire in (1, 5):
            value, pos = pos, pos + (8 if wire == 1 else 4)
        elif wire == 2:
            n, value = varint(buf, pos)
            pos = value + n
        else:
            raise ValueError(f"wire type {wire} at {fstart}")
        if pos > end:
            raise ValueError(f"field {fpath} runs past its message")
        out.append(Region(fstart, value, pos, fpath, wire))
        if wire == 2 and field is not None and field.message_type is not None:
            proto_regions(buf, field.message_type, value, pos, fpath, out)
    return out


def boundaries(regions, size):
    """Sorted distinct cut points strictly inside the file: every field's start, payload
    start and end."""
    cuts = set()
    for r in regions:
        cuts.update((r.start, r.value, r.end))
    return sorted(c for c in cuts if 0 < c < size)


# ------------------------------------------------------------------ .pdiparams
def decode_desc(buf):
    """(data_type, dims) of a TensorDesc (unpacked or packed dims)."""
    dtype, dims, pos = None, [], 0
    while pos < len(buf):
        key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        if number == 1 and wire == 0:
            dtype, pos = varint(buf, pos)
        elif number == 2 and wire == 0:
            v, pos = varint(buf, pos)
            dims.append(v - (1 << 64) if v >> 63 else v)
        elif number == 2 and wire == 2:
            n, pos = varint(buf, pos)
            stop = pos + n
            while pos < stop:
                v, pos = varint(buf, pos)
                dims.append(v - (1 << 64) if v >> 63 else v)
        else:
            raise ValueError(f"unexpected TensorDesc field {number}/{wire}")
    return dtype, dims


def encode_desc(dtype, dims, packed=False):
    out = b"\x08" + encode_varint(dtype)
    if packed:
        body = b"".join(encode_varint(d) for d in dims)
        return out + b"\x12" + encode_varint(len(body)) + body
    return out + b"".join(b"\x10" + encode_varint(d) for d in dims)


def param_records(buf):
    """The records of a well-formed ``.pdiparams`` (ValueError when it is not)."""
    u32 = lambda p: int.from_bytes(buf[p:p + 4], "little")   # noqa: E731
    u64 = lambda p: int.from_bytes(buf[p:p + 8], "little")   # noqa: E731
    records, pos = [], 0
    while pos < len(buf):
        start, parts = pos, []
        parts.append(Part("lod_version", pos, pos + 4))
        levels = u64(pos + 4)
        parts.append(Part("lod_count", pos + 4, pos + 12))
        pos += 12
        for k in range(levels):
            n = u64(pos)
            parts.append(Part(f"lod_level{k}", pos, pos + 8 + n))
            pos += 8 + n
        parts.append(Part("tensor_version", pos, pos + 4))
        dlen = u32(pos + 4)
        parts.append(Part("desc_len", pos + 4, pos + 8))
        pos += 8
        parts.append(Part("desc", pos, pos + dlen))
        dtype, dims = decode_desc(buf[pos:pos + dlen])
        pos += dlen
        elsize = ELSIZE[dtype]
        nbytes = int(np.prod(dims, dtype=np.int64)) * elsize if dims else elsize
        parts.append(Part("data", pos, pos + nbytes))
        pos += nbytes
        if pos > len(buf):
            raise ValueError(f"record {len(records)} runs past the end")
        records.append(Record(len(records), start, pos, parts, dtype, dims, elsize))
    return records


def part(record, name):
    return next(p for p in record.parts if p.name == name)


def payload_only(original, mutated, records):
    """True when ``mutated`` has the same length and differs only inside tensor data."""
    if mutated is None or len(mutated) != len(original):
        return False
    a = np.frombuffer(original, np.uint8)
    b = np.frombuffer(mutated, np.uint8)
    inside = np.zeros(len(a), bool)
    for r in records:
        d = part(r, "data")
        inside[d.start:d.end] = True
    return bool(np.all(inside[a != b]))


# ------------------------------------------------------------------ .pdiparams.info
def pickle_boundaries(buf):
    """Offsets of every opcode of a pickle (cut points strictly inside the file)."""
    cuts = set()
    for _, _, pos in pickletools.genops(buf):
        if pos is not None:
            cuts.add(pos)
    return sorted(c for c in cuts if 0 < c < len(buf))


# ------------------------------------------------------------------ skeleton
_SCALAR_FIELDS = ("i", "f", "s", "b", "block_idx", "l", "var_name", "float64", "scalar")


def _tensor_desc(vtype):
    for field in ("lod_tensor", "tensor_array", "selected_rows"):
        if vtype.HasField(field):
            sub = getattr(vtype, field)
            td = sub if field == "selected_rows" else sub.tensor
            level = sub.lod_level if field != "selected_rows" else 0
            return field, td.data_type, tuple(td.dims), level
    return None


def parse(data):
    """A complete ProgramDesc from bytes, or None."""
    desc = pb.ProgramDesc()
    try:
        desc.ParseFromString(bytes(data))
    except Exception:       # any parse failure: not a model at all
        return None
    return desc if desc.IsInitialized() else None


def skeleton(data):
    """The structure of serialized ProgramDesc bytes as a loader can check it (see module
    docstring and wellformed.normal_attrs/normal_slots); None when they do not parse."""
    from .wellformed import normal_attrs, normal_slots
    desc = parse(data)
    if desc is None:
        return None
    out = []
    try:
        for b in desc.blocks:
            fwd = b.forward_block_idx if b.HasField("forward_block_idx") else None
            out.append(("block", b.idx, b.parent_idx, fwd))
            out.extend(sorted(("var", v.name, v.type.type, _tensor_desc(v.type),
                               v.persistable) for v in b.vars))
            for op in b.ops:
                out.append(("op", op.type, normal_slots(op, "inputs"),
                            normal_slots(op, "outputs"), normal_attrs(op, _SCALAR_FIELDS)))
    except TypeError:       # e.g. names that are not valid UTF-8 compare as bytes
        return None
    return out
