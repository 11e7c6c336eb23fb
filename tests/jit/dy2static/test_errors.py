"""Errors from converted code (Paddle's test_error.py behaviours): the
exception class of the failing call is kept and the message points at the
user's own file, function and line, for errors while the program is built
(a bad shape, a Python error, one in a nested call) and while it runs."""
import numpy as np
import pytest

import sampan as paddle

X = np.ones([2, 3], "float32")


def bad_matmul(x):
    y = paddle.ones([4, 5])
    return paddle.matmul(x, y)


def helper_raises(x):
    raise NotImplementedError("helper is not ready")


def calls_helper(x):
    y = x + 1.0
    return helper_raises(y)


def python_error_in_branch(x):
    if x.sum() > 0:
        y = x + [1, 2][5]
    else:
        y = x
    return y


def bad_reshape_at_run_time(x):
    return paddle.reshape(x, [-1, 4])


@pytest.mark.parametrize("fn, cls, line", [
    (bad_matmul, ValueError, "return paddle.matmul(x, y)"),
    (calls_helper, NotImplementedError, "raise NotImplementedError"),
    (python_error_in_branch, IndexError, "y = x + [1, 2][5]"),
])
def test_build_errors_keep_their_class_and_name_the_line(fn, cls, line):
    sf = paddle.jit.to_static(fn, full_graph=True)
    with pytest.raises(cls) as info:
        sf(paddle.to_tensor(X))
    msg = str(info.value)
    assert "test_errors.py" in msg and line in msg, msg


def test_run_time_error_names_the_line():
    sf = paddle.jit.to_static(bad_reshape_at_run_time, full_graph=True,
                              input_spec=[paddle.static.InputSpec([None, 3], "float32")])
    sf(paddle.to_tensor(np.ones([4, 3], "float32")))
    with pytest.raises(Exception) as info:
        sf(paddle.to_tensor(np.ones([3, 3], "float32")))
    assert "reshape" in str(info.value)


def test_eager_and_static_raise_the_same_class():
    for fn in (bad_matmul, calls_helper):
        with pytest.raises(Exception) as eager:
            fn(paddle.to_tensor(X))
        with pytest.raises(Exception) as static:
            paddle.jit.to_static(fn, full_graph=True)(paddle.to_tensor(X))
        assert isinstance(static.value, type(eager.value))


def test_converted_code_is_readable():
    sf = paddle.jit.to_static(python_error_in_branch, full_graph=True)
    assert "def python_error_in_branch" in sf.code and "convert_ifelse" in sf.code
