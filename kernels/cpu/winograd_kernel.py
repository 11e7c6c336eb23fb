"""The two tile transforms of Winograd F(4x4, 3x3) (kernels/cpu/winograd.py) as
compiled loops, vectorized over channels: LLVM IR written here, compiled once
per process (kernels/cpu/llvm_jit.py) for float32 with the host's vector width.

Why: done with numpy, each transform is a dense GEMM by a Kronecker matrix
(36 x 36 for the input: 1296 multiply-adds per tile and channel where the
transform needs about 100 additions) plus the copies around it (the padded
input, the tile windows, the output's transpose into NCHW, then the bias,
residual and activation passes): at batch 1 they took 2-3x the time of the
36 products on a 64-channel 56x56 layer.  Here each is one pass:

- ``input_transform``: for every tile and block of VW channels, the 36 pixels
  of its 6x6 window are gathered from the NCHW input (one masked gather each:
  the VW channels' pixels, VW planes apart; a pixel in the padding is a
  masked-off gather, so no padded copy is made), B^T d B is computed in
  registers (the additions of the matrices below, zeros skipped) and the 36
  results are stored as V^T[xi, tile, channels] (36, T, C): the rows the
  products read (the GEMM kernel's broadcast operand, or BLAS's A).
- ``output_transform``: for every tile and block of VW output channels, the
  36 products M^T[xi, tile, channels] (36, T, O) are loaded, A^T M A computed,
  the bias added, then the residual (gathered from NCHW, as the unfused adds:
  ``(conv + bias) + residual``) and the clamp of a relu/relu6 epilogue
  (conv_epilogue.CLAMPS: below ``lo``, or equal to it with ``tie``, becomes
  ``lo``; above ``hi`` becomes ``hi``; NaN passes), and the 16 outputs are
  scattered into NCHW (a position past the output's edge is masked off).

Tile t of a call is ``(n * nty + (ty - ty0)) * tw + tx`` for the samples of
the call, tile rows ``ty0 .. ty0 + nty - 1`` and ``tw`` tiles per row (a band
of a large map, or whole maps).  The arithmetic is float32 in the order of
the matrices' rows, so results differ from the numpy transforms by rounding.
"""
import numpy as np

from . import llvm_jit

__all__ = ["available", "input_transform", "output_transform"]

BT = ((4, 0, -5, 0, 1, 0), (0, -4, -4, 1, 1, 0), (0, 4, -4, -1, 1, 0),
      (0, -2, -1, 2, 1, 0), (0, 2, -1, -2, 1, 0), (0, 4, 0, -5, 0, 1))
AT = ((1, 1, 1, 1, 1, 0), (0, 1, -1, 2, -2, 0), (0, 1, 1, 4, 4, 0), (0, 1, -1, 8, -8, 1))

_STATE = {}


def _nest(e, chans, per_row, per_tile, body):
    """The loops over samples, tile rows, the row's tiles and blocks of VW
    channels (innermost: consecutive blocks read and write consecutive runs of
    a V^T or M^T row; blocks outside tiles ran 5-15% slower at batch 16), with
    ``per_row()`` emitted at each tile row (%y0: its first output row),
    ``per_tile()`` at each tile (%x0: its first output column; %t: its index)
    and ``body()`` inside (%lm: the block's lane mask, %c0: its first channel,
    %cbase: its first plane's offset)."""
    e("%HW = mul i64 %H, %W", "%CHW = mul i64 {c}, %HW", c=chans)
    e.splat("%hwv", "%HW", "i64")
    e("%laneoff = mul {I} {LANES}, %hwv",
      "%ncb0 = add i64 {c}, {k}", "%ncb = udiv i64 %ncb0, {VW}", c=chans, k=e.vw - 1)
    e("br label %n_head", "n_head:",
      "%n = phi i64 [0, %entry], [%n.next, %ty_done]",
      "%xn = mul i64 %n, %CHW",
      "br label %ty_head", "ty_head:",
      "%tyi = phi i64 [0, %n_head], [%tyi.next, %tx_done]",
      "%ty = add i64 %ty0, %tyi", "%y0 = mul i64 %ty, 4",
      "%tr0 = mul i64 %n, %nty", "%tr1 = add i64 %tr0, %tyi", "%trow = mul i64 %tr1, %tw")
    per_row()
    e("br label %tx_head", "tx_head:",
      "%tx = phi i64 [0, %ty_head], [%tx.next, %cb_done]",
      "%x0 = mul i64 %tx, 4", "%t = add i64 %trow, %tx")
    per_tile()
    e("br label %cb_head", "cb_head:",
      "%cb = phi i64 [0, %tx_head], [%cb.next, %cb_head]",
      "%c0 = mul i64 %cb, {VW}", "%cleft = sub i64 {c}, %c0", c=chans)
    e.splat("%clv", "%cleft", "i64")
    e("%lm = icmp ult {I} {LANES}, %clv",
      "%cbase0 = mul i64 %c0, %HW", "%cbase = add i64 %cbase0, %xn")
    body()
    for var, head, bound, done in (("cb", "cb_head", "%ncb", "cb_done"),
                                   ("tx", "tx_head", "%tw", "tx_done"),
                                   ("tyi", "ty_head", "%nty", "ty_done"),
                                   ("n", "n_head", "%m", "exit")):
        e("%{v}.next = add i64 %{v}, 1", "%{v}.more = icmp ult i64 %{v}.next, {b}",
          "br i1 %{v}.more, label %{h}, label %{d}", "{d}:", v=var, h=head, b=bound, d=done)
    e("ret void")
    e.lines.append("}")


def _position_mask(e, k, row_ok, col_ok):
    """%mk<k>: the lane mask where position (row, col) is inside the plane."""
    e("%ok{k} = and i1 {a}, {b}", k=k, a=row_ok, b=col_ok)
    e.splat("%okv" + k, "%ok" + k, "i1")
    e("%mk{k} = and {M} %okv{k}, %lm", k=k)


def _store_offset(e, name, xi):
    """%<name><xi>: the element offset of (xi, %t, %c0) in a (36, tstride, ld) array."""
    e("%{n}{x}_a = mul i64 %tstride, {x}", "%{n}{x}_b = add i64 %{n}{x}_a, %t",
      "%{n}{x}_c = mul i64 %{n}{x}_b, %ld", "%{n}{x} = add i64 %{n}{x}_c, %c0", n=name, x=xi)


def _input_ir(e):
    e.lines.append("define void @wino_in(float* noalias %x, float* noalias %vt, i64 %C, "
                   "i64 %H, i64 %W, i64 %pt, i64 %pl, i64 %ty0, i64 %nty, i64 %tw, i64 %m, "
                   "i64 %ld, i64 %tstride) {")
    e("entry:")

    def per_row():              # window rows inside the input (a negative wraps: outside)
        e("%ys = sub i64 %y0, %pt")
        for a in range(6):
            e("%ya{a} = add i64 %ys, {a}", "%yok{a} = icmp ult i64 %ya{a}, %H",
              "%yo{a} = mul i64 %ya{a}, %W", a=a)

    def per_tile():
        e("%xs = sub i64 %x0, %pl")
        for b in range(6):
            e("%xa{b} = add i64 %xs, {b}", "%xok{b} = icmp ult i64 %xa{b}, %W", b=b)

    def body():
        d = [[None] * 6 for _ in range(6)]
        for a in range(6):
            for b in range(6):
                k = "%d%d" % (a, b)
                _position_mask(e, k, "%yok" + str(a), "%xok" + str(b))
                e("%po{k}_a = add i64 %cbase, %yo{a}", "%po{k} = add i64 %po{k}_a, %xa{b}",
                  "%pp{k} = getelementptr float, float* %x, i64 %po{k}",
                  "%pv{k} = getelementptr float, float* %pp{k}, {I} %laneoff",
                  "%d{k} = call {V} @{GATHER}({P} %pv{k}, i32 4, {M} %mk{k}, "
                  "{V} zeroinitializer)", k=k, a=a, b=b)
                d[a][b] = "%d" + k
        rows = [[e.combo(BT[i], [d[a][b] for a in range(6)]) for b in range(6)]
                for i in range(6)]
        for i in range(6):
            for j in range(6):
                xi = 6 * i + j
                _store_offset(e, "so", xi)
                e("%sp{x} = getelementptr float, float* %vt, i64 %so{x}",
                  "%spv{x} = bitcast float* %sp{x} to {V}*",
                  "call void @{STORE}({V} {val}, {V}* %spv{x}, i32 4, {M} %lm)",
                  x=xi, val=e.combo(BT[j], rows[i]))

    _nest(e, "%C", per_row, per_tile, body)


def _output_ir(e):
    e.lines.append("define void @wino_out(float* noalias %mt, float* noalias %dst, "
                   "float* noalias %bias, float* noalias %resid, i64 %hasres, float %lo, "
                   "float %hi, i64 %tie, i64 %C, i64 %H, i64 %W, i64 %ty0, i64 %nty, "
                   "i64 %tw, i64 %m, i64 %ld, i64 %tstride) {")
    e("entry:")
    e.clamp_setup()
    e("%resb = icmp ne i64 %hasres, 0")
    e.splat("%resv", "%resb", "i1")

    def per_row():
        for r in range(4):
            e("%ya{r} = add i64 %y0, {r}", "%yok{r} = icmp ult i64 %ya{r}, %H",
              "%yo{r} = mul i64 %ya{r}, %W", r=r)

    def per_tile():
        for q in range(4):
            e("%xa{q} = add i64 %x0, {q}", "%xok{q} = icmp ult i64 %xa{q}, %W", q=q)

    def body():
        e("%bp = getelementptr float, float* %bias, i64 %c0",
          "%bpv = bitcast float* %bp to {V}*",
          "%bv = call {V} @{LOAD}({V}* %bpv, i32 4, {M} %lm, {V} zeroinitializer)")
        prods = []
        for xi in range(36):
            _store_offset(e, "lo", xi)
            e("%lp{x} = getelementptr float, float* %mt, i64 %lo{x}",
              "%lpv{x} = bitcast float* %lp{x} to {V}*",
              "%m{x} = call {V} @{LOAD}({V}* %lpv{x}, i32 4, {M} %lm, {V} zeroinitializer)",
              x=xi)
            prods.append("%m" + str(xi))
        half = [[e.combo(AT[r], [prods[6 * i + j] for i in range(6)]) for j in range(6)]
                for r in range(4)]
        for r in range(4):
            for q in range(4):
                _output(e, "%d%d" % (r, q), r, q, e.combo(AT[q], half[r]))

    _nest(e, "%C", per_row, per_tile, body)


def _output(e, k, r, q, y):
    """Output (r, q) of the tile: bias, residual, clamp, scatter into NCHW."""
    _position_mask(e, k, "%yok" + str(r), "%xok" + str(q))
    e("%yb{k} = fadd {V} {y}, %bv",
      "%po{k}_a = add i64 %cbase, %yo{r}", "%po{k} = add i64 %po{k}_a, %xa{q}",
      "%rp{k} = getelementptr float, float* %resid, i64 %po{k}",
      "%rpv{k} = getelementptr float, float* %rp{k}, {I} %laneoff",
      "%rmk{k} = and {M} %mk{k}, %resv",
      "%rv{k} = call {V} @{GATHER}({P} %rpv{k}, i32 4, {M} %rmk{k}, {V} zeroinitializer)",
      "%ya{k} = fadd {V} %yb{k}, %rv{k}",
      "%yr{k} = select {M} %resv, {V} %ya{k}, {V} %yb{k}", k=k, r=r, q=q, y=y)
    e("%dp{k} = getelementptr float, float* %dst, i64 %po{k}",
      "%dpv{k} = getelementptr float, float* %dp{k}, {I} %laneoff",
      "call void @{SCATTER}({V} {c}, {P} %dpv{k}, i32 4, {M} %mk{k})",
      k=k, c=e.clamp(k, "%yr" + k))


def _compile(lanes=None):
    vw = llvm_jit.vector_lanes(lanes)
    if vw is None:
        return None
    try:
        names = llvm_jit.intrinsics(vw)
        e = llvm_jit.Emitter(vw, names)
        e.lines.append(names["decl"])
        _input_ir(e)
        _output_ir(e)
        return llvm_jit.compile_ir("\n".join(e.lines), {
            "wino_in": llvm_jit.c_types(*"pp" + "i" * 11),
            "wino_out": llvm_jit.c_types(*"ppppiffi" + "i" * 9)})
    except Exception:           # an llvmlite that cannot build this IR
        return None


def available():
    """The transforms compiled for this host (once per process)."""
    if "fn" not in _STATE:
        _STATE["fn"] = _compile()
    return _STATE["fn"] is not None


def _check(name, a, ndim):
    if type(a) is not np.ndarray or a.dtype != np.float32 or a.ndim != ndim or \
            not a.flags.c_contiguous:
        raise ValueError(f"winograd {name}: expected a C-contiguous float32 {ndim}-D array, "
                         f"got {type(a).__name__} {getattr(a, 'dtype', '')} "
                         f"{list(getattr(a, 'shape', ()))}")


def input_transform(x, vt, pads, ty0, nty, tw):
    """V^T of the tiles ``ty0 .. ty0 + nty - 1`` (rows) x ``tw`` of every sample of
    ``x`` (M, C, H, W) into ``vt`` (36, >= M * nty * tw, C); ``pads`` (top, left)."""
    _check("input", x, 4)
    _check("transformed input", vt, 3)
    m, c, h, w = x.shape
    if vt.shape[0] != 36 or vt.shape[2] != c or vt.shape[1] < m * nty * tw:
        raise ValueError(f"winograd input: V^T must be [36, >= {m * nty * tw}, {c}], "
                         f"got {list(vt.shape)}")
    pt, pl = pads
    _STATE["fn"]["wino_in"](x.ctypes.data, vt.ctypes.data, c, h, w, pt, pl, ty0, nty, tw,
                            m, c, vt.shape[1])
    return vt


def output_transform(mt, dst, bias, residual, clamp, ty0, nty, tw):
    """Output rows ``4 ty0 ..`` of ``dst`` (M, O, Ho, Wo) from the products ``mt``
    (36, >= M * nty * tw, O): ``clamp((y + bias) + residual)`` (module docstring);
    ``residual`` None or like ``dst``; ``clamp`` (lo, hi, tie)."""
    _check("products", mt, 3)
    _check("output", dst, 4)
    _check("bias", bias, 1)
    m, o, ho, wo = dst.shape
    if mt.shape[0] != 36 or mt.shape[2] != o or mt.shape[1] < m * nty * tw or \
            bias.shape != (o,):
        raise ValueError(f"winograd output: products must be [36, >= {m * nty * tw}, {o}] "
                         f"and bias [{o}], got {list(mt.shape)}, {list(bias.shape)}")
    if residual is not None:
        _check("residual", residual, 4)
        if residual.shape != dst.shape:
            raise ValueError(f"winograd output: residual {list(residual.shape)} must have "
                             f"the output's shape {list(dst.shape)}")
    lo, hi, tie = clamp
    _STATE["fn"]["wino_out"](mt.ctypes.data, dst.ctypes.data, bias.ctypes.data,
                             (dst if residual is None else residual).ctypes.data,
                             int(residual is not None), lo, hi, int(tie), o, ho, wo, ty0,
                             nty, tw, m, o, mt.shape[1])
    return dst
