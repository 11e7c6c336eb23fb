"""Stride-1 ungrouped float32 convolutions on the offset-table GEMM kernel
(kernels/cpu/gemm_kernel.py): the window block is never written.

``implicit_flat`` (2-D): the samples lie flat in one zeroed buffer, each row
followed by ``mw = max(pad_left, pad_right)`` zero columns and each sample by
``mv = max(pad_top, pad_bottom)`` zero rows, so one row's trailing zeros are
also the next row's leading padding (and one sample's bottom padding the
next one's top): row stride ``Ws = W + mw``, sample stride ``S = (H + mv) *
Ws``.  The window of output (n, y, x) at kernel tap (i, j) then starts at
column ``n * S + y * Ws + x`` of the flat input shifted by ``i * d * Ws + j *
d`` (plus a fixed lead), so that shift per (channel, tap) is the kernel's
offset table and the whole chunk of samples is one kernel call over ``m * S``
columns; columns past an output row (x >= Wo) or sample (y >= Ho) are
computed and dropped by the compiled copy that moves the result to (N, O, Ho,
Wo) adding the bias and applying a relu/relu6 epilogue's clamp (``_crop_bias``);
another epilogue (a residual, other activations) runs on the chunk after it.
3x3 "same" layers compute (H + 1)(W + 1) / HW of the output: 1.13 at 16x16,
1.31 at 7x7.  Before: pad copy, im2col copy (K x columns), BLAS GEMM, crop
copy; after: pad copy, kernel, crop."""
import math

import numpy as np

from . import gemm_kernel
from .conv_epilogue import CLAMPS
from .depthwise import _U
from .fused_elementwise import compiled_kernel
from .workspace import scratch

__all__ = ["usable", "implicit_flat"]

# computed columns over kept ones above which a flat layout's padding columns
# cost more than the kernel saves
MAX_WASTE = 1.4
# where the kernel pays: weights it reads from L2 and enough columns; a 512 ->
# 512 3x3 layer (9 MB of weights) on a 7x7 map ran 2x slower than im2col + BLAS
# (with a packed copy of the weights), 3x3 and 5x5 layers of GoogLeNet and the
# W6 CNN (up to 300 KB, thousands of columns) 1.3-2.5x faster
MAX_WEIGHT_BYTES = 512 << 10
MIN_COLUMNS = 512
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


def implicit_flat(x, w, pads, dil, out, bias, epilogue=None):
    """conv_forward of a stride-1 ungrouped 2-D float32 batch (``usable``), the
    epilogue (``fn(block, bias, start)``) applied per chunk of samples; None
    where the layout does not apply (padding wider than the kernel's reach) or
    wastes over ``MAX_WASTE`` of the columns."""
    crop = compiled_kernel(_crop_bias)
    if crop is None or len(out) != 2:
        return None
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    (pt, pb), (pl, pr) = pads
    ho, wo = out
    reach_h, reach_w = (kh - 1) * dil[0], (kw - 1) * dil[1]
    if min(pt, pb) > reach_h or min(pl, pr) > reach_w:
        return None
    mv, mw = max(pt, pb), max(pl, pr)
    ws = wd + mw
    s = (h + mv) * ws
    if s > MAX_WASTE * ho * wo or ho > h + mv or wo > ws or \
            o * w[0].size * 4 > MAX_WEIGHT_BYTES or n * s < MIN_COLUMNS:
        return None
    lead = pt * ws + pl                          # zeros before sample 0's first pixel
    taps = (np.arange(kh, dtype=np.int64)[:, None] * (dil[0] * ws)
            + np.arange(kw, dtype=np.int64) * dil[1]).reshape(-1)
    w2 = np.ascontiguousarray(w.reshape(o, -1))
    bias = np.full(o, -0.0, np.float32) if bias is None else np.ascontiguousarray(bias, np.float32)
    # an epilogue that is only a clamp (conv_epilogue: relu, relu6, none) runs in the crop
    clamp = CLAMPS[""] if epilogue is None else getattr(epilogue, "clamp", None)
    lo, hi, tie = (np.float32(clamp[0]), np.float32(clamp[1]), clamp[2]) if clamp else \
        (np.float32(-np.inf), np.float32(np.inf), False)
    res = np.empty((n, o, ho, wo), np.float32)
    chunk = max(1, min(n, _CHUNK_BYTES // ((c + o) * s * 4)))
    for s0 in range(0, n, chunk):
        m = min(chunk, n - s0)
        cols = (m - 1) * s + (ho - 1) * ws + wo     # through the chunk's last output
        rowlen = lead + m * s + reach_h * ws + reach_w
        buf = scratch("flat_grid", (c, rowlen), np.float32)
        buf.fill(0)
        grid = buf[:, lead:lead + m * s].reshape(c, m, h + mv, ws)
        grid[:, :, :h, :wd] = x[s0:s0 + m].swapaxes(0, 1)
        xoff = (np.arange(c, dtype=np.int64)[:, None] * rowlen + taps).reshape(-1)
        prod = gemm_kernel.gemm_rows(w2, buf, xoff, cols, scratch("gemm", (o, m * s), np.float32))
        block = res[s0:s0 + m]
        crop(prod, block, s, ws, bias, lo, hi, tie)
        if clamp is None:
            done = epilogue(block, None, s0)
            if done is not block:       # an activation without an in-place form
                block[...] = done
    return res
