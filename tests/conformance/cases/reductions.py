"""Reductions over every dtype (what an int or bool sum/mean/max returns),
with axis None / int / negative / list, keepdim, the dtype argument, 0-d and
empty inputs; argmax/argmin/topk-style index results and std/var."""
from spec import C

DTYPES = ("float32", "float64", "int32", "int64", "bool")
REDUCE = ("sum", "mean", "prod", "max", "min", "amax", "amin", "all", "any")

EMPTY_BUG = ("Paddle 2.6.2 raises 'Tensor need be reduced must not empty' for a sum/prod/"
             "any/all over a 0-length axis; the empty reduction has its identity value")
EMPTY_WANT = {"sum": "np.zeros(3, 'float32')", "prod": "np.ones(3, 'float32')",
              "any": "np.zeros(3, bool)", "all": "np.ones(3, bool)"}

CASES = []
for fn in REDUCE:
    for a in DTYPES:
        CASES += [
            C(f"{fn}.all.{a}", f"paddle.{fn}(x)", f"{a}[2,3]", grad=a == "float64"),
            C(f"{fn}.axis0.{a}", f"paddle.{fn}(x, axis=0)", f"{a}[2,3]"),
            C(f"{fn}.neg_axis_keep.{a}", f"paddle.{fn}(x, axis=-1, keepdim=True)", f"{a}[2,3]"),
            C(f"{fn}.axes.{a}", f"paddle.{fn}(x, axis=[0, 2])", f"{a}[2,3,2]"),
            C(f"{fn}.method.{a}", f"x.{fn}()", f"{a}[2,3]"),
            C(f"{fn}.zero_d.{a}", f"paddle.{fn}(x)", f"{a}[]"),
        ]
    if fn in EMPTY_WANT:
        CASES.append(C(f"{fn}.empty.float32", f"paddle.{fn}(x, axis=0)", "float32[0,3]",
                       paddle_bug=EMPTY_BUG, want=EMPTY_WANT[fn]))
    else:
        CASES.append(C(f"{fn}.empty.float32", f"paddle.{fn}(x, axis=0)", "float32[0,3]"))
    CASES.append(C(f"{fn}.bad_axis", f"paddle.{fn}(x, axis=3)", "float32[2,3]"))

for a in DTYPES:
    CASES += [
        C(f"sum.dtype_f64.{a}", "paddle.sum(x, dtype='float64')", f"{a}[2,3]"),
        C(f"sum.dtype_i32.{a}", "paddle.sum(x, axis=1, dtype='int32')", f"{a}[2,3]"),
        C(f"prod.dtype.{a}", "paddle.prod(x, dtype='float64')", f"{a}[2,3]"),
        C(f"argmax.{a}", "paddle.argmax(x)", f"{a}[2,3]"),
        C(f"argmax.axis.{a}", "paddle.argmax(x, axis=1, keepdim=True)", f"{a}[2,3]"),
        C(f"argmax.dtype.{a}", "paddle.argmax(x, axis=0, dtype='int32')", f"{a}[2,3]"),
        C(f"argmin.{a}", "paddle.argmin(x, axis=-1)", f"{a}[2,3]"),
        C(f"std.{a}", "paddle.std(x)", f"{a}[2,3]"),
        C(f"var.axis.{a}", "paddle.var(x, axis=1, unbiased=False)", f"{a}[2,3]"),
        C(f"topk.{a}", "paddle.topk(x, k=2)", f"{a}[2,3]"),
        C(f"topk.smallest.{a}", "paddle.topk(x, k=1, axis=0, largest=False)", f"{a}[2,3]"),
    ]
CASES += [
    C("std.keepdim", "paddle.std(x, axis=[0, 1], keepdim=True)", "float64[2,3]", grad=True),
    C("var.grad", "paddle.var(x, axis=0)", "float64[3,2]", grad=True),
    C("max.ties.grad", "paddle.max(x * 0.0)", "float64[2,3]", grad=True),
    C("amax.ties.grad", "paddle.amax(x * 0.0, axis=1)", "float64[2,3]", grad=True),
    C("mean.int_axis_tuple", "paddle.mean(x, axis=(0, 1))", "float32[2,3,2]"),
    C("sum.bool_keep", "paddle.sum(x, axis=0, keepdim=True)", "bool[2,3]"),
    C("sum.int32_method_dtype", "x.sum(dtype='int64')", "int32[2,3]"),
    C("topk.tensor_k", "paddle.topk(x, k=y)", "float32[2,4]", "int32[1]|idx3"),
    C("argmax.zero_d", "paddle.argmax(x)", "float32[]"),
]
