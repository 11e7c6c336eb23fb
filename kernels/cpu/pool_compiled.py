"""Pooling loops compiled by numba (the optional compiler of
kernels/cpu/fused_elementwise.py): 2x2 stride-2 max pooling (where the vector
kernel of pool_kernel.py does not take it: float64, outputs narrower than a
vector), and any 2-D max or sum window over a large input
(``pool_rows``: ResNet's 3x3 stride-2 stem pool, Inception's 3x3 stride-1
average pools at batch 16).

numpy takes the window maximum in two strided passes over the input and a
half-size temporary; one loop nest reads each input row pair once and writes
the output row: 2-8x faster than numpy on every shape measured (VGG's
16x64x224x224 pool 50 -> 14 ms, a 32x16x32x32 pool 0.17 -> 0.04 ms).  The
maxima are combined in the numpy path's order (the two rows first, then the
two columns) with np.maximum's rule (NaN from either side, the second on a
tie), so the results are that path's bits, signed zeros included.

``pool_rows`` runs numpy's separable path (kernels/cpu/pool.py ``_separable``)
as one loop nest: per output row, the window's input rows combined into one
row, then the window's columns, the kernel offsets in that path's order
(``_taps``: offsets in every window first), so maxima and sums are its bits;
one read of the input instead of two or three passes over full-size arrays:
1.3-2.6x faster on inputs over ``ROWS_MIN_BYTES`` (a 16x64x112x112 3x3/2 max
pool 16.3 -> 6.2 ms, a 16x192x35x35 3x3/1 sum 11.5 -> 7.6 ms); below that
numpy's passes are faster (the loop's set-up costs tens of microseconds).

``pool_same3`` takes the commonest window of all, 3x3 with stride 1 and
padding 1 (every branch pool of GoogLeNet and Inception), per plane as two
runs over the whole plane (rows, then columns) whose few wrong edge values
are computed again: a plane of 13x13 is not 26 loops of 13 values.  GoogLeNet's
1x528x13x13 max pool 0.40 -> 0.05 ms (oneDNN's, in Paddle Inference: 0.08),
Inception's 16x192x35x35 average pool 3.7 -> 1.2 ms; the separable path's bits.
``pool_valid3_s2`` does the same for unpadded 3x3 stride-2 windows (the
reductions between their stages): both passes at every stride-1 position as
vector runs, then every second value of every second row (GoogLeNet's
1x192x55x55 pool 0.53 -> 0.30 ms, 1x832x13x13 0.20 -> 0.08 ms).

Their loops index with unsigned integers (numba's wrap-around of negative
signed indices kept the strided and shifted reads scalar): a 16x64x112x112
3x3/2 max pool 6.5 -> 4.6 ms, a 16x192x35x35 3x3/1 sum 7.2 -> 2.7 ms, a
1x64x224x224 2x2 pool 0.45 -> 0.33 ms.

Both return None where they do not apply (no numba, another window, padding
for the 2x2 kernel, an odd tail the window would need, not float32/float64).
"""
import numpy as np

# np.maximum's rule as scalar code, and the float dtypes numba compiles (no float16)
from .fused_elementwise import numba_available, cached_njit, _max, _NUMBA_FLOATS as _DTYPES
# unsigned loop indices: numba's wrap-around of negative ones keeps strided reads scalar
from .depthwise import _U, _U1, _U2

__all__ = ["max_pool_2x2", "pool_rows", "pool_same3", "pool_valid3_s2",
           "ROWS_MIN_BYTES"]


def _pool(x, out, mx):
    n, c = x.shape[:2]
    ho, wo = out.shape[2], out.shape[3]
    uwo = _U(wo)
    for b in range(n):
        for ch in range(c):
            for y in range(ho):
                r0 = x[b, ch, 2 * y]
                r1 = x[b, ch, 2 * y + 1]
                o = out[b, ch, y]
                for i in range(uwo):
                    j = _U2 * i
                    o[i] = mx(mx(r0[j], r1[j]), mx(r0[j + _U1], r1[j + _U1]))


_COMPILED = []


def _compiled():
    if not _COMPILED:
        fn = None
        if numba_available():
            try:
                import numba
                mx = numba.njit(inline="always")(_max)
                kernel = cached_njit(_pool)
                fn = (kernel, mx)
            except Exception:       # a numba that cannot compile it: the numpy path
                fn = None
        _COMPILED.append(fn)
    return _COMPILED[0]


def max_pool_2x2(x, geo):
    """The pool of channel-first 4-D ``x`` for window geometry ``geo``
    (kernels/cpu/pool.py ``_Geo``), or None where this kernel does not apply."""
    if x.ndim != 4 or tuple(geo.k) != (2, 2) or tuple(geo.s) != (2, 2) or \
            any(p != (0, 0) for p in geo.pads) or x.dtype not in _DTYPES or \
            2 * geo.out[0] > x.shape[2] or 2 * geo.out[1] > x.shape[3] or not all(geo.out):
        return None
    fn = _compiled()
    if fn is None:
        return None
    kernel, mx = fn
    out = np.empty(x.shape[:2] + tuple(geo.out), x.dtype)
    kernel(x, out, mx)
    return out


# numpy's passes are faster below this (tens of us of set-up: 8x8 maps 14 -> 22 us);
# from 128 KB the loop nest is as fast or faster (GoogLeNet's and Inception's
# pools at batch 1: 7x7 to 35x35 maps, 160 KB to 1.4 MB, 0.66-0.85x the time)
ROWS_MIN_BYTES = 128 << 10


def _sum(a, b):
    return a + b


def _rows(x, out, kh, kw, sh, sw, pt, pl, order_h, order_w, lo_w, hi_w, tmp, comb):
    n, c, h, w = x.shape
    ho, wo = out.shape[2], out.shape[3]
    uw, uwo, usw = _U(w), _U(wo), _U(sw)
    for b in range(n):
        for ch in range(c):
            for y in range(ho):
                first = True
                for t in range(kh):             # the window's rows into one row
                    yi = y * sh - pt + order_h[t]
                    if yi < 0 or yi >= h:
                        continue
                    r = x[b, ch, yi]
                    if first:
                        for j in range(uw):
                            tmp[j] = r[j]
                        first = False
                    else:
                        for j in range(uw):
                            tmp[j] = comb(tmp[j], r[j])
                o = out[b, ch, y]
                for t in range(kw):             # then its columns
                    # may be negative: i * sw + off is not, for every output i it
                    # reaches; unsigned arithmetic wraps to the same index
                    off = _U(order_w[t] - pl)
                    if t == 0:                  # an offset in every window
                        for i in range(uwo):
                            o[i] = tmp[i * usw + off]
                    else:
                        for i in range(_U(lo_w[t]), _U(hi_w[t] + 1)):
                            o[i] = comb(o[i], tmp[i * usw + off])


def _same3(x, out, h, w, tmp, comb):
    """3x3 windows, stride 1, padding 1 (Ho = H, Wo = W), per plane (a row of
    ``x`` and ``out``: its H * W values): each output combines its window's
    offsets in the separable path's order (pool.py ``_taps``: the centre, then
    -1, then +1; rows first, into ``tmp``).  The inner rows of a plane are one
    run (three reads per value, vector code), the first and last apart; the
    columns one run over the plane, then its first and last column again
    (the run took their neighbours from the next and previous rows)."""
    uw = _U(w)
    n = _U(h) * uw
    top = n - uw
    for b in range(x.shape[0]):
        xp = x[b]
        for f in range(uw):
            tmp[f] = comb(xp[f], xp[f + uw])
        for f in range(uw, top):
            tmp[f] = comb(comb(xp[f], xp[f - uw]), xp[f + uw])
        for f in range(top, n):
            tmp[f] = comb(xp[f], xp[f - uw])
        o = out[b]
        for f in range(_U1, n - _U1):
            o[f] = comb(comb(tmp[f], tmp[f - _U1]), tmp[f + _U1])
        for y in range(_U(h)):
            f = y * uw
            o[f] = comb(tmp[f], tmp[f + _U1])
            f += uw - _U1
            o[f] = comb(tmp[f], tmp[f - _U1])


def _valid3_s2(x, out, h, w, ho, wo, tmp, hbuf, comb):
    """3x3 windows, stride 2, no padding, floor mode (every offset reaches every
    output), per plane, the offsets in the separable path's order (0, 1, 2:
    rows, then columns): the window's rows combined at every column (three
    reads per value, vector code) into ``tmp``, its columns at every position
    into ``hbuf``, then every second value taken.  Planes narrower than
    ``_RUN_WIDTH`` take both as runs over the whole plane (every row, the
    values across row ends unused), wider ones per output row."""
    uw, uwo = _U(w), _U(wo)
    if w < _RUN_WIDTH:
        n_rows = _U(h - 2) * uw
        for b in range(x.shape[0]):
            xp = x[b]
            for f in range(n_rows):
                tmp[f] = comb(comb(xp[f], xp[f + uw]), xp[f + _U2 * uw])
            for f in range(n_rows - _U2):
                hbuf[f] = comb(comb(tmp[f], tmp[f + _U1]), tmp[f + _U2])
            o = out[b]
            for y in range(_U(ho)):
                src = hbuf[_U2 * y * uw:]
                dst = o[y * uwo:]
                for i in range(uwo):
                    dst[i] = src[_U2 * i]
    else:
        for b in range(x.shape[0]):
            xp = x[b]
            o = out[b]
            for y in range(_U(ho)):
                r = xp[_U2 * y * uw:]
                for j in range(uw):
                    tmp[j] = comb(comb(r[j], r[j + uw]), r[j + _U2 * uw])
                for j in range(uw - _U2):
                    hbuf[j] = comb(comb(tmp[j], tmp[j + _U1]), tmp[j + _U2])
                dst = o[y * uwo:]
                for i in range(uwo):
                    dst[i] = hbuf[_U2 * i]


# planes narrower than this take _valid3_s2's runs over the whole plane
_RUN_WIDTH = 32


_COMBINED = {}


def _combined_kernel(loops, is_max):
    """(compiled ``loops``, its combine: maximum or sum), made once; None
    without numba."""
    key = (loops.__name__, is_max)
    if key not in _COMBINED:
        fn = None
        if numba_available():
            try:
                import numba
                comb = numba.njit(inline="always")(_max if is_max else _sum)
                fn = (cached_njit(loops), comb)
            except Exception:
                fn = None
        _COMBINED[key] = fn
    return _COMBINED[key]


def pool_same3(x, geo, is_max):
    """The 3x3 stride-1 padding-1 window maxima (``is_max``) or sums of
    channel-first 4-D ``x`` (GoogLeNet's and Inception's branch pools), the
    separable path's bits; None where it does not apply."""
    if x.ndim != 4 or x.dtype not in _DTYPES or tuple(geo.k) != (3, 3) or \
            tuple(geo.s) != (1, 1) or tuple(geo.pads) != ((1, 1), (1, 1)) or \
            tuple(geo.out) != x.shape[2:] or min(x.shape[2:]) < 2:
        return None
    fn = _combined_kernel(_same3, is_max)
    if fn is None:
        return None
    kernel, comb = fn
    n, c, h, w = x.shape
    out = np.empty(x.shape, x.dtype)
    kernel(np.ascontiguousarray(x).reshape(n * c, h * w), out.reshape(n * c, h * w), h, w,
           np.empty(h * w, x.dtype), comb)
    return out


def pool_valid3_s2(x, geo, is_max):
    """The 3x3 stride-2 unpadded floor-mode window maxima (``is_max``) or sums
    of channel-first 4-D ``x`` (GoogLeNet's and Inception's reductions), the
    separable path's bits; None where it does not apply."""
    if x.ndim != 4 or x.dtype not in _DTYPES or tuple(geo.k) != (3, 3) or \
            tuple(geo.s) != (2, 2) or tuple(geo.pads) != ((0, 0), (0, 0)) or \
            min(x.shape[2:]) < 3 or tuple(geo.out) != tuple((d - 1) // 2 for d in x.shape[2:]):
        return None
    fn = _combined_kernel(_valid3_s2, is_max)
    if fn is None:
        return None
    kernel, comb = fn
    n, c, h, w = x.shape
    ho, wo = geo.out
    out = np.empty((n, c, ho, wo), x.dtype)
    kernel(np.ascontiguousarray(x).reshape(n * c, h * w), out.reshape(n * c, ho * wo), h, w,
           ho, wo, np.empty((h - 2) * w, x.dtype), np.empty((h - 2) * w, x.dtype), comb)
    return out


def _order(taps, s, p, o):
    """Kernel offsets of ``taps`` (pool.py ``_taps``) in their order, and the
    first and last output each one reaches."""
    offs, lo, hi = [], [], []
    for dst, src in taps:
        d0, d1 = (0, o) if dst is None else (dst.start, dst.stop)
        offs.append(src.start - d0 * s + p)
        lo.append(d0)
        hi.append(d1 - 1)
    return (np.array(offs, np.int64), np.array(lo, np.int64), np.array(hi, np.int64))


def pool_rows(x, geo, is_max, taps_of):
    """The window maxima (``is_max``) or sums of channel-first 4-D ``x`` for
    ``geo``, ``taps_of(size, k, s, p, o)`` giving each axis's offsets
    (pool.py ``_taps``); None where it does not apply."""
    if x.ndim != 4 or x.dtype not in _DTYPES or x.nbytes < ROWS_MIN_BYTES or not all(geo.out):
        return None
    (pt, _), (pl, _) = geo.pads
    th = taps_of(x.shape[2], geo.k[0], geo.s[0], pt, geo.out[0])
    tw = taps_of(x.shape[3], geo.k[1], geo.s[1], pl, geo.out[1])
    if th is None or tw is None:        # a window wholly in the padding
        return None
    fn = _combined_kernel(_rows, is_max)
    if fn is None:
        return None
    kernel, comb = fn
    oh = _order(th, geo.s[0], pt, geo.out[0])[0]
    ow, lo, hi = _order(tw, geo.s[1], pl, geo.out[1])
    out = np.empty(x.shape[:2] + tuple(geo.out), x.dtype)
    kernel(x, out, geo.k[0], geo.k[1], geo.s[0], geo.s[1], pt, pl, oh, ow, lo, hi,
           np.empty(x.shape[3], x.dtype), comb)
    return out
