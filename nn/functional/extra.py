"""More of ``paddle.nn.functional``, each as Paddle 2.6 writes it (the same
ops, the same checks): the in-place hardtanh_ / leaky_relu_ /
thresholded_relu_, glu, maxout, rrelu, zeropad2d, pixel_unshuffle,
channel_shuffle, pairwise_distance, sequence_mask, temporal_shift, bilinear,
gumbel_softmax, affine_grid, max_unpool1d/2d/3d, unfold and fold.  glu,
zeropad2d, pairwise_distance and max_unpool1d are compositions of public
functions; the others bind their op (ops/defs/nn_extra.py)."""
from ...ops import bind, get_op
from ...ops.dtypes import to_enum
from ... import tensor as T
from ...tensor.indexing import inplace
from .activation import hardtanh, leaky_relu, thresholded_relu, sigmoid
from .common import pad
from .conv import convert_to_list, update_padding_nd
from .pooling import _expand_1d_padding

__all__ = ["hardtanh_", "leaky_relu_", "thresholded_relu_", "glu", "maxout", "rrelu", "zeropad2d",
           "pixel_unshuffle", "channel_shuffle", "pairwise_distance", "sequence_mask",
           "temporal_shift", "bilinear", "gumbel_softmax",
           "affine_grid", "max_unpool1d", "max_unpool2d", "max_unpool3d", "unfold",
           "fold"]

_PIXEL_UNSHUFFLE = get_op("pixel_unshuffle")
_CHANNEL_SHUFFLE = get_op("channel_shuffle")
_MAXOUT = get_op("maxout")
_RRELU = get_op("rrelu")


# ------------------------------------------------------------------ in-place activations
def hardtanh_(x, min=-1.0, max=1.0, name=None):
    return inplace(x, lambda t: hardtanh(t, min, max))


def leaky_relu_(x, negative_slope=0.01, name=None):
    return inplace(x, lambda t: leaky_relu(t, negative_slope))


def thresholded_relu_(x, threshold=1.0, name=None):
    return inplace(x, lambda t: thresholded_relu(t, threshold))


# ------------------------------------------------------------------ glu, maxout
def glu(x, axis=-1, name=None):
    rank = len(x.shape)
    if not (-rank <= axis < rank):
        raise ValueError(f"Expected value range of `axis` is [{-rank}, {rank}), "
                         f"but received axis: {axis}")
    a, b = T.chunk(x, 2, axis=axis)
    return T.multiply(a, sigmoid(b))


def maxout(x, groups, axis=1, name=None):
    if axis not in (1, -1, 3):
        raise ValueError("Attr(axis) should be 1 when data format is NCHW, -1 or 3 when "
                         f"data format is NHWC. Received Attr(axis): {axis}.")
    if axis == -1:
        axis = 3
    return bind(_MAXOUT, (x,), {"groups": int(groups), "axis": int(axis)})[0]


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    if not isinstance(lower, float) or not isinstance(upper, float):
        raise TypeError(f"The lower and upper values must be float type. Received: "
                        f"lower {lower}, upper {upper}.")
    if lower < 0 or lower > 1:
        raise ValueError(f"The lower value must be no less than zero or greater than one. "
                         f"Received: {lower}.")
    if upper < lower:
        raise ValueError(f"The upper value must be greater than lower value. Received: "
                         f"lower {lower}, upper {upper}.")
    if upper > 1:
        raise ValueError(f"The upper value must be no greater than one. Received: {upper}.")
    attrs = {"lower": lower, "upper": upper, "is_test": not training}
    return bind(_RRELU, (x,), attrs)[0]


# ------------------------------------------------------------------ padding
def zeropad2d(x, padding, data_format="NCHW", name=None):
    return pad(x, pad=padding, mode="constant", value=0, data_format=data_format, name=name)


# ------------------------------------------------------------------ pixel / channel shuffles
def _check_4d_format(x, data_format):
    if len(x.shape) != 4:
        raise ValueError(f"Input x should be 4D tensor, but received x with the shape of "
                         f"{list(x.shape)}")


def _check_format(data_format):
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'."
                         f"But recevie Attr(data_format): {data_format} ")


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    _check_4d_format(x, data_format)
    if not isinstance(downscale_factor, int):
        raise TypeError("Downscale factor must be int type")
    if downscale_factor <= 0:
        raise ValueError("Downscale factor must be positive")
    _check_format(data_format)
    return bind(_PIXEL_UNSHUFFLE, (x,), {"downscale_factor": downscale_factor,
                                         "data_format": data_format})[0]


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    _check_4d_format(x, data_format)
    if not isinstance(groups, int):
        raise TypeError("groups must be int type")
    if groups <= 0:
        raise ValueError("groups must be positive")
    _check_format(data_format)
    return bind(_CHANNEL_SHUFFLE, (x,), {"groups": groups, "data_format": data_format})[0]


# ------------------------------------------------------------------ distances
def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    sub = T.subtract(x, y)
    if epsilon != 0.0:
        sub = T.add(sub, T.full([1], epsilon, dtype=sub.dtype))
    return bind(get_op("p_norm"), (sub,), {"axis": -1, "porder": float(p), "keepdim": keepdim,
                                          "epsilon": 0.0, "asvector": False})[0]


# ------------------------------------------------------------------ sequences and video
_SEQUENCE_MASK = get_op("sequence_mask")
_TEMPORAL_SHIFT = get_op("temporal_shift")


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    attrs = {"out_dtype": to_enum(dtype)}
    maxlen_t = None
    if maxlen is not None:
        if hasattr(maxlen, "shape") and hasattr(maxlen, "dtype"):
            maxlen_t = maxlen
        else:
            attrs["maxlen"] = int(maxlen)
    out = bind(_SEQUENCE_MASK, (x, maxlen_t), attrs)[0]
    out.stop_gradient = True
    return out


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'. "
                         f"Received Attr(data_format): {data_format}.")
    return bind(_TEMPORAL_SHIFT, (x,), {"seg_num": seg_num, "shift_ratio": float(shift_ratio),
                                        "data_format": data_format})[0]


# ------------------------------------------------------------------ bilinear
_BILINEAR = get_op("bilinear_tensor_product")


def bilinear(x1, x2, weight, bias=None, name=None):
    return bind(_BILINEAR, (x1, x2, weight, bias))[0]


# ------------------------------------------------------------------ gumbel_softmax
_GUMBEL = get_op("gumbel_softmax")


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    return bind(_GUMBEL, (x,), {"temperature": float(temperature), "hard": bool(hard),
                                "axis": int(axis)})[0]


# ------------------------------------------------------------------ affine_grid
_AFFINE_GRID = get_op("affine_grid")


def _is_tensor(v):
    return hasattr(v, "shape") and hasattr(v, "dtype") and hasattr(v, "stop_gradient")


def affine_grid(theta, out_shape, align_corners=True, name=None):
    if not _is_tensor(theta):
        raise ValueError("The theta should be a Tensor.")
    attrs = {"align_corners": bool(align_corners)}
    shape_t = None
    if _is_tensor(out_shape):
        shape_t = out_shape
    else:
        attrs["output_shape"] = [int(v) for v in out_shape]
    return bind(_AFFINE_GRID, (theta, shape_t), attrs)[0]


# ------------------------------------------------------------------ max unpooling
_UNPOOL = get_op("unpool")


def _unpool_output_size(x, kernel_size, stride, padding, output_size):
    """Paddle's _unpool_output_size: the default size, or output_size checked
    to lie strictly within one stride of it."""
    if not (output_size is None or isinstance(output_size, (list, tuple))):
        raise AssertionError(f"Required output_size is None|list|tuple, but received "
                             f"{output_size}")
    n = len(kernel_size)
    default = [(x.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        return default
    output_size = [int(v.item()) if _is_tensor(v) else v for v in output_size]
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f'{lo} and {hi})')
    return list(output_size)


def _unpool(x, indices, k, s, pad, output_size):
    attrs = {"unpooling_type": "max", "ksize": k, "strides": s, "paddings": pad,
             "output_size": output_size, "data_format": "NCHW"}
    return bind(_UNPOOL, (x, indices), attrs)[0]


_UNPOOL3D = get_op("unpool3d")


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
    if len(x.shape) != 5:
        raise ValueError(f"The x should have [N, C, D, H, W] format, but received "
                         f"{list(x.shape)}.")
    if len(indices.shape) != 5:
        raise ValueError(f"The indices should have [N, C, D, H, W] format, but received "
                         f"{list(indices.shape)}.")
    k = convert_to_list(kernel_size, 3, "pool_size")
    s = k if stride is None else convert_to_list(stride, 3, "pool_stride")
    pad = convert_to_list(padding, 3, "padding")
    if data_format not in ("NCDHW",):
        raise ValueError(f"Attr(data_format) should be 'NCDHW'. Received Attr(data_format): "
                         f"{data_format}.")
    size = _unpool_output_size(x, k, s, pad, output_size)
    attrs = {"ksize": k, "strides": s, "paddings": pad, "output_size": size,
             "data_format": data_format}
    return bind(_UNPOOL3D, (x, indices), attrs)[0]


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None):
    if data_format not in ("NCL",):
        raise ValueError(f"Attr(data_format) should be 'NCL'. Received Attr(data_format): "
                         f"{data_format}.")
    x = T.unsqueeze(x, [2])
    indices = T.unsqueeze(indices, [2])
    k = [1] + convert_to_list(kernel_size, 1, "pool_size")
    s = k if stride is None else [1] + convert_to_list(stride, 1, "pool_stride")
    pad, _ = update_padding_nd(padding, 1)
    pad = _expand_1d_padding(pad)
    size = _unpool_output_size(x, k, s, pad, output_size)
    return T.squeeze(_unpool(x, indices, k, s, pad, size), [2])


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
    if len(x.shape) != 4:
        raise ValueError(f"The x should have [N, C, H, W] format, but received "
                         f"{list(x.shape)}.")
    if len(indices.shape) != 4:
        raise ValueError(f"The indices should have [N, C, H, W] format, but received "
                         f"{list(indices.shape)}.")
    k = convert_to_list(kernel_size, 2, "pool_size")
    s = k if stride is None else convert_to_list(stride, 2, "pool_stride")
    pad = convert_to_list(padding, 2, "padding")
    if data_format not in ("NCHW",):
        raise ValueError(f"Attr(data_format) should be 'NCHW'. Received Attr(data_format): "
                         f"{data_format}.")
    size = _unpool_output_size(x, k, s, pad, output_size)
    return _unpool(x, indices, k, s, pad, size)


# ------------------------------------------------------------------ unfold / fold
_UNFOLD = get_op("unfold")
_FOLD = get_op("fold")


def _pair(v, name):
    if isinstance(v, int):
        return [v, v]
    if not (isinstance(v, (list, tuple)) and len(v) == 2):
        raise AssertionError(f"{name} should either be an integer or a list/tuple of two "
                             f"integers")
    return list(v)


def _im2col_attrs(kernel_sizes, strides, paddings, dilations, pad_types):
    k = _pair(kernel_sizes, "kernel_sizes")
    s = _pair(strides, "strides")
    d = _pair(dilations, "dilations")
    if isinstance(paddings, int):
        p = [paddings] * 4
    elif isinstance(paddings, pad_types):
        p = list(paddings)
        if len(p) == 2:
            p = p * 2
        elif len(p) != 4:
            raise ValueError("paddings should either be an integer or a list/tuple of 2 or 4 "
                             "integers")
    else:
        raise ValueError("Unexpected type of paddings, it should be either an integer or a "
                         "list/tupleof 2 or 4 integers")
    return {"kernel_sizes": k, "strides": s, "paddings": p, "dilations": d}


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    if len(x.shape) != 4:
        raise AssertionError("input should be the format of [N, C, H, W]")
    attrs = _im2col_attrs(kernel_sizes, strides, paddings, dilations, (list, tuple))
    return bind(_UNFOLD, (x,), attrs)[0]


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    if len(x.shape) != 3:
        raise AssertionError("input should be the format of [N, C, L]")
    size = _pair(output_sizes, "output_sizes")
    attrs = _im2col_attrs(kernel_sizes, strides, paddings, dilations, (list,))
    attrs["output_sizes"] = size
    return bind(_FOLD, (x,), attrs)[0]
