"""The transposed GEMM kernels (IR in kernels/cpu/gemm_kernel.py, ``_ir(...,
trans=True)``): ``out[c, r] = clamp((sum_k A[r, k] * B[k, c] + bias[c]) +
residual[c, r])``, with A's rows read through tables, ``A[r, k] =
x.flat[roff[r] + koff[k]]``, and B packed once in column blocks.

Why transposed: a convolution's output pixels are the rows (A is the input,
read in place: a 1x1 layer's NCHW input as it is, a kxk layer's padded copy
with the window's taps in ``koff``; strides and dilations are only offsets) and
its output channels the columns (B is the filter, packed once at load), so the
vectors run over output channels, which are many, rather than over pixels,
which on 7x7 and 14x14 maps are few and fill blocks badly; the block is then
written as NCHW rows through in-register transposes (8 rows x 16 channels per
step), bias, residual and clamp on the way.  Blocks (``TRANS_SHAPES``): 7 rows
x 48 columns, 7 x 32 or 14 x 16, by the product's columns (``width``).

Batched: several products in one call, problem p's A ``p * x_stride`` floats
on, its packed B shared (a convolution's samples) or its own (a grouped
convolution's groups, with a bias each), its output and residual ``out[p]``:
the core runs every problem's row blocks against each chunk of B's columns
while it is in cache.

Both vector widths (``lanes``): AVX-512's 16 lanes and 32 registers take 7 x
48, 7 x 32 and 14 x 16 blocks; AVX2's 8 lanes and 16 registers 4 x 24, 6 x 16
and 6 x 8 (``gemm_kernel.TRANS_SHAPES``), transposing 4 rows x 8 channels a
step.  What pays differs by width (inference/conv_pack.py ``RULES``).
"""
import numpy as np

from . import gemm_kernel as G

__all__ = ["available", "lanes", "width", "pack", "gemm", "gemm_tables", "one_by_one"]

_RAMPS = {}              # (n, step) -> (int64 arange(n) * step, its address)
_NEG_ZEROS = {}          # columns -> (-0.0s: the bias of none, their address)
_SHAPES = [None, None]   # the compiled kernels' table, {block width: (mr, nr, function)}


def available():
    """Whether the transposed kernels run on this host."""
    if not G.available():
        return False
    table, vw = G._STATE["fn"]
    return ("t",) + G.TRANS_SHAPES[vw][0] in table


def lanes():
    """The vector width (float32 lanes) the kernels were compiled for, or None
    where they do not run."""
    return G._STATE["fn"][1] if available() else None


def _shapes():
    """{block width: (mr, nr, function)} of the compiled kernels (made once per
    compiled table)."""
    fn = G._STATE.get("fn")
    if _SHAPES[0] is not fn or fn is None:
        if not available():
            raise RuntimeError("gemm_transposed: the transposed GEMM kernels are not available "
                               "on this host (check gemm_transposed.available() first)")
        fn = G._STATE["fn"]
        vw = fn[1]
        _SHAPES[:] = [fn, {nr * vw: (mr, nr, fn[0][("t", mr, nr)])
                           for mr, nr in G.TRANS_SHAPES[vw]}]
    return _SHAPES[1]


# the time per computed column of each block shape, by its vectors (nr): the
# 16-wide blocks (14 x 1: a broadcast per FMA) 1.02-1.17x the 48-wide ones
# (7 x 3), the 32-wide (7 x 2) 1.0-1.03x (one core, hot, 49 and 196 rows)
COLUMN_COST = {1: 1.1, 2: 1.015, 3: 1.0}


def width(columns):
    """The block width the kernel takes for a product of ``columns`` columns:
    the one whose blocks cost least (blocks x width x ``COLUMN_COST``).
    (Taking the narrowest block holding them, else the widest, computed 96
    columns for 64 and 288 for 256: measured 0.67-0.96x the time with this
    rule on MobileNet's and ResNet's 1x1 layers of 64, 112, 128, 160, 256 and
    320 channels, the same where the 48-wide blocks fit.)"""
    shapes = _shapes()
    return min(sorted(shapes, reverse=True),
               key=lambda w: -(-columns // w) * w * COLUMN_COST.get(shapes[w][1], 1.0))


def pack(b, columns=None):
    """``b`` (..., K, C) float32 -> its packed form (..., ceil(C / B), K, B) for
    ``B = width(columns or C)`` (``gemm_kernel.pack_columns``)."""
    return G.pack_columns(np.ascontiguousarray(b, np.float32), width(columns or b.shape[-1]))


def _ramp(n, step):
    """(int64 ``arange(n) * step``, its address), made once per (n, step)."""
    got = _RAMPS.get((n, step))
    if got is None:
        if len(_RAMPS) > 256:
            _RAMPS.clear()
        a = np.arange(n, dtype=np.int64) * step
        got = _RAMPS[(n, step)] = (a, a.ctypes.data)
    return got


def gemm(w, xp, out, bias=None, residual=None, clamp=None):
    """``out[c, r] = clamp((sum_k w[r, k] * b[k, c] + bias[c]) + residual[c, r])``
    where ``xp = pack(b)``: ``w`` float32 (R, K) with any non-negative element
    strides (a 1x1 convolution's NCHW input (K, R) transposed, read in place),
    or (N, R, K): N problems sharing b and the bias; ``out`` float32 (C, >= R)
    or (N, C, >= R) with unit stride along r; ``residual`` shaped and strided
    as ``out``; ``bias`` (C,); ``clamp`` ``(lo, hi, tie)`` of
    conv_epilogue.CLAMPS."""
    if w.ndim not in (2, 3) or w.dtype != np.float32 or min(w.strides) < 0 or \
            any(st % 4 for st in w.strides):
        raise ValueError("gemm_transposed: w must be float32 (R, K) or (N, R, K) with "
                         "non-negative strides; got %s %s" % (w.dtype, w.shape))
    r, k = w.shape[-2:]
    st = [s // 4 for s in w.strides]
    return _run(w.ctypes.data, _ramp(r, st[-2]), _ramp(k, st[-1]), xp, out, bias, residual,
                clamp, st[0] if w.ndim == 3 else 0, 0, w.ndim == 3)


def gemm_tables(x, roff, koff, xp, out, bias=None, residual=None, clamp=None, x_stride=0,
                shared=True):
    """The product with ``A[r, k] = x.flat[p * x_stride + roff[r] + koff[k]]`` for
    problem p of ``out`` (P, C, >= R): ``x`` a C-contiguous float32 buffer,
    ``roff`` (R,) and ``koff`` (K,) int64 (every read is checked against x's
    size first); ``xp`` the packed B shared by the problems (``shared``), or
    one per problem (P, blocks, K, B) with the bias (P * C,) then."""
    if x.dtype != np.float32 or not x.flags.c_contiguous or roff.dtype != np.int64 or \
            koff.dtype != np.int64 or roff.ndim != 1 or koff.ndim != 1 or out.ndim != 3:
        raise ValueError("gemm_transposed: x must be contiguous float32, the offset tables "
                         "int64 vectors and out (problems, C, >= R); got x %s, tables %s %s, "
                         "out %s" % (x.dtype, roff.dtype, koff.dtype, out.shape))
    p = out.shape[0]
    if roff.size and koff.size and p and (
            min(int(roff.min()), int(koff.min()), x_stride) < 0 or
            (p - 1) * x_stride + int(roff.max()) + int(koff.max()) >= x.size):
        raise ValueError("gemm_transposed: offsets (rows up to %d, k up to %d, %d problems %d "
                         "apart) pass x's %d elements" % (roff.max(), koff.max(), p, x_stride,
                                                          x.size))
    if not shared and (xp.ndim != 4 or xp.shape[0] != p):
        raise ValueError("gemm_transposed: one packed operand per problem needs (%d, blocks, "
                         "K, width); got %s" % (p, xp.shape))
    return _run(x.ctypes.data, (roff, roff.ctypes.data), (koff, koff.ctypes.data),
                xp if shared else xp[0], out, bias, residual, clamp, x_stride,
                0 if shared else xp[0].size, True)


def _run(xaddr, roff, koff, xp, out, bias, residual, clamp, x_stride, packed_stride, batched):
    """The call: ``roff``/``koff`` are (table, address) pairs."""
    shapes = _shapes()
    blk = xp.shape[-1] if xp.ndim == 3 else -1
    (roff, roff_addr), (koff, koff_addr) = roff, koff
    r, k = roff.size, koff.size
    if xp.dtype != np.float32 or xp.ndim != 3 or not xp.flags.c_contiguous or \
            blk not in shapes or xp.shape[1] != k:
        raise ValueError("gemm_transposed: the packed operand must be float32 (blocks, K=%d, "
                         "width in %s); got %s %s" % (k, sorted(shapes), xp.dtype, xp.shape))
    nb = out.shape[0] if batched else 1
    c = out.shape[-2] if out.ndim == (3 if batched else 2) else -1
    if out.dtype != np.float32 or out.ndim != (3 if batched else 2) or out.strides[-1] != 4 \
            or min(out.strides) < 0 or any(st % 4 for st in out.strides) or \
            out.shape[-1] < r or xp.shape[0] * blk < c:
        raise ValueError("gemm_transposed: out must be float32 (%sC <= %d, >= %d) with unit "
                         "stride along its rows; got %s %s"
                         % ("problems, " if batched else "", xp.shape[0] * blk, r, out.dtype,
                            out.shape))
    if r == 0 or c == 0 or nb == 0:
        return out
    if k == 0:
        raise ValueError("gemm_transposed: K = 0 (nothing to sum) is not supported")
    if residual is not None and (residual.dtype != np.float32 or residual.shape != out.shape
                                 or residual.strides != out.strides):
        raise ValueError("gemm_transposed: the residual must be float32 shaped and strided "
                         "as out %s %s; got %s %s %s" % (out.shape, out.strides, residual.dtype,
                                                         residual.shape, residual.strides))
    per_problem = packed_stride != 0
    if bias is None:       # (the tables and arrays stay referenced here through the call)
        b_arr, bsamp = _neg_zeros(c), 0
        b_addr = b_arr[1]
    else:
        b_arr = np.ascontiguousarray(bias, np.float32)
        want = (nb * c,) if per_problem else (c,)
        if b_arr.shape != want:
            raise ValueError("gemm_transposed: bias must be %s; got %s" % (want, b_arr.shape))
        b_addr, bsamp = b_arr.ctypes.data, c if per_problem else 0
    lo, hi, tie = (-np.inf, np.inf, False) if clamp is None else clamp
    mr, nr, fn = shapes[blk]
    out_addr = out.ctypes.data
    xoff = _ramp(k, blk)
    fn(xaddr, xp.ctypes.data, xoff[1], out_addr, b_addr,
       out_addr if residual is None else residual.ctypes.data, roff_addr, koff_addr,
       k, out.strides[-2] // 4, r, max(1, G._CHUNK_BYTES // (k * blk * 4)), xp[0].size,
       int(residual is not None), float(lo), float(hi), int(bool(tie)), c, nb, x_stride,
       packed_stride, out.strides[0] // 4 if batched else 0, bsamp)
    return out


def one_by_one(xp, c, bias=None, clamp=None):
    """A prepared ``clamp(conv + bias (+ residual[i]))`` of a 1x1 convolution
    for every sample i of x (N, K, L) (NCHW, L pixels, C-contiguous float32)
    by the filter packed as ``xp`` (blocks, K, width) with ``c`` output
    channels: ``gemm`` on ``x[i].T`` with the packed operand, bias and clamp
    checked and the kernel's arguments made here once.  Returns
    ``run(x, residual=None) -> out`` (N, C, L), out new; residual, if given,
    float32 and C-contiguous like out.  ~8-20 us a call less than ``gemm``'s
    path through the fused op (the executor's form of sampan_conv2d_packed,
    kernels/cpu/fused.py)."""
    shapes = _shapes()
    blk = xp.shape[-1] if xp.ndim == 3 else -1
    if xp.dtype != np.float32 or xp.ndim != 3 or not xp.flags.c_contiguous or \
            blk not in shapes or not 0 < c <= xp.shape[0] * blk or xp.shape[1] == 0:
        raise ValueError("gemm_transposed.one_by_one: the packed operand must be float32 "
                         "(blocks, K > 0, width in %s) holding %d columns; got %s %s"
                         % (sorted(shapes), c, xp.dtype, xp.shape))
    k = xp.shape[1]
    if bias is None:
        b_arr = _neg_zeros(c)[0]
    else:
        b_arr = np.ascontiguousarray(bias, np.float32)
        if b_arr.shape != (c,):
            raise ValueError("gemm_transposed.one_by_one: bias must be (%d,); got %s"
                             % (c, b_arr.shape))
    lo, hi, tie = (-np.inf, np.inf, False) if clamp is None else clamp
    fn = shapes[blk][2]
    xoff = _ramp(k, blk)
    # after the tables and out: K, ldc, rows, chunk, block stride; then the residual
    # flag, lo, hi, tie, columns, problems, their X stride, packed stride, out stride, bias
    head = (k, max(1, G._CHUNK_BYTES // (k * blk * 4)), xp[0].size)
    tail = (float(lo), float(hi), int(bool(tie)), c)
    xp_addr, b_addr = xp.ctypes.data, b_arr.ctypes.data

    def run(x, residual=None):
        out = G.samples_out(x, k, c, residual, "gemm_transposed.one_by_one")
        n, _, cols = x.shape
        if n == 0 or cols == 0:
            return out
        op = out.ctypes.data
        # the tables held here through the call (_ramp's cache may drop them)
        roff, koff = _ramp(cols, 1), _ramp(k, cols)
        fn(x.ctypes.data, xp_addr, xoff[1], op, b_addr,
           op if residual is None else residual.ctypes.data, roff[1], koff[1], head[0], cols,
           cols, head[1], head[2], int(residual is not None), *tail, n, k * cols, 0, c * cols, 0)
        return out
    run.keep = (xp, b_arr, xoff)
    return run


def _neg_zeros(c):
    """(``c`` -0.0s, their address): no bias, the identity of IEEE addition."""
    got = _NEG_ZEROS.get(c)
    if got is None:
        if len(_NEG_ZEROS) > 256:
            _NEG_ZEROS.clear()
        a = np.full(c, -0.0, np.float32)
        got = _NEG_ZEROS[c] = (a, a.ctypes.data)
    return got
