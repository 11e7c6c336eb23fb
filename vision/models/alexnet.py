"""AlexNet (``paddle.vision.models.AlexNet`` / ``alexnet``), for 224x224
inputs (the classifier expects a 256x6x6 feature map)."""
import math

from ... import nn
from ...nn import functional as F
from ...nn.initializer import Uniform
from ...nn.param_attr import ParamAttr
from ...tensor import flatten
from ._utils import load_pretrained

__all__ = []

model_urls = {
    "alexnet": ("https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/"
                "AlexNet_pretrained.pdparams", "7f0f9f737132e02732d75a1459d98a43"),
}


def _uniform(fan_in):
    """Weight and bias attributes drawn from U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    stdv = 1.0 / math.sqrt(fan_in)
    return (ParamAttr(initializer=Uniform(-stdv, stdv)),
            ParamAttr(initializer=Uniform(-stdv, stdv)))


class ConvPoolLayer(nn.Layer):
    """Conv2D (uniform init), optional ReLU, then 3x3/2 max pooling."""

    def __init__(self, input_channels, output_channels, filter_size, stride, padding, stdv,
                 groups=1, act=None):
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = nn.Conv2D(in_channels=input_channels, out_channels=output_channels,
                               kernel_size=filter_size, stride=stride, padding=padding,
                               groups=groups,
                               weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)),
                               bias_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """AlexNet ("One weird trick" variant); ``num_classes <= 0`` leaves out
    the classifier (output: the [N, 256, 6, 6] feature map)."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, 1.0 / math.sqrt(3 * 11 * 11), act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, 1.0 / math.sqrt(64 * 5 * 5), act="relu")
        w, b = _uniform(192 * 3 * 3)
        self._conv3 = nn.Conv2D(192, 384, 3, stride=1, padding=1, weight_attr=w, bias_attr=b)
        w, b = _uniform(384 * 3 * 3)
        self._conv4 = nn.Conv2D(384, 256, 3, stride=1, padding=1, weight_attr=w, bias_attr=b)
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, 1.0 / math.sqrt(256 * 3 * 3), act="relu")
        if num_classes > 0:
            fan_in = 256 * 6 * 6      # the three linear layers share this init range
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            w, b = _uniform(fan_in)
            self._fc6 = nn.Linear(in_features=fan_in, out_features=4096, weight_attr=w,
                                  bias_attr=b)
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            w, b = _uniform(fan_in)
            self._fc7 = nn.Linear(in_features=4096, out_features=4096, weight_attr=w,
                                  bias_attr=b)
            w, b = _uniform(fan_in)
            self._fc8 = nn.Linear(in_features=4096, out_features=num_classes, weight_attr=w,
                                  bias_attr=b)

    def forward(self, inputs):
        x = self._conv1(inputs)
        x = self._conv2(x)
        x = F.relu(self._conv3(x))
        x = F.relu(self._conv4(x))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = flatten(x, start_axis=1, stop_axis=-1)
            x = F.relu(self._fc6(self._drop1(x)))
            x = F.relu(self._fc7(self._drop2(x)))
            x = self._fc8(x)
        return x


def _alexnet(arch, pretrained, **kwargs):
    model = AlexNet(**kwargs)
    if pretrained:
        load_pretrained(model, arch, model_urls)
    return model


def alexnet(pretrained=False, **kwargs):
    """AlexNet; ``pretrained=True`` loads the ImageNet weights from the local
    cache (vision/models/_utils.py)."""
    return _alexnet("alexnet", pretrained, **kwargs)
