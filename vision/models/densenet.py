"""DenseNet (``paddle.vision.models.DenseNet``, ``densenet121/161/169/201/264``),
built from Paddle's legacy ``nn.BatchNorm`` (with a fused activation)."""
import math

from ... import nn
from ...nn.initializer import Uniform
from ...nn.param_attr import ParamAttr
from ...tensor import concat, flatten
from ._utils import load_pretrained

__all__ = []

_DYGRAPH = "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/"
model_urls = {f"densenet{n}": (f"{_DYGRAPH}DenseNet{n}_pretrained.pdparams", md5)
              for n, md5 in [(121, "db1b239ed80a905290fd8b01d3af08e4"),
                             (161, "62158869cb315098bd25ddbfd308a853"),
                             (169, "82cc7c635c3f19098c748850efb2d796"),
                             (201, "16ca29565a7712329cf9e36e02caaf58"),
                             (264, "3270ce516b85370bba88cfdd9f60bff4")]}

# layers -> (initial features, growth rate, layers per dense block)
_SPECS = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
          169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32]),
          264: (64, 32, [6, 12, 64, 48])}


def _conv(cin, cout, k, stride, pad, groups):
    return nn.Conv2D(in_channels=cin, out_channels=cout, kernel_size=k, stride=stride,
                     padding=pad, groups=groups, weight_attr=ParamAttr(), bias_attr=False)


class BNACConvLayer(nn.Layer):
    """Batch norm with activation, then a bias-free convolution."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
                 act="relu"):
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = _conv(num_channels, num_filters, filter_size, stride, pad, groups)

    def forward(self, input):
        return self._conv(self._batch_norm(input))


class DenseLayer(nn.Layer):
    """Bottleneck (BN-ReLU-1x1) and BN-ReLU-3x3 producing ``growth_rate``
    channels, concatenated to the input."""

    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels=num_channels,
                                         num_filters=bn_size * growth_rate, filter_size=1,
                                         pad=0, stride=1)
        self.bn_ac_func2 = BNACConvLayer(num_channels=bn_size * growth_rate,
                                         num_filters=growth_rate, filter_size=3, pad=1,
                                         stride=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input):
        conv = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            conv = self.dropout_func(conv)
        return concat([input, conv], axis=1)


class DenseBlock(nn.Layer):
    """``num_layers`` DenseLayers registered as ``<name>_1`` ... ``<name>_<n>``."""

    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        pre_channel = num_channels
        for layer in range(num_layers):
            self.dense_layer_func.append(self.add_sublayer(
                f"{name}_{layer + 1}",
                DenseLayer(num_channels=pre_channel, growth_rate=growth_rate, bn_size=bn_size,
                           dropout=dropout)))
            pre_channel = pre_channel + growth_rate

    def forward(self, input):
        conv = input
        for func in self.dense_layer_func:
            conv = func(conv)
        return conv


class TransitionLayer(nn.Layer):
    """BN-ReLU-1x1 conv then 2x2 average pooling."""

    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels=num_channels,
                                          num_filters=num_output_features, filter_size=1,
                                          pad=0, stride=1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):
        return self.pool2d_avg(self.conv_ac_func(input))


class ConvBNLayer(nn.Layer):
    """A bias-free convolution then batch norm with activation."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
                 act="relu"):
        super().__init__()
        self._conv = _conv(num_channels, num_filters, filter_size, stride, pad, groups)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input):
        return self._batch_norm(self._conv(input))


class DenseNet(nn.Layer):
    """DenseNet of ``layers`` (121, 161, 169, 201, 264) with bottleneck width
    ``bn_size`` and ``dropout`` after each dense layer.  ``with_pool=False``
    returns the final feature map (Paddle 2.6's forward fails there with an
    UnboundLocalError; sampan returns what the argument asks for)."""

    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        supported_layers = [121, 161, 169, 201, 264]
        if layers not in supported_layers:
            raise AssertionError(f"supported layers are {supported_layers} but input layer "
                                 f"is {layers}")
        num_init_features, growth_rate, block_config = _SPECS[layers]
        self.conv1_func = ConvBNLayer(num_channels=3, num_filters=num_init_features,
                                      filter_size=7, stride=2, pad=3, act="relu")
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.block_config = block_config
        self.dense_block_func_list = []
        self.transition_func_list = []
        num_features = num_init_features
        last = len(block_config) - 1
        for i, num_layers in enumerate(block_config):
            self.dense_block_func_list.append(self.add_sublayer(
                f"db_conv_{i + 2}",
                DenseBlock(num_channels=num_features, num_layers=num_layers, bn_size=bn_size,
                           growth_rate=growth_rate, dropout=dropout, name=f"conv{i + 2}")))
            num_features = num_features + num_layers * growth_rate
            if i != last:
                self.transition_func_list.append(self.add_sublayer(
                    f"tr_conv{i + 2}_blk",
                    TransitionLayer(num_channels=num_features,
                                    num_output_features=num_features // 2)))
                num_features = num_features // 2
        self.batch_norm = nn.BatchNorm(num_features, act="relu")
        if self.with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if self.num_classes > 0:
            stdv = 1.0 / math.sqrt(num_features * 1.0)
            self.out = nn.Linear(num_features, num_classes,
                                 weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)),
                                 bias_attr=ParamAttr())

    def forward(self, input):
        conv = self.pool2d_max(self.conv1_func(input))
        last = len(self.block_config) - 1
        for i in range(len(self.block_config)):
            conv = self.dense_block_func_list[i](conv)
            if i != last:
                conv = self.transition_func_list[i](conv)
        y = self.batch_norm(conv)
        if self.with_pool:
            y = self.pool2d_avg(y)
        if self.num_classes > 0:
            y = flatten(y, start_axis=1, stop_axis=-1)
            y = self.out(y)
        return y


def _densenet(arch, layers, pretrained, **kwargs):
    model = DenseNet(layers=layers, **kwargs)
    if pretrained:
        load_pretrained(model, arch, model_urls)
    return model


def _builder(layers):
    arch = f"densenet{layers}"

    def build(pretrained=False, **kwargs):
        return _densenet(arch, layers, pretrained, **kwargs)
    build.__name__ = build.__qualname__ = arch
    build.__doc__ = (f"DenseNet-{layers}; ``pretrained=True`` loads ImageNet weights from the "
                     f"local cache; other keyword arguments go to DenseNet.")
    return build


densenet121 = _builder(121)
densenet161 = _builder(161)
densenet169 = _builder(169)
densenet201 = _builder(201)
densenet264 = _builder(264)
