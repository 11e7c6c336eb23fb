"""The ProgramDesc schema (static/proto): every field of FORMAT.md §1 is declared as written
there, every reference .pdmodel parses and re-serializes to identical bytes, and the parsed
programs say exactly what the reference program.txt listings say."""
import glob
import os
import re

import pytest

from google.protobuf import descriptor_pb2

from sampan.program.proto import framework_pb2 as pb

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared",
                   "paddle-reference")
MODELS = sorted(glob.glob(os.path.join(REF, "*", "*", "model.pdmodel")))
FORMAT_MD = os.path.join(REF, "FORMAT.md")

assert os.path.isfile(FORMAT_MD), f"reference FORMAT.md not found at {FORMAT_MD}"


def _model_id(path):
    return "/".join(path.split(os.sep)[-3:-1])


def _parse(path):
    prog = pb.ProgramDesc()
    with open(path, "rb") as fh:
        data = fh.read()
    prog.ParseFromString(data)
    return prog, data


# ---------------------------------------------------------------- schema vs FORMAT.md
F = descriptor_pb2.FieldDescriptorProto
_LABELS = {"required": F.LABEL_REQUIRED, "optional": F.LABEL_OPTIONAL,
           "repeated": F.LABEL_REPEATED}
_SCALARS = {"int32": F.TYPE_INT32, "int64": F.TYPE_INT64, "bool": F.TYPE_BOOL,
            "string": F.TYPE_STRING, "float": F.TYPE_FLOAT, "double": F.TYPE_DOUBLE}


def _file_proto():
    """The schema as a FileDescriptorProto (stable across protobuf runtime versions)."""
    fdp = descriptor_pb2.FileDescriptorProto()
    pb.DESCRIPTOR.CopyToProto(fdp)
    return fdp


def _format_section1():
    text = open(FORMAT_MD, encoding="utf-8").read()
    return text[text.index("## 1."):text.index("## 2.")]


def _field_rows():
    """(message, number, name, label, type, default) for every row of the §1.1 tables."""
    rows, messages, header = [], [], None
    lines = _format_section1().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("#### "):
            messages, header = re.findall(r"`([A-Za-z.]+)`", line), None
            continue
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if set(cells[0]) <= {"-"}:
            continue
        if i + 1 < len(lines) and lines[i + 1].startswith("|-"):
            header = cells  # a table's header row is followed by its |---| separator
            continue
        if header is None or "field" not in header:
            continue
        row = dict(zip(header, cells))
        targets = [row["message"]] if "message" in row else messages
        for msg in targets:
            rows.append((msg, int(row["#"]), row["field"].strip("`"), row["label"],
                         row["type"], row.get("default", "")))
    return rows


def _descriptor(path):
    """DescriptorProto of a (nested) message, e.g. ``VarType.TensorDesc``."""
    parts = path.split(".")
    desc = next(m for m in _file_proto().message_type if m.name == parts[0])
    for part in parts[1:]:
        desc = next(m for m in desc.nested_type if m.name == part)
    return desc


def _fields(path):
    return {f.name: f for f in _descriptor(path).field}


def test_format_tables_were_found():
    messages = {r[0] for r in _field_rows()}
    assert {"ProgramDesc", "BlockDesc", "VarDesc", "VarDesc.Attr", "VarType",
            "VarType.TensorDesc", "VarType.LoDTensorDesc", "VarType.LoDTensorArrayDesc",
            "VarType.ReaderDesc", "VarType.Tuple", "OpDesc", "OpDesc.Var", "OpDesc.Attr",
            "Version", "OpVersionMap", "OpVersionMap.OpVersionPair", "OpVersion", "Scalar",
            "Complex", "OpProto", "OpProto.Var", "OpProto.Attr"} <= messages


@pytest.mark.parametrize("row", _field_rows(), ids=lambda r: f"{r[0]}.{r[2]}")
def test_field_matches_format(row):
    msg, number, name, label, typ, default = row
    field = _fields(msg)[name]
    assert field.number == number
    assert field.label == _LABELS[label]
    if typ.startswith("enum "):
        assert field.type == F.TYPE_ENUM
        assert field.type_name == ".paddle.framework.proto." + typ[5:]
    elif typ in _SCALARS:
        assert field.type == _SCALARS[typ]
    else:
        assert field.type == F.TYPE_MESSAGE
        assert field.type_name == ".paddle.framework.proto." + typ
    if default:
        assert field.HasField("default_value") and field.default_value == default
    else:
        assert not field.HasField("default_value")


def test_messages_have_no_undocumented_fields():
    documented = {}
    for msg, _, name, *_ in _field_rows():
        documented.setdefault(msg, set()).add(name)
    for msg, names in documented.items():
        assert set(_fields(msg)) == names, msg


def _enum_rows(title):
    section = _format_section1()
    start = section.index(title)
    rows = {}
    for line in section[start:].splitlines()[1:]:
        if line.startswith("####"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) > 1 and cells[1].isdigit():
            rows[cells[0]] = int(cells[1])
    return rows


def test_enums_match_format():
    attr = _enum_rows("#### `AttrType`")
    assert len(attr) == 18 and dict(pb.AttrType.items()) == attr
    vt = _enum_rows("#### `VarType.Type`")
    assert len(vt) == 31 and dict(pb.VarType.Type.items()) == vt
    assert dict(pb.Scalar.Type.items()) == {"BOOLEAN": 1, "LONG": 2, "FLOAT64": 3,
                                            "COMPLEX128": 4}


def test_file_facts():
    fdp = _file_proto()
    assert fdp.package == "paddle.framework.proto"
    assert fdp.syntax in ("", "proto2")
    assert pb.ProgramDesc.DESCRIPTOR.full_name == "paddle.framework.proto.ProgramDesc"
    reserved = [(r.start, r.end) for r in _descriptor("ProgramDesc").reserved_range]
    assert sorted(reserved) == [(2, 3), (3, 4)]
    # proto2 repeated scalars are not packed: dims are written one tag per value
    assert not _fields("VarType.TensorDesc")["dims"].options.packed


def test_required_fields_enforced():
    blk = pb.BlockDesc(idx=0)  # parent_idx missing
    assert not blk.IsInitialized()
    with pytest.raises(Exception):
        blk.SerializeToString()


def test_negative_ints_are_ten_byte_varints_and_dims_unpacked():
    td = pb.VarType.TensorDesc(data_type=pb.VarType.FP32, dims=[-1, 3])
    assert td.SerializeToString() == b"\x08\x05\x10" + b"\xff" * 9 + b"\x01\x10\x03"
    packed = b"\x08\x05\x12\x0b" + b"\xff" * 9 + b"\x01\x03"
    again = pb.VarType.TensorDesc()
    again.ParseFromString(packed)
    assert list(again.dims) == [-1, 3]


# ---------------------------------------------------------------- reference programs
def test_reference_models_found():
    assert len(MODELS) >= 7


@pytest.mark.parametrize("path", MODELS, ids=_model_id)
def test_roundtrip_bytes_identical(path):
    prog, data = _parse(path)
    assert prog.IsInitialized()
    assert prog.SerializeToString() == data
    again = pb.ProgramDesc()
    again.ParseFromString(prog.SerializeToString())
    assert again == prog


_PAYLOAD = {"INT": "i", "FLOAT": "f", "STRING": "s", "INTS": "ints", "FLOATS": "floats",
            "STRINGS": "strings", "BOOLEAN": "b", "BOOLEANS": "bools", "BLOCK": "block_idx",
            "LONG": "l", "BLOCKS": "blocks_idx", "LONGS": "longs", "FLOAT64S": "float64s",
            "VAR": "var_name", "VARS": "vars_name", "FLOAT64": "float64",
            "SCALAR": "scalar", "SCALARS": "scalars"}


def _tensor_text(td):
    return f"{pb.VarType.Type.Name(td.data_type)}{list(td.dims)}"


def _var_line(v):
    kind = v.type
    text = pb.VarType.Type.Name(kind.type)
    for sub in ("lod_tensor", "tensor_array"):
        if kind.HasField(sub):
            desc = getattr(kind, sub)
            text += " " + _tensor_text(desc.tensor)
            if desc.HasField("lod_level"):
                text += f" lod_level={desc.lod_level}"
    if kind.HasField("selected_rows"):
        text += " selected_rows " + _tensor_text(kind.selected_rows)
    flags = " ".join(f"{f.name}={val}" for f, val in v.ListFields()
                     if f.name not in ("name", "type"))
    return f"  var {v.name:<40} {text} {flags}"


def _attr_line(a):
    kind = pb.AttrType.Name(a.type)
    value = getattr(a, _PAYLOAD[kind])
    if a.name == "op_callstack":
        return f"        {a.name} {kind}=<{len(value)} lines of Python traceback>"
    if not isinstance(value, (str, bytes, int, float, bool)):
        value = list(value)
    return f"        {a.name} {kind}={value!r}"


def _slots(slots):
    return ", ".join(f"{s.parameter}={list(s.arguments)}" for s in slots)


def _listing(prog, fname):
    """The program as the reference program.txt lists it."""
    lines = [f"# file: {fname}",
             f"version: {prog.version.version if prog.HasField('version') else '<absent>'}"]
    pairs = ", ".join(f"{p.op_name}={p.op_version.version}" for p in prog.op_version_map.pair)
    lines.append(f"op_version_map: {len(prog.op_version_map.pair)} pairs"
                 + (f": {pairs}" if pairs else ""))
    for b in prog.blocks:
        fwd = f" forward_block_idx={b.forward_block_idx}" \
            if b.HasField("forward_block_idx") else ""
        lines += ["", f"== block {b.idx} (parent {b.parent_idx}){fwd}: {len(b.vars)} vars, "
                      f"{len(b.ops)} ops"]
        lines += [_var_line(v) for v in b.vars]
        for i, op in enumerate(b.ops):
            tgt = f" is_target={op.is_target}" if op.HasField("is_target") else ""
            lines.append(f"  op[{i}] {op.type}({_slots(op.inputs)}) -> "
                         f"({_slots(op.outputs)}){tgt}")
            lines += [_attr_line(a) for a in op.attrs]
    return lines


@pytest.mark.parametrize("path", MODELS, ids=_model_id)
def test_parsed_program_matches_listing(path):
    prog, _ = _parse(path)
    with open(os.path.join(os.path.dirname(path), "program.txt"), encoding="utf-8") as fh:
        expected = fh.read().splitlines()
    got = _listing(prog, "model.pdmodel")
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"line {i + 1}"


def _op_types_from_listing(path):
    """{block index: [op types in order]} read from program.txt text alone."""
    blocks, current = {}, None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"== block (\d+) \(parent (-?\d+)\)", line)
        if m:
            current = blocks.setdefault(int(m.group(1)), [])
            continue
        m = re.match(r"  op\[\d+\] ([A-Za-z0-9_]+)\(", line)
        if m:
            current.append(m.group(1))
    return blocks


@pytest.mark.parametrize("path", MODELS, ids=_model_id)
def test_op_types_per_block(path):
    prog, _ = _parse(path)
    listed = _op_types_from_listing(os.path.join(os.path.dirname(path), "program.txt"))
    assert {b.idx: [op.type for op in b.ops] for b in prog.blocks} == listed
    assert [b.idx for b in prog.blocks] == list(range(len(prog.blocks)))
    assert prog.blocks[0].parent_idx == -1


def test_known_facts_of_the_exports():
    prog, _ = _parse(os.path.join(REF, "models", "lenet", "model.pdmodel"))
    assert prog.version.version == 2006002
    assert len(prog.op_version_map.pair) == 68
    ops = prog.blocks[0].ops
    assert ops[0].type == "feed" and ops[-1].type == "fetch"
    vars_ = {v.name: v for v in prog.blocks[0].vars}
    assert vars_["feed"].type.type == pb.VarType.FEED_MINIBATCH and vars_["feed"].persistable
    img = vars_["img"].type.lod_tensor.tensor
    assert img.data_type == pb.VarType.FP32 and list(img.dims) == [-1, 1, 28, 28]
    conv = next(op for op in ops if op.type == "conv2d")
    attrs = {a.name: a for a in conv.attrs}
    assert list(attrs["strides"].ints) == [1, 1] and attrs["strides"].type == pb.AttrType.INTS


def test_generated_module_is_current():
    """framework_pb2.py is what regen.py makes from framework.proto today."""
    pytest.importorskip("grpc_tools")
    import importlib.util
    path = os.path.join(os.path.dirname(pb.__file__), "regen.py")
    spec = importlib.util.spec_from_file_location("_sampan_proto_regen", path)
    regen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(regen)
    with open(pb.__file__, encoding="utf-8") as fh:
        assert fh.read() == regen.generate(), "run python static/proto/regen.py"
