"""The executor: static programs built from the public functions give the eager
numbers (the whole op-spec table, and composite programs), feeds and fetches are
checked, errors name the op, runners agree, temporaries are freed early."""
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.dygraph import Tensor
from sampan.dygraph.engine import run_op
from sampan.executor import ExecutionConfig, ExecutionError, Scope
from sampan.executor import deps as D
from sampan.ops import get_op, bind
from sampan.program.proto import framework_pb2 as pb
from sampan.utils import unique_name

from ops.spec import all_cases

CASES = [c for c in all_cases() if not c.random_op]


@pytest.fixture
def prog():
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            yield main
    finally:
        paddle.disable_static()


def _static_outputs(case, op, dynamic_batch):
    """Build ``case``'s op on static.data inputs; return (program, feed, outputs)."""
    main, feed = static.Program(), {}
    paddle.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            vs = []
            for s in op.inputs:
                v = case.inputs.get(s.name)
                if v is None:
                    vs.append(None)
                    continue
                arrays = v if isinstance(v, list) else [v]
                made = []
                for k, a in enumerate(arrays):
                    a = np.array(a)
                    name = f"{s.name}_{k}"
                    shape = list(a.shape)
                    if dynamic_batch and shape:
                        shape[0] = -1
                    made.append(static.data(name, shape, a.dtype))
                    feed[name] = a
                vs.append(made if isinstance(v, list) else made[0])
            outs = bind(op, vs, case.attrs or None)
    finally:
        paddle.disable_static()
    return main, feed, outs


def _flat(xs):
    out = []
    for x in xs:
        out.extend(x if isinstance(x, list) else [x])
    return out


@pytest.mark.parametrize("dynamic_batch", [False, True], ids=["static_shape", "batch_-1"])
@pytest.mark.parametrize("case", CASES, ids=[c.name() for c in CASES])
def test_op_table_static_matches_eager(case, dynamic_batch):
    op = get_op(case.op)
    ins = [None if v is None else [Tensor(np.array(a)) for a in v] if isinstance(v, list)
           else Tensor(np.array(v)) for v in (case.inputs.get(s.name) for s in op.inputs)]
    eager = run_op(op, ins, case.attrs or None)
    main, feed, outs = _static_outputs(case, op, dynamic_batch)
    idx = [i for i, s in enumerate(op.outputs) if not s.intermediate and outs[i] is not None]
    got = static.Executor().run(main, feed=feed, fetch_list=_flat([outs[i] for i in idx]))
    want = [t._data for t in _flat([eager[i] for i in idx])]
    for g, w, v in zip(got, want, _flat([outs[i] for i in idx])):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert v.np_dtype == w.dtype, f"infer_meta dtype of {v.name}"
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(g, w)


def _model(x, w, b):
    h = paddle.nn.functional.relu(paddle.matmul(x, w) + b)
    return paddle.mean(h * h, axis=1) - paddle.exp(h).sum(axis=1) / 10.0


def test_composite_program_matches_eager(prog):
    rng = np.random.default_rng(0)
    xn, wn, bn = (rng.standard_normal(s).astype("float32") for s in ((5, 4), (4, 3), (3,)))
    x, w, b = (static.data(n, [None, 4] if n == "x" else a.shape, "float32")
               for n, a in (("x", xn), ("w", wn), ("b", bn)))
    out = _model(x, w, b)
    got, = static.Executor().run(prog, feed={"x": xn, "w": wn, "b": bn}, fetch_list=[out])
    paddle.disable_static()
    want = _model(paddle.to_tensor(xn), paddle.to_tensor(wn), paddle.to_tensor(bn)).numpy()
    paddle.enable_static()
    np.testing.assert_allclose(got, want, rtol=1e-6)


def _chain(n_ops, persist=None):
    x = static.data("x", [4], "float32")
    b = static.data("b", [4], "float32")
    y = x
    for i in range(n_ops // 2):
        y = y + b
        y = y * (persist if persist is not None and i % 10 == 0 else b)
    return y


def test_w1_chain_matches_numpy_and_uses_fast_kernels(prog):
    y = _chain(1000)
    xn, bn = np.arange(4, dtype="float32"), np.full(4, 0.999, "float32")
    exe = static.Executor()
    got, = exe.run(prog, feed={"x": xn, "b": bn}, fetch_list=[y])
    want = xn
    for _ in range(500):
        want = (want + bn) * bn
    np.testing.assert_array_equal(got, want)
    interp = exe.prepare(prog, {"x": xn, "b": bn}, [y])
    assert all(interp.runner.use_fast)          # the straight-line runner calls np.add itself


def test_gc_bounds_live_temporaries_and_keeps_persistables(prog):
    gb = prog.global_block()
    s = gb.create_var(name="s", shape=[4], dtype="float32", persistable=True)
    y = _chain(200, persist=s)
    live, seen = [], []

    def hook(ins, vals):
        live.append(sum(vals[i] is not None for i in temps))
        seen.append(ins.idx)

    scope = Scope()
    scope.var("s").get_tensor().set(np.full(4, 0.5, "float32"))
    feed = {"x": np.ones(4, "float32"), "b": np.full(4, 0.1, "float32")}
    for runner in ("serial", "threaded"):
        exe = static.Executor(config=ExecutionConfig(runner=runner, hook=hook))
        interp = exe.prepare(prog, feed, [y], scope)
        temps = interp.plan.temporaries
        assert len(temps) >= 199
        live.clear()
        seen.clear()
        got, = exe.run(prog, feed=feed, fetch_list=[y], scope=scope)
        assert len(seen) == 200 and max(live) <= 2, runner
        assert np.array(scope.find_var("s").get_tensor()).tolist() == [0.5] * 4
        assert got.shape == (4,)


def test_serial_and_threaded_runners_agree(prog):
    x = static.data("x", [3, 4], "float32")
    branches = [paddle.exp(x * float(i)) for i in range(6)]      # independent branches
    total = branches[0]
    for t in branches[1:]:
        total = total + t.sum(axis=1, keepdim=True)
    out = paddle.matmul(total, paddle.transpose(x, [1, 0]))
    feed = {"x": np.random.default_rng(1).standard_normal((3, 4)).astype("float32")}
    serial = static.Executor().run(prog, feed=feed, fetch_list=[out, total])
    loop = static.Executor(config=ExecutionConfig(hook=lambda i, v: None)).run(
        prog, feed=feed, fetch_list=[out, total])
    threaded = static.Executor(config=ExecutionConfig(runner="threaded", num_threads=4))
    for _ in range(3):
        got = threaded.run(prog, feed=feed, fetch_list=[out, total])
        for a, b, c in zip(serial, got, loop):
            assert np.array_equal(a, b) and np.array_equal(a, c)
    threaded.close()


def test_dependencies_raw_war_waw_reduced(prog):
    gb = prog.global_block()
    x = static.data("x", [2], "float32")
    a = paddle.exp(x)            # 0: writes a
    b = paddle.exp(a)            # 1: RAW on a
    gb.append_op("exp", inputs={"X": [x]}, outputs={"Out": [a]})     # 2: WAR (1), WAW (0)
    c = paddle.exp(a)            # 3: RAW on the new a
    paddle.uniform([2])          # 4, 5: random ops keep their order
    paddle.uniform([2])
    interp = static.Executor().prepare(prog, {"x": 0}, [b, c])
    d = interp.deps
    assert d.succ[0] == (1,)                 # 0->2 (WAW) is implied by 0->1->2
    assert d.succ[1] == (2,) and d.succ[2] == (3,)
    assert d.succ[4] == (5,)
    assert d.happens_before(0, 3) and not d.happens_before(3, 0)
    assert not d.happens_before(0, 4)
    raw = D.data_edges(interp.plan.instrs)
    assert 2 in raw[0]                       # present before the reduction
    text = interp.explain()
    assert "edges (reduced)" in text and "#0 -> #1" in text and "frees" in text


def test_feed_checks(prog):
    x = static.data("x", [None, 3], "float32")
    y = paddle.exp(x)
    exe = static.Executor()
    with pytest.raises(ValueError, match=r"feed 'x': expected shape \[-1, 3\].*got \[2, 4\]"):
        exe.run(prog, feed={"x": np.zeros((2, 4), "float32")}, fetch_list=[y])
    with pytest.raises(ValueError, match="feed 'x': expected dtype float32.*got float64"):
        exe.run(prog, feed={"x": np.zeros((2, 3))}, fetch_list=[y])
    with pytest.raises(ValueError, match="data 'x'.*not fed"):
        exe.run(prog, feed={}, fetch_list=[y])
    with pytest.raises(ValueError, match="fetch target 'nope'"):
        exe.run(prog, feed={"x": np.zeros((2, 3), "float32")}, fetch_list=["nope"])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got, = exe.run(prog, feed={"x": [[0.0, 1.0, 2.0]], "extra": 1}, fetch_list=[y.name])
    assert any("extra" in str(m.message) for m in w)
    np.testing.assert_allclose(got, np.exp([[0.0, 1.0, 2.0]]), rtol=1e-6)


def test_runtime_errors_name_op_shapes_and_source(prog):
    x = static.data("x", [None, 3], "float32")
    y = static.data("y", [None, 3], "float32")
    z = paddle.add(x, y)                                 # the line the error must point at
    feed = {"x": np.ones((2, 3), "float32"), "y": np.ones((4, 3), "float32")}
    for config in (ExecutionConfig(), ExecutionConfig(hook=lambda i, v: None),
                   ExecutionConfig(runner="threaded")):
        with pytest.raises(ExecutionError) as e:
            static.Executor(config=config).run(prog, feed=feed, fetch_list=[z])
        msg = str(e.value)
        assert "elementwise_add" in msg and "[2, 3]:float32" in msg and "[4, 3]:float32" in msg
        assert "test_executor.py" in msg and "line" in msg


def test_parameters_scope_and_startup(prog):
    startup = static.default_startup_program()
    sw = startup.global_block().create_parameter(name="w", shape=[3], dtype="float32")
    startup.global_block().append_op("fill_constant", outputs={"Out": [sw]},
                                     attrs={"shape": [3], "value": 2.0, "dtype": 5})
    w = prog.global_block().create_parameter(name="w", shape=[3], dtype="float32")
    x = static.data("x", [3], "float32")
    y = x * w
    exe = static.Executor(static.CPUPlace())
    scope = Scope()
    with pytest.raises(RuntimeError, match="'w'.*not initialized.*startup"):
        exe.run(prog, feed={"x": np.ones(3, "float32")}, fetch_list=[y], scope=scope)
    exe.run(startup, scope=scope)
    got, = exe.run(prog, feed={"x": np.ones(3, "float32")}, fetch_list=[y], scope=scope)
    np.testing.assert_array_equal(got, [2, 2, 2])
    with static.scope_guard(scope):
        assert static.global_scope() is scope
        t = static.global_scope().find_var("w").get_tensor()
        assert t.shape() == [3] and np.array(t).tolist() == [2, 2, 2]
    res = exe.run(prog, feed={"x": np.ones(3, "float32")}, fetch_list=[y], scope=scope,
                  return_numpy=False)
    assert np.array(res[0]).tolist() == [2, 2, 2]


def test_bound_eager_parameter_is_read_in_place(prog):
    w = paddle.Parameter(np.full((2,), 3.0, "float32"), name="lin.w")
    x = static.data("x", [2], "float32")
    y = x * w
    exe, feed = static.Executor(), {"x": np.ones(2, "float32")}
    assert exe.run(prog, feed=feed, fetch_list=[y])[0].tolist() == [3, 3]
    w._data = np.full((2,), 5.0, "float32")                # the optimizer updated it
    assert exe.run(prog, feed=feed, fetch_list=[y])[0].tolist() == [5, 5]


def test_written_persistables_go_back_to_the_scope(prog):
    gb = prog.global_block()
    p = gb.create_parameter(name="p", shape=[2], dtype="float32")
    lr = gb.create_var(name="lr", shape=[1], dtype="float32", persistable=True)
    g = static.data("g", [2], "float32")
    bind(get_op("sgd"), (p, lr, g, None))
    scope = Scope()
    scope.var("p").get_tensor().set(np.array([1.0, 2.0], "float32"))
    scope.var("lr").get_tensor().set(np.array([0.5], "float32"))
    exe = static.Executor()
    for _ in range(2):
        exe.run(prog, feed={"g": np.array([1.0, 1.0], "float32")}, scope=scope)
    assert np.array(scope.find_var("p").get_tensor()).tolist() == [0.0, 1.0]


def test_interpreter_cache(prog):
    x = static.data("x", [2], "float32")
    y = paddle.exp(x)
    exe, feed = static.Executor(), {"x": np.zeros(2, "float32")}
    i1 = exe.prepare(prog, feed, [y])
    assert exe.prepare(prog, feed, [y]) is i1
    assert exe.prepare(prog, feed, [x]) is not i1
    assert exe.prepare(prog, feed, [y], Scope()) is not i1
    assert exe.prepare(prog, feed, [y], use_program_cache=False) is not i1
    z = paddle.exp(y)                                           # the program changed
    assert exe.prepare(prog, feed, [y]) is not i1
    np.testing.assert_allclose(exe.run(prog, feed=feed, fetch_list=[z])[0], [np.e] * 2,
                               rtol=1e-6)


def test_loaded_programs_with_feed_and_fetch_ops(prog):
    x = static.data("x", [2], "float32")
    y = paddle.exp(x)
    gb = prog.global_block()
    feed_var = gb.create_var(name="feed", type=pb.VarType.FEED_MINIBATCH, persistable=True)
    fetch_var = gb.create_var(name="fetch", type=pb.VarType.FETCH_LIST, persistable=True)
    gb._prepend_op("feed", inputs={"X": [feed_var]}, outputs={"Out": [x]}, attrs={"col": 0})
    gb.append_op("fetch", inputs={"X": [y]}, outputs={"Out": [fetch_var]}, attrs={"col": 0})
    back = static.Program.parse_from_string(prog.desc.SerializeToString())
    got, = static.Executor().run(back, feed={"x": np.zeros(2, "float32")})
    assert got.tolist() == [1.0, 1.0]


def test_unregistered_op_is_a_clear_error(prog):
    x = static.data("x", [2], "float32")
    prog.global_block().append_op("no_such_op", inputs={"X": [x]}, outputs={"Out": [x]})
    with pytest.raises(Exception, match="no_such_op.*not registered"):
        static.Executor().run(prog, feed={"x": np.zeros(2, "float32")})


def test_empty_program_and_fetching_a_feed(prog):
    exe = static.Executor()
    assert exe.run(static.Program()) == []
    x = static.data("x", [2], "float32")
    got, = exe.run(prog, feed={"x": np.array([1, 2], "float32")}, fetch_list=[x])
    assert got.tolist() == [1, 2]


def test_eager_call_on_a_static_variable_appends_to_the_program():
    main = static.Program()
    with unique_name.guard(), static.program_guard(main):
        x = static.data("x", [2], "float32")
        assert paddle.in_dynamic_mode()
        y = paddle.exp(x)                         # forwarded to the static handler
    assert [op.type for op in main.global_block().ops] == ["exp"]
    got, = static.Executor().run(main, feed={"x": np.zeros(2, "float32")}, fetch_list=[y])
    assert got.tolist() == [1.0, 1.0]


def test_redeclaring_a_variable_must_agree(prog):
    x = static.data("x", [2], "float32")
    assert static.data("x", [2], "float32") is x
    with pytest.raises(ValueError, match="already exists with shape"):
        static.data("x", [3], "float32")


def test_loaded_program_run_without_its_feed_names_the_feed():
    """A program carrying feed ops (a loaded model) run with feed={} raises a
    clear error naming the missing feed, not a bare KeyError."""
    import os
    import sampan as paddle
    prefix = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "..", "shared", "paddle-reference", "models", "lenet",
        "model")
    exe = paddle.static.Executor()
    paddle.enable_static()
    try:
        prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        with pytest.raises(ValueError, match=feeds[0]):
            exe.run(prog, feed={}, fetch_list=fetches)
    finally:
        paddle.disable_static()


def test_feed_may_be_a_list_holding_one_places_dict():
    """A static-mode DataLoader yields [{name: array}] (one dict per place); run takes it."""
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [2], "float32")
            y = x * 2.0
        exe = static.Executor()
        (got,) = exe.run(main, feed=[{"x": np.ones(2, "float32")}], fetch_list=[y])
        np.testing.assert_array_equal(got, [2.0, 2.0])
        with pytest.raises(TypeError, match="list of 2 items"):
            exe.run(main, feed=[{"x": np.ones(2, "float32")}] * 2, fetch_list=[y])
    finally:
        paddle.disable_static()


def test_get_tensor_set_copies_the_callers_array(prog):
    """Paddle's LoDTensor.set copies: an in-place update by the program (SGD on a
    parameter) leaves the caller's array as it was, and writing that array later
    leaves the variable alone."""
    x = static.data("x", [2, 3], "float32")
    layer = paddle.nn.Linear(3, 1)
    loss = layer(x).mean()
    paddle.optimizer.SGD(learning_rate=0.5).minimize(loss)
    scope = Scope()
    exe = static.Executor()
    exe.run(paddle.static.default_startup_program(), scope=scope)
    w = np.ones((3, 1), "float32")
    scope.find_var(layer.weight.name).get_tensor().set(w)
    exe.run(prog, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[loss], scope=scope)
    assert w.tolist() == [[1.0]] * 3
    updated = np.array(scope.find_var(layer.weight.name).get_tensor())
    np.testing.assert_allclose(updated, 0.5)       # 1 - 0.5 * d(mean)/dw = 1 - 0.5 * 1
    w[:] = 7
    np.testing.assert_allclose(np.array(scope.find_var(layer.weight.name).get_tensor()), 0.5)
