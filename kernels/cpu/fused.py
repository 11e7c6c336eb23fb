"""Kernels of the fused ops of ops/defs/fused.py."""
import numpy as np

from ...ops.defs.nn_conv import conv_geometry
from ..registry import kernel, FLOATS
from . import gemm_kernel, gemm_transposed
from .conv import _conv_setup, conv_forward
from .conv_epilogue import CLAMPS, activate, epilogue, fc_epilogue
from .conv_transposed import conv_transposed
from .conv_prologue import prologue
from . import depthwise as depthwise_rows, depthwise_kernel
from .depthwise import depthwise
from .winograd import winograd_conv


def fc(x, w, b, relu):
    out = np.matmul(x, w)          # a new array: updated in place below
    return fc_epilogue(out, b, relu)


@kernel("sampan_fc", dtypes=FLOATS)
def sampan_fc(ins, attrs, need):
    x, w, b = ins
    return (fc(x, w, b, attrs["activation_type"] == "relu"),)


def _fc_fast(attrs):
    relu = attrs["activation_type"] == "relu"
    return lambda x, w, b: fc(x, w, b, relu)


sampan_fc.fast = _fc_fast
sampan_fc.fresh = True


# a layer with W unpacked beside it (``Plain``) runs through BLAS below these,
# measured on one core: one row is BLAS's matrix-vector product (1 x 2048 x
# 1000: 105 us against the kernel's 168), and under ~1M multiply-adds the
# kernel's fixed cost shows (8 x 256 x 256: 15.8 us against 12.2).  Above them
# BLAS repacks W every call: 2 x 2048 x 1000 418 us against 166, 16 x 2048 x
# 1000 1150 against 638, 16 x 256 x 256 32 against 25.5, 64 x 256 x 256 94
# against 82 (bias and relu included on both sides)
PACKED_MIN_ROWS = 2
PACKED_MIN_MACS = 1 << 20


def fc_packed(x, wp, b, relu, n, plain=None, prepared=None):
    """``fc`` with W packed by ``gemm_kernel.pack_columns`` ([blocks, K, B]): the
    GEMM kernel streams each block's K rows in order, bias and relu applied as
    it stores (AlexNet/VGG-sized layers at batch 2-16 in 0.3-0.5x BLAS's time,
    which repacks the whole weight every call; about even at batch 1).  With
    ``plain`` (W unpacked) a product too small for the kernel (above) runs
    through ``fc``.  Elsewhere (float64, no kernel, a weight packed for another
    vector width) W is unpacked and run by ``fc``.  ``prepared``: the
    ``gemm_kernel.packed_product`` of these wp, b and relu, if the caller keeps
    one."""
    k = wp.shape[1]
    lead = x.shape[:-1]
    if x.shape[-1:] != (k,):
        raise ValueError(f"sampan_fc_packed: Input's last dim must be W's K = {k}; got shape "
                         f"{list(x.shape)}")
    if x.dtype != np.float32 or not gemm_kernel.available() or \
            wp.shape[2] != gemm_kernel.block_width():           # packed for another host
        w = plain if plain is not None else wp.transpose(1, 0, 2).reshape(k, -1)[:, :n]
        return fc(x, w, b, relu)
    x2 = np.ascontiguousarray(x.reshape(-1, k))
    m = x2.shape[0]
    if plain is not None and (m < PACKED_MIN_ROWS or m * k * n < PACKED_MIN_MACS):
        return fc(x, plain, b, relu)
    run = prepared or gemm_kernel.packed_product(wp, n, b, CLAMPS["relu"] if relu else None)
    return run(x2).reshape(lead + (n,))


@kernel("sampan_fc_packed", dtypes=FLOATS)
def sampan_fc_packed(ins, attrs, need):
    x, wp, b, plain = ins
    return (fc_packed(x, wp, b, attrs["activation_type"] == "relu", attrs["out_features"],
                      plain),)


def _fc_packed_fast(attrs):
    """The executor's form: the kernel's prepared product made on the first call
    and kept while the same W and bias arrays come (a loaded model's
    parameters), so a call pays no check of W; a small product goes straight
    to BLAS on ``plain`` (W5's batch 1: this form's cost over sampan_fc's is
    what a row of input pays)."""
    relu = attrs["activation_type"] == "relu"
    n = attrs["out_features"]
    memo = [None, None, None, 0]

    def run(x, wp, b, plain=None):
        if memo[0] is not wp or memo[1] is not b:
            memo[:] = wp, b, None, wp.shape[1]
            if b.dtype == np.float32 and gemm_kernel.available() and \
                    wp.shape[2] == gemm_kernel.block_width():
                memo[2] = gemm_kernel.packed_product(wp, n, b,
                                                     CLAMPS["relu"] if relu else None)
        k = memo[3]
        if x.shape[-1:] != (k,):
            raise ValueError(f"sampan_fc_packed: Input's last dim must be W's K = {k}; got "
                             f"shape {list(x.shape)}")
        m = x.size // k if k else 0
        if plain is not None and (m < PACKED_MIN_ROWS or m * k * n < PACKED_MIN_MACS):
            return fc(x, plain, b, relu)
        if memo[2] is None or x.dtype != np.float32:
            return fc_packed(x, wp, b, relu, n, plain)
        return memo[2](np.ascontiguousarray(x.reshape(m, k))).reshape(x.shape[:-1] + (n,))
    return run


sampan_fc_packed.fast = _fc_packed_fast
sampan_fc_packed.fresh = True


# ------------------------------------------------------------------ conv + bias + act
@kernel("sampan_conv2d_fusion", dtypes=FLOATS)
def sampan_conv2d_fusion(ins, attrs, need):
    x, w, b, resid, scale, shift = ins
    x, _, g, pads, dil, strides, out = _conv_setup("sampan_conv2d_fusion", x, w, attrs)
    act = attrs["activation"]
    clamp = CLAMPS.get(act)
    pro = None
    if scale is not None:
        mapping = prologue(attrs["in_activation"] == "relu", x.dtype)
        pro = lambda a, dst=None: mapping(a, scale, shift, dst)     # noqa: E731
    if clamp is not None and resid is None and pro is None and g > 1 and \
            w.shape[1] == 1 and g == w.shape[0] and all(out):
        res = depthwise(x, w, pads, dil, strides, out, b, clamp)   # relu/relu6 in its loop
        if res is not None:
            return (res,)
    return (conv_forward(x, w, g, pads, dil, strides, out, bias=b,
                         epilogue=epilogue(act, attrs["alpha"], x.dtype, resid),
                         prologue=pro),)


sampan_conv2d_fusion.fresh = True


# a 1x1 layer (stride 1, unpadded, ungrouped, a clamp activation or none, no
# input map) on a map of at least ROWS_MIN_PIXELS pixels, with at most
# ROWS_MAX_WEIGHTS filter values, runs the GEMM kernel with its bias, residual
# and clamp in the stores (gemm_kernel.rows_product, the samples in one call)
# instead of BLAS and a pass over the output.  Measured on one core, batch 1:
# MobileNetV2's 1x1 layers on 28x28 to 112x112 maps 0.76-0.94x the time (the
# models: MobileNetV1 and V2 ~2% faster); filters up to 65536 values
# (MobileNetV1's 128-256 channel layers on 56x56 and 28x28 maps) MobileNetV1
# 0.98-0.99x more.  Since the kernel's first row block packs X for the others,
# at batch 16 too: layers of 16-512 channels on 28x28 to 112x112 maps 0.68-0.97x
# BLAS's time; the models in-process ResNeXt-50 0.959x, MobileNetV1 0.973x,
# ResNet-50 0.975x, MobileNetV3-large 0.976x, V3-small 0.978x, ShuffleNetV2
# 0.980x, MobileNetV2 0.993x, the rest 0.994-0.999x; and filters past 65536
# values (the limit was 256 KB, for W to stay in L2 while the input streamed):
# 256 -> 512 to 1024 -> 512 on 28x28 and 56x56 maps 0.93-0.97x at batch 16 and
# 0.93-0.99x at batch 1 (102-108 GFLOP/s); ResNeXt-50 0.981x at batch 1 and
# 0.982x at 16, Wide ResNet-50 0.992-0.993x, ResNeXt-101 b16 0.993x, VGG-16 b1
# 0.991x, the others within noise.  On 14x14 and 7x7 maps BLAS keeps them at
# batch 1 (about even, 0.95-1.06x); past batch 1, 14x14 maps (from
# ROWS_MIN_PIXELS_BATCH pixels) take the route with filters of at most
# ROWS_MAX_WEIGHTS_BATCH values (MobileNetV2/V3's and ShuffleNetV2's 40-288
# channel layers at batch 16 0.84-0.97x; 64 -> 384 even, 96 -> 576 and 256 -> 256
# 1.09-1.12x).  All of that with AVX-512; with AVX2's 8 lanes (Zen 3, one core)
# the kernel wins where a layer widens (K < O: 16 -> 96, 24 -> 144, 32 -> 192
# 0.51-0.64x BLAS's time, 64 -> 128 to 256 -> 512 0.8-1.0x) and loses or ties
# where it narrows or keeps its width (144 -> 24 1.39x, 192 -> 32 1.06x and at
# batch 16 1.78x, 256 -> 256 and 512 -> 256 1.0-1.16x), so there only layers
# with more output than input channels take it (``ROWS_WIDENING_ONLY``)
ROWS_MIN_PIXELS = 784
ROWS_MAX_WEIGHTS = 1 << 20
ROWS_MIN_PIXELS_BATCH = 196
ROWS_MAX_WEIGHTS_BATCH = 20480
ROWS_WIDENING_ONLY = {8}       # the vector widths (lanes) where K < O is required


def _rows_pays(n, k, o, pixels, widening_only):
    """Whether a 1x1 layer of ``n`` samples, ``k`` -> ``o`` channels on maps of
    ``pixels`` takes the rows route (the rules above)."""
    if widening_only and k >= o:
        return False
    return o * k <= ROWS_MAX_WEIGHTS and pixels >= ROWS_MIN_PIXELS or \
        o * k <= ROWS_MAX_WEIGHTS_BATCH and n > 1 and pixels >= ROWS_MIN_PIXELS_BATCH


def _plain_1x1_attrs(attrs):
    """The attrs of a layer the 1x1 forms below may run: stride and dilation
    1, no padding, ungrouped, channel-first, a clamp activation or none, no
    input activation."""
    return attrs["activation"] in CLAMPS and not attrs.get("in_activation") and \
        attrs["groups"] == 1 and all(v == 1 for v in attrs["strides"]) and \
        all(v == 1 for v in attrs["dilations"]) and \
        attrs["data_format"] in ("NCHW", "AnyLayout") and \
        not (attrs["padding_algorithm"] == "EXPLICIT" and any(attrs["paddings"]))


def _rows_fast(attrs, general, packed=False):
    """The executor's form of a fused convolution, inputs (x, w, [wp,] b,
    resid, scale, shift) (``packed``: with wp): the 1x1 route above where it
    applies, with the kernel's prepared product kept while the same filter
    and bias arrays come, else ``general(*inputs)``; None where the attrs
    rule the route out."""
    if not _plain_1x1_attrs(attrs):
        return None
    clamp = CLAMPS[attrs["activation"]]
    memo = [None, None, None]
    widening_only = gemm_kernel.lanes() in ROWS_WIDENING_ONLY

    def run(*ins):
        x, w, b, resid, scale = ins[0], ins[1], ins[2 + packed], ins[3 + packed], ins[-2]
        if x.ndim == 4 and w.shape[2:] == (1, 1) and x.dtype == np.float32 and \
                x.shape[1] == w.shape[1] and scale is None and \
                _rows_pays(x.shape[0], w.shape[1], w.shape[0], x.shape[2] * x.shape[3],
                           widening_only):
            if memo[0] is not w or memo[1] is not b:
                memo[:] = w, b, None
                if w.dtype == np.float32 and (b is None or b.dtype == np.float32) and \
                        gemm_kernel.available():
                    memo[2] = gemm_kernel.rows_product(w.reshape(w.shape[:2]), b, clamp)
            n, o, (h, wd) = x.shape[0], w.shape[0], x.shape[2:]
            if memo[2] is not None and (resid is None or (
                    type(resid) is np.ndarray and resid.dtype == np.float32 and
                    resid.shape == (n, o, h, wd) and resid.flags.c_contiguous)):
                return memo[2](np.ascontiguousarray(x).reshape(n, x.shape[1], -1),
                               None if resid is None else resid.reshape(n, o, -1)
                               ).reshape(n, o, h, wd)
        return general(*ins)
    return run


def _depthwise_fast(attrs, general):
    """The executor's form of a depthwise sampan_conv2d_fusion (one filter per
    channel, a clamp activation or none, no residual, no input map) where the
    compiled depthwise kernel runs it: that kernel prepared once per filter and
    bias (depthwise_kernel.prepared: weights transposed, arguments made), ~8
    us a call less than the general path (17 such layers in MobileNetV2);
    else ``general(*inputs)``.  None where the attrs rule it out.  (The
    filter's transposed copy is kept: fused ops exist only in inference
    programs, whose parameters passes have already folded at load.)"""
    act = attrs["activation"]
    if act not in CLAMPS or attrs["groups"] < 2 or any(v != 1 for v in attrs["dilations"]) or \
            attrs["data_format"] not in ("NCHW", "AnyLayout"):
        return None
    clamp = CLAMPS[act]
    memo = [None, None, {}, {}]     # w, b, {(pads, strides): prepared}, {input size: route}

    def run(x, w, b, resid, scale, shift):
        if resid is None and scale is None and x.dtype == np.float32 and x.ndim == 4 and \
                w.ndim == 4 and w.shape[1] == 1 and w.shape[0] == attrs["groups"] == x.shape[1]:
            if memo[0] is not w or memo[1] is not b:
                memo[:] = w, b, {}, {}
            route = memo[3].get(x.shape[2:])
            if route is None:
                pads, _, strides, out = conv_geometry(x.shape[2:], w.shape[2:], attrs)
                prep = None
                # where depthwise() takes the compiled kernel (depthwise.py, WIDE_ROWS)
                if w.shape[2] != 3 or strides[1] != 1 or out[1] <= depthwise_rows.WIDE_ROWS:
                    key = (pads, strides)
                    if key not in memo[2]:
                        memo[2][key] = depthwise_kernel.prepared(w, b, pads, strides, clamp)
                    prep = memo[2][key]
                route = memo[3][x.shape[2:]] = (prep, out)
            if route[0] is not None:
                res = route[0](x, route[1])
                if res is not None:
                    return res
        return general(x, w, b, resid, scale, shift)
    return run


def _conv_fusion_fast(attrs):
    general = lambda *ins: sampan_conv2d_fusion(ins, attrs, None)[0]     # noqa: E731
    return _rows_fast(attrs, general) or _depthwise_fast(attrs, general)


sampan_conv2d_fusion.fast = _conv_fusion_fast


# a Winograd layer that the pass gave its filter packed for the transposed kernels
# too (inference/winograd.py ``_direct_at_batch_1``: small maps, products through
# BLAS) runs that filter up to this batch: at batch 1 Winograd's 36 products
# stream 4x the filter's bytes for 4 tiles (512 channels on 7x7, one AVX2 core:
# 4.44 against the transposed kernel's 3.50 ms), at 2 it wins (5.5 against 8.0)
WINOGRAD_DIRECT_MAX_BATCH = 1


@kernel("sampan_conv2d_winograd", dtypes=FLOATS)
def sampan_conv2d_winograd(ins, attrs, need):
    x, u, b, resid, w, wp = ins
    if w is not None and wp is not None and x.shape[0] <= WINOGRAD_DIRECT_MAX_BATCH:
        return (conv_packed(x, w, wp, b, resid, attrs),)
    k = attrs["kernel_size"]
    pads, _, _, out = conv_geometry(x.shape[2:], (k, k), attrs)
    act = attrs["activation"]
    inner = act if act in CLAMPS else ""            # the clamps run in the output transform
    res = winograd_conv(x, u, pads, out, bias=b, out_channels=attrs["out_channels"],
                        residual=resid, act=inner, ksize=k)
    return (res if inner == act else activate(res, act, attrs["alpha"]),)


sampan_conv2d_winograd.fresh = True


# where a packed conv takes the transposed kernels at batch > 1: a 1x1 layer
# whose outputs have more than PACKED_MAX_PIXELS pixels per sample and more
# than PACKED_MAX_ROWS rows in all keeps BLAS (ResNet-50 at batch 16: its 14x14
# 1x1 layers took 1.1-1.2x BLAS's time through the kernel, whose column chunks
# re-read every sample's input; ResNeXt-50's 28x28 ones at batch 1, 784 rows,
# 1.15x); 7x7 maps (BLAS folds their samples into one product: 0.92x) and
# every kxk layer on a small map (grouped: per sample with the small filter in
# cache; ungrouped strided: 0.83-0.93x) and a grouped strided one on any map the
# pass gave the kernels (inference/conv_pack.py RULES: ResNeXt's 56 -> 28 at
# batch 16 0.72-0.84x) take the kernels at any batch; another kxk layer on a
# large map (an image stem, 112x112 outputs) only at batch 1 (at 16
# MobileNet's stem took 1.28x the pixel-vector path's time)
PACKED_MAX_ROWS = 256
PACKED_MAX_PIXELS = 100


def conv_packed(x, w, wp, b, resid, attrs, scale=None, shift=None):
    """A fused convolution from its filter ``w`` and that filter packed by
    conv_transposed.pack_filter (``wp`` [g, blocks, K, B]) on the transposed
    kernels: a 1x1 unpadded ungrouped layer reads its (C, pixels) input in
    place (the samples in one call), any other through conv_transposed's
    layout; the outputs are written in NCHW with the bias, the residual and a
    clamp activation (none, relu, relu6) in the stores, another activation
    after.  Where they do not pay (a 1x1 layer with many rows per sample and
    in all, ``PACKED_MAX_PIXELS`` and ``PACKED_MAX_ROWS``; a kxk one on a map of
    more than ``PACKED_MAX_ROWS`` pixels past batch 1) or do not run
    (float64, no such kernel, a filter packed for another width),
    ``conv_forward`` runs with ``w``, as sampan_conv2d_fusion does.  An input
    map (``scale``/``shift``, conv_prologue.py) is applied to the whole input
    first on the kernels' path, per sample by conv_forward on its own."""
    pads, dil, strides, out = conv_geometry(x.shape[2:], w.shape[2:], attrs)
    pro = None
    if scale is not None:
        mapping = prologue(attrs["in_activation"] == "relu", x.dtype)
        pro = lambda a, dst=None: mapping(a, scale, shift, dst)     # noqa: E731
    g, act = attrs["groups"], attrs["activation"]
    n, c = x.shape[:2]
    o = w.shape[0]
    clamp = CLAMPS.get(act)
    one_by_one = w.shape[2:] == (1, 1) and g == 1 and dil == (1, 1) and not any(map(any, pads))
    pixels = out[0] * out[1]
    blas = (pixels > PACKED_MAX_PIXELS and n * pixels > PACKED_MAX_ROWS) if one_by_one else \
        (n > 1 and pixels > PACKED_MAX_ROWS and (g == 1 or strides == (1, 1)))
    if blas or x.dtype != np.float32 or not gemm_transposed.available() or \
            wp.shape[-1] != gemm_transposed.width(o // g):
        return conv_forward(x, w, g, pads, dil, strides, out, bias=b,
                            epilogue=epilogue(act, attrs["alpha"], x.dtype, resid),
                            prologue=pro)
    if pro is not None:
        x = pro(np.ascontiguousarray(x))
    if one_by_one:
        sub = x if strides == (1, 1) else x[:, :, ::strides[0], ::strides[1]]
        x3 = np.ascontiguousarray(sub, np.float32).reshape(n, c, -1)
        res = np.empty((n, o) + tuple(out), np.float32)
        r3 = res.reshape(n, o, -1)
        q3 = None if resid is None else np.ascontiguousarray(resid, np.float32).reshape(r3.shape)
        gemm_transposed.gemm(x3.transpose(0, 2, 1), wp[0], r3, bias=b, residual=q3, clamp=clamp)
    else:
        res = conv_transposed(x, wp, o // g, w.shape[2:], pads, dil, strides, out, bias=b,
                              residual=resid, clamp=clamp)
    return res if clamp is not None else activate(res, act, attrs["alpha"])


@kernel("sampan_conv2d_packed", dtypes=FLOATS)
def sampan_conv2d_packed(ins, attrs, need):
    x, w, wp, b, resid, scale, shift = ins
    return (conv_packed(x, w, wp, b, resid, attrs, scale, shift),)


sampan_conv2d_packed.fresh = True


def _transposed_fast(attrs, general):
    """The executor's form of a 1x1 ``sampan_conv2d_packed`` (inputs x, w, wp,
    b, resid, scale, shift) where conv_packed takes the transposed kernel
    (float32, no input map, the rows within ``PACKED_MAX_PIXELS`` /
    ``PACKED_MAX_ROWS``, a filter packed for this host's width): that product
    prepared once per packed filter and bias (gemm_transposed.one_by_one), 8-20
    us a call less; else ``general(*inputs)``.  The caller checks the attrs
    (``_plain_1x1_attrs``)."""
    clamp = CLAMPS[attrs["activation"]]
    memo = [None, None, None]

    def run(x, w, wp, b, resid, scale, shift):
        if scale is None and type(x) is np.ndarray and x.ndim == 4 and \
                x.dtype == np.float32 and x.flags.c_contiguous and w.shape[2:] == (1, 1) and \
                type(wp) is np.ndarray and wp.ndim == 4 and wp.shape[0] == 1:
            n, c, h, wd = x.shape
            pixels = h * wd
            if not (pixels > PACKED_MAX_PIXELS and n * pixels > PACKED_MAX_ROWS) and \
                    c == w.shape[1]:
                if memo[0] is not wp or memo[1] is not b:
                    o = w.shape[0]
                    memo[:] = wp, b, None
                    if wp.dtype == np.float32 and gemm_transposed.available() and \
                            wp.shape[-1] == gemm_transposed.width(o) and wp.shape[2] == c and \
                            (b is None or b.dtype == np.float32):
                        memo[2] = gemm_transposed.one_by_one(wp[0], o, b, clamp)
                prod = memo[2]
                o = w.shape[0]
                if prod is not None and (resid is None or (
                        type(resid) is np.ndarray and resid.dtype == np.float32 and
                        resid.shape == (n, o, h, wd) and resid.flags.c_contiguous)):
                    return prod(x.reshape(n, c, pixels),
                                None if resid is None else resid.reshape(n, o, pixels)
                                ).reshape(n, o, h, wd)
        return general(x, w, wp, b, resid, scale, shift)
    return run


def _packed_fast(attrs):
    """The 1x1 forms of sampan_conv2d_packed: the rows route on large maps at
    batch 1, the prepared transposed product on small ones; None where the
    attrs rule both out."""
    if not _plain_1x1_attrs(attrs):
        return None
    general = lambda *ins: sampan_conv2d_packed(ins, attrs, None)[0]     # noqa: E731
    return _rows_fast(attrs, _transposed_fast(attrs, general), packed=True)


sampan_conv2d_packed.fast = _packed_fast
