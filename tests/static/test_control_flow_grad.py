"""Gradients through control flow: ``static.nn.cond`` (conditional_block_grad,
select_output) and ``static.nn.while_loop`` (while_grad over the step scopes)
equal the eager tape's, for both branches of a tensor predicate and for trip
counts read from a fed tensor (zero included), nested, and with parameters."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F
from sampan import static
from sampan.utils import unique_name

RNG = np.random.default_rng(3)
W = np.array([0.5, -0.6, 0.7])


def _eager_grads(model, feeds, wrt):
    """Run ``model`` eagerly on ``feeds`` (tensors in ``wrt`` need grad)."""
    paddle.disable_static()
    ts = {k: paddle.to_tensor(v, stop_gradient=k not in wrt) for k, v in feeds.items()}
    loss = model(**ts)
    loss.backward()
    return float(loss.numpy()), [ts[k].grad.numpy() for k in wrt]


def _static(model, specs, wrt):
    """Build ``model`` on static.data of ``specs`` {name: (shape, dtype)}; the
    gradients of its loss w.r.t. ``wrt`` via static.gradients."""
    main = static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, static.Program()):
            vs = {}
            for k, (shape, dtype) in specs.items():
                vs[k] = static.data(k, shape, dtype)
                vs[k].stop_gradient = k not in wrt
            loss = model(**vs)
            grads = static.gradients(loss, [vs[k] for k in wrt])
    finally:
        paddle.disable_static()
    return main, loss, grads


def _check(model, specs, feeds_list, wrt):
    main, loss, grads = _static(model, specs, wrt)
    assert all(g is not None for g in grads)
    exe = static.Executor()
    for feeds in feeds_list:
        got = exe.run(main, feed=feeds, fetch_list=[loss] + grads)
        want_loss, want = _eager_grads(model, feeds, wrt)
        np.testing.assert_allclose(got[0], want_loss, rtol=1e-12)
        for g, w, k in zip(got[1:], want, wrt):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=f"d/d{k}")
    return main


def _cond_model(x, w):
    pred = paddle.sum(x) > 0
    out = static.nn.cond(pred, lambda: paddle.tanh(x * w), lambda: paddle.exp(x) + w)
    return paddle.sum(out * out)


def test_cond_both_branches():
    feeds = [{"x": np.array([1.0, 2.0, 3.0]), "w": W},
             {"x": np.array([-1.0, -2.0, 0.5]), "w": W}]
    main = _check(_cond_model, {"x": ([3], "float64"), "w": ([3], "float64")}, feeds,
                  ["x", "w"])
    types = [op.type for op in main.global_block().ops]
    assert types.count("conditional_block_grad") == 2 and "select_output" in types
    grad_blocks = [b for b in main.blocks if b.forward_block_idx >= 0]
    assert len(grad_blocks) == 2


def _loop_model(x, w, n):
    i = paddle.full([1], 0, "int64")

    def body(i, y, s):
        y = paddle.sin(y) * w + x
        return i + 1, y, s + paddle.sum(y * y)

    _, y, s = static.nn.while_loop(lambda i, y, s: i < n, body,
                                   [i, x * 1.0, paddle.full([], 0.0, "float64")])
    return paddle.sum(y * w) + s


@pytest.mark.parametrize("trips", [0, 1, 4])
def test_while_loop_trip_count_from_a_tensor(trips):
    feeds = [{"x": np.array([0.3, -0.2, 0.9]), "w": W, "n": np.array([trips], "int64")}]
    main = _check(_loop_model, {"x": ([3], "float64"), "w": ([3], "float64"),
                                "n": ([1], "int64")}, feeds, ["x", "w"])
    assert "while_grad" in [op.type for op in main.global_block().ops]


def test_while_loop_one_program_many_trip_counts():
    specs = {"x": ([3], "float64"), "w": ([3], "float64"), "n": ([1], "int64")}
    feeds = [{"x": RNG.standard_normal(3), "w": W, "n": np.array([k], "int64")}
             for k in (3, 0, 2, 5)]
    _check(_loop_model, specs, feeds, ["x", "w"])


def _nested_model(x, w, n):
    i = paddle.full([1], 0, "int64")

    def body(i, y):
        y = static.nn.cond(paddle.sum(y) > 0, lambda: y * w - 0.5, lambda: paddle.exp(y) * w)
        return i + 1, y

    _, y = static.nn.while_loop(lambda i, y: i < n, body, [i, x + 0.0])
    return paddle.sum(y * y)


def test_cond_inside_while_loop():
    specs = {"x": ([3], "float64"), "w": ([3], "float64"), "n": ([1], "int64")}
    feeds = [{"x": np.array([0.4, 0.5, 0.6]), "w": np.array([1.5, 1.2, 1.1]),
              "n": np.array([4], "int64")},
             {"x": np.array([-0.4, 0.1, -0.6]), "w": W, "n": np.array([3], "int64")}]
    _check(_nested_model, specs, feeds, ["x", "w"])


def _carried_model(x, n):
    # a loop variable (a) feeds another (b) but is unused after the loop
    i = paddle.full([1], 0, "int64")
    _, a, b = static.nn.while_loop(lambda i, a, b: i < n,
                                   lambda i, a, b: (i + 1, a * 1.5, b + a * a),
                                   [i, x * 1.0, x * 0.0])
    return paddle.sum(b)


def test_loop_variable_unused_after_the_loop():
    specs = {"x": ([3], "float64"), "n": ([1], "int64")}
    feeds = [{"x": np.array([0.3, -0.2, 0.9]), "n": np.array([3], "int64")}]
    _check(_carried_model, specs, feeds, ["x"])


class _Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self.out = paddle.nn.Linear(3, 1)

    def forward(self, x, n):
        h = self.fc(x)
        h = static.nn.cond(paddle.mean(h) > 0, lambda: F.relu(h), lambda: paddle.tanh(h) * 2.0)
        i = paddle.full([1], 0, "int64")
        _, h = static.nn.while_loop(lambda i, h: i < n,
                                    lambda i, h: (i + 1, paddle.tanh(self.fc(h))), [i, h])
        return paddle.mean(self.out(h))


def test_append_backward_parameters_through_cond_and_while():
    main, startup = static.Program(), static.Program()
    paddle.enable_static()
    try:
        with unique_name.guard(), static.program_guard(main, startup):
            net = _Net()
            x = static.data("x", [None, 3], "float32")
            n = static.data("n", [1], "int64")
            loss = net(x, n)
            pg = static.append_backward(loss)
    finally:
        paddle.disable_static()
    assert {p.name for p, _ in pg} == {"linear_0.w_0", "linear_0.b_0", "linear_1.w_0",
                                      "linear_1.b_0"}
    scope, exe = static.Scope(), static.Executor()
    exe.run(startup, scope=scope)
    state = {p.name: scope.find_var(p.name).get().copy() for p, _ in pg}
    with unique_name.guard():
        eager = _Net()
    for t in eager.parameters():
        t.set_value(state[t.name])
    for xs, trips in (((4, 3), 2), ((2, 3), 0), ((3, 3), 3)):
        xn = RNG.standard_normal(xs).astype("float32")
        nn_ = np.array([trips], "int64")
        got = exe.run(main, feed={"x": xn, "n": nn_}, fetch_list=[loss] + [g for _, g in pg],
                      scope=scope)
        eager.clear_gradients()
        el = eager(paddle.to_tensor(xn), paddle.to_tensor(nn_))
        el.backward()
        np.testing.assert_allclose(got[0], el.numpy(), rtol=1e-5)
        params = dict((t.name, t) for t in eager.parameters())
        for (p, _), g in zip(pg, got[1:]):
            np.testing.assert_allclose(g, params[p.name].grad.numpy(), rtol=1e-4, atol=1e-6,
                                       err_msg=p.name)


def _both(x, w, n):
    return _cond_model(x, w) + _loop_model(x, w, n)


def test_parsed_copy_and_threaded_runner_give_the_same_gradients():
    from sampan.executor import ExecutionConfig
    specs = {"x": ([3], "float64"), "w": ([3], "float64"), "n": ([1], "int64")}
    main, loss, grads = _static(_both, specs, ["x", "w"])
    feeds = {"x": np.array([0.3, -0.2, 0.9]), "w": W, "n": np.array([3], "int64")}
    names = [loss.name] + [g.name for g in grads]
    want = static.Executor().run(main, feed=feeds, fetch_list=names)
    parsed = static.Program.parse_from_string(main.desc.SerializeToString())
    for prog, cfg in ((parsed, None), (main, ExecutionConfig(runner="threaded"))):
        exe = static.Executor(config=cfg)
        got = exe.run(prog, feed=feeds, fetch_list=names)
        exe.close()
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
    _, eager = _eager_grads(_both, feeds, ["x", "w"])
    for a, b in zip(want[1:], eager):
        np.testing.assert_allclose(a, b, rtol=1e-10)


# ----------------------------------------------------------------- tensor arrays
# The same model code runs eagerly (create_array gives a Python list, while_loop
# and cond run Python) and builds a program (LOD_TENSOR_ARRAY variables).
from sampan.tensor import (create_array, array_write, array_read,  # noqa: E402
                           tensor_array_to_tensor)


def _zero():
    return paddle.full([1], 0, "int64")


def _array_in_loop_model(x, w, n):
    # each iteration writes a value computed (through a cond) from x and w;
    # after the loop the array is stacked and one element read back
    arr = create_array("float64")

    def body(i, y, arr):
        y = paddle.sin(y) * w + x
        v = static.nn.cond(paddle.sum(y) > 0, lambda: y * w, lambda: paddle.exp(y) - w)
        array_write(v * y, i, arr)
        return i + 1, y, arr

    _, y, arr = static.nn.while_loop(lambda i, y, a: i < n, body, [_zero(), x * 1.0, arr])
    out, _ = tensor_array_to_tensor(arr, axis=0, use_stack=True)
    first = array_read(arr, _zero())
    return paddle.sum(out * w) + paddle.sum(y) + paddle.sum(first * first)


def _array_read_across_iterations_model(x, w, n):
    # iteration k reads what iteration k-1 wrote (the array's gradient is
    # carried from one iteration to the one before), concat along axis 0
    arr = create_array("float64")
    array_write(x * 1.0, _zero(), arr)

    def body(i, arr):
        nxt = paddle.tanh(array_read(arr, i) * w) + x
        array_write(nxt, i + 1, arr)
        return i + 1, arr

    _, arr = static.nn.while_loop(lambda i, a: i < n, body, [_zero(), arr])
    out, _ = tensor_array_to_tensor(arr, axis=0)
    return paddle.sum(out * out)


def _array_written_in_a_branch_model(x, w, n):
    # the write happens inside either branch of a cond inside the loop
    arr = create_array("float64")
    array_write(x * 0.5, _zero(), arr)

    def body(i, y, arr):
        y = paddle.sin(y) * w + x

        def true_fn():
            array_write(y * y, i + 1, arr)
            return y * 1.0

        def false_fn():
            array_write(y * w, i + 1, arr)
            return y * 2.0

        y = static.nn.cond(paddle.sum(y) > 0, true_fn, false_fn)
        return i + 1, y, arr

    _, y, arr = static.nn.while_loop(lambda i, y, a: i < n, body, [_zero(), x * 1.0, arr])
    out, _ = tensor_array_to_tensor(arr, axis=0, use_stack=True)
    return paddle.sum(out * w) + paddle.sum(y)


def _array_unused_after_loop_model(x, w, n):
    # no gradient reaches the array: its seed is zeros (fill_zeros_like)
    arr = create_array("float64")

    def body(i, y, arr):
        y = paddle.sin(y) * w + x
        array_write(y, i, arr)
        return i + 1, y, arr

    _, y, arr = static.nn.while_loop(lambda i, y, a: i < n, body, [_zero(), x * 1.0, arr])
    return paddle.sum(y * y)


_ARRAY_FEEDS = [{"x": np.array([0.3, -0.2, 0.9]), "w": W, "n": np.array([3], "int64")},
                {"x": np.array([-0.3, -0.2, -0.9]), "w": W, "n": np.array([4], "int64")},
                {"x": np.array([0.3, 0.2, 0.1]), "w": W, "n": np.array([1], "int64")}]


@pytest.mark.parametrize("model", [_array_in_loop_model, _array_read_across_iterations_model,
                                   _array_written_in_a_branch_model,
                                   _array_unused_after_loop_model],
                         ids=["write_stack_read", "read_across_iterations",
                              "write_in_a_branch", "unused_after_loop"])
def test_gradients_through_tensor_arrays_in_a_while_loop(model):
    specs = {"x": ([3], "float64"), "w": ([3], "float64"), "n": ([1], "int64")}
    main = _check(model, specs, _ARRAY_FEEDS, ["x", "w"])
    types = [op.type for op in main.global_block().ops]
    assert "while_grad" in types


def test_array_gradients_parsed_copy_and_threaded_runner():
    from sampan.executor import ExecutionConfig
    specs = {"x": ([3], "float64"), "w": ([3], "float64"), "n": ([1], "int64")}
    main, loss, grads = _static(_array_written_in_a_branch_model, specs, ["x", "w"])
    names = [loss.name] + [g.name for g in grads]
    parsed = static.Program.parse_from_string(main.desc.SerializeToString())
    for feeds in _ARRAY_FEEDS:
        want = static.Executor().run(main, feed=feeds, fetch_list=names)
        for prog, cfg in ((parsed, None), (main, ExecutionConfig(runner="threaded"))):
            exe = static.Executor(config=cfg)
            got = exe.run(prog, feed=feeds, fetch_list=names)
            exe.close()
            for a, b in zip(got, want):
                np.testing.assert_array_equal(a, b)


def _concat_model(a, b, w):
    arr = create_array("float64")
    array_write(a * w, _zero(), arr)
    array_write(paddle.tanh(b), paddle.full([1], 1, "int64"), arr)
    out, sizes = tensor_array_to_tensor(arr, axis=1)
    return paddle.sum(out * out) + paddle.sum(paddle.cast(sizes, "float64"))


def _stack_model(a, b, w):
    arr = create_array("float64")
    array_write(a * w, _zero(), arr)
    array_write(paddle.exp(a) + b, paddle.full([1], 1, "int64"), arr)
    out, _ = tensor_array_to_tensor(arr, axis=-1, use_stack=True)
    return paddle.sum(out * paddle.arange(4, dtype="float64").reshape([2, 1, 2]))


def test_tensor_array_to_tensor_gradient():
    main = _check(_concat_model, {"a": ([2, 3], "float64"), "b": ([2, 2], "float64"),
                                  "w": ([2, 3], "float64")},
                  [{"a": RNG.standard_normal((2, 3)), "b": RNG.standard_normal((2, 2)),
                    "w": RNG.standard_normal((2, 3))}], ["a", "b", "w"])
    assert "tensor_array_to_tensor_grad" in [op.type for op in main.global_block().ops]
    _check(_stack_model, {"a": ([2, 2], "float64"), "b": ([2, 2], "float64"),
                          "w": ([2, 2], "float64")},
           [{"a": RNG.standard_normal((2, 2)), "b": RNG.standard_normal((2, 2)),
             "w": RNG.standard_normal((2, 2))}], ["a", "b", "w"])


def test_write_to_array_grad_gives_zeros_where_the_array_gradient_holds_nothing():
    from sampan.kernels.cpu.control_flow import read_from_array
    xw = np.ones((2, 3), "float32")
    i = np.array([2], "int64")
    for grad_array in ([], [None, None, None], None):
        out, = read_from_array([grad_array, i, xw], {}, None)
        assert out.shape == (2, 3) and out.dtype == np.float32 and not out.any()
    with pytest.raises(Exception, match="out of range"):
        read_from_array([[], i, None], {}, None)


def test_sum_of_tensor_arrays_adds_elementwise():
    from sampan.kernels.cpu.math import sum_
    a, b = np.array([1.0, 2.0]), np.array([10.0, 20.0])
    got, = sum_([[[a, None], [b, a, None], None]], {}, None)
    assert len(got) == 3 and got[2] is None
    np.testing.assert_array_equal(got[0], a + b)
    np.testing.assert_array_equal(got[1], a)
    got, = sum_([[None, a, b]], {}, None)            # a None tensor counts as zeros
    np.testing.assert_array_equal(got, a + b)
    got, = sum_([[a, b, a]], {}, None)               # the plain path
    np.testing.assert_array_equal(got, a + b + a)
