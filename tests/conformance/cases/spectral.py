"""Complex tensors, ``paddle.fft`` and ``paddle.signal``.

Complex numbers: creation (to_tensor of Python complex numbers and complex
arrays, ``paddle.complex``, ``polar``, ``as_complex``), their parts (``real``,
``imag``, ``conj``, ``angle``, ``as_real``, ``abs``), arithmetic with complex
and real tensors (Paddle promotes float and complex tensors to the wider
complex dtype), reductions, unary math and data movement on complex tensors,
and gradients of real losses through all of it (``grad=True`` sums the real
and imaginary parts of complex outputs; a complex input's gradient is
dL/dRe + i dL/dIm).

``paddle.fft``: the 22 functions over float, complex and integer inputs, the
lengths ``n``/``s`` (cut and zero-padded), ``axes``, the three norms, their
argument errors and gradients.  ``paddle.signal``: ``stft``/``istft`` (and
the Tensor methods), ``frame``/``overlap_add``.
"""
from spec import C

F32, F64 = "float32", "float64"
C64, C128 = "complex64", "complex128"
LOOSE = {"rtol": 1e-4, "atol": 1e-4}       # float32 transforms sum many terms

CASES = []


def add(id, code, *args, **kw):
    CASES.append(C(id, code, *args, **kw))


# ------------------------------------------------------------------ creation
add("to_tensor.py_complex", "paddle.to_tensor(1 + 2j)")
add("to_tensor.py_complex_list", "paddle.to_tensor([1 + 2j, 3, -0.5j])")
add("to_tensor.py_complex_nested", "paddle.to_tensor([[1 + 2j], [2.5 - 1j]])")
add("to_tensor.complex_dtype", "paddle.to_tensor([1, 2], dtype='complex64')")
add("to_tensor.complex128_dtype", "paddle.to_tensor([1 + 1j], dtype='complex128')")
add("to_tensor.complex_to_float", "paddle.to_tensor([1 + 2j, 3 - 1j], dtype='float32')")
for d in (C64, C128):
    add(f"to_tensor.array.{d}", "paddle.to_tensor(x.numpy())", f"{d}[2,3]",
        modes=("eager", "static"))
    add(f"identity.{d}", "x", f"{d}[2,3]")
    add(f"numpy.{d}", "x.numpy()", f"{d}[3]", modes=("eager",))
    add(f"item.{d}", "x[1].item()", f"{d}[3]", modes=("eager",))
    add(f"dtype.{d}", "x.dtype", f"{d}[3]")
for d in (F32, F64):
    add(f"complex.{d}", "paddle.complex(x, y)", f"{d}[2,3]", f"{d}[2,3]", grad=True)
    add(f"polar.{d}", "paddle.polar(x, y)", f"{d}[2,3]|pos", f"{d}[2,3]", grad=True)
    add(f"as_complex.{d}", "paddle.as_complex(x)", f"{d}[3,2]", grad=True)
    add(f"astype.{d}.complex", "x.astype('complex64')", f"{d}[3]")
    add(f"cast.{d}.complex128", "paddle.cast(x, 'complex128')", f"{d}[3]", grad=True)
add("complex.bcast", "paddle.complex(x, y)", "float32[2,1]", "float32[3]", grad=True)
add("complex.0d", "paddle.complex(x, y)", "float64[]", "float64[]")
add("complex.mixed", "paddle.complex(x, y)", "float32[3]", "float64[3]")
add("complex.int", "paddle.complex(x, y)", "int64[3]", "int64[3]")
add("polar.mixed", "paddle.polar(x, y)", "float64[3]|pos", "float32[3]")
add("polar.int", "paddle.polar(x, y)", "int64[3]", "int64[3]")
add("polar.method", "x.polar(y)", "float32[3]|pos", "float32[3]")
add("as_complex.3d", "paddle.as_complex(x)", "float32[2,3,2]")
add("as_complex.method", "x.as_complex()", "float64[2]")
add("as_complex.bad_last", "paddle.as_complex(x)", "float32[2,3]")
add("as_complex.int", "paddle.as_complex(x)", "int64[3,2]")
for d in (C64, C128):
    add(f"cast.{d}.float32", "paddle.cast(x, 'float32')", f"{d}[3]")
    add(f"astype.{d}.float64", "x.astype('float64')", f"{d}[3]")
    add(f"astype.{d}.int32", "x.astype('int32')", f"{d}[3]")
    add(f"astype.{d}.bool", "x.astype('bool')", f"{d}[3]")
    add(f"cast.{d}.other", f"paddle.cast(x, '{C128 if d == C64 else C64}')", f"{d}[3]",
        grad=True)
add("zeros.complex64", "paddle.zeros([2, 3], dtype='complex64')")
add("ones.complex128", "paddle.ones([2], dtype='complex128')")
add("full.complex64", "paddle.full([2], 3, dtype='complex64')")
add("full_like.complex", "paddle.full_like(x, 2.0)", "complex64[3]")
add("zeros_like.complex", "paddle.zeros_like(x)", "complex128[2,3]")
add("ones_like.complex", "paddle.ones_like(x)", "complex64[3]")

# ------------------------------------------------------------------ parts of a complex number
for d in (C64, C128):
    add(f"real.{d}", "paddle.real(x)", f"{d}[2,3]", grad=True)
    add(f"imag.{d}", "paddle.imag(x)", f"{d}[2,3]", grad=True)
    add(f"conj.{d}", "paddle.conj(x)", f"{d}[2,3]", grad=True)
    add(f"angle.{d}", "paddle.angle(x)", f"{d}[2,3]", grad=True)
    add(f"as_real.{d}", "paddle.as_real(x)", f"{d}[2,3]", grad=True)
    add(f"abs.{d}", "paddle.abs(x)", f"{d}[2,3]", grad=True)
    add(f"is_complex.{d}", "paddle.is_complex(x)", f"{d}[3]")
    add(f"methods.{d}", "[x.real(), x.imag(), x.conj(), x.angle(), x.as_real(), x.abs()]",
        f"{d}[3]", grad=True)
add("is_complex.method", "x.is_complex()", "complex64[3]")
add("is_complex.float", "paddle.is_complex(x)", "float32[3]")
add("is_complex.int", "x.is_complex()", "int64[3]")
add("is_complex.not_tensor", "paddle.is_complex(1 + 2j)", modes=("eager",))
add("real.float", "paddle.real(x)", "float32[3]")
add("imag.float", "paddle.imag(x)", "float64[3]")
add("conj.float", "paddle.conj(x)", "float32[2,3]", grad=True)
add("conj.int", "paddle.conj(x)", "int64[3]")
add("angle.float", "paddle.angle(x)", "float32[2,3]", grad=True)
add("angle.int", "paddle.angle(x)", "int64[3]")
add("angle.zero", "paddle.angle(x * 0)", "complex64[3]", grad=True)
add("as_real.float", "paddle.as_real(x)", "float32[3]")
add("abs_sq.grad", "(x * x.conj()).real()", "complex64[2,3]", grad=True)
add("real_imag.0d", "[paddle.real(x), paddle.imag(x)]", "complex128[]", grad=True)

# ------------------------------------------------------------------ arithmetic
for d in (C64, C128):
    for op in ("+", "-", "*", "/"):
        name = {"+": "add", "-": "sub", "*": "mul", "/": "div"}[op]
        add(f"op.{name}.{d}", f"x {op} y", f"{d}[2,3]", f"{d}[2,3]", grad=True)
        add(f"op.{name}.{d}.bcast", f"x {op} y", f"{d}[2,3]", f"{d}[3]", grad=True)
        for r in (F32, F64):
            add(f"op.{name}.{d}.{r}", f"x {op} y", f"{d}[2,3]", f"{r}[2,3]", grad=True)
            add(f"op.{name}.{r}.{d}", f"x {op} y", f"{r}[2,3]", f"{d}[2,3]", grad=True)
        add(f"op.{name}.{d}.int", f"x {op} y", f"{d}[2,3]", "int64[2,3]")
        add(f"op.{name}.{d}.float16", f"x {op} y", f"{d}[2,3]", "float16[2,3]")
        add(f"op.{name}.{d}.scalar_int", f"x {op} 2", f"{d}[2,3]")
        add(f"op.{name}.{d}.scalar_float", f"x {op} 1.5", f"{d}[2,3]", grad=True)
        add(f"op.{name}.{d}.scalar_complex", f"x {op} (1.5 - 2j)", f"{d}[2,3]", grad=True)
        add(f"op.{name}.{d}.rscalar", f"2.5 {op} x", f"{d}[2,3]", grad=True)
    add(f"op.add.{d}.other", f"x + y", f"{d}[3]", f"{C128 if d == C64 else C64}[3]")
    add(f"op.matmul.{d}", "x @ y", f"{d}[2,3]", f"{d}[3,4]", grad=True)
    add(f"op.matmul.{d}.{F32}", "x @ y", f"{d}[2,3]", "float32[3,2]", grad=True)
    add(f"op.neg.{d}", "-x", f"{d}[2,3]", grad=True)
    add(f"op.rscalar_complex.{d}", "(2 - 1j) * x", f"{d}[3]", grad=True)
add("op.scalar_complex.float32", "x + (1 + 1j)", "float32[3]")
add("op.scalar_complex.int64", "x * (2 + 1j)", "int64[3]")
add("op.pow.complex", "x ** 2", "complex64[3]")
add("op.eq.complex", "x == y", "complex64[3]", "complex64[3]")
# Paddle's static Program of a real-complex mix is one op of mixed dtypes; sampan's
# casts the real operand first (a `cast` more, the same values): eager and to_static
MIXED = ("eager", "to_static")
for fn in ("add", "subtract", "multiply", "divide", "matmul"):
    a, b = ("[2,3]", "[3,2]") if fn == "matmul" else ("[2,3]", "[2,3]")
    add(f"fn.{fn}.{C64}", f"paddle.{fn}(x, y)", f"{C64}{a}", f"{C64}{b}", grad=True)
    add(f"fn.{fn}.{C128}.{F32}", f"paddle.{fn}(x, y)", f"{C128}{a}", f"{F32}{b}", grad=True,
        modes=MIXED)
    add(f"fn.{fn}.{F32}.{C64}", f"paddle.{fn}(x, y)", f"{F32}{a}", f"{C64}{b}", grad=True,
        modes=MIXED)
    add(f"fn.{fn}.float16.{C64}", f"paddle.{fn}(x, y)", f"float16{a}", f"{C64}{b}",
        modes=MIXED)
    add(f"fn.{fn}.int64.{C64}", f"paddle.{fn}(x, y)", f"int64{a}", f"{C64}{b}")
    # Paddle's functions fail to widen a complex64 operand (its data transform has
    # no complex cast); its operators and every wider mix give the complex128 result
    add(f"fn.{fn}.{F64}.{C64}", f"paddle.{fn}(x, y)", f"{F64}{a}", f"{C64}{b}",
        paddle_bug="NotImplementedError: Data type (complex64) is not supported when casting",
        want=f"np.{fn}(x, y).astype('complex128')")
    add(f"fn.{fn}.{C64}.{C128}", f"paddle.{fn}(x, y)", f"{C64}{a}", f"{C128}{b}",
        paddle_bug="NotImplementedError: Data type (complex64) is not supported when casting",
        want=f"np.{fn}(x, y).astype('complex128')")
add("fn.dot.complex", "paddle.dot(x, y)", "complex64[4]", "complex64[4]", grad=True)
add("fn.dot.complex_2d", "paddle.dot(x, y)", "complex128[2,3]", "complex128[2,3]", grad=True)
add("fn.scale.complex", "paddle.scale(x, scale=2.0, bias=1.0)", "complex64[2,3]", grad=True)
add("fn.add_n.complex", "paddle.add_n([x, y])", "complex64[2,3]", "complex64[2,3]", grad=True)

# ------------------------------------------------------------------ reductions and unary math
for d in (C64, C128):
    add(f"sum.{d}", "paddle.sum(x)", f"{d}[2,3]", grad=True)
    add(f"sum.axis.{d}", "x.sum(axis=1, keepdim=True)", f"{d}[2,3]", grad=True)
    add(f"mean.{d}", "paddle.mean(x)", f"{d}[2,3]", grad=True)
    add(f"mean.axis.{d}", "x.mean(axis=0)", f"{d}[2,3]", grad=True)
    for fn in ("exp", "expm1", "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan",
               "tanh"):
        add(f"{fn}.{d}", f"paddle.{fn}(x * 0.4)", f"{d}[2,3]", grad=True, **LOOSE)
    for fn in ("sigmoid", "silu", "log_sigmoid"):
        add(f"F.{fn}.{d}", f"paddle.nn.functional.{fn}(x)", f"{d}[2,3]", grad=True, **LOOSE)
    # softsign is not holomorphic: Paddle's complex gradient is right only for a real
    # loss of its real part (dOut real), what this case differentiates
    add(f"F.softsign.{d}", "paddle.nn.functional.softsign(x).real()", f"{d}[2,3]", grad=True,
        **LOOSE)
    add(f"F.softsign.value.{d}", "paddle.nn.functional.softsign(x)", f"{d}[2,3]", **LOOSE)
    add(f"F.softplus.{d}", "paddle.nn.functional.softplus(x * 8)", f"{d}[2,4]", grad=True,
        **LOOSE)
    add(f"F.hardswish.{d}", "paddle.nn.functional.hardswish(x * 3)", f"{d}[2,4]", grad=True,
        **LOOSE)
add("sum.dtype.complex128", "paddle.sum(x, dtype='complex128')", "complex64[3]")
add("prod.complex", "paddle.prod(x)", "complex64[3]")
add("max.complex", "paddle.max(x)", "complex64[3]")
add("sqrt.complex", "paddle.sqrt(x)", "complex64[3]")
add("log.complex", "paddle.log(x)", "complex64[3]")
add("cumsum.complex", "paddle.cumsum(x)", "complex64[3]")
add("isclose.complex", "paddle.isclose(x, x + 1e-7)", "complex64[3]")
add("logical_not.complex", "paddle.logical_not(x * 0)", "complex64[3]")

# ------------------------------------------------------------------ data movement
SPLIT_BUG = ("Paddle 2.6.2's eager split has no complex kernel (NotFound), while its split "
             "op (static programs) and unbind have one")
for d in (C64, C128):
    add(f"reshape.{d}", "paddle.reshape(x, [3, 2])", f"{d}[2,3]", grad=True)
    add(f"transpose.{d}", "paddle.transpose(x, [1, 0])", f"{d}[2,3]", grad=True)
    add(f"concat.{d}", "paddle.concat([x, y], axis=1)", f"{d}[2,3]", f"{d}[2,2]", grad=True)
    add(f"stack.{d}", "paddle.stack([x, y])", f"{d}[3]", f"{d}[3]", grad=True)
    add(f"split.{d}", "paddle.split(x, 3, axis=1)", f"{d}[2,3]", paddle_bug=SPLIT_BUG,
        want="np.split(x, 3, axis=1)")
    add(f"unbind.{d}", "paddle.unbind(x)", f"{d}[2,3]", grad=True)
    add(f"getitem.{d}", "x[0, 1:]", f"{d}[2,3]", grad=True)
    add(f"flatten.{d}", "paddle.flatten(x)", f"{d}[2,3]", grad=True)
    add(f"squeeze.{d}", "paddle.squeeze(x)", f"{d}[1,3]", grad=True)
    add(f"unsqueeze.{d}", "paddle.unsqueeze(x, 0)", f"{d}[3]", grad=True)
    add(f"expand.{d}", "paddle.expand(x, [2, 3])", f"{d}[1,3]", grad=True)
    add(f"tile.{d}", "paddle.tile(x, [2])", f"{d}[3]")
    add(f"flip.{d}", "paddle.flip(x, 0)", f"{d}[3]")
    add(f"roll.{d}", "paddle.roll(x, 1)", f"{d}[2,3]", grad=True)
    add(f"gather_nd.{d}", "paddle.gather_nd(x, y)", f"{d}[2,3]", "int64[2,2]|idx2", grad=True)
    add(f"index_select.{d}", "paddle.index_select(x, y, axis=1)", f"{d}[2,3]",
        "int64[2]|idx3", grad=True)
    add(f"broadcast_tensors.{d}", "paddle.broadcast_tensors([x, y])", f"{d}[2,1]",
        f"{d}[3]", grad=True)
    add(f"setitem.{d}", "x[0] = y\nreturn x", f"{d}[2,3]", f"{d}[3]")
add("pad.complex", "paddle.nn.functional.pad(x, [1, 1], data_format='NLC')",
    "complex64[1,3,2]", grad=True)
add("gather.complex", "paddle.gather(x, y)", "complex64[3]", "int64[2]|idx3")
add("where.complex", "paddle.where(y, x, x)", "complex64[3]", "bool[3]")

# ------------------------------------------------------------------ paddle.fft
ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
N_D = ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn")
TWO_D = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2")
REAL_IN = ("rfft", "ihfft", "rfftn", "ihfftn", "rfft2", "ihfft2")


# the complex dtype Paddle means to cast an integer input of irfft/hfft to is computed
# from the default dtype's name, which its check does not recognise: it casts to
# float32, which fft_c2r has no kernel for (NotFound)
INT_C2R_BUG = ("Paddle 2.6.2 casts an integer input of irfft/hfft(n) to float32 instead of "
               "complex64 and fails (no float32 fft_c2r kernel)")


def _in(fn, d="float64", shape="[3,4]"):
    """The input dtype a transform takes: real for rfft/ihfft, complex for the
    others' interesting case."""
    if fn in REAL_IN:
        return f"{d}{shape}"
    return f"{'complex64' if d == 'float32' else 'complex128'}{shape}"


for fn in ONE_D:
    for d in (F32, F64):
        tol = LOOSE if d == F32 else {}
        add(f"fft.{fn}.{d}", f"paddle.fft.{fn}(x)", _in(fn, d), grad=True, **tol)
        add(f"fft.{fn}.{d}.real", f"paddle.fft.{fn}(x)", f"{d}[3,4]", grad=True, **tol)
    for norm in ("forward", "ortho"):
        add(f"fft.{fn}.norm_{norm}", f"paddle.fft.{fn}(x, norm='{norm}')", _in(fn), grad=True)
    add(f"fft.{fn}.n_pad", f"paddle.fft.{fn}(x, n=7)", _in(fn), grad=True)
    add(f"fft.{fn}.n_cut", f"paddle.fft.{fn}(x, n=3, axis=0)", _in(fn, shape="[5,2]"),
        grad=True)
    add(f"fft.{fn}.n_even", f"paddle.fft.{fn}(x, n=6)", _in(fn), grad=True)
    add(f"fft.{fn}.axis0", f"paddle.fft.{fn}(x, axis=0)", _in(fn), grad=True)
    if fn in ("irfft", "hfft"):
        add(f"fft.{fn}.int", f"paddle.fft.{fn}(x)", "int64[5]", paddle_bug=INT_C2R_BUG,
            want=f"np.fft.{fn}(x).astype('float32')")
    else:
        add(f"fft.{fn}.int", f"paddle.fft.{fn}(x)", "int64[5]")
    add(f"fft.{fn}.float16", f"paddle.fft.{fn}(x)", "float16[4]")
    add(f"fft.{fn}.bad_norm", f"paddle.fft.{fn}(x, norm='none')", _in(fn))
    add(f"fft.{fn}.bad_n", f"paddle.fft.{fn}(x, n=0)", _in(fn))
    add(f"fft.{fn}.bad_n_float", f"paddle.fft.{fn}(x, n=4.0)", _in(fn))
    add(f"fft.{fn}.bad_axis", f"paddle.fft.{fn}(x, axis=2)", _in(fn))
    add(f"fft.{fn}.0d", f"paddle.fft.{fn}(x)", _in(fn, shape="[]"))
    add(f"fft.{fn}.empty", f"paddle.fft.{fn}(x)", _in(fn, shape="[0]"))
add("fft.rfft.complex", "paddle.fft.rfft(x)", "complex64[4]")
add("fft.irfft.n1", "paddle.fft.irfft(x)", "complex64[1]")
add("fft.fft.3d_axis1", "paddle.fft.fft(x, axis=1)", "complex128[2,3,4]", grad=True)
add("fft.irfft.n_odd", "paddle.fft.irfft(x, n=5)", "complex128[3]", grad=True)
add("fft.hfft.n_odd", "paddle.fft.hfft(x, n=5)", "complex128[2,3]", grad=True)
add("fft.bool", "paddle.fft.fft(x)", "bool[4]")

for fn in N_D:
    add(f"fftn.{fn}", f"paddle.fft.{fn}(x)", _in(fn, shape="[2,3,4]"), grad=True)
    add(f"fftn.{fn}.float32", f"paddle.fft.{fn}(x)", _in(fn, "float32", "[2,3,4]"),
        grad=True, **LOOSE)
    add(f"fftn.{fn}.s", f"paddle.fft.{fn}(x, s=[3, 5])", _in(fn, shape="[2,3,4]"), grad=True)
    add(f"fftn.{fn}.axes", f"paddle.fft.{fn}(x, axes=[0, 2])", _in(fn, shape="[2,3,4]"),
        grad=True)
    add(f"fftn.{fn}.axes_unsorted", f"paddle.fft.{fn}(x, s=[4, 2], axes=[2, 0])",
        _in(fn, shape="[2,3,4]"), grad=True)
    add(f"fftn.{fn}.axes_neg", f"paddle.fft.{fn}(x, axes=(-1, -2), norm='ortho')",
        _in(fn, shape="[2,3,4]"), grad=True)
    add(f"fftn.{fn}.real", f"paddle.fft.{fn}(x, norm='forward')", "float64[3,4]", grad=True)
    if fn in ("irfftn", "hfftn"):
        want = "np.fft.irfftn(x)" if fn == "irfftn" else "np.fft.irfftn(x, norm='forward')"
        add(f"fftn.{fn}.int", f"paddle.fft.{fn}(x)", "int32[2,3]", paddle_bug=INT_C2R_BUG,
            want=f"{want}.astype('float32')")
    else:
        add(f"fftn.{fn}.int", f"paddle.fft.{fn}(x)", "int32[2,3]")
    add(f"fftn.{fn}.bad_s", f"paddle.fft.{fn}(x, s=[2, 0])", _in(fn))
    add(f"fftn.{fn}.long_s", f"paddle.fft.{fn}(x, s=[2, 2, 2])", _in(fn))
    add(f"fftn.{fn}.s_axes_len", f"paddle.fft.{fn}(x, s=[2], axes=[0, 1])", _in(fn))
    add(f"fftn.{fn}.bad_axes", f"paddle.fft.{fn}(x, axes=[0, 3])", _in(fn))
    add(f"fftn.{fn}.axes_not_seq", f"paddle.fft.{fn}(x, axes=1)", _in(fn))
for fn in TWO_D:
    add(f"fft2.{fn}", f"paddle.fft.{fn}(x)", _in(fn, shape="[2,3,4]"), grad=True)
    add(f"fft2.{fn}.s_axes", f"paddle.fft.{fn}(x, s=[3, 2], axes=[0, 2])",
        _in(fn, shape="[2,3,4]"), grad=True)
    add(f"fft2.{fn}.1d", f"paddle.fft.{fn}(x)", _in(fn, shape="[4]"))
    add(f"fft2.{fn}.bad_s", f"paddle.fft.{fn}(x, s=[3])", _in(fn))
    add(f"fft2.{fn}.bad_axes", f"paddle.fft.{fn}(x, axes=[0, 1, 2])", _in(fn, shape="[2,3,4]"))

FREQ_BUG = ("Paddle 2.6.2's fftfreq/rfftfreq ignore their dtype argument (always the default "
            "float dtype)")
for fn, ref in (("fftfreq", "np.fft.fftfreq"), ("rfftfreq", "np.fft.rfftfreq")):
    add(f"{fn}.n8", f"paddle.fft.{fn}(8)")
    add(f"{fn}.n7_d", f"paddle.fft.{fn}(7, d=0.5)")
    add(f"{fn}.n1", f"paddle.fft.{fn}(1)")
    add(f"{fn}.dtype", f"paddle.fft.{fn}(5, 0.1, dtype='float64')", paddle_bug=FREQ_BUG,
        want=f"{ref}(5, 0.1).astype('float64')")
    add(f"{fn}.zero", f"paddle.fft.{fn}(0)")
    add(f"{fn}.zero_d", f"paddle.fft.{fn}(4, d=0)")
for fn in ("fftshift", "ifftshift"):
    add(f"{fn}.all", f"paddle.fft.{fn}(x)", "float32[3,4]", grad=True)
    add(f"{fn}.axis", f"paddle.fft.{fn}(x, axes=1)", "float32[3,5]", grad=True)
    add(f"{fn}.axes", f"paddle.fft.{fn}(x, axes=[0])", "complex64[5,2]", grad=True)
    add(f"{fn}.axes2", f"paddle.fft.{fn}(x, axes=(0, 1))", "int64[3,4]")
    add(f"{fn}.freq", f"paddle.fft.{fn}(paddle.fft.fftfreq(7))")
add("fft.roundtrip", "paddle.fft.irfft(paddle.fft.rfft(x, n=8), n=8)", "float64[2,5]", grad=True)
add("fft.roundtrip_c2c", "paddle.fft.ifftn(paddle.fft.fftn(x))", "complex64[2,3]", grad=True,
    **LOOSE)
add("fft.grad_chain", "paddle.abs(paddle.fft.fft(x)).sum()", "float64[6]", grad=True)

# ------------------------------------------------------------------ paddle.signal
add("frame.1d", "paddle.signal.frame(x, 4, 2)", "float32[10]", grad=True)
add("frame.axis0", "paddle.signal.frame(x, 3, 2, axis=0)", "float64[9,2]", grad=True)
add("frame.2d", "paddle.signal.frame(x, 4, 3)", "float64[2,10]", grad=True)
add("frame.int", "paddle.signal.frame(x, 2, 1)", "int64[4]")
add("frame.complex", "paddle.signal.frame(x, 2, 2)", "complex64[6]", grad=True)
add("frame.too_long", "paddle.signal.frame(x, 11, 2)", "float32[10]")
add("frame.bad_axis", "paddle.signal.frame(x, 2, 2, axis=1)", "float32[10]")
add("frame.bad_hop", "paddle.signal.frame(x, 2, 0)", "float32[10]")
add("frame.0d", "paddle.signal.frame(x, 1, 1)", "float32[]", modes=("eager",))
add("overlap_add.2d", "paddle.signal.overlap_add(x, 2)", "float32[4,3]", grad=True)
add("overlap_add.3d", "paddle.signal.overlap_add(x, 1)", "float64[2,3,4]", grad=True)
add("overlap_add.axis0", "paddle.signal.overlap_add(x, 3, axis=0)", "float64[2,4,3]",
    grad=True)
add("overlap_add.int", "paddle.signal.overlap_add(x, 1)", "int32[2,3]")
add("overlap_add.hop_too_big", "paddle.signal.overlap_add(x, 3)", "float32[2,5]")
add("overlap_add.1d", "paddle.signal.overlap_add(x, 1)", "float32[5]")
add("frame.roundtrip", "paddle.signal.overlap_add(paddle.signal.frame(x, 4, 4), 4)",
    "float32[12]")

for d in (F32, F64):
    tol = LOOSE if d == F32 else {}
    add(f"stft.{d}", "paddle.signal.stft(x, 8)", f"{d}[2,32]", grad=True, **tol)
    add(f"stft.1d.{d}", "paddle.signal.stft(x, 8, hop_length=3)", f"{d}[20]", grad=True, **tol)
add("stft.window", "paddle.signal.stft(x, 8, win_length=6, window=y)", "float64[2,24]",
    "float64[6]|pos", grad=True)
add("stft.no_center", "paddle.signal.stft(x, 8, center=False, hop_length=4)", "float64[30]",
    grad=True)
add("stft.constant_pad", "paddle.signal.stft(x, 6, pad_mode='constant', normalized=True)",
    "float64[2,20]", grad=True)
add("stft.twosided", "paddle.signal.stft(x, 8, onesided=False)", "float64[2,24]", grad=True)
add("stft.complex", "paddle.signal.stft(x, 4, onesided=False)", "complex128[2,12]",
    grad=True)
add("stft.complex_onesided", "paddle.signal.stft(x, 4)", "complex64[2,12]")
add("stft.int", "paddle.signal.stft(x, 4)", "int64[12]")
add("stft.method", "x.stft(8, hop_length=4)", "float64[24]")
add("stft.n_fft_too_big", "paddle.signal.stft(x, 16)", "float32[10]", modes=("eager",))
add("stft.bad_pad_mode", "paddle.signal.stft(x, 4, pad_mode='replicate')", "float32[10]")
add("stft.bad_rank", "paddle.signal.stft(x, 4)", "float32[2,2,8]")
add("stft.bad_window", "paddle.signal.stft(x, 8, window=y)", "float32[16]", "float32[4]")
ROUNDTRIP = "paddle.signal.istft(paddle.signal.stft(x, {n}{args}), {n}{args}{iargs})"
for name, n, args, iargs, arg in (
        ("onesided", 8, "", "", "float64[2,32]"),
        ("onesided.f32", 8, "", "", "float32[2,32]"),
        ("2d_hop", 8, ", hop_length=2", "", "float64[2,24]"),
        ("length", 8, ", hop_length=4", ", length=20", "float64[2,24]"),
        ("no_center", 8, ", hop_length=4, center=False", "", "float64[2,24]"),
        ("twosided", 8, ", onesided=False", "", "float64[2,24]"),
        ("normalized", 6, ", normalized=True", "", "float64[1,18]"),
        ("window", 8, ", win_length=6, window=paddle.ones([6], 'float64') * 0.5", "",
         "float64[2,24]")):
    add(f"istft.{name}", ROUNDTRIP.format(n=n, args=args, iargs=iargs), arg, grad=True,
        **(LOOSE if "f32" in name else {}))
# a 1-D signal: Paddle's istft squeezes its result in place, which its backward refuses
add("istft.1d", ROUNDTRIP.format(n=8, args=", hop_length=2", iargs=""), "float64[24]")
# values only: Paddle's backward of a complex istft refuses its own in-place squeeze (as 1d)
add("istft.complex_out",
    "paddle.signal.istft(x, 4, onesided=False, return_complex=True)", "complex128[4,5]")
add("istft.raw", "paddle.signal.istft(x, 8)", "complex128[2,5,6]", grad=True)
add("istft.method", "x.istft(8, hop_length=4)", "complex64[5,7]", **LOOSE)
add("istft.bad_fft_size", "paddle.signal.istft(x, 8)", "complex64[4,5]", modes=("eager",))
add("istft.bad_hop", "paddle.signal.istft(x, 8, hop_length=9)", "complex64[5,5]")
add("istft.nola", "paddle.signal.istft(x, 4, hop_length=4, "
                 "window=paddle.to_tensor([0.0, 1.0, 1.0, 0.0]))", "complex64[3,4]",
    modes=("eager",))
add("istft.complex_onesided",
    "paddle.signal.istft(x, 4, return_complex=True)", "complex64[3,4]")
