"""Depthwise 3x3, 5x5 and 7x7 convolutions compiled by numba (the optional
compiler of kernels/cpu/fused_elementwise.py): one channel multiplier,
dilation 1, stride 1 or 2, channels first, float32/float64.

float32 layers other than 3x3 stride-1 ones wider than ``WIDE_ROWS`` run the
LLVM kernels of kernels/cpu/depthwise_kernel.py where llvmlite is present
(vectors over channels, the planes moved to channels-last by in-register
transposes): against the numba kernels below, 5x5 and 7x7 layers 0.13-0.7x
the time, 3x3 stride 2 0.3-0.8x, 3x3 stride 1 on maps up to 28 wide 0.4-0.9x
(MobileNetV3/MnasNet/ShuffleNet layers, batch 1 and 16).  The rest of this
docstring is about the numba kernels, which take every other case.

im2col turns a depthwise layer into one 1x9 by 9xL product per channel: nine
copies of the input for nine multiply-adds per output.  Two compiled loop
nests instead, one per kernel size class:

- 3x3 (``_planes``): each channel's plane is copied once into a small
  zero-bordered scratch plane (the padding; it stays in cache; only its
  interior is rewritten per channel) and every output is the sum of its nine
  taps computed in registers, rows vectorized by the compiler.  Stride 2
  (``_planes_s2``) splits each padded row into its even and odd columns as it
  copies it, so the taps read unit-stride rows too; the common "same" layer
  (stride 1, padding 1: ``_same``) reads its rows from the input itself, no
  plane copy, with the plane kernel's bits.  Indices are unsigned
  (numba's wrap-around of negative indices kept the copies and the stride-2
  taps scalar): on MobileNet layers at batch 16, 112x112 maps 4.55 -> 3.2 ms
  (stride 1) and 9.3 -> 5.7 ms (stride 2), 56x56 3.97 -> 2.6 ms; without the
  plane copy 112x112 3.2 -> 1.9 ms, 56x56 2.6 -> 2.0 ms, 14x14 1.6 -> 1.0 ms.
- 5x5 and 7x7 (``_channels_last``): a row of one plane is too short to fill
  the vector registers for 25 or 49 taps (7 to 28 outputs), so each sample is
  moved to channels-last scratch (H, W, C) and every output pixel sums its
  taps as vectors over the channels, taps outside the input skipped (no
  padded copy), the result moved back to channels first.  Measured against
  the row kernel on MobileNetV3/MnasNet-style layers (batch 1 and 16): 0.23x
  the time on 7x7 maps of 576-960 channels, 0.3x on 14x14, 0.45-0.8x on
  larger maps; never slower.  A 3x3 layer takes it on maps of at most
  ``SMALL_MAP`` pixels; on larger ones the two moves cost more than they save.

Every kernel can clamp its outputs on the way out (relu, relu6: the clamps of
kernels/cpu/conv_epilogue.py), which saves sampan_conv2d_fusion the
activation's pass over the output.

Summation order differs from the GEMM's: equal to rounding.  The kernels are
compiled without fastmath (measured as fast): NaN and infinities propagate as
in the GEMM path, where fastmath lets the compiler assume there are none.
``depthwise`` returns None where it does not apply (no numba, another kernel
size, dilation or multiplier, an integer dtype); conv_forward then takes its
im2col path.
"""
import numpy as np

from .depthwise_kernel import depthwise_conv
from .fused_elementwise import compiled_kernel

__all__ = ["depthwise", "SIZES"]

# unsigned index arithmetic in the loops (numba wraps negative signed indices
# around, a branch that keeps LLVM from vectorizing strided or shifted reads)
_U = np.uint64
_U1, _U2 = np.uint64(1), np.uint64(2)

SIZES = (3, 5, 7)


def _planes(x, w, bias, out, pt, pl, sh, lo, hi, tie, plane):
    """Stride-1 rows: ``plane`` (hp, wp) holds one channel zero-bordered.
    Unsigned indices as in ``_planes_s2``."""
    n, c, h, wd = x.shape
    ho, wo = out.shape[2], out.shape[3]
    hp, wp = plane.shape
    rows, ucols, uwo = min(h, hp - pt), _U(min(wd, wp - pl)), _U(wo)
    plane[:, :] = 0         # the border stays zero: only the interior is rewritten
    for b in range(n):
        for ch in range(c):
            for r in range(rows):
                src = x[b, ch, r]
                dst = plane[pt + r, pl:]
                for i in range(ucols):
                    dst[i] = src[i]
            w00, w01, w02 = w[ch, 0, 0, 0], w[ch, 0, 0, 1], w[ch, 0, 0, 2]
            w10, w11, w12 = w[ch, 0, 1, 0], w[ch, 0, 1, 1], w[ch, 0, 1, 2]
            w20, w21, w22 = w[ch, 0, 2, 0], w[ch, 0, 2, 1], w[ch, 0, 2, 2]
            bo = bias[ch]
            for y in range(ho):
                r0 = plane[y * sh]
                r1 = plane[y * sh + 1]
                r2 = plane[y * sh + 2]
                o = out[b, ch, y]
                for i in range(uwo):
                    v = (bo + w00 * r0[i] + w01 * r0[i + _U1] + w02 * r0[i + _U2]
                         + w10 * r1[i] + w11 * r1[i + _U1] + w12 * r1[i + _U2]
                         + w20 * r2[i] + w21 * r2[i + _U1] + w22 * r2[i + _U2])
                    if v < lo or (tie and v == lo):
                        v = lo
                    if v > hi:
                        v = hi
                    o[i] = v


def _same(x, w, bias, out, lo, hi, tie, zero):
    """Stride 1, padding 1 on every side ("same" 3x3, the MobileNet case): the
    rows are read from ``x`` itself, no plane copy; ``zero`` (a row of zeros)
    stands for the rows above and below, and the two edge columns take 0 for
    their outer taps: the plane kernel's expression, term for term, so its bits."""
    n, c, h, wd = x.shape
    uw = _U(wd)
    z = zero[0]
    for b in range(n):
        for ch in range(c):
            w00, w01, w02 = w[ch, 0, 0, 0], w[ch, 0, 0, 1], w[ch, 0, 0, 2]
            w10, w11, w12 = w[ch, 0, 1, 0], w[ch, 0, 1, 1], w[ch, 0, 1, 2]
            w20, w21, w22 = w[ch, 0, 2, 0], w[ch, 0, 2, 1], w[ch, 0, 2, 2]
            bo = bias[ch]
            for y in range(h):
                r0 = x[b, ch, y - 1] if y > 0 else zero
                r1 = x[b, ch, y]
                r2 = x[b, ch, y + 1] if y + 1 < h else zero
                o = out[b, ch, y]
                for i in range(_U1, uw - _U1):
                    v = (bo + w00 * r0[i - _U1] + w01 * r0[i] + w02 * r0[i + _U1]
                         + w10 * r1[i - _U1] + w11 * r1[i] + w12 * r1[i + _U1]
                         + w20 * r2[i - _U1] + w21 * r2[i] + w22 * r2[i + _U1])
                    if v < lo or (tie and v == lo):
                        v = lo
                    if v > hi:
                        v = hi
                    o[i] = v
                e = wd - 1
                for i in (0, e):
                    a0 = r0[i - 1] if i > 0 else z
                    a2 = r0[i + 1] if i < e else z
                    b0 = r1[i - 1] if i > 0 else z
                    b2 = r1[i + 1] if i < e else z
                    c0 = r2[i - 1] if i > 0 else z
                    c2 = r2[i + 1] if i < e else z
                    v = (bo + w00 * a0 + w01 * r0[i] + w02 * a2
                         + w10 * b0 + w11 * r1[i] + w12 * b2
                         + w20 * c0 + w21 * r2[i] + w22 * c2)
                    if v < lo or (tie and v == lo):
                        v = lo
                    if v > hi:
                        v = hi
                    o[i] = v


def _planes_s2(x, w, bias, out, pt, pl, sh, lo, hi, tie, even, odd):
    """Stride-2 rows: each padded row is split into its even columns (``even``,
    (hp, wo + 1)) and odd ones (``odd``, (hp, wo)) as it is copied, so output i
    reads even[i], odd[i], even[i + 1]: unit strides the compiler vectorizes.
    Indices are unsigned (``_U``): numba's wrap-around of negative indices
    kept both loops scalar (9.3 -> 3.3 ms on a 16x64x112x112 layer)."""
    n, c, h, wd = x.shape
    ho, wo = out.shape[2], out.shape[3]
    hp, we = even.shape
    wq = odd.shape[1]
    half = pl // 2
    # whole pairs of input columns (2m, 2m + 1) inside the split row: padded
    # columns 2m + pl and 2m + 1 + pl, i.e. split columns m + half (+ 1 for the
    # even one when pl is odd); a last column on its own (tail, -1 if none)
    if pl % 2:
        pairs = min(wd // 2, we - half - 1, wq - half)
    else:
        pairs = min(wd // 2, we - half, wq - half)
    t = 2 * pairs
    tail = t if t < wd and (t + pl) // 2 < (wq if pl % 2 else we) else -1
    upairs, uwo = _U(max(pairs, 0)), _U(wo)
    even[:, :] = 0
    odd[:, :] = 0
    for b in range(n):
        for ch in range(c):
            for r in range(min(h, hp - pt)):
                src = x[b, ch, r]
                # column 2m goes to the even split where pl is even, else to the odd one
                if pl % 2 == 0:
                    first, second = even[pt + r, half:], odd[pt + r, half:]
                else:
                    first, second = odd[pt + r, half:], even[pt + r, half + 1:]
                for m in range(upairs):
                    first[m] = src[_U2 * m]
                    second[m] = src[_U2 * m + _U1]
                if tail >= 0:
                    if (tail + pl) % 2 == 0:
                        even[pt + r, (tail + pl) // 2] = src[tail]
                    else:
                        odd[pt + r, (tail + pl) // 2] = src[tail]
            w00, w01, w02 = w[ch, 0, 0, 0], w[ch, 0, 0, 1], w[ch, 0, 0, 2]
            w10, w11, w12 = w[ch, 0, 1, 0], w[ch, 0, 1, 1], w[ch, 0, 1, 2]
            w20, w21, w22 = w[ch, 0, 2, 0], w[ch, 0, 2, 1], w[ch, 0, 2, 2]
            bo = bias[ch]
            for y in range(ho):
                e0, e1, e2 = even[y * sh], even[y * sh + 1], even[y * sh + 2]
                d0, d1, d2 = odd[y * sh], odd[y * sh + 1], odd[y * sh + 2]
                o = out[b, ch, y]
                for i in range(uwo):
                    v = (bo + w00 * e0[i] + w01 * d0[i] + w02 * e0[i + _U1]
                         + w10 * e1[i] + w11 * d1[i] + w12 * e1[i + _U1]
                         + w20 * e2[i] + w21 * d2[i] + w22 * e2[i + _U1])
                    if v < lo or (tie and v == lo):
                        v = lo
                    if v > hi:
                        v = hi
                    o[i] = v


def _channels_last(x, wt, bias, out, pt, pl, sh, sw, lo, hi, tie, xt, ot):
    """``out`` (N, C, Ho, Wo) of ``x`` (N, C, H, W) by ``wt`` (k, k, C), through
    the channels-last scratch ``xt`` (H, W, C) and ``ot`` (Ho, Wo, C)."""
    n, c, h, wd = x.shape
    k = wt.shape[0]
    ho, wo = out.shape[2], out.shape[3]
    for b in range(n):
        for yy in range(h):
            for xx in range(wd):
                row = xt[yy, xx]
                for ch in range(c):
                    row[ch] = x[b, ch, yy, xx]
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
                o = ot[y, xo]
                for ch in range(c):
                    v = o[ch]
                    if v < lo or (tie and v == lo):
                        v = lo
                    if v > hi:
                        v = hi
                    out[b, ch, y, xo] = v


# 3x3 layers with outputs of at most this many pixels take the channels-last
# kernel too (MobileNetV1's 1024-channel 7x7 layers: 0.57x the row kernel's
# time; 14x14 maps about even, larger ones 1.2-3.6x slower)
SMALL_MAP = 64

# 3x3 stride-1 layers with wider outputs keep the row kernels (56x56 and 112x112
# maps: the compiled channel kernel of depthwise_kernel.py took 1.05-1.4x their
# time; 28x28 and below 0.4-0.9x)
WIDE_ROWS = 32

_KERNELS = {"rows": _planes, "rows_s2": _planes_s2, "same": _same,
            "channels_last": _channels_last}

_NO_CLAMP = (-np.inf, np.inf, False)


def _compiled(key):
    """The compiled kernel ``key`` of ``_KERNELS`` (None: no numba, or it cannot
    compile it: the im2col path)."""
    return compiled_kernel(_KERNELS[key])


def depthwise(x, w, pads, dil, strides, out, bias=None, clamp=None):
    """The depthwise convolution of channel-first ``x`` (N, C, H, W) by ``w``
    (C, 1, k, k), k in SIZES, clamped on the way out to ``clamp`` = (lo, hi,
    tie) (an activation of kernels/cpu/conv_epilogue.py ``CLAMPS``), or None
    where this kernel does not apply."""
    k = w.shape[-1]
    if w.ndim != 4 or x.ndim != 4 or w.shape[1:] != (1, k, k) or k not in SIZES or \
            w.shape[0] != x.shape[1] or tuple(dil) != (1, 1) or \
            tuple(strides) not in ((1, 1), (2, 2), (1, 2), (2, 1)) or \
            x.dtype not in (np.float32, np.float64) or w.dtype != x.dtype or \
            (bias is not None and bias.dtype != x.dtype):
        return None
    ho, wo = out
    sh, sw = strides
    if k != 3 or sw != 1 or wo <= WIDE_ROWS:
        res = depthwise_conv(x, w, bias, pads, strides, out, clamp or _NO_CLAMP)
        if res is not None:
            return res
    same = k == 3 and tuple(strides) == (1, 1) and tuple(pads) == ((1, 1), (1, 1)) and \
        x.shape[3] >= 2
    key = "channels_last" if k != 3 or ho * wo <= SMALL_MAP else \
        "same" if same else "rows" if sw == 1 else "rows_s2"
    fn = _compiled(key)
    if fn is None:
        return None
    n, c = x.shape[:2]
    (pt, _), (pl, _) = pads
    lo, hi, tie = clamp or _NO_CLAMP
    lo, hi = x.dtype.type(lo), x.dtype.type(hi)        # not float64 in the loop
    hp = max(pt + x.shape[2], (ho - 1) * sh + k)
    res = np.empty((n, c, ho, wo), x.dtype)
    bias = np.zeros(c, x.dtype) if bias is None else bias
    if key == "same":
        fn(x, w, bias, res, lo, hi, tie, np.zeros(x.shape[3], x.dtype))
    elif key == "rows":
        wp = max(pl + x.shape[3], (wo - 1) * sw + k)
        fn(x, w, bias, res, pt, pl, sh, lo, hi, tie, np.empty((hp, wp), x.dtype))
    elif key == "rows_s2":
        fn(x, w, bias, res, pt, pl, sh, lo, hi, tie, np.empty((hp, wo + 1), x.dtype),
           np.empty((hp, wo), x.dtype))
    else:
        wt = np.ascontiguousarray(w[:, 0].transpose(1, 2, 0))
        fn(x, wt, bias, res, pt, pl, sh, sw, lo, hi, tie, np.empty(x.shape[2:] + (c,), x.dtype),
           np.empty((ho, wo, c), x.dtype))
    return res
