"""Winograd F(4x4, 3x3) and F(2x2, 5x5) convolution: a 3x3 (5x5), stride-1,
ungrouped convolution in about a quarter (a third) of the multiplications of
im2col + GEMM (Lavin & Gray, "Fast Algorithms for Convolutional Neural
Networks", interpolation points 0, +-1, +-2, infinity for both: the same 6x6
input tile and B, so both run on the same transforms and products, only the
output tile size m and A, G differ; ``VARIANTS``).

The output is cut into m x m tiles; each reads a 6x6 tile of the padded input.
With B, G, A the transform matrices below::

    V = B^T d B          (every input tile d, every channel)
    U = G g G^T          (every r x r filter g: once, when the predictor loads)
    M^T[xi] = V^T[xi] @ U^T[xi]   for each of the 36 positions xi of a 6x6 tile:
                                  (tiles, C) @ (C, O), one batched GEMM
    Y = A^T M A          (m x m outputs per tile and output channel)

The filter transform ``filter_transform`` runs once, in float64, when the
predictor loads (inference/winograd.py, ``sampan_conv_winograd_pass``) and is
kept as U^T (36, C, O); float32 results differ from im2col's by rounding,
about 1e-5 of the output's scale (the transforms' entries up to 8 amplify
rounding).  The fused op's epilogue (bias, residual, relu/relu6) is part of
the convolution here (``act``).

The tile transforms, where float32 and llvmlite allow: compiled loops
(kernels/cpu/winograd_kernel.py) that read the input in place and write the
output in place with the epilogue, 0.43-0.73x the layer's time with the
numpy transforms at batch 1 and 0.59-0.72x at batch 16 (64-512 channels,
56x56 down to 7x7, relu and a residual; F(2x2, 5x5) layers 0.45-0.6x the direct
convolution's time).  Elsewhere numpy's: one small dense GEMM each (Kronecker
products of the 1-D transforms: 36x36 and m*m x 36) around a padded copy and a
strided tile copy, then the output's transpose into NCHW and the epilogue's
passes.

Samples run in chunks whose transformed input fits ``_BLOCK_BYTES`` (the
batched GEMM re-reads it once per output channel block; with the compiled
transforms and a small filter ``_BLOCK_BYTES_COMPILED``), a sample too large
for it in bands of tile rows.

The 36 products: numpy's batched matmul (BLAS), or, for a filter the pass
packed (``pack_filter``: U^T in blocks of the kernel's column width, each
block's C rows contiguous), sampan's GEMM kernel (kernels/cpu/gemm_kernel.py),
vectorized over the output channels: at batch 1 a 14x14 map has 16 tiles and
a 7x7 one 4, too few rows for BLAS (11-40 GFLOP/s with 256-512 channels),
while the output channels fill the kernel's vectors and the packed rows
stream in order.  Measured against BLAS on the 36 products (one core): 1.0-1.4x
faster with 256 channels (2.2x at 16 tiles), 1.1-2.8x with 512, 0.85-1.25x
with 128 and 0.45-1.0x with 64, so the pass packs layers of
``PACK_MIN_CHANNELS`` input channels or more.
"""
import numpy as np

from . import gemm_kernel, winograd_kernel
from .conv_epilogue import CLAMPS, epilogue
from .workspace import scratch

__all__ = ["VARIANTS", "filter_transform", "fast_filter_transform", "pack_filter",
           "winograd_conv", "MIN_CHANNELS_COMPILED", "MIN_SIDE_COMPILED"]

_A = 6                         # input tile size, both variants

_BT = np.array([[4, 0, -5, 0, 1, 0],
                [0, -4, -4, 1, 1, 0],
                [0, 4, -4, -1, 1, 0],
                [0, -2, -1, 2, 1, 0],
                [0, 2, -1, -2, 1, 0],
                [0, 4, 0, -5, 0, 1]], np.float64)
_POINTS = np.array([0, 1, -1, 2, -2], np.float64)     # and infinity (the last row/column)


def _variant(r):
    """(m, A^T (m, 6), G (6, r)) of F(m x m, r x r) on the points above, m = 7 - r:
    A^T[i, j] = a_j^i, G[j, k] = a_j^k / prod_(l != j) (a_j - a_l), the last
    column of A^T and row of G the point at infinity."""
    m = _A + 1 - r
    at = np.zeros((m, _A))
    at[:, :-1] = _POINTS[None, :] ** np.arange(m)[:, None]
    at[-1, -1] = 1
    g = np.zeros((_A, r))
    for j, a in enumerate(_POINTS):
        g[j] = a ** np.arange(r) / np.prod([a - b for b in _POINTS if b != a])
    g[-1, -1] = 1
    return m, at, g


# kernel size r -> (output tile m, A^T, G, kron(B^T, B^T) (36, 36), kron(G, G) (36, r*r),
# kron(A^T, A^T) (m*m, 36))
VARIANTS = {r: (m, at, g, np.kron(_BT, _BT), np.kron(g, g), np.kron(at, at))
            for r, (m, at, g) in ((r, _variant(r)) for r in (3, 5))}
_CAST = {}
_KRON_G = {}

# where the compiled transforms run, Winograd pays from this many input and
# output channels and this output side on (measured against the direct
# convolution: inference/winograd.py, whose pass takes such layers, says how)
MIN_CHANNELS_COMPILED = 16
MIN_SIDE_COMPILED = 4

# transformed input per block (inside whole models 4 MB ran as fast as 2 MB and
# up to 1.25x faster than 1 MB: VGG13 at batch 1 112 against 140 ms)
_BLOCK_BYTES = 4 << 20
# with the compiled transforms, a batch whose filter transform is small enough
# to stay in cache runs in 1 MB blocks (V^T and M^T then stay in L2: batch 16,
# 64 and 128 channels 0.73-0.81x the time of 4 MB blocks); a larger filter keeps
# 4 MB, as every block streams it once (512 channels, 7x7: 1 MB took 1.5x)
_BLOCK_BYTES_COMPILED = 1 << 20
_SMALL_FILTER_BYTES = 4 << 20


def _of(w, who):
    """The variant of filters ``w`` (O, C, r, r)."""
    if w.ndim != 4 or w.shape[2] != w.shape[3] or w.shape[2] not in VARIANTS:
        raise ValueError(f"{who}: filters must be [O, C, r, r] with r in {sorted(VARIANTS)}, "
                         f"got {list(w.shape)}")
    return VARIANTS[w.shape[2]]


def filter_transform(w):
    """(O, C, r, r) filters (r 3 or 5) -> U^T, (36, C, O) in ``w``'s dtype
    (computed in float64)."""
    o, c = w.shape[:2]
    g = _of(w, "filter_transform")[2]
    u = np.einsum("ik,ockl,jl->ijco", g, w.astype(np.float64), g, optimize=True)
    return np.ascontiguousarray(u.reshape(_A * _A, c, o).astype(w.dtype))


def fast_filter_transform(w):
    """``filter_transform`` in ``w``'s dtype by one GEMM, (G kron G) (36, r * r)
    @ w (r * r, C * O): for a filter transformed at every call (a plain conv2d
    taking Winograd, kernels/cpu/conv.py); 512 x 512 filters in a few ms where
    the float64 einsum takes about 90."""
    o, c, r = w.shape[:3]
    kg = _of(w, "fast_filter_transform")[4]
    flat = np.ascontiguousarray(w.reshape(o, c, r * r).transpose(2, 1, 0)).reshape(r * r, c * o)
    kron = _KRON_G.get((w.dtype, r))
    if kron is None:
        kron = _KRON_G[w.dtype, r] = kg.astype(w.dtype)
    return (kron @ flat).reshape(_A * _A, c, o)


def pack_filter(ut):
    """U^T (36, C, O) float32 -> (36, ceil(O / B), C, B): the output channels in
    zero-padded blocks of the GEMM kernel's column width B (the ``packed``
    operand of ``gemm_kernel.gemm_rows``)."""
    return gemm_kernel.pack_columns(ut)


def _unpack(up, o):
    """A packed filter back to U^T (36, C, O) (a copy)."""
    return np.ascontiguousarray(
        up.transpose(0, 2, 1, 3).reshape(up.shape[0], up.shape[2], -1)[:, :, :o])


def _kernel_takes(x, up):
    return x.dtype == np.float32 and up.dtype == np.float32 and gemm_kernel.available() \
        and up.shape[3] == gemm_kernel.block_width()


def _mats(dtype, r):
    m = _CAST.get((dtype, r))
    if m is None:
        v = VARIANTS[r]
        m = _CAST[dtype, r] = (v[3].astype(dtype), v[5].astype(dtype))
    return m


def winograd_conv(x, u, pads, out, bias=None, out_channels=-1, residual=None, act="",
                  ksize=3):
    """The stride-1 ``ksize`` x ``ksize`` convolution (3 or 5) of channel-first
    ``x`` (N, C, H, W) by the filters whose transform is ``u``: U^T (36, C, O),
    or ``pack_filter``'s form of it (36, ceil(O / B), C, B) with
    ``out_channels`` O; ``pads`` ((top, bottom), (left, right)), output sizes
    ``out`` (Ho, Wo).  Returns ``act((conv + bias) + residual)``: ``bias`` (O,)
    and ``residual`` (N, O, Ho, Wo) optional, ``act`` one of
    conv_epilogue.CLAMPS ("", relu, relu6)."""
    if act not in CLAMPS:
        raise ValueError(f"winograd_conv: act must be one of {sorted(CLAMPS)}, got {act!r} "
                         f"(apply other activations to the result)")
    if ksize not in VARIANTS:
        raise ValueError(f"winograd_conv: ksize must be one of {sorted(VARIANTS)}, "
                         f"got {ksize}")
    if u.ndim == 4:
        if not 0 < out_channels <= u.shape[1] * u.shape[3]:
            raise ValueError(f"winograd_conv: a packed filter {list(u.shape)} needs "
                             f"out_channels in 1..{u.shape[1] * u.shape[3]}, got {out_channels}")
        if not _kernel_takes(x, u):                 # packed for another host's kernel
            u = _unpack(u, out_channels)
    o = out_channels if u.ndim == 4 else u.shape[2]
    n, c, h, w = x.shape
    ho, wo = out
    tile = VARIANTS[ksize][0]
    th, tw = -(-ho // tile), -(-wo // tile)
    res = np.empty((n, o, ho, wo), np.result_type(x, u))
    compiled = _compiled_takes(x, u, bias, residual, res)
    block = _BLOCK_BYTES
    if compiled and n > 1 and _A * _A * c * o * x.itemsize <= _SMALL_FILTER_BYTES:
        block = min(block, _BLOCK_BYTES_COMPILED)
    per_row = _A * _A * c * tw * x.itemsize          # transformed input of a tile row
    chunk = max(1, block // max(per_row * th, 1))
    band = th if chunk > 1 else max(1, block // max(per_row, 1))
    if compiled:
        x = np.ascontiguousarray(x)
        b = bias if bias is not None else _negative_zeros(o)
        for i in range(0, n, chunk):
            for r in range(0, th, band):
                _compiled_tiles(x[i:i + chunk], u, pads, r, min(band, th - r), tw, b,
                                None if residual is None else residual[i:i + chunk],
                                CLAMPS[act], res[i:i + chunk], tile)
        return res
    hp, wp = tile * th + _A - tile, tile * tw + _A - tile
    (pt, _), (pl, _) = pads
    rows, cols = min(h, hp - pt), min(w, wp - pl)    # input the tiles read
    for i in range(0, n, chunk):
        xs = x[i:i + chunk]
        xp = np.zeros((xs.shape[0], c, hp, wp), x.dtype)
        xp[:, :, pt:pt + rows, pl:pl + cols] = xs[:, :, :rows, :cols]
        for r in range(0, th, band):                 # a large map: bands of tile rows
            _tiles(xp, u, r, min(band, th - r), tw, bias, res[i:i + chunk], ho, wo, ksize)
    if residual is None and not act:
        return res
    return epilogue(act, 0.0, res.dtype, residual)(res, None)


def _compiled_takes(x, u, bias, residual, res):
    """The compiled transforms (winograd_kernel.py) run this call: float32
    operands, C-contiguous ones where they are read as raw memory."""
    return res.dtype == np.float32 and x.dtype == np.float32 and winograd_kernel.available() \
        and (bias is None or (bias.dtype == np.float32 and bias.flags.c_contiguous)) and \
        (residual is None or (type(residual) is np.ndarray and residual.dtype == np.float32
                              and residual.flags.c_contiguous and residual.shape == res.shape))


_ZEROS = {}


def _negative_zeros(o):
    """A missing bias: -0.0, the identity of IEEE addition (+0.0 would turn a
    -0.0 product into +0.0)."""
    z = _ZEROS.get(o)
    if z is None:
        z = _ZEROS[o] = np.full(o, -0.0, np.float32)
    return z


def _compiled_tiles(xs, u, pads, r, nr, tw, bias, residual, clamp, dst, tile):
    """Tile rows [r, r + nr) of the samples ``xs`` into ``dst``: input transform,
    the 36 products (the GEMM kernel for a packed filter, else BLAS), output
    transform with the epilogue."""
    m, c = xs.shape[:2]
    o = dst.shape[1]
    t = m * nr * tw
    vt = winograd_kernel.input_transform(xs, scratch("winograd_vt", (_A * _A, t, c), np.float32),
                                         (pads[0][0], pads[1][0]), r, nr, tw, tile)
    prod = scratch("winograd_mt", (_A * _A, t, o), np.float32)
    if u.ndim == 4:
        gemm_kernel.gemm_rows(vt, u, np.arange(c, dtype=np.int64) * u.shape[3], o, prod,
                              packed=True)
    else:
        np.matmul(vt, u, out=prod)
    winograd_kernel.output_transform(prod, dst, bias, residual, clamp, r, nr, tw, tile)


def _tiles(xp, u, r, nr, tw, bias, dst, ho, wo, ksize):
    """Output rows [m r, m (r + nr)) of ``dst`` (M, O, Ho, Wo) from the padded
    input ``xp`` (M, C, Hp, Wp): the three steps for ``nr`` rows of tiles (numpy;
    m the variant's output tile)."""
    m, c = xp.shape[:2]
    o = dst.shape[1]
    tile = VARIANTS[ksize][0]
    kin, kout = _mats(xp.dtype, ksize)
    s = xp.strides
    tiles = np.lib.stride_tricks.as_strided(
        xp[:, :, tile * r:], (_A, _A, c, m, nr, tw),
        (s[2], s[3], s[1], s[0], tile * s[2], tile * s[3]), writeable=False)
    t = m * nr * tw
    v = (kin @ tiles.reshape(_A * _A, -1)).reshape(_A * _A, c, t)
    prod = np.empty((_A * _A, t, o), dst.dtype)     # M^T = V^T @ U^T, (36, tiles, O)
    if u.ndim == 4:         # packed: by the GEMM kernel
        blk = u.shape[3]
        gemm_kernel.gemm_rows(v.transpose(0, 2, 1), u, np.arange(c, dtype=np.int64) * blk, o,
                              prod, packed=True)
    else:
        np.matmul(v.transpose(0, 2, 1), u, out=prod)
    y = (kout @ prod.reshape(_A * _A, -1)).reshape(tile, tile, m, nr, tw, o)
    y = y.transpose(2, 5, 3, 0, 4, 1)
    y0, y1 = tile * r, min(tile * (r + nr), ho)
    y = y.reshape(m, o, tile * nr, tile * tw)[:, :, :y1 - y0, :wo]
    if bias is None:
        dst[:, :, y0:y1] = y
    else:
        np.add(y, bias.reshape(o, 1, 1), out=dst[:, :, y0:y1])
