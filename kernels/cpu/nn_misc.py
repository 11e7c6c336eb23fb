"""numpy kernels of dropout, lookup_table_v2 and the 4-D resize ops
(nearest_interp_v2, bilinear_interp_v2), with their grads (interp.py has the
other resize kernels, and nearest_interp_v2 on 5-D inputs).

Resizing is separable: each output row/column reads one (nearest) or two
(bilinear) source rows/columns with fixed weights, so forward is two gathers
and backward two scatter-adds; source indices never decrease, so the
scatter-adds are segment sums (``np.add.reduceat``), not ``np.add.at``.
"""
import numpy as np

from ...ops import OpError
from ...ops.defs.nn_misc import interp_size, interp_ratio, F32
from .interp import nearest_nd, nearest_nd_grad
from ..random import rng_for
from ..registry import kernel, FLOATS


# ------------------------------------------------------------------ dropout
def _seed_attrs(attrs, seed_arr):
    if seed_arr is not None:
        return {"seed": int(np.asarray(seed_arr).reshape(-1)[0])}
    return {"seed": attrs["seed"] if attrs["fix_seed"] else 0}


@kernel("dropout")
def dropout(ins, attrs, need):
    x, seed_arr = ins
    p = attrs["dropout_prob"]
    upscale = attrs["dropout_implementation"] == "upscale_in_train"
    if attrs["is_test"]:
        out = x.copy() if upscale else (x * (1.0 - p)).astype(x.dtype, copy=False)
        return out, None
    rng = rng_for(_seed_attrs(attrs, seed_arr))
    keep = rng.random(x.shape, dtype=np.float32) >= p
    mask = keep.view(np.uint8)
    if upscale:
        out = x * keep * x.dtype.type(1.0 / (1.0 - p)) if p < 1 else np.zeros_like(x)
    else:
        out = x * keep
    return out.astype(x.dtype, copy=False), mask


@kernel("dropout_grad")
def dropout_grad(ins, attrs, need):
    mask, g = ins
    p = attrs["dropout_prob"]
    upscale = attrs["dropout_implementation"] == "upscale_in_train"
    if attrs["is_test"] or mask is None:
        return ((g.copy() if upscale else g * g.dtype.type(1.0 - p)),)
    if upscale:
        if p >= 1:
            return (np.zeros_like(g),)
        return ((g * mask * g.dtype.type(1.0 / (1.0 - p))).astype(g.dtype, copy=False),)
    return ((g * mask).astype(g.dtype, copy=False),)


# ------------------------------------------------------------------ lookup_table_v2
def _check_ids(ids, vocab):
    if ids.size and (ids.min() < 0 or ids.max() >= vocab):
        bad = ids[(ids < 0) | (ids >= vocab)].reshape(-1)[0]
        raise OpError(f"lookup_table_v2: id {int(bad)} is out of range for an embedding "
                      f"table of {vocab} rows (ids must be in [0, {vocab - 1}])")


@kernel("lookup_table_v2", dtypes=FLOATS + ("int8",))
def lookup_table_v2(ins, attrs, need):
    ids, w = ins
    _check_ids(ids, w.shape[0])
    out = w[ids]
    pad = attrs["padding_idx"]
    if pad != -1:
        out[ids == pad] = 0
    return (out,)


@kernel("lookup_table_v2_grad")
def lookup_table_v2_grad(ins, attrs, need):
    w, ids, g = ins
    flat = ids.reshape(-1)
    gw = g.reshape(flat.size, w.shape[1])
    dw = np.zeros(w.shape, g.dtype)
    np.add.at(dw, flat, gw)
    pad = attrs["padding_idx"]
    if pad != -1:
        dw[pad] = 0
    return (dw,)


# ------------------------------------------------------------------ interpolation
def _axis_nearest(n_in, n_out, scale, align):
    r = interp_ratio(n_in, n_out, scale, align)
    k = np.arange(n_out, dtype=F32)
    idx = (r * k + F32(0.5)) if align else r * k
    return np.minimum(idx.astype(np.int64), n_in - 1)


def _axis_linear(n_in, n_out, scale, align, align_mode, dtype):
    """(lo, hi, w_lo, w_hi) per output index along one axis (Paddle's rule)."""
    r = interp_ratio(n_in, n_out, scale, align)
    k = np.arange(n_out, dtype=F32)
    half = align_mode == 0 and not align
    src = r * (k + F32(0.5)) - F32(0.5) if half else r * k
    lo = np.maximum(src.astype(np.int64), 0)                   # truncation, as C casts
    lo = np.minimum(lo, n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = (np.maximum(src, F32(0)) if half else src) - lo.astype(F32)
    return lo, hi, (1 - frac).astype(dtype), frac.astype(dtype)


def _scatter_sorted(vals, idx, size, axis):
    """Sum ``vals`` along ``axis`` into ``size`` slots at non-decreasing ``idx``."""
    starts = np.flatnonzero(np.r_[True, idx[1:] != idx[:-1]])
    sums = np.add.reduceat(vals, starts, axis=axis)
    shape = list(vals.shape)
    shape[axis] = size
    out = np.zeros(shape, vals.dtype)
    key = [slice(None)] * vals.ndim
    key[axis] = idx[starts]
    out[tuple(key)] = sums
    return out


def _plan(ins, attrs):
    """NCHW view of X and each axis' sampling plan."""
    x, out_size, size_list, scale = ins[:4]
    last = attrs["data_layout"] == "NHWC"
    xc = x.transpose(0, 3, 1, 2) if last else x
    h, w = xc.shape[2:]
    sizes = [int(np.asarray(t).reshape(-1)[0]) for t in size_list] if size_list else None
    (oh, ow), (sh, sw) = interp_size((h, w), attrs, out_size, sizes, scale)
    if oh <= 0 or ow <= 0:
        raise OpError(f"interpolation output size must be positive, got {[oh, ow]}")
    align = attrs["align_corners"]
    if attrs["interp_method"] == "nearest":
        plan = (_axis_nearest(h, oh, sh, align), _axis_nearest(w, ow, sw, align))
    else:
        mode = attrs["align_mode"]
        plan = (_axis_linear(h, oh, sh, align, mode, x.dtype),
                _axis_linear(w, ow, sw, align, mode, x.dtype))
    return xc, last, plan


def _out(a, last):
    return a.transpose(0, 2, 3, 1) if last else a


@kernel("nearest_interp_v2", dtypes=FLOATS + ("int32", "int64", "uint8"))
def nearest_interp_v2(ins, attrs, need):
    if ins[0].ndim != 4:
        return nearest_nd(ins, attrs, need)
    xc, last, (hi, wi) = _plan(ins, attrs)
    return (_out(xc[:, :, hi][:, :, :, wi], last),)


@kernel("nearest_interp_v2_grad")
def nearest_interp_v2_grad(ins, attrs, need):
    if ins[0].ndim != 4:
        return nearest_nd_grad(ins, attrs, need)
    xc, last, (hi, wi) = _plan(ins, attrs)
    g = ins[4].transpose(0, 3, 1, 2) if last else ins[4]
    t = _scatter_sorted(g, wi, xc.shape[3], 3)
    return (_out(_scatter_sorted(t, hi, xc.shape[2], 2), last),)


@kernel("bilinear_interp_v2")
def bilinear_interp_v2(ins, attrs, need):
    xc, last, ((h0, h1, a0, a1), (w0, w1, b0, b1)) = _plan(ins, attrs)
    t = xc[:, :, h0] * a0[:, None] + xc[:, :, h1] * a1[:, None]
    return (_out(t[..., w0] * b0 + t[..., w1] * b1, last),)


@kernel("bilinear_interp_v2", dtypes=("uint8",))
def bilinear_interp_v2_uint8(ins, attrs, need):
    """Paddle's uint8 kernel: the four corners weighted and summed in float32, in
    its order, then truncated to uint8 (C's conversion)."""
    xf = ins[0].astype(F32)
    xc, last, ((h0, h1, a0, a1), (w0, w1, b0, b1)) = _plan((xf,) + tuple(ins[1:]), attrs)
    a0, a1 = a0[:, None], a1[:, None]
    top, bottom = xc[:, :, h0], xc[:, :, h1]
    out = (top[..., w0] * a0 * b0 + bottom[..., w0] * a1 * b0 +
           top[..., w1] * a0 * b1 + bottom[..., w1] * a1 * b1)
    return (_out(out.astype(np.uint8), last),)


@kernel("bilinear_interp_v2_grad")
def bilinear_interp_v2_grad(ins, attrs, need):
    xc, last, ((h0, h1, a0, a1), (w0, w1, b0, b1)) = _plan(ins, attrs)
    g = ins[4].transpose(0, 3, 1, 2) if last else ins[4]
    h, w = xc.shape[2:]
    t = _scatter_sorted(g * b0, w0, w, 3) + _scatter_sorted(g * b1, w1, w, 3)
    dx = (_scatter_sorted(t * a0[:, None], h0, h, 2) +
          _scatter_sorted(t * a1[:, None], h1, h, 2))
    return (_out(dx, last),)


# ------------------------------------------------------------------ pixel_shuffle
@kernel("pixel_shuffle", dtypes=FLOATS)
def pixel_shuffle(ins, attrs, need):
    x = ins[0]
    r = attrs["upscale_factor"]
    if attrs["data_format"] == "NHWC":
        n, h, w, c = x.shape
        y = x.reshape(n, h, w, c // (r * r), r, r).transpose(0, 1, 4, 2, 5, 3)
        return (y.reshape(n, h * r, w * r, c // (r * r)),)
    n, c, h, w = x.shape
    y = x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
    return (y.reshape(n, c // (r * r), h * r, w * r),)


@kernel("pixel_shuffle_grad")
def pixel_shuffle_grad(ins, attrs, need):
    g = ins[0]
    r = attrs["upscale_factor"]
    if attrs["data_format"] == "NHWC":
        n, hr, wr, c = g.shape
        y = g.reshape(n, hr // r, r, wr // r, r, c).transpose(0, 1, 3, 5, 2, 4)
        return (y.reshape(n, hr // r, wr // r, c * r * r),)
    n, c, hr, wr = g.shape
    y = g.reshape(n, c, hr // r, r, wr // r, r).transpose(0, 1, 3, 5, 2, 4)
    return (y.reshape(n, c * r * r, hr // r, wr // r),)
