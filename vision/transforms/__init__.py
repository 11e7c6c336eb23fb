"""``paddle.vision.transforms``: image transforms for numpy HWC arrays (Paddle's
'cv2' semantics, computed in numpy), Tensors (CHW) and, when Pillow is
installed, PIL images.  ``functional`` dispatches on the image kind to
``functional_cv2`` / ``functional_tensor`` / ``functional_pil``; the classes
(``transforms.py``) draw their random parameters as Paddle does."""
from . import functional  # noqa: F401
from .functional import (adjust_brightness, adjust_contrast, adjust_hue, affine, center_crop,
                         crop, erase, hflip, normalize, pad, perspective, resize, rotate,
                         to_grayscale, to_tensor, vflip)
from .transforms import (BaseTransform, BrightnessTransform, CenterCrop, ColorJitter, Compose,
                         ContrastTransform, Grayscale, HueTransform, Normalize, Pad,
                         RandomAffine, RandomCrop, RandomErasing, RandomHorizontalFlip,
                         RandomPerspective, RandomResizedCrop, RandomRotation,
                         RandomVerticalFlip, Resize, SaturationTransform, ToTensor, Transpose)

__all__ = ['BaseTransform', 'Compose', 'Resize', 'RandomResizedCrop', 'CenterCrop',
           'RandomHorizontalFlip', 'RandomVerticalFlip', 'Transpose', 'Normalize',
           'BrightnessTransform', 'SaturationTransform', 'ContrastTransform', 'HueTransform',
           'ColorJitter', 'RandomCrop', 'Pad', 'RandomAffine', 'RandomRotation',
           'RandomPerspective', 'Grayscale', 'ToTensor', 'RandomErasing', 'to_tensor', 'hflip',
           'vflip', 'resize', 'pad', 'affine', 'rotate', 'perspective', 'to_grayscale', 'crop',
           'center_crop', 'adjust_brightness', 'adjust_contrast', 'adjust_hue', 'normalize',
           'erase']
