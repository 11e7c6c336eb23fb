"""The dead-op pass (executor/prune.py): an op nobody can observe is not
planned, the Program keeps it, and every fetched number stays the same."""
import contextlib
import io

import numpy as np

import sampan as paddle
from sampan import static
from sampan.executor import Executor
from sampan.utils import unique_name


@contextlib.contextmanager
def building():
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            yield main, startup
    finally:
        paddle.disable_static()


def _plan(main, feed, fetch):
    return Executor().prepare(main, feed, fetch, static.Scope()).plan


def _types(plan):
    return [ins.op.type for ins in plan.instrs]


X = np.array([0.5, -1.0, 2.0], "float32")


def test_an_unread_chain_is_not_planned_but_stays_in_the_program():
    with building() as (main, _):
        x = static.data("x", [3], "float32")
        a = paddle.exp(x * 3.0)                 # read by nothing: scale, exp are dead
        paddle.tanh(a)
        out = x + 1.0
    types = [op.type for op in main.global_block().ops]
    assert types.count("exp") == 1 and types.count("tanh") == 1
    plan = _plan(main, {"x": X}, [out])
    assert "exp" not in _types(plan) and "tanh" not in _types(plan)
    assert sorted(op.type for op in plan.dropped) == ["exp", "scale", "tanh"]
    assert [ins.idx for ins in plan.instrs] == list(range(len(plan.instrs)))
    got, = Executor().run(main, feed={"x": X}, fetch_list=[out], scope=static.Scope())
    np.testing.assert_array_equal(got, X + 1.0)
    # fetching the end of the chain plans it again
    plan = _plan(main, {"x": X}, [out, a])
    assert "exp" in _types(plan) and "scale" in _types(plan) and "tanh" not in _types(plan)


def test_side_effects_random_draws_persistables_and_in_place_updates_stay():
    with building() as (main, startup):
        x = static.data("x", [3], "float32")
        static.Print(x, message="seen")                     # side effect
        paddle.rand([2])                                    # moves the generator
        g = main.global_block().create_var(name="g", shape=[3], dtype="float32",
                                           persistable=True)
        main.global_block().append_op(type="assign", inputs={"X": [x * 2.0]},
                                      outputs={"Out": [g]})      # writes a persistable
        i = paddle.zeros([1], "int64")
        paddle.increment(i)                                 # writes its own input
        out = x + 1.0
    scope = static.Scope()
    exe = Executor()
    plan = exe.prepare(main, {"x": X}, [out], scope).plan
    kept = _types(plan)
    for t in ("print", "uniform_random", "assign", "increment"):
        assert t in kept, t
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exe.run(main, feed={"x": X}, fetch_list=[out], scope=scope)
    assert "seen" in buf.getvalue()
    np.testing.assert_array_equal(scope.find_var("g").get(), X * 2.0)


def test_a_loop_body_keeps_what_the_next_iteration_reads():
    with building() as (main, _):
        x = static.data("x", [3], "float32")
        i = paddle.zeros([1], "int64")
        s = paddle.zeros([3])

        def body(i, s):
            paddle.exp(s)                           # dead inside the body
            return i + 1, s + x
        i, s = static.nn.while_loop(lambda i, s: i < 3, body, [i, s])
    interp = Executor().prepare(main, {"x": X}, [s], static.Scope())
    loop = next(ins for ins in interp.plan.instrs if ins.op.type == "while")
    sub, = loop.fn.sub_blocks
    assert "exp" not in _types(sub.plan)
    assert [op.type for op in sub.plan.dropped] == ["exp"]
    got, = Executor().run(main, feed={"x": X}, fetch_list=[s], scope=static.Scope())
    np.testing.assert_allclose(got, 3 * X)


def test_to_static_while_plans_no_condition_probe():
    """The loop's condition is first computed in the live block to decide that
    the loop is a tensor loop (Paddle 2.6.2's program keeps those ops too);
    nothing reads it, so the forward plan does not run it."""
    @paddle.jit.to_static(full_graph=True)
    def f(x, n):
        i = paddle.zeros([1], dtype="int64")
        y = x
        while i < n:
            y = paddle.tanh(y) + 1.0
            i = i + 1
        return y

    x = paddle.to_tensor(X)
    n = paddle.to_tensor([3], dtype="int64")
    got = f(x, n)
    want = X
    for _ in range(3):
        want = np.tanh(want) + 1.0
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    concrete, partial = next(iter(f.program_cache.values()))
    program_types = [op.type for op in concrete.main_program.global_block().ops]
    assert program_types.count("less_than") == 2          # the probe, then the loop's own
    fwd = partial._forward
    plan = fwd.plan if hasattr(fwd, "plan") else fwd.interp.plan
    assert _types(plan).count("less_than") == 1
    assert [op.type for op in plan.dropped] == ["less_than"]
    # each planned op is read by a later one or fetched
    read = {r for ins in plan.instrs for r in ins.reads} | set(plan.fetch_idx)
    assert all(any(w in read for w in ins.writes) for ins in plan.instrs)


def test_training_through_a_loop_is_unchanged():
    @paddle.jit.to_static(full_graph=True)
    def f(x):
        i = paddle.zeros([1], dtype="int64")
        y = x
        while i < 2:
            y = y * x
            i = i + 1
        return y.sum()

    x = paddle.to_tensor(X, stop_gradient=False)
    loss = f(x)
    loss.backward()
    np.testing.assert_allclose(loss.numpy(), np.sum(X ** 3), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), 3 * X ** 2, rtol=1e-6)
