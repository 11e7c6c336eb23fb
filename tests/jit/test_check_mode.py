"""to_static's equivalence check (jit/check.py): the static program is run
beside the eager function, and a wrong static kernel is named by its op and
the user's line."""
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan.executor import plan as _plan
from sampan.jit.check import CheckedStaticFunction, EquivalenceError, EquivalenceWarning
from sampan.jit.static_function import StaticFunction


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        h = self.fc(x)
        h = paddle.tanh(h)          # the line the wrong kernel is named at
        return paddle.mean(h * 2.0)


TANH_LINE = Net.forward.__code__.co_firstlineno + 2


def _x():
    return paddle.to_tensor(np.random.RandomState(0).rand(2, 4).astype("float32"))


def _wrong(op_type, factor=1.01):
    """A select_kernel that gives ``op_type`` a kernel off by ``factor``
    (the executor's plans only: eager dispatch keeps the right one)."""
    orig = _plan.select_kernel

    def select(od, key):
        fn, used = orig(od, key)
        if od.type != op_type:
            return fn, used

        def wrong(ins, attrs, need):
            return [None if o is None else o * factor for o in fn(ins, attrs, need)]
        return wrong, used
    return select


def test_off_by_default_is_a_plain_static_function():
    net = paddle.jit.to_static(Net())
    assert type(net.forward) is StaticFunction
    f = paddle.jit.to_static(lambda x: x + 1)
    assert type(f) is StaticFunction


def test_agreeing_program_passes_outputs_and_gradients():
    net = paddle.jit.to_static(Net(), check=True)
    assert isinstance(net.forward, CheckedStaticFunction)
    x = _x()
    x.stop_gradient = False
    loss = net(x)
    loss.backward()                      # the static result still trains
    assert net.fc.weight.grad is not None
    assert x.grad is not None


def test_wrong_static_kernel_is_named_with_its_line(monkeypatch):
    monkeypatch.setattr(_plan, "select_kernel", _wrong("tanh"))
    net = paddle.jit.to_static(Net(), check=True)
    with pytest.raises(EquivalenceError) as info:
        net(_x())
    e = info.value
    msg = str(e)
    assert "'tanh'" in msg and f"{__file__}:{TANH_LINE}" in msg
    assert "h = paddle.tanh(h)" in msg
    assert "static value" in msg and "eager value" in msg
    assert e.op_type == "tanh" and e.location.lineno == TANH_LINE
    np.testing.assert_allclose(e.static_value, e.eager_value * 1.01, rtol=1e-5)


def test_wrong_kernel_in_training_mode(monkeypatch):
    monkeypatch.setattr(_plan, "select_kernel", _wrong("tanh"))
    net = paddle.jit.to_static(Net(), check=True)
    x = _x()
    x.stop_gradient = False
    with pytest.raises(EquivalenceError, match="first op that differs is 'tanh'"):
        net(x)


def test_wrong_gradient_kernel_is_reported(monkeypatch):
    monkeypatch.setattr(_plan, "select_kernel", _wrong("tanh_grad", 1.5))
    net = paddle.jit.to_static(Net(), check=True)
    with pytest.raises(EquivalenceError, match="gradient of parameter 'fc.weight'"):
        net(_x())


def test_warn_policy_and_call_budget(monkeypatch):
    monkeypatch.setattr(_plan, "select_kernel", _wrong("tanh"))
    net = paddle.jit.to_static(Net(), check={"calls": 2, "policy": "warn"})
    x = _x()
    for _ in range(2):
        with pytest.warns(EquivalenceWarning, match="'tanh'"):
            net(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        net(x)                           # past the budget: no check
    assert net.forward._checks_left == 0


def test_tolerance_option(monkeypatch):
    monkeypatch.setattr(_plan, "select_kernel", _wrong("tanh", 1.0 + 1e-4))
    net = paddle.jit.to_static(Net(), check={"rtol": 1e-2})
    net(_x())                            # within rtol: no error


def test_global_switch():
    paddle.jit.set_check(True, calls=3)
    try:
        f = paddle.jit.to_static(lambda x: x * 2)
        assert isinstance(f, CheckedStaticFunction) and f._checks_left == 3
        np.testing.assert_allclose(f(_x()).numpy(), _x().numpy() * 2)
        g = paddle.jit.to_static(lambda x: x * 2, check=False)
        assert type(g) is StaticFunction
    finally:
        paddle.jit.set_check(False)
    assert type(paddle.jit.to_static(lambda x: x)) is StaticFunction


def test_plain_function(monkeypatch):
    monkeypatch.setattr(_plan, "select_kernel", _wrong("exp"))

    def f(x):
        y = x + 1.0
        z = paddle.exp(y)
        return z, y

    sf = paddle.jit.to_static(f, check=True)
    with pytest.raises(EquivalenceError, match=r"'exp'.*`z = paddle.exp\(y\)`"):
        sf(_x())


@pytest.mark.parametrize("bad, err", [
    ({"calls": 0}, ValueError), ({"policy": "ignore"}, ValueError),
    ({"rtol": -1}, ValueError), ({"tol": 1}, TypeError), ("yes", TypeError)])
def test_bad_options(bad, err):
    with pytest.raises(err):
        paddle.jit.to_static(lambda x: x, check=bad)
    with pytest.raises(TypeError):
        paddle.jit.set_check("on")
