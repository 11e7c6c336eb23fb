"""Indexing and slice assignment in converted code (Paddle's test_slice.py /
test_jit_setitem.py behaviours): reads with steps and negative steps, writes
such as ``y[1, :, 3] = v`` (set_value), writes in tensor if/while bodies,
list items written in loops, zero-size tensors, a layer writing into its
activation, saved and loaded."""
import numpy as np
import pytest

import sampan as paddle

from .util import check, check_layer

pytestmark = pytest.mark.filterwarnings("ignore:jit.save:UserWarning")

X = np.arange(60, dtype="float32").reshape(3, 4, 5) / 10.0 - 2.0


def reads(x):
    return x[::2], x[::-2], x[1:, ::-1, 2], x[-1], x[..., 1:3], x[:, None, 0]


def write_middle(x):
    y = paddle.zeros([3, 4, 5])
    y[1, :, 3] = x[0, :, 0]
    return y + x


def write_scalar_and_block(x):
    y = x * 1.0
    y[0] = paddle.full([4, 5], 2.0)
    y[1:2, 0:1] = 10.0
    y[:, -1] = y[:, 0] * 3.0
    return y


def write_in_tensor_if(x):
    y = x + 0.0
    if x.sum() > 0:
        y[0, 0] = x[1, 1] * 2.0
    else:
        y[2, 3] = -x[0, 0]
    return y


def write_in_tensor_while(x):
    y = x * 1.0
    i = paddle.zeros([1], "int64")
    while i < 3:
        y[i] = y[i] * 2.0
        i += 1
    return y


def write_with_tensor_index(x):
    y = x * 1.0
    idx = paddle.argmax(x.sum(axis=[1, 2]))
    y[idx] = 0.0
    return y


def list_items_written(x):
    a = [x[0], x[1], x[2]]
    for i in range(3):
        a[i] = a[i] * float(i + 1)
    return paddle.stack(a[0:2])


def list_items_written_tensor_loop(x):
    a = []
    n = paddle.full([1], 3, "int32")
    i = 0
    while i < n:
        a.append(x[0])
        i += 1
    return a[0] * 2.0


@pytest.mark.parametrize("fn", [reads, write_middle, write_scalar_and_block,
                                write_in_tensor_if, write_in_tensor_while,
                                write_with_tensor_index, list_items_written,
                                list_items_written_tensor_loop])
def test_values_and_gradients(fn):
    for a in (X, -X):
        check(fn, a, grad=(0,))


def zero_size(x):
    return x[1:2]


def test_zero_size_slice():
    x = paddle.ones([0, 0, 0, 0])
    y = paddle.jit.to_static(zero_size, full_graph=True)(x)
    assert y.shape == [0, 0, 0, 0]


def test_slice_with_unknown_dims():
    sf = paddle.jit.to_static(reads, input_spec=[paddle.static.InputSpec([None, 4, 5],
                                                                         "float32")],
                              full_graph=True)
    for rows in (3, 5):
        a = np.arange(rows * 20, dtype="float32").reshape(rows, 4, 5)
        ref = reads(paddle.to_tensor(a))
        got = sf(paddle.to_tensor(a))
        for r, g in zip(ref, got):
            np.testing.assert_array_equal(g.numpy(), r.numpy())


class WritesActivation(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(5, 2)

    def forward(self, x):
        y = self.linear(x)
        y[0] = 1.0
        return y


def test_layer_writing_its_activation_saved(tmp_path):
    net = WritesActivation()
    static = paddle.jit.to_static(net, full_graph=True)
    x = paddle.to_tensor(X[0])
    check_layer(net, X[0], grad=(0,))
    path = str(tmp_path / "set_value")
    paddle.jit.save(static, path, input_spec=[x])
    np.testing.assert_allclose(paddle.jit.load(path)(x).numpy(), static(x).numpy(),
                               rtol=1e-6)


def slice_write_in_branch_and_loop(x):
    y = paddle.zeros([3, 4, 5])
    if x.mean() > 0:
        y[1, :, 3] = x[0, :, 1]
    else:
        y[:, 1:3, ::2] = 1.0
    i = 0
    while i < 2:
        y[i, ..., -1] += x[i, :, 0]
        i += 1
    y[1:] *= 2.0
    return y


def test_slice_writes_in_branches_loops_and_augmented():
    for a in (X, -X):
        check(slice_write_in_branch_and_loop, a, grad=(0,))
