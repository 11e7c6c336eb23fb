"""The error contract (ops/errors.py): sampan's errors are instances of the builtin
class Paddle 2.6 raises for the same fault, in every mode; the conformance suite
checks it case by case against recorded Paddle results, these tests check the
mechanism itself."""
import pickle

import numpy as np
import pytest

import sampan as paddle
from sampan.ops import OpError, kind_of
from sampan.executor import ExecutionError


def test_an_op_error_is_of_its_kind_and_an_op_error():
    e = OpError("op 'gather': axis 2 is out of range", kind=IndexError)
    assert isinstance(e, IndexError) and isinstance(e, OpError)
    assert not isinstance(e, ValueError)
    assert type(e).__name__ == "OpError[IndexError]"
    d = OpError("bad value")                     # the default kind: InvalidArgument
    assert isinstance(d, ValueError) and type(d).__name__ == "OpError"
    assert type(OpError("a", kind=IndexError)) is type(e)        # one class per kind
    assert str(OpError("k", kind=KeyError)) == "k"               # not KeyError's repr


def test_kinds_survive_pickling_and_rebuilding():
    for e in (OpError("x"), OpError("y", kind=RuntimeError),
              ExecutionError("z", None, IndexError("i"))):
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is type(e) and str(back) == str(e)
        assert type(type(e)(str(e))) is type(e)     # jit/errors.py rebuilds by type


def test_kind_of_names_the_contract_class():
    assert kind_of(OpError("x", kind=IndexError)) is IndexError
    assert kind_of(ZeroDivisionError()) is ZeroDivisionError
    assert kind_of(np.exceptions.AxisError(1, 1)) is ValueError
    # a kernel tripping over a malformed program is bad input, not an AttributeError
    assert kind_of(AttributeError("x")) is ValueError
    assert kind_of(KeyError("x")) is ValueError


def test_an_execution_error_takes_the_kind_of_what_it_wraps():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [4, 3], "float32")
            i = paddle.static.data("i", [2], "int64")
            out = paddle.gather(x, i, axis=1)
        exe = paddle.static.Executor(paddle.CPUPlace())
        with pytest.raises(IndexError) as info:
            exe.run(main, feed={"x": np.zeros((4, 3), "float32"),
                                "i": np.array([0, 5], "int64")}, fetch_list=[out])
    finally:
        paddle.disable_static()
    assert isinstance(info.value, ExecutionError) and isinstance(info.value, OpError)
    assert "gather" in str(info.value) and "5" in str(info.value)


@pytest.mark.parametrize("call, kind", [
    (lambda x: paddle.gather(x, paddle.to_tensor([0]), axis=2), IndexError),
    (lambda x: paddle.gather(x, paddle.to_tensor([0]), axis=-3), IndexError),
    (lambda x: paddle.cumsum(x, axis=2), IndexError),
    (lambda x: paddle.concat([x, x], axis=2), ValueError),
    (lambda x: paddle.sqrt(x.astype("int32")), RuntimeError),           # no int kernel
    (lambda x: paddle.add(x, x.astype("bool")), RuntimeError),           # no bool add kernel
    (lambda x: paddle.multiply(x, x.astype("bool")), ValueError),        # a bool kernel refuses
    (lambda x: x.astype("float99"), TypeError),
    (lambda x: paddle.moveaxis(x, 0, 2), AssertionError),
    (lambda x: paddle.nn.functional.celu(x, alpha=0.0), ZeroDivisionError),
    (lambda x: x[1.5], ValueError),
    (lambda x: x[3], IndexError),
    (lambda x: x.astype("int32") & 1, ValueError),
    (lambda x: paddle.logical_and(x > 0, True), ValueError),
])
def test_eager_and_static_raise_paddles_class(call, kind):
    x = paddle.to_tensor(np.ones((3, 4), "float32"))
    with pytest.raises(kind):
        call(x)
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            with pytest.raises(kind):
                out = call(paddle.static.data("x", [3, 4], "float32"))
                exe = paddle.static.Executor(paddle.CPUPlace())
                exe.run(feed={"x": np.ones((3, 4), "float32")}, fetch_list=[out])
    finally:
        paddle.disable_static()


@pytest.mark.parametrize("data, kind", [
    ("abc", TypeError), ({"a": 1}, TypeError), ({1, 2}, TypeError), (None, TypeError),
    (object(), TypeError), (["a", "b"], ValueError), ([1, "a"], ValueError),
    (b"abc", ValueError), ([1, None], ValueError), (np.array(["a"]), ValueError),
])
def test_to_tensor_refuses_what_is_not_numbers(data, kind):
    with pytest.raises(kind, match="to_tensor"):
        paddle.to_tensor(data)


@pytest.mark.parametrize("dtype", ["int32", "int64", "int8", "uint8"])
def test_integer_division_by_zero_raises(dtype):
    x = paddle.to_tensor(np.array([3, 4], dtype))
    for f in (lambda: x // 0, lambda: x % 0, lambda: paddle.floor_divide(x, x * 0),
              lambda: paddle.remainder(x, x * 0)):
        with pytest.raises(ValueError, match="division by zero"):
            f()
