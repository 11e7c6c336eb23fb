"""A register-blocked float32 GEMM whose operand rows are found through an
offset table: ``out[o, l] (+)= sum_k W[o, k] * x[xoff[k] + l]``.

Why: a convolution's im2col block is rows of one padded input read at shifted
offsets (kernels/cpu/conv.py, ``flat_windows``), so with the offsets as a table
the block is never written; and OpenBLAS runs the convolutions of small CNNs
(16-64 output channels, K = 27-576) at 40-70 GFLOP/s on one core where this
kernel runs near the core's FMA peak (~100): it keeps an MR x (NR * VW) block of
the output in vector registers across the whole K loop, reads W from a packed
copy (``pack``: (O / MR, K, MR), zero rows to a multiple of MR) and each row of
x straight from the input.

The kernel is LLVM IR written here and compiled once per process by llvmlite
(numba's code generator; the optional ``fast`` extra) for the host CPU: 16-lane
vectors where AVX-512 is present, else 8 (AVX2 + FMA); elsewhere, without
llvmlite, or with ``SAMPAN_NUMBA=0``, ``available()`` is False and callers keep
their BLAS path.  Loops: column blocks of NR vectors outside, row blocks of MR
inside (the x block of one column block stays in L1 for every row block), K
innermost; the last partial column block uses masked loads and stores, so no
read or write passes ``nl`` columns.  Sums are FMAs in k order (rounding as a
BLAS kernel's, not numpy's pairwise sums).
"""
import ctypes
import os

import numpy as np

from .fused_elementwise import numba_available

__all__ = ["available", "MR", "pack", "gemm_rows"]

MR, NR = 8, 2               # rows of W x vectors of columns held in registers
_STATE = {}


def _ir(vw, opaque):
    """The kernel's IR text for ``vw``-lane vectors (``opaque``: LLVM >= 15
    intrinsic names for pointers)."""
    v = "<%d x float>" % vw
    mask_t = "<%d x i1>" % vw
    sfx = "p0" if opaque else "p0v%df32" % vw
    out = [
        "declare %s @llvm.fma.v%df32(%s, %s, %s)" % (v, vw, v, v, v),
        "declare %s @llvm.masked.load.v%df32.%s(%s*, i32, %s, %s)" % (v, vw, sfx, v, mask_t, v),
        "declare void @llvm.masked.store.v%df32.%s(%s, %s*, i32, %s)" % (vw, sfx, v, v, mask_t),
        "define void @gemm_rows(float* noalias %W, float* noalias %X, i64* noalias %xoff,"
        " float* noalias %C, i64 %K, i64 %ldc, i64 %nob, i64 %nl, i64 %acc_in) {",
        "entry:",
        "  %nfull = udiv i64 %nl, " + str(NR * vw),
        "  %rem = urem i64 %nl, " + str(NR * vw),
        "  %cnt = add i64 %nfull, 1",
        "  %acc = icmp ne i64 %acc_in, 0",
        "  br label %lb_head",
        "lb_head:",
        "  %lb = phi i64 [0, %entry], [%lb.next, %ob_done]",
        "  %tail = icmp eq i64 %lb, %nfull",
        "  %notail = icmp eq i64 %rem, 0",
        "  %skip = and i1 %tail, %notail",
        "  br i1 %skip, label %exit, label %lb_body",
        "lb_body:",
        "  %l = mul i64 %lb, " + str(NR * vw),
        "  %left = select i1 %tail, i64 %rem, i64 " + str(NR * vw),
        "  %%lefts = insertelement <%d x i64> undef, i64 %%left, i32 0" % vw,
        "  %%leftv = shufflevector <%d x i64> %%lefts, <%d x i64> undef, <%d x i32> zeroinitializer"
        % (vw, vw, vw),
    ]
    for j in range(NR):
        lane_ids = ", ".join("i64 %d" % (j * vw + t) for t in range(vw))
        out.append("  %%m%d = icmp ult <%d x i64> <%s>, %%leftv" % (j, vw, lane_ids))
    out += [
        "  br label %ob_head",
        "ob_head:",
        "  %ob = phi i64 [0, %lb_body], [%ob.next, %k_done]",
        "  %wofs = mul i64 %ob, %K",
        "  %wofs2 = mul i64 %wofs, " + str(MR),
        "  %wb = getelementptr float, float* %W, i64 %wofs2",
        "  %orow = mul i64 %ob, " + str(MR),
    ]
    for i in range(MR):        # this block's output addresses and starting sums
        out += ["  %%ro%d = add i64 %%orow, %d" % (i, i),
                "  %%rs%d = mul i64 %%ro%d, %%ldc" % (i, i),
                "  %%co%d = add i64 %%rs%d, %%l" % (i, i)]
        for j in range(NR):
            c = "%d_%d" % (i, j)
            out += ["  %%ci%s = add i64 %%co%d, %d" % (c, i, j * vw),
                    "  %%cf%s = getelementptr float, float* %%C, i64 %%ci%s" % (c, c),
                    "  %%cp%s = bitcast float* %%cf%s to %s*" % (c, c, v)]
    out += ["  br i1 %acc, label %load_c, label %k_pre", "load_c:"]
    for i in range(MR):
        for j in range(NR):
            c = "%d_%d" % (i, j)
            out.append("  %%c0%s = call %s @llvm.masked.load.v%df32.%s(%s* %%cp%s, i32 4, %s %%m%d,"
                       " %s zeroinitializer)" % (c, v, vw, sfx, v, c, mask_t, j, v))
    out += ["  br label %k_pre", "k_pre:"]
    for i in range(MR):
        for j in range(NR):
            c = "%d_%d" % (i, j)
            out.append("  %%s%s = phi %s [zeroinitializer, %%ob_head], [%%c0%s, %%load_c]"
                       % (c, v, c))
    out += ["  br label %k_loop", "k_loop:",
            "  %k = phi i64 [0, %k_pre], [%k.next, %k_loop]"]
    for i in range(MR):
        for j in range(NR):
            c = "%d_%d" % (i, j)
            out.append("  %%a%s = phi %s [%%s%s, %%k_pre], [%%n%s, %%k_loop]" % (c, v, c, c))
    out += ["  %offp = getelementptr i64, i64* %xoff, i64 %k",
            "  %off = load i64, i64* %offp",
            "  %xo = add i64 %off, %l",
            "  %xp = getelementptr float, float* %X, i64 %xo"]
    for j in range(NR):
        out += ["  %%xf%d = getelementptr float, float* %%xp, i64 %d" % (j, j * vw),
                "  %%xv%d = bitcast float* %%xf%d to %s*" % (j, j, v),
                "  %%x%d = call %s @llvm.masked.load.v%df32.%s(%s* %%xv%d, i32 4, %s %%m%d,"
                " %s zeroinitializer)" % (j, v, vw, sfx, v, j, mask_t, j, v)]
    out.append("  %kmr = mul i64 %k, " + str(MR))
    for i in range(MR):
        out += ["  %%wi%d = add i64 %%kmr, %d" % (i, i),
                "  %%wp%d = getelementptr float, float* %%wb, i64 %%wi%d" % (i, i),
                "  %%w%d = load float, float* %%wp%d" % (i, i),
                "  %%we%d = insertelement %s undef, float %%w%d, i32 0" % (i, v, i),
                "  %%ws%d = shufflevector %s %%we%d, %s undef, <%d x i32> zeroinitializer"
                % (i, v, i, v, vw)]
        for j in range(NR):
            c = "%d_%d" % (i, j)
            out.append("  %%n%s = call %s @llvm.fma.v%df32(%s %%ws%d, %s %%x%d, %s %%a%s)"
                       % (c, v, vw, v, i, v, j, v, c))
    out += ["  %k.next = add i64 %k, 1",
            "  %kc = icmp ult i64 %k.next, %K",
            "  br i1 %kc, label %k_loop, label %k_done",
            "k_done:"]
    for i in range(MR):
        for j in range(NR):
            c = "%d_%d" % (i, j)
            out.append("  call void @llvm.masked.store.v%df32.%s(%s %%n%s, %s* %%cp%s, i32 4, %s %%m%d)"
                       % (vw, sfx, v, c, v, c, mask_t, j))
    out += ["  %ob.next = add i64 %ob, 1",
            "  %oc = icmp ult i64 %ob.next, %nob",
            "  br i1 %oc, label %ob_head, label %ob_done",
            "ob_done:",
            "  %lb.next = add i64 %lb, 1",
            "  %lc = icmp ult i64 %lb.next, %cnt",
            "  br i1 %lc, label %lb_head, label %exit",
            "exit:",
            "  ret void",
            "}"]
    return "\n".join(out)


def _compile():
    """(ctypes function, vector lanes) for this host, or None."""
    if os.environ.get("SAMPAN_GEMM_KERNEL", "1") == "0" or not numba_available():
        return None
    try:
        import llvmlite.binding as llvm
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        features = llvm.get_host_cpu_features()
        if features.get("avx512f"):
            vw = 16
        elif features.get("avx2") and features.get("fma"):
            vw = 8
        else:
            return None
        module = llvm.parse_assembly(_ir(vw, llvm.llvm_version_info[0] >= 15))
        module.verify()
        machine = llvm.Target.from_default_triple().create_target_machine(
            cpu=llvm.get_host_cpu_name(), features=features.flatten(), opt=3)
        engine = llvm.create_mcjit_compiler(module, machine)
        engine.finalize_object()
        ptr, i64 = ctypes.c_void_p, ctypes.c_int64
        fn = ctypes.CFUNCTYPE(None, ptr, ptr, ptr, ptr, i64, i64, i64, i64, i64)(
            engine.get_function_address("gemm_rows"))
    except Exception:           # no llvmlite, or one that cannot build this IR
        return None
    _STATE["engine"] = (engine, module)     # the code lives as long as the engine
    return fn, vw


def available():
    """The kernel compiled for this host (once per process)."""
    if "fn" not in _STATE:
        _STATE["fn"] = _compile()
    return _STATE["fn"] is not None


def pack(w):
    """W (O, K) float32 -> the kernel's packed copy (ceil(O / MR), K, MR), rows
    past O zero."""
    o, k = w.shape
    nob = -(-o // MR)
    padded = np.zeros((nob * MR, k), np.float32)
    padded[:o] = w
    return np.ascontiguousarray(padded.reshape(nob, MR, k).transpose(0, 2, 1))


def gemm_rows(packed, x, xoff, nl, out, accumulate=False):
    """``out[:, :nl] (+)= W @ rows``, row k of the operand being ``x.flat[xoff[k]:
    xoff[k] + nl]``.  ``packed``: ``pack(W)``; ``x``: a C-contiguous float32
    array; ``xoff``: int64 offsets (K,); ``out``: float32, C-contiguous in its
    last axis, at least ``packed.shape[0] * MR`` rows of at least ``nl``
    columns.  Every offset is checked against ``x``'s size first: the kernel
    reads raw memory."""
    if not available():
        raise RuntimeError("gemm_rows: the GEMM kernel is not available on this host "
                           "(check gemm_kernel.available() first)")
    fn = _STATE["fn"][0]
    nob, k, _ = packed.shape
    if x.dtype != np.float32 or not x.flags.c_contiguous or packed.dtype != np.float32 \
            or not packed.flags.c_contiguous or xoff.dtype != np.int64 or xoff.shape != (k,) \
            or not xoff.flags.c_contiguous:
        raise ValueError("gemm_rows: operands must be contiguous float32 (W, x) and int64 "
                         "offsets of length K=%d; got %s, %s, %s %s"
                         % (k, packed.dtype, x.dtype, xoff.dtype, xoff.shape))
    if out.dtype != np.float32 or out.ndim != 2 or out.strides[1] != 4 or \
            out.shape[0] < nob * MR or out.shape[1] < nl:
        raise ValueError("gemm_rows: out must be float32 (>= %d, >= %d) with unit column "
                         "stride; got %s %s" % (nob * MR, nl, out.dtype, out.shape))
    if nl <= 0 or k == 0:
        if not accumulate:
            out[:nob * MR, :max(nl, 0)] = 0
        return out
    if int(xoff.min()) < 0 or int(xoff.max()) + nl > x.size:
        raise ValueError("gemm_rows: row offsets %d..%d with %d columns pass the operand's "
                         "%d elements" % (xoff.min(), xoff.max(), nl, x.size))
    fn(packed.ctypes.data, x.ctypes.data, xoff.ctypes.data, out.ctypes.data, k,
       out.strides[0] // 4, nob, nl, int(bool(accumulate)))
    return out
