"""``constant_folding``: every op whose inputs are all parameters (or values
folded before it) is run once, when the Predictor loads the model, and its
outputs become parameters (Paddle Inference's ``constant_folding_pass``).

Typical hits: the ``reshape2`` of each conv bias to ``[1, C, 1, 1]`` that
Paddle's ``Conv2D`` writes, ``fill_constant``/``assign_value`` constants and
arithmetic on them, casts of weights.  Not folded: ops with a sub-block,
random ops (their ``seed`` attribute), feed/fetch and the ops that write their
inputs in place.  All foldable ops run together, in program order, in one
executor run of a copy of the program reduced to them; an op the executor
cannot run there (a kernel error) leaves the model unchanged.
"""
from collections import Counter

from ..executor import Executor, Scope
from ..program.passes.graph import remove_ops

__all__ = ["constant_folding"]

_NEVER = frozenset(("feed", "fetch", "fetch_v2", "print", "assert", "save", "load",
                    "save_combine", "load_combine", "share_buffer", "memcpy",
                    "read_from_array", "write_to_array"))


def _foldable(op, const):
    if op.type in _NEVER or not op.output_arg_names:
        return False
    attrs = op.all_attrs()
    if "seed" in attrs or "sub_block" in attrs or "sub_blocks" in attrs:
        return False
    ins = op.input_arg_names
    if set(ins) & set(op.output_arg_names):        # in place (batch_norm's MeanOut ...)
        return False
    return all(n in const for n in ins)


def constant_folding(p, params, feeds, fetch_src):
    """Fold ``p``'s global block in place; returns the number of ops folded."""
    block = p.global_block()
    const = set(params)
    written = Counter(n for b in p.blocks for op in b.ops for n in op.output_arg_names)
    folded = []
    for op in block.ops:
        # (a value written again later, a loop's counter, is not a constant)
        if _foldable(op, const) and all(written[n] == 1 for n in op.output_arg_names):
            folded.append(op)
            const.update(op.output_arg_names)
    if not folded:
        return 0
    keep = {id(op) for op in folded}
    sub = p.clone()
    sb = sub.global_block()
    for i in range(len(sb.ops) - 1, -1, -1):
        if id(block.ops[i]) not in keep:
            sb._remove_op(i)
    outs = [n for op in folded for slot in op.output_names if slot != "XShape"
            for n in op.output(slot)]
    scope = Scope()
    for name in {n for op in folded for n in op.input_arg_names} & set(params):
        scope.var(name).set(params[name])
    try:
        values = Executor().run(sub, feed={}, fetch_list=outs, scope=scope)
    except Exception:           # leave the model as it is (the ops run as usual)
        return 0
    for name, value in zip(outs, values):
        v = block._find_var_recursive(name)
        if v is not None:
            v.persistable = True
        params[name] = value
    remove_ops(block, keep)
    return len(folded)
