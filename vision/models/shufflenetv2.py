"""ShuffleNetV2 (``paddle.vision.models.ShuffleNetV2`` and its builders
``shufflenet_v2_x0_25`` ... ``x2_0`` and ``shufflenet_v2_swish``)."""
from ... import nn
from ...tensor import concat, flatten, reshape, split, transpose
from ..ops import ConvNormActivation
from ._utils import load_pretrained

__all__ = []

_HAPI = "https://paddle-hapi.bj.bcebos.com/models/"
model_urls = {arch: (_HAPI + arch + ".pdparams", md5) for arch, md5 in [
    ("shufflenet_v2_x0_25", "1e509b4c140eeb096bb16e214796d03b"),
    ("shufflenet_v2_x0_33", "3d7b3ab0eaa5c0927ff1026d31b729bd"),
    ("shufflenet_v2_x0_5", "5e5cee182a7793c4e4c73949b1a71bd4"),
    ("shufflenet_v2_x1_0", "122d42478b9e81eb49f8a9ede327b1a4"),
    ("shufflenet_v2_x1_5", "faced5827380d73531d0ee027c67826d"),
    ("shufflenet_v2_x2_0", "cd3dddcd8305e7bcd8ad14d1c69a5784"),
    ("shufflenet_v2_swish", "adde0aa3b023e5b0c94a68be1c394b84"),
]}

# output channels of the stem, the three stages and the last conv, per scale
_STAGE_OUT = {0.25: [24, 24, 48, 96, 512], 0.33: [24, 32, 64, 128, 512],
              0.5: [24, 48, 96, 192, 1024], 1.0: [24, 116, 232, 464, 1024],
              1.5: [24, 176, 352, 704, 1024], 2.0: [24, 224, 488, 976, 2048]}
_STAGE_REPEATS = [4, 8, 4]


def create_activation_layer(act):
    """The layer class of ``act`` ('relu', 'swish' or None)."""
    if act == "swish":
        return nn.Swish
    if act == "relu":
        return nn.ReLU
    if act is None:
        return None
    raise RuntimeError(f"The activation function is not supported: {act}")


def channel_shuffle(x, groups):
    """Interleave the channels of ``x`` [N, C, H, W] across ``groups``."""
    batch_size, num_channels, height, width = x.shape[0:4]
    channels_per_group = num_channels // groups
    x = reshape(x, shape=[batch_size, groups, channels_per_group, height, width])
    x = transpose(x, perm=[0, 2, 1, 3, 4])
    return reshape(x, shape=[batch_size, num_channels, height, width])


class InvertedResidual(nn.Layer):
    """The stride-1 unit: half the channels pass, the other half go through
    1x1, 3x3 depthwise, 1x1; then concat and channel shuffle."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = ConvNormActivation(in_channels=in_channels // 2, out_channels=half,
                                           kernel_size=1, stride=1, padding=0, groups=1,
                                           activation_layer=activation_layer)
        self._conv_dw = ConvNormActivation(in_channels=half, out_channels=half, kernel_size=3,
                                           stride=stride, padding=1, groups=half,
                                           activation_layer=None)
        self._conv_linear = ConvNormActivation(in_channels=half, out_channels=half,
                                               kernel_size=1, stride=1, padding=0, groups=1,
                                               activation_layer=activation_layer)

    def forward(self, inputs):
        half = inputs.shape[1] // 2
        x1, x2 = split(inputs, num_or_sections=[half, half], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """The down-sampling unit: two strided branches, concatenated and shuffled."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = ConvNormActivation(in_channels=in_channels, out_channels=in_channels,
                                             kernel_size=3, stride=stride, padding=1,
                                             groups=in_channels, activation_layer=None)
        self._conv_linear_1 = ConvNormActivation(in_channels=in_channels, out_channels=half,
                                                 kernel_size=1, stride=1, padding=0, groups=1,
                                                 activation_layer=activation_layer)
        self._conv_pw_2 = ConvNormActivation(in_channels=in_channels, out_channels=half,
                                             kernel_size=1, stride=1, padding=0, groups=1,
                                             activation_layer=activation_layer)
        self._conv_dw_2 = ConvNormActivation(in_channels=half, out_channels=half, kernel_size=3,
                                             stride=stride, padding=1, groups=half,
                                             activation_layer=None)
        self._conv_linear_2 = ConvNormActivation(in_channels=half, out_channels=half,
                                                 kernel_size=1, stride=1, padding=0, groups=1,
                                                 activation_layer=activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 at ``scale`` (0.25, 0.33, 0.5, 1.0, 1.5 or 2.0) with ``act``
    ('relu' or 'swish'); blocks registered as ``2_1`` ... ``4_4``."""

    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        activation_layer = create_activation_layer(act)
        if scale not in _STAGE_OUT:
            raise NotImplementedError(f"This scale size:[{scale}] is not implemented!")
        stage_out_channels = [-1] + _STAGE_OUT[scale]
        self._conv1 = ConvNormActivation(in_channels=3, out_channels=stage_out_channels[1],
                                         kernel_size=3, stride=2, padding=1,
                                         activation_layer=activation_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage_id, num_repeat in enumerate(_STAGE_REPEATS):
            cin, cout = stage_out_channels[stage_id + 1], stage_out_channels[stage_id + 2]
            for i in range(num_repeat):
                if i == 0:
                    block = InvertedResidualDS(in_channels=cin, out_channels=cout, stride=2,
                                               activation_layer=activation_layer)
                else:
                    block = InvertedResidual(in_channels=cout, out_channels=cout, stride=1,
                                             activation_layer=activation_layer)
                self._block_list.append(self.add_sublayer(sublayer=block,
                                                          name=f"{stage_id + 2}_{i + 1}"))
        self._last_conv = ConvNormActivation(in_channels=stage_out_channels[-2],
                                             out_channels=stage_out_channels[-1], kernel_size=1,
                                             stride=1, padding=0,
                                             activation_layer=activation_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = stage_out_channels[-1]
            self._fc = nn.Linear(stage_out_channels[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for inv in self._block_list:
            x = inv(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = flatten(x, start_axis=1, stop_axis=-1)
            x = self._fc(x)
        return x


def _shufflenet_v2(arch, pretrained=False, **kwargs):
    model = ShuffleNetV2(**kwargs)
    if pretrained:
        load_pretrained(model, arch, model_urls)
    return model


def _builder(arch, scale, act=None):
    fixed = {"scale": scale} if act is None else {"scale": scale, "act": act}

    def build(pretrained=False, **kwargs):
        return _shufflenet_v2(arch, pretrained=pretrained, **fixed, **kwargs)
    build.__name__ = build.__qualname__ = arch
    build.__doc__ = (f"ShuffleNetV2 at scale {scale} with {act or 'relu'}; "
                     f"``pretrained=True`` loads ImageNet weights from the local cache.")
    return build


shufflenet_v2_x0_25 = _builder("shufflenet_v2_x0_25", 0.25)
shufflenet_v2_x0_33 = _builder("shufflenet_v2_x0_33", 0.33)
shufflenet_v2_x0_5 = _builder("shufflenet_v2_x0_5", 0.5)
shufflenet_v2_x1_0 = _builder("shufflenet_v2_x1_0", 1.0)
shufflenet_v2_x1_5 = _builder("shufflenet_v2_x1_5", 1.5)
shufflenet_v2_x2_0 = _builder("shufflenet_v2_x2_0", 2.0)
shufflenet_v2_swish = _builder("shufflenet_v2_swish", 1.0, act="swish")
