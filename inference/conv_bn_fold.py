"""``conv_bn_fuse``: an inference ``batch_norm`` folded into the convolution
before it (Paddle Inference's ``conv_bn_fuse_pass``,
``conv_eltwiseadd_bn_fuse_pass``, ``depthwise_conv_bn_fuse_pass`` and
``conv_transpose_bn_fuse_pass``).

Pattern: ``conv2d`` / ``depthwise_conv2d`` / ``conv2d_transpose`` (its filter
a parameter), optionally ``elementwise_add`` of a 1-D parameter bias on the
channel axis, then ``batch_norm`` in inference form (``is_test`` or
``use_global_stats``), each intermediate read once, the batch norm's other
outputs read by nothing.  With ``s = scale / sqrt(variance + epsilon)`` per
output channel, the filter becomes ``filter * s`` (along its output-channel
axis) and the bias ``(bias - mean) * s + shift``: the pattern becomes the
convolution with the new filter and one ``elementwise_add`` of the new bias
(axis 1 for NCHW, the last axis for NHWC), as Paddle rewrites it.  The new
parameters get new names (``<filter>@bn_folded``, ``<bn>@bias_folded``); the
originals stay in the parameter table for anything else that reads them.

The new numbers equal the unfused ones to float32 rounding (the product is
rounded once, into the filter, instead of after the convolution).
"""
import numpy as np

from ..program.passes.graph import replace

__all__ = ["conv_bn_fuse", "CONVS"]

# conv op -> the filter axis of its output channels (transpose: [Cin, Cout/g, kh, kw])
CONVS = {"conv2d": 0, "depthwise_conv2d": 0, "conv2d_transpose": 1}
_BN_UNUSED = ("MeanOut", "VarianceOut", "SavedMean", "SavedVariance", "ReserveSpace")


def conv_bn_fuse(p, params, feeds, fetch_src, uses):
    """Fold every matching pattern of ``p``'s global block; returns how many."""
    block = p.global_block()
    keep = set(fetch_src)
    reader = {}
    for op in block.ops:
        for n in op.input_arg_names:
            reader.setdefault(n, op)
    folds = [m for m in (_match(op, reader, uses, keep, params) for op in list(block.ops))
             if m is not None]
    for conv, add, bn, bias_name in folds:
        _fold(block, params, conv, add, bn, bias_name)
    return len(folds)


def _once(name, uses, keep):
    return uses[name] == 1 and name not in keep


def _match(conv, reader, uses, keep, params):
    axis = CONVS.get(conv.type)
    if axis is None:
        return None
    w = params.get(conv.input("Filter")[0])
    if w is None or w.ndim != 4:
        return None
    if conv.type == "conv2d_transpose" and conv.attr("groups") not in (1, None):
        return None
    out = conv.output("Output")[0]
    nxt = reader.get(out)
    if nxt is None or not _once(out, uses, keep):
        return None
    add, bias_name = None, None
    channels = w.shape[axis]
    if nxt.type == "elementwise_add" and nxt.input("X") == [out]:
        if _bias(params.get(nxt.input("Y")[0]), nxt.attr("axis"), conv, channels) is None:
            return None
        add, bias_name = nxt, nxt.input("Y")[0]
        out = add.output("Out")[0]
        nxt = reader.get(out)
        if nxt is None or not _once(out, uses, keep):
            return None
    if nxt.type != "batch_norm" or nxt.input("X") != [out]:
        return None
    if not (nxt.attr("is_test") or nxt.attr("use_global_stats")):
        return None
    if _layout(nxt.attr("data_layout")) != _layout(conv.attr("data_format")):
        return None
    for slot in ("Scale", "Bias", "Mean", "Variance"):
        a = params.get(nxt.input(slot)[0])
        if a is None or a.shape != (channels,):
            return None
    own = nxt.input_arg_names          # MeanOut/VarianceOut are Mean/Variance, in place
    if any(uses[n] - own.count(n) for s in _BN_UNUSED
           for n in (nxt.output(s) if s in nxt.output_names else [])):
        return None
    return conv, add, nxt, bias_name


def _bias(b, axis, conv, channels):
    """The per-channel values of a conv's bias add: a 1-D bias on the channel
    axis, or the ``[1, C, 1, 1]`` (NHWC: ``[1, 1, 1, C]``) reshaped bias that
    Paddle's Conv2D adds with axis -1 (constant_folding made it a parameter)."""
    if b is None:
        return None
    ch = _channel_axis(conv)
    if b.shape == (channels,) and axis == ch:
        return b
    full = [1, 1, 1, 1]
    full[ch] = channels
    if b.shape == tuple(full) and axis in (-1, 0):
        return b.reshape(channels)
    return None


def _layout(fmt):
    return "NHWC" if fmt in ("NHWC", "NDHWC") else "NCHW"


def _channel_axis(conv):
    return 3 if _layout(conv.attr("data_format")) == "NHWC" else 1


def _fold(block, params, conv, add, bn, bias_name):
    filt = conv.input("Filter")[0]
    w = params[filt]
    gamma, beta, mean, var = (params[bn.input(s)[0]].astype(np.float64)
                              for s in ("Scale", "Bias", "Mean", "Variance"))
    s = gamma / np.sqrt(var + bn.attr("epsilon"))
    shape = [1, 1, 1, 1]
    shape[CONVS[conv.type]] = -1
    new_w = (w.astype(np.float64) * s.reshape(shape)).astype(w.dtype)
    b = _bias(params[bias_name], add.attr("axis"), conv, w.shape[CONVS[conv.type]]) \
        .astype(np.float64) if bias_name else 0.0
    new_b = ((b - mean) * s + beta).astype(w.dtype)
    w_name, b_name = f"{filt}@bn_folded", f"{bn.output('Y')[0]}@bias_folded"
    for name, value in ((w_name, new_w), (b_name, new_b)):
        block.create_var(name=name, shape=list(value.shape), dtype=value.dtype,
                         persistable=True)
        params[name] = value
    conv.set_input("Filter", [w_name])
    replace(block, [o for o in (bn, add) if o is not None], bn, "elementwise_add",
            {"X": [conv.output("Output")[0]], "Y": [b_name]}, {"Out": [bn.output("Y")[0]]},
            {"axis": _channel_axis(conv)})
