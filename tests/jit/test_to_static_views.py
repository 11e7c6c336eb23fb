"""Writes through views inside to_static do what they do eagerly: ``x[0]``,
``x.reshape(...)``, ``x.transpose(...)``, ``x.detach()`` ... are views of x
(dygraph/aliases.py, checked against Paddle 2.6.2 in tests/dygraph), so an
in-place write into the view is a write into x and into x's other views
(program/views.py: the written elements scattered into the root, the other
members computed again).  Eager results are the truth; each case also shows
that the write is real (the caller's tensor changes).  A caller's leaf that
needs a gradient, written through a view, stays a leaf with the eager
gradients (its later uses to it directly, the view's through the write)."""
import numpy as np
import pytest

import sampan as paddle


from .inplace_parity import make_x as _x, make_y as _y, same_as_eager, same_grads_as_eager


def reshape_add(x, y):
    v = x.reshape([3, 2])
    v.add_(y.reshape([3, 2]))
    return x * 2


def row_scale(x, y):
    x[0].scale_(3.0)
    return x + y


def column_zero(x, y):
    x[:, 1].zero_()
    return x.sum(axis=0)


def transpose_write(x, y):
    t = x.transpose([1, 0])
    t[0] = y[1, 0]                  # t[0] is x[:, 0]
    return t + 0


def chained_views(x, y):
    v = x.flatten()[1:5].reshape([2, 2])
    v.subtract_(paddle.ones([2, 2]))
    return x.mean()


def detach_write(x, y):
    d = x.detach()
    d.multiply_(y)
    return x + 1


def sibling_sees_base_write(x, y):
    v = x.reshape([6])              # a view of x, read after x is written
    x.add_(y)
    return v * 1


def sibling_sees_view_write(x, y):
    a, b = x[0], x.unsqueeze(0)
    a.fill_(7.0)
    return b.sum(axis=1)


def view_written_in_branch(x, y):
    r = x[1]
    if y.sum() > 0:
        r.add_(y[0])
    return x * 1


CASES = [reshape_add, row_scale, column_zero, transpose_write, chained_views, detach_write,
         sibling_sees_base_write, sibling_sees_view_write, view_written_in_branch]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_a_write_through_a_view_is_a_write_into_its_base(fn):
    static = same_as_eager(fn)
    assert not np.array_equal(static[0][1], _x().numpy())        # the write is real


@pytest.mark.parametrize("fn", [row_scale, column_zero, chained_views, sibling_sees_view_write],
                         ids=lambda f: f.__name__)
def test_gradients_follow_the_write_as_eagerly(fn):
    # the write's scatter is differentiable: d/dx of the result through the view
    same_grads_as_eager(fn, lambda out, x: (out * out).sum())


def view_write_then_both(x, y):
    z = x[0]
    z.scale_(3.0)
    return z * y[0] + (x * x).sum()


def two_view_writes(x, y):
    x[0].scale_(2.0)
    x[1].multiply_(y[1])
    return x * y


@pytest.mark.parametrize("fn", [row_scale, column_zero, chained_views, transpose_write,
                                sibling_sees_view_write, view_written_in_branch,
                                view_write_then_both, two_view_writes],
                         ids=lambda f: f.__name__)
def test_a_leaf_written_through_a_view_stays_a_leaf(fn):
    # eagerly a leaf that needs a gradient, written through a view, stays a leaf:
    # its later uses differentiate to it directly, the view's own uses through the
    # write; the call does the same (and the caller's tensor stays a leaf), and a
    # non-leaf caller of the same program still differentiates through the write
    def run(f, leaf):
        w = paddle.to_tensor(np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3),
                             stop_gradient=False)
        x = w if leaf else w * 1.5
        y = _y()
        y.stop_gradient = False
        out = f(x, y)
        ((out * out).sum() + (x * 2).sum()).backward()
        grads = [None if t.grad is None else t.grad.numpy() for t in (w, y)]
        return [out.numpy(), x.numpy()] + grads + [x.is_leaf]

    static = paddle.jit.to_static(fn, full_graph=True)
    for leaf in (True, False, True):
        want, got = run(fn, leaf), run(static, leaf)
        for a, b in zip(got[:4], want[:4]):
            # (y written only into the leaf: eagerly no gradient, here zeros)
            np.testing.assert_allclose(0 if a is None else a, 0 if b is None else b,
                                       rtol=1e-5, atol=1e-6)
        assert got[4] == want[4] == leaf


@pytest.mark.parametrize("fn", [row_scale, column_zero, chained_views, transpose_write,
                                sibling_sees_view_write, view_written_in_branch],
                         ids=lambda f: f.__name__)
def test_a_view_of_an_input_with_unknown_dims_is_written_through(fn):
    # the base's element numbers are taken at run time (its shape has a None dim)
    spec = [paddle.static.InputSpec([None, 3], "float32"),
            paddle.static.InputSpec([None, 3], "float32")]
    f = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    for rows in (2, 2, 4):              # the second call reuses the program; a new size
        xe, xs = _x(rows), _x(rows)
        want, got = fn(xe, _y(rows=rows)), f(xs, _y(rows=rows))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        np.testing.assert_allclose(xs.numpy(), xe.numpy(), rtol=1e-6)
        assert not np.array_equal(xs.numpy(), _x(rows).numpy())     # the write is real


def test_a_program_built_in_static_mode_keeps_static_semantics():
    # outside to_static every variable is its own value, as in Paddle's static
    # mode (checked with Paddle 2.6.2: x2 stays zero after y.add_ on its reshape)
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [2, 3], "float32")
            x2 = x * 1.0
            y = x2.reshape([3, 2])
            with pytest.warns(UserWarning, match="does not perform inplace"):
                y.add_(paddle.ones([3, 2]))
            out = x2 + 0
        exe = paddle.static.Executor()
        exe.run(start)
        r, = exe.run(main, feed={"x": np.zeros((2, 3), "float32")}, fetch_list=[out])
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(r, np.zeros((2, 3), "float32"))
