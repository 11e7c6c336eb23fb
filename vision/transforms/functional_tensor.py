"""The Tensor backend of ``paddle.vision.transforms.functional`` (CHW or HWC
images, optionally batched): Paddle's semantics, resampling through
``nn.functional.interpolate`` / ``grid_sample`` / ``pad`` and the colour maths
in numpy."""
import math
import numbers

import numpy as np

from ...dygraph.tensor import Tensor
from ...program import Variable
from ...nn import functional as NF
from ...tensor.creation import to_tensor as _to_tensor


def _assert_image_tensor(img, data_format):
    if (not isinstance(img, (Tensor, Variable)) or img.ndim < 3 or img.ndim > 4
            or data_format.lower() not in ('chw', 'hwc')):
        raise RuntimeError(f'not support [type={type(img)}, ndim={getattr(img, "ndim", None)}, '
                           f'data_format={data_format}] paddle image')


def _axes(data_format):
    """(channel, height, width) axes, counted from the end."""
    return (-3, -2, -1) if data_format.lower() == 'chw' else (-1, -3, -2)


def _size(img, data_format='CHW'):
    _, h, w = _axes(data_format)
    return img.shape[w], img.shape[h]


def _array(img, what):
    if isinstance(img, Variable):
        raise TypeError(f"{what} of a static Variable is not supported by sampan's vision "
                        "transforms; apply it to eager Tensors (e.g. in the Dataset)")
    return img.numpy()


def _is_float(dtype):
    return np.issubdtype(dtype, np.floating)


def normalize(img, mean, std, data_format='CHW'):
    _assert_image_tensor(img, data_format)
    mean = _to_tensor(mean)
    std = _to_tensor(std)
    if data_format.lower() == 'chw':
        mean, std = mean.reshape([-1, 1, 1]), std.reshape([-1, 1, 1])
    return (img - mean) / std


def _gray(x, channel_axis, num_output_channels):
    weights = np.array([0.2989, 0.5870, 0.1140], np.float32).astype(x.dtype)
    shape = [1] * x.ndim
    shape[channel_axis] = 3
    g = (x * weights.reshape(shape)).sum(axis=channel_axis, keepdims=True).astype(x.dtype)
    reps = [1] * x.ndim
    reps[channel_axis] = num_output_channels
    return np.tile(g, reps)


def to_grayscale(img, num_output_channels=1, data_format='CHW'):
    _assert_image_tensor(img, data_format)
    if num_output_channels not in (1, 3):
        raise ValueError('num_output_channels should be either 1 or 3')
    x = _array(img, "to_grayscale")
    return _to_tensor(_gray(x, _axes(data_format)[0], num_output_channels))


def _affine_grid(theta, w, h, ow, oh):
    """Output pixel centres (relative to the image centre) mapped by theta,
    normalised to grid_sample's [-1, 1] (align_corners=False)."""
    xs = np.linspace(-ow * 0.5 + 0.5, ow * 0.5 - 0.5, ow, dtype=np.float32)
    ys = np.linspace(-oh * 0.5 + 0.5, oh * 0.5 - 0.5, oh, dtype=np.float32)
    base = np.ones((oh, ow, 3), np.float32)
    base[..., 0] = xs[None, :]
    base[..., 1] = ys[:, None]
    scaled = np.asarray(theta, np.float32).reshape(2, 3).T / np.array([0.5 * w, 0.5 * h],
                                                                      np.float32)
    return (base.reshape(-1, 3) @ scaled).reshape(1, oh, ow, 2).astype(np.float32)


def _grid_transform(x, grid, mode, fill):
    """grid_sample of NCHW array x; pixels sampled from outside get ``fill``."""
    n, c = x.shape[:2]
    if fill is not None:
        x = np.concatenate([x, np.ones((n, 1) + x.shape[2:], x.dtype)], axis=1)
    grid = np.broadcast_to(grid, (n,) + grid.shape[1:]).astype(x.dtype)
    out = NF.grid_sample(_to_tensor(x), _to_tensor(np.ascontiguousarray(grid)), mode=mode,
                         padding_mode="zeros", align_corners=False).numpy()
    if fill is None:
        return out
    mask, out = out[:, -1:], out[:, :-1]
    fill_arr = np.asarray(fill, out.dtype).reshape(1, -1, 1, 1)
    if mode == 'nearest':
        m = (mask < 0.5).astype(out.dtype)
        return out * (1.0 - m) + m * fill_arr
    return out * mask + (1.0 - mask) * fill_arr


def _warp(img, data_format, make_grid, interpolation, fill, what):
    x = _array(img, what)
    single = x.ndim == 3
    if single:
        x = x[None]
    if data_format.lower() == 'hwc':
        x = x.transpose(0, 3, 1, 2)
    if not _is_float(x.dtype):
        raise TypeError(f"{what} of a Tensor image needs a floating point Tensor "
                        f"(grid_sample), got {img.dtype}")
    grid = make_grid(x.shape[-1], x.shape[-2])
    if isinstance(fill, int):
        fill = (fill,) * 3
    out = _grid_transform(x, grid, interpolation, fill)
    if data_format.lower() == 'hwc':
        out = out.transpose(0, 2, 3, 1)
    return _to_tensor(np.ascontiguousarray(out[0] if single else out))


def affine(img, matrix, interpolation="nearest", fill=None, data_format='CHW'):
    return _warp(img, data_format, lambda w, h: _affine_grid(matrix, w, h, w, h),
                 interpolation, fill, "affine")


def rotate(img, angle, interpolation='nearest', expand=False, center=None, fill=None,
           data_format='CHW'):
    w, h = _size(img, data_format)
    a = math.radians(-angle % 360)
    m = np.array([math.cos(a), math.sin(a), 0.0, -math.sin(a), math.cos(a), 0.0], np.float32)
    cx, cy = (0.0, 0.0) if center is None else (center[0] - w * 0.5, center[1] - h * 0.5)
    m[2] += m[0] * -cx + m[1] * -cy + cx
    m[5] += m[3] * -cx + m[4] * -cy + cy
    ow, oh = w, h
    if expand:
        corners = np.array([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0],
                            [0.5 * w, 0.5 * h, 1.0], [0.5 * w, -0.5 * h, 1.0]], np.float32)
        pos = corners @ m.reshape(2, 3).T
        size = np.ceil(pos.max(axis=0)) - np.floor(pos.min(axis=0))
        ow, oh = int(size[0]), int(size[1])
    return _warp(img, data_format, lambda w_, h_: _affine_grid(m, w, h, ow, oh),
                 interpolation, fill, "rotate")


def _perspective_grid(coeffs, ow, oh):
    f32 = np.float32
    c = np.asarray(coeffs, f32)                  # Paddle computes this grid in float32
    base = np.ones((oh * ow, 3), f32)
    base[:, 0] = np.tile(np.arange(ow, dtype=f32) + f32(0.5), oh)
    base[:, 1] = np.repeat(np.arange(oh, dtype=f32) + f32(0.5), ow)
    num = base @ (c[:6].reshape(2, 3).T / np.array([0.5 * ow, 0.5 * oh], f32))
    den = base @ np.concatenate([np.tile(c[6:].reshape(1, 2), (2, 1)), np.ones((2, 1), f32)],
                                1).T
    return (num / den - f32(1.0)).reshape(1, oh, ow, 2)


def perspective(img, coeffs, interpolation="nearest", fill=None, data_format='CHW'):
    return _warp(img, data_format, lambda w, h: _perspective_grid(coeffs, w, h),
                 interpolation, fill, "perspective")


def vflip(img, data_format='CHW'):
    _assert_image_tensor(img, data_format)
    return img.flip(axis=[_axes(data_format)[1]])


def hflip(img, data_format='CHW'):
    _assert_image_tensor(img, data_format)
    return img.flip(axis=[_axes(data_format)[2]])


def crop(img, top, left, height, width, data_format='CHW'):
    _assert_image_tensor(img, data_format)
    if data_format.lower() == 'chw':
        return img[:, top:top + height, left:left + width]
    return img[top:top + height, left:left + width, :]


def erase(img, i, j, h, w, v, inplace=False):
    _assert_image_tensor(img, 'CHW')
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img


def center_crop(img, output_size, data_format='CHW'):
    _assert_image_tensor(img, data_format)
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    w, h = _size(img, data_format)
    th, tw = output_size
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw,
                data_format=data_format)


def pad(img, padding, fill=0, padding_mode='constant', data_format='CHW'):
    from .functional_cv2 import parse_padding
    _assert_image_tensor(img, data_format)
    left, top, right, bottom = parse_padding(padding, fill, padding_mode)
    if padding_mode == 'symmetric':
        raise ValueError('Do not support symmetric mode')
    mode = 'replicate' if padding_mode == 'edge' else padding_mode
    out = NF.pad(img.unsqueeze(0), pad=[left, right, top, bottom], mode=mode, value=float(fill),
                 data_format='N' + data_format.upper())
    return out.squeeze(0)


def resize(img, size, interpolation='bilinear', data_format='CHW'):
    from .functional_cv2 import output_size
    _assert_image_tensor(img, data_format)
    if not (isinstance(size, int) or (isinstance(size, (tuple, list)) and len(size) == 2)):
        raise TypeError(f'Got inappropriate size arg: {size}')
    w, h = _size(img, data_format)
    if isinstance(size, int) and (w <= 0 or h <= 0):
        raise NotImplementedError(f"Not support while w<=0 or h<=0, but received w={w}, h={h}")
    hw = output_size(h, w, size)
    if hw is None:
        return img
    out = NF.interpolate(img.unsqueeze(0), size=hw, mode=interpolation.lower(),
                         data_format='N' + data_format.upper())
    return out.squeeze(0)


def _blend(img, x, target, ratio, what):
    if not _is_float(x.dtype):
        raise RuntimeError(f"{what} of a Tensor image blends with lerp, which does not "
                           f"support {img.dtype} Tensors; cast the image to float32 first")
    out = target + np.asarray(ratio, x.dtype) * (x - target)
    return _to_tensor(np.clip(out, 0, 1.0).astype(x.dtype))


def _channels(img):
    c = img.shape[-3]
    if c not in (1, 3):
        raise ValueError("channels of input should be either 1 or 3.")
    return c


def adjust_brightness(img, brightness_factor):
    _assert_image_tensor(img, 'CHW')
    if brightness_factor < 0:
        raise AssertionError("brightness_factor should be non-negative.")
    _channels(img)
    x = _array(img, "adjust_brightness")
    return _blend(img, x, np.zeros_like(x), brightness_factor, "adjust_brightness")


def adjust_contrast(img, contrast_factor):
    _assert_image_tensor(img, 'CHW')
    if contrast_factor < 0:
        raise AssertionError("contrast_factor should be non-negative.")
    x = _array(img, "adjust_contrast")
    xf = x if _is_float(x.dtype) else x.astype(np.float32)
    g = xf if _channels(img) == 1 else _gray(x, -3, 1).astype(xf.dtype)
    target = g.mean(axis=(-3, -2, -1), keepdims=True, dtype=np.float64).astype(xf.dtype)
    return _blend(img, x, target, contrast_factor, "adjust_contrast")


def adjust_saturation(img, saturation_factor):
    _assert_image_tensor(img, 'CHW')
    if saturation_factor < 0:
        raise AssertionError("saturation_factor should be non-negative.")
    if _channels(img) == 1:
        return img
    x = _array(img, "adjust_saturation")
    return _blend(img, x, _gray(x, -3, 1), saturation_factor, "adjust_saturation")


def _rgb_to_hsv(x):
    maxc, minc = x.max(axis=-3), x.min(axis=-3)
    eq = maxc == minc
    delta = maxc - minc
    s = delta / np.where(eq, 1, maxc)
    r, g, b = x[..., 0, :, :], x[..., 1, :, :], x[..., 2, :, :]
    d = np.where(eq, 1, delta)
    rc, gc, bc = (maxc - r) / d, (maxc - g) / d, (maxc - b) / d
    h = np.where(maxc == r, bc - gc, np.where(maxc == g, rc - bc + 2.0, gc - rc + 4.0))
    h = h * (np.float32(1) / np.float32(6)).astype(h.dtype) + 1.0   # Paddle's `h / 6.0`
    h = h - np.trunc(h)
    return h, s, maxc


def _hsv_to_rgb(h, s, v):
    f = h * 6.0
    i = np.floor(f)
    f = f - i
    i = i.astype(np.int32) % 6
    p = np.clip(v * (1.0 - s), 0.0, 1.0)
    q = np.clip(v * (1.0 - s * f), 0.0, 1.0)
    t = np.clip(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    table = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = [np.select([i == k for k in range(6)], [row[ch] for row in table]) for ch in range(3)]
    return np.stack(out, axis=-3)


def adjust_hue(img, hue_factor):
    _assert_image_tensor(img, 'CHW')
    if not -0.5 <= hue_factor <= 0.5:
        raise AssertionError("hue_factor should be in range [-0.5, 0.5]")
    if _channels(img) == 1:
        return img
    x = _array(img, "adjust_hue")
    dtype = x.dtype
    if dtype == np.uint8:
        # Paddle's `x / 255.0` multiplies by the float32 reciprocal
        x = x.astype(np.float32) * (np.float32(1) / np.float32(255))
    h, s, v = _rgb_to_hsv(x)
    h = h + np.asarray(hue_factor, h.dtype)
    h = h - np.floor(h)
    out = _hsv_to_rgb(h, s, v).astype(x.dtype)
    if dtype == np.uint8:
        out = (out * np.float32(255.0)).astype(dtype)
    return _to_tensor(out)
