"""Static backward on hand-built programs: append_backward / gradients give the
eager tape's gradients (run by the Executor), with Paddle's naming (x@GRAD,
@RENAME@ + sum), op roles, pruning by stop_gradient / no_grad_set, seeds for
-1 batch dims, and clear errors."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F
from sampan import static
from sampan.ops import OpError
from sampan.utils import unique_name

RNG = np.random.default_rng(0)


@pytest.fixture
def prog():
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            yield main, startup
    finally:
        paddle.disable_static()


def _eager(fn, **arrays):
    """Run ``fn`` eagerly on tensors needing grad; (loss value, {name: grad})."""
    paddle.disable_static()
    try:
        ts = {k: paddle.to_tensor(v, stop_gradient=False) for k, v in arrays.items()}
        loss = fn(**ts)
        loss.backward()
        return loss.numpy(), {k: None if t.grad is None else t.grad.numpy()
                              for k, t in ts.items()}
    finally:
        paddle.enable_static()


def _types(program):
    return [op.type for op in program.global_block().ops]


def test_linear_mse_matches_eager(prog):
    main, startup = prog
    x = static.data("x", [None, 4], "float32")
    y = static.data("y", [None, 2], "float32")
    lin = paddle.nn.Linear(4, 2)
    loss = F.mse_loss(lin(x), y)
    n_fwd = len(main.global_block().ops)
    pg = static.append_backward(loss)
    assert [(p.name, g.name) for p, g in pg] == [
        ("linear_0.w_0", "linear_0.w_0@GRAD"), ("linear_0.b_0", "linear_0.b_0@GRAD")]
    ops = main.global_block().ops
    seed = ops[n_fwd]
    assert seed.type == "fill_constant" and seed.attr("op_role") == 257
    assert seed.output("Out") == [loss.name + "@GRAD"] and seed.attr("value") == 1.0
    assert _types(main)[n_fwd + 1:] == ["reduce_mean_grad", "square_grad",
                                        "elementwise_sub_grad", "elementwise_add_grad",
                                        "matmul_v2_grad"]
    assert all(op.attr("op_role") == 1 for op in ops[n_fwd + 1:])
    mm = ops[-1]
    assert mm.output("X@GRAD") == [] and mm.output("Y@GRAD") == ["linear_0.w_0@GRAD"]
    assert mm.attr("op_role_var") == ["linear_0.w_0", "linear_0.w_0@GRAD"]
    assert main.global_block().var("linear_0.w_0@GRAD").shape == (4, 2)

    scope = static.Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    w0, b0 = (scope.find_var(n).get().copy() for n in ("linear_0.w_0", "linear_0.b_0"))
    xn = RNG.standard_normal((5, 4)).astype("float32")
    yn = RNG.standard_normal((5, 2)).astype("float32")
    got = exe.run(main, feed={"x": xn, "y": yn}, fetch_list=[loss] + [g for _, g in pg],
                  scope=scope)
    want, grads = _eager(lambda w, b: F.mse_loss(paddle.matmul(paddle.to_tensor(xn), w) + b,
                                                 paddle.to_tensor(yn)), w=w0, b=b0)
    np.testing.assert_allclose(got[0], want, rtol=1e-6)
    np.testing.assert_allclose(got[1], grads["w"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got[2], grads["b"], rtol=1e-6, atol=1e-6)


def _data(name, a, grad=True):
    v = static.data(name, list(a.shape), a.dtype)
    v.stop_gradient = not grad
    return v


def test_variable_used_three_times_is_summed(prog):
    main, _ = prog
    xn = RNG.standard_normal((3, 2))

    def f(x):
        return paddle.sum(paddle.exp(x) * x + paddle.sin(x))

    x = _data("x", xn)
    loss = f(x)
    gx, = static.gradients(loss, x)
    assert gx.name == "x@GRAD"
    sums = [op for op in main.global_block().ops if op.type == "sum"]
    assert len(sums) == 1 and sums[0].output("Out") == ["x@GRAD"]
    parts = sums[0].input("X")
    assert len(parts) == 3 and all("x@GRAD@RENAME@block0@" in n for n in parts)
    got, = static.Executor().run(main, feed={"x": xn}, fetch_list=[gx])
    _, want = _eager(f, x=xn)
    np.testing.assert_allclose(got, want["x"], rtol=1e-12)


def test_stop_gradient_and_no_grad_set_prune(prog):
    main, _ = prog
    xn, an, bn = (RNG.standard_normal((2, 3)) for _ in range(3))
    x, a, b = _data("x", xn), _data("a", an), _data("b", bn)
    h = paddle.tanh(x * a)
    h2 = h * b
    h.stop_gradient = True             # the user cuts the graph at h
    loss = paddle.mean(h2 + x * b)
    gx, ga, gb = static.gradients(loss, [x, a, b], no_grad_set={"b"})
    assert gb is None
    assert ga is None                   # only reachable through h
    got, = static.Executor().run(main, feed={"x": xn, "a": an, "b": bn}, fetch_list=[gx])
    np.testing.assert_allclose(got, bn / xn.size, rtol=1e-12)
    # no_grad_set with a Variable, and a data input left stop_gradient=True
    c = static.data("c", [2, 3], "float64")
    loss2 = paddle.sum(c * a)
    gc, ga2 = static.gradients(loss2, [c, a], no_grad_set=[a])
    assert gc is None and ga2 is None


def test_append_backward_parameter_list_and_no_grad_set(prog):
    main, startup = prog
    x = static.data("x", [3, 4], "float32")
    l1, l2 = paddle.nn.Linear(4, 4), paddle.nn.Linear(4, 1)
    loss = paddle.mean(l2(F.relu(l1(x))))
    pg = static.append_backward(loss, parameter_list=[l2.weight.name, l1.weight],
                                no_grad_set={l1.bias.name})
    assert [p.name for p, _ in pg] == [l2.weight.name, l1.weight.name]
    gb = main.global_block()
    assert not gb.has_var(l1.bias.name + "@GRAD")
    assert gb.has_var(l2.bias.name + "@GRAD")      # computed, just not returned


def test_gradients_target_gradients_and_unreachable(prog):
    main, _ = prog
    xn = RNG.standard_normal((2, 3))
    vn = RNG.standard_normal((2, 3))
    x, z = _data("x", xn), _data("z", xn)
    v = static.data("v", [2, 3], "float64")
    y = paddle.square(x) * 3.0
    gx, gz = static.gradients([y], [x, z], target_gradients=[v])
    assert gz is None
    got, = static.Executor().run(main, feed={"x": xn, "z": xn, "v": vn}, fetch_list=[gx])
    np.testing.assert_allclose(got, 6 * xn * vn, rtol=1e-12)


def test_gradients_two_targets_sharing_a_path(prog):
    main, _ = prog
    xn = RNG.standard_normal((4,))
    x = _data("x", xn)
    y = paddle.sin(x)
    z = paddle.sum(y * y)
    gx, = static.gradients([y, z], [x])
    got, = static.Executor().run(main, feed={"x": xn}, fetch_list=[gx])
    np.testing.assert_allclose(got, np.cos(xn) + 2 * np.sin(xn) * np.cos(xn), rtol=1e-12)


def test_batch_dim_minus_one_seed(prog):
    main, startup = prog
    x = static.data("x", [None, 3], "float32")
    x.stop_gradient = False
    lin = paddle.nn.Linear(3, 2)
    y = F.sigmoid(lin(x))
    gx, gw = static.gradients(y, [x, lin.weight])
    assert gx.shape == (-1, 3) and gw.shape == (3, 2)
    assert "shape" in _types(main)
    scope = static.Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    w0, b0 = (scope.find_var(p.name).get().copy() for p in (lin.weight, lin.bias))
    for batch in (5, 2):
        xn = RNG.standard_normal((batch, 3)).astype("float32")
        got = exe.run(main, feed={"x": xn}, fetch_list=[gx, gw], scope=scope)
        _, want = _eager(lambda x, w: paddle.sum(F.sigmoid(paddle.matmul(x, w) +
                                                           paddle.to_tensor(b0))), x=xn, w=w0)
        np.testing.assert_allclose(got[0], want["x"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[1], want["w"], rtol=1e-5, atol=1e-6)


def test_unused_output_of_multi_output_op_gets_zero_grad(prog):
    main, _ = prog
    xn = RNG.standard_normal((4, 3))
    x = _data("x", xn)
    a, b = paddle.split(x, 2, axis=0)
    loss = paddle.sum(a * a)
    gx, = static.gradients(loss, x)
    assert "fill_any_like" in _types(main)
    got, = static.Executor().run(main, feed={"x": xn}, fetch_list=[gx])
    want = np.zeros_like(xn)
    want[:2] = 2 * xn[:2]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_append_backward_twice_on_one_program(prog):
    main, startup = prog
    x = static.data("x", [2, 3], "float32")
    lin = paddle.nn.Linear(3, 3)
    h = lin(x)
    loss1, loss2 = paddle.mean(h), paddle.sum(h * h)
    pg1 = static.append_backward(loss1)
    pg2 = static.append_backward(loss2)
    names1 = [g.name for _, g in pg1]
    names2 = [g.name for _, g in pg2]
    assert names1 == ["linear_0.w_0@GRAD", "linear_0.b_0@GRAD"]
    assert not set(names1) & set(names2)
    scope = static.Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    w0, b0 = (scope.find_var(p.name).get().copy() for p in (lin.weight, lin.bias))
    xn = RNG.standard_normal((2, 3)).astype("float32")
    got = exe.run(main, feed={"x": xn}, fetch_list=names1 + names2, scope=scope)
    # (to_tensor in static mode makes a Variable, as Paddle's: build xt eagerly)
    _, g1 = _eager(lambda w, b: paddle.mean(paddle.matmul(paddle.to_tensor(xn), w) + b),
                   w=w0, b=b0)
    _, g2 = _eager(lambda w, b: paddle.sum((paddle.matmul(paddle.to_tensor(xn), w) + b) ** 2),
                   w=w0, b=b0)
    for a, e in zip(got, [g1["w"], g1["b"], g2["w"], g2["b"]]):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)


def test_callbacks_roles_and_clone_for_test(prog):
    main, _ = prog
    x = static.data("x", [2, 2], "float32")
    x.stop_gradient = False
    loss = paddle.mean(paddle.exp(x))
    seen = []
    static.append_backward(loss, callbacks=[lambda block, context: seen.append(
        context["__current_op_desc__"].type)])
    assert seen == ["reduce_mean_grad", "exp_grad"]      # the loss seed is not a grad op
    test = main.clone(for_test=True)
    assert _types(test) == ["exp", "reduce_mean"]


def test_errors(prog):
    main, _ = prog
    x = static.data("x", [2, 3], "float32")
    x.stop_gradient = False
    with pytest.raises(OpError, match="shape"):
        static.append_backward(paddle.exp(x))
    with pytest.raises(TypeError):
        static.gradients([x], ["x"])
    # an op without a gradient rule whose output is marked as needing one
    y = paddle.nn.clip.clip_by_norm(x, 1.0)
    y.stop_gradient = False
    with pytest.raises(OpError, match="clip_by_norm"):
        static.gradients(paddle.sum(y), x)


def test_gradient_of_intermediate_and_late_stop_gradient_flip(prog):
    main, _ = prog
    xn = RNG.standard_normal((3,))
    x = static.data("x", [3], "float64")     # stop_gradient=True while building
    h = x * 2.0
    y = paddle.sum(paddle.exp(h))
    gh, = static.gradients(y, h)
    x.stop_gradient = False                  # marked after the ops were built
    gx, = static.gradients(y, x)
    got = static.Executor().run(main, feed={"x": xn}, fetch_list=[gh, gx])
    np.testing.assert_allclose(got[0], np.exp(2 * xn), rtol=1e-12)
    np.testing.assert_allclose(got[1], 2 * np.exp(2 * xn), rtol=1e-12)


def test_third_order_through_triple_grad_ops(prog):
    main, _ = prog
    xn = np.array([0.3, -0.2, 0.9])
    wn = RNG.standard_normal((3, 2))

    def f(x, w):
        return paddle.sum(paddle.tanh(paddle.matmul(x, w))) * paddle.sum(paddle.sin(x))

    x, w = _data("x", xn), _data("w", wn, grad=False)
    g, = static.gradients(f(x, w), x)
    gg, = static.gradients(paddle.sum(paddle.tanh(g)), x)
    ggg, = static.gradients(paddle.sum(gg * gg), x)
    types = {op.type for op in main.global_block().ops}
    assert {"tanh_triple_grad", "sin_triple_grad", "matmul_v2_triple_grad",
            "elementwise_mul_triple_grad"} <= types
    got = static.Executor().run(main, feed={"x": xn, "w": wn}, fetch_list=[ggg])[0]
    paddle.disable_static()
    try:
        xt = paddle.to_tensor(xn, stop_gradient=False)
        wt = paddle.to_tensor(wn)
        e, = paddle.grad(f(xt, wt), xt, create_graph=True)
        ee, = paddle.grad(paddle.sum(paddle.tanh(e)), xt, create_graph=True)
        eee, = paddle.grad(paddle.sum(ee * ee), xt)
    finally:
        paddle.enable_static()
    np.testing.assert_allclose(got, eee.numpy(), rtol=1e-10)


def test_second_order_through_grad_ops(prog):
    main, _ = prog
    xn = np.array([0.3, -0.2, 0.9])

    def f(x):
        return paddle.sum(paddle.tanh(x) * x * x)

    x = _data("x", xn)
    gx, = static.gradients(f(x), x)
    ggx, = static.gradients(paddle.sum(gx * gx), x)
    got = static.Executor().run(main, feed={"x": xn}, fetch_list=[gx, ggx])
    paddle.disable_static()
    try:
        xt = paddle.to_tensor(xn, stop_gradient=False)
        g, = paddle.grad(f(xt), xt, create_graph=True)
        gg, = paddle.grad(paddle.sum(g * g), xt)
    finally:
        paddle.enable_static()
    np.testing.assert_allclose(got[0], g.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[1], gg.numpy(), rtol=1e-10)
