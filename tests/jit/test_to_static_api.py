"""The to_static surface: decorator forms, functions, bound methods and
Layers, StaticFunction's attributes, enable_to_static, rollback, nested
static functions, result structures."""
import numpy as np
import pytest

import sampan as paddle
from sampan.jit import StaticFunction
from sampan.static import InputSpec


def _t(a, stop_gradient=True):
    return paddle.to_tensor(np.asarray(a, "float32"), stop_gradient=stop_gradient)


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-6)


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(3, 2)

    def forward(self, x):
        return paddle.nn.functional.relu(self.lin(x))

    def double(self, x):
        return self.lin(x) * 2.0


def test_bare_decorator():
    @paddle.jit.to_static
    def f(x, y):
        return x * y + 1.0

    assert isinstance(f, StaticFunction)
    _close(f(_t([1, 2]), _t([3, 4])), [4, 9])
    assert f.__name__ == "f"


def test_decorator_with_arguments():
    @paddle.jit.to_static(input_spec=[InputSpec([None], "float32", "a")], full_graph=True,
                          build_strategy=None, backend=None)
    def f(a):
        return a - 1.0

    _close(f(_t([1, 2, 3])), [0, 1, 2])
    assert [v.name for v in f.concrete_program.inputs] == ["a"]


def test_call_on_function_and_unknown_keyword():
    def g(x):
        return paddle.exp(x)

    sg = paddle.jit.to_static(g)
    _close(sg(_t([0.0, 1.0])), np.exp([0.0, 1.0]))
    with pytest.raises(TypeError, match="unexpected keyword"):
        paddle.jit.to_static(g, bogus=1)


def test_layer_forward_is_replaced():
    net = Net()
    x = _t(np.random.rand(4, 3))
    ref = net(x).numpy()
    same = paddle.jit.to_static(net)
    assert same is net
    assert isinstance(net.forward, StaticFunction)
    _close(net(x), ref)
    assert net.forward.get_traced_count() == 1


def test_bound_method():
    net = Net()
    x = _t(np.random.rand(2, 3))
    sd = paddle.jit.to_static(net.double)
    _close(sd(x), net.double(x).numpy())
    assert sd.dygraph_function.__self__ is net


def test_layer_hooks_still_run():
    net = paddle.jit.to_static(Net())
    seen = []
    net.register_forward_post_hook(lambda layer, inp, out: seen.append(out.shape))
    net(_t(np.ones((2, 3))))
    assert seen == [[2, 2]]


def test_enable_to_static_false_runs_eagerly():
    calls = []

    @paddle.jit.to_static
    def f(x):
        calls.append(type(x).__name__)
        return x + 1.0

    try:
        paddle.jit.enable_to_static(False)
        _close(f(_t([1.0])), [2.0])
        assert calls == ["Tensor"]
        assert f.get_traced_count() == 0
    finally:
        paddle.jit.enable_to_static(True)
    f(_t([1.0]))
    assert calls[-1] == "Variable" and f.get_traced_count() == 1
    with pytest.raises(TypeError):
        paddle.jit.enable_to_static(1)


def test_concrete_program_and_get_concrete_program():
    @paddle.jit.to_static
    def f(x):
        return paddle.tanh(x)

    with pytest.raises(ValueError, match="no program has been traced"):
        f.concrete_program
    cp, pp = f.get_concrete_program(InputSpec([None, 2], "float32", "inp"))
    assert [v.name for v in cp.inputs] == ["inp"]
    assert cp.inputs[0].shape == (-1, 2)
    assert [op.type for op in cp.main_program.global_block().ops] == ["tanh"]
    assert f.concrete_program is cp
    assert f.get_traced_count() == 1
    # an InputSpec traced program serves tensors of the same signature? no: a
    # call without input_spec keys by the concrete shape
    f(_t(np.ones((3, 2))))
    assert f.get_traced_count() == 2
    cp2, _ = f.get_concrete_program(_t(np.ones((3, 2))))
    assert cp2 is f.program_cache.last.concrete_program


def test_concrete_program_from_input_spec():
    net = paddle.jit.to_static(Net(), input_spec=[InputSpec([None, 3], "float32", "x")])
    cp = net.forward.concrete_program
    assert cp.inputs[0].shape == (-1, 3)
    assert {p.name for p in cp.parameters} == {net.lin.weight.name, net.lin.bias.name}
    assert net.forward.get_traced_count() == 1
    net(_t(np.ones((5, 3))))
    assert net.forward.get_traced_count() == 1


def test_code_and_dygraph_function():
    def f(x):
        return x + 1.0

    sf = paddle.jit.to_static(f)
    assert "def f" in sf.code
    assert sf.dygraph_function is f


def test_rollback():
    net = Net()
    paddle.jit.to_static(net)
    x = _t(np.ones((1, 3)))
    net(x)
    fn = net.forward.rollback()
    assert not isinstance(net.forward, StaticFunction)
    _close(net(x), fn(x).numpy())

    class M(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.lin = paddle.nn.Linear(3, 3)

        @paddle.jit.to_static
        def forward(self, x):
            return self.lin(x)

    m = M()
    m.forward.rollback()
    assert not isinstance(m.forward, StaticFunction)
    _close(m(x), m.lin(x).numpy())


def test_nested_static_functions_inline():
    @paddle.jit.to_static
    def inner(x):
        return x * 3.0

    @paddle.jit.to_static
    def outer(x):
        return inner(x) + 1.0

    _close(outer(_t([1.0, 2.0])), [4.0, 7.0])
    types = [op.type for op in outer.concrete_program.main_program.global_block().ops]
    assert len(types) == 2
    assert inner.get_traced_count() == 0


def test_result_structures_and_python_values():
    @paddle.jit.to_static
    def f(x):
        return {"a": x + 1.0, "b": (x * 2.0, 3, "tag")}, None

    out, none = f(_t([1.0]))
    assert none is None
    _close(out["a"], [2.0])
    _close(out["b"][0], [2.0])
    assert out["b"][1:] == (3, "tag")


def test_returning_an_input_and_a_parameter():
    net = Net()

    @paddle.jit.to_static
    def f(x):
        return x, net.lin.bias

    x = _t([1.0, 2.0])
    a, b = f(x)
    _close(a, [1.0, 2.0])
    _close(b, net.lin.bias.numpy())


def test_numpy_argument_is_fed():
    @paddle.jit.to_static
    def f(x):
        return x * 2.0

    _close(f(np.ones(3, "float32")), [2, 2, 2])
    _close(f(np.full(3, 2, "float32")), [4, 4, 4])
    assert f.get_traced_count() == 1


def test_same_tensor_passed_twice():
    @paddle.jit.to_static
    def f(a, b):
        return (a * b).sum()

    x = _t([1.0, 2.0, 3.0], stop_gradient=False)
    f(x, x).backward()
    _close(x.grad, [2.0, 4.0, 6.0])


def test_static_mode_call_appends_to_the_program():
    @paddle.jit.to_static
    def f(x):
        return x + 1.0

    main = paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [2], "float32")
            y = f(x)
    finally:
        paddle.disable_static()
    exe = paddle.static.Executor()
    (r,) = exe.run(main, feed={"x": np.array([1, 2], "float32")}, fetch_list=[y])
    _close(r, [2, 3])


def test_tensor_array_output_is_a_list():
    @paddle.jit.to_static
    def f(x):
        arr = paddle.tensor.create_array("float32")
        paddle.tensor.array_write(x, paddle.zeros([1], "int64"), arr)
        paddle.tensor.array_write(x * 2.0, paddle.ones([1], "int64"), arr)
        return arr, x + 1.0

    arr, y = f(_t([1.0, 2.0]))
    assert isinstance(arr, list) and len(arr) == 2
    _close(arr[1], [2.0, 4.0])
    _close(y, [2.0, 3.0])


def test_decorated_sublayer_inside_decorated_layer():
    class Sub(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.lin = paddle.nn.Linear(3, 3)

        @paddle.jit.to_static
        def forward(self, x):
            return paddle.tanh(self.lin(x))

    class Top(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.sub = Sub()
            self.lin = paddle.nn.Linear(3, 1)

        @paddle.jit.to_static
        def forward(self, x):
            return self.lin(self.sub(x))

    m = Top()
    x = _t(np.ones((2, 3)))
    m(x).sum().backward()
    ops = [op.type for op in m.forward.concrete_program.main_program.global_block().ops]
    assert ops == ["matmul_v2", "elementwise_add", "tanh", "matmul_v2", "elementwise_add"]
    assert m.sub.forward.get_traced_count() == 0
    assert m.sub.lin.weight.grad is not None


def _signed_step(x):
    if x.mean() > 0:
        return x + 1
    return x - 1


def test_a_lambda_is_converted_with_the_functions_it_calls():
    # to_static(lambda x: h(x)) with a tensor `if` in h: h is converted through the lambda
    up, down = paddle.jit.to_static(lambda x: _signed_step(x) * 2), \
        paddle.jit.to_static(lambda x: _signed_step(-x))      # same parameters, one line
    one = paddle.ones([2])
    np.testing.assert_allclose(up(one).numpy(), [4.0, 4.0])
    np.testing.assert_allclose(up(-one).numpy(), [-4.0, -4.0])
    np.testing.assert_allclose(down(one).numpy(), [-2.0, -2.0])
    assert up.get_traced_count() == 1
    keyword = paddle.jit.to_static(lambda x, *rest, k=1, **kw: _signed_step(x) + k)
    np.testing.assert_allclose(keyword(one, k=3).numpy(), [5.0, 5.0])
