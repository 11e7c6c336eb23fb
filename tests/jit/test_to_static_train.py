"""to_static training: gradients through the partial program reach the eager
parameters and inputs; an MLP and a CNN with BatchNorm trained with Adam give
the eager losses and weights; dropout / batch norm select train or eval
programs."""
import numpy as np
import pytest

import sampan as paddle

F = paddle.nn.functional


def _data(seed, *shape):
    return np.random.RandomState(seed).standard_normal(shape).astype("float32")


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.l1 = paddle.nn.Linear(8, 16)
        self.l2 = paddle.nn.Linear(16, 16)
        self.l3 = paddle.nn.Linear(16, 3)

    def forward(self, x):
        h = F.relu(self.l1(x))
        h = paddle.tanh(self.l2(h))
        return self.l3(h)


class CNN(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = paddle.nn.Conv2D(3, 4, 3, padding=1)
        self.bn1 = paddle.nn.BatchNorm2D(4)
        self.pool = paddle.nn.MaxPool2D(2, 2)
        self.conv2 = paddle.nn.Conv2D(4, 6, 3, padding=1)
        self.bn2 = paddle.nn.BatchNorm2D(6)
        self.fc = paddle.nn.Linear(6 * 4 * 4, 5)

    def forward(self, x):
        h = self.pool(F.relu(self.bn1(self.conv1(x))))
        h = F.relu(self.bn2(self.conv2(h)))
        return self.fc(paddle.flatten(h, 1))


def _train(make, static, xs, ys, loss_fn, steps=10):
    paddle.seed(7)
    model = make()
    if static:
        model = paddle.jit.to_static(model)
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    losses = []
    for i in range(steps):
        x = paddle.to_tensor(xs[i % len(xs)])
        y = paddle.to_tensor(ys[i % len(ys)])
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    state = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    return np.array(losses), state, model


def _assert_parity(make, xs, ys, loss_fn):
    le, se, _ = _train(make, False, xs, ys, loss_fn)
    ls, ss, model = _train(make, True, xs, ys, loss_fn)
    np.testing.assert_allclose(ls, le, rtol=1e-5, atol=1e-5)
    assert se.keys() == ss.keys()
    for k in se:
        np.testing.assert_allclose(ss[k], se[k], rtol=1e-5, atol=1e-5, err_msg=k)
    return model


def test_mlp_adam_parity():
    xs = [_data(i, 6, 8) for i in range(3)]
    ys = [_data(10 + i, 6, 3) for i in range(3)]
    model = _assert_parity(MLP, xs, ys, F.mse_loss)
    assert model.forward.get_traced_count() == 1


def test_cnn_batchnorm_adam_parity():
    xs = [_data(i, 4, 3, 8, 8) for i in range(2)]
    ys = [np.random.RandomState(20 + i).randint(0, 5, (4,)).astype("int64") for i in range(2)]
    model = _assert_parity(CNN, xs, ys, F.cross_entropy)
    # running statistics (buffers) were updated through the program, as eagerly
    assert model.forward.get_traced_count() == 1


def test_cnn_eval_after_training_matches_eager():
    xs = [_data(i, 4, 3, 8, 8) for i in range(2)]
    ys = [np.random.RandomState(20 + i).randint(0, 5, (4,)).astype("int64") for i in range(2)]
    _, _, me = _train(CNN, False, xs, ys, F.cross_entropy, steps=3)
    _, _, ms = _train(CNN, True, xs, ys, F.cross_entropy, steps=3)
    me.eval()
    ms.eval()
    x = paddle.to_tensor(_data(5, 2, 3, 8, 8))
    np.testing.assert_allclose(ms(x).numpy(), me(x).numpy(), rtol=1e-5, atol=1e-5)
    assert ms.forward.get_traced_count() == 2          # a train and an eval program


def test_input_and_parameter_gradients():
    paddle.seed(1)
    lin = paddle.nn.Linear(4, 3)

    def f(x, w):
        return (lin(x) * w).sum() + (x * x).mean()

    sf = paddle.jit.to_static(f)
    grads = []
    for fn in (f, sf):
        x = paddle.to_tensor(_data(0, 5, 4), stop_gradient=False)
        w = paddle.to_tensor(_data(1, 5, 3), stop_gradient=False)
        out = fn(x, w)
        out.backward()
        grads.append((float(out), x.grad.numpy(), w.grad.numpy(), lin.weight.grad.numpy(),
                      lin.bias.grad.numpy()))
        lin.clear_gradients()
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_gradient_flows_to_eager_producers_and_consumers():
    """Eager ops before and after the static call are on the same tape."""
    paddle.seed(2)
    net = MLP()
    sf = paddle.jit.to_static(MLP())
    sf.set_state_dict(net.state_dict())
    res = []
    for m in (net, sf):
        a = paddle.to_tensor(_data(3, 4, 8), stop_gradient=False)
        out = m(a * 2.0 + 1.0)
        loss = (out * out).sum() + out.mean()
        loss.backward()
        res.append((a.grad.numpy(), [p.grad.numpy() for p in m.parameters()]))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-5, atol=1e-6)
    for ge, gs in zip(res[0][1], res[1][1]):
        np.testing.assert_allclose(gs, ge, rtol=1e-5, atol=1e-6)


def test_multiple_outputs_unused_output_gets_zero_gradient():
    paddle.seed(3)
    lin = paddle.nn.Linear(4, 4)

    @paddle.jit.to_static
    def f(x):
        h = lin(x)
        return h, paddle.tanh(h), paddle.argmax(h, axis=-1)

    x = paddle.to_tensor(_data(0, 3, 4))
    a, b, idx = f(x)
    assert idx.stop_gradient and not a.stop_gradient
    b.sum().backward()
    g_static = lin.weight.grad.numpy().copy()
    lin.clear_gradients()
    h = lin(x)
    paddle.tanh(h).sum().backward()
    np.testing.assert_allclose(g_static, lin.weight.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_no_grad_runs_forward_only():
    paddle.seed(4)
    net = paddle.jit.to_static(MLP())
    x = paddle.to_tensor(_data(0, 2, 8))
    with paddle.no_grad():
        out = net(x)
    assert out.stop_gradient
    pp = net.forward.program_cache.last.partial_program
    assert pp.backward_program is None
    out2 = net(x)
    assert not out2.stop_gradient
    np.testing.assert_allclose(out.numpy(), out2.numpy())


def test_second_backward_without_retain_graph_is_an_error():
    net = paddle.jit.to_static(MLP())
    out = net(paddle.to_tensor(_data(0, 2, 8))).sum()
    out.backward()
    with pytest.raises(RuntimeError, match="second time"):
        out.backward()


def test_retain_graph_allows_two_backwards():
    net = paddle.jit.to_static(MLP())
    out = net(paddle.to_tensor(_data(0, 2, 8))).sum()
    out.backward(retain_graph=True)
    g1 = net.l1.weight.grad.numpy().copy()
    out.backward()
    np.testing.assert_allclose(net.l1.weight.grad.numpy(), 2 * g1, rtol=1e-6)


def test_paddle_grad_through_static_call():
    net = paddle.jit.to_static(MLP())
    x = paddle.to_tensor(_data(0, 2, 8), stop_gradient=False)
    (gx,) = paddle.grad(net(x).sum(), [x])
    eager = MLP()
    eager.set_state_dict(net.state_dict())
    x2 = paddle.to_tensor(_data(0, 2, 8), stop_gradient=False)
    (gx2,) = paddle.grad(eager(x2).sum(), [x2])
    np.testing.assert_allclose(gx.numpy(), gx2.numpy(), rtol=1e-5, atol=1e-6)


def test_dropout_train_and_eval_programs():
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.lin = paddle.nn.Linear(16, 16)
            self.drop = paddle.nn.Dropout(0.5)

        @paddle.jit.to_static
        def forward(self, x):
            return self.drop(self.lin(x))

    net = Net()
    x = paddle.to_tensor(np.ones((8, 16), "float32"))
    net.eval()
    ref = net.lin(x).numpy()
    np.testing.assert_allclose(net(x).numpy(), ref, rtol=1e-6)
    net.train()
    out = net(x).numpy()
    zeros = out == 0
    assert zeros.any() and not zeros.all()
    np.testing.assert_allclose(out[~zeros], 2 * ref[~zeros], rtol=1e-5)
    assert net.forward.get_traced_count() == 2
    programs = [e.concrete_program.main_program for e in net.forward.program_cache.values()]
    drops = [[op for op in p.global_block().ops if op.type == "dropout"][0] for p in programs]
    assert [op.attr("is_test") for op in drops] == [True, False]
