"""Layers under to_static (Paddle's test_layer_hook.py / test_partial_program.py
/ test_cache_program.py / test_save_load.py / test_backward_without_params.py
behaviours): forward pre/post hooks on the decorated layer and on its
sublayers, training and eval mode, the program cache, saving and loading."""
import numpy as np
import pytest

import sampan as paddle

from .util import check, check_layer

pytestmark = pytest.mark.filterwarnings("ignore:jit.save:UserWarning")

X = np.linspace(-1, 1, 40).astype("float32").reshape(4, 10)


def post_double(layer, inputs, output):
    return output + output


def pre_double(layer, inputs):
    return (inputs[0] * 2.0,)


class HookedNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(10, 10)
        self.fc1.register_forward_post_hook(post_double)
        self.fc2 = paddle.nn.Linear(10, 10)
        self.fc2.register_forward_pre_hook(pre_double)
        self.register_forward_pre_hook(pre_double)
        self.register_forward_post_hook(post_double)

    def forward(self, x):
        return paddle.mean(self.fc2(self.fc1(x)))


def test_layer_hooks_saved_without_input_spec(tmp_path):
    paddle.seed(2022)
    net = HookedNet()
    x = paddle.to_tensor(X)
    ref = float(net(x))
    static = paddle.jit.to_static(net, full_graph=True)
    static(x)
    path = str(tmp_path / "hooked2")
    paddle.jit.save(static, path)
    np.testing.assert_allclose(float(paddle.jit.load(path)(x)), ref, rtol=1e-5)


def test_layer_hooks_values_gradients_and_saved_model(tmp_path):
    paddle.seed(2022)
    net = HookedNet()
    ref = float(net(paddle.to_tensor(X)))
    static = paddle.jit.to_static(net, full_graph=True)
    got = float(static(paddle.to_tensor(X)))
    np.testing.assert_allclose(got, ref, rtol=1e-5)
    check_layer(net, X, grad=(0,))
    path = str(tmp_path / "hooked")
    paddle.jit.save(static, path, input_spec=[paddle.static.InputSpec([4, 10], "float32")])
    loaded = float(paddle.jit.load(path)(paddle.to_tensor(X)))
    np.testing.assert_allclose(loaded, ref, rtol=1e-5)


# ----------------------------------------------------------------- train / eval
class DropNormNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(10, 6)
        self.bn = paddle.nn.BatchNorm1D(6)
        self.drop = paddle.nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.bn(self.fc(x)))


def _steps(net, n=3):
    opt = paddle.optimizer.Adam(0.01, parameters=net.parameters())
    losses = []
    for _ in range(n):
        loss = net(paddle.to_tensor(X)).pow(2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses


def test_training_and_eval_modes_match_eager():
    paddle.seed(5)
    eager = DropNormNet()
    paddle.seed(5)
    static = paddle.jit.to_static(DropNormNet(), full_graph=True)
    paddle.seed(9)
    le = _steps(eager)
    paddle.seed(9)
    ls = _steps(static)
    np.testing.assert_allclose(ls, le, rtol=1e-5, atol=1e-6)
    eager.eval()
    static.eval()
    np.testing.assert_allclose(static(paddle.to_tensor(X)).numpy(),
                               eager(paddle.to_tensor(X)).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(static.bn._mean.numpy(), eager.bn._mean.numpy(), rtol=1e-5)


class NoParams(paddle.nn.Layer):
    def forward(self, x):
        return paddle.tanh(x) * 2.0


def test_backward_without_parameters():
    net = paddle.jit.to_static(NoParams(), full_graph=True)
    x = paddle.to_tensor(X, stop_gradient=False)
    net(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * (1 - np.tanh(X) ** 2), rtol=1e-5)


# ----------------------------------------------------------------- program cache
def scaled(x, k=2):
    return x * float(k)


def test_program_cache():
    sf = paddle.jit.to_static(scaled, full_graph=True)
    x = paddle.to_tensor(X)
    sf(x)
    sf(paddle.to_tensor(X + 1.0))                # same spec: cached
    assert sf.get_traced_count() == 1
    sf(paddle.to_tensor(X[:2]))                  # another shape
    assert sf.get_traced_count() == 2
    np.testing.assert_allclose(sf(x, 3).numpy(), X * 3.0)    # another Python value
    assert sf.get_traced_count() == 3
    sf(x, k=3)
    assert sf.get_traced_count() == 3
    concrete, partial = sf.get_concrete_program(x)
    assert [v.name for v in concrete.inputs] == ["x"]


def test_input_spec_with_none_dims_serves_every_batch():
    sf = paddle.jit.to_static(scaled, input_spec=[paddle.static.InputSpec([None, 10],
                                                                           "float32")],
                              full_graph=True)
    for rows in (1, 4, 7):
        a = np.ones([rows, 10], "float32")
        np.testing.assert_allclose(sf(paddle.to_tensor(a)).numpy(), a * 2.0)


def test_enable_to_static_false_runs_eagerly():
    sf = paddle.jit.to_static(scaled, full_graph=True)
    paddle.jit.enable_to_static(False)
    try:
        sf(paddle.to_tensor(X))
        assert sf.get_traced_count() == 0
    finally:
        paddle.jit.enable_to_static(True)


# ----------------------------------------------------------------- save / load
class Mlp(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(10, 8)
        self.b = paddle.nn.Linear(8, 3)

    def forward(self, x):
        h = paddle.nn.functional.relu(self.a(x))
        if h.mean() > 0:
            h = h * 2.0
        return self.b(h)


def test_save_load_and_fine_tune(tmp_path):
    paddle.seed(4)
    net = Mlp()
    static = paddle.jit.to_static(net, full_graph=True)
    static(paddle.to_tensor(X))
    path = str(tmp_path / "mlp")
    paddle.jit.save(static, path, input_spec=[paddle.static.InputSpec([None, 10], "float32")])
    loaded = paddle.jit.load(path)
    for a in (X, -X):
        np.testing.assert_allclose(loaded(paddle.to_tensor(a)).numpy(),
                                   net(paddle.to_tensor(a)).numpy(), rtol=1e-5, atol=1e-6)
    loaded.train()
    opt = paddle.optimizer.SGD(0.1, parameters=loaded.parameters())
    before = loaded(paddle.to_tensor(X)).pow(2).mean()
    before.backward()
    opt.step()
    after = loaded(paddle.to_tensor(X)).pow(2).mean()
    assert float(after) < float(before)
