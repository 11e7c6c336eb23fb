"""``sampan_fc_pack_pass``: a ``sampan_fc`` (inference/passes.py, fc_fuse_pass)
whose float32 weight is at least ``MIN_BYTES`` becomes ``sampan_fc_packed``
(ops/defs/fused.py), its weight packed once here into a new parameter
``<W>@packed`` [ceil(N / B), K, B] for sampan's GEMM kernel
(kernels/cpu/gemm_kernel.py ``pack_columns``), where that kernel runs.

Why: BLAS packs its operands on every call, and for a classifier's large
weight (AlexNet's and VGG's 4096-wide layers, 16-400 MB) at a small batch
that repacking is most of the layer: measured on one core, 16 x 9216 x 4096
29.3 ms by BLAS against 14.8 packed, 16 x 4096 x 4096 13.0 against 7.2; at
batch 1 both stream the weight once (3.2 against 2.9-3.6 ms for 4096 x 4096).
Smaller layers stay on BLAS (their weights stay in cache across calls).
Outputs differ from sampan_fc's by rounding (FMA sums in k order).
"""
from ..kernels.cpu import gemm_kernel
from ..program.passes.graph import replace

__all__ = ["fc_pack", "PACKED_FC", "MIN_BYTES"]

PACKED_FC = "sampan_fc_packed"
MIN_BYTES = 16 << 20


def fc_pack(p, params, feeds, fetch_src):
    """Rewrite every eligible sampan_fc of ``p``'s global block; returns how many."""
    if not gemm_kernel.available():
        return 0
    block = p.global_block()
    found = [op for op in block.ops if op.type == "sampan_fc" and _eligible(op, params)]
    for op in found:
        wname = op.input("W")[0]
        w = params[wname]
        pname = wname + "@packed"
        if pname not in params:
            params[pname] = gemm_kernel.pack_columns(w)
        if not block.has_var(pname):
            block.create_var(name=pname, shape=list(params[pname].shape),
                             dtype=params[pname].dtype, persistable=True)
        replace(block, [op], op, PACKED_FC,
                {"Input": op.input("Input"), "W": [pname], "Bias": op.input("Bias")},
                {"Out": op.output("Out")},
                {"activation_type": op.attr("activation_type"), "out_features": int(w.shape[1])})
    return len(found)


def _eligible(op, params):
    w = params.get(op.input("W")[0])
    return w is not None and w.ndim == 2 and w.dtype == "float32" and w.nbytes >= MIN_BYTES
