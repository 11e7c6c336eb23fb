"""Structural mutants of ``.pdmodel``, edited through the protobuf (``framework_pb2``).

Program classes (``struct.*``): remove/duplicate a variable, change a dim or dtype, drop,
retype or empty an attribute, unknown op type, feed/fetch ``col`` out of range or repeated,
deleted feed/fetch ops, ``sub_block`` out of range or pointing elsewhere, an op input/output
naming a missing variable, removed or swapped ops, broken block indices, missing proto2
required fields, persistable flags flipped, slots removed or emptied; plus ``valid.*`` variants
that must load unchanged. (``.pdiparams`` / ``.pdiparams.info``: mutate_files.py.)
"""
import numpy as np

from . import regions as R
from .mutate import Builder
from .wellformed import paddle_ops

pb = R.pb
HOLDERS = ("feed", "fetch")
UNKNOWN_OP = "sampan_fault_no_such_op"
MISSING_VAR = "sampan_fault_missing_var"
_SCALAR = {pb.INT: "i", pb.FLOAT: "f", pb.STRING: "s", pb.BOOLEAN: "b", pb.LONG: "l",
           pb.FLOAT64: "float64", pb.BLOCK: "block_idx"}
_CONVERT = {pb.INT: (pb.LONG, "l"), pb.BOOLEAN: (pb.INT, "i"), pb.FLOAT: (pb.FLOAT64, "float64"),
            pb.LONG: (pb.INT, "i")}
_LISTS = {pb.INTS: ("ints", pb.LONGS, "longs"), pb.FLOATS: ("floats", pb.FLOAT64S, "float64s")}


def paddle_default(op_type, name):
    """(True, default) when Paddle 2.6.2 declares a default for this attribute."""
    for a in paddle_ops().get(op_type, {}).get("attrs", ()):
        if a["name"] == name and a.get("has_default"):
            return True, a["default"]
    return False, None


def dispensable_input(op_type, slot):
    """Is this input slot optional in Paddle 2.6.2 (an op without it is a valid op)?"""
    return any(s["name"] == slot and s["dispensable"]
               for s in paddle_ops().get(op_type, {}).get("inputs", ()))


_LIST_FIELDS = {pb.INTS: "ints", pb.FLOATS: "floats", pb.STRINGS: "strings",
                pb.BOOLEANS: "bools", pb.BLOCKS: "blocks_idx", pb.LONGS: "longs",
                pb.FLOAT64S: "float64s", pb.VARS: "vars_name"}
_FLOATY = (pb.FLOAT, pb.FLOATS, pb.FLOAT64, pb.FLOAT64S)


def attr_value(a):
    if a.type in _SCALAR:
        return getattr(a, _SCALAR[a.type])
    if a.type in _LIST_FIELDS:
        return list(getattr(a, _LIST_FIELDS[a.type]))
    return None


def _same_value(a, default):
    v = attr_value(a)
    if a.type in _FLOATY:
        v, default = np.float32(v), np.float32(default)
        return v.shape == default.shape and bool(np.all(v == default))
    return v == default


# ------------------------------------------------------------------ program helpers
def _tensor(v):
    if v.type.HasField("lod_tensor"):
        return v.type.lod_tensor.tensor
    if v.type.HasField("tensor_array"):
        return v.type.tensor_array.tensor
    return None


def _var(block, name):
    return next(v for v in block.vars if v.name == name)


def _ops(desc):
    """(block index, op index, op) of every op."""
    return [(b.idx, i, op) for b in desc.blocks for i, op in enumerate(b.ops)]


def _var_kinds(desc):
    """{kind: [(block, var name)]} of the program's variables."""
    b0 = desc.blocks[0]
    feeds = {a for op in b0.ops if op.type == "feed" for s in op.outputs for a in s.arguments}
    fetched = {a for op in b0.ops if op.type == "fetch" for s in op.inputs for a in s.arguments}
    kinds = {k: [] for k in ("param", "holder", "input", "output", "inter", "sub", "scopes")}
    for b in desc.blocks:
        for v in b.vars:
            if v.type.type in (pb.VarType.FEED_MINIBATCH, pb.VarType.FETCH_LIST):
                k = "holder"
            elif v.persistable:
                k = "param"
            elif v.type.type == pb.VarType.STEP_SCOPES:
                k = "scopes"
            elif b.idx > 0:
                k = "sub"
            elif v.name in feeds:
                k = "input"
            elif v.name in fetched:
                k = "output"
            else:
                k = "inter"
            kinds[k].append((b.idx, v.name))
    return kinds


class _Prog:
    """Adds program mutants: ``edit(desc)`` works on a copy of the unmutated ProgramDesc."""

    def __init__(self, mf):
        self.b = Builder(mf, "pdmodel")
        self.desc = mf.desc

    def add(self, cls, detail, edit, change="never", expect_same=False):
        base = self.desc

        def make(edit=edit):
            d = pb.ProgramDesc()
            d.CopyFrom(base)
            edit(d)
            return d.SerializePartialToString()
        self.b.add(cls, detail, make, change, expect_same)

    def sample(self, cls, items, full=None):
        return self.b.sample(cls, items, full)


# ------------------------------------------------------------------ program mutants
def program_mutants(mf):
    p = _Prog(mf)
    desc = mf.desc
    kinds = _var_kinds(desc)
    _vars(p, kinds)
    _attrs(p, desc)
    _ops_and_feeds(p, desc)
    _blocks(p, desc, kinds)
    _valid(p, desc)
    return p.b.out


def _remove_var(bi, name):
    def edit(d):
        vs = d.blocks[bi].vars
        del vs[[v.name for v in vs].index(name)]
    return edit


def _set_tensor(bi, name, fn):
    def edit(d):
        fn(_tensor(_var(d.blocks[bi], name)))
    return edit


def _vars(p, kinds):
    for kind, items in kinds.items():
        for bi, name in p.sample(f"struct.remove_var.{kind}", items, None):
            p.add(f"struct.remove_var.{kind}", f"b{bi}/{name}", _remove_var(bi, name))
    for bi, name in p.sample("struct.dup_var", kinds["param"] + kinds["inter"], 8):
        p.add("struct.dup_var", f"b{bi}/{name}",
              lambda d, bi=bi, name=name: d.blocks[bi].vars.add().CopyFrom(_var(d.blocks[bi],
                                                                               name)))
    dim_edits = {
        "first+1": lambda t: t.dims.__setitem__(0, t.dims[0] + 1 if t.dims[0] >= 0 else 3),
        "append1": lambda t: t.dims.append(1),
        "droplast": lambda t: t.dims.__delitem__(len(t.dims) - 1),
        "scalar": lambda t: t.ClearField("dims"),
        "minus5": lambda t: t.dims.__setitem__(0, -5),
        "huge": lambda t: t.dims.__setitem__(0, 1 << 40),
    }
    for kind in ("param", "input", "inter", "output"):
        items = [(bi, n) for bi, n in kinds[kind] if _tensor(_var(p.desc.blocks[bi], n))
                 is not None and len(_tensor(_var(p.desc.blocks[bi], n)).dims) > 0]
        for bi, name in p.sample(f"struct.dim.{kind}", items, 4):
            for label, fn in dim_edits.items():
                if label in ("droplast", "scalar") and kind != "param":
                    continue
                p.add(f"struct.dim.{kind}", f"b{bi}/{name}/{label}", _set_tensor(bi, name, fn))
    dtypes = {"FP64": pb.VarType.FP64, "INT32": pb.VarType.INT32, "BOOL": pb.VarType.BOOL,
              "INT64": pb.VarType.INT64, "LOD_TENSOR7": pb.VarType.LOD_TENSOR}
    for kind in ("param", "input", "inter", "output"):
        typed = [(bi, n) for bi, n in kinds[kind]
                 if _tensor(_var(p.desc.blocks[bi], n)) is not None]
        for bi, name in p.sample(f"struct.dtype.{kind}", typed, 4):
            old = _tensor(_var(p.desc.blocks[bi], name)).data_type
            for label, new in dtypes.items():
                if new != old:
                    p.add(f"struct.dtype.{kind}", f"b{bi}/{name}/{label}", _set_tensor(
                        bi, name, lambda t, new=new: setattr(t, "data_type", new)))
    vtypes = {"SELECTED_ROWS": pb.VarType.SELECTED_ROWS, "FEED_MINIBATCH":
              pb.VarType.FEED_MINIBATCH, "STEP_SCOPES": pb.VarType.STEP_SCOPES,
              "LOD_TENSOR_ARRAY": pb.VarType.LOD_TENSOR_ARRAY}
    for bi, name in p.sample("struct.vartype", kinds["param"] + kinds["inter"] +
                             kinds["holder"], None):
        old = _var(p.desc.blocks[bi], name).type.type
        for label, new in vtypes.items():
            if new == old:
                continue
            p.add("struct.vartype", f"b{bi}/{name}/{label}",
                  lambda d, bi=bi, name=name, new=new: setattr(_var(d.blocks[bi], name).type,
                                                               "type", new))
    for bi, name in p.sample("struct.persistable.off", kinds["param"], None):
        p.add("struct.persistable.off", f"b{bi}/{name}",
              lambda d, bi=bi, name=name: setattr(_var(d.blocks[bi], name), "persistable", 0))
    for bi, name in p.sample("struct.persistable.on", kinds["inter"] + kinds["input"], 8):
        p.add("struct.persistable.on", f"b{bi}/{name}",
              lambda d, bi=bi, name=name: setattr(_var(d.blocks[bi], name), "persistable", 1))


def _attr_edit(bi, oi, ai, fn):
    def edit(d):
        fn(d.blocks[bi].ops[oi], d.blocks[bi].ops[oi].attrs[ai])
    return edit


def _drop_attr(op, a):
    del op.attrs[[x.name for x in op.attrs].index(a.name)]


def _retag(new):
    def fn(op, a):
        a.type = new
    return fn


def _convert(op, a):
    new, field = _CONVERT[a.type]
    value = getattr(a, _SCALAR[a.type])
    a.ClearField(_SCALAR[a.type])
    a.type = new
    setattr(a, field, int(value) if field in ("i", "l") else float(value))


def _convert_list(op, a):
    old, new, field = _LISTS[a.type]
    values = list(getattr(a, old))
    a.ClearField(old)
    a.type = new
    getattr(a, field).extend(values)


def _attrs(p, desc):
    functional = [(bi, oi, ai, op, a) for bi, oi, op in _ops(desc)
                  for ai, a in enumerate(op.attrs)
                  if not a.name.startswith(("op_", "with_quant"))]
    extra = [(bi, oi, ai, op, a) for bi, oi, op in _ops(desc) for ai, a in enumerate(op.attrs)
             if a.name.startswith(("op_", "with_quant"))]
    for bi, oi, ai, op, a in p.sample("struct.drop_attr", functional, None):
        has, default = paddle_default(op.type, a.name)
        change = "value" if has and not _same_value(a, default) else "never"
        p.add("struct.drop_attr", f"b{bi}/op{oi}:{op.type}.{a.name}",
              _attr_edit(bi, oi, ai, _drop_attr), change)
    for bi, oi, ai, op, a in p.sample("struct.drop_attr.extra", extra, 20):
        p.add("struct.drop_attr.extra", f"b{bi}/op{oi}:{op.type}.{a.name}",
              _attr_edit(bi, oi, ai, _drop_attr), expect_same=True)
    scalars = [x for x in functional if x[4].type in _SCALAR]
    for bi, oi, ai, op, a in p.sample("struct.retype_attr.tag", scalars, None):
        others = [t for t in (pb.INT, pb.FLOAT, pb.STRING, pb.BOOLEAN, pb.LONG, pb.INTS)
                  if t != a.type]
        new = others[(bi * 7 + oi * 3 + ai) % len(others)]
        p.add("struct.retype_attr.tag", f"b{bi}/op{oi}:{op.type}.{a.name}->"
              f"{pb.AttrType.Name(new)}", _attr_edit(bi, oi, ai, _retag(new)))
    conv = [x for x in functional if x[4].type in _CONVERT or x[4].type in _LISTS]
    for bi, oi, ai, op, a in p.sample("struct.retype_attr.convert", conv, None):
        fn = _convert if a.type in _CONVERT else _convert_list
        p.add("struct.retype_attr.convert", f"b{bi}/op{oi}:{op.type}.{a.name}",
              _attr_edit(bi, oi, ai, fn))
    nonstr = [x for x in scalars if x[4].type != pb.STRING]
    for bi, oi, ai, op, a in p.sample("struct.retype_attr.string", nonstr, 30):
        def to_str(op, a):
            a.ClearField(_SCALAR[a.type])
            a.type, a.s = pb.STRING, "1"
        p.add("struct.retype_attr.string", f"b{bi}/op{oi}:{op.type}.{a.name}",
              _attr_edit(bi, oi, ai, to_str))
    for bi, oi, ai, op, a in p.sample("struct.attr_no_payload", scalars, None):
        p.add("struct.attr_no_payload", f"b{bi}/op{oi}:{op.type}.{a.name}",
              _attr_edit(bi, oi, ai, lambda op, a: a.ClearField(_SCALAR[a.type])))


def _op_edit(bi, oi, fn):
    def edit(d):
        fn(d.blocks[bi], d.blocks[bi].ops[oi])
    return edit


def _set_col(fn):
    def edit(block, op):
        a = next(a for a in op.attrs if a.name == "col")
        fn(a)
    return edit


def _rename_arg(slots, si, k):
    def edit(block, op):
        getattr(op, slots)[si].arguments[k] = MISSING_VAR
    return edit


def _ops_and_feeds(p, desc):
    ops = _ops(desc)
    real = [(bi, oi, op) for bi, oi, op in ops if op.type not in HOLDERS]
    for bi, oi, op in p.sample("struct.unknown_op", real, None):
        p.add("struct.unknown_op", f"b{bi}/op{oi}:{op.type}", _op_edit(
            bi, oi, lambda b, op: setattr(op, "type", UNKNOWN_OP)))
    for kind in HOLDERS:
        items = [(bi, oi, op) for bi, oi, op in ops if op.type == kind]
        n = len(items)
        cols = [next(a.i for a in op.attrs if a.name == "col") for _, _, op in items]
        for (bi, oi, op), col in zip(items, cols):
            tag = f"b{bi}/op{oi}"
            # without the last fetch the model is valid, with one output fewer
            change = "value" if kind == "fetch" and n > 1 and col == max(cols) else "never"
            p.add(f"struct.del_{kind}", tag,
                  lambda d, bi=bi, oi=oi: d.blocks[bi].ops.__delitem__(oi), change)
            for label, fn in (("n", lambda a, n=n: setattr(a, "i", n)),
                              ("-1", lambda a: setattr(a, "i", -1)),
                              ("big", lambda a: setattr(a, "i", 1 << 30))):
                p.add(f"struct.{kind}_col", f"{tag}/col={label}", _op_edit(bi, oi, _set_col(fn)))
            p.add(f"struct.{kind}_col", f"{tag}/col=dropped", _op_edit(bi, oi, _drop_col))
        if n > 1:
            (bi, oi, _), (_, oj, _) = items[0], items[1]
            p.add(f"struct.{kind}_col", f"b{bi}/op{oi}/col=dup", lambda d, bi=bi, oi=oi, oj=oj: [
                a for a in d.blocks[bi].ops[oi].attrs if a.name == "col"][0].__setattr__(
                    "i", [a for a in d.blocks[bi].ops[oj].attrs if a.name == "col"][0].i))
        if n:
            p.add(f"struct.del_{kind}", "all", lambda d, kind=kind: _delete_ops(d, kind))
    for bi, oi, op in p.sample("struct.remove_op", real, None):
        p.add("struct.remove_op", f"b{bi}/op{oi}:{op.type}",
              lambda d, bi=bi, oi=oi: d.blocks[bi].ops.__delitem__(oi), "wellformed")
    pairs = [(bi, oi, op) for bi, oi, op in real if oi + 1 < len(desc.blocks[bi].ops)]
    for bi, oi, op in p.sample("struct.swap_ops", pairs, None):
        p.add("struct.swap_ops", f"b{bi}/op{oi}<>op{oi + 1}", lambda d, bi=bi, oi=oi: _swap_ops(
            d.blocks[bi], oi), "wellformed")
    args = [(bi, oi, op, slots, si, k) for bi, oi, op in real
            for slots in ("inputs", "outputs") for si, s in enumerate(getattr(op, slots))
            for k in range(len(s.arguments))]
    for bi, oi, op, slots, si, k in p.sample("struct.missing_var", args, None):
        s = getattr(op, slots)[si]
        p.add(f"struct.missing_var.{slots[:-1]}", f"b{bi}/op{oi}:{op.type}.{s.parameter}[{k}]",
              _op_edit(bi, oi, _rename_arg(slots, si, k)))
    slots = [(bi, oi, op, si) for bi, oi, op in real for si, s in enumerate(op.inputs)
             if s.arguments]
    for bi, oi, op, si in p.sample("struct.slot", slots, None):
        tag = f"b{bi}/op{oi}:{op.type}.{op.inputs[si].parameter}"
        # an optional input left out is another valid op (layer_norm without Scale)
        change = "value" if dispensable_input(op.type, op.inputs[si].parameter) else "never"
        p.add("struct.slot.drop", tag, _op_edit(bi, oi, lambda b, op, si=si:
                                                op.inputs.__delitem__(si)), change)
        p.add("struct.slot.empty", tag, _op_edit(
            bi, oi, lambda b, op, si=si: op.inputs[si].ClearField("arguments")), change)
        p.add("struct.slot.extra_arg", tag, _op_edit(
            bi, oi, lambda b, op, si=si: op.inputs[si].arguments.append(
                op.inputs[si].arguments[0])))
    outs = [(bi, oi, op, si) for bi, oi, op in real for si, s in enumerate(op.outputs)
            if s.arguments]
    for bi, oi, op, si in p.sample("struct.slot.drop_output", outs, None):
        p.add("struct.slot.drop_output", f"b{bi}/op{oi}:{op.type}.{op.outputs[si].parameter}",
              _op_edit(bi, oi, lambda b, op, si=si: op.outputs.__delitem__(si)))


def _drop_col(block, op):
    del op.attrs[[a.name for a in op.attrs].index("col")]


def _delete_ops(d, kind):
    ops = d.blocks[0].ops
    for i in range(len(ops) - 1, -1, -1):
        if ops[i].type == kind:
            del ops[i]


def _swap_ops(block, i):
    a, b = pb.OpDesc(), pb.OpDesc()
    a.CopyFrom(block.ops[i])
    b.CopyFrom(block.ops[i + 1])
    block.ops[i].CopyFrom(b)
    block.ops[i + 1].CopyFrom(a)


def _blocks(p, desc, kinds):
    nb = len(desc.blocks)
    subs = [(bi, oi, op, ai) for bi, oi, op in _ops(desc) for ai, a in enumerate(op.attrs)
            if a.type == pb.BLOCK]
    for bi, oi, op, ai in subs:
        own = op.attrs[ai].block_idx
        targets = {"nblocks": nb, "-1": -1, "0": 0, "self": bi, "huge": 1 << 30}
        others = [k for k in range(1, nb) if k != own and k != bi]
        if others:
            targets["other"] = others[0]
        for label, v in targets.items():
            p.add("struct.sub_block", f"b{bi}/op{oi}:{op.type}={label}", _attr_edit(
                bi, oi, ai, lambda op, a, v=v: setattr(a, "block_idx", v)))
    if nb > 1:
        p.add("struct.block", "drop_last", lambda d: d.blocks.__delitem__(nb - 1))
        p.add("struct.block", f"b{nb - 1}/parent=self",
              lambda d: setattr(d.blocks[nb - 1], "parent_idx", nb - 1))
        p.add("struct.block", f"b{nb - 1}/parent=99",
              lambda d: setattr(d.blocks[nb - 1], "parent_idx", 99))
        p.add("struct.block", "swap_1_last", lambda d: _swap_blocks(d, 1, nb - 1))
    p.add("struct.block", "b0/idx=1", lambda d: setattr(d.blocks[0], "idx", 1))
    p.add("struct.block", "b0/parent=0", lambda d: setattr(d.blocks[0], "parent_idx", 0))
    p.add("struct.block", "none", lambda d: d.ClearField("blocks"))
    p.add("valid.extra_block", f"b{nb}", lambda d: _extra_block(d), expect_same=True)
    # proto2 required fields left unset (Paddle refuses the whole file)
    b0 = desc.blocks[0]
    pi = next(i for i, v in enumerate(b0.vars) if v.persistable and _tensor(v) is not None)
    oi = next(i for i, op in enumerate(b0.ops) if op.type not in HOLDERS and op.attrs)
    req = {"BlockDesc.idx": lambda d: d.blocks[0].ClearField("idx"),
           "BlockDesc.parent_idx": lambda d: d.blocks[0].ClearField("parent_idx"),
           "VarDesc.type": lambda d: d.blocks[0].vars[pi].ClearField("type"),
           "VarDesc.name": lambda d: d.blocks[0].vars[pi].ClearField("name"),
           "TensorDesc.data_type": lambda d: _tensor(d.blocks[0].vars[pi]).ClearField(
               "data_type"),
           "OpDesc.type": lambda d: d.blocks[0].ops[oi].ClearField("type"),
           "OpDesc.Var.parameter": lambda d: d.blocks[0].ops[oi].inputs[0].ClearField(
               "parameter"),
           "Attr.type": lambda d: d.blocks[0].ops[oi].attrs[0].ClearField("type"),
           "Attr.name": lambda d: d.blocks[0].ops[oi].attrs[0].ClearField("name")}
    for label, fn in req.items():
        p.add("struct.required", label, fn)


def _swap_blocks(d, i, j):
    a, b = pb.BlockDesc(), pb.BlockDesc()
    a.CopyFrom(d.blocks[i])
    b.CopyFrom(d.blocks[j])
    d.blocks[i].CopyFrom(b)
    d.blocks[j].CopyFrom(a)


def _extra_block(d):
    b = d.blocks.add()
    b.idx, b.parent_idx = len(d.blocks) - 1, 0


def _valid(p, desc):
    """Variants of a valid file that Paddle loads unchanged (FORMAT.md §7.2)."""
    p.add("valid.no_version", "-", lambda d: d.ClearField("version"), expect_same=True)
    p.add("valid.no_op_version_map", "-", lambda d: d.ClearField("op_version_map"),
          expect_same=True)
    p.add("valid.reversed_vars", "-", lambda d: [b.vars.reverse() for b in d.blocks],
          expect_same=True)
    p.add("valid.reversed_attrs", "-", lambda d: [op.attrs.reverse() for _, _, op in _ops(d)],
          expect_same=True)
    p.add("valid.no_callstack", "-", lambda d: [
        op.attrs.__delitem__(i) for _, _, op in _ops(d)
        for i in reversed(range(len(op.attrs))) if op.attrs[i].name == "op_callstack"],
        expect_same=True)

    def extra_attr(d):
        for _, _, op in _ops(d):
            a = op.attrs.add()
            a.name, a.type, a.i = "sampan_fault_extra", pb.INT, 7
    p.add("valid.extra_attr", "-", extra_attr, expect_same=True)

    def extra_slot(d):
        for _, _, op in _ops(d):
            if op.type not in HOLDERS:
                op.inputs.add().parameter = "SampanFaultExtra"
    p.add("valid.extra_empty_slot", "-", extra_slot, expect_same=True)
    p.b.add("valid.packed_dims", "-", lambda: _packed_dims(p.b.data), expect_same=True)


def _packed_dims(data):
    """The same program with every ``dims`` list written packed (Paddle accepts it)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    fdp = descriptor_pb2.FileDescriptorProto()
    pb.DESCRIPTOR.CopyToProto(fdp)
    vartype = next(m for m in fdp.message_type if m.name == "VarType")
    tdesc = next(m for m in vartype.nested_type if m.name == "TensorDesc")
    next(f for f in tdesc.field if f.name == "dims").options.packed = True
    pool = descriptor_pool.DescriptorPool()      # private: the same names, packed dims
    pool.Add(fdp)
    cls = message_factory.GetMessageClass(
        pool.FindMessageTypeByName(pb.ProgramDesc.DESCRIPTOR.full_name))
    msg = cls()
    msg.ParseFromString(data)
    return msg.SerializeToString()
