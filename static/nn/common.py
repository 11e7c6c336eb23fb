"""``static.nn`` layer builders (Paddle 2.6's ``paddle.static.nn``): each creates
its parameters (declared in the main program, initialized in the startup
program) named after the builder (``fc_0.w_0``, ``fc_0.b_0``), and appends the
op(s) through the same public functions as the layers, so outputs are named
``fc_0.tmp_<k>``.  ``fc`` emits Paddle's ``mul`` + ``elementwise_add``.
"""
import contextlib
import functools
import operator

from ...ops import bind, get_op
from ...utils import unique_name
from ...program import static_mode
from ...nn.param_attr import make_parameter
from ...nn import functional as F
from ...tensor import math as M
from ...nn.functional.norm import batch_norm_op
from ...nn.initializer import Constant
from ...nn.param_attr import ParamAttr
from ...nn.functional import embedding as emb

__all__ = ["fc", "batch_norm", "embedding", "conv2d", "layer_norm", "instance_norm",
           "group_norm", "prelu", "conv2d_transpose"]


@contextlib.contextmanager
def _owner(key, name=None):
    """A builder's name (``fc_0``): its parameters' prefix and its outputs' key."""
    owner = name or unique_name.generate(key)
    old = static_mode._naming["base"]
    static_mode._naming["base"] = owner
    try:
        yield owner
    finally:
        static_mode._naming["base"] = old


def _param(owner, shape, attr, dtype, is_bias=False, init=None):
    return make_parameter(owner, shape, attr, dtype, is_bias, init)


def _act(x, act):
    if act is None:
        return x
    fn = getattr(F, act, None)
    if fn is None:
        raise ValueError(f"unknown activation '{act}'")
    return fn(x)


def _dtype(x):
    return x.dtype if getattr(x, "dtype", None) is not None else "float32"


def _numel(dims):
    return functools.reduce(operator.mul, dims, 1)


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None,
       name=None):
    """A fully connected layer: ``act(sum_i mul(x_i, w_i) + b)``."""
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    attrs = weight_attr if isinstance(weight_attr, (list, tuple)) else [weight_attr] * len(xs)
    if len(attrs) != len(xs):
        raise ValueError(f"fc: {len(xs)} inputs but {len(attrs)} weight_attr")
    with _owner("fc", name) as owner:
        outs = []
        for xi, wa in zip(xs, attrs):
            shape = list(xi.shape)
            nfd = len(shape) - 1 if num_flatten_dims == -1 else num_flatten_dims
            if not 0 < nfd < len(shape):
                raise ValueError(f"fc: num_flatten_dims={num_flatten_dims} does not fit an "
                                 f"input of shape {shape}")
            k = _numel(shape[nfd:])
            if k <= 0:
                raise ValueError(f"fc: the flattened feature dims {shape[nfd:]} of the input "
                                 f"must be known")
            w = _param(owner, [k, size], wa, _dtype(xi))
            outs.append(bind(get_op("mul"), (xi, w),
                             {"x_num_col_dims": nfd, "y_num_col_dims": 1})[0])
        out = outs[0] if len(outs) == 1 else M.add_n(outs)
        b = _param(owner, [size], bias_attr, _dtype(xs[0]), is_bias=True)
        if b is not None:
            out = bind(get_op("elementwise_add"), (out, b), {"axis": nfd})[0]
        return _act(out, activation)


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
               bias_attr=None, data_layout="NCHW", in_place=False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    c = input.shape[1] if data_layout == "NCHW" else input.shape[-1]
    dt = _dtype(input)
    with _owner("batch_norm", name) as owner:
        w = _param(owner, [c], param_attr, dt, init=Constant(1.0))
        b = _param(owner, [c], bias_attr, dt, is_bias=True)
        mean = _param(owner, [c], ParamAttr(name=moving_mean_name, initializer=Constant(0.0),
                                            trainable=False), dt)
        var = _param(owner, [c], ParamAttr(name=moving_variance_name,
                                           initializer=Constant(1.0), trainable=False), dt)
        y = batch_norm_op(input, mean, var, w, b, is_test, momentum, epsilon, data_layout,
                          use_global_stats, False)
        return _act(y, act)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32"):
    with _owner("embedding") as owner:
        w = _param(owner, list(size), param_attr, dtype)
        return emb(input, w, padding_idx=padding_idx, sparse=is_sparse)


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCHW"):
    """Paddle's builder: conv2d (depthwise_conv2d when every channel is its own
    group, ``num_filters`` a multiple of them and not ``use_cudnn``), then the
    bias as one elementwise_add on the channel axis, then ``act``."""
    from .conv import conv_builder
    return conv_builder(2, input, num_filters, filter_size, stride, padding, dilation, groups,
                        param_attr, bias_attr, use_cudnn, act, name, data_format)


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCHW"):
    """Paddle's builder: conv2d_transpose (depthwise_conv2d_transpose when
    ``groups`` and ``num_filters`` equal the channels and not ``use_cudnn``),
    then the bias on the channel axis; without ``filter_size`` the kernel that
    reaches ``output_size``."""
    from .conv import conv_transpose_builder
    return conv_transpose_builder(2, input, num_filters, output_size, filter_size, padding,
                                  stride, dilation, groups, param_attr, bias_attr, use_cudnn,
                                  act, name, data_format)


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05,
               param_attr=None, bias_attr=None, act=None, name=None):
    shape = list(input.shape)
    n = _numel(shape[begin_norm_axis:])
    with _owner("layer_norm", name) as owner:
        w = _param(owner, [n], param_attr, _dtype(input), init=Constant(1.0)) if scale else None
        b = _param(owner, [n], bias_attr, _dtype(input), is_bias=True) if shift else None
        y = bind(get_op("layer_norm"), (input, w, b),
                 {"epsilon": float(epsilon), "begin_norm_axis": int(begin_norm_axis)})[0]
        return _act(y, act)


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    c = input.shape[1]
    with _owner("instance_norm", name) as owner:
        w = _param(owner, [c], param_attr, _dtype(input), init=Constant(1.0))
        b = _param(owner, [c], bias_attr, _dtype(input), is_bias=True)
        return F.instance_norm(input, weight=w, bias=b, eps=epsilon)


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None,
               data_layout="NCHW", name=None):
    c = input.shape[1] if data_layout == "NCHW" else input.shape[-1]
    with _owner("group_norm", name) as owner:
        w = _param(owner, [c], param_attr, _dtype(input), init=Constant(1.0))
        b = _param(owner, [c], bias_attr, _dtype(input), is_bias=True)
        y = F.group_norm(input, groups, epsilon, w, b, data_layout)
        return _act(y, act)


def prelu(x, mode, param_attr=None, data_format="NCHW", name=None):
    if mode not in ("all", "channel", "element"):
        raise ValueError(f"prelu: mode must be 'all', 'channel' or 'element', got {mode!r}")
    if mode == "all":
        shape = [1]
    elif mode == "channel":
        shape = [x.shape[1] if data_format == "NCHW" else x.shape[-1]]
    else:
        shape = list(x.shape[1:])
    with _owner("prelu", name) as owner:
        w = _param(owner, shape, param_attr, _dtype(x), init=Constant(0.25))
        return F.prelu(x, w, data_format=data_format)
