"""``sampan_conv_pack_pass``: a fused convolution whose output maps are small
(at most ``MAX_PIXELS`` pixels per sample: 7x7, 14x14) and whose products are
wide enough, or a 3x3 image stem (``_image_stem``), becomes
``sampan_conv2d_packed`` (ops/defs/fused.py), its filter also packed once here
into a new parameter ``<filter>@packed`` [g, blocks, K, B] for sampan's
transposed GEMM kernels (kernels/cpu/gemm_transposed.py, conv_transposed.py),
where those kernels run; at run time the op leaves 1x1 layers with many rows
(14x14 maps past batch 1) and stems past batch 1 to the paths it replaced,
with the filter as it is (kernels/cpu/fused.py ``PACKED_MAX_ROWS``).  Runs
after the conv fusions and Winograd, whose ``sampan_conv2d_fusion`` ops it
rewrites, keeping the bias, residual, activation and input map (DenseNet's
BN-ReLU-conv: the map is applied to the input first; DenseNet-201 at batch 1
104.1 -> 99.4 ms); depthwise convs and Winograd's stay.

Why: BLAS and the pixel-vector kernel (conv_implicit.py) run output pixels
along their vectors, and on 7x7 and 14x14 maps the 49 or 196 pixels (plus the
flat layout's padding columns) fill blocks badly; the transposed kernels run
output channels along the vectors, read the input in place (a 1x1 layer) or
from one padded copy with strides and taps as offsets (no stride-phase planes,
no crop), and write NCHW through in-register transposes with the epilogue.
Measured on one core with AVX-512 (16 lanes), batch 1 (hot): 1x1 layers 49 x
1024 -> 1024 107 against BLAS's 81-91 GFLOP/s, 196 x 512 -> 512 105 against
101; ResNeXt's grouped 3x3 layers 0.68-0.8x conv_implicit's time at stride 1
(14x14, 7x7; 16 and 32 channels per group) and 0.48-0.51x at stride 2;
ungrouped 3x3 stride 2 0.72-0.9x (512 and 256 channels).  In ResNeXt-50 at
batch 1 the 19 1x1 layers alone took 49.1 -> 40.6 ms (the model 105 -> 98.5),
MobileNetV1's 8 15.6 -> 14.3.  It
loses where the product is narrow: 1x1 layers with few input channels (196 x 64
-> 256 71 against 84 GFLOP/s, the call's fixed cost), groups of 8 channels
(half the 16-wide block empty: 1.3-1.7x), and 28x28 maps in a model (1.15x:
the pixels' K strided rows outrun the prefetchers once they leave L2), hence
``MAX_PIXELS``, ``MIN_CHANNELS_1X1``, ``MIN_FLOPS_1X1`` and ``RULES`` (which
also holds what pays with AVX2's 8 lanes: grouped and some strided kxk layers
only).  (The narrow 1x1 layers lost mostly to 48-wide blocks
computing 96 columns for 64 and 288 for 256; since the kernels take the
cheapest block width, 1x1 layers on 14x14 maps pay from 64 input channels and
8 MFLOP: MobileNetV2 at batch 1 0.97-0.98x, GoogLeNet 0.98-0.99x, ShuffleNetV2
x2.0 0.99x; 4 MFLOP took ShuffleNetV2 x1.0's 116-channel layers: 1.02x.)
Outputs differ from the unpacked ones by rounding (FMA sums in k order).
"""
from collections import namedtuple

from ..kernels.cpu import gemm_transposed
from ..kernels.cpu.conv_transposed import pack_filter
from ..program.passes.graph import replace
from .conv_bias_act import FUSED_CONV

__all__ = ["conv_pack", "PACKED_CONV", "MAX_PIXELS", "MIN_CHANNELS_1X1", "MIN_FLOPS_1X1",
           "SMALL_MAP_PIXELS", "MIN_CHANNELS_1X1_SMALL_MAP", "MIN_FLOPS_1X1_SMALL_MAP",
           "STEM_MAX_CHANNELS", "RULES", "rules", "packed_param"]

PACKED_CONV = "sampan_conv2d_packed"
MAX_PIXELS = 256                    # 16x16: 28x28 maps lose at batch 1 (below)
MIN_CHANNELS_1X1 = 64
MIN_FLOPS_1X1 = 8e6
# on 7x7 and 8x8 maps BLAS's 49-64 columns are narrower still: 1x1 layers from
# 128 input channels and 4 MFLOP pay (49 x 160 -> 960 0.93x, 49 x 960 -> 320
# 0.87x BLAS's time; MobileNetV2 at batch 1 and 16 0.98x and 0.97x, V3-small b1
# 0.97x, DenseNet-121 0.98x, ShuffleNetV2 and SqueezeNet even)
SMALL_MAP_PIXELS = 64
MIN_CHANNELS_1X1_SMALL_MAP = 128
MIN_FLOPS_1X1_SMALL_MAP = 4e6
STEM_MAX_CHANNELS = 4
# what the kernels take, by their vector width (gemm_transposed.lanes()):
# 1x1 layers (by the rules above), image stems, and kxk layers with at least
# ``min_k`` products per output and ``min_group_channels`` output channels per
# group; ungrouped ones at stride 1 on maps of at most ``s1_max_pixels``, and
# strided ones on maps of at least ``s2_min_pixels``.
# 16 lanes (one core, batch 1, against the paths replaced): see the docstring.
# 8 lanes (AVX2, Zen 3): ResNeXt's grouped 3x3 layers 0.41-0.63x
# conv_implicit's time with 16 and 32 channels per group (14x14 and 7x7 maps,
# stride 1 and 2), 0.5-0.8x with 8 (28x28: the 6 x 8 block fills its vector);
# an ungrouped 3x3 stride 2 into 14x14 0.81x, into 7x7 1.13x; at stride 1 on
# a 7x7 map (512 channels, cold caches) 0.83x the direct convolution and at
# batch 1 0.79x Winograd's time (3.50 against 4.44 ms), but 2.9x it at batch 16
# (88 against 30 ms), so inference/winograd.py keeps such layers; 1x1 layers
# 1.4-2.6x BLAS's time (4-6 pixels a block re-read each input line from L2) and
# stems 1.0-1.34x (they take kernels/cpu/stem_kernel.py), so neither.
# ``grouped_strided_max_pixels``: grouped strided kxk layers take the kernels on
# output maps up to this size, past ``MAX_PIXELS`` (and at any batch: fused.py
# ``conv_packed``); at 8 lanes ResNeXt's 3x3 stride-2 layers into 28x28 (8
# channels a group) 0.49-0.66x conv_implicit's time at batch 1 and 4, 0.72-0.84x
# at 16 (its stride-phase planes; in-process, AVX2 on Zen 3)
Rules = namedtuple("Rules", "one_by_one stems min_k min_group_channels s1_max_pixels "
                            "s2_min_pixels grouped_strided_max_pixels")
RULES = {16: Rules(True, True, 128, 16, MAX_PIXELS, 1, MAX_PIXELS),
         8: Rules(False, False, 64, 8, SMALL_MAP_PIXELS, SMALL_MAP_PIXELS + 1, 784)}


def rules():
    """The ``RULES`` of this host's kernels (None where they do not run)."""
    return RULES.get(gemm_transposed.lanes())


_ATTRS = ("strides", "paddings", "padding_algorithm", "dilations", "groups", "data_format",
          "activation", "alpha", "in_activation")


def _eligible(op, params, take):
    if op.type != FUSED_CONV:
        return False
    w = params.get(op.input("Filter")[0])
    g = op.attr("groups")
    if w is None or w.ndim != 4 or w.dtype != "float32" or w.shape[1] == 1 or \
            op.attr("data_format") not in ("NCHW", "AnyLayout") or w.shape[0] % g:
        return False
    out = op.block.var(op.output("Output")[0]).shape
    if len(out) != 4 or min(out[2:]) < 1:
        return False            # unknown maps: the BLAS and pixel-vector paths
    if _image_stem(w, g):
        return take.stems
    pixels, o = out[2] * out[3], w.shape[0]
    strided = any(v > 1 for v in op.attr("strides"))
    if pixels > MAX_PIXELS and not (g > 1 and strided and w.shape[2:] != (1, 1) and
                                    pixels <= take.grouped_strided_max_pixels):
        return False            # large maps: the BLAS and pixel-vector paths
    if w.shape[2:] == (1, 1) and g == 1:
        small = pixels <= SMALL_MAP_PIXELS
        return take.one_by_one and \
            w.shape[1] >= (MIN_CHANNELS_1X1_SMALL_MAP if small else MIN_CHANNELS_1X1) and \
            2 * pixels * o * w.shape[1] >= (MIN_FLOPS_1X1_SMALL_MAP if small else MIN_FLOPS_1X1)
    return w[0].size >= take.min_k and o // g >= take.min_group_channels and \
        (g > 1 or (pixels >= take.s2_min_pixels if strided else pixels <= take.s1_max_pixels))


def _image_stem(w, g):
    """A 3x3 conv reading an image (at most ``STEM_MAX_CHANNELS`` channels) into
    whole blocks of 16 output channels (MobileNets' stems): at batch 1 the
    kernels' one padded copy beats the pixel-vector path's stride-phase planes
    and crop (MobileNetV1-V3 at batch 1 0.975-0.985x their time; 7x7 stems and
    24-channel ones did not pay: ResNet-18 1.02x, ShuffleNetV2 1.16x)."""
    return g == 1 and w.shape[1] <= STEM_MAX_CHANNELS and w.shape[2:] == (3, 3) and \
        w.shape[0] % 16 == 0


def packed_param(block, params, wname, groups):
    """The name of filter ``wname`` packed for the transposed kernels
    (``<wname>@packed``), made once in ``params`` and declared in ``block``."""
    pname = wname + "@packed"
    if pname not in params:
        params[pname] = pack_filter(params[wname], groups)
    if not block.has_var(pname):
        block.create_var(name=pname, shape=list(params[pname].shape),
                         dtype=params[pname].dtype, persistable=True)
    return pname


def conv_pack(p, params, feeds, fetch_src):
    """Rewrite every eligible fused conv of ``p``'s global block; returns how many."""
    take = rules()
    if take is None:
        return 0
    block = p.global_block()
    found = [op for op in block.ops if _eligible(op, params, take)]
    for op in found:
        wname = op.input("Filter")[0]
        pname = packed_param(block, params, wname, op.attr("groups"))
        inputs = {"Input": op.input("Input"), "Filter": [wname], "PackedFilter": [pname]}
        for slot in ("Bias", "ResidualData", "InScale", "InShift"):     # all optional
            if slot in op.input_names and op.input(slot):
                inputs[slot] = op.input(slot)
        replace(block, [op], op, PACKED_CONV, inputs, {"Output": op.output("Output")},
                {k: op.attr(k) for k in _ATTRS})
    return len(found)
