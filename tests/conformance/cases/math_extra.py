"""More math of ``paddle`` (and their Tensor methods and in-place forms): the
inverse hyperbolic functions, atan2/hypot, the special functions (digamma,
lgamma, polygamma, multigammaln, the Bessel functions i0/i0e/i1/i1e, erfinv),
trunc/frac/sgn/logit/stanh, heaviside/fmax/fmin, gcd/lcm, ldexp/frexp,
nextafter, lerp, logaddexp, nan_to_num, floor_mod, diff, trapezoid and
cumulative_trapezoid, and the products (cross, inner, outer, mm, mv, addmm,
tensordot, einsum, trace, dist, cdist, renorm), logspace and the dtype
predicates.
"""
from spec import C

FLOAT_INT = ("float32", "float64", "int32", "int64")
CASES = []


def add(id, code, *args, **kw):
    CASES.append(C(id, code, *args, **kw))


# ------------------------------------------------------------------ unary functions
# fn -> (argument kind, the call): float64 cases check the gradient too
UNARY = {
    "acosh": ("pos", "paddle.acosh(x + 1.0)"),
    "asinh": ("", "paddle.asinh(x)"),
    "atanh": ("unit", "paddle.atanh(x)"),
    "digamma": ("", "paddle.digamma(x)"),
    "lgamma": ("", "paddle.lgamma(x)"),
    "erfinv": ("unit", "paddle.erfinv(x)"),
    "i0": ("", "paddle.i0(x)"),
    "i0e": ("", "paddle.i0e(x)"),
    "i1": ("", "paddle.i1(x)"),
    "i1e": ("", "paddle.i1e(x)"),
    "trunc": ("", "paddle.trunc(x * 2)"),
    "frac": ("", "paddle.frac(x * 2)"),
    "sgn": ("", "paddle.sgn(x)"),
    "stanh": ("", "paddle.stanh(x)"),
    "deg2rad": ("", "paddle.deg2rad(x)"),
    "rad2deg": ("", "paddle.rad2deg(x)"),
    "logit": ("unit", "paddle.logit(x)"),
    "polygamma1": ("pos", "paddle.polygamma(x, 1)"),
    "polygamma0": ("", "paddle.polygamma(x, 0)"),
    "multigammaln": ("pos", "paddle.multigammaln(x + 1.0, 2)"),
}
for fn, (kind, call) in UNARY.items():
    k = f"|{kind}" if kind else ""
    for dt in FLOAT_INT:
        add(f"{fn}.{dt}", call, f"{dt}[2,3]{k}", grad=dt == "float64")
    add(f"{fn}.zero_d", call, f"float32[]{k}")

# the untouched integer forms (no arithmetic before the call)
for fn in ("acosh", "trunc", "frac", "deg2rad", "rad2deg", "multigammaln"):
    call = {"multigammaln": "paddle.multigammaln(x, 1)"}.get(fn, f"paddle.{fn}(x)")
    for dt in ("int32", "int64"):
        add(f"{fn}.plain.{dt}", call, f"{dt}[2,3]|pos")

# wide ranges: the special functions' other branches (asymptotic series, reflection)
add("digamma.wide", "paddle.digamma(x * 20)", "float64[4,5]", grad=True)
add("digamma.wide.float32", "paddle.digamma(x * 20)", "float32[4,5]")
add("digamma.poles", "paddle.digamma(paddle.to_tensor([0.0, -1.0, -2.0, 1.0, 2.0]))")
add("lgamma.wide", "paddle.lgamma(x * 30)", "float64[4,5]", grad=True)
add("lgamma.wide.float32", "paddle.lgamma(x * 30)", "float32[4,5]")
add("lgamma.poles", "paddle.lgamma(paddle.to_tensor([0.0, -1.0, -2.0, 1.0, 2.0]))")
add("lgamma.big", "paddle.lgamma(x * 1000)", "float64[6]|pos")
add("polygamma.n2", "paddle.polygamma(x, 2)", "float64[2,3]|pos", grad=True)
add("polygamma.n3.wide", "paddle.polygamma(x * 10, 3)", "float64[2,3]|pos", grad=True)
add("polygamma.neg_x", "paddle.polygamma(x, 1)", "float64[2,3]")
add("polygamma.bad_n", "paddle.polygamma(x, -1)", "float32[3]")
add("polygamma.float_n", "paddle.polygamma(x, 1.0)", "float32[3]")
add("polygamma.bool_n", "paddle.polygamma(x, True)", "float32[3]", modes=("eager",))
for fn in ("i0", "i0e", "i1", "i1e"):
    add(f"{fn}.wide", f"paddle.{fn}(x * 20)", "float64[4,5]", grad=True, rtol=1e-6)
    add(f"{fn}.wide.float32", f"paddle.{fn}(x * 20)", "float32[4,5]", rtol=1e-5)
add("i0.big", "paddle.i0(x * 300)", "float64[6]|pos", rtol=1e-6)
add("erfinv.edges", "paddle.erfinv(paddle.to_tensor([-1.0, 1.0, 0.0, 0.999, -0.9999, 1.5]))")
add("erfinv.float64.tails", "paddle.erfinv(x * 1.1)", "float64[10]|unit", grad=True)
add("atanh.edges", "paddle.atanh(paddle.to_tensor([-1.0, 1.0, 0.0, 2.0]))")
add("acosh.below_one", "paddle.acosh(x)", "float32[2,3]|pos")
add("logit.eps", "paddle.logit(x, eps=0.2)", "float64[2,3]|pos", grad=True)
add("logit.eps.float32", "paddle.logit(x, 0.001)", "float32[2,3]|pos")
add("logit.outside", "paddle.logit(x)", "float32[2,3]")
add("logit.eps_over_half", "paddle.logit(x, 0.6)", "float64[2,3]|pos", grad=True)
add("stanh.scales", "paddle.stanh(x, scale_a=1.5, scale_b=0.5)", "float64[2,3]", grad=True)
add("trunc.int_values", "paddle.trunc(x)", "int64[2,3]")
add("multigammaln.p3", "paddle.multigammaln(x + 2.0, 3)", "float64[2,3]|pos", grad=True)
add("multigammaln.bad_p", "paddle.multigammaln(x, 0)", "float32[3]|pos")
add("sgn.bool", "paddle.sgn(x)", "bool[3]")
add("sgn.complex64", "paddle.sgn(x)", "complex64[2,3]")
add("sgn.complex128.zero", "paddle.sgn(x * 0)", "complex128[3]")
add("frac.bool", "paddle.frac(x)", "bool[3]")
add("frexp.float32", "paddle.frexp(x * 10)", "float32[2,3]")
add("frexp.float64", "paddle.frexp(x * 1000)", "float64[2,3]")
add("frexp.zero", "paddle.frexp(paddle.to_tensor([0.0, 1.0, -0.5, 8.0, 3.0]))")
add("frexp.int", "paddle.frexp(x)", "int32[3]")

# methods
for fn in ("acosh", "asinh", "atanh", "digamma", "lgamma", "erfinv", "i0", "i0e", "i1",
           "i1e", "trunc", "frac", "sgn", "stanh", "deg2rad", "rad2deg", "logit"):
    kind = "|pos" if fn == "acosh" else "|unit"
    pre = "(x + 1.0)" if fn == "acosh" else "x"
    add(f"{fn}.method", f"{pre}.{fn}()", f"float32[4]{kind}")
add("polygamma.method", "x.polygamma(2)", "float32[4]|pos")
add("multigammaln.method", "(x + 1.0).multigammaln(2)", "float32[4]|pos")
add("frexp.method", "x.frexp()", "float32[4]")

# in-place forms: the result, and x itself afterwards
INPLACE = {
    "acosh_": ("pos", "paddle.acosh_(x)"), "asinh_": ("", "paddle.asinh_(x)"),
    "atanh_": ("unit", "paddle.atanh_(x)"), "digamma_": ("", "paddle.digamma_(x)"),
    "lgamma_": ("", "paddle.lgamma_(x)"), "polygamma_": ("pos", "paddle.polygamma_(x, 1)"),
    "polygamma_.n0": ("pos", "paddle.polygamma_(x, 0)"),
    "multigammaln_": ("pos", "paddle.multigammaln_(x, 2)"),
    "i0_": ("", "paddle.i0_(x)"), "trunc_": ("", "paddle.trunc_(x)"),
    "frac_": ("", "paddle.frac_(x)"), "logit_": ("unit", "paddle.logit_(x)"),
    "logit_.eps": ("pos", "paddle.logit_(x, 0.1)"),
    "erfinv_": ("unit", "x.erfinv_()"),
    "nan_to_num_": ("", "paddle.nan_to_num_(x)"),
}
for name, (kind, call) in INPLACE.items():
    k = f"|{kind}" if kind else ""
    add(f"{name}.float32", call, f"float32[2,3]{k}")
    add(f"{name}.returns_x", f"y = {call}\nreturn x", f"float64[2,3]{k}", modes=("eager",))
for fn in ("acosh_", "asinh_", "atanh_", "digamma_", "lgamma_", "i0_", "trunc_", "frac_",
           "logit_"):
    kind = "|pos" if fn in ("acosh_",) else "|unit"
    add(f"{fn}.method", f"y = x.{fn}()\nreturn x", f"float32[4]{kind}", modes=("eager",))
add("polygamma_.method", "y = x.polygamma_(1)\nreturn x", "float32[4]|pos", modes=("eager",))
add("multigammaln_.method", "y = x.multigammaln_(2)\nreturn x", "float32[4]|pos",
    modes=("eager",))
add("trunc_.int", "paddle.trunc_(x)", "int64[2,3]")

# ------------------------------------------------------------------ binary functions
BINARY = {
    "atan2": "paddle.atan2(x, y)", "hypot": "paddle.hypot(x, y)",
    "heaviside": "paddle.heaviside(x, y)", "fmax": "paddle.fmax(x, y)",
    "fmin": "paddle.fmin(x, y)", "logaddexp": "paddle.logaddexp(x, y)",
    "nextafter": "paddle.nextafter(x, y)", "floor_mod": "paddle.floor_mod(x, y)",
}
for fn, call in BINARY.items():
    ykind = "|pos" if fn == "floor_mod" else ""
    for a in FLOAT_INT:
        for b in FLOAT_INT:
            add(f"{fn}.{a}.{b}", call, f"{a}[2,3]", f"{b}[2,3]{ykind}",
                grad=a == b == "float64" and fn not in ("nextafter", "floor_mod"))
    add(f"{fn}.bcast", call, "float32[2,1,3]", f"float32[4,1]{ykind}")
    add(f"{fn}.zero_d", call, "float32[]", f"float32[]{ykind}")
    add(f"{fn}.bcast.grad", call, "float64[2,3]", f"float64[3]{ykind}",
        grad=fn not in ("nextafter", "floor_mod"))
    add(f"{fn}.method", f"x.{fn}(y)", "float32[2,3]", f"float32[2,3]{ykind}")
    add(f"{fn}.bad_bcast", call, "float32[2,3]", f"float32[4]{ykind}")
add("heaviside.zeros", "paddle.heaviside(x * 0, y)", "float32[2,3]", "float32[2,3]")
NAN_X = "paddle.where(x > 0.5, paddle.full_like(x, float('nan')), x)"
add("fmax.nan", f"paddle.fmax({NAN_X}, y)", "float32[3,4]", "float32[3,4]")
add("fmin.nan", f"paddle.fmin(y, {NAN_X})", "float32[3,4]", "float32[3,4]")
add("fmax.nan.grad", f"paddle.fmax({NAN_X}, y)", "float64[3,4]", "float64[3,4]", grad=True)
add("fmax.equal.grad", "paddle.fmax(x, x * 1.0)", "float64[5]", grad=True)
add("atan2.zeros", "paddle.atan2(paddle.to_tensor([0.0, -0.0, 0.0, 1.0, -1.0]), "
    "paddle.to_tensor([0.0, 0.0, -1.0, 0.0, 0.0]))")
add("nextafter.same", "paddle.nextafter(x, x)", "float64[4]")
add("nextafter.zero", "paddle.nextafter(x * 0, y)", "float32[4]", "float32[4]")
add("hypot_.float32", "paddle.hypot_(x, y)", "float32[2,3]", "float32[2,3]")
add("hypot_.returns_x", "z = paddle.hypot_(x, y)\nreturn x", "float64[2,3]", "float64[2,3]",
    modes=("eager",))
add("hypot_.method", "z = x.hypot_(y)\nreturn x", "float32[2,3]", "float32[3]",
    modes=("eager",))
add("hypot.number", "paddle.hypot(x, 2.0)", "float32[3]")
for name in ("floor_mod_", "remainder_", "mod_"):
    for dt in ("float32", "int64"):
        add(f"{name}.{dt}", f"paddle.{name}(x, y)", f"{dt}[2,3]", f"{dt}[2,3]|pos")
    add(f"{name}.returns_x", f"z = paddle.{name}(x, y)\nreturn x", "int32[2,3]",
        "int32[3]|pos", modes=("eager",))
    add(f"{name}.method", f"z = x.{name}(y)\nreturn x", "float32[2,3]", "float32[2,3]|pos",
        modes=("eager",))
    add(f"{name}.bad_bcast", f"paddle.{name}(x, y)", "float32[3]", "float32[2,3]|pos")

# gcd / lcm (a while loop in static programs)
for fn in ("gcd", "lcm"):
    for dt in ("int32", "int64"):
        add(f"{fn}.{dt}", f"paddle.{fn}(x * 3, y * 2)", f"{dt}[2,3]|any", f"{dt}[2,3]|any")
    add(f"{fn}.bcast", f"paddle.{fn}(x, y)", "int64[2,1,3]|any", "int64[4,1]|any")
    add(f"{fn}.neg", f"paddle.{fn}(x - 3, y * 4)", "int64[6]|pos", "int64[6]|any")
    add(f"{fn}.zeros", f"paddle.{fn}(x * 0, y * 0)", "int32[3]", "int32[3]")
    add(f"{fn}.method", f"x.{fn}(y)", "int64[2,3]|pos", "int64[2,3]|pos")
    add(f"{fn}.float", f"paddle.{fn}(x, y)", "float32[3]", "float32[3]")
    add(f"{fn}_.int64", f"paddle.{fn}_(x, y)", "int64[2,3]|pos", "int64[2,3]|pos",
        modes=("eager",))
    add(f"{fn}_.returns_x", f"z = paddle.{fn}_(x, y)\nreturn x", "int64[2,3]|pos",
        "int64[3]|pos", modes=("eager",))
    add(f"{fn}_.method", f"z = x.{fn}_(y)\nreturn x", "int32[4]|pos", "int32[4]|pos",
        modes=("eager",))

# ldexp
for a in FLOAT_INT:
    for b in ("int32", "int64", "float32"):
        add(f"ldexp.{a}.{b}", "paddle.ldexp(x, y)", f"{a}[2,3]", f"{b}[2,3]|any")
add("ldexp.bcast", "paddle.ldexp(x, y)", "float64[2,3]", "int32[3]|any", grad=True)
add("ldexp.method", "x.ldexp(y)", "float32[4]", "int64[4]|any")
add("ldexp.number", "paddle.ldexp(x, 2)", "float32[4]")
add("ldexp_.float32", "paddle.ldexp_(x, y)", "float32[4]", "int64[4]|any", modes=("eager",))
add("ldexp_.returns_x", "z = paddle.ldexp_(x, y)\nreturn x", "float64[4]", "int32[4]|any",
    modes=("eager",))
add("ldexp_.method", "z = x.ldexp_(y)\nreturn x", "float32[4]", "int32[4]|any",
    modes=("eager",))

# lerp
for dt in ("float32", "float64"):
    add(f"lerp.float.{dt}", "paddle.lerp(x, y, 0.3)", f"{dt}[2,3]", f"{dt}[2,3]",
        grad=dt == "float64")
    add(f"lerp.tensor.{dt}", "paddle.lerp(x, y, z)", f"{dt}[2,3]", f"{dt}[2,3]",
        f"{dt}[2,3]|unit", grad=dt == "float64")
add("lerp.bcast", "paddle.lerp(x, y, z)", "float64[2,1]", "float64[3]", "float64[2,3]|unit",
    grad=True)
add("lerp.bcast_w", "paddle.lerp(x, y, z)", "float64[2,3]", "float64[2,3]", "float64[3]|unit",
    grad=True)
add("lerp.int", "paddle.lerp(x, y, 0.5)", "int64[3]", "int64[3]")
add("lerp.int_weight", "paddle.lerp(x, y, 1)", "float32[3]", "float32[3]")
add("lerp.mixed", "paddle.lerp(x, y, 0.5)", "float32[3]", "float64[3]")
add("lerp.method", "x.lerp(y, 0.25)", "float32[2,3]", "float32[2,3]")
add("lerp_.method", "z = x.lerp_(y, 0.25)\nreturn x", "float32[2,3]", "float32[2,3]",
    modes=("eager",))
add("lerp_.tensor", "z = x.lerp_(y, z)\nreturn x", "float64[2,3]", "float64[3]",
    "float64[2,3]|unit", modes=("eager",))
add("lerp_.bad_bcast", "x.lerp_(y, 0.5)", "float32[3]", "float32[2,3]", modes=("eager",))

# nan_to_num
NANS = "paddle.to_tensor([float('nan'), float('inf'), -float('inf'), 1.5, -2.0], dtype=x.dtype)"
for dt in ("float32", "float64"):
    add(f"nan_to_num.{dt}", f"paddle.nan_to_num({NANS})", f"{dt}[1]")
    add(f"nan_to_num.values.{dt}", f"paddle.nan_to_num({NANS}, nan=1.0, posinf=9.0, "
        "neginf=-9.0)", f"{dt}[1]")
# float64's largest value does not fit fill_any_like's float32 ``value``: Paddle's
# static Program fills inf (its eager result is the largest value); sampan adds the
# bound to zeros as a float64 constant, in every mode, so its ops differ for float64
NAN_TO_NUM_F64 = ("Paddle 2.6.2's static nan_to_num of float64 stores the default posinf/neginf "
                  "(float64's largest) in fill_any_like's float32 value (inf); sampan adds them "
                  "to zeros as float64 constants (fill_any_like, assign_value, elementwise_add)")
add("nan_to_num.grad", "paddle.nan_to_num(x)", "float64[2,3]", grad=True,
    paddle_bug=NAN_TO_NUM_F64, want="x")
add("nan_to_num.int", "paddle.nan_to_num(x)", "int64[3]")
add("nan_to_num.method", "x.nan_to_num(nan=2.0)", "float32[3]")
add("nan_to_num_.values", f"y = {NANS}\nz = paddle.nan_to_num_(y, posinf=5.0)\nreturn y",
    "float32[1]", modes=("eager",))

# ------------------------------------------------------------------ diff, trapezoid
for dt in FLOAT_INT + ("bool",):
    add(f"diff.{dt}", "paddle.diff(x)", f"{dt}[3,5]", grad=dt == "float64")
add("diff.axis0", "paddle.diff(x, axis=0)", "float64[3,4]", grad=True)
add("diff.n2", "paddle.diff(x, n=2)", "float32[6]")
add("diff.prepend_append", "paddle.diff(x, axis=0, prepend=y, append=z)", "float64[2,3]",
    "float64[1,3]", "float64[2,3]", grad=True)
add("diff.prepend", "paddle.diff(x, prepend=y)", "int64[2,3]", "int64[2,2]")
add("diff.n0", "paddle.diff(x, n=0)", "float32[4]")
add("diff.method", "x.diff()", "float32[5]")
for fn in ("trapezoid", "cumulative_trapezoid"):
    for dt in ("float32", "float64"):
        add(f"{fn}.{dt}", f"paddle.{fn}(x)", f"{dt}[3,5]", grad=dt == "float64")
    add(f"{fn}.dx", f"paddle.{fn}(x, dx=0.5, axis=0)", "float64[4,3]", grad=True)
    add(f"{fn}.x1d", f"paddle.{fn}(x, y)", "float64[3,4]", "float64[4]", grad=True)
    add(f"{fn}.x2d", f"paddle.{fn}(x, y, axis=0)", "float32[3,4]", "float32[3,4]")
    add(f"{fn}.both", f"paddle.{fn}(x, y, dx=1.0)", "float32[3,4]", "float32[4]")
    add(f"{fn}.int", f"paddle.{fn}(x)", "int64[3,4]")
    add(f"{fn}.method", f"x.{fn}()", "float32[5]")

# ------------------------------------------------------------------ products
for dt in FLOAT_INT:
    add(f"cross.{dt}", "paddle.cross(x, y)", f"{dt}[3,4]", f"{dt}[3,4]",
        grad=dt == "float64")
    add(f"mm.{dt}", "paddle.mm(x, y)", f"{dt}[2,3]", f"{dt}[3,4]", grad=dt == "float64")
    add(f"mv.{dt}", "paddle.mv(x, y)", f"{dt}[2,3]", f"{dt}[3]", grad=dt == "float64")
    add(f"inner.{dt}", "paddle.inner(x, y)", f"{dt}[2,3]", f"{dt}[4,3]",
        grad=dt == "float64")
    add(f"outer.{dt}", "paddle.outer(x, y)", f"{dt}[3]", f"{dt}[2,2]", grad=dt == "float64")
    add(f"trace.{dt}", "paddle.trace(x)", f"{dt}[3,4]", grad=dt == "float64")
    add(f"addmm.{dt}", "paddle.addmm(x, y, z)", f"{dt}[2,4]", f"{dt}[2,3]", f"{dt}[3,4]",
        grad=dt == "float64")
    add(f"tensordot.{dt}", "paddle.tensordot(x, y, axes=1)", f"{dt}[2,3]", f"{dt}[3,4]",
        grad=dt == "float64")
    add(f"einsum.{dt}", "paddle.einsum('ij,jk->ik', x, y)", f"{dt}[2,3]", f"{dt}[3,4]",
        grad=dt == "float64")
    add(f"dist.{dt}", "paddle.dist(x, y)", f"{dt}[2,3]", f"{dt}[2,3]", grad=dt == "float64")
    add(f"cdist.{dt}", "paddle.cdist(x, y)", f"{dt}[3,4]", f"{dt}[2,4]", grad=dt == "float64")
    add(f"renorm.{dt}", "paddle.renorm(x, 2.0, 0, 1.0)", f"{dt}[3,4]", grad=dt == "float64")
add("cross.axis", "paddle.cross(x, y, axis=0)", "float64[3,4]", "float64[3,4]", grad=True)
add("cross.neg_axis", "paddle.cross(x, y, axis=-1)", "float32[2,3]", "float32[2,3]")
add("cross.first3", "paddle.cross(x, y)", "float32[4,3]", "float32[4,3]")
add("cross.bad_dim", "paddle.cross(x, y, axis=1)", "float32[3,4]", "float32[3,4]")
add("cross.no3", "paddle.cross(x, y)", "float32[2,4]", "float32[2,4]")
add("cross.shape_mismatch", "paddle.cross(x, y)", "float32[3,4]", "float32[3,2]")
add("cross.method", "x.cross(y)", "float32[3]", "float32[3]")
add("mm.batched", "paddle.mm(x, y)", "float64[2,2,3]", "float64[2,3,4]", grad=True)
add("mm.vector", "paddle.mm(x, y)", "float32[3]", "float32[3,2]")
add("mm.bad", "paddle.mm(x, y)", "float32[2,3]", "float32[2,3]")
add("mm.method", "x.mm(y)", "float32[2,3]", "float32[3,2]")
add("mv.bad_vec", "paddle.mv(x, y)", "float32[2,3]", "float32[4]")
add("mv.bad_rank", "paddle.mv(x, y)", "float32[3]", "float32[3]")
add("mv.method", "x.mv(y)", "float32[2,3]", "float32[3]")
add("inner.vec", "paddle.inner(x, y)", "float64[3]", "float64[3]", grad=True)
add("inner.nd", "paddle.inner(x, y)", "float64[2,2,3]", "float64[4,3]", grad=True)
add("inner.scalar", "paddle.inner(x, y)", "float32[1]", "float32[2,3]")
add("inner.bad", "paddle.inner(x, y)", "float32[2,3]", "float32[2,4]")
add("inner.method", "x.inner(y)", "float32[2,3]", "float32[3]")
add("outer.nd", "paddle.outer(x, y)", "float64[2,2]", "float64[3]", grad=True)
add("outer.method", "x.outer(y)", "float32[2]", "float32[3]")
add("trace.offset", "paddle.trace(x, offset=1)", "float64[3,4]", grad=True)
add("trace.neg_offset", "paddle.trace(x, offset=-1, axis1=1, axis2=0)", "float64[3,4]",
    grad=True)
add("trace.big_offset", "paddle.trace(x, offset=5)", "float32[3,4]")
add("trace.3d", "paddle.trace(x, axis1=-1, axis2=0)", "float64[3,2,4]", grad=True)
add("trace.1d", "paddle.trace(x)", "float32[3]")
add("trace.same_axes", "paddle.trace(x, axis1=1, axis2=1)", "float32[3,3]")
add("trace.bad_axis", "paddle.trace(x, axis1=2)", "float32[3,3]")
add("trace.method", "x.trace()", "float32[3,3]")
add("addmm.scaled", "paddle.addmm(x, y, z, beta=0.5, alpha=2.0)", "float64[1,4]",
    "float64[2,3]", "float64[3,4]", grad=True)
add("addmm.vec_input", "paddle.addmm(x, y, z)", "float64[4]", "float64[2,3]", "float64[3,4]",
    grad=True)
add("addmm.bad_xy", "paddle.addmm(x, y, z)", "float32[2,4]", "float32[2,3]", "float32[2,4]")
add("addmm.bad_input", "paddle.addmm(x, y, z)", "float32[3,4]", "float32[2,3]", "float32[3,4]")
add("addmm.bad_rank", "paddle.addmm(x, y, z)", "float32[2,4]", "float32[2,3]", "float32[3]")
add("addmm.beta0_nan", "paddle.addmm(x / 0 * 0, y, z, beta=0.0)", "float32[2,4]", "float32[2,3]",
    "float32[3,4]")
add("addmm.method", "x.addmm(y, z)", "float32[2,4]", "float32[2,3]", "float32[3,4]")
add("addmm_.float32", "paddle.addmm_(x, y, z, alpha=0.5)", "float32[2,4]", "float32[2,3]",
    "float32[3,4]", modes=("eager",))
add("addmm_.returns_x", "w = paddle.addmm_(x, y, z)\nreturn x", "float64[2,4]",
    "float64[2,3]", "float64[3,4]", modes=("eager",))
add("addmm_.method", "w = x.addmm_(y, z, beta=2.0)\nreturn x", "float32[2,4]",
    "float32[2,3]", "float32[3,4]", modes=("eager",))
add("tensordot.default", "paddle.tensordot(x, y)", "float64[2,3,4]", "float64[3,4,2]",
    grad=True)
add("tensordot.lists", "paddle.tensordot(x, y, axes=[[0, 2], [2, 0]])", "float64[2,3,4]",
    "float64[4,5,2]", grad=True)
add("tensordot.one_list", "paddle.tensordot(x, y, axes=[1])", "float32[2,3]", "float32[2,3]")
add("tensordot.zero", "paddle.tensordot(x, y, axes=0)", "float32[2,3]", "float32[2]")
add("tensordot.bcast1", "paddle.tensordot(x, y, axes=[[1], [0]])", "float64[2,1]",
    "float64[3,4]", grad=True)
add("tensordot.bad", "paddle.tensordot(x, y, axes=[[1], [0]])", "float32[2,3]",
    "float32[4,5]")
add("tensordot.method", "x.tensordot(y, 1)", "float32[2,3]", "float32[3,2]")
EINSUM = {
    "matmul": ("ij,jk->ik", ("[2,3]", "[3,4]")),
    "implicit": ("ij,jk", ("[2,3]", "[3,4]")),
    "transpose": ("ij->ji", ("[2,3]",)),
    "sum": ("ij->", ("[2,3]",)),
    "rowsum": ("ij->i", ("[2,3]",)),
    "trace": ("ii->", ("[3,3]",)),
    "diag": ("ii->i", ("[3,3]",)),
    "outer": ("i,j->ij", ("[3]", "[4]")),
    "dot": ("i,i->", ("[3]", "[3]")),
    "bmm": ("bij,bjk->bik", ("[2,2,3]", "[2,3,4]")),
    "ellipsis": ("...ij,...jk->...ik", ("[2,2,3]", "[3,4]")),
    "ellipsis_bcast": ("...j,...j->...", ("[2,1,3]", "[4,3]")),
    "ellipsis_left": ("i...->...", ("[2,3,4]",)),
    "mul": ("ij,ij->ij", ("[2,3]", "[2,3]")),
    "three": ("ij,jk,kl->il", ("[2,3]", "[3,4]", "[4,2]")),
    "three_bcast": ("i,ij,j->", ("[2]", "[2,3]", "[3]")),
    "unused": ("ij,kl->ik", ("[2,3]", "[4,5]")),
    "upper": ("IJ,JK->IK", ("[2,3]", "[3,4]")),
    "out_diag": ("ij->ii", ("[2,3]",)),
    "out_diag2": ("ij,jk->iki", ("[2,3]", "[3,2]")),
    "spaces": ("ij, jk -> ik", ("[2,3]", "[3,4]")),
}
for name, (eq, shapes) in EINSUM.items():
    names = ", ".join("xyzw"[:len(shapes)])
    add(f"einsum.{name}", f"paddle.einsum('{eq}', {names})", *(f"float64{s}" for s in shapes),
        grad=True)
add("einsum.size1_bcast", "paddle.einsum('ij,ij->i', x, y)", "float64[2,1]", "float64[2,3]",
    grad=True)
add("einsum.bkj.float32", "paddle.einsum('bij,bkj->bik', x, y)", "float32[2,3,4]", "float32[2,5,4]")
add("einsum.bad_count", "paddle.einsum('ij,jk->ik', x)", "float32[2,3]")
add("einsum.bad_dim", "paddle.einsum('ij,jk->ik', x, y)", "float32[2,3]", "float32[4,4]")
add("einsum.bad_rank", "paddle.einsum('ijk->i', x)", "float32[2,3]")
add("einsum.bad_out", "paddle.einsum('ij->k', x)", "float32[2,3]")
add("einsum.mixed", "paddle.einsum('ij,jk->ik', x, y)", "float32[2,3]", "float64[3,4]")
for p in ("1", "0", "3.5", "float('inf')", "-float('inf')"):
    add(f"dist.p{p}", f"paddle.dist(x, y, p={p})", "float64[2,3]", "float64[3]",
        grad=p != "0")
add("dist.zero_d", "paddle.dist(x, y)", "float32[]", "float32[]")
add("dist.same", "paddle.dist(x, x * 1.0)", "float64[3]", grad=True)
add("dist.bad_bcast", "paddle.dist(x, y)", "float32[2,3]", "float32[4]")
add("dist.method", "x.dist(y, 1)", "float32[2,3]", "float32[2,3]")
add("cdist.p1", "paddle.cdist(x, y, p=1.0)", "float64[2,3,4]", "float64[2,2,4]", grad=True)
add("cdist.p0", "paddle.cdist(x, y, p=0)", "float32[3,4]", "float32[2,4]")
add("cdist.pinf", "paddle.cdist(x, y, p=float('inf'))", "float64[3,4]", "float64[2,4]",
    grad=True)
add("cdist.mm", "paddle.cdist(x, y)", "float64[30,3]", "float64[4,3]", rtol=1e-6, atol=1e-6,
    grad=True)
add("cdist.mm_mode", "paddle.cdist(x, y, compute_mode='use_mm_for_euclid_dist')",
    "float64[3,3]", "float64[4,3]", rtol=1e-6, atol=1e-6)
add("cdist.no_mm", "paddle.cdist(x, y, compute_mode='donot_use_mm_for_euclid_dist')",
    "float32[30,3]", "float32[4,3]")
add("cdist.bad_mode", "paddle.cdist(x, y, compute_mode='fast')", "float32[3,3]",
    "float32[4,3]")
add("cdist.bad_dim", "paddle.cdist(x, y)", "float32[3,3]", "float32[4,2]")
add("cdist.bad_p", "paddle.cdist(x, y, p=-1.0)", "float32[3,3]", "float32[4,3]")
add("cdist.empty", "paddle.cdist(x, y)", "float32[0,3]", "float32[4,3]")
add("renorm.axis1", "paddle.renorm(x, 1.0, 1, 1.5)", "float64[3,4,2]", grad=True)
add("renorm.neg_axis", "paddle.renorm(x, 3.0, -1, 0.5)", "float64[3,4]", grad=True)
add("renorm.large_max", "paddle.renorm(x, 2.0, 0, 100.0)", "float64[3,4]", grad=True)
add("renorm.bad_axis", "paddle.renorm(x, 2.0, 2, 1.0)", "float32[3,4]")
add("renorm.p0", "paddle.renorm(x, 0.0, 0, 1.0)", "float32[3,4]")
add("renorm.method", "x.renorm(2.0, 1, 1.0)", "float32[3,4]")
add("renorm_.float32", "paddle.renorm_(x, 2.0, 0, 1.0)", "float32[3,4]", modes=("eager",))
add("renorm_.returns_x", "y = x.renorm_(2.0, 1, 0.5)\nreturn x", "float64[3,4]",
    modes=("eager",))

# ------------------------------------------------------------------ logspace, predicates
add("logspace.default", "paddle.logspace(0, 2, 5)")
add("logspace.base2", "paddle.logspace(1.0, 4.0, 4, base=2.0)")
for dt in FLOAT_INT:
    add(f"logspace.{dt}", f"paddle.logspace(0, 3, 4, dtype='{dt}')")
add("logspace.num1", "paddle.logspace(1.0, 5.0, 1)")
add("logspace.tensors", "paddle.logspace(x, y, 5)", "float32[1]", "float32[1]")
add("logspace.bad_num", "paddle.logspace(0, 2, 2.5)")
for dt in FLOAT_INT + ("bool", "float16"):
    for fn in ("is_floating_point", "is_integer"):
        add(f"{fn}.{dt}", f"paddle.{fn}(x)", f"{dt}[2]")
add("is_floating_point.method", "x.is_floating_point()", "float32[2]")
add("is_integer.method", "x.is_integer()", "int32[2]")
add("is_floating_point.not_tensor", "paddle.is_floating_point(1.0)")
