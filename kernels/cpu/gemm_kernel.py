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

Where the output goes: by default a block of columns [0, nl); ``gemm_segments``
instead takes segments (a start column in x and one in the output for each,
all ``seglen`` long) and puts every output row where it belongs, so a
convolution's rows go straight into NCHW (kernels/cpu/conv_implicit.py).
Either form can apply an epilogue as it stores each block: ``(sum + bias) +
residual``, then nothing, relu (one compare) or a general clamp (lo, hi, tie
of conv_epilogue.CLAMPS: max, add, min); full blocks use plain stores,
edge blocks masked ones (the transposed kernels too: a block whose rows all
lie inside stores each output row plainly, with AVX2 on Zen 3 grouped 3x3
layers on 14x14 maps at batch 16 0.67-0.76x the time of masked stores and
the old clamp of seven instructions, 7x7 0.89x, batch 1 0.81-0.83x).  (As a
replacement for BLAS + a separate epilogue pass on 1x1 layers it
was measured and not adopted: MobileNetV2's K <= 64 layers at batch 16 ran
1.2x slower in the model.)

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

Where there are several row blocks (``PACK_MIN_ROW_BLOCKS``), the caller
passes a scratch P (``_pack_scratch``, a chunk's column blocks, 256 KB or so):
the first row block of each chunk reads X's rows through the table as above
and also stores each vector in P, the others read P as one sequential stream
(as a BLAS packs its operand, but without a pass of its own), and the second
row block prefetches the next chunk's rows into L2 meanwhile (the first row
block's reads were the slow part: K rows of a few cache lines each, more
streams than the hardware prefetchers follow).  Same bits as without P.
Measured on one core, 1x1 layers at batch 16 (rows_product, in-process):
56x56 maps 0.79-0.94x the time of reading X's rows in every row block, 28x28
0.82-0.95x, 14x14 0.92-0.97x; the models 0.97-0.99x at batch 1 and 16
(ResNeXt-50 0.972 and 0.985, ResNet-50 0.987 and 0.987, MobileNetV1 b16 0.981)
and 0.99-1.01x elsewhere.

``rows_product`` on an input of at least ``STREAM_MIN_BYTES`` (streamed from
memory: what the layer before wrote no longer in cache) takes chunks of an
eighth of the core's L2 (``stream_chunk_bytes``): P and the next chunk
prefetched beside it then fill a quarter of L2, where 256 KB chunks filled all
of Zen 3's 512 KB and evicted each other and the output's lines.  On Zen 3 (one
core, interleaved in one process) 1x1 layers at batch 16: 24 -> 58 and 64 ->
128 on 56x56 maps 0.81-0.85x the time, 32 -> 64 on 112x112 0.83-0.87x, 24 ->
144 on 56x56 0.85-0.89x, 128 -> 256 on 28x28 0.91-0.96x, 16 -> 96 on 112x112
0.94-0.99x; smaller inputs were even or slower with the small chunks (28x28 maps
of 24-32 channels at batch 16 1.01-1.03x, 64 -> 256 on 56x56 at batch 1
1.01-1.04x), and so were the offset-table callers (conv_implicit's 3x3 layers:
ResNeXt-50 b16 1.028x), which keep ``_CHUNK_BYTES``.  An eighth of a 2 MB L2
is that 256 KB.

The same generator writes the transposed kernels (``_ir(..., trans=True)``,
``TRANS_SHAPES``): rows read through offset tables, a packed
operand, the block written transposed (NCHW) through in-register transposes;
their Python side is kernels/cpu/gemm_transposed.py.
"""
import os

import numpy as np

from . import llvm_jit

__all__ = ["available", "lanes", "packed_pays", "gemm_rows", "gemm_segments", "block_width",
           "pack_columns", "packed_product", "rows_product"]

# rows of W x vectors of columns held in registers, by vector width (lanes):
# (main, small rows, packed small rows).  16 lanes (32 registers): 8 x 2, or
# 4 x 4 for at most 4 rows (ResNeXt's groups of 4 output channels: 8 x 2 would
# compute 8); a packed operand's blocks are 2 vectors wide, so its products of
# at most 4 rows take 4 x 2 (a fully connected layer at batch 1 to 4: 8 x 2
# computed 8 rows; 1 x 2 ran 1.5x slower than 4 x 2 at batch 1, its two FMA
# chains too few).  8 lanes (AVX2: 16 registers): 8 x 2's 16 sums spilled and
# were shuffled between registers every K step (Zen 3, one core: 29-49 GFLOP/s
# against OpenBLAS's 66-74); 6 x 2 and 4 x 3 (12 sums, nothing spilled) run at
# 60-84; 4 x 3 also takes products whose rows 6 x 2 would round up more (8,
# 16, 32: a grouped convolution's output channels per group), ``_tile``.
SHAPES = {16: ((8, 2), (4, 4), (4, 2)), 8: ((6, 2), (4, 3), (4, 2))}
# the transposed-output kernels' blocks (kernels/cpu/gemm_transposed.py), by
# vector width.  16 lanes: 7 rows x 3 vectors for products of more than 32
# columns, 7 x 2 for up to 32, 14 x 1 for up to 16 (a grouped convolution's
# output channels per group).  The sums, operand vectors and LLVM's two
# broadcast registers must fit the 32 vector registers: 7 x 4 (28 sums) spilled
# a sum every K step and ran at 60-108 GFLOP/s from run to run, so the tail
# also finds its values again after the loop rather than keeping them through
# it.  8 lanes (16 registers): 12 sums at most, 4 x 3 and 6 x 2; for 8 columns
# 6 x 1 (12 x 1 needed 12 row pointers and spilled them every K step: ResNeXt's
# 28x28 grouped layers 1.22x conv_implicit's time, 6 x 1 0.69-0.81x; 4 x 1 0.91x)
TRANS_SHAPES = {16: ((7, 3), (7, 2), (14, 1)), 8: ((4, 3), (6, 2), (6, 1))}
# their C arguments (llvm_jit.c_types letters): W, X, xoff, C, bias, residual,
# row offsets, k offsets; K, ldc, rows, chunk, X's block stride, has residual;
# lo, hi; tie, columns, problems and their W, X, C and bias strides
TRANS_ARGS = "pppppppp" + "iiiiii" + "ff" + "iiiiiii"
_CHUNK_BYTES = 256 << 10    # operand columns per chunk (every row block reads them)
STREAM_MIN_BYTES = 4 << 20  # rows_product's inputs taking stream_chunk_bytes()
PACK_MIN_ROW_BLOCKS = 2
# the vector widths where a packed operand's product beats BLAS: with AVX-512
# Winograd's 36 products 1.0-2.8x faster, fully connected layers 1.1-2x
# (inference/winograd.py, fc_pack.py).  With AVX2 (Zen 3, one core; since the
# plain loads of full blocks, _k_loop) fully connected layers of 2 to 128 rows
# took 0.59-1.09x BLAS's time with the bias and relu (2 x 4096 x 4096 0.59x,
# 64 x 256 x 256 0.92-0.995x, 64 x 2048 x 1000 1.03-1.09x) and one row 1.44-1.7x
# (BLAS's matrix-vector product streams the weight faster), and W5's predictor
# at batch 64 (benchmarks/run.py) ran 1.09-1.13x the floor packed against
# 0.99-1.03x on BLAS; Winograd's products with 256-512 channels 0.64-0.90x at
# batch 1 but 1.03-1.22x at batch 4 and 16 (128-256 channels on 14x14 and
# 28x28 maps); so with AVX2 both keep BLAS
PACKED_LANES = {16}
_STATE = {}


def _declarations(vw, opaque):
    v = "<%d x float>" % vw
    lines = ["declare %s @llvm.fma.v%df32(%s, %s, %s)" % (v, vw, v, v, v),
             "declare void @llvm.prefetch.%s(i8*, i32, i32, i32)" % ("p0" if opaque else "p0i8")]
    for n in (vw, vw // 2):     # full vectors, and the transposed kernel's halves
        v, mask_t = "<%d x float>" % n, "<%d x i1>" % n
        sfx = "p0" if opaque else "p0v%df32" % n
        lines += ["declare %s @llvm.masked.load.v%df32.%s(%s*, i32, %s, %s)"
                  % (v, n, sfx, v, mask_t, v),
                  "declare void @llvm.masked.store.v%df32.%s(%s, %s*, i32, %s)"
                  % (n, sfx, v, v, mask_t)]
    return "\n".join(lines)


def _ir(vw, opaque, mr, nr, trans=False):
    """The IR text of kernel ``gemm_rows_<mr>x<nr>`` (an mr x nr * vw block in
    registers) for ``vw``-lane vectors (``opaque``: LLVM >= 15 intrinsic names for
    pointers).  Loops: chunks of ``cb`` column blocks (lc), row blocks (ob), the
    chunk's column blocks (lb), K.  Column blocks are numbered over the segments
    (``nseg`` of ``seglen`` columns, ``bps`` blocks each): block lb is block
    ``lb % bps`` of segment ``lb / bps``, read from x column ``xcol[seg]`` and
    stored at output column ``coff[seg]`` (one segment at 0, 0: plain columns).
    The stores: plain for full blocks, masked at edges; with ``epi`` the bias,
    a residual and a clamp (none, relu, or general: ``kind`` 0, 1, 2) first.
    With a scratch ``P`` (not null) the K loop is ``_k_loop``'s mode 1 in the
    first row block of each chunk, 3 in the second, 2 in the rest; else 0.

    ``trans`` (kernel ``gemm_rows_t<mr>x<nr>``, for ``gemm_transposed``: a
    packed X, one segment at 0, 0, no accumulation): the block goes to the
    transposed output, element (row r, column c) at ``C[c * ldc + r]``, the
    bias one value per column (``_trans_tail``), and the row blocks run over
    ``nsamp`` problems (W and C ``wsamp`` and ``osamp`` floats apart) inside
    each chunk of X's columns."""
    v = "<%d x float>" % vw
    name = ("t%dx%d" if trans else "%dx%d") % (mr, nr)
    mask_t = "<%d x i1>" % vw
    sfx = "p0" if opaque else "p0v%df32" % vw
    blk = nr * vw
    out = [
        "define internal void @core_%s(float* noalias %%W," % name +
        " float* noalias %X, i64* noalias %xoff,"
        " float* noalias %C, i64 %K, i64 %ldc, i64 %nrows, i64 %nseg, i64 %acc_in, i64 %cb,"
        " i64 %ldw, i64 %kstr, i64 %cbs, i64 %epi_in, float* noalias %B, float* noalias %R,"
        " i64 %hasr, float %lo, float %hi, i64 %tie, i64 %kind, i64* noalias %xcol,"
        " i64* noalias %coff, i64 %seglen, i64 %nsamp, i64 %wsamp, i64 %osamp, i64 %xsamp,"
        " i64 %bsamp, i64* noalias %roff, i64* noalias %koff, float* noalias %P) {",
        "entry:",
        "  %pk = icmp ne float* %P, null",
        "  %epi = icmp ne i64 %epi_in, 0",
        "  %bcol = icmp eq i64 %epi_in, 2",     # the bias one value per column (an FC layer)
        "  %hasrb = icmp ne i64 %hasr, 0",
        "  %tieb = icmp ne i64 %tie, 0",
        "  %tiez = select i1 %tieb, float 0.0, float -0.0"] + _splats(vw, [
            ("%lov", "float", "%lo"), ("%hiv", "float", "%hi"), ("%tiev", "float", "%tiez")]) + [
        "  %nob0 = add i64 %nrows, " + str(mr - 1),
        "  %nob = udiv i64 %nob0, " + str(mr),
        "  %nobt = mul i64 %nob, %nsamp",
        "  %lastrow = sub i64 %nrows, 1",
        "  %nfull = udiv i64 %seglen, " + str(blk),
        "  %rem = urem i64 %seglen, " + str(blk),
        "  %hasrem = icmp ne i64 %rem, 0",
        "  %extra = zext i1 %hasrem to i64",
        "  %bps = add i64 %nfull, %extra",
        "  %cnt = mul i64 %bps, %nseg",
        "  %acc = icmp ne i64 %acc_in, 0",
        "  br label %lc_head",
        "lc_head:",
        "  %lc0 = phi i64 [0, %entry], [%lc1, %ob_done]",
        "  %lce = add i64 %lc0, %cb",
        "  %lcin = icmp ult i64 %lce, %cnt",
        "  %lc1 = select i1 %lcin, i64 %lce, i64 %cnt",
        "  br label %ob_head",
        "ob_head:",
    ] + ([      # the transposed kernel's row blocks run over its samples too
        "  %obt = phi i64 [0, %lc_head], [%ob.next, %lb_done]",
        "  %samp = udiv i64 %obt, %nob",
        "  %ob = urem i64 %obt, %nob",
        "  %sw = mul i64 %samp, %wsamp",
        "  %Ws = getelementptr float, float* %W, i64 %sw"] if trans else [
        "  %ob = phi i64 [0, %lc_head], [%ob.next, %lb_done]"]) + [
        "  %orow = mul i64 %ob, " + str(mr),
    ]
    for i in range(mr):        # the row block's rows: past the last, read the last, store nothing
        out += ["  %%ro%d = add i64 %%orow, %d" % (i, i),
                "  %%rs%d = mul i64 %%ro%d, %%ldc" % (i, i),
                "  %%rv%d = icmp ult i64 %%ro%d, %%nrows" % (i, i),
                "  %%rr%d = select i1 %%rv%d, i64 %%ro%d, i64 %%lastrow" % (i, i, i),
                ("  %%rwp%d = getelementptr i64, i64* %%roff, i64 %%rr%d\n"
                 "  %%rw%d = load i64, i64* %%rwp%d" % (i, i, i, i)) if trans else
                ("  %%rw%d = mul i64 %%rr%d, %%ldw" % (i, i)),
                "  %%wrow%d = getelementptr float, float* %%W%s, i64 %%rw%d"
                % (i, "s" if trans else "", i)]
        if not trans:   # the row's bias
            out += ["  %%bi%d = select i1 %%bcol, i64 0, i64 %%rr%d" % (i, i),
                    "  %%bp%d = getelementptr float, float* %%B, i64 %%bi%d" % (i, i),
                    "  %%bs%d = load float, float* %%bp%d" % (i, i),
                    "  %%bve%d = insertelement %s undef, float %%bs%d, i32 0" % (i, v, i),
                    "  %%bv%d = shufflevector %s %%bve%d, %s undef, <%d x i32> zeroinitializer"
                    % (i, v, i, v, vw)]
        out += ["  %%rvs%d = insertelement %s undef, i1 %%rv%d, i32 0" % (i, mask_t, i),
                "  %%rvv%d = shufflevector %s %%rvs%d, %s undef, <%d x i32> zeroinitializer"
                % (i, mask_t, i, mask_t, vw)]
    out += [
        "  br label %lb_head",
        "lb_head:",
        "  %lb = phi i64 [%lc0, %ob_head], [%lb.next, %lb_tail]",
        "  %seg = udiv i64 %lb, %bps",
        "  %jb = urem i64 %lb, %bps",
        "  %tail = icmp eq i64 %jb, %nfull",
        "  %xcp = getelementptr i64, i64* %xcol, i64 %seg",
        "  %xc = load i64, i64* %xcp",
        "  %ccp = getelementptr i64, i64* %coff, i64 %seg",
        "  %cc = load i64, i64* %ccp",
        "  %lj = mul i64 %jb, " + str(blk),
        "  %l = add i64 %cc, %lj",
        "  %lxj = mul i64 %jb, %cbs",
        "  %lx0 = add i64 %xc, %lxj",
    ] + ([
        "  %lxs = mul i64 %samp, %xsamp",      # the problem's own X (a group's filter)
        "  %lx = add i64 %lx0, %lxs"] if trans else ["  %lx = add i64 %lx0, 0"]) + [
        "  %left = select i1 %tail, i64 %rem, i64 " + str(blk),
        "  %lbr = sub i64 %lb, %lc0",           # this block's K x blk floats in P
        "  %pofs0 = mul i64 %lbr, %K",
        "  %%pofs = mul i64 %%pofs0, %d" % blk,
        "  %pb = getelementptr float, float* %P, i64 %pofs",
        "  %first = icmp eq i64 %ob, 0",
        "  %second = icmp eq i64 %ob, 1",
        "  %mode2 = select i1 %second, i64 3, i64 2",
        "  %mode1 = select i1 %first, i64 1, i64 %mode2",
        "  %pfn = mul i64 %cb, %cbs",            # the next chunk's block, for mode 3
        "  %lxn = add i64 %lx, %pfn",
        "  %modep = select i1 %pk, i64 %mode1, i64 0",
        # a full block reads X's rows with plain loads (modes 4 and 5 for 0 and 1)
        "  %lowmode = icmp ult i64 %modep, 2",
        "  %notedge = xor i1 %tail, true",
        "  %plainx = and i1 %lowmode, %notedge",
        "  %modeq = add i64 %modep, 4",
        "  %mode = select i1 %plainx, i64 %modeq, i64 %modep",
        "  %%lefts = insertelement <%d x i64> undef, i64 %%left, i32 0" % vw,
        "  %%leftv = shufflevector <%d x i64> %%lefts, <%d x i64> undef, <%d x i32> zeroinitializer"
        % (vw, vw, vw),
    ]
    for j in range(nr):
        lane_ids = ", ".join("i64 %d" % (j * vw + t) for t in range(vw))
        out.append("  %%m%d = icmp ult <%d x i64> <%s>, %%leftv" % (j, vw, lane_ids))
    for i in range(mr if not trans else 0):     # this block's output addresses and masks
        out.append("  %%co%d = add i64 %%rs%d, %%l" % (i, i))
        for j in range(nr):
            c = "%d_%d" % (i, j)
            out += ["  %%mm%s = and %s %%m%d, %%rvv%d" % (c, mask_t, j, i),
                    "  %%ci%s = add i64 %%co%d, %d" % (c, i, j * vw),
                    "  %%cf%s = getelementptr float, float* %%C, i64 %%ci%s" % (c, c),
                    "  %%cp%s = bitcast float* %%cf%s to %s*" % (c, c, v)]
    out += ["  br i1 %acc, label %load_c, label %k_pre", "load_c:"]
    for i in range(mr if not trans else 0):   # (the transposed kernel does not accumulate)
        for j in range(nr):
            c = "%d_%d" % (i, j)
            out.append("  %%c0%s = call %s @llvm.masked.load.v%df32.%s(%s* %%cp%s, i32 4, "
                       "%s %%mm%s, %s zeroinitializer)" % (c, v, vw, sfx, v, c, mask_t, c, v))
    out += ["  br label %k_pre", "k_pre:"]
    for i in range(mr):
        for j in range(nr):
            c = "%d_%d" % (i, j)
            out.append("  %%s%s = phi %s [zeroinitializer, %%lb_head], [%s, %%load_c]"
                       % (c, v, "zeroinitializer" if trans else "%c0" + c))
    # the K loop: X's rows as they are (0), or, with a scratch P, the first row
    # block's loads also stored in P (1) and the other row blocks' read from it
    # (2; 3 in the second row block, which also prefetches the next chunk)
    out += ["  br label %k_loop"] if trans else [
        "  switch i64 %mode, label %k_loop [i64 1, label %k_loop1 i64 2, label %k_loop2 "
        "i64 3, label %k_loop3 i64 4, label %k_loop4 i64 5, label %k_loop5]"]
    modes = (0,) if trans else (0, 1, 2, 3, 4, 5)
    for mode in modes:
        out += _k_loop(vw, mr, nr, sfx, trans, mode)
    out += ["k_done:"]
    for i in range(mr):
        for j in range(nr):
            c = "%d_%d" % (i, j)
            out.append("  %%n%s = phi %s %s" % (c, v, ", ".join(
                "[%%n%s.%d, %%k_loop%s]" % (c, m, m or "") for m in modes)))
    out += _trans_tail(vw, mr, nr, sfx) if trans else _plain_tail(vw, mr, nr, sfx)
    out += ["  %lb.next = add i64 %lb, 1",
            "  %lbc = icmp ult i64 %lb.next, %lc1",
            "  br i1 %lbc, label %lb_head, label %lb_done",
            "lb_done:",
            "  %%ob.next = add i64 %s, 1" % ("%obt" if trans else "%ob"),
            "  %%oc = icmp ult i64 %%ob.next, %s" % ("%nobt" if trans else "%nob"),
            "  br i1 %oc, label %ob_head, label %ob_done",
            "ob_done:",
            "  %more = icmp ult i64 %lc1, %cnt",
            "  br i1 %more, label %lc_head, label %exit",
            "exit:",
            "  ret void",
            "}"]
    return "\n".join(out + _batch_ir(name, trans))


def _k_loop(vw, mr, nr, sfx, trans, mode):
    """The K loop ``k_loop<mode>`` (mode 0 named ``k_loop``) of ``_ir``'s kernel,
    its sums ``%n<i>_<j>.<mode>``: X's vectors read from its rows through the
    offset table (0), the same and each also stored in the block's place in P
    (1), or read from there (2: one sequential stream; 3: the same while
    prefetching this block's rows of the next chunk into L2); 4 and 5 are 0 and
    1 for a full block, X's vectors read with plain loads.  (With AVX2 the
    masked loads of every step made LLVM spill the masks and rebuild them from
    the stack in eight instructions a step; on Zen 3, one core, products of one
    row block (3-6 rows) 0.68-0.82x the time with plain loads, ResNeXt-50's
    grouped 3x3 layers of 4 rows a group 0.73-0.77x at batch 1 and 16, packed
    products of fully connected layers 1.41-1.64x BLAS's time -> 0.88-1.03x;
    products of many row blocks, where P is read in modes 2 and 3, even.)"""
    v = "<%d x float>" % vw
    mask_t = "<%d x i1>" % vw
    blk = nr * vw
    lab = "k_loop%s" % (mode or "")
    t = ".%d" % mode
    masked = not trans and mode < 2     # (an edge block in mode 0 or 1)
    mode = mode % 4
    out = [lab + ":", "  %%k%s = phi i64 [0, %%k_pre], [%%k.next%s, %%%s]" % (t, t, lab)]
    for i in range(mr):
        for j in range(nr):
            c = "%d_%d" % (i, j)
            out.append("  %%a%s%s = phi %s [%%s%s, %%k_pre], [%%n%s%s, %%%s]"
                       % (c, t, v, c, c, t, lab))
    out += [("  %%wkp%s = getelementptr i64, i64* %%koff, i64 %%k%s\n"
             "  %%wk%s = load i64, i64* %%wkp%s" % (t, t, t, t))
            if trans else "  %%wk%s = mul i64 %%k%s, %%kstr" % (t, t)]
    if mode >= 2:
        out += ["  %%pk%s = mul i64 %%k%s, %d" % (t, t, blk),
                "  %%xp%s = getelementptr float, float* %%pb, i64 %%pk%s" % (t, t)]
    elif trans:         # the packed block's rows are B apart (xoff[k] = k * B): no table
        out += ["  %%off%s = mul i64 %%k%s, %d" % (t, t, blk),
                "  %%xo%s = add i64 %%off%s, %%lx" % (t, t),
                "  %%xp%s = getelementptr float, float* %%X, i64 %%xo%s" % (t, t)]
    else:
        out += ["  %%offp%s = getelementptr i64, i64* %%xoff, i64 %%k%s" % (t, t),
                "  %%off%s = load i64, i64* %%offp%s" % (t, t),
                "  %%xo%s = add i64 %%off%s, %%lx" % (t, t),
                "  %%xp%s = getelementptr float, float* %%X, i64 %%xo%s" % (t, t)]
    if mode == 3:       # row k of the next chunk's block into L2 meanwhile
        out += ["  %%offp%s = getelementptr i64, i64* %%xoff, i64 %%k%s" % (t, t),
                "  %%off%s = load i64, i64* %%offp%s" % (t, t),
                "  %%xo%s = add i64 %%off%s, %%lxn" % (t, t),
                "  %%xn%s = getelementptr float, float* %%X, i64 %%xo%s" % (t, t)]
        for j in range(nr):
            out += ["  %%qf%d%s = getelementptr float, float* %%xn%s, i64 %d" % (j, t, t, j * vw),
                    "  %%qb%d%s = bitcast float* %%qf%d%s to i8*" % (j, t, j, t),
                    "  call void @llvm.prefetch.%s(i8* %%qb%d%s, i32 0, i32 2, i32 1)"
                    % ("p0" if sfx == "p0" else "p0i8", j, t)]
    if mode == 1:
        out += ["  %%pk%s = mul i64 %%k%s, %d" % (t, t, blk),
                "  %%pp%s = getelementptr float, float* %%pb, i64 %%pk%s" % (t, t)]
    for j in range(nr):     # (the transposed kernel's operand is packed: whole blocks)
        out += ["  %%xf%d%s = getelementptr float, float* %%xp%s, i64 %d" % (j, t, t, j * vw),
                "  %%xv%d%s = bitcast float* %%xf%d%s to %s*" % (j, t, j, t, v),
                ("  %%x%d%s = load %s, %s* %%xv%d%s, align 4" % (j, t, v, v, j, t))
                if not masked else
                ("  %%x%d%s = call %s @llvm.masked.load.v%df32.%s(%s* %%xv%d%s, i32 4, %s %%m%d,"
                 " %s zeroinitializer)" % (j, t, v, vw, sfx, v, j, t, mask_t, j, v))]
        if mode == 1:
            out += ["  %%pf%d%s = getelementptr float, float* %%pp%s, i64 %d" % (j, t, t, j * vw),
                    "  %%pv%d%s = bitcast float* %%pf%d%s to %s*" % (j, t, j, t, v),
                    "  store %s %%x%d%s, %s* %%pv%d%s, align 4" % (v, j, t, v, j, t)]
    for i in range(mr):
        out += ["  %%wp%d%s = getelementptr float, float* %%wrow%d, i64 %%wk%s" % (i, t, i, t),
                "  %%w%d%s = load float, float* %%wp%d%s" % (i, t, i, t),
                "  %%we%d%s = insertelement %s undef, float %%w%d%s, i32 0" % (i, t, v, i, t),
                "  %%ws%d%s = shufflevector %s %%we%d%s, %s undef, <%d x i32> zeroinitializer"
                % (i, t, v, i, t, v, vw)]
        for j in range(nr):
            c = "%d_%d" % (i, j)
            out.append("  %%n%s%s = call %s @llvm.fma.v%df32(%s %%ws%d%s, %s %%x%d%s, %s %%a%s%s)"
                       % (c, t, v, vw, v, i, t, v, j, t, v, c, t))
    return out + ["  %%k.next%s = add i64 %%k%s, 1" % (t, t),
                  "  %%kc%s = icmp ult i64 %%k.next%s, %%K" % (t, t),
                  "  br i1 %%kc%s, label %%%s, label %%k_done" % (t, lab)]


def _plain_tail(vw, mr, nr, sfx):
    """After the K loop of the plain kernel: the epilogue (bias per row) and the
    stores, plain for full blocks and masked at edges."""
    v = "<%d x float>" % vw
    mask_t = "<%d x i1>" % vw
    negz = "<%s>" % ", ".join(["float -0.0"] * vw)
    out = ["  br i1 %epi, label %epi_calc, label %st_pick", "epi_calc:"]
    blocks = [(i, j, "%d_%d" % (i, j)) for i in range(mr) for j in range(nr)]
    zero = "zeroinitializer"
    # (sum + bias) + residual, then the clamp: none, relu (one compare: > 0 or NaN
    # keeps, np.maximum's rule), or any (lo, hi, tie) of conv_epilogue.CLAMPS
    for j in range(nr):     # a column bias: this block's columns of B (masked at the edge)
        out += ["  %%bcf%d = getelementptr float, float* %%B, i64 %%l" % j,
                "  %%bcg%d = getelementptr float, float* %%bcf%d, i64 %d" % (j, j, j * vw),
                "  %%bcp%d = bitcast float* %%bcg%d to %s*" % (j, j, v),
                "  %%bcl%d = call %s @llvm.masked.load.v%df32.%s(%s* %%bcp%d, i32 4, %s %%m%d,"
                " %s %s)" % (j, v, vw, sfx, v, j, mask_t, j, v, negz)]
    for i, j, c in blocks:
        out += ["  %%bb%s = select i1 %%bcol, %s %%bcl%d, %s %%bv%d" % (c, v, j, v, i),
                "  %%eb%s = fadd %s %%n%s, %%bb%s" % (c, v, c, c)]
    out += ["  br i1 %hasrb, label %epi_res, label %epi_act", "epi_res:"]
    for i, j, c in blocks:
        out += ["  %%rf%s = getelementptr float, float* %%R, i64 %%ci%s" % (c, c),
                "  %%rp%s = bitcast float* %%rf%s to %s*" % (c, c, v),
                "  %%rl%s = call %s @llvm.masked.load.v%df32.%s(%s* %%rp%s, i32 4, %s %%mm%s,"
                " %s %s)" % (c, v, vw, sfx, v, c, mask_t, c, v, negz),
                "  %%er%s = fadd %s %%eb%s, %%rl%s" % (c, v, c, c)]
    out += ["  br label %epi_act", "epi_act:"]
    out += ["  %%e%s = phi %s [%%eb%s, %%epi_calc], [%%er%s, %%epi_res]" % (c, v, c, c)
            for i, j, c in blocks]
    out += ["  switch i64 %kind, label %epi_clamp [i64 0, label %st_pick "
            "i64 1, label %epi_relu]", "epi_relu:"]
    for i, j, c in blocks:
        out += ["  %%pz%s = fcmp ugt %s %%e%s, %s" % (c, v, c, zero),
                "  %%re%s = select %s %%pz%s, %s %%e%s, %s %s" % (c, mask_t, c, v, c, v, zero)]
    out += ["  br label %st_pick", "epi_clamp:"]
    for i, j, c in blocks:
        out += _clamp_ir(v, mask_t, "cl" + c, "%%e%s" % c, "%lov", "%hiv", "%tiev")
    # full blocks (every row and column inside) take plain stores, the rest masked ones
    out += ["  br label %st_pick", "st_pick:"]
    out += ["  %%f%s = phi %s [%%n%s, %%k_done], [%%e%s, %%epi_act], [%%re%s, %%epi_relu], "
            "[%%cl%sk2, %%epi_clamp]" % (c, v, c, c, c, c) for i, j, c in blocks]
    out += ["  %notail = xor i1 %tail, true",
            "  %%full = and i1 %%notail, %%rv%d" % (mr - 1),
            "  br i1 %full, label %st_full, label %st_mask", "st_full:"]
    out += ["  store %s %%f%s, %s* %%cp%s, align 4" % (v, c, v, c) for i, j, c in blocks]
    out += ["  br label %lb_tail", "st_mask:"]
    out += ["  call void @llvm.masked.store.v%df32.%s(%s %%f%s, %s* %%cp%s, i32 4, %s %%mm%s)"
            % (vw, sfx, v, c, v, c, mask_t, c) for i, j, c in blocks]
    out += ["  br label %lb_tail", "lb_tail:"]
    return out


def _transpose_ir(vw, rows, tag):
    """IR lines moving ``rows`` (``hw = vw / 2`` vectors of ``vw`` lanes: 8 of 16
    or 4 of 8; names or ``zeroinitializer``) into columns: log2(hw) rounds of
    two-source shuffles, each swapping one bit of the vector index with the
    same bit of the lane index, leave vector q holding column q in lanes 0 ..
    hw - 1 and column q + hw in the others, each column's hw rows in order.
    Returns (lines, the hw vector names)."""
    v = "<%d x float>" % vw
    hw = vw // 2
    names, lines = list(rows), []
    for b in range(hw.bit_length() - 1):
        bit = 1 << b
        low = [lam if not lam & bit else vw + (lam & ~bit) for lam in range(vw)]
        high = [lam | bit if not lam & bit else vw + lam for lam in range(vw)]
        nxt = list(names)
        for q in range(hw):
            if q & bit:
                continue
            for dst, mask in ((q, low), (q | bit, high)):
                name = "%%%s%d_%d" % (tag, b, dst)
                lines.append("  %s = shufflevector %s %s, %s %s, <%d x i32> <%s>"
                             % (name, v, names[q], v, names[q | bit], vw,
                                ", ".join("i32 %d" % m for m in mask)))
                nxt[dst] = name
        names = nxt
    return lines, names


def _trans_tail(vw, mr, nr, sfx):
    """After the K loop of the transposed kernel: the bias (one per column) added,
    each group of ``vw / 2`` rows of each vector of the block's columns turned
    into rows of the transposed output (``_transpose_ir``), then per output row
    (one column of the block: up to vw / 2 values, the group's rows) one masked
    store.
    The clamp (the general form: with (-inf, inf) or relu's bounds it is those)
    runs on the block's vectors before the transposes, or, with a residual,
    after it is added to each transposed row."""
    hw = vw // 2
    v, h = "<%d x float>" % vw, "<%d x float>" % hw
    hsfx = sfx.replace("v%df32" % vw, "v%df32" % hw)
    hnegz = "<%s>" % ", ".join(["float -0.0"] * hw)
    negz = "<%s>" % ", ".join(["float -0.0"] * vw)
    # the problem's output, residual and bias, found again here (values live across
    # the K loop take registers its sums and operand vectors need)
    out = ["  %tsamp = udiv i64 %obt, %nob",
           "  %tso = mul i64 %tsamp, %osamp",
           "  %Cs = getelementptr float, float* %C, i64 %tso",
           "  %Rs = getelementptr float, float* %R, i64 %tso",
           "  %tsb = mul i64 %tsamp, %bsamp",
           "  %Bs = getelementptr float, float* %B, i64 %tsb",
           "  %%nrs = insertelement <%d x i64> undef, i64 %%nrows, i32 0" % hw,
           "  %%nrv = shufflevector <%d x i64> %%nrs, <%d x i64> undef, "
           "<%d x i32> zeroinitializer" % (hw, hw, hw),
           "  %%hlos = insertelement %s undef, float %%lo, i32 0" % h,
           "  %%hlo = shufflevector %s %%hlos, %s undef, <%d x i32> zeroinitializer" % (h, h, hw),
           "  %%hhis = insertelement %s undef, float %%hi, i32 0" % h,
           "  %%hhi = shufflevector %s %%hhis, %s undef, <%d x i32> zeroinitializer" % (h, h, hw),
           "  %%hties = insertelement %s undef, float %%tiez, i32 0" % h,
           "  %%htie = shufflevector %s %%hties, %s undef, <%d x i32> zeroinitializer"
           % (h, h, hw)]
    groups = range(0, mr, hw)
    for g in groups:            # which lanes of group g's half vectors are rows of the block
        out += ["  %%orow%d = add i64 %%orow, %d" % (g, g),
                "  %%orows%d = insertelement <%d x i64> undef, i64 %%orow%d, i32 0" % (g, hw, g),
                "  %%orowv%d = shufflevector <%d x i64> %%orows%d, <%d x i64> undef, "
                "<%d x i32> zeroinitializer" % (g, hw, g, hw, hw),
                "  %%orowl%d = add <%d x i64> %%orowv%d, <%s>"
                % (g, hw, g, ", ".join("i64 %d" % t for t in range(hw))),
                "  %%rowin%d = icmp ult <%d x i64> %%orowl%d, %%nrv" % (g, hw, g),
                "  %%rowm%d = and <%d x i1> %%rowin%d, <%s>"
                % (g, hw, g, ", ".join("i1 %d" % (g + t < mr) for t in range(hw)))]
    for j in range(nr):         # column j's bias values (loaded here, not kept through K)
        out += ["  %%tc%d = add i64 %%l, %d" % (j, j * vw),
                "  %%tbf%d = getelementptr float, float* %%Bs, i64 %%tc%d" % (j, j),
                "  %%tbp%d = bitcast float* %%tbf%d to %s*" % (j, j, v),
                "  %%tb%d = call %s @llvm.masked.load.v%df32.%s(%s* %%tbp%d, i32 4, "
                "<%d x i1> %%m%d, %s %s)" % (j, v, vw, sfx, v, j, vw, j, v, negz)]
        for i in range(mr):
            out.append("  %%tb%d_%d = fadd %s %%n%d_%d, %%tb%d" % (i, j, v, i, j, j))
    # without a residual the clamp runs on the block's full vectors before the
    # transposes (a conv's bias + relu: a third of the tail's vector work)
    out += ["  br i1 %hasrb, label %tr_res, label %tr_plain", "tr_plain:"] + _splats(vw, [
        ("%tlo", "float", "%lo"), ("%thi", "float", "%hi"), ("%ttie", "float", "%tiez")])
    def rows_out(j, rows, tag, resid, full):
        """Vector j's block rows, vw / 2 at a time, transposed and stored."""
        lines = []
        for g in groups:
            part = rows[g:g + hw]
            tr, cols = _transpose_ir(vw, part + ["zeroinitializer"] * (hw - len(part)),
                                     "tr%s%d_%d_" % (tag, j, g))
            lines += tr
            for c in range(vw):
                lines += _trans_store(vw, "%s%d_%d_%d" % (tag, j, g, c), cols[c % hw], c,
                                      j * vw + c, g, hsfx, hnegz, resid,
                                      min(hw, mr - g) if full else 0)
        return lines

    # a block whose rows all lie inside the output stores each output row
    # plainly (skipped past the columns left); one at the last rows through
    # masks (a masked store costs far more than a plain one on AVX2 hosts)
    for j in range(nr):
        for i in range(mr):
            c = "%d_%d" % (i, j)
            out += _clamp_ir(v, "<%d x i1>" % vw, "tp" + c, "%tb" + c, "%tlo", "%thi", "%ttie")
    def stores(tag, rows, resid):
        """The block's stores of vectors ``rows`` (name patterns of i, j): plain
        where its last row lies inside, masked where not."""
        lines = ["  br i1 %%rv%d, label %%tr_%s_f, label %%tr_%s_m" % (mr - 1, tag, tag)]
        for full in (True, False):
            lines += ["tr_%s_%s:" % (tag, "mf"[full])]
            for j in range(nr):
                lines += rows_out(j, [rows % (i, j) for i in range(mr)], tag[0] + "mf"[full],
                                  resid, full)
            lines += ["  br label %lb_tail"]
        return lines

    out += stores("plain", "%%tp%d_%dk2", False)
    out += ["tr_res:"] + stores("res", "%%tb%d_%d", True)
    return out + ["lb_tail:"]


def _trans_store(vw, t, col, c, colno, g, hsfx, hnegz, resid, plain=0):
    """Output row ``colno`` of the block (half ``c // hw`` of transposed vector
    ``col``, ``hw = vw / 2``: rows ``g .. g + hw - 1``), one masked store; with
    ``resid`` the residual added and the clamp applied first.  ``plain``: the
    block's rows all lie inside the output, ``plain`` of them in this group
    (mr - g, at most hw): a plain store of that many values, branched over
    where the column is past the block's last (with a residual, a group of
    fewer than hw rows keeps the masked form: its load would read past them)."""
    hw = vw // 2
    h, hm = "<%d x float>" % hw, "<%d x i1>" % hw
    half = ", ".join("i32 %d" % (hw * (c // hw) + lam) for lam in range(hw))
    out = ["  %%hv%s = shufflevector <%d x float> %s, <%d x float> undef, <%d x i32> <%s>"
           % (t, vw, col, vw, hw, half),
           "  %%hok%s = icmp ult i64 %d, %%left" % (t, colno)]
    if plain and not (resid and plain < hw):
        out += ["  br i1 %%hok%s, label %%hdo%s, label %%hskip%s" % (t, t, t), "hdo%s:" % t,
                "  %%hc%s = add i64 %%l, %d" % (t, colno),
                "  %%hr%s = mul i64 %%hc%s, %%ldc" % (t, t),
                "  %%ho%s = add i64 %%hr%s, %%orow%d" % (t, t, g),
                "  %%hcf%s = getelementptr float, float* %%Cs, i64 %%ho%s" % (t, t)]
        value = "%hv" + t
        if resid:
            out += ["  %%hrf%s = getelementptr float, float* %%Rs, i64 %%ho%s" % (t, t),
                    "  %%hrp%s = bitcast float* %%hrf%s to %s*" % (t, t, h),
                    "  %%hrl%s = load %s, %s* %%hrp%s, align 4" % (t, h, h, t),
                    "  %%he%s = fadd %s %%hv%s, %%hrl%s" % (t, h, t, t)]
            out += _clamp_ir(h, hm, "h" + t, "%he" + t, "%hlo", "%hhi", "%htie")
            value = "%h" + t + "k2"
        p = "<%d x float>" % plain
        if plain < hw:
            out.append("  %%hn%s = shufflevector %s %s, %s undef, <%d x i32> <%s>"
                       % (t, h, value, h, plain, ", ".join("i32 %d" % q for q in range(plain))))
            value = "%hn" + t
        return out + ["  %%hcq%s = bitcast float* %%hcf%s to %s*" % (t, t, p),
                      "  store %s %s, %s* %%hcq%s, align 4" % (p, value, p, t),
                      "  br label %%hskip%s" % t, "hskip%s:" % t]
    out += ["  %%hm%s = select i1 %%hok%s, %s %%rowm%d, %s zeroinitializer" % (t, t, hm, g, hm),
            "  %%hc%s = add i64 %%l, %d" % (t, colno),
            "  %%hr%s = mul i64 %%hc%s, %%ldc" % (t, t),
            "  %%ho%s = add i64 %%hr%s, %%orow%d" % (t, t, g),
            "  %%hcf%s = getelementptr float, float* %%Cs, i64 %%ho%s" % (t, t),
            "  %%hcp%s = bitcast float* %%hcf%s to %s*" % (t, t, h)]
    value = "%hv" + t
    if resid:
        out += ["  %%hrf%s = getelementptr float, float* %%Rs, i64 %%ho%s" % (t, t),
                "  %%hrp%s = bitcast float* %%hrf%s to %s*" % (t, t, h),
                "  %%hrl%s = call %s @llvm.masked.load.v%df32.%s(%s* %%hrp%s, i32 4, "
                "%s %%hm%s, %s %s)" % (t, h, hw, hsfx, h, t, hm, t, h, hnegz),
                "  %%he%s = fadd %s %%hv%s, %%hrl%s" % (t, h, t, t)]
        out += _clamp_ir(h, hm, "h" + t, "%he" + t, "%hlo", "%hhi", "%htie")
        value = "%h" + t + "k2"
    return out + ["  call void @llvm.masked.store.v%df32.%s(%s %s, %s* %%hcp%s, i32 4, "
                  "%s %%hm%s)" % (hw, hsfx, h, value, h, t, hm, t)]


def _clamp_ir(v, m, t, x, lo, hi, tie):
    """``%<t>k2 = clamp(x)``: below ``lo`` (or equal with tie: -0.0 at a 0.0
    bound) goes to lo, above ``hi`` to hi, NaN passes (conv_epilogue.CLAMPS).
    ``tie`` is a vector of +0.0 (tie) or -0.0 (none) added between the two
    compares: tie comes only with lo = +0.0, where "equal" can only mean -0.0,
    which adding +0.0 turns into +0.0 (llvm_jit.Emitter.clamp: max, add, min,
    where the masks of a literal "or equal" took a dozen AVX2 instructions)."""
    return ["  %%%slt = fcmp olt %s %s, %s" % (t, v, x, lo),
            "  %%%sk0 = select %s %%%slt, %s %s, %s %s" % (t, m, t, v, lo, v, x),
            "  %%%sk1 = fadd %s %%%sk0, %s" % (t, v, t, tie),
            "  %%%sgt = fcmp ogt %s %%%sk1, %s" % (t, v, t, hi),
            "  %%%sk2 = select %s %%%sgt, %s %s, %s %%%sk1" % (t, m, t, v, hi, v, t)]


def _splats(vw, items):
    """IR lines splatting scalars to vectors: (name, element type, scalar) each
    (``Emitter.splat``'s lines, for this module's plain-string IR)."""
    e = llvm_jit.Emitter(vw, llvm_jit.intrinsics(vw))
    for name, ty, scalar in items:
        e.splat(name, scalar, ty)
    return e.lines


def _batch_ir(name, trans=False):
    """``gemm_rows_<name>``: the core over ``nb`` problems whose W, X and C
    start ``wbs``, ``xbs`` and ``obs`` floats apart (one offset table), the
    epilogue's bias ``bbs`` apart and its residual as C.  The transposed
    kernel's problems share X and the bias (a 1x1 convolution's samples): one
    call of the core, which runs every problem's row blocks against each chunk
    of X's columns while that chunk is in cache."""
    args = ["float* %W", "float* %X", "i64* %xoff", "float* %C"] + \
        ["i64 %%%s" % a for a in ("K", "ldc", "nrows", "nseg", "acc", "cb", "ldw", "kstr", "cbs",
                                  "nb", "wbs", "xbs", "obs", "epi")] + \
        ["float* %B", "i64 %bbs", "float* %R", "i64 %hasr", "float %lo", "float %hi", "i64 %tie",
         "i64 %kind", "i64* %xcol", "i64* %coff", "i64 %seglen", "float* %P"]
    call = ("  call void @core_%s(float* %%%s, float* %%%s, i64* %%xoff, float* %%%s, i64 %%K, "
            "i64 %%ldc, i64 %%nrows, i64 %%nseg, i64 %%acc, i64 %%cb, i64 %%ldw, i64 %%kstr, "
            "i64 %%cbs, i64 %%epi, float* %%%s, float* %%%s, i64 %%hasr, float %%lo, float %%hi, "
            "i64 %%tie, i64 %%kind, i64* %%xcol, i64* %%coff, i64 %%seglen, %s, float* %s)")
    if trans:       # its own arguments (``TRANS_ARGS``); the segment tables are unused
        args = ["float* %W", "float* %X", "i64* %xoff", "float* %C", "float* %B",
                "float* %R", "i64* %roff", "i64* %koff"] + \
            ["i64 %%%s" % a for a in ("K", "ldc", "nrows", "cb", "cbs", "hasr")] + \
            ["float %lo", "float %hi"] + \
            ["i64 %%%s" % a for a in ("tie", "seglen", "nb", "wsamp", "xsamp", "osamp", "bsamp")]
        return ["define void @gemm_rows_%s(%s) {" % (name, ", ".join(args)), "entry:",
                (call % (name, "W", "X", "C", "B", "R",
                         "i64 %nb, i64 %wsamp, i64 %osamp, i64 %xsamp, i64 %bsamp, "
                         "i64* %roff, i64* %koff", "null")).replace(
                    "i64 %nseg, i64 %acc, ", "i64 1, i64 0, ").replace(
                    "i64 %ldw, i64 %kstr, ", "i64 0, i64 0, ").replace(
                    "i64 %epi, ", "i64 1, ").replace(
                    "i64 %kind, i64* %xcol, i64* %coff, ", "i64 2, i64* %xoff, i64* %xoff, "),
                "  ret void", "}"]
    return [
        "define void @gemm_rows_%s(%s) {" % (name, ", ".join(args)),
        "entry:",
        "  br label %head",
        "head:",
        "  %b = phi i64 [0, %entry], [%b.next, %head]",
        "  %wo = mul i64 %b, %wbs",
        "  %xo = mul i64 %b, %xbs",
        "  %co = mul i64 %b, %obs",
        "  %bo = mul i64 %b, %bbs",
        "  %wb = getelementptr float, float* %W, i64 %wo",
        "  %xb = getelementptr float, float* %X, i64 %xo",
        "  %cb_ = getelementptr float, float* %C, i64 %co",
        "  %bb = getelementptr float, float* %B, i64 %bo",
        "  %rb = getelementptr float, float* %R, i64 %co",
        call % (name, "wb", "xb", "cb_", "bb", "rb",
                "i64 1, i64 0, i64 0, i64 0, i64 0, i64* %xoff, i64* %xoff", "%P"),
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
        proto = llvm_jit.c_types(*"pppp" + "i" * 14 + "pipiffiippip")
        trans, shapes = TRANS_SHAPES[vw], SHAPES[vw]
        fns = llvm_jit.compile_ir(
            "\n".join([_declarations(vw, opaque)] + [_ir(vw, opaque, mr, nr) for mr, nr in shapes]
                      + [_ir(vw, opaque, mr, nr, True) for mr, nr in trans]),
            dict({"gemm_rows_%dx%d" % shape: proto for shape in shapes},
                 **{"gemm_rows_t%dx%d" % shape: llvm_jit.c_types(*TRANS_ARGS)
                    for shape in trans}))
    except Exception:           # an llvmlite that cannot build this IR
        return None
    table = {shape: fns["gemm_rows_%dx%d" % shape] for shape in shapes}
    table.update({("t",) + shape: fns["gemm_rows_t%dx%d" % shape] for shape in trans})
    return table, vw


def available():
    """The kernel compiled for this host (once per process)."""
    if "fn" not in _STATE:
        _STATE["fn"] = _compile()
    return _STATE["fn"] is not None


def lanes():
    """The float32 lanes of the vectors the kernel was compiled for (16 with
    AVX-512, 8 with AVX2), or None where it is not available."""
    return _STATE["fn"][1] if available() else None


def packed_pays():
    """Whether products with a packed operand (a constant laid out once:
    Winograd's transformed filters, fully connected weights) beat BLAS on this
    host's vector width (``PACKED_LANES``)."""
    return lanes() in PACKED_LANES


def block_width():
    """Columns of one block of a packed operand (``gemm_rows(..., packed=True)``):
    the NR vectors of the main tile (32 with AVX-512, 16 with AVX2)."""
    if not available():
        raise RuntimeError("gemm_rows: the GEMM kernel is not available on this host "
                           "(check gemm_kernel.available() first)")
    return _shapes()[0][1] * _STATE["fn"][1]


def _operands(w, x, xoff, who):
    """Check the operands both entry points share; (O, K, problems, one problem's x)."""
    if not available():
        raise RuntimeError("%s: the GEMM kernel is not available on this host "
                           "(check gemm_kernel.available() first)" % who)
    if w.ndim not in (2, 3) or w.dtype != np.float32 or min(w.strides) < 0 or \
            any(st % 4 for st in w.strides) or x.dtype != np.float32 \
            or not x.flags.c_contiguous or xoff.dtype != np.int64 or \
            xoff.shape != (w.shape[-1],) or not xoff.flags.c_contiguous:
        raise ValueError("%s: operands must be float32 (w: 2-D or batched 3-D with "
                         "non-negative strides, x: contiguous) and int64 offsets of length "
                         "K=%d; got w %s %s, x %s, offsets %s %s"
                         % (who, w.shape[-1], w.dtype, w.shape, x.dtype, xoff.dtype, xoff.shape))
    nb = w.shape[0] if w.ndim == 3 else 1
    if w.ndim == 3 and (x.ndim < 1 or x.shape[0] != nb):
        raise ValueError("%s: a batch of %d products needs x (%d, ...), got x %s"
                         % (who, nb, nb, x.shape))
    return w.shape[-2], w.shape[-1], nb, (x[0] if w.ndim == 3 else x)


def _check_reads(xoff, span, limit, who):
    if int(xoff.min()) < 0 or int(xoff.max()) + span > limit:
        raise ValueError("%s: row offsets %d..%d with %d columns pass the operand's "
                         "%d elements" % (who, xoff.min(), xoff.max(), span, limit))


def gemm_rows(w, x, xoff, nl, out, accumulate=False, chunk=None, packed=False, bias=None,
              residual=None, clamp=None, bias_columns=False):
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
    problems sharing the offsets (one call into the kernel).

    The epilogue, applied to each block as it is stored (no pass over ``out``
    after): ``out = clamp((product + bias) + residual)``, the order of the
    unfused ops.  ``bias``: float32 (O,) (batched: (N, O) or (O,) shared),
    or with ``bias_columns`` one value per output column, (nl,) (a fully
    connected layer's bias when ``w`` holds its input rows), ``residual``:
    float32 shaped and strided as ``out``, ``clamp``: ``(lo, hi, tie)`` of
    conv_epilogue.CLAMPS.  A missing bias or residual adds nothing
    (-0.0, so -0.0 stays -0.0)."""
    o, k, nb, xs = _operands(w, x, xoff, "gemm_rows")
    batched = w.ndim == 3
    if out.dtype != np.float32 or out.ndim != w.ndim or out.strides[-1] != 4 or \
            out.shape[-2] < o or out.shape[-1] < nl or min(out.strides) < 0 or \
            any(st % 4 for st in out.strides) or (batched and out.shape[0] != nb):
        raise ValueError("gemm_rows: out must be float32 (%s>= %d, >= %d) with unit column "
                         "stride; got %s %s" % ("%d, " % nb if batched else "", o, nl,
                                                 out.dtype, out.shape))
    blk = block_width()
    if packed and (xs.ndim != 3 or xs.shape[2] != blk or xs.shape[0] * blk < nl):
        raise ValueError("gemm_rows: a packed operand is (blocks, rows, %d) covering %d "
                         "columns; got %s" % (blk, nl, xs.shape))
    if nl <= 0 or o == 0 or nb == 0:
        return out
    if k == 0:
        if not accumulate:
            out[..., :o, :nl] = 0
        return out
    _check_reads(xoff, *((blk, xs[0].size) if packed else (nl, xs.size)), "gemm_rows")
    _launch(w, x, xoff, out, out.strides[-2] // 4, out.strides[0] // 4 if batched else 0,
            _ONE_SEGMENT, _ONE_SEGMENT, nl, accumulate, chunk, packed, bias, residual, clamp,
            "gemm_rows", bias_columns)
    return out


def gemm_segments(w, x, xoff, out, ldc, xcol, coff, seglen, obs=0, bias=None, residual=None,
                  clamp=None):
    """Output rows put where they belong: for every segment s, row o and ``j <
    seglen``, ``out.flat[b * obs + o * ldc + coff[s] + j] = epilogue(sum_k
    w[o, k] * x.flat[xoff[k] + xcol[s] + j])`` (``b``: the problem of a batched
    call, whose x starts ``x[0].size`` further).  A convolution's output rows
    (a sample's row y of every channel) go straight into NCHW: no copy of the
    product to drop padding columns (conv_implicit).  ``out``: C-contiguous
    float32, ``residual`` shaped as it; ``xcol``, ``coff``: int64 (segments,);
    every read and write is checked against the arrays' sizes first."""
    o, k, nb, xs = _operands(w, x, xoff, "gemm_segments")
    if out.dtype != np.float32 or not out.flags.c_contiguous or xcol.dtype != np.int64 or \
            coff.dtype != np.int64 or xcol.shape != coff.shape or xcol.ndim != 1 or \
            not (xcol.flags.c_contiguous and coff.flags.c_contiguous):
        raise ValueError("gemm_segments: out must be contiguous float32 and the segment "
                         "tables int64 vectors of one length; got out %s, tables %s %s, %s %s"
                         % (out.dtype, xcol.dtype, xcol.shape, coff.dtype, coff.shape))
    if xcol.size == 0 or seglen <= 0 or o == 0 or nb == 0 or k == 0:
        if k == 0 and xcol.size and seglen > 0:
            raise ValueError("gemm_segments: K = 0 (nothing to sum) is not supported")
        return out
    _check_reads(xoff, int(xcol.max()) + seglen, xs.size, "gemm_segments")
    if int(xcol.min()) < 0 or int(coff.min()) < 0 or \
            (nb - 1) * obs + (o - 1) * ldc + int(coff.max()) + seglen > out.size:
        raise ValueError("gemm_segments: segments (%d columns at %d..%d) of %d rows %d apart "
                         "pass the output's %d elements"
                         % (seglen, coff.min(), coff.max(), o, ldc, out.size))
    _launch(w, x, xoff, out, ldc, obs, xcol, coff, seglen, False, None, False, bias, residual,
            clamp, "gemm_segments")
    return out


def packed_product(wp, n, bias=None, clamp=None):
    """A prepared ``x @ W (+ bias, clamp)`` for a constant W packed by
    ``pack_columns`` (``wp``: (blocks, K, B), ``n`` of its columns used),
    the bias one value per column (``gemm_rows(..., bias_columns=True)``):
    returns ``run(x) -> out``, x a C-contiguous float32 (M, K), out a new
    (M, n).  Everything about W is checked and turned into kernel arguments
    here, once: a call checks x and allocates out, then enters the kernel
    (~4 us of Python against gemm_rows' ~18; a fully connected layer of 64 x
    256 x 256 is ~80 us)."""
    blk = block_width()
    if wp.dtype != np.float32 or wp.ndim != 3 or wp.shape[2] != blk or not wp.shape[1] or \
            not wp.flags.c_contiguous or not 0 < n <= wp.shape[0] * blk:
        raise ValueError("packed_product: W must be packed float32 (blocks, K >= 1, %d) covering "
                         "%d columns; got %s %s" % (blk, n, wp.dtype, wp.shape))
    k = wp.shape[1]
    xoff = np.arange(k, dtype=np.int64) * blk
    b = _epilogue_bias(bias, n, 0, "packed_product")[0]
    lo, hi, tie, kind = _clamp_args(clamp)
    fns, vw = _STATE["fn"]
    keep = (wp, xoff, b)        # the arrays behind the addresses below live as long as run
    consts = (wp.ctypes.data, xoff.ctypes.data)
    tail = (float(lo), float(hi), int(bool(tie)), kind, _ONE_SEGMENT.ctypes.data,
            _ONE_SEGMENT.ctypes.data, n)
    calls = {}
    small_rows = _shapes()[2][0]        # (at most this many rows: the small tile)
    for small, (mr, nr) in ((True, _tile(1, True)), (False, _tile(small_rows + 1, True))):
        chunk = max(1, _CHUNK_BYTES // (k * nr * vw * 4))
        # nseg, acc, cb, ldw, kstr, cbs, nb, wbs, xbs, obs, epi (2: column bias), B, bbs
        calls[small] = (fns[mr, nr], (1, 0, chunk, k, 1, k * blk, 1, 0, wp.size, 0, 2,
                                      b.ctypes.data, 0))

    def run(x):
        if type(x) is not np.ndarray or x.dtype != np.float32 or x.ndim != 2 or \
                x.shape[1] != k or not x.flags.c_contiguous:
            raise ValueError("packed_product: x must be a C-contiguous float32 (M, %d); got %s"
                             % (k, getattr(x, "shape", type(x).__name__)))
        m = x.shape[0]
        out = np.empty((m, n), np.float32)
        if m:
            fn, mid = calls[m <= small_rows]
            op = out.ctypes.data
            fn(x.ctypes.data, *consts, op, k, n, m, *mid, op, 0, *tail, None)
        return out
    run.keep = keep
    return run


def rows_product(w, bias=None, clamp=None):
    """A prepared ``clamp(w @ x[i] + bias (+ residual[i]))`` for a constant w
    (O, K) and every sample i of x (N, K, L), C-contiguous float32: a 1x1
    convolution of NCHW samples, the bias one value per row (output channel).
    Returns ``run(x, residual=None) -> out`` (N, O, L), out new; residual, if
    given, float32 and C-contiguous like out.  W's checks and kernel
    arguments are made here once, the offset table once per L: a call costs
    ~5 us of Python where ``gemm_rows`` costs ~18."""
    if not available():
        raise RuntimeError("rows_product: the GEMM kernel is not available on this host "
                           "(check gemm_kernel.available() first)")
    if w.dtype != np.float32 or w.ndim != 2 or min(w.strides) < 0 or \
            any(st % 4 for st in w.strides) or 0 in w.shape:
        raise ValueError("rows_product: w must be a non-empty float32 (O, K) with non-negative "
                         "strides; got %s %s" % (w.dtype, w.shape))
    o, k = w.shape
    b = _epilogue_bias(bias, o, 0, "rows_product")[0]
    lo, hi, tie, kind = _clamp_args(clamp)
    fns, vw = _STATE["fn"]
    mr, nr = _tile(o, False)
    fn = fns[mr, nr]
    chunks = tuple(max(1, size // (k * nr * vw * 4))
                   for size in (_CHUNK_BYTES, stream_chunk_bytes()))
    wptr = w.ctypes.data
    # nrows, nseg, acc, cb, ldw, kstr, cbs, nb goes between; then wbs ... epi, B, bbs
    heads = tuple((o, 1, 0, chunk, w.strides[0] // 4, w.strides[1] // 4, nr * vw)
                  for chunk in chunks)
    bias_args = (1, b.ctypes.data, 0)
    clamp_args = (float(lo), float(hi), int(bool(tie)), kind, _ONE_SEGMENT.ctypes.data,
                  _ONE_SEGMENT.ctypes.data)
    offsets = {}

    def run(x, residual=None):
        out = samples_out(x, k, o, residual, "rows_product")
        n, _, cols = x.shape
        if n == 0 or cols == 0:
            return out
        xoff = offsets.get(cols)
        if xoff is None:
            xoff = offsets[cols] = np.arange(k, dtype=np.int64) * cols
        op = out.ctypes.data
        streamed = x.nbytes >= STREAM_MIN_BYTES
        scratch = _pack_scratch(o, mr, chunks[streamed], k, nr * vw, -(-cols // (nr * vw)))
        fn(wptr, x.ctypes.data, xoff.ctypes.data, op, k, cols, *heads[streamed], n, 0,
           k * cols, o * cols, *bias_args, op if residual is None else residual.ctypes.data,
           int(residual is not None), *clamp_args, cols, scratch[1])
        return out
    run.keep = (w, b, offsets)
    return run


def samples_out(x, k, o, residual, who):
    """The new output (N, o, L) of a prepared per-sample product of x (N, k, L),
    after checking x and the residual (both C-contiguous float32, the residual
    shaped as the output), with errors naming ``who``."""
    if type(x) is not np.ndarray or x.dtype != np.float32 or x.ndim != 3 or \
            x.shape[1] != k or not x.flags.c_contiguous:
        raise ValueError("%s: x must be a C-contiguous float32 (N, %d, L); got %s"
                         % (who, k, getattr(x, "shape", type(x).__name__)))
    out = np.empty((x.shape[0], o, x.shape[2]), np.float32)
    if residual is not None and (type(residual) is not np.ndarray or
                                 residual.dtype != np.float32 or
                                 residual.shape != out.shape or
                                 not residual.flags.c_contiguous):
        raise ValueError("%s: the residual must be a C-contiguous float32 %s; got %s"
                         % (who, out.shape, getattr(residual, "shape", None)))
    return out


_ONE_SEGMENT = np.zeros(1, np.int64)
_NEG_ZERO = np.full(8, -0.0, np.float32)


def _launch(w, x, xoff, out, ldc, obs, xcol, coff, seglen, accumulate, chunk, packed, bias,
            residual, clamp, who, bias_columns=False):
    fns, vw = _STATE["fn"]
    batched = w.ndim == 3
    o, k = w.shape[-2:]
    nb = w.shape[0] if batched else 1
    xs = x[0] if batched else x
    mr, nr = _tile(o, packed)
    if chunk is None:           # column blocks whose operand rows stay in L2 for every row block
        chunk = max(1, _CHUNK_BYTES // (k * nr * vw * 4))
    epi = bias is not None or residual is not None or clamp is not None
    b_arr, bbs = _NEG_ZERO, 0
    if epi:
        b_arr, bbs = _epilogue_bias(bias, seglen if bias_columns else o,
                                    0 if bias_columns or not batched else nb, who)
        if residual is not None and (residual.dtype != np.float32 or
                                     residual.shape != out.shape or
                                     residual.strides != out.strides):
            raise ValueError("%s: the residual must be float32 shaped and strided as "
                             "out %s %s; got %s %s %s" % (who, out.shape, out.strides,
                                                          residual.dtype, residual.shape,
                                                          residual.strides))
    lo, hi, tie, kind = _clamp_args(clamp)
    ws = w.strides[-2:]
    scratch = (None, None) if packed else \
        _pack_scratch(o, mr, chunk, k, nr * vw, xcol.size * -(-seglen // (nr * vw)))
    fns[mr, nr](w.ctypes.data, x.ctypes.data, xoff.ctypes.data, out.ctypes.data, k, ldc, o,
                xcol.size, int(bool(accumulate)), int(chunk), ws[0] // 4, ws[1] // 4,
                xs[0].size if packed else nr * vw, nb, w.strides[0] // 4 if batched else 0,
                xs.size, obs, (2 if bias_columns else 1) if epi else 0, b_arr.ctypes.data, bbs,
                (out if residual is None else residual).ctypes.data, int(residual is not None),
                float(lo), float(hi), int(bool(tie)), kind, xcol.ctypes.data, coff.ctypes.data,
                int(seglen), scratch[1])


def _pack_scratch(rows, mr, chunk, k, blk, blocks):
    """(array, address) of the scratch P where the kernel's first row block
    stores a chunk's column blocks of X (``chunk`` blocks of ``blk`` columns,
    fewer where a problem has fewer: ``blocks``) for the others to read as one
    stream (``_k_loop``), 64-byte aligned; (None, None) (no P: every row block
    reads X's rows) where there is one row block."""
    if rows <= mr * PACK_MIN_ROW_BLOCKS - mr:
        return None, None
    n = min(chunk, blocks) * k * blk
    buf = np.empty(n + 16, np.float32)
    skip = (-buf.ctypes.data % 64) // 4
    return buf, buf.ctypes.data + 4 * skip


def read_l2_bytes(root="/sys/devices/system/cpu/cpu0/cache"):
    """The L2 cache in bytes as Linux's sysfs lists it under ``root`` (one
    ``index<i>`` folder per cache: level, type, size such as ``512K``), or None
    where it cannot be read."""
    try:
        for d in sorted(os.listdir(root)):
            with open(os.path.join(root, d, "level")) as f:
                level = f.read().strip()
            with open(os.path.join(root, d, "type")) as f:
                kind = f.read().strip()
            if level == "2" and kind in ("Unified", "Data"):
                with open(os.path.join(root, d, "size")) as f:
                    size = f.read().strip()
                return int(size.rstrip("KMG")) << {"K": 10, "M": 20, "G": 30}.get(size[-1:], 0)
    except (OSError, ValueError):
        pass
    return None


def stream_chunk_bytes():
    """Operand bytes per chunk for a streamed input (the module docstring): an
    eighth of the L2 (``_CHUNK_BYTES`` at most; a 512 KB L2 where it is not
    known)."""
    if "l2" not in _STATE:
        _STATE["l2"] = read_l2_bytes()
    return min(_CHUNK_BYTES, (_STATE["l2"] or 512 << 10) // 8)


def _shapes():
    """The register tiles (``SHAPES``) of the compiled kernels' vector width."""
    return SHAPES[_STATE["fn"][1]]


def _tile(rows, packed):
    """The register tile (``SHAPES``) for a product of ``rows`` rows of W: on a
    packed operand 4 x 2 for at most 4 rows (it has fewer sums than the main
    one, so only there), else the main one; otherwise the
    small-rows tile (4 x 4 or 4 x 3, as many sums as the main one) wherever it
    computes fewer rows than the main one would."""
    main, small, packed_small = _shapes()
    if packed:
        return packed_small if rows <= packed_small[0] else main
    return small if -(-rows // small[0]) * small[0] < -(-rows // main[0]) * main[0] else main


def _clamp_args(clamp):
    """(lo, hi, tie, kind) of an epilogue clamp (conv_epilogue.CLAMPS, None: no
    clamp) for the kernel: kind 0 none, 1 relu (one compare), 2 general."""
    lo, hi, tie = (-np.inf, np.inf, False) if clamp is None else clamp
    kind = 0 if (lo, hi) == (-np.inf, np.inf) else 1 if (lo, hi, bool(tie)) == (0, np.inf, True) \
        else 2
    return lo, hi, tie, kind


def _epilogue_bias(bias, o, nb, who):
    """(contiguous float32 bias, its batch stride) for the kernel: -0.0s for none
    (the identity of IEEE addition)."""
    if bias is None:
        return (np.full(o, -0.0, np.float32) if o > _NEG_ZERO.size else _NEG_ZERO), 0
    b = np.ascontiguousarray(bias, np.float32)
    if b.shape == (o,):
        return b, 0
    if nb and b.shape == (nb, o):
        return b, o
    raise ValueError("%s: bias must be (%d,)%s; got %s"
                     % (who, o, " or (%d, %d)" % (nb, o) if nb else "", bias.shape))


def pack_columns(a, width=None):
    """``a`` (..., K, C) float32 -> (..., ceil(C / B), K, B), ``B = width`` or
    ``block_width()``: the columns in blocks of B, zero-padded, each block's K
    rows contiguous (the ``packed`` operand of ``gemm_rows`` with offsets ``k *
    B``, and of the transposed kernels with their own widths)."""
    blk = width or block_width()
    *lead, k, c = a.shape
    nblk = -(-c // blk)
    res = np.zeros(tuple(lead) + (nblk, k, blk), np.float32)
    for b in range(nblk):
        part = a[..., b * blk:(b + 1) * blk]
        res[..., b, :, :part.shape[-1]] = part
    return res
