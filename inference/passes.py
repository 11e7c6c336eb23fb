"""Graph passes the predictor runs on its private copy of a model, in the spirit
of Paddle Inference's IR passes, under Paddle's pass names (``PASSES``, in the
order they run; ``Config.delete_pass(name)`` skips one, ``pass_builder()``
lists them, ``Predictor.explain()`` tells what each changed).  Each leaves the
outputs equal to the unoptimized program's: bit for bit, except the weight
folds (float32 rounding, tests/inference/test_conv_bn_fold.py) and numba's
fused kernels (rounding).

- ``is_test_pass``, ``delete_dropout_op_pass``, ``dead_code_elimination_pass``:
  inference/simplify.py.
- ``identity_scale_op_clean_pass``: drop the ``scale(1.0, bias 0)`` copies savers put
  before every output (``save_infer_model/scale_<k>``); the output reads the
  scaled variable itself (the predictor still reports Paddle's output names).
- ``conv_elementwise_add2_act_fuse_pass``: conv2d + bias add + residual add
  (+ activation) -> ``sampan_conv2d_fusion`` with ``ResidualData``;
  ``conv_elementwise_add_act_fuse_pass``: conv2d + bias add + activation ->
  ``sampan_conv2d_fusion``; ``sampan_conv_act_fuse_pass``: a conv2d left without
  a bias add (+ activation) -> ``sampan_conv2d_fusion`` without Bias (all three
  inference/conv_bias_act.py).
- ``sampan_conv_winograd_pass``: those fused convs that are 3x3 or 5x5, stride 1
  and wide enough run as Winograd F(4x4, 3x3) or F(2x2, 5x5) from a filter
  transformed once (inference/winograd.py; equal to rounding, about 1e-5 of the
  output's scale).
- ``sampan_batch_norm_affine_pass``: the inference batch_norms left (no conv before
  them) become elementwise_mul + elementwise_add of per-channel parameters, the
  same numbers, which the elementwise fusion then compiles with what follows
  (inference/bn_affine.py).
- ``sampan_affine_conv_fuse_pass``: such an affine map (+ relu) read only by a
  1x1 fused conv becomes that conv's input map, applied per sample in cache
  (inference/affine_conv.py: DenseNet's BN-ReLU-conv).
- ``sampan_conv_pack_pass``: fused convs with small output maps (7x7, 14x14) and
  wide products (1x1 layers with many input channels, grouped layers with 16 or
  more channels per group, strided 3x3 ones) run on sampan's transposed GEMM
  kernels from a filter packed once (inference/conv_pack.py; equal to rounding).
- ``fc_fuse_pass``: ``matmul_v2(x, W)`` + ``elementwise_add(·, b)`` [+ ``relu``] with a
  2-D weight and 1-D bias (both parameters) and intermediates used once becomes
  one ``sampan_fc`` op: ``out = x @ W; out += b; max(out, 0, out=out)`` (Paddle
  fuses the same pattern into its ``fc`` op).  ``sampan_fc`` exists only in
  predictor programs (never saved); it is declared like every op
  (ops/defs/fused.py) with its kernel in kernels/cpu/fused.py, so a pass writes
  only ops the registry knows.
- ``sampan_fc_pack_pass``: a ``sampan_fc`` with a float32 weight of 64 KB or
  more becomes ``sampan_fc_packed``, its weight packed once for sampan's GEMM
  kernel (inference/fc_pack.py; equal to rounding); under 16 MB the plain
  weight stays beside it for products of a few rows, which BLAS runs faster.
- ``sampan_channel_shuffle_fuse_pass``: ShuffleNet's concat -> reshape2 ->
  transpose2 -> reshape2 (-> split) becomes one ``sampan_concat_shuffle`` op
  writing each output once (inference/channel_shuffle.py; bit for bit).
- ``constant_folding_pass``: ops whose inputs are all parameters run once at load
  time (inference/constant_fold.py).
- ``conv_bn_fuse_pass``: an inference batch_norm folded into the conv2d /
  depthwise_conv2d / conv2d_transpose before it (inference/conv_bn_fold.py).
- ``sampan_fuse_elementwise_pass``: trees of elementwise ops (a conv's or fc's bias add
  with its activation, GELU, softmax-free chains) become one
  ``sampan_fused_elementwise`` op compiled by numba (program/passes/
  fuse_elementwise.py; nothing changes without numba).  Fused numbers agree
  with the unfused ops to rounding, not bit for bit.
"""
from collections import Counter

from ..program.passes.fuse_elementwise import fuse_elementwise as _fuse_elementwise
from ..program.passes.graph import remove_ops

from .conv_bn_fold import conv_bn_fuse as _conv_bn_fuse
from .conv_bias_act import conv_bias_act_fuse as _conv_bias_act_fuse
from .constant_fold import constant_folding as _constant_folding
from .winograd import conv_winograd
from .conv_pack import conv_pack
from .fc_pack import fc_pack
from .bn_affine import batch_norm_affine
from .affine_conv import affine_conv_fuse
from .channel_shuffle import channel_shuffle_fuse
from .simplify import is_test_pass, delete_dropout_op_pass, dead_code_elimination

__all__ = ["PASSES", "optimize", "optimize_program", "describe", "FC_OP"]

FC_OP = "sampan_fc"


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
    remove_ops(block, drop)
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
    remove_ops(block, {id(o) for m in fused for o in m[:3] if o is not None})
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


def fuse_elementwise(p, params, feeds, fetch_src):
    _fuse_elementwise(p, keep=set(fetch_src) | set(feeds))
    return fetch_src


def _counting(fn):
    """A pass of the ``fn(p, params, feeds, fetch_src) -> count`` form as a
    registry entry (they leave the fetch targets as they are)."""
    def run(p, params, feeds, fetch_src):
        fn(p, params, feeds, fetch_src)
        return fetch_src
    run.__doc__ = fn.__doc__
    return run


def _conv_bias_act(p, params, feeds, fetch_src):
    _conv_bias_act_fuse(p, params, feeds, fetch_src, _uses(p))
    return fetch_src


def _conv_bias_residual_act(p, params, feeds, fetch_src):
    _conv_bias_act_fuse(p, params, feeds, fetch_src, _uses(p), mode="residual")
    return fetch_src


def _conv_act(p, params, feeds, fetch_src):
    _conv_bias_act_fuse(p, params, feeds, fetch_src, _uses(p), mode="plain")
    return fetch_src


def _bn_affine(p, params, feeds, fetch_src):
    batch_norm_affine(p, params, feeds, fetch_src, _uses(p))
    return fetch_src


def _affine_conv(p, params, feeds, fetch_src):
    affine_conv_fuse(p, params, feeds, fetch_src, _uses(p))
    return fetch_src


def _conv_bn(p, params, feeds, fetch_src):
    _conv_bn_fuse(p, params, feeds, fetch_src, _uses(p))
    return fetch_src


# Paddle Inference's names, in the order they run (Paddle's CPU pass order where
# it has the pass); sampan's own kernel fusion last but dead-code removal
PASSES = {
    "is_test_pass": _counting(is_test_pass),
    "delete_dropout_op_pass": _counting(delete_dropout_op_pass),
    "identity_scale_op_clean_pass": identity_scale_clean,
    "constant_folding_pass": _counting(_constant_folding),
    "conv_bn_fuse_pass": _conv_bn,
    "conv_elementwise_add2_act_fuse_pass": _conv_bias_residual_act,
    "conv_elementwise_add_act_fuse_pass": _conv_bias_act,
    "sampan_conv_act_fuse_pass": _conv_act,
    "sampan_conv_winograd_pass": _counting(conv_winograd),
    "sampan_batch_norm_affine_pass": _bn_affine,
    "sampan_affine_conv_fuse_pass": _affine_conv,
    "sampan_conv_pack_pass": _counting(conv_pack),
    "fc_fuse_pass": fc_fuse,
    "sampan_fc_pack_pass": _counting(fc_pack),
    "sampan_fuse_elementwise_pass": fuse_elementwise,
    "sampan_channel_shuffle_fuse_pass": _counting(channel_shuffle_fuse),
    "dead_code_elimination_pass": _counting(dead_code_elimination),
}


def optimize(program, params, feeds, fetches, skip=(), report=None):
    """(optimized copy of ``program``, names to fetch for ``fetches`` in order).
    ``params`` (name -> array) gains the parameters passes make (folded
    weights); ``report``, a list, gets one ``(pass, removed, added)`` per pass
    that changed the op list (Counters of op types)."""
    p = program.clone()         # (a skipped name sampan has no pass of changes nothing)
    fetch_src = list(fetches)
    for name, fn in PASSES.items():
        if name in skip:
            continue
        before = Counter(op.type for op in p.global_block().ops)
        fetch_src = fn(p, params, set(feeds), fetch_src)
        after = Counter(op.type for op in p.global_block().ops)
        if report is not None and before != after:
            report.append((name, before - after, after - before))
    return p, fetch_src


def describe(report):
    """The text of an ``optimize`` report: what each pass changed."""
    if not report:
        return "inference passes: nothing changed"
    lines = ["inference passes (op types removed -> added):"]
    for name, removed, added in report:
        r = ", ".join(f"{t} x{n}" for t, n in sorted(removed.items())) or "-"
        a = ", ".join(f"{t} x{n}" for t, n in sorted(added.items())) or "-"
        lines.append(f"  {name}: {r} -> {a}")
    return "\n".join(lines)


def optimize_program(program, feed_names, fetch_targets, scope=None, skip=()):
    """The inference passes for the Executor: ``program`` as
    ``static.load_inference_model`` returns it, optimized.  Its parameters are
    read from ``scope`` (default: the global scope, where the loader put them);
    the parameters the passes make (folded weights) are written there.  Returns
    ``(program, fetch_targets)`` to run with ``Executor.run`` (the fetch
    targets may be other variables than before: the passes drop copies)."""
    from ..executor import global_scope
    scope = scope if scope is not None else global_scope()
    block = program.global_block()
    params = {}
    for v in block.vars.values():
        if v.persistable and v.name not in ("feed", "fetch"):
            sv = scope.find_var(v.name)
            if sv is not None and sv.is_initialized():
                params[v.name] = sv.get()
    names = [t if isinstance(t, str) else t.name for t in fetch_targets]
    before = set(params)
    optimized, fetch_src = optimize(program, params, feed_names, names, skip=skip)
    for n in set(params) - before:
        scope.var(n).set(params[n])
    out = optimized.global_block()
    return optimized, [out.var(n) for n in fetch_src]
