"""Convolution layers (Conv1D/2D/3D and their transposes).  Weights are
[out_c, in_c/groups, *k] (transposed: [in_c, out_c/groups, *k]); the default
weight initializer is Normal(0, sqrt(2 / (prod(k) * in_c))) for convolutions
and Xavier-uniform for transposes, the bias starts at zero."""
import numpy as np

from .. import functional as F
from ..functional.conv import add_bias
from ..initializer import Normal
from .layers import Layer

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose"]

_FORMATS = {"NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC"}
_PAD_MODES = {"zeros", "reflect", "replicate", "circular"}


def convert_to_list(value, n, name):
    """An int, or a list/tuple of n ints, as a list of n ints."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * n
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"The {name}'s type must be list or tuple. Received: {value}")
    if len(value) != n:
        raise ValueError(f"The {name}'s length must be {n}. Received: {value}")
    for v in value:
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise ValueError(f"The {name}'s type must be a list or tuple of {n} integers. "
                             f"Received: {value} including element {v} of type {type(v)}")
    return [int(v) for v in value]


class _ConvNd(Layer):
    def _bias_here(self):
        """The bias F.conv* adds (None when the layer adds it: ``_with_bias``)."""
        return None if self._data_format.endswith("C") else self.bias

    def __init__(self, in_channels, out_channels, kernel_size, transposed, dims, stride=1,
                 padding=0, padding_mode="zeros", output_padding=0, dilation=1, groups=1,
                 weight_attr=None, bias_attr=None, data_format="NCHW"):
        super().__init__()
        if weight_attr is False:
            raise ValueError("weight_attr should not be False in Conv.")
        if padding_mode not in _PAD_MODES:
            raise ValueError(f"padding_mode must be one of {sorted(_PAD_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        if padding_mode != "zeros" and not isinstance(padding, int):
            raise TypeError("when padding_mode in ['reflect', 'replicate', 'circular'], "
                            "type of padding must be int")
        if data_format not in _FORMATS:
            raise ValueError(f"data_format must be one of {sorted(_FORMATS)}, but got "
                             f"data_format='{data_format}'")
        if groups <= 0 or in_channels % groups != 0:
            raise ValueError(f"in_channels ({in_channels}) must be divisible by groups "
                             f"({groups}).")
        if transposed and out_channels % groups != 0:
            raise ValueError(f"out_channels ({out_channels}) must be divisible by groups "
                             f"({groups}).")
        self._param_attr, self._bias_attr = weight_attr, bias_attr
        self._groups = groups
        self._in_channels, self._out_channels = in_channels, out_channels
        self._data_format = data_format
        self._channel_dim = len(data_format) - 1 if data_format[-1] == "C" else 1
        self._stride = convert_to_list(stride, dims, "stride")
        self._dilation = convert_to_list(dilation, dims, "dilation")
        self._kernel_size = convert_to_list(kernel_size, dims, "kernel_size")
        self._padding = padding
        self._padding_mode = padding_mode
        self.output_padding = output_padding
        if padding_mode != "zeros":
            pairs = convert_to_list(padding, dims, "padding")
            # F.pad wants the last spatial dim first: [w, w, h, h, ...]
            self._reversed_padding_repeated_twice = [p for p in reversed(pairs) for _ in (0, 1)]
        if transposed:
            filter_shape = [in_channels, out_channels // groups] + self._kernel_size
            default_init = None
        else:
            filter_shape = [out_channels, in_channels // groups] + self._kernel_size
            std = (2.0 / (float(np.prod(self._kernel_size)) * in_channels)) ** 0.5
            default_init = Normal(0.0, std)
        self.weight = self.create_parameter(shape=filter_shape, attr=self._param_attr,
                                            default_initializer=default_init)
        self.bias = self.create_parameter(attr=self._bias_attr, shape=[out_channels],
                                          is_bias=True)

    def _pad_input(self, x):
        """(input, conv padding): non-zero padding modes pad explicitly first."""
        if self._padding_mode == "zeros":
            return x, self._padding
        x = F.pad(x, self._reversed_padding_repeated_twice, mode=self._padding_mode,
                  data_format=self._data_format)
        return x, 0

    def extra_repr(self):
        s = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * len(self._stride):
            s += f", stride={self._stride}"
        if self._padding != 0:
            s += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            s += f", padding_mode={self._padding_mode}"
        if self.output_padding != 0:
            s += f", output_padding={self.output_padding}"
        if self._dilation != [1] * len(self._dilation):
            s += f", dilation={self._dilation}"
        if self._groups != 1:
            s += f", groups={self._groups}"
        return s + f", data_format={self._data_format}"


class Conv1D(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, False, 1, stride=stride,
                         padding=padding, padding_mode=padding_mode, dilation=dilation,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)

    def forward(self, x):
        x, padding = self._pad_input(x)
        return F.conv1d(x, self.weight, bias=self.bias, padding=padding, stride=self._stride,
                        dilation=self._dilation, groups=self._groups,
                        data_format=self._data_format)


class Conv2D(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, False, 2, stride=stride,
                         padding=padding, padding_mode=padding_mode, dilation=dilation,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)

    def forward(self, x):
        x, padding = self._pad_input(x)
        return _with_bias(F.conv2d(x, self.weight, bias=self._bias_here(), stride=self._stride,
                                padding=padding, dilation=self._dilation, groups=self._groups,
                                data_format=self._data_format), self)


class Conv3D(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, False, 3, stride=stride,
                         padding=padding, padding_mode=padding_mode, dilation=dilation,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)

    def forward(self, x):
        x, padding = self._pad_input(x)
        return _with_bias(F.conv3d(x, self.weight, bias=self._bias_here(), stride=self._stride,
                                padding=padding, dilation=self._dilation, groups=self._groups,
                                data_format=self._data_format), self)


def _with_bias(out, layer):
    """A channel-last Conv2D/Conv3D layer adds its bias itself: Paddle's layer
    reshapes it to [1, ..., 1, C] (F.conv2d with a bias tensor adds it as it is)."""
    if layer.bias is None or not layer._data_format.endswith("C"):
        return out
    return add_bias(out, layer.bias, True, reshape_last=True)


class _ConvTransposeNd(_ConvNd):
    _dims, _fn = 2, "conv2d_transpose"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, True, self._dims,
                         stride=stride, padding=padding, output_padding=output_padding,
                         dilation=dilation, groups=groups, weight_attr=weight_attr,
                         bias_attr=bias_attr, data_format=data_format)

    def forward(self, x, output_size=None):
        output_padding = self.output_padding if output_size is None else 0
        return getattr(F, self._fn)(x, self.weight, bias=self.bias, stride=self._stride,
                                    padding=self._padding, output_padding=output_padding,
                                    dilation=self._dilation, groups=self._groups,
                                    output_size=output_size, data_format=self._data_format)


class Conv1DTranspose(_ConvTransposeNd):
    _dims, _fn = 1, "conv1d_transpose"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, groups=groups, dilation=dilation,
                         weight_attr=weight_attr, bias_attr=bias_attr, data_format=data_format)


class Conv2DTranspose(_ConvTransposeNd):
    _dims, _fn = 2, "conv2d_transpose"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCHW"):       # (Paddle's order: dilation before groups)
        super().__init__(in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, groups=groups, dilation=dilation,
                         weight_attr=weight_attr, bias_attr=bias_attr, data_format=data_format)


class Conv3DTranspose(_ConvTransposeNd):
    _dims, _fn = 3, "conv3d_transpose"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCDHW"):       # (Paddle's order: dilation before groups)
        super().__init__(in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, groups=groups, dilation=dilation,
                         weight_attr=weight_attr, bias_attr=bias_attr, data_format=data_format)
