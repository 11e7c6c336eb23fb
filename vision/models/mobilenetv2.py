"""MobileNetV2 (``paddle.vision.models.MobileNetV2`` / ``mobilenet_v2``)."""
from ... import nn
from ...tensor import flatten
from ..ops import ConvNormActivation
from ._utils import _make_divisible, load_pretrained

__all__ = []

model_urls = {
    "mobilenetv2_1.0": ("https://paddle-hapi.bj.bcebos.com/models/mobilenet_v2_x1.0.pdparams",
                        "0340af0a901346c8d46f4529882fb63d"),
}

# expansion t, channels c, repeats n, first stride s
_SETTING = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1],
            [6, 160, 3, 2], [6, 320, 1, 1]]


class InvertedResidual(nn.Layer):
    """1x1 expansion (when ``expand_ratio != 1``), 3x3 depthwise, 1x1 linear
    projection; residual when the stride is 1 and the channels are kept."""

    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=nn.BatchNorm2D):
        super().__init__()
        self.stride = stride
        if stride not in (1, 2):
            raise AssertionError(f"InvertedResidual stride must be 1 or 2, got {stride}")
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = self.stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvNormActivation(inp, hidden_dim, kernel_size=1,
                                             norm_layer=norm_layer,
                                             activation_layer=nn.ReLU6))
        layers += [ConvNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim,
                                      norm_layer=norm_layer, activation_layer=nn.ReLU6),
                   nn.Conv2D(hidden_dim, oup, 1, 1, 0, bias_attr=False),
                   norm_layer(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Layer):
    """MobileNetV2 with width multiplier ``scale``; ``with_pool`` the global
    average pool, ``num_classes > 0`` the dropout + linear head."""

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        round_nearest = 8
        norm_layer = nn.BatchNorm2D
        input_channel = _make_divisible(32 * scale, round_nearest)
        self.last_channel = _make_divisible(1280 * max(1.0, scale), round_nearest)
        features = [ConvNormActivation(3, input_channel, stride=2, norm_layer=norm_layer,
                                       activation_layer=nn.ReLU6)]
        for t, c, n, s in _SETTING:
            output_channel = _make_divisible(c * scale, round_nearest)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel,
                                                 s if i == 0 else 1, expand_ratio=t,
                                                 norm_layer=norm_layer))
                input_channel = output_channel
        features.append(ConvNormActivation(input_channel, self.last_channel, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if self.num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2),
                                            nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = flatten(x, 1)
            x = self.classifier(x)
        return x


def _mobilenet(arch, pretrained=False, **kwargs):
    model = MobileNetV2(**kwargs)
    if pretrained:
        load_pretrained(model, arch, model_urls)
    return model


def mobilenet_v2(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV2; ``pretrained=True`` loads ImageNet weights from the local
    cache (scale 1.0 only)."""
    return _mobilenet("mobilenetv2_" + str(scale), pretrained, scale=scale, **kwargs)
