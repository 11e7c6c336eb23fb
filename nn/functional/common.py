"""``paddle.nn.functional`` common functions: linear, dropout (and dropout2d,
dropout3d, alpha_dropout), pad, cosine_similarity.

linear is matmul_v2 + elementwise_add, as Paddle emits it; dropout over all
elements is the dropout op, dropout along ``axis`` is Paddle's composition of
uniform / greater_equal / multiply.  pad uses the ``pad`` op when every
dimension is padded with a constant, and ``pad3d`` otherwise (1-D and 2-D
spatial inputs unsqueezed to 3-D).
"""
import numbers

from ...ops import bind, get_op, OpError
from ... import tensor as T
from ...ops import named_outputs

__all__ = ["linear", "dropout", "dropout2d", "dropout3d", "alpha_dropout", "pad",
           "cosine_similarity"]

_DROPOUT = get_op("dropout")


@named_outputs("linear")
def linear(x, weight, bias=None, name=None):
    out = T.matmul(x, weight)
    return out if bias is None else T.add(out, bias)


# ------------------------------------------------------------------ dropout
def _check_p(p):
    if isinstance(p, bool) or not isinstance(p, numbers.Number):
        raise TypeError(f"p argument should be a number, got {type(p).__name__}")
    if p < 0 or p > 1:
        raise ValueError("p argument should between 0 and 1")


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    _check_p(p)
    if p == 0:
        return x
    if mode not in ("downscale_in_infer", "upscale_in_train"):
        raise ValueError("mode argument should be 'downscale_in_infer' or 'upscale_in_train'")
    if axis is not None and not isinstance(axis, (int, list, tuple)):
        raise TypeError("datatype of axis argument should be int or list")
    if axis is None:
        impl = "downgrade_in_infer" if mode == "downscale_in_infer" else mode
        attrs = {"dropout_prob": float(p), "is_test": not training,
                 "dropout_implementation": impl, "fix_seed": False, "seed": 0}
        return bind(_DROPOUT, (x, None), attrs)[0]
    return _dropout_axes(x, float(p), axis, training, mode)


def _dropout_axes(x, p, axis, training, mode):
    """Dropout with one draw per position of the ``axis`` dims, shared along the rest."""
    keep = 1.0 - p
    if not training:
        return T.scale(x, scale=keep) if mode == "downscale_in_infer" else x
    if p == 1.0:
        return T.scale(x, scale=0.0)
    shape = list(x.shape)
    axes = [axis] if isinstance(axis, int) else list(axis)
    if min(axes) < 0 or max(axes) > len(shape) - 1:
        raise ValueError(f"axis value should be greater than or equal to 0 and less than "
                         f"dimensions of x:{len(shape)}, but get axis value:{max(axes)} ")
    if len(axes) > len(shape):
        raise ValueError(f"length of axis should not be greater than dimensions of x:"
                         f"{len(shape)}, but get length of axis: {len(axes)}")
    scaled = T.scale(x, scale=1.0 / keep) if mode == "upscale_in_train" else x
    mask_shape = [shape[i] if i in axes else 1 for i in range(len(shape))]
    rnd = T.uniform(mask_shape, dtype="float32", min=0.0, max=1.0)
    keep_mask = T.greater_equal(rnd, T.full([1], p, dtype="float32"))
    return T.multiply(scaled, T.cast(keep_mask, x.dtype))


def _dropout_nd(x, p, training, data_format, rank, formats):
    if len(x.shape) != rank:
        raise ValueError(f"dimensions of x should be {rank}, but received {len(x.shape)} != {rank}")
    if data_format not in formats:
        raise ValueError(f"Attr(data_format) should be {' or '.join(formats)}. Received "
                         f"Attr(data_format): {data_format}.")
    channel = 1 if data_format == formats[0] else rank - 1
    return dropout(x, p=p, axis=[0, channel], training=training, mode="upscale_in_train")


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    return _dropout_nd(x, p, training, data_format, 4, ("NCHW", "NHWC"))


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    return _dropout_nd(x, p, training, data_format, 5, ("NCDHW", "NDHWC"))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def alpha_dropout(x, p=0.5, training=True, name=None):
    """Dropout that keeps SELU's self-normalising mean and variance (Paddle's ops)."""
    if isinstance(p, bool) or not isinstance(p, (float, int)):
        raise TypeError("p argument should be a float or int")
    if p < 0 or p > 1:
        raise ValueError("p argument should between 0 and 1")
    if not training:
        return x
    if p == 1:
        return T.scale(x, scale=0.0)
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    shape = list(x.shape)
    rnd = T.uniform(shape, dtype="float32", min=0.0, max=1.0)
    keep = T.cast(T.greater_equal(rnd, T.full(shape, p, dtype="float32")), x.dtype)
    drop = T.subtract(T.full(shape, 1.0, dtype=x.dtype), keep)
    bt = T.full(shape, b, dtype=x.dtype)
    y = T.add(T.multiply(x, keep), T.scale(drop, scale=alpha_p))
    return T.add(T.scale(y, scale=a), bt)


# ------------------------------------------------------------------ pad
_PAD_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_PAD_MODES = ("reflect", "replicate", "constant", "circular")


_PAD = get_op("pad")
_PAD3D = get_op("pad3d")


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", name=None):
    # Paddle's checks of mode, rank and data_format are asserts: AssertionError
    if mode not in _PAD_MODES:
        raise OpError(f"pad: mode should be one of constant, reflect, replicate, circular, "
                      f"but got {mode}.", kind=AssertionError)
    data_format = data_format.upper()
    nd = len(x.shape)
    if mode == "constant" and isinstance(pad, (list, tuple)) and len(pad) == 2 * nd:
        attrs = {"paddings": [int(v) for v in pad], "pad_value": float(value)}
        return bind(_PAD, (x,), attrs)[0]
    if nd not in _PAD_FORMATS:
        raise OpError(f"pad: input tensor dimension must be in [3, 4, 5] but got {nd}",
                      kind=AssertionError)
    if data_format not in _PAD_FORMATS[nd]:
        raise OpError(f"pad: input tensor dimension is {nd}, its data format should be in "
                      f"{list(_PAD_FORMATS[nd])} but got {data_format}", kind=AssertionError)
    pad = [int(v) for v in pad]
    last = data_format in ("NLC", "NHWC", "NDHWC")
    if nd == 3:
        pad = [0, 0, 0, 0] + pad if len(pad) == 2 else pad
        axes = [2, 3] if last else [3, 4]
    elif nd == 4:
        pad = pad + [0, 0] if len(pad) == 4 else pad
        axes = [1] if last else [2]
    else:
        axes = []
    if len(pad) != 6:
        raise ValueError(f"pad must have {2 * (nd - 2)} entries for a {nd}-D input in mode "
                         f"'{mode}', got {len(pad)}")
    x5 = T.unsqueeze(x, axis=axes) if axes else x
    attrs = {"paddings": pad, "mode": mode, "value": float(value),
             "data_format": "NDHWC" if last else "NCDHW"}
    op = _PAD3D
    out = bind(op, (x5,) + (None,) * (len(op.inputs) - 1), attrs)[0]
    return T.squeeze(out, axis=axes) if axes else out


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    w12 = T.sum(T.multiply(x1, x2), axis=axis)
    w1 = T.sum(T.multiply(x1, x1), axis=axis)
    w2 = T.sum(T.multiply(x2, x2), axis=axis)
    n12 = T.sqrt(T.clip(T.multiply(w1, w2), min=eps * eps))
    return T.divide(w12, n12)
