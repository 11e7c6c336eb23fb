"""Eager views share storage (dygraph/aliases.py): the answers that are not
recorded from Paddle (tests/conformance/cases/aliasing.py says why), checked
by hand, and the bookkeeping's own guarantees (no leaks, no cycles)."""
import gc
import weakref

import numpy as np
import pytest

import sampan as paddle


def _loss_of(x0, z0):
    """sum(c * y) where y = 2x and y[0:2] is multiplied in place by z."""
    x = paddle.to_tensor(x0, stop_gradient=False)
    z = paddle.to_tensor(z0, stop_gradient=False)
    y = x * 2
    v = y[0:2]
    v.multiply_(z)
    loss = (y * paddle.to_tensor([1.0, 2.0, 3.0])).sum()
    return loss, x, z, y


def test_gradient_through_a_base_follows_the_write_into_its_view():
    x0, z0 = np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0])
    loss, x, z, y = _loss_of(x0, z0)
    np.testing.assert_allclose(y.numpy(), [20.0, 80.0, 6.0])
    loss.backward()
    # by hand: y = [2 x0 z0, 2 x1 z1, 2 x2]
    np.testing.assert_allclose(x.grad.numpy(), [20.0, 80.0, 6.0])
    np.testing.assert_allclose(z.grad.numpy(), [2.0, 8.0])
    # and numerically
    eps = 1e-6
    for k in range(3):
        d = np.zeros(3)
        d[k] = eps
        num = (_loss_of(x0 + d, z0)[0].item() - _loss_of(x0 - d, z0)[0].item()) / (2 * eps)
        assert abs(num - x.grad.numpy()[k]) < 1e-4


def test_gradient_through_a_view_after_a_write_into_its_base():
    x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0], stop_gradient=False)
    y = x * 2
    v = y.reshape([2, 2])
    y.multiply_(x)                      # v now holds 2 x * x
    c = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    (v * c).sum().backward()
    np.testing.assert_allclose(v.numpy(), [[2.0, 8.0], [18.0, 32.0]])
    np.testing.assert_allclose(x.grad.numpy(), 4 * np.array([1.0, 2.0, 3.0, 4.0]) *
                               np.array([1.0, 2.0, 3.0, 4.0]))


@pytest.mark.parametrize("make", [
    lambda x: x.unfold(0, 2, 1),
    lambda x: paddle.as_strided(x, [3, 2], [1, 1]),
])
def test_write_into_overlapping_windows_reaches_the_base_and_every_copy(make):
    x = paddle.arange(6, dtype="float32")
    v = make(x)
    other = x.reshape([2, 3])
    v[1, 1] = 100.0                      # base element 2 in both views
    np.testing.assert_array_equal(x.numpy(), [0, 1, 100, 3, 4, 5])
    np.testing.assert_array_equal(v.numpy(), make(paddle.to_tensor(x.numpy())).numpy())
    np.testing.assert_array_equal(other.numpy(), [[0, 1, 100], [3, 4, 5]])


def test_as_strided_with_an_offset_writes_the_right_elements():
    x = paddle.arange(12, dtype="float32").reshape([3, 4])
    v = paddle.as_strided(x, [2, 2], [4, 1], 4 * 4)    # offset in bytes: from x[1, 0]
    np.testing.assert_array_equal(v.numpy(), [[4, 5], [8, 9]])
    v.zero_()
    assert x.numpy()[1:, :2].sum() == 0 and x.numpy().sum() == 66 - 26


def test_a_dtype_changing_write_takes_the_view_out_of_its_group():
    x = paddle.arange(4, dtype="float32")
    v = x[0:2]
    v.cast_("float64")
    v[0] = 5.0
    np.testing.assert_array_equal(x.numpy(), [0, 1, 2, 3])
    x.zero_()
    np.testing.assert_array_equal(v.numpy(), [5, 1])
    assert v.dtype == paddle.float64


def test_a_parameter_takes_values_and_keeps_its_gradient():
    lin = paddle.nn.Linear(3, 2)
    w = lin.weight
    with paddle.no_grad():
        w[0].zero_()
    assert w.is_leaf and not w.stop_gradient
    np.testing.assert_array_equal(w.numpy()[0], 0)
    v = w[1]                              # a view recorded on the tape
    v.add_(paddle.ones([2]))              # allowed: v is not the leaf
    assert w.is_leaf
    (w * 3).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 3 * np.ones([3, 2]))


def test_views_of_a_detached_tensor_stay_out_of_autograd():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 3
    d = y.detach()
    y.multiply_(x)                        # d sees the values, not the graph
    np.testing.assert_allclose(d.numpy(), [3.0, 12.0])
    assert d.stop_gradient and d.is_leaf


def test_dead_views_are_dropped_and_nothing_keeps_the_base_alive():
    x = paddle.ones([8])
    for i in range(1000):
        x[i % 8].numpy()                   # each view dies at once
    group = x._alias[0]
    assert len(group.members) < 40
    # no reference cycle: the base goes when its last name does, without gc
    gc.disable()
    try:
        y = paddle.ones([4])
        r = y.reshape([2, 2])
        ref = weakref.ref(y)
        del y
        assert ref() is None               # a view holds the storage, not the tensor
        r.add_(paddle.ones([2, 2]))       # the group still writes without its root
        np.testing.assert_array_equal(r.numpy(), 2 * np.ones([2, 2]))
    finally:
        gc.enable()


def test_views_left_alone_when_the_root_is_gone():
    x = paddle.arange(6, dtype="float32")
    a, b = x[0:3], x.reshape([2, 3])
    del x
    a.zero_()
    np.testing.assert_array_equal(b.numpy(), [[0, 0, 0], [3, 4, 5]])


def test_internal_snapshots_do_not_join_groups():
    x = paddle.ones([2, 3])
    x[0, 1] = 5.0                          # setitem views x internally
    assert getattr(x, "_alias", None) is None
    x.reshape_([3, 2])
    assert getattr(x, "_alias", None) is None


def test_static_programs_are_untouched():
    @paddle.jit.to_static(full_graph=True)
    def f(x):
        v = x.reshape([6])
        v = v * 2
        return x + 1, v

    a, v = f(paddle.ones([2, 3]))
    np.testing.assert_array_equal(a.numpy(), 2 * np.ones([2, 3]))
    np.testing.assert_array_equal(v.numpy(), 2 * np.ones([6]))


def test_view_functions_called_with_keywords_share_too():
    x = paddle.arange(6, dtype="float32").reshape([2, 3])
    u = paddle.unbind(input=x, axis=0)
    s = paddle.slice(input=x, axes=[1], starts=[0], ends=[2])
    r = paddle.reshape(x=x, shape=[3, 2])
    x[0, 0] = 9.0
    assert u[0].numpy()[0] == 9.0 and s.numpy()[0, 0] == 9.0 and r.numpy()[0, 0] == 9.0


def test_views_see_what_a_to_static_program_writes():
    bn = paddle.nn.BatchNorm1D(4)
    m = bn._mean.reshape([2, 2])
    d = bn._mean.detach()
    paddle.jit.to_static(bn)(paddle.rand([8, 4]) + 3)    # training: updates the statistics
    assert np.abs(bn._mean.numpy()).sum() > 0
    np.testing.assert_array_equal(m.numpy().reshape(-1), bn._mean.numpy())
    np.testing.assert_array_equal(d.numpy(), bn._mean.numpy())
