"""``paddle.nn.functional`` normalisation: batch_norm, layer_norm, group_norm,
instance_norm, normalize, local_response_norm (composed of public ops, as
Paddle 2.6 does: square, pad over the channels, average pool, pow, divide).

batch_norm updates the running statistics as Paddle does in place: the op's
MeanOut/VarianceOut are written back into ``running_mean``/``running_var``
(in static mode the op's in-place declaration makes them the same variables,
so there is nothing to copy).
"""
import numbers

from ...dygraph.aliases import write_data
from ...ops import bind, get_op, has_op, OpError
from ... import tensor as T
from .common import pad
from .pooling import avg_pool2d, avg_pool3d

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "normalize",
           "local_response_norm"]

_BN = get_op("batch_norm")
_LN = get_op("layer_norm")
_GN = get_op("group_norm")
_IN = get_op("instance_norm")

_BN_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def _write_back(dst, src):
    """Copy the updated statistics ``src`` into the running-stat tensor ``dst``."""
    if src is None or src is dst:
        return
    data = getattr(dst, "_data", None)
    new = getattr(src, "_data", None)
    if data is None or new is None:
        return
    try:
        data[...] = new
    except (ValueError, TypeError):       # read-only or differently typed buffer
        data = new
    write_data(dst, data)                 # (its views see the new statistics)


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.9,
               epsilon=1e-05, data_format="NCHW", use_global_stats=None, name=None):
    if len(x.shape) < 2:            # an assert in Paddle: AssertionError
        raise OpError(f"batch_norm: input dim must be larger than 1, got shape "
                      f"{list(x.shape)}", kind=AssertionError)
    if data_format not in _BN_FORMATS:
        raise ValueError(f"data_format must be one of {', '.join(repr(f) for f in _BN_FORMATS)}"
                         f" but receive {data_format}")
    layout = "NCHW" if data_format[1] == "C" else "NHWC"
    if use_global_stats is None:
        use_global_stats = not training
        trainable_statistics = False
    else:
        trainable_statistics = not use_global_stats
    return batch_norm_op(x, running_mean, running_var, weight, bias, not training, momentum,
                         epsilon, layout, bool(use_global_stats), trainable_statistics)


def batch_norm_op(x, running_mean, running_var, weight, bias, is_test, momentum, epsilon,
                  data_layout, use_global_stats, trainable_statistics):
    """The batch_norm op with its attributes as given (the fluid-style
    ``nn.BatchNorm`` sets them directly), running statistics written back."""
    attrs = {"is_test": bool(is_test), "momentum": float(momentum), "epsilon": float(epsilon),
             "data_layout": data_layout, "use_global_stats": bool(use_global_stats),
             "trainable_statistics": bool(trainable_statistics)}
    y, mean_out, var_out = bind(_BN, (x, weight, bias, running_mean, running_var, None),
                                attrs)[:3]
    _write_back(running_mean, mean_out)
    _write_back(running_var, var_out)
    return y


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    shape = list(x.shape)
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = [int(normalized_shape)]
    elif isinstance(normalized_shape, tuple):
        normalized_shape = list(normalized_shape)
    elif not isinstance(normalized_shape, list):
        raise ValueError("`normalized_shape` should be int, list of ints or tuple of ints.")
    begin = len(shape) - len(normalized_shape)
    if begin < 0 or shape[begin:] != list(normalized_shape):
        s = str(list(normalized_shape))
        raise ValueError(f"Given normalized_shape is {s}, expected input with shape "
                         f"[*, {s[1:]}, but got input shape {shape}")
    if not 0.0 <= epsilon <= 0.001:
        raise ValueError(f"'epsilon' in Op(LayerNorm) should be between 0.0 and 0.001, but "
                         f"received {epsilon}")
    attrs = {"epsilon": float(epsilon), "begin_norm_axis": begin}
    return bind(_LN, (x, weight, bias), attrs)[0]


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW",
               name=None):
    if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError("unsupported data layout:" + str(data_format))
    layout = "NCHW" if data_format[1] == "C" else "NHWC"
    attrs = {"epsilon": float(epsilon), "groups": int(num_groups), "data_layout": layout}
    return bind(_GN, (x, weight, bias), attrs)[0]


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-05, data_format="NCHW",
                  name=None):
    if data_format not in ("NC", "NCL", "NCHW", "NCDHW"):
        raise ValueError(f"instance_norm: data_format must be channel-first (NCL, NCHW, "
                         f"NCDHW), got {data_format}")
    return bind(_IN, (x, weight, bias), {"epsilon": float(eps)})[0]


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """x / max(||x||_p along axis, epsilon)."""
    nd = len(x.shape)
    if not -nd <= axis < max(nd, 1):
        raise ValueError(f"normalize: axis {axis} is out of range for a {nd}-D input")
    if has_op("p_norm"):
        attrs = {"porder": float(p), "axis": int(axis), "epsilon": float(epsilon),
                 "keepdim": True, "asvector": False}
        norm = bind(get_op("p_norm"), (x,), attrs)[0]
    else:
        norm = T.sum(T.abs(x) ** float(p), axis=axis, keepdim=True) ** (1.0 / p)
    return T.divide(x, T.maximum(norm, T.full([1], epsilon, dtype=x.dtype)))


_LRN_FORMATS = ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC")


def local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0, data_format="NCHW",
                        name=None):
    """x / (k + alpha * mean of x^2 over ``size`` neighbouring channels) ** beta:
    the squares are padded along the channels and average-pooled (pool2d for
    3-D inputs, pool3d on a [N, 1, C, H, rest] view otherwise)."""
    if data_format not in _LRN_FORMATS:
        raise ValueError(f"data_format should be in one of [NCL, NCHW, NCDHW, NLC, NHWC, "
                         f"NDHWC], but got {data_format}")
    sizes = list(x.shape)
    dim = len(sizes)
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input, but got {dim} "
                         f"dimensions")
    for i, sz in enumerate(sizes[1:], 1):
        if not sz > 0:
            raise ValueError(f"Expected every dim's size to be larger than 0, but the size "
                             f"of the {i}-th dim is {sz}")
    if size < 1:            # Paddle's avg_pool refuses the window
        raise ValueError(f"local_response_norm: size must be at least 1, got {size}")
    last = data_format[-1] == "C"
    before, after = size // 2, (size - 1) // 2
    div = T.unsqueeze(T.multiply(x, x), axis=1)
    if dim == 3:
        div = pad(div, [0, 0, before, after] if not last else [before, after, 0, 0])
        div = avg_pool2d(div, kernel_size=(1, size) if last else (size, 1), stride=1)
        div = T.squeeze(div, axis=1)
    else:
        rest = 1
        for v in sizes[1:]:
            rest *= v
        if last:
            view = [sizes[0], 1, sizes[1], rest // (sizes[1] * sizes[-1]), sizes[-1]]
            pads, kernel = [before, after, 0, 0, 0, 0], (1, 1, size)
        else:
            view = [sizes[0], 1, sizes[1], sizes[2], rest // (sizes[1] * sizes[2])]
            pads, kernel = [0, 0, 0, 0, before, after], (size, 1, 1)
        div = pad(T.reshape(div, view), pads, data_format="NCDHW")
        div = avg_pool3d(div, kernel_size=kernel, stride=1)
        div = T.reshape(T.squeeze(div, axis=1), sizes)
    div = T.pow(T.scale(div, scale=alpha, bias=k), beta)
    return T.divide(x, div)
