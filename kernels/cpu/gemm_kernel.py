"""A register-blocked float32 GEMM whose operand rows are found through an
offset table: ``out[o, l] (+)= sum_k W[o, k] * x[xoff[k] + l]``.

Why: a convolution's im2col block is rows of one padded input read at shifted
offsets (kernels/cpu/conv.py, ``flat_windows``), so with the offsets as a table
the block is never written; and OpenBLAS runs the convolutions of small CNNs
(16-64 output channels, K = 27-576) at 40-70 GFLOP/s on one core where this
kernel runs near the core's FMA peak (~100): it keeps an MR x (NR * VW) block
of the output in vector registers across the whole K loop (``SHAPES``),
broadcasting W from its MR rows as they are (no packed copy, any element
strides: a transposed W is read in place; a last partial block reads the last
row again and stores nothing for it) and reading each row of x straight from
the input.

Two more layouts for other callers: a ``packed`` x (a constant operand laid
out once in column blocks of the tile's width, each block's K rows contiguous,
``pack_columns``), read as one sequential stream per column block, where x's
rows are long and its columns few per use (Winograd's transformed filters,
kernels/cpu/winograd.py); and a batch of problems sharing one offset table in
one call (Winograd's 36 products, the groups of a grouped convolution).

The kernel is LLVM IR written here and compiled once per process (~0.2 s) by
llvmlite for the host CPU (kernels/cpu/llvm_jit.py): 16-lane vectors where
AVX-512 is present, else 8 (AVX2 + FMA); elsewhere,
without llvmlite, or with ``SAMPAN_NUMBA=0`` or ``SAMPAN_GEMM_KERNEL=0``,
``available()`` is False and callers keep their BLAS path.  Loops: chunks of
column blocks (as many as keep their x rows in L2, ``_CHUNK_BYTES``), row
blocks of MR, the chunk's column blocks of NR vectors, K innermost; the last
partial column block uses masked loads and stores, so no read or write passes
``nl`` columns or ``O`` rows.  Sums are FMAs in k order (rounding as a BLAS
kernel's, not numpy's pairwise sums).
"""
import os

import numpy as np

from . import llvm_jit

__all__ = ["available", "gemm_rows", "block_width", "pack_columns"]

# rows of W x vectors of columns held in registers: 8 x 2, or 4 x 4 for at most
# 4 rows (ResNeXt's groups of 4 output channels: 8 x 2 would compute 8); a
# packed operand's blocks are 2 vectors wide, so its products of at most 4 rows
# take 4 x 2 (a fully connected layer at batch 1 to 4: 8 x 2 computed 8 rows;
# 1 x 2 ran 1.5x slower than 4 x 2 at batch 1, its two FMA chains too few)
SHAPES = ((8, 2), (4, 4), (4, 2))
_CHUNK_BYTES = 256 << 10    # operand columns per chunk (every row block reads them)
_STATE = {}


def _declarations(vw, opaque):
    v = "<%d x float>" % vw
    mask_t = "<%d x i1>" % vw
    sfx = "p0" if opaque else "p0v%df32" % vw
    return "\n".join([
        "declare %s @llvm.fma.v%df32(%s, %s, %s)" % (v, vw, v, v, v),
        "declare %s @llvm.masked.load.v%df32.%s(%s*, i32, %s, %s)" % (v, vw, sfx, v, mask_t, v),
        "declare void @llvm.masked.store.v%df32.%s(%s, %s*, i32, %s)" % (vw, sfx, v, v, mask_t)])


def _ir(vw, opaque, mr, nr):
    """The IR text of kernel ``gemm_rows_<mr>x<nr>`` (an mr x nr * vw block in
    registers) for ``vw``-lane vectors (``opaque``: LLVM >= 15 intrinsic names for
    pointers).  Loops: chunks of ``cb`` column blocks (lc), row blocks (ob), the
    chunk's column blocks (lb), K."""
    v = "<%d x float>" % vw
    mask_t = "<%d x i1>" % vw
    sfx = "p0" if opaque else "p0v%df32" % vw
    blk = nr * vw
    out = [
        "define internal void @core_%dx%d(float* noalias %%W," % (mr, nr) +
        " float* noalias %X, i64* noalias %xoff,"
        " float* noalias %C, i64 %K, i64 %ldc, i64 %nrows, i64 %nl, i64 %acc_in, i64 %cb,"
        " i64 %ldw, i64 %kstr, i64 %cbs) {",
        "entry:",
        "  %nob0 = add i64 %nrows, " + str(mr - 1),
        "  %nob = udiv i64 %nob0, " + str(mr),
        "  %lastrow = sub i64 %nrows, 1",
        "  %nfull = udiv i64 %nl, " + str(blk),
        "  %rem = urem i64 %nl, " + str(blk),
        "  %hasrem = icmp ne i64 %rem, 0",
        "  %extra = zext i1 %hasrem to i64",
        "  %cnt = add i64 %nfull, %extra",
        "  %acc = icmp ne i64 %acc_in, 0",
        "  br label %lc_head",
        "lc_head:",
        "  %lc0 = phi i64 [0, %entry], [%lc1, %ob_done]",
        "  %lce = add i64 %lc0, %cb",
        "  %lcin = icmp ult i64 %lce, %cnt",
        "  %lc1 = select i1 %lcin, i64 %lce, i64 %cnt",
        "  br label %ob_head",
        "ob_head:",
        "  %ob = phi i64 [0, %lc_head], [%ob.next, %lb_done]",
        "  %orow = mul i64 %ob, " + str(mr),
    ]
    for i in range(mr):        # the row block's rows: past the last, read the last, store nothing
        out += ["  %%ro%d = add i64 %%orow, %d" % (i, i),
                "  %%rs%d = mul i64 %%ro%d, %%ldc" % (i, i),
                "  %%rv%d = icmp ult i64 %%ro%d, %%nrows" % (i, i),
                "  %%rr%d = select i1 %%rv%d, i64 %%ro%d, i64 %%lastrow" % (i, i, i),
                "  %%rw%d = mul i64 %%rr%d, %%ldw" % (i, i),
                "  %%wrow%d = getelementptr float, float* %%W, i64 %%rw%d" % (i, i),
                "  %%rvs%d = insertelement %s undef, i1 %%rv%d, i32 0" % (i, mask_t, i),
                "  %%rvv%d = shufflevector %s %%rvs%d, %s undef, <%d x i32> zeroinitializer"
                % (i, mask_t, i, mask_t, vw)]
    out += [
        "  br label %lb_head",
        "lb_head:",
        "  %lb = phi i64 [%lc0, %ob_head], [%lb.next, %k_done]",
        "  %tail = icmp eq i64 %lb, %nfull",
        "  %l = mul i64 %lb, " + str(blk),
        "  %lx = mul i64 %lb, %cbs",
        "  %left = select i1 %tail, i64 %rem, i64 " + str(blk),
        "  %%lefts = insertelement <%d x i64> undef, i64 %%left, i32 0" % vw,
        "  %%leftv = shufflevector <%d x i64> %%lefts, <%d x i64> undef, <%d x i32> zeroinitializer"
        % (vw, vw, vw),
    ]
    for j in range(nr):
        lane_ids = ", ".join("i64 %d" % (j * vw + t) for t in range(vw))
        out.append("  %%m%d = icmp ult <%d x i64> <%s>, %%leftv" % (j, vw, lane_ids))
    for i in range(mr):        # this block's output addresses and masks
        out.append("  %%co%d = add i64 %%rs%d, %%l" % (i, i))
        for j in range(nr):
            c = "%d_%d" % (i, j)
            out += ["  %%mm%s = and %s %%m%d, %%rvv%d" % (c, mask_t, j, i),
                    "  %%ci%s = add i64 %%co%d, %d" % (c, i, j * vw),
                    "  %%cf%s = getelementptr float, float* %%C, i64 %%ci%s" % (c, c),
                    "  %%cp%s = bitcast float* %%cf%s to %s*" % (c, c, v)]
    out += ["  br i1 %acc, label %load_c, label %k_pre", "load_c:"]
    for i in range(mr):
        for j in range(nr):
            c = "%d_%d" % (i, j)
            out.append("  %%c0%s = call %s @llvm.masked.load.v%df32.%s(%s* %%cp%s, i32 4, "
                       "%s %%mm%s, %s zeroinitializer)" % (c, v, vw, sfx, v, c, mask_t, c, v))
    out += ["  br label %k_pre", "k_pre:"]
    for i in range(mr):
        for j in range(nr):
            c = "%d_%d" % (i, j)
            out.append("  %%s%s = phi %s [zeroinitializer, %%lb_head], [%%c0%s, %%load_c]"
                       % (c, v, c))
    out += ["  br label %k_loop", "k_loop:",
            "  %k = phi i64 [0, %k_pre], [%k.next, %k_loop]"]
    for i in range(mr):
        for j in range(nr):
            c = "%d_%d" % (i, j)
            out.append("  %%a%s = phi %s [%%s%s, %%k_pre], [%%n%s, %%k_loop]" % (c, v, c, c))
    out += ["  %wk = mul i64 %k, %kstr",
            "  %offp = getelementptr i64, i64* %xoff, i64 %k",
            "  %off = load i64, i64* %offp",
            "  %xo = add i64 %off, %lx",
            "  %xp = getelementptr float, float* %X, i64 %xo"]
    for j in range(nr):
        out += ["  %%xf%d = getelementptr float, float* %%xp, i64 %d" % (j, j * vw),
                "  %%xv%d = bitcast float* %%xf%d to %s*" % (j, j, v),
                "  %%x%d = call %s @llvm.masked.load.v%df32.%s(%s* %%xv%d, i32 4, %s %%m%d,"
                " %s zeroinitializer)" % (j, v, vw, sfx, v, j, mask_t, j, v)]
    for i in range(mr):
        out += ["  %%wp%d = getelementptr float, float* %%wrow%d, i64 %%wk" % (i, i),
                "  %%w%d = load float, float* %%wp%d" % (i, i),
                "  %%we%d = insertelement %s undef, float %%w%d, i32 0" % (i, v, i),
                "  %%ws%d = shufflevector %s %%we%d, %s undef, <%d x i32> zeroinitializer"
                % (i, v, i, v, vw)]
        for j in range(nr):
            c = "%d_%d" % (i, j)
            out.append("  %%n%s = call %s @llvm.fma.v%df32(%s %%ws%d, %s %%x%d, %s %%a%s)"
                       % (c, v, vw, v, i, v, j, v, c))
    out += ["  %k.next = add i64 %k, 1",
            "  %kc = icmp ult i64 %k.next, %K",
            "  br i1 %kc, label %k_loop, label %k_done",
            "k_done:"]
    for i in range(mr):
        for j in range(nr):
            c = "%d_%d" % (i, j)
            out.append("  call void @llvm.masked.store.v%df32.%s(%s %%n%s, %s* %%cp%s, i32 4, "
                       "%s %%mm%s)" % (vw, sfx, v, c, v, c, mask_t, c))
    out += ["  %lb.next = add i64 %lb, 1",
            "  %lbc = icmp ult i64 %lb.next, %lc1",
            "  br i1 %lbc, label %lb_head, label %lb_done",
            "lb_done:",
            "  %ob.next = add i64 %ob, 1",
            "  %oc = icmp ult i64 %ob.next, %nob",
            "  br i1 %oc, label %ob_head, label %ob_done",
            "ob_done:",
            "  %more = icmp ult i64 %lc1, %cnt",
            "  br i1 %more, label %lc_head, label %exit",
            "exit:",
            "  ret void",
            "}"]
    return "\n".join(out + _batch_ir(mr, nr))


def _batch_ir(mr, nr):
    """``gemm_rows_<mr>x<nr>``: the core over ``nb`` problems whose W, X and C
    start ``wbs``, ``xbs`` and ``obs`` floats apart (one offset table)."""
    args = ["float* %W", "float* %X", "i64* %xoff", "float* %C"] + \
        ["i64 %%%s" % a for a in ("K", "ldc", "nrows", "nl", "acc", "cb", "ldw", "kstr", "cbs",
                                  "nb", "wbs", "xbs", "obs")]
    return [
        "define void @gemm_rows_%dx%d(%s) {" % (mr, nr, ", ".join(args)),
        "entry:",
        "  br label %head",
        "head:",
        "  %b = phi i64 [0, %entry], [%b.next, %head]",
        "  %wo = mul i64 %b, %wbs",
        "  %xo = mul i64 %b, %xbs",
        "  %co = mul i64 %b, %obs",
        "  %wb = getelementptr float, float* %W, i64 %wo",
        "  %xb = getelementptr float, float* %X, i64 %xo",
        "  %cb_ = getelementptr float, float* %C, i64 %co",
        "  call void @core_%dx%d(float* %%wb, float* %%xb, i64* %%xoff, float* %%cb_, i64 %%K, "
        "i64 %%ldc, i64 %%nrows, i64 %%nl, i64 %%acc, i64 %%cb, i64 %%ldw, i64 %%kstr, "
        "i64 %%cbs)" % (mr, nr),
        "  %b.next = add i64 %b, 1",
        "  %more = icmp ult i64 %b.next, %nb",
        "  br i1 %more, label %head, label %exit",
        "exit:",
        "  ret void",
        "}"]


def _compile(lanes=None):
    """({(mr, nr): ctypes function}, vector lanes) for this host, or None
    (``lanes``: 8 or 16 instead of the widest the host has, for tests)."""
    if os.environ.get("SAMPAN_GEMM_KERNEL", "1") == "0":
        return None
    vw = llvm_jit.vector_lanes(lanes)
    if vw is None:
        return None
    try:
        import llvmlite.binding as llvm
        opaque = llvm.llvm_version_info[0] >= 15
        proto = llvm_jit.c_types(*"pppp" + "i" * 13)
        fns = llvm_jit.compile_ir(
            "\n".join([_declarations(vw, opaque)] + [_ir(vw, opaque, mr, nr) for mr, nr in SHAPES]),
            {"gemm_rows_%dx%d" % shape: proto for shape in SHAPES})
    except Exception:           # an llvmlite that cannot build this IR
        return None
    return {shape: fns["gemm_rows_%dx%d" % shape] for shape in SHAPES}, vw


def available():
    """The kernel compiled for this host (once per process)."""
    if "fn" not in _STATE:
        _STATE["fn"] = _compile()
    return _STATE["fn"] is not None


def block_width():
    """Columns of one block of a packed operand (``gemm_rows(..., packed=True)``):
    the NR vectors of the 8-row tile (32 with AVX-512, 16 with AVX2)."""
    if not available():
        raise RuntimeError("gemm_rows: the GEMM kernel is not available on this host "
                           "(check gemm_kernel.available() first)")
    return SHAPES[0][1] * _STATE["fn"][1]


def gemm_rows(w, x, xoff, nl, out, accumulate=False, chunk=None, packed=False):
    """``out[:O, :nl] (+)= w @ rows``, row k of the operand being ``x.flat[xoff[k]:
    xoff[k] + nl]``.  ``w``: float32 (O, K), any non-negative element strides;
    ``x``: a C-contiguous float32 array; ``xoff``: int64 offsets (K,); ``out``:
    float32 (>= O, >= nl), unit column stride.  Nothing outside ``out[:O, :nl]``
    is written.  Every offset is checked against ``x``'s size first: the kernel
    reads raw memory.

    ``packed``: ``x`` is (nblocks, R, B) with ``B = block_width()``, columns in
    blocks of B: column j of row k is ``x[j // B].flat[xoff[k] + j % B]``, so a
    column block's K rows are one contiguous run when ``xoff[k] = k * B`` (the
    layout of a constant operand packed once: ``pack_columns``).

    Batched: ``w`` (N, O, K), ``x`` (N, ...) and ``out`` (N, >= O, >= nl) are N
    problems sharing the offsets (one call into the kernel)."""
    if not available():
        raise RuntimeError("gemm_rows: the GEMM kernel is not available on this host "
                           "(check gemm_kernel.available() first)")
    fns, vw = _STATE["fn"]
    batched = w.ndim == 3
    if w.ndim not in (2, 3) or w.dtype != np.float32 or min(w.strides) < 0 or \
            any(st % 4 for st in w.strides) or x.dtype != np.float32 \
            or not x.flags.c_contiguous or xoff.dtype != np.int64 or \
            xoff.shape != (w.shape[-1],) or not xoff.flags.c_contiguous:
        raise ValueError("gemm_rows: operands must be float32 (w: 2-D or batched 3-D with "
                         "non-negative strides, x: contiguous) and int64 offsets of length "
                         "K=%d; got w %s %s, x %s, offsets %s %s"
                         % (w.shape[-1], w.dtype, w.shape, x.dtype, xoff.dtype, xoff.shape))
    o, k = w.shape[-2:]
    nb = w.shape[0] if batched else 1
    if out.dtype != np.float32 or out.ndim != w.ndim or out.strides[-1] != 4 or \
            out.shape[-2] < o or out.shape[-1] < nl or min(out.strides) < 0 or \
            any(st % 4 for st in out.strides) or (batched and out.shape[0] != nb):
        raise ValueError("gemm_rows: out must be float32 (%s>= %d, >= %d) with unit column "
                         "stride; got %s %s" % ("%d, " % nb if batched else "", o, nl,
                                                 out.dtype, out.shape))
    if batched and (x.ndim < 1 or x.shape[0] != nb):
        raise ValueError("gemm_rows: a batch of %d products needs x (%d, ...), got x %s"
                         % (nb, nb, x.shape))
    xs = x[0] if batched else x          # one problem's operand
    blk = SHAPES[0][1] * vw
    if packed and (xs.ndim != 3 or xs.shape[2] != blk or xs.shape[0] * blk < nl):
        raise ValueError("gemm_rows: a packed operand is (blocks, rows, %d) covering %d "
                         "columns; got %s" % (blk, nl, xs.shape))
    if nl <= 0 or o == 0 or nb == 0:
        return out
    if k == 0:
        if not accumulate:
            out[..., :o, :nl] = 0
        return out
    span, limit = (blk, xs[0].size) if packed else (nl, xs.size)
    if int(xoff.min()) < 0 or int(xoff.max()) + span > limit:
        raise ValueError("gemm_rows: row offsets %d..%d with %d columns pass the operand's "
                         "%d elements" % (xoff.min(), xoff.max(), span, limit))
    if packed:
        mr, nr = (4, 2) if o <= 4 else SHAPES[0]
    else:
        mr, nr = SHAPES[1] if o <= SHAPES[1][0] else SHAPES[0]
    if chunk is None:           # column blocks whose operand rows stay in L2 for every row block
        chunk = max(1, _CHUNK_BYTES // (k * nr * vw * 4))
    ws, os_ = w.strides[-2:], out.strides
    fns[mr, nr](w.ctypes.data, x.ctypes.data, xoff.ctypes.data, out.ctypes.data, k,
                os_[-2] // 4, o, nl, int(bool(accumulate)), int(chunk), ws[0] // 4, ws[1] // 4,
                xs[0].size if packed else nr * vw, nb, w.strides[0] // 4 if batched else 0,
                xs.size, os_[0] // 4 if batched else 0)
    return out


def pack_columns(a):
    """``a`` (..., K, C) float32 -> (..., ceil(C / B), K, B), ``B = block_width()``:
    the columns in blocks of B, zero-padded, each block's K rows contiguous (the
    ``packed`` operand of ``gemm_rows`` with offsets ``k * B``)."""
    blk = block_width()
    *lead, k, c = a.shape
    nblk = -(-c // blk)
    res = np.zeros(tuple(lead) + (nblk, k, blk), np.float32)
    for b in range(nblk):
        part = a[..., b * blk:(b + 1) * blk]
        res[..., b, :, :part.shape[-1]] = part
    return res
