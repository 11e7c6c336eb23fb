"""The Tensor surface and process-level names: the in-place ``_`` forms
(``x.exp_()``, ``paddle.tanh_(x)``, ``x.add_(y)``, ``x.cast_(dt)``, the fills),
the Tensor's memory/conversion/kind attributes, how a tensor prints
(``set_printoptions``), ``finfo``/``iinfo``/``bfloat16``, ``set_flags``/
``get_flags`` (``FLAGS_check_nan_inf``), the draws ``bernoulli``/
``poisson``/``multinomial`` (on inputs that make them deterministic, or their
shapes and dtypes), ``rank``/``is_empty``/``tolist``, ``batch``,
``check_shape``, ``LazyGuard`` and ``disable_signal_handler``.

In a static Program Paddle's in-place forms append the plain op (with a
warning) and return its result; the cases return the result, so every mode
compares the same value.
"""
import re

from spec import C

EAGER = ("eager",)
CASES = []


def add(id, code, *args, **kw):
    CASES.append(C(id, code, *args, **kw))


# ------------------------------------------------------------------ unary in place
# fn -> argument kind; Paddle 2.6 has the top-level form paddle.<fn>_ for TOP
UNARY = {"abs": "", "acos": "unit", "asin": "unit", "atan": "", "ceil": "", "cos": "",
         "cosh": "", "exp": "", "floor": "", "log": "pos", "log10": "pos", "log1p": "pos",
         "log2": "pos", "reciprocal": "", "round": "", "rsqrt": "pos", "sigmoid": "",
         "sin": "", "sinh": "", "sqrt": "pos", "tan": "unit", "tanh": "", "neg": ""}
TOP = {"abs", "acos", "atan", "cos", "log10", "log2", "log", "neg", "sin", "sinh", "tan",
       "tanh"}
for fn, kind in UNARY.items():
    k = f"|{kind}" if kind else ""
    add(f"{fn}_.float32", f"x.{fn}_()", f"float32[2,3]{k}")
    add(f"{fn}_.float64.grad", f"y = x * 1.0\ny.{fn}_()\nreturn y", f"float64[3]{k}",
        grad=True)
    if fn in TOP:
        add(f"{fn}_.top", f"paddle.{fn}_(x)", f"float32[2]{k}")
for fn in ("erf", "expm1"):          # top level only (no Tensor method in Paddle)
    add(f"{fn}_.top", f"paddle.{fn}_(x)", "float32[2,3]")
    add(f"{fn}_.float64.grad", f"y = x * 1.0\npaddle.{fn}_(y)\nreturn y", "float64[3]",
        grad=True)
add("square_.top", "paddle.square_(x)", "float32[2,3]",
    paddle_bug="paddle.square_ raises AttributeError: its C++ core has no square_ op",
    want="np.square(x)")
# integers: the forms that keep the dtype work, the others raise as Paddle's
for fn in ("abs", "neg", "exp", "sqrt", "log", "floor"):
    add(f"{fn}_.int32", f"x.{fn}_()", "int32[2,3]|pos", modes=EAGER)
add("exp_.leaf_needs_grad", "x.stop_gradient = False\nreturn x.exp_()", "float32[2]",
    modes=EAGER)
add("exp_.version", "x.exp_()\nx.sqrt_()\nreturn x.inplace_version", "float32[2]|pos",
    modes=EAGER)
add("exp_.same_object", "return x.exp_() is x", "float32[2]", modes=EAGER)

# ------------------------------------------------------------------ binary in place
BINARY = ("add", "subtract", "multiply", "divide", "floor_divide")
for fn in BINARY:
    add(f"{fn}_.float32", f"x.{fn}_(y)", "float32[2,3]", "float32[3]")
    add(f"{fn}_.int64", f"x.{fn}_(y)", "int64[2,3]|pos", "int64[2,3]|pos")
    add(f"{fn}_.bcast_grows", f"x.{fn}_(y)", "float32[1,3]", "float32[2,3]", modes=EAGER)
add("multiply_.float64.grad", "z = x * 1.0\nz.multiply_(y)\nreturn z", "float64[2,3]",
    "float64[3]", grad=True)
add("divide_.top", "paddle.divide_(x, y)", "float32[2,3]", "float32[2,3]")
add("multiply_.top", "paddle.multiply_(x, y)", "float32[3]", "float32[3]")
add("floor_divide_.top", "paddle.floor_divide_(x, y)", "int32[4]|pos", "int32[4]|pos")
for fn in ("equal", "not_equal", "greater_equal", "greater_than", "less_equal", "less_than"):
    add(f"{fn}_.float32", f"x.{fn}_(y)", "float32[2,3]|idx3", "float32[3]|idx3")
    add(f"{fn}_.int32", f"x.{fn}_(y)", "int32[4]|idx3", "int32[4]|idx3")
    if fn != "not_equal":
        add(f"{fn}_.top", f"paddle.{fn}_(x, y)", "int64[4]|idx3", "int64[4]|idx3")
for fn in ("logical_and", "logical_or", "logical_xor"):
    add(f"{fn}_.bool", f"x.{fn}_(y)", "bool[2,3]", "bool[3]")
    add(f"{fn}_.float32", f"x.{fn}_(y)", "float32[4]|idx2", "float32[4]|idx2")
    if fn != "logical_xor":
        add(f"{fn}_.top", f"paddle.{fn}_(x, y)", "bool[4]", "bool[4]")
add("logical_not_.bool", "x.logical_not_()", "bool[2,3]")
add("logical_not_.top", "paddle.logical_not_(x)", "int32[4]|idx2")
for fn in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    add(f"{fn}_.int32", f"x.{fn}_(y)", "int32[2,3]", "int32[3]")
    add(f"{fn}_.top", f"paddle.{fn}_(x, y)", "bool[4]", "bool[4]")
add("bitwise_not_.int64", "x.bitwise_not_()", "int64[2,3]")
add("bitwise_not_.top", "paddle.bitwise_not_(x)", "uint8[4]")
add("bitwise_not_.float", "x.bitwise_not_()", "float32[4]", modes=EAGER)

# ------------------------------------------------------------------ other in-place forms
add("cast_.float64", "x.cast_('float64')", "float32[2,3]")
add("cast_.int32", "x.cast_(paddle.int32)", "float32[2,3]")
add("cast_.top", "paddle.cast_(x, 'bool')", "float32[4]|idx2")
add("pow_.int", "x.pow_(2)", "float32[2,3]")
add("pow_.float", "x.pow_(0.5)", "float64[3]|pos")
add("pow_.top", "paddle.pow_(x, 3)", "int64[3]")
add("pow_.tensor_exponent", "x.pow_(y)", "float32[3]", "float32[3]", modes=EAGER)
add("pow_.grad", "y = x * 1.0\ny.pow_(3)\nreturn y", "float64[3]", grad=True)
add("scale_", "x.scale_(2.0, 1.0)", "float32[2,3]")
add("scale_.before", "x.scale_(scale=3.0, bias=0.5, bias_after_scale=False)", "float32[3]")
add("clip_", "x.clip_(-0.5, 0.5)", "float32[2,3]")
add("clip_.grad", "y = x * 1.0\ny.clip_(-0.5, 0.5)\nreturn y", "float64[5]", grad=True)
add("clip_.bad", "x.clip_(1.0, -1.0)", "float32[3]", modes=EAGER)
add("cumsum_.float32", "x.cumsum_(1)", "float32[2,3]")
add("fill_.float", "x.fill_(3)", "float32[2,3]", modes=EAGER)
add("fill_.int_truncates", "x.fill_(-2.7)", "int64[3]", modes=EAGER)
add("fill_.bool", "x.fill_(0.5)", "bool[3]", modes=EAGER)
add("fill_.tensor_value", "x.fill_(y)", "float32[3]", "float32[]", modes=EAGER)
add("fill_.grad", "y = x * 2.0\ny.fill_(1.0)\nreturn y", "float64[3]", modes=EAGER, grad=True)
add("zero_", "x.zero_()", "float64[2,2]", modes=EAGER)
add("zero_.grad", "y = x * 2.0\ny.zero_()\nreturn y * x", "float64[3]", modes=EAGER, grad=True)
add("copy_", "x.copy_(y, True)\nreturn x", "float32[2,3]", "float32[4]", modes=EAGER)
add("copy_.dtype", "return x.copy_(y, False)", "float32[3]", "float64[3]", modes=EAGER)
add("detach_", "y = x * 2.0\ny.detach_()\nreturn y.stop_gradient, y", "float32[3]",
    modes=EAGER)
add("reconstruct_from_", "x.reconstruct_from_(y)\nreturn x", "float32[2]", "int64[3]",
    modes=EAGER)
# the random fills: shape, dtype and the support of the values
add("normal_", "x.normal_(1.0, 0.0)\nreturn x", "float64[2,3]", modes=EAGER)
add("normal_.top", "y = paddle.normal_(x)\nreturn y.shape, y.dtype", "float32[4]", modes=EAGER)
add("normal_.int", "x.normal_()", "int64[3]", modes=EAGER)
add("exponential_", "x.exponential_(2.0)\nreturn x.shape, x.dtype, bool((x >= 0).all())",
    "float32[5,4]", modes=EAGER)
add("exponential_.static", "return x.exponential_(2.0).shape", "float64[2,3]")
add("exponential_.int", "x.exponential_()", "int32[3]", modes=EAGER)
add("cauchy_", "x.cauchy_(1.0, 2.0)\nreturn x.shape, x.dtype", "float64[3,2]", modes=EAGER)
add("cauchy_.top", "y = paddle.cauchy_(x)\nreturn y.shape, y.dtype", "float32[4]", modes=EAGER)
add("geometric_", "x.geometric_(0.5)\nreturn x.shape, x.dtype, bool((x > 0).all())",
    "float32[3,3]", modes=EAGER)
add("geometric_.top", "y = paddle.geometric_(x, 0.2)\nreturn y.shape, y.dtype", "float64[4]",
    modes=EAGER)
add("geometric_.int", "x.geometric_(0.5)", "int64[3]", modes=EAGER)

# ------------------------------------------------------------------ the Tensor's attributes
for dt in ("float32", "float64", "float16", "int8", "int32", "int64", "bool", "uint8",
           "complex64", "complex128"):
    add(f"element_size.{dt}", "x.element_size()", f"{dt}[2]")
add("ndimension", "x.ndimension()", "float32[2,3,4]")
add("ndimension.zero_d", "x.ndimension()", "int64[]")
add("is_tensor.method", "x.is_tensor()", "float32[2]")
add("data_ptr", "x.data_ptr() > 0", "float32[2,3]", modes=EAGER)
add("strides", "x.strides, x.get_strides()", "float32[2,3,4]", modes=EAGER)
add("strides.zero_d", "x.strides", "float32[]", modes=EAGER)
add("offset", "x.offset", "float32[2,3]", modes=EAGER)
add("is_contiguous", "x.is_contiguous()", "float32[2,3]", modes=EAGER)
add("contiguous", "x.contiguous() is x, x.contiguous()", "float32[2,3]", modes=EAGER)
add("layout", "x.layout", "float32[2,3]", modes=EAGER)
add("is_dense", "x.is_dense()", "float32[2,3]", modes=EAGER)
add("value", "x.value() is x, x.value()", "float32[2,3]", modes=EAGER)
add("data.get", "x.data is x", "float32[2]", modes=EAGER)
add("data.set", "x.data = y\nreturn x", "float32[2]", "int64[3]", modes=EAGER)
add("pin_memory", "x.pin_memory()", "float32[2]", modes=EAGER)
add("get_tensor", "t = x.get_tensor()\nreturn t.shape(), np.array(t)", "float32[2,3]",
    modes=EAGER)
add("grad_", "x.stop_gradient = False\n(x * 3.0).sum().backward()\nreturn x.grad_",
    "float32[3]", modes=EAGER)
add("grad_.none", "x.grad_ is None", "float32[3]", modes=EAGER)
add("grad_fn", "x.stop_gradient = False\nreturn (x * 3.0).grad_fn is not None", "float32[3]",
    modes=EAGER)
add("block", "type(x.block).__name__", "float32[3]", modes=EAGER)
add("create_tensor.method", "x.create_tensor()", "float32[3]", modes=EAGER)
add("create_parameter.method", "x.create_parameter([2], 'float32')", "float32[3]",
    modes=EAGER)
for name in ("is_sparse", "is_sparse_coo", "is_sparse_csr", "is_selected_rows", "is_dist",
             "get_selected_rows"):
    add(f"{name}", f"x.{name}()", "float32[2,3]", modes=EAGER)
for name in ("dist_attr", "process_mesh", "placements", "num_shard"):
    add(f"{name}", f"x.{name}", "float32[2,3]", modes=EAGER)
for name in ("rows", "nnz", "indices", "crows", "cols", "get_map_tensor", "values",
             "coalesce", "to_dense"):
    add(f"{name}.dense", f"x.{name}()", "float32[2,3]", modes=EAGER)
add("item.many", "x.item()", "float32[2,3]", modes=EAGER)

# Tensor.to: in place (x is converted and returned)
add("to.dtype", "y = x.to('float64')\nreturn y is x, x", "float32[2,3]", modes=EAGER)
add("to.device", "x.to('cpu')", "float32[2]", modes=EAGER)
add("to.device_dtype", "x.to('cpu', 'int32')", "float32[2]", modes=EAGER)
add("to.place", "x.to(paddle.CPUPlace())", "float32[2]", modes=EAGER)
add("to.kw_dtype", "x.to(dtype=paddle.float16)", "float32[2]|idx3", modes=EAGER)
add("to.kw_all", "x.to(device='cpu', dtype='float64', blocking=True)", "int32[2]", modes=EAGER)
add("to.other", "x.to(y)", "float32[2]", "int64[1]", modes=EAGER)
add("to.blocking", "x.to('cpu', 'float64', False)", "float32[2]", modes=EAGER)
add("to.bad_device_type", "x.to(1)", "float32[2]", modes=EAGER)
add("to.bad_device", "x.to('cpu:0')", "float32[2]", modes=EAGER)
add("to.bad_blocking", "x.to('float64', 'cpu')", "float32[2]", modes=EAGER)
add("to.no_args", "x.to()", "float32[2]", modes=EAGER)

# ------------------------------------------------------------------ rank, is_empty, tolist
add("rank", "paddle.rank(x)", "float32[2,3,4]")
add("rank.method", "x.rank()", "int64[]")
add("is_empty.false", "paddle.is_empty(x)", "float32[2,3]")
add("is_empty.true", "paddle.is_empty(x)", "int64[2,0]")
add("is_empty.method", "x.is_empty()", "int32[3]")
add("is_empty.bool", "paddle.is_empty(x)", "bool[3]", modes=EAGER)
add("tolist", "paddle.tolist(x)", "int64[2,3]", modes=EAGER)
add("tolist.float", "paddle.tolist(x)", "float32[3]", modes=EAGER)

# ------------------------------------------------------------------ random draws
add("bernoulli.certain", "paddle.bernoulli(x)", "float32[2,3]|idx2")
add("bernoulli.shape", "o = paddle.bernoulli(x * 0.0 + 0.5)\n"
    "return o.shape, o.dtype, o.stop_gradient, bool(((o == 0) | (o == 1)).all())",
    "float64[4,5]", modes=EAGER)
add("bernoulli.bad_prob", "paddle.bernoulli(x + 2.0)", "float32[3]|pos", modes=EAGER)
add("bernoulli.int", "paddle.bernoulli(x)", "int64[3]|idx2", modes=EAGER)
add("poisson.rate_zero", "paddle.poisson(x)", "float32[2,3]|idx1")
add("poisson.shape", "o = paddle.poisson(x + 3.0)\n"
    "return o.shape, o.dtype, bool((o >= 0).all())", "float64[4,5]|pos", modes=EAGER)
add("poisson.negative_rate", "paddle.poisson(x * 0.0 - 1.0)", "float32[3]", modes=EAGER)
add("poisson.int", "paddle.poisson(x)", "int64[3]", modes=EAGER)
add("multinomial.one_category",
    "paddle.multinomial(paddle.to_tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]), 1)")
add("multinomial.method", "(x * 0.0 + paddle.to_tensor([0.0, 0.0, 1.0, 0.0])).multinomial(2, True)",
    "float32[4]", modes=EAGER)
add("multinomial.no_replacement",
    "o = paddle.multinomial(paddle.to_tensor([0.2, 0.0, 0.5, 0.3]), 3)\n"
    "return o.shape, o.dtype, sorted(o.numpy().tolist()) == [0, 2, 3]", modes=EAGER)
add("multinomial.replacement",
    "o = paddle.multinomial(paddle.to_tensor([[0.2, 0.8], [0.5, 0.5]]), 5, True)\n"
    "return o.shape, o.dtype", modes=EAGER)
add("multinomial.too_many", "paddle.multinomial(paddle.to_tensor([0.2, 0.8]), 3)", modes=EAGER)
add("multinomial.rank3", "paddle.multinomial(x, 1)", "float32[1,1,2]|pos", modes=EAGER)
add("multinomial.zero_d", "paddle.multinomial(x, 1)", "float32[]|pos", modes=EAGER)
add("multinomial.negative", "paddle.multinomial(paddle.to_tensor([-0.2, 0.8]), 1)",
    modes=EAGER)
add("multinomial.all_zero", "paddle.multinomial(paddle.to_tensor([0.0, 0.0]), 1)",
    modes=EAGER)
add("multinomial.no_samples", "paddle.multinomial(paddle.to_tensor([1.0, 2.0]), 0)",
    modes=EAGER)
add("multinomial.int", "paddle.multinomial(x, 1)", "int64[3]|pos", modes=EAGER)

add("top_p_sampling.top1", "paddle.tensor.top_p_sampling(x, y * 0.0 - 1.0)", "float32[2,5]",
    "float32[2]", paddle_code="return paddle.max(x, axis=-1, keepdim=True), "
    "paddle.argmax(x, axis=-1, keepdim=True)",
    note="sampan extension: Paddle 2.6.2 has no CPU kernel; a ps <= 0 picks the best score")
add("top_p_sampling.method", "x.top_p_sampling(y * 0.0)[1]", "float32[3,4]", "float32[3]",
    paddle_code="return paddle.argmax(x, axis=-1, keepdim=True)", modes=EAGER,
    note="sampan extension: Paddle 2.6.2 has no CPU kernel")
add("add_n.method", "x.add_n()", "float32[2,3]")

# ------------------------------------------------------------------ printing
PRINT = "str(x).splitlines()"
for dt, shape in (("float32", "[2,3]"), ("float64", "[4]"), ("float16", "[3]"),
                  ("int64", "[2,2]"), ("int32", "[]"), ("bool", "[3]"), ("uint8", "[2]"),
                  ("complex64", "[2]"), ("float32", "[2,0]"), ("float32", "[2,1,3]"),
                  ("float64", "[]")):
    add(f"print.{dt}{shape}", PRINT, f"{dt}{shape}", modes=EAGER)
add("print.stop_gradient", "x.stop_gradient = False\nreturn str(x).splitlines()",
    "float32[3]", modes=EAGER)
add("print.repr", "repr(x).splitlines()", "float32[2]", modes=EAGER)
add("print.nan_inf", "str(paddle.to_tensor([1.0, float('nan'), float('-inf'), 0.5]))"
    ".splitlines()", modes=EAGER)
add("print.big_ints", "str(paddle.arange(2000)).splitlines()", modes=EAGER)
add("print.summary_2d", "str(paddle.arange(2000).reshape([40, 50]).astype('float32') / 7.0)"
    ".splitlines()", modes=EAGER)
add("print.wide_row", "str(paddle.arange(30).astype('float64') * 1.5).splitlines()",
    modes=EAGER)
add("print.large_values", "str(paddle.to_tensor([[1e20, -1e-5], [3.0, 4.5]]))"
    ".splitlines()", modes=EAGER)
OPTS = ("paddle.set_printoptions({})\ntry:\n    s = str(x).splitlines()\nfinally:\n"
        "    paddle.set_printoptions(precision=8, threshold=1000, edgeitems=3, "
        "sci_mode=False, linewidth=80)\nreturn s")
add("set_printoptions.precision", OPTS.format("precision=3"), "float32[2,3]", modes=EAGER)
add("set_printoptions.sci", OPTS.format("sci_mode=True"), "float64[3]", modes=EAGER)
add("set_printoptions.summary", OPTS.format("threshold=5, edgeitems=1"), "float32[4,4]",
    modes=EAGER)
add("set_printoptions.linewidth", OPTS.format("linewidth=30"), "float32[12]", modes=EAGER)
add("set_printoptions.bad_type", "paddle.set_printoptions(precision=2.5)", modes=EAGER)

# ------------------------------------------------------------------ finfo, iinfo, bfloat16
FINFO = "f = paddle.finfo({})\nreturn f.bits, f.eps, f.min, f.max, f.tiny, " \
        "f.smallest_normal, f.resolution, f.dtype, str(f)"
for dt in ("paddle.float16", "paddle.bfloat16", "paddle.float32", "paddle.float64",
           "paddle.complex64", "paddle.complex128", "'float32'"):
    add(f"finfo.{dt.strip(chr(39)).replace('paddle.', '')}{'.str' if chr(39) in dt else ''}",
        FINFO.format(dt), modes=EAGER, rtol=1e-12, atol=0.0)
add("finfo.int", "paddle.finfo(paddle.int32)", modes=EAGER)
add("finfo.numpy_type", "paddle.finfo(np.float32)", modes=EAGER)
IINFO = "f = paddle.iinfo({})\nreturn f.bits, f.min, f.max, f.dtype, str(f)"
for dt in ("int8", "int16", "int32", "int64", "uint8"):
    add(f"iinfo.{dt}", IINFO.format(f"paddle.{dt}"), modes=EAGER)
add("iinfo.str", IINFO.format("'int64'"), modes=EAGER)
add("iinfo.float", "paddle.iinfo(paddle.float32)", modes=EAGER)
add("iinfo.bool", "paddle.iinfo(paddle.bool)", modes=EAGER)
add("bfloat16", "str(paddle.bfloat16), paddle.bfloat16 == paddle.float16, "
    "paddle.bfloat16 == paddle.bfloat16", modes=EAGER)

# ------------------------------------------------------------------ flags
add("get_flags.list", "d = paddle.get_flags(['FLAGS_check_nan_inf', 'FLAGS_paddle_num_threads',"
    " 'FLAGS_allocator_strategy'])\nreturn [d[k] for k in sorted(d)]", modes=EAGER)
add("get_flags.str", "paddle.get_flags('FLAGS_check_nan_inf_level')['FLAGS_check_nan_inf_level']",
    modes=EAGER)
add("get_flags.unknown", "paddle.get_flags(['FLAGS_no_such_flag'])", modes=EAGER)
add("get_flags.bad_type", "paddle.get_flags(5)", modes=EAGER)
add("set_flags.roundtrip", "paddle.set_flags({'FLAGS_call_stack_level': 2})\n"
    "v = paddle.get_flags(['FLAGS_call_stack_level'])['FLAGS_call_stack_level']\n"
    "paddle.set_flags({'FLAGS_call_stack_level': 1})\nreturn v", modes=EAGER)
add("set_flags.unknown", "paddle.set_flags({'FLAGS_no_such_flag': 1})", modes=EAGER)
add("set_flags.not_dict", "paddle.set_flags('FLAGS_check_nan_inf')", modes=EAGER)
add("set_flags.bad_value", "paddle.set_flags({'FLAGS_check_nan_inf': 'yes'})", modes=EAGER)
NAN_INF = ("paddle.set_flags({{'FLAGS_check_nan_inf': True{}}})\ntry:\n    y = {}\nfinally:\n"
           "    paddle.set_flags({{'FLAGS_check_nan_inf': False, "
           "'FLAGS_check_nan_inf_level': 0}})\nreturn y")
add("check_nan_inf.log", NAN_INF.format("", "paddle.log(x)"), "float32[2,3]", modes=EAGER)
add("check_nan_inf.finite", NAN_INF.format("", "paddle.log(x)"), "float32[2,3]|pos",
    modes=EAGER)
add("check_nan_inf.int", NAN_INF.format("", "x // y"), "int64[3]|pos", "int64[3]|pos",
    modes=EAGER)
add("check_nan_inf.level1", NAN_INF.format(", 'FLAGS_check_nan_inf_level': 1",
                                           "paddle.sqrt(x) * 2.0"), "float32[4]", modes=EAGER)
add("check_nan_inf.backward", NAN_INF.format(
    "", "paddle.sqrt(x * 0.0)\n    x.stop_gradient = False\n    paddle.sqrt(x * 0.0).sum()"
    ".backward()"), "float32[3]|pos", modes=EAGER)

# ------------------------------------------------------------------ utilities
add("batch", "r = paddle.batch(lambda: iter(range(7)), 3)\nreturn [list(b) for b in r()]",
    modes=EAGER)
add("batch.drop_last", "r = paddle.batch(lambda: iter(range(7)), 3, drop_last=True)\n"
    "return [len(b) for b in r()]", modes=EAGER)
add("batch.bad_size", "paddle.batch(lambda: iter(range(7)), 0)", modes=EAGER)
add("check_shape.ok", "paddle.check_shape([2, 3], 'reshape')", modes=("eager", "static"))
add("check_shape.bad_item", "paddle.check_shape([2.5, 3], 'reshape')",
    modes=("eager", "static"))
add("disable_signal_handler", "paddle.disable_signal_handler()", modes=EAGER)
LAZY = "with paddle.LazyGuard():\n    fc = paddle.nn.Linear(3, 2)\n"
add("LazyGuard.initialize", LAZY + "for p in fc.parameters():\n    p.initialize()\n"
    "return fc.weight.shape, fc.bias", modes=EAGER)
add("LazyGuard.use_before_initialize", LAZY + "return fc(x)", "float32[4,3]", modes=EAGER)
add("LazyGuard.initialize_twice", LAZY + "fc.bias.initialize()\nfc.bias.initialize()",
    modes=EAGER)
# a leaf's gradient is a leaf that does not stop gradients: ops on it record
GRAD = "x.stop_gradient = False\n(x * 2).sum().backward()\ng = x.grad\n"
add("grad.is_a_recording_leaf", GRAD + "return g.stop_gradient, g.is_leaf, (g * 3).stop_gradient",
    "float32[3]", modes=EAGER)
add("grad.differentiable", GRAD + "(g * 3).sum().backward()\nreturn g.grad, x.grad",
    "float32[3]", modes=EAGER)
add("grad.after_clear", GRAD + "x.clear_gradient()\nreturn x.grad.stop_gradient, x.grad",
    "float32[3]", modes=EAGER)
add("grad.accumulated", GRAD + "(x * 5).sum().backward()\nreturn x.grad.stop_gradient, x.grad",
    "float32[3]", modes=EAGER)
# clear_gradient(set_to_zero=True) zeroes the gradient a caller still holds
add("grad.held_after_clear", GRAD + "x.clear_gradient()\nreturn g", "float32[3]", modes=EAGER)
# a second backward through nodes the first one freed: Paddle's (Fatal) SystemError;
# traced, the same (the static backward refuses the walked ops: program/backward.py)
add("grad.backward_twice", "x.stop_gradient = False\nh = paddle.tanh(x * 2.0)\n"
    "h.sum().backward()\n(h * h).sum().backward()\nreturn x.grad", "float32[3]",
    modes=("eager", "to_static"))
# Tensor._inplace_assign (Paddle's private form, used by its to_static tests): the
# tensor becomes the value's storage and autograd position
add("_inplace_assign.shares_storage", "a = x * 1\nb = y * 2\nr = a._inplace_assign(b)\n"
    "b[0] = 7.0\nreturn r is None, a.shape, a", "float32[2,2]", "float32[2,3]", modes=EAGER)
add("_inplace_assign.gradient", "a = x * 1\nb = x * 3\na._inplace_assign(b)\nreturn a * a",
    "float32[3]", modes=EAGER, grad=True)
add("_inplace_assign.number", "a = x * 1\nreturn a._inplace_assign(3.0)", "float32[3]",
    modes=EAGER)
add("_inplace_assign.inplace_version", "a = x * 1\nb = x * 2\nb.add_(b)\nb.add_(b)\n"
    "a._inplace_assign(b)\nv = a.inplace_version\nb.add_(b)\n"
    "return v, a.inplace_version, b.inplace_version", "float32[3]", modes=EAGER)

# ------------------------------------------------------------------ layer reprs
for name, ctor in (
        ("linear", "Linear(3, 4)"), ("linear_name", "Linear(3, 4, name='fc')"),
        ("conv2d", "Conv2D(3, 4, 3, stride=2, padding=1)"),
        ("conv2d_groups", "Conv2D(4, 4, (3, 1), groups=2, dilation=2, bias_attr=False)"),
        ("conv1d_transpose", "Conv1DTranspose(3, 2, 3, output_padding=1, stride=2)"),
        ("batchnorm2d", "BatchNorm2D(4)"), ("batchnorm1d_nlc", "BatchNorm1D(4, data_format='NLC')"),
        ("layernorm", "LayerNorm([4])"), ("groupnorm", "GroupNorm(2, 4)"),
        ("instancenorm2d", "InstanceNorm2D(4)"), ("embedding", "Embedding(10, 3)"),
        ("embedding_pad", "Embedding(10, 3, padding_idx=2, sparse=True)"),
        ("dropout", "Dropout(0.3)"), ("dropout2d", "Dropout2D(0.2)"),
        ("maxpool2d", "MaxPool2D(2)"), ("avgpool2d", "AvgPool2D(3, stride=2, padding=1)"),
        ("adaptive_avg", "AdaptiveAvgPool2D(1)"), ("relu", "ReLU()"), ("gelu", "GELU()"),
        ("gelu_tanh", "GELU(approximate=True)"), ("softmax", "Softmax()"),
        ("leaky", "LeakyReLU(0.2)"), ("prelu", "PReLU(4)"), ("hardswish", "Hardswish()"),
        ("flatten", "Flatten()"), ("upsample", "Upsample(scale_factor=2)"),
        ("lstm", "LSTM(3, 4)"), ("gru_bi", "GRU(3, 4, num_layers=2, direction='bidirect')"),
        ("mha", "MultiHeadAttention(4, 2)"), ("identity", "Identity()"),
        ("pad2d", "Pad2D([1, 1, 2, 0], mode='reflect')"), ("pixel_shuffle", "PixelShuffle(2)"),
        ("sequential", "Sequential(Linear(2, 2), ReLU())")):
    add(f"layer_repr.{name}", "return repr(%s).splitlines()"
        % re.sub(r"\b([A-Z]\w*\()", r"paddle.nn.\1", ctor), modes=EAGER)
for name, ctor in (("pixel_shuffle_nhwc", "PixelShuffle(2, data_format='NHWC')"),
                   ("pixel_shuffle_name", "PixelShuffle(2, name='p')"),
                   ("pixel_unshuffle", "PixelUnshuffle(2, data_format='NHWC')"),
                   ("channel_shuffle", "ChannelShuffle(2)"),
                   ("embedding_name", "Embedding(10, 3, name='e')")):
    add(f"layer_repr.{name}", "return repr(paddle.nn.%s).splitlines()" % ctor, modes=EAGER)
for name, ctor in (("adaptive_max1d", "AdaptiveMaxPool1D(2, return_mask=True)"),
                   ("zeropad2d", "ZeroPad2D(1, name='z')"),
                   ("upsampling_nearest", "UpsamplingNearest2D(scale_factor=2)"),
                   ("upsampling_bilinear", "UpsamplingBilinear2D(size=[4, 4], name='u')"),
                   ("pad1d", "Pad1D(2, mode='replicate')"), ("prelu_init", "PReLU(1, 0.3)"),
                   ("bilinear", "Bilinear(3, 4, 5)"), ("rrelu", "RReLU()"),
                   ("simple_rnn", "SimpleRNN(3, 4)"), ("upsample_bilinear",
                   "Upsample(size=[3, 3], mode='bilinear', align_corners=True)")):
    add(f"layer_repr.{name}", "return repr(paddle.nn.%s).splitlines()" % ctor, modes=EAGER)

# ------------------------------------------------------------------ autograd leniencies
add("autograd.grad_keeps_the_graph", "x.stop_gradient = False\ny = paddle.tanh(x).sum()\n"
    "(a,) = paddle.grad(y, x)\n(b,) = paddle.grad(y, x, retain_graph=False)\n"
    "y.backward()\nreturn a, b, x.grad", "float32[3]", modes=EAGER,
    note="Paddle 2.6.2's eager paddle.grad never frees the graph: a second grad and a "
         "backward through it run")
add("autograd.backward_of_a_stop_gradient_tensor", "y = (x * x).sum()\ny.backward()\n"
    "return y.stop_gradient, x.grad is None", "float32[3]", modes=EAGER,
    note="nothing to differentiate: Paddle returns without an error")
add("autograd.grad_of_a_stop_gradient_tensor", "y = (x * 2).sum()\n"
    "return paddle.grad(y, x, allow_unused=True)[0] is None", "float32[3]", modes=EAGER)

# ------------------------------------------------------------------ nn.functional in-place forms
for name, call in (("relu_", "relu_(y)"), ("elu_", "elu_(y, 0.5)"), ("tanh_", "tanh_(y)"),
                   ("softmax_", "softmax_(y, 0)"), ("hardtanh_", "hardtanh_(y, -0.5, 0.5)"),
                   ("leaky_relu_", "leaky_relu_(y, 0.1)"),
                   ("thresholded_relu_", "thresholded_relu_(y, 0.5)")):
    add(f"functional_inplace.{name}", "y = x * 1.0\nr = paddle.nn.functional.%s\n"
        "return y, r is y" % call, "float32[2,3]|any", modes=EAGER, grad=True)
