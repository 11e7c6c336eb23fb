"""IR shared by the kernels that read NCHW planes through a bordered scratch
copy (kernels/cpu/stem_kernel.py: zeros, pool_kernel.py: -inf; the caller
fills the border once): a plane copied into the scratch inside its padding,
each row split into its even and odd padded columns for
stride 2 (so that a stride-2 tap reads contiguous columns), VW source columns
a step, plain loads but at a row's last step (masked: the lanes written past
the row are zeros).

Both functions are emitted inside a kernel that defines ``%x`` (the source
planes), ``%tile`` (the scratch), ``%H``, ``%W`` (a plane's size), ``%pt``,
``%pl`` (top and left padding), ``%Sp`` (a scratch row's length: two phase
rows of ``%Sh`` for stride 2), ``%npl`` (pl % 2) and ``%pl2`` (pl // 2).
"""

__all__ = ["copy_plane", "tail_masks"]


def copy_plane(e, s, t, base, dst):
    """1. Blocks ``<t>_pre`` .. ``<t>_done``: rows 0 .. H-1 of the plane at
    element ``base`` of %x into the scratch at element ``dst`` of %tile, rows
    pt .., from column pl (stride 2: padded column p to phase p % 2 at p // 2),
    VW source columns a step (2 VW for stride 2); a row's last step loads
    through masks, so the lanes it writes past the row are zeros."""
    step = e.vw * s
    e("{t}_pre:", "br label %{t}_rh", "{t}_rh:",
      "%{t}r = phi i64 [0, %{t}_pre], [%{t}r.next, %{t}_xd]",
      "%{t}src0 = mul i64 %{t}r, %W", "%{t}src = add i64 {b}, %{t}src0",
      "%{t}tr = add i64 %{t}r, %pt", "%{t}dst0 = mul i64 %{t}tr, %Sp",
      "%{t}dst = add i64 %{t}dst0, {d}",
      "br label %{t}_xh", "{t}_xh:",
      "%{t}x = phi i64 [0, %{t}_rh], [%{t}x.next, %{t}_lj]",
      "%{t}left = sub i64 %W, %{t}x", "%{t}i = add i64 %{t}src, %{t}x",
      "%{t}full = icmp uge i64 %{t}left, {st}", t=t, b=base, d=dst, st=step)
    for h in range(s):
        e("%{t}i{h} = add i64 %{t}i, {o}",
          "%{t}p{h} = getelementptr float, float* %x, i64 %{t}i{h}",
          "%{t}pv{h} = bitcast float* %{t}p{h} to {V}*", t=t, h=h, o=h * e.vw)
    # whole steps: plain loads; a row's last, partial one: the tail masks
    # (made once, tail_masks)
    e("br i1 %{t}full, label %{t}_lf, label %{t}_lm", "{t}_lf:", t=t)
    for h in range(s):
        e("%{t}f{h} = load {V}, {V}* %{t}pv{h}, align 4", t=t, h=h)
    e("br label %{t}_lj", "{t}_lm:", t=t)
    for h in range(s):
        e("%{t}g{h} = call {V} @{LOAD}({V}* %{t}pv{h}, i32 4, {M} %gtm{h}, "
          "{V} zeroinitializer)", t=t, h=h)
    e("br label %{t}_lj", "{t}_lj:", t=t)
    for h in range(s):
        e("%{t}v{h} = phi {V} [%{t}f{h}, %{t}_lf], [%{t}g{h}, %{t}_lm]", t=t, h=h)
    if s == 1:
        e("%{t}d = add i64 %{t}dst, %pl", "%{t}d1 = add i64 %{t}d, %{t}x",
          "%{t}dp = getelementptr float, float* %tile, i64 %{t}d1",
          "%{t}dv = bitcast float* %{t}dp to {V}*",
          "store {V} %{t}v0, {V}* %{t}dv, align 4", t=t)
    else:
        # source column x + m sits at padded column pl + x + m: the even m go to
        # phase pl % 2 at (pl + x) / 2 .., the odd ones to the other phase at
        # (pl + x + 1) / 2 ..  (x is even)
        ev = ", ".join("i32 %d" % (2 * i) for i in range(e.vw))
        od = ", ".join("i32 %d" % (2 * i + 1) for i in range(e.vw))
        e("%{t}ev = shufflevector {V} %{t}v0, {V} %{t}v1, <{VW} x i32> <{m}>", t=t, m=ev)
        e("%{t}od = shufflevector {V} %{t}v0, {V} %{t}v1, <{VW} x i32> <{m}>", t=t, m=od)
        e("%{t}hx = lshr i64 %{t}x, 1", "%{t}col = add i64 %{t}hx, %pl2",
          # even m: phase npl at col; odd m: phase 1 - npl at col + npl
          "%{t}pe = mul i64 %npl, %Sh", "%{t}npl = sub i64 1, %npl",
          "%{t}po = mul i64 %{t}npl, %Sh",
          "%{t}de0 = add i64 %{t}dst, %{t}pe", "%{t}de = add i64 %{t}de0, %{t}col",
          "%{t}do0 = add i64 %{t}dst, %{t}po", "%{t}do1 = add i64 %{t}do0, %{t}col",
          "%{t}do = add i64 %{t}do1, %npl",
          "%{t}dep = getelementptr float, float* %tile, i64 %{t}de",
          "%{t}dev = bitcast float* %{t}dep to {V}*", "store {V} %{t}ev, {V}* %{t}dev, align 4",
          "%{t}dop = getelementptr float, float* %tile, i64 %{t}do",
          "%{t}dov = bitcast float* %{t}dop to {V}*", "store {V} %{t}od, {V}* %{t}dov, align 4",
          t=t)
    e("%{t}x.next = add i64 %{t}x, {st}", "%{t}x.more = icmp ult i64 %{t}x.next, %W",
      "br i1 %{t}x.more, label %{t}_xh, label %{t}_xd", "{t}_xd:",
      "%{t}r.next = add i64 %{t}r, 1", "%{t}r.more = icmp ult i64 %{t}r.next, %H",
      "br i1 %{t}r.more, label %{t}_rh, label %{t}_done", "{t}_done:", t=t, st=step)


def tail_masks(e, s):
    """%gtm<h>: the lanes of source vector h (of s) that a row's last copy step
    loads (columns below W)."""
    e("%gtl0 = sub i64 %W, 1", "%gtl1 = udiv i64 %gtl0, {st}", "%gtl2 = mul i64 %gtl1, {st}",
      "%gtail = sub i64 %W, %gtl2", "%gtail32 = trunc i64 %gtail to i32", st=e.vw * s)
    e.splat("%gtv", "%gtail32", "i32")
    for h in range(s):
        e("%gtm{h} = icmp slt <{VW} x i32> <{lanes}>, %gtv", h=h,
          lanes=", ".join("i32 %d" % (h * e.vw + i) for i in range(e.vw)))
