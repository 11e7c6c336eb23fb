"""OpenCV's image kernels re-done in numpy, for the 'cv2' backend of the
transforms (numpy HWC images), so no OpenCV is needed.

What OpenCV does and this file reproduces: resize samples with half-pixel
centres and clamped (replicated) borders, nearest picks floor(dx * scale);
warpAffine / warpPerspective invert the matrix, quantize source coordinates
to 1/32 pixel (INTER_BITS = 5) and interpolate with tabulated weights (15-bit
integers for uint8 images), taps outside the image read the border value;
colour conversions use OpenCV's coefficients (14-bit fixed point on uint8).
uint8 results may differ from OpenCV by one grey level where its fixed-point
rounding differs from the float arithmetic here.
"""
import math

import numpy as np

INTER_BITS = 5
INTER_TAB = 1 << INTER_BITS
INTERPOLATIONS = ("nearest", "bilinear", "area", "bicubic", "lanczos")


def _check_interp(interpolation):
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"interpolation should be one of {INTERPOLATIONS}, "
                         f"got {interpolation!r}")


def _as_hwc(img):
    return (img[:, :, None], True) if img.ndim == 2 else (img, False)


def _cast(out, dtype):
    """OpenCV's saturate_cast: round half to even, clip to the integer range."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(dtype)
    return out.astype(dtype)


# ---------------------------------------------------------------- resize
def _cubic_weights(t, a=-0.75):
    t = np.abs(t)
    return np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                    np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))


def _lanczos4_weights(frac):
    d = frac[:, None] + 3 - np.arange(8)[None, :]          # distance to each of the 8 taps
    y = d * math.pi / 4
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.sin(4 * y) * np.sin(y) / (4 * y * y)
    w = np.where(np.abs(d) < 1e-12, 1.0, w)
    w = np.where(frac[:, None] < np.finfo(np.float32).eps,
                 (np.arange(8) == 3).astype(float)[None, :], w)
    return w / w.sum(axis=1, keepdims=True)


def _axis_taps(n_src, n_dst, mode):
    """(indices [n_dst, k], weights [n_dst, k]) sampling one axis.  'area' is
    the box average (downscaling); 'area_up' is what INTER_AREA does unless both
    axes shrink: a linear interpolation with sharper weights."""
    scale = n_src / n_dst
    dst = np.arange(n_dst, dtype=np.float64)
    if mode == "nearest":
        idx = np.minimum(np.floor(dst * scale).astype(np.int64), n_src - 1)
        return idx[:, None], np.ones((n_dst, 1))
    if mode == "area":
        return _area_taps(n_src, n_dst, scale)
    if mode == "area_up":
        sx = np.floor(dst * scale)
        f = (dst + 1) - (sx + 1) / scale
        f = np.where(f <= 0, 0.0, f - np.floor(f))
        idx = np.stack([sx, sx + 1], 1).astype(np.int64)
        return np.clip(idx, 0, n_src - 1), np.stack([1 - f, f], 1)
    f = (dst + 0.5) * scale - 0.5
    sx = np.floor(f)
    frac = f - sx
    if mode == "bilinear":
        frac = np.where(sx < 0, 0.0, frac)
        sx = np.maximum(sx, 0)
        frac = np.where(sx >= n_src - 1, 0.0, frac)
        idx = np.stack([sx, sx + 1], 1).astype(np.int64)
        w = np.stack([1 - frac, frac], 1)
    elif mode == "bicubic":
        offs = np.arange(-1, 3)
        idx = sx[:, None].astype(np.int64) + offs[None, :]
        w = _cubic_weights(frac[:, None] - offs[None, :])
    else:                       # lanczos
        offs = np.arange(-3, 5)
        idx = sx[:, None].astype(np.int64) + offs[None, :]
        w = _lanczos4_weights(frac)
    return np.clip(idx, 0, n_src - 1), w


def _area_taps(n_src, n_dst, scale):
    k = int(math.ceil(scale)) + 1
    starts = np.arange(n_dst) * scale
    ends = starts + scale
    first = np.floor(starts).astype(np.int64)
    idx = first[:, None] + np.arange(k)[None, :]
    lo = np.maximum(idx, starts[:, None])
    hi = np.minimum(idx + 1, ends[:, None])
    w = np.clip(hi - lo, 0, None) / scale
    return np.clip(idx, 0, n_src - 1), w


def _apply_axis(img, axis, idx, w):
    taken = np.take(img, idx, axis=axis)                   # axis becomes (n_dst, k)
    shape = [1] * taken.ndim
    shape[axis], shape[axis + 1] = w.shape
    return (taken * w.reshape(shape)).sum(axis=axis + 1)


def _fixed_taps(n_src, n_dst, mode):
    """Two-tap (bilinear / area_up) taps with OpenCV's 11-bit integer weights."""
    if mode == "area_up":
        idx, w = _axis_taps(n_src, n_dst, mode)
        w1 = np.rint(w[:, 1].astype(np.float32) * 2048).astype(np.int64)
        w0 = np.rint(w[:, 0].astype(np.float32) * 2048).astype(np.int64)
        return idx[:, 0], idx[:, 1], w0, w1
    f = ((np.arange(n_dst) + 0.5) * (n_src / n_dst) - 0.5).astype(np.float32)
    sx = np.floor(f)
    fr = (f - sx).astype(np.float32)
    fr = np.where(sx < 0, np.float32(0), fr)
    sx = np.maximum(sx, 0)
    fr = np.where(sx >= n_src - 1, np.float32(0), fr)
    w0 = np.rint((np.float32(1) - fr) * 2048).astype(np.int64)
    w1 = np.rint(fr * 2048).astype(np.int64)
    i0 = np.clip(sx, 0, n_src - 1).astype(np.int64)
    return i0, np.minimum(i0 + 1, n_src - 1), w0, w1


def _resize_linear_u8(src, oh, ow, mode):
    """OpenCV's fixed-point two-tap resize of uint8 images (its vectorised rounding)."""
    x = src.astype(np.int64)
    i0, i1, a0, a1 = _fixed_taps(src.shape[1], ow, mode)
    rows = x[:, i0] * a0[None, :, None] + x[:, i1] * a1[None, :, None]
    j0, j1, b0, b1 = _fixed_taps(src.shape[0], oh, mode)
    b0, b1 = b0[:, None, None], b1[:, None, None]
    out = (((b0 * (rows[j0] >> 4)) >> 16) + ((b1 * (rows[j1] >> 4)) >> 16) + 2) >> 2
    return np.clip(out, 0, 255).astype(np.uint8)


def resize(img, dsize, interpolation="bilinear"):
    """cv2.resize(img, dsize=(w, h)) on an HW or HWC array."""
    _check_interp(interpolation)
    ow, oh = int(dsize[0]), int(dsize[1])
    if ow <= 0 or oh <= 0:
        raise ValueError(f"resize: the output size must be positive, got (w={ow}, h={oh})")
    src, squeezed = _as_hwc(img)
    h, w = src.shape[:2]
    if interpolation == "area" and not (h >= oh and w >= ow):
        interpolation = "area_up"
    if interpolation in ("bilinear", "area_up") and src.dtype == np.uint8:
        out = _resize_linear_u8(src, oh, ow, interpolation)
    elif interpolation == "nearest":
        iy, _ = _axis_taps(h, oh, "nearest")
        ix, _ = _axis_taps(w, ow, "nearest")
        out = src[iy[:, 0]][:, ix[:, 0]]
    else:
        x = src.astype(np.float64)
        x = _apply_axis(x, 0, *_axis_taps(h, oh, interpolation))
        x = _apply_axis(x, 1, *_axis_taps(w, ow, interpolation))
        out = _cast(x, src.dtype)
    return out[:, :, 0] if squeezed else out


# ---------------------------------------------------------------- borders, flips, LUT
def copy_make_border(img, top, bottom, left, right, mode="constant", value=0):
    src, squeezed = _as_hwc(img)
    widths = ((top, bottom), (left, right), (0, 0))
    np_mode = {"constant": "constant", "edge": "edge", "reflect": "reflect",
               "symmetric": "symmetric"}[mode]
    if mode == "constant":
        fill = np.broadcast_to(np.asarray(_border_value(value, src.shape[2]), np.float64),
                               (src.shape[2],))
        out = np.empty((src.shape[0] + top + bottom, src.shape[1] + left + right,
                        src.shape[2]), src.dtype)
        out[...] = _cast(fill, src.dtype)
        out[top:top + src.shape[0], left:left + src.shape[1]] = src
    else:
        out = np.pad(src, widths, mode=np_mode)
    return out[:, :, 0] if squeezed else out


def _border_value(value, channels):
    """cv2's Scalar borderValue: up to 4 numbers, missing ones 0."""
    if isinstance(value, str):
        raise TypeError(f"fill must be a number or a sequence of numbers, got {value!r}")
    v = list(value) if isinstance(value, (tuple, list, np.ndarray)) else [value]
    v = (v + [0] * 4)[:4]
    return np.asarray(v[:channels] if channels <= 4 else v + [0] * (channels - 4), np.float64)


def lut(img, table):
    if img.dtype != np.uint8:
        raise TypeError(f"this operation needs a uint8 image (OpenCV's LUT), got {img.dtype}")
    return table[img]


# ---------------------------------------------------------------- colour
def rgb_to_gray(img, bgr=False):
    """cv2.cvtColor(img, COLOR_RGB2GRAY / COLOR_BGR2GRAY), keeping a channel axis."""
    x = img.astype(np.float64)
    r, g, b = (x[..., 2], x[..., 1], x[..., 0]) if bgr else (x[..., 0], x[..., 1], x[..., 2])
    if img.dtype == np.uint8:
        out = (r * 4899 + g * 9617 + b * 1868 + (1 << 13)) // (1 << 14)
        return out.astype(np.uint8)[..., None]
    return (0.299 * r + 0.587 * g + 0.114 * b).astype(img.dtype)[..., None]


def bgr_to_hsv_full(img):
    """cv2.cvtColor(uint8 img, COLOR_BGR2HSV_FULL): h in [0, 256), s, v in [0, 255]."""
    x = img.astype(np.int64)
    b, g, r = x[..., 0], x[..., 1], x[..., 2]
    v = np.maximum(np.maximum(b, g), r)
    diff = v - np.minimum(np.minimum(b, g), r)
    shift = 12
    idx = np.arange(256)
    with np.errstate(divide="ignore"):
        sdiv = np.where(idx == 0, 0, np.rint((255 << shift) / np.maximum(idx, 1))).astype(np.int64)
        hdiv = np.where(idx == 0, 0, np.rint((256 << shift) / (6.0 * np.maximum(idx, 1)))
                        ).astype(np.int64)
    s = (diff * sdiv[v] + (1 << (shift - 1))) >> shift
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * hdiv[diff] + (1 << (shift - 1))) >> shift
    h = np.where(h < 0, h + 256, h)
    return np.stack([np.clip(h, 0, 255), s, v], -1).astype(np.uint8)


def hsv_full_to_bgr(img):
    """cv2.cvtColor(uint8 img, COLOR_HSV2BGR_FULL) (its hue range is 255 one way, 256 the
    other, as in OpenCV)."""
    x = img.astype(np.float32)
    h = x[..., 0] * np.float32(6.0 / 255)     # OpenCV decodes FULL-range 8-bit hue over 255
    s = x[..., 1] * np.float32(1 / 255.)
    v = x[..., 2] * np.float32(1 / 255.)
    h = np.mod(h, np.float32(6))
    sector = np.floor(h).astype(np.int64)
    bad = (sector < 0) | (sector >= 6)
    sector = np.where(bad, 0, sector)
    f = np.where(bad, np.float32(0), h - sector)
    tab = np.stack([v, v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))], -1)
    sectors = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])
    pick = sectors[sector]                                   # [..., 3] -> (b, g, r)
    out = np.take_along_axis(tab, pick, axis=-1)
    out = np.where((s == 0)[..., None], v[..., None], out)
    return _cast(out * 255, np.uint8)


# ---------------------------------------------------------------- geometry
def rotation_matrix_2d(center, angle, scale):
    """cv2.getRotationMatrix2D."""
    a = math.radians(angle)
    alpha, beta = math.cos(a) * scale, math.sin(a) * scale
    cx, cy = center
    return np.array([[alpha, beta, (1 - alpha) * cx - beta * cy],
                     [-beta, alpha, beta * cx + (1 - alpha) * cy]], np.float64)


def perspective_transform(src, dst):
    """cv2.getPerspectiveTransform(src, dst) for 4 float32 point pairs."""
    src = np.asarray(src, np.float32).astype(np.float64).reshape(4, 2)
    dst = np.asarray(dst, np.float32).astype(np.float64).reshape(4, 2)
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for i in range(4):
        (x, y), (u, v) = src[i], dst[i]
        a[i] = [x, y, 1, 0, 0, 0, -x * u, -y * u]
        a[i + 4] = [0, 0, 0, x, y, 1, -x * v, -y * v]
        b[i], b[i + 4] = u, v
    return np.append(_lu_solve(a, b), 1.0).reshape(3, 3)


def _lu_solve(a, b):
    """a x = b by Gaussian elimination with partial pivoting, in OpenCV's order
    of operations (cv::solve with DECOMP_LU), one float64 scalar at a time:
    the result must not depend on the host's LAPACK kernels, because nearest-
    neighbour warps round coordinates that land on .5 and a last-bit
    difference in the matrix moves whole pixels."""
    a = [list(map(float, row)) for row in a]
    b = list(map(float, b))
    m = len(b)
    for i in range(m):
        k = max(range(i, m), key=lambda j: abs(a[j][i]))     # first of equal pivots
        if abs(a[k][i]) < np.finfo(np.float64).eps * 10:
            raise ValueError("perspective_transform: the four point pairs are degenerate "
                             "(three of them on one line)")
        if k != i:
            a[i], a[k] = a[k], a[i]
            b[i], b[k] = b[k], b[i]
        d = -1.0 / a[i][i]
        for j in range(i + 1, m):
            alpha = a[j][i] * d
            for c in range(i + 1, m):
                a[j][c] += alpha * a[i][c]
            b[j] += alpha * b[i]
        a[i][i] = -d
    for i in range(m - 1, -1, -1):
        s = b[i]
        for c in range(i + 1, m):
            s -= a[i][c] * b[c]
        b[i] = s * a[i][i]
    return np.array(b)


def _invert_affine(m):
    d = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    d = 1.0 / d if d != 0 else 0.0
    a11, a22, a12, a21 = m[1, 1] * d, m[0, 0] * d, -m[0, 1] * d, -m[1, 0] * d
    return np.array([[a11, a12, -a11 * m[0, 2] - a12 * m[1, 2]],
                     [a21, a22, -a21 * m[0, 2] - a22 * m[1, 2]]])


def _remap(src, ix, iy, fx, fy, interpolation, border):
    """Sample src (HWC) at integer taps (ix, iy) plus 1/32 fractions (fx, fy)."""
    h, w, c = src.shape
    if interpolation == "area":          # OpenCV's warps sample INTER_AREA bilinearly
        interpolation = "bilinear"
    if interpolation == "nearest":
        offs, wx, wy = [0], np.ones(ix.shape + (1,)), np.ones(iy.shape + (1,))
    elif interpolation == "bilinear":
        offs = [0, 1]
        tx, ty = fx / INTER_TAB, fy / INTER_TAB
        wx, wy = np.stack([1 - tx, tx], -1), np.stack([1 - ty, ty], -1)
    elif interpolation == "bicubic":
        offs = [-1, 0, 1, 2]
        tx, ty = fx / INTER_TAB, fy / INTER_TAB
        wx = _cubic_weights(tx[..., None] - np.arange(-1, 3))
        wy = _cubic_weights(ty[..., None] - np.arange(-1, 3))
    else:
        raise ValueError(f"interpolation {interpolation!r} is not supported by sampan's "
                         "rotate/affine/perspective; use 'nearest', 'bilinear', 'bicubic' "
                         "or 'area'")
    wx, wy = wx.astype(np.float32), wy.astype(np.float32)
    if src.dtype == np.uint8 and interpolation != "nearest":
        # OpenCV's integer weight table: products scaled to 2**15
        wts = np.rint(wy[..., :, None] * wx[..., None, :] * 32768) / 32768
    else:
        wts = wy[..., :, None] * wx[..., None, :]
    out = np.zeros(ix.shape + (c,), np.float64)
    fill = _border_value(border, c)
    for a, oy in enumerate(offs):
        for b, ox in enumerate(offs):
            yy, xx = iy + oy, ix + ox
            inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
            vals = src[np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)].astype(np.float64)
            vals = np.where(inside[..., None], vals, fill)
            out += wts[..., a, b][..., None] * vals
    return _cast(out, src.dtype)


def warp_affine(img, m, dsize, interpolation="nearest", border=0):
    """cv2.warpAffine(img, m, dsize=(w, h), flags, borderValue=border)."""
    _check_interp(interpolation)
    src, squeezed = _as_hwc(img)
    inv = _invert_affine(np.asarray(m, np.float64))
    ow, oh = dsize
    x = np.arange(ow, dtype=np.float64)
    y = np.arange(oh, dtype=np.float64)[:, None]
    ab = 1024
    near = interpolation == "nearest"
    rnd = ab // 2 if near else ab // INTER_TAB // 2
    X = np.rint((inv[0, 1] * y + inv[0, 2]) * ab).astype(np.int64) + rnd + \
        np.rint(inv[0, 0] * x * ab).astype(np.int64)
    Y = np.rint((inv[1, 1] * y + inv[1, 2]) * ab).astype(np.int64) + rnd + \
        np.rint(inv[1, 0] * x * ab).astype(np.int64)
    if near:
        out = _remap(src, X >> 10, Y >> 10, None, None, "nearest", border)
    else:
        X, Y = X >> (10 - INTER_BITS), Y >> (10 - INTER_BITS)
        out = _remap(src, X >> INTER_BITS, Y >> INTER_BITS, X & (INTER_TAB - 1),
                     Y & (INTER_TAB - 1), interpolation, border)
    return out[:, :, 0] if squeezed else out


def warp_perspective(img, m, dsize, interpolation="nearest", border=0):
    """cv2.warpPerspective(img, m, dsize=(w, h), flags, borderValue=border)."""
    _check_interp(interpolation)
    src, squeezed = _as_hwc(img)
    inv = np.linalg.inv(np.asarray(m, np.float64))
    ow, oh = dsize
    x = np.arange(ow, dtype=np.float64)[None, :]
    y = np.arange(oh, dtype=np.float64)[:, None]
    wv = inv[2, 0] * x + inv[2, 1] * y + inv[2, 2]
    xs = inv[0, 0] * x + inv[0, 1] * y + inv[0, 2]
    ys = inv[1, 0] * x + inv[1, 1] * y + inv[1, 2]
    near = interpolation == "nearest"
    with np.errstate(divide="ignore"):
        scale = np.where(wv != 0, (1.0 if near else INTER_TAB) / np.where(wv != 0, wv, 1), 0.0)
    big = float(np.iinfo(np.int32).max)
    X = np.clip(np.rint(xs * scale), -big, big).astype(np.int64)
    Y = np.clip(np.rint(ys * scale), -big, big).astype(np.int64)
    if near:
        out = _remap(src, X, Y, None, None, "nearest", border)
    else:
        out = _remap(src, X >> INTER_BITS, Y >> INTER_BITS, X & (INTER_TAB - 1),
                     Y & (INTER_TAB - 1), interpolation, border)
    return out[:, :, 0] if squeezed else out
