"""Pooling layers: thin holders of the arguments of ``nn.functional``'s pools."""
from .. import functional as F
from .layers import Layer

__all__ = ["MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D",
           "AdaptiveMaxPool1D", "AdaptiveMaxPool2D", "AdaptiveMaxPool3D"]


class MaxPool1D(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, name=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.name = return_mask, ceil_mode, name

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding,
                            self.return_mask, self.ceil_mode, self.name)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _MaxPoolNd(Layer):
    _fn, _fmt = "max_pool2d", "NCHW"

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format=None, name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode = return_mask, ceil_mode
        self.data_format = data_format or self._fmt
        self.name = name

    def forward(self, x):
        return getattr(F, self._fn)(x, kernel_size=self.ksize, stride=self.stride,
                                    padding=self.padding, return_mask=self.return_mask,
                                    ceil_mode=self.ceil_mode, data_format=self.data_format,
                                    name=self.name)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxPool2D(_MaxPoolNd):
    _fn, _fmt = "max_pool2d", "NCHW"

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format,
                         name)


class MaxPool3D(_MaxPoolNd):
    _fn, _fmt = "max_pool3d", "NCDHW"

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format,
                         name)


class AvgPool1D(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
                 name=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.exclusive, self.ceil_mode, self.name = exclusive, ceil_mode, name

    def forward(self, x):
        return F.avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.exclusive,
                            self.ceil_mode, self.name)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Layer):
    _fn, _fmt = "avg_pool2d", "NCHW"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format=None, name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.divisor = ceil_mode, exclusive, divisor_override
        self.data_format = data_format or self._fmt
        self.name = name

    def forward(self, x):
        return getattr(F, self._fn)(x, kernel_size=self.ksize, stride=self.stride,
                                    padding=self.padding, ceil_mode=self.ceil_mode,
                                    exclusive=self.exclusive, divisor_override=self.divisor,
                                    data_format=self.data_format, name=self.name)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AvgPool2D(_AvgPoolNd):
    _fn, _fmt = "avg_pool2d", "NCHW"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format, name)


class AvgPool3D(_AvgPoolNd):
    _fn, _fmt = "avg_pool3d", "NCDHW"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format, name)


class AdaptiveAvgPool1D(Layer):
    def __init__(self, output_size, name=None):
        super().__init__()
        self.output_size, self.name = output_size, name

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size, self.name)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2D(Layer):
    _fn, _fmt = "adaptive_avg_pool2d", "NCHW"

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__()
        self._output_size, self._data_format, self._name = output_size, data_format, name

    def forward(self, x):
        return getattr(F, self._fn)(x, output_size=self._output_size,
                                    data_format=self._data_format, name=self._name)

    def extra_repr(self):
        return f"output_size={self._output_size}"


class AdaptiveAvgPool3D(AdaptiveAvgPool2D):
    _fn, _fmt = "adaptive_avg_pool3d", "NCDHW"

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size, data_format, name)


class AdaptiveMaxPool1D(Layer):
    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__()
        self.output_size, self.return_mask, self.name = output_size, return_mask, name

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_mask, self.name)

    def extra_repr(self):
        return f"output_size={self.output_size}, return_mask={self.return_mask}"


class AdaptiveMaxPool2D(Layer):
    _fn = "adaptive_max_pool2d"

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__()
        self._output_size, self._return_mask, self._name = output_size, return_mask, name

    def forward(self, x):
        return getattr(F, self._fn)(x, output_size=self._output_size,
                                    return_mask=self._return_mask, name=self._name)

    def extra_repr(self):
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class AdaptiveMaxPool3D(AdaptiveMaxPool2D):
    _fn = "adaptive_max_pool3d"
