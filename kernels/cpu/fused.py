"""Kernels of the fused ops of ops/defs/fused.py."""
import numpy as np

from ..registry import kernel, FLOATS


def fc(x, w, b, relu):
    out = np.matmul(x, w)          # a new array: updated in place below
    out += b
    if relu:
        np.maximum(out, 0, out=out)
    return out


@kernel("sampan_fc", dtypes=FLOATS)
def sampan_fc(ins, attrs, need):
    x, w, b = ins
    return (fc(x, w, b, attrs["activation_type"] == "relu"),)


def _fc_fast(attrs):
    relu = attrs["activation_type"] == "relu"
    return lambda x, w, b: fc(x, w, b, relu)


sampan_fc.fast = _fc_fast
sampan_fc.fresh = True
