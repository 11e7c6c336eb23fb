"""``sampan_affine_conv_fuse_pass``: an inference batch_norm's affine map (as
``sampan_batch_norm_affine_pass`` leaves it: ``elementwise_mul`` by a
per-channel parameter, then ``elementwise_add`` of one) and an optional relu,
read only by a 1x1 ungrouped, unpadded, stride-1 fused convolution, become
that convolution's input map: ``InScale``, ``InShift`` and ``in_activation``
of ``sampan_conv2d_fusion`` (ops/defs/fused.py).  DenseNet runs every layer as
``conv1x1(relu(bn(concat)))``: the map's output, as large as the
concatenation it reads, was written by one op and read back by the next; the
kernel now maps each sample into scratch right before its GEMM
(kernels/cpu/conv_prologue.py), the unfused ops' numbers.

The fused op stands where the conv stood; no op between the map and the conv
may write the map's input.
"""
from ..program.passes.graph import replace

from .conv_bias_act import FUSED_CONV

__all__ = ["affine_conv_fuse"]


def _producer_map(block):
    return {n: op for op in block.ops for n in op.output_arg_names}


def _param_channels(params, name, c, dtype):
    v = params.get(name)
    return v is not None and v.ndim == 1 and v.shape[0] == c and v.dtype == dtype


def _only(name, uses, keep):
    return uses[name] == 1 and name not in keep


def _one_by_one(conv, params):
    if conv.type != FUSED_CONV:
        return None
    w = params.get(conv.input("Filter")[0])
    if w is None or w.ndim != 4 or w.shape[2:] != (1, 1):
        return None
    if conv.attr("groups") != 1 or any(s != 1 for s in conv.attr("strides")) or \
            any(p != 0 for p in conv.attr("paddings")) or \
            conv.attr("padding_algorithm") not in ("EXPLICIT", "VALID") or \
            ("InScale" in conv.input_names and conv.input("InScale")):
        return None
    return w


def _match(conv, producer, params, uses, keep):
    w = _one_by_one(conv, params)
    if w is None:
        return None
    inp = conv.input("Input")[0]
    relu = producer.get(inp)
    if relu is None or not _only(inp, uses, keep):
        return None
    add = relu
    if relu.type == "relu":
        a = relu.input("X")[0]
        add = producer.get(a)
        if add is None or not _only(a, uses, keep):
            return None
    else:
        relu = None
    if add.type != "elementwise_add" or add.attr("axis") != 1:
        return None
    m = add.input("X")[0]
    mul = producer.get(m)
    if mul is None or mul.type != "elementwise_mul" or mul.attr("axis") != 1 or \
            not _only(m, uses, keep):
        return None
    c, dtype = w.shape[1], w.dtype
    scale, shift = mul.input("Y")[0], add.input("Y")[0]
    if not (_param_channels(params, scale, c, dtype) and _param_channels(params, shift, c, dtype)):
        return None
    x0 = mul.input("X")[0]
    ops = conv.block.ops
    i, j = ops.index(mul), ops.index(conv)
    if any(x0 in op.output_arg_names for op in ops[i + 1:j]):
        return None
    return conv, mul, add, relu, x0, scale, shift


def affine_conv_fuse(p, params, feeds, fetch_src, uses):
    """Fuse every match in ``p``'s global block; returns how many."""
    block = p.global_block()
    keep = set(fetch_src)
    producer = _producer_map(block)
    found = [m for m in (_match(op, producer, params, uses, keep) for op in list(block.ops))
             if m is not None]
    for conv, mul, add, relu, x0, scale, shift in found:
        inputs = {slot: conv.input(slot) for slot in conv.input_names if conv.input(slot)}
        inputs.update(Input=[x0], InScale=[scale], InShift=[shift])
        attrs = {name: conv.attr(name) for name in conv.attr_names}
        attrs["in_activation"] = "relu" if relu is not None else ""
        replace(block, [o for o in (mul, add, relu, conv) if o is not None], conv, FUSED_CONV,
                inputs, {"Output": conv.output("Output")}, attrs)
    return len(found)
