"""The parameters' ``.grad`` through a to_static function calling
``loss.backward()`` are what eager code leaves (program/traced_grads.py,
jit/grad_writeback.py): accumulation over calls, a step outside the function,
a step inside with gradients left from before, clear_grad with and without
set_to_zero, ``backward(grad_tensor)`` and a non-scalar loss."""
import numpy as np
import pytest

import sampan as paddle

OPT = paddle.optimizer


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.l1 = paddle.nn.Linear(5, 7)
        self.l2 = paddle.nn.Linear(7, 3)

    def forward(self, x):
        return self.l2(paddle.tanh(self.l1(x)))


def _x(seed):
    return paddle.to_tensor(np.random.RandomState(seed).standard_normal((6, 5))
                            .astype("float32"))


def _grads(net):
    return [None if p.grad is None else p.grad.numpy().copy() for p in net.parameters()]


def _momentum(params):
    return OPT.Momentum(0.05, parameters=params)


def _compare(body, calls=3, between=None, make_opt=_momentum):
    """Run ``body(net, opt, x)`` eagerly and traced on equal nets; after every call
    (and ``between(net, opt, k)``) the losses, weights and ``.grad`` agree."""
    runs = []
    for traced in (False, True):
        paddle.seed(11)
        net = Net()
        opt = make_opt(net.parameters())
        fn = paddle.jit.to_static(body, full_graph=True) if traced else body
        trace = []
        for k in range(calls):
            out = fn(net, opt, _x(k))
            if between is not None:
                between(net, opt, k)
            trace.append((float(out), [p.numpy().copy() for p in net.parameters()],
                          _grads(net)))
        runs.append(trace)
    for (le, we, ge), (ls, ws, gs) in zip(*runs):
        np.testing.assert_allclose(ls, le, rtol=1e-5, atol=1e-6)
        for a, b in zip(ws, we):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        for a, b in zip(gs, ge):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    return runs


def test_backward_alone_accumulates_over_calls():
    def body(net, opt, x):
        loss = (net(x) ** 2).mean()
        loss.backward()
        return loss
    runs = _compare(body)
    # the gradients really grow call after call (not one call's)
    g = [t[2][0] for t in runs[1]]
    assert not np.allclose(g[0], g[2])


def test_accumulation_with_a_step_outside_every_second_call():
    def body(net, opt, x):
        loss = net(x).abs().mean()
        loss.backward()
        return loss

    def between(net, opt, k):
        if k % 2 == 1:
            opt.step()
            opt.clear_grad()
    _compare(body, calls=4, between=between)


def test_a_step_inside_without_clear_grad_uses_the_accumulated_gradient():
    def body(net, opt, x):
        loss = (net(x) ** 2).mean()
        loss.backward()
        opt.step()
        return loss
    _compare(body)


def test_gradients_left_by_eager_code_before_the_call():
    def body(net, opt, x):
        loss = (net(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    def between(net, opt, k):
        net(_x(10 + k)).sum().backward()        # eager gradients the next call finds
    _compare(body, between=between)


@pytest.mark.parametrize("after", ["clear", "keep"])
def test_weight_decay_and_clipping_write_the_gradient_in_place(after):
    # L2 decay and global-norm clipping rewrite the gradient variable in the
    # program; .grad (eager step leaves it as it was) and a later backward see
    # the gradient before the step, with and without live gradients at the start
    def make(params):
        return OPT.Momentum(0.05, momentum=0.7, parameters=params,
                            weight_decay=paddle.regularizer.L2Decay(0.1),
                            grad_clip=paddle.nn.ClipGradByGlobalNorm(0.5))

    def body(net, opt, x):
        loss = (net(x) ** 2).mean()
        loss.backward()
        opt.step()
        if after == "clear":
            opt.clear_grad()
        return loss
    _compare(body, calls=4, make_opt=make)


@pytest.mark.parametrize("set_to_zero", [True, False])
def test_clear_grad_at_the_end_and_at_the_start(set_to_zero):
    def at_end(net, opt, x):
        loss = (net(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad(set_to_zero)
        return loss

    def at_start(net, opt, x):
        opt.clear_grad(set_to_zero)
        loss = (net(x) ** 2).mean()
        loss.backward()
        opt.step()
        return loss
    runs = _compare(at_end)
    assert all((g is None) != set_to_zero for g in runs[1][-1][2])
    _compare(at_start)


def test_backward_from_a_grad_tensor_and_of_a_non_scalar_loss():
    held = paddle.to_tensor(np.linspace(0.5, 2.0, 18).reshape(6, 3).astype("float32"))

    def from_variable(net, opt, x):
        y = net(x)
        y.backward(paddle.ones_like(y) * 3.0)
        return y.mean()

    def from_held_tensor(net, opt, x):
        y = net(x)
        y.backward(held)
        return y.mean()

    def non_scalar(net, opt, x):
        y = net(x)
        y.backward()
        opt.step()
        opt.clear_grad()
        return y.mean()
    for body in (from_variable, from_held_tensor, non_scalar):
        _compare(body)


def test_a_wrong_grad_tensor_is_named():
    net = Net()

    def bad_shape(x):
        y = net(x)
        y.backward(paddle.ones([6, 4]))
        return y

    def bad_dtype(x):
        y = net(x)
        y.backward(paddle.ones([6, 3], dtype="float64"))
        return y

    def not_a_tensor(x):
        y = net(x)
        y.backward(np.ones([6, 3], "float32"))
        return y
    with pytest.raises(ValueError, match=r"grad_tensor .* has shape \[6, 4\]"):
        paddle.jit.to_static(bad_shape, full_graph=True)(_x(0))
    with pytest.raises(TypeError, match="grad_tensor .* float64"):
        paddle.jit.to_static(bad_dtype, full_graph=True)(_x(0))
    with pytest.raises(TypeError, match="grad_tensor must be a Tensor"):
        paddle.jit.to_static(not_a_tensor, full_graph=True)(_x(0))


def test_a_backward_after_a_step_differentiates_the_updated_parameters():
    """backward, step, backward through the updated weights, step: as eagerly
    (the second gradient adds to the first where no clear_grad came between)."""
    def accumulate(net, opt, x):
        loss = net(x).mean()
        loss.backward()
        opt.step()
        loss2 = (net(x) ** 2).mean()
        loss2.backward()
        opt.step()
        opt.clear_grad()
        return loss + loss2

    def cleared_between(net, opt, x):
        net(x).mean().backward()
        opt.step()
        opt.clear_grad()
        loss2 = (net(x) ** 2).mean()
        loss2.backward()
        opt.step()
        return loss2                    # its gradients are left in .grad
    _compare(accumulate, make_opt=lambda ps: OPT.SGD(0.1, parameters=ps))
    _compare(cleared_between)


def _gan_opts_momentum_adam(g_net, d_net):
    return (OPT.Adam(0.01, parameters=g_net.parameters()),
            OPT.Momentum(0.05, parameters=d_net.parameters()))


def _gan_opts_clip_decay(g_net, d_net):
    # clipping and weight decay rewrite the gradients in place (keep_raw)
    return (OPT.AdamW(0.01, parameters=g_net.parameters(), weight_decay=0.1,
                      grad_clip=paddle.nn.ClipGradByGlobalNorm(0.5)),
            OPT.SGD(0.05, parameters=d_net.parameters(), weight_decay=0.01,
                    grad_clip=paddle.nn.ClipGradByValue(0.1)))


def _gan_opts_schedule(g_net, d_net):
    sched = OPT.lr.StepDecay(0.05, step_size=1, gamma=0.5)
    return (OPT.Momentum(sched, parameters=g_net.parameters(), use_nesterov=True),
            OPT.RMSProp(0.01, parameters=d_net.parameters()))


@pytest.mark.parametrize("make_opts", [_gan_opts_momentum_adam, _gan_opts_clip_decay,
                                       _gan_opts_schedule], ids=lambda f: f.__name__[10:])
def test_two_optimizers_in_one_function_as_a_gan_step(make_opts):
    """A discriminator step on a detached generator output, then a generator
    step through the updated discriminator: weights and .grad as eagerly."""
    def step(g_net, d_net, g_opt, d_opt, z, real):
        fake = g_net(z)
        d_loss = (d_net(real) - 1).square().mean() + d_net(fake.detach()).square().mean()
        d_loss.backward()
        d_opt.step()
        d_opt.clear_grad()
        g_loss = (d_net(fake) - 1).square().mean()
        g_loss.backward()
        g_opt.step()
        g_opt.clear_grad()
        return d_loss + g_loss

    runs = []
    for traced in (False, True):
        paddle.seed(5)
        g_net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.Tanh(),
                                     paddle.nn.Linear(8, 5))
        d_net = Net()
        g_opt, d_opt = make_opts(g_net, d_net)
        fn = paddle.jit.to_static(step, full_graph=True) if traced else step
        trace = []
        for k in range(3):
            rng = np.random.RandomState(k)
            z = paddle.to_tensor(rng.standard_normal((6, 4)).astype("float32"))
            out = fn(g_net, d_net, g_opt, d_opt, z, _x(k + 10))
            if isinstance(g_opt._learning_rate, OPT.lr.LRScheduler):
                g_opt._learning_rate.step()
            trace.append([float(out)] + [p.numpy().copy() for p in
                                         g_net.parameters() + d_net.parameters()])
        runs.append(trace)
    for eager, static in zip(*runs):
        for a, b in zip(static, eager):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)


def test_a_second_backward_through_a_walked_graph_raises_as_eagerly():
    """The eager tape frees what a backward walked: a second backward through it
    raises; traced, the same RuntimeError, where the program would otherwise
    run.  Through the updated parameters after a step it is a new graph."""
    def twice(net, x):
        h = paddle.tanh(net.l1(x))
        net.l2(h).mean().backward()
        (net.l2(h) ** 2).mean().backward()      # back through tanh and l1
        return h.mean()
    for traced in (False, True):
        net = Net()
        fn = paddle.jit.to_static(twice, full_graph=True) if traced else twice
        with pytest.raises(RuntimeError, match=r"backward through the graph a second "
                                               r"time \(node of op 'tanh'"):
            fn(net, _x(0))
