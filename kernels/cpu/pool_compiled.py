"""2x2 stride-2 max pooling compiled by numba (the optional compiler of
kernels/cpu/fused_elementwise.py): VGG's pools, the small CNNs' pools.

numpy takes the window maximum in two strided passes over the input and a
half-size temporary; one loop nest reads each input row pair once and writes
the output row: 2-8x numpy's time on every shape measured (VGG's
16x64x224x224 pool 50 -> 14 ms, a 32x16x32x32 pool 0.17 -> 0.04 ms).  The
maxima are combined in the numpy path's order (the two rows first, then the
two columns) with np.maximum's rule (NaN from either side, the second on a
tie), so the results are that path's bits, signed zeros included.

``max_pool_2x2`` returns None where it does not apply (no numba, another
window, padding, an odd tail the window would need, not float32/float64).
"""
import numpy as np

from .fused_elementwise import numba_available

__all__ = ["max_pool_2x2"]


def _max(a, b):
    return a if a > b or a != a else b


def _pool(x, out, mx):
    n, c = x.shape[:2]
    ho, wo = out.shape[2], out.shape[3]
    for b in range(n):
        for ch in range(c):
            for y in range(ho):
                r0 = x[b, ch, 2 * y]
                r1 = x[b, ch, 2 * y + 1]
                o = out[b, ch, y]
                for i in range(wo):
                    o[i] = mx(mx(r0[2 * i], r1[2 * i]), mx(r0[2 * i + 1], r1[2 * i + 1]))


_COMPILED = []
_DTYPES = (np.dtype("float32"), np.dtype("float64"))     # numba has no float16


def _compiled():
    if not _COMPILED:
        fn = None
        if numba_available():
            try:
                import numba
                mx = numba.njit(inline="always")(_max)
                kernel = numba.njit(cache=True, nogil=True)(_pool)
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
