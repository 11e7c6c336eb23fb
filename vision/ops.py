"""``paddle.vision.ops``: the layers the vision models are built from.

``ConvNormActivation`` is Conv2D -> norm layer -> activation as one
``Sequential`` (so its state-dict keys are ``0.weight``, ``1.weight``,
``1._mean`` ...), as the MobileNet, ShuffleNet and InceptionV3 models of
Paddle 2.6 use it.
"""
from ..nn import BatchNorm2D, Conv2D, ReLU, Sequential

__all__ = []


class ConvNormActivation(Sequential):
    """Conv2D, then ``norm_layer(out_channels)`` (skipped when None), then
    ``activation_layer()`` (skipped when None).  ``padding=None`` keeps the
    spatial size for stride 1 (``(kernel_size - 1) // 2 * dilation``);
    ``bias=None`` gives the convolution a bias only when there is no norm layer."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None,
                 groups=1, norm_layer=BatchNorm2D, activation_layer=ReLU, dilation=1,
                 bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [Conv2D(in_channels, out_channels, kernel_size, stride, padding,
                         dilation=dilation, groups=groups, bias_attr=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
