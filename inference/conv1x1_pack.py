"""``sampan_conv1x1_pack_pass``: a fused 1x1 convolution (unpadded, ungrouped,
dilation 1, channel-first, any stride) with few output pixels and many input
channels becomes ``sampan_conv2d_1x1_packed`` (ops/defs/fused.py), its filter
also transposed and packed once here into a new parameter ``<filter>@packed1x1``
[ceil(O / B), C, B] for sampan's transposed GEMM kernel
(kernels/cpu/gemm_kernel.py ``gemm_transposed``), where that kernel runs; the
op takes that kernel at run time for up to ``PACKED_1X1_MAX_ROWS`` output rows
(batch 1) and BLAS with the filter as it is for more (kernels/cpu/fused.py).
Runs after the conv fusions, whose ``sampan_conv2d_fusion`` ops it rewrites
(bias, residual and activation kept; a conv with an input map stays).

Why: through BLAS a 1x1 layer is (O, C) @ (C, pixels), and on 7x7 and 14x14
maps its 49 or 196 columns are a narrow operand BLAS repacks on every call;
the transposed kernel makes the pixels the rows (read in place from NCHW,
7 per register block) and the output channels the columns (the packed
filter, 48 per block), and writes NCHW through in-register transposes with
the epilogue.  Measured on one core (hot, batch 1): 49 x 1024 -> 1024 107
against BLAS's 81-91 GFLOP/s, 49 x 1024 -> 2048 106-108 against 85, 196 x 512
-> 512 105 against 101; in ResNeXt-50 at batch 1 its 19 such layers 49.1 ->
40.6 ms (the model 105 -> 98.5 ms), MobileNetV1's 8 15.6 -> 14.3 ms.  With few
input channels it loses (196 x 64 -> 256 71 against 84, 49 x 256 -> 64 52
against 89: the call's fixed cost), and on 28x28 maps in the model (ResNeXt's
784-pixel layers 1.15x BLAS's time: the pixels' K strided rows outrun the
prefetchers once they leave L2), hence ``MIN_CHANNELS``, ``MAX_PIXELS`` and
``MIN_FLOPS``.  Outputs differ from the BLAS product by rounding (FMA sums in k
order).
"""
from ..kernels.cpu import gemm_kernel
from ..kernels.cpu.fused import PACKED_1X1_MAX_ROWS
from ..program.passes.graph import replace
from .conv_bias_act import FUSED_CONV

__all__ = ["conv1x1_pack", "PACKED_CONV1X1", "MIN_CHANNELS", "MAX_PIXELS", "MIN_FLOPS"]

PACKED_CONV1X1 = "sampan_conv2d_1x1_packed"
MIN_CHANNELS = 256
MAX_PIXELS = PACKED_1X1_MAX_ROWS       # per sample: at batch 1 the kernel's rows
MIN_FLOPS = 16e6


def _eligible(op, params):
    if op.type != FUSED_CONV:
        return False
    w = params.get(op.input("Filter")[0])
    if w is None or w.ndim != 4 or w.shape[2:] != (1, 1) or w.dtype != "float32" or \
            w.shape[1] < MIN_CHANNELS or op.attr("groups") != 1 or \
            any(op.input(s) for s in ("InScale", "InShift") if s in op.input_names) or \
            op.attr("data_format") not in ("NCHW", "AnyLayout") or \
            list(op.attr("dilations")) != [1, 1] or any(op.attr("paddings")) or \
            op.attr("padding_algorithm") == "SAME" or len(op.attr("strides")) != 2:
        return False
    out = op.block.var(op.output("Output")[0]).shape
    if len(out) != 4 or min(out[2:]) < 1:
        return False            # unknown height or width: the BLAS path
    pixels = out[2] * out[3]
    return pixels <= MAX_PIXELS and 2 * pixels * w.shape[0] * w.shape[1] >= MIN_FLOPS


def conv1x1_pack(p, params, feeds, fetch_src):
    """Rewrite every eligible fused conv of ``p``'s global block; returns how many."""
    if not gemm_kernel.transposed_available():
        return 0
    block = p.global_block()
    found = [op for op in block.ops if _eligible(op, params)]
    width = gemm_kernel.transposed_width()
    for op in found:
        wname = op.input("Filter")[0]
        w = params[wname]
        pname = wname + "@packed1x1"
        if pname not in params:
            params[pname] = gemm_kernel.pack_columns(w.reshape(w.shape[:2]).T, width)
        if not block.has_var(pname):
            block.create_var(name=pname, shape=list(params[pname].shape),
                             dtype=params[pname].dtype, persistable=True)
        inputs = {"Input": op.input("Input"), "Filter": [wname], "PackedFilter": [pname]}
        for slot in ("Bias", "ResidualData"):          # both optional
            if slot in op.input_names and op.input(slot):
                inputs[slot] = op.input(slot)
        replace(block, [op], op, PACKED_CONV1X1, inputs, {"Output": op.output("Output")},
                {"strides": [int(s) for s in op.attr("strides")],
                 "activation": op.attr("activation"), "alpha": op.attr("alpha")})
    return len(found)
