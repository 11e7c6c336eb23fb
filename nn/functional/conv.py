"""``paddle.nn.functional`` convolutions: conv1d, conv2d, conv3d,
conv1d_transpose, conv2d_transpose, conv3d_transpose.  Each emits the ops
Paddle emits: the conv op (or depthwise_conv2d when every input channel is
its own group; 3-D has no depthwise op), then the bias as reshape +
elementwise_add (channels first) or elementwise_add (channels last), or one
elementwise_add with an axis (1-D convolutions, conv3d_transpose); 1-D
convolutions are 2-D ones on an unsqueezed input.
"""
import numbers

from ...ops import bind, get_op
from ... import tensor as T

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose",
           "conv3d_transpose"]

_CONV2D = get_op("conv2d")
_DEPTHWISE = get_op("depthwise_conv2d")
_CONVT = get_op("conv2d_transpose")
_DEPTHWISE_T = get_op("depthwise_conv2d_transpose")
_CONV3D = get_op("conv3d")
_CONV3DT = get_op("conv3d_transpose")
_ADD = get_op("elementwise_add")


# ------------------------------------------------------------------ argument helpers
def convert_to_list(value, n, name):
    """An int or a sequence of n ints as a list of n ints (Paddle's helper)."""
    if isinstance(value, numbers.Integral):
        return [int(value)] * n
    try:
        vals = [int(v) for v in value]
    except TypeError:
        raise ValueError(f"the {name} must be an int or a list/tuple of {n} ints, "
                         f"got {value!r}") from None
    if len(vals) != n:
        raise ValueError(f"the {name} must have {n} entries, got {list(value)}")
    return vals


def _is_seq(v):
    return isinstance(v, (list, tuple))


def _symmetric(p, n):
    return all(p[2 * i] == p[2 * i + 1] for i in range(n))


def update_padding_nd(padding, num_dims, channel_last=False, ceil_mode=False):
    """(paddings attr, padding_algorithm) from a user ``padding``: 'SAME'/'VALID',
    an int, n ints, 2n ints (before/after per dim) or per-dim pairs including the
    batch and channel dims (which must be zero).  Symmetric pairs collapse to n."""
    if isinstance(padding, str):
        p = padding.upper()
        if p not in ("SAME", "VALID"):
            raise ValueError(f"Unknown padding: '{padding}'. It can only be 'SAME' or 'VALID'.")
        if p == "VALID" and ceil_mode:
            raise ValueError('When Attr(padding) is "VALID", Attr(ceil_mode) must be False.')
        return [0] * num_dims, p
    if _is_seq(padding):
        if len(padding) == num_dims + 2 and _is_seq(padding[0]):
            spatial = padding[1:-1] if channel_last else padding[2:]
            lead = [padding[0], padding[-1]] if channel_last else padding[:2]
            if any(list(x) != [0, 0] for x in lead):
                raise ValueError(f"Non-zero padding({padding}) in the batch or channel "
                                 f"dimensions is not supported.")
            flat = [int(v) for pair in spatial for v in pair]
        elif len(padding) == 2 * num_dims and isinstance(padding[0], numbers.Integral):
            flat = [int(v) for v in padding]
        elif len(padding) == num_dims and isinstance(padding[0], numbers.Integral):
            flat = [int(v) for v in padding]
        else:
            raise ValueError(f"Invalid padding: {padding}")
        pads = flat[0::2] if len(flat) == 2 * num_dims and _symmetric(flat, num_dims) \
            else flat
    else:
        pads = convert_to_list(padding, num_dims, "padding")
    return pads, "EXPLICIT"


def _conv_padding(padding, num_dims, channel_last):
    """update_padding_nd for convolutions, which (unlike pooling) refuse negative pads."""
    pads, algo = update_padding_nd(padding, num_dims, channel_last)
    if any(p < 0 for p in pads):
        raise ValueError(f"Invalid padding, all value should be larger than or equal to 0, "
                         f"but received: {pads}")
    return pads, algo


def add_bias(out, bias, channel_last, reshape_last=False):
    """Paddle's bias add after a conv: NCHW reshapes the bias to [1, C, 1, ...]
    first (C written out, as Paddle's static path); channel-last adds the 1-D
    bias on the last axis, except in the Conv2D/Conv3D layers
    (``reshape_last``), which pass Paddle's channel axis as a positive number
    and so reshape it to [1, ..., 1, C] (the functional form passes -1)."""
    if bias is None:
        return out
    nd = len(out.shape)
    if channel_last:
        if not reshape_last:
            return T.add(out, bias)
        return T.add(out, T.reshape(bias, [1] * (nd - 1) + list(bias.shape)))
    return T.add(out, T.reshape(bias, [1] + list(bias.shape) + [1] * (nd - 2)))


def add_bias_axis(out, bias, channel_dim):
    """Paddle's ``_add_with_axis`` after a 1-D conv: one elementwise_add whose
    ``axis`` aligns the bias with the channel dim."""
    if bias is None:
        return out
    return bind(_ADD, (out, bias), {"axis": int(channel_dim)})[0]


def _check_input(x, rank, api, fmt):
    if len(x.shape) != rank:
        raise ValueError(f"{api}: input x should be a {rank}-D tensor ({fmt}), but got x "
                         f"with shape {list(x.shape)}")


def _check_groups(num_channels, num_filters, groups, x_shape, api, filters=True):
    if num_channels < 0:
        raise ValueError(f"{api}: the channel dimension of the input ({num_channels}) should "
                         f"be defined, got input shape {x_shape}")
    if groups <= 0:
        raise ValueError(f"{api}: groups should be greater than 0, got {groups}")
    if num_channels % groups:
        raise ValueError(f"{api}: the channel of input must be divisible by groups, received: "
                         f"the channel of input is {num_channels}, the shape of input is "
                         f"{x_shape}, the groups is {groups}")
    if filters and num_filters % groups:
        raise ValueError(f"{api}: the number of filters must be divisible by groups, "
                         f"received: the number of filters is {num_filters}, the groups "
                         f"is {groups}")


# ------------------------------------------------------------------ conv
def _conv_attrs(stride, padding, padding_algorithm, dilation, groups, data_format):
    return {"strides": stride, "paddings": padding, "padding_algorithm": padding_algorithm,
            "dilations": dilation, "groups": groups, "data_format": data_format}


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCHW", name=None):
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"Attr(data_format) should be 'NCHW' or 'NHWC'. Received "
                         f"Attr(data_format): {data_format}.")
    last = data_format == "NHWC"
    _check_input(x, 4, "conv2d", data_format)
    c = x.shape[-1 if last else 1]
    n_filters = weight.shape[0]
    _check_groups(c, n_filters, groups, list(x.shape), "conv2d")
    pad, algo = _conv_padding(padding, 2, last)
    attrs = _conv_attrs(convert_to_list(stride, 2, "stride"), pad, algo,
                        convert_to_list(dilation, 2, "dilation"), groups, data_format)
    op = _DEPTHWISE if (c == groups and c != 1 and n_filters % c == 0) else _CONV2D
    out = bind(op, (x, weight), attrs)[0]
    return add_bias(out, bias, last)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCL", name=None):
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"Attr(data_format) should be 'NCL' or 'NLC'. Received "
                         f"Attr(data_format): {data_format}.")
    last = data_format == "NLC"
    _check_input(x, 3, "conv1d", data_format)
    c = x.shape[-1 if last else 1]
    _check_groups(c, weight.shape[0], groups, list(x.shape), "conv1d")
    pad, algo = _conv_padding(padding, 1, last)
    pad = [0] * 2 + pad if len(pad) == 2 else [0] + pad
    attrs = _conv_attrs([1] + convert_to_list(stride, 1, "stride"), pad, algo,
                        [1] + convert_to_list(dilation, 1, "dilation"), groups,
                        "NHWC" if last else "NCHW")
    # Paddle copies the weight (assign) before unsqueezing it, then the input
    w4 = T.unsqueeze(T.assign(weight), axis=[-2])
    axis = -3 if last else -2
    x4 = T.unsqueeze(x, axis=[axis])
    out = bind(_CONV2D, (x4, w4), attrs)[0]
    out = add_bias_axis(out, bias, -1 if last else 1)
    return T.squeeze(out, axis=[axis])


# ------------------------------------------------------------------ transposed conv
def _output_size(output_size, output_padding, n):
    if output_size is None:
        return []
    if output_padding != 0:
        raise ValueError("output_padding option is mutually exclusive with output_size")
    if isinstance(output_size, (list, tuple, numbers.Integral)):
        return convert_to_list(output_size, n, "output_size")
    raise ValueError("output_size should be int, list[int] or tuple[int]")


def _convt_attrs(stride, padding, algo, output_padding, output_size, groups, dilation,
                 data_format, n):
    return {"strides": stride, "paddings": padding, "padding_algorithm": algo,
            "output_padding": [] if output_padding == 0 else
            convert_to_list(output_padding, n, "output_padding"),
            "output_size": output_size, "groups": groups, "dilations": dilation,
            "data_format": data_format}


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups=1, output_size=None, data_format="NCHW", name=None):
    # (Paddle's order: dilation before groups here, after them in the 1-D and 3-D ones)
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"Attr(data_format) of conv2d_transpose got wrong value: received "
                         f"{data_format}, but only 'NCHW' or 'NHWC' are supported.")
    last = data_format == "NHWC"
    _check_input(x, 4, "conv2d_transpose", data_format)
    c = x.shape[-1 if last else 1]
    _check_groups(c, 0, groups, list(x.shape), "conv2d_transpose", filters=False)
    pad, algo = _conv_padding(padding, 2, last)
    osize = _output_size(output_size, output_padding, 2)
    attrs = _convt_attrs(convert_to_list(stride, 2, "stride"), pad, algo, output_padding,
                         osize, groups, convert_to_list(dilation, 2, "dilation"),
                         data_format, 2)
    depthwise = c == groups and c != 1 and weight.shape[1] == 1
    out = bind(_DEPTHWISE_T if depthwise else _CONVT, (x, weight), attrs)[0]
    return add_bias(out, bias, last)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCL", name=None):
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"Attr(data_format) of conv1d_transpose got wrong value: received "
                         f"{data_format}, but only 'NCL' or 'NLC' are supported.")
    last = data_format == "NLC"
    _check_input(x, 3, "conv1d_transpose", data_format)
    c = x.shape[-1 if last else 1]
    _check_groups(c, 0, groups, list(x.shape), "conv1d_transpose", filters=False)
    pad, algo = _conv_padding(padding, 1, last)
    # the length dim becomes the first of two spatial dims (Paddle unsqueezes after it)
    pad = pad + [0] * 2 if len(pad) == 2 else pad + [0]
    stride = convert_to_list(stride, 1, "stride") + [1]
    osize = _output_size(output_size, output_padding, 1)
    attrs = _convt_attrs(stride, pad, algo, 0, osize + [1] if osize else [], groups,
                         convert_to_list(dilation, 1, "dilation") + [1],
                         "NHWC" if last else "NCHW", 1)
    if output_padding != 0:
        attrs["output_padding"] = convert_to_list(output_padding, 1, "output_padding") + [0]
        if attrs["output_padding"][0] > stride[0]:
            raise ValueError(f"The size of output_padding should not be greater than stride."
                             f"But got output_padding={attrs['output_padding'][0]} and "
                             f"stride={stride[0]}")
    if len(weight.shape) != 3:
        raise ValueError(f"Input weight should be 3D tensor, but received weight with the "
                         f"shape of {list(weight.shape)}")
    depthwise = c == groups and c != 1 and weight.shape[1] == 1
    axis = -2 if last else -1
    x4 = T.unsqueeze(x, axis=[axis])
    w4 = T.unsqueeze(weight, axis=[-1])
    out = bind(_DEPTHWISE_T if depthwise else _CONVT, (x4, w4), attrs)[0]
    out = add_bias_axis(out, bias, -1 if last else 1)
    return T.squeeze(out, axis=[axis])


# ------------------------------------------------------------------ 3-D
def _check_format_3d(data_format):
    if data_format not in ("NCDHW", "NDHWC"):
        raise ValueError(f"Attr(data_format) should be 'NCDHW' or 'NDHWC'. Received "
                         f"Attr(data_format): {data_format}.")
    return data_format == "NDHWC"


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCDHW", name=None):
    last = _check_format_3d(data_format)
    _check_input(x, 5, "conv3d", data_format)
    c = x.shape[-1 if last else 1]
    _check_groups(c, weight.shape[0], groups, list(x.shape), "conv3d")
    pad, algo = _conv_padding(padding, 3, last)
    attrs = _conv_attrs(convert_to_list(stride, 3, "stride"), pad, algo,
                        convert_to_list(dilation, 3, "dilation"), groups, data_format)
    out = bind(_CONV3D, (x, weight), attrs)[0]
    return add_bias(out, bias, last)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCDHW", name=None):
    last = _check_format_3d(data_format)
    _check_input(x, 5, "conv3d_transpose", data_format)
    if len(weight.shape) != 5:
        raise ValueError(f"Input weight should be 5D tensor, but received weight with the "
                         f"shape of {list(weight.shape)}")
    c = x.shape[-1 if last else 1]
    _check_groups(c, 0, groups, list(x.shape), "conv3d_transpose", filters=False)
    pad, algo = _conv_padding(padding, 3, last)
    osize = _output_size(output_size, output_padding, 3)
    # the op's data_format only says where the channels are: 'NCHW' / 'NHWC'
    attrs = _convt_attrs(convert_to_list(stride, 3, "stride"), pad, algo, output_padding,
                         osize, groups, convert_to_list(dilation, 3, "dilation"),
                         "NHWC" if last else "NCHW", 3)
    out = bind(_CONV3DT, (x, weight), attrs)[0]
    return add_bias_axis(out, bias, -1 if last else 1)
