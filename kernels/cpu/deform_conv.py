"""numpy kernels of deformable_conv / deformable_conv_v1 and their grads
(ops/defs/deform_conv.py).

The sampled input columns are gathered at once for every (batch, deformable
group, tap, output pixel): the four bilinear corners are flat indices into the
input viewed as (N*dg*H*W, C/dg), so a gather is one fancy-index and its
adjoint one ``np.add.at``.  The convolution over the columns is the grouped
batched matmul of kernels/cpu/conv.py.
"""
import numpy as np

from ...ops.defs.deform_conv import deform_geometry
from ..registry import kernel

F = ("float32", "float64")


def _positions(off, kh, kw, s, p, d, dg, oh, ow):
    """Sample rows and columns (N, dg, K, oh, ow) of every tap."""
    n = off.shape[0]
    k = kh * kw
    off = off.reshape(n, dg, k, 2, oh, ow)
    ki, kj = np.divmod(np.arange(k), kw)
    rows = (np.arange(oh) * s[0] - p[0])[None, :, None] + (ki * d[0])[:, None, None]
    cols = (np.arange(ow) * s[1] - p[1])[None, None, :] + (kj * d[1])[:, None, None]
    return rows + off[:, :, :, 0], cols + off[:, :, :, 1]


def _corners(ph, pw, h, w):
    """For each of the 4 bilinear corners: (flat index, weight (0 where the
    corner is outside), d weight / d row, d weight / d col)."""
    n, dg = ph.shape[:2]
    inside = (ph > -1) & (pw > -1) & (ph < h) & (pw < w)
    h0, w0 = np.floor(ph), np.floor(pw)
    lh, lw = ph - h0, pw - w0
    hh, hw = 1 - lh, 1 - lw
    h0, w0 = h0.astype(np.int64), w0.astype(np.int64)
    base = (np.arange(n)[:, None] * dg + np.arange(dg)[None, :])[:, :, None, None, None] * (h * w)
    out = []
    for dr, dc, wt, gh, gw in ((0, 0, hh * hw, -hw, -hh), (0, 1, hh * lw, -lw, hh),
                               (1, 0, lh * hw, hw, -lh), (1, 1, lh * lw, lw, lh)):
        r, c = h0 + dr, w0 + dc
        ok = inside & (r >= 0) & (r < h) & (c >= 0) & (c < w)
        idx = base + np.clip(r, 0, h - 1) * w + np.clip(c, 0, w - 1)
        out.append((idx, np.where(ok, wt, 0), np.where(ok, gh, 0), np.where(ok, gw, 0)))
    return out


def _setup(x, off, w, attrs, op):
    s, p, d, (oh, ow) = deform_geometry(op, x.shape, w.shape, attrs)
    n, c, h, wd = x.shape
    dg = attrs["deformable_groups"]
    kh, kw = w.shape[2:]
    ph, pw = _positions(off, kh, kw, s, p, d, dg, oh, ow)
    flat = x.reshape(n, dg, c // dg, h * wd).transpose(0, 1, 3, 2).reshape(-1, c // dg)
    return flat, _corners(ph, pw, h, wd), (n, c, h, wd, dg, kh * kw, oh, ow)


def _sampled(flat, corners):
    """Bilinear samples (N, dg, K, oh, ow, C/dg) and the corner values."""
    vals = [flat[idx] for idx, _, _, _ in corners]
    out = sum(v * wt[..., None] for v, (_, wt, _, _) in zip(vals, corners))
    return out, vals


def _to_cols(v, dims):
    n, c, h, wd, dg, k, oh, ow = dims
    return v.transpose(0, 1, 5, 2, 3, 4).reshape(n, c, k, oh * ow)


def _from_cols(cols, dims):
    n, c, h, wd, dg, k, oh, ow = dims
    return cols.reshape(n, dg, c // dg, k, oh, ow).transpose(0, 1, 3, 4, 5, 2)


def _forward(x, off, w, mask, attrs, op):
    flat, corners, dims = _setup(x, off, w, attrs, op)
    v, _ = _sampled(flat, corners)
    if mask is not None:
        v = v * mask.reshape(v.shape[:-1])[..., None]
    n, c, _, _, _, k, oh, ow = dims
    g = attrs["groups"]
    o = w.shape[0]
    cols = _to_cols(v, dims).reshape(n, g, c // g * k, oh * ow)
    out = np.matmul(w.reshape(g, o // g, -1), cols)
    return (out.reshape(n, o, oh, ow).astype(x.dtype, copy=False),)


def _backward(x, off, w, mask, gout, attrs, op, need):
    flat, corners, dims = _setup(x, off, w, attrs, op)
    n, c, h, wd, dg, k, oh, ow = dims
    g = attrs["groups"]
    o = w.shape[0]
    v, vals = _sampled(flat, corners)
    m = None if mask is None else mask.reshape(v.shape[:-1])[..., None]
    go = gout.reshape(n, g, o // g, oh * ow)
    want = (lambda i: need is None or need[i])
    dw = dx = doff = dmask = None
    if want(2):
        vm = v if m is None else v * m
        cols = _to_cols(vm, dims).reshape(n, g, c // g * k, oh * ow)
        dw = np.matmul(go, cols.swapaxes(-1, -2)).sum(axis=0).reshape(w.shape)
    dcols = np.matmul(w.reshape(g, o // g, -1).swapaxes(-1, -2), go)   # (n, g, c/g*k, P)
    dv = _from_cols(dcols, dims)                                        # (n, dg, K, oh, ow, cg)
    if mask is not None and want(3):
        dmask = (dv * v).sum(axis=-1).reshape(mask.shape)
    dvm = dv if m is None else dv * m
    if want(0):
        dflat = np.zeros_like(flat)
        for idx, wt, _, _ in corners:
            np.add.at(dflat, idx.reshape(-1), (dvm * wt[..., None]).reshape(-1, flat.shape[1]))
        dx = dflat.reshape(n, dg, h * wd, c // dg).transpose(0, 1, 3, 2).reshape(x.shape)
    if want(1):
        dh = sum(val * gh[..., None] for val, (_, _, gh, _) in zip(vals, corners))
        dc = sum(val * gw[..., None] for val, (_, _, _, gw) in zip(vals, corners))
        doff = np.stack([(dvm * dh).sum(axis=-1), (dvm * dc).sum(axis=-1)], axis=3)
        doff = doff.reshape(off.shape)
    cast = (lambda a: None if a is None else a.astype(x.dtype, copy=False))
    return tuple(cast(a) for a in (dx, doff, dw, dmask))


@kernel("deformable_conv", dtypes=F)
def deformable_conv(ins, attrs, need):
    x, off, w, mask = ins
    return _forward(x, off, w, mask, attrs, "deformable_conv")


@kernel("deformable_conv_v1", dtypes=F)
def deformable_conv_v1(ins, attrs, need):
    x, off, w = ins
    return _forward(x, off, w, None, attrs, "deformable_conv_v1")


@kernel("deformable_conv_grad", dtypes=F)
def deformable_conv_grad(ins, attrs, need):
    x, off, w, mask, g = ins
    return _backward(x, off, w, mask, g, attrs, "deformable_conv", need)


@kernel("deformable_conv_v1_grad", dtypes=F)
def deformable_conv_v1_grad(ins, attrs, need):
    x, off, w, g = ins
    need = None if need is None else tuple(need) + (False,)
    return _backward(x, off, w, None, g, attrs, "deformable_conv_v1", need)[:3]
