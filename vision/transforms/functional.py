"""``paddle.vision.transforms.functional``: each function checks its image and
dispatches on its kind: a PIL image (``functional_pil``), a Tensor
(``functional_tensor``) or a numpy HW/HWC array (``functional_cv2``)."""
import math
import numbers

import numpy as np

from ...dygraph.tensor import Tensor
from ...program import Variable
from . import functional_cv2 as F_cv2
from . import functional_pil as F_pil
from . import functional_tensor as F_t

_is_pil_image = F_pil.is_pil_image

__all__ = []


def _is_tensor_image(img):
    return isinstance(img, (Tensor, Variable))


def _is_numpy_image(img):
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def _backend(img, what='img'):
    if _is_pil_image(img):
        return F_pil
    if _is_tensor_image(img):
        return F_t
    if _is_numpy_image(img):
        return F_cv2
    raise TypeError(f'{what} should be PIL Image or Tensor Image or ndarray with dim=[2 or 3]. '
                    f'Got {type(img)}')


def to_tensor(pic, data_format='CHW'):
    b = _backend(pic, 'pic')
    if b is F_t:
        return pic if data_format.lower() == 'chw' else pic.transpose((1, 2, 0))
    return b.to_tensor(pic, data_format)


def resize(img, size, interpolation='bilinear'):
    return _backend(img).resize(img, size, interpolation)


def pad(img, padding, fill=0, padding_mode='constant'):
    return _backend(img).pad(img, padding, fill, padding_mode)


def crop(img, top, left, height, width):
    return _backend(img).crop(img, top, left, height, width)


def center_crop(img, output_size):
    return _backend(img).center_crop(img, output_size)


def hflip(img):
    return _backend(img).hflip(img)


def vflip(img):
    return _backend(img).vflip(img)


def adjust_brightness(img, brightness_factor):
    b = _backend(img)
    if b is F_cv2:
        img = img.astype(np.uint8)
    return b.adjust_brightness(img, brightness_factor)


def adjust_contrast(img, contrast_factor):
    return _backend(img).adjust_contrast(img, contrast_factor)


def adjust_saturation(img, saturation_factor):
    return _backend(img).adjust_saturation(img, saturation_factor)


def adjust_hue(img, hue_factor):
    return _backend(img).adjust_hue(img, hue_factor)


def _get_affine_matrix(center, angle, translate, scale, shear):
    """The inverse affine map (output -> input pixel) as 6 numbers, PIL's convention."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    cx, cy = center
    tx, ty = translate
    m = [v / scale for v in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    b = _backend(img)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    if not isinstance(interpolation, str):
        raise TypeError("Argument interpolation should be a string")
    angle = float(angle)
    translate = list(translate)
    shear = [shear, 0.0] if isinstance(shear, numbers.Number) else list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    if b is F_pil:
        width, height = img.size
        if center is None:
            center = [width * 0.5, height * 0.5]
        return F_pil.affine(img, _get_affine_matrix(center, angle, translate, scale, shear),
                            interpolation, fill)
    if b is F_cv2:
        # Paddle reads (height, width) into (width, height) here: its default centre
        # is (h / 2, w / 2); kept for identical results
        width, height = img.shape[0:2]
        if center is None:
            center = (width * 0.5, height * 0.5)
        return F_cv2.affine(img, angle, translate, scale, shear, interpolation, fill, center)
    center_f = [0.0, 0.0]
    if center is not None:
        height, width = img.shape[-1], img.shape[-2]   # Paddle's order, kept likewise
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    matrix = _get_affine_matrix(center_f, angle, [1.0 * t for t in translate], scale, shear)
    return F_t.affine(img, matrix, interpolation, fill)


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    b = _backend(img)
    if isinstance(center, list):
        center = tuple(center)
    if isinstance(fill, list):
        fill = tuple(fill)
    return b.rotate(img, angle, interpolation, expand, center, fill)


def _get_perspective_coeffs(startpoints, endpoints):
    """The 8 coefficients mapping endpoints back to startpoints (least squares)."""
    a = np.zeros((2 * len(startpoints), 8))
    for i, (p1, p2) in enumerate(zip(endpoints, startpoints)):
        a[2 * i] = [p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]]
        a[2 * i + 1] = [0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]]
    b = np.array(startpoints, dtype=np.float64).reshape(8)
    return list(np.linalg.lstsq(a, b, rcond=-1)[0])


def perspective(img, startpoints, endpoints, interpolation='nearest', fill=0):
    b = _backend(img)
    if b is F_cv2:
        return F_cv2.perspective(img, startpoints, endpoints, interpolation, fill)
    return b.perspective(img, _get_perspective_coeffs(startpoints, endpoints),
                         interpolation, fill)


def to_grayscale(img, num_output_channels=1):
    return _backend(img).to_grayscale(img, num_output_channels)


def normalize(img, mean, std, data_format='CHW', to_rgb=False):
    if _is_tensor_image(img):
        return F_t.normalize(img, mean, std, data_format)
    if _is_pil_image(img):
        img = np.array(img).astype(np.float32)
    return F_cv2.normalize(img, mean, std, data_format, to_rgb)


def erase(img, i, j, h, w, v, inplace=False):
    if _is_tensor_image(img):
        return F_t.erase(img, i, j, h, w, v, inplace=inplace)
    if _is_pil_image(img):
        return F_pil.erase(img, i, j, h, w, v, inplace=inplace)
    return F_cv2.erase(img, i, j, h, w, v, inplace=inplace)
