"""The elementwise fusion pass (program/passes/fuse_elementwise.py) and its op
``sampan_fused_elementwise``: random trees of elementwise ops (broadcasting,
float32/float64, a reduction at the end) give the unfused program's numbers,
compiled (numba) and through the unfused fallback; training programs keep
their gradients; what is saved never holds the fused op; the Executor (with
``BuildStrategy.enable_auto_fusion``), to_static (``build_strategy=``) and the
Predictor run it."""
import json
import os

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.kernels.cpu import fused_elementwise as K
from sampan.program.passes import fuse_elementwise

FUSED = "sampan_fused_elementwise"
HAS_NUMBA = K.numba_available()
needs_numba = pytest.mark.skipif(not HAS_NUMBA, reason="numba not installed (the .[fast] extra)")

BINARY = ("add", "subtract", "multiply", "maximum", "minimum")
UNARY = ("relu", "tanh", "sigmoid", "exp_small", "abs", "square", "gelu", "silu", "scale",
         "leaky_relu", "gelu_tanh", "relu6", "hardswish", "hardsigmoid")
REDUCE = (None, "sum", "mean", "max", "min")


def _unary(name, h):
    F = paddle.nn.functional
    if name == "exp_small":
        return paddle.exp(paddle.scale(h, 0.1))
    if name == "scale":
        return paddle.scale(h, 1.5, bias=-0.25)
    if name == "gelu_tanh":
        return F.gelu(h, approximate=True)
    if name == "leaky_relu":
        return F.leaky_relu(h, 0.1)
    return getattr(F, name, None)(h) if hasattr(F, name) else getattr(paddle, name)(h)


def _random_program(seed, dtype):
    """A random tree of elementwise ops over inputs of broadcastable shapes,
    maybe reduced at the end; (program, output var, feed)."""
    rng = np.random.default_rng(seed)
    shapes = [[3, 4, 5], [4, 5], [5], [], [3, 1, 5], [1, 4, 1]]
    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            ins, feed = [], {}
            for k in range(4):
                shp = shapes[0] if k == 0 else shapes[rng.integers(len(shapes))]
                ins.append(static.data(f"x{k}", shp, dtype))
                feed[f"x{k}"] = rng.uniform(-2, 2, shp).astype(dtype)
            vals = list(ins)
            for _ in range(rng.integers(3, 12)):
                if rng.random() < 0.55:
                    a, b = (vals[i] for i in rng.integers(len(vals), size=2))
                    vals.append(getattr(paddle, BINARY[rng.integers(len(BINARY))])(a, b))
                else:
                    a = vals[rng.integers(len(vals))]
                    vals.append(_unary(UNARY[rng.integers(len(UNARY))], a))
            out = vals[-1]
            for v in vals[4:-1]:            # every value reaches the output (a tree)
                if rng.random() < 0.3:
                    out = paddle.add(out, v) if tuple(v.shape) == tuple(out.shape) or \
                        len(v.shape) <= len(out.shape) else out
            red = REDUCE[rng.integers(len(REDUCE))]
            if red is not None and len(out.shape):
                out = getattr(paddle, red)(out, axis=-1, keepdim=bool(rng.integers(2)))
    finally:
        paddle.disable_static()
    return main, out, feed


def _types(program):
    return [op.type for op in program.global_block().ops]


def _compiled(main):
    bs = static.BuildStrategy()
    bs.enable_auto_fusion = True
    return static.CompiledProgram(main, bs)


def _fused_ops(prog):
    return [op for op in prog.global_block().ops if op.type == FUSED]


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_trees_equal_unfused(dtype):
    tol = dict(rtol=2e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    exe = static.Executor()
    fused_any = 0
    for seed in range(12):
        main, out, feed = _random_program(seed, dtype)
        want = exe.run(main, feed=feed, fetch_list=[out])[0]
        cp = _compiled(main)
        got = exe.run(cp, feed=feed, fetch_list=[out])[0]
        prog = cp._compiled[next(iter(cp._compiled))][0]
        fused_any += len(_fused_ops(prog))
        assert got.dtype == want.dtype and got.shape == want.shape, seed
        np.testing.assert_allclose(got, want, err_msg=f"seed {seed}", **tol)
        assert FUSED not in _types(main)            # the user's program is left as it is
    assert fused_any >= 10


def test_unfused_fallback_is_exact(monkeypatch):
    """Without numba the fused op replays the replaced kernels: bit-identical."""
    monkeypatch.setattr(K, "_NUMBA", [False])
    monkeypatch.setattr(K, "_CACHE", {})
    exe = static.Executor()
    n = 0
    for seed in range(6):
        main, out, feed = _random_program(seed, "float32")
        want = exe.run(main, feed=feed, fetch_list=[out])[0]
        assert fuse_elementwise(main) == 0           # nothing to gain: left alone
        n += fuse_elementwise(main, keep=[out.name], force=True)
        got = exe.run(main, feed=feed, fetch_list=[out])[0]
        np.testing.assert_array_equal(got, want)
    assert n >= 5


@needs_numba
@pytest.mark.parametrize("shape", [(2, 3, 4), (8, 30, 40)], ids=["small", "staged"])
def test_kernel_compiled_equals_unfused(shape):
    """Small arrays run the whole tree as one ufunc; large ones (over
    K.SMALL elements) run libm steps through numpy between compiled segments."""
    assert (np.prod(shape) > K.SMALL) == (shape[0] == 8)
    rng = np.random.default_rng(3)
    ops = [("elementwise_add", 2), ("elementwise_mul", 2), ("elementwise_div", 2),
           ("elementwise_sub", 2), ("tanh", 1), ("sigmoid", 1), ("relu", 1), ("exp", 1),
           ("square", 1), ("elementwise_max", 2)]
    for dtype in (np.float32, np.float64):
        for trial in range(10):
            n_in = 3
            steps = []
            for j in range(int(rng.integers(2, 9))):
                t, arity = ops[rng.integers(len(ops))]
                pick = lambda: int(rng.integers(n_in)) if rng.random() < 0.4 or j == 0 \
                    else -1 - int(rng.integers(j))
                refs = {"X": pick()} if arity == 1 else {"X": pick(), "Y": pick()}
                if j == 0:
                    refs["X"] = 0           # (the 3-D input shapes the result)
                steps.append([t, refs, {}])
            steps.append(["elementwise_add", {"X": -1, "Y": -len(steps)}, {}])
            steps.append(["reduce_mean", {"X": -len(steps)}, {"dim": [0, 2]}])
            expr = json.dumps({"steps": steps})
            xs = [rng.uniform(0.5, 1.5, shape).astype(dtype), rng.uniform(
                0.5, 1.5, (shape[1], 1)).astype(dtype), np.asarray(rng.uniform(0.5, 1.5), dtype)]
            with np.errstate(all="ignore"):      # (x - x then a division: inf in both)
                a = K.compiled(expr, np.dtype(dtype))(xs)
                b = K.unfused(expr, np.dtype(dtype))(xs)
            assert a.dtype == b.dtype == dtype and a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-5 if dtype == np.float32 else 1e-12)


def _mlp_train(act):
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [8, 6], "float32")
            y = static.data("y", [8, 3], "float32")
            h = paddle.nn.Linear(6, 16)(x)
            h = paddle.nn.functional.gelu(paddle.scale(h, 2.0) + 1.0) if act else h
            h = paddle.tanh(paddle.nn.Linear(16, 16)(h)) * 0.5
            h = paddle.scale(paddle.scale(h, 2.0, bias=0.5), 0.5)   # no grad reads the inner
            out = paddle.nn.Linear(16, 3)(h)
            loss = paddle.mean(paddle.square(out - y))
            paddle.optimizer.SGD(0.05).minimize(loss)
    finally:
        paddle.disable_static()
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((8, 6)).astype("float32"),
            "y": rng.standard_normal((8, 3)).astype("float32")}
    return main, startup, loss, feed


def test_training_program_keeps_gradients(monkeypatch):
    """The rule: a value any grad op reads is never fused away, so a training
    program trains as unfused (losses and parameters over several steps)."""
    if not HAS_NUMBA:
        monkeypatch.setattr(K, "_NUMBA", [True])     # (the unfused path runs the op)
        monkeypatch.setattr(K, "compiled", lambda expr, dtype: None)
        monkeypatch.setattr(K, "_CACHE", {})
    results = []
    for fuse in (False, True):
        paddle.seed(0)
        main, startup, loss, feed = _mlp_train(True)
        scope = static.Scope()
        exe = static.Executor()
        exe.run(startup, scope=scope)
        prog = _compiled(main) if fuse else main
        losses = [float(exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)[0])
                  for _ in range(4)]
        params = [np.array(scope.find_var(p.name).get()) for p in main.all_parameters()]
        results.append((losses, params))
        if fuse:
            fprog = prog._compiled[next(iter(prog._compiled))][0]
            readers = {n for op in fprog.global_block().ops for n in op.input_arg_names}
            assert len(_fused_ops(fprog)) >= 1
            swallowed = _swallowed(main, fprog)      # read by nothing left, a grad op included
            assert swallowed and not swallowed & readers
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5)
    assert len(results[0][1]) == len(results[1][1]) == 6
    for a, b in zip(results[1][1], results[0][1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _swallowed(main, fused_prog):
    """The variables ``main`` computes that ``fused_prog`` no longer does."""
    def written(p):
        return {n for op in p.global_block().ops for n in op.output_arg_names}
    return written(main) - written(fused_prog)


def test_hazard_keeps_order():
    """A tree input rewritten between the tree's ops (assign into it) is not fused
    across the write."""
    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [4], "float32")
            b = static.data("b", [4], "float32")
            t = paddle.tanh(x + b)
            paddle.assign(x * 3.0, output=b)          # b rewritten
            out = paddle.exp(t * b)
    finally:
        paddle.disable_static()
    feed = {"x": np.linspace(-1, 1, 4).astype("float32"),
            "b": np.linspace(0, 1, 4).astype("float32")}
    exe = static.Executor()
    want = exe.run(main, feed=dict(feed), fetch_list=[out])[0]
    p = main.clone()
    fuse_elementwise(p, keep=[out.name], force=True)
    got = exe.run(p, feed=dict(feed), fetch_list=[out])[0]
    np.testing.assert_allclose(got, want, rtol=1e-6)


class _Block(paddle.nn.Layer):
    """A transformer-style block: layer_norm, attention scores with softmax,
    a GELU feed-forward with bias adds, residuals."""

    def __init__(self, d=16):
        super().__init__()
        self.ln1, self.ln2 = paddle.nn.LayerNorm(d), paddle.nn.LayerNorm(d)
        self.qkv = paddle.nn.Linear(d, 3 * d)
        self.fc1, self.fc2 = paddle.nn.Linear(d, 4 * d), paddle.nn.Linear(4 * d, d)
        self.d = d

    def forward(self, x):
        h = self.ln1(x)
        q, k, v = paddle.split(self.qkv(h), 3, axis=-1)
        a = paddle.nn.functional.softmax(paddle.matmul(q, k, transpose_y=True) * self.d ** -0.5)
        x = x + paddle.matmul(a, v)
        h = self.ln2(x)
        # (after the fc fusion a tanh, a scale and the residual add remain to fuse)
        return x + paddle.tanh(self.fc2(paddle.nn.functional.gelu(self.fc1(h)))) * 0.5


def test_to_static_build_strategy_and_save(tmp_path):
    """to_static with ``enable_auto_fusion`` runs a fused forward plan (when numba
    is there) with the unfused numbers; jit.save writes the traced program,
    with no fused op."""
    paddle.seed(1)
    net = _Block()
    net.eval()
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 5, 16)).astype("float32"))
    want = net(x).numpy()
    bs = static.BuildStrategy()
    bs.enable_auto_fusion = True
    spec = [static.InputSpec([None, 5, 16], "float32", "x")]
    sf = paddle.jit.to_static(net, input_spec=spec, build_strategy=bs, full_graph=True)
    with paddle.no_grad():
        got = sf(x).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    concrete, pp = sf.forward.get_concrete_program(x)
    planned = [i.op.type for i in pp._forward.plan.instrs]
    assert (FUSED in planned) == HAS_NUMBA
    assert FUSED not in {op.type for op in concrete.main_program.global_block().ops}
    prefix = os.path.join(str(tmp_path), "block")
    paddle.jit.save(sf, prefix)
    from sampan.program.framework import Program
    with open(prefix + ".pdmodel", "rb") as f:
        prog = Program.parse_from_string(f.read())
    assert FUSED not in {op.type for b in prog.blocks for op in b.ops}
    # the Predictor fuses its own copy, and agrees
    cfg = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    pred = paddle.inference.create_predictor(cfg)
    out = pred.run([x.numpy()])[0]
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    types = {op.type for op in pred._core.program.global_block().ops}
    assert (FUSED in types) == HAS_NUMBA


@needs_numba
def test_conv_bias_relu_fuses():
    """conv2d's bias (elementwise_add on axis 1) and its relu fuse; the bias is
    aligned as Paddle's axis rule says."""
    main = static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [2, 3, 8, 8], "float32")
            out = paddle.nn.functional.relu(paddle.nn.Conv2D(3, 4, 3, padding=1)(x))
    finally:
        paddle.disable_static()
    exe = static.Executor()
    scope = static.Scope()
    exe.run(static.default_startup_program(), scope=scope)
    feed = {"x": np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype("float32")}
    for p in main.all_parameters():
        scope.var(p.name).set(np.random.default_rng(1).standard_normal(p.shape).astype("float32"))
    want = exe.run(main, feed=feed, fetch_list=[out], scope=scope)[0]
    cp = _compiled(main)
    got = exe.run(cp, feed=feed, fetch_list=[out], scope=scope)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    prog = cp._compiled[next(iter(cp._compiled))][0]
    assert _types(prog).count(FUSED) == 1 and "relu" not in _types(prog)


@needs_numba
@pytest.mark.parametrize("shape", [(3, 4), (80, 100)], ids=["whole", "staged"])
def test_compile_failure_falls_back(monkeypatch, shape):
    """numba failing to compile a tree warns and runs the steps unfused."""
    def broken(*a, **k):
        raise RuntimeError("no loop for you")
    monkeypatch.setattr(K, "_ufunc", broken)
    monkeypatch.setattr(K, "_CACHE", {})
    expr = json.dumps({"steps": [["elementwise_add", {"X": 0, "Y": 1}, {"axis": 1}],
                                 ["tanh", {"X": -1}, {}],
                                 ["reduce_sum", {"X": -2}, {"dim": [0]}]],
                       "align": {"1": 0}})
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    b = np.linspace(-1, 1, shape[1]).astype("float32")
    with pytest.warns(RuntimeWarning, match="could not compile"):
        got = K.fused_elementwise([[x, b]], {"expr": expr}, None)[0]
    np.testing.assert_allclose(got, np.tanh(x + b).sum(0), rtol=1e-5)
