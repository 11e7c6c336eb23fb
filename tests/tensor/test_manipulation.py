"""Shape manipulation functions and methods: values against numpy, Paddle's
argument conventions, gradients through list outputs, clear errors."""
import numpy as np
import pytest

import sampan as paddle
from sampan.ops import OpError

A = np.arange(24, dtype="float32").reshape(2, 3, 4)


def t(a=A, grad=False):
    return paddle.to_tensor(a, stop_gradient=not grad)


def test_reshape_family():
    x = t()
    assert paddle.reshape(x, [0, -1]).shape == [2, 12]
    assert x.reshape([4, 0, -1]).shape == [4, 3, 2]
    assert paddle.reshape(x, [paddle.to_tensor(6), 4]).shape == [6, 4]
    assert paddle.reshape(x, paddle.to_tensor([3, 8])).shape == [3, 8]
    assert paddle.transpose(x, [2, 0, 1]).shape == [4, 2, 3]
    assert x.T.shape == [4, 3, 2]
    assert paddle.flatten(x).shape == [24]
    assert x.flatten(1).shape == [2, 12]
    assert paddle.squeeze(paddle.zeros([1, 3, 1]), axis=0).shape == [3, 1]
    assert paddle.zeros([1, 3, 1]).squeeze().shape == [3]
    assert paddle.unsqueeze(x, [0, -1]).shape == [1, 2, 3, 4, 1]
    assert x.unsqueeze(1).shape == [2, 1, 3, 4]
    assert paddle.moveaxis(x, 0, -1).shape == [3, 4, 2]


def test_inplace_reshape_keeps_identity_and_grad():
    w = t(grad=True)
    y = w * 2.0
    z = y
    y.reshape_([6, 4])
    assert z is y and y.shape == [6, 4]
    y.unsqueeze_(0)
    assert y.shape == [1, 6, 4]
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.full(A.shape, 2.0))


def test_reshape_error_names_both_shapes():
    with pytest.raises(OpError, match=r"cannot reshape a tensor of shape \[2, 3, 4\].*\[5, -1\]"):
        paddle.reshape(t(), [5, -1])
    with pytest.raises(OpError, match=r"\[2, 3, 4\].*\[5, 5\]"):
        paddle.reshape(t(), [5, 5])


def test_concat_split_stack():
    x = t()
    c = paddle.concat([x, x], axis=1)
    assert c.shape == [2, 6, 4]
    assert paddle.concat([x, x], axis=paddle.to_tensor(2)).shape == [2, 3, 8]
    parts = paddle.split(x, 2, axis=2)
    assert [p.shape for p in parts] == [[2, 3, 2]] * 2
    parts = paddle.split(x, [1, -1], axis=1)
    assert [p.shape for p in parts] == [[2, 1, 4], [2, 2, 4]]
    parts = x.split([paddle.to_tensor(3), 1], axis=-1)
    assert [p.shape for p in parts] == [[2, 3, 3], [2, 3, 1]]
    assert [p.shape for p in paddle.chunk(x, 3, axis=1)] == [[2, 1, 4]] * 3
    s = paddle.stack([x, x, x], axis=-1)
    assert s.shape == [2, 3, 4, 3]
    assert [u.shape for u in paddle.unstack(x, axis=1)] == [[2, 4]] * 3
    assert [u.shape for u in x.unbind(2)] == [[2, 3]] * 4


def test_concat_errors_name_the_inputs():
    with pytest.raises(OpError, match=r"X\[1\] has shape \[2, 5\] but X\[0\] has shape \[2, 3\]"):
        paddle.concat([paddle.zeros([2, 3]), paddle.zeros([2, 5])], axis=0)
    with pytest.raises(OpError, match="rank"):
        paddle.concat([paddle.zeros([2, 3]), paddle.zeros([2, 3, 1])])
    with pytest.raises(OpError, match="not divisible"):
        paddle.split(t(), 5, axis=2)


def test_gradients_through_list_outputs():
    x = t(grad=True)
    a, b = paddle.split(x, [1, 3], axis=2)
    (a * 2.0).sum().backward()                 # b gets no gradient: zeros are filled in
    want = np.zeros(A.shape)
    want[:, :, :1] = 2.0
    np.testing.assert_allclose(x.grad.numpy(), want)
    x2 = t(grad=True)
    rows = paddle.unstack(x2, axis=0)
    (rows[1] * rows[1]).sum().backward()
    want = np.zeros(A.shape)
    want[1] = 2 * A[1]
    np.testing.assert_allclose(x2.grad.numpy(), want)


def test_expand_tile_flip_roll():
    v = paddle.to_tensor([[1.0], [2.0]])
    assert paddle.expand(v, [3, 2, 4]).shape == [3, 2, 4]
    assert v.expand([-1, 3]).numpy().tolist() == [[1, 1, 1], [2, 2, 2]]
    assert paddle.broadcast_to(v, [2, 2]).shape == [2, 2]
    assert paddle.expand_as(v, paddle.zeros([5, 2, 3])).shape == [5, 2, 3]
    a, b = paddle.broadcast_tensors([v, paddle.zeros([1, 4])])
    assert a.shape == b.shape == [2, 4]
    assert paddle.tile(v, [2, 3]).shape == [4, 3]
    np.testing.assert_array_equal(paddle.flip(t(), [0, 2]).numpy(), A[::-1, :, ::-1])
    np.testing.assert_array_equal(t().flip(1).numpy(), A[:, ::-1])
    np.testing.assert_array_equal(paddle.roll(t(), 1).numpy(), np.roll(A, 1))
    np.testing.assert_array_equal(t().roll([1, -1], [0, 2]).numpy(), np.roll(A, (1, -1), (0, 2)))
    with pytest.raises(OpError, match="must be 1 or equal the target"):
        paddle.expand(paddle.zeros([2, 3]), [2, 4])


def test_slice_functions():
    x = t()
    np.testing.assert_array_equal(paddle.slice(x, [1, 2], [1, -3], [3, 100]).numpy(),
                                  A[:, 1:3, -3:])
    np.testing.assert_array_equal(
        paddle.slice(x, [0], [paddle.to_tensor(1)], [2]).numpy(), A[1:2])
    np.testing.assert_array_equal(
        # an end below -dim going down means Python's (Paddle's kernel would drop row 0)
        paddle.strided_slice(x, [1, 2], [2, 0], [-4, 4], [-1, 3]).numpy(), A[:, 2:-4:-1, 0:4:3])


def test_shape_and_numel():
    s = paddle.shape(t())
    assert s.dtype == paddle.int32 and s.numpy().tolist() == [2, 3, 4]
    n = paddle.numel(t())
    assert n.dtype == paddle.int64 and n.shape == [] and int(n) == 24


def test_double_grad_through_shape_ops():
    x = t(np.linspace(-1, 1, 6).reshape(2, 3), grad=True)
    y = paddle.reshape(paddle.transpose(x, [1, 0]), [6])
    y = paddle.concat([y, paddle.flip(y, 0)]).reshape([2, 6])
    y = paddle.tile(paddle.unsqueeze(y, 0), [2, 1, 1])
    u = paddle.unstack(y, axis=1)[0]
    loss = (u * u * u).sum()
    (g,) = paddle.grad(loss, x, create_graph=True)
    (gg,) = paddle.grad(g.sum(), x)
    # u is row 0 (= x, transposed and flattened) in both tile copies: loss = 2 sum(x^3)
    xv = x.numpy()
    np.testing.assert_allclose(g.numpy(), 6 * xv ** 2, rtol=1e-6)
    np.testing.assert_allclose(gg.numpy(), 12 * xv, rtol=1e-6)


def test_pad_helper_for_functional_pad():
    from sampan.tensor.manipulation import pad
    x = t(grad=True)
    np.testing.assert_array_equal(pad(x, [1, 0, 0, 1, 2, 2], value=9.0).numpy(),
                                  np.pad(A, [(1, 0), (0, 1), (2, 2)], constant_values=9.0))
    np.testing.assert_array_equal(pad(x, [1, 2], mode="reflect", data_format="NCL").numpy(),
                                  np.pad(A, [(0, 0), (0, 0), (1, 2)], mode="reflect"))
    np.testing.assert_array_equal(pad(x, [1, 1], mode="replicate", data_format="NLC").numpy(),
                                  np.pad(A, [(0, 0), (1, 1), (0, 0)], mode="edge"))
    x4 = t(A.reshape(1, 2, 3, 4))
    np.testing.assert_array_equal(pad(x4, [1, 0, 2, 1], mode="circular").numpy(),
                                  np.pad(A.reshape(1, 2, 3, 4), [(0, 0), (0, 0), (2, 1), (1, 0)],
                                         mode="wrap"))
    pad(x, [0, 1], mode="reflect", data_format="NCL").sum().backward()
    want = np.ones(A.shape)
    want[:, :, 2] += 1          # the padded column reflects index 2
    np.testing.assert_array_equal(x.grad.numpy(), want)
