"""``sampan_channel_shuffle_fuse_pass``: ShuffleNet's block tail, a channel
concat, the channel shuffle Paddle writes as three ops and the split of the
next block, becomes one ``sampan_concat_shuffle`` op (ops/defs/fused.py) that
writes each output once from the concat's inputs.

Before (ShuffleNetV2, every block; the split is missing before the last conv):

    t0 = concat([a, b], axis=1)                    # [N, C, H, W]: a copy
    t1 = reshape2(t0, [-1, g, C / g, H, W])        # a view
    t2 = transpose2(t1, [0, 2, 1, 3, 4])           # a view
    t3 = reshape2(t2, [-1, C, H, W])               # a copy (not contiguous)
    s0, s1 = split(t3, [C / 2, C / 2], axis=1)     # two copies

After:

    s0, s1 = sampan_concat_shuffle([a, b], group=g, sections=[C / 2, C / 2])

Three passes over the block's output become one (ShuffleNetV2 x1.0 at batch
16: concat, reshape2 and split took 11 of its 100-120 ms on one core).  The
intermediates must be read by the next op of the chain alone and not fetched;
the reshape2/transpose2 shapes must be exactly the shuffle's (channel axis 1,
known C, H, W), else the ops stay.  Outputs are bit for bit the unfused ones'
(copies only).
"""
from collections import Counter

from ..program.passes.graph import replace

__all__ = ["channel_shuffle_fuse", "FUSED_OP"]

FUSED_OP = "sampan_concat_shuffle"


def _single_reader(name, readers, uses, keep):
    """The one op reading ``name`` (nothing else reads it, it is not fetched), in
    the global block (the pass rewrites that block only), or None."""
    r = readers.get(name)
    return r if r is not None and uses[name] == 1 and name not in keep and \
        r.block is r.block.program.global_block() else None


def _unread(op, slot, uses, keep):
    """An optional output (reshape2/transpose2's XShape) nothing reads."""
    names = op.output(slot) if slot in op.output_names else []
    return all(uses[n] == 0 and n not in keep for n in names)


def _batch_ok(d, shape0):
    return d in (-1, 0) or (shape0 >= 0 and d == shape0)


def _match(concat, block, readers, uses, keep):
    """The chain's ops and the fused op's (group, outputs, sections), or None."""
    if concat.type != "concat" or concat.attr("axis") != 1 or \
            ("AxisTensor" in concat.input_names and concat.input("AxisTensor")):
        return None
    t0 = concat.output("Out")[0]
    shape = tuple(block._var_recursive(t0).shape)
    if len(shape) != 4 or min(shape[1:]) < 1:
        return None
    n, c, h, w = shape
    r1 = _single_reader(t0, readers, uses, keep)
    if r1 is None or r1.type != "reshape2" or _shape_inputs(r1):
        return None
    s1 = list(r1.attr("shape"))
    if len(s1) != 5 or not _batch_ok(s1[0], n) or s1[1] < 1 or s1[1] * s1[2] != c or \
            s1[3:] != [h, w] or not _unread(r1, "XShape", uses, keep):
        return None
    g = s1[1]
    tr = _single_reader(r1.output("Out")[0], readers, uses, keep)
    if tr is None or tr.type != "transpose2" or list(tr.attr("axis")) != [0, 2, 1, 3, 4] or \
            not _unread(tr, "XShape", uses, keep):
        return None
    r2 = _single_reader(tr.output("Out")[0], readers, uses, keep)
    if r2 is None or r2.type != "reshape2" or _shape_inputs(r2):
        return None
    s2 = list(r2.attr("shape"))
    if len(s2) != 4 or not _batch_ok(s2[0], n) or s2[1:] != [c, h, w] or \
            not _unread(r2, "XShape", uses, keep):
        return None
    ops, t3 = [concat, r1, tr, r2], r2.output("Out")[0]
    outputs, sections = [t3], [c]
    sp = _single_reader(t3, readers, uses, keep)
    if sp is not None and sp.type == "split" and sp.attr("axis") == 1 and \
            not any(sp.input(s) for s in ("AxisTensor", "SectionsTensorList")
                    if s in sp.input_names):
        outs = sp.output("Out")
        secs = [block._var_recursive(o).shape[1] for o in outs]
        if all(s >= 1 for s in secs) and sum(secs) == c:
            ops.append(sp)
            outputs, sections = outs, secs
    return ops, g, outputs, sections


def _shape_inputs(op):
    return any(op.input(s) for s in ("Shape", "ShapeTensor") if s in op.input_names)


def channel_shuffle_fuse(p, params, feeds, fetch_src):
    """Rewrite every such chain of ``p``'s global block; returns how many."""
    block = p.global_block()
    uses, readers = Counter(), {}
    for b in p.blocks:
        for op in b.ops:
            uses.update(op.input_arg_names)
            for name in op.input_arg_names:
                readers.setdefault(name, op)
    keep = set(fetch_src)
    found = [m for m in (_match(op, block, readers, uses, keep) for op in list(block.ops))
             if m is not None]
    for ops, g, outputs, sections in found:
        replace(block, ops, ops[0], FUSED_OP, {"X": ops[0].input("X")}, {"Out": outputs},
                {"group": g, "sections": sections})
    return len(found)
