"""``paddle.nn.functional`` pooling: max/avg pool 1-D, 2-D and 3-D, adaptive
avg/max pool 1-D, 2-D and 3-D.  1-D pooling is 2-D pooling on an unsqueezed
input (as Paddle does); max pooling with ``return_mask`` and adaptive max
pooling use ``max_pool2d_with_index`` / ``max_pool3d_with_index``, everything
else ``pool2d`` / ``pool3d``.
"""
import math
import numbers

from ...ops import bind, get_op
from ... import tensor as T
from .conv import convert_to_list, update_padding_nd

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "max_pool3d",
           "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d"]

_POOL = get_op("pool2d")
_WITH_INDEX = get_op("max_pool2d_with_index")
_POOL3D = get_op("pool3d")
_WITH_INDEX3D = get_op("max_pool3d_with_index")


def _check_rank(x, rank, api):
    if len(x.shape) != rank:
        raise ValueError(f"{api}: expected a {rank}-D input tensor, but got one of shape "
                         f"{list(x.shape)}")


def _check_format(fmt, api, allowed=("NCHW", "NHWC")):
    if fmt not in allowed:
        raise ValueError(f"{api}: Attr(data_format) should be one of {list(allowed)}, "
                         f"but received {fmt}")


def _pool(x, kind, ksize, strides, paddings, algo, ceil_mode, exclusive, data_format,
          adaptive=False, op=_POOL):
    attrs = {"pooling_type": kind, "ksize": ksize, "global_pooling": False,
             "strides": strides, "paddings": paddings, "padding_algorithm": algo,
             "use_cudnn": True, "ceil_mode": ceil_mode, "exclusive": exclusive,
             "data_format": data_format, "adaptive": adaptive}
    return bind(op, (x,), attrs)[0]


def _with_index(x, ksize, strides, paddings, adaptive, op=_WITH_INDEX):
    attrs = {"ksize": ksize, "strides": strides, "paddings": paddings,
             "global_pooling": False, "adaptive": adaptive}
    return bind(op, (x,), attrs)


def _pool_padding(padding, num_dims, channel_last, ceil_mode):
    """update_padding_nd, refusing negative pads (Paddle 2.6.2 accepts them and
    crops the input: README, deviations)."""
    pad, algo = update_padding_nd(padding, num_dims, channel_last, ceil_mode)
    if any(p < 0 for p in pad):
        raise ValueError(f"Invalid padding, all value should be larger than or equal to 0, "
                         f"but received: {pad}")
    return pad, algo


def _expand_1d_padding(padding):
    """A 1-D padding list as the 2-D one of the unsqueezed input."""
    if len(padding) == 2:
        return [0, 0] + padding
    if len(padding) == 1:
        return [0] + padding
    raise ValueError(f"The size of padding's dimension should be 1 or 2, but got {padding}")


def _window(kernel_size, stride, n):
    k = convert_to_list(kernel_size, n, "pool_size")
    s = k if stride is None else convert_to_list(stride, n, "pool_stride")
    return k, s


# ------------------------------------------------------------------ 2-D
def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCHW", name=None):
    _check_format(data_format, "max_pool2d")
    _check_rank(x, 4, "max_pool2d")
    k, s = _window(kernel_size, stride, 2)
    pad, algo = _pool_padding(padding, 2, data_format == "NHWC", ceil_mode)
    if return_mask:
        if data_format == "NHWC":
            raise ValueError("When setting return_mask to true, data_format must be set to "
                             "NCHW in API:max_pool2d")
        return tuple(_with_index(x, k, s, pad, False))
    return _pool(x, "max", k, s, pad, algo, ceil_mode, True, data_format)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    _check_format(data_format, "avg_pool2d")
    _check_rank(x, 4, "avg_pool2d")
    k, s = _window(kernel_size, stride, 2)
    pad, algo = _pool_padding(padding, 2, data_format == "NHWC", ceil_mode)
    out = _pool(x, "avg", k, s, pad, algo, ceil_mode, exclusive, data_format)
    if divisor_override is None:
        return out
    return _divide(out, k, divisor_override)


def _divide(out, k, divisor_override):
    if not isinstance(divisor_override, numbers.Number) or divisor_override == 0:
        raise ValueError(f"divisor_override must be a non-zero number, got {divisor_override!r}")
    # two scales, as Paddle's ``out * (kh * kw) / divisor_override``
    return T.scale(T.scale(out, scale=float(math.prod(k))), scale=1.0 / divisor_override)


def _adaptive_size(x, output_size, hw):
    n = len(hw)
    if isinstance(output_size, numbers.Integral):
        return convert_to_list(output_size, n, "output_size")
    out = list(output_size)
    if len(out) != n:
        raise ValueError(f"output_size must be an int or {n} values, got {output_size}")
    return [hw[i] if v is None else int(v) for i, v in enumerate(out)]


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    _check_format(data_format, "adaptive_avg_pool2d")
    _check_rank(x, 4, "adaptive_avg_pool2d")
    hw = x.shape[2:4] if data_format == "NCHW" else x.shape[1:3]
    size = _adaptive_size(x, output_size, hw)
    return _pool(x, "avg", size, [1, 1], [0, 0], "EXPLICIT", False, True, data_format,
                 adaptive=True)


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    _check_rank(x, 4, "adaptive_max_pool2d")
    size = _adaptive_size(x, output_size, x.shape[2:4])
    out, mask = _with_index(x, size, [1, 1], [0, 0], True)
    return (out, mask) if return_mask else out


# ------------------------------------------------------------------ 1-D
def _squeeze_result(res, return_mask):
    if return_mask:
        return T.squeeze(res[0], [2]), T.squeeze(res[1], [2])
    return T.squeeze(res, [2])


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    _check_rank(x, 3, "max_pool1d")
    k, s = _window(kernel_size, stride, 1)
    pad, algo = _pool_padding(padding, 1, False, ceil_mode)
    pad = _expand_1d_padding(pad)
    x4 = T.unsqueeze(x, [2])
    if return_mask:
        return _squeeze_result(_with_index(x4, [1] + k, [1] + s, pad, False), True)
    return _squeeze_result(_pool(x4, "max", [1] + k, [1] + s, pad, algo, ceil_mode, True,
                                 "NCHW"), False)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    _check_rank(x, 3, "avg_pool1d")
    k, s = _window(kernel_size, stride, 1)
    pad, algo = _pool_padding(padding, 1, False, ceil_mode)
    pad = _expand_1d_padding(pad)
    x4 = T.unsqueeze(x, [2])
    out = _pool(x4, "avg", [1] + k, [1] + s, pad, algo, ceil_mode, exclusive, "NCHW")
    return T.squeeze(out, [2])


def adaptive_avg_pool1d(x, output_size, name=None):
    _check_rank(x, 3, "adaptive_avg_pool1d")
    size = convert_to_list(output_size, 1, "pool_size")
    x4 = T.unsqueeze(x, [2])
    out = _pool(x4, "avg", [1] + size, [1, 1], [0, 0], "EXPLICIT", False, True, "NCHW",
                adaptive=True)
    return T.squeeze(out, [2])


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    _check_rank(x, 3, "adaptive_max_pool1d")
    size = convert_to_list(output_size, 1, "pool_size")
    x4 = T.unsqueeze(x, [2])
    res = _with_index(x4, [1] + size, [1, 1], [0, 0], True)
    return _squeeze_result(res, True) if return_mask else T.squeeze(res[0], [2])


# ------------------------------------------------------------------ 3-D
def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCDHW", name=None):
    _check_format(data_format, "max_pool3d", ("NCDHW", "NDHWC"))
    _check_rank(x, 5, "max_pool3d")
    k, s = _window(kernel_size, stride, 3)
    pad, algo = _pool_padding(padding, 3, data_format == "NDHWC", ceil_mode)
    if return_mask:
        if data_format == "NDHWC":
            raise ValueError("When setting return_mask to true, data_format must be set to "
                             "NCDHW in API:max_pool3d")
        return tuple(_with_index(x, k, s, pad, False, _WITH_INDEX3D))
    # Paddle's static max_pool3d writes exclusive=False (max pooling ignores it)
    return _pool(x, "max", k, s, pad, algo, ceil_mode, False, data_format, op=_POOL3D)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCDHW", name=None):
    _check_format(data_format, "avg_pool3d", ("NCDHW", "NDHWC"))
    _check_rank(x, 5, "avg_pool3d")
    k, s = _window(kernel_size, stride, 3)
    pad, algo = _pool_padding(padding, 3, data_format == "NDHWC", ceil_mode)
    out = _pool(x, "avg", k, s, pad, algo, ceil_mode, exclusive, data_format, op=_POOL3D)
    return out if divisor_override is None else _divide(out, k, divisor_override)


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    _check_format(data_format, "adaptive_avg_pool3d", ("NCDHW", "NDHWC"))
    _check_rank(x, 5, "adaptive_avg_pool3d")
    dhw = x.shape[2:5] if data_format == "NCDHW" else x.shape[1:4]
    size = _adaptive_size(x, output_size, dhw)
    return _pool(x, "avg", size, [1, 1, 1], [0, 0, 0], "EXPLICIT", False, True, data_format,
                 adaptive=True, op=_POOL3D)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    _check_rank(x, 5, "adaptive_max_pool3d")
    size = _adaptive_size(x, output_size, x.shape[2:5])
    out, mask = _with_index(x, size, [1, 1, 1], [0, 0, 0], True, _WITH_INDEX3D)
    return (out, mask) if return_mask else out
