"""``sampan_fc_pack_pass``: a ``sampan_fc`` (inference/passes.py, fc_fuse_pass)
whose float32 weight is at least ``PLAIN_MIN_BYTES`` becomes ``sampan_fc_packed``
(ops/defs/fused.py), its weight packed once here into a new parameter
``<W>@packed`` [ceil(N / B), K, B] for sampan's GEMM kernel
(kernels/cpu/gemm_kernel.py ``pack_columns``), where that kernel runs and its
packed products pay (``gemm_kernel.packed_pays``: AVX-512, not AVX2).  Below
``MIN_BYTES`` the weight as it was stays beside the packed one (the op's
``Plain``): a product of a few rows runs faster through BLAS, and the kernel
chooses per call (kernels/cpu/fused.py ``fc_packed``).

Why: BLAS packs its operands on every call, and for a classifier's large
weight (AlexNet's and VGG's 4096-wide layers, 16-400 MB) at a small batch
that repacking is most of the layer: measured on one core, 16 x 9216 x 4096
29.3 ms by BLAS against 14.8 packed, 16 x 4096 x 4096 13.0 against 7.2; at
batch 1 both stream the weight once (3.2 against 2.9-3.6 ms for 4096 x 4096).
Mid-sized layers gain less, but still: W5's 64 x 256 x 256 layers (W 256 KB)
94 us by BLAS with the bias and relu pass, 82 packed with them in the kernel's
stores (BLAS repacks W and the call's Python is cut to ~4 us).  Weights under
``PLAIN_MIN_BYTES`` stay on BLAS: no batch makes them worth the kernel's fixed
cost.  Outputs differ from sampan_fc's by rounding (FMA sums in k order).
"""
from ..kernels.cpu import gemm_kernel
from ..program.passes.graph import replace

__all__ = ["fc_pack", "PACKED_FC", "MIN_BYTES", "PLAIN_MIN_BYTES"]

PACKED_FC = "sampan_fc_packed"
MIN_BYTES = 16 << 20            # from here on the weight is kept packed only
PLAIN_MIN_BYTES = 64 << 10


def fc_pack(p, params, feeds, fetch_src):
    """Rewrite every eligible sampan_fc of ``p``'s global block; returns how many."""
    if not gemm_kernel.packed_pays():       # (no kernel, or a width where BLAS wins)
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
        ins = {"Input": op.input("Input"), "W": [pname], "Bias": op.input("Bias")}
        if w.nbytes < MIN_BYTES:
            ins["Plain"] = [wname]
        replace(block, [op], op, PACKED_FC, ins,
                {"Out": op.output("Out")},
                {"activation_type": op.attr("activation_type"), "out_features": int(w.shape[1])})
    return len(found)


def _eligible(op, params):
    w = params.get(op.input("W")[0])
    return w is not None and w.ndim == 2 and w.dtype == "float32" and w.nbytes >= PLAIN_MIN_BYTES
