"""Kernels of the fused ops of ops/defs/fused.py."""
import numpy as np

from ..registry import kernel, FLOATS


def fc(x, w, b, relu):
    out = np.matmul(x, w)          # a new array: updated in place below
    out += b
    if relu:
        np.maximum(out, 0, out=out)
    return out


@kernel("sampan_fc", dtypes=FLOATS)
def sampan_fc(ins, attrs, need):
    x, w, b = ins
    return (fc(x, w, b, attrs["activation_type"] == "relu"),)


def _fc_fast(attrs):
    relu = attrs["activation_type"] == "relu"
    return lambda x, w, b: fc(x, w, b, relu)


sampan_fc.fast = _fc_fast
sampan_fc.fresh = True


# ------------------------------------------------------------------ conv + bias + act
def _act_in_place(out, act, alpha):
    if act == "relu":
        np.maximum(out, 0, out=out)
    elif act == "relu6":
        np.clip(out, 0, 6, out=out)
    elif act == "sigmoid":
        np.negative(out, out=out)
        np.exp(out, out=out)
        out += 1
        np.reciprocal(out, out=out)
    elif act == "hard_swish":      # x * relu6(x + 3) / 6 (Paddle's defaults)
        t = out + 3.0
        np.clip(t, 0, 6, out=t)
        t *= 1.0 / 6.0
        out *= t
    elif act == "swish":            # x * sigmoid(x) (beta 1)
        t = np.negative(out)
        np.exp(t, out=t)
        t += 1
        out /= t
    elif act == "leaky_relu":
        np.maximum(out, out * out.dtype.type(alpha), out=out)
    return out


@kernel("sampan_conv2d_fusion", dtypes=FLOATS)
def sampan_conv2d_fusion(ins, attrs, need):
    from .conv import _conv_setup, conv_forward
    x, w, b = ins
    x, _, g, pads, dil, strides, out = _conv_setup("sampan_conv2d_fusion", x, w, attrs)
    res = conv_forward(x, w, g, pads, dil, strides, out, bias=b)
    return (_act_in_place(res, attrs["activation"], attrs["alpha"]),)


sampan_conv2d_fusion.fresh = True
