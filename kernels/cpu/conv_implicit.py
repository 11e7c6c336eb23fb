"""float32 2-D convolutions on the offset-table GEMM kernel
(kernels/cpu/gemm_kernel.py): the window block is never written.

Stride 1 (``_shared_padding``): the samples lie flat in one zeroed buffer, each
row followed by ``mw = max(pad_left, pad_right)`` zero columns and each sample
by ``mv = max(pad_top, pad_bottom)`` zero rows, so one row's trailing zeros are
also the next row's leading padding (and one sample's bottom padding the next
one's top): row stride ``Ws = W + mw``, sample stride ``S = (H + mv) * Ws``.
The window of output (n, y, x) at kernel tap (i, j) then starts at column ``n
* S + y * Ws + x`` of the flat input shifted by ``i * d * Ws + j * d`` (plus a
fixed lead), so that shift per (channel, tap) is the kernel's offset table.
3x3 "same" layers compute (H + 1)(W + 1) / HW of the output: 1.13 at 16x16,
1.31 at 7x7.

Strided (``_phases``): the padded input split into its stride phases (plane
(p, q) holds the padded pixels (sh * Y + p, sw * X + q)), each plane flat as
above with its own padding, so a tap is a plane and a shift: the same kernel
call, with the table naming the plane of each tap (ResNet's 7x7 stride-2 stem
0.6x the time of im2col + BLAS).

``implicit_flat`` runs a chunk of samples as one kernel call over ``m * S``
columns; columns past an output row or sample are computed and dropped by the
compiled copy that moves the result to (N, O, Ho, Wo) adding the bias and
applying a relu/relu6 epilogue's clamp (``_crop_bias``); another epilogue (a
residual, other activations) runs on the chunk after it.  Where output rows
nearly fill the kernel's column blocks (``ROWS_DIRECT_WASTE``), the kernel
writes each row straight into (N, O, Ho, Wo) with the bias, a residual and the
clamp in its stores (``gemm_kernel.gemm_segments``): no product buffer, no
crop.  Measured: W6's 3 -> 16 layer (32-wide rows) at batch 32 0.45 -> 0.40
ms; ResNeXt's grouped layers with 56- and 28-wide rows (64 and 32 columns
computed) 0.87-0.94x with cold caches, as in a model (1.03x hot); 14-wide
rows computing 32 columns 1.47x, so they keep the crop.  Before: pad copy,
im2col copy (K x columns), BLAS GEMM, crop copy; after: pad (or phase) copy,
kernel, crop.
"""
import numpy as np

from . import gemm_kernel
from .conv_epilogue import CLAMPS
from .depthwise import _U
from .fused_elementwise import compiled_kernel
from .workspace import scratch

__all__ = ["usable", "implicit_flat", "flat_taps", "fill_flat"]

# computed columns over kept ones above which a flat layout's padding columns
# cost more than the kernel saves
MAX_WASTE = 1.4
# where the kernel pays: enough columns, and weights up to 2.5 MB (measured at
# batch 16 against im2col + BLAS: 0.70-0.89x the time up to AlexNet's and
# Inception's 1.2-2.3 MB layers, 1.0x for 5-9 MB, 1.18x for a 4.6 MB stride-2 one)
MAX_WEIGHT_BYTES = 2560 << 10
# and enough work for its fixed costs (layout, offsets): below 2 MFLOP a layer
# ran up to 1.3x slower; ungrouped ones on 7x7 maps at batch 1 ran 0.77-0.92x
# BLAS's time.  Grouped layers run as one batched call (a problem per group):
# ResNeXt's 32 and 64 groups 0.15-0.64x the time of BLAS's per-group GEMMs from
# 56x56 down to 7x7 maps, stride 2 0.6-0.95x (one call per group, as before,
# was 1.4x slower than BLAS on 14x14 maps)
MIN_FLOPS = 2e6
# the kernel writes output rows straight into NCHW when its column blocks
# (rows rounded up to the block width) compute at most this many times the
# flat layout's columns (module docstring)
ROWS_DIRECT_WASTE = 1.12
# and only with the vector widths (lanes) where that pays, AVX-512's: with
# AVX2's 8 lanes (Zen 3, one core) it lost wherever measured, 3x3 layers at
# batch 1 on 56x56 to 14x14 maps 1.14-1.76x the time of the flat layout and its
# crop (ResNet's 28x28 ones 50 -> 81 GFLOP/s without; most rows end in a masked
# store there), and W6's 32-wide rows in whole 16-column blocks too (its static
# forward 0.51x the floor without, 0.66x with)
ROWS_DIRECT_LANES = {16}
# samples per kernel call: as many as keep the chunk's flat input and product
# (channels + output rows) x columns this small
_CHUNK_BYTES = 4 << 20


def usable(x, w):
    return x.dtype == np.float32 and w.dtype == np.float32 and gemm_kernel.available()


def _crop_bias(src, dst, s, ws, bias, lo, hi, tie):
    """dst[n, c, y, x] = clamp(src[c, n * s + y * ws + x] + bias[c]) (the clamp as
    conv_epilogue.CLAMPS: NaN passes, ``tie`` sends -0.0 at a 0.0 bound to lo)."""
    m, o, ho, wo = dst.shape
    uwo = _U(wo)
    for n in range(m):
        for c in range(o):
            row = src[c]
            b = bias[c]
            for y in range(ho):
                d = dst[n, c, y]
                base = _U(n * s + y * ws)
                for x in range(uwo):
                    v = row[base + x] + b
                    if v < lo or (tie and v == lo):
                        v = lo
                    if v > hi:
                        v = hi
                    d[x] = v


def _fill_flat(xs, rows, lead, s, ws, zeros):
    """rows[c, lead + n * s + y * ws + x] = xs[n, c, y, x] (the stride-1 layout);
    with ``zeros`` every other element of ``rows`` is set to zero in the same
    pass, else the caller zeroed ``rows`` before."""
    m, c, h, wd = xs.shape
    uwd, uws, total = _U(wd), _U(ws), _U(rows.shape[1])
    for ch in range(c):
        r = rows[ch]
        if zeros:
            for i in range(_U(lead)):
                r[i] = 0
        for n in range(m):
            for y in range(h):
                src = xs[n, ch, y]
                base = _U(lead + n * s + y * ws)
                for x in range(uwd):
                    r[base + x] = src[x]
                if zeros:
                    for x in range(uwd, uws):
                        r[base + x] = 0
            if zeros:
                for i in range(_U(lead + n * s + h * ws), _U(lead + (n + 1) * s)):
                    r[i] = 0
        if zeros:
            for i in range(_U(lead + m * s), total):
                r[i] = 0


# rows at least this wide are copied and their padding zeroed in one pass (56 wide:
# 0.63x the time of zeroing the buffer first); narrower ones are faster with the
# buffer zeroed first (14 wide: the per-row zero loops took 1.8x)
ONE_PASS_WIDTH = 24


def _fill_phases(xs, rows, region, s, wq, pt, pl):
    """Input pixel (y, x) of sample n, channel c into its stride phase's plane
    (``region[p, q]``, -1 where no tap reads that phase) at (Y, X): padded row
    y + pt = Y * sh + p, column x + pl = X * sw + q."""
    m, c, h, wd = xs.shape
    sh, sw = region.shape
    nreg = rows.shape[0] // c
    for ch in range(c):
        for n in range(m):
            for y in range(h):
                p = (y + pt) % sh
                big_y = (y + pt) // sh
                src = xs[n, ch, y]
                for q in range(sw):
                    r = region[p, q]
                    if r < 0:
                        continue
                    x0 = (q - pl) % sw                  # first x in phase q
                    if x0 >= wd:
                        continue
                    dst = rows[ch * nreg + r]
                    base = _U(n * s + big_y * wq + (x0 + pl) // sw)
                    cnt = _U((wd - x0 + sw - 1) // sw)
                    ux0, usw = _U(x0), _U(sw)
                    for i in range(cnt):
                        dst[base + i] = src[ux0 + i * usw]


def _fill_phases_w2(xs2, rows, region, s, wq, pt, pl):
    """``_fill_phases`` for column stride 2 and an even input width, reading
    each input row as uint64 pairs (x = 2i, 2i + 1): the even pixels are the
    low halves, the odd ones the high halves, so both phases' rows are plain
    vector loops (``rows`` viewed as uint32; the bits are copied as they are).
    0.7x the time of the general loop on ResNeXt's 56x56 stride-2 layers and
    MobileNetV3's 224x224 stem."""
    m, c, h, half = xs2.shape
    sh = region.shape[0]
    nreg = rows.shape[0] // c
    qe = pl % 2                                   # the phase of the even pixels
    oe, oo = pl // 2, (pl + 1) // 2               # their first plane column, the odd ones'
    low, shift = np.uint64(0xFFFFFFFF), np.uint64(32)
    for ch in range(c):
        for n in range(m):
            for y in range(h):
                p = (y + pt) % sh
                row = n * s + ((y + pt) // sh) * wq
                src = xs2[n, ch, y]
                re, ro = region[p, qe], region[p, 1 - qe]
                if re >= 0:
                    de = rows[ch * nreg + re, row + oe:row + oe + half]
                    for i in range(half):
                        de[i] = np.uint32(src[i] & low)
                if ro >= 0:
                    do = rows[ch * nreg + ro, row + oo:row + oo + half]
                    for i in range(half):
                        do[i] = np.uint32(src[i] >> shift)


def _shared_padding(x, w, pads, dil, out):
    """The stride-1 layout (module docstring) of ``x``: (sample stride s, row
    stride ws, lead, tap offsets (kh * kw,), fill(grid_rows, xs, m)), or None."""
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    (pt, pb), (pl, pr) = pads
    ho, wo = out
    if min(pt, pb) > (kh - 1) * dil[0] or min(pl, pr) > (kw - 1) * dil[1]:
        return None                              # padding past the kernel's reach
    mv, mw = max(pt, pb), max(pl, pr)
    ws = wd + mw
    s = (h + mv) * ws
    if ho > h + mv or wo > ws:
        return None
    taps = flat_taps((kh, kw), dil, ws)

    def fill(rows, xs, m):                       # rows: (C, lead + m * s + tail)
        fill_flat(rows, xs, pt * ws + pl, s, ws, mv)
    return s, ws, pt * ws + pl, taps, np.zeros(kh * kw, np.int64), 1, fill


def flat_taps(kshape, dil, ws):
    """The offsets of a kernel's taps (row-major) in the stride-1 layout with
    row stride ``ws``: ``i * dh * ws + j * dw``."""
    kh, kw = kshape
    return (np.arange(kh, dtype=np.int64)[:, None] * (dil[0] * ws)
            + np.arange(kw, dtype=np.int64) * dil[1]).reshape(-1)


def fill_flat(rows, xs, lead, s, ws, mv):
    """``xs`` (m, C, H, W) into ``rows`` (C, >= lead + m * s) in the stride-1
    layout (module docstring: ``lead`` zeros first, rows ``ws`` apart, samples
    ``s``, ``mv`` zero rows after each), every other element zeroed; by the
    compiled loop (one pass for wide rows), else numpy."""
    m, c, h, wd = xs.shape
    loop = compiled_kernel(_fill_flat)
    if loop is not None:
        one_pass = wd >= ONE_PASS_WIDTH
        if not one_pass:
            rows.fill(0)
        loop(xs, rows, lead, s, ws, one_pass)
        return
    rows.fill(0)
    grid = rows[:, lead:lead + m * s].reshape(c, m, h + mv, ws)
    grid[:, :, :h, :wd] = xs.swapaxes(0, 1)


def _phases(x, w, pads, dil, strides, out):
    """The strided layout: the padded input split into its stride phases, plane
    (p, q) holding padded pixels (sh * Y + p, sw * X + q) at (Y, X), so tap (i, j)
    of output (y, x) is plane (i*dh % sh, j*dw % sw) at (y + i*dh // sh, x +
    j*dw // sw): a stride-1 read with one more table entry per tap (which plane).
    Only the planes some tap reads are built (a 1x1 stride-2 layer: one)."""
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    (pt, pb), (pl, pr) = pads
    (sh, sw), (dh, dw) = strides, dil
    hq, wq = -(-(h + pt + pb) // sh), -(-(wd + pl + pr) // sw)
    ti, tj = np.arange(kh) * dh, np.arange(kw) * dw
    used = sorted({(a % sh, b % sw) for a in ti for b in tj})
    region = {pq: r for r, pq in enumerate(used)}
    taps = ((ti // sh)[:, None] * wq + (tj // sw)).reshape(-1).astype(np.int64)
    regions = np.array([region[(a % sh, b % sw)] for a in ti for b in tj], np.int64)

    def span(p, stride, pad, size):              # (first plane index, first input index, count)
        first = -(-(pad - p) // stride) if pad > p else 0
        src = p + stride * first - pad
        return first, src, max(0, -(-(size - src) // stride))

    table = np.full((sh, sw), -1, np.int64)
    for (p, q), r in region.items():
        table[p, q] = r

    def fill(rows, xs, m):                       # rows: (C * len(used), m * s + tail)
        rows.fill(0)
        if sw == 2 and wd % 2 == 0 and xs.dtype == np.float32 and xs.flags.c_contiguous:
            loop = compiled_kernel(_fill_phases_w2)
            if loop is not None:
                loop(xs.view(np.uint64), rows.view(np.uint32), table, hq * wq, wq, pt, pl)
                return
        loop = compiled_kernel(_fill_phases)
        if loop is not None:
            loop(xs, rows, table, hq * wq, wq, pt, pl)
            return
        planes = rows.reshape(c, len(used), -1)[:, :, :m * hq * wq].reshape(
            c, len(used), m, hq, wq)
        xt = xs.swapaxes(0, 1)
        for (p, q), r in region.items():
            y0, h0, nh = span(p, sh, pt, h)
            x0, w0, nw = span(q, sw, pl, wd)
            planes[:, r, :, y0:y0 + nh, x0:x0 + nw] = \
                xt[:, :, h0:h0 + sh * (nh - 1) + 1:sh, w0:w0 + sw * (nw - 1) + 1:sw]
    return hq * wq, wq, 0, taps, regions, len(used), fill


def implicit_flat(x, w, pads, dil, out, bias, epilogue=None, strides=(1, 1), groups=1):
    """conv_forward of a 2-D float32 batch (``usable``; ``groups``: a batch of
    problems, one per group: its rows of W, its channels, its output rows), the epilogue
    (``fn(block, bias, start)``) applied per chunk of samples; None where the
    layout does not apply or wastes over ``MAX_WASTE`` of the columns, or the
    layer is outside where the kernel pays."""
    crop = compiled_kernel(_crop_bias)
    if crop is None or len(out) != 2:
        return None
    n, c = x.shape[:2]
    o = w.shape[0]
    ho, wo = out
    layout = _shared_padding(x, w, pads, dil, out) if tuple(strides) == (1, 1) else \
        _phases(x, w, pads, dil, strides, out)
    if layout is None:
        return None
    s, ws, lead, taps, regions, nreg, fill = layout
    if s > MAX_WASTE * ho * wo or o * w[0].size * 4 > MAX_WEIGHT_BYTES or \
            2 * o * w[0].size * n * ho * wo < MIN_FLOPS:
        return None
    w2 = np.ascontiguousarray(w.reshape(o, -1))
    og, cg = o // groups, c // groups
    bias = np.full(o, -0.0, np.float32) if bias is None else np.ascontiguousarray(bias, np.float32)
    # an epilogue that is only a clamp (conv_epilogue: relu, relu6, none) runs in the crop
    clamp = CLAMPS[""] if epilogue is None else getattr(epilogue, "clamp", None)
    lo, hi, tie = (np.float32(clamp[0]), np.float32(clamp[1]), clamp[2]) if clamp else \
        (np.float32(-np.inf), np.float32(np.inf), False)
    res = np.empty((n, o, ho, wo), np.float32)
    # output rows written by the kernel where they belong when their column blocks
    # waste no more than the flat layout's padding columns do (no crop copy after)
    blk = gemm_kernel.block_width()
    rows_direct = ho * -(-wo // blk) * blk <= ROWS_DIRECT_WASTE * s and \
        gemm_kernel.lanes() in ROWS_DIRECT_LANES
    spec = (clamp, None) if epilogue is None or clamp is not None else \
        getattr(epilogue, "spec", None) or (None, None)
    resid = spec[1] if rows_direct and spec[1] is not None and \
        spec[1].dtype == np.float32 and spec[1].shape == res.shape and \
        spec[1].flags.c_contiguous else None
    if resid is not None:
        clamp = spec[0]         # the residual and the clamp in the kernel's stores too
    kclamp = None if clamp is None or clamp == CLAMPS[""] else clamp
    chunk = max(1, min(n, _CHUNK_BYTES // ((c * nreg + o) * s * 4)))
    for s0 in range(0, n, chunk):
        m = min(chunk, n - s0)
        cols = (m - 1) * s + (ho - 1) * ws + wo     # through the chunk's last output
        rowlen = lead + m * s + int(taps.max())
        buf = scratch("flat_grid", (c * nreg, rowlen), np.float32)
        fill(buf, x[s0:s0 + m], m)        # writes every element (padding zeros too)
        xoff = (np.arange(c, dtype=np.int64)[:, None] * nreg + regions) * rowlen + taps
        if rows_direct:     # every output row (sample, y) straight into res
            xcol = (np.arange(m, dtype=np.int64)[:, None] * s
                    + np.arange(ho, dtype=np.int64) * ws).reshape(-1)
            coff = ((s0 + np.arange(m, dtype=np.int64))[:, None] * (o * ho * wo)
                    + np.arange(ho, dtype=np.int64) * wo).reshape(-1)
            if groups == 1:
                gemm_kernel.gemm_segments(w2, buf, xoff.reshape(-1), res, ho * wo, xcol, coff,
                                          wo, bias=bias, residual=resid, clamp=kclamp)
            else:
                gemm_kernel.gemm_segments(w2.reshape(groups, og, -1), buf.reshape(groups, -1),
                                          xoff[:cg].reshape(-1), res, ho * wo, xcol, coff, wo,
                                          obs=og * ho * wo, bias=bias.reshape(groups, og),
                                          residual=resid, clamp=kclamp)
        else:
            prod = scratch("gemm", (o, m * s), np.float32)
            if groups == 1:
                gemm_kernel.gemm_rows(w2, buf, xoff.reshape(-1), cols, prod)
            else:   # the groups as one batched call: group g's channels, rows and output
                gemm_kernel.gemm_rows(w2.reshape(groups, og, -1), buf.reshape(groups, -1),
                                      xoff[:cg].reshape(-1), cols, prod.reshape(groups, og, -1))
            crop(prod, res[s0:s0 + m], s, ws, bias, lo, hi, tie)
        block = res[s0:s0 + m]
        if clamp is None:
            done = epilogue(block, None, s0)
            if done is not block:       # an activation without an in-place form
                block[...] = done
    return res
