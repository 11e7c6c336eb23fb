"""Depthwise 3x3, 5x5 and 7x7 convolutions compiled by numba (the optional
compiler of kernels/cpu/fused_elementwise.py): one channel multiplier,
dilation 1, stride 1 or 2, channels first, float32/float64.

im2col turns a depthwise layer into one 1x9 by 9xL product per channel: nine
copies of the input for nine multiply-adds per output.  Two compiled loop
nests instead, one per kernel size class:

- 3x3 (``_planes``): each channel's plane is copied once into a small
  zero-bordered scratch plane (the padding; it stays in cache) and every
  output is the sum of its nine taps computed in registers, rows vectorized
  by the compiler, the taps written out one by one (stride-2 rows ran 1.5x
  faster so): 2-2.6x the im2col path on MobileNet/ShuffleNet layers.
- 5x5 and 7x7 (``_channels_last``): a row of one plane is too short to fill
  the vector registers for 25 or 49 taps (7 to 28 outputs), so each sample is
  moved to channels-last scratch (H, W, C) and every output pixel sums its
  taps as vectors over the channels, taps outside the input skipped (no
  padded copy), the result moved back to channels first.  Measured against
  the row kernel on MobileNetV3/MnasNet-style layers (batch 1 and 16): 0.23x
  the time on 7x7 maps of 576-960 channels, 0.3x on 14x14, 0.45-0.8x on
  larger maps; never slower.  A 3x3 layer takes it on maps of at most
  ``SMALL_MAP`` pixels; on larger ones the two moves cost more than they save.

Summation order differs from the GEMM's: equal to rounding.  The kernels are
compiled without fastmath (measured as fast): NaN and infinities propagate as
in the GEMM path, where fastmath lets the compiler assume there are none.
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


def _channels_last(x, wt, bias, out, pt, pl, sh, sw, xt, ot):
    """``out`` (N, C, Ho, Wo) of ``x`` (N, C, H, W) by ``wt`` (k, k, C), through
    the channels-last scratch ``xt`` (H, W, C) and ``ot`` (Ho, Wo, C)."""
    n, c, h, wd = x.shape
    k = wt.shape[0]
    ho, wo = out.shape[2], out.shape[3]
    for b in range(n):
        for yy in range(h):
            for xx in range(wd):
                for ch in range(c):
                    xt[yy, xx, ch] = x[b, ch, yy, xx]
        for y in range(ho):
            for xo in range(wo):
                o = ot[y, xo]
                for ch in range(c):
                    o[ch] = bias[ch]
                for ki in range(k):
                    yi = y * sh - pt + ki
                    if yi < 0 or yi >= h:
                        continue
                    for kj in range(k):
                        xi = xo * sw - pl + kj
                        if xi < 0 or xi >= wd:
                            continue
                        r = xt[yi, xi]
                        wv = wt[ki, kj]
                        for ch in range(c):
                            o[ch] += wv[ch] * r[ch]
        for y in range(ho):
            for xo in range(wo):
                for ch in range(c):
                    out[b, ch, y, xo] = ot[y, xo, ch]


_COMPILED = {}

# 3x3 layers with outputs of at most this many pixels take the channels-last
# kernel too (MobileNetV1's 1024-channel 7x7 layers: 0.57x the row kernel's
# time; 14x14 maps about even, larger ones 1.2-3.6x slower)
SMALL_MAP = 64


def _compiled(k=3, channels_last=None):
    """The compiled kernel for k x k (None: no numba, or it cannot compile it):
    the row kernel for 3x3, the channels-last one for 5x5/7x7 and where
    ``channels_last`` says so."""
    if channels_last is None:
        channels_last = k != 3
    key = "channels_last" if channels_last else k
    if key not in _COMPILED:
        fn = None
        if numba_available():
            try:
                import numba
                fn = numba.njit(cache=True, nogil=True)(
                    _channels_last if channels_last else _planes)
            except Exception:       # a numba that cannot compile it: the im2col path
                fn = None
        _COMPILED[key] = fn
    return _COMPILED[key]


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
    ho, wo = out
    channels_last = k != 3 or ho * wo <= SMALL_MAP
    fn = _compiled(k, channels_last)
    if fn is None:
        return None
    n, c = x.shape[:2]
    sh, sw = strides
    (pt, _), (pl, _) = pads
    hp = max(pt + x.shape[2], (ho - 1) * sh + k)
    wp = max(pl + x.shape[3], (wo - 1) * sw + k)
    res = np.empty((n, c, ho, wo), x.dtype)
    bias = np.zeros(c, x.dtype) if bias is None else bias
    if not channels_last:
        fn(x, w, bias, res, pt, pl, sh, sw, np.empty((hp, wp), x.dtype))
    else:
        wt = np.ascontiguousarray(w[:, 0].transpose(1, 2, 0))
        fn(x, wt, bias, res, pt, pl, sh, sw, np.empty(x.shape[2:] + (c,), x.dtype),
           np.empty((ho, wo, c), x.dtype))
    return res
