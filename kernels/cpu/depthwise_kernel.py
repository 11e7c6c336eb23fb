"""Depthwise 3x3, 5x5 and 7x7 convolutions (one channel multiplier, dilation
1, column stride 1 or 2, any row stride, float32) as compiled loops
vectorized over channels: LLVM IR written here, compiled once per process
and kernel (kernels/cpu/llvm_jit.py).

Why: a depthwise layer's rows are short (7 to 56 outputs) and its taps many
(25, 49), so kernels/cpu/depthwise.py moves each sample to channels-last
scratch and sums taps as vectors over channels; its numba loops spent most
of their time in those two moves (a scalar strided copy per element: 5x5 on
a 14x14 map of 240 channels, batch 16, 3.2 ms for 38 MFLOP).  Here, per
sample and block of VW channels:

1. the block's planes are moved into a zero-bordered channels-last tile
   ``(Hp, Wp, VW)`` (channels_last_ir.py: VW pixels of VW channels per step,
   contiguous loads and an in-register transpose; the border is the padding,
   zeroed once per call);
2. VW output pixels of a row at a time: for each tap row, every tile vector
   those pixels read is loaded once (the column stride is compiled in, so a
   vector one pixel's tap reads and another's are one load) and multiplied
   into the accumulators of all the pixels that read it (FMA with that tap's
   weights, loaded once per block); the sums are clamped to relu / relu6
   (conv_epilogue.CLAMPS), transposed back into channel rows and stored into
   the NCHW output.  (A version with a load per tap and pixel and a scatter
   per output ran at a third of this speed.)

Sums are FMAs in tap order after the bias, so they differ from the numba
kernels' by rounding; padding taps add 0 * w.
"""
import numpy as np

from . import llvm_jit
from .channels_last_ir import lane_masks, planes_to_tile

__all__ = ["available", "SIZES", "depthwise_conv", "prepared"]

SIZES = (3, 5, 7)
STRIDES = (1, 2)        # column strides, compiled in (a tap's reads then repeat the
                        # next pixel's: loaded once); row strides are arguments
_STATE = {}


def _loop_close(e, loops, step):
    for var, head, bound, done in loops:
        e("%{v}.next = add i64 %{v}, {s}", "%{v}.more = icmp ult i64 %{v}.next, {b}",
          "br i1 %{v}.more, label %{h}, label %{d}", "{d}:", v=var, h=head, b=bound, d=done,
          s=step if var == "xo" else 1)


def _name(k, sw, px, vw):
    return "dw%d_%d" % (k, sw) if px == vw else "dw%d_%d_p%d" % (k, sw, px)


def _kernel_ir(e, k, sw, px=None):
    """Kernel ``dw<k>_<sw>`` (``px`` output pixels a step: VW, or fewer for
    narrow rows, kernel ``dw<k>_<sw>_p<px>``)."""
    vw = e.vw
    px = px or vw
    e.lines.append(
        "define void @%s(float* noalias %%x, float* noalias %%wt, float* noalias %%bias, "
        "float* noalias %%out, float* noalias %%tile, i64 %%N, i64 %%C, i64 %%H, i64 %%W, "
        "i64 %%pt, i64 %%pl, i64 %%sh, i64 %%Ho, i64 %%Wo, i64 %%Wp, float %%lo, "
        "float %%hi, i64 %%tie) {" % _name(k, sw, px, vw))
    e("entry:")
    e.clamp_setup()
    e("%HW = mul i64 %H, %W", "%OHW = mul i64 %Ho, %Wo",
      "%ncb0 = add i64 %C, {k}", "%ncb = udiv i64 %ncb0, {VW}", k=vw - 1)
    e("br label %n_head", "n_head:",
      "%n = phi i64 [0, %entry], [%n.next, %cb_done]",
      "%nc = mul i64 %n, %C",
      "br label %cb_head", "cb_head:",
      "%cb = phi i64 [0, %n_head], [%cb.next, %y_done]",
      "%c0 = mul i64 %cb, {VW}", "%cleft = sub i64 %C, %c0")
    e.splat("%clv", "%cleft", "i64")
    e("%lm = icmp ult {I} {LANES}, %clv",
      "%plane = add i64 %nc, %c0",
      "%xbase = mul i64 %plane, %HW", "%obase = mul i64 %plane, %OHW")
    taps = []
    for t in range(k * k):                      # the block's weights, tap by tap
        e("%wo{t}_a = mul i64 %C, {t}", "%wo{t} = add i64 %wo{t}_a, %c0",
          "%wp{t} = getelementptr float, float* %wt, i64 %wo{t}",
          "%wpv{t} = bitcast float* %wp{t} to {V}*",
          "%w{t} = call {V} @{LOAD}({V}* %wpv{t}, i32 4, {M} %lm, {V} zeroinitializer)", t=t)
        taps.append("%w" + str(t))
    e("%bp = getelementptr float, float* %bias, i64 %c0", "%bpv = bitcast float* %bp to {V}*",
      "%bv = call {V} @{LOAD}({V}* %bpv, i32 4, {M} %lm, {V} zeroinitializer)")
    # 1. the block's planes into the tile's interior (its border is the padding)
    e("%tfirst0 = mul i64 %pt, %Wp", "%tfirst = add i64 %tfirst0, %pl")
    planes_to_tile(e, "g", "%x", "%xbase", "%H", "%W", "%W", "%tile", "%tfirst", "%Wp")
    e("br label %y_pre", "y_pre:",
      "br label %y_head", "y_head:",
      "%y = phi i64 [0, %y_pre], [%y.next, %x_done]",
      "%iy = mul i64 %y, %sh", "%iyrow = mul i64 %iy, %Wp",
      "%orow0 = mul i64 %y, %Wo", "%orow = add i64 %obase, %orow0",
      "br label %x_head", "x_head:",
      "%xo = phi i64 [0, %y_head], [%xo.next, %{latch}]",
      "%oleft = sub i64 %Wo, %xo", latch="st_done")
    # 2. VW output pixels: the taps of each (tile rows iy .., columns (xo + p) * sw ..),
    #    clamped, transposed into channel rows, stored into the output rows
    # tap row i: the tile vectors u = p * sw + j (p: pixel, j: tap column) are
    # loaded once each and consumed at once by the FMAs that read them
    accs = ["%bv"] * px
    e("%at = add i64 %iyrow, %xo" if sw == 1 else "%at_a = mul i64 %xo, {s}",
      s=sw)
    if sw != 1:
        e("%at = add i64 %iyrow, %at_a")
    for i in range(k):
        e("%ar{i}_a = mul i64 %Wp, {i}", "%ar{i}_b = add i64 %at, %ar{i}_a",
          "%ar{i} = mul i64 %ar{i}_b, {VW}",
          "%rp{i} = getelementptr float, float* %tile, i64 %ar{i}", i=i)
        for u in range((px - 1) * sw + k):
            users = [(p, u - p * sw) for p in range(px) if 0 <= u - p * sw < k]
            e("%tp{i}_{u} = getelementptr float, float* %rp{i}, i64 {o}",
              "%tpv{i}_{u} = bitcast float* %tp{i}_{u} to {V}*",
              "%tv{i}_{u} = load {V}, {V}* %tpv{i}_{u}, align 4", i=i, u=u, o=u * vw)
            for p, j in users:
                t = i * k + j
                e("%acc{p}_{t} = call {V} @{FMA}({V} %tv{i}_{u}, {V} {w}, {V} {a})",
                  p=p, t=t, i=i, u=u, w=taps[t], a=accs[p])
                accs[p] = "%%acc%d_%d" % (p, t)
    # (fewer pixels than lanes: the transpose's other rows are zeros, never stored)
    outs = [e.clamp("o" + str(p), accs[p]) for p in range(px)] + \
        ["zeroinitializer"] * (vw - px)
    if px < vw:
        e("%onar = icmp ult i64 %oleft, {p}", "%oleftp = select i1 %onar, i64 %oleft, i64 {p}",
          p=px)
    rows = e.transpose("st", outs)
    for ch in range(vw):
        e("%oi{l}_a = mul i64 %OHW, {l}", "%oi{l}_b = add i64 %orow, %oi{l}_a",
          "%oi{l} = add i64 %oi{l}_b, %xo",
          "%op{l} = getelementptr float, float* %out, i64 %oi{l}",
          "%opv{l} = bitcast float* %op{l} to {V}*", l=ch)
    # plain stores wherever every channel row's VW lanes end inside its plane
    # (lanes past the row's end land on the next row's first pixels, stored
    # later); masked ones only at a plane's last pixels and past the last
    # channel: with AVX2 a masked store costs far more than a plain one on some
    # cores (Zen 3: 384 channels of 14x14 0.20 -> 0.11 ms with plain stores for
    # whole steps, 0.10 -> 0.07 ms and 960 of 7x7 0.12 -> 0.09 ms with these)
    e("%send0 = add i64 %orow0, %xo", "%send = add i64 %send0, {VW}",
      "%sfullp = icmp ule i64 %send, %OHW", "%sfullc = icmp uge i64 %cleft, {VW}",
      "%sfull = and i1 %sfullp, %sfullc",
      "br i1 %sfull, label %st_full, label %st_mask", "st_full:")
    for ch, row in enumerate(rows):
        e("store {V} {r}, {V}* %opv{l}, align 4", l=ch, r=row)
    e("br label %st_done", "st_mask:")
    lane_masks(e, "s", "%oleftp" if px < vw else "%oleft")
    for ch, row in enumerate(rows):
        e("call void @{STORE}({V} {r}, {V}* %opv{l}, i32 4, {M} %sm{l})", l=ch, r=row)
    e("br label %st_done", "st_done:")
    _loop_close(e, [("xo", "x_head", "%Wo", "x_done"), ("y", "y_head", "%Ho", "y_done"),
                    ("cb", "cb_head", "%ncb", "cb_done"), ("n", "n_head", "%N", "exit")], px)
    e("ret void")
    e.lines.append("}")


def _compile(k, sw, lanes=None, px=None):
    vw = llvm_jit.vector_lanes(lanes)
    if vw is None:
        return None
    name = _name(k, sw, px or vw, vw)
    built = llvm_jit.build(lambda e: _kernel_ir(e, k, sw, px),
                           {name: llvm_jit.c_types(*"ppppp" + "i" * 10 + "ffi")}, lanes)
    return None if built is None else (built[0][name], built[1])


# outputs at most this wide (7x7 maps) take kernels computing this many pixels a
# step instead of VW (16 computed 7 useful ones): MobileNets' 7x7 layers 0.75-0.92x
# the time (960 channels 3x3 58 -> 50 us, 5x5 110 -> 82), same bits; 14-wide rows
# as two 7-pixel steps were 1.02-1.18x slower, so they keep VW
NARROW = 7


def _narrow(k, sw):
    """The NARROW-pixel kernel of size ``k`` and column stride ``sw`` where the
    vectors are wider than NARROW (compiled when first asked for), else None."""
    key = (k, sw, NARROW)
    if key not in _STATE:
        wide = _STATE.get((k, sw))
        _STATE[key] = _compile(k, sw, px=NARROW) if wide and wide[1] > NARROW else None
    return _STATE[key]


def available(k=3, sw=1):
    """The kernel of size ``k`` and column stride ``sw`` compiled for this host
    (each once per process, when first asked for: 0.1-0.3 s)."""
    key = (k, sw)
    if key not in _STATE:
        _STATE[key] = _compile(k, sw) if k in SIZES and sw in STRIDES else None
    return _STATE[key] is not None


def prepared(w, bias, pads, strides, clamp):
    """``depthwise_conv`` with the filter, bias, geometry and clamp of a layer
    fixed (a loaded model's): returns ``run(x, out) -> result or None``, its
    weights transposed and its arguments made once (on 960 channels of 7x7 the
    kernel takes ~47 us, and all the Python around it ~14 us when made on the
    spot, ~5 prepared), or None where these kernels do not apply to the filter."""
    k = w.shape[-1]
    if w.dtype != np.float32 or w.ndim != 4 or w.shape[1:] != (1, k, k) or \
            not available(k, strides[1]) or \
            (bias is not None and (bias.dtype != np.float32 or bias.shape != (w.shape[0],))):
        return None
    fn, vw = _STATE[k, strides[1]]
    c = w.shape[0]
    sh, sw = strides
    (pt, _), (pl, _) = pads
    wt = np.ascontiguousarray(w[:, 0].transpose(1, 2, 0))       # (k, k, C): a tap's C weights
    b = np.zeros(c, np.float32) if bias is None else np.ascontiguousarray(bias)
    lo, hi, tie = clamp
    consts = (wt.ctypes.data, b.ctypes.data)
    tail = (float(lo), float(hi), int(tie))

    def run(x, out):
        if type(x) is not np.ndarray or x.dtype != np.float32 or x.ndim != 4 or \
                x.shape[1] != c or not (x.size and all(out)):
            return None
        n, _, h, wd = x.shape
        ho, wo = out
        kern = fn
        if wo <= NARROW:
            narrow = _narrow(k, sw)
            kern = fn if narrow is None else narrow[0]
        hp = max(pt + h, (ho - 1) * sh + k)
        wp = max(pl + wd, (wo - 1) * sw + k) + 2 * vw * max(sw, 1)
        x = np.ascontiguousarray(x)
        # slack past the last row: the tail steps write zeros past a row's end and
        # read taps for outputs past Wo (not stored)
        tile = np.zeros((hp + 2 * k + 2, wp, vw), np.float32)
        res = np.empty((n, c, ho, wo), np.float32)
        kern(x.ctypes.data, *consts, res.ctypes.data, tile.ctypes.data, n, c, h, wd, pt, pl, sh,
             ho, wo, wp, *tail)
        return res
    run.keep = (wt, b)
    return run


def depthwise_conv(x, w, bias, pads, strides, out, clamp):
    """``clamp(depthwise(x, w) + bias)`` (NCHW float32; ``w`` (C, 1, k, k), k in
    SIZES; ``pads`` ((top, bottom), (left, right)); output sizes ``out``;
    ``clamp`` (lo, hi, tie)) into a new array, or None where these kernels do not
    apply (not compiled here, another dtype or size)."""
    run = prepared(w, bias, pads, strides, clamp)
    return None if run is None else run(x, out)
