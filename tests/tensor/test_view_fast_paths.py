"""reshape, transpose and basic indexing of an eager CPU tensor that records no
gradient take numpy's view directly (dygraph/engine.py ``unrecorded_array``);
their values, dtypes, shapes and errors must be the op's, which the recording
path still runs."""
import numpy as np
import pytest

import sampan as paddle
from sampan.tensor import indexing as I

INDICES = [0, -1, 2, (1, 2), (slice(None), 1), slice(1, 3), slice(None, None, 2),
           (Ellipsis, 0), (None, 1), (0, None, slice(1, None)), (slice(-3, -1), -2),
           slice(5, 100), slice(3, 1), (), Ellipsis, (1, Ellipsis, None)]


def _both(fn, shape=(3, 4, 5), dtype="float32"):
    a = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
    fast = fn(paddle.to_tensor(a))
    slow = fn(paddle.to_tensor(a, stop_gradient=False))    # the op, recorded
    return fast, slow


@pytest.mark.parametrize("index", INDICES, ids=[repr(i) for i in INDICES])
def test_basic_index_equals_the_slice_op(index):
    fast, slow = _both(lambda t: t[index])
    assert fast.dtype == slow.dtype and fast.shape == slow.shape
    np.testing.assert_array_equal(fast.numpy(), slow.numpy())


@pytest.mark.parametrize("shape, perm", [([12, 5], [1, 0, 2]), ([60], [0, 1, 2]),
                                         ([3, -1], [2, 0, 1]), ([0, 4, 5], [-1, 0, 1])])
def test_reshape_and_transpose_equal_the_ops(shape, perm):
    for fn in (lambda t: t.reshape(shape), lambda t: t.transpose(perm)):
        fast, slow = _both(fn)
        assert fast.shape == slow.shape and fast.dtype == slow.dtype
        np.testing.assert_array_equal(fast.numpy(), slow.numpy())


@pytest.mark.parametrize("fn", [lambda t: t[5], lambda t: t[0, 0, 0, 0],
                                lambda t: t.reshape([7, 9]), lambda t: t.reshape([-1, -1]),
                                lambda t: t.transpose([0, 0, 1]), lambda t: t.transpose([1, 0])])
def test_errors_are_the_ops(fn):
    a = np.zeros((3, 4, 5), "float32")
    with pytest.raises(Exception) as fast:
        fn(paddle.to_tensor(a))
    with pytest.raises(Exception) as slow:
        fn(paddle.to_tensor(a, stop_gradient=False))
    assert type(fast.value) is type(slow.value)


def test_a_0d_result_is_a_tensor_of_the_dtype():
    t = paddle.to_tensor(np.array([1, 2, 3], "int32"))
    y = t[1]
    assert y.shape == [] and y.dtype == paddle.int32 and y.item() == 2


def _general_write(t, index, value):
    """The set_value op's path (what setitem runs when a gradient records)."""
    I.inplace(t, lambda s: I.set_value_of(s, index, value))


WRITES = [((0, 1), 2.0), (0, 7), (slice(1, 3), -1.5), ((slice(None), 2), 3),
          ((Ellipsis, 1), 0.25), ((-1, slice(None, None, 2)), 9)]


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("index, value", WRITES, ids=[repr(w) for w in WRITES])
def test_setitem_equals_the_set_value_op(dtype, index, value):
    a = (np.arange(20).reshape(4, 5) % 3).astype(dtype)
    fast = paddle.to_tensor(a)
    fast[index] = value
    slow = paddle.to_tensor(a)
    _general_write(slow, index, value)
    assert fast.dtype == slow.dtype
    np.testing.assert_array_equal(fast.numpy(), slow.numpy())


def test_setitem_of_a_tensor_value_equals_the_op():
    a = np.zeros((3, 4), "float32")
    v = np.arange(4, dtype="float64")
    fast = paddle.to_tensor(a)
    fast[1] = paddle.to_tensor(v)                    # float64 into float32: cast
    slow = paddle.to_tensor(a)
    _general_write(slow, 1, paddle.to_tensor(v))
    np.testing.assert_array_equal(fast.numpy(), slow.numpy())
    assert fast.inplace_version == 1
