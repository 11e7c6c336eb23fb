"""numpy kernels of the ops declared in ops/defs/nn_extra.py (pixel_unshuffle,
channel_shuffle, maxout, rrelu, sequence_mask, temporal_shift,
bilinear_tensor_product, gumbel_softmax, affine_grid, unpool / unpool3d,
unfold / fold) and their grads."""
import numpy as np

from ..random import rng_for
from ..registry import kernel, FLOATS


def _to_nchw(x, fmt):
    return x.transpose(0, 3, 1, 2) if fmt == "NHWC" else x


def _from_nchw(x, fmt):
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1) if fmt == "NHWC" else x)


def unshuffle(x, r):
    """NCHW pixel_unshuffle: out[n, c*r*r + i*r + j, h, w] = x[n, c, h*r + i, w*r + j]."""
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4)
    return y.reshape(n, c * r * r, h // r, w // r)


def shuffle(x, r):
    """NCHW pixel_shuffle, the inverse of ``unshuffle``."""
    n, c, h, w = x.shape
    y = x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (r * r), h * r, w * r)


@kernel("pixel_unshuffle", dtypes=FLOATS)
def pixel_unshuffle(ins, attrs, need):
    fmt = attrs["data_format"]
    return (_from_nchw(unshuffle(_to_nchw(ins[0], fmt), attrs["downscale_factor"]), fmt),)


@kernel("pixel_unshuffle_grad", dtypes=FLOATS)
def pixel_unshuffle_grad(ins, attrs, need):
    fmt = attrs["data_format"]
    return (_from_nchw(shuffle(_to_nchw(ins[0], fmt), attrs["downscale_factor"]), fmt),)


def _channel_shuffle(x, groups, fmt):
    """out channel j*groups + i = in channel i*(c/groups) + j."""
    x = _to_nchw(x, fmt)
    n, c, h, w = x.shape
    y = x.reshape(n, groups, c // groups, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w)
    return _from_nchw(y, fmt)


@kernel("channel_shuffle", dtypes=FLOATS)
def channel_shuffle(ins, attrs, need):
    return (_channel_shuffle(ins[0], attrs["groups"], attrs["data_format"]),)


@kernel("channel_shuffle_grad", dtypes=FLOATS)
def channel_shuffle_grad(ins, attrs, need):
    g = ins[0]
    c = g.shape[3 if attrs["data_format"] == "NHWC" else 1]
    return (_channel_shuffle(g, c // attrs["groups"], attrs["data_format"]),)


def _grouped(x, groups, axis):
    """x viewed as (..., c/groups, groups, ...) at ``axis``."""
    axis = axis % x.ndim
    shape = x.shape[:axis] + (x.shape[axis] // groups, groups) + x.shape[axis + 1:]
    return x.reshape(shape), axis


@kernel("maxout", dtypes=FLOATS)
def maxout(ins, attrs, need):
    y, axis = _grouped(ins[0], attrs["groups"], attrs["axis"])
    return (y.max(axis=axis + 1),)


@kernel("maxout_grad", dtypes=FLOATS)
def maxout_grad(ins, attrs, need):
    x, out, g = ins
    y, axis = _grouped(x, attrs["groups"], attrs["axis"])
    hit = y == np.expand_dims(out, axis + 1)
    # the gradient goes to the first element of each group equal to the max
    first = hit & (np.cumsum(hit, axis=axis + 1) == 1)
    dx = np.where(first, np.expand_dims(g, axis + 1), 0).astype(g.dtype)
    return (dx.reshape(x.shape),)


@kernel("rrelu", dtypes=FLOATS)
def rrelu(ins, attrs, need):
    x = ins[0]
    lo, up = attrs["lower"], attrs["upper"]
    if attrs["is_test"]:
        slope = np.full(x.shape, (lo + up) / 2.0)
    else:
        slope = rng_for({}).uniform(lo, up, x.shape)
    noise = np.where(x >= 0, 1.0, slope).astype(x.dtype)
    return (x * noise).astype(x.dtype, copy=False), noise


@kernel("rrelu_grad", dtypes=FLOATS)
def rrelu_grad(ins, attrs, need):
    x, noise, g = ins
    return ((g * noise).astype(g.dtype, copy=False),)


# ------------------------------------------------------------------ sequence_mask
@kernel("sequence_mask", dtypes=("int32", "int64", "float32", "float64"))
def sequence_mask(ins, attrs, need):
    from ...ops.dtypes import ENUM_TO_NP
    x, maxlen = ins
    if maxlen is not None:
        m = int(np.asarray(maxlen).reshape(-1)[0])
    else:
        m = attrs["maxlen"]
    if m < 0:
        m = int(x.max()) if x.size else 0
    y = np.arange(m) < x[..., None]
    return (y.astype(ENUM_TO_NP[attrs["out_dtype"]]),)


# ------------------------------------------------------------------ temporal_shift
def _tshift(x, attrs, sign):
    """Shift channel groups along time; ``sign`` -1 undoes the forward shift."""
    t, fmt = attrs["seg_num"], attrs["data_format"]
    x = _to_nchw(x, fmt)
    nt, c, h, w = x.shape
    c1 = int(c * attrs["shift_ratio"])
    c2 = int(c * 2 * attrs["shift_ratio"])
    v = x.reshape(nt // t, t, c, h, w)
    out = np.zeros_like(v)
    a, b = c1, c2
    if sign > 0:
        out[:, 1:, :a] = v[:, :-1, :a]          # from frame t-1
        out[:, :-1, a:b] = v[:, 1:, a:b]        # from frame t+1
    else:
        out[:, :-1, :a] = v[:, 1:, :a]
        out[:, 1:, a:b] = v[:, :-1, a:b]
    out[:, :, b:] = v[:, :, b:]
    return _from_nchw(out.reshape(nt, c, h, w), fmt)


@kernel("temporal_shift", dtypes=FLOATS)
def temporal_shift(ins, attrs, need):
    return (_tshift(ins[0], attrs, 1),)


@kernel("temporal_shift_grad", dtypes=FLOATS)
def temporal_shift_grad(ins, attrs, need):
    return (_tshift(ins[0], attrs, -1),)


# ------------------------------------------------------------------ bilinear_tensor_product
@kernel("bilinear_tensor_product", dtypes=("float32", "float64"))
def bilinear_tensor_product(ins, attrs, need):
    x, y, w, b = ins
    out = np.einsum("bm,kmn,bn->bk", x, w, y, optimize=True)
    if b is not None:
        out = out + b
    return (out.astype(x.dtype, copy=False),)


@kernel("bilinear_tensor_product_grad", dtypes=("float32", "float64"))
def bilinear_tensor_product_grad(ins, attrs, need):
    x, y, w, g = ins
    dx = np.einsum("bk,kmn,bn->bm", g, w, y, optimize=True).astype(x.dtype, copy=False)
    dy = np.einsum("bk,kmn,bm->bn", g, w, x, optimize=True).astype(y.dtype, copy=False)
    dw = np.einsum("bk,bm,bn->kmn", g, x, y, optimize=True).astype(w.dtype, copy=False)
    db = g.sum(axis=0, keepdims=True)
    return dx, dy, dw, db


# ------------------------------------------------------------------ gumbel_softmax
@kernel("gumbel_softmax", dtypes=FLOATS)
def gumbel_softmax(ins, attrs, need):
    x = ins[0]
    axis = attrs["axis"] % max(x.ndim, 1) if x.ndim else 0
    u = rng_for({}).uniform(0.0, 1.0, x.shape)
    u = np.clip(u, np.finfo(np.float64).tiny, 1.0)
    v = (x + (-np.log(-np.log(u)))) / attrs["temperature"]
    if x.ndim == 0:
        return (np.ones_like(x),)
    v = v - v.max(axis=axis, keepdims=True)
    e = np.exp(v)
    out = e / e.sum(axis=axis, keepdims=True)
    if attrs["hard"]:
        idx = np.expand_dims(out.argmax(axis=axis), axis)
        hard = np.zeros_like(out)
        np.put_along_axis(hard, idx, 1.0, axis=axis)
        out = hard
    return (out.astype(x.dtype),)


@kernel("gumbel_softmax_grad", dtypes=FLOATS)
def gumbel_softmax_grad(ins, attrs, need):
    out, g = ins
    if out.ndim == 0:
        return (np.zeros_like(g),)
    axis = attrs["axis"] % out.ndim
    return ((out * (g - (g * out).sum(axis=axis, keepdims=True))).astype(g.dtype),)


# ------------------------------------------------------------------ affine_grid
def _affine_shape(shape_arr, attrs):
    if shape_arr is not None:
        return [int(v) for v in np.asarray(shape_arr).reshape(-1)]
    return list(attrs["output_shape"])


def _linspace(n, align, dtype):
    if n <= 1:
        return np.full(max(n, 0), -1.0 if align else 0.0, dtype)
    v = np.linspace(-1.0, 1.0, n).astype(dtype)
    return v if align else (v * (n - 1) / n).astype(dtype)


def _base_grid(sizes, align, dtype):
    """[*sizes, nd + 1]: (x, y, (z,) 1) with x along the last size (W)."""
    axes = [_linspace(n, align, dtype) for n in sizes]
    mesh = np.meshgrid(*axes, indexing="ij")            # D, H, W order
    coords = [mesh[i] for i in reversed(range(len(sizes)))]   # x (W), y (H), z (D)
    return np.stack(coords + [np.ones(tuple(sizes), dtype)], axis=-1)


@kernel("affine_grid", dtypes=("float32", "float64"))
def affine_grid(ins, attrs, need):
    theta, shape_arr = ins
    sizes = _affine_shape(shape_arr, attrs)[2:]
    base = _base_grid(sizes, attrs["align_corners"], theta.dtype)
    k = base.shape[-1]
    out = np.einsum("pk,njk->npj", base.reshape(-1, k), theta)
    return (out.reshape((theta.shape[0],) + tuple(sizes) + (k - 1,)).astype(theta.dtype),)


@kernel("affine_grid_grad", dtypes=("float32", "float64"))
def affine_grid_grad(ins, attrs, need):
    shape_arr, g = ins
    sizes = _affine_shape(shape_arr, attrs)[2:]
    base = _base_grid(sizes, attrs["align_corners"], g.dtype)
    k = base.shape[-1]
    gf = g.reshape(g.shape[0], -1, k - 1)
    return (np.einsum("npj,pk->njk", gf, base.reshape(-1, k)).astype(g.dtype),)


# ------------------------------------------------------------------ unpool
def _unpool_index(idx, plane):
    flat = idx.reshape(idx.shape[0], idx.shape[1], -1).astype(np.int64)
    if flat.size and (flat.min() < 0 or flat.max() >= plane):
        from ...ops import OpError
        raise OpError(f"unpool: index should be in [0, {plane}) (the output plane's "
                      f"height * width), got values in [{flat.min()}, {flat.max()}]")
    return flat


@kernel("unpool", "unpool3d", dtypes=("float32", "float64"))
def unpool(ins, attrs, need):
    x, idx = ins
    size = tuple(attrs["output_size"])
    n, c = x.shape[:2]
    plane = int(np.prod(size))
    flat = _unpool_index(idx, plane)
    out = np.zeros((n, c, plane), x.dtype)
    np.put_along_axis(out, flat, x.reshape(n, c, -1), axis=2)
    return (out.reshape((n, c) + size),)


@kernel("unpool_grad", "unpool3d_grad", dtypes=("float32", "float64"))
def unpool_grad(ins, attrs, need):
    x, idx, out, g = ins
    n, c = g.shape[:2]
    flat = _unpool_index(idx, int(np.prod(g.shape[2:])))
    dx = np.take_along_axis(g.reshape(n, c, -1), flat, axis=2)
    return (dx.reshape(idx.shape).astype(g.dtype, copy=False),)


# ------------------------------------------------------------------ unfold / fold
def _windows(h, w, attrs):
    from ...ops.defs.nn_extra import im2col_geometry
    oh, ow = im2col_geometry("unfold", h, w, attrs)
    return oh, ow, attrs["kernel_sizes"], attrs["strides"], attrs["paddings"], attrs["dilations"]


def im2col(x, attrs):
    n, c, h, w = x.shape
    oh, ow, (kh, kw), (sh, sw), p, (dh, dw) = _windows(h, w, attrs)
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    cols = np.empty((n, c, kh, kw, oh, ow), x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                                  j * dw:j * dw + sw * (ow - 1) + 1:sw]
    return cols.reshape(n, c * kh * kw, oh * ow)


def col2im(y, h, w, attrs):
    oh, ow, (kh, kw), (sh, sw), p, (dh, dw) = _windows(h, w, attrs)
    n = y.shape[0]
    c = y.shape[1] // (kh * kw)
    cols = y.reshape(n, c, kh, kw, oh, ow)
    xp = np.zeros((n, c, h + p[0] + p[2], w + p[1] + p[3]), y.dtype)
    for i in range(kh):
        for j in range(kw):
            xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
               j * dw:j * dw + sw * (ow - 1) + 1:sw] += cols[:, :, i, j]
    return np.ascontiguousarray(xp[:, :, p[0]:p[0] + h, p[1]:p[1] + w])


@kernel("unfold", dtypes=FLOATS)
def unfold(ins, attrs, need):
    return (im2col(ins[0], attrs),)


@kernel("unfold_grad", dtypes=FLOATS)
def unfold_grad(ins, attrs, need):
    x, g = ins
    return (col2im(g, x.shape[2], x.shape[3], attrs),)


def _fold_check(h, w, attrs):
    """Paddle's col2im: the blocks counted with paddings[0] + paddings[2] (and
    [1] + [3]) must be those fold's shape counted with 2 * paddings[0] ([1])."""
    from ...ops import OpError
    from ...ops.defs.nn_extra import fold_attrs, im2col_geometry
    got = im2col_geometry("fold", h, w, attrs)
    want = im2col_geometry("fold", h, w, fold_attrs(attrs))
    if got[0] != want[0]:
        raise OpError("fold: Output_height and padding(padding_up, padding_down) are "
                      f"inconsistent (paddings {list(attrs['paddings'])})")
    if got[1] != want[1]:
        raise OpError("fold: Output_width and padding(padding_left, padding_right) are "
                      f"inconsistent (paddings {list(attrs['paddings'])})")


@kernel("fold", dtypes=FLOATS)
def fold(ins, attrs, need):
    h, w = attrs["output_sizes"]
    _fold_check(h, w, attrs)
    return (col2im(ins[0], h, w, attrs),)


@kernel("fold_grad", dtypes=FLOATS)
def fold_grad(ins, attrs, need):
    x, g = ins
    return (im2col(g, attrs).reshape(x.shape),)
