"""``paddle.vision.datasets``: Paddle's image datasets read from their local
files (Paddle's formats; sampan never downloads: a missing file is an error
naming its URL and where to put it) and the folder datasets."""
from .cifar import Cifar10, Cifar100
from .flowers import Flowers
from .folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST
from .voc2012 import VOC2012

__all__ = ['DatasetFolder', 'ImageFolder', 'MNIST', 'FashionMNIST', 'Flowers', 'Cifar10',
           'Cifar100', 'VOC2012']
