"""The math functions of ``paddle`` (and their Tensor methods): binary
arithmetic and comparison functions over the dtype grid (Paddle promotes two
float dtypes here and raises on other mixes), unary math over every dtype,
scale/clip/cast/add_n/cumsum, logical and bitwise functions, closeness tests.
"""
from spec import C

DTYPES = ("float32", "float64", "int32", "int64", "bool")
BINARY = ("add", "subtract", "multiply", "divide", "floor_divide", "remainder", "mod",
          "pow", "maximum", "minimum")
COMPARE = ("equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal")
LOGICAL = ("logical_and", "logical_or", "logical_xor")
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor")
UNARY = ("exp", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square",
         "reciprocal", "abs", "sign", "floor", "ceil", "round", "sin", "cos", "tan", "asin",
         "acos", "atan", "sinh", "cosh", "erf", "tanh", "sigmoid", "neg")
POSITIVE = ("log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "pow",
            "divide", "floor_divide", "remainder", "mod")
UNIT = ("asin", "acos")


def _kind(fn, dtype):
    if dtype == "bool":
        return ""
    return "|pos" if fn in POSITIVE else ("|unit" if fn in UNIT else "")


CASES = []
for fn in BINARY + COMPARE:
    for a in DTYPES:
        for b in DTYPES:
            CASES.append(C(f"{fn}.{a}.{b}", f"paddle.{fn}(x, y)", f"{a}[2,3]",
                           f"{b}[2,3]{_kind(fn, b)}"))
    for a in ("float32", "int64"):
        CASES.append(C(f"{fn}.method.{a}", f"x.{fn}(y)", f"{a}[2,3]", f"{a}[3]{_kind(fn, a)}"))
        CASES.append(C(f"{fn}.int_scalar.{a}", f"paddle.{fn}(x, 2)", f"{a}[2,3]"))
        CASES.append(C(f"{fn}.float_scalar.{a}", f"paddle.{fn}(x, 2.5)", f"{a}[2,3]"))
        CASES.append(C(f"{fn}.zero_d.{a}", f"paddle.{fn}(x, y)", f"{a}[]", f"{a}[]{_kind(fn, a)}"))
        CASES.append(C(f"{fn}.bcast.{a}", f"paddle.{fn}(x, y)", f"{a}[2,1,3]",
                       f"{a}[4,1]{_kind(fn, a)}"))

for fn in LOGICAL + BITWISE:
    for a in DTYPES:
        for b in ("bool", "int32", a):
            if b == a and b in ("bool", "int32"):
                continue
            CASES.append(C(f"{fn}.{a}.{b}", f"paddle.{fn}(x, y)", f"{a}[2,3]", f"{b}[2,3]"))
for fn in ("logical_not", "bitwise_not", "isnan", "isinf", "isfinite"):
    for a in DTYPES:
        CASES.append(C(f"{fn}.{a}", f"paddle.{fn}(x)", f"{a}[2,3]"))

SIGMOID_EXT = "Paddle 2.6.2 has no paddle.sigmoid (only F.sigmoid and Tensor.sigmoid)"
for fn in UNARY:
    alt = "paddle.nn.functional.sigmoid(x)" if fn == "sigmoid" else ""
    note = SIGMOID_EXT if alt else ""
    for a in DTYPES:
        CASES.append(C(f"{fn}.{a}", f"paddle.{fn}(x)", f"{a}[2,3]{_kind(fn, a)}",
                       grad=a == "float64", paddle_code=alt, note=note))
    CASES.append(C(f"{fn}.method", f"x.{fn}()", f"float32[4]{_kind(fn, 'float32')}"))
    CASES.append(C(f"{fn}.zero_d", f"paddle.{fn}(x)", f"float32[]{_kind(fn, 'float32')}",
                   paddle_code=alt, note=note))

for a in DTYPES:
    CASES += [
        C(f"scale.{a}", "paddle.scale(x, scale=2.0, bias=1.0)", f"{a}[2,3]"),
        C(f"scale.before.{a}", "paddle.scale(x, 3, 1, bias_after_scale=False)", f"{a}[2,3]"),
        C(f"scale.fractional.{a}", "paddle.scale(x, scale=-1.5, bias=0.7)", f"{a}[2,3]"),
        C(f"scale.fractional_before.{a}",
          "paddle.scale(x, scale=2.7, bias=-1.9, bias_after_scale=False)", f"{a}[2,3]"),
        C(f"clip.{a}", "paddle.clip(x, -1, 2)", f"{a}[2,3]"),
        C(f"clip.float_bounds.{a}", "paddle.clip(x, -1.5, 0.5)", f"{a}[2,3]"),
        C(f"clip.min_only.{a}", "paddle.clip(x, min=0)", f"{a}[2,3]"),
        C(f"cumsum.{a}", "paddle.cumsum(x, axis=1)", f"{a}[2,3]"),
        C(f"cumsum.flat.{a}", "paddle.cumsum(x)", f"{a}[2,3]"),
        C(f"cumsum.dtype.{a}", "paddle.cumsum(x, axis=0, dtype='float64')", f"{a}[2,3]"),
        C(f"add_n.{a}", "paddle.add_n([x, y])", f"{a}[2,3]", f"{a}[2,3]"),
        C(f"pow.int_exp.{a}", "paddle.pow(x, 2)", f"{a}[2,3]"),
        C(f"pow.float_exp.{a}", "paddle.pow(x, 0.5)", f"{a}[2,3]|pos"),
        C(f"equal_all.{a}", "paddle.equal_all(x, y)", f"{a}[2,3]", f"{a}[2,3]"),
        C(f"equal_all.same.{a}", "paddle.equal_all(x, x)", f"{a}[2,3]"),
    ]
    for b in DTYPES:
        CASES.append(C(f"cast.{a}.{b}", f"paddle.cast(x, '{b}')", f"{a}[2,3]"))
        CASES.append(C(f"astype.{a}.{b}", f"x.astype('{b}')", f"{a}[3]"))
CASES += [
    C("add_n.mixed", "paddle.add_n([x, y])", "float32[2,3]", "float64[2,3]"),
    C("add_n.single", "paddle.add_n(x)", "float32[2,3]"),
    C("clip.tensor_bounds", "paddle.clip(x, y, z)", "float32[2,3]", "float32[]", "float32[]|pos"),
    C("cast.dtype_obj", "paddle.cast(x, paddle.int32)", "float32[2,3]"),
    C("scale.tensor_scale", "paddle.scale(x, scale=y)", "float32[2,3]", "float32[1]"),
    # an integer tensor's scale and bias are truncated to its dtype, the arithmetic
    # stays in it (exact past 2**53, wrapping in uint8)
    C("scale.int_tensor_scale", "paddle.scale(x, scale=y)", "int64[2,3]", "float32[1]"),
    C("scale.int64_past_2_53",
      "paddle.scale(paddle.to_tensor([9007199254740993, -9007199254740993]), bias=1.0)"),
    C("scale.int64_add_past_2_53", "paddle.to_tensor([9007199254740993]) + 1"),
    C("scale.uint8_negative", "paddle.scale(x.astype('uint8'), scale=-1.5, bias=0.7)",
      "int32[2,3]"),
    # a float remainder of zero keeps the dividend's sign (fmod's), where numpy's
    # mod gives +0.0: 1 / r tells the zeros' signs (-inf, +inf) apart
    C("mod.zero_sign.float32",
      "a = paddle.to_tensor([-7.5, 7.5, -0.0, 0.0, -3.0, 1.0])\n"
      "b = paddle.to_tensor([2.5, -2.5, 2.0, -2.0, 1.5, 0.1])\n"
      "r = paddle.mod(a, b)\nreturn r, 1.0 / r"),
    C("mod.zero_sign.float64_operator",
      "a = paddle.to_tensor([-7.5, 5.0, -6.0], dtype='float64')\n"
      "return 1.0 / (a % 2.5), 1.0 / paddle.remainder(a, -a)"),
    C("allclose.f32", "paddle.allclose(x, x + 1e-7)", "float32[2,3]"),
    C("allclose.f64.far", "paddle.allclose(x, y)", "float64[2,3]", "float64[2,3]"),
    C("allclose.nan", "paddle.allclose(x / 0.0 * 0.0, x / 0.0 * 0.0, equal_nan=True)",
      "float32[2,3]"),
    C("isclose.f32", "paddle.isclose(x, y, rtol=0.5, atol=0.5)", "float32[2,3]", "float32[2,3]"),
    C("isclose.f64", "paddle.isclose(x, x)", "float64[2,3]"),
    C("matmul.fn.transpose", "paddle.matmul(x, y, transpose_x=True, transpose_y=True)",
      "float32[4,3]", "float32[2,4]", grad=True),
    C("matmul.fn.mixed", "paddle.matmul(x, y)", "float32[3,4]", "float64[4,2]"),
    C("bmm.f32", "paddle.bmm(x, y)", "float32[2,3,4]", "float32[2,4,2]", grad=True),
    C("bmm.bad", "paddle.bmm(x, y)", "float32[2,3,4]", "float32[3,4,2]"),
    C("dot.1d", "paddle.dot(x, y)", "float32[4]", "float32[4]", grad=True),
    C("dot.2d", "paddle.dot(x, y)", "float32[2,4]", "float32[2,4]", grad=True),
    C("dot.int", "paddle.dot(x, y)", "int64[4]", "int64[4]"),
    C("neg.method_int", "x.neg()", "int64[3]"),
    C("sign.zero", "paddle.sign(x - x)", "float32[3]"),
    C("round.halves", "paddle.round(x * 0.0 + y)", "float32[4]", "float32[4]"),
    C("remainder.negative", "paddle.remainder(x, y)", "float32[2,3]", "float32[2,3]|pos"),
    C("remainder.int_negative", "paddle.remainder(x, y)", "int64[2,3]", "int64[2,3]|pos"),
    C("floor_divide.negative", "paddle.floor_divide(x, y)", "int64[2,3]", "int64[2,3]|pos"),
    C("divide.int_trunc", "paddle.divide(x, y)", "int64[2,3]", "int64[2,3]|pos"),
    C("maximum.nan", "paddle.maximum(x, x / 0.0 * 0.0)", "float32[3]"),
    # integer division by a zero tensor raises; integer-only functions on floats
    C("floor_divide.by_zero.int32", "paddle.floor_divide(x, paddle.zeros_like(x))",
      "int32[2,3]"),
    C("remainder.by_zero.int64", "paddle.remainder(x, paddle.zeros_like(x))", "int64[2,3]"),
    C("divide.by_zero.int64", "paddle.divide(x, paddle.zeros_like(x))", "int64[2,3]"),
    C("cumsum.bad_axis", "paddle.cumsum(x, axis=2)", "float32[2,3]"),
    C("cumsum.bad_axis_neg", "paddle.cumsum(x, axis=-3)", "float32[2,3]"),
    C("floor_divide.scalar.int32", "paddle.floor_divide(x, 2)", "int32[2,3]"),
    C("bitwise_and.scalar.int32", "paddle.bitwise_and(x, 1)", "int32[2,3]"),
]
