"""More neural-network ops, with their grads (Paddle 2.6's slots and
attributes): pixel_unshuffle, channel_shuffle, maxout, rrelu (random),
sequence_mask (no grad), temporal_shift, bilinear_tensor_product,
gumbel_softmax (random), affine_grid, unpool / unpool3d, unfold / fold."""
from ..declare import defop, defgrad, grad_op, REQUIRED
from ..dtypes import ENUM_TO_NP
from ..registry import Meta, OpError


def _nchw(shape, fmt):
    """(n, c, h, w) of a rank-4 shape in either layout."""
    if fmt == "NHWC":
        return shape[0], shape[3], shape[1], shape[2]
    return tuple(shape)


def _join(n, c, h, w, fmt):
    return (n, h, w, c) if fmt == "NHWC" else (n, c, h, w)


def _check4(op, x, fmt):
    if len(x.shape) != 4:
        raise OpError(f"{op}: input X must be 4-D, got shape {list(x.shape)}")
    if fmt not in ("NCHW", "NHWC"):
        raise OpError(f"{op}: data_format must be 'NCHW' or 'NHWC', got '{fmt}'")


def _mul(v, k):
    return -1 if v < 0 else v * k


def _div(v, k):
    return -1 if v < 0 else v // k


# ------------------------------------------------------------------ pixel_unshuffle
_PU_ATTRS = (("downscale_factor", "INT", 1), ("data_format", "STRING", "NCHW"))


def _pu_infer(metas, attrs):
    x = metas[0]
    r, fmt = attrs["downscale_factor"], attrs["data_format"]
    _check4("pixel_unshuffle", x, fmt)
    n, c, h, w = _nchw(x.shape, fmt)
    if r <= 0:
        raise OpError(f"pixel_unshuffle: downscale_factor must be positive, got {r}")
    for what, v in (("height", h), ("width", w)):
        if v >= 0 and v % r:
            raise OpError(f"pixel_unshuffle: the {what} ({v}) must be divisible by "
                          f"downscale_factor ({r})")
    return (Meta(_join(n, _mul(c, r * r), _div(h, r), _div(w, r), fmt), x.dtype),)


def _pu_grad_infer(metas, attrs):
    g = metas[0]
    r, fmt = attrs["downscale_factor"], attrs["data_format"]
    n, c, h, w = _nchw(g.shape, fmt)
    return (Meta(_join(n, _div(c, r * r), _mul(h, r), _mul(w, r), fmt), g.dtype),)


defgrad("pixel_unshuffle_grad", "Out@GRAD", "X@GRAD", _PU_ATTRS, infer=_pu_grad_infer)
defop("pixel_unshuffle", "X", "Out", _PU_ATTRS, infer=_pu_infer,
      grad=grad_op("pixel_unshuffle_grad"))


# ------------------------------------------------------------------ channel_shuffle
_CS_ATTRS = (("groups", "INT", 1), ("data_format", "STRING", "NCHW"))


def _cs_infer(metas, attrs):
    x = metas[0]
    g, fmt = attrs["groups"], attrs["data_format"]
    _check4("channel_shuffle", x, fmt)
    c = _nchw(x.shape, fmt)[1]
    if g <= 0 or (c >= 0 and c % g):
        raise OpError(f"channel_shuffle: the {c} channels must be divisible by "
                      f"groups ({g})")
    return (Meta(tuple(x.shape), x.dtype),)


def _same_infer(metas, attrs):
    return (Meta(tuple(metas[0].shape), metas[0].dtype),)


defgrad("channel_shuffle_grad", "Out@GRAD", "X@GRAD", _CS_ATTRS, infer=_same_infer)
defop("channel_shuffle", "X", "Out", _CS_ATTRS, infer=_cs_infer,
      grad=grad_op("channel_shuffle_grad"))


# ------------------------------------------------------------------ maxout
_MAXOUT_ATTRS = (("groups", "INT", 1), ("axis", "INT", 1))


def _maxout_infer(metas, attrs):
    x = metas[0]
    g, axis = attrs["groups"], attrs["axis"]
    if len(x.shape) != 4:
        raise OpError(f"maxout: input X must be 4-D, got shape {list(x.shape)}")
    if axis not in (1, -1, 3):
        raise OpError(f"maxout: axis must be 1, -1 or 3, got {axis}")
    axis = axis % 4
    c = x.shape[axis]
    if g <= 0 or (c >= 0 and c % g):
        raise OpError(f"maxout: the {c} channels must be divisible by groups ({g})")
    shape = list(x.shape)
    shape[axis] = _div(c, g)
    return (Meta(tuple(shape), x.dtype),)


def _maxout_grad_infer(metas, attrs):
    return (Meta(tuple(metas[0].shape), metas[0].dtype),)


defgrad("maxout_grad", "X Out Out@GRAD", "X@GRAD", _MAXOUT_ATTRS, infer=_maxout_grad_infer)
defop("maxout", "X", "Out", _MAXOUT_ATTRS, infer=_maxout_infer,
      grad=grad_op("maxout_grad", uses=("X", "Out")))


# ------------------------------------------------------------------ rrelu
# Out = X where X >= 0, else X * Noise; Noise ~ U(lower, upper) in training,
# (lower + upper) / 2 under is_test (and 1 where X >= 0).
_RRELU_ATTRS = (("lower", "FLOAT", 1.0 / 8.0), ("upper", "FLOAT", 1.0 / 3.0),
                ("is_test", "BOOLEAN", False))


def _rrelu_infer(metas, attrs):
    x = metas[0]
    lo, up = attrs["lower"], attrs["upper"]
    if not 0 <= lo <= up <= 1:
        raise OpError(f"rrelu: need 0 <= lower <= upper <= 1, got lower {lo}, upper {up}")
    return Meta(tuple(x.shape), x.dtype), Meta(tuple(x.shape), x.dtype)


defgrad("rrelu_grad", "X Noise Out@GRAD", "X@GRAD", _RRELU_ATTRS,
        infer=lambda m, a: (m[0],))
defop("rrelu", "X", "Out Noise~", _RRELU_ATTRS, infer=_rrelu_infer,
      grad=grad_op("rrelu_grad", uses=("X", "Noise")), random=True)


# ------------------------------------------------------------------ sequence_mask
# Y[..., j] = j < X[...], for j < maxlen (MaxLenTensor, else the attribute,
# else -- maxlen < 0 -- the largest length in X); not differentiable.
_SEQMASK_ATTRS = (("maxlen", "INT", -1), ("out_dtype", "INT", 3))


def _seqmask_infer(metas, attrs):
    x = metas[0]
    try:
        dt = ENUM_TO_NP[attrs["out_dtype"]]
    except KeyError:
        raise OpError(f"sequence_mask: out_dtype {attrs['out_dtype']} is not a supported "
                      f"VarType data type") from None
    m = attrs["maxlen"]
    if metas[1] is not None or m < 0:
        m = -1
    return (Meta(tuple(x.shape) + (m,), dt),)


defop("sequence_mask", "X MaxLenTensor?", "Y", _SEQMASK_ATTRS, infer=_seqmask_infer)


# ------------------------------------------------------------------ temporal_shift
# X is [N*T, C, H, W] (T = seg_num); channels [0, C*r) take frame t-1, channels
# [C*r, 2*C*r) frame t+1, the rest stay; frames outside the clip give zeros.
_TSHIFT_ATTRS = (("seg_num", "INT", REQUIRED), ("shift_ratio", "FLOAT", 0.25),
                 ("data_format", "STRING", "NCHW"))


def _tshift_infer(metas, attrs):
    x = metas[0]
    t, r, fmt = attrs["seg_num"], attrs["shift_ratio"], attrs["data_format"]
    _check4("temporal_shift", x, fmt)
    if t <= 0:
        raise OpError(f"temporal_shift: seg_num must be positive, got {t}")
    if not 0 < r < 0.5:
        raise OpError(f"temporal_shift: shift_ratio must be in (0, 0.5), got {r}")
    if x.shape[0] >= 0 and x.shape[0] % t:
        raise OpError(f"temporal_shift: the batch size {x.shape[0]} must be a multiple "
                      f"of seg_num ({t})")
    return (Meta(tuple(x.shape), x.dtype),)


defgrad("temporal_shift_grad", "Out@GRAD", "X@GRAD", _TSHIFT_ATTRS, infer=_same_infer)
defop("temporal_shift", "X", "Out", _TSHIFT_ATTRS, infer=_tshift_infer,
      grad=grad_op("temporal_shift_grad"))


# ------------------------------------------------------------------ bilinear_tensor_product
# Out[b, k] = X[b] @ Weight[k] @ Y[b] + Bias[0, k]
def _btp_infer(metas, attrs):
    x, y, w, b = metas
    op = "bilinear_tensor_product"
    if len(x.shape) != 2 or len(y.shape) != 2:
        raise OpError(f"{op}: X and Y must be 2-D, got shapes {list(x.shape)} and "
                      f"{list(y.shape)}")
    if len(w.shape) != 3:
        raise OpError(f"{op}: Weight must be 3-D [size, M, N], got shape {list(w.shape)}")
    for what, a, c in (("batch sizes of X and Y", x.shape[0], y.shape[0]),
                       ("X's width and Weight's dim 1", x.shape[1], w.shape[1]),
                       ("Y's width and Weight's dim 2", y.shape[1], w.shape[2])):
        if a >= 0 and c >= 0 and a != c:
            raise OpError(f"{op}: the {what} must be equal, got {a} and {c} (X "
                          f"{list(x.shape)}, Y {list(y.shape)}, Weight {list(w.shape)})")
    if b is not None and (len(b.shape) != 2 or b.shape[0] not in (1, -1) or
                          (b.shape[1] >= 0 and w.shape[0] >= 0 and b.shape[1] != w.shape[0])):
        raise OpError(f"{op}: Bias must have shape [1, {w.shape[0]}], got {list(b.shape)}")
    return (Meta((x.shape[0], w.shape[0]), x.dtype),)


def _btp_grad_infer(metas, attrs):
    x, y, w, g = metas
    return x, y, w, Meta((1, w.shape[0]), g.dtype)


defgrad("bilinear_tensor_product_grad", "X Y Weight Out@GRAD",
        "X@GRAD? Y@GRAD? Weight@GRAD? Bias@GRAD?", (), infer=_btp_grad_infer)
defop("bilinear_tensor_product", "X Y Weight Bias?", "Out", (), infer=_btp_infer,
      grad=grad_op("bilinear_tensor_product_grad", uses=("X", "Y", "Weight"),
                   wrt=("X", "Y", "Weight", "Bias")),
      same_dtype=("X", "Y", "Weight"))


# ------------------------------------------------------------------ gumbel_softmax
# Out = softmax((X + G) / temperature, axis), G = -log(-log(U)), U ~ U(0, 1);
# hard: the one-hot of Out's argmax.  The grad is softmax's, from Out alone
# (no 1/temperature, and zero for hard outputs), as Paddle's kernel computes it.
_GUMBEL_ATTRS = (("temperature", "FLOAT", 1.0), ("hard", "BOOLEAN", False), ("axis", "INT", -1))


def _gumbel_infer(metas, attrs):
    x = metas[0]
    rank, axis = len(x.shape), attrs["axis"]
    if not (-max(rank, 1) <= axis < max(rank, 1)):
        raise OpError(f"gumbel_softmax: axis {axis} is out of range for a {rank}-D input")
    if attrs["temperature"] <= 0:
        raise OpError(f"gumbel_softmax: temperature must be positive, got "
                      f"{attrs['temperature']}")
    return (Meta(tuple(x.shape), x.dtype),)


defgrad("gumbel_softmax_grad", "Out Out@GRAD", "X@GRAD", _GUMBEL_ATTRS,
        infer=lambda m, a: (m[0],))
defop("gumbel_softmax", "X", "Out", _GUMBEL_ATTRS, infer=_gumbel_infer,
      grad=grad_op("gumbel_softmax_grad", uses=("Out",)), random=True)


# ------------------------------------------------------------------ affine_grid
# Output[n, (d,) h, w] = Theta[n] @ (x, y, (z,) 1) over the normalised base
# grid of output_shape [N, C, (D,) H, W] (or the OutputShape tensor).
_AFFINE_ATTRS = (("output_shape", "INTS", []), ("align_corners", "BOOLEAN", True))


def _affine_infer(metas, attrs):
    theta, shape_t = metas
    op = "affine_grid"
    if len(theta.shape) != 3 or tuple(theta.shape[1:]) not in ((2, 3), (3, 4)):
        raise OpError(f"{op}: Theta must have shape [N, 2, 3] or [N, 3, 4], got "
                      f"{list(theta.shape)}")
    nd = theta.shape[1]
    if shape_t is not None:
        return (Meta((theta.shape[0],) + (-1,) * nd + (nd,), theta.dtype),)
    s = list(attrs["output_shape"])
    if len(s) != nd + 2:
        raise OpError(f"{op}: output_shape must have {nd + 2} entries for a Theta of shape "
                      f"{list(theta.shape)}, got {s}")
    return (Meta((theta.shape[0],) + tuple(s[2:]) + (nd,), theta.dtype),)


def _affine_grad_infer(metas, attrs):
    g = metas[1]
    nd = len(g.shape) - 2
    return (Meta((g.shape[0], nd, nd + 1), g.dtype),)


defgrad("affine_grid_grad", "OutputShape? Output@GRAD", "Theta@GRAD", _AFFINE_ATTRS,
        infer=_affine_grad_infer)
defop("affine_grid", "Theta OutputShape?", "Output", _AFFINE_ATTRS, infer=_affine_infer,
      grad=grad_op("affine_grid_grad", uses=("OutputShape",), gouts=("Output",),
                   wrt=("Theta",)),
      no_grad_inputs=("OutputShape",))


# ------------------------------------------------------------------ unpool (max unpooling)
# Out[n, c].flat[Indices[n, c, i]] = X[n, c, i] over an [output_size] plane.
_UNPOOL_ATTRS = (("ksize", "INTS", REQUIRED), ("unpooling_type", "STRING", "max"),
                 ("strides", "INTS", [1, 1]), ("paddings", "INTS", [0, 0]),
                 ("output_size", "INTS", [0, 0]), ("data_format", "STRING", "NCHW"))


def _unpool_infer(metas, attrs):
    x, idx = metas
    nd = len(attrs["ksize"])
    op = "unpool" if nd == 2 else "unpool3d"
    if len(x.shape) != nd + 2:
        raise OpError(f"{op}: input X must be {nd + 2}-D, got shape {list(x.shape)}")
    if tuple(idx.shape) != tuple(x.shape):
        raise OpError(f"{op}: Indices must have X's shape {list(x.shape)}, got "
                      f"{list(idx.shape)}")
    if idx.dtype.kind not in "iu":
        raise OpError(f"{op}: Indices must be an integer tensor, got {idx.dtype}")
    if attrs.get("unpooling_type", "max") != "max":
        raise OpError(f"{op}: unpooling_type must be 'max', got '{attrs['unpooling_type']}'")
    size = list(attrs["output_size"])
    if len(size) != nd:
        raise OpError(f"{op}: output_size must have {nd} entries, got {size}")
    return (Meta((x.shape[0], x.shape[1]) + tuple(size), x.dtype),)


defgrad("unpool_grad", "X Indices Out Out@GRAD", "X@GRAD", _UNPOOL_ATTRS,
        no_need_buffer=("X", "Out"))
defop("unpool", "X Indices", "Out", _UNPOOL_ATTRS, infer=_unpool_infer,
      grad=grad_op("unpool_grad", uses=("X", "Indices", "Out")), no_grad_inputs=("Indices",))


# ------------------------------------------------------------------ unfold / fold (im2col)
# unfold: X [N, C, H, W] -> Y [N, C*kh*kw, oh*ow] (channel, kernel row, kernel
# column order); paddings [top, left, bottom, right]; fold is its adjoint
# (col2im: overlapping windows add up).
_UNFOLD_ATTRS = (("kernel_sizes", "INTS", REQUIRED), ("strides", "INTS", [1, 1]),
                 ("paddings", "INTS", [0, 0, 0, 0]), ("dilations", "INTS", [1, 1]))
_FOLD_ATTRS = (("output_sizes", "INTS", REQUIRED),) + _UNFOLD_ATTRS


def im2col_geometry(op, h, w, attrs):
    """(oh, ow) of the windows over an [h, w] plane."""
    k, s, p, d = (list(attrs[a]) for a in ("kernel_sizes", "strides", "paddings", "dilations"))
    for name, v, n in (("kernel_sizes", k, 2), ("strides", s, 2), ("paddings", p, 4),
                       ("dilations", d, 2)):
        if len(v) != n:
            raise OpError(f"{op}: {name} must have {n} entries, got {v}")
    if min(k) <= 0 or min(s) <= 0 or min(d) <= 0:
        raise OpError(f"{op}: kernel_sizes {k}, strides {s} and dilations {d} must be positive")
    out = []
    for size, kk, ss, p0, p1, dd in ((h, k[0], s[0], p[0], p[2], d[0]),
                                     (w, k[1], s[1], p[1], p[3], d[1])):
        if size < 0:
            out.append(-1)
            continue
        o = (size + p0 + p1 - (dd * (kk - 1) + 1)) // ss + 1
        if o <= 0:
            raise OpError(f"{op}: the sliding blocks' count {o} is not positive (input "
                          f"{[h, w]}, kernel_sizes {k}, strides {s}, paddings {p}, "
                          f"dilations {d})")
        out.append(o)
    return tuple(out)


def fold_attrs(attrs):
    """fold's geometry: Paddle's fold reads only paddings[0] (top and bottom) and
    paddings[1] (left and right)."""
    p = list(attrs["paddings"])
    if len(p) != 4:
        raise OpError(f"fold: paddings must have 4 entries, got {p}")
    return dict(attrs, paddings=[p[0], p[1], p[0], p[1]])


def _unfold_infer(metas, attrs):
    x = metas[0]
    if len(x.shape) != 4:
        raise OpError(f"unfold: input X must be 4-D [N, C, H, W], got shape {list(x.shape)}")
    n, c, h, w = x.shape
    oh, ow = im2col_geometry("unfold", h, w, attrs)
    kk = attrs["kernel_sizes"][0] * attrs["kernel_sizes"][1]
    return (Meta((n, -1 if c < 0 else c * kk, -1 if oh < 0 or ow < 0 else oh * ow), x.dtype),)


def _fold_infer(metas, attrs):
    x = metas[0]
    if len(x.shape) != 3:
        raise OpError(f"fold: input X must be 3-D [N, C*kh*kw, L], got shape {list(x.shape)}")
    n, ck, l = x.shape
    h, w = attrs["output_sizes"]
    oh, ow = im2col_geometry("fold", h, w, fold_attrs(attrs))
    kk = attrs["kernel_sizes"][0] * attrs["kernel_sizes"][1]
    if ck >= 0 and ck % kk:
        raise OpError(f"fold: X's dim 1 ({ck}) must be divisible by kernel_sizes' product "
                      f"({kk})")
    if l >= 0 and l != oh * ow:
        raise OpError(f"fold: X's dim 2 ({l}) must equal the sliding blocks' count "
                      f"{oh} * {ow} = {oh * ow}")
    return (Meta((n, -1 if ck < 0 else ck // kk, h, w), x.dtype),)


def _unfold_grad_infer(metas, attrs):
    return (metas[0],)


defgrad("unfold_grad", "X Y@GRAD", "X@GRAD", _UNFOLD_ATTRS, infer=_unfold_grad_infer,
        no_need_buffer=("X",))
defop("unfold", "X", "Y", _UNFOLD_ATTRS, infer=_unfold_infer,
      grad=grad_op("unfold_grad", uses=("X",), gouts=("Y",)))
defgrad("fold_grad", "X Y@GRAD", "X@GRAD", _FOLD_ATTRS, infer=_unfold_grad_infer,
        no_need_buffer=("X",))
defop("fold", "X", "Y", _FOLD_ATTRS, infer=_fold_infer,
      grad=grad_op("fold_grad", uses=("X",), gouts=("Y",)))

_UNPOOL3D_ATTRS = (("ksize", "INTS", REQUIRED), ("strides", "INTS", [1, 1, 1]),
                   ("paddings", "INTS", [0, 0, 0]), ("output_size", "INTS", [0, 0, 0]),
                   ("data_format", "STRING", "NCDHW"))
defgrad("unpool3d_grad", "X Indices Out Out@GRAD", "X@GRAD", _UNPOOL3D_ATTRS,
        no_need_buffer=("X", "Out"))
defop("unpool3d", "X Indices", "Out", _UNPOOL3D_ATTRS, infer=_unpool_infer,
      grad=grad_op("unpool3d_grad", uses=("X", "Indices", "Out")), no_grad_inputs=("Indices",))
