"""``paddle.nn.functional`` activations and softmax / log_softmax.

Each function binds one op (see ops/defs/activation.py); arguments and
defaults are Paddle 2.6's public ones, mapped onto the op's attributes.  The
``*_`` forms write x in place on the tape as the tensor's in-place methods do
(tensor/indexing.py ``inplace``: x keeps its identity, its gradient flows
through the activation, a leaf that needs a gradient refuses).
"""
from ...ops import bind, get_op, OpError
from ...tensor.indexing import inplace
from ...tensor.math import cast

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "elu", "elu_", "celu", "selu", "gelu",
           "silu", "softplus", "hardswish", "hardsigmoid", "hardtanh", "swish", "mish",
           "sigmoid", "log_sigmoid", "tanh", "tanh_", "softsign", "tanhshrink",
           "hardshrink", "softshrink", "thresholded_relu", "softmax", "softmax_",
           "log_softmax", "prelu"]

_OPS = {}


def _op(t):
    op = _OPS.get(t)
    if op is None:
        op = _OPS[t] = get_op(t)
    return op


def _act(op_type, x, attrs=None):
    return bind(_op(op_type), (x,), attrs)[0]


def relu(x, name=None):
    return _act("relu", x)


def relu_(x, name=None):
    return inplace(x, relu)


def relu6(x, name=None):
    return _act("relu6", x)


def leaky_relu(x, negative_slope=0.01, name=None):
    return _act("leaky_relu", x, {"alpha": float(negative_slope)})


def elu(x, alpha=1.0, name=None):
    return _act("elu", x, {"alpha": float(alpha)})


def elu_(x, alpha=1.0, name=None):
    return inplace(x, lambda t: elu(t, alpha))


def celu(x, alpha=1.0, name=None):
    if alpha == 0:
        raise OpError("celu: alpha must not be 0 (it divides x)", kind=ZeroDivisionError)
    return _act("celu", x, {"alpha": float(alpha)})


def selu(x, scale=1.0507009873554804934193349852946,
         alpha=1.6732632423543772848170429916717, name=None):
    if scale <= 1.0:
        raise OpError(f"selu: scale must be greater than 1.0, got {scale}")
    if alpha < 0:
        raise OpError(f"selu: alpha must be no less than 0, got {alpha}")
    return _act("selu", x, {"scale": float(scale), "alpha": float(alpha)})


def gelu(x, approximate=False, name=None):
    return _act("gelu", x, {"approximate": bool(approximate)})


def silu(x, name=None):
    return _act("silu", x)


def softplus(x, beta=1, threshold=20, name=None):
    return _act("softplus", x, {"beta": float(beta), "threshold": float(threshold)})


def hardswish(x, name=None):
    return _act("hard_swish", x)


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    return _act("hard_sigmoid", x, {"slope": float(slope), "offset": float(offset)})


def hardtanh(x, min=-1.0, max=1.0, name=None):
    return _act("brelu", x, {"t_min": float(min), "t_max": float(max)})


def swish(x, name=None):
    return _act("swish", x)


def mish(x, name=None):
    return _act("mish", x)


def sigmoid(x, name=None):
    return _act("sigmoid", x)


def log_sigmoid(x, name=None):
    return _act("logsigmoid", x)


def tanh(x, name=None):
    return _act("tanh", x)


def tanh_(x, name=None):
    return inplace(x, tanh)


def softsign(x, name=None):
    return _act("softsign", x)


def tanhshrink(x, name=None):
    return _act("tanh_shrink", x)


def hardshrink(x, threshold=0.5, name=None):
    return _act("hard_shrink", x, {"threshold": float(threshold)})


def softshrink(x, threshold=0.5, name=None):
    if threshold < 0:
        raise OpError(f"softshrink: threshold must be no less than 0, got {threshold}")
    return _act("softshrink", x, {"lambda": float(threshold)})


def thresholded_relu(x, threshold=1.0, name=None):
    return _act("thresholded_relu", x, {"threshold": float(threshold)})


def _maybe_cast(x, dtype):
    """Paddle casts to a given ``dtype`` even when x already has it (a cast op)."""
    if dtype is None:
        return x
    return cast(x, dtype)


def softmax(x, axis=-1, dtype=None, name=None):
    x = _maybe_cast(x, dtype)
    if axis == -1:
        return bind(_op("softmax"), (x,))[0]
    return bind(_op("softmax"), (x,), {"axis": int(axis)})[0]


def softmax_(x, axis=-1, dtype=None, name=None):
    return inplace(x, lambda t: softmax(t, axis, dtype))


def log_softmax(x, axis=-1, dtype=None, name=None):
    x = _maybe_cast(x, dtype)
    if axis == -1:
        return bind(_op("log_softmax"), (x,))[0]
    return bind(_op("log_softmax"), (x,), {"axis": int(axis)})[0]


def prelu(x, weight, data_format="NCHW", name=None):
    """``x > 0 ? x : weight * x`` with one shared weight or one per channel."""
    if len(weight.shape) > 1:
        raise OpError(f"prelu: the weight must be 0-D or 1-D, got shape {list(weight.shape)}",
                      kind=AssertionError)
    mode = "all"
    if len(weight.shape) == 1 and weight.shape[0] > 1:
        # only a per-channel weight reads data_format (a shared one passes it through)
        if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
            raise OpError(f"prelu: data_format must be one of NC, NCL, NCHW, NCDHW, NLC, "
                          f"NHWC, NDHWC, got '{data_format}'")
        if len(x.shape) < 2:        # Paddle's checks here are asserts: AssertionError
            raise OpError(f"prelu: a per-channel weight needs x of rank >= 2, got shape "
                          f"{list(x.shape)}", kind=AssertionError)
        channels_first = data_format[1] == "C"
        c = x.shape[1] if channels_first else x.shape[-1]
        if weight.shape[0] != c:
            raise OpError(f"prelu: weight has {weight.shape[0]} entries but x has {c} "
                          f"channels (x shape {list(x.shape)}, data_format {data_format})",
                          kind=AssertionError)
        data_format = "NCHW" if channels_first else "NHWC"
        mode = "channel"
    return bind(_op("prelu"), (x, weight), {"mode": mode, "data_format": data_format})[0]
