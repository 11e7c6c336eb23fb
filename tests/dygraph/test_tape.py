"""Autograd on the eager tape, through the public Paddle API only: accumulation,
retain_graph, ``paddle.grad`` (grad_outputs, allow_unused, create_graph), grad
modes, hooks, retain_grads, clear_gradient, leaf bookkeeping, deep graphs and
determinism."""
import gc

import numpy as np
import pytest

import sampan as paddle


def leaf(values, dtype="float32"):
    return paddle.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


def close(t, expected, **kw):
    np.testing.assert_allclose(np.asarray(t.numpy() if hasattr(t, "numpy") else t),
                               np.asarray(expected), rtol=1e-6, atol=1e-6, **kw)


# ------------------------------------------------------------------ accumulation
def test_grad_sums_over_every_use_of_a_tensor():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x + x * 3.0 + x
    y.sum().backward()
    close(x.grad, 2 * x.numpy() + 4)
    assert isinstance(x.grad, paddle.Tensor)
    assert x.grad.shape == [3] and x.grad.dtype == paddle.float32


def test_grad_accumulates_across_backward_calls():
    x = leaf([1.0, -2.0])
    (x * 2.0).sum().backward()
    (x * x).sum().backward()
    close(x.grad, 2 + 2 * x.numpy())


def test_diamond_graph_and_broadcast_input():
    x = leaf([1.0, 2.0, 3.0])
    b = leaf([0.5])
    h = x + b                # b broadcast: its grad is summed back to shape [1]
    y = h * h + h
    y.sum().backward()
    g = 2 * (x.numpy() + 0.5) + 1
    close(x.grad, g)
    close(b.grad, [g.sum()])
    assert b.grad.shape == [1]


def test_backward_of_non_scalar_uses_ones_and_grad_tensor():
    x = leaf([1.0, 2.0])
    (x * 3.0).backward()
    close(x.grad, [3.0, 3.0])
    x.clear_gradient(False)
    (x * 3.0).backward(paddle.to_tensor([1.0, 10.0]))
    close(x.grad, [3.0, 30.0])


# ------------------------------------------------------------------ retain_graph
def test_second_backward_needs_retain_graph():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    close(x.grad, 4 * x.numpy())
    with pytest.raises(RuntimeError, match="retain_graph"):
        y.backward()


# ------------------------------------------------------------------ paddle.grad
def test_grad_returns_gradients_without_touching_leaves():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    (gx,) = paddle.grad(y, x, grad_outputs=paddle.to_tensor([1.0, 2.0, 3.0]))
    close(gx, 2 * x.numpy() * [1.0, 2.0, 3.0])
    assert x.grad is None


def test_grad_of_several_outputs_sums_them():
    x = leaf([1.0, 2.0])
    y1, y2 = x * 2.0, x * x
    (gx,) = paddle.grad([y1, y2], [x], grad_outputs=[None, paddle.to_tensor([1.0, 0.5])])
    close(gx, 2 + 2 * x.numpy() * [1.0, 0.5])


def test_grad_with_respect_to_an_intermediate():
    x = leaf([1.0, 2.0])
    h = x * 3.0
    y = (h * h).sum()
    (gh,) = paddle.grad(y, h)
    close(gh, 2 * h.numpy())


def test_grad_allow_unused():
    x, z = leaf([1.0, 2.0]), leaf([5.0])
    y = (x * 2.0).sum()
    with pytest.raises(ValueError, match="allow_unused"):
        paddle.grad(y, [x, z], retain_graph=True)
    gx, gz = paddle.grad(y, [x, z], allow_unused=True)
    close(gx, [2.0, 2.0])
    assert gz is None


def test_create_graph_gives_differentiable_grads_power():
    x = leaf([2.0, -1.0], "float64")
    y = x ** 3
    (dy,) = paddle.grad(y.sum(), x, create_graph=True)
    close(dy, 3 * x.numpy() ** 2)
    assert not dy.stop_gradient
    (d2,) = paddle.grad(dy.sum(), x)
    close(d2, 6 * x.numpy())


def test_create_graph_gives_differentiable_grads_products():
    x = leaf([2.0, -1.0, 0.5], "float64")
    y = (x * x * x).sum()
    (dy,) = paddle.grad(y, x, create_graph=True)
    close(dy, 3 * x.numpy() ** 2)
    (dy * dy).sum().backward()           # d/dx sum((3x^2)^2) = 36 x^3
    close(x.grad, 36 * x.numpy() ** 3)


def test_create_graph_through_matmul():
    w = leaf([[1.0, 2.0], [3.0, 4.0]], "float64")
    v = paddle.to_tensor(np.array([[1.0], [-1.0]]))
    y = paddle.matmul(paddle.matmul(w, w), v).sum()
    (gw,) = paddle.grad(y, w, create_graph=True)
    wn, vn = w.numpy(), v.numpy()
    one = np.ones((2, 1))
    close(gw, one @ (wn @ vn).T + wn.T @ one @ vn.T)
    gw.sum().backward()
    assert x_finite(w.grad)


def test_vector_matmul_backward():
    x = leaf([1.0, 2.0, 3.0])
    (x @ x).backward()                       # a 0-D result of two vectors
    close(x.grad, 2 * x.numpy())
    m = leaf(np.arange(6.0).reshape(2, 3))
    v = leaf([1.0, -1.0, 2.0])
    paddle.matmul(m, v).sum().backward()     # matrix @ vector
    close(m.grad, np.tile(v.numpy(), (2, 1)))
    close(v.grad, m.numpy().sum(0))


def test_third_order_through_tanh_and_sigmoid():
    x = leaf([0.3, -0.8, 1.5], "float64")
    g1, = paddle.grad(paddle.tanh(x).sum() + paddle.nn.functional.sigmoid(x).sum(), x,
                      create_graph=True)
    g2, = paddle.grad(g1.sum(), x, create_graph=True)
    g3, = paddle.grad(g2.sum(), x)
    t, s = np.tanh(x.numpy()), 1 / (1 + np.exp(-x.numpy()))
    # third derivatives: tanh -2 (1 - t^2)(1 - 3 t^2), sigmoid s (1 - s)(1 - 6 s + 6 s^2)
    close(g3, -2 * (1 - t * t) * (1 - 3 * t * t) + s * (1 - s) * (1 - 6 * s + 6 * s * s))


def test_fourth_order_beyond_the_triple_grad_is_a_clear_error():
    x = leaf([0.3, -0.8], "float64")
    g = paddle.tanh(x).sum()
    for _ in range(3):
        g, = paddle.grad(g, x, create_graph=True)
        g = g.sum()
    with pytest.raises(Exception, match="tanh_triple_grad' has no gradient rule"):
        paddle.grad(g, x)


def x_finite(t):
    return t is not None and np.all(np.isfinite(t.numpy()))


# ------------------------------------------------------------------ grad modes
def test_no_grad_context_manager():
    x = leaf([1.0])
    with paddle.no_grad():
        y = x * 2.0
    assert y.stop_gradient and y.is_leaf
    assert not (x * 2.0).stop_gradient


def test_no_grad_decorator_and_restores_after_error():
    x = leaf([1.0])

    @paddle.no_grad()
    def f(t):
        return t * 2.0

    assert f(x).stop_gradient
    assert paddle.is_grad_enabled()
    with pytest.raises(ZeroDivisionError):
        with paddle.no_grad():
            1 / 0
    assert paddle.is_grad_enabled()
    assert not (x * 2.0).stop_gradient


def test_set_grad_enabled_and_enable_grad():
    x = leaf([1.0])
    with paddle.set_grad_enabled(False):
        assert not paddle.is_grad_enabled()
        assert (x * 2.0).stop_gradient
        with paddle.enable_grad():
            assert not (x * 2.0).stop_gradient
        with paddle.set_grad_enabled(True):
            assert not (x * 2.0).stop_gradient
        assert (x * 2.0).stop_gradient
    assert paddle.is_grad_enabled()


# ------------------------------------------------------------------ hooks
def test_leaf_hook_sees_and_replaces_grad_then_is_removed():
    x = leaf([1.0, 2.0])
    seen = []

    def hook(g):
        seen.append(g.numpy().copy())
        return g * 10.0

    handle = x.register_hook(hook)
    (x * 3.0).sum().backward()
    close(seen[0], [3.0, 3.0])
    close(x.grad, [30.0, 30.0])
    handle.remove()
    x.clear_gradient(False)
    (x * 3.0).sum().backward()
    close(x.grad, [3.0, 3.0])
    assert len(seen) == 1


def test_leaf_hook_runs_once_on_the_summed_grad():
    x = leaf([1.0, 2.0])
    calls = []
    x.register_hook(lambda g: calls.append(g.numpy().copy()))
    (x * 2.0 + x * 3.0).sum().backward()
    assert len(calls) == 1
    close(calls[0], [5.0, 5.0])


def test_non_leaf_hook_replaces_grad_flowing_upstream():
    x = leaf([1.0, 2.0])
    h = x * 2.0
    seen = []

    def hook(g):
        seen.append(g.numpy().copy())
        return g * 0.0 + 1.0

    handle = h.register_hook(hook)
    (h * h).sum().backward()
    close(seen[0], 2 * h.numpy())
    close(x.grad, [2.0, 2.0])          # upstream sees the replaced grad (ones) * 2
    assert h.grad is None
    handle.remove()
    x.clear_gradient(False)
    h2 = x * 2.0
    (h2 * h2).sum().backward()
    close(x.grad, 2 * 2 * h2.numpy())


def test_hook_on_stop_gradient_tensor_is_refused():
    with pytest.raises(RuntimeError):
        paddle.to_tensor([1.0]).register_hook(lambda g: g)


def test_retain_grads_keeps_non_leaf_grad():
    x = leaf([1.0, 2.0])
    h = x * 2.0
    h.retain_grads()
    (h * h).sum().backward()
    close(h.grad, 2 * h.numpy())
    close(x.grad, 4 * h.numpy())


# ------------------------------------------------------------------ clearing
def test_clear_gradient_to_zero_or_none():
    x = leaf([1.0, 2.0])
    (x * 2.0).sum().backward()
    x.clear_gradient()                    # set_to_zero=True is the default
    close(x.grad, [0.0, 0.0])
    assert x.grad.shape == [2]
    (x * 2.0).sum().backward()
    close(x.grad, [2.0, 2.0])
    x.clear_gradient(set_to_zero=False)
    assert x.grad is None
    (x * 2.0).sum().backward()
    x.clear_grad()
    close(x.grad, [0.0, 0.0])


# ------------------------------------------------------------------ leaves, defaults
def test_leaf_and_non_leaf():
    x = leaf([1.0])
    c = paddle.to_tensor([2.0])
    y = x * c
    assert x.is_leaf and c.is_leaf and not y.is_leaf
    assert (c * 2.0).is_leaf                       # no gradient needed: stays a leaf
    y.sum().backward()
    assert y.grad is None and c.grad is None
    close(x.grad, [2.0])


def test_stop_gradient_defaults():
    assert paddle.to_tensor([1.0]).stop_gradient
    lin = paddle.nn.Linear(2, 3)
    assert not lin.weight.stop_gradient and not lin.bias.stop_gradient
    p = paddle.create_parameter([2, 3], "float32")
    assert not p.stop_gradient
    x = leaf([1.0])
    assert not (x + 1.0).stop_gradient


def test_stop_gradient_cuts_the_graph():
    x = leaf([1.0, 2.0])
    h = x * 2.0
    d = h.detach()
    assert d.stop_gradient
    y = (h * d).sum()
    y.backward()
    close(x.grad, 2 * d.numpy())


# ------------------------------------------------------------------ scale, determinism
def test_ten_thousand_op_chain_backward_without_recursion():
    x = leaf([1.0, 2.0], "float64")
    b = paddle.to_tensor(np.array([0.001, 0.002]))
    y = x
    for _ in range(5000):
        y = y + b
        y = y * 1.0001
    y.sum().backward()
    close(x.grad, [1.0001 ** 5000] * 2)
    del y
    gc.collect()


def test_deep_chain_without_backward_is_freed():
    x = leaf([1.0])
    y = x
    for _ in range(10000):
        y = y * 1.0
    del y
    gc.collect()


def test_results_are_bitwise_deterministic():
    def run():
        rng = np.random.default_rng(0)
        x = leaf(rng.standard_normal((4, 8)))
        w = leaf(rng.standard_normal((8, 8)))
        h = x
        outs = []
        for _ in range(5):
            h = paddle.matmul(h, w) * 0.5 + h
            outs.append(h)
        loss = outs[0].sum()
        for o in outs[1:]:
            loss = loss + (o * o).sum()
        loss.backward()
        return loss.numpy().copy(), x.grad.numpy().copy(), w.grad.numpy().copy()

    a, b = run(), run()
    for u, v in zip(a, b):
        assert u.tobytes() == v.tobytes()
