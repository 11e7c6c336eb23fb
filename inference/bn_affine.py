"""``sampan_batch_norm_affine_pass``: an inference ``batch_norm`` that no
convolution took in (``conv_bn_fuse_pass`` folds those) becomes the per-channel
affine map it computes, ``elementwise_mul`` by ``scale / sqrt(variance + eps)``
then ``elementwise_add`` of ``bias - mean * that``, both new parameters
(``<Y>@bn_scale``, ``<Y>@bn_shift``) computed once as the batch_norm kernel
computes them, so the result is the same to the bit.  The elementwise fusion
pass after it then runs the affine map and the activation that follows
(DenseNet's pre-activation BN-ReLU before every conv) as one compiled kernel
instead of four passes over the map.

Taken: ``is_test`` or ``use_global_stats``, Scale/Bias/Mean/Variance parameters
of one value per channel, no other output of the batch_norm read by anything.
"""
import numpy as np

from ..ops.dtypes import to_np_dtype
from ..program.passes.graph import replace
from .conv_bn_fold import _BN_UNUSED, _layout

__all__ = ["batch_norm_affine"]


def _eligible(bn, params, uses):
    if bn.type != "batch_norm" or not (bn.attr("is_test") or bn.attr("use_global_stats")):
        return False
    vals = [params.get(bn.input(s)[0]) for s in ("Scale", "Bias", "Mean", "Variance")
            if s in bn.input_names and bn.input(s)]
    if len(vals) != 4 or any(v is None or v.ndim != 1 or v.shape != vals[0].shape
                             for v in vals):
        return False
    own = bn.input_arg_names          # MeanOut/VarianceOut are Mean/Variance, in place
    return not any(uses[n] - own.count(n) for s in _BN_UNUSED
                   for n in (bn.output(s) if s in bn.output_names else []))


def batch_norm_affine(p, params, feeds, fetch_src, uses):
    """Rewrite every eligible batch_norm of ``p``'s global block; returns how many."""
    block = p.global_block()
    found = [op for op in block.ops if _eligible(op, params, uses)]
    for bn in found:
        scale, bias, mean, var = (params[bn.input(s)[0]]
                                  for s in ("Scale", "Bias", "Mean", "Variance"))
        x, y = bn.input("X")[0], bn.output("Y")[0]
        xv = block.var(x)
        dt = to_np_dtype(xv.dtype)             # the kernel computes in X's dtype
        inv = (1.0 / np.sqrt(var + bn.attr("epsilon"))).astype(dt, copy=False)
        mul, add = (scale * inv).astype(dt, copy=False), \
            (bias - mean * inv * scale).astype(dt, copy=False)
        axis = -1 if _layout(bn.attr("data_layout")) == "NHWC" else 1
        names = (f"{y}@bn_scale", f"{y}@bn_shift", f"{y}@bn_scaled")
        for name, value in zip(names, (mul, add)):
            block.create_var(name=name, shape=list(value.shape), dtype=value.dtype,
                             persistable=True)
            params[name] = value
        block.create_var(name=names[2], shape=list(xv.shape), dtype=xv.dtype)
        replace(block, [bn], bn, "elementwise_mul", {"X": [x], "Y": [names[0]]},
                {"Out": [names[2]]}, {"axis": axis})
        at = next(i for i, o in enumerate(block.ops) if names[2] in o.output_arg_names)
        block._insert_op(at + 1, "elementwise_add", inputs={"X": [names[2]], "Y": [names[1]]},
                         outputs={"Out": [y]}, attrs={"axis": axis})
    return len(found)

