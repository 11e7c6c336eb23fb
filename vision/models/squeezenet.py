"""SqueezeNet 1.0 and 1.1 (``paddle.vision.models.SqueezeNet``,
``squeezenet1_0``, ``squeezenet1_1``)."""
from ... import nn
from ...nn import functional as F
from ...nn.param_attr import ParamAttr
from ...tensor import concat, squeeze
from ._utils import load_pretrained

__all__ = []

_DYGRAPH = "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/"
model_urls = {
    "squeezenet1_0": (_DYGRAPH + "SqueezeNet1_0_pretrained.pdparams",
                      "30b95af60a2178f03cf9b66cd77e1db1"),
    "squeezenet1_1": (_DYGRAPH + "SqueezeNet1_1_pretrained.pdparams",
                      "a11250d3a1f91d7131fd095ebbf09eee"),
}


def _conv(cin, cout, k, **kwargs):
    return nn.Conv2D(cin, cout, k, weight_attr=ParamAttr(), bias_attr=ParamAttr(), **kwargs)


class MakeFireConv(nn.Layer):
    """Conv2D (with bias) then ReLU."""

    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = _conv(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """A fire module: 1x1 squeeze, then 1x1 and 3x3 expands concatenated."""

    def __init__(self, input_channels, squeeze_channels, expand1x1_channels,
                 expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


# fire modules: (in, squeeze, expand 1x1, expand 3x3); the same for both versions
# after the stem
_FIRES = [(16, 64, 64), (16, 64, 64), (32, 128, 128), (32, 128, 128), (48, 192, 192),
          (48, 192, 192), (64, 256, 256), (64, 256, 256)]
# after which fire modules (1-based) a max pool follows, per version
_POOL_AFTER = {"1.0": (3, 7), "1.1": (2, 4)}


class SqueezeNet(nn.Layer):
    """SqueezeNet ``version`` '1.0' or '1.1'; the head (dropout and a 1x1 conv
    to ``num_classes`` channels) is always built; ``with_pool`` adds ReLU,
    global average pooling and squeezes to [N, num_classes]."""

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        self.version = version
        self.num_classes = num_classes
        self.with_pool = with_pool
        supported_versions = ["1.0", "1.1"]
        if version not in supported_versions:
            raise AssertionError(f"supported versions are {supported_versions} but input "
                                 f"version is {version}")
        if version == "1.0":
            self._conv = _conv(3, 96, 7, stride=2)
            channels = 96
        else:
            self._conv = _conv(3, 64, 3, stride=2, padding=1)
            channels = 64
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        for i, (sq, e1, e3) in enumerate(_FIRES, start=1):
            setattr(self, f"_conv{i}", MakeFire(channels, sq, e1, e3))
            channels = e1 + e3
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        self._conv9 = _conv(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        pool_after = _POOL_AFTER[self.version]
        for i in range(1, len(_FIRES) + 1):
            x = getattr(self, f"_conv{i}")(x)
            if i in pool_after:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = self._avg_pool(F.relu(x))
            x = squeeze(x, axis=[2, 3])
        return x


def _squeezenet(arch, version, pretrained, **kwargs):
    model = SqueezeNet(version, **kwargs)
    if pretrained:
        load_pretrained(model, arch, model_urls)
    return model


def squeezenet1_0(pretrained=False, **kwargs):
    """SqueezeNet 1.0; ``pretrained=True`` loads ImageNet weights from the
    local cache."""
    return _squeezenet("squeezenet1_0", "1.0", pretrained, **kwargs)


def squeezenet1_1(pretrained=False, **kwargs):
    """SqueezeNet 1.1; ``pretrained=True`` loads ImageNet weights from the
    local cache."""
    return _squeezenet("squeezenet1_1", "1.1", pretrained, **kwargs)
