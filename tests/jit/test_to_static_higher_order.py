"""Higher-order gradients through to_static calls (jit/partial_program.py):
``sampan.grad(..., create_graph=True)`` on the output of a converted function
gives differentiable gradients, equal to the eager ones and to finite
differences, to third order; through layers with parameters (a gradient
penalty); with dropout (the recomputation replays the random draws) and batch
norm (running statistics updated once); a backward that cannot be
differentiated says so."""
import numpy as np
import pytest

import sampan as paddle
from sampan.ops import OpError

F = paddle.nn.functional
XN = np.array([0.3, -0.5, 1.1, 0.8])


def _cube_tanh(x):
    return paddle.sum(paddle.tanh(x) ** 3)


def _cube_tanh_pow(x):
    return paddle.sum(paddle.pow(paddle.tanh(x), 3))


def _mixed(x):
    y = paddle.sin(x) * paddle.exp(x / 2) + paddle.sqrt(x * x + 1.0)
    return paddle.sum(paddle.matmul(y.reshape([2, 2]), y.reshape([2, 2]).T) * 0.5)


def _mixed3(x):
    y = paddle.cos(x) * paddle.exp(x / 2) - paddle.pow(x, 4.0)
    m = paddle.matmul(y.reshape([2, 2]), paddle.transpose(y.reshape([2, 2]), [1, 0]))
    return paddle.sum(paddle.concat([m, F.sigmoid(m)], axis=0)) / 3.0


def _loop(x):
    s = x
    for _ in range(3):
        s = F.sigmoid(s) * x
    return paddle.mean(s)


FUNCS = {"tanh_cubed": _cube_tanh, "mixed": _mixed, "loop": _loop}
# third order needs triple grads (or linear rules) on the whole path: Paddle
# has none for sqrt or for ``**`` (elementwise_pow)
FUNCS3 = {"tanh_pow3": _cube_tanh_pow, "mixed": _mixed3, "loop": _loop}


def _derivs(fn, xn, order):
    """[f, f', f'', ...] (as arrays; the k-th derivative summed over its
    entries before the next one is taken)."""
    x = paddle.to_tensor(xn, stop_gradient=False)
    y = fn(x)
    out = [y.numpy()]
    for k in range(order):
        (y,) = paddle.grad(y, x, create_graph=k + 1 < order)
        out.append(y.numpy())
        y = y.sum()
    return out


def _numeric(fn, xn, order, eps=1e-5):
    """d/dx of the (order-1)-th derivative summed, by central differences of the
    eager function."""
    def value(a):
        d = _derivs(fn, a, order - 1)[-1]
        return float(np.sum(d))
    num = np.zeros_like(xn)
    for i in range(xn.size):
        hi, lo = xn.copy(), xn.copy()
        hi[i] += eps
        lo[i] -= eps
        num[i] = (value(hi) - value(lo)) / (2 * eps)
    return num


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_second_derivative_equals_eager_and_finite_differences(name):
    fn = FUNCS[name]
    got = _derivs(paddle.jit.to_static(fn), XN, 2)
    want = _derivs(fn, XN, 2)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got[1], _numeric(fn, XN, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], _numeric(fn, XN, 2), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(FUNCS3))
def test_third_derivative_equals_eager(name):
    fn = FUNCS3[name]
    got = _derivs(paddle.jit.to_static(fn), XN, 3)
    want = _derivs(fn, XN, 3)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got[3], _numeric(fn, XN, 3), rtol=1e-4, atol=1e-5)


def test_first_order_gradient_is_differentiable_only_under_create_graph():
    st = paddle.jit.to_static(_cube_tanh)
    x = paddle.to_tensor(XN, stop_gradient=False)
    (g,) = paddle.grad(st(x), x)
    assert g.stop_gradient
    (g,) = paddle.grad(st(x), x, create_graph=True)
    assert not g.stop_gradient


def test_differentiable_output_gradient_is_differentiated_too():
    """grad_outputs that depend on x: the output gradient is an input of the
    grad program that needs a gradient."""
    def f(x):
        return paddle.tanh(x) * x

    x = paddle.to_tensor(XN, stop_gradient=False)
    res = []
    for fn in (paddle.jit.to_static(f), f):
        y = fn(x)
        (g,) = paddle.grad(y, x, grad_outputs=paddle.sin(x), create_graph=True)
        (gg,) = paddle.grad(g.sum(), x)
        res.append(gg.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-6, atol=1e-6)


class _Critic(paddle.nn.Layer):
    """A branch with batch norm that the penalty's path does not cross."""

    def __init__(self):
        super().__init__()
        self.l1 = paddle.nn.Linear(3, 8)
        self.l2 = paddle.nn.Linear(8, 1)
        self.bn = paddle.nn.BatchNorm1D(3)

    def forward(self, x, z):
        return self.l2(paddle.tanh(self.l1(x))) + self.bn(z).mean()


def _penalty_step(model, net, x, z):
    y = model(x, z)
    (g,) = paddle.grad(y.sum(), x, create_graph=True)
    loss = ((g * g).sum(axis=1) - 1.0).pow(2).mean()
    loss.backward()
    grads = {n: p.grad.numpy().copy() for n, p in net.named_parameters() if p.grad is not None}
    net.clear_gradients()
    return float(loss), grads


def test_gradient_penalty_reaches_parameters_as_eager():
    paddle.seed(3)
    net = _Critic()
    net.train()
    rng = np.random.RandomState(0)
    x = paddle.to_tensor(rng.rand(5, 3).astype("float32"), stop_gradient=False)
    z = paddle.to_tensor(rng.rand(5, 3).astype("float32"))
    mean0 = net.bn._mean.numpy().copy()
    loss_e, grads_e = _penalty_step(net, net, x, z)
    mean_e = net.bn._mean.numpy().copy()
    net.bn._mean.set_value(mean0)
    loss_s, grads_s = _penalty_step(paddle.jit.to_static(net), net, x, z)
    assert loss_s == pytest.approx(loss_e, rel=1e-6)
    assert sorted(grads_s) == sorted(grads_e) and grads_e
    for n in grads_e:
        np.testing.assert_allclose(grads_s[n], grads_e[n], rtol=1e-5, atol=1e-6, err_msg=n)
    # the grad program recomputes the forward without storing state again
    np.testing.assert_allclose(net.bn._mean.numpy(), mean_e, rtol=1e-6)


class _NormCritic(paddle.nn.Layer):
    """Batch norm on the penalty's path: its double grad is in the backward."""

    def __init__(self):
        super().__init__()
        self.l1 = paddle.nn.Linear(3, 6)
        self.bn = paddle.nn.BatchNorm1D(6)
        self.l2 = paddle.nn.Linear(6, 1)

    def forward(self, x, z):
        return self.l2(paddle.tanh(self.bn(self.l1(x)))) + z.mean()


def test_gradient_penalty_through_batch_norm_as_eager():
    paddle.seed(4)
    net = _NormCritic()
    net.train()
    rng = np.random.RandomState(1)
    x = paddle.to_tensor(rng.rand(6, 3).astype("float32"), stop_gradient=False)
    z = paddle.to_tensor(rng.rand(6, 3).astype("float32"))
    loss_e, grads_e = _penalty_step(net, net, x, z)
    loss_s, grads_s = _penalty_step(paddle.jit.to_static(net), net, x, z)
    assert loss_s == pytest.approx(loss_e, rel=1e-6)
    assert sorted(grads_s) == sorted(grads_e) and len(grads_e) == 5
    for n in grads_e:
        np.testing.assert_allclose(grads_s[n], grads_e[n], rtol=1e-5, atol=1e-6, err_msg=n)


def test_dropout_recomputation_draws_the_forward_mask():
    @paddle.jit.to_static
    def f(x):
        return paddle.sum(F.dropout(x * x * x, p=0.5, training=True))

    x = paddle.to_tensor(np.linspace(0.5, 1.5, 16), stop_gradient=False)
    (g,) = paddle.grad(f(x), x, create_graph=True)
    (gg,) = paddle.grad(g.sum(), x)
    kept = g.numpy() != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2 * kept * 2, rtol=1e-12)
    np.testing.assert_allclose(gg.numpy(), 6 * x.numpy() * kept * 2, rtol=1e-12)


def test_backward_without_gradient_rule_is_a_clear_error():
    @paddle.jit.to_static
    def f(x):
        if paddle.sum(x) > 0:
            y = paddle.tanh(x)
        else:
            y = paddle.sin(x)
        return paddle.sum(y)

    x = paddle.to_tensor(XN, stop_gradient=False)
    (g,) = paddle.grad(f(x), x)          # first order is fine
    np.testing.assert_allclose(g.numpy(), 1 - np.tanh(XN) ** 2, rtol=1e-12)
    with pytest.raises(OpError, match="create_graph=True.*conditional_block_grad"):
        paddle.grad(f(x), x, create_graph=True)
