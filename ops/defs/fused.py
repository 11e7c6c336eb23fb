"""Fused ops that sampan's own graph passes write (inference/passes.py); never
saved, so they need no Paddle counterpart, but they are declared like every
other op, so the registry alone answers "is this op known".

- ``sampan_fc``: ``Out = act(Input @ W + Bias)`` for a 2-D ``W`` [K, N] and a 1-D
  ``Bias`` [N], ``act`` none or relu: a ``matmul_v2`` (no transposes), an
  ``elementwise_add`` on the last axis and an optional ``relu`` fused (Paddle's
  IR passes fuse the same pattern into its ``fc`` op, whose ``in_num_col_dims``
  flattening this op does not have).
- ``sampan_fc_packed``: the same with ``W`` packed for sampan's GEMM kernel
  (inference/fc_pack.py): [ceil(N / B), K, B], the columns in blocks of B each
  block's K rows contiguous, and ``out_features`` = N; the optional ``Plain``
  is W as it was [K, N], kept for a layer small enough that a few rows of
  input run faster through BLAS.
- ``sampan_conv2d_winograd``, ``sampan_conv2d_packed``: fused convolutions
  whose filter a pass transformed or packed once (below)."""
from ..declare import defop
from ..registry import Meta, OpError

FC_ACTIVATIONS = ("", "relu")


def _fc_infer(metas, attrs):
    x, w, b = metas
    op = attrs.get("_op", "sampan_fc")
    if attrs["activation_type"] not in FC_ACTIVATIONS:
        raise OpError(f"{op}: activation_type must be one of {list(FC_ACTIVATIONS)}, "
                      f"got '{attrs['activation_type']}'")
    if len(w.shape) != 2 or len(b.shape) != 1 or len(x.shape) < 1:
        raise OpError(f"{op}: needs Input of rank >= 1, a 2-D W and a 1-D Bias, got "
                      f"shapes {list(x.shape)}, {list(w.shape)}, {list(b.shape)}")
    k, n = w.shape
    if -1 not in (x.shape[-1], k) and x.shape[-1] != k:
        raise OpError(f"{op}: Input's last dim {x.shape[-1]} (shape {list(x.shape)}) "
                      f"does not match W's first dim {k}")
    if -1 not in (b.shape[0], n) and b.shape[0] != n:
        raise OpError(f"{op}: Bias has {b.shape[0]} elements, W has {n} columns")
    return (Meta(tuple(x.shape[:-1]) + (n,), x.dtype),)


defop("sampan_fc", "Input W Bias", "Out", (("activation_type", "STRING", ""),),
      infer=_fc_infer, same_dtype=("Input", "W", "Bias"))


def _fc_packed_infer(metas, attrs):
    x, w, b, plain = metas
    if len(w.shape) != 3:
        raise OpError(f"sampan_fc_packed: needs a packed W [blocks, K, width], got shape "
                      f"{list(w.shape)}")
    n = attrs["out_features"]
    if n <= 0 or (-1 not in (w.shape[0], w.shape[2]) and n > w.shape[0] * w.shape[2]):
        raise OpError(f"sampan_fc_packed: a packed W {list(w.shape)} holds "
                      f"{w.shape[0] * w.shape[2]} columns at most; out_features is {n}")
    if plain is not None and (len(plain.shape) != 2 or plain.dtype != w.dtype or any(
            -1 not in (a, c) and a != c for a, c in zip(plain.shape, (w.shape[1], n)))):
        raise OpError(f"sampan_fc_packed: Plain must be W unpacked, [{w.shape[1]}, {n}] "
                      f"{w.dtype}; got {list(plain.shape)} {plain.dtype}")
    return _fc_infer([x, Meta((w.shape[1], n), w.dtype), b],
                     dict(attrs, _op="sampan_fc_packed"))


defop("sampan_fc_packed", "Input W Bias Plain?", "Out",
      (("activation_type", "STRING", ""), ("out_features", "INT", -1)),
      infer=_fc_packed_infer, same_dtype=("Input", "W", "Bias"))


# ------------------------------------------------------------------ conv + bias + act
# ``sampan_conv2d_fusion``: ``Output = act(conv2d(Input, Filter) [+ Bias] [+
# ResidualData])`` for a channel-first conv2d / depthwise_conv2d, an optional 1-D
# Bias over its output channels and an optional residual of the output's shape (Paddle
# Inference's conv_elementwise_add_act_fuse_pass and
# conv_elementwise_add2_act_fuse_pass make its conv2d_fusion op the same way, the
# residual in the same slot).  Bias, residual and activation are one pass over
# the output (kernels/cpu/conv_epilogue.py), with the unfused ops' numbers.
# Optional InScale/InShift (one value per input channel) and ``in_activation``
# map the input first: ``conv(in_act(Input * InScale + InShift))``, padding
# after the map (an inference batch_norm + relu before the conv: DenseNet;
# kernels/cpu/conv_prologue.py).
CONV_ACTIVATIONS = ("", "relu", "relu6", "sigmoid", "hard_swish", "swish", "leaky_relu")


def _check_residual(op, r, out):
    """The optional ResidualData: the output's shape and dtype."""
    if r is None:
        return
    if len(r.shape) != len(out.shape) or any(-1 not in (a, b) and a != b
                                             for a, b in zip(r.shape, out.shape)):
        raise OpError(f"{op}: ResidualData must have the output's shape {list(out.shape)}, "
                      f"got {list(r.shape)}")
    if r.dtype != out.dtype:
        raise OpError(f"{op}: ResidualData must be {out.dtype} like the output, got {r.dtype}")


def _check_in_map(op, x, sc, sh, attrs):
    """The optional input map: InScale and InShift together, one value per input
    channel each, in_activation '' or 'relu'."""
    if (sc is None) != (sh is None) or attrs["in_activation"] not in ("", "relu"):
        raise OpError(f"{op}: InScale and InShift go together, and "
                      f"in_activation must be '' or 'relu', got "
                      f"{'InScale' if sc is not None else 'no InScale'}, "
                      f"{'InShift' if sh is not None else 'no InShift'}, "
                      f"'{attrs['in_activation']}'")
    for name, m in (("InScale", sc), ("InShift", sh)):
        if m is not None and (len(m.shape) != 1 or -1 not in (m.shape[0], x.shape[1]) and
                              m.shape[0] != x.shape[1]):
            raise OpError(f"{op}: {name} must be 1-D with one value per "
                          f"input channel ({x.shape[1]}), got shape {list(m.shape)}")


def _conv_fusion_infer(metas, attrs):
    from .nn_conv import _conv_infer
    x, w, b, r, sc, sh = metas
    _check_in_map("sampan_conv2d_fusion", x, sc, sh, attrs)
    if attrs["activation"] not in CONV_ACTIVATIONS:
        raise OpError(f"sampan_conv2d_fusion: activation must be one of "
                      f"{list(CONV_ACTIVATIONS)}, got '{attrs['activation']}'")
    if attrs["data_format"] not in ("NCHW", "AnyLayout"):
        raise OpError(f"sampan_conv2d_fusion: needs NCHW, got {attrs['data_format']}")
    if b is not None and (len(b.shape) != 1 or -1 not in (b.shape[0], w.shape[0]) and
                          b.shape[0] != w.shape[0]):
        raise OpError(f"sampan_conv2d_fusion: Bias must be 1-D with one value per output "
                      f"channel ({w.shape[0]}), got shape {list(b.shape)}")
    out = _conv_infer("sampan_conv2d_fusion", 4)([x, w], attrs)
    _check_residual("sampan_conv2d_fusion", r, out[0])
    return out


def _declare_conv_fusion():
    from .nn_conv import _CONV_ATTRS
    defop("sampan_conv2d_fusion", "Input Filter Bias? ResidualData? InScale? InShift?",
          "Output", _CONV_ATTRS + (("activation", "STRING", ""), ("alpha", "FLOAT", 0.0),
                                   ("in_activation", "STRING", "")),
          infer=_conv_fusion_infer, same_dtype=("Input", "Filter", "Bias"))


_declare_conv_fusion()


# ------------------------------------------------------------------ winograd conv
# ``sampan_conv2d_winograd``: the same convolution as ``sampan_conv2d_fusion`` for
# a 3x3 or 5x5 (``kernel_size``), stride-1, dilation-1, ungrouped, channel-first
# conv, computed by Winograd F(4x4, 3x3) or F(2x2, 5x5) (kernels/cpu/winograd.py)
# from a Filter already transformed once by the pass that writes the op
# (inference/winograd.py): U^T [36, C, O] instead of [O, C, k, k], or that
# transform packed for sampan's
# GEMM kernel, [36, ceil(O / B), C, B] (``out_channels`` = O; winograd.pack_filter).
# Optional ``DirectFilter`` [O, C, k, k] and ``PackedFilter`` (that filter packed
# for the transposed kernels, inference/conv_pack.py): the op runs them instead of
# Winograd at batch 1 (kernels/cpu/fused.py ``WINOGRAD_DIRECT_MAX_BATCH``).
def _winograd_infer(metas, attrs):
    from .nn_conv import conv_geometry
    x, u, b, r, dw, pw = tuple(metas) + (None,) * (6 - len(metas))  # (optional slots last)
    if attrs["activation"] not in CONV_ACTIVATIONS:
        raise OpError(f"sampan_conv2d_winograd: activation must be one of "
                      f"{list(CONV_ACTIVATIONS)}, got '{attrs['activation']}'")
    packed = len(u.shape) == 4
    if len(x.shape) != 4 or len(u.shape) not in (3, 4) or u.shape[0] not in (36, -1):
        raise OpError(f"sampan_conv2d_winograd: needs a 4-D Input and a transformed "
                      f"Filter [36, C, O] (or packed [36, blocks, C, width]), got shapes "
                      f"{list(x.shape)}, {list(u.shape)}")
    o = attrs["out_channels"] if packed else u.shape[2]
    if packed and not 0 < o <= u.shape[1] * u.shape[3]:
        raise OpError(f"sampan_conv2d_winograd: a packed Filter {list(u.shape)} holds "
                      f"{u.shape[1] * u.shape[3]} output channels at most; out_channels is {o}")
    c = u.shape[-2] if packed else u.shape[1]
    if -1 not in (x.shape[1], c) and x.shape[1] != c:
        raise OpError(f"sampan_conv2d_winograd: Input has {x.shape[1]} channels, the "
                      f"Filter {c}")
    if b is not None and (len(b.shape) != 1 or -1 not in (b.shape[0], o) and b.shape[0] != o):
        raise OpError(f"sampan_conv2d_winograd: Bias must be 1-D with one value per output "
                      f"channel ({o}), got shape {list(b.shape)}")
    k = attrs["kernel_size"]
    if k not in (3, 5):
        raise OpError(f"sampan_conv2d_winograd: kernel_size must be 3 or 5, got {k}")
    _, dil, strides, out = conv_geometry(tuple(x.shape[2:]), (k, k), attrs)
    if tuple(strides) != (1, 1) or tuple(dil) != (1, 1) or attrs["groups"] != 1:
        raise OpError(f"sampan_conv2d_winograd: needs strides, dilations [1, 1] and groups "
                      f"1, got {list(strides)}, {list(dil)}, {attrs['groups']}")
    res = Meta((x.shape[0], o) + tuple(out), x.dtype)
    _check_residual("sampan_conv2d_winograd", r, res)
    if (dw is None) != (pw is None):
        raise OpError("sampan_conv2d_winograd: DirectFilter and PackedFilter come together")
    if dw is not None and -1 not in dw.shape and tuple(dw.shape) != (o, c, k, k):
        raise OpError(f"sampan_conv2d_winograd: DirectFilter must be {[o, c, k, k]} "
                      f"(the untransformed filter), got {list(dw.shape)}")
    return (res,)


def _declare_winograd():
    from .nn_conv import _CONV_ATTRS
    defop("sampan_conv2d_winograd",
          "Input Filter Bias? ResidualData? DirectFilter? PackedFilter?", "Output",
          _CONV_ATTRS + (("activation", "STRING", ""), ("alpha", "FLOAT", 0.0),
                         ("out_channels", "INT", -1), ("kernel_size", "INT", 3)),
          infer=_winograd_infer, same_dtype=("Input", "Filter", "Bias"))


_declare_winograd()


# ------------------------------------------------------------------ packed conv
# ``sampan_conv2d_packed``: the same convolution as ``sampan_conv2d_fusion`` (a
# channel-first conv2d, any stride, padding, dilation and groups), with its
# Filter [O, C/g, kh, kw] also packed once by the pass that writes the op
# (inference/conv_pack.py): per group the (C/g * kh * kw, O/g) transpose in
# column blocks for sampan's transposed GEMM kernels, PackedFilter [g, blocks,
# C/g * kh * kw, B].  The kernel takes the packed form where it pays, the Filter
# else; an optional input map (InScale/InShift/in_activation) as in
# ``sampan_conv2d_fusion``.
def _conv_packed_infer(metas, attrs):
    from .nn_conv import _conv_infer
    x, w, wp, b, r, sc, sh = metas
    op = "sampan_conv2d_packed"
    _check_in_map(op, x, sc, sh, attrs)
    if attrs["activation"] not in CONV_ACTIVATIONS:
        raise OpError(f"{op}: activation must be one of {list(CONV_ACTIVATIONS)}, got "
                      f"'{attrs['activation']}'")
    if attrs["data_format"] not in ("NCHW", "AnyLayout"):
        raise OpError(f"{op}: needs NCHW, got {attrs['data_format']}")
    if len(w.shape) != 4 or len(wp.shape) != 4:
        raise OpError(f"{op}: needs a Filter [O, C/g, kh, kw] and a packed Filter [g, blocks, "
                      f"K, width], got shapes {list(w.shape)}, {list(wp.shape)}")
    g = attrs["groups"]
    k = w.shape[1] * w.shape[2] * w.shape[3] if -1 not in w.shape[1:] else -1
    o = w.shape[0]
    if -1 not in (o, k, *wp.shape) and (wp.shape[0] != g or wp.shape[2] != k or
                                        o > g * wp.shape[1] * wp.shape[3]):
        raise OpError(f"{op}: PackedFilter {list(wp.shape)} does not hold Filter "
                      f"{list(w.shape)} in {g} groups of K = {k} rows")
    if b is not None and (len(b.shape) != 1 or -1 not in (b.shape[0], o) and b.shape[0] != o):
        raise OpError(f"{op}: Bias must be 1-D with one value per output channel ({o}), got "
                      f"shape {list(b.shape)}")
    out = _conv_infer(op, 4)([x, w], attrs)
    _check_residual(op, r, out[0])
    return out


def _declare_conv_packed():
    from .nn_conv import _CONV_ATTRS
    defop("sampan_conv2d_packed",
          "Input Filter PackedFilter Bias? ResidualData? InScale? InShift?", "Output",
          _CONV_ATTRS + (("activation", "STRING", ""), ("alpha", "FLOAT", 0.0),
                         ("in_activation", "STRING", "")),
          infer=_conv_packed_infer, same_dtype=("Input", "Filter", "PackedFilter", "Bias"))


_declare_conv_packed()


# ------------------------------------------------------------ concat + shuffle
# ``sampan_concat_shuffle``: ShuffleNet's block tail in one op (inference/
# channel_shuffle.py writes it): the inputs X concatenated along channels
# (axis 1: Y [N, C, ...]), their channels shuffled in ``group`` groups (Z[:, j]
# = Y[:, (j % group) * (C / group) + j // group], Paddle's reshape2 -> transpose2
# -> reshape2), then Z split along channels into ``sections`` (one output: no
# split).  Each output is written once, from the inputs.
def _concat_shuffle_infer(metas, attrs):
    op = "sampan_concat_shuffle"
    xs = metas[0]
    g, sections = attrs["group"], list(attrs["sections"])
    if not xs or len({m.dtype for m in xs}) > 1:
        raise OpError(f"{op}: needs inputs of one dtype, got {[str(m.dtype) for m in xs]}")
    rank = len(xs[0].shape)
    if rank < 2 or any(len(m.shape) != rank for m in xs):
        raise OpError(f"{op}: needs inputs of one rank >= 2, got shapes "
                      f"{[list(m.shape) for m in xs]}")
    try:
        from .manipulation import concat_shape
        shape = concat_shape([tuple(m.shape) for m in xs], 1)
    except OpError as e:
        raise OpError(f"{op}: {e}") from None
    c = shape[1]
    if g < 1 or (c >= 0 and c % g):
        raise OpError(f"{op}: {c} channels do not divide into group = {g}")
    if not sections or any(s <= 0 for s in sections) or (c >= 0 and sum(sections) != c):
        raise OpError(f"{op}: sections {sections} must be positive and add up to the "
                      f"{c} channels")
    return ([Meta((shape[0], s) + tuple(shape[2:]), xs[0].dtype) for s in sections],)


defop("sampan_concat_shuffle", "X*", "Out*", (("group", "INT", 2), ("sections", "INTS", [])),
      infer=_concat_shuffle_infer)
