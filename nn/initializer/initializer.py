"""The ``Initializer`` base: fan computation, and emitting the creation op.

An initializer only decides *which* creation op fills a parameter and with
which attributes (``_op``).  ``Initializer.forward`` then either runs that op
eagerly through ``bind`` and stores the result in the parameter, or, given a
static block (``block.append_op``), appends it there with the parameter as
its output, as Paddle does in the startup program.
"""
import math

from ...dygraph.aliases import write_data
from ...ops import bind, get_op
from ...ops.dtypes import to_enum
from ...dygraph.tensor import Tensor
from .lazy_init import LAZY, defer

__all__ = ["Initializer", "calculate_gain", "set_global_initializer"]

_GLOBAL = {"weight": None, "bias": None}


class Initializer:
    """Base class: ``init(param, block=None)`` fills ``param``."""

    def __call__(self, param, block=None):
        if LAZY.state and isinstance(param, Tensor):    # under paddle.LazyGuard
            return defer(self, param)
        return self.forward(param, block)

    def forward(self, param, block=None):
        op_type, attrs = self._op(list(param.shape), param.dtype)
        return _emit(param, block, op_type, attrs)

    def _op(self, shape, dtype):
        """(op type, attrs) of the creation op producing the values."""
        raise NotImplementedError(f"{type(self).__name__} does not define its creation op")

    def __repr__(self):
        fields = ", ".join(f"{k.lstrip('_')}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"

    @staticmethod
    def _compute_fans(var):
        """Paddle's (fan_in, fan_out): [in, out] for matrices; for conv kernels
        [out_c, in_c, *k] it is in_c * prod(k) and out_c * prod(k)."""
        shape = list(var.shape) if not isinstance(var, (list, tuple)) else list(var)
        if not shape:
            return 1, 1
        if len(shape) == 1:
            return shape[0], shape[0]
        if len(shape) == 2:
            return shape[0], shape[1]
        receptive = 1
        for s in shape[2:]:
            receptive *= s
        return shape[1] * receptive, shape[0] * receptive


def _emit(param, block, op_type, attrs):
    """Fill ``param`` with the output of creation op ``op_type``."""
    if block is not None and hasattr(block, "append_op") and not isinstance(param, Tensor):
        return block.append_op(type=op_type, outputs={"Out": [param]}, attrs=attrs)
    if not isinstance(param, Tensor):
        raise TypeError(f"initializer: expected a Tensor or Parameter to fill, "
                        f"got {type(param).__name__}")
    opdef = get_op(op_type)
    # creation ops have no tensor inputs, so nothing is recorded on the tape
    out = bind(opdef, (None,) * len(opdef.inputs), attrs)[0]
    value = out._data
    if list(value.shape) != list(param.shape):
        raise ValueError(f"initializer: op '{op_type}' produced shape {list(value.shape)} "
                         f"for parameter '{param.name}' of shape {list(param.shape)}")
    write_data(param, value)
    return None


def dtype_attr(dtype):
    """The ``dtype`` attribute (a VarType value) for a tensor dtype."""
    return to_enum(dtype)


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for ``nonlinearity`` (``param``: leaky_relu slope,
    0.01 when None)."""
    if param is None:
        param = 0.01
    else:
        if not isinstance(param, (bool, int, float)):
            raise TypeError(f"calculate_gain: param must be a number, got {type(param).__name__}")
        param = float(param)
    gains = {"sigmoid": 1, "linear": 1, "conv1d": 1, "conv2d": 1, "conv3d": 1,
             "conv1d_transpose": 1, "conv_transpose1d": 1, "conv2d_transpose": 1,
             "conv_transpose2d": 1, "conv3d_transpose": 1, "conv_transpose3d": 1,
             "tanh": 5.0 / 3, "relu": math.sqrt(2.0),
             "leaky_relu": math.sqrt(2.0 / (1 + param ** 2)), "selu": 3.0 / 4}
    if nonlinearity not in gains:
        raise ValueError(f"calculate_gain: nonlinearity '{nonlinearity}' is not supported; "
                         f"expected one of {sorted(gains)}")
    return gains[nonlinearity]


def set_global_initializer(weight_init, bias_init=None):
    """Initializers used for every later parameter that has no initializer of
    its own in its ParamAttr (None resets)."""
    for what, init in (("weight_init", weight_init), ("bias_init", bias_init)):
        if init is not None and not isinstance(init, Initializer):
            raise TypeError(f"set_global_initializer: {what} must be an Initializer or None, "
                            f"got {type(init).__name__}")
    _GLOBAL["weight"], _GLOBAL["bias"] = weight_init, bias_init


def _global_weight_initializer():
    return _GLOBAL["weight"]


def _global_bias_initializer():
    return _GLOBAL["bias"]
