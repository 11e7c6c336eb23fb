"""The sigmoid-family epilogue of a fused convolution (``swish``, ``silu``,
``sigmoid``) as one compiled pass over its rows, vectorized with an exp of
its own: LLVM IR written here, compiled once per process for float32
(kernels/cpu/llvm_jit.py).

Why: numpy does ``x * (1 / (1 + exp(-beta * x)))`` in four passes with
temporaries (after the bias and residual passes), about 1.7 ns per element on
ShuffleNetV2-swish's maps, where Paddle's oneDNN applies it in the
convolution's own store; that made shufflenet_v2_swish 1.12-1.19x Paddle's
time while the same network with relu ran 0.6-0.9x.

Per row (one sample's channel c, ``L`` elements): ``v = (row + bias[c]) +
residual``, then ``s = 1 / (1 + exp(-beta * v))``, the row becomes ``v * s``
(swish, silu) or ``s`` (sigmoid), VW elements at a time with plain loads and
stores, only a row's last partial step masked (all steps masked, as before,
ran at about 2 ns an element on Zen 3 with AVX2, this at 1.2: 16x58x784 swish
in place 1.5 -> 1.0 ms).

The exp: Cephes' expf scheme.  ``t`` is clamped to [-87, 88] and the exp of a
``t`` above 88 is +inf (so 1 / (1 + exp) is 0 and swish(-inf) is NaN, as
numpy's: the sigmoids of 88 < t < 88.7, which numpy has as denormals around
4e-39, become 0); below -87 the exp's value vanishes against 1 anyway;
``n = floor(t log2(e) + 1/2)``,
``r = t - n ln2`` (ln2 in two parts, so r is exact to a few ulps), ``e^r`` by
a degree-6 polynomial on |r| <= ln2 / 2, times ``2^n`` built in the exponent
bits.  Within 2 ulp of the correctly rounded exp; NaN stays NaN (compares with
NaN are false, so the clamps keep it).
"""
import numpy as np

from . import llvm_jit

__all__ = ["available", "sigmoid_rows", "KINDS"]

KINDS = {"swish": 0, "silu": 0, "sigmoid": 1}
_STATE = {}

# Cephes expf: the polynomial for e^r - 1 - r (highest degree first) and ln2 split
_POLY = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
         1.6666665459e-1, 5.0000001201e-1)
_LN2_HI, _LN2_LO = 0.693359375, -2.12194440e-4


def _exp_ir(e, t, out):
    """``out`` = exp(``t``) (vector names) by the scheme in the module docstring."""
    c = e.const
    e("%{o}_gt = fcmp ogt {V} {t}, {hi}", "%{o}_t1 = select {M} %{o}_gt, {V} {hi}, {V} {t}",
      "%{o}_lt = fcmp olt {V} %{o}_t1, {lo}",
      "%{o}_t = select {M} %{o}_lt, {V} {lo}, {V} %{o}_t1",
      "%{o}_f0 = call {V} @{FMA}({V} %{o}_t, {V} {l2e}, {V} {half})",
      "%{o}_n = call {V} @llvm.floor.v{VW}f32({V} %{o}_f0)",
      "%{o}_r0 = call {V} @{FMA}({V} %{o}_n, {V} {mhi}, {V} %{o}_t)",
      "%{o}_r = call {V} @{FMA}({V} %{o}_n, {V} {mlo}, {V} %{o}_r0)",
      "%{o}_r2 = fmul {V} %{o}_r, %{o}_r",
      o=out, t=t, hi=c(88.0), lo=c(-87.0), l2e=c(1.44269504088896341), half=c(0.5),
      mhi=c(-_LN2_HI), mlo=c(-_LN2_LO))
    acc = c(_POLY[0])
    for k, coef in enumerate(_POLY[1:]):
        e("%{o}_p{k} = call {V} @{FMA}({V} {a}, {V} %{o}_r, {V} {cf})",
          o=out, k=k, a=acc, cf=c(coef))
        acc = "%%%s_p%d" % (out, k)
    e("%{o}_q0 = call {V} @{FMA}({V} {a}, {V} %{o}_r2, {V} %{o}_r)",   # p r^2 + r
      "%{o}_q = fadd {V} %{o}_q0, {one}",
      "%{o}_ni = fptosi {V} %{o}_n to <{VW} x i32>",
      "%{o}_nb = add <{VW} x i32> %{o}_ni, {bias127}",
      "%{o}_ns = shl <{VW} x i32> %{o}_nb, {s23}",
      "%{o}_pw = bitcast <{VW} x i32> %{o}_ns to {V}",
      "%{o}_v = fmul {V} %{o}_q, %{o}_pw",
      "%{o} = select {M} %{o}_gt, {V} {inf}, {V} %{o}_v",
      o=out, a=acc, one=c(1.0), inf="<%s>" % ", ".join(["float 0x7FF0000000000000"] * e.vw),
      bias127="<%s>" % ", ".join(["i32 127"] * e.vw),
      s23="<%s>" % ", ".join(["i32 23"] * e.vw))


def _body_ir(e, tag, full):
    """One step of a row at ``%j``: ``VW`` elements with plain loads and stores
    (``full``) or the row's tail under the mask of the lanes left (masked
    stores cost far more than plain ones on AVX2 hosts: module docstring)."""
    e("%at{T} = add i64 %base, %j",
      "%sp{T} = getelementptr float, float* %src, i64 %at{T}",
      "%spv{T} = bitcast float* %sp{T} to {V}*",
      "%p{T} = getelementptr float, float* %a, i64 %at{T}",
      "%pv{T} = bitcast float* %p{T} to {V}*",
      "%q{T} = getelementptr float, float* %res, i64 %at{T}",
      "%qv{T} = bitcast float* %q{T} to {V}*", T=tag)
    if full:
        e("%x{T} = load {V}, {V}* %spv{T}, align 4",
          "%rl{T} = load {V}, {V}* %qv{T}, align 4",
          "%rv{T} = select {M} %hasrv, {V} %rl{T}, {V} {negz}", T=tag, negz=e.const(-0.0))
    else:
        e("%left = sub i64 %L, %j")
        e.splat("%leftv", "%left", "i64")
        e("%m = icmp ult {I} {LANES}, %leftv", "%rm = and {M} %m, %hasrv",
          "%x{T} = call {V} @{LOAD}({V}* %spv{T}, i32 4, {M} %m, {V} zeroinitializer)",
          "%rv{T} = call {V} @{LOAD}({V}* %qv{T}, i32 4, {M} %rm, {V} {negz})",
          T=tag, negz=e.const(-0.0))
    e("%v0{T} = fadd {V} %x{T}, %bv", "%v{T} = fadd {V} %v0{T}, %rv{T}",
      "%bx{T} = fmul {V} %v{T}, %betav", "%t{T} = fneg {V} %bx{T}", T=tag)
    _exp_ir(e, "%t" + tag, "ex" + tag)
    e("%den{T} = fadd {V} %ex{T}, {one}", "%s{T} = fdiv {V} {one}, %den{T}",
      "%sw{T} = fmul {V} %v{T}, %s{T}", "%y{T} = select i1 %issig, {V} %s{T}, {V} %sw{T}",
      T=tag, one=e.const(1.0))
    if full:
        e("store {V} %y{T}, {V}* %pv{T}, align 4", T=tag)
    else:
        e("call void @{STORE}({V} %y{T}, {V}* %pv{T}, i32 4, {M} %m)", T=tag)


def _rows_ir(e):
    e.lines.append("declare {V} @llvm.floor.v{VW}f32({V})".format(V="<%d x float>" % e.vw,
                                                                  VW=e.vw))
    e.lines.append(
        "define void @sigmoid_rows(float* %src, float* %a, float* noalias %bias, "
        "float* %res, i64 %hasr, i64 %rows, i64 %O, i64 %L, float %beta, "
        "i64 %kind) {")
    e("entry:", "%hasrb = icmp ne i64 %hasr, 0", "%issig = icmp ne i64 %kind, 0")
    e.splat("%hasrv", "%hasrb", "i1")
    e.splat("%betav", "%beta", "float")
    e("%any = icmp ugt i64 %L, 0", "%anyr = icmp ugt i64 %rows, 0",
      "%go = and i1 %any, %anyr", "br i1 %go, label %r_head, label %exit")
    e("r_head:", "%r = phi i64 [0, %entry], [%r.next, %j_done]",
      "%c = urem i64 %r, %O", "%bp = getelementptr float, float* %bias, i64 %c",
      "%b = load float, float* %bp", "%base = mul i64 %r, %L")
    e.splat("%bv", "%b", "float")
    # whole steps while VW elements are left in the row, then one masked tail
    e("br label %j_head", "j_head:",
      "%j = phi i64 [0, %r_head], [%j.next, %j_full]",
      "%jend = add i64 %j, {VW}", "%whole = icmp ule i64 %jend, %L",
      "br i1 %whole, label %j_full, label %j_last", "j_full:")
    _body_ir(e, "f", True)
    e("%j.next = add i64 %j, {VW}", "br label %j_head",
      "j_last:", "%more = icmp ult i64 %j, %L", "br i1 %more, label %j_tail, label %j_done",
      "j_tail:")
    _body_ir(e, "t", False)
    e("br label %j_done", "j_done:",
      "%r.next = add i64 %r, 1", "%rmore = icmp ult i64 %r.next, %rows",
      "br i1 %rmore, label %r_head, label %exit", "exit:", "ret void")
    e.lines.append("}")


def _compile(lanes=None):
    built = llvm_jit.build(_rows_ir, {"sigmoid_rows": llvm_jit.c_types(*"ppppiiiifi")}, lanes)
    return None if built is None else (built[0]["sigmoid_rows"], built[1])


def available():
    """The kernel compiled for this host (once per process)."""
    if "fn" not in _STATE:
        _STATE["fn"] = _compile()
    return _STATE["fn"] is not None


def sigmoid_rows(a, bias, residual, act, beta=1.0, out=None):
    """``v = (a + bias[c]) + residual`` over ``a`` (N, O, ...) float32
    C-contiguous (``bias``: (O,) float32 or None, ``residual``: shaped as ``a``
    or None), then ``v * sigmoid(beta * v)`` (``act`` swish/silu) or
    ``sigmoid(v)`` (sigmoid), into ``out`` (shaped as ``a``; ``a`` itself when
    None: in place).  Returns ``out``."""
    if not available():
        raise RuntimeError("sigmoid_rows: the kernel is not available on this host")
    if a.dtype != np.float32 or not a.flags.c_contiguous or a.ndim < 2 or act not in KINDS:
        raise ValueError("sigmoid_rows: a contiguous float32 (N, O, ...) array and one of %s; "
                         "got %s %s, %r" % (sorted(KINDS), a.dtype, a.shape, act))
    for name, arr in (("residual", residual), ("out", out)):
        if arr is not None and (arr.dtype != np.float32 or arr.shape != a.shape or
                                not arr.flags.c_contiguous):
            raise ValueError("sigmoid_rows: %s must be contiguous float32 %s, got %s %s"
                             % (name, a.shape, arr.dtype, arr.shape))
    n, o = a.shape[:2]
    b = np.full(o, -0.0, np.float32) if bias is None else np.ascontiguousarray(bias, np.float32)
    if b.shape != (o,):
        raise ValueError("sigmoid_rows: bias must be (%d,), got %s" % (o, b.shape))
    out = a if out is None else out
    _STATE["fn"][0](a.ctypes.data, out.ctypes.data, b.ctypes.data,
                    (a if residual is None else residual).ctypes.data,
                    int(residual is not None), n * o, o, a.size // max(n * o, 1), float(beta),
                    KINDS[act])
    return out
