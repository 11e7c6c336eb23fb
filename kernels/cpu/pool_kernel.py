"""The 3x3 stride-2 max pool with padding 1 on planes of even sizes (the stem
pool of ResNets, ResNeXts, ShuffleNetV2 and DenseNets), float32, as a
compiled loop over each NCHW plane vectorized along its output rows: LLVM IR
written here, compiled once per process (kernels/cpu/llvm_jit.py).

Why: numba's separable loops (kernels/cpu/pool_compiled.py ``pool_rows``)
read their strided columns a value at a time (ShuffleNetV2's 16x24x112x112
pool: 5.7 ms where oneDNN takes 1.4).  Here each plane is copied once into a
scratch plane bordered with -inf, its rows split into even and odd padded
columns (kernels/cpu/planes_ir.py), so the three columns of every window are
contiguous vectors; per VW outputs of a row: the window's rows combined
column by column, then its columns, in the separable path's order (the
offsets in every window first: rows 2y and 2y + 1, then 2y - 1; the same for
columns) with np.maximum's rule (NaN from either side, the second on a tie),
so the results are that path's bits, signed zeros included; a border value
(-inf) changes nothing under that rule.  A row's last step starts VW outputs
before its end (recomputing a few), so every store stays in its row.

The 2x2 stride-2 max pool without padding (VGG's pools, the small CNNs') is
the second kernel here: its windows need no border, so it reads the planes in
place, 2 VW contiguous columns of both rows a step, the rows combined, then
the even and odd columns split by two shuffles and combined (the separable
path's order again).  numba's loop (pool_compiled.py, which keeps float64 and
outputs narrower than a vector) reads every second column a value at a time:
32x16x32x32 0.21 -> 0.09 ms, 32x32x16x16 0.13 -> 0.06 ms on one AVX2 core;
VGG's 16x64x224x224 is memory-bound either way (28-30 ms).
"""
import numpy as np

from . import llvm_jit
from .planes_ir import copy_plane, tail_masks

__all__ = ["max_pool_3x3_s2", "max_pool_2x2_s2"]

_STATE = {}


def _np_max(e, r, a, b):
    """``%r = np.maximum(a, b)``: a where a > b or a is NaN, else b."""
    e("%{r}_gt = fcmp ogt {V} {a}, {b}", "%{r}_na = fcmp uno {V} {a}, {a}",
      "%{r}_ka = or {M} %{r}_gt, %{r}_na", "%{r} = select {M} %{r}_ka, {V} {a}, {V} {b}",
      r=r, a=a, b=b)
    return "%" + r


def _store_and_close(e, res):
    """Both kernels' end: the VW outputs ``res`` stored at column %xs of output
    row %orow, then the column, row and plane loops closed and the function."""
    e("%ooff = add i64 %orow, %xs", "%op = getelementptr float, float* %out, i64 %ooff",
      "%opv = bitcast float* %op to {V}*", "store {V} {r}, {V}* %opv, align 4",
      "%xo.next = add i64 %xo, {VW}", "%xo.more = icmp ult i64 %xo.next, %Wo",
      "br i1 %xo.more, label %x_head, label %x_done", "x_done:",
      "%y.next = add i64 %y, 1", "%y.more = icmp ult i64 %y.next, %Ho",
      "br i1 %y.more, label %y_head, label %y_done", "y_done:",
      "%q.next = add i64 %q, 1", "%q.more = icmp ult i64 %q.next, %NC",
      "br i1 %q.more, label %q_head, label %exit", "exit:", "ret void", r=res)
    e.lines.append("}")


def _kernel_ir(e):
    """Kernel ``maxpool3s2``: rows and columns of the padded plane are 2y + i
    and 2x + j for output (y, x) and window offset (i, j)."""
    e.lines.append(
        "define void @maxpool3s2(float* noalias %x, float* noalias %out, "
        "float* noalias %tile, i64 %NC, i64 %H, i64 %W, i64 %Ho, i64 %Wo, i64 %Sp) {")
    e("entry:", "%pt = add i64 0, 1", "%pl = add i64 0, 1")
    tail_masks(e, 2)
    e("%HW = mul i64 %H, %W", "%OHW = mul i64 %Ho, %Wo", "%Sh = lshr i64 %Sp, 1",
      "%npl = and i64 %pl, 1", "%pl2 = lshr i64 %pl, 1", "%lastx = sub i64 %Wo, {VW}",
      "br label %q_head", "q_head:",
      "%q = phi i64 [0, %entry], [%q.next, %y_done]",
      "%xb = mul i64 %q, %HW", "%ob = mul i64 %q, %OHW", "br label %g_pre")
    copy_plane(e, 2, "g", "%xb", "0")
    e("br label %y_head", "y_head:",
      "%y = phi i64 [0, %g_done], [%y.next, %x_done]",
      "%y2 = shl i64 %y, 1", "%orow0 = mul i64 %y, %Wo", "%orow = add i64 %ob, %orow0")
    for i in range(3):
        e("%r{i}_a = add i64 %y2, {i}", "%r{i} = mul i64 %r{i}_a, %Sp", i=i)
    e("br label %x_head", "x_head:",
      "%xo = phi i64 [0, %y_head], [%xo.next, %x_head]",
      "%xlate = icmp ugt i64 %xo, %lastx", "%xs = select i1 %xlate, i64 %lastx, i64 %xo")
    cols = []
    for j in range(3):
        v = []
        for i in range(3):
            # padded column 2x + j: phase j % 2 at x + j // 2
            e("%c{i}{j}_a = add i64 %r{i}, %xs", "%c{i}{j}_b = add i64 %c{i}{j}_a, {ph}",
              "%c{i}{j} = add i64 %c{i}{j}_b, {o}",
              "%p{i}{j} = getelementptr float, float* %tile, i64 %c{i}{j}",
              "%pv{i}{j} = bitcast float* %p{i}{j} to {V}*",
              "%v{i}{j} = load {V}, {V}* %pv{i}{j}, align 4",
              i=i, j=j, ph="%Sh" if j % 2 else "0", o=j // 2)
            v.append("%%v%d%d" % (i, j))
        # the rows (window offsets 1 and 2 reach every output, then 0)
        cols.append(_np_max(e, "rc%d" % j, _np_max(e, "ra%d" % j, v[1], v[2]), v[0]))
    res = _np_max(e, "cc", _np_max(e, "ca", cols[1], cols[2]), cols[0])
    _store_and_close(e, res)


def _kernel2_ir(e):
    """Kernel ``maxpool2s2``: output (y, x) of a plane is the maximum of rows
    2y, 2y + 1 and columns 2x, 2x + 1 of the unpadded input: per VW outputs,
    2 VW contiguous columns of each row, the rows combined first, then the even
    and odd columns (two shuffles), as the separable path does."""
    ev = ", ".join("i32 %d" % (2 * i) for i in range(e.vw))
    od = ", ".join("i32 %d" % (2 * i + 1) for i in range(e.vw))
    e.lines.append(
        "define void @maxpool2s2(float* noalias %x, float* noalias %out, "
        "i64 %NC, i64 %H, i64 %W, i64 %Ho, i64 %Wo) {")
    e("entry:", "%HW = mul i64 %H, %W", "%OHW = mul i64 %Ho, %Wo",
      "%lastx = sub i64 %Wo, {VW}", "br label %q_head", "q_head:",
      "%q = phi i64 [0, %entry], [%q.next, %y_done]",
      "%xb = mul i64 %q, %HW", "%ob = mul i64 %q, %OHW", "br label %y_head", "y_head:",
      "%y = phi i64 [0, %q_head], [%y.next, %x_done]",
      "%y2 = shl i64 %y, 1", "%r0a = mul i64 %y2, %W", "%r0 = add i64 %xb, %r0a",
      "%r1 = add i64 %r0, %W", "%orow0 = mul i64 %y, %Wo", "%orow = add i64 %ob, %orow0",
      "br label %x_head", "x_head:",
      "%xo = phi i64 [0, %y_head], [%xo.next, %x_head]",
      "%xlate = icmp ugt i64 %xo, %lastx", "%xs = select i1 %xlate, i64 %lastx, i64 %xo",
      "%c = shl i64 %xs, 1")
    for r in range(2):
        for h in range(2):
            e("%a{r}{h}i = add i64 %r{r}, %c", "%a{r}{h}j = add i64 %a{r}{h}i, {o}",
              "%a{r}{h}p = getelementptr float, float* %x, i64 %a{r}{h}j",
              "%a{r}{h}v = bitcast float* %a{r}{h}p to {V}*",
              "%a{r}{h} = load {V}, {V}* %a{r}{h}v, align 4", r=r, h=h, o=h * e.vw)
    m0 = _np_max(e, "m0", "%a00", "%a10")
    m1 = _np_max(e, "m1", "%a01", "%a11")
    e("%ev = shufflevector {V} {a}, {V} {b}, <{VW} x i32> <{ev}>",
      "%od = shufflevector {V} {a}, {V} {b}, <{VW} x i32> <{od}>", a=m0, b=m1, ev=ev, od=od)
    res = _np_max(e, "cc", "%ev", "%od")
    _store_and_close(e, res)


def _kernel():
    """({name: function}, lanes), compiled when first asked for; None where it
    cannot be."""
    if "fn" not in _STATE:
        _STATE["fn"] = llvm_jit.build(
            lambda e: (_kernel_ir(e), _kernel2_ir(e)),
            {"maxpool3s2": llvm_jit.c_types(*"ppp" + "i" * 6),
             "maxpool2s2": llvm_jit.c_types(*"pp" + "i" * 5)})
    return _STATE["fn"]


def max_pool_2x2_s2(x, geo):
    """The pool of ``x`` (N, C, H, W) for pool.py's geometry ``geo``, or None
    where it is not this one (2x2, stride 2, no padding, outputs at least VW
    wide, float32) or the kernel does not compile here.  An odd last row or
    column (no window reads it) is never read."""
    if x.dtype != np.float32 or x.ndim != 4 or tuple(geo.k) != (2, 2) or \
            tuple(geo.s) != (2, 2) or any(tuple(p) != (0, 0) for p in geo.pads):
        return None
    n, c, h, w = x.shape
    ho, wo = geo.out
    if not x.size or 2 * ho > h or 2 * wo > w:
        return None
    built = _kernel()
    if built is None or wo < built[1]:
        return None
    x = np.ascontiguousarray(x)
    res = np.empty((n, c, ho, wo), np.float32)
    built[0]["maxpool2s2"](x.ctypes.data, res.ctypes.data, n * c, h, w, ho, wo)
    return res


def max_pool_3x3_s2(x, geo):
    """The pool of ``x`` (N, C, H, W) for pool.py's geometry ``geo``, or None
    where it is not this one (3x3, stride 2, padding 1 on every side, H and W
    even, outputs H / 2 x W / 2 at least VW wide, float32) or the kernel does
    not compile here."""
    if x.dtype != np.float32 or x.ndim != 4 or tuple(geo.k) != (3, 3) or \
            tuple(geo.s) != (2, 2) or tuple(map(tuple, geo.pads)) != ((1, 1), (1, 1)):
        return None
    n, c, h, w = x.shape
    if h % 2 or w % 2 or not x.size or tuple(geo.out) != (h // 2, w // 2):
        return None
    built = _kernel()
    if built is None or w // 2 < built[1]:
        return None
    fn, vw = built[0]["maxpool3s2"], built[1]
    ho, wo = h // 2, w // 2
    # padded rows 0 .. h (row h + 1 is never read); a phase row holds the copy's
    # whole steps (vw columns each) past the left border, and the last step's reads
    half = -(-max(-(-w // (2 * vw)) * vw + 1, wo + 1) // vw) * vw
    tile = np.full((h + 1, 2 * half), -np.inf, np.float32)
    x = np.ascontiguousarray(x)
    res = np.empty((n, c, ho, wo), np.float32)
    fn(x.ctypes.data, res.ctypes.data, tile.ctypes.data, n * c, h, w, ho, wo, 2 * half)
    return res
