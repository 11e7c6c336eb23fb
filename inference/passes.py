"""Graph passes the predictor runs on its private copy of a model, in the spirit
of Paddle Inference's IR passes.  Each leaves every output number identical (the
same numpy calls run, some of them in place on buffers nothing else sees).

- ``identity_scale_clean``: drop the ``scale(1.0, bias 0)`` copies savers put
  before every output (``save_infer_model/scale_<k>``); the output reads the
  scaled variable itself (the predictor still reports Paddle's output names).
- ``fc_fuse``: ``matmul_v2(x, W)`` + ``elementwise_add(·, b)`` [+ ``relu``] with a
  2-D weight and 1-D bias (both parameters) and intermediates used once becomes
  one ``sampan_fc`` op: ``out = x @ W; out += b; max(out, 0, out=out)`` (Paddle
  fuses the same pattern into its ``fc`` op).  ``sampan_fc`` exists only in
  predictor programs (never saved); it is declared like every op
  (ops/defs/fused.py) with its kernel in kernels/cpu/fused.py, so a pass writes
  only ops the registry knows.
"""
from collections import Counter

__all__ = ["PASSES", "optimize", "FC_OP"]

FC_OP = "sampan_fc"


def optimize(program, params, feeds, fetches, skip=()):
    """(optimized copy of ``program``, names to fetch for ``fetches`` in order)."""
    p = program.clone()
    fetch_src = list(fetches)
    for name, fn in PASSES.items():
        if name not in skip:
            fetch_src = fn(p, params, set(feeds), fetch_src)
    return p, fetch_src


def _uses(program):
    """How many times each variable name is read, over every block."""
    c = Counter()
    for b in program.blocks:
        for op in b.ops:
            c.update(op.input_arg_names)
    return c


def identity_scale_clean(p, params, feeds, fetch_src):
    block = p.global_block()
    uses = _uses(p)
    producer = {n: op for op in block.ops for n in op.output_arg_names}
    out = list(fetch_src)
    drop = set()
    for k, name in enumerate(fetch_src):
        op = producer.get(name)
        if op is None or op.type != "scale" or op.input("ScaleTensor"):
            continue
        if op.attr("scale") != 1.0 or op.attr("bias") != 0.0:
            continue
        src = op.input("X")[0]
        # the output must be read by the fetch alone; the source must not be an input
        # or a parameter (the copy is what keeps callers off those buffers)
        if uses[name] > (1 if _fetched_by_op(block, name) else 0) or src in feeds \
                or src in params or src in out:
            continue
        out[k] = src
        drop.add(id(op))
    _remove(block, drop)
    return out


def _fetched_by_op(block, name):
    return any(op.type in ("fetch", "fetch_v2") and op.input("X") == [name] for op in block.ops)


def fc_fuse(p, params, feeds, fetch_src):
    block = p.global_block()
    uses = _uses(p)
    keep_names = set(fetch_src)
    consumer = {}
    for op in block.ops:
        for n in op.input_arg_names:
            consumer.setdefault(n, op)
    ops = list(block.ops)
    fused = []
    for op in ops:
        m = _match_fc(op, consumer, uses, keep_names, params)
        if m is not None:
            fused.append(m)
    for mm, add, act, x, w, b, out in fused:
        idx = next(i for i, o in enumerate(block.ops) if o is mm)
        block._insert_op(idx, FC_OP, inputs={"Input": [x], "W": [w], "Bias": [b]},
                         outputs={"Out": [out]},
                         attrs={"activation_type": act.type if act is not None else ""})
    _remove(block, {id(o) for m in fused for o in m[:3] if o is not None})
    return fetch_src


def _only_use(name, uses, keep_names):
    return uses[name] == 1 and name not in keep_names


def _match_fc(mm, consumer, uses, keep_names, params):
    if mm.type != "matmul_v2" or mm.attr("trans_x") or mm.attr("trans_y"):
        return None
    x, w = mm.input("X")[0], mm.input("Y")[0]
    t = mm.output("Out")[0]
    wa = params.get(w)
    if wa is None or wa.ndim != 2 or mm.block._var_recursive(x).ndim < 2:
        return None
    add = consumer.get(t)
    if add is None or add.type != "elementwise_add" or add.input("X") != [t] \
            or not _only_use(t, uses, keep_names):
        return None
    b = add.input("Y")[0]
    ba = params.get(b)
    if ba is None or ba.shape != (wa.shape[1],) or ba.dtype != wa.dtype:
        return None
    if add.attr("axis") not in (-1, mm.block._var_recursive(x).ndim - 1):
        return None
    out = add.output("Out")[0]
    act = consumer.get(out)
    if act is not None and act.type == "relu" and _only_use(out, uses, keep_names):
        out = act.output("Out")[0]
    else:
        act = None
    return mm, add, act, x, w, b, out


def _remove(block, ids):
    for i in range(len(block.ops) - 1, -1, -1):
        if id(block.ops[i]) in ids:
            block._remove_op(i)


PASSES = {"identity_scale_clean": identity_scale_clean, "fc_fuse": fc_fuse}
