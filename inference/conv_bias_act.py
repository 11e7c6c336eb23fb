"""``conv_elementwise_add_act_fuse_pass``: ``conv2d`` / ``depthwise_conv2d``
(channel-first, its filter a parameter) + ``elementwise_add`` of a parameter
bias over the output channels + an optional activation become one
``sampan_conv2d_fusion`` op (ops/defs/fused.py), whose kernel adds the bias in
the copy the convolution makes anyway, then runs the activation op's own kernel
function (in place for relu)
(Paddle Inference's pass of the same name makes its ``conv2d_fusion``).

It runs after ``conv_bn_fuse_pass``, which leaves each folded batch norm as
such a bias add.  Activations: relu, relu6 (threshold 6), sigmoid,
hard_swish (Paddle's defaults: threshold 6, scale 6, offset 3), swish (beta
1), leaky_relu; another activation, or one with other attributes, stays an op
of its own after the fused conv + bias.  Intermediates must be read once.
"""
from ..program.passes.graph import replace

__all__ = ["conv_bias_act_fuse", "FUSED_CONV"]

FUSED_CONV = "sampan_conv2d_fusion"
_CONV_ATTRS = ("strides", "paddings", "padding_algorithm", "dilations", "groups")


def _attr(op, name, default):
    return op.attr(name) if op.has_attr(name) else default


def _act_ok(op):
    t = op.type
    if t in ("relu", "sigmoid"):
        return ""
    if t == "relu6":            # Paddle 2.6's relu6 has no threshold: 6
        return "" if _attr(op, "threshold", 6.0) == 6.0 else None
    if t == "hard_swish":
        return "" if (_attr(op, "threshold", 6.0), _attr(op, "scale", 6.0),
                      _attr(op, "offset", 3.0)) == (6.0, 6.0, 3.0) else None
    if t == "swish":
        return "" if _attr(op, "beta", 1.0) == 1.0 else None
    if t == "leaky_relu":
        return "alpha"
    return None


def conv_bias_act_fuse(p, params, feeds, fetch_src, uses):
    """Fuse every match in ``p``'s global block; returns how many."""
    block = p.global_block()
    keep = set(fetch_src)
    reader = {}
    for op in block.ops:
        for n in op.input_arg_names:
            reader.setdefault(n, op)
    found = []
    for conv in list(block.ops):
        m = _match(conv, reader, uses, keep, params)
        if m is not None:
            found.append(m)
    for conv, add, act, bias in found:
        out = (act or add).output("Out")[0]
        attrs = {k: conv.attr(k) for k in _CONV_ATTRS}
        attrs["data_format"] = "NCHW"
        attrs["activation"] = act.type if act is not None else ""
        attrs["alpha"] = float(act.attr("alpha")) if act is not None and \
            act.type == "leaky_relu" else 0.0
        replace(block, [o for o in (conv, add, act) if o is not None], conv, FUSED_CONV,
                {"Input": conv.input("Input"), "Filter": conv.input("Filter"),
                 "Bias": [bias]}, {"Output": [out]}, attrs)
    return len(found)


def _match(conv, reader, uses, keep, params):
    if conv.type not in ("conv2d", "depthwise_conv2d") or \
            conv.attr("data_format") not in ("NCHW", "AnyLayout"):
        return None
    w = params.get(conv.input("Filter")[0])
    if w is None or w.ndim != 4:
        return None
    out = conv.output("Output")[0]
    add = reader.get(out)
    if add is None or add.type != "elementwise_add" or add.input("X") != [out] or \
            uses[out] != 1 or out in keep:
        return None
    bname = add.input("Y")[0]
    b = params.get(bname)
    c = w.shape[0]
    if b is None or b.dtype != w.dtype:
        return None
    if not ((b.shape == (c,) and add.attr("axis") == 1) or
            (b.shape == (1, c, 1, 1) and add.attr("axis") in (-1, 0))):
        return None
    if b.ndim != 1:                      # a folded [1, C, 1, 1] bias: its 1-D form
        params[bname + "@1d"] = b.reshape(c)
        _declare(conv.block, bname + "@1d", params[bname + "@1d"])
        bname = bname + "@1d"
    act = None
    nxt_out = add.output("Out")[0]
    nxt = reader.get(nxt_out)
    if nxt is not None and uses[nxt_out] == 1 and nxt_out not in keep and \
            nxt.input_names and nxt.input(nxt.input_names[0]) == [nxt_out] and \
            _act_ok(nxt) is not None:
        act = nxt
    return conv, add, act, bname


def _declare(block, name, value):
    if not block.has_var(name):
        block.create_var(name=name, shape=list(value.shape), dtype=value.dtype,
                         persistable=True)
