"""More layers of ``paddle.nn``: GLU, RReLU, PixelUnshuffle, ChannelShuffle,
Unflatten, PairwiseDistance, Bilinear, MaxUnPool1D/2D/3D, Unfold and Fold,
each over its ``nn.functional`` function (or ``paddle.unflatten``), with
Paddle 2.6's constructor arguments, checks and reprs."""
from ... import tensor as T
from ...ops.dtypes import get_default_dtype
from .. import functional as F
from .layers import Layer

__all__ = ["GLU", "RReLU", "PixelUnshuffle", "ChannelShuffle", "Unflatten", "PairwiseDistance", "Bilinear", "MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D", "Unfold",
           "Fold"]


def _name_str(name):
    return f", name={name}" if name else ""


class GLU(Layer):
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis, self._name = axis, name

    def forward(self, x):
        return F.glu(x, self._axis, self._name)

    def extra_repr(self):
        return f"axis={self._axis}{_name_str(self._name)}"


class RReLU(Layer):
    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x):
        return F.rrelu(x, lower=self._lower, upper=self._upper, training=self.training)

    def extra_repr(self):
        return (f"lower={self._lower}, upper={self._upper}, training={self.training}, "
                f"dtype={self._dtype}{_name_str(self._name)}")


def _check_layer_format(data_format):
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("Data format should be 'NCHW' or 'NHWC'."
                         f"But recevie data format: {data_format}")


class PixelUnshuffle(Layer):
    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__()
        if not isinstance(downscale_factor, int):
            raise TypeError("Downscale factor must be int type")
        if downscale_factor <= 0:
            raise ValueError("Downscale factor must be positive")
        _check_layer_format(data_format)
        self._downscale_factor, self._data_format, self._name = (
            downscale_factor, data_format, name)

    def forward(self, x):
        return F.pixel_unshuffle(x, self._downscale_factor, self._data_format, self._name)

    def extra_repr(self):
        s = f"downscale_factor={self._downscale_factor}"
        if self._data_format != "NCHW":
            s += f", data_format={self._data_format}"
        if self._name is not None:
            s += f", name={self._name}"
        return s


class ChannelShuffle(Layer):
    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        if not isinstance(groups, int):
            raise TypeError("groups must be int type")
        if groups <= 0:
            raise ValueError("groups must be positive")
        _check_layer_format(data_format)
        self._groups, self._data_format, self._name = groups, data_format, name

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format, self._name)

    def extra_repr(self):
        s = f"groups={self._groups}"
        if self._data_format != "NCHW":
            s += f", data_format={self._data_format}"
        if self._name is not None:
            s += f", name={self._name}"
        return s


class Unflatten(Layer):
    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape, self.name = axis, shape, name

    def forward(self, input):
        return T.unflatten(input, axis=self.axis, shape=self.shape, name=self.name)

    def extra_repr(self):
        return f"axis={self.axis}, shape={self.shape}{_name_str(self.name)}"


class PairwiseDistance(Layer):
    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p, self.epsilon, self.keepdim, self.name = p, epsilon, keepdim, name

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim, self.name)

    def extra_repr(self):
        s = f"p={self.p}"
        if self.epsilon != 1e-6:
            s += f", epsilon={self.epsilon}"
        if self.keepdim is not False:
            s += f", keepdim={self.keepdim}"
        if self.name is not None:
            s += f", name={self.name}"
        return s


class Bilinear(Layer):
    """out[b, k] = x1[b] @ weight[k] @ x2[b] + bias[0, k]; weight is
    [out_features, in1_features, in2_features], bias [1, out_features]."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None,
                 bias_attr=None, name=None):
        super().__init__()
        self._weight_attr, self._bias_attr, self._name = weight_attr, bias_attr, name
        self._in1_features, self._in2_features = in1_features, in2_features
        self._out_features = out_features
        self._dtype = get_default_dtype()
        self.weight = self.create_parameter(
            attr=self._weight_attr, shape=[out_features, in1_features, in2_features],
            dtype=self._dtype, is_bias=False)
        self.bias = self.create_parameter(attr=self._bias_attr, shape=[1, out_features],
                                          dtype=self._dtype, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias, self._name)

    def extra_repr(self):
        return (f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                f"out_features={self._out_features}, dtype={self._dtype}"
                f"{_name_str(self._name)}")


class _MaxUnPoolNd(Layer):
    _fn = None
    _format = None

    def __init__(self, kernel_size, stride=None, padding=0, data_format=None,
                 output_size=None, name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.data_format = data_format or self._format
        self.output_size, self.name = output_size, name

    def forward(self, x, indices):
        return getattr(F, self._fn)(x, indices, kernel_size=self.ksize, stride=self.stride,
                                    padding=self.padding, data_format=self.data_format,
                                    output_size=self.output_size, name=self.name)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class MaxUnPool1D(_MaxUnPoolNd):
    _fn, _format = "max_unpool1d", "NCL"

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool2D(_MaxUnPoolNd):
    _fn, _format = "max_unpool2d", "NCHW"

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool3D(_MaxUnPoolNd):
    _fn, _format = "max_unpool3d", "NCDHW"

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class Unfold(Layer):
    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes, self.dilations = kernel_sizes, dilations
        self.paddings, self.strides, self.name = paddings, strides, name

    def forward(self, input):
        return F.unfold(input, kernel_sizes=self.kernel_sizes, strides=self.strides,
                        paddings=self.paddings, dilations=self.dilations, name=self.name)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, "
                f"padding={self.paddings}, stride={self.strides}{_name_str(self.name)}")


class Fold(Layer):
    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1,
                 name=None):
        super().__init__()
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides, self.name = (
            dilations, paddings, strides, name)

    def forward(self, input):
        return F.fold(input, self.output_sizes, self.kernel_sizes, strides=self.strides,
                      paddings=self.paddings, dilations=self.dilations, name=self.name)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, "
                f"padding={self.paddings}, stride={self.strides}{_name_str(self.name)}")
