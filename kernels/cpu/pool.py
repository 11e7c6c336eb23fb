"""numpy kernels of pool2d, pool3d, max_pool2d_with_index,
max_pool3d_with_index and their grads, for any number of spatial dims.

Three paths, chosen per call from the geometry:
- one window over the whole input (global pooling): a flat reduction (an
  average of at most ``WHOLE_GEMV_MAX`` values per channel: a product with
  ones, ``_whole_avg``);
- ordinary windows (adaptive bins that tile included): one strided slice of
  the padded input per kernel offset, combined with maximum / add (padding is
  -inf for max, 0 for avg); backward adds back through the same slices;
- adaptive bins that do not tile: averaging matrices (one per axis) for avg,
  a loop over the output bins for max.
Max pooling routes the gradient to the first maximum of each window
(row-major), as Paddle does; the mask of max_pool*_with_index is the flat
index of that maximum within its (D, H, W) plane.
"""
import functools
import itertools
import math

import numpy as np

from ...ops import OpError
from ...ops.defs.nn_conv import pool_geometry, channel_last
from ..registry import kernel
from .pool_compiled import max_pool_2x2, pool_rows, pool_same3, pool_valid3_s2
from .pool_kernel import max_pool_3x3_s2, max_pool_2x2_s2


# Paddle's max pooling starts every window at -FLT_MAX (also for float64), so a
# window wholly in the padding (ceil_mode) gives -FLT_MAX, not -inf
_MAX_INIT = -float(np.finfo(np.float32).max)
_ALL2 = (slice(None), slice(None))


def _nchw(a, last):
    return a.transpose((0, a.ndim - 1) + tuple(range(1, a.ndim - 1))) if last else a


def _back(a, last):
    return a.transpose((0,) + tuple(range(2, a.ndim)) + (1,)) if last else a


class _Geo:
    """Everything a pool kernel needs about one call's windows."""
    __slots__ = ("k", "s", "pads", "out", "adaptive", "tiles", "exclusive", "whole")

    def __init__(self, hw, attrs):
        self.k, self.s, self.pads, self.out = pool_geometry(hw, attrs)
        self.adaptive = bool(attrs["adaptive"]) and not attrs["global_pooling"]
        self.exclusive = attrs.get("exclusive", True)
        if self.adaptive:
            # bins tile exactly when the size divides evenly: plain windows then
            self.tiles = all(o and i % o == 0 for i, o in zip(hw, self.out))
            if self.tiles:
                self.k = self.s = tuple(i // o for i, o in zip(hw, self.out))
                self.adaptive = False
        else:
            self.tiles = (all(p == (0, 0) for p in self.pads) and
                          all((s == k or o == 1) and o * k <= i
                              for i, k, s, o in zip(hw, self.k, self.s, self.out)))
        # one window covering the whole input: a flat reduction
        self.whole = (self.tiles and all(o == 1 for o in self.out) and
                      tuple(self.k) == tuple(hw))


def _padded(x, geo, value):
    """x padded (with ``value``) so that every window lies inside it."""
    pads = tuple((p[0], max((o - 1) * s + k - i - p[0], 0))
                 for i, o, k, s, p in zip(x.shape[2:], geo.out, geo.k, geo.s, geo.pads))
    if any(a or b for a, b in pads):
        return np.pad(x, ((0, 0), (0, 0)) + pads, constant_values=value)
    return x


def _offsets(geo):
    """(kernel offset, index expression) of every kernel offset, row-major: the
    slice of the padded input that offset contributes to each output window."""
    return _window_offsets(tuple(geo.k), tuple(geo.s), tuple(geo.out))


@functools.lru_cache(maxsize=1024)
def _window_offsets(ks, strides, out):
    return tuple((off, (Ellipsis,) + tuple(slice(i, i + s * (o - 1) + 1, s)
                                           for i, s, o in zip(off, strides, out)))
                 for off in itertools.product(*map(range, ks)))


def _counts(size, k, s, pad, o):
    """Per-output window sizes along one axis, clipped to the input (exclusive avg)."""
    start = np.arange(o) * s - pad
    end = np.minimum(start + k, size)
    return (end - np.maximum(start, 0)).astype(np.float64)


def _inclusive_counts(size, k, s, pad, o):
    """Per-output window sizes counting the padding (exclusive=False): Paddle ends
    a window at the input plus the leading pad, so a ceil_mode window past it is
    smaller than the kernel."""
    start = np.arange(o) * s - pad
    return (np.minimum(start + k, size + pad) - start).astype(np.float64)


def _avg_divisor(x, geo):
    full = float(math.prod(geo.k))
    if geo.tiles:
        return full
    count = _counts if geo.exclusive else _inclusive_counts
    d = functools.reduce(np.multiply.outer,
                         [count(i, k, s, p[0], o) for i, k, s, p, o in
                          zip(x.shape[2:], geo.k, geo.s, geo.pads, geo.out)])
    if not geo.exclusive and (d == full).all():
        return full
    return d.astype(x.dtype)


def _bins(size, o):
    i = np.arange(o)
    return (i * size) // o, -((-(i + 1) * size) // o)        # floor start, ceil end


def _adaptive_matrix(size, o, dtype):
    start, end = _bins(size, o)
    m = np.zeros((o, size), dtype)
    for r in range(o):
        m[r, start[r]:end[r]] = 1.0 / (end[r] - start[r])
    return m


def _along(y, m, ax):
    """Contract axis ``ax`` of ``y`` with the columns of the matrix ``m``."""
    if ax == y.ndim - 1:
        return np.matmul(y, m.T)
    if ax == y.ndim - 2:
        return np.matmul(m, y)
    return np.moveaxis(np.matmul(m, np.moveaxis(y, ax, -2)), -2, ax)


def _adaptive_avg(y, sizes, out, dtype, adjoint=False):
    """Average over the adaptive bins, one axis at a time (``adjoint``: spread
    output gradients back over the bins)."""
    for a, (size, o) in enumerate(zip(sizes, out)):
        m = _adaptive_matrix(size, o, dtype)
        y = _along(y, m.T if adjoint else m, 2 + a)
    return y


# ------------------------------------------------------------------ forward
def pool_forward(x, geo, is_max):
    if geo.whole:
        flat = x.reshape(x.shape[0], x.shape[1], -1)
        r = flat.max(axis=-1) if is_max else _whole_avg(flat)
        return r.reshape(x.shape[:2] + (1,) * (x.ndim - 2))
    if geo.adaptive:
        if is_max:
            return _adaptive_max(x, geo)[0]
        return _adaptive_avg(x, x.shape[2:], geo.out, x.dtype)
    # the compiled loops of kernels/cpu/pool_kernel.py and pool_compiled.py (the
    # separable path's bits), the first that takes this geometry; else numpy's
    # separable path
    out = max_pool_3x3_s2(x, geo) if is_max else None
    if out is None and is_max:
        out = max_pool_2x2_s2(x, geo)
    if out is None and is_max:
        out = max_pool_2x2(x, geo)
    if out is None:
        out = pool_same3(x, geo, is_max)
    if out is None:
        out = pool_valid3_s2(x, geo, is_max)
    if out is None:
        out = pool_rows(x, geo, is_max, _taps)
    if is_max:
        return _separable_max(x, geo) if out is None else out
    if out is None:
        out = _separable(x, geo, np.add, 0)
    out /= _avg_divisor(x, geo)
    return out


# numpy reduces a short last axis row by row (~20-30 ns a row): the global
# average pools of MobileNetV3's SE blocks (16x576x7x7: 242 us) and the heads
# of ResNets (16x2048x7x7: 848 us) ran 3-6x slower than BLAS's product of the
# same rows with ones (40 and 127 us; the sums in another order, errors alike
# against float64); past a few thousand values a row the reduction is faster
# again (16x64x112x112: 2.2 against 2.5 ms)
WHOLE_GEMV_MAX = 4096


def _whole_avg(flat):
    """The mean of each row of ``flat`` (N, C, L): sum / L, the sum a product with
    ones where the rows are short and the dtype BLAS's."""
    n = flat.shape[-1]
    if n <= WHOLE_GEMV_MAX and flat.dtype in (np.float32, np.float64):
        r = np.matmul(flat, _ones(n, flat.dtype.char))
        r /= n
        return r
    return flat.mean(axis=-1)


@functools.lru_cache(maxsize=64)
def _ones(n, char):
    a = np.ones(n, char)
    a.flags.writeable = False
    return a


def _separable_max(x, geo):
    """The window maximum one spatial axis at a time (``_separable``); the
    maximum does not depend on the order it is taken in."""
    return _separable(x, geo, np.maximum, _MAX_INIT)


def _separable(x, geo, combine, pad_value):
    """The windows reduced by ``combine`` (np.maximum or np.add) one spatial axis
    at a time: a 3x3 window is 2 + 2 passes over shrinking arrays instead of 9
    over strided views of the whole input (ResNet/SqueezeNet max pools 2-3x,
    Inception's 3x3 average pools faster).  The first axis goes first: its
    views are whole rows (contiguous runs), and the strided last axis is then
    taken over an array already shrunk by the first's stride.  Padding is never
    written out: each kernel offset updates only the outputs whose window
    holds it (``_taps``), starting from offsets inside every window (a sum
    skips the padding's zeros); a window wholly in the padding takes the
    padded form (``pad_value``)."""
    y = x
    for ax in range(2, x.ndim):
        taps = _taps(y.shape[ax], geo.k[ax - 2], geo.s[ax - 2], geo.pads[ax - 2][0],
                     geo.out[ax - 2])
        if taps is None:        # some window lies wholly in the padding
            return _separable(_padded(x, geo, pad_value), _unpadded(geo), combine, pad_value)
        lead = (slice(None),) * ax
        if len(taps) > 1 and taps[1][0] is None:      # two offsets in every window
            z = combine(y[lead + (taps[0][1],)], y[lead + (taps[1][1],)])
            rest = taps[2:]
        else:
            z = y[lead + (taps[0][1],)].copy()
            rest = taps[1:]
        for dst, src in rest:
            v = z if dst is None else z[lead + (dst,)]
            combine(v, y[lead + (src,)], out=v)
        y = z
    return y


@functools.lru_cache(maxsize=1024)
def _taps(size, k, s, p, o):
    """Per kernel offset along one axis of ``size`` inputs: (outputs it is in the
    window of, None for all; the inputs it gives them, a strided slice), the
    offsets in every window first; None if some output's window holds no input."""
    full, part = [], []
    covered = [False] * o
    for i in range(k):
        off = i - p
        lo = -(off // s) if off < 0 else 0          # the first output it reaches: ceil(-off / s)
        hi = min(o - 1, (size - 1 - off) // s)
        if lo > hi:
            continue
        for j in range(lo, hi + 1):
            covered[j] = True
        src = slice(lo * s + off, hi * s + off + 1, s)
        if lo == 0 and hi == o - 1:
            full.append((None, src))
        else:
            part.append((slice(lo, hi + 1), src))
    if not full or not all(covered):
        return None
    return tuple(full + part)


def _unpadded(geo):
    """``geo`` for its input already padded (``_padded``): no padding left."""
    g = _Geo.__new__(_Geo)
    for name in _Geo.__slots__:
        setattr(g, name, getattr(geo, name))
    g.pads = tuple((0, 0) for _ in geo.pads)
    return g


def _flat(pos, sizes):
    """Row-major flat index of per-axis positions within ``sizes``."""
    flat = 0
    for p, size in zip(pos, sizes):
        flat = flat * size + p
    return flat


def _adaptive_max(x, geo):
    """Output and flat input index (e.g. (d * H + h) * W + w) of each bin's first
    maximum."""
    n, c = x.shape[:2]
    sp = x.shape[2:]
    bins = [_bins(i, o) for i, o in zip(sp, geo.out)]
    out = np.empty((n, c) + tuple(geo.out), x.dtype)
    idx = np.empty((n, c) + tuple(geo.out), np.int64)
    for pos in itertools.product(*map(range, geo.out)):
        starts = [int(b[0][p]) for b, p in zip(bins, pos)]
        ends = [int(b[1][p]) for b, p in zip(bins, pos)]
        blk = x[_ALL2 + tuple(slice(a, b) for a, b in zip(starts, ends))].reshape(n, c, -1)
        a = blk.argmax(axis=-1)
        out[_ALL2 + pos] = np.take_along_axis(blk, a[..., None], -1)[..., 0]
        local = np.unravel_index(a, tuple(b - s for s, b in zip(starts, ends)))
        idx[_ALL2 + pos] = _flat([s + j for s, j in zip(starts, local)], sp)
    return out, idx


def _window_argmax(x, geo):
    """Output and flat input index of the first maximum of each window."""
    sp = x.shape[2:]
    nd = len(sp)
    mult = [math.prod(sp[a + 1:]) for a in range(nd)]
    # flat index of every window's origin (which may lie in the padding)
    base = 0
    for a in range(nd):
        shape = [1] * nd
        shape[a] = geo.out[a]
        base = base + ((np.arange(geo.out[a]) * geo.s[a] - geo.pads[a][0]) *
                       mult[a]).reshape(shape)
    xp = _padded(x, geo, _MAX_INIT)
    best = idx = None
    for off, sl in _offsets(geo):
        v = xp[sl]
        pos = base + sum(o * m for o, m in zip(off, mult))
        if best is None:
            best = v.copy()
            idx = np.broadcast_to(pos, v.shape).copy()
            continue
        upd = v > best                     # strict: the first maximum wins
        np.copyto(best, v, where=upd)
        np.copyto(idx, np.broadcast_to(pos, v.shape), where=upd)
    return best, idx


# ------------------------------------------------------------------ backward
def pool_backward(x, out, g, geo, is_max):
    sp = x.shape[2:]
    if geo.whole:
        if is_max:
            a = x.reshape(x.shape[0], x.shape[1], -1).argmax(axis=-1)
            return scatter_flat(a.reshape(out.shape), g, x.shape)
        return np.broadcast_to(g / math.prod(sp), x.shape).astype(x.dtype)
    if geo.adaptive:
        if is_max:
            return scatter_flat(_adaptive_max(x, geo)[1], g, x.shape)
        return _adaptive_avg(g, sp, geo.out, x.dtype, adjoint=True)
    xp = _padded(x, geo, _MAX_INIT if is_max else 0)
    dxp = np.zeros(xp.shape, g.dtype)
    if not is_max:
        gs = g / _avg_divisor(x, geo)
        for _, sl in _offsets(geo):
            dxp[sl] += gs
    else:
        taken = None                       # windows whose first maximum is found
        for _, sl in _offsets(geo):
            hit = xp[sl] == out
            if taken is None:
                taken = hit
            else:
                hit &= ~taken
                taken |= hit
            dxp[sl] += g * hit
    if dxp.shape[2:] != sp:
        dxp = dxp[_ALL2 + tuple(slice(p[0], p[0] + i) for p, i in zip(geo.pads, sp))]
    return dxp


def scatter_flat(idx, g, shape):
    """Add g at flat spatial positions idx (N, C, *out) of an (N, C, *spatial) zero array."""
    nc = shape[0] * shape[1]
    dx = np.zeros((nc, math.prod(shape[2:])), g.dtype)
    rows = np.repeat(np.arange(nc), math.prod(idx.shape[2:]))
    np.add.at(dx, (rows, idx.reshape(-1)), g.reshape(-1))
    return dx.reshape(shape)


# ------------------------------------------------------------------ kernels
def _setup(x, attrs):
    last = channel_last(attrs)
    x = _nchw(x, last)
    return x, last, _Geo(x.shape[2:], attrs), attrs["pooling_type"] == "max"


@kernel("pool2d", "pool3d")
def pool2d(ins, attrs, need):
    x, last, geo, is_max = _setup(ins[0], attrs)
    return (_back(pool_forward(x, geo, is_max), last),)


@kernel("pool2d_grad", "pool3d_grad")
def pool2d_grad(ins, attrs, need):
    x, out, g = ins
    x, last, geo, is_max = _setup(x, attrs)
    return (_back(pool_backward(x, _nchw(out, last), _nchw(g, last), geo, is_max), last),)


def _idx_geo(x, attrs):
    full = dict(attrs, padding_algorithm="EXPLICIT", ceil_mode=False, exclusive=True)
    return _Geo(x.shape[2:], full)


@kernel("max_pool2d_with_index", "max_pool3d_with_index")
def max_pool2d_with_index(ins, attrs, need):
    x = ins[0]
    geo = _idx_geo(x, attrs)
    out, idx = (_adaptive_max if geo.adaptive else _window_argmax)(x, geo)
    return out, idx.astype(np.int32)


@kernel("max_pool2d_with_index_grad", "max_pool3d_with_index_grad")
def max_pool2d_with_index_grad(ins, attrs, need):
    x, mask, g = ins
    return (scatter_flat(mask.astype(np.int64), g, x.shape),)


@kernel("pool2d_double_grad")
def pool2d_double_grad(ins, attrs, need):
    """Average pooling is linear: the gradient of its grad pools DDX.  Max
    pooling's would gather DDX at each window's maximum, which needs X, and
    Paddle's op reads only DDX."""
    if attrs["pooling_type"] == "max":
        raise OpError("op 'pool2d_double_grad': the double gradient of max pooling is not "
                      "supported (pool2d_double_grad reads only grad_x@GRAD, not X)")
    x, last, geo, _ = _setup(ins[0], attrs)
    return (_back(pool_forward(x, geo, False), last),)
