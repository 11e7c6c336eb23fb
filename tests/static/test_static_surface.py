"""paddle.static names gathered in static/io.py, static/extras.py and
static/nn/extra.py: in-memory model I/O, create_global_var, device_guard,
accuracy, py_func, and the unsupported (LoD, XPU, IPU) names."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static


@pytest.fixture
def progs():
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    try:
        with static.program_guard(main, startup):
            yield main, startup
    finally:
        paddle.disable_static()


def _net(main):
    x = static.data("x", [None, 3], "float32")
    w = static.create_parameter([3, 4], "float32")
    y = paddle.matmul(x, w) + 1.0
    return x, w, y


def test_create_parameter_and_global_var(progs):
    main, startup = progs
    x, w, y = _net(main)
    assert w.name.startswith("create_parameter_") and w.persistable
    v = static.create_global_var([2, 3], 1.5, "float32", persistable=True, name="gv")
    u = static.create_global_var([2], 7, "int64")
    assert v.persistable and v.stop_gradient and not u.persistable
    assert u.name.startswith("_generated_var_")
    ops = startup.global_block().ops
    fills = [op for op in ops if op.type == "fill_constant"]
    assert [op.output("Out")[0] for op in fills] == ["gv", u.name]
    assert fills[0].attr("value") == 1.5 and fills[0].attr("shape") == [2, 3]
    assert startup.global_block().var(u.name).persistable
    exe = static.Executor()
    exe.run(startup)
    gv, uv = exe.run(main, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[v, u])
    np.testing.assert_array_equal(gv, np.full((2, 3), 1.5, "float32"))
    np.testing.assert_array_equal(uv, np.array([7, 7], "int64"))
    with pytest.raises(TypeError):
        static.create_global_var(3, 1.0, "float32")


def test_device_guard_sets_op_device(progs):
    main, _ = progs
    x = static.data("x", [None, 3], "float32")
    with static.device_guard("gpu:0"):
        a = x * 2.0
        with static.device_guard("cpu"):
            b = a + 1.0
        c = b - 1.0
    d = c * 3.0
    dev = {op.output_arg_names[0]: op.attr("op_device") for op in main.global_block().ops}
    assert dev[a.name] == "gpu:0" and dev[b.name] == "cpu" and dev[c.name] == "gpu:0"
    assert dev[d.name] == ""
    with pytest.raises(ValueError):
        with static.device_guard("cpu:1"):
            pass
    with pytest.raises(ValueError):
        with static.device_guard("tpu"):
            pass


def test_accuracy_ops_and_value(progs):
    main, startup = progs
    x = static.data("x", [None, 4], "float32")
    label = static.data("label", [None, 1], "int64")
    acc = static.accuracy(x, label, k=2)
    types = [op.type for op in main.global_block().ops]
    assert types == ["top_k_v2", "accuracy"]
    assert acc.name.startswith("accuracy_")
    assert main.global_block().ops[0].attr("sorted") is False
    xv = np.array([[0.1, 0.5, 0.3, 0.1], [0.7, 0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.7]],
                  "float32")
    lv = np.array([[2], [3], [3]], "int64")
    exe = static.Executor()
    (out,) = exe.run(main, feed={"x": xv, "label": lv}, fetch_list=[acc])
    np.testing.assert_allclose(out, 2 / 3, rtol=1e-6)


def test_serialize_program_and_persistables_round_trip(progs, tmp_path):
    main, startup = progs
    x, w, y = _net(main)
    exe = static.Executor()
    exe.run(startup)
    xv = np.random.default_rng(0).standard_normal((2, 3)).astype("float32")
    (want,) = exe.run(main, feed={"x": xv}, fetch_list=[y])
    n_ops = len(main.global_block().ops)
    norm = static.normalize_program(main, [x], [y])
    assert len(main.global_block().ops) == n_ops           # the caller's program is kept
    types = [op.type for op in norm.global_block().ops]
    assert types[0] == "feed" and types[-1] == "fetch" and "scale" in types
    prog_bytes = static.serialize_program([x], [y], program=main)
    param_bytes = static.serialize_persistables([x], [y], exe, program=main)
    assert isinstance(prog_bytes, bytes) and isinstance(param_bytes, bytes)
    static.save_to_file(str(tmp_path / "m.pdmodel"), prog_bytes)
    static.save_to_file(str(tmp_path / "m.pdiparams"), param_bytes)
    assert static.load_from_file(str(tmp_path / "m.pdmodel")) == prog_bytes
    with pytest.raises(ValueError):
        static.save_to_file(str(tmp_path / "bad"), "text")
    # a fresh scope: the parameters come only from the bytes
    scope = static.Scope()
    with static.scope_guard(scope):
        prog = static.deserialize_program(static.load_from_file(str(tmp_path / "m.pdmodel")))
        static.deserialize_persistables(prog, static.load_from_file(
            str(tmp_path / "m.pdiparams")), exe)
        assert scope.find_var(w.name) is not None
        fetch = [op.input("X")[0] for op in prog.global_block().ops if op.type == "fetch"]
        (got,) = exe.run(prog, feed={"x": xv}, fetch_list=fetch)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    # the same program loads by load_inference_model from the two files
    prog2, feeds, fetches = static.load_inference_model(str(tmp_path / "m"), exe)
    assert feeds == ["x"]
    (got2,) = exe.run(prog2, feed={"x": xv}, fetch_list=fetches)
    np.testing.assert_allclose(got2, want, rtol=1e-6)


def test_deserialize_errors(progs):
    main, startup = progs
    x, w, y = _net(main)
    with pytest.raises(Exception, match="ProgramDesc"):
        static.deserialize_program(b"\x00\xffnot a program")
    prog = static.deserialize_program(static.serialize_program([x], [y], program=main))
    with pytest.raises(ValueError, match="shall be not None"):
        static.deserialize_persistables(prog, None, static.Executor())
    with pytest.raises(TypeError):
        static.normalize_program("main", [x], [y])
    with pytest.raises(TypeError):
        static.serialize_program([1], [y])


def test_serialize_persistables_none_without_params(progs):
    main, _ = progs
    x = static.data("x", [None, 3], "float32")
    y = x * 2.0
    with pytest.warns(UserWarning, match="no variable"):
        assert static.serialize_persistables([x], [y], static.Executor(), program=main) is None


def test_py_func_forward_and_backward(progs):
    main, _ = progs
    calls = []

    def tanh(x):
        calls.append(type(x))
        return np.tanh(x)

    def tanh_grad(y, dy):            # x skipped: (out, out@grad)
        return np.asarray(dy) * (1 - np.square(np.asarray(y)))

    x = static.data("x", [2, 3], "float32")
    x.stop_gradient = False
    h = x * 2.0
    out = main.current_block().create_var(name="pyout", shape=[2, 3], dtype="float32")
    res = static.nn.py_func(tanh, h, out, backward_func=tanh_grad,
                            skip_vars_in_backward_input=h)
    assert res is out
    loss = paddle.mean(out)
    (gx,) = static.gradients([loss], [x])
    op = next(o for o in main.global_block().ops if o.type == "py_func")
    assert op.attr("backward_skip_vars") == [h.name]
    assert op.attr("backward_callable_id") >= 0
    xv = np.random.default_rng(1).random((2, 3)).astype("float32")
    o, g = static.Executor().run(main, feed={"x": xv}, fetch_list=[out, gx])
    np.testing.assert_allclose(o, np.tanh(2 * xv), rtol=1e-6)
    np.testing.assert_allclose(g, 2 * (1 - np.tanh(2 * xv) ** 2) / 6, rtol=1e-5)
    assert calls and calls[0] is np.ndarray


def test_py_func_multi_outputs_no_backward_and_errors(progs):
    main, _ = progs
    seen = []
    x = static.data("x", [3], "float32")
    y = static.data("y", [3], "float32")
    blk = main.current_block()
    s = blk.create_var(name="s", shape=[3], dtype="float64")
    d = blk.create_var(name="d", shape=[3], dtype="float32")
    static.py_func(lambda a, b: (a + b, a - b), [x, y], [s, d])
    static.py_func(lambda a: seen.append(np.asarray(a).sum()), x, None)   # no output: kept
    assert s.stop_gradient and d.stop_gradient
    exe = static.Executor()
    xv, yv = np.arange(3, dtype="float32"), np.ones(3, "float32")
    sv, dv = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[s, d])
    assert sv.dtype == np.float64
    np.testing.assert_array_equal(sv, xv + yv)
    np.testing.assert_array_equal(dv, xv - yv)
    assert seen == [3.0]
    bad = blk.create_var(name="bad", shape=[3], dtype="float32")
    static.py_func(lambda a: (a, a), x, bad)
    with pytest.raises(Exception, match="returned 2 value"):
        exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[bad])
    with pytest.raises(TypeError):
        static.py_func(42, x, None)


@pytest.mark.parametrize("name", ["sequence_concat", "sequence_conv", "sequence_enumerate",
                                  "sequence_expand", "sequence_expand_as",
                                  "sequence_first_step", "sequence_last_step", "sequence_pad",
                                  "sequence_pool", "sequence_reshape", "sequence_reverse",
                                  "sequence_scatter", "sequence_slice", "sequence_softmax",
                                  "sequence_unpad"])
def test_lod_sequence_builders_raise(name):
    with pytest.raises(NotImplementedError, match="LoD"):
        getattr(static.nn, name)(None)


def test_no_xpu_no_ipu():
    with pytest.raises(RuntimeError, match="XPU"):
        static.xpu_places()
    for fn in (static.IpuStrategy, static.IpuCompiledProgram, static.ipu_shard_guard):
        with pytest.raises(RuntimeError, match="IPU"):
            fn()
    with pytest.raises(RuntimeError, match="IPU"):
        static.set_ipu_shard(lambda: None)


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_weight_norm_param_attr_fc(progs, dim):
    main, startup = progs
    x = static.data("x", [None, 3], "float32")
    y = static.nn.fc(x, 4, weight_attr=static.WeightNormParamAttr(dim=dim, name="wn"),
                     bias_attr=False)
    params = {p.name: list(p.shape) for p in main.global_block().all_parameters()}
    g_shape = [1, 1] if dim is None else ([3, 1] if dim == 0 else [1, 4])
    assert params == {"wn_g": g_shape, "wn_v": [3, 4]}
    types = [op.type for op in main.global_block().ops]
    assert types[:4] == ["abs", "pow", "reduce_sum", "pow"] or "abs" in types
    scope = static.Scope()
    exe = static.Executor()
    with static.scope_guard(scope):
        exe.run(startup)
        v = np.array(scope.find_var("wn_v").get())
        g = np.array(scope.find_var("wn_g").get())
        ax = None if dim is None else 1 - dim
        norm = np.sqrt((v ** 2).sum(axis=ax, keepdims=True)).reshape(g_shape)
        np.testing.assert_allclose(g, norm, rtol=1e-6)
        scope.find_var("wn_g").set(g * 3.0)
        (out,) = exe.run(main, feed={"x": np.eye(3, dtype="float32")}, fetch_list=[y])
    np.testing.assert_allclose(out, 3.0 * v, rtol=1e-5)


def test_weight_norm_param_attr_3d_trains(progs):
    main, startup = progs
    w = static.create_parameter([2, 3, 4], "float32",
                                attr=static.WeightNormParamAttr(dim=1, name="wn3"))
    loss = paddle.sum(w * w)
    paddle.optimizer.SGD(0.1).minimize(loss)
    scope = static.Scope()
    exe = static.Executor()
    with static.scope_guard(scope):
        exe.run(startup)
        v = np.array(scope.find_var("wn3_v").get())
        g = np.array(scope.find_var("wn3_g").get())
        assert g.shape == (1, 3, 1)
        np.testing.assert_allclose(g, np.sqrt((v ** 2).sum(axis=(0, 2), keepdims=True)),
                                   rtol=1e-6)
        (l0,) = exe.run(main, fetch_list=[loss])
        (l1,) = exe.run(main, fetch_list=[loss])
    np.testing.assert_allclose(l0, (v ** 2).sum(), rtol=1e-5)
    assert l1 < l0


def test_weight_norm_param_attr_is_static_only():
    with pytest.raises(RuntimeError, match="weight_norm"):
        paddle.create_parameter([2, 2], "float32", attr=static.WeightNormParamAttr(name="e"))


def test_exponential_moving_average(progs):
    main, startup = progs
    x = static.data("x", [None, 3], "float32")
    y = static.nn.fc(x, 2)
    loss = paddle.mean(y)
    paddle.optimizer.SGD(0.5).minimize(loss)
    ema = static.ExponentialMovingAverage(0.9)
    ema.update()
    assert main.global_block().ops[0].type == "increment"
    wn, bn = [p.name for p in main.global_block().all_parameters()]
    scope = static.Scope()
    exe = static.Executor()
    xv = np.random.default_rng(2).random((4, 3)).astype("float32")
    with static.scope_guard(scope):
        exe.run(startup)
        hist = []
        for _ in range(3):
            exe.run(main, feed={"x": xv})
            hist.append({n: np.array(scope.find_var(n).get()) for n in (wn, bn)})
        assert int(np.array(scope.find_var("@EMA_STEP_COUNTER@").get())[0]) == 3
        with ema.apply(exe):
            for n in (wn, bn):
                e = 0.0
                for h in hist:
                    e = 0.9 * e + 0.1 * h[n]
                np.testing.assert_allclose(np.array(scope.find_var(n).get()),
                                           e / (1 - 0.9 ** 3), rtol=1e-5)
        for n in (wn, bn):
            np.testing.assert_array_equal(np.array(scope.find_var(n).get()), hist[-1][n])
        with ema.apply(exe, need_restore=False):
            pass
        assert not np.array_equal(np.array(scope.find_var(wn).get()),
                                  hist[-1][wn])
        ema.restore(exe)
        np.testing.assert_array_equal(np.array(scope.find_var(wn).get()),
                                      hist[-1][wn])


def test_ema_thres_steps(progs):
    main, startup = progs
    x = static.data("x", [None, 3], "float32")
    y = static.nn.fc(x, 2)
    step = static.create_global_var([1], 0, "int64", persistable=True, name="thres")
    ema = static.ExponentialMovingAverage(0.999, thres_steps=step)
    ema.update()
    exe = static.Executor()
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        exe.run(main, feed={"x": np.ones((1, 3), "float32")})
        np.testing.assert_allclose(np.array(scope.find_var("scheduled_ema_decay_rate").get()),
                                   [0.1], rtol=1e-6)


def test_ema_is_static_only():
    with pytest.raises(Exception, match="dygraph"):
        static.ExponentialMovingAverage()


def test_auc_matches_paddle(progs):
    """Values recorded from real Paddle 2.6.2 (num_thresholds=15, slide_steps=2)."""
    main, startup = progs
    x = static.data("x", [None, 2], "float32")
    label = static.data("l", [None, 1], "int64")
    auc_out, batch_auc, stats = static.auc(x, label, num_thresholds=15, slide_steps=2)
    types = [op.type for op in main.global_block().ops]
    assert types == ["fill_constant", "auc", "auc"]
    assert [op.attr("slide_steps") for op in main.global_block().ops[1:]] == [2, 0]
    assert [list(v.shape) for v in stats] == [[49], [49], [1, 16], [1, 16]]
    assert all(v.persistable for v in stats)
    exe = static.Executor()
    scope = static.Scope()
    rng = np.random.default_rng(0)
    want = [(0.0, 0.0), (0.7037037037037037, 0.7037037037037037),
            (0.638888888888889, 0.6944444444444445), (0.703125, 0.7428571428571429)]
    with static.scope_guard(scope):
        exe.run(startup)
        for step, (w_auc, w_batch) in enumerate(want):
            p = rng.random((6, 1)).astype("float32")
            xv = np.concatenate([1 - p, p], 1)
            lv = rng.integers(0, 2, (6, 1))
            a, b, bpos = exe.run(main, feed={"x": xv, "l": lv},
                                 fetch_list=[auc_out, batch_auc, stats[0]])
            assert a.dtype == np.float64 and a.shape == ()
            np.testing.assert_allclose([a, b], [w_auc, w_batch], rtol=1e-12)
            assert bpos[-1] == step + 1


def test_accuracy_eager():
    x = paddle.to_tensor(np.array([[0.1, 0.9], [0.8, 0.2]], "float32"))
    label = paddle.to_tensor(np.array([[1], [1]], "int64"))
    np.testing.assert_allclose(static.accuracy(x, label).numpy(), 0.5)


def test_bilinear_tensor_product_builder(progs):
    from sampan.ops import has_op
    if not has_op("bilinear_tensor_product"):
        pytest.skip("no bilinear_tensor_product op in this build")
    main, startup = progs
    x = static.data("x", [None, 4], "float32")
    y = static.data("y", [None, 5], "float32")
    out = static.nn.bilinear_tensor_product(x, y, 3, act="relu")
    params = {p.name.split(".")[-1]: list(p.shape)
              for p in main.global_block().all_parameters()}
    assert params == {"w_0": [3, 4, 5], "b_0": [1, 3]}
    assert [op.type for op in main.global_block().ops] == ["bilinear_tensor_product", "relu"]
    w = main.global_block().all_parameters()[0]
    exe = static.Executor()
    scope = static.Scope()
    rng = np.random.default_rng(4)
    xv, yv = rng.random((2, 4)).astype("float32"), rng.random((2, 5)).astype("float32")
    with static.scope_guard(scope):
        exe.run(startup)
        (r,) = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[out])
        wv = np.array(scope.find_var(w.name).get())
    np.testing.assert_allclose(r, np.maximum(np.einsum("bi,kij,bj->bk", xv, wv, yv), 0),
                               rtol=1e-5, atol=1e-6)
