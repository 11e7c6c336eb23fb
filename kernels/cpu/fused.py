"""Kernels of the fused ops of ops/defs/fused.py."""
import numpy as np

from ...ops.defs.nn_conv import conv_geometry
from ...ops.registry import get_op
from ..registry import kernel, FLOATS
from .activation import ACTIVATIONS, ACTIVATIONS_INTO
from .conv import _conv_setup, conv_forward
from .depthwise import CLAMPS, depthwise
from .fused_elementwise import activation_into
from .winograd import winograd_conv3x3


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
_ACT_ATTRS = {}


def _activate(out, act, alpha):
    """``act`` applied to the fused conv's fresh output: in place by its in-place
    kernel (relu, tanh) or its compiled one-pass loop (hard_swish, relu6,
    hard_sigmoid, leaky_relu: ``activation_into``, 10x numpy's passes on
    MobileNetV3's maps), else by the activation op's own kernel function
    (kernels/cpu/activation.py), with that op's declared default attributes
    (``alpha`` for leaky_relu): the numbers of the unfused activation op."""
    if not act:
        return out
    into = ACTIVATIONS_INTO.get(act)
    if into is not None:
        return into[0](out)
    key = (act, alpha, out.dtype)
    entry = _ACT_ATTRS.get(key)
    if entry is None:
        attrs = dict(get_op(act).default_attrs,
                     **({"alpha": alpha} if act == "leaky_relu" else {}))
        entry = _ACT_ATTRS[key] = (attrs, activation_into(act, attrs, out.dtype))
    attrs, compiled = entry
    if compiled is not None and type(out) is np.ndarray and out.flags.c_contiguous:
        return compiled(out)
    return ACTIVATIONS[act][0](out, attrs)


@kernel("sampan_conv2d_fusion", dtypes=FLOATS)
def sampan_conv2d_fusion(ins, attrs, need):
    x, w, b = ins
    x, _, g, pads, dil, strides, out = _conv_setup("sampan_conv2d_fusion", x, w, attrs)
    act = attrs["activation"]
    clamp = CLAMPS.get(act)
    if clamp is not None and g > 1 and w.shape[1] == 1 and g == w.shape[0] and all(out):
        res = depthwise(x, w, pads, dil, strides, out, b, clamp)   # relu/relu6 in its loop
        if res is not None:
            return (res,)
    res = conv_forward(x, w, g, pads, dil, strides, out, bias=b)
    return (_activate(res, act, attrs["alpha"]),)


sampan_conv2d_fusion.fresh = True


@kernel("sampan_conv2d_winograd", dtypes=FLOATS)
def sampan_conv2d_winograd(ins, attrs, need):
    x, u, b = ins
    pads, _, _, out = conv_geometry(x.shape[2:], (3, 3), attrs)
    res = winograd_conv3x3(x, u, pads, out, bias=b)
    return (_activate(res, attrs["activation"], attrs["alpha"]),)


sampan_conv2d_winograd.fresh = True
