"""VGG (``paddle.vision.models.VGG``, ``vgg11/13/16/19``, each with a
``batch_norm`` option)."""
from ... import nn
from ...tensor import flatten
from ._utils import load_pretrained

__all__ = []

model_urls = {
    "vgg16": ("https://paddle-hapi.bj.bcebos.com/models/vgg16.pdparams",
              "89bbffc0f87d260be9b8cdc169c991c4"),
    "vgg19": ("https://paddle-hapi.bj.bcebos.com/models/vgg19.pdparams",
              "23b18bb13d8894f60f54e642be79a0dd"),
}

# channels of each 3x3 convolution, "M" a 2x2 max pooling
cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M",
          512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
          512, 512, 512, 512, "M"],
}


class VGG(nn.Layer):
    """``features`` (a Layer: the convolution stack, see ``make_layers``), a 7x7
    adaptive average pool (``with_pool``) and the 3-layer classifier
    (``num_classes > 0``)."""

    def __init__(self, features, num_classes=1000, with_pool=True):
        super().__init__()
        self.features = features
        self.num_classes = num_classes
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = flatten(x, 1)
            x = self.classifier(x)
        return x


def make_layers(cfg, batch_norm=False):
    """The convolution stack of a VGG config (a list as in ``cfgs``)."""
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2D(in_channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(v))
        layers.append(nn.ReLU())
        in_channels = v
    return nn.Sequential(*layers)


def _vgg(arch, cfg, batch_norm, pretrained, **kwargs):
    model = VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs)
    if pretrained:
        load_pretrained(model, arch, model_urls)
    return model


def _builder(depth, cfg):
    def build(pretrained=False, batch_norm=False, **kwargs):
        arch = f"vgg{depth}" + ("_bn" if batch_norm else "")
        return _vgg(arch, cfg, batch_norm, pretrained, **kwargs)
    build.__name__ = build.__qualname__ = f"vgg{depth}"
    build.__doc__ = (f"VGG-{depth} (config {cfg!r}); ``batch_norm=True`` adds a BatchNorm2D "
                     f"after each convolution; ``pretrained=True`` loads ImageNet weights "
                     f"from the local cache (only vgg16 and vgg19 without batch norm have "
                     f"them).")
    return build


vgg11 = _builder(11, "A")
vgg13 = _builder(13, "B")
vgg16 = _builder(16, "D")
vgg19 = _builder(19, "E")
