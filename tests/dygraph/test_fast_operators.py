"""The eager Tensor's one-frame operators (dygraph/fast_operators.py) against
the general operators they stand in for (``method.general``: the rules of
tensor/operators.py through bind and run_op): bit-equal values (signed zeros
and NaNs included), dtypes, stop_gradient, gradients and errors, for every
operator of the table over tensors of each dtype, Python numbers of each kind,
0-d tensors, broadcasting, parameters, no_grad, and the cases that must take
the general path (static mode, AMP)."""
import numpy as np
import pytest

import sampan as paddle
from sampan.dygraph import fast_operators as F

DTYPES = ["float32", "float64", "float16", "int32", "int64", "bool"]
NUMBERS = [2, -3, 0, 1, 2.5, -0.0, 0.0, 1.0, float("nan"), float("inf"), 1e-45, True, 3 + 0j]
METHODS = sorted(F.FAST)


def _array(dtype, shape=(2, 3), seed=0):
    rs = np.random.RandomState(seed)
    if dtype == "bool":
        return rs.rand(*shape) > 0.5
    if dtype.startswith("int"):
        return rs.randint(-4, 5, shape).astype(dtype)
    a = rs.standard_normal(shape).astype(dtype)
    a.flat[0] = -0.0
    if a.size > 2:
        a.flat[1] = np.nan
        a.flat[2] = 0.0
    return a


def _both(name, x, other):
    """(fast result or exception, general result or exception)."""
    fast = getattr(paddle.Tensor, name)
    res = []
    for fn in (fast, fast.general):
        try:
            res.append(fn(x, other))
        except Exception as e:          # noqa: BLE001 - compared below
            res.append(e)
    return res


def _same(got, want):
    if isinstance(want, Exception):
        assert type(got) is type(want) and str(got) == str(want)
        return
    assert not isinstance(got, Exception), got
    if want is NotImplemented:
        assert got is NotImplemented
        return
    g, w = got.numpy(), want.numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    assert got.stop_gradient == want.stop_gradient
    for part in ((np.real, np.imag) if g.dtype.kind == "c" else
                 (lambda a: a,) if g.dtype.kind == "f" else ()):
        np.testing.assert_array_equal(np.isnan(part(g)), np.isnan(part(w)))
        np.testing.assert_array_equal(np.signbit(part(g)), np.signbit(part(w)))
    np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_operands(name, dtype):
    x = paddle.to_tensor(_array(dtype))
    for other_dtype in DTYPES:
        y = paddle.to_tensor(_array(other_dtype, seed=1))
        _same(*_both(name, x, y))
    # broadcasting and 0-d operands
    _same(*_both(name, x, paddle.to_tensor(_array(dtype, (3,), seed=2))))
    z = paddle.to_tensor(_array(dtype, (), seed=3))
    _same(*_both(name, z, paddle.to_tensor(_array(dtype, (), seed=4))))


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_number_operands(name, dtype):
    for shape in [(2, 3), ()]:
        x = paddle.to_tensor(_array(dtype, shape))
        for v in NUMBERS:
            _same(*_both(name, x, v))


@pytest.mark.parametrize("name", ["__add__", "__sub__", "__mul__", "__truediv__",
                                  "__radd__", "__rsub__", "__rmul__"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_equal(name, dtype):
    def grads(use_fast):
        x = paddle.to_tensor(_array(dtype, seed=5) + 2, stop_gradient=False)
        y = paddle.to_tensor(_array(dtype, seed=6) + 3, stop_gradient=False)
        fn = getattr(paddle.Tensor, name)
        fn = fn if use_fast else fn.general
        outs = [fn(x, 1.5), fn(x, -2)]
        if name in F._REFLECTED:
            outs.append(fn(x, 0.25))
        else:
            outs.append(fn(x, y))
        loss = sum((o * o).sum() for o in outs)
        loss.backward()
        return x.grad.numpy(), (None if y.grad is None else y.grad.numpy())

    (gx, gy), (wx, wy) = grads(True), grads(False)
    np.testing.assert_array_equal(gx, wx)
    if wy is None:
        assert gy is None
    else:
        np.testing.assert_array_equal(gy, wy)


def test_parameter_operand_and_records():
    w = paddle.create_parameter([2, 3], "float32")
    x = paddle.to_tensor(_array("float32", seed=7))
    out = x * w
    assert not out.stop_gradient
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), x.numpy())


def test_no_grad_records_nothing():
    x = paddle.to_tensor(_array("float32"), stop_gradient=False)
    with paddle.no_grad():
        for y in (x + x, x * 2.0, x - 1, x / 4.0):
            assert y.stop_gradient and y._node is None


def test_comparison_results_are_bool_without_grad():
    x = paddle.to_tensor(_array("float32"), stop_gradient=False)
    for r in (x > 0, x <= 0.5, x == 0.0, x != 1):
        assert r.dtype == paddle.bool and r.stop_gradient


def test_amp_and_static_take_the_general_path():
    x = paddle.to_tensor(_array("float32"))
    with paddle.amp.auto_cast():
        _same(*_both("__add__", x, x))
        _same(*_both("__mul__", x, 2.0))
    paddle.enable_static()
    try:
        v = paddle.static.data("v", [2, 3], "float32")
        out = v + v
        assert type(out).__name__ == "Variable"
        assert (v * 2.0).block.ops[-1].type == "scale"
    finally:
        paddle.disable_static()


def test_integer_division_and_bool_add_errors():
    i = paddle.to_tensor(np.array([1, 2], "int64"))
    _same(*_both("__truediv__", i, paddle.to_tensor(np.array([0, 1], "int64"))))
    b = paddle.to_tensor(np.array([True, False]))
    got, want = _both("__add__", b, b)
    assert isinstance(want, Exception)
    _same(got, want)


def test_number_tables_stay_bounded():
    x = paddle.to_tensor(_array("float32"))
    for k in range(F._LIMIT + 50):
        x + float(k)
        x > float(k)
    fn = paddle.Tensor.__add__
    cells = [c.cell_contents for c in fn.__closure__ if isinstance(c.cell_contents, dict)]
    assert cells and all(len(c) <= F._LIMIT for c in cells)


def test_the_fast_cases_never_reach_the_general_path():
    from sampan.ops import get_op
    from sampan.tensor.operators import SCALE_ATTRS, _fill

    def general(x, y):
        raise AssertionError("general path")

    def make(name, op_type):
        scale = get_op("scale") if name in SCALE_ATTRS else None
        return F.fast_operator(name, get_op(op_type), general, scale, SCALE_ATTRS.get(name),
                               _fill if name in F._COMPARE else None)

    x = paddle.to_tensor(_array("float32"), stop_gradient=False)
    y = paddle.to_tensor(_array("float32", seed=1))
    i = paddle.to_tensor(_array("int64"))
    for name, op_type in F.FAST.items():
        m = make(name, op_type)
        x + y, x * 2.0, x > 0, i + 1          # kernels cached for these dtypes
        if name not in F._REFLECTED:
            assert m(x, y).shape == [2, 3]
        assert m(x, 2.5).shape == [2, 3]
        if name in SCALE_ATTRS and name != "__truediv__":
            assert m(i, 3).dtype == paddle.int64
        with pytest.raises(AssertionError, match="general path"):
            m(x, True)                              # a bool number: the general rules


def test_fast_results_are_built_as_wrap_builds_them():
    """The fast operator builds its tensor and grad node inline: every field
    tensor.wrap and GradNode.__init__ set is set, to the same values."""
    from sampan.dygraph.tensor import Tensor, wrap
    from sampan.dygraph.engine import GradNode
    from sampan.ops import get_op
    a = paddle.to_tensor(np.ones(3, np.float32), stop_gradient=False)
    b = paddle.to_tensor(np.ones(3, np.float32))
    for got, want in ((b + b, wrap(np.ones(3, np.float32))),
                      (a + b, wrap(np.ones(3, np.float32), False, GradNode(
                          get_op("elementwise_add"), None, (a, b), (a._data, b._data), ()),
                          0))):
        for name in Tensor.__slots__:
            if name == "__weakref__":
                continue
            assert hasattr(got, name) == hasattr(want, name), name
            if name not in ("_data", "_node") and hasattr(want, name):
                assert getattr(got, name) == getattr(want, name), name
        assert (got._node is None) == (want._node is None)
    node = (a + b)._node
    for name in GradNode.__slots__:
        assert hasattr(node, name), name
    assert node.hooks is None and node.op.type == "elementwise_add" and node.ins[0] is a
