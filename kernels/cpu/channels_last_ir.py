"""Two IR loop nests shared by the channel-vectorized kernels
(kernels/cpu/depthwise_kernel.py, winograd_kernel.py): moving a block of VW
NCHW planes to a channels-last tile and back, VW pixels x VW channels per
step through an in-register transpose (``Emitter.transpose``): contiguous
loads and stores only (a gather or scatter per pixel, tried first, cost
about ten times as much).

Both are emitted inside a kernel's channel-block loop and use its values
``%cleft`` (channels left in the block, the lane count where below VW) and
``%HW`` (elements per plane).  Loops run zero or more times.
"""

__all__ = ["planes_to_tile", "tile_to_planes", "lane_masks"]


def lane_masks(e, tag, left):
    """%<tag>m<l>: lanes below ``left`` (an i64 name) where block channel l
    exists (l < %cleft), for l < VW."""
    e.splat("%" + tag + "lv", left, "i64")
    e("%{t}pm = icmp ult {I} {LANES}, %{t}lv", t=tag)
    for ch in range(e.vw):
        e("%{t}ok{l} = icmp ult i64 {l}, %cleft", t=tag, l=ch)
        e.splat("%%%sokv%d" % (tag, ch), "%%%sok%d" % (tag, ch), "i1")
        e("%{t}m{l} = and {M} %{t}pm, %{t}okv{l}", t=tag, l=ch)


def _loops_open(e, tag, rows, width, latch="_xh"):
    """for r < rows: for x < width step VW (%<tag>r, %<tag>x, %<tag>left: columns
    left in the row); blocks ``<tag>_rh``, ``<tag>_xh`` (``<tag><latch>``: the
    block that closes the step, where the body branches)."""
    e("%{t}any_r = icmp ugt i64 {rows}, 0", "%{t}any_x = icmp ugt i64 {w}, 0",
      "%{t}any = and i1 %{t}any_r, %{t}any_x",
      "br i1 %{t}any, label %{t}_pre, label %{t}_done", "{t}_pre:",
      "br label %{t}_rh", "{t}_rh:",
      "%{t}r = phi i64 [0, %{t}_pre], [%{t}r.next, %{t}_xd]",
      "br label %{t}_xh", "{t}_xh:",
      "%{t}x = phi i64 [0, %{t}_rh], [%{t}x.next, %{t}{latch}]",
      "%{t}left = sub i64 {w}, %{t}x", t=tag, rows=rows, w=width, latch=latch)


def _loops_close(e, tag, rows, width):
    e("%{t}x.next = add i64 %{t}x, {VW}", "%{t}x.more = icmp ult i64 %{t}x.next, {w}",
      "br i1 %{t}x.more, label %{t}_xh, label %{t}_xd", "{t}_xd:",
      "%{t}r.next = add i64 %{t}r, 1", "%{t}r.more = icmp ult i64 %{t}r.next, {rows}",
      "br i1 %{t}r.more, label %{t}_rh, label %{t}_done", "{t}_done:",
      t=tag, rows=rows, w=width)


def planes_to_tile(e, tag, src, first, rows, width, row_len, tile, tile_first, tile_row):
    """Rows ``0 .. rows - 1`` of the block's planes (the first plane's row 0
    starting at element ``first`` of float* ``src``, rows ``row_len`` apart)
    into pixel vectors of float* ``tile``: pixel (r, x) at vector index
    ``tile_first + r * tile_row + x``.  Each step writes VW vectors: past a
    row's ``width`` they are zeros (the tile needs VW - 1 vectors of slack
    there)."""
    t = tag
    _loops_open(e, t, rows, width, latch="_lj")
    e("%{t}ro = mul i64 %{t}r, {n}", "%{t}rb = add i64 {f}, %{t}ro",
      "%{t}src = add i64 %{t}rb, %{t}x",
      "%{t}to = mul i64 %{t}r, {tr}", "%{t}tb = add i64 {tf}, %{t}to",
      "%{t}dst = add i64 %{t}tb, %{t}x", t=t, n=row_len, f=first, tr=tile_row, tf=tile_first)
    for ch in range(e.vw):
        e("%{t}i{l}_a = mul i64 %HW, {l}", "%{t}i{l} = add i64 %{t}src, %{t}i{l}_a",
          "%{t}p{l} = getelementptr float, float* {s}, i64 %{t}i{l}",
          "%{t}pv{l} = bitcast float* %{t}p{l} to {V}*", t=t, l=ch, s=src)
    # VW whole pixels of VW channels (most steps): plain loads and no masks to
    # build; else masked loads, zeros past the row and past the last channel
    e("%{t}pfull = icmp uge i64 %{t}left, {VW}", "%{t}cfull = icmp uge i64 %cleft, {VW}",
      "%{t}full = and i1 %{t}pfull, %{t}cfull",
      "br i1 %{t}full, label %{t}_lf, label %{t}_lm", "{t}_lf:", t=t)
    for ch in range(e.vw):
        e("%{t}f{l} = load {V}, {V}* %{t}pv{l}, align 4", t=t, l=ch)
    e("br label %{t}_lj", "{t}_lm:", t=t)
    lane_masks(e, t, "%" + t + "left")
    for ch in range(e.vw):
        e("%{t}g{l} = call {V} @{LOAD}({V}* %{t}pv{l}, i32 4, {M} %{t}m{l}, "
          "{V} zeroinitializer)", t=t, l=ch)
    e("br label %{t}_lj", "{t}_lj:", t=t)
    rows_ = []
    for ch in range(e.vw):
        e("%{t}v{l} = phi {V} [%{t}f{l}, %{t}_lf], [%{t}g{l}, %{t}_lm]", t=t, l=ch)
        rows_.append("%%%sv%d" % (t, ch))
    for px, col in enumerate(e.transpose(t + "T", rows_)):
        e("%{t}q{p}_a = add i64 %{t}dst, {p}", "%{t}q{p} = mul i64 %{t}q{p}_a, {VW}",
          "%{t}o{p} = getelementptr float, float* {d}, i64 %{t}q{p}",
          "%{t}ov{p} = bitcast float* %{t}o{p} to {V}*",
          "store {V} {c}, {V}* %{t}ov{p}, align 4", t=t, p=px, c=col, d=tile)
    _loops_close(e, t, rows, width)


def tile_to_planes(e, tag, tile, tile_first, tile_row, rows, width, dst, first, row_len,
                   residual=None, clamp=True):
    """The inverse move, with the epilogue: pixel vector ``tile_first + r *
    tile_row + x`` of float* ``tile`` (reading VW - 1 vectors of slack past
    ``width``) into rows ``0 .. rows - 1`` of the block's planes of float*
    ``dst`` (row 0 of the first at element ``first``, rows ``row_len`` apart),
    plus the same element of float* ``residual`` where that is the name of an
    i1 that is true (``residual`` = (pointer, flag) or None), then the clamp
    set up by ``Emitter.clamp_setup`` (``clamp``).  Steps of VW whole pixels
    of VW channels store plainly, the rest through masks (with AVX2 a masked
    store costs far more than a plain one on some cores: Winograd layers
    0.82-0.96x their time on Zen 3 with plain stores for whole steps)."""
    t = tag
    _loops_open(e, t, rows, width, latch="_sdone")
    e("%{t}ro = mul i64 %{t}r, {n}", "%{t}rb = add i64 {f}, %{t}ro",
      "%{t}dst = add i64 %{t}rb, %{t}x",
      "%{t}to = mul i64 %{t}r, {tr}", "%{t}tb = add i64 {tf}, %{t}to",
      "%{t}src = add i64 %{t}tb, %{t}x", t=t, n=row_len, f=first, tr=tile_row, tf=tile_first)
    pixels = []
    for px in range(e.vw):
        e("%{t}q{p}_a = add i64 %{t}src, {p}", "%{t}q{p} = mul i64 %{t}q{p}_a, {VW}",
          "%{t}s{p} = getelementptr float, float* {s}, i64 %{t}q{p}",
          "%{t}sv{p} = bitcast float* %{t}s{p} to {V}*",
          "%{t}v{p} = load {V}, {V}* %{t}sv{p}, align 4", t=t, p=px, s=tile)
        pixels.append("%%%sv%d" % (t, px))
    lane_masks(e, t, "%" + t + "left")
    stores = []
    for ch, row in enumerate(e.transpose(t + "T", pixels)):
        e("%{t}i{l}_a = mul i64 %HW, {l}", "%{t}i{l} = add i64 %{t}dst, %{t}i{l}_a",
          "%{t}d{l} = getelementptr float, float* {d}, i64 %{t}i{l}",
          "%{t}dv{l} = bitcast float* %{t}d{l} to {V}*", t=t, l=ch, d=dst)
        if residual is not None:
            ptr, flag = residual
            e("%{t}rk{l} = select i1 {f}, {M} %{t}m{l}, {M} zeroinitializer",
              "%{t}rp{l} = getelementptr float, float* {r}, i64 %{t}i{l}",
              "%{t}rpv{l} = bitcast float* %{t}rp{l} to {V}*",
              "%{t}rv{l} = call {V} @{LOAD}({V}* %{t}rpv{l}, i32 4, {M} %{t}rk{l}, "
              "{V} zeroinitializer)",
              "%{t}ra{l} = fadd {V} {x}, %{t}rv{l}",
              "%{t}y{l} = select i1 {f}, {V} %{t}ra{l}, {V} {x}",
              t=t, l=ch, r=ptr, f=flag, x=row)
            row = "%%%sy%d" % (t, ch)
        if clamp:
            row = e.clamp("%s_%d" % (t, ch), row)
        stores.append(row)
    # VW whole pixels of VW channels (most steps): plain stores; else masked ones
    e("%{t}sfp = icmp uge i64 %{t}left, {VW}", "%{t}sfc = icmp uge i64 %cleft, {VW}",
      "%{t}sf = and i1 %{t}sfp, %{t}sfc",
      "br i1 %{t}sf, label %{t}_sfull, label %{t}_smask", "{t}_sfull:", t=t)
    for ch, row in enumerate(stores):
        e("store {V} {v}, {V}* %{t}dv{l}, align 4", t=t, l=ch, v=row)
    e("br label %{t}_sdone", "{t}_smask:", t=t)
    for ch, row in enumerate(stores):
        e("call void @{STORE}({V} {v}, {V}* %{t}dv{l}, i32 4, {M} %{t}m{l})",
          t=t, l=ch, v=row)
    e("br label %{t}_sdone", "{t}_sdone:", t=t)
    _loops_close(e, t, rows, width)
