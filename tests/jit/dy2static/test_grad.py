"""``paddle.grad`` inside converted functions (Paddle's dy2static
test_grad.py behaviours): the backward is appended to the program, and the
results are eager's: values, which results stop gradients (create_graph),
gradients through them, allow_unused, grad_outputs, no_grad blocks; training
and jit.save/load of a layer that differentiates inside forward."""
import numpy as np
import pytest

import sampan as paddle

from .util import check

pytestmark = pytest.mark.filterwarnings("ignore:jit.save:UserWarning")

X = (np.arange(12, dtype="float32").reshape(3, 4) - 5.0) / 4.0


def grad_of_square(x):
    x.stop_gradient = False
    y = x * x
    return paddle.grad(outputs=[y], inputs=[x])[0]


def grad_create_graph(x):
    y = paddle.tanh(x) * x
    dx = paddle.grad(y, x, create_graph=True)[0]
    return dx * 2.0


def grad_not_create_graph(x):
    y = x * x * x
    dx = paddle.grad(y, x)[0]
    return dx * x, dx


def grad_two_inputs(x, w):
    y = paddle.matmul(x, w)
    dx, dw = paddle.grad([y.sum()], [x, w], create_graph=True)
    return dx + 1.0, dw


def grad_outputs_given(x):
    y = paddle.exp(x)
    g = paddle.ones_like(y) * 3.0
    return paddle.grad([y], [x], grad_outputs=[g], create_graph=True)[0]


def grad_allow_unused(x, w):
    y = x * 2.0
    dx, dw = paddle.grad([y], [x, w], allow_unused=True)
    return dx, dw is None


def grad_with_tensor_if(x):
    y = paddle.tanh(x)
    if x.sum() > 0:
        out = paddle.grad([y], [x], create_graph=True)[0]
    else:
        out = x * 2.0
    return out


def grad_in_loop(x):
    y = x
    for _ in range(3):
        y = paddle.sin(y)
    return paddle.grad(y, x, create_graph=True)[0]


@pytest.mark.parametrize("fn", [grad_of_square, grad_create_graph, grad_not_create_graph,
                                grad_outputs_given, grad_with_tensor_if, grad_in_loop])
def test_one_input(fn):
    check(fn, X, grad=(0,))
    check(fn, -X, grad=(0,))


def test_input_set_to_need_gradient_inside():
    check(grad_of_square, X)           # x.stop_gradient = False in the function


def test_nothing_to_differentiate_is_the_eager_error():
    # (Paddle's: the input does not appear in the backward graph)
    x = paddle.to_tensor(X)            # stop_gradient=True
    with pytest.raises(ValueError, match="not reachable"):
        grad_create_graph(x)
    with pytest.raises(ValueError, match="not reachable"):
        paddle.jit.to_static(grad_create_graph, full_graph=True)(x)


def grad_of_two_outputs_one_constant(x, w):
    return paddle.grad([x * x, w * 3.0], [x])[0]


def test_an_output_with_stop_gradient_contributes_nothing():
    x, w = paddle.to_tensor(X, stop_gradient=False), paddle.to_tensor(X)
    want = grad_of_two_outputs_one_constant(x, w).numpy()
    np.testing.assert_allclose(want, 2 * X, rtol=1e-6)
    got = paddle.jit.to_static(grad_of_two_outputs_one_constant, full_graph=True)(x, w)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_two_inputs():
    w = np.linspace(-1, 1, 8).astype("float32").reshape(4, 2)
    check(grad_two_inputs, X, w, grad=(0, 1))


def test_allow_unused():
    w = np.ones([3, 4], "float32")
    check(grad_allow_unused, X, w, grad=(0, 1))


def grad_unreachable(x, w):
    return paddle.grad([x * 2.0], [w])[0]


def test_unreachable_input_is_the_eager_error():
    x, w = paddle.to_tensor(X, stop_gradient=False), paddle.to_tensor(X, stop_gradient=False)
    with pytest.raises(ValueError, match="allow_unused"):
        grad_unreachable(x, w)
    with pytest.raises(ValueError, match="allow_unused"):
        paddle.jit.to_static(grad_unreachable, full_graph=True)(x, w)


def test_program_holds_the_grad_ops():
    sf = paddle.jit.to_static(grad_not_create_graph, full_graph=True)
    sf(paddle.to_tensor(X, stop_gradient=False))
    types = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "elementwise_mul_grad" in types


def test_non_tensor_input_is_a_clear_error():
    def f(x):
        return paddle.grad([x * 2.0], [3.0])[0]
    with pytest.raises(TypeError, match=r"inputs\[0\]"):
        paddle.jit.to_static(f, full_graph=True)(paddle.to_tensor(X))


# ----------------------------------------------------------------- layers
class GradLinear(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(4, 4, bias_attr=False)

    def forward(self, x):
        x.stop_gradient = False
        tmp = x + x
        for _ in range(3):
            tmp = self.linear(tmp)
        return paddle.grad([tmp], [x], None, create_graph=True, allow_unused=False)[0]


class NoGradLinear(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(4, 4)

    def forward(self, x):
        x.stop_gradient = False
        with paddle.no_grad():
            y = self.linear(x)
        return y + x


def _train(net, steps=4):
    opt = paddle.optimizer.SGD(0.05, parameters=net.parameters(),
                               grad_clip=paddle.nn.ClipGradByGlobalNorm(2.0))
    losses = []
    for _ in range(steps):
        out = net(paddle.to_tensor(X))
        loss = paddle.mean(paddle.abs(out - 1.0))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses, [p.numpy() for p in net.parameters()]


@pytest.mark.parametrize("cls", [GradLinear, NoGradLinear])
def test_training_matches_eager(cls):
    paddle.seed(7)
    eager = cls()
    paddle.seed(7)
    static = paddle.jit.to_static(cls(), full_graph=True)
    l1, p1 = _train(eager)
    l2, p2 = _train(static)
    np.testing.assert_allclose(l2, l1, rtol=1e-5, atol=1e-6)
    for a, b in zip(p1, p2):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls", [GradLinear, NoGradLinear])
def test_save_and_load(cls, tmp_path):
    net = paddle.jit.to_static(cls(), full_graph=True)
    path = str(tmp_path / "m")
    paddle.jit.save(net, path, input_spec=[paddle.static.InputSpec([3, 4], "float32")])
    loaded = paddle.jit.load(path)
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)


class Unused(paddle.nn.Layer):
    def forward(self, a, b):
        return a, b + 1


def test_output_that_is_an_input_keeps_its_gradient():
    net = paddle.jit.to_static(Unused(), full_graph=True)
    x = paddle.to_tensor([1.0], stop_gradient=False)
    y = paddle.to_tensor([2.0], stop_gradient=False)
    o1, o2 = net(x, y)
    (o1 + o2).backward()
    np.testing.assert_array_equal((o1 + o2).numpy(), [4.0])
    np.testing.assert_array_equal(x.grad.numpy(), [1.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0])


class NoGradNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(4, 2)

    def forward(self, x):
        with paddle.no_grad():
            return self.linear(x)


def test_no_grad_output_stops_gradient():
    net = paddle.jit.to_static(NoGradNet(), full_graph=True)
    x = paddle.to_tensor(X, stop_gradient=False)
    assert net(x).stop_gradient


def grad_returned_in_tensor_if(x):
    y = paddle.tanh(x)
    if x.numel() > 0:
        return paddle.grad([y], [x])[0]
    return paddle.ones_like(x, dtype="float32")


def test_grad_returned_in_a_tensor_if():
    sf = paddle.jit.to_static(grad_returned_in_tensor_if, full_graph=True)
    x = paddle.to_tensor(X, stop_gradient=False)
    np.testing.assert_allclose(sf(x).numpy(), grad_returned_in_tensor_if(x).numpy(),
                               rtol=1e-6)


def grad_of_intermediate(x):
    h = x * 2.0
    y = paddle.sin(h) * h
    dh = paddle.grad(y, h, create_graph=True)[0]
    return dh.sum() + y.sum()


def test_grad_with_respect_to_an_intermediate():
    check(grad_of_intermediate, X, grad=(0,))
