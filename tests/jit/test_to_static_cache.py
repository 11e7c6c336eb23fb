"""The program cache: keys by shape/dtype/stop_gradient (InputSpec None dims
honoured), Python values and the training flag; the retrace warning names
what changed."""
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan.jit import program_cache
from sampan.static import InputSpec


def _t(*shape, dtype="float32", stop_gradient=True):
    return paddle.to_tensor(np.ones(shape, dtype), stop_gradient=stop_gradient)


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(4, 2)

    def forward(self, x):
        return self.lin(x)


def test_input_spec_none_batch_traces_once():
    net = paddle.jit.to_static(Net(), input_spec=[InputSpec([None, 4], "float32", "x")])
    for b in (1, 7, 64):
        x = paddle.to_tensor(np.random.rand(b, 4).astype("float32"))
        out = net(x)
        assert out.shape == [b, 2]
        np.testing.assert_allclose(out.numpy(), x.numpy() @ net.lin.weight.numpy()
                                   + net.lin.bias.numpy(), rtol=1e-5)
    assert net.forward.get_traced_count() == 1
    prog = net.forward.concrete_program
    assert [v.name for v in prog.inputs] == ["x"]
    assert prog.inputs[0].shape == (-1, 4)


def test_input_outside_its_spec_is_traced_for_its_shape_with_a_warning():
    # Paddle 2.6.2 runs a call outside the InputSpec (it traces for the new shape)
    f = paddle.jit.to_static(lambda x: (x * 2.0).sum(axis=-1),
                             input_spec=[InputSpec([None, 3], "float32", "x")])
    np.testing.assert_allclose(f(_t(5, 3)).numpy(), np.full([5], 6.0))
    for shape in ([2, 4], [2, 3, 2]):          # a fixed dim differs; the rank differs
        with pytest.warns(UserWarning, match=rf"argument 'x' has shape \[{shape[0]}, "
                                             rf"{shape[1]}.*outside its InputSpec shape "
                                             rf"\[-1, 3\]"):
            out = f(_t(*shape))
        np.testing.assert_allclose(out.numpy(), np.full(shape[:-1], 2.0 * shape[-1]))
    assert f.get_traced_count() == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")         # inside the spec: no warning, no retrace
        f(_t(9, 3))
    assert f.get_traced_count() == 3


def test_input_outside_its_spec_that_the_model_cannot_take_fails_in_the_op():
    net = paddle.jit.to_static(Net(), input_spec=[InputSpec([None, 4], "float32")])
    with pytest.warns(UserWarning, match="outside its InputSpec"), \
            pytest.raises(ValueError, match=r"contracted dim 5 \(X shape \[3, 5\]"):
        net(_t(3, 5))


def test_without_spec_each_shape_is_a_program():
    f = paddle.jit.to_static(lambda x: x * 2.0)
    f(_t(2, 3))
    f(_t(2, 3))
    assert f.get_traced_count() == 1
    f(_t(4, 3))
    assert f.get_traced_count() == 2


def test_dtype_and_python_argument_make_new_programs():
    @paddle.jit.to_static
    def f(x, k):
        return x * k

    out = f(_t(3), 2.0)
    np.testing.assert_allclose(out.numpy(), [2, 2, 2])
    assert f.get_traced_count() == 1
    f(_t(3, dtype="float64"), 2.0)
    assert f.get_traced_count() == 2
    out = f(_t(3), 3.0)
    np.testing.assert_allclose(out.numpy(), [3, 3, 3])
    assert f.get_traced_count() == 3
    f(_t(3), 3.0)
    assert f.get_traced_count() == 3
    f(_t(3, stop_gradient=False), 3.0)
    assert f.get_traced_count() == 4


def test_nested_list_and_keyword_arguments():
    @paddle.jit.to_static
    def f(xs, scale=1.0, bias=None):
        out = xs[0] * scale + xs[1]
        return out if bias is None else out + bias

    a, b = _t(2), _t(2)
    np.testing.assert_allclose(f([a, b], scale=3.0).numpy(), [4, 4])
    np.testing.assert_allclose(f([a, b], scale=3.0, bias=_t(2)).numpy(), [5, 5])
    assert f.get_traced_count() == 2
    names = [v.name for v in f.program_cache.last.concrete_program.inputs]
    assert names == ["xs_0", "xs_1", "bias"]
    f([a, b], 3.0, None)           # the same call written positionally
    assert f.get_traced_count() == 2


def test_keyword_argument_takes_its_input_spec():
    @paddle.jit.to_static(input_spec=[InputSpec([None], "float32", "a"),
                                      InputSpec([None], "float32", "b")])
    def f(a, b):
        return a + b

    for n in (2, 5):
        np.testing.assert_allclose(f(_t(n), b=_t(n)).numpy(), np.full(n, 2.0))
    np.testing.assert_allclose(f(a=_t(3), b=_t(3)).numpy(), np.full(3, 2.0))
    assert f.get_traced_count() == 1


def test_training_flag_selects_programs():
    net = paddle.jit.to_static(Net())
    x = _t(2, 4)
    net(x)
    net.eval()
    net(x)
    net.train()
    net(x)
    assert net.forward.get_traced_count() == 2


def _warning_text(fn, *calls):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for args in calls:
            fn(*args)
    msgs = [str(x.message) for x in w if issubclass(x.category, program_cache.RetraceWarning)]
    return msgs


def test_retrace_warning_names_the_dimension(monkeypatch):
    monkeypatch.setattr(program_cache, "MAX_TRACED_PROGRAM_COUNT", 3)

    @paddle.jit.to_static
    def f(x, y):
        return x + y

    y = _t(1)
    msgs = _warning_text(f, *[(_t(n), y) for n in (1, 2, 3)])
    assert msgs == []
    msgs = _warning_text(f, (_t(9), y))
    assert len(msgs) == 1
    assert "argument 'x' dimension 0: 9 vs cached" in msgs[0], msgs[0]
    assert "'y'" not in msgs[0]


def test_retrace_warning_names_value_and_dtype(monkeypatch):
    monkeypatch.setattr(program_cache, "MAX_TRACED_PROGRAM_COUNT", 2)

    @paddle.jit.to_static
    def f(x, n):
        return x * n

    _warning_text(f, (_t(2), 1), (_t(2), 2))
    msgs = _warning_text(f, (_t(2), 5))
    assert "argument 'n' value: 5 vs cached" in msgs[0], msgs[0]
    msgs = _warning_text(f, (_t(2, dtype="float64"), 5))
    assert "argument 'x' dtype: float64 vs cached float32" in msgs[0], msgs[0]


def test_retrace_warning_names_training_flag(monkeypatch):
    monkeypatch.setattr(program_cache, "MAX_TRACED_PROGRAM_COUNT", 1)
    net = paddle.jit.to_static(Net())
    net(_t(2, 4))
    net.eval()
    msgs = _warning_text(net, (_t(2, 4),))
    assert "training flag (False vs cached True)" in msgs[0], msgs[0]


def test_each_instance_has_its_own_programs():
    class M(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.lin = paddle.nn.Linear(3, 3)

        @paddle.jit.to_static
        def forward(self, x):
            return self.lin(x)

    a, b = M(), M()
    x = _t(1, 3)
    np.testing.assert_allclose(a(x).numpy(), a.lin(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(b(x).numpy(), b.lin(x).numpy(), rtol=1e-6)
    assert a.forward is a.forward
    assert a.forward is not b.forward
    assert a.forward.get_traced_count() == 1 and b.forward.get_traced_count() == 1
    pa = a.forward.concrete_program.main_program
    assert set(pa.bound_tensors) == {a.lin.weight.name, a.lin.bias.name}


def test_program_refers_to_live_parameters():
    net = paddle.jit.to_static(Net())
    x = _t(1, 4)
    net(x)
    net.lin.weight.set_value(np.zeros((4, 2), "float32"))
    np.testing.assert_allclose(net(x).numpy(), net.lin.bias.numpy()[None], rtol=1e-6)
    assert net.forward.get_traced_count() == 1
