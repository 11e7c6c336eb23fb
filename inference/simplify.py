"""Inference-only simplifications of a loaded program (Paddle Inference's
``is_test_pass``, ``simplify_with_basic_ops_pass``, ``delete_dropout_op_pass``
and dead-code removal):

- ``is_test_pass``: every op with an ``is_test`` attribute gets it true (a
  model saved from a Layer still in training mode runs as Paddle's predictor
  runs it: dropout off, batch_norm on its running statistics);
- ``delete_dropout_op_pass``: inference dropout is the identity
  (``upscale_in_train``) or a scale by ``1 - p`` (``downgrade_in_infer``): the
  first is removed (its readers read its input), the second becomes ``scale``;
  ``scale(1, bias 0)`` copies anywhere are removed the same way;
- ``dead_code_elimination``: ops none of whose outputs is read (by any op of
  any block) or fetched are dropped, repeatedly, except ops with effects
  (feed/fetch, print, assert, save, ops with sub-blocks).

Removing an op renames its output to its input in every later reader, never
when the output is fetched, a feed, a parameter, or written again later.
"""
from collections import Counter

from ..program.passes.graph import remove_ops

__all__ = ["is_test_pass", "delete_dropout_op_pass", "dead_code_elimination"]

_EFFECTS = frozenset(("feed", "fetch", "fetch_v2", "print", "assert", "save",
                      "save_combine", "while", "conditional_block", "recurrent", "pylayer"))


def is_test_pass(p, params, feeds, fetch_src):
    n = 0
    for b in p.blocks:
        for op in b.ops:
            if op.has_attr("is_test") and not op.attr("is_test"):
                op._set_attr("is_test", True)
                n += 1
    return n


def _identity(op):
    """The input an op passes through unchanged at inference (None if any)."""
    if op.type == "dropout":
        if op.attr("dropout_implementation") == "upscale_in_train" or \
                op.attr("dropout_prob") == 0.0:
            return op.input("X")[0]
    if op.type == "scale" and not op.input("ScaleTensor") and op.attr("scale") == 1.0 \
            and op.attr("bias") == 0.0:
        return op.input("X")[0]
    return None


def delete_dropout_op_pass(p, params, feeds, fetch_src):
    block = p.global_block()
    keep = set(fetch_src) | set(feeds) | set(params)
    written = Counter(n for b in p.blocks for op in b.ops for n in op.output_arg_names)
    drop, n = set(), 0
    for op in list(block.ops):
        if op.type == "dropout" and op.attr("dropout_implementation") == "downgrade_in_infer" \
                and op.attr("dropout_prob") != 0.0:
            i = next(k for k, o in enumerate(block.ops) if o is op)
            block._insert_op(i, "scale", inputs={"X": op.input("X")},
                             outputs={"Out": op.output("Out")},
                             attrs={"scale": 1.0 - op.attr("dropout_prob"), "bias": 0.0,
                                    "bias_after_scale": True})
            drop.add(id(op))
            n += 1
            continue
        src = _identity(op)
        out = op.output("Out")[0] if src is not None else None
        if src is None or out in keep or written[out] != 1 or src in fetch_src:
            continue
        for b in p.blocks:
            for reader in b.ops:
                if out in reader.input_arg_names:
                    reader._rename_input(out, src)
        drop.add(id(op))
        n += 1
    remove_ops(block, drop)
    return n


def dead_code_elimination(p, params, feeds, fetch_src):
    block = p.global_block()
    keep = set(fetch_src)
    total = 0
    while True:
        read = Counter(n for b in p.blocks for op in b.ops for n in op.input_arg_names)
        dead = {id(op) for op in block.ops
                if op.type not in _EFFECTS and not op.has_attr("sub_block")
                and op.output_arg_names
                and not any(read[n] or n in keep for n in op.output_arg_names)}
        if not dead:
            return total
        remove_ops(block, dead)
        total += len(dead)
