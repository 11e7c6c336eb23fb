"""``conv_elementwise_add_act_fuse_pass``: ``conv2d`` / ``depthwise_conv2d``
(channel-first, its filter a parameter) + ``elementwise_add`` of a parameter
bias over the output channels + an optional activation become one
``sampan_conv2d_fusion`` op (ops/defs/fused.py), whose kernel adds the bias and
applies the activation on the way out (kernels/cpu/conv_epilogue.py)
(Paddle Inference's pass of the same name makes its ``conv2d_fusion``).

``conv_elementwise_add2_act_fuse_pass`` (run first, as in Paddle) takes the
same conv + bias followed by a residual ``elementwise_add`` (the other operand
a computed tensor of the same declared shape and dtype: ResNet's shortcut)
and an optional activation: the residual goes into the fused op's
``ResidualData``, added in the same pass over the output.  The fused op stands
where the residual add stood (the residual is ready there), so no op between
the conv and that add may write the conv's inputs.

``sampan_conv_act_fuse_pass`` (run after both) takes the convs left without a
bias add (GoogLeNet's and DenseNet's convs have none), with an activation that
alone reads them, into a fused op without Bias (the output has the conv's
bits): the 1x1 epilogue and the Winograd pass then apply to them too.

It runs after ``conv_bn_fuse_pass``, which leaves each folded batch norm as
such a bias add.  Activations: relu, relu6 (threshold 6), sigmoid,
hard_swish (Paddle's defaults: threshold 6, scale 6, offset 3), swish (beta
1), leaky_relu; another activation, or one with other attributes, stays an op
of its own after the fused conv + bias.  Intermediates must be read once.
"""
from ..program.passes.graph import replace, same_shape

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


MODES = ("bias", "residual", "plain")


def conv_bias_act_fuse(p, params, feeds, fetch_src, uses, mode="bias"):
    """Fuse every match in ``p``'s global block; returns how many.  ``mode``:
    "bias" conv + bias add (+ activation), "residual" with a residual add
    between the bias and the activation, "plain" a conv without a bias add."""
    if mode not in MODES:
        raise ValueError(f"conv_bias_act_fuse: mode must be one of {MODES}, got {mode!r}")
    block = p.global_block()
    keep = set(fetch_src)
    reader = {}
    for op in block.ops:
        for n in op.input_arg_names:
            reader.setdefault(n, op)
    found, claimed = [], set()
    for conv in list(block.ops):
        m = _match(conv, reader, uses, keep, params, mode)
        # two branches meeting at one residual add both match it: the first takes it
        if m is not None and not claimed.intersection(id(o) for o in m[:4]):
            found.append(m)
            claimed.update(id(o) for o in m[:4] if o is not None)
    for conv, add, radd, r, act, bias in found:
        last = act or radd or add or conv
        attrs = {k: conv.attr(k) for k in _CONV_ATTRS}
        attrs["data_format"] = "NCHW"
        attrs["activation"] = act.type if act is not None else ""
        attrs["alpha"] = float(act.attr("alpha")) if act is not None and \
            act.type == "leaky_relu" else 0.0
        inputs = {"Input": conv.input("Input"), "Filter": conv.input("Filter")}
        if bias is not None:
            inputs["Bias"] = [bias]
        if radd is not None:
            inputs["ResidualData"] = [r]
        result = last.output("Output" if last is conv else "Out")[0]
        replace(block, [o for o in (conv, add, radd, act) if o is not None],
                conv if radd is None else radd, FUSED_CONV, inputs, {"Output": [result]}, attrs)
    return len(found)


def _residual_add(add, reader, uses, keep, params):
    """The elementwise_add reading ``add``'s output with another computed tensor
    of the same declared shape and dtype, and that tensor's name, or (None, None)."""
    out = add.output("Out")[0]
    radd = reader.get(out)
    if radd is None or radd.type != "elementwise_add" or uses[out] != 1 or out in keep or \
            _attr(radd, "axis", -1) not in (-1,):
        return None, None
    xs, ys = radd.input("X"), radd.input("Y")
    if len(xs) != 1 or len(ys) != 1 or (xs[0] == out) == (ys[0] == out):
        return None, None
    r = ys[0] if xs[0] == out else xs[0]
    block = add.block
    rv, ov = block._find_var_recursive(r), block._find_var_recursive(out)
    if r in params or rv is None or ov is None or not same_shape(rv, ov) or \
            rv.dtype != ov.dtype or any(d < 0 for d in ov.shape[1:]):
        return None, None
    return radd, r


def _untouched_between(conv, last):
    """No op from ``conv`` to ``last`` (exclusive) writes what the conv reads."""
    ops = conv.block.ops
    i, j = ops.index(conv), ops.index(last)
    reads = set(conv.input_arg_names)
    return all(not reads.intersection(op.output_arg_names) for op in ops[i + 1:j])


def _match(conv, reader, uses, keep, params, mode):
    if conv.type not in ("conv2d", "depthwise_conv2d") or \
            conv.attr("data_format") not in ("NCHW", "AnyLayout"):
        return None
    w = params.get(conv.input("Filter")[0])
    if w is None or w.ndim != 4:
        return None
    out = conv.output("Output")[0]
    if mode == "plain":                 # a conv without a bias add
        return conv, None, None, None, _activation(out, reader, uses, keep), None
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
    radd = r = None
    if mode == "residual":
        radd, r = _residual_add(add, reader, uses, keep, params)
        if radd is None or not _untouched_between(conv, radd):
            return None
    return conv, add, radd, r, _activation((radd or add).output("Out")[0], reader, uses,
                                           keep), bname


def _activation(name, reader, uses, keep):
    """The activation op that alone reads ``name``, if the fused op takes it."""
    nxt = reader.get(name)
    if nxt is not None and uses[name] == 1 and name not in keep and \
            nxt.input_names and nxt.input(nxt.input_names[0]) == [name] and \
            _act_ok(nxt) is not None:
        return nxt
    return None


def _declare(block, name, value):
    if not block.has_var(name):
        block.create_var(name=name, shape=list(value.shape), dtype=value.dtype,
                         persistable=True)
