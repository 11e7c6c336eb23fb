"""Convolutions of few input channels (image stems: 3 -> 16..64 channels,
3x3, 5x5 or 7x7, the same stride 1 or 2 on both axes, dilation 1, ungrouped,
float32 NCHW) as compiled loops vectorized along output rows: LLVM IR
written here, compiled once per process and kernel (kernels/cpu/llvm_jit.py).

Why: with 3 input channels a stem's GEMM has K = 27 (3x3) or 147 (7x7), so
im2col or the implicit GEMM of conv_implicit.py spend as much time on the
windows, the phases of a stride-2 input and the bias and crop passes as on
the products (MobileNetV2's 3 -> 32 stem at batch 1 on one AVX2 core: 0.84 ms
where oneDNN takes 0.24-0.31).  Here, per sample:

1. its C planes are copied into zero-bordered scratch planes (the border is
   the padding), each row split into its even and odd padded columns for
   stride 2, so every tap reads contiguous columns (planes_ir.py);
2. for each output row, PV vectors of VW output columns by OB output
   channels a step: for each tap (c, i, j) the PV scratch vectors it reads
   are loaded once and multiplied into the OB x PV sums (FMA with the tap's
   OB weights, each broadcast from the filter packed once per layer as
   (O / OB, C, k, k, OB)); the sums start at the bias, are clamped
   (conv_epilogue.CLAMPS) and stored with plain stores.  A row's last step
   starts PV x VW columns before its end (recomputing a few) so every store
   stays in its row.  A 5x5 or 7x7 stem's taps run as a loop over each
   input channel's k rows with the row's k taps unrolled: all 147 of a 7x7
   stem unrolled made a body of ~2,400 instructions that ran at 36 GFLOP/s
   on one Zen 3 core (ResNet's 3 -> 64 stem at batch 1: 6.5 ms); the loop's
   body of ~110 runs at 60-70 (3.3-3.5 ms; oneDNN's in a model run 2.5).  3x3 stems
   (27 taps) stay unrolled (the loop measured 0.96-1.09x their time).

Sums are FMAs in tap order (c, i, j) after the bias; padding taps add 0 * w.
Only where output rows are at least PV x VW wide and O is a multiple of OB.
"""
import numpy as np

from . import llvm_jit
from .planes_ir import copy_plane, tail_masks

__all__ = ["available", "stem_conv", "takes", "LANES", "SIZES", "MAX_CHANNELS"]

SIZES = (3, 5, 7)
STRIDES = (1, 2)
MAX_CHANNELS = 4        # input channels (compiled in, one kernel per count)
OB, PV = 4, 2           # output channels and vectors of output columns a step
UNROLL_TAPS = 32        # at most this many taps (3x3 stems) are unrolled whole
# the vector widths where stems take this kernel: measured with AVX2 (with
# AVX-512 the pass of inference/conv_pack.py gives stems the transposed kernel)
LANES = {8}
_STATE = {}


def _kernel_ir(e, k, s, c_in):
    """Kernel ``stem<k>_<s>_<c_in>``."""
    vw = e.vw
    e.lines.append(
        "define void @stem%d_%d_%d(float* noalias %%x, float* noalias %%wp, "
        "float* noalias %%bias, float* noalias %%out, float* noalias %%tile, i64 %%N, "
        "i64 %%H, i64 %%W, i64 %%pt, i64 %%pl, i64 %%Ho, i64 %%Wo, i64 %%Hs, i64 %%Sp, "
        "i64 %%NB, float %%lo, float %%hi, i64 %%tie) {" % (k, s, c_in))
    e("entry:")
    e.clamp_setup()
    tail_masks(e, s)
    e("%HW = mul i64 %H, %W", "%OHW = mul i64 %Ho, %Wo", "%Tsz = mul i64 %Hs, %Sp",
      "%Sh = lshr i64 %Sp, 1", "%npl = and i64 %pl, 1", "%pl2 = lshr i64 %pl, 1",
      "%O = mul i64 %NB, {ob}", "%lastx = sub i64 %Wo, {step}", ob=OB, step=PV * vw)
    for c in range(c_in):
        e("%tc{c} = mul i64 %Tsz, {c}", "%tp{c} = getelementptr float, float* %tile, i64 %tc{c}",
          c=c)
    e("br label %n_head", "n_head:",
      "%n = phi i64 [0, %entry], [%n.next, %y_done]",
      "%nc = mul i64 %n, {c}", "%obase = mul i64 %n, %O", c=c_in)
    # 1. the sample's planes into the scratch
    for c in range(c_in):
        e("%xp{c}_a = add i64 %nc, {c}", "%xp{c} = mul i64 %xp{c}_a, %HW",
          "br label %c{c}_pre", c=c)
        copy_plane(e, s, "c%d" % c, "%%xp%d" % c, "%%tc%d" % c)
    # 2. output rows, PV x VW columns by OB channels a step
    e("br label %y_head", "y_head:",
      "%y = phi i64 [0, %c{last}_done], [%y.next, %x_done]",
      "%iy = mul i64 %y, {s}", "%tr = mul i64 %iy, %Sp", "%orow = mul i64 %y, %Wo",
      last=c_in - 1, s=s)
    for i in range(k):
        e("%ro{i}_a = mul i64 %Sp, {i}", "%ro{i} = add i64 %tr, %ro{i}_a", i=i)
    e("br label %x_head", "x_head:",
      "%xo = phi i64 [0, %y_head], [%xo.next, %b_done]",
      "%xlate = icmp ugt i64 %xo, %lastx",
      "%xs0 = select i1 %xlate, i64 %lastx, i64 %xo")
    for v in range(1, PV):
        e("%xs{v} = add i64 %xs0, {o}", v=v, o=v * vw)
    e("br label %b_head", "b_head:",
      "%b = phi i64 [0, %x_head], [%b.next, %LATCH]",
      "%wb = mul i64 %b, {per}", "%ch0 = mul i64 %b, {ob}", per=c_in * k * k * OB, ob=OB)
    accs = {}
    for q in range(OB):
        e("%bi{q} = add i64 %ch0, {q}", "%bp{q} = getelementptr float, float* %bias, i64 %bi{q}",
          "%bs{q} = load float, float* %bp{q}", q=q)
        e.splat("%%bv%d" % q, "%%bs%d" % q, "float")
        for v in range(PV):
            accs[q, v] = "%%bv%d" % q
    latch = "b_head"            # the block that closes the channel-block loop
    if c_in * k * k <= UNROLL_TAPS:
        for c in range(c_in):
            for i in range(k):
                for j in range(k):
                    _tap(e, s, c, j, "%d_%d_%d" % (c, i, j), "%%ro%d" % i, "%wb",
                         ((c * k + i) * k + j) * OB, accs)
    else:
        # a loop over the k rows of each input channel, the row's k taps
        # unrolled in it (all c * k * k unrolled, 7x7 stems ran from a body
        # of ~2,400 instructions at 36 GFLOP/s; a row's ~110 stay in the op
        # cache); the sums are the loop's phis
        prev = "b_head"
        for c in range(c_in):
            blk = "r%d" % c
            e("br label %{blk}", "{blk}:", blk=blk)
            at = len(e.lines)                   # the phis go here, once the body is written
            e("%{blk}ro_a = mul i64 %{blk}i, %Sp", "%{blk}ro = add i64 %tr, %{blk}ro_a",
              "%{blk}w_a = add i64 %{blk}i, {ck}", "%{blk}w_b = mul i64 %{blk}w_a, {row}",
              "%{blk}w = add i64 %{blk}w_b, %wb",
              blk=blk, ck=c * k, row=k * OB)
            cur = {key: "%%%sacc%d_%d" % (blk, key[0], key[1]) for key in accs}
            for j in range(k):
                _tap(e, s, c, j, "%s_%d" % (blk, j), "%%%sro" % blk, "%%%sw" % blk, j * OB, cur)
            e("%{blk}i.next = add i64 %{blk}i, 1", "%{blk}more = icmp ult i64 %{blk}i.next, {k}",
              "br i1 %{blk}more, label %{blk}, label %{blk}_done", "{blk}_done:", blk=blk, k=k)
            body, e.lines = e.lines[at:], e.lines[:at]
            e("%{blk}i = phi i64 [0, %{prev}], [%{blk}i.next, %{blk}]", blk=blk, prev=prev)
            for key in accs:
                e("%{blk}acc{q}_{v} = phi {V} [{a}, %{prev}], [{b}, %{blk}]", blk=blk,
                  q=key[0], v=key[1], a=accs[key], b=cur[key], prev=prev)
            e.lines += body
            accs, prev = cur, blk + "_done"
        latch = prev
    e.lines = [ln.replace("%LATCH", "%" + latch) for ln in e.lines]
    for (q, v), acc in accs.items():
        val = e.clamp("o%d_%d" % (q, v), acc)
        e("%oc{q}_{v}_a = add i64 %obase, %ch0", "%oc{q}_{v}_b = add i64 %oc{q}_{v}_a, {q}",
          "%oc{q}_{v}_c = mul i64 %oc{q}_{v}_b, %OHW", "%oc{q}_{v}_d = add i64 %oc{q}_{v}_c, %orow",
          "%oc{q}_{v} = add i64 %oc{q}_{v}_d, %xs{v}",
          "%op{q}_{v} = getelementptr float, float* %out, i64 %oc{q}_{v}",
          "%opv{q}_{v} = bitcast float* %op{q}_{v} to {V}*",
          "store {V} {r}, {V}* %opv{q}_{v}, align 4", q=q, v=v, r=val)
    e("%b.next = add i64 %b, 1", "%b.more = icmp ult i64 %b.next, %NB",
      "br i1 %b.more, label %b_head, label %b_done", "b_done:",
      "%xo.next = add i64 %xo, {step}", "%xo.more = icmp ult i64 %xo.next, %Wo",
      "br i1 %xo.more, label %x_head, label %x_done", "x_done:",
      "%y.next = add i64 %y, 1", "%y.more = icmp ult i64 %y.next, %Ho",
      "br i1 %y.more, label %y_head, label %y_done", "y_done:",
      "%n.next = add i64 %n, 1", "%n.more = icmp ult i64 %n.next, %N",
      "br i1 %n.more, label %n_head, label %exit", "exit:", "ret void", step=PV * vw)
    e.lines.append("}")


def _tap(e, s, c, j, t, row, wbase, woff, accs):
    """Tap (c, i, j) of a step (``row``: the tap row's offset in the scratch
    plane; the tap's OB weights at ``wbase + woff``): its PV input vectors
    loaded once, FMA'd with each weight into ``accs`` (updated)."""
    for v in range(PV):
        # stride 1: column xs + j; stride 2: phase j % 2, column xs + j // 2
        e("%ti{t}_{v}_a = add i64 {row}, %xs{v}",
          "%ti{t}_{v} = add i64 %ti{t}_{v}_a, {ph}",
          "%tq{t}_{v}_a = getelementptr float, float* %tp{c}, i64 %ti{t}_{v}",
          "%tq{t}_{v} = getelementptr float, float* %tq{t}_{v}_a, i64 {off}",
          "%tv{t}_{v} = bitcast float* %tq{t}_{v} to {V}*",
          "%x{t}_{v} = load {V}, {V}* %tv{t}_{v}, align 4",
          t=t, v=v, c=c, row=row, ph="%Sh" if s == 2 and j % 2 else "0",
          off=j if s == 1 else j // 2)
    for q in range(OB):
        e("%wi{t}_{q} = add i64 {wb}, {o}",
          "%wq{t}_{q} = getelementptr float, float* %wp, i64 %wi{t}_{q}",
          "%ws{t}_{q} = load float, float* %wq{t}_{q}", t=t, q=q, wb=wbase, o=woff + q)
        e.splat("%%w%s_%d" % (t, q), "%%ws%s_%d" % (t, q), "float")
        for v in range(PV):
            e("%a{t}_{q}_{v} = call {V} @{FMA}({V} %x{t}_{v}, {V} %w{t}_{q}, {V} {a})",
              t=t, q=q, v=v, a=accs[q, v])
            accs[q, v] = "%%a%s_%d_%d" % (t, q, v)


def _kernel(k, s, c_in):
    """(function, lanes) of kernel ``stem<k>_<s>_<c_in>`` at the width of
    ``available()``, compiled when first asked for (0.1-0.5 s); None where it
    does not compile here."""
    lanes = available()
    key = (k, s, c_in, lanes)
    if key not in _STATE:
        name = "stem%d_%d_%d" % key[:3]
        built = llvm_jit.build(lambda e: _kernel_ir(e, k, s, c_in),
                               {name: llvm_jit.c_types(*"ppppp" + "i" * 10 + "ffi")}, lanes)
        _STATE[key] = None if built is None else (built[0][name], built[1])
    return _STATE[key]


def available():
    """The vector width these kernels run at here (one of ``LANES``), or None
    (looked up once)."""
    if "lanes" not in _STATE:
        lanes = llvm_jit.vector_lanes()
        _STATE["lanes"] = lanes if lanes in LANES else None
    return _STATE["lanes"]


def takes(x, w, g, dil, strides, out):
    """Whether ``stem_conv`` takes this convolution (module docstring)."""
    if g != 1 or w.ndim != 4 or not 1 <= w.shape[1] <= MAX_CHANNELS:
        return False
    k = w.shape[-1]
    vw = available()
    return vw is not None and x.ndim == 4 and w.shape[2:] == (k, k) and k in SIZES and \
        strides[0] == strides[1] in STRIDES and tuple(dil) == (1, 1) and \
        x.dtype == np.float32 and w.dtype == np.float32 and w.shape[1] == x.shape[1] and \
        w.shape[0] % OB == 0 and len(out) == 2 and out[1] >= PV * vw and out[0] >= 1 and \
        x.size > 0          # (the kernel's loops run at least once)


def _scratch_shape(k, s, vw, h, w, pt, pl, ho, wo):
    """(rows, row length) of a scratch plane: the rows and columns every tap of
    every step reads (a phase row's with stride 2) and every copy step writes."""
    hs = max(pt + h, (ho - 1) * s + k)
    reads = wo + k
    if s == 1:
        return hs, -(-max(pl + -(-w // vw) * vw, reads) // vw) * vw
    writes = -(-w // (2 * vw)) * vw + pl // 2 + 1
    return hs, 2 * (-(-max(writes, reads) // vw) * vw)


def pack_filter(w):
    """``w`` (O, C, k, k) as (O / OB, C, k, k, OB): a tap's OB weights adjacent."""
    o, c, k, _ = w.shape
    return np.ascontiguousarray(w.reshape(o // OB, OB, c, k, k).transpose(0, 2, 3, 4, 1))


def stem_conv(x, w, bias, pads, strides, out, clamp, packed=None):
    """``clamp(conv(x, w) + bias)`` (``takes`` must hold; ``pads`` ((top,
    bottom), (left, right)); ``clamp`` (lo, hi, tie) of CLAMPS; ``packed``:
    ``pack_filter(w)`` where the caller keeps it) into a new array, or None
    where the kernel does not compile here."""
    k, s = w.shape[-1], strides[0]
    n, c, h, wd = x.shape
    o = w.shape[0]
    ho, wo = out
    built = _kernel(k, s, c)
    if built is None:
        return None
    fn, vw = built
    (pt, _), (pl, _) = pads
    hs, sp = _scratch_shape(k, s, vw, h, wd, pt, pl, ho, wo)
    wp = pack_filter(w) if packed is None else packed
    b = np.zeros(o, np.float32) if bias is None else np.ascontiguousarray(bias, np.float32)
    x = np.ascontiguousarray(x)
    tile = np.zeros((c, hs, sp), np.float32)
    res = np.empty((n, o, ho, wo), np.float32)
    lo, hi, tie = clamp
    fn(x.ctypes.data, wp.ctypes.data, b.ctypes.data, res.ctypes.data, tile.ctypes.data, n, h, wd,
       pt, pl, ho, wo, hs, sp, o // OB, float(lo), float(hi), int(tie))
    return res
