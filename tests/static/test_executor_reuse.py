"""Buffer reuse (executor/reuse.py), the compiled while loop and the lean
kernel paths: results are bit-identical with and without reuse, under every
runner; reuse happens only where no one else can see the buffer."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.executor import ExecutionConfig, ExecutionError
from sampan.utils import unique_name

RUNNERS = [dict(), dict(reuse=False), dict(runner="threaded", num_threads=4),
           dict(hook=lambda ins, vals: None), dict(specialize=False)]


@pytest.fixture
def prog():
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            yield main, startup
    finally:
        paddle.disable_static()


def _run_all(main, feed, fetch, startup=None, steps=1):
    """Fetched values of ``steps`` runs under each runner config, each from
    the same startup state."""
    results = []
    for cfg in RUNNERS:
        scope = static.Scope()
        exe = static.Executor(config=ExecutionConfig(**cfg))
        if startup is not None:
            paddle.seed(0)
            exe.run(startup, scope=scope)
        got = [exe.run(main, feed=feed, fetch_list=fetch, scope=scope) for _ in range(steps)]
        results.append(got)
        exe.close()
    return results


def _same(results):
    first = results[0]
    for other in results[1:]:
        for a_run, b_run in zip(first, other):
            for a, b in zip(a_run, b_run):
                assert a.dtype == b.dtype and a.shape == b.shape
                assert np.array_equal(a, b, equal_nan=True)


def _reused(exe, main, feed, fetch, scope=None):
    interp = exe.prepare(main, feed, fetch, scope)
    return {interp.plan.instrs[i].op.type: pairs for i, pairs in interp.live.reused.items()}, \
        interp


def test_mlp_training_bit_identical_with_and_without_reuse(prog):
    main, startup = prog
    # 32 x 16 values: over the size where elementwise ops reuse (kernels' reuse_min)
    x = static.data("x", [32, 6], "float32")
    y = static.data("y", [32, 16], "float32")
    h = paddle.nn.functional.relu(paddle.nn.Linear(6, 16)(x))
    h = paddle.tanh(paddle.nn.Linear(16, 16)(h))
    out = paddle.nn.Linear(16, 16)(h)
    loss = paddle.nn.functional.mse_loss(out, y)
    paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((32, 6)).astype("float32"),
            "y": rng.standard_normal((32, 16)).astype("float32")}
    _same(_run_all(main, feed, [loss, out], startup, steps=3))
    exe = static.Executor()
    scope = static.Scope()
    exe.run(startup, scope=scope)
    reused, interp = _reused(exe, main, feed, [loss, out], scope)
    # the bias add writes into the matmul's array, relu/tanh into the add's, the
    # grads of relu/tanh/square into their Out@GRAD
    for t in ("elementwise_add", "relu", "tanh", "relu_grad", "tanh_grad", "square_grad"):
        assert t in reused, (t, reused)
    assert "in place:" in interp.explain()
    assert not static.Executor(config=ExecutionConfig(reuse=False)).prepare(
        main, feed, [loss, out], scope).live.reused


def test_no_reuse_of_fetched_persistable_fed_or_still_read_values(prog):
    main, _ = prog
    x = static.data("x", [3, 4], "float32")
    w = main.global_block().create_var(name="w", shape=[3, 4], dtype="float32",
                                       persistable=True)
    a = paddle.exp(x)            # fetched below: must come back untouched
    b = paddle.tanh(a)           # a is still read by c
    c = a * 2.0                  # scale of a: a is fetched, so no reuse
    d = paddle.exp(w)            # w persistable
    e = paddle.nn.functional.relu(b + d)
    f = e + b                    # b read twice: the add above could not take it
    scope = static.Scope()
    scope.var("w").get_tensor().set(np.full((3, 4), 0.5, "float32"))
    feed = {"x": np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)}
    exe = static.Executor()
    got = exe.run(main, feed=feed, fetch_list=[a, c, f], scope=scope)
    xa = feed["x"]
    np.testing.assert_array_equal(got[0], np.exp(xa))
    np.testing.assert_array_equal(got[1], np.exp(xa) * np.float32(2.0))
    bb = np.tanh(np.exp(xa))
    want = np.maximum(bb + np.exp(np.full((3, 4), 0.5, "float32")), 0) + bb
    np.testing.assert_array_equal(got[2], want)
    np.testing.assert_array_equal(np.array(scope.find_var("w").get_tensor()),
                                  np.full((3, 4), 0.5, "float32"))
    np.testing.assert_array_equal(feed["x"], np.linspace(-1, 1, 12, dtype="float32")
                                  .reshape(3, 4))
    reused, interp = _reused(exe, main, feed, [a, c, f], scope)
    names = interp.plan.names
    for i, pairs in interp.live.reused.items():
        ins = interp.plan.instrs[i]
        for o, k in pairs:
            v = ins.ins[k]
            assert v in interp.plan.temporaries, names[v]


def test_views_and_broadcasts_block_reuse(prog):
    main, _ = prog
    x = static.data("x", [16, 32], "float32")
    t = paddle.exp(x)
    r = paddle.reshape(t, [32, 16])        # may be a view of t's array
    u = paddle.tanh(t)                     # t dies here, but r may alias it
    v = r * 3.0
    small = paddle.exp(static.data("s", [32], "float32"))
    big = small + x                        # small's array is too small for the result
    feed = {"x": np.linspace(-1, 1, 512, dtype="float32").reshape(16, 32),
            "s": np.linspace(0, 1, 32, dtype="float32")}
    results = _run_all(main, feed, [u, v, big])
    _same(results)
    xa = feed["x"]
    np.testing.assert_array_equal(results[0][0][1],
                                  np.exp(xa).reshape(32, 16) * np.float32(3))
    reused, _ = _reused(static.Executor(), main, feed, [u, v, big])
    assert "tanh" not in reused
    assert "elementwise_add" not in reused


def test_small_arrays_keep_the_plain_ufunc(prog):
    main, _ = prog
    x = static.data("x", [4], "float32")
    out = paddle.exp(x) + x
    reused, interp = _reused(static.Executor(), main, {"x": np.zeros(4, "float32")}, [out])
    assert "elementwise_add" not in reused and interp.plan.instrs[1].fast is np.add


def test_dynamic_batch_bias_add_reuses(prog):
    main, _ = prog
    x = static.data("x", [None, 4], "float32")
    b = static.data("b", [4], "float32")
    h = paddle.matmul(x, paddle.ones([4, 4], "float32"))
    out = paddle.nn.functional.relu(h + b)
    exe = static.Executor()
    for n in (1, 3):
        feed = {"x": np.arange(4 * n, dtype="float32").reshape(n, 4) - 3,
                "b": np.full(4, -2.0, "float32")}
        got, = exe.run(main, feed=feed, fetch_list=[out])
        want = np.maximum(feed["x"] @ np.ones((4, 4), "float32") + feed["b"], 0)
        np.testing.assert_array_equal(got, want)
    reused, _ = _reused(exe, main, feed, [out])
    assert "elementwise_add" in reused and "relu" in reused


def test_conv_bias_add_and_relu_write_into_the_convolution(prog):
    # conv2d's result is a new array (kernels/cpu/conv.py ``fresh``): the layer's
    # bias add and relu run in it, under every runner with the same bits
    main, startup = prog
    x = static.data("x", [None, 3, 12, 12], "float32")
    out = paddle.nn.functional.relu(paddle.nn.Conv2D(3, 8, 3, padding=1)(x))
    feed = {"x": np.random.RandomState(0).standard_normal((2, 3, 12, 12)).astype("float32")}
    _same(_run_all(main, feed, [out], startup))
    exe = static.Executor()
    exe.run(startup)
    reused, _ = _reused(exe, main, feed, [out])
    assert "elementwise_add" in reused and "relu" in reused


def test_reuse_falls_back_when_declared_shapes_were_wrong(prog):
    main, _ = prog
    gb = main.global_block()
    # declared [16, 32] but not feed-checked (as in a hand-edited loaded model)
    x = gb.create_var(name="x", shape=[16, 32], dtype="float32")
    y = static.data("y", [16, 32], "float32")
    out = paddle.exp(x) + y
    feed = {"x": np.zeros((1, 32), "float32"), "y": np.ones((16, 32), "float32")}
    exe = static.Executor()
    reused, _ = _reused(exe, main, feed, [out])
    assert "elementwise_add" in reused
    got, = exe.run(main, feed=feed, fetch_list=[out])
    np.testing.assert_array_equal(got, np.full((16, 32), 2.0, "float32"))


def test_compiled_while_loop_matches_and_handles_zero_trips(prog):
    main, _ = prog
    x = static.data("x", [3], "float32")
    n = static.data("n", [1], "int64")
    i = paddle.zeros([1], "int64")

    def cond(i, y):
        return i < n

    def body(i, y):
        return i + 1, paddle.tanh(y) * 2.0 + 1.0

    i_out, y_out = static.nn.while_loop(cond, body, [i, x])
    xa = np.array([0.1, -0.5, 2.0], "float32")
    for trips in (0, 1, 7):
        feed = {"x": xa, "n": np.array([trips], "int64")}
        results = _run_all(main, feed, [i_out, y_out])
        _same(results)
        want = xa
        for _ in range(trips):
            want = np.tanh(want) * np.float32(2.0) + np.float32(1.0)
        np.testing.assert_array_equal(results[0][0][1], want)
        assert results[0][0][0].tolist() == [trips]
        np.testing.assert_array_equal(xa, np.array([0.1, -0.5, 2.0], "float32"))


def test_compiled_while_bad_condition_names_the_op(prog):
    main, _ = prog
    # declared [1], fed unchecked with 3 elements: the condition holds 3 values
    n = main.global_block().create_var(name="n", shape=[1], dtype="int64")
    i = paddle.zeros([1], "int64")
    out, = static.nn.while_loop(lambda i: i < n, lambda i: [i + 1], [i])
    with pytest.raises(ExecutionError, match="while.*one element"):
        static.Executor().run(main, feed={"n": np.array([1, 2, 3], "int64")},
                              fetch_list=[out])


def test_relu_grad_multiplies_like_paddle():
    from sampan.kernels.cpu.activation import _mask
    g = np.array([1.0, -2.0, np.nan, 3.0], "float32")
    out = np.array([0.5, 0.0, -1.0, 2.0], "float32")
    got = _mask(out > 0, g)
    assert got.dtype == np.float32
    assert got[0] == 1.0 and got[1] == 0.0 and np.isnan(got[2]) and got[3] == 3.0
    assert type(_mask(np.asarray(True), np.asarray(2.0, "float32"))) is np.ndarray


def test_scale_fast_and_inplace_forms_equal_the_kernel():
    from sampan.kernels.cpu.math import scale, _scale_fast, _scale_reuse
    rng = np.random.default_rng(0)
    for dt in ("float32", "float64", "int64", "int32", "float16", "uint8"):
        for after in (True, False):
            for sc, bi in ((2.0, 0.0), (1.0, 1.0), (-0.3, 7.25), (3, 2)):
                a = dict(scale=sc, bias=bi, bias_after_scale=after)
                x = (rng.standard_normal((4, 3)) * 50).astype(dt)
                with np.errstate(all="ignore"):
                    want = scale([x, None], a, None)[0]
                    fast = _scale_fast(a)(x.copy(), None)
                    inpl = _scale_reuse(a, ((0, 0),)).fast(a)(x.copy(), None)
                    zero_d = _scale_fast(a)(np.asarray(x.flat[0]), None)
                for got in (fast, inpl):
                    assert got.dtype == want.dtype and np.array_equal(got, want)
                assert type(zero_d) is np.ndarray and zero_d.dtype == want.dtype


def test_reduce_mean_fast_equals_numpy_mean():
    from sampan.kernels.cpu.reduce import _mean
    rng = np.random.default_rng(1)
    for dt in ("float32", "float64"):
        x = (rng.standard_normal((7, 5, 3)) * 1e3).astype(dt)
        for ax in (None, 0, 2, (0, 2)):
            for kd in (False, True):
                want = np.asarray(np.mean(x, axis=ax, dtype=x.dtype, keepdims=kd))
                got = np.asarray(_mean(x, ax, x.dtype, kd))
                assert got.dtype == want.dtype and np.array_equal(got, want)


def test_eager_sgd_fast_path_matches_the_op():
    paddle.seed(0)
    lin = paddle.nn.Linear(4, 3)
    w0 = lin.weight.numpy().copy()
    x = paddle.to_tensor(np.ones((2, 4), "float32"))
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=lin.parameters())
    lin(x).sum().backward()
    g = lin.weight.grad.numpy().copy()
    opt.step()
    np.testing.assert_array_equal(lin.weight.numpy(), w0 - g * np.float32(0.5))
    opt.clear_grad()
    assert not lin.weight.grad.numpy().any()


def test_executor_memo_follows_program_changes_fetches_and_scopes(prog):
    main, _ = prog
    x = static.data("x", [2], "float32")
    a = paddle.exp(x)
    b = a * 2.0
    exe = static.Executor()
    feed = {"x": np.zeros(2, "float32")}
    assert exe.run(main, feed=feed, fetch_list=[a])[0].tolist() == [1.0, 1.0]
    assert exe.run(main, feed=feed, fetch_list=[b])[0].tolist() == [2.0, 2.0]
    assert exe.run(main, feed=feed, fetch_list=[b.name])[0].tolist() == [2.0, 2.0]
    c = b + 1.0                  # the program changes: a new plan
    assert exe.run(main, feed=feed, fetch_list=[c])[0].tolist() == [3.0, 3.0]
    s1, s2 = static.Scope(), static.Scope()
    i1 = exe.prepare(main, feed, [c], s1)
    assert exe.prepare(main, feed, [c], s1) is i1
    assert exe.prepare(main, feed, [c], s2) is not i1
    assert exe.prepare(main, feed, [c], s1, use_program_cache=False) is not i1


def test_to_static_training_reuses_shape_only_saved_values():
    paddle.disable_static()
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(6, 5), paddle.nn.ReLU(), paddle.nn.Linear(5, 3))
    ref = paddle.nn.Sequential(paddle.nn.Linear(6, 5), paddle.nn.ReLU(), paddle.nn.Linear(5, 3))
    ref.set_state_dict(net.state_dict())
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((4, 6)).astype("float32"))
    y = paddle.to_tensor(rng.standard_normal((4, 3)).astype("float32"))

    class WithLoss(paddle.nn.Layer):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x, y):
            return paddle.nn.functional.mse_loss(self.net(x), y)

    model = paddle.jit.to_static(WithLoss(net), full_graph=True)
    opts = [paddle.optimizer.SGD(learning_rate=0.1, parameters=m.parameters())
            for m in (model, ref)]
    for _ in range(3):
        losses = []
        for m, opt, f in ((model, opts[0], lambda: model(x, y)),
                          (ref, opts[1], lambda: paddle.nn.functional.mse_loss(ref(x), y))):
            loss = f()
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        assert losses[0] == losses[1]
    for p, q in zip(net.parameters(), ref.parameters()):
        np.testing.assert_array_equal(p.numpy(), q.numpy())
    pp = list(model.forward._entries.values())[0].partial_program
    text = pp.explain()
    assert "elementwise_add" in text and "in place: linear" in text


def _random_program(rng, n_ops):
    """A random DAG over [16, 32] values: elementwise ops (reusable), views,
    copies, reductions and their consumers; returns the vars to fetch."""
    x = static.data("x", [16, 32], "float32")
    b = static.data("b", [32], "float32")
    pool = [x, paddle.exp(x * 0.1)]
    for _ in range(n_ops):
        a = pool[rng.integers(len(pool))]
        c = pool[rng.integers(len(pool))]
        k = rng.integers(9)
        if k == 0:
            v = a + c
        elif k == 1:
            v = a * c - b
        elif k == 2:
            v = paddle.nn.functional.relu(a)
        elif k == 3:
            v = paddle.tanh(a) * 0.5 + 0.25
        elif k == 4:
            v = paddle.reshape(paddle.reshape(a, [32, 16]), [16, 32])
        elif k == 5:
            v = paddle.assign(a)
        elif k == 6:
            v = a - a.mean(axis=0, keepdim=True)
        elif k == 7:
            v = paddle.square(a) * 0.01
        else:
            v = b + a
        pool.append(v)
    picks = sorted({int(i) for i in rng.integers(2, len(pool), 4)}) + [len(pool) - 1]
    return [pool[i] for i in dict.fromkeys(picks)]


@pytest.mark.parametrize("seed", range(12))
def test_random_programs_agree_with_and_without_reuse(seed):
    rng = np.random.default_rng(seed)
    main = static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, static.Program()):
            fetch = _random_program(rng, 25)
    finally:
        paddle.disable_static()
    feed = {"x": rng.standard_normal((16, 32)).astype("float32"),
            "b": rng.standard_normal(32).astype("float32")}
    x0 = feed["x"].copy()
    _same(_run_all(main, feed, fetch, steps=2))
    np.testing.assert_array_equal(feed["x"], x0)


@pytest.mark.parametrize("seed", range(8))
def test_random_programs_with_gradients_agree_with_and_without_reuse(seed):
    rng = np.random.default_rng(100 + seed)
    main = static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, static.Program()):
            fetch = _random_program(rng, 20)
            x = main.global_block().var("x")
            x.stop_gradient = False
            loss = fetch[0].mean()
            for v in fetch[1:]:
                loss = loss + v.mean()
            grads = static.gradients([loss], [x])
    finally:
        paddle.disable_static()
    feed = {"x": rng.standard_normal((16, 32)).astype("float32"),
            "b": rng.standard_normal(32).astype("float32")}
    outs = [loss] + [g for g in grads if g is not None]
    _same(_run_all(main, feed, outs, steps=2))
