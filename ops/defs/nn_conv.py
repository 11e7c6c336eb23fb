"""Convolution and pooling ops, 2-D and 3-D: conv2d, depthwise_conv2d,
conv2d_transpose, conv3d, conv3d_transpose, pool2d, pool3d,
max_pool2d_with_index, max_pool3d_with_index, their grads, and the double
grads Paddle has (conv2d, depthwise_conv2d, conv2d_transpose, conv3d, pool2d).

The window geometry (Paddle's padding algorithms, output sizes) lives here
once, for any number of spatial dims; the kernels import it, so infer_meta
and the kernels cannot disagree.
"""
import functools

import numpy as np

from ..declare import defop, defgrad, grad_op, grad_chain, REQUIRED
from ..registry import Meta, OpError

# ------------------------------------------------------------------ geometry


def _dims(v, n, what, positive=False):
    """``v`` as n entries, one per spatial dim (a single entry repeats);
    ``positive``: each must be > 0 (strides, dilations, window sizes)."""
    v = list(v)
    if len(v) == 1:
        v = v * n
    if len(v) != n:
        raise OpError(f"{what} must have {n} entries (one per spatial dim), got {v}")
    if positive and any(e <= 0 for e in v):
        raise OpError(f"{what} must be greater than 0, got {v}")
    return v


def resolve_padding(in_hw, k_hw, strides, paddings, algorithm, dilations=None):
    """Paddle's UpdatePaddingAndDilation: one (before, after) pair per spatial
    dim and the dilations actually used (SAME resets them to 1).  Unknown sizes
    (-1) give unknown pads under SAME."""
    n = len(in_hw)
    if dilations is None:
        dilations = (1,) * n
    if algorithm == "SAME":
        pads = []
        for i, k, s in zip(in_hw, k_hw, strides):
            if i < 0:
                pads.append((-1, -1))
                continue
            o = (i + s - 1) // s
            p = max((o - 1) * s + k - i, 0)
            pads.append((p // 2, p - p // 2))
        return tuple(pads), (1,) * n
    if algorithm == "VALID":
        return ((0, 0),) * n, tuple(dilations)
    if algorithm != "EXPLICIT":
        raise OpError(f"padding_algorithm must be 'EXPLICIT', 'SAME' or 'VALID', "
                      f"got '{algorithm}'")
    p = list(paddings)
    if len(p) == n:
        return tuple((v, v) for v in p), tuple(dilations)
    if len(p) == 2 * n:
        return tuple(zip(p[0::2], p[1::2])), tuple(dilations)
    raise OpError(f"paddings must have {n} or {2 * n} entries, got {p}")


def conv_out(i, k, s, pad, d):
    if i < 0 or pad[0] < 0:
        return -1
    o = (i + pad[0] + pad[1] - (d * (k - 1) + 1)) // s + 1
    if o < 0:            # a window just past the input gives an empty output (as Paddle)
        raise OpError(f"the output size {o} is negative (input {i}, kernel {k}, "
                      f"stride {s}, padding {list(pad)}, dilation {d})")
    return o


def conv_geometry(in_hw, k_hw, attrs):
    """(pads, dilations, strides, output sizes) of a convolution, each a tuple;
    remembered per (sizes, attributes): kernels ask it on every call."""
    return _geometry(tuple(in_hw), tuple(k_hw), tuple(attrs["strides"]),
                     tuple(attrs["paddings"]), attrs["padding_algorithm"],
                     tuple(attrs["dilations"]))


@functools.lru_cache(maxsize=4096)
def _geometry(in_hw, k_hw, strides, paddings, algorithm, dilations):
    n = len(in_hw)
    strides = tuple(_dims(strides, n, "strides", positive=True))
    pads, dil = resolve_padding(in_hw, k_hw, strides, paddings, algorithm,
                                _dims(dilations, n, "dilations", positive=True))
    out = tuple(conv_out(i, k, s, p, d) for i, k, s, p, d in zip(in_hw, k_hw, strides, pads, dil))
    return pads, tuple(dil), strides, out


_LAYOUTS = {"NCHW": False, "NCDHW": False, "AnyLayout": False, "NHWC": True, "NDHWC": True}


def channel_last(attrs, key="data_format"):
    """Whether the channels come last ('NHWC', 'NDHWC'; 3-D ops also say 'NHWC')."""
    fmt = attrs[key]
    last = _LAYOUTS.get(fmt)
    if last is None:
        raise OpError(f"{key} must be one of 'NCHW', 'NHWC', 'NCDHW', 'NDHWC', got '{fmt}'")
    return last


def _split(shape, last):
    """(N, C, spatial sizes) of a shape in either layout."""
    if last:
        return shape[0], shape[-1], tuple(shape[1:-1])
    return shape[0], shape[1], tuple(shape[2:])


def _join(n, c, hw, last):
    return (n,) + tuple(hw) + (c,) if last else (n, c) + tuple(hw)


def _check_rank(m, op, slot, rank):
    if len(m.shape) != rank:
        raise OpError(f"{op}: input {slot} must be a {rank}-D tensor, got shape "
                      f"{list(m.shape)}")


# ------------------------------------------------------------------ conv2d
_CONV_ATTRS = (("strides", "INTS", [1, 1]), ("paddings", "INTS", [0, 0]),
               ("padding_algorithm", "STRING", "EXPLICIT"), ("dilations", "INTS", [1, 1]),
               ("groups", "INT", 1), ("data_format", "STRING", "NCHW"))


def check_conv_channels(op, c_in, w_shape, groups):
    """Input channels must equal Filter channels * groups (Paddle's rule)."""
    if groups <= 0:
        raise OpError(f"{op}: groups must be positive, got {groups}")
    if c_in >= 0 and w_shape[1] >= 0 and c_in != w_shape[1] * groups:
        raise OpError(f"{op}: Input channels ({c_in}) must equal Filter channels "
                      f"({w_shape[1]}) * groups ({groups}) = {w_shape[1] * groups}; "
                      f"Filter shape is {list(w_shape)}")
    if w_shape[0] >= 0 and w_shape[0] % groups:
        raise OpError(f"{op}: Filter's output channels ({w_shape[0]}) must be divisible "
                      f"by groups ({groups})")


def _conv_infer(op, rank):
    def infer(metas, attrs):
        x, w = metas
        _check_rank(x, op, "Input", rank)
        _check_rank(w, op, "Filter", rank)
        last = channel_last(attrs)
        n, c, hw = _split(x.shape, last)
        check_conv_channels(op, c, w.shape, attrs["groups"])
        _, _, _, out = conv_geometry(hw, tuple(w.shape[2:]), attrs)
        return (Meta(_join(n, w.shape[0], out, last), x.dtype),)
    return infer


def _conv_higher(attrs, type, ddx_slot):
    """The double grad of a convolution (bilinear in Input and Filter): Paddle's
    slots, ``ddx_slot`` naming the incoming gradient of Input@GRAD."""
    return grad_chain(attrs, (type, {"Input": "Input", "Filter": "Filter",
                                     "grad_out": "Output@GRAD",
                                     ddx_slot + "?": "Input@GRAD@GRAD",
                                     "grad_filter@GRAD?": "Filter@GRAD@GRAD"},
                              {"Input@GRAD": "Input@GRAD", "Filter@GRAD": "Filter@GRAD",
                               "grad_out@GRAD": "Output@GRAD@GRAD"}))


def _declare_conv(name, attrs=_CONV_ATTRS, rank=4):
    defgrad(f"{name}_grad", "Input Filter Output@GRAD", "Input@GRAD? Filter@GRAD?", attrs,
            grad=_conv_higher(attrs, f"{name}_grad_grad", "grad_input@GRAD"))
    defop(name, "Input Filter", "Output", attrs, infer=_conv_infer(name, rank),
          grad=grad_op(f"{name}_grad", uses=("Input", "Filter"), gouts=("Output",),
                       wrt=("Input", "Filter")),
          same_dtype=("Input", "Filter"))


_declare_conv("conv2d")
_declare_conv("depthwise_conv2d")


# ------------------------------------------------------------------ conv2d_transpose
_CONVT_ATTRS = (("output_padding", "INTS", []), ("output_size", "INTS", []),
                ("groups", "INT", 1), ("dilations", "INTS", [1, 1]),
                ("strides", "INTS", [1, 1]), ("paddings", "INTS", [0, 0]),
                ("padding_algorithm", "STRING", "EXPLICIT"),
                ("data_format", "STRING", "NCHW"))


def convt_geometry(in_hw, k_hw, attrs):
    """(pads, dilations, strides, output sizes) of a transposed convolution: the
    output is the input size of the convolution whose input-gradient this is."""
    n = len(in_hw)
    strides = _dims(attrs["strides"], n, "strides", positive=True)
    pads, dil = resolve_padding(in_hw, k_hw, strides, attrs["paddings"],
                                attrs["padding_algorithm"],
                                _dims(attrs["dilations"], n, "dilations", positive=True))
    out_pad = list(attrs["output_padding"]) or [0] * n
    for a, (op, s, d) in enumerate(zip(out_pad, strides, dil)):
        if not 0 <= op < max(s, d):
            raise OpError(f"output_padding[{a}] = {op} must be non-negative and less than "
                          f"either stride ({s}) or dilation ({d})")
    out_size = list(attrs["output_size"])
    outs = []
    for a in range(n):
        i, k, s, p, d = in_hw[a], k_hw[a], strides[a], pads[a], dil[a]
        if i < 0 or p[0] < 0:
            outs.append(-1)
            continue
        o = (i - 1) * s - p[0] - p[1] + d * (k - 1) + 1
        if out_size:
            want = out_size[a]
            if want != -1 and not o <= want < o + s:
                raise OpError(f"output_size[{a}] = {want} is not reachable: with this "
                              f"stride it must be in [{o}, {o + s - 1}]")
            o = want if want != -1 else o
        else:
            o += out_pad[a]
        if o <= 0:
            raise OpError(f"the output size {o} of the transposed convolution is not "
                          f"positive")
        outs.append(o)
    return pads, dil, strides, tuple(outs)


def _convt_infer(op, rank):
    def infer(metas, attrs):
        x, w = metas
        _check_rank(x, op, "Input", rank)
        _check_rank(w, op, "Filter", rank)
        last = channel_last(attrs)
        n, c, hw = _split(x.shape, last)
        g = attrs["groups"]
        if c >= 0 and w.shape[0] >= 0 and c != w.shape[0]:
            raise OpError(f"{op}: Input channels ({c}) must equal Filter's first "
                          f"dimension ({w.shape[0]}); Filter shape is {list(w.shape)}")
        if g <= 0 or (w.shape[0] >= 0 and w.shape[0] % g):
            raise OpError(f"{op}: Input channels ({w.shape[0]}) must be divisible by "
                          f"groups ({g})")
        _, _, _, out = convt_geometry(hw, tuple(w.shape[2:]), attrs)
        return (Meta(_join(n, w.shape[1] * g, out, last), x.dtype),)
    return infer


def _declare_convt(name, double=None, attrs=_CONVT_ATTRS, rank=4):
    defgrad(f"{name}_grad", "Input Filter Output@GRAD", "Input@GRAD? Filter@GRAD?", attrs,
            grad=double and _conv_higher(attrs, double, "grad_x@GRAD"))
    defop(name, "Input Filter", "Output", attrs, infer=_convt_infer(name, rank),
          grad=grad_op(f"{name}_grad", uses=("Input", "Filter"), gouts=("Output",),
                       wrt=("Input", "Filter")),
          same_dtype=("Input", "Filter"))


_declare_convt("conv2d_transpose", "conv2d_transpose_grad_grad")
_declare_convt("depthwise_conv2d_transpose")


# ------------------------------------------------------------------ pool2d
_POOL_ATTRS = (("ksize", "INTS", REQUIRED), ("strides", "INTS", [1, 1]),
               ("paddings", "INTS", [0, 0]), ("ceil_mode", "BOOLEAN", False),
               ("exclusive", "BOOLEAN", True), ("data_format", "STRING", "NCHW"),
               ("pooling_type", "STRING", ""), ("global_pooling", "BOOLEAN", False),
               ("adaptive", "BOOLEAN", False), ("padding_algorithm", "STRING", "EXPLICIT"),
               ("use_cudnn", "BOOLEAN", False))


def pool_geometry(in_hw, attrs):
    """(ksize, strides, pads, output sizes) of a pooling; adaptive pooling
    returns its bins' output size as ksize (the attribute's meaning)."""
    n = len(in_hw)
    if attrs.get("global_pooling"):
        return tuple(in_hw), (1,) * n, ((0, 0),) * n, (1,) * n
    ksize = _dims(attrs["ksize"], n, "ksize")
    if attrs.get("adaptive"):            # output size 0: an empty output (as Paddle)
        if any(k < 0 for k in ksize):
            raise OpError(f"adaptive pooling output size must not be negative, got {ksize}")
        return tuple(ksize), (1,) * n, ((0, 0),) * n, tuple(ksize)
    if any(k <= 0 for k in ksize):
        raise OpError(f"ksize must be greater than 0, got {ksize}")
    strides = _dims(attrs["strides"], n, "strides", positive=True)
    pads, _ = resolve_padding(in_hw, ksize, strides, attrs["paddings"],
                              attrs["padding_algorithm"])
    ceil = attrs.get("ceil_mode", False)
    out = []
    for i, k, s, p in zip(in_hw, ksize, strides, pads):
        if i < 0 or p[0] < 0:
            out.append(-1)
            continue
        # C's truncating division, as Paddle: a window larger than the (padded)
        # input still gives one output, the window clipped to the input
        span = i + p[0] + p[1] - k + (s - 1 if ceil else 0)
        o = (span // s if span >= 0 else -(-span // s)) + 1
        if o <= 0:
            raise OpError(f"pool{n}d output size {o} is not positive (input {i}, ksize {k}, "
                          f"stride {s}, padding {list(p)})")
        out.append(o)
    return tuple(ksize), tuple(strides), pads, tuple(out)


def _pool_infer_of(op, rank):
    def infer(metas, attrs):
        x = metas[0]
        _check_rank(x, op, "X", rank)
        if attrs["pooling_type"] not in ("max", "avg"):
            raise OpError(f"pooling_type must be 'max' or 'avg', got "
                          f"'{attrs['pooling_type']}'")
        last = channel_last(attrs)
        n, c, hw = _split(x.shape, last)
        _, _, _, out = pool_geometry(hw, attrs)
        return (Meta(_join(n, c, out, last), x.dtype),)
    return infer


_pool_infer = _pool_infer_of("pool2d", 4)


# average pooling is linear: the gradient of its grad pools DDX.  Paddle's
# pool2d_double_grad reads only DDX, which cannot give max pooling's (the
# kernel refuses max pooling rather than pool DDX as Paddle's does)
defgrad("pool2d_grad", "X Out Out@GRAD", "X@GRAD", _POOL_ATTRS,
        grad=grad_chain(_POOL_ATTRS, ("pool2d_double_grad", {"grad_x@GRAD": "X@GRAD@GRAD"},
                                      {"grad_out@GRAD": "Out@GRAD@GRAD"}, _pool_infer)))
defop("pool2d", "X", "Out", _POOL_ATTRS, infer=_pool_infer,
      grad=grad_op("pool2d_grad", uses=("X", "Out")))


# max pooling that also returns where each maximum came from (return_mask=True)
_IDX_ATTRS = (("ksize", "INTS", REQUIRED), ("strides", "INTS", [1, 1]),
              ("paddings", "INTS", [0, 0]), ("global_pooling", "BOOLEAN", False),
              ("adaptive", "BOOLEAN", False))


def _idx_infer_of(op, rank):
    def infer(metas, attrs):
        x = metas[0]
        _check_rank(x, op, "X", rank)
        full = dict(attrs, padding_algorithm="EXPLICIT", ceil_mode=False)
        _, _, _, out = pool_geometry(tuple(x.shape[2:]), full)
        shape = tuple(x.shape[:2]) + out
        return Meta(shape, x.dtype), Meta(shape, np.dtype("int32"))
    return infer


_idx_infer = _idx_infer_of("max_pool2d_with_index", 4)


defgrad("max_pool2d_with_index_grad", "X Mask Out@GRAD", "X@GRAD", _IDX_ATTRS)
defop("max_pool2d_with_index", "X", "Out Mask", _IDX_ATTRS, infer=_idx_infer,
      grad=grad_op("max_pool2d_with_index_grad", uses=("X", "Mask")))


# ------------------------------------------------------------------ 3-D
# the same ops over (D, H, W); Paddle's defaults name three dims (conv3d_transpose
# keeps 'NCHW' as its layout default: its data_format says only where C is)
def _as3d(attrs, **defaults):
    return tuple((name, kind, defaults.get(name, default)) for name, kind, default in attrs)


_CONV3D_ATTRS = _as3d(_CONV_ATTRS, strides=[1, 1, 1], paddings=[0, 0, 0],
                      dilations=[1, 1, 1], data_format="NCDHW")
_CONVT3D_ATTRS = _as3d(_CONVT_ATTRS, strides=[1, 1, 1], paddings=[0, 0, 0],
                       dilations=[1, 1, 1])
_POOL3D_ATTRS = _as3d(_POOL_ATTRS, strides=[1, 1, 1], paddings=[0, 0, 0],
                      data_format="NCDHW")
_IDX3D_ATTRS = _as3d(_IDX_ATTRS, strides=[1, 1, 1], paddings=[0, 0, 0])

_declare_conv("conv3d", _CONV3D_ATTRS, rank=5)
_declare_convt("conv3d_transpose", attrs=_CONVT3D_ATTRS, rank=5)

defgrad("pool3d_grad", "X Out Out@GRAD", "X@GRAD", _POOL3D_ATTRS)
defop("pool3d", "X", "Out", _POOL3D_ATTRS, infer=_pool_infer_of("pool3d", 5),
      grad=grad_op("pool3d_grad", uses=("X", "Out")))

defgrad("max_pool3d_with_index_grad", "X Mask Out@GRAD", "X@GRAD", _IDX3D_ATTRS)
defop("max_pool3d_with_index", "X", "Out Mask", _IDX3D_ATTRS,
      infer=_idx_infer_of("max_pool3d_with_index", 5),
      grad=grad_op("max_pool3d_with_index_grad", uses=("X", "Mask")))
