"""The numpy-image (HWC) backend of ``paddle.vision.transforms.functional``:
Paddle's 'cv2' semantics on the numpy kernels of ``_cv.py``."""
import math
import numbers
from collections.abc import Iterable, Sequence

import numpy as np

from . import _cv

_PAD_MODES = ("constant", "edge", "reflect", "symmetric")


def _keep_channel(img, out):
    """OpenCV drops a single channel axis; Paddle puts it back."""
    if img.ndim == 3 and img.shape[2] == 1 and out.ndim == 2:
        return out[:, :, None]
    return out


def to_tensor(pic, data_format='CHW'):
    from ...tensor.creation import to_tensor as _to_tensor
    if data_format not in ('CHW', 'HWC'):
        raise ValueError(f'data_format should be CHW or HWC. Got {data_format}')
    if pic.ndim == 2:
        pic = pic[:, :, None]
    arr = pic.transpose((2, 0, 1)) if data_format == 'CHW' else pic
    if arr.dtype == np.uint8:
        # Paddle's `x / 255.0` multiplies by the float32 reciprocal
        arr = arr.astype(np.float32) * (np.float32(1) / np.float32(255))
    return _to_tensor(np.ascontiguousarray(arr))


def output_size(h, w, size):
    """(oh, ow) of Paddle's resize rule: an int sets the shorter side."""
    if isinstance(size, int):
        if (w <= h and w == size) or (h <= w and h == size):
            return None
        if w < h:
            return int(size * h / w), size
        return size, int(size * w / h)
    return int(size[0]), int(size[1])


def resize(img, size, interpolation='bilinear'):
    if not (isinstance(size, int) or (isinstance(size, Iterable) and len(size) == 2)):
        raise TypeError(f'Got inappropriate size arg: {size}')
    h, w = img.shape[:2]
    hw = output_size(h, w, size)
    if hw is None:
        return img
    return _keep_channel(img, _cv.resize(img, (hw[1], hw[0]), interpolation))


def parse_padding(padding, fill, padding_mode):
    if not isinstance(padding, (numbers.Number, list, tuple)):
        raise TypeError('Got inappropriate padding arg')
    if not isinstance(fill, (numbers.Number, str, list, tuple)):
        raise TypeError('Got inappropriate fill arg')
    if not isinstance(padding_mode, str):
        raise TypeError('Got inappropriate padding_mode arg')
    if isinstance(padding, Sequence) and len(padding) not in (2, 4):
        raise ValueError("Padding must be an int or a 2, or 4 element tuple, not a "
                         f"{len(padding)} element tuple")
    if padding_mode not in _PAD_MODES:       # an assert in Paddle
        raise AssertionError('Padding mode should be either constant, edge, reflect or '
                             'symmetric')
    if isinstance(padding, numbers.Number):
        p = int(padding)
        return p, p, p, p                      # left, top, right, bottom
    if len(padding) == 2:
        return padding[0], padding[1], padding[0], padding[1]
    return tuple(padding)


def pad(img, padding, fill=0, padding_mode='constant'):
    left, top, right, bottom = parse_padding(padding, fill, padding_mode)
    out = _cv.copy_make_border(img, top, bottom, left, right, padding_mode, fill)
    return _keep_channel(img, out)


def crop(img, top, left, height, width):
    return img[top:top + height, left:left + width, :]


def center_crop(img, output_size):
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    h, w = img.shape[0:2]
    th, tw = output_size
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img):
    out = np.ascontiguousarray(img[:, ::-1])
    # cv2.flip drops a single channel axis and Paddle's hflip (unlike vflip) keeps it dropped
    return out[:, :, 0] if out.ndim == 3 and out.shape[2] == 1 else out


def vflip(img):
    return np.ascontiguousarray(img[::-1])


def adjust_brightness(img, brightness_factor):
    table = np.clip(np.arange(256) * brightness_factor, 0, 255).astype(np.uint8)
    return _cv.lut(img, table)


def adjust_contrast(img, contrast_factor):
    table = np.clip((np.arange(256) - 74) * contrast_factor + 74, 0, 255).astype(np.uint8)
    return _cv.lut(img, table)


def adjust_saturation(img, saturation_factor):
    # Paddle's cv2 backend draws the blend factor itself, from numpy's global generator
    dtype = img.dtype
    x = img.astype(np.float32)
    alpha = np.random.uniform(max(0, 1 - saturation_factor), 1 + saturation_factor)
    gray = _cv.rgb_to_gray(x, bgr=True)
    x = x * alpha + gray * (1 - alpha)
    return x.clip(0, 255).astype(dtype)


def adjust_hue(img, hue_factor):
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f'hue_factor:{hue_factor} is not in [-0.5, 0.5].')
    dtype = img.dtype
    hsv = _cv.bgr_to_hsv_full(img.astype(np.uint8)).astype(np.int64)
    hsv[..., 0] = (hsv[..., 0] + int(hue_factor * 255)) % 256
    return _cv.hsv_full_to_bgr(hsv.astype(np.uint8)).astype(dtype)


def _fill3(fill):
    return (fill,) * 3 if isinstance(fill, int) else fill


def affine(img, angle, translate, scale, shear, interpolation='nearest', fill=0, center=None):
    h, w = img.shape[0:2]
    fill = _fill3(fill)
    if center is None:
        center = (w / 2.0, h / 2.0)
    r = _cv.rotation_matrix_2d(center, angle, scale)
    sx = math.tan(shear[0] * math.pi / 180)
    sy = math.tan(shear[1] * math.pi / 180)
    m = np.empty((2, 3))
    m[0] = r[0] + sy * r[1]
    m[1] = r[1] + sx * r[0]
    m[0, 2], m[1, 2] = translate          # Paddle's cv2 backend: the translation replaces
    return _keep_channel(img, _cv.warp_affine(img, m, (w, h), interpolation, fill))


def rotate(img, angle, interpolation='nearest', expand=False, center=None, fill=0):
    h, w = img.shape[0:2]
    if center is None:
        center = (w / 2.0, h / 2.0)
    m = _cv.rotation_matrix_2d(center, angle, 1)
    if expand:
        a = -math.radians(angle)
        c, s = round(math.cos(a), 15), round(math.sin(a), 15)
        tx = c * -center[0] + s * -center[1] + center[0]
        ty = -s * -center[0] + c * -center[1] + center[1]
        xs = [c * x + s * y + tx for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
        ys = [-s * x + c * y + ty for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
        nw = math.ceil(max(xs)) - math.floor(min(xs))
        nh = math.ceil(max(ys)) - math.floor(min(ys))
        m[0, 2] += (nw - w) * 0.5
        m[1, 2] += (nh - h) * 0.5
        w, h = int(nw), int(nh)
    return _keep_channel(img, _cv.warp_affine(img, m, (w, h), interpolation, fill))


def perspective(img, startpoints, endpoints, interpolation='nearest', fill=0):
    h, w = img.shape[0:2]
    m = _cv.perspective_transform(startpoints, endpoints)
    return _keep_channel(img, _cv.warp_perspective(img, m, (w, h), interpolation, fill))


def to_grayscale(img, num_output_channels=1):
    if num_output_channels == 1:
        return _cv.rgb_to_gray(img)
    if num_output_channels == 3:
        return np.broadcast_to(_cv.rgb_to_gray(img), img.shape)
    raise ValueError('num_output_channels should be either 1 or 3')


def normalize(img, mean, std, data_format='CHW', to_rgb=False):
    shape = (-1, 1, 1) if data_format == 'CHW' else (1, 1, -1)
    mean = np.float32(np.array(mean).reshape(shape))
    std = np.float32(np.array(std).reshape(shape))
    if to_rgb:
        img = img[..., ::-1]
    return (img - mean) / std


def erase(img, i, j, h, w, v, inplace=False):
    if not inplace:
        img = img.copy()
    img[i:i + h, j:j + w, ...] = v
    return img
