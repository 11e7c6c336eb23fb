"""numpy kernels of pool2d, max_pool2d_with_index and their grads.

Three paths, chosen per call from the geometry:
- one window over the whole plane (global pooling): a flat reduction;
- ordinary windows (adaptive bins that tile included): one strided slice of
  the padded input per kernel offset, combined with maximum / add (padding is
  -inf for max, 0 for avg); backward adds back through the same slices;
- adaptive bins that do not tile: averaging matrices for avg, a loop over
  the output bins for max.
Max pooling routes the gradient to the first maximum of each window
(row-major), as Paddle does.
"""
import numpy as np

from ...ops import OpError
from ...ops.defs.nn_conv import pool_geometry, channel_last
from ..registry import kernel


# Paddle's max pooling starts every window at -FLT_MAX (also for float64), so a
# window wholly in the padding (ceil_mode) gives -FLT_MAX, not -inf
_MAX_INIT = -float(np.finfo(np.float32).max)


def _nchw(a, last):
    return a.transpose(0, 3, 1, 2) if last else a


def _back(a, last):
    return a.transpose(0, 2, 3, 1) if last else a


class _Geo:
    """Everything a pool kernel needs about one call's windows."""
    __slots__ = ("k", "s", "pads", "out", "adaptive", "tiles", "exclusive", "whole")

    def __init__(self, hw, attrs):
        self.k, self.s, self.pads, self.out = pool_geometry(hw, attrs)
        self.adaptive = bool(attrs["adaptive"]) and not attrs["global_pooling"]
        self.exclusive = attrs.get("exclusive", True)
        if self.adaptive:
            # bins tile exactly when the size divides evenly: plain windows then
            self.tiles = all(i % o == 0 for i, o in zip(hw, self.out))
            if self.tiles:
                self.k = self.s = tuple(i // o for i, o in zip(hw, self.out))
                self.adaptive = False
        else:
            self.tiles = (all(p == (0, 0) for p in self.pads) and
                          all((s == k or o == 1) and o * k <= i
                              for i, k, s, o in zip(hw, self.k, self.s, self.out)))
        # one window covering the whole plane: a flat reduction
        self.whole = self.tiles and self.out == (1, 1) and tuple(self.k) == tuple(hw)


def _padded(x, geo, value):
    """x padded (with ``value``) so that every window lies inside it."""
    (oh, ow), (kh, kw), (sh, sw) = geo.out, geo.k, geo.s
    (pt, _), (pl, _) = geo.pads
    h, w = x.shape[2:]
    pb = max((oh - 1) * sh + kh - h - pt, 0)
    pr = max((ow - 1) * sw + kw - w - pl, 0)
    if pt or pb or pl or pr:
        return np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=value)
    return x


def _offsets(geo):
    """(i, j, index expression) of every kernel offset, row-major: the slice of
    the padded input that offset (i, j) contributes to each output window."""
    (oh, ow), (kh, kw), (sh, sw) = geo.out, geo.k, geo.s
    for i in range(kh):
        for j in range(kw):
            yield i, j, (Ellipsis, slice(i, i + sh * (oh - 1) + 1, sh),
                         slice(j, j + sw * (ow - 1) + 1, sw))


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
    full = float(geo.k[0] * geo.k[1])
    if geo.tiles:
        return full
    h, w = x.shape[2:]
    count = _counts if geo.exclusive else _inclusive_counts
    ch = count(h, geo.k[0], geo.s[0], geo.pads[0][0], geo.out[0])
    cw = count(w, geo.k[1], geo.s[1], geo.pads[1][0], geo.out[1])
    d = np.outer(ch, cw)
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


# ------------------------------------------------------------------ forward
def pool_forward(x, geo, is_max):
    if geo.whole:
        flat = x.reshape(x.shape[0], x.shape[1], -1)
        r = flat.max(axis=-1) if is_max else flat.mean(axis=-1)
        return r.reshape(x.shape[0], x.shape[1], 1, 1)
    if geo.adaptive:
        if is_max:
            return _adaptive_max(x, geo)[0]
        h, w = x.shape[2:]
        ah = _adaptive_matrix(h, geo.out[0], x.dtype)
        aw = _adaptive_matrix(w, geo.out[1], x.dtype)
        return np.matmul(np.matmul(ah, x), aw.T)
    # one strided slice per kernel offset: numpy reduces small, strided window
    # axes slowly, but combines whole slices at full speed
    xp = _padded(x, geo, _MAX_INIT if is_max else 0)
    out = None
    for _, _, sl in _offsets(geo):
        v = xp[sl]
        if out is None:
            out = v.copy()
        elif is_max:
            np.maximum(out, v, out=out)
        else:
            out += v
    if is_max:
        return out
    out /= _avg_divisor(x, geo)
    return out


def _adaptive_max(x, geo):
    """Output and flat input index (h * W + w) of each bin's first maximum."""
    n, c, h, w = x.shape
    (oh, ow) = geo.out
    hs, he = _bins(h, oh)
    ws, we = _bins(w, ow)
    out = np.empty((n, c, oh, ow), x.dtype)
    idx = np.empty((n, c, oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            blk = x[:, :, hs[i]:he[i], ws[j]:we[j]].reshape(n, c, -1)
            bw = we[j] - ws[j]
            a = blk.argmax(axis=-1)
            out[:, :, i, j] = np.take_along_axis(blk, a[..., None], -1)[..., 0]
            idx[:, :, i, j] = (hs[i] + a // bw) * w + ws[j] + a % bw
    return out, idx


def _window_argmax(x, geo):
    """Output and flat input index (h * W + w) of the first maximum of each window."""
    w = x.shape[3]
    (oh, ow), (sh, sw) = geo.out, geo.s
    (pt, _), (pl, _) = geo.pads
    xp = _padded(x, geo, _MAX_INIT)
    rows0 = np.arange(oh)[:, None] * sh - pt
    cols0 = np.arange(ow)[None, :] * sw - pl
    best = idx = None
    for i, j, sl in _offsets(geo):
        v = xp[sl]
        pos = (rows0 + i) * w + cols0 + j
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
    n, c, h, w = x.shape
    if geo.whole:
        if is_max:
            return scatter_flat(x.reshape(n, c, -1).argmax(axis=-1).reshape(n, c, 1, 1),
                                g, x.shape)
        return np.broadcast_to(g / (h * w), x.shape).astype(x.dtype)
    if geo.adaptive:
        if is_max:
            return scatter_flat(_adaptive_max(x, geo)[1], g, x.shape)
        ah = _adaptive_matrix(h, geo.out[0], x.dtype)
        aw = _adaptive_matrix(w, geo.out[1], x.dtype)
        return np.matmul(np.matmul(ah.T, g), aw)
    (pt, _), (pl, _) = geo.pads
    xp = _padded(x, geo, _MAX_INIT if is_max else 0)
    dxp = np.zeros(xp.shape, g.dtype)
    if not is_max:
        gs = g / _avg_divisor(x, geo)
        for _, _, sl in _offsets(geo):
            dxp[sl] += gs
    else:
        taken = None                       # windows whose first maximum is found
        for _, _, sl in _offsets(geo):
            hit = xp[sl] == out
            if taken is None:
                taken = hit
            else:
                hit &= ~taken
                taken |= hit
            dxp[sl] += g * hit
    if dxp.shape[2:] != (h, w):
        dxp = dxp[:, :, pt:pt + h, pl:pl + w]
    return dxp


def scatter_flat(idx, g, shape):
    """Add g at flat spatial positions idx (N, C, oh, ow) of an (N, C, H, W) zero array."""
    n, c, h, w = shape
    dx = np.zeros((n * c, h * w), g.dtype)
    rows = np.repeat(np.arange(n * c), idx.shape[2] * idx.shape[3])
    np.add.at(dx, (rows, idx.reshape(-1)), g.reshape(-1))
    return dx.reshape(shape)


# ------------------------------------------------------------------ kernels
def _setup(x, attrs):
    last = channel_last(attrs)
    x = _nchw(x, last)
    return x, last, _Geo(x.shape[2:], attrs), attrs["pooling_type"] == "max"


@kernel("pool2d")
def pool2d(ins, attrs, need):
    x, last, geo, is_max = _setup(ins[0], attrs)
    return (_back(pool_forward(x, geo, is_max), last),)


@kernel("pool2d_grad")
def pool2d_grad(ins, attrs, need):
    x, out, g = ins
    x, last, geo, is_max = _setup(x, attrs)
    return (_back(pool_backward(x, _nchw(out, last), _nchw(g, last), geo, is_max), last),)


def _idx_geo(x, attrs):
    full = dict(attrs, padding_algorithm="EXPLICIT", ceil_mode=False, exclusive=True,
                data_format="NCHW")
    return _Geo(x.shape[2:], full)


@kernel("max_pool2d_with_index")
def max_pool2d_with_index(ins, attrs, need):
    x = ins[0]
    geo = _idx_geo(x, attrs)
    out, idx = (_adaptive_max if geo.adaptive else _window_argmax)(x, geo)
    return out, idx.astype(np.int32)


@kernel("max_pool2d_with_index_grad")
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
