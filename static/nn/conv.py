"""``static.nn`` convolution builders, written once for 2-D and 3-D: Paddle
2.6's ``conv2d``, ``conv2d_transpose`` (exported from common.py), ``conv3d``
and ``conv3d_transpose``.  Parameters are named after the op (``conv3d_<k>.w_0``
/ ``.b_0``, ``depthwise_conv2d_<k>`` ...), the op is followed by the bias as one
``elementwise_add`` whose axis is the channel dim, then the activation."""
from ...ops import bind, get_op
from ...nn.functional.conv import _conv_padding, add_bias_axis, convert_to_list
from ...nn.initializer import Normal
from .common import _owner, _param, _act, _dtype

__all__ = ["conv3d", "conv3d_transpose"]

_FORMATS = {2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _check(input, nd, data_format, api):
    if data_format not in _FORMATS[nd]:
        raise ValueError(f"{api}: Attr(data_format) should be '{_FORMATS[nd][0]}' or "
                         f"'{_FORMATS[nd][1]}'. Received Attr(data_format): {data_format}.")
    if len(input.shape) != nd + 2:
        raise ValueError(f"{api}: Input should be {nd + 2}D tensor, but received input with "
                         f"the shape of {list(input.shape)}")
    last = data_format == _FORMATS[nd][1]
    c = input.shape[-1 if last else 1]
    if c < 0:
        raise ValueError(f"{api}: the channel dimension of the input ({list(input.shape)}) "
                         f"should be defined. Received: {c}.")
    return last, c


def _groups(groups, api):
    groups = 1 if groups is None else groups
    if groups <= 0:
        raise ValueError(f"the groups of {api} should be greater than 0. Received groups: "
                         f"{groups}")
    return groups


def conv_builder(nd, input, num_filters, filter_size, stride, padding, dilation, groups,
                 param_attr, bias_attr, use_cudnn, act, name, data_format):
    api = f"conv{nd}d"
    last, c = _check(input, nd, data_format, api)
    groups = _groups(groups, api)
    if c % groups:
        raise ValueError(f"The number of input channels must be divisible by Attr(groups). "
                         f"Received: number of channels({c}), groups({groups}).")
    ks = convert_to_list(filter_size, nd, "filter_size")
    pad, algo = _conv_padding(padding, nd, last)
    attrs = {"strides": convert_to_list(stride, nd, "stride"), "paddings": pad,
             "padding_algorithm": algo, "dilations": convert_to_list(dilation, nd, "dilation"),
             "groups": groups, "data_format": data_format}
    op = api
    if nd == 2 and c == groups and num_filters % c == 0 and not use_cudnn:
        op = "depthwise_conv2d"
    fan_in = c
    for k in ks:
        fan_in *= k
    with _owner(op, name) as owner:
        w = _param(owner, [num_filters, c // groups] + ks, param_attr, _dtype(input),
                   init=Normal(0.0, (2.0 / fan_in) ** 0.5))
        b = _param(owner, [num_filters], bias_attr, _dtype(input), is_bias=True)
        out = bind(get_op(op), (input, w), attrs)[0]
        return _act(add_bias_axis(out, b, nd + 1 if last else 1), act)


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCDHW"):
    return conv_builder(3, input, num_filters, filter_size, stride, padding, dilation, groups,
                        param_attr, bias_attr, use_cudnn, act, name, data_format)


def _filter_from_output(output_size, in_sp, stride, pads, dilation):
    """Paddle's filter size when only output_size is given: the kernel that makes
    the transposed convolution reach it."""
    if output_size is None:
        raise ValueError("output_size must be set when filter_size is None")
    nd = len(in_sp)
    osize = convert_to_list(output_size, nd, "output_size")
    full = pads if len(pads) == 2 * nd else [p for v in pads for p in (v, v)]
    return [(osize[i] - (in_sp[i] - 1) * stride[i] + full[2 * i] + full[2 * i + 1] - 1)
            // dilation[i] + 1 for i in range(nd)]


def conv_transpose_builder(nd, input, num_filters, output_size, filter_size, padding, stride,
                           dilation, groups, param_attr, bias_attr, use_cudnn, act, name,
                           data_format):
    api = f"conv{nd}d_transpose"
    if param_attr is False:
        raise ValueError(f"param_attr should not be False in {api}.")
    if num_filters == 0:
        raise ValueError("num of filters should not be 0.")
    last, c = _check(input, nd, data_format, api)
    stride = convert_to_list(stride, nd, "stride")
    dilation = convert_to_list(dilation, nd, "dilation")
    pad, algo = _conv_padding(padding, nd, last)
    sp = input.shape[1:-1] if last else input.shape[2:]
    if filter_size is None:
        ks = _filter_from_output(output_size, sp, stride, pad, dilation)
    else:
        ks = convert_to_list(filter_size, nd, "filter_size")
    osize = [] if output_size is None else convert_to_list(output_size, nd, "output_size")
    groups = _groups(groups, api)
    if num_filters % groups:
        raise ValueError(f"Attr(num_filters) must be divisible by groups, Received: "
                         f"Attr(num_filters) is {num_filters}, the groups is {groups}")
    op = api
    if nd == 2 and c == groups and num_filters == c and not use_cudnn:
        op = "depthwise_conv2d_transpose"
    # the op's data_format only says where the channels are
    attrs = {"output_size": osize, "strides": stride, "paddings": pad,
             "padding_algorithm": algo, "dilations": dilation, "groups": groups,
             "data_format": "NHWC" if last else "NCHW"}
    with _owner(op, name) as owner:
        w = _param(owner, [c, num_filters // groups] + ks, param_attr, _dtype(input))
        b = _param(owner, [num_filters], bias_attr, _dtype(input), is_bias=True)
        out = bind(get_op(op), (input, w), attrs)[0]
        return _act(add_bias_axis(out, b, nd + 1 if last else 1), act)


def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCDHW"):
    return conv_transpose_builder(3, input, num_filters, output_size, filter_size, padding,
                                  stride, dilation, groups, param_attr, bias_attr, use_cudnn,
                                  act, name, data_format)
