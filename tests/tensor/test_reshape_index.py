"""Triangles, diagonals, index writes and strided views beyond the conformance
tables: in-place forms (identity, gradients, static rebinding), the strided
views in static Programs and saved models (sampan runs them in every mode,
Paddle only eagerly), and gradients through the index writes in a static
Program against eager."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec

A = np.arange(12, dtype="float32").reshape(3, 4) / 10


def t(a=A, grad=False):
    return paddle.to_tensor(a, stop_gradient=not grad)


def test_inplace_forms_keep_identity_and_grad():
    w = t(grad=True)
    y = w * 2.0
    z = y
    assert y.tril_(1) is z
    y.index_fill_(paddle.to_tensor([0]), 1, 0.0)
    y.fill_diagonal_(3.0, offset=1)
    y.put_along_axis_(paddle.to_tensor([[2, 0, 1, 1]]), paddle.ones([1, 4]), 0, "add")
    want = np.tril(A * 2, 1)
    want[:, 0] = 0
    want[[0, 1, 2], [1, 2, 3]] = 3
    np.add.at(want, ([2, 0, 1, 1], [0, 1, 2, 3]), 1)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-6)
    (g,) = paddle.grad(y.sum(), [w])
    gw = np.tril(np.full_like(A, 2.0), 1)
    gw[:, 0] = 0
    gw[[0, 1, 2], [1, 2, 3]] = 0
    np.testing.assert_allclose(g.numpy(), gw)


def test_inplace_into_a_leaf_that_needs_grad_raises():
    with pytest.raises(ValueError, match="inplace"):
        t(grad=True).triu_()


def test_index_fill_inplace_fills_along_its_axis():
    x = t()
    x.index_fill_(paddle.to_tensor([1, 3]), 1, -1.0)
    want = A.copy()
    want[:, [1, 3]] = -1
    np.testing.assert_array_equal(x.numpy(), want)


def test_inplace_forms_rebind_in_a_static_program():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [3, 4], "float32")
            y = x * 1.0
            y.triu_(-1)
            y.transpose_([1, 0])
            out = paddle.index_add_(y, paddle.to_tensor([0, 0]), 1, paddle.ones([4, 2]))
        (got,) = paddle.static.Executor().run(main, feed={"x": A}, fetch_list=[y])
        assert out is y
    finally:
        paddle.disable_static()
    want = np.triu(A, -1).T.copy()
    want[:, 0] += 2
    np.testing.assert_allclose(got, want, rtol=1e-6)


def _views(x):
    return (paddle.view(x, [2, 6]), x.unfold(1, 2, 2), paddle.as_strided(x, [2, 2], [4, 1], 4),
            paddle.view(x, "int32"), x.view_as(paddle.zeros([6, 2])))


def test_strided_views_in_static_programs_and_saved_models(tmp_path):
    x = t()
    eager = [o.numpy() for o in _views(x)]
    fn = paddle.jit.to_static(_views, input_spec=[InputSpec([3, 4], "float32", "x")])
    for got, want in zip(fn(x), eager):
        np.testing.assert_array_equal(got.numpy(), want)
    paddle.jit.save(fn, str(tmp_path / "views"))
    loaded = paddle.jit.load(str(tmp_path / "views"))
    for got, want in zip(loaded(x), eager):
        np.testing.assert_array_equal(got.numpy(), want)


def _writes(x, v):
    idx = paddle.to_tensor([[0, 0, 2, 0], [0, 1, 2, 0]])
    return (paddle.put_along_axis(x, idx, v, 0, "mul", broadcast=False).sum()
            + paddle.index_add(x, paddle.to_tensor([2, 2]), 0, v).sum() * 0.5
            + paddle.scatter_nd_add(x, paddle.to_tensor([[1, 1], [1, 1]]), v[:, 0]).sum()
            + (paddle.kron(v, x[:1]) ** 2).sum() + paddle.diagonal(x, 1).sum()
            + paddle.multiplex([x, x * x], paddle.to_tensor([[1], [0], [1]], "int32")).sum()
            + paddle.unfold(x, 0, 2, 1).sum() + paddle.as_strided(x, [2, 2], [1, 1]).sum())


def test_gradients_of_index_writes_in_a_static_program_match_eager():
    v0 = np.array([[1.5, -0.5, 2.0, 0.7], [0.3, 1.1, -1.2, 0.9]], "float32")
    x, v = t(grad=True), t(v0, grad=True)
    want = [g.numpy() for g in paddle.grad(_writes(x, v), [x, v])]
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            xs = paddle.static.data("x", [3, 4], "float32")
            vs = paddle.static.data("v", [2, 4], "float32")
            xs.stop_gradient = vs.stop_gradient = False
            gx, gv = paddle.static.gradients([_writes(xs, vs)], [xs, vs])
        got = paddle.static.Executor().run(main, feed={"x": A, "v": v0}, fetch_list=[gx, gv])
    finally:
        paddle.disable_static()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_value_errors_name_the_argument():
    with pytest.raises(ValueError, match="reduce must be one of"):
        paddle.put_along_axis(t(), paddle.to_tensor([[0]]), t(A[:1, :1]), 0, "max")
    with pytest.raises(ValueError, match="RepeatsTensor has 2 values"):
        paddle.repeat_interleave(t(), paddle.to_tensor([1, 2]), 0)
    with pytest.raises(IndexError, match="out of range"):
        paddle.scatter_nd_add(t(), paddle.to_tensor([[3, 0]]), t(A[0, :1]))
    with pytest.raises(ValueError, match="cannot be viewed"):
        paddle.view(t(), [5, 2])
    with pytest.raises(ValueError, match="reads past the end"):
        paddle.as_strided(t(), [3, 3], [4, 4], 4)
