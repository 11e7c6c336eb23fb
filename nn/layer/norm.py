"""Normalization layers.  BatchNorm keeps its running statistics as
non-trainable parameters ``_mean`` (``<name>.w_1``, starts at 0) and
``_variance`` (``<name>.w_2``, starts at 1), after weight (w_0, ones) and
bias (b_0, zeros), as Paddle names them."""
import numbers

import numpy as np

from ...ops.dtypes import get_default_dtype
from .. import functional as F
from ..initializer import Constant
from ..param_attr import ParamAttr
from .layers import Layer

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "LayerNorm",
           "GroupNorm", "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D",
           "LocalResponseNorm"]


def _frozen_by(attr):
    """A parameter whose ParamAttr has learning_rate 0 takes no gradient."""
    return isinstance(attr, ParamAttr) and attr.learning_rate == 0.0


def _affine(layer, weight_attr, bias_attr, shape, dtype=None):
    """weight (ones) and bias (zeros); ``False`` attrs give frozen parameters."""
    if weight_attr is False:
        w = layer.create_parameter(attr=None, shape=shape, dtype=dtype,
                                   default_initializer=Constant(1.0))
        w.trainable = False
    else:
        w = layer.create_parameter(attr=weight_attr, shape=shape, dtype=dtype,
                                   default_initializer=Constant(1.0))
        if _frozen_by(weight_attr):
            w.trainable = False
    if bias_attr is False:
        b = layer.create_parameter(attr=None, shape=shape, dtype=dtype,
                                   default_initializer=Constant(0.0), is_bias=True)
        b.trainable = False
    else:
        b = layer.create_parameter(attr=bias_attr, shape=shape, dtype=dtype, is_bias=True)
        if _frozen_by(bias_attr):
            b.trainable = False
    return w, b


def _running_stats(layer, shape, dtype, mean_name=None, var_name=None, average=True):
    mean = layer.create_parameter(
        dtype=dtype, shape=shape,
        attr=ParamAttr(name=mean_name, initializer=Constant(0.0), trainable=False,
                       do_model_average=average))
    var = layer.create_parameter(
        dtype=dtype, shape=shape,
        attr=ParamAttr(name=var_name, initializer=Constant(1.0), trainable=False,
                       do_model_average=average))
    return mean, var


class _BatchNormBase(Layer):
    _formats = {}         # accepted data_format -> the one passed to F.batch_norm
    _ranks = ()

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", use_global_stats=None, name=None):
        super().__init__()
        self._num_features = num_features
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        self._use_global_stats = use_global_stats
        dtype = get_default_dtype()
        self._dtype = "float32" if dtype == "float16" else dtype
        shape = [num_features]
        self.weight, self.bias = _affine(self, weight_attr, bias_attr, shape, self._dtype)
        mean_name = None if name is None else name + "_mean"
        var_name = None if name is None else name + "_variance"
        self._mean, self._variance = _running_stats(self, shape, self._dtype, mean_name,
                                                    var_name)
        self._data_format = data_format
        self._in_place = False
        self._momentum = momentum
        self._epsilon = epsilon
        self._fuse_with_relu = False
        self._name = name

    def _check_data_format(self, fmt):
        if fmt not in self._formats:
            raise ValueError(f"{type(self).__name__}: expected data_format in "
                             f"{sorted(self._formats)}, got '{fmt}'")
        return self._formats[fmt]

    def _check_input_dim(self, input):
        if len(input.shape) not in self._ranks:
            want = " or ".join(f"{r}D" for r in self._ranks)
            raise ValueError(f"{type(self).__name__}: expected {want} input "
                             f"(got {len(input.shape)}D input)")

    def forward(self, input):
        fmt = self._check_data_format(self._data_format)
        self._check_input_dim(input)
        return F.batch_norm(input, self._mean, self._variance, weight=self.weight,
                            bias=self.bias, training=self.training, momentum=self._momentum,
                            epsilon=self._epsilon, data_format=fmt,
                            use_global_stats=self._use_global_stats)

    def extra_repr(self):
        s = (f"num_features={self._num_features}, momentum={self._momentum}, "
             f"epsilon={self._epsilon}")
        if self._data_format != "NCHW":
            s += f", data_format={self._data_format}"
        if self._name is not None:
            s += f", name={self._name}"
        return s


class BatchNorm1D(_BatchNormBase):
    _formats = {"NC": "NCHW", "NCL": "NCHW", "NCHW": "NCHW", "NLC": "NHWC", "NHWC": "NHWC"}
    _ranks = (2, 3)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm2D(_BatchNormBase):
    _formats = {"NCHW": "NCHW", "NHWC": "NHWC"}
    _ranks = (4,)


class BatchNorm3D(_BatchNormBase):
    _formats = {"NCDHW": "NCHW", "NCHW": "NCHW", "NDHWC": "NHWC", "NHWC": "NHWC"}
    _ranks = (5,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm(Layer):
    """The 1.x-style ``paddle.nn.BatchNorm`` (named ``batch_norm_<n>``), with
    an optional activation and ``is_test``."""

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__()
        if bias_attr is False:
            raise ValueError("bias_attr should not be False in batch_norm.")
        self._param_attr, self._bias_attr, self._act = param_attr, bias_attr, act
        self._dtype = "float32" if dtype == "float16" else dtype
        shape = [num_channels]
        self.weight = self.create_parameter(attr=param_attr, shape=shape, dtype=self._dtype,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter(attr=bias_attr, shape=shape, dtype=self._dtype,
                                          is_bias=True)
        if use_global_stats and _frozen_by(param_attr):
            self.weight.trainable = False
            self.bias.trainable = False
        self._mean, self._variance = _running_stats(
            self, shape, self._dtype, moving_mean_name, moving_variance_name,
            do_model_average_for_mean_and_var)
        self._in_place, self._data_layout = in_place, data_layout
        self._momentum, self._epsilon, self._is_test = momentum, epsilon, is_test
        self._use_global_stats = use_global_stats
        self._trainable_statistics = trainable_statistics

    def forward(self, input):
        # F.batch_norm's use_global_stats: None = follow `training`, False = batch
        # statistics even when testing (the op's trainable_statistics)
        ugs = True if self._use_global_stats else (False if self._trainable_statistics else None)
        out = F.batch_norm(input, self._mean, self._variance, weight=self.weight,
                           bias=self.bias, training=self.training and not self._is_test,
                           momentum=self._momentum, epsilon=self._epsilon,
                           data_format=self._data_layout, use_global_stats=ugs)
        return out if self._act is None else getattr(F, self._act)(out)


class LayerNorm(Layer):
    """Normalizes over the trailing ``normalized_shape`` dims; weight ones, bias
    zeros, each of size prod(normalized_shape) (``False`` attrs: none)."""

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 name=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = [normalized_shape]
        self._normalized_shape = list(normalized_shape)
        self._epsilon = epsilon
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        shape = [int(np.prod(self._normalized_shape))]
        self.weight = (None if weight_attr is False else self.create_parameter(
            attr=weight_attr, shape=shape, default_initializer=Constant(1.0)))
        self.bias = (None if bias_attr is False else self.create_parameter(
            attr=bias_attr, shape=shape, is_bias=True))

    def forward(self, input):
        return F.layer_norm(input, normalized_shape=self._normalized_shape, weight=self.weight,
                            bias=self.bias, epsilon=self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class LocalResponseNorm(Layer):
    """Local response normalization over neighbouring channels
    (``F.local_response_norm``)."""

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k
        self.data_format, self.name = data_format, name

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k,
                                     self.data_format, self.name)

    def extra_repr(self):
        s = f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
        if self.data_format != "NCHW":
            s += f", data_format={self.data_format}"
        if self.name is not None:
            s += f", name={self.name}"
        return s


class GroupNorm(Layer):
    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
            raise ValueError(f"GroupNorm: unsupported data layout: {data_format}")
        if num_groups <= 0 or num_channels % num_groups != 0:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self._num_groups, self._num_channels = num_groups, num_channels
        self._epsilon, self._data_format = epsilon, data_format
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        self.weight, self.bias = _affine(self, weight_attr, bias_attr, [num_channels])

    def forward(self, input):
        return F.group_norm(input, num_groups=self._num_groups, epsilon=self._epsilon,
                            weight=self.weight, bias=self.bias, data_format=self._data_format)

    def extra_repr(self):
        return (f"num_groups={self._num_groups}, num_channels={self._num_channels}, "
                f"epsilon={self._epsilon}")


class _InstanceNormBase(Layer):
    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        if weight_attr is False or bias_attr is False:
            if weight_attr is not bias_attr:
                raise ValueError("weight_attr and bias_attr must both be False or neither")
        self._epsilon, self._momentum, self._data_format = epsilon, momentum, data_format
        self._num_features = num_features
        if weight_attr is False:
            self.scale = self.bias = None
        else:
            self.scale = self.create_parameter(attr=weight_attr, shape=[num_features],
                                               default_initializer=Constant(1.0))
            self.bias = self.create_parameter(attr=bias_attr, shape=[num_features],
                                              is_bias=True)

    def forward(self, input):
        return F.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               momentum=self._momentum, data_format=self._data_format)

    def extra_repr(self):
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCL", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format)


class InstanceNorm2D(_InstanceNormBase):
    pass


class InstanceNorm3D(_InstanceNormBase):
    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format)
