"""What a fused 1x1 convolution (sampan_conv2d_fusion with InScale/InShift,
written by inference/affine_conv.py) does to its input on the way in: the
per-channel affine map of an inference batch_norm and the relu after it,
DenseNet's pre-activation ``conv(relu(bn(x)))``.

Unfused, the map is a pass that writes a whole new tensor (the batch_norm's
output, as large as the concatenation it reads) which the convolution then
reads again.  ``prologue(relu, dtype)`` -> ``fn(x, scale, shift, out=None)``
computes ``relu(x * scale + shift)`` (scale and shift one value per channel,
axis 1 of ``x`` (N, C, ...)) with the unfused ops' numbers: the product, then
the sum, each rounded to the dtype, then np.maximum's rule for relu (NaN kept,
-0.0 to +0.0); compiled by numba where present, numpy's three passes
otherwise.  The 1x1 path of conv_forward calls it per sample into scratch
right before that sample's GEMM, so the mapped input never leaves the cache.
"""
import numpy as np

from .depthwise import _U
from .fused_elementwise import compiled_kernel, _NUMBA_FLOATS

__all__ = ["prologue"]


def _affine(x, scale, shift, out, relu, z):
    """``z``: +0.0 in the dtype (relu's bound)."""
    n, c, m = x.shape
    um = _U(m)
    for s in range(n):
        for ch in range(c):
            src = x[s, ch]
            dst = out[s, ch]
            a = scale[ch]
            b = shift[ch]
            if relu:
                for j in range(um):
                    v = src[j] * a
                    v = v + b
                    dst[j] = v if v > z or v != v else z
            else:
                for j in range(um):
                    v = src[j] * a
                    dst[j] = v + b


def _numpy(x, scale, shift, out, relu):
    bshape = (-1,) + (1,) * (x.ndim - 2)
    res = np.multiply(x, scale.reshape(bshape), out=out)
    res += shift.reshape(bshape)
    if relu:
        np.maximum(res, 0, out=res)
    return res


def prologue(relu, dtype):
    """``fn(x, scale, shift, out=None)`` -> ``relu(x * scale + shift)`` (module
    docstring), into ``out`` (x's shape) when given."""
    kernel = compiled_kernel(_affine) if np.dtype(dtype) in _NUMBA_FLOATS else None

    def apply(x, scale, shift, out=None):
        if kernel is None or type(x) is not np.ndarray or not x.flags.c_contiguous or \
                scale.dtype != x.dtype or shift.dtype != x.dtype:
            return _numpy(x, scale, shift, out, relu)
        if out is None:
            out = np.empty(x.shape, x.dtype)
        kernel(x.reshape(x.shape[0], x.shape[1], -1), scale, shift,
               out.reshape(x.shape[0], x.shape[1], -1), relu, x.dtype.type(0))
        return out
    return apply
