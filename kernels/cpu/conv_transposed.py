"""float32 2-D convolutions on the transposed GEMM kernels
(kernels/cpu/gemm_transposed.py): the output pixels are the product's rows,
the filter (packed once, one product per group) its columns.

The input is laid out once as conv_implicit.py's stride-1 layout (each row
followed by ``max(pad_left, pad_right)`` zeros shared with the next row's left
padding, each sample by ``max(pad_top, pad_bottom)`` zero rows): padded pixel
(Y, X) of a sample is then element ``Y * Ws + X`` of its channel's row, so any
stride and dilation are only offsets: output pixel (y, x) starts at ``roff =
y * sh * Ws + x * sw`` and tap (c, i, j) adds ``koff = c * row + i * dh * Ws +
j * dw``.  Only output pixels are computed (no padding columns, no crop copy),
no stride-phase planes are built, and the kernel writes NCHW with the bias,
residual and clamp in its stores.

Where it pays (measured on one core, batch 1, against conv_implicit.py's
kernel): ResNeXt's grouped 3x3 layers on 14x14 and 7x7 maps and their stride-2
entries (inference/conv_pack.py takes them).
"""
import numpy as np

from . import gemm_transposed
from .conv_implicit import fill_flat, flat_taps
from .workspace import scratch

__all__ = ["conv_transposed", "pack_filter"]


def pack_filter(w, groups):
    """Filter (O, C/g, kh, kw) -> (g, blocks, C/g * kh * kw, B): each group's
    (K, O/g) transpose packed for the transposed kernels."""
    o = w.shape[0]
    og = o // groups
    wt = np.ascontiguousarray(w.reshape(groups, og, -1).transpose(0, 2, 1), np.float32)
    return gemm_transposed.pack(wt, og)


def conv_transposed(x, wp, og, kshape, pads, dil, strides, out, bias=None, residual=None,
                    clamp=None):
    """The convolution of float32 ``x`` (N, C, H, W) by a filter packed by
    ``pack_filter`` (``wp``: groups = wp.shape[0], ``og`` output channels per
    group, kernel ``kshape``): (N, groups * og, *out) with ``bias`` (O,), a
    ``residual`` of the output's shape and ``clamp`` (conv_epilogue.CLAMPS)
    applied on the way out."""
    n, c, h, w = x.shape
    groups = wp.shape[0]
    cg = c // groups
    (pt, pb), (pl, pr) = pads
    sh, sw = strides
    ho, wo = out
    mw, mv = max(pl, pr), max(pt, pb)
    ws = w + mw
    s = (h + mv) * ws
    lead = pt * ws + pl
    roff = ((np.arange(ho, dtype=np.int64) * (sh * ws))[:, None]
            + np.arange(wo, dtype=np.int64) * sw).reshape(-1)
    taps = flat_taps(kshape, dil, ws)
    reach = int(roff[-1]) + int(taps[-1])
    rowlen = max(lead + n * s, (n - 1) * s + reach + 1)
    buf = scratch("conv_transposed", (c, rowlen), np.float32)
    fill_flat(buf, np.ascontiguousarray(x), lead, s, ws, mv)
    koff = ((np.arange(cg, dtype=np.int64) * rowlen)[:, None] + taps).reshape(-1)
    res = np.empty((n, groups * og, ho, wo), np.float32)
    flat = buf.reshape(-1)
    resid = None if residual is None else np.ascontiguousarray(residual, np.float32)
    if groups == 1:     # the samples as the problems, the filter shared (read once per chunk)
        gemm_transposed.gemm_tables(
            flat, roff, koff, wp[0], res.reshape(n, og, ho * wo), bias=bias,
            residual=None if resid is None else resid.reshape(n, og, ho * wo),
            clamp=clamp, x_stride=s)
        return res
    for i in range(n):  # the groups as the problems, one filter each (small: stays in cache)
        gemm_transposed.gemm_tables(
            flat[i * s:], roff, koff, wp, res[i].reshape(groups, og, ho * wo), bias=bias,
            residual=None if resid is None else resid[i].reshape(groups, og, ho * wo),
            clamp=clamp, x_stride=cg * rowlen, shared=False)
    return res
