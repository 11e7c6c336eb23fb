"""numpy kernels of conv2d, depthwise_conv2d, conv2d_transpose, conv3d,
conv3d_transpose, their grads and double grads (kernels/cpu/bilinear.py).

Everything is computed channels-first (channel-last inputs are viewed
transposed) with im2col, for any number of spatial dims: the input windows
are copied once into a (N, C, *kernel, *out) block (one strided copy per
kernel offset, never a loop over pixels or the batch), and the convolution is
one batched matmul per call, grouped channels as one more batch axis.  col2im
(the adjoint) adds the blocks back.  A stride-1 forward builds its block from
a strided view of the flat padded input instead (``flat_windows``: one copy of
contiguous runs, no pad call), computing the spatial dims after the first at
their padded sizes and copying the output without the extras; where those
extra columns would be over a quarter of the output's width (a 3x3 kernel on
a 7x7 map: 63 GEMM columns instead of 49, measured 1.5x slower) a large
convolution takes im2col instead.  Depthwise 3x3, 5x5 and 7x7 layers run
numba's compiled kernels where numba is present (kernels/cpu/depthwise.py).
Where the GEMM kernel of kernels/cpu/gemm_kernel.py is available, float32 2-D
forward layers other than 1x1 and depthwise ones (any stride, grouped or not)
take it instead, reading their windows from the input through an offset table
(kernels/cpu/conv_implicit.py; ``_implicit_ok`` and that module's thresholds
say which); gradients stay on im2col.  Image stems (at most 4 input channels,
3x3 to 7x7, stride 1 or 2) take the compiled row kernel of
kernels/cpu/stem_kernel.py where it runs (AVX2 hosts), their clamp in its stores.
"""
import functools
import itertools
import math

import numpy as np

from ...ops import OpError
from ...ops.defs.nn_conv import (conv_geometry, convt_geometry, channel_last,
                                 check_conv_channels)
from ..registry import kernel
from .bilinear import Bilinear, register
from . import stem_kernel, winograd_kernel
from .conv_epilogue import CLAMPS
from .conv_implicit import usable, implicit_flat
from .depthwise import depthwise
from .winograd import (winograd_conv, fast_filter_transform, MIN_CHANNELS_COMPILED,
                       MIN_SIDE_COMPILED, VARIANTS as WINOGRAD_VARIANTS)
from .workspace import scratch


# ------------------------------------------------------------------ windows
_ALL2 = (slice(None), slice(None))


def pad_hw(x, pads, value=0):
    """``x`` padded by one (before, after) pair per spatial dim."""
    if not any(a or b for a, b in pads):
        return x
    return np.pad(x, ((0, 0), (0, 0)) + tuple(pads), constant_values=value)


@functools.lru_cache(maxsize=1024)
def _offsets(ks, strides, dil, out):
    """(index of a kernel offset in the column block, slice of the padded input
    it reads for every output), per offset; computed once per geometry."""
    return tuple((_ALL2 + off, (Ellipsis,) + tuple(slice(i * d, i * d + s * (o - 1) + 1, s)
                                                   for i, d, s, o in zip(off, dil, strides, out)))
                 for off in itertools.product(*map(range, ks)))


def im2col(xp, ks, strides, dil, out):
    """Windows of the padded channels-first ``xp`` as an (N, C, *ks, *out) array
    in this thread's im2col scratch (workspace.py): valid until the next im2col,
    so every caller consumes it before returning."""
    ks, out = tuple(ks), tuple(out)
    cols = scratch("im2col", xp.shape[:2] + ks + out, xp.dtype)
    for at, sl in _offsets(ks, tuple(strides), tuple(dil), out):
        cols[at] = xp[sl]
    return cols


def col2im(cols, padded, strides, dil):
    """Adjoint of im2col: sum the (N, C, *ks, *out) blocks into (N, C, *padded)."""
    nd = len(padded)
    ks, out = cols.shape[2:2 + nd], cols.shape[2 + nd:]
    res = np.zeros(cols.shape[:2] + tuple(padded), cols.dtype)
    for at, sl in _offsets(ks, tuple(strides), tuple(dil), out):
        res[sl] += cols[at]
    return res


def _crop(a, pads, size):
    if all(p[0] == 0 for p in pads) and a.shape[2:] == tuple(size):
        return a
    return a[_ALL2 + tuple(slice(p[0], p[0] + s) for p, s in zip(pads, size))]


def _nchw(a, last):
    return a.transpose((0, a.ndim - 1) + tuple(range(1, a.ndim - 1))) if last else a


def _back(a, last):
    return a.transpose((0,) + tuple(range(2, a.ndim)) + (1,)) if last else a


# ------------------------------------------------------------------ conv
def _conv_setup(op, x, w, attrs):
    last = channel_last(attrs)
    x = _nchw(x, last)
    g = attrs["groups"]
    if x.shape[1] != w.shape[1] * g or w.shape[0] % g:
        check_conv_channels(op, x.shape[1], w.shape, g)
    pads, dil, strides, out = conv_geometry(x.shape[2:], w.shape[2:], attrs)
    return x, last, g, pads, dil, strides, out


def flat_windows(x, ks, pads, dil, out):
    """Stride-1 windows without im2col's per-offset copies: ``x`` is written once
    into a zero buffer holding its padded grid flat (plus the tail the last
    windows read), and the windows are a strided view of it, (N, C, *ks, L):
    window offset (i, j) reads the flat grid shifted by ``i*d*Wp + j*d``, so
    column ``y*Wp + x`` is output (y, x) when ``x < Wo`` and a discarded one
    otherwise (L = Ho * Wp: every spatial dim but the first computed at its
    padded size).
    Returns (view, padded grid sizes)."""
    n, c = x.shape[:2]
    sp = x.shape[2:]
    padded = tuple(s + a + b for s, (a, b) in zip(sp, pads))
    gstr = [1] * len(padded)                   # element strides of the padded grid
    for i in range(len(padded) - 2, -1, -1):
        gstr[i] = gstr[i + 1] * padded[i + 1]
    P = math.prod(padded)
    L = out[0] * math.prod(padded[1:])
    last = L - 1 + sum((k - 1) * d * s for k, d, s in zip(ks, dil, gstr))
    buf = np.zeros((n, c, max(P, last + 1)), x.dtype)
    grid = buf[:, :, :P].reshape((n, c) + padded)
    grid[_ALL2 + tuple(slice(a, a + s) for (a, _), s in zip(pads, sp))] = x
    it = buf.itemsize
    view = np.lib.stride_tricks.as_strided(
        buf, (n, c) + tuple(ks) + (L,),
        buf.strides[:2] + tuple(d * s * it for d, s in zip(dil, gstr)) + (it,),
        writeable=False)
    return view, padded


# a batch whose window block (im2col's operand) would pass this many bytes runs
# in chunks of samples: the block of one chunk stays in cache while its GEMM
# reads it (measured 0.34-0.8x the time of one block for depthwise and 3x3
# stride-1 convs of 16 images; 1x1 and small layers stay one block)
_BLOCK_BYTES = 8 << 20


def _implicit_ok(x, w, pads, strides, out):
    """A float32 2-D layer for the GEMM kernel (conv_implicit.py), but not a 1x1
    one (BLAS takes its input as it is, or one subsampled copy of it, as fast as
    the kernel: ResNet's 1x1 layers 0.9-1.1x) nor one with one input channel per
    group (depthwise: kernels/cpu/depthwise.py)."""
    return len(out) == 2 and all(out) and w.shape[1] > 1 and \
        w[0].size != w.shape[1] and usable(x, w)


# a plain 3x3 or 5x5 layer (conv2d of a static program or eager) takes Winograd with
# the compiled transforms where its filter's transform, made at every call, is a
# few percent of the work: 16 channels or more and this many output pixels (W6's
# 16 -> 32 layer at batch 32, 16x16: 0.96 -> 0.67 ms; 5x5 layers at 0.45-0.6x)
WINOGRAD_MIN_PIXELS = 4096


def _winograd_ok(x, w, g, dil, strides, out):
    return len(out) == 2 and w.shape[2] == w.shape[3] and w.shape[2] in WINOGRAD_VARIANTS \
        and g == 1 and tuple(strides) == (1, 1) \
        and tuple(dil) == (1, 1) and x.dtype == np.float32 and w.dtype == np.float32 and \
        min(w.shape[:2]) >= MIN_CHANNELS_COMPILED and min(out) >= MIN_SIDE_COMPILED and \
        x.shape[0] * out[0] * out[1] >= WINOGRAD_MIN_PIXELS and winograd_kernel.available()


def conv_forward(x, w, g, pads, dil, strides, out, bias=None, epilogue=None, prologue=None):
    """The convolution (channels first); ``bias`` (one value per output
    channel, sampan_conv2d_fusion) is added on the way out, in the copy that
    drops a stride-1 block's padding columns or in place.  ``epilogue``
    (kernels/cpu/conv_epilogue.py, ``fn(block, bias, start)`` in place on the
    samples ``start:`` of the result): the fused op's bias, residual and
    activation, applied per sample right after its GEMM where the samples'
    GEMMs are separate, else to the whole result.  ``prologue`` (kernels/cpu/
    conv_prologue.py, ``fn(x, out=None)``): a map of the input, applied per
    sample right before its GEMM on the 1x1 path, else to the whole input
    first (padding comes after the map)."""
    if prologue is None and stem_kernel.takes(x, w, g, dil, strides, out):
        # an image stem (few input channels): the compiled row kernel, the
        # epilogue's clamp in its stores, its other work (a residual, another
        # activation) after them
        clamp = CLAMPS[""] if epilogue is None else getattr(epilogue, "clamp", None)
        res = stem_kernel.stem_conv(x, w, bias, pads, strides, out, clamp or CLAMPS[""])
        if res is not None:
            return res if epilogue is None or clamp is not None else epilogue(res, None, 0)
    if epilogue is not None or prologue is not None:
        if g == 1 and all(s == 1 for s in strides) and all(out) and \
                w[0].size == w.shape[1] and not any(a or b for a, b in pads) and \
                not (x.shape[0] > 1 and math.prod(out) <= _FOLD_COLS):
            return _one_by_one(x, w, out, bias, epilogue, prologue)
        if prologue is not None:
            x = prologue(x)
        if _implicit_ok(x, w, pads, strides, out):
            res = implicit_flat(x, w, pads, dil, out, bias, epilogue, strides, g)
            if res is not None:
                return res
        res = conv_forward(x, w, g, pads, dil, strides, out, bias)
        return res if epilogue is None else epilogue(res, None, 0)
    n = x.shape[0]
    o, cg = w.shape[:2]
    if cg == 1 and g == o > 1 and len(out) == 2 and all(out):
        res = depthwise(x, w, pads, dil, strides, out, bias)
        if res is not None:
            return res
    if _winograd_ok(x, w, g, dil, strides, out):
        return winograd_conv(x, fast_filter_transform(w), pads, out, bias, ksize=w.shape[2])
    k = cg * math.prod(w.shape[2:])
    flat = all(s == 1 for s in strides) and all(out) and (
        out[-1] >= 4 * dil[-1] * (w.shape[-1] - 1) or k * o <= 16384)
    one_by_one = flat and k == cg and not any(a or b for a, b in pads)
    fold = n > 1 and g == 1 and math.prod(out) <= _FOLD_COLS
    if _implicit_ok(x, w, pads, strides, out):
        res = implicit_flat(x, w, pads, dil, out, bias, strides=strides, groups=g)
        if res is not None:
            return res
    if one_by_one and g == 1 and not fold:
        # 1x1, stride 1, no padding: the input is the GEMM's operand as it is
        res = np.matmul(w.reshape(o, k), x.reshape(n, k, -1)).reshape((n, o) + tuple(out))
        if bias is not None:
            res += bias.reshape((o,) + (1,) * len(out))
        return res
    if g == 1 and len(out) == 2 and all(s == 1 for s in strides) and all(out) and \
            k >= _SHIFTED_RATIO * o and not one_by_one:
        return _shifted(x, w, pads, dil, out, bias)
    if flat and n > 1 and g == 1 and not one_by_one and \
            k * n * math.prod(s + a + b for s, (a, b) in zip(x.shape[2:], pads)) \
            * x.itemsize <= _BLOCK_BYTES:
        return _flat_folded(x, w, pads, dil, out, bias)
    if n > 1:
        per_sample = k * g * math.prod(out) * x.itemsize
        chunk = max(1, _BLOCK_BYTES // max(per_sample, 1))
        if chunk < n:
            res = np.empty((n, o) + tuple(out), np.result_type(x, w))
            for i in range(0, n, chunk):
                res[i:i + chunk] = conv_forward(x[i:i + chunk], w, g, pads, dil, strides,
                                                out, bias)
            return res
    if fold:
        return _batch_folded(x, w, pads, dil, strides, out, bias, one_by_one)
    if flat and n == 1 and g == 1 and k * x.itemsize * math.prod(
            s + a + b for s, (a, b) in zip(x.shape[2:], pads)) > _BLOCK_BYTES:
        return _flat_column_chunks(x, w, pads, dil, out, bias)
    if flat:        # one copy of contiguous runs into the GEMM's operand
        view, padded = flat_windows(x, w.shape[2:], pads, dil, out)
        L = view.shape[-1]
        cols = scratch("im2col", view.shape, view.dtype)
        np.copyto(cols, view)
        cols = cols.reshape(n, k, L) if g == 1 else cols.reshape(n, g, k, L)
    else:
        cols = im2col(pad_hw(x, pads), w.shape[2:], strides, dil, out)
        L = math.prod(out)
    # a flat block's product with extra columns is copied without them: it goes to
    # scratch (without extra columns it is the result itself: a new array)
    dst = scratch("gemm", (n, o, L), np.result_type(x, w)) \
        if flat and tuple(padded[1:]) != tuple(out[1:]) else None
    if g == 1:
        res = np.matmul(w.reshape(o, k), cols.reshape(n, k, L), out=dst)
    else:
        res = np.matmul(w.reshape(g, o // g, k), cols.reshape(n, g, k, L),
                        out=None if dst is None else dst.reshape(n, g, o // g, L))
    if flat:        # without the discarded columns: one contiguous copy (the ops
        #             that follow run several times slower on the strided view)
        res = res.reshape((n, o, out[0]) + padded[1:])
        view = res[(Ellipsis,) + tuple(slice(0, s) for s in out[1:])]
        if bias is None:
            return np.ascontiguousarray(view)
        dst = np.empty(view.shape, res.dtype)
        return np.add(view, bias.reshape((o,) + (1,) * len(out)), out=dst)
    res = res.reshape((n, o) + tuple(out))
    if bias is not None:
        res += bias.reshape((o,) + (1,) * len(out))
    return res


def _flat_column_chunks(x, w, pads, dil, out, bias):
    """A stride-1 ungrouped sample whose window block would pass ``_BLOCK_BYTES``
    (InceptionV3's 32-channel 3x3 layers on 147x147 maps: 25 MB): the flat
    windows copied and multiplied a column range at a time, each range's block
    (``_BLOCK_BYTES`` / 2 at most) still in cache when its GEMM reads it, the
    products written into one result (measured 1.3-1.4x faster than one block)."""
    view, padded = flat_windows(x, w.shape[2:], pads, dil, out)
    o, k, L = w.shape[0], w[0].size, view.shape[-1]
    dtype = np.result_type(x, w)
    step = max(256, _BLOCK_BYTES // 2 // (k * x.itemsize))
    cols = scratch("im2col", view.shape[:-1] + (step,), x.dtype)
    flat_cols = cols.reshape(k, step)
    res = scratch("gemm", (o, L), dtype)
    w2 = w.reshape(o, k)
    for l0 in range(0, L, step):
        width = min(step, L - l0)
        np.copyto(cols[..., :width], view[..., l0:l0 + width])
        np.matmul(w2, flat_cols[:, :width], out=res[:, l0:l0 + width])
    grid = res.reshape((1, o, out[0]) + padded[1:])
    view = grid[(Ellipsis,) + tuple(slice(0, s) for s in out[1:])]
    dst = np.empty(view.shape, dtype)
    if bias is None:
        np.copyto(dst, view)
        return dst
    return np.add(view, bias.reshape((o,) + (1,) * len(out)), out=dst)


def _one_by_one(x, w, out, bias, epilogue, prologue):
    """A 1x1 stride-1 unpadded convolution, each sample's GEMM (its input is the
    operand as it is, or the prologue's map of it in scratch) followed at once
    by the epilogue on its output."""
    n, c = x.shape[:2]
    o = w.shape[0]
    res = np.empty((n, o) + tuple(out), np.result_type(x, w))
    w2, x3, r3 = w.reshape(o, c), x.reshape(n, c, -1), res.reshape(n, o, -1)
    mapped = scratch("conv_prologue", (1,) + x3.shape[1:], x.dtype) \
        if prologue is not None else None
    for i in range(n):
        xi = x3[i] if prologue is None else prologue(x3[i:i + 1], mapped)[0]
        np.matmul(w2, xi, out=r3[i])
        if epilogue is None:
            if bias is not None:
                r3[i] += bias.reshape(o, 1)
            continue
        block = res[i:i + 1]
        done = epilogue(block, bias, i)
        if done is not block:       # an activation without an in-place form
            block[...] = done
    return res


# outputs of at most this many pixels per sample make a narrow GEMM per sample
# (7x7: 49 columns ran at 0.6x the rate of wide ones); a batch of them is one
# GEMM with the samples side by side in its columns (_batch_folded).  14x14
# outputs (196 columns) stay per sample: 1x1 layers of ResNet-50 at batch 16
# ran at 204 against 185 GFLOP/s, the models 1-4% faster (resnet50 843 -> 821 ms)
_FOLD_COLS = 100


# a stride-1 layer whose window block (K = C * kh * kw rows) is at least this
# many times its output's rows (O) sums one GEMM per kernel offset instead of
# building the block (``_shifted``): DenseNet's 128 -> 32 3x3 layers 1.2-1.9x
# faster (56x56 to 7x7 maps, batch 1 and 16); 64 -> 64 ran 7% slower so
_SHIFTED_RATIO = 16
# samples per ``_shifted`` GEMM: as many as keep their sum this small (in cache)
_SHIFTED_BYTES = 512 << 10


def _shifted(x, w, pads, dil, out, bias):
    """A stride-1 ungrouped 2-D convolution as a sum of one GEMM per kernel
    offset: the padded input is laid out flat per channel (as ``flat_windows``),
    so offset (i, j) reads it shifted by ``i*d*Wp + j*d``, a strided view BLAS
    takes as it is: W[:, :, i, j] (O, C) @ X_shifted (C, L) summed into an
    (O, L) accumulator, L = Ho * Wp (columns past Wo are dropped in the copy
    that adds the bias).  No window block is written; samples go in chunks
    whose accumulator stays in cache."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    (pt, pb), (pl, pr) = pads
    hp, wp = h + pt + pb, wd + pl + pr
    ho, wo = out
    L = ho * wp
    tail = (kh - 1) * dil[0] * wp + (kw - 1) * dil[1]
    dt = np.result_type(x, w)
    taps = np.ascontiguousarray(w.transpose(2, 3, 0, 1))        # (kh, kw, O, C)
    res = np.empty((n, o, ho, wo), dt)
    chunk = max(1, _SHIFTED_BYTES // max(o * L * dt.itemsize, 1))
    for s0 in range(0, n, chunk):
        m = min(chunk, n - s0)
        buf = scratch("shifted_grid", (m, c, max(hp * wp, L + tail)), x.dtype)
        buf.fill(0)
        buf[:, :, :hp * wp].reshape(m, c, hp, wp)[:, :, pt:pt + h, pl:pl + wd] = x[s0:s0 + m]
        acc = scratch("shifted_acc", (m, o, L), dt)
        tmp = scratch("shifted_tap", (m, o, L), dt)
        first = True
        for i in range(kh):
            for j in range(kw):
                off = i * dil[0] * wp + j * dil[1]
                src = buf[:, :, off:off + L]
                if first:
                    np.matmul(taps[i, j], src, out=acc)
                    first = False
                else:
                    np.matmul(taps[i, j], src, out=tmp)
                    acc += tmp
        view = acc.reshape(m, o, ho, wp)[..., :wo]
        if bias is None:
            res[s0:s0 + m] = view
        else:
            np.add(view, bias.reshape(o, 1, 1), out=res[s0:s0 + m])
    return res


def _flat_folded(x, w, pads, dil, out, bias):
    """A stride-1 ungrouped batch whose whole window block fits ``_BLOCK_BYTES``:
    ``flat_windows`` over the batch at once.  The padded grids of all samples
    lie end to end in one (C, N * P) buffer (P: one padded grid), so the block is
    (C * kernel, N * P), one copy of contiguous runs, and the convolution one
    GEMM (O, K) @ (K, N * P) instead of N narrow ones (K = 27 for an RGB 3x3:
    2x the rate of per-sample products); columns past a sample's output are
    computed and dropped in the copy that moves the result to (N, O, *out)."""
    n, c = x.shape[:2]
    o, ks, sp = w.shape[0], tuple(w.shape[2:]), x.shape[2:]
    padded = tuple(s + a + b for s, (a, b) in zip(sp, pads))
    gstr = [1] * len(padded)                   # element strides of one padded grid
    for i in range(len(padded) - 2, -1, -1):
        gstr[i] = gstr[i + 1] * padded[i + 1]
    L = n * math.prod(padded)
    tail = sum((kk - 1) * d * st for kk, d, st in zip(ks, dil, gstr))
    buf = scratch("flat_grid", (c, L + tail), x.dtype)
    buf.fill(0)
    grid = buf[:, :L].reshape((c, n) + padded)
    grid[_ALL2 + tuple(slice(a, a + s) for (a, _), s in zip(pads, sp))] = x.swapaxes(0, 1)
    it = buf.itemsize
    view = np.lib.stride_tricks.as_strided(
        buf, (c,) + ks + (L,), buf.strides[:1] + tuple(d * st * it for d, st in zip(dil, gstr))
        + (it,), writeable=False)
    k = c * math.prod(ks)
    cols = scratch("im2col", view.shape, x.dtype)
    np.copyto(cols, view)
    dtype = np.result_type(x, w)
    res = np.matmul(w.reshape(o, k), cols.reshape(k, L), out=scratch("gemm", (o, L), dtype))
    res = res.reshape((o, n) + padded)[_ALL2 + tuple(slice(0, s) for s in out)]
    dst = np.empty((n, o) + tuple(out), dtype)
    if bias is None:
        np.copyto(dst, res.swapaxes(0, 1))
        return dst
    return np.add(res.swapaxes(0, 1), bias.reshape((o,) + (1,) * len(out)), out=dst)


def _batch_folded(x, w, pads, dil, strides, out, bias, one_by_one):
    """conv_forward of a batch with small outputs, ungrouped: one (O, K) @ (K, N*L)
    product, the window block written (C, *kernel, N, *out), the result moved to
    (N, O, *out) in the copy that adds the bias."""
    n, c = x.shape[:2]
    o, ks = w.shape[0], tuple(w.shape[2:])
    k, L = w[0].size, math.prod(out)
    if one_by_one:
        cols = np.ascontiguousarray(x.reshape(n, c, L).swapaxes(0, 1))
    else:
        xs = pad_hw(x, pads).swapaxes(0, 1)                   # (C, N, *padded) view
        cols = scratch("im2col", (c,) + ks + (n,) + tuple(out), x.dtype)
        for at, sl in _offsets(ks, tuple(strides), tuple(dil), tuple(out)):
            cols[(slice(None),) + at[2:]] = xs[sl]
    res = np.matmul(w.reshape(o, k), cols.reshape(k, n * L),
                    out=scratch("gemm", (o, n * L), np.result_type(x, w)))
    res = res.reshape((o, n) + tuple(out))
    dst = np.empty((n, o) + tuple(out), res.dtype)
    if bias is None:
        dst[...] = res.swapaxes(0, 1)
        return dst
    return np.add(res.swapaxes(0, 1), bias.reshape((o,) + (1,) * len(out)), out=dst)


def conv_backward(x, w, gout, g, pads, dil, strides, need):
    """Input and Filter gradients of conv_forward."""
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    ks, out = w.shape[2:], gout.shape[2:]
    k = cg * math.prod(ks)
    L = math.prod(out)
    go = gout.reshape(n, g, o // g, L)
    dx = dw = None
    if need is None or need[1]:
        cols = im2col(pad_hw(x, pads), ks, strides, dil, out).reshape(n, g, k, L)
        dw = np.matmul(go, cols.swapaxes(-1, -2)).sum(axis=0).reshape(w.shape)
    if need is None or need[0]:
        wt = w.reshape(g, o // g, k).swapaxes(-1, -2)            # (g, k, o/g)
        dcols = np.matmul(wt, go).reshape((n, c) + tuple(ks) + tuple(out))
        padded = tuple(s + a + b for s, (a, b) in zip(x.shape[2:], pads))
        dx = _crop(col2im(dcols, padded, strides, dil), pads, x.shape[2:])
    return dx, dw


def _conv_kernels(op):
    def forward(ins, attrs, need):
        x, w = ins
        x, last, g, pads, dil, strides, out = _conv_setup(op, x, w, attrs)
        return (_back(conv_forward(x, w, g, pads, dil, strides, out), last),)

    def grad(ins, attrs, need):
        x, w, gout = ins
        x, last, g, pads, dil, strides, _ = _conv_setup(op + "_grad", x, w, attrs)
        dx, dw = conv_backward(x, w, _nchw(gout, last), g, pads, dil, strides, need)
        return (None if dx is None else _back(dx, last)), dw
    return forward, grad


conv2d, conv2d_grad = _conv_kernels("conv2d")
conv3d, conv3d_grad = _conv_kernels("conv3d")
# every path of conv_forward returns a new array (or a channels-last view of one):
# a bias add or an activation after the convolution may write into it
# (executor/reuse.py; tests/ops/test_conv_paths.py)
conv2d.fresh = conv3d.fresh = True
kernel("conv2d", "depthwise_conv2d")(conv2d)
kernel("conv2d_grad", "depthwise_conv2d_grad")(conv2d_grad)
kernel("conv3d")(conv3d)
kernel("conv3d_grad")(conv3d_grad)


# ------------------------------------------------------------------ transposed conv
def _convt_setup(op, x, w, attrs):
    last = channel_last(attrs)
    x = _nchw(x, last)
    g = attrs["groups"]
    if x.shape[1] != w.shape[0] or w.shape[0] % g:
        raise OpError(f"{op}: Input channels ({x.shape[1]}) must equal Filter's "
                      f"first dimension ({w.shape[0]}) and be divisible by groups ({g})")
    pads, dil, strides, out = convt_geometry(x.shape[2:], w.shape[2:], attrs)
    return x, last, g, pads, dil, strides, out


def _buffer(x_sp, ks, strides, dil, pads, out):
    """Sizes of the uncropped transposed-conv output that cover [pad, pad + o)."""
    return tuple(max((h - 1) * s + d * (k - 1) + 1, p[0] + o)
                 for h, k, s, d, p, o in zip(x_sp, ks, strides, dil, pads, out))


def _convt_kernels(op):
    def forward(ins, attrs, need):
        x, w = ins
        x, last, g, pads, dil, strides, out = _convt_setup(op, x, w, attrs)
        n, c = x.shape[:2]
        sp, ks = x.shape[2:], w.shape[2:]
        og = w.shape[1]
        k = og * math.prod(ks)
        wt = w.reshape(g, c // g, k).swapaxes(-1, -2)               # (g, k, c/g)
        cols = np.matmul(wt, x.reshape(n, g, c // g, math.prod(sp)))
        cols = cols.reshape((n, g * og) + tuple(ks) + tuple(sp))
        res = col2im(cols, _buffer(sp, ks, strides, dil, pads, out), strides, dil)
        return (_back(_crop(res, pads, out), last),)

    def grad(ins, attrs, need):
        x, w, gout = ins
        x, last, g, pads, dil, strides, out = _convt_setup(op + "_grad", x, w, attrs)
        gout = _nchw(gout, last)
        n, c = x.shape[:2]
        sp, ks = x.shape[2:], w.shape[2:]
        og = w.shape[1]
        k = og * math.prod(ks)
        L = math.prod(sp)
        gb = np.zeros((n, g * og) + _buffer(sp, ks, strides, dil, pads, out), gout.dtype)
        gb[_ALL2 + tuple(slice(p[0], p[0] + o) for p, o in zip(pads, out))] = gout
        cols = im2col(gb, ks, strides, dil, sp).reshape(n, g, k, L)
        dx = dw = None
        if need is None or need[0]:
            dx = np.matmul(w.reshape(g, c // g, k), cols).reshape(x.shape)
            dx = _back(dx, last)
        if need is None or need[1]:
            xs = x.reshape(n, g, c // g, L)
            dw = np.matmul(xs, cols.swapaxes(-1, -2)).sum(axis=0).reshape(w.shape)
        return dx, dw
    return forward, grad


conv2d_transpose, conv2d_transpose_grad = _convt_kernels("conv2d_transpose")
kernel("conv2d_transpose", "depthwise_conv2d_transpose")(conv2d_transpose)
kernel("conv2d_transpose_grad", "depthwise_conv2d_transpose_grad")(conv2d_transpose_grad)
conv3d_transpose, conv3d_transpose_grad = _convt_kernels("conv3d_transpose")
kernel("conv3d_transpose")(conv3d_transpose)
kernel("conv3d_transpose_grad")(conv3d_transpose_grad)


# ------------------------------------------------------------------ double grads
# a convolution is bilinear in Input and Filter (kernels/cpu/bilinear.py)
def _bilinear(fwd, grad):
    return Bilinear(lambda a, b, attrs: fwd((a, b), attrs, None)[0],
                    lambda a, b, d, attrs, need: grad((a, b, d), attrs, need))


register(_bilinear(conv2d, conv2d_grad), ("conv2d_grad_grad", "depthwise_conv2d_grad_grad"))
register(_bilinear(conv3d, conv3d_grad), ("conv3d_grad_grad",))
register(_bilinear(conv2d_transpose, conv2d_transpose_grad), ("conv2d_transpose_grad_grad",))
