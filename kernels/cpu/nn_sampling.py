"""numpy kernels of the ops declared in ops/defs/nn_sampling.py: grid_sampler
and grid_sampler_grad (4-D and 5-D), class_center_sample.

grid_sampler works on X flattened to (N, C, M) (M the spatial size) and the
points flattened to (N, P): each point's source coordinate per axis (with the
derivative of that coordinate with respect to the grid value, for the Grid
gradient), then one gather per interpolation corner (4 on 4-D, 8 on 5-D)
broadcast over the channels; the X gradient is the adjoint scatter (one
bincount over all corners).
"""
import itertools

import numpy as np

from ...ops.defs.nn_sampling import (check_grid_attrs, check_grid_dtypes, check_grid_shapes,
                                     check_ccs_attrs)
from ..random import rng_for
from ..registry import kernel


# ------------------------------------------------------------------ coordinates
def _clip(c, size):
    """Clamp to [0, size - 1]; the derivative is 1 strictly inside."""
    return np.clip(c, 0, size - 1), (c > 0) & (c < size - 1)


def _reflect(c, lo, hi):
    """Reflect ``c`` into [lo, hi] (mirror at both ends, repeatedly); the
    derivative is +1 or -1."""
    span = hi - lo
    if span <= 0:
        return np.zeros_like(c), np.zeros_like(c)
    t = c - lo
    sign = np.where(t < 0, -1.0, 1.0)
    t = np.abs(t)
    flips = np.floor(t / span)
    extra = t - flips * span
    odd = np.mod(flips, 2) == 1
    return np.where(odd, span - extra, extra) + lo, np.where(odd, -sign, sign)


def source_coords(g, size, attrs):
    """The (source coordinate, d coordinate / d grid value) of grid values ``g``
    along an axis of ``size`` pixels."""
    if attrs["align_corners"]:
        c, scale = (g + 1) * ((size - 1) / 2), (size - 1) / 2
    else:
        c, scale = ((g + 1) * size - 1) / 2, size / 2
    d = np.full(c.shape, scale, c.dtype)
    pad = attrs["padding_mode"]
    if pad == "border":
        c, m = _clip(c, size)
        d = d * m
    elif pad == "reflection":
        if attrs["align_corners"]:
            c, s = _reflect(c, 0.0, size - 1.0)
        else:
            c, s = _reflect(c, -0.5, size - 0.5)
        c, m = _clip(c, size)
        d = d * s * m
    return c, d.astype(c.dtype, copy=False)


def _setup(x, grid, attrs):
    check_grid_attrs(attrs)
    check_grid_dtypes(x.dtype, grid.dtype)
    out_shape = check_grid_shapes(x.shape, grid.shape)
    n, ch = x.shape[:2]
    sizes = x.shape[2:]
    nd = len(sizes)
    g = grid.reshape(n, int(np.prod(grid.shape[1:-1])), nd)
    # axis k of X (D, H, W order) reads grid component nd - 1 - k (x indexes W)
    coords = [source_coords(g[..., nd - 1 - k], sizes[k], attrs) for k in range(nd)]
    return n, ch, sizes, out_shape, coords


def _corners(coords, sizes, mode):
    """(linear index (N, P), weight (N, P), d weight / d coord per axis or None)
    of each interpolation corner; out-of-range corners have weight 0."""
    nd = len(sizes)
    strides = [int(np.prod(sizes[k + 1:])) for k in range(nd)]
    if mode == "nearest":
        lin, ok = 0, True
        for k, (c, _) in enumerate(coords):
            i = np.where(c >= 0, np.floor(c + 0.5), np.ceil(c - 0.5))   # std::round
            i = np.nan_to_num(np.clip(i, -1, sizes[k]), nan=-1).astype(np.int64)
            ok = ok & (i >= 0) & (i < sizes[k])
            lin = lin + np.clip(i, 0, sizes[k] - 1) * strides[k]
        yield lin, ok.astype(coords[0][0].dtype), None
        return
    base, frac = [], []
    for k, (c, _) in enumerate(coords):
        f = np.floor(c)
        base.append(np.nan_to_num(np.clip(f, -2, sizes[k] + 1), nan=-2).astype(np.int64))
        frac.append(c - f)
    for bits in itertools.product((0, 1), repeat=nd):
        lin, ok = 0, True
        ws = []
        for k, b in enumerate(bits):
            i = base[k] + b
            ok = ok & (i >= 0) & (i < sizes[k])
            lin = lin + np.clip(i, 0, sizes[k] - 1) * strides[k]
            ws.append(frac[k] if b else 1 - frac[k])
        okf = ok.astype(frac[0].dtype)
        w = okf
        for wk in ws:
            w = w * wk
        dws = []
        for k, b in enumerate(bits):
            dw = okf if b else -okf
            for j, wj in enumerate(ws):
                if j != k:
                    dw = dw * wj
            dws.append(dw)
        yield lin, w, dws


def _gather(xf, lin):
    return np.take_along_axis(xf, lin[:, None, :], axis=2)


@kernel("grid_sampler", dtypes=("float32", "float64"))
def grid_sampler(ins, attrs, need):
    x, grid = ins
    n, ch, sizes, out_shape, coords = _setup(x, grid, attrs)
    xf = x.reshape(n, ch, int(np.prod(sizes)))
    out = np.zeros((n, ch, coords[0][0].shape[1]), x.dtype)
    for lin, w, _ in _corners(coords, sizes, attrs["mode"]):
        out += _gather(xf, lin) * w[:, None, :]
    return (out.reshape(out_shape),)


@kernel("grid_sampler_grad", dtypes=("float32", "float64"))
def grid_sampler_grad(ins, attrs, need):
    x, grid, gout = ins
    n, ch, sizes, _, coords = _setup(x, grid, attrs)
    m = int(np.prod(sizes))
    nd = len(sizes)
    p = coords[0][0].shape[1]
    go = gout.reshape(n, ch, p)
    want_x = need is None or need[0]
    want_g = need is None or need[1]
    xf = x.reshape(n, ch, m)
    row = (np.arange(n)[:, None, None] * ch + np.arange(ch)[None, :, None]) * m
    idx, vals = [], []
    dcoord = [np.zeros((n, p), x.dtype) for _ in range(nd)]
    for lin, w, dws in _corners(coords, sizes, attrs["mode"]):
        if want_x:
            idx.append((row + lin[:, None, :]).ravel())
            vals.append((go * w[:, None, :]).ravel())
        if want_g and dws is not None:
            t = (_gather(xf, lin) * go).sum(axis=1)
            for k in range(nd):
                dcoord[k] += t * dws[k]
    dx = dg = None
    if want_x:
        dx = np.bincount(np.concatenate(idx), weights=np.concatenate(vals),
                         minlength=n * ch * m).astype(x.dtype).reshape(x.shape)
    if want_g:
        dg = np.empty((n, p, nd), grid.dtype)
        for k in range(nd):
            dg[..., nd - 1 - k] = dcoord[k] * coords[k][1]
        dg = dg.reshape(grid.shape)
    return dx, dg


# ------------------------------------------------------------------ class_center_sample
@kernel("class_center_sample", dtypes=("int32", "int64"))
def class_center_sample(ins, attrs, need):
    label = ins[0]
    check_ccs_attrs(attrs)
    positive, remapped = np.unique(label, return_inverse=True)
    want = attrs["num_samples"] - positive.size
    centers = positive
    if want > 0:
        rng = np.random.default_rng(attrs["seed"]) if attrs["fix_seed"] else rng_for({})
        negatives = np.setdiff1d(np.arange(attrs["num_classes"], dtype=label.dtype), positive,
                                 assume_unique=True)
        centers = np.concatenate([positive, rng.permutation(negatives)[:want]])
    return remapped.reshape(label.shape).astype(label.dtype), centers.astype(label.dtype)
