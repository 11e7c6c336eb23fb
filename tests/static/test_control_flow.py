"""Control flow in static programs: cond, while_loop, switch_case, case, tensor
arrays and Print, built as Paddle builds them and run by the Executor (serial
and threaded runners agree) against the same computation in numpy; the eager
forms; the errors."""
import contextlib
import io

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.executor import Executor, ExecutionConfig, ExecutionError
from sampan.executor import control_flow as CF
from sampan.program.variable import VarType
from sampan.utils import unique_name

RUNNERS = ("serial", "threaded")


@contextlib.contextmanager
def building():
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            yield main, startup
    finally:
        paddle.disable_static()


def run(main, startup, feed, fetch, runners=RUNNERS):
    """Fetch values, the same with every runner (a fresh scope each)."""
    results = []
    for r in runners:
        exe = Executor(config=ExecutionConfig(runner=r))
        scope = static.Scope()
        try:
            paddle.seed(2024)             # the same initial parameters for every runner
            exe.run(startup, scope=scope)
            results.append(exe.run(main, feed=feed, fetch_list=fetch, scope=scope))
        finally:
            exe.close()
    for other in results[1:]:
        for a, b in zip(results[0], other):
            np.testing.assert_array_equal(a, b)
    return results[0]


def op_types(block):
    return [op.type for op in block.ops]


# ----------------------------------------------------------------- cond
def test_cond_builds_paddles_ops_and_picks_the_branch():
    with building() as (main, startup):
        x = static.data("x", [-1, 3], "float32")
        pred = paddle.mean(x) > 0
        out = static.nn.cond(pred, lambda: paddle.nn.functional.relu(x),
                             lambda: paddle.nn.functional.relu(-x) * 0.5 + 0.25)
    types = op_types(main.global_block())
    i = types.index("conditional_block")
    assert types[i:i + 5] == ["conditional_block", "logical_not", "conditional_block", "cast",
                              "select_input"]
    sel = main.global_block().ops[i + 4]
    t_op, f_op = main.global_block().ops[i], main.global_block().ops[i + 2]
    assert sel.input("X") == f_op.output("Out") + t_op.output("Out")
    assert t_op.input("Input") == ["x"] and t_op.attr("is_scalar_condition") is True
    assert main.block(t_op.attr("sub_block")).ops[-1].type == "assign"
    assert out.name.startswith("_generated_var_") and out.shape == (-1, 3)
    for xv in (np.array([[1, -2, 3]], "float32"), np.array([[-1, 2, -3]], "float32")):
        got, = run(main, startup, {"x": xv}, [out])
        want = np.maximum(xv, 0) if xv.mean() > 0 else np.maximum(-xv, 0) * 0.5 + 0.25
        np.testing.assert_allclose(got, want)


def test_cond_nested_structures_constants_and_parameters():
    with building() as (main, startup):
        x = static.data("x", [2, 2], "float32")
        k = static.data("k", [1], "int64")
        pred = paddle.sum(k) > 2
        lin = paddle.nn.Linear(2, 2)

        def yes():
            return {"a": lin(x), "b": (x + 1, 7)}

        def no():
            return {"a": x * 3, "b": (paddle.tanh(x), 7)}
        out = static.nn.cond(pred, yes, no)
    assert out["b"][1] == 7
    xv = np.arange(4, dtype="float32").reshape(2, 2)
    for kv in (5, 1):
        a, b1, w, b = run(main, startup, {"x": xv, "k": np.array([kv], "int64")},
                          [out["a"], out["b"][0], lin.weight, lin.bias])
        if kv > 2:
            np.testing.assert_allclose(a, xv @ w + b, rtol=1e-6)
            np.testing.assert_allclose(b1, xv + 1)
        else:
            np.testing.assert_allclose(a, xv * 3)
            np.testing.assert_allclose(b1, np.tanh(xv), rtol=1e-6)


def test_cond_python_values_that_differ_become_tensors():
    with building() as (main, startup):
        x = static.data("x", [1], "float32")
        out = static.nn.cond(paddle.sum(x) > 0, lambda: 3, lambda: 5)
    for xv, want in ((1.0, 3), (-1.0, 5)):
        got, = run(main, startup, {"x": np.array([xv], "float32")}, [out])
        assert int(got) == want


def test_cond_without_outputs_and_with_one_branch():
    with building() as (main, startup):
        x = static.data("x", [1], "float32")
        assert static.nn.cond(paddle.sum(x) > 0, lambda: None, lambda: None) is None
        assert static.nn.cond(paddle.sum(x) > 0, lambda: None) is None
    assert op_types(main.global_block()).count("conditional_block") == 3


def test_cond_reads_a_temporary_only_inside_a_branch():
    """A temporary read only by a branch stays alive until the cond op ran, then
    it is freed."""
    with building() as (main, startup):
        x = static.data("x", [3], "float32")
        t = paddle.exp(x)                        # used only in the true branch
        u = x * 2
        out = static.nn.cond(paddle.sum(u) > 0, lambda: t + 1, lambda: u)
    xv = np.array([1, 2, 3], "float32")
    trace = []
    exe = Executor(config=ExecutionConfig(
        hook=lambda ins, vals: trace.append((ins.op.type, vals[t_idx] is not None))))
    t_idx = exe.prepare(main, {"x": xv}, [out], static.Scope()).plan.index[t.name]
    got, = exe.run(main, feed={"x": xv}, fetch_list=[out], scope=static.Scope())
    np.testing.assert_allclose(got, np.exp(xv) + 1, rtol=1e-6)
    first = [k for k, (ty, _) in enumerate(trace) if ty == "conditional_block"][0]
    assert trace[first - 1][1], "freed before the conditional_block that reads it"
    assert not trace[-1][1], "never freed"
    text = exe.explain(main, feed={"x": xv}, fetch_list=[out], scope=static.Scope(),
                       file=io.StringIO())
    assert "conditional_block" in text


def test_random_ops_in_a_branch_keep_their_order_with_threads():
    with building() as (main, startup):
        x = static.data("x", [64], "float32")
        F = paddle.nn.functional
        a = F.dropout(x, 0.5)
        b = static.nn.cond(paddle.sum(x) > 0, lambda: F.dropout(x, 0.5), lambda: x)
        c = F.dropout(x, 0.5)
    xv = np.ones(64, "float32")
    outs = []
    for r in RUNNERS:
        paddle.seed(7)
        outs.append(Executor(config=ExecutionConfig(runner=r)).run(
            main, feed={"x": xv}, fetch_list=[a, b, c], scope=static.Scope()))
    for p, q in zip(*outs):
        np.testing.assert_array_equal(p, q)
    assert not np.array_equal(outs[0][0], outs[0][1])


def test_branch_updates_a_persistable_only_when_taken():
    with building() as (main, startup):
        x = static.data("x", [4, 2], "float32")
        flag = static.data("flag", [1], "bool")
        y = static.nn.cond(paddle.sum(paddle.cast(flag, "int32")) > 0,
                           lambda: static.nn.batch_norm(x, momentum=0.5), lambda: x)
    mean_name = [v.name for v in main.list_vars() if v.name.endswith(".w_1")][0]
    exe, scope = Executor(), static.Scope()
    exe.run(startup, scope=scope)
    xv = np.arange(8, dtype="float32").reshape(4, 2)
    exe.run(main, feed={"x": xv, "flag": np.array([False])}, fetch_list=[y], scope=scope)
    np.testing.assert_allclose(np.array(scope.find_var(mean_name).get_tensor()), [0, 0])
    exe.run(main, feed={"x": xv, "flag": np.array([True])}, fetch_list=[y], scope=scope)
    np.testing.assert_allclose(np.array(scope.find_var(mean_name).get_tensor()),
                               0.5 * xv.mean(0), rtol=1e-6)


def test_programs_with_control_flow_round_trip_through_bytes():
    with building() as (main, startup):
        x = static.data("x", [2], "float32")
        i = paddle.zeros([1], "int64")
        _, h = static.nn.while_loop(
            lambda i, h: i < 3,
            lambda i, h: (i + 1, static.nn.cond(paddle.sum(h) > 1, lambda: h * 0.5,
                                                lambda: h + 1)), [i, x])
    parsed = static.Program.parse_from_string(main.desc.SerializeToString())
    xv = np.array([0.2, 0.1], "float32")
    a, = Executor().run(main, feed={"x": xv}, fetch_list=[h], scope=static.Scope())
    b, = Executor().run(parsed, feed={"x": xv}, fetch_list=[h.name], scope=static.Scope())
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(a, [0.3, 0.275], rtol=1e-6)   # +1, *0.5, *0.5


def test_cond_errors_name_both_structures():
    with building():
        x = static.data("x", [1], "float32")
        pred = paddle.sum(x) > 0
        with pytest.raises(ValueError) as e:
            static.nn.cond(pred, lambda: (x, x), lambda: x)
        msg = str(e.value)
        assert "true_fn returns (Variable 'x', Variable 'x')" in msg
        assert "false_fn returns Variable 'x'" in msg
        with pytest.raises(ValueError, match="false_fn returns None while true_fn returns"):
            static.nn.cond(pred, lambda: x, lambda: None)
        with pytest.raises(TypeError, match="bool"):
            static.nn.cond(x, lambda: x, lambda: x)
        with pytest.raises(TypeError, match="callable"):
            static.nn.cond(pred, 3, lambda: x)
        # the failed builds left the program at its global block
        assert static.default_main_program().current_block_idx == 0


def test_cond_eager():
    x = paddle.to_tensor([1.0, 2.0])
    assert static.nn.cond(paddle.to_tensor(True), lambda: x * 2, lambda: x).numpy().tolist() \
        == [2.0, 4.0]
    assert static.nn.cond(False, lambda: 1, lambda: 2) == 2
    assert static.nn.cond(paddle.to_tensor([0]) > 0, lambda: 1) is None
    with pytest.raises(ValueError, match="one element"):
        static.nn.cond(paddle.to_tensor([True, False]), lambda: 1, lambda: 2)


# ----------------------------------------------------------------- while_loop
def test_while_loop_trip_count_from_a_feed():
    with building() as (main, startup):
        n = static.data("n", [1], "int64")
        x = static.data("x", [2], "float32")
        i = paddle.full([1], 0, "int64")
        acc = paddle.zeros([2], "float32")

        def body(i, acc):
            return i + 1, acc * 0.5 + x * paddle.cast(i, "float32")
        i_out, acc_out = static.nn.while_loop(lambda i, acc: i < n, body, [i, acc])
    w = main.global_block().ops[-1]
    assert w.type == "while" and w.input("Condition")
    sub = main.block(w.attr("sub_block"))
    assert op_types(sub)[-3:] == ["assign", "assign", "assign"]
    assert set(w.output("Out")) == {i.name, acc.name, w.input("Condition")[0]}
    assert "n" in w.input("X") and "x" in w.input("X")
    xv = np.array([1.0, -2.0], "float32")
    for k in (0, 1, 4, 7):
        got_i, got_acc = run(main, startup, {"n": np.array([k], "int64"), "x": xv},
                             [i_out, acc_out])
        want = np.zeros(2, "float32")
        for j in range(k):
            want = want * 0.5 + xv * j
        assert got_i.tolist() == [k]
        np.testing.assert_allclose(got_acc, want, rtol=1e-6)


def test_cond_nested_in_while():
    """Collatz steps: a data-dependent loop with a cond in its body."""
    with building() as (main, startup):
        start = static.data("start", [1], "int64")
        steps = paddle.zeros([1], "int64")

        def body(v, s):
            nv = static.nn.cond(paddle.sum(v % 2) == 0, lambda: v // 2, lambda: v * 3 + 1)
            return nv, s + 1
        v_out, s_out = static.nn.while_loop(lambda v, s: paddle.sum(v) != 1, body,
                                            [paddle.assign(start), steps])
    for s0 in (1, 6, 7, 27):
        v, s = run(main, startup, {"start": np.array([s0], "int64")}, [v_out, s_out])
        k, c = s0, 0
        while k != 1:
            k, c = (k // 2 if k % 2 == 0 else 3 * k + 1), c + 1
        assert v.tolist() == [1] and s.tolist() == [c]


def test_while_inside_cond_and_parameters_in_the_body():
    with building() as (main, startup):
        x = static.data("x", [1, 3], "float32")
        lin = paddle.nn.Linear(3, 3)

        def loop():
            i = paddle.zeros([1], "int64")
            _, h = static.nn.while_loop(lambda i, h: i < 3,
                                        lambda i, h: (i + 1, paddle.tanh(lin(h))), [i, x])
            return h
        out = static.nn.cond(paddle.sum(x) > 0, loop, lambda: x)
    xv = np.array([[0.5, -0.1, 0.3]], "float32")
    got, w, b = run(main, startup, {"x": xv}, [out, lin.weight, lin.bias])
    h = xv
    for _ in range(3):
        h = np.tanh(h @ w + b)
    np.testing.assert_allclose(got, h, rtol=1e-5)
    got, = run(main, startup, {"x": -xv}, [out])
    np.testing.assert_allclose(got, -xv)


def test_while_loop_errors():
    with building():
        i = paddle.zeros([1], "int64")
        x = paddle.zeros([1], "float32")
        with pytest.raises(ValueError) as e:
            static.nn.while_loop(lambda i, x: i < 3, lambda i, x: i + 1, [i, x])
        assert "body returns 1 value(s)" in str(e.value) and "loop_vars has 2" in str(e.value)
        with pytest.raises(TypeError, match="callable"):
            static.nn.while_loop(None, lambda i: i, [i])
        with pytest.raises(ValueError, match="empty"):
            static.nn.while_loop(lambda: i < 1, lambda: [], [])
        with pytest.raises(TypeError, match="bool"):
            static.nn.while_loop(lambda i: i, lambda i: i, [i])
        assert static.default_main_program().current_block_idx == 0


def test_while_loop_eager():
    i, s = static.nn.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i),
                                [paddle.to_tensor(0), paddle.to_tensor(0)])
    assert int(i) == 4 and int(s) == 6
    with pytest.raises(ValueError, match="same arity"):
        static.nn.while_loop(lambda i, s: i < 4, lambda i, s: i + 1,
                             [paddle.to_tensor(0), paddle.to_tensor(0)])


def test_errors_inside_a_sub_block_name_the_op():
    with building() as (main, startup):
        x = static.data("x", [2], "float32")
        i = paddle.zeros([1], "int64")
        arr = paddle.create_array("float32")

        def body(i, s):
            # the array is empty: out of range (the value is used: a read nobody
            # uses is not planned, executor/prune.py)
            return i + 1, s + paddle.array_read(arr, i)
        static.nn.while_loop(lambda i, s: i < 2, body, [i, paddle.zeros([1])])
    with pytest.raises(ExecutionError, match="read_from_array"):
        Executor().run(main, feed={"x": np.zeros(2, "float32")}, scope=static.Scope())


# ----------------------------------------------------------------- switch_case / case
@pytest.mark.parametrize("fns,default,expect", [
    ("list", None, {0: 10, 1: 11, 2: 12, 5: 12}),
    ("dict", "d", {1: 11, 3: 13, 0: 99, 7: 99}),
    ("pairs", None, {1: 11, 3: 13, 0: 13}),
])
def test_switch_case(fns, default, expect):
    def const(v):
        return lambda: paddle.full([1], v, "int64")
    table = {"list": [const(10), const(11), const(12)],
             "dict": {1: const(11), 3: const(13)},
             "pairs": [(3, const(13)), (1, const(11))]}[fns]
    with building() as (main, startup):
        idx = static.data("idx", [1], "int32")
        out = static.nn.switch_case(idx, table, default=const(99) if default else None)
    for k, want in expect.items():
        got, = run(main, startup, {"idx": np.array([k], "int32")}, [out])
        assert got.tolist() == [want], (k, got)
    # eager: the same dispatch
    got = static.nn.switch_case(paddle.to_tensor([list(expect)[0]]), table,
                                default=const(99) if default else None)
    assert got.numpy().tolist() == [list(expect.values())[0]]


def test_case_first_true_pred_wins():
    with building() as (main, startup):
        x = static.data("x", [1], "float32")
        s = paddle.sum(x)
        out = static.nn.case([(s < 0, lambda: x * 0 - 1), (s < 10, lambda: x * 2)],
                             default=lambda: x)
        out2 = static.nn.case([(s < 0, lambda: x * 0 - 1), (s < 10, lambda: x * 2)])
    for xv, w1, w2 in ((-3.0, -1.0, -1.0), (4.0, 8.0, 8.0), (20.0, 20.0, 40.0)):
        a, b = run(main, startup, {"x": np.array([xv], "float32")}, [out, out2])
        assert a.tolist() == [w1] and b.tolist() == [w2]


def test_switch_case_and_case_argument_errors():
    with building():
        idx = static.data("idx", [1], "int64")
        f = static.data("f", [1], "float32")
        with pytest.raises(TypeError, match="uint8, int32 or int64"):
            static.nn.switch_case(f, [lambda: f])
        with pytest.raises(ValueError, match="unique"):
            static.nn.switch_case(idx, [(1, lambda: f), (1, lambda: f)])
        with pytest.raises(TypeError, match="2-tuple"):
            static.nn.case([(idx > 0, lambda: f, 1)])
        with pytest.raises(TypeError, match="bool"):
            static.nn.case([(f, lambda: f)])


# ----------------------------------------------------------------- tensor arrays
def test_arrays_written_in_a_loop_then_stacked():
    with building() as (main, startup):
        x = static.data("x", [2], "float32")
        n = static.data("n", [1], "int64")
        arr = paddle.create_array("float32")
        i = paddle.zeros([1], "int64")

        def body(i, h):
            h = h * 2
            paddle.array_write(h, i, arr)
            return i + 1, h
        static.nn.while_loop(lambda i, h: i < n, body, [i, x])
        length = paddle.array_length(arr)
        last = paddle.array_read(arr, length - 1)
        stacked, sizes = paddle.tensor_array_to_tensor(arr, axis=0, use_stack=True)
    assert arr.type == VarType.LOD_TENSOR_ARRAY
    xv = np.array([1.0, 3.0], "float32")
    ln, la, st, sz = run(main, startup, {"x": xv, "n": np.array([3], "int64")},
                         [length, last, stacked, sizes])
    assert ln.tolist() == [3] and sz.tolist() == [1, 1, 1]
    np.testing.assert_allclose(la, xv * 8)
    np.testing.assert_allclose(st, np.stack([xv * 2, xv * 4, xv * 8]))


def test_arrays_static_ops_and_initialized_list():
    with building() as (main, startup):
        a = static.data("a", [2], "float32")
        b = static.data("b", [2], "float32")
        arr = paddle.create_array("float32", [a, b])
        empty = paddle.create_array("float32")
        n0 = paddle.array_length(empty)
        paddle.array_write(a * 10, paddle.full([1], 1, "int64"), arr)   # overwrite
        r1 = paddle.array_read(arr, paddle.full([1], 1, "int64"))
        n = paddle.array_length(arr)
        cat, idx = paddle.tensor_array_to_tensor(arr, axis=0)
    types = op_types(main.global_block())
    assert "write_to_array" in types and "read_from_array" in types
    assert "lod_array_length" in types
    assert arr.name.startswith("array_") and arr.shape == (2,)
    av, bv = np.array([1, 2], "float32"), np.array([3, 4], "float32")
    got = run(main, startup, {"a": av, "b": bv}, [n0, r1, n, cat, idx])
    assert got[0].tolist() == [0] and got[2].tolist() == [2]
    np.testing.assert_allclose(got[1], av * 10)
    np.testing.assert_allclose(got[3], np.concatenate([av, av * 10]))
    assert got[4].tolist() == [2, 2]


def test_arrays_eager_are_lists():
    arr = paddle.create_array("float32")
    assert arr == []
    x = paddle.to_tensor([1.0])
    arr = paddle.array_write(x, paddle.to_tensor([0]), arr)
    paddle.array_write(x * 2, paddle.to_tensor([1]), arr)
    paddle.array_write(x * 3, paddle.to_tensor([0]), arr)
    assert paddle.array_length(arr) == 2
    assert paddle.array_read(arr, paddle.to_tensor([0])).numpy().tolist() == [3.0]
    with pytest.raises(IndexError):
        paddle.array_write(x, paddle.to_tensor([5]), arr)
    out, sizes = paddle.tensor_array_to_tensor(arr, axis=0)
    assert out.numpy().tolist() == [3.0, 2.0] and sizes.numpy().tolist() == [1, 1]
    assert paddle.array_write(x, paddle.to_tensor([0])) == [x]


# ----------------------------------------------------------------- Print
def test_print_in_a_loop(capsys):
    with building() as (main, startup):
        x = static.data("x", [2], "float32")
        i = paddle.zeros([1], "int64")

        def body(i, h):
            h = static.Print(h * 2, message="step", summarize=1)
            return i + 1, h
        _, h = static.nn.while_loop(lambda i, h: i < 3, body, [i, x])
        p = static.Print(h, first_n=1, print_tensor_lod=False)
    op = main.global_block().ops[-1]
    assert op.type == "print" and op.attr("first_n") == 1 and op.attr("print_phase") == "BOTH"
    exe = Executor()
    scope = static.Scope()
    for _ in range(2):
        got, = exe.run(main, feed={"x": np.array([1.0, 2.0], "float32")}, fetch_list=[p],
                       scope=scope)
    np.testing.assert_allclose(got, [8.0, 16.0])
    text = capsys.readouterr().out
    assert text.count("  - message: step") == 6           # 3 iterations x 2 runs
    assert "  - data: [2]" in text and "  - data: [8]" in text
    assert text.count(f"Variable: {h.name}") == 1          # first_n=1
    assert "  - shape: [2]" in text and "  - dtype: float" in text
    assert "  - data: [8 16]" in text


# ----------------------------------------------------------------- planning
def test_sub_blocks_are_planned_once(monkeypatch):
    built = []
    orig = CF.SubBlock.__init__

    def counting(self, *a, **k):
        built.append(a[0].idx)
        orig(self, *a, **k)
    monkeypatch.setattr(CF.SubBlock, "__init__", counting)
    with building() as (main, startup):
        x = static.data("x", [1], "float32")
        i = paddle.zeros([1], "int64")
        _, y = static.nn.while_loop(
            lambda i, y: i < 4,
            lambda i, y: (i + 1, static.nn.cond(paddle.sum(y) > 2, lambda: y, lambda: y + 1)),
            [i, x])
    exe = Executor()
    scope = static.Scope()
    for v in (0.0, 5.0, 1.0):
        got, = exe.run(main, feed={"x": np.array([v], "float32")}, fetch_list=[y], scope=scope)
        assert got.tolist() == [max(v, min(v + 4, 3.0))]
    assert sorted(built) == [1, 2, 3]


def test_step_scopes_kept_when_read():
    """A reader of StepScopes (while_grad, later) gets one Scope per iteration with
    the iteration's inputs and locals; a cond's Scope holds its branch run."""
    with building() as (main, startup):
        x = static.data("x", [1], "float32")
        i = paddle.zeros([1], "int64")
        _, h = static.nn.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, h * 2), [i, x])
        w = main.global_block().ops[-1]
        steps_var = main.global_block().var(w.output("StepScopes")[0])
        keep = main.global_block().create_var(name="kept", type=steps_var.type)
        main.global_block().append_op("assign", inputs={"X": [steps_var]},
                                      outputs={"Out": [keep]})
    exe = Executor()
    interp = exe.prepare(main, {"x": 0}, ["kept", h.name], static.Scope())
    steps, hv = interp.run({"x": np.array([1.5], "float32")})
    assert hv.tolist() == [12.0] and len(steps) == 3
    starts = [s.find_var(x.name).get().tolist() for s in steps]
    assert starts == [[1.5], [3.0], [6.0]]                     # h at each iteration start
    assert [s.find_var(i.name).get().tolist() for s in steps] == [[0], [1], [2]]
    local = [n for n in steps[0].local_var_names() if n.startswith("tmp_")]
    assert local, "the body's own values are kept too"


# ----------------------------------------------------------------- increment
def test_increment_eager_is_in_place():
    d = paddle.zeros([1], "float32")
    out = paddle.increment(d)
    assert out is d and d.numpy().tolist() == [1.0]
    i = paddle.to_tensor(np.array(3, "int64"))
    i.increment(2.0)
    assert i.numpy().dtype == np.int64 and i.numpy().shape == () and int(i.numpy()) == 5
    with pytest.raises(Exception, match="increment: X must hold exactly one element"):
        paddle.increment(paddle.zeros([2]))


def test_increment_static_updates_its_variable_in_a_while_loop():
    with building() as (main, startup):
        n = static.data("n", [1], "int64")
        i = paddle.zeros([1], "int64")
        s = paddle.zeros([1], "float32")

        def body(i, s):
            s = s + paddle.cast(i, "float32")
            paddle.increment(i)                 # in place: the loop variable itself
            return i, s

        i2, s2 = static.nn.while_loop(lambda i, s: i < n, body, [i, s])
        k = paddle.full([], 5.0, "float64")
        k2 = paddle.increment(k, -0.5)
        with pytest.raises(Exception, match="increment: X must hold exactly one element"):
            paddle.increment(paddle.zeros([2]))
    assert k2 is k and i2 is i
    inc = [op for b in main.blocks for op in b.ops if op.type == "increment"]
    assert len(inc) == 2 and all(op.input("X") == op.output("Out") for op in inc)
    assert sorted(op.attr("step") for op in inc) == [-0.5, 1.0]
    got = run(main, startup, {"n": np.array([4], "int64")}, [i2, s2, k2])
    np.testing.assert_array_equal(got[0], [4])
    np.testing.assert_allclose(got[1], [6.0])
    assert got[2].shape == () and float(got[2]) == 4.5
