"""More normalization layers: SpectralNorm (Paddle's ``spectral_norm`` op on
a weight given as input; its ``weight_u`` / ``weight_v`` vectors are
parameters that take no gradient) and SyncBatchNorm.

SyncBatchNorm synchronizes batch statistics across the processes of a
data-parallel job.  sampan runs one process, where the synchronized
statistics are the local ones, so it computes Paddle's BatchNorm (the
``batch_norm`` op, with Paddle's ``sync_batch_norm`` attributes:
``is_test = not training``, no global statistics); Paddle 2.6's CPU build has
no sync_batch_norm kernel at all (eager: RuntimeError; static: the op is not
registered)."""
import numpy as np

from ...ops import bind, get_op
from ...ops.defs.nn_spectral import check_spectral_norm
from ..functional.norm import batch_norm_op
from ..initializer import Normal
from ..param_attr import ParamAttr
from .layers import Layer
from .norm import _BatchNormBase

__all__ = ["SpectralNorm", "SyncBatchNorm"]

_SPECTRAL_NORM = get_op("spectral_norm")


def spectral_norm_vectors(layer, shape, dim, dtype):
    """The u ([h]) and v ([prod(shape) / h]) vectors of a spectral norm of a
    weight of ``shape``: N(0, 1) parameters that stop gradients."""
    h = shape[dim]
    w = int(np.prod(shape)) // h
    vecs = []
    for n in (h, w):
        p = layer.create_parameter(attr=ParamAttr(), shape=[n], dtype=dtype,
                                   default_initializer=Normal(0.0, 1.0))
        p.stop_gradient = True
        vecs.append(p)
    return vecs


def spectral_norm_op(weight, u, v, dim, power_iters, eps):
    attrs = {"dim": int(dim), "power_iters": int(power_iters), "eps": float(eps)}
    check_spectral_norm(weight, u, v, attrs)
    return bind(_SPECTRAL_NORM, (weight, u, v), attrs)[0]


class SpectralNorm(Layer):
    """Spectral normalization of the weight given to ``forward``:
    ``weight / sigma(weight)`` with sigma from ``power_iters`` power iterations
    from the layer's ``weight_u`` and ``weight_v`` (which the op leaves as
    they are)."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__()
        self._power_iters = power_iters
        self._eps = eps
        self._dim = dim
        self._dtype = dtype
        self._weight_shape = list(weight_shape)
        if not np.prod(self._weight_shape) > 0:
            raise AssertionError("Any dimension of `weight_shape` cannot be equal to 0.")
        if not dim < len(self._weight_shape):
            raise AssertionError("The input `dim` should be less than the length of "
                                 f"`weight_shape`, but received dim={dim}")
        self.weight_u, self.weight_v = spectral_norm_vectors(self, self._weight_shape, dim,
                                                             dtype)

    def forward(self, x):
        return spectral_norm_op(x, self.weight_u, self.weight_v, self._dim,
                                self._power_iters, self._eps)


class SyncBatchNorm(_BatchNormBase):
    """Batch normalization over N (and the spatial dims) of an input of rank
    2 to 5, statistics synchronized across processes (one process here)."""
    _formats = {"NCHW": "NCHW", "NCDHW": "NCHW", "NC": "NCHW", "NCL": "NCHW",
                "NHWC": "NHWC", "NDHWC": "NHWC", "NLC": "NHWC"}

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         None, name)

    def _check_data_format(self, fmt):
        if fmt not in self._formats:
            raise ValueError("expected 'NCDHW', 'NDHWC', 'NCL', 'NLC', 'NC', 'NCHW', 'NHWC' "
                             "for data_format")
        return self._formats[fmt]

    def forward(self, x):
        layout = self._check_data_format(self._data_format)
        return batch_norm_op(x, self._mean, self._variance, self.weight, self.bias,
                             not self.training, self._momentum, self._epsilon, layout,
                             False, False)

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """``layer`` with every BatchNorm1D/2D/3D sublayer (and itself) replaced
        by a SyncBatchNorm sharing its parameters and running statistics."""
        out = layer
        if isinstance(layer, _BatchNormBase):
            for attr in (layer._weight_attr, layer._bias_attr):
                if isinstance(attr, ParamAttr) and attr.name is not None:
                    attr.name = attr.name + "_sync"
            out = SyncBatchNorm(layer._num_features, layer._momentum, layer._epsilon,
                                layer._weight_attr, layer._bias_attr, layer._data_format,
                                layer._name)
            if layer._weight_attr is not False and layer._bias_attr is not False:
                out.weight = layer.weight
                out.bias = layer.bias
            out._mean = layer._mean
            out._variance = layer._variance
        for name, sub in layer.named_children():
            out.add_sublayer(name, cls.convert_sync_batchnorm(sub))
        return out
