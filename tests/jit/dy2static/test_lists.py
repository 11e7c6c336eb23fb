"""Python lists that become tensor arrays (Paddle's test_list.py behaviours):
appends and pops in loops bounded by a tensor (``paddle.shape(x)[0]``, a
filled tensor), a pop under a tensor condition inside such a loop, slices of
the array, joining it (concat/stack), and a layer iterating over a tensor's
rows into a list read under a tensor if."""
import numpy as np
import pytest

import sampan as paddle

from .util import check, check_layer

X = np.array([[0.5, -1.0, 2.0, 1.0], [1.5, 0.25, -0.75, 0.0], [2.0, 1.0, 0.5, -1.0]],
             "float32")


def append_bounded_by_shape(x):
    n = paddle.shape(x)[0]
    a = []
    for _ in range(n):
        x = x + 1.0
        a.append(x)
    return paddle.concat(a)[0]


def append_in_while_bounded_by_shape(x):
    n = paddle.shape(x)[0]
    a = []
    i = 0
    while i < n:
        x = x * 1.5
        a.append(x)
        i += 1
    return paddle.concat(a)[0]


def pop_under_tensor_condition(x):
    n = paddle.full([1], 4, "int32")
    a = []
    b = [x]
    b.append(x)
    b.pop()
    i = 0
    while i < n:
        a.append(x + paddle.to_tensor(i, dtype="float32"))
        b.append(x - paddle.to_tensor(i, dtype="float32"))
        i += 1
        if i % 2 == 1:
            a.pop()
    return a[0], b[2], paddle.stack(a, axis=0)


def slice_of_array(x):
    a = []
    for i in range(paddle.to_tensor(3)):
        a.append(x * paddle.to_tensor(i, dtype="float32"))
    t = a[1:3]
    return a[2], paddle.stack(t)


def pops_in_python_loop_after_tensor_loop(x):
    n = paddle.full([1], 3, "int32")
    a = []
    for i in range(n):
        a.append(x + 1.0)
    item = a.pop()
    return a[0], item


@pytest.mark.parametrize("fn", [append_bounded_by_shape, append_in_while_bounded_by_shape,
                                slice_of_array, pops_in_python_loop_after_tensor_loop])
def test_values_and_gradients(fn):
    check(fn, X, grad=(0,))


def pops_in_tensor_loop(x):
    n = paddle.full([1], 2, "int32")
    a = []
    i = 0
    while i < n:
        a.append(x * 2.0)
        a.append(x * 7.0)
        i += 1
        a.pop()                  # the popped item gets no gradient
    return paddle.stack(a, axis=0)


@pytest.mark.parametrize("fn", [pop_under_tensor_condition, pops_in_tensor_loop])
def test_pop_inside_a_tensor_loop(fn):
    check(fn, X)                 # a pop that empties the array included
    check(fn, X, grad=(0,))


class RowsNet(paddle.nn.Layer):
    def forward(self, x, index):
        y = paddle.nn.functional.relu(x)
        a = []
        for row in y:
            a.append(row)
        if index > 0:
            res = a[0] * a[0]
            y = y + 1.0
        else:
            res = a[-1] * a[-1]
            y = y - 1.0
        return a[-1] * res * y[0]


def test_layer_iterating_rows_into_a_list():
    net = RowsNet()
    for idx in (1, -1):
        check_layer(net, X, np.array([idx], "int64"), grad=(0,))
