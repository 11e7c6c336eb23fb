"""The PIL-image backend of ``paddle.vision.transforms.functional``: Paddle's
semantics, computed by Pillow itself.  Pillow is optional; it is imported only
when a PIL image reaches one of these functions."""
import numbers

import numpy as np

from .functional_cv2 import output_size, parse_padding


def _pil():
    try:
        from PIL import Image, ImageEnhance, ImageOps
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("PIL images need the 'Pillow' package (pip install Pillow); "
                          "numpy images and Tensors work without it") from e
    return Image, ImageEnhance, ImageOps


def is_pil_image(img):
    """True for a PIL image; never imports Pillow (no PIL image can exist without it)."""
    import sys
    mod = sys.modules.get("PIL.Image")
    return mod is not None and isinstance(img, mod.Image)


def _interp(name):
    Image = _pil()[0]
    r = getattr(Image, "Resampling", Image)
    table = {'nearest': r.NEAREST, 'bilinear': r.BILINEAR, 'bicubic': r.BICUBIC,
             'box': r.BOX, 'lanczos': r.LANCZOS, 'hamming': r.HAMMING}
    if name not in table:
        raise ValueError(f"interpolation should be one of {tuple(table)} for PIL images, "
                         f"got {name!r}")
    return table[name]


def to_tensor(pic, data_format='CHW'):
    from ...tensor.creation import to_tensor as _to_tensor
    if data_format not in ('CHW', 'HWC'):
        raise ValueError(f'data_format should be CHW or HWC. Got {data_format}')
    dtypes = {'I': np.int32, 'I;16': np.int32, 'F': np.float32}
    arr = np.asarray(pic, dtypes.get(pic.mode))
    if pic.mode == '1':
        arr = 255 * arr.astype(np.uint8)
    nchannel = 3 if pic.mode == 'YCbCr' else 1 if pic.mode == 'I;16' else len(pic.mode)
    if arr.dtype == np.uint8:
        # Paddle's `x / 255.0` multiplies by the float32 reciprocal
        arr = arr.astype(np.float32) * (np.float32(1) / np.float32(255))
    arr = arr.reshape(pic.size[1], pic.size[0], nchannel)
    if data_format == 'CHW':
        arr = arr.transpose(2, 0, 1)
    return _to_tensor(np.ascontiguousarray(arr))


def resize(img, size, interpolation='bilinear'):
    w, h = img.size
    hw = output_size(h, w, size)
    if hw is None:
        return img
    return img.resize((hw[1], hw[0]), _interp(interpolation))


def pad(img, padding, fill=0, padding_mode='constant'):
    Image, _, ImageOps = _pil()
    left, top, right, bottom = parse_padding(padding, fill, padding_mode)
    palette = img.getpalette() if img.mode == 'P' else None
    if padding_mode == 'constant':
        out = ImageOps.expand(img, border=(left, top, right, bottom), fill=fill)
    else:
        arr = np.asarray(img)
        widths = ((top, bottom), (left, right)) + (((0, 0),) if arr.ndim == 3 else ())
        out = Image.fromarray(np.pad(arr, widths, padding_mode))
    if palette is not None:
        out.putpalette(palette)
    return out


def crop(img, top, left, height, width):
    return img.crop((left, top, left + width, top + height))


def center_crop(img, output_size):
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    w, h = img.size
    th, tw = output_size
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img):
    Image = _pil()[0]
    return img.transpose(getattr(Image, "Transpose", Image).FLIP_LEFT_RIGHT)


def vflip(img):
    Image = _pil()[0]
    return img.transpose(getattr(Image, "Transpose", Image).FLIP_TOP_BOTTOM)


def adjust_brightness(img, brightness_factor):
    return _pil()[1].Brightness(img).enhance(brightness_factor)


def adjust_contrast(img, contrast_factor):
    return _pil()[1].Contrast(img).enhance(contrast_factor)


def adjust_saturation(img, saturation_factor):
    return _pil()[1].Color(img).enhance(saturation_factor)


def adjust_hue(img, hue_factor):
    Image = _pil()[0]
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f'hue_factor:{hue_factor} is not in [-0.5, 0.5].')
    if img.mode in {'L', '1', 'I', 'F'}:
        return img
    h, s, v = img.convert('HSV').split()
    np_h = (np.array(h, dtype=np.uint8).astype(np.int16) + int(hue_factor * 255)) % 256
    h = Image.fromarray(np_h.astype(np.uint8), 'L')
    return Image.merge('HSV', (h, s, v)).convert(img.mode)


def _fill3(fill):
    return (fill,) * 3 if isinstance(fill, int) else fill


def affine(img, matrix, interpolation="nearest", fill=0):
    Image = _pil()[0]
    method = getattr(Image, "Transform", Image).AFFINE
    return img.transform(img.size, method, matrix, _interp(interpolation), _fill3(fill))


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    return img.rotate(angle, _interp(interpolation), expand, center, fillcolor=_fill3(fill))


def perspective(img, coeffs, interpolation="nearest", fill=0):
    Image = _pil()[0]
    method = getattr(Image, "Transform", Image).PERSPECTIVE
    return img.transform(img.size, method, coeffs, _interp(interpolation), _fill3(fill))


def to_grayscale(img, num_output_channels=1):
    Image = _pil()[0]
    if num_output_channels == 1:
        return img.convert('L')
    if num_output_channels == 3:
        g = np.array(img.convert('L'), dtype=np.uint8)
        return Image.fromarray(np.dstack([g, g, g]), 'RGB')
    raise ValueError('num_output_channels should be either 1 or 3')


def erase(img, i, j, h, w, v, inplace=False):
    Image = _pil()[0]
    arr = np.array(img, dtype=np.uint8)
    arr[i:i + h, j:j + w, ...] = v
    return Image.fromarray(arr, 'RGB')
