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
residual and clamp in its stores.  An ungrouped layer lays out the whole batch
(the samples are the kernel's problems, sharing the filter); a grouped one a
sample at a time (the groups are the problems), right before its products.

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
    res = np.empty((n, groups * og, ho, wo), np.float32)
    resid = None if residual is None else np.ascontiguousarray(residual, np.float32)
    x = np.ascontiguousarray(x)
    if groups == 1:     # the samples as the problems, the filter shared (read once per chunk)
        rowlen = max(lead + n * s, (n - 1) * s + reach + 1)
        buf = scratch("conv_transposed", (c, rowlen), np.float32)
        fill_flat(buf, x, lead, s, ws, mv)
        gemm_transposed.gemm_tables(
            buf.reshape(-1), roff, _koff(cg, rowlen, taps), wp[0], res.reshape(n, og, ho * wo),
            bias=bias, residual=None if resid is None else resid.reshape(n, og, ho * wo),
            clamp=clamp, x_stride=s)
        return res
    # the groups as the problems, one filter each (small: stays in cache), a
    # sample at a time, each laid out just before its products: its group's
    # channel rows are then one contiguous run still in cache (a layout of the
    # whole batch put a group's rows a batch apart: ResNeXt's grouped 3x3
    # layers at batch 16 1.1-1.5x the time)
    rowlen = max(lead + s, reach + 1)
    buf = scratch("conv_transposed", (c, rowlen), np.float32)
    flat, koff = buf.reshape(-1), _koff(cg, rowlen, taps)
    for i in range(n):
        fill_flat(buf, x[i:i + 1], lead, s, ws, mv)
        gemm_transposed.gemm_tables(
            flat, roff, koff, wp, res[i].reshape(groups, og, ho * wo), bias=bias,
            residual=None if resid is None else resid[i].reshape(groups, og, ho * wo),
            clamp=clamp, x_stride=cg * rowlen, shared=False)
    return res


def _koff(cg, rowlen, taps):
    """The offset of tap (c, i, j) in the layout: channel rows ``rowlen`` apart."""
    return ((np.arange(cg, dtype=np.int64) * rowlen)[:, None] + taps).reshape(-1)
