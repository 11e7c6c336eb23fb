"""Depthwise 3x3, 5x5 and 7x7 convolutions compiled by numba (the optional
compiler of kernels/cpu/fused_elementwise.py): one channel multiplier,
dilation 1, stride 1 or 2, channels first, float32/float64.

im2col turns a depthwise layer into one 1x9 by 9xL product per channel: nine
copies of the input for nine multiply-adds per output.  Here each channel's
plane is copied once into a small zero-bordered scratch plane (the padding;
it stays in cache) and every output is the sum of its nine taps computed in
registers, rows vectorized by the compiler: 2-2.6x the im2col path's speed
on MobileNet/ShuffleNet 3x3 layers, 1.3-2x on MobileNetV3's 5x5 ones (batch 1
and 16, one core).  The 3x3 kernel is written out tap by tap (its stride-2
rows ran 1.5x faster so); other sizes come from one loop nest whose kernel
size is a compile-time constant (``_kernel_of``: numba unrolls the taps).
Summation order differs from the GEMM's: equal to rounding.

``depthwise`` returns None where it does not apply (no numba, another kernel
size, dilation or multiplier, an integer dtype); conv_forward then takes its
im2col path.
"""
import numpy as np

from .fused_elementwise import numba_available

__all__ = ["depthwise", "SIZES"]

SIZES = (3, 5, 7)


def _planes(x, w, bias, out, pt, pl, sh, sw, scratch):
    n, c, h, wd = x.shape
    ho, wo = out.shape[2], out.shape[3]
    hp, wp = scratch.shape
    rows, cols = min(h, hp - pt), min(wd, wp - pl)
    for b in range(n):
        for ch in range(c):
            scratch[:, :] = 0
            scratch[pt:pt + rows, pl:pl + cols] = x[b, ch, :rows, :cols]
            w00, w01, w02 = w[ch, 0, 0, 0], w[ch, 0, 0, 1], w[ch, 0, 0, 2]
            w10, w11, w12 = w[ch, 0, 1, 0], w[ch, 0, 1, 1], w[ch, 0, 1, 2]
            w20, w21, w22 = w[ch, 0, 2, 0], w[ch, 0, 2, 1], w[ch, 0, 2, 2]
            bo = bias[ch]
            for y in range(ho):
                r0 = scratch[y * sh]
                r1 = scratch[y * sh + 1]
                r2 = scratch[y * sh + 2]
                o = out[b, ch, y]
                if sw == 1:
                    for i in range(wo):
                        o[i] = (bo + w00 * r0[i] + w01 * r0[i + 1] + w02 * r0[i + 2]
                                + w10 * r1[i] + w11 * r1[i + 1] + w12 * r1[i + 2]
                                + w20 * r2[i] + w21 * r2[i + 1] + w22 * r2[i + 2])
                else:
                    for i in range(wo):
                        j = i * sw
                        o[i] = (bo + w00 * r0[j] + w01 * r0[j + 1] + w02 * r0[j + 2]
                                + w10 * r1[j] + w11 * r1[j + 1] + w12 * r1[j + 2]
                                + w20 * r2[j] + w21 * r2[j + 1] + w22 * r2[j + 2])


def _kernel_of(k):
    """The loop nest for a k x k kernel, ``k`` a constant of the compiled code."""
    def planes(x, w, bias, out, pt, pl, sh, sw, scratch):
        n, c, h, wd = x.shape
        ho, wo = out.shape[2], out.shape[3]
        hp, wp = scratch.shape
        rows, cols = min(h, hp - pt), min(wd, wp - pl)
        for b in range(n):
            for ch in range(c):
                scratch[:, :] = 0
                scratch[pt:pt + rows, pl:pl + cols] = x[b, ch, :rows, :cols]
                wk = w[ch, 0]
                bo = bias[ch]
                for y in range(ho):
                    o = out[b, ch, y]
                    y0 = y * sh
                    for i in range(wo):
                        j = i * sw
                        acc = bo
                        for ki in range(k):
                            for kj in range(k):
                                acc += wk[ki, kj] * scratch[y0 + ki, j + kj]
                        o[i] = acc
    return planes


_COMPILED = {}


def _compiled(k=3):
    """The compiled kernel for k x k (None: no numba, or it cannot compile it)."""
    if k not in _COMPILED:
        fn = None
        if numba_available():
            try:
                import numba
                fn = numba.njit(cache=k == 3, fastmath=True, nogil=True)(
                    _planes if k == 3 else _kernel_of(k))
            except Exception:       # a numba that cannot compile it: the im2col path
                fn = None
        _COMPILED[k] = fn
    return _COMPILED[k]


def depthwise(x, w, pads, dil, strides, out, bias=None):
    """The depthwise convolution of channel-first ``x`` (N, C, H, W) by ``w``
    (C, 1, k, k), k in SIZES, or None where this kernel does not apply."""
    k = w.shape[-1]
    if w.ndim != 4 or x.ndim != 4 or w.shape[1:] != (1, k, k) or k not in SIZES or \
            w.shape[0] != x.shape[1] or tuple(dil) != (1, 1) or \
            tuple(strides) not in ((1, 1), (2, 2), (1, 2), (2, 1)) or \
            x.dtype not in (np.float32, np.float64) or w.dtype != x.dtype or \
            (bias is not None and bias.dtype != x.dtype):
        return None
    fn = _compiled(k)
    if fn is None:
        return None
    n, c = x.shape[:2]
    ho, wo = out
    sh, sw = strides
    (pt, _), (pl, _) = pads
    hp = max(pt + x.shape[2], (ho - 1) * sh + k)
    wp = max(pl + x.shape[3], (wo - 1) * sw + k)
    res = np.empty((n, c, ho, wo), x.dtype)
    fn(x, w, np.zeros(c, x.dtype) if bias is None else bias, res, pt, pl, sh, sw,
       np.empty((hp, wp), x.dtype))
    return res
