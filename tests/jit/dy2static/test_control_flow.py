"""if/else, loops, break/continue and return in converted code (Paddle's
test_ifelse.py / test_loop.py / test_break_continue.py / test_return.py /
test_for_enumerate.py behaviours), each on inputs that take every path:
eager and to_static give the same values and gradients."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F

from .util import check

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], "float32")
INPUTS = (X, -X, X * 0.01)


# ----------------------------------------------------------------- if / else
def if_tensor_scalar(x):
    if paddle.mean(x) > 0.5:
        y = x - 1.0
    else:
        y = x + 1.0
    return y


def if_python_value_specialises(x, flag=True):
    if flag:
        return x * 2.0
    return x


def if_nested_with_elif(x):
    s = x.sum()
    if s > 2.0:
        y = F.relu(x)
    elif s > 0.0:
        if x.max() > 1.0:
            y = x * 3.0
        else:
            y = x * 4.0
    else:
        y = paddle.abs(x)
    return y


def if_var_only_in_one_branch_then_used(x):
    y = x
    if x.mean() > 0:
        z = x * 2.0
        y = z + 1.0
    return y


def ifexp_tensor(x):
    return x * 2.0 if x.sum() > 0 else x - 2.0


def if_with_logical_ops(x):
    if x.mean() > 0 and x.max() > 1.0 or not (x.min() > -5.0):
        y = x + 100.0
    else:
        y = x
    return y


def if_returning_different_structures_python(x, n=2):
    if n > 1:
        return x, x * 2.0
    return x


# ----------------------------------------------------------------- loops
def while_tensor_condition(x):
    i = paddle.zeros([1], "int32")
    s = paddle.zeros_like(x)
    while i < 4:
        s = s + x * paddle.cast(i, "float32")
        i += 1
    return s


def while_on_value(x):
    y = x
    while paddle.abs(y).max() > 0.1:
        y = y * 0.5
    return y


def for_range_python(x):
    y = x
    for i in range(3):
        y = paddle.tanh(y) + float(i)
    return y


def for_range_tensor(x):
    n = paddle.full([1], 3, "int64")
    y = x
    for _ in range(n):
        y = y * 1.5
    return y


def for_over_tensor_rows(x):
    total = paddle.zeros([3])
    for row in x:
        total = total + row * row
    return total


def for_enumerate_list(x):
    ys = [x, x * 2.0, x * 3.0]
    out = paddle.zeros_like(x)
    for i, y in enumerate(ys):
        out = out + y * float(i)
    return out


def for_zip_and_dict_items(x):
    d = {"a": x, "b": x + 1.0}
    out = x
    for k, v in d.items():
        out = out + v
    for a, b in zip([x, x], [1.0, 2.0]):
        out = out * b + a
    return out


def nested_loops(x):
    y = x
    i = paddle.zeros([1], "int64")
    while i < 2:
        for j in range(2):
            y = y + float(j)
        i += 1
    return y


# ----------------------------------------------------------------- break / continue
def break_in_tensor_while(x):
    i = paddle.zeros([1], "int64")
    y = x
    while i < 10:
        y = y * 1.1
        if y.sum() > 5.0:
            break
        i += 1
    return y


def continue_in_for(x):
    y = x
    for i in range(5):
        if i % 2 == 0:
            continue
        y = y + float(i)
    return y


def break_continue_tensor_for(x):
    y = x
    for i in range(6):
        if x.mean() > 10.0:
            continue
        y = y + 1.0
        if y.sum() > 8.0:
            break
    return y


def for_else(x):
    y = x
    for i in range(3):
        if i > 5:
            break
        y = y * 2.0
    else:
        y = y - 1.0
    return y


# ----------------------------------------------------------------- return
def early_return_tensor(x):
    if x.sum() > 0:
        return x * 2.0
    y = x - 1.0
    return y


def return_in_loop(x):
    for i in range(4):
        x = x + 1.0
        if x.mean() > 2.0:
            return x
    return x * 0.0


def return_tuple_and_none(x):
    if x.mean() > 0:
        return x, x + 1.0
    return x * 2.0, x


def return_nested_structure(x):
    return {"a": [x, (x + 1.0, x * 2.0)], "b": x.sum()}


CASES = [if_tensor_scalar, if_python_value_specialises, if_nested_with_elif,
         if_var_only_in_one_branch_then_used, ifexp_tensor, if_with_logical_ops,
         if_returning_different_structures_python, while_tensor_condition, while_on_value,
         for_range_python, for_range_tensor, for_over_tensor_rows, for_enumerate_list,
         for_zip_and_dict_items, nested_loops, break_in_tensor_while, continue_in_for,
         break_continue_tensor_for, for_else, early_return_tensor, return_in_loop,
         return_tuple_and_none, return_nested_structure]


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_values_and_gradients(fn):
    static_fn = paddle.jit.to_static(fn, full_graph=True)
    for a in INPUTS:
        check(fn, a, grad=(0,), static_fn=static_fn)


def test_variable_bound_on_one_path_of_a_tensor_if_is_a_clear_error():
    def f(x):
        if x.mean() > 0:
            y = x * 2.0
        return y
    sf = paddle.jit.to_static(f, full_graph=True)
    with pytest.raises(Exception, match="'y' is bound only in the true branch") as info:
        sf(paddle.to_tensor(X))
    assert "test_control_flow.py" in str(info.value)
