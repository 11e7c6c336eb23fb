"""Deformable convolution: ``deformable_conv`` (v2, modulated by Mask) and
``deformable_conv_v1`` (no Mask), with their grads (Paddle 2.6's slots and
attributes; ``paddle.static.nn.deform_conv2d`` appends one or the other).

Each kernel tap k = (i, j) of output pixel (oh, ow) reads the input at
``(oh*sh - ph + i*dh + Offset_h, ow*sw - pw + j*dw + Offset_w)`` by bilinear
interpolation (zero outside), times ``Mask`` in v2; Offset has
``2 * deformable_groups * kh * kw`` channels (h, w pairs per tap and group),
Mask ``deformable_groups * kh * kw``, both at the output's height and width.
"""
from ..declare import defop, defgrad, grad_op
from ..registry import Meta, OpError

_ATTRS = (("strides", "INTS", [1, 1]), ("paddings", "INTS", [0, 0]),
          ("dilations", "INTS", [1, 1]), ("deformable_groups", "INT", 1),
          ("groups", "INT", 1), ("im2col_step", "INT", 64))


def _pair(v, what, op):
    v = list(v)
    if len(v) == 1:
        v = v * 2
    if len(v) != 2:
        raise OpError(f"{op}: {what} must have 2 entries (height, width), got {v}")
    return v


def deform_geometry(op, x_shape, w_shape, attrs):
    """(strides, paddings, dilations, (oh, ow)) of a deformable conv, checked."""
    s = _pair(attrs["strides"], "strides", op)
    p = _pair(attrs["paddings"], "paddings", op)
    d = _pair(attrs["dilations"], "dilations", op)
    out = []
    for i, k, st, pd, dl in zip(x_shape[2:], w_shape[2:], s, p, d):
        if i < 0 or k < 0:
            out.append(-1)
            continue
        o = (i + 2 * pd - (dl * (k - 1) + 1)) // st + 1
        if o <= 0:
            raise OpError(f"{op}: the output size {o} is not positive (input {i}, kernel "
                          f"{k}, stride {st}, padding {pd}, dilation {dl})")
        out.append(o)
    return s, p, d, tuple(out)


def _infer(op, masked):
    def infer(metas, attrs):
        x, off, w = metas[:3]
        for name, m in (("Input", x), ("Offset", off), ("Filter", w)) + \
                ((("Mask", metas[3]),) if masked else ()):
            if m is None or len(m.shape) != 4:
                raise OpError(f"{op}: {name} must be a 4-D tensor, got "
                              f"{None if m is None else list(m.shape)}")
        g, dg = attrs["groups"], attrs["deformable_groups"]
        if g <= 0 or dg <= 0:
            raise OpError(f"{op}: groups ({g}) and deformable_groups ({dg}) must be positive")
        n, c = x.shape[:2]
        if c >= 0 and w.shape[1] >= 0 and c != w.shape[1] * g:
            raise OpError(f"{op}: Input channels ({c}) must equal Filter channels "
                          f"({w.shape[1]}) * groups ({g})")
        if w.shape[0] >= 0 and w.shape[0] % g:
            raise OpError(f"{op}: the number of output channels ({w.shape[0]}) should be "
                          f"divided by groups ({g})")
        if c >= 0 and c % dg:
            raise OpError(f"{op}: Input channels ({c}) must be divisible by "
                          f"deformable_groups ({dg})")
        _, _, _, (oh, ow) = deform_geometry(op, x.shape, w.shape, attrs)
        kk = w.shape[2] * w.shape[3] if min(w.shape[2:]) >= 0 else -1
        want = [("Offset", off, 2 * dg * kk)] + ([("Mask", metas[3], dg * kk)] if masked else [])
        for name, m, ch in want:
            if m.shape[1] >= 0 and kk >= 0 and m.shape[1] != ch:
                raise OpError(f"{op}: {name} must have {ch} channels (deformable_groups "
                              f"{dg} * kernel {w.shape[2]}x{w.shape[3]}"
                              f"{' * 2' if name == 'Offset' else ''}), got {m.shape[1]}")
            if (m.shape[2] >= 0 and oh >= 0 and m.shape[2] != oh) or \
                    (m.shape[3] >= 0 and ow >= 0 and m.shape[3] != ow):
                raise OpError(f"{op}: {name}'s height and width {list(m.shape[2:])} must "
                              f"equal the output's [{oh}, {ow}]")
        step = attrs["im2col_step"]
        if step <= 0:
            raise OpError(f"{op}: im2col_step must be positive, got {step}")
        if n >= 0 and n > step and n % step:
            raise OpError(f"{op}: the batch size ({n}) must be smaller than or divisible by "
                          f"im2col_step ({step})")
        return (Meta((n, w.shape[0], oh, ow), x.dtype),)
    return infer


defgrad("deformable_conv_grad", "Input Offset Filter Mask Output@GRAD",
        "Input@GRAD? Offset@GRAD? Filter@GRAD? Mask@GRAD?", _ATTRS)
defop("deformable_conv", "Input Offset Filter Mask", "Output", _ATTRS,
      infer=_infer("deformable_conv", True),
      grad=grad_op("deformable_conv_grad", uses=("Input", "Offset", "Filter", "Mask"),
                   gouts=("Output",), wrt=("Input", "Offset", "Filter", "Mask")),
      same_dtype=("Input", "Offset", "Filter", "Mask"))

defgrad("deformable_conv_v1_grad", "Input Offset Filter Output@GRAD",
        "Input@GRAD? Offset@GRAD? Filter@GRAD?", _ATTRS)
defop("deformable_conv_v1", "Input Offset Filter", "Output", _ATTRS,
      infer=_infer("deformable_conv_v1", False),
      grad=grad_op("deformable_conv_v1_grad", uses=("Input", "Offset", "Filter"),
                   gouts=("Output",), wrt=("Input", "Offset", "Filter")),
      same_dtype=("Input", "Offset", "Filter"))
