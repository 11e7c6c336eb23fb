"""How a converted call takes its arguments and gives back its results
(Paddle's test_partial_program.py / test_return.py / test_cache_program.py /
test_fetch_feed.py behaviours): nested list/dict inputs, None and Python
arguments, outputs that are inputs, nested outputs, a Layer called in train
and eval mode (one program each), the same layer traced for several shapes."""
import numpy as np
import pytest

import sampan as paddle

from .util import check

X = np.linspace(-1, 1, 12).astype("float32").reshape(3, 4)


def nested_inputs(inputs, scale=1.0):
    a, b = inputs["pair"]
    c = inputs["list"][0]
    return {"sum": (a + b) * scale, "prod": a * c, "keep": c}


def test_nested_list_and_dict_inputs():
    def run(fn):
        xs = [paddle.to_tensor(X * k, stop_gradient=False) for k in (1.0, 2.0, 3.0)]
        out = fn({"pair": [xs[0], xs[1]], "list": [xs[2]]}, 2.0)
        loss = out["sum"].sum() + out["prod"].sum() + out["keep"].sum()
        loss.backward()
        return [out[k].numpy() for k in sorted(out)], [x.grad.numpy() for x in xs]
    ref, ref_g = run(nested_inputs)
    got, got_g = run(paddle.jit.to_static(nested_inputs, full_graph=True))
    for a, b in zip(ref + ref_g, got + got_g):
        np.testing.assert_allclose(b, a, rtol=1e-6)


def optional_input(x, bias=None, mode="add"):
    if bias is None:
        return x * 2.0
    if mode == "add":
        return x + bias
    return x - bias


def test_none_and_python_arguments_specialise():
    sf = paddle.jit.to_static(optional_input, full_graph=True)
    x, b = paddle.to_tensor(X), paddle.to_tensor(X * 0.5)
    for args in ((x,), (x, b), (x, b, "sub"), (x, None, "sub")):
        np.testing.assert_allclose(sf(*args).numpy(), optional_input(*args).numpy())
    assert sf.get_traced_count() == 4            # one program per Python value
    sf(paddle.to_tensor(X + 1.0), paddle.to_tensor(X))
    assert sf.get_traced_count() == 4


def returns_input_and_none(x):
    y = x * 3.0
    return x, None, y, [1, "s"]


def test_outputs_that_are_inputs_none_and_constants():
    check(returns_input_and_none, X, grad=(0,))


def returns_nothing(x):
    y = x + 1.0          # noqa: F841


def test_function_without_return():
    assert paddle.jit.to_static(returns_nothing, full_graph=True)(paddle.to_tensor(X)) is None


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)
        self.drop = paddle.nn.Dropout(0.9)

    def forward(self, x):
        return self.drop(self.fc(x))


def test_train_and_eval_have_their_own_programs():
    net = paddle.jit.to_static(Net(), full_graph=True)
    x = paddle.to_tensor(X)
    net.train()
    net(x)
    net.eval()
    e1 = net(x).numpy()
    np.testing.assert_allclose(e1, net.fc(x).numpy(), rtol=1e-6)
    assert net.forward.get_traced_count() == 2
    net.train()
    net(x)
    assert net.forward.get_traced_count() == 2


def test_same_layer_several_shapes():
    net = paddle.jit.to_static(Net(), full_graph=True)
    net.eval()
    for rows in (1, 2, 3, 2):
        a = paddle.to_tensor(X[:rows])
        np.testing.assert_allclose(net(a).numpy(), net.fc(a).numpy(), rtol=1e-6)
    assert net.forward.get_traced_count() == 3


@pytest.mark.parametrize("grad_needed", [False, True])
def test_no_grad_caller_gets_stopped_outputs(grad_needed):
    net = paddle.jit.to_static(Net(), full_graph=True)
    x = paddle.to_tensor(X, stop_gradient=not grad_needed)
    with paddle.no_grad():
        assert net(x).stop_gradient
    assert net(x).stop_gradient is False         # the parameters need gradients
