"""``paddle.nn.functional`` resizing and pixel shuffling: interpolate (upsample),
pixel_shuffle.

interpolate follows Paddle 2.6: one ``<mode>_interp_v2`` op per mode
(nearest on 4-D / 5-D, linear on 3-D, bilinear / bicubic on 4-D, trilinear on
5-D inputs); the size goes to out_d/out_h/out_w, or a scale list (tensors go to
the OutSize / SizeTensor / Scale inputs); 'area' is adaptive average pooling.
"""
import numbers

import numpy as np

from ...ops import bind, get_op

__all__ = ["interpolate", "upsample", "pixel_shuffle"]

_INTERP = {m: get_op(f"{m}_interp_v2")
           for m in ("nearest", "linear", "bilinear", "bicubic", "trilinear")}
_PIXEL_SHUFFLE = get_op("pixel_shuffle")
_METHODS = ("LINEAR", "BILINEAR", "TRILINEAR", "NEAREST", "BICUBIC", "AREA")
_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _is_tensor(v):
    return hasattr(v, "shape") and hasattr(v, "dtype") and not isinstance(v, np.ndarray)


def _size_inputs(size, nd):
    """(attrs update, OutSize, SizeTensor) for a ``size`` argument."""
    if _is_tensor(size):
        return {}, size, None
    if not isinstance(size, (list, tuple)):
        raise TypeError("size should be a list or tuple or Tensor.")
    if len(size) != nd - 2:
        raise ValueError(f"size length should be {nd - 2} for input {nd}-D tensor.")
    if any(_is_tensor(d) for d in size):
        from ... import tensor as T
        parts = [d if _is_tensor(d) else T.full([1], int(d), dtype="int32") for d in size]
        return {}, None, parts
    for d in size:
        if d <= 0:
            raise ValueError("Each dimension size given in out_shape must be greater than 0.")
    names = ("out_d", "out_h", "out_w")[5 - nd:]
    return {k: int(d) for k, d in zip(names, size)}, None, None


def _scale_inputs(scale, nd):
    """(attrs update, Scale tensor) for a ``scale_factor`` argument."""
    if _is_tensor(scale):
        return {}, scale
    if isinstance(scale, (numbers.Number, np.ndarray)) and np.ndim(scale) == 0:
        if scale <= 0:
            raise ValueError("Attr(scale) should be greater than zero.")
        return {"scale": [float(scale)] * (nd - 2)}, None
    if isinstance(scale, (list, tuple)):
        if len(scale) != nd - 2:
            raise ValueError(f"scale_shape length should be {nd - 2} for input {nd}-D tensor.")
        if any(v <= 0 for v in scale):
            raise ValueError("Attr(scale) should be greater than zero.")
        return {"scale": [float(v) for v in scale]}, None
    raise TypeError("Attr(scale)'s type should be float, int, list, tuple, or Tensor.")


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format="NCHW", name=None):
    resample = mode.upper()
    if resample not in _METHODS:
        raise ValueError("The 'resample' of image_resize can only be 'area', 'linear', "
                         "'bilinear', 'trilinear', 'bicubic' or 'nearest' currently.")
    nd = len(x.shape)
    if resample == "LINEAR" and nd != 3:
        raise ValueError("'linear' only support 3-D tensor.")
    if resample == "NEAREST" and nd not in (4, 5):
        raise ValueError("'NEAREST' only support 4-D  or 5-D tensor.")
    if resample in ("BILINEAR", "BICUBIC") and nd != 4:
        raise ValueError("'bilinear' and 'bicubic' only support 4-D tensor.")
    if resample == "TRILINEAR" and nd != 5:
        raise ValueError("'trilinear'only support 5-D tensor.")
    if size is None and scale_factor is None:
        raise ValueError("One of size and scale_factor must not be None.")
    if isinstance(size, (list, tuple)) and len(size) != nd - 2:
        raise ValueError("The x and size should satisfy rank(x) - 2 == len(size).")
    if not isinstance(align_corners, bool):
        raise TypeError("Attr align_corners should be a bool value")
    if align_mode not in (0, 1):
        raise ValueError("align_mode can only be 0 or 1")
    if align_corners and resample == "NEAREST":
        raise ValueError("align_corners option can only be set with the interpolating "
                         "modes: linear | bilinear | bicubic | trilinear")
    if resample == "AREA":
        if size is None:
            raise ValueError("output size can not be None in AREA mode")
        # Paddle pools with the default (channels-first) layout whatever data_format says
        from . import pooling
        if nd == 3:
            return pooling.adaptive_avg_pool1d(x, size)
        if nd == 4:
            return pooling.adaptive_avg_pool2d(x, size)
        return pooling.adaptive_avg_pool3d(x, size)
    data_format = data_format.upper()
    if nd in _FORMATS and data_format not in _FORMATS[nd]:
        raise ValueError(f"Got wrong value for param `data_format`: {data_format} received "
                         f"but only `{_FORMATS[nd][0]}` or `{_FORMATS[nd][1]}` supported for "
                         f"{nd}-D input.")
    if size is not None and scale_factor is not None:
        raise ValueError("Only one of size or scale_factor should be defined.")
    attrs = {"out_d": -1, "out_h": -1, "out_w": -1, "scale": [],
             "interp_method": resample.lower(),
             "align_corners": False if resample == "NEAREST" else align_corners,
             "align_mode": int(align_mode),
             "data_layout": "NCHW" if data_format[1] == "C" else "NHWC"}
    out_size = size_tensor = scale_tensor = None
    if size is not None:
        upd, out_size, size_tensor = _size_inputs(size, nd)
    else:
        upd, scale_tensor = _scale_inputs(scale_factor, nd)
    attrs.update(upd)
    op = _INTERP[resample.lower()]
    return bind(op, (x, out_size, size_tensor, scale_tensor), attrs)[0]


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
             align_mode=0, data_format="NCHW", name=None):
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format,
                       name)


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    if len(x.shape) != 4:
        raise ValueError(f"Input x should be 4D tensor, but received x with the shape of "
                         f"{list(x.shape)}")
    if not isinstance(upscale_factor, int):
        raise TypeError("upscale factor must be int type")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"Attr(data_format) should be 'NCHW' or 'NHWC'.But recevie "
                         f"Attr(data_format): {data_format} ")
    return bind(_PIXEL_SHUFFLE, (x,), {"upscale_factor": upscale_factor,
                                       "data_format": data_format})[0]
