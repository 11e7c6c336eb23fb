"""``sampan_conv_winograd_pass``: a fused 3x3 or 5x5 convolution (stride 1,
dilation 1, ungrouped, channel-first) whose channels and output size make
Winograd pay becomes ``sampan_conv2d_winograd`` (ops/defs/fused.py, its
``kernel_size``), its filter transformed once here into a new parameter
``<filter>@winograd<m>`` [36, C, O] (m the output tile: 4 for F(4x4, 3x3), 2
for F(2x2, 5x5); kernels/cpu/winograd.py).  Runs after ``conv_elementwise_add_act_fuse_pass``,
whose ``sampan_conv2d_fusion`` ops it rewrites (bias, residual and activation
kept).

When it pays (measured on one core, float32, batch 1 and 16): the GEMM of
F(4x4, 3x3) does a quarter of im2col's multiplications, but the tile
transforms are memory passes over about 2.25x the input and output, so the
pass takes convolutions with at least ``MIN_CHANNELS`` input and output
channels and an output of at least ``MIN_SIDE`` x ``MIN_SIDE`` (known from the
program's variable shapes; an unknown height or width keeps the direct conv).
Outputs differ from the direct convolution by rounding: about 1e-5 of the
output's scale (tests/inference/test_winograd.py).

5x5 layers take F(2x2, 5x5) under the compiled transforms' rule (with numpy's
transforms, 9 products per output where the direct convolution has 25 did not
pay: 1.2-3.2x its time); measured on one core against the fused direct
convolution (relu epilogue): AlexNet's 64 -> 192 on 27x27 0.46-0.53x the time
at batch 1 and 16, Inception-v3's 48 -> 64 on 35x35 0.50-0.58x, GoogLeNet's
16-48 -> 32-128 layers on 27x27 to 6x6 0.30-0.62x.

Layers with ``PACK_MIN_CHANNELS`` input channels or more get their transform
packed for sampan's GEMM kernel (``pack_filter``, ``<filter>@winograd<m>p``
[36, ceil(O / B), C, B] and the op's ``out_channels``) where the kernel runs
on this host and its packed products pay (``gemm_kernel.packed_pays``: with
AVX-512, not with AVX2): their 36 products then run 1.0-2.8x faster than
through BLAS, enough that 7x7 maps pay too (``MIN_SIDE_PACKED``; one core, one sample, 512
channels: 2.86 against the direct convolution's 3.15 ms, 16 samples 21.9
against 45.8 ms; 14x14, 256 channels: 1.89 against 2.83 ms unpacked).

Where the compiled transforms run (kernels/cpu/winograd_kernel.py: no padded
copy, no tile copies, the epilogue in the output pass) the layer costs
0.43-0.73x what it does with numpy's transforms, and the rule is wider:
``MIN_CHANNELS_COMPILED`` input and output channels and ``MIN_SIDE_COMPILED``
(measured against the direct convolution with its relu + residual epilogue,
one core: 16 -> 16 channels 0.64x its time at batch 1 and 0.73x at 16 on
56x56 maps; 32 -> 32 0.5-0.63x; 64 -> 64 on a 4x4 map 0.2-0.33x; DenseNet's
128 -> 32 layers 0.49-0.77x; 8 channels and 3-channel stems lost at batch 16:
1.25-4.3x).

Where the products go through BLAS and the conv pass's rules would give the
layer to the transposed kernels (with AVX2: ungrouped layers on maps up to
8x8), the op also gets that filter packed for them (``_direct_at_batch_1``)
and runs it at batch 1: there Winograd's products stream four times the
filter's bytes for a few tiles (512 channels on 7x7, one core: 4.44 against
3.50 ms), from batch 2 they win (5.5 against 8.0 ms; 30 against 88 at 16).
"""
from ..program.passes.graph import replace
from ..kernels.cpu import gemm_kernel, winograd_kernel
from ..kernels.cpu.winograd import filter_transform, pack_filter, MIN_CHANNELS_COMPILED, \
    MIN_SIDE_COMPILED, VARIANTS
from .conv_bias_act import FUSED_CONV
from .conv_pack import packed_param, rules as pack_rules

__all__ = ["conv_winograd", "WINOGRAD_CONV", "MIN_CHANNELS", "MIN_SIDE",
           "PACK_MIN_CHANNELS", "MIN_SIDE_PACKED", "MIN_CHANNELS_COMPILED", "MIN_SIDE_COMPILED"]

WINOGRAD_CONV = "sampan_conv2d_winograd"
MIN_CHANNELS = 64
MIN_SIDE = 13      # AlexNet's 13x13 layers: b16 181 -> 160 ms (7: resnet18 b1 24.7 -> 29.0)
PACK_MIN_CHANNELS = 256
MIN_SIDE_PACKED = 7
_ATTRS = ("strides", "paddings", "padding_algorithm", "dilations", "groups", "data_format",
          "activation", "alpha")


def _packs(w):
    """Whether filter ``w``'s transform is packed for the GEMM kernel."""
    return w.dtype == "float32" and w.shape[1] >= PACK_MIN_CHANNELS and gemm_kernel.packed_pays()


def _eligible(op, params):
    if op.type != FUSED_CONV:
        return False
    w = params.get(op.input("Filter")[0])
    if w is None or w.ndim != 4 or w.shape[2] != w.shape[3] or w.shape[2] not in VARIANTS:
        return False
    compiled = w.dtype == "float32" and winograd_kernel.available()
    if w.shape[2] != 3 and not compiled:
        return False        # F(2x2, 5x5) with numpy's transforms: 1.2-3.2x the direct time
    if min(w.shape[:2]) < (MIN_CHANNELS_COMPILED if compiled else MIN_CHANNELS) or \
            op.attr("groups") != 1 or list(op.attr("strides")) not in ([1, 1], [1]) or \
            list(op.attr("dilations")) not in ([1, 1], [1]):
        return False
    out = op.block.var(op.output("Output")[0])
    side = MIN_SIDE_COMPILED if compiled else MIN_SIDE_PACKED if _packs(w) else MIN_SIDE
    return len(out.shape) == 4 and min(out.shape[2:]) >= side


def _direct_at_batch_1(op, w):
    """Whether Winograd's op also gets the filter packed for the transposed
    kernels, which it runs at batch 1 (kernels/cpu/fused.py
    ``WINOGRAD_DIRECT_MAX_BATCH``): where its products go through BLAS (not
    packed here) and the conv pass's rules give such a layer on such a map to
    those kernels (AVX2: 7x7 maps)."""
    take = pack_rules()
    out = op.block.var(op.output("Output")[0]).shape
    return take is not None and not _packs(w) and w.dtype == "float32" and \
        w[0].size >= take.min_k and out[2] * out[3] <= take.s1_max_pixels


def conv_winograd(p, params, feeds, fetch_src):
    """Rewrite every eligible fused conv of ``p``'s global block; returns how many."""
    block = p.global_block()
    found = [op for op in block.ops if _eligible(op, params)]
    for op in found:
        wname = op.input("Filter")[0]
        w = params[wname]
        packed = _packs(w)
        k = int(w.shape[2])
        uname = wname + "@winograd%d%s" % (VARIANTS[k][0], "p" if packed else "")
        if uname not in params:
            u = filter_transform(w)
            params[uname] = pack_filter(u) if packed else u
        if not block.has_var(uname):
            block.create_var(name=uname, shape=list(params[uname].shape),
                             dtype=params[uname].dtype, persistable=True)
        inputs = {"Input": op.input("Input"), "Filter": [uname]}
        for slot in ("Bias", "ResidualData"):          # both optional
            if slot in op.input_names and op.input(slot):
                inputs[slot] = op.input(slot)
        if _direct_at_batch_1(op, w):
            inputs["DirectFilter"] = [wname]
            inputs["PackedFilter"] = [packed_param(block, params, wname, 1)]
        attrs = {a: op.attr(a) for a in _ATTRS}
        attrs["kernel_size"] = k
        if packed:
            attrs["out_channels"] = int(w.shape[0])
        replace(block, [op], op, WINOGRAD_CONV, inputs, {"Output": op.output("Output")}, attrs)
    return len(found)
