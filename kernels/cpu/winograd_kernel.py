"""The two tile transforms of Winograd F(4x4, 3x3) and F(2x2, 5x5)
(kernels/cpu/winograd.py) as compiled loops, vectorized over channels: LLVM IR
written here, compiled once per process (kernels/cpu/llvm_jit.py) for float32
with the host's vector width, one pair of functions per output tile size m (4
or 2: both read 6x6 windows through the same B^T, ``m`` apart, and apply their
own A^T).

Why: done with numpy, each transform is a dense GEMM by a Kronecker matrix
(36 x 36 for the input: 1296 multiply-adds per tile and channel where the
transform needs about 100 additions) plus the copies around it (the padded
input, the tile windows, the output's transpose into NCHW, then the bias,
residual and activation passes): at batch 1 they took 2-3x the time of the
36 products on a 64-channel 56x56 layer.  Here each is one pass:

- ``input_transform``: per sample and block of VW channels, the band's input
  rows are moved to a zero-bordered channels-last tile (channels_last_ir.py:
  contiguous loads, an in-register transpose, no padded copy of the input);
  then for every m x m output tile the 36 vectors of its 6x6 window are loaded
  from it, B^T d B is computed in registers (the additions of the matrices
  below, zeros skipped) and the 36 results are stored as V^T[xi, tile,
  channels] (36, T, C): the rows the products read (the GEMM kernel's
  broadcast operand, or BLAS's A); plain stores for a block of VW channels,
  masked ones for a last partial block only (in-process A/B against masked
  stores throughout, AVX2 on Zen 3: 0.87-0.97x at batch 1, 0.98-1.04x at 16).
- ``output_transform``: per sample and block of VW output channels, for every
  tile the 36 products M^T[xi, tile, channels] (36, T, O) are loaded, A^T M A
  computed and the bias added into a channels-last output tile, which is then
  moved back to NCHW with the residual (as the unfused adds: ``(conv + bias)
  + residual``) and the clamp of a relu/relu6 epilogue (conv_epilogue.CLAMPS:
  below ``lo``, or equal to it with ``tie``, becomes ``lo``; above ``hi``
  becomes ``hi``; NaN passes) applied on the way.

A first version gathered each window pixel from NCHW and scattered each
output (one gather or scatter per VW values, no tiles): the transposes took
0.63-0.99x its layer time (most at batch 1 and on narrow layers).

Tile t of a call is ``(n * nty + (ty - ty0)) * tw + tx`` for the samples of
the call, tile rows ``ty0 .. ty0 + nty - 1`` and ``tw`` tiles per row (a band
of a large map, or whole maps).  The arithmetic is float32 in the order of
the matrices' rows, so results differ from the numpy transforms by rounding.
"""
import numpy as np

from . import llvm_jit
from .channels_last_ir import planes_to_tile, tile_to_planes

__all__ = ["available", "input_transform", "output_transform"]

BT = ((4, 0, -5, 0, 1, 0), (0, -4, -4, 1, 1, 0), (0, 4, -4, -1, 1, 0),
      (0, -2, -1, 2, 1, 0), (0, 2, -1, -2, 1, 0), (0, 4, 0, -5, 0, 1))
# A^T per output tile size m: F(4x4, 3x3) and F(2x2, 5x5) share the 6x6 input
# tile and B^T (the same interpolation points), so only the tile step and A^T differ
AT = {4: ((1, 1, 1, 1, 1, 0), (0, 1, -1, 2, -2, 0), (0, 1, 1, 4, 4, 0), (0, 1, -1, 8, -8, 1)),
      2: ((1, 1, 1, 1, 1, 0), (0, 1, -1, 2, -2, 1))}

_STATE = {}


def _nest(e, chans, setup, body, tiles_done):
    """Loops over samples and blocks of VW channels (%lm: the block's lane
    mask, %c0: its first channel, %plane: its first plane's index, %cleft:
    its channel count; ``setup()`` emitted there), then over the band's tile
    rows and tiles (%tyi, %tx; %t: the tile's index) around ``body()``;
    ``tiles_done()`` emitted after the tile loops, still inside the block.
    Channel blocks are the outer loop: a block's planes are moved to or from
    channels-last once (channels_last_ir.py) for all its tiles."""
    e("%HW = mul i64 %H, %W",
      "%ncb0 = add i64 {c}, {k}", "%ncb = udiv i64 %ncb0, {VW}", c=chans, k=e.vw - 1)
    e("br label %n_head", "n_head:",
      "%n = phi i64 [0, %entry], [%n.next, %cb_done]",
      "%nc = mul i64 %n, {c}",
      "br label %cb_head", "cb_head:",
      "%cb = phi i64 [0, %n_head], [%cb.next, %blk_done]",
      "%c0 = mul i64 %cb, {VW}", "%cleft0 = sub i64 {c}, %c0",
      "%cfull = icmp ult i64 %cleft0, {VW}",      # (true: a last partial block)
      "%cleft = select i1 %cfull, i64 %cleft0, i64 {VW}",
      "%plane = add i64 %nc, %c0", c=chans)
    e.splat("%clv", "%cleft", "i64")
    e("%lm = icmp ult {I} {LANES}, %clv")
    setup()
    e("br label %blk_pre", "blk_pre:",
      "br label %ty_head", "ty_head:",
      "%tyi = phi i64 [0, %blk_pre], [%tyi.next, %tx_done]",
      "%trow0 = mul i64 %n, %nty", "%trow1 = add i64 %trow0, %tyi",
      "%trow = mul i64 %trow1, %tw",
      "br label %tx_head", "tx_head:",
      "%tx = phi i64 [0, %ty_head], [%tx.next, %tx_latch]",
      "%t = add i64 %trow, %tx")
    body()
    e("br label %tx_latch", "tx_latch:",
      "%tx.next = add i64 %tx, 1", "%tx.more = icmp ult i64 %tx.next, %tw",
      "br i1 %tx.more, label %tx_head, label %tx_done", "tx_done:",
      "%tyi.next = add i64 %tyi, 1", "%tyi.more = icmp ult i64 %tyi.next, %nty",
      "br i1 %tyi.more, label %ty_head, label %tiles_done", "tiles_done:")
    tiles_done()
    e("br label %blk_done", "blk_done:",
      "%cb.next = add i64 %cb, 1", "%cb.more = icmp ult i64 %cb.next, %ncb",
      "br i1 %cb.more, label %cb_head, label %cb_done", "cb_done:",
      "%n.next = add i64 %n, 1", "%n.more = icmp ult i64 %n.next, %m",
      "br i1 %n.more, label %n_head, label %exit", "exit:", "ret void")
    e.lines.append("}")


def _store_offset(e, name, xi):
    """%<name><xi>: the element offset of (xi, %t, %c0) in a (36, tstride, ld) array."""
    e("%{n}{x}_a = mul i64 %tstride, {x}", "%{n}{x}_b = add i64 %{n}{x}_a, %t",
      "%{n}{x}_c = mul i64 %{n}{x}_b, %ld", "%{n}{x} = add i64 %{n}{x}_c, %c0", n=name, x=xi)


def _input_ir(e, m):
    e.lines.append("define void @wino_in%d(" % m + "float* noalias %x, float* noalias %vt, "
                   "float* noalias %tile, i64 %C, i64 %H, i64 %W, i64 %pt, i64 %pl, i64 %ty0, "
                   "i64 %nty, i64 %tw, i64 %m, i64 %ld, i64 %tstride, i64 %Wt, i64 %rows, "
                   "i64 %cols) {")
    e("entry:")

    def body():         # the tile's 6x6 window from the channels-last tile
        e("%wr = mul i64 %tyi, {m}", "%wc = mul i64 %tx, {m}",
          "%wrow = mul i64 %wr, %Wt", "%wat = add i64 %wrow, %wc", m=m)
        d = [[None] * 6 for _ in range(6)]
        for a in range(6):
            e("%wa{a}_a = mul i64 %Wt, {a}", "%wa{a}_b = add i64 %wat, %wa{a}_a",
              "%wa{a} = mul i64 %wa{a}_b, {VW}",
              "%wp{a} = getelementptr float, float* %tile, i64 %wa{a}", a=a)
            for b in range(6):
                e("%dp{a}{b} = getelementptr float, float* %wp{a}, i64 {o}",
                  "%dpv{a}{b} = bitcast float* %dp{a}{b} to {V}*",
                  "%d{a}{b} = load {V}, {V}* %dpv{a}{b}, align 4", a=a, b=b, o=b * e.vw)
                d[a][b] = "%%d%d%d" % (a, b)
        rows = [[e.combo(BT[i], [d[a][b] for a in range(6)]) for b in range(6)]
                for i in range(6)]
        vals = []
        for i in range(6):
            for j in range(6):
                xi = 6 * i + j
                _store_offset(e, "so", xi)
                e("%sp{x} = getelementptr float, float* %vt, i64 %so{x}",
                  "%spv{x} = bitcast float* %sp{x} to {V}*", x=xi)
                vals.append(e.combo(BT[j], rows[i]))
        # a block of VW channels stores plainly, a last partial one under its mask
        e("br i1 %cfull, label %st_mask, label %st_plain", "st_plain:")
        for xi, val in enumerate(vals):
            e("store {V} {val}, {V}* %spv{x}, align 4", x=xi, val=val)
        e("br label %st_done", "st_mask:")
        for xi, val in enumerate(vals):
            e("call void @{STORE}({V} {val}, {V}* %spv{x}, i32 4, {M} %lm)", x=xi, val=val)
        e("br label %st_done", "st_done:")

    def setup():        # the block's input rows of the band into the zero-bordered tile:
        # the caller's ``rows`` x ``cols`` from input row r0 = max(m ty0 - pt, 0)
        e("%fr0 = mul i64 %ty0, {m}", "%fr1 = sub i64 %fr0, %pt",
          "%fneg = icmp slt i64 %fr1, 0", "%r0 = select i1 %fneg, i64 0, i64 %fr1",
          "%tr0 = sub i64 %r0, %fr1", "%tro = mul i64 %tr0, %Wt",
          "%tfirst = add i64 %tro, %pl",
          "%xr = mul i64 %r0, %W", "%xp = mul i64 %plane, %HW", "%xfirst = add i64 %xp, %xr",
          m=m)
        planes_to_tile(e, "g", "%x", "%xfirst", "%rows", "%cols", "%W", "%tile", "%tfirst",
                       "%Wt")

    _nest(e, "%C", setup, body, lambda: None)


def _output_ir(e, m):
    at = AT[m]
    e.lines.append("define void @wino_out%d(" % m + "float* noalias %mt, float* noalias %dst, "
                   "float* noalias %bias, float* noalias %resid, float* noalias %otile, "
                   "i64 %hasres, float %lo, float %hi, i64 %tie, i64 %C, i64 %H, i64 %W, "
                   "i64 %ty0, i64 %nty, i64 %tw, i64 %m, i64 %ld, i64 %tstride, i64 %Wt, "
                   "i64 %rows) {")
    e("entry:")
    e.clamp_setup()
    e("%resb = icmp ne i64 %hasres, 0")

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
        half = [[e.combo(at[r], [prods[6 * i + j] for i in range(6)]) for j in range(6)]
                for r in range(m)]
        e("%or = mul i64 %tyi, {m}", "%oc = mul i64 %tx, {m}",
          "%orow = mul i64 %or, %Wt", "%oat = add i64 %orow, %oc", m=m)
        for r in range(m):
            e("%oa{r}_a = mul i64 %Wt, {r}", "%oa{r}_b = add i64 %oat, %oa{r}_a",
              "%oa{r} = mul i64 %oa{r}_b, {VW}",
              "%op{r} = getelementptr float, float* %otile, i64 %oa{r}", r=r)
            for q in range(m):
                e("%yb{r}{q} = fadd {V} {y}, %bv",
                  "%yp{r}{q} = getelementptr float, float* %op{r}, i64 {o}",
                  "%ypv{r}{q} = bitcast float* %yp{r}{q} to {V}*",
                  "store {V} %yb{r}{q}, {V}* %ypv{r}{q}, align 4",
                  r=r, q=q, o=q * e.vw, y=e.combo(at[q], half[r]))

    def tiles_done():   # the band's output rows back to NCHW, with the epilogue
        e("%frow = mul i64 %ty0, {m}", "%frw = mul i64 %frow, %W",
          "%fp = mul i64 %plane, %HW", "%ffirst = add i64 %fp, %frw", m=m)
        tile_to_planes(e, "s", "%otile", "0", "%Wt", "%rows", "%W", "%dst", "%ffirst", "%W",
                       residual=("%resid", "%resb"))

    _nest(e, "%C", lambda: None, body, tiles_done)


def _compile(lanes=None):
    tiles = tuple(AT)
    types = {}
    for m in tiles:
        types["wino_in%d" % m] = llvm_jit.c_types(*"ppp" + "i" * 14)
        types["wino_out%d" % m] = llvm_jit.c_types(*"pppppiffi" + "i" * 11)
    return llvm_jit.build(lambda e: [(_input_ir(e, m), _output_ir(e, m)) for m in tiles],
                          types, lanes)


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


def input_transform(x, vt, pads, ty0, nty, tw, tile=4):
    """V^T of the tiles ``ty0 .. ty0 + nty - 1`` (rows) x ``tw`` of every sample of
    ``x`` (M, C, H, W) into ``vt`` (36, >= M * nty * tw, C); ``pads`` (top, left);
    ``tile`` the output tile size m (4: F(4x4, 3x3), 2: F(2x2, 5x5)), the 6x6
    windows ``m`` apart."""
    _check("input", x, 4)
    _check("transformed input", vt, 3)
    if tile not in AT:
        raise ValueError(f"winograd input: tile must be one of {sorted(AT)}, got {tile}")
    m, c, h, w = x.shape
    if vt.shape[0] != 36 or vt.shape[2] != c or vt.shape[1] < m * nty * tw:
        raise ValueError(f"winograd input: V^T must be [36, >= {m * nty * tw}, {c}], "
                         f"got {list(vt.shape)}")
    fn, vw = _STATE["fn"]
    pt, pl = pads
    reach = 6 - tile                                # window rows past a tile's outputs
    first = max(tile * ty0 - pt, 0)                 # the band's input rows and columns
    rows = max(min(h, tile * (ty0 + nty) + reach - pt) - first, 0)
    cols = max(min(w, tile * tw + reach - pl), 0)
    wt = max(tile * tw + reach, pl + cols) + vw     # + a step's slack
    buf = np.zeros((tile * nty + reach, wt, vw), np.float32)
    fn["wino_in%d" % tile](x.ctypes.data, vt.ctypes.data, buf.ctypes.data, c, h, w, pt, pl,
                           ty0, nty, tw, m, c, vt.shape[1], wt, rows, cols)
    return vt


def output_transform(mt, dst, bias, residual, clamp, ty0, nty, tw, tile=4):
    """Output rows ``tile * ty0 ..`` of ``dst`` (M, O, Ho, Wo) from the products
    ``mt`` (36, >= M * nty * tw, O): ``clamp((y + bias) + residual)`` (module
    docstring); ``residual`` None or like ``dst``; ``clamp`` (lo, hi, tie);
    ``tile`` as for ``input_transform``."""
    _check("products", mt, 3)
    _check("output", dst, 4)
    _check("bias", bias, 1)
    if tile not in AT:
        raise ValueError(f"winograd output: tile must be one of {sorted(AT)}, got {tile}")
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
    fn, vw = _STATE["fn"]
    wt = tile * tw + vw
    otile = np.zeros((tile * nty, wt, vw), np.float32)
    lo, hi, tie = clamp
    fn["wino_out%d" % tile](mt.ctypes.data, dst.ctypes.data, bias.ctypes.data,
                            (dst if residual is None else residual).ctypes.data,
                            otile.ctypes.data, int(residual is not None), lo, hi, int(tie), o,
                            ho, wo, ty0, nty, tw, m, o, mt.shape[1], wt,
                            max(min(tile * nty, ho - tile * ty0), 0))
    return dst
