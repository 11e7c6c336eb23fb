"""InceptionV3 (``paddle.vision.models.InceptionV3`` / ``inception_v3``), for
inputs of at least 75x75 (299x299 for the ImageNet weights)."""
import math

from ... import nn
from ...nn.initializer import Uniform
from ...nn.param_attr import ParamAttr
from ...tensor import concat, reshape
from ..ops import ConvNormActivation
from ._utils import load_pretrained

__all__ = []

model_urls = {
    "inception_v3": ("https://paddle-hapi.bj.bcebos.com/models/inception_v3.pdparams",
                     "649a4547c3243e8b59c656f41fe330b8"),
}


def _cbr(in_channels, out_channels, kernel_size, stride=1, padding=0):
    """Conv (no bias) + BatchNorm2D + ReLU."""
    return ConvNormActivation(in_channels=in_channels, out_channels=out_channels,
                              kernel_size=kernel_size, stride=stride, padding=padding,
                              activation_layer=nn.ReLU)


def _avg_pool_3x3():
    return nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)


class InceptionStem(nn.Layer):
    """The stem: five conv-bn-relu layers and two 3x3/2 max pools."""

    def __init__(self):
        super().__init__()
        self.conv_1a_3x3 = _cbr(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _cbr(32, 32, 3)
        self.conv_2b_3x3 = _cbr(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _cbr(64, 80, 1)
        self.conv_4a_3x3 = _cbr(80, 192, 3)

    def forward(self, x):
        x = self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x)))
        x = self.max_pool(x)
        x = self.conv_4a_3x3(self.conv_3b_1x1(x))
        return self.max_pool(x)


class InceptionA(nn.Layer):
    """1x1, 5x5, double 3x3 and pool branches (35x35 grid)."""

    def __init__(self, num_channels, pool_features):
        super().__init__()
        self.branch1x1 = _cbr(num_channels, 64, 1)
        self.branch5x5_1 = _cbr(num_channels, 48, 1)
        self.branch5x5_2 = _cbr(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _cbr(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cbr(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cbr(96, 96, 3, padding=1)
        self.branch_pool = _avg_pool_3x3()
        self.branch_pool_conv = _cbr(num_channels, pool_features, 1)

    def forward(self, x):
        branch1x1 = self.branch1x1(x)
        branch5x5 = self.branch5x5_2(self.branch5x5_1(x))
        branch3x3dbl = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        branch_pool = self.branch_pool_conv(self.branch_pool(x))
        return concat([branch1x1, branch5x5, branch3x3dbl, branch_pool], axis=1)


class InceptionB(nn.Layer):
    """Grid reduction 35 -> 17: strided 3x3, double 3x3 and max pool branches."""

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3 = _cbr(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _cbr(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cbr(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cbr(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        branch3x3 = self.branch3x3(x)
        branch3x3dbl = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        branch_pool = self.branch_pool(x)
        return concat([branch3x3, branch3x3dbl, branch_pool], axis=1)


class InceptionC(nn.Layer):
    """Factorized 7x7 branches (17x17 grid)."""

    def __init__(self, num_channels, channels_7x7):
        super().__init__()
        c7 = channels_7x7
        self.branch1x1 = _cbr(num_channels, 192, 1)
        self.branch7x7_1 = _cbr(num_channels, c7, 1)
        self.branch7x7_2 = _cbr(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _cbr(c7, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _cbr(num_channels, c7, 1)
        self.branch7x7dbl_2 = _cbr(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _cbr(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _cbr(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _cbr(c7, 192, (1, 7), padding=(0, 3))
        self.branch_pool = _avg_pool_3x3()
        self.branch_pool_conv = _cbr(num_channels, 192, 1)

    def forward(self, x):
        branch1x1 = self.branch1x1(x)
        branch7x7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        branch7x7dbl = self.branch7x7dbl_1(x)
        branch7x7dbl = self.branch7x7dbl_3(self.branch7x7dbl_2(branch7x7dbl))
        branch7x7dbl = self.branch7x7dbl_5(self.branch7x7dbl_4(branch7x7dbl))
        branch_pool = self.branch_pool_conv(self.branch_pool(x))
        return concat([branch1x1, branch7x7, branch7x7dbl, branch_pool], axis=1)


class InceptionD(nn.Layer):
    """Grid reduction 17 -> 8."""

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3_1 = _cbr(num_channels, 192, 1)
        self.branch3x3_2 = _cbr(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _cbr(num_channels, 192, 1)
        self.branch7x7x3_2 = _cbr(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _cbr(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _cbr(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        branch3x3 = self.branch3x3_2(self.branch3x3_1(x))
        branch7x7x3 = self.branch7x7x3_2(self.branch7x7x3_1(x))
        branch7x7x3 = self.branch7x7x3_4(self.branch7x7x3_3(branch7x7x3))
        branch_pool = self.branch_pool(x)
        return concat([branch3x3, branch7x7x3, branch_pool], axis=1)


class InceptionE(nn.Layer):
    """Expanded filter bank (8x8 grid): split 1x3 / 3x1 branches."""

    def __init__(self, num_channels):
        super().__init__()
        self.branch1x1 = _cbr(num_channels, 320, 1)
        self.branch3x3_1 = _cbr(num_channels, 384, 1)
        self.branch3x3_2a = _cbr(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _cbr(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _cbr(num_channels, 448, 1)
        self.branch3x3dbl_2 = _cbr(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _cbr(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _cbr(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = _avg_pool_3x3()
        self.branch_pool_conv = _cbr(num_channels, 192, 1)

    def forward(self, x):
        branch1x1 = self.branch1x1(x)
        branch3x3 = self.branch3x3_1(x)
        branch3x3 = concat([self.branch3x3_2a(branch3x3), self.branch3x3_2b(branch3x3)],
                           axis=1)
        branch3x3dbl = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        branch3x3dbl = concat([self.branch3x3dbl_3a(branch3x3dbl),
                               self.branch3x3dbl_3b(branch3x3dbl)], axis=1)
        branch_pool = self.branch_pool_conv(self.branch_pool(x))
        return concat([branch1x1, branch3x3, branch3x3dbl, branch_pool], axis=1)


class InceptionV3(nn.Layer):
    """Inception v3: stem, 3 A, 1 B, 4 C, 1 D and 2 E blocks (one LayerList,
    ``inception_block_list``), global average pool and the linear head."""

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.layers_config = {
            "inception_a": [[192, 256, 288], [32, 64, 64]],
            "inception_b": [288],
            "inception_c": [[768, 768, 768, 768], [128, 160, 160, 192]],
            "inception_d": [768],
            "inception_e": [1280, 2048],
        }
        cfg = self.layers_config
        self.inception_stem = InceptionStem()
        self.inception_block_list = nn.LayerList()
        for channels, pool_features in zip(*cfg["inception_a"]):
            self.inception_block_list.append(InceptionA(channels, pool_features))
        for channels in cfg["inception_b"]:
            self.inception_block_list.append(InceptionB(channels))
        for channels, c7 in zip(*cfg["inception_c"]):
            self.inception_block_list.append(InceptionC(channels, c7))
        for channels in cfg["inception_d"]:
            self.inception_block_list.append(InceptionD(channels))
        for channels in cfg["inception_e"]:
            self.inception_block_list.append(InceptionE(channels))
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            stdv = 1.0 / math.sqrt(2048 * 1.0)
            self.fc = nn.Linear(2048, num_classes,
                                weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)),
                                bias_attr=ParamAttr())

    def forward(self, x):
        x = self.inception_stem(x)
        for inception_block in self.inception_block_list:
            x = inception_block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = reshape(x, shape=[-1, 2048])
            x = self.dropout(x)
            x = self.fc(x)
        return x


def inception_v3(pretrained=False, **kwargs):
    """InceptionV3; ``pretrained=True`` loads ImageNet weights from the local cache."""
    model = InceptionV3(**kwargs)
    if pretrained:
        load_pretrained(model, "inception_v3", model_urls)
    return model
