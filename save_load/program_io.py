"""``.pdmodel`` files: reading a ProgramDesc strictly, writing one atomically, and
loading a model's parameters against its program.

Reading never trusts the bytes: a parse failure, a missing proto2 ``required``
field, a block with a wrong index or parent, a duplicate or untyped variable, an
op type sampan does not know (named, with the model's op list), a ``sub_block``
out of range, an op naming an undeclared variable, a missing required
attribute or input, or feed/fetch ops with a bad ``col`` each raise
``FormatError`` naming the file.  Attributes a file leaves out are completed
with the op's declared defaults (Paddle's loaders do the same), and numeric
attributes stored with a wider/narrower AttrType (LONG for INT ...) are
converted to the declared one.

``load_params`` reads a combined ``.pdiparams`` for a program: the names are
the program's persistable variables (feed/fetch holders excluded) in byte-wise
order (FORMAT.md §3), and every tensor must match its variable's dtype and shape.
"""
import os
from collections import Counter

import numpy as np

from ..ops import has_op
from ..ops.dtypes import ENUM_NAMES, ENUM_TO_NP
from ..program import attrs as A
from ..program.framework import Program
from ..program.proto import framework_pb2 as pb
from ..program.variable import tensor_desc
from . import pdiparams
from .atomic_set import reading
from .fileio import FormatError, atomic_open, describe, ensure_parent
from ..executor.plan import OP_RUNNERS

__all__ = ["UnknownOpError", "parse_program", "read_program", "program_bytes",
           "write_program", "persistable_names", "feed_fetch_targets", "load_params",
           "load_model", "PADDLE_VERSION", "OP_VERSIONS"]

VarType = pb.VarType
HOLDER_KINDS = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST)
_HOLDER_OPS = ("feed", "fetch", "fetch_v2")
PADDLE_VERSION = 2006002      # ProgramDesc.version written by Paddle 2.6.2
EMPTY_VAR = "@EMPTY@"

# The op-version registry of Paddle 2.6.2 as every export carries it (FORMAT.md §5.1).
OP_VERSIONS = dict(kv.split("=") for kv in """distribute_fpn_proposals=2 elementwise_add=1
elementwise_sub=1 send_and_recv=1 matrix_nms=1 lstsq=1 quantize=2 depthwise_conv2d_transpose=1
rank_attention=1 roi_pool=2 mish=1 generate_proposals_v2=1 flip=1 collect_fpn_proposals=1
fill_constant=2 cumsum=1 instance_norm=1 coalesce_tensor=2 for_pybind_test__=4 lamb=1 p_norm=1
momentum=1 cudnn_lstm=1 hard_shrink=1 transfer_layout=1 conv3d_transpose=1
fake_channel_wise_quantize_abs_max=1 conv2d_transpose=2 pixel_shuffle=1 gather=1 lookup_table=1
depthwise_conv2d=1 greater_equal=1 dequantize=1 generate_proposal_labels=2 conv2d=1 yolo_box=1
less_equal=1 linspace=1 roll=2 grid_sampler=1 affine_grid=1 allclose=2 conv3d=1 clip=1
roi_align=3 auc=1 elementwise_div=1 leaky_relu=1 trace=1 softplus=1 print=1
unique_consecutive=1 elementwise_mul=1 set_value=4 seed=1 requantize=1 less_than=1 data_norm=1
matmul=1 generate_proposals=2 elementwise_pow=1 lookup_table_v2=1 equal=1 greater_than=1
not_equal=1 moving_average_abs_max_scale=2 fake_channel_wise_dequantize_max_abs=2""".split())
OP_VERSIONS = {k: int(v) for k, v in OP_VERSIONS.items()}

# AttrTypes that hold the same kind of value: a file may use either (converted on load)
_COMPATIBLE = {frozenset(("INT", "LONG")), frozenset(("FLOAT", "FLOAT64")),
               frozenset(("INTS", "LONGS")), frozenset(("FLOATS", "FLOAT64S")),
               frozenset(("INT", "BOOLEAN")), frozenset(("FLOAT", "INT")),
               frozenset(("FLOAT", "LONG")), frozenset(("FLOATS", "INTS"))}
# (a value that does not fit the declared type, e.g. FLOAT 1.5 for INT, is still refused)


class UnknownOpError(FormatError):
    """A model uses an op type sampan has no declaration or runner for."""


# ----------------------------------------------------------------- reading
def read_program(path, check_ops=True):
    """The Program of a ``.pdmodel`` file, checked (see module docstring);
    ``check_ops=False`` accepts op types sampan does not know (for inspection)."""
    where = describe(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"model file {where} does not exist")
    with open(path, "rb") as fh:
        data = fh.read()
    return parse_program(data, where, check_ops)


def parse_program(data, source="<in-memory data>", check_ops=True):
    """The Program of serialized ProgramDesc bytes, checked; errors name ``source``."""
    where = describe(source)
    desc = pb.ProgramDesc()
    try:
        desc.ParseFromString(bytes(data))
    except Exception as exc:        # protobuf's DecodeError has no useful common base
        raise FormatError(f"{where}: not a ProgramDesc, the bytes are truncated or corrupt "
                          f"({type(exc).__name__}: {exc})") from None
    if not desc.IsInitialized():
        missing = desc.FindInitializationErrors()
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise FormatError(f"{where}: not a valid ProgramDesc, required field(s) "
                          f"{', '.join(missing[:3])}{more} missing (truncated or corrupt?)")
    _check_text(desc, where)
    _check_payloads(desc, where)
    _check_blocks(desc, where)
    try:
        program = Program._from_desc(desc)
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise FormatError(f"{where}: corrupt ProgramDesc ({type(exc).__name__}: {exc})") \
            from None
    if check_ops:
        _check_op_types(program, where)
    for block in program.blocks:
        for i, op in enumerate(block.ops):
            _check_op(program, block, i, op, where)
    _check_ownership(program, where)
    return program


def _check_ownership(program, where):
    """Blocks owned by ops (sub_block attributes) must not own each other in a cycle:
    running the program would recurse forever."""
    owns = {b.idx: {j for op in b.ops for j in op.sub_blocks()} for b in program.blocks}
    state = {}

    def visit(i):
        state[i] = 1
        for j in owns[i]:
            if state.get(j) == 1:
                raise FormatError(f"{where}: block {i} owns block {j}, which (indirectly) "
                                  f"owns block {i}: a cycle of sub-blocks")
            if j not in state:
                visit(j)
        state[i] = 2
    for i in owns:
        if i not in state:
            visit(i)


def _bad_text(values):
    return next((v for v in values if not isinstance(v, str)), None)


def _check_text(desc, where):
    """Every string field must be valid UTF-8 (the parser hands back bytes otherwise)."""
    for b in desc.blocks:
        bad = _bad_text(v.name for v in b.vars)
        for op in b.ops:
            bad = bad or _bad_text([op.type])
            for slot in list(op.inputs) + list(op.outputs):
                bad = bad or _bad_text([slot.parameter]) or _bad_text(slot.arguments)
            for a in op.attrs:
                bad = bad or _bad_text([a.name, a.s, a.var_name]) or _bad_text(a.strings) \
                    or _bad_text(a.vars_name)
        if bad is not None:
            raise FormatError(f"{where}: block {b.idx} holds a name or string that is not "
                              f"valid UTF-8 ({bytes(bad)[:40]!r}); the file is corrupt")
    bad = _bad_text(p.op_name for p in desc.op_version_map.pair)
    if bad is not None:
        raise FormatError(f"{where}: op_version_map holds invalid UTF-8 ({bytes(bad)[:40]!r})")


# scalar AttrTypes -> their payload field: proto2 reads an absent one as 0/""/false, which
# would silently run the op with another value (Paddle's writers always set it)
_SCALAR_PAYLOAD = {pb.INT: "i", pb.FLOAT: "f", pb.STRING: "s", pb.BOOLEAN: "b", pb.LONG: "l",
                   pb.FLOAT64: "float64", pb.BLOCK: "block_idx", pb.VAR: "var_name",
                   pb.SCALAR: "scalar"}


def _check_payloads(desc, where):
    for b in desc.blocks:
        for i, op in enumerate(b.ops):
            for a in op.attrs:
                field = _SCALAR_PAYLOAD.get(a.type)
                if field is not None and not a.HasField(field):
                    raise FormatError(f"{where}: op #{i} '{op.type}' (block {b.idx}): attribute "
                                      f"'{a.name}' is {pb.AttrType.Name(a.type)} but holds no "
                                      f"value (no '{field}' field; corrupt file?)")


def _check_blocks(desc, where):
    n = len(desc.blocks)
    if n == 0:
        raise FormatError(f"{where}: the ProgramDesc has no blocks (empty or not a model "
                          f"file)")
    for i, b in enumerate(desc.blocks):
        if b.idx != i:
            raise FormatError(f"{where}: block #{i} says its index is {b.idx}")
        if i == 0 and b.parent_idx != -1:
            raise FormatError(f"{where}: block 0 has parent {b.parent_idx}, expected -1")
        if i > 0 and not (0 <= b.parent_idx < n and b.parent_idx != i):
            raise FormatError(f"{where}: block {i} has parent index {b.parent_idx}, not a "
                              f"block of the program (0..{n - 1})")
        seen = set()
        for v in b.vars:
            if v.name in seen:
                raise FormatError(f"{where}: variable '{v.name}' is declared twice in block {i}")
            seen.add(v.name)
            _check_var(v, i, where)
    for i in range(1, n):           # parent chains must reach block 0
        j, steps = i, 0
        while j > 0:
            j, steps = desc.blocks[j].parent_idx, steps + 1
            if steps > n:
                raise FormatError(f"{where}: block {i}'s parent chain loops")


def _check_var(v, block_idx, where):
    kind = v.type.type
    td = tensor_desc(v)
    if td is None:
        return
    field = {VarType.LOD_TENSOR: "lod_tensor", VarType.LOD_TENSOR_ARRAY: "tensor_array",
             VarType.SELECTED_ROWS: "selected_rows"}[kind]
    if not v.type.HasField(field):
        raise FormatError(f"{where}: variable '{v.name}' (block {block_idx}) is a "
                          f"{VarType.Type.Name(kind)} without a tensor description (data type)")
    if td.data_type not in ENUM_NAMES:
        raise FormatError(f"{where}: variable '{v.name}' (block {block_idx}) has data type "
                          f"{td.data_type}, which is not a tensor element type")
    bad = [d for d in td.dims if d < -1]
    if bad and v.persistable:
        raise FormatError(f"{where}: variable '{v.name}' (block {block_idx}) has dims "
                          f"{list(td.dims)}; a size below -1 is invalid for a persistable "
                          f"variable (its data must have a known shape)")
    if bad:
        # Paddle writes a product of sizes with -1 in it for some outputs whose
        # size depends on the batch (instance_norm's SavedMean: -1 * C, e.g.
        # [-4]) and reads such files: the size is unknown, as -1 says
        for i, d in enumerate(td.dims):
            if d < -1:
                td.dims[i] = -1


def _known(op_type):
    return op_type in _HOLDER_OPS or has_op(op_type) or op_type in OP_RUNNERS


def _check_op_types(program, where):
    counts = Counter(op.type for b in program.blocks for op in b.ops)
    unknown = sorted(t for t in counts if not _known(t))
    if unknown:
        listing = ", ".join(f"{t} x{c}" for t, c in sorted(counts.items()))
        raise UnknownOpError(f"{where}: op type(s) {', '.join(repr(t) for t in unknown)} "
                             f"not known to sampan (no declaration or runner); the model's "
                             f"ops: {listing}")


def _check_op(program, block, i, op, where):
    at = f"{where}: op #{i} '{op.type}' (block {block.idx})"
    nblocks = len(program.blocks)
    for idx in op.sub_blocks():
        if not (0 < idx < nblocks) or idx == block.idx:
            raise FormatError(f"{at}: sub-block index {idx} is out of range (the program has "
                              f"blocks 0..{nblocks - 1})")

    holder = op.type in _HOLDER_OPS
    for kind, slots in (("input", op._inputs), ("output", op._outputs)):
        for slot, names in slots.items():
            for n in names:
                if n == EMPTY_VAR or block._find_var_recursive(n) is not None:
                    continue
                if holder and slot == ("X" if op.type == "feed" else "Out"):
                    continue        # a holder without a VarDesc is accepted (FORMAT.md §7.2)
                raise FormatError(f"{at}: {kind} {slot} names variable '{n}', which is not "
                                  f"declared in block {block.idx} or its parents")
    if holder:
        return
    od = op.opdef
    if od is None:
        return
    # control flow may list no variables (a branch that reads or returns nothing: FORMAT.md
    # 7.2 #44, #49); any other required slot must name its variable(s)
    for kind, slots, have in (("input", od.inputs, op._inputs),
                              ("output", od.outputs, op._outputs)):
        for s in slots:
            may_be_empty = (op.type, s.name) in _MAY_BE_EMPTY
            if not (s.dispensable or s.intermediate) and (
                    s.name not in have or not (have[s.name] or may_be_empty)):
                raise FormatError(f"{at}: required {kind} slot {s.name} is missing or empty")
    _complete_attrs(op, od, at)


_MAY_BE_EMPTY = {("conditional_block", "Input"), ("conditional_block", "Out"),
                 ("while", "X"), ("while", "Out")}


def _complete_attrs(op, od, at):
    changed = False
    for name, spec in od.attr_specs.items():
        if name not in op._attrs:
            if spec.required:
                raise FormatError(f"{at}: required attribute '{name}' is missing")
            value = spec.default
        else:
            have = op._types[name]
            if have == spec.type:
                continue
            if frozenset((have, spec.type)) not in _COMPATIBLE:
                raise FormatError(f"{at}: attribute '{name}' is stored as {have}, but the op "
                                  f"declares {spec.type}")
            value = op._attrs[name]
        try:
            op._attrs[name] = A.normalize(spec.type, value, f"{op.type}.{name}")
        except TypeError as exc:
            raise FormatError(f"{at}: {exc}") from None
        op._types[name] = spec.type
        changed = True
    if changed:
        op._sync_attrs()


# ----------------------------------------------------------------- feeds and fetches
def feed_fetch_targets(program, source="<program>", require=True):
    """``(feed names, fetch names)`` of an inference program, each ordered by ``col``.

    Checks Paddle's conventions: feed/fetch ops only in block 0, one variable each,
    an INT ``col`` and cols numbering 0..n-1 exactly once.  ``require``: at least one
    feed and one fetch op (an inference model)."""
    where = describe(source)
    found = {"feed": [], "fetch": []}
    for b in program.blocks:
        for i, op in enumerate(b.ops):
            kind = {"feed": "feed", "fetch": "fetch", "fetch_v2": "fetch"}.get(op.type)
            if kind is None:
                continue
            at = f"{where}: op #{i} '{op.type}' (block {b.idx})"
            if b.idx != 0:
                raise FormatError(f"{at}: feed/fetch ops belong in block 0")
            slot = "Out" if kind == "feed" else "X"
            names = op._inputs.get(slot) if kind == "fetch" else op._outputs.get(slot)
            if not names or len(names) != 1:
                raise FormatError(f"{at}: needs exactly one variable in {slot}, has "
                                  f"{names or []}")
            if not op.has_attr("col"):
                raise FormatError(f"{at}: has no 'col' attribute (the input/output position)")
            if op._types.get("col") not in ("INT", "LONG"):
                raise FormatError(f"{at}: 'col' is stored as {op._types.get('col')} "
                                  f"({op.attr('col')!r}), expected an INT position")
            found[kind].append((op.attr("col"), names[0], at))
    out = []
    for kind in ("feed", "fetch"):
        items = found[kind]
        if require and not items:
            raise FormatError(f"{where}: the program has no {kind} ops, so it is not an "
                              f"inference model (save it with save_inference_model or "
                              f"jit.save)")
        cols = sorted(c for c, _, _ in items)
        for c, _, at in items:
            if not (0 <= c < len(items)):
                raise FormatError(f"{at}: col {c} is out of range (the model has "
                                  f"{len(items)} {kind} ops, cols 0..{len(items) - 1})")
        if cols != list(range(len(items))):
            dup = [c for c, k in Counter(cols).items() if k > 1]
            raise FormatError(f"{where}: {kind} ops repeat col {dup[0] if dup else cols}")
        out.append(tuple(n for _, n, _ in sorted(items)))
    if require:
        _check_dataflow(program, where)
    return out[0], out[1]


_IMPLICIT = HOLDER_KINDS + (VarType.LOD_TENSOR_ARRAY, VarType.STEP_SCOPES)
_LOOPS = ("while", "conditional_block")


def _check_dataflow(program, where):
    """An inference program reads nothing before it is written: every op input is a feed
    result, a parameter, a tensor array / step scope (created empty), or written by an
    earlier op (of this block or, before the owning op, of an enclosing one).  A ``while`` /
    ``conditional_block`` writes its ``Out`` inside its sub-block, and a ``while`` body
    updates its condition (else the loop could never end).  Otherwise running would read
    unset values (a wrong result) or loop forever."""
    implicit = {v.name for b in program.blocks for v in b.vars.values()
                if v.persistable or v.type in _IMPLICIT}
    written = {}

    def writes(idx):
        if idx not in written:
            written[idx] = set()
            for op in program.blocks[idx].ops:
                written[idx].update(op.output_arg_names)
                for k in op.sub_blocks():
                    written[idx] |= writes(k)
        return written[idx]

    def walk(block, defined):
        for i, op in enumerate(block.ops):
            at = f"{where}: op #{i} '{op.type}' (block {block.idx})"
            if op.type != "feed":         # (a fetch reads its X; the holders are implicit)
                for slot, names in op._inputs.items():
                    if op.type in _HOLDER_OPS and slot != "X":
                        continue
                    for n in names:
                        if n != EMPTY_VAR and n not in defined and n not in implicit:
                            raise FormatError(f"{at} reads '{n}' ({slot}) before anything "
                                              f"writes it: not a feed, a parameter or an "
                                              f"earlier result")
            for k in op.sub_blocks():
                walk(program.blocks[k], set(defined))
                if op.type in _LOOPS:
                    lost = [n for n in op._outputs.get("Out", ()) if n not in writes(k)]
                    if lost:
                        raise FormatError(f"{at}: output(s) {lost} are not written in its "
                                          f"block {k}")
                if op.type == "while":
                    for n in op._inputs.get("Condition", ()):
                        if n not in writes(k):
                            raise FormatError(f"{at}: its body (block {k}) never updates the "
                                              f"condition '{n}', so the loop could not end")
            for names in op._outputs.values():
                defined.update(names)
    walk(program.global_block(), set())


# ----------------------------------------------------------------- writing
def program_bytes(program, version=PADDLE_VERSION, op_versions=True):
    """The serialized ProgramDesc (``version`` and Paddle's op-version map set on a copy)."""
    desc = pb.ProgramDesc()
    desc.CopyFrom(program.desc)
    if version is not None:
        desc.version.version = version
    if op_versions:
        del desc.op_version_map.pair[:]
        for name, ver in OP_VERSIONS.items():
            pair = desc.op_version_map.pair.add()
            pair.op_name = name
            pair.op_version.version = ver
    if not desc.IsInitialized():
        raise ValueError(f"cannot save the program: required field(s) "
                         f"{desc.FindInitializationErrors()[:3]} are not set")
    return desc.SerializeToString()


def write_program(path, program_or_bytes):
    """Write a ``.pdmodel`` atomically (a temp file renamed into place)."""
    data = program_or_bytes if isinstance(program_or_bytes, (bytes, bytearray)) \
        else program_bytes(program_or_bytes)
    ensure_parent(path)
    with atomic_open(path) as fh:
        fh.write(data)


# ----------------------------------------------------------------- parameters
def persistable_names(program):
    """Sorted (byte-wise) names of the persistable tensors a ``.pdiparams`` holds."""
    names = set()
    for b in program.blocks:
        for v in b.vars.values():
            if v.persistable and v.type not in HOLDER_KINDS:
                names.add(v.name)
    return sorted(names)


def _persistable_vars(program):
    found = {}
    for b in program.blocks:
        for v in b.vars.values():
            if v.persistable and v.type not in HOLDER_KINDS:
                found.setdefault(v.name, v)
    return found


def load_params(program, params_path, model_source="<program>"):
    """{name: ndarray} of the program's persistables read from ``params_path``.

    Strict: the file must hold exactly those tensors (sorted by name), each with its
    variable's dtype and shape.  No persistables and no file (or ``""``/None) is fine."""
    pvars = _persistable_vars(program)
    names = sorted(pvars)
    if isinstance(params_path, (bytes, bytearray, memoryview)) and len(params_path):
        if not names:
            raise FormatError("<params bytes>: the program has no persistable variables, "
                              f"but {len(params_path)} params bytes were given")
        arrays = pdiparams.load_pdiparams(bytes(params_path), names)
        for name, arr in arrays.items():
            _check_param(pvars[name], arr, "<params bytes>")
        return arrays
    if isinstance(params_path, (bytes, bytearray, memoryview)):
        params_path = None
    if not params_path or not os.path.isfile(params_path):
        if not names:
            return {}
        shown = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
        raise FileNotFoundError(
            f"{describe(model_source)} needs {len(names)} persistable tensor(s) ({shown}) but "
            f"the params file {params_path or '(none given)'} does not exist")
    if not names:
        if os.path.getsize(params_path) == 0:
            return {}
        raise FormatError(f"{describe(params_path)}: the program has no persistable "
                          f"variables, but the params file holds "
                          f"{os.path.getsize(params_path)} bytes")
    arrays = pdiparams.load_pdiparams(params_path, names)
    for name, arr in arrays.items():
        _check_param(pvars[name], arr, params_path)
    return arrays


def _check_param(var, arr, params_path):
    td = tensor_desc(var.desc)
    where = describe(params_path)
    if td is None:
        raise FormatError(f"{where}: variable '{var.name}' is a "
                          f"{VarType.Type.Name(var.type)}, not a tensor, but the file holds "
                          f"a tensor for it")
    want = ENUM_TO_NP.get(td.data_type)
    if want is not None and arr.dtype != want:
        raise FormatError(f"{where}: tensor '{var.name}' holds {arr.dtype} data, its variable "
                          f"is {want}")
    dims = list(td.dims)
    if len(dims) != arr.ndim or any(d != -1 and d != s for d, s in zip(dims, arr.shape)):
        want_b = int(np.prod([d for d in dims if d > 0])) * arr.dtype.itemsize
        raise FormatError(f"{where}: tensor '{var.name}' has shape {list(arr.shape)} "
                          f"({arr.nbytes} bytes), its variable is declared {dims} "
                          f"({want_b} bytes)")


def model_paths(path_prefix, model_filename=None, params_filename=None):
    """(model path, params path) for a path prefix, a model directory, or explicit files."""
    if model_filename is not None or params_filename is not None:
        folder = path_prefix or ""      # Paddle's legacy form: a folder and two file names

        def pick(name, suffix):
            with_suffix = os.path.join(folder, name + suffix)
            return with_suffix if os.path.isfile(with_suffix) else os.path.join(folder, name)
        model = pick(model_filename, ".pdmodel") if model_filename else \
            os.path.join(folder, "__model__")
        params = pick(params_filename, ".pdiparams") if params_filename else None
        return model, params
    if os.path.isdir(path_prefix):
        found = sorted(f for f in os.listdir(path_prefix) if f.endswith(".pdmodel"))
        if len(found) == 1:
            base = os.path.join(path_prefix, found[0][:-len(".pdmodel")])
            return base + ".pdmodel", base + ".pdiparams"
        if os.path.isfile(os.path.join(path_prefix, "__model__")):
            return os.path.join(path_prefix, "__model__"), \
                os.path.join(path_prefix, "__params__")
        raise ValueError(f"{path_prefix} is a directory holding {len(found)} .pdmodel files; "
                         f"pass the model's path prefix instead")
    for suffix in (".pdmodel", ".pdiparams"):
        if path_prefix.endswith(suffix):
            path_prefix = path_prefix[:-len(suffix)]
    return path_prefix + ".pdmodel", path_prefix + ".pdiparams"


def load_model(model_path, params_path=None):
    """(program, {name: ndarray}) of a model file and its params file, both checked."""
    with reading(model_path, params_path):
        program = read_program(model_path)
        return program, load_params(program, params_path, model_path)
