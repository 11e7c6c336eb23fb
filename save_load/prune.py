"""Turning a program into an inference program, as Paddle's savers lay it out
(FORMAT.md §5): test mode, only the ops the fetch targets need, a ``scale(1.0)``
copy of every non-bool output named ``save_infer_model/scale_<k>.tmp_0``, one
``feed`` op per input (prepended, so they read in reverse ``col`` order) and one
``fetch`` op per output (appended), the ``feed``/``fetch`` holder variables
last in block 0, variables sorted by name, sub-blocks no kept op owns dropped
(the others renumbered; a ``pylayer`` keeps its forward block only), the outputs Paddle calls "extra" left off (``XShape`` of
``transpose2`` ..., ``clip_extra``), and the bookkeeping attributes every op carries.

The caller's program is never modified: everything happens on a copy.
"""
from ..program.framework import Program
from ..program.symbolic import copy_symbols
from ..program.proto import framework_pb2 as pb

__all__ = ["inference_program", "OUTPUT_PREFIX"]

VarType = pb.VarType
OUTPUT_PREFIX = "save_infer_model/scale_"
_HOLDER_OPS = ("feed", "fetch", "fetch_v2")
# what Paddle writes on every op of an inference export (FORMAT.md §5.4)
_BOOKKEEPING = (("op_role", 0), ("op_namescope", "/"), ("op_device", ""), ("op_role_var", []))
# outputs Paddle 2.6 declares "extra" (ops.json) and leaves off saved ops (FORMAT.md §5.6);
# the grad ops that read XShape get it back in jit.load's TranslatedLayer
_EXTRA_OUTPUTS = {"batch_norm": ("ReserveSpace",), "dropout": ("Mask",),
                  "flatten_contiguous_range": ("XShape",), "squeeze2": ("XShape",),
                  "transpose2": ("XShape",), "unsqueeze2": ("XShape",)}


def inference_program(program, feed_names, fetch_names, scale_outputs=True, clip_extra=True):
    """(inference Program, its fetch target names) for ``program`` (see module docstring).
    ``clip_extra``: leave off the outputs Paddle declares "extra" (``_EXTRA_OUTPUTS``).

    Raises ValueError when a fetch target needs a variable that is neither fed,
    persistable nor computed by the program."""
    feed_names, fetch_names = list(feed_names), list(fetch_names)
    _check_names(program, feed_names, fetch_names)
    p = program.clone(for_test=True)
    block = p.global_block()
    for i in range(len(block.ops) - 1, -1, -1):
        if block.ops[i].type in _HOLDER_OPS:
            block._remove_op(i)
    if scale_outputs:
        fetch_names = [_scaled(block, n, k) for k, n in enumerate(fetch_names)]
    _drop_backward_blocks(p)
    _prune(p, feed_names, fetch_names)
    for col, name in enumerate(feed_names):
        block._prepend_op("feed", inputs={"X": ["feed"]}, outputs={"Out": [name]},
                          attrs=dict(_BOOKKEEPING, col=col))
    for col, name in enumerate(fetch_names):
        block.append_op("fetch", inputs={"X": [name]}, outputs={"Out": ["fetch"]},
                        attrs=dict(_BOOKKEEPING, col=col))
    for b in p.blocks:
        for op in b.ops:
            for k, v in _BOOKKEEPING:
                if not op.has_attr(k):
                    op._set_attr(k, v)
    # symbolic dims (program/symbolic.py) are Python-side facts: onto the new program
    return copy_symbols(program, _normalized(p, clip_extra)), fetch_names


def _check_names(program, feed_names, fetch_names):
    block = program.global_block()
    if not fetch_names:
        raise ValueError("an inference model needs at least one fetch (output) variable")
    if len(set(feed_names)) != len(feed_names):
        raise ValueError(f"feed variables repeat a name: {feed_names}")
    for kind, names in (("feed", feed_names), ("fetch", fetch_names)):
        for n in names:
            if not block.has_var(n):
                raise ValueError(f"{kind} variable '{n}' is not a variable of the program's "
                                 f"global block")


def _scaled(block, name, k):
    """The name of the ``save_infer_model/scale_k`` copy of ``name`` (added now)."""
    var = block.var(name)
    if var.np_dtype is not None and var.np_dtype.kind == "b":
        return name                       # Paddle leaves bool outputs unscaled
    if name.startswith(OUTPUT_PREFIX):
        return name                       # re-saving a loaded model: already a copy
    j = 0
    while block.has_var(f"{OUTPUT_PREFIX}{k}.tmp_{j}"):
        j += 1
    out = block.create_var(name=f"{OUTPUT_PREFIX}{k}.tmp_{j}", shape=var.shape,
                           dtype=var.np_dtype, persistable=False)
    block.append_op("scale", inputs={"X": [name]}, outputs={"Out": [out.name]},
                    attrs={"scale": 1.0, "bias": 0.0, "bias_after_scale": True,
                           **dict(_BOOKKEEPING)})
    return out.name


def _sub_block_reads(program, op, seen=None):
    """Every variable name read by the ops of ``op``'s sub-blocks (recursively)."""
    seen = set() if seen is None else seen
    names = set()
    for idx in op.sub_blocks():
        if idx in seen or not (0 <= idx < len(program.blocks)):
            continue
        seen.add(idx)
        for sub in program.blocks[idx].ops:
            names.update(sub.input_arg_names)
            names.update(_sub_block_reads(program, sub, seen))
    return names


def _drop_backward_blocks(p):
    """A ``pylayer`` op keeps its forward block only (Paddle's normalize_program:
    the backward block is dropped with the other training parts)."""
    for b in p.blocks:
        for op in b.ops:
            if op.type == "pylayer":
                blocks = op._blocks_attr("blocks")
                if len(blocks) > 1:
                    op._set_attr("blocks", blocks[:1])


def _prune(p, feed_names, fetch_names):
    """Keep the block-0 ops the fetch targets need, stopping at feeds."""
    block = p.global_block()
    need, fed = set(fetch_names), set(feed_names)
    keep = []
    for op in reversed(block.ops):
        outs = set(op.output_arg_names)
        if not (outs & need):
            continue
        keep.append(op)
        need -= outs - set(op.input_arg_names)      # in-place ops keep needing their input
        need |= (set(op.input_arg_names) | _sub_block_reads(p, op)) - fed
    kept = {id(op) for op in keep}
    for i in range(len(block.ops) - 1, -1, -1):
        if id(block.ops[i]) not in kept:
            block._remove_op(i)
    written = {n for b in p.blocks for op in b.ops for n in op.output_arg_names}
    missing = sorted(n for n in need - written if block.has_var(n)
                     and not block.var(n).persistable)
    if missing:
        raise ValueError(f"the outputs {fetch_names} need variable(s) {missing}, which are "
                         f"neither fed ({feed_names}) nor computed by the program; add them "
                         f"to feed_vars")


def _normalized(p, clip_extra=True):
    """A fresh Program: unreachable sub-blocks dropped, blocks renumbered, extra
    outputs clipped, unused variables removed, variables sorted (holders last),
    parameter flags cleared."""
    src = p.desc
    order = [0]
    for i in order:                           # breadth-first over owned sub-blocks
        for op in p.blocks[i].ops:
            for j in op.sub_blocks():
                if j not in order:
                    order.append(j)
    order = [0] + sorted(order[1:])
    remap = {old: new for new, old in enumerate(order)}
    used = {"feed", "fetch"}
    for i in order:
        for op in p.blocks[i].ops:
            clipped = _EXTRA_OUTPUTS.get(op.type, ()) if clip_extra else ()
            used.update(op.input_arg_names)
            used.update(n for slot, names in op._outputs.items() if slot not in clipped
                        for n in names)
    desc = pb.ProgramDesc()
    for old in order:
        b_src = src.blocks[old]
        b = desc.blocks.add(idx=remap[old],
                            parent_idx=-1 if old == 0 else remap.get(b_src.parent_idx, 0))
        if b_src.HasField("forward_block_idx") and b_src.forward_block_idx in remap:
            b.forward_block_idx = remap[b_src.forward_block_idx]
        vars_ = sorted((v for v in b_src.vars if v.name in used and v.name not in
                        ("feed", "fetch")), key=lambda v: v.name.encode())
        for v in vars_:
            nv = b.vars.add()
            nv.CopyFrom(v)
            for flag in ("is_parameter", "stop_gradient", "need_check_feed"):
                nv.ClearField(flag)
        if old == 0:
            b.vars.add(name="feed", persistable=True).type.type = VarType.FEED_MINIBATCH
            b.vars.add(name="fetch", persistable=True).type.type = VarType.FETCH_LIST
        for op in b_src.ops:
            nop = b.ops.add()
            nop.CopyFrom(op)
            clipped = _EXTRA_OUTPUTS.get(op.type, ()) if clip_extra else ()
            if clipped:
                keep = [o for o in nop.outputs if o.parameter not in clipped]
                del nop.outputs[:]
                nop.outputs.extend(keep)
            for a in nop.attrs:
                if a.type == pb.AttrType.BLOCK:
                    a.block_idx = remap[a.block_idx]
                elif a.type == pb.AttrType.BLOCKS:
                    a.blocks_idx[:] = [remap[x] for x in a.blocks_idx]
    return Program._from_desc(desc)
