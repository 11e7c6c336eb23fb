"""Python operators on tensors: ``+ - * / // % ** @``, comparisons, ``& | ^``,
unary ``- abs ~``, in-place forms, over the full dtype grid: tensor with
tensor in both orders, tensor with Python int/float/bool on either side, 0-d
tensors, broadcasting and empty tensors.  This is where Paddle's rules for
mixed operands (which side is cast, to what, when it raises) are pinned down.
"""
from spec import C

DTYPES = ("float32", "float64", "int32", "int64", "bool")
ARITH = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "mod": "%",
         "pow": "**"}
COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
BITWISE = {"and": "&", "or": "|", "xor": "^"}
BINARY = {**ARITH, **COMPARE, **BITWISE}
SCALARS = {"int": "3", "negint": "-2", "float": "2.5", "bool": "True"}


def _pos(op, dtype):
    """Value kind for an operand: positive where the op would hit 0 or a
    negative base (division, modulo, powers)."""
    return "|pos" if op in ("div", "floordiv", "mod", "pow") and dtype != "bool" else ""


EMPTY_BUG = ("Paddle 2.6.2 raises PreconditionNotMet ('The meta data must be valid') "
             "broadcasting a tensor with a 0 dim; sampan returns the empty result")
HANG_BUG = "Paddle 2.6.2 hangs on an integer tensor ** a negative integer; sampan raises"
NO_REFLECTED = ("Paddle 2.6.2's Tensor has no __rfloordiv__/__rmod__ (TypeError); sampan "
                "extends it: the number becomes a tensor as for the other operators")


def _reflected_alt(sym, dtype, s):
    """Paddle's spelling of ``<s> <sym> x``, which Paddle lacks for // and %."""
    dt = "float32" if "." in s and dtype in ("int32", "int64", "bool") else dtype
    xs = "x" if dt == dtype else f"x.astype('{dt}')"
    return f"paddle.full([2, 3], {s}, '{dt}') {sym} {xs}"


def _empty_dtype(name, dtype):
    return "bool" if name in COMPARE else ("float32" if name == "div" else dtype)


CASES = []
for name, sym in BINARY.items():
    for a in DTYPES:
        for b in DTYPES:
            CASES.append(C(f"{name}.{a}.{b}", f"x {sym} y", f"{a}[2,3]",
                           f"{b}[2,3]{_pos(name, b)}"))
    for a in DTYPES:
        for sname, s in SCALARS.items():
            hang = name == "pow" and sname == "negint" and a in ("int32", "int64")
            CASES.append(C(f"{name}.{a}.scalar_{sname}", f"x {sym} {s}",
                           f"{a}[2,3]{_pos(name, a)}", paddle_bug=HANG_BUG if hang else "",
                           want="error" if hang else ""))
            alt = _reflected_alt(sym, a, s) if name in ("floordiv", "mod") else ""
            CASES.append(C(f"{name}.scalar_{sname}.{a}", f"{s} {sym} x",
                           f"{a}[2,3]{_pos(name, a)}", paddle_code=alt,
                           note=NO_REFLECTED if alt else ""))
    for a, b in (("float32", "float32"), ("int64", "int64"), ("float32", "int64"),
                 ("int32", "int64")):
        p = _pos(name, b)
        CASES.append(C(f"{name}.bcast_row.{a}.{b}", f"x {sym} y", f"{a}[2,3]", f"{b}[3]{p}"))
        CASES.append(C(f"{name}.bcast_outer.{a}.{b}", f"x {sym} y", f"{a}[2,1]", f"{b}[1,3]{p}"))
        CASES.append(C(f"{name}.zero_d_rhs.{a}.{b}", f"x {sym} y", f"{a}[2,3]", f"{b}[]{p}"))
        CASES.append(C(f"{name}.zero_d_lhs.{a}.{b}", f"x {sym} y", f"{a}[]", f"{b}[2,3]{p}"))
        CASES.append(C(f"{name}.zero_d_both.{a}.{b}", f"x {sym} y", f"{a}[]", f"{b}[]{p}"))
    for a in ("float32", "int64"):
        if name in BITWISE and a == "float32":
            continue
        CASES.append(C(f"{name}.empty.{a}", f"x {sym} y", f"{a}[0,3]", f"{a}[3]|pos",
                       paddle_bug=EMPTY_BUG,
                       want=f"np.zeros((0, 3), '{_empty_dtype(name, a)}')"))
    CASES.append(C(f"{name}.bad_bcast", f"x {sym} y", "float32[2,3]", "float32[4]"))

# integer division and modulo by zero raise (Paddle: "Integer division by zero"); float
# ones give inf / nan
for a in ("int32", "int64"):
    CASES.append(C(f"floordiv.by_zero.{a}", "x // 0", f"{a}[2,3]"))
    CASES.append(C(f"mod.by_zero.{a}", "x % 0", f"{a}[2,3]"))
    CASES.append(C(f"floordiv.by_zero_tensor.{a}", "x // paddle.zeros_like(x)", f"{a}[2,3]"))
    CASES.append(C(f"mod.by_zero_tensor.{a}", "x % paddle.zeros_like(x)", f"{a}[2,3]"))
CASES.append(C("floordiv.by_zero.float32", "x // 0", "float32[2,3]"))
CASES.append(C("mod.by_zero.float32", "x % 0", "float32[2,3]"))
# & | ^ take no Python numbers or lists (ValueError), on either side (TypeError)
CASES.append(C("and.scalar_list.int32", "x & [1, 2, 3]", "int32[2,3]"))

# float16: Paddle's CPU has no float16 arithmetic kernels (its GPU has); sampan computes
# float16 on the CPU too (numpy rounds each result to float16, as the GPU kernels do)
F16_EXT = ("sampan extension: float16 arithmetic on the CPU, where Paddle 2.6.2 registers "
           "no float16 kernel (NotFound); the result is numpy's float16 arithmetic")
_F16_PROMOTES = ("add", "sub", "mul")
for name, sym in {**ARITH, **COMPARE}.items():
    for a, b in (("float16", "float16"), ("float16", "float32"), ("float32", "float16")):
        in_f16 = name in ARITH and a == "float16" and (b == "float16" or name not in _F16_PROMOTES)
        want = f"x {sym} y.astype('float16')" if in_f16 else ""
        if name == "floordiv" and in_f16:
            want = "np.floor_divide(x, y.astype('float16'))"
        CASES.append(C(f"{name}.{a}.{b}", f"x {sym} y", f"{a}[2,3]", f"{b}[2,3]{_pos(name, b)}",
                       rtol=1e-3, atol=1e-3, paddle_bug=F16_EXT if want else "", want=want))
    in_f16 = name in ARITH and name not in ("add", "sub", "mul", "div")
    CASES.append(C(f"{name}.float16.scalar_float", f"x {sym} 2.5",
                   f"float16[2,3]{_pos(name, 'float16')}", rtol=1e-3, atol=1e-3,
                   paddle_bug=F16_EXT if in_f16 else "",
                   want=f"x {sym} np.float16(2.5)" if in_f16 else ""))

# in-place operator forms rebind the name (Paddle's Tensor has no __iadd__)
for name, sym in ARITH.items():
    for a, b in (("float32", "float32"), ("float32", "int64"), ("int64", "float32")):
        CASES.append(C(f"inplace.{name}.{a}.{b}", f"x {sym}= y\nreturn x", f"{a}[2,3]",
                       f"{b}[2,3]{_pos(name, b)}"))
    CASES.append(C(f"inplace.{name}.float32.scalar", f"x {sym}= 2\nreturn x", "float32[2,3]"))

# matrix product: every rank combination, mixed dtypes
MATMUL_SHAPES = {"1d_1d": ("[4]", "[4]"), "2d_1d": ("[3,4]", "[4]"), "1d_2d": ("[4]", "[4,2]"),
                 "2d_2d": ("[3,4]", "[4,2]"), "3d_2d": ("[2,3,4]", "[4,5]"),
                 "1d_3d": ("[4]", "[2,4,3]"), "3d_1d": ("[2,3,4]", "[4]"),
                 "bcast": ("[2,1,3,4]", "[5,4,2]"), "mismatch": ("[3,4]", "[3,2]")}
# Paddle 2.6.2's matmul_v2_grad raises on broadcast batch dims ("Input dimension size
# should be equal to 2"): that gradient is checked by finite differences in tests/ops
for sname, (sa, sb) in MATMUL_SHAPES.items():
    CASES.append(C(f"matmul.{sname}.float32", "x @ y", f"float32{sa}", f"float32{sb}",
                   grad=sname != "bcast"))
for a, b in (("float64", "float64"), ("int64", "int64"), ("float32", "float64"),
             ("float32", "int64"), ("int64", "float32"), ("int32", "int32")):
    CASES.append(C(f"matmul.2d_2d.{a}.{b}", "x @ y", f"{a}[3,4]", f"{b}[4,2]"))

# unary operators
for a in DTYPES:
    CASES.append(C(f"neg.{a}", "-x", f"{a}[2,3]"))
    CASES.append(C(f"abs.{a}", "abs(x)", f"{a}[2,3]", paddle_code="paddle.abs(x)",
                   note="Paddle 2.6.2's Tensor has no __abs__; sampan's is paddle.abs"))
    CASES.append(C(f"invert.{a}", "~x", f"{a}[2,3]"))
    CASES.append(C(f"pos_bool.{a}", "bool(x[0, 0])", f"{a}[2,3]", modes=("eager",)))
    CASES.append(C(f"float.{a}", "float(x[0, 0])", f"{a}[2,3]", modes=("eager",)))
    CASES.append(C(f"int.{a}", "int(x[0, 0])", f"{a}[2,3]", modes=("eager",)))

# numpy operands: a tensor of the array's dtype under the tensor rules, on either side
# (numpy defers to the tensor's operators: Tensor.__array_ufunc__ is None)
ARRAYS = {"f64": "np.linspace(0.5, 2.0, 3)", "f32": "np.linspace(0.5, 2.0, 3).astype('float32')",
          "i64": "np.arange(1, 4)", "bool": "np.array([True, False, True])",
          "f64_0d": "np.array(1.5)"}
for aname, arr in ARRAYS.items():
    for name, sym in (("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"), ("pow", "**"),
                      ("gt", ">")):
        for dtype in ("float32", "int64"):
            if name == "pow" and dtype == "int64":
                continue
            CASES.append(C(f"ndarray.{name}.{dtype}.{aname}", f"x {sym} {arr}",
                           f"{dtype}[2,3]|pos", modes=("eager",)))
            CASES.append(C(f"ndarray.r{name}.{dtype}.{aname}", f"{arr} {sym} x",
                           f"{dtype}[2,3]|pos", modes=("eager",)))
CASES.append(C("ndarray.rmul.grad", "np.full([2, 3], 2.0, 'float32') * x", "float32[2,3]",
               modes=("eager",), grad=True))
CASES.append(C("ndarray.scalar.rmul", "np.float64(2.0) * x", "float32[2,3]", modes=("eager",)))
