"""numpy kernels of the activations and softmax / log_softmax, and the double
(relu, leaky_relu, elu, celu, softplus, tanh, sigmoid) and triple (tanh,
sigmoid) grads.

Each entry of ``ACTIVATIONS`` is ``(forward(x, attrs), grad(*uses, dout, attrs))``
with the grad op's inputs in slot order (see ops/defs/activation.py).
"""
import math

import numpy as np

from ..registry import kernel, FLOATS
from .fused_elementwise import compiled_kernel
from . import sigmoid_kernel
from .math import register_unary, norm_cdf


def sigmoid(x):
    """1 / (1 + exp(-x)); float32 arrays of at least ``SIGMOID_COMPILED_MIN``
    elements in one compiled pass (kernels/cpu/sigmoid_kernel.py: within 3 ulp,
    numpy's four passes within 4), the pass the fused convolutions' sigmoid,
    swish and silu epilogues share, so fused and unfused give the same bits."""
    if type(x) is np.ndarray and x.dtype == np.float32 and x.size >= SIGMOID_COMPILED_MIN \
            and x.flags.c_contiguous and sigmoid_kernel.available():
        return sigmoid_kernel.sigmoid_rows(x.reshape(1, 1, -1), None, None, "sigmoid",
                                           out=np.empty((1, 1, x.size), np.float32)
                                           ).reshape(x.shape)
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


# below this many elements numpy's passes cost less than the kernel's call
SIGMOID_COMPILED_MIN = 256


def _softplus(x, beta, threshold):
    bx = x * beta if beta != 1 else x
    return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta if beta != 1
                    else np.logaddexp(0, bx))


def _mask(cond, g):
    """g where cond holds, else 0, as Paddle computes it: g * cond (3x faster
    than np.where; NaN/inf in g stay NaN where cond fails, as in Paddle)."""
    out = np.multiply(g, cond)
    return out if g.ndim else np.asarray(out)


# relu and its grad on arrays of at least this many elements run compiled loops
# (numba): numpy 2's maximum(x, 0) ran at ~2 GB/s here (0.2-0.26 ms on W6's
# 32x16x32x32 maps, the loop 0.026), and g * (out > 0) is two passes
_RELU_COMPILED_MIN = 2048
_U = np.uint64


def _relu_loop(src, dst, z):
    # np.maximum(x, 0)'s numbers: NaN stays, -0.0 becomes +0.0
    for i in range(_U(src.size)):
        v = src[i]
        dst[i] = z if (v < z or v == z) else v


def _relu_loop_inplace(a, z):
    # _relu_loop with dst = src: one array, so LLVM vectorizes it (given the
    # same array twice, its runtime overlap check sends the loop to scalar code:
    # W6's 32x16x32x32 maps 0.17 ms against 0.056 out of place).  Adding z
    # (+0.0) is the tie: -0.0 becomes +0.0, nothing else changes; and a value
    # stored back as it was read would let LLVM drop that store, leaving a
    # conditional one that it vectorizes as a masked store (vmaskmovps, slow
    # on AMD: that loop took 0.25 ms on those maps on Zen 3, this one 0.044)
    for i in range(_U(a.size)):
        v = a[i]
        a[i] = (z if v < z else v) + z


def _relu_grad_loop(out, g, dst, z, one):
    # g * (out > 0): NaN and inf in g stay NaN where the mask is 0, -g * 0 is -0.0
    for i in range(_U(g.size)):
        dst[i] = g[i] * (one if out[i] > z else z)


def _relu_grad_loop_inplace(out, g, z, one):
    # _relu_grad_loop into g (as _relu_loop_inplace)
    for i in range(_U(g.size)):
        g[i] = g[i] * (one if out[i] > z else z)


def _flat(*arrays):
    """The arrays flat (views) when they are C-contiguous ndarrays of one float32 or
    float64 dtype and large enough for the compiled loops, else None."""
    a = arrays[0]
    if a.size < _RELU_COMPILED_MIN or a.dtype.type not in (np.float32, np.float64):
        return None
    for b in arrays:
        if type(b) is not np.ndarray or not b.flags.c_contiguous or b.dtype != a.dtype or \
                b.shape != a.shape:
            return None
    return [b.reshape(-1) for b in arrays]


def _relu(x):
    flat = _flat(x)
    loop = compiled_kernel(_relu_loop) if flat is not None else None
    if loop is None:
        return np.maximum(x, 0)
    dst = np.empty_like(x)
    loop(flat[0], dst.reshape(-1), x.dtype.type(0))
    return dst


def _relu_into(x):
    flat = _flat(x)
    loop = compiled_kernel(_relu_loop_inplace) if flat is not None else None
    if loop is None:
        return np.maximum(x, 0, out=x)
    loop(flat[0], x.dtype.type(0))
    return x


def _relu_grad(out, g):
    flat = _flat(out, g)
    loop = compiled_kernel(_relu_grad_loop) if flat is not None else None
    if loop is None:
        return _mask(out > 0, g)
    dst = np.empty_like(g)
    t = g.dtype.type
    loop(flat[0], flat[1], dst.reshape(-1), t(0), t(1))
    return dst


def _relu_grad_into(out, g):
    flat = _flat(out, g)
    loop = compiled_kernel(_relu_grad_loop_inplace) if flat is not None else None
    if loop is None:
        return np.multiply(g, out > 0, out=g)
    t = g.dtype.type
    loop(flat[0], flat[1], t(0), t(1))
    return g


def _tanh_into(x):
    return np.tanh(x, out=x)


def _tanh_grad_into(out, g):
    t = out * out                     # g * (1 - out * out), in g's array
    np.subtract(1, t, out=t)
    return np.multiply(g, t, out=g)


_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_K = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715


def _gelu(x, a):
    if a["approximate"]:
        return 0.5 * x * (1 + np.tanh(_GELU_K * (x + _GELU_C * x * x * x)))
    return x * norm_cdf(x)


def _gelu_grad(x, g, a):
    if a["approximate"]:
        x2 = x * x
        t = np.tanh(_GELU_K * (x + _GELU_C * x2 * x))
        d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _GELU_K * (1 + 3 * _GELU_C * x2)
        return g * d
    return g * (norm_cdf(x) + x * _INV_SQRT_2PI * np.exp(-0.5 * x * x))


def _silu_grad(x, g):
    s = sigmoid(x)
    return g * s * (1 + x * (1 - s))


def _swish(x, a):
    return x * sigmoid(a["beta"] * x)


def _swish_grad(x, g, a):
    b = a["beta"]
    s = sigmoid(b * x)
    return g * (s + b * x * s * (1 - s))


def _mish(x, a):
    return x * np.tanh(_softplus(x, 1.0, a["threshold"]))


def _mish_grad(x, g, a):
    th = a["threshold"]
    t = np.tanh(_softplus(x, 1.0, th))
    dsp = np.where(x > th, 1, sigmoid(x)).astype(x.dtype, copy=False)
    return g * (t + x * (1 - t * t) * dsp)


def _softplus_grad(x, g, a):
    b, th = a["beta"], a["threshold"]
    return np.where(x * b > th, g, g * sigmoid(b * x)).astype(g.dtype, copy=False)


def _hard_swish(x, a):
    return x * np.clip(x + a["offset"], 0, a["threshold"]) / a["scale"]


def _hard_swish_grad(x, g, a):
    t = x + a["offset"]
    d = np.where(t < 0, 0, np.where(t < a["threshold"], (2 * x + a["offset"]) / a["scale"], 1))
    return g * d.astype(g.dtype, copy=False)


def _elu(x, a):
    al = a["alpha"]
    with np.errstate(over="ignore"):
        return np.where(x > 0, x, al * np.expm1(x)).astype(x.dtype, copy=False)


def _celu(x, a):
    al = a["alpha"]
    with np.errstate(over="ignore"):
        return np.where(x > 0, x, al * np.expm1(x / al)).astype(x.dtype, copy=False)


def _selu(x, a):
    s, al = a["scale"], a["alpha"]
    with np.errstate(over="ignore"):
        return (s * np.where(x > 0, x, al * np.expm1(x))).astype(x.dtype, copy=False)


def _shrink(x, a):
    lam = a["lambda"]
    return np.where(x > lam, x - lam, np.where(x < -lam, x + lam, 0)).astype(x.dtype, copy=False)


ACTIVATIONS = {
    "relu": (lambda x, a: _relu(x), lambda out, g, a: _relu_grad(out, g)),
    "relu6": (lambda x, a: np.clip(x, 0, 6),
              lambda out, g, a: _mask((out > 0) & (out < 6), g)),
    "tanh": (lambda x, a: np.tanh(x), lambda out, g, a: g * (1 - out * out)),
    "sigmoid": (lambda x, a: sigmoid(x), lambda out, g, a: g * out * (1 - out)),
    "logsigmoid": (lambda x, a: -np.logaddexp(0, -x), lambda x, g, a: g * sigmoid(-x)),
    "silu": (lambda x, a: x * sigmoid(x), lambda x, g, a: _silu_grad(x, g)),
    "leaky_relu": (lambda x, a: np.where(x > 0, x, a["alpha"] * x).astype(x.dtype, copy=False),
                   lambda x, g, a: np.where(x > 0, g, a["alpha"] * g).astype(g.dtype,
                                                                              copy=False)),
    "elu": (_elu, lambda x, out, g, a: np.where(x > 0, g, g * (out + a["alpha"])).astype(
        g.dtype, copy=False)),
    "celu": (_celu, lambda x, g, a: np.where(x > 0, g, g * np.exp(x / a["alpha"])).astype(
        g.dtype, copy=False)),
    "selu": (_selu, lambda out, g, a: np.where(out > 0, g * a["scale"],
                                               g * (out + a["scale"] * a["alpha"])).astype(
        g.dtype, copy=False)),
    "gelu": (_gelu, _gelu_grad),
    "softplus": (lambda x, a: _softplus(x, a["beta"], a["threshold"]).astype(x.dtype,
                                                                             copy=False),
                 _softplus_grad),
    "swish": (_swish, _swish_grad),
    "mish": (_mish, _mish_grad),
    "hard_swish": (_hard_swish, _hard_swish_grad),
    "hard_sigmoid": (lambda x, a: np.clip(x * a["slope"] + a["offset"], 0, 1),
                     lambda out, g, a: _mask((out > 0) & (out < 1), g) * a["slope"]),
    "brelu": (lambda x, a: np.clip(x, a["t_min"], a["t_max"]),
              lambda x, g, a: _mask((x > a["t_min"]) & (x < a["t_max"]), g)),
    "softsign": (lambda x, a: x / (1 + np.abs(x)), lambda x, g, a: g / np.square(1 + np.abs(x))),
    "tanh_shrink": (lambda x, a: x - np.tanh(x), lambda x, g, a: g * np.square(np.tanh(x))),
    "hard_shrink": (lambda x, a: _mask(np.abs(x) > a["threshold"], x),
                    lambda x, g, a: _mask(np.abs(x) > a["threshold"], g)),
    "softshrink": (_shrink, lambda x, g, a: _mask(np.abs(x) > a["lambda"], g)),
    "thresholded_relu": (lambda x, a: _mask(x > a["threshold"], x),
                         lambda x, g, a: _mask(x > a["threshold"], g)),
}

# in-place forms (forward into X, grad into Out@GRAD; no attrs) for the
# executor's buffer reuse
ACTIVATIONS_INTO = {
    "relu": (_relu_into, _relu_grad_into),
    "tanh": (_tanh_into, _tanh_grad_into),
}

for _name, (_f, _g) in ACTIVATIONS.items():
    _fi, _gi = ACTIVATIONS_INTO.get(_name, (None, None))
    register_unary(_name, _f, _g, FLOATS, attrs=True, fwd_into=_fi, grad_into=_gi,
                   into_attrs=False)


# ------------------------------------------------------------------ softmax
def softmax(x, axis):
    if x.ndim == 0:
        return np.ones_like(x)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    e /= e.sum(axis=axis, keepdims=True)
    return e


def log_softmax(x, axis):
    if x.ndim == 0:
        return np.zeros_like(x)
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


@kernel("softmax", dtypes=FLOATS)
def softmax_k(ins, attrs, need):
    return (softmax(ins[0], attrs["axis"]),)


@kernel("softmax_grad", dtypes=FLOATS)
def softmax_grad(ins, attrs, need):
    out, g = ins
    if out.ndim == 0:
        return (np.zeros_like(g),)
    return (out * (g - (g * out).sum(axis=attrs["axis"], keepdims=True)),)


@kernel("log_softmax", dtypes=FLOATS)
def log_softmax_k(ins, attrs, need):
    return (log_softmax(ins[0], attrs["axis"]),)


@kernel("log_softmax_grad", dtypes=FLOATS)
def log_softmax_grad(ins, attrs, need):
    out, g = ins
    if out.ndim == 0:
        return (np.zeros_like(g),)
    return (g - np.exp(out) * g.sum(axis=attrs["axis"], keepdims=True),)


# ------------------------------------------------------------------ higher-order grads
# Inputs and outputs in the slot order of ops/defs/activation.py.  In the
# comments, y = Out, d = DOut (the first-order grad's incoming gradient), dd =
# DDX (the incoming gradient of dX); a triple grad also gets ``a`` and ``b``,
# the gradients of the double grad's two outputs (absent: zero).
def _zero_if_none(v, like):
    return np.zeros_like(like) if v is None else v


@kernel("relu_grad_grad", dtypes=FLOATS)
def relu_grad_grad(ins, attrs, need):
    out, ddx = ins
    return (_mask(out > 0, ddx),)


@kernel("leaky_relu_grad_grad", dtypes=FLOATS)
def leaky_relu_grad_grad(ins, attrs, need):
    x, ddx = ins
    return (np.where(x > 0, ddx, attrs["alpha"] * ddx).astype(ddx.dtype, copy=False),)


def _slope_grad_grad(x, dout, ddx, neg):
    """The double grad of an op with dX = d * (x > 0 ? 1 : s(x)), ``neg`` = (s(x),
    s'(x)): the gradient of x is dd d s'(x) where x <= 0, that of d is dd times
    the slope."""
    slope, dslope = neg
    dx = np.where(x > 0, 0, ddx * dout * dslope).astype(ddx.dtype, copy=False)
    ddout = np.where(x > 0, ddx, ddx * slope).astype(ddx.dtype, copy=False)
    return dx, ddout


@kernel("elu_grad_grad", dtypes=FLOATS)
def elu_grad_grad(ins, attrs, need):
    # slope alpha e^x for x <= 0, its derivative the same
    x, dout, ddx = ins
    s = attrs["alpha"] * np.exp(np.minimum(x, 0))
    return _slope_grad_grad(x, dout, ddx, (s, s))


@kernel("celu_grad_grad", dtypes=FLOATS)
def celu_grad_grad(ins, attrs, need):
    # slope e^(x / alpha) for x <= 0, its derivative that over alpha
    x, dout, ddx = ins
    al = attrs["alpha"]
    s = np.exp(np.minimum(x, 0) / al)
    return _slope_grad_grad(x, dout, ddx, (s, s / al))


@kernel("softplus_double_grad", dtypes=FLOATS)
def softplus_double_grad(ins, attrs, need):
    # dX = d * sigmoid(beta x) below the threshold, d above it
    x, dout, ddx = ins
    b = attrs["beta"]
    lin = x * b > attrs["threshold"]
    s = sigmoid(b * x)
    dx = np.where(lin, 0, dout * ddx * b * s * (1 - s)).astype(ddx.dtype, copy=False)
    ddout = np.where(lin, ddx, ddx * s).astype(ddx.dtype, copy=False)
    return dx, ddout


@kernel("tanh_grad_grad", dtypes=FLOATS)
def tanh_grad_grad(ins, attrs, need):
    # dX = d (1 - y^2): gradient of y -2 y d dd, of d dd (1 - y^2)
    out, dout, ddx = ins
    return -2 * out * dout * ddx, ddx * (1 - out * out)


@kernel("tanh_triple_grad", dtypes=FLOATS)
def tanh_triple_grad(ins, attrs, need):
    # L = a (-2 y d dd) + b dd (1 - y^2)
    out, dout, ddx, a, b = ins
    a, b = _zero_if_none(a, out), _zero_if_none(b, out)
    return (-2 * ddx * (a * dout + b * out),
            -2 * a * out * ddx,
            -2 * a * out * dout + b * (1 - out * out))


@kernel("sigmoid_grad_grad", dtypes=FLOATS)
def sigmoid_grad_grad(ins, attrs, need):
    # dX = d y (1 - y): gradient of y d dd (1 - 2y), of d dd y (1 - y)
    out, dout, ddx = ins
    return dout * ddx * (1 - 2 * out), ddx * out * (1 - out)


@kernel("sigmoid_triple_grad", dtypes=FLOATS)
def sigmoid_triple_grad(ins, attrs, need):
    # L = a d dd (1 - 2y) + b dd y (1 - y)
    out, dout, ddx, a, b = ins
    a, b = _zero_if_none(a, out), _zero_if_none(b, out)
    return (ddx * (b * (1 - 2 * out) - 2 * a * dout),
            a * ddx * (1 - 2 * out),
            a * dout * (1 - 2 * out) + b * out * (1 - out))


# ------------------------------------------------------------------ prelu
def _prelu_alpha(x, alpha, attrs):
    """Alpha reshaped to broadcast against x for the op's mode and layout."""
    mode = attrs["mode"]
    if mode == "all" or x.ndim == 0:
        return alpha.reshape(())
    if mode == "element":
        return alpha.reshape((1,) + x.shape[1:])
    if attrs["data_format"] in ("NCHW", "NC", "NCL", "NCDHW"):
        return alpha.reshape((1, -1) + (1,) * (x.ndim - 2))
    return alpha.reshape((1,) * (x.ndim - 1) + (-1,))


@kernel("prelu", dtypes=FLOATS)
def prelu(ins, attrs, need):
    x, alpha = ins
    a = _prelu_alpha(x, alpha, attrs)
    return (np.where(x > 0, x, a * x).astype(x.dtype, copy=False),)


@kernel("prelu_grad", dtypes=FLOATS)
def prelu_grad(ins, attrs, need):
    x, alpha, g = ins
    a = _prelu_alpha(x, alpha, attrs)
    pos = x > 0
    dx = da = None
    if need is None or need[0]:
        dx = np.where(pos, g, a * g).astype(g.dtype, copy=False)
    if need is None or need[1]:
        contrib = np.where(pos, 0, x * g)
        axes = tuple(i for i in range(x.ndim) if a.ndim == 0 or a.shape[i] == 1)
        da = contrib.sum(axis=axes).reshape(alpha.shape).astype(alpha.dtype, copy=False)
    return dx, da
