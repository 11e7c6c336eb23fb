"""Tensor shapes in converted code (Paddle's test_tensor_shape.py /
test_dynamic_shape_infermeta.py behaviours): ``x.shape`` with known and
unknown (None) dims feeding reshape/zeros/loops, ``paddle.shape``, ``numel``,
``x.ndim``/``x.dim()``, all for batches of several sizes under one program."""
import numpy as np
import pytest

import sampan as paddle

from .util import check

SPEC = [paddle.static.InputSpec([None, 4], "float32")]


def reshape_by_shape(x):
    b = x.shape[0]
    y = paddle.reshape(x, [b, 2, 2])
    return y.sum(axis=-1), y.shape[1] * 1.0 + x


def zeros_like_shape(x):
    z = paddle.zeros([x.shape[0], x.shape[1] * 2])
    return paddle.concat([x, x], axis=1) + z


def loop_over_leading_dim(x):
    s = paddle.zeros([x.shape[1]])
    for i in range(x.shape[0]):
        s = s + x[i]
    return s


def shape_tensor_ops(x):
    shp = paddle.shape(x)
    n = paddle.numel(x)
    return shp, n, x.ndim, x.dim(), len(x.shape), x * paddle.cast(n, "float32")


def shape_in_tensor_if(x):
    if x.shape[0] > 2:
        y = x[:2]
    else:
        y = x * 2.0
    return y


@pytest.mark.parametrize("fn", [reshape_by_shape, zeros_like_shape, loop_over_leading_dim,
                                shape_tensor_ops, shape_in_tensor_if])
def test_unknown_batch_dim(fn):
    sf = paddle.jit.to_static(fn, input_spec=SPEC, full_graph=True)
    for rows in (1, 3, 5):
        a = np.arange(rows * 4, dtype="float32").reshape(rows, 4) / 7.0
        check(fn, a, grad=(0,), static_fn=sf)
    assert sf.get_traced_count() == 1


@pytest.mark.parametrize("fn", [reshape_by_shape, zeros_like_shape, loop_over_leading_dim,
                                shape_tensor_ops, shape_in_tensor_if])
def test_known_shapes(fn):
    check(fn, np.ones([3, 4], "float32"), grad=(0,))
