"""``paddle.vision``: the model zoo (``vision.models``), the layers it is built
from (``vision.ops``), the image backends (``image_load``), transforms and
datasets, with the names Paddle 2.6 re-exports at this level."""
from . import datasets, models, ops, transforms  # noqa: F401
from .datasets import (  # noqa: F401
    MNIST, VOC2012, Cifar10, Cifar100, DatasetFolder, FashionMNIST, Flowers, ImageFolder)
from .image import get_image_backend, image_load, set_image_backend  # noqa: F401
from .models import *  # noqa: F401,F403
from .transforms import (  # noqa: F401
    BaseTransform, BrightnessTransform, CenterCrop, ColorJitter, Compose, ContrastTransform,
    Grayscale, HueTransform, Normalize, Pad, RandomCrop, RandomHorizontalFlip,
    RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize, SaturationTransform,
    ToTensor, Transpose, adjust_brightness, adjust_contrast, adjust_hue, center_crop, crop,
    hflip, normalize, pad, resize, rotate, to_grayscale, to_tensor, vflip)

__all__ = ["set_image_backend", "get_image_backend", "image_load"]
