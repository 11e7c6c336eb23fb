"""Winograd F(4x4, 3x3) convolution: a 3x3, stride-1, ungrouped convolution in
about a quarter of the multiplications of im2col + GEMM (Lavin & Gray, "Fast
Algorithms for Convolutional Neural Networks", interpolation points 0, +-1,
+-2, infinity).

The output is cut into 4x4 tiles; each reads a 6x6 tile of the padded input.
With B, G, A the transform matrices below::

    V = B^T d B          (every input tile d, every channel)
    U = G g G^T          (every 3x3 filter g: once, when the predictor loads)
    M^T[xi] = V^T[xi] @ U^T[xi]   for each of the 36 positions xi of a 6x6 tile:
                                  (tiles, C) @ (C, O), one batched GEMM
    Y = A^T M A          (4x4 outputs per tile and output channel)

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
56x56 down to 7x7, relu and a residual).  Elsewhere numpy's: one small dense GEMM each (Kronecker products of
the 1-D transforms: 36x36 and 16x36) around a padded copy and a strided tile
copy, then the output's transpose into NCHW and the epilogue's passes.

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

__all__ = ["TILE", "filter_transform", "fast_filter_transform", "pack_filter",
           "winograd_conv3x3", "MIN_CHANNELS_COMPILED", "MIN_SIDE_COMPILED"]

TILE = 4                       # output tile size m of F(m x m, 3 x 3)
_A = TILE + 2                  # input tile size

_AT = np.array([[1, 1, 1, 1, 1, 0],
                [0, 1, -1, 2, -2, 0],
                [0, 1, 1, 4, 4, 0],
                [0, 1, -1, 8, -8, 1]], np.float64)
_G = np.array([[1 / 4, 0, 0],
               [-1 / 6, -1 / 6, -1 / 6],
               [-1 / 6, 1 / 6, -1 / 6],
               [1 / 24, 1 / 12, 1 / 6],
               [1 / 24, -1 / 12, 1 / 6],
               [0, 0, 1]], np.float64)
_BT = np.array([[4, 0, -5, 0, 1, 0],
                [0, -4, -4, 1, 1, 0],
                [0, 4, -4, -1, 1, 0],
                [0, -2, -1, 2, 1, 0],
                [0, 2, -1, -2, 1, 0],
                [0, 4, 0, -5, 0, 1]], np.float64)
_IN = np.kron(_BT, _BT)        # (36, 36): flat 6x6 tile -> its transform
_KRON_G64 = np.kron(_G, _G)    # (36, 9): flat 3x3 filter -> its transform
_OUT = np.kron(_AT, _AT)       # (16, 36): flat transformed product -> 4x4 outputs
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


def filter_transform(w):
    """(O, C, 3, 3) filters -> U^T, (36, C, O) in ``w``'s dtype (computed in float64)."""
    o, c = w.shape[:2]
    u = np.einsum("ik,ockl,jl->ijco", _G, w.astype(np.float64), _G, optimize=True)
    return np.ascontiguousarray(u.reshape(_A * _A, c, o).astype(w.dtype))


def fast_filter_transform(w):
    """``filter_transform`` in ``w``'s dtype by one GEMM, (G kron G) (36, 9) @ w
    (9, C * O): for a filter transformed at every call (a plain conv2d taking
    Winograd, kernels/cpu/conv.py); 512 x 512 filters in a few ms where the
    float64 einsum takes about 90."""
    o, c = w.shape[:2]
    flat = np.ascontiguousarray(w.reshape(o, c, 9).transpose(2, 1, 0)).reshape(9, c * o)
    kron = _KRON_G.get(w.dtype)
    if kron is None:
        kron = _KRON_G[w.dtype] = _KRON_G64.astype(w.dtype)
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


def _mats(dtype):
    m = _CAST.get(dtype)
    if m is None:
        m = _CAST[dtype] = (_IN.astype(dtype), _OUT.astype(dtype))
    return m


def winograd_conv3x3(x, u, pads, out, bias=None, out_channels=-1, residual=None, act=""):
    """The stride-1 3x3 convolution of channel-first ``x`` (N, C, H, W) by the
    filters whose transform is ``u``: U^T (36, C, O), or ``pack_filter``'s form
    of it (36, ceil(O / B), C, B) with ``out_channels`` O; ``pads`` ((top,
    bottom), (left, right)), output sizes ``out`` (Ho, Wo).  Returns
    ``act((conv + bias) + residual)``: ``bias`` (O,) and ``residual`` (N, O, Ho,
    Wo) optional, ``act`` one of conv_epilogue.CLAMPS ("", relu, relu6)."""
    if act not in CLAMPS:
        raise ValueError(f"winograd_conv3x3: act must be one of {sorted(CLAMPS)}, got {act!r} "
                         f"(apply other activations to the result)")
    if u.ndim == 4:
        if not 0 < out_channels <= u.shape[1] * u.shape[3]:
            raise ValueError(f"winograd_conv3x3: a packed filter {list(u.shape)} needs "
                             f"out_channels in 1..{u.shape[1] * u.shape[3]}, got {out_channels}")
        if not _kernel_takes(x, u):                 # packed for another host's kernel
            u = _unpack(u, out_channels)
    o = out_channels if u.ndim == 4 else u.shape[2]
    n, c, h, w = x.shape
    ho, wo = out
    th, tw = -(-ho // TILE), -(-wo // TILE)
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
                                CLAMPS[act], res[i:i + chunk])
        return res
    hp, wp = TILE * th + 2, TILE * tw + 2
    (pt, _), (pl, _) = pads
    rows, cols = min(h, hp - pt), min(w, wp - pl)    # input the tiles read
    for i in range(0, n, chunk):
        xs = x[i:i + chunk]
        xp = np.zeros((xs.shape[0], c, hp, wp), x.dtype)
        xp[:, :, pt:pt + rows, pl:pl + cols] = xs[:, :, :rows, :cols]
        for r in range(0, th, band):                 # a large map: bands of tile rows
            _tiles(xp, u, r, min(band, th - r), tw, bias, res[i:i + chunk], ho, wo)
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


def _compiled_tiles(xs, u, pads, r, nr, tw, bias, residual, clamp, dst):
    """Tile rows [r, r + nr) of the samples ``xs`` into ``dst``: input transform,
    the 36 products (the GEMM kernel for a packed filter, else BLAS), output
    transform with the epilogue."""
    m, c = xs.shape[:2]
    o = dst.shape[1]
    t = m * nr * tw
    vt = winograd_kernel.input_transform(xs, scratch("winograd_vt", (_A * _A, t, c), np.float32),
                                         (pads[0][0], pads[1][0]), r, nr, tw)
    prod = scratch("winograd_mt", (_A * _A, t, o), np.float32)
    if u.ndim == 4:
        gemm_kernel.gemm_rows(vt, u, np.arange(c, dtype=np.int64) * u.shape[3], o, prod,
                              packed=True)
    else:
        np.matmul(vt, u, out=prod)
    winograd_kernel.output_transform(prod, dst, bias, residual, clamp, r, nr, tw)


def _tiles(xp, u, r, nr, tw, bias, dst, ho, wo):
    """Output rows [4r, 4(r + nr)) of ``dst`` (M, O, Ho, Wo) from the padded
    input ``xp`` (M, C, Hp, Wp): the three steps for ``nr`` rows of tiles (numpy)."""
    m, c = xp.shape[:2]
    o = dst.shape[1]
    kin, kout = _mats(xp.dtype)
    s = xp.strides
    tiles = np.lib.stride_tricks.as_strided(
        xp[:, :, TILE * r:], (_A, _A, c, m, nr, tw),
        (s[2], s[3], s[1], s[0], TILE * s[2], TILE * s[3]), writeable=False)
    t = m * nr * tw
    v = (kin @ tiles.reshape(_A * _A, -1)).reshape(_A * _A, c, t)
    prod = np.empty((_A * _A, t, o), dst.dtype)     # M^T = V^T @ U^T, (36, tiles, O)
    if u.ndim == 4:         # packed: by the GEMM kernel
        blk = u.shape[3]
        gemm_kernel.gemm_rows(v.transpose(0, 2, 1), u, np.arange(c, dtype=np.int64) * blk, o,
                              prod, packed=True)
    else:
        np.matmul(v.transpose(0, 2, 1), u, out=prod)
    y = (kout @ prod.reshape(_A * _A, -1)).reshape(TILE, TILE, m, nr, tw, o)
    y = y.transpose(2, 5, 3, 0, 4, 1)
    y0, y1 = TILE * r, min(TILE * (r + nr), ho)
    y = y.reshape(m, o, TILE * nr, TILE * tw)[:, :, :y1 - y0, :wo]
    if bias is None:
        dst[:, :, y0:y1] = y
    else:
        np.add(y, bias.reshape(o, 1, 1), out=dst[:, :, y0:y1])
