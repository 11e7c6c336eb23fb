"""paddle.autograd.PyLayer: custom forward/backward, recorded as one tape node;
behaviour checked against Paddle 2.6.2 (the values in the asserts come from it)."""
import numpy as np
import pytest

import sampan as paddle
from sampan.autograd import PyLayer, PyLayerContext


def _t(v, sg=False):
    return paddle.to_tensor(np.asarray(v, "float32"), stop_gradient=sg)


class Cus(PyLayer):
    @staticmethod
    def forward(ctx, x, y, k=2.0):
        ctx.save_for_backward(x, y)
        ctx.k = k
        return x * y * k, x + 1

    @staticmethod
    def backward(ctx, g1, g2):
        x, y = ctx.saved_tensor()
        ctx.seen_g2 = g2.numpy().copy()
        return g1 * y * ctx.k + g2, g1 * x * ctx.k


def test_forward_backward_two_outputs_and_materialized_grads():
    x, y = _t([1., 2.]), _t([3., 4.])
    a, b = Cus.apply(x, y, k=3.0)
    assert not a.stop_gradient and not b.stop_gradient
    np.testing.assert_allclose(a.numpy(), [9., 24.])
    a.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [9., 12.])
    np.testing.assert_allclose(y.grad.numpy(), [3., 6.])
    assert isinstance(PyLayerContext(), PyLayerContext)


def test_ctx_is_per_call_and_backward_sees_zero_grad():
    class Keep(PyLayer):
        ctxs = []

        @staticmethod
        def forward(ctx, x):
            Keep.ctxs.append(ctx)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            ctx.gb = gb
            return ga * 2

    x = _t([1., 2.])
    a, _ = Keep.apply(x)
    a.sum().backward()
    np.testing.assert_allclose(Keep.ctxs[0].gb.numpy(), [0., 0.])

    class NoMat(Keep):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            Keep.ctxs.append(ctx)
            return x * 2, x * 3

    x = _t([1., 2.])
    a, _ = NoMat.apply(x)
    a.sum().backward()
    assert Keep.ctxs[-1].gb is None
    np.testing.assert_allclose(x.grad.numpy(), [2., 2.])


def test_backward_result_checks():
    class One(PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(ValueError):
        One.apply(_t([1.]), _t([2.])).sum().backward()

    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g * 2, g * 3

    with pytest.raises(ValueError, match="should return None at 1 position"):
        Two.apply(_t([1.]), _t([2.], sg=True)).sum().backward()

    class NoneOk(Two):
        @staticmethod
        def backward(ctx, g):
            return g * 2, None

    x, y = _t([1., 2.]), _t([3., 4.])
    NoneOk.apply(x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2., 2.])
    assert y.grad is None


def test_no_input_needs_grad_gives_plain_outputs():
    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    assert Two.apply(_t([1.], sg=True)).stop_gradient
    with paddle.no_grad():
        assert Two.apply(_t([1.])).stop_gradient


def test_mark_non_differentiable():
    class ND(PyLayer):
        @staticmethod
        def forward(ctx, x):
            a, b = x * 2, x * 3
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            np.testing.assert_allclose(gb.numpy(), 0.)
            return ga * 2

    x = _t([1., 2.])
    a, b = ND.apply(x)
    assert not a.stop_gradient and b.stop_gradient
    a.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2., 2.])


def test_inplace_output_and_mark_not_inplace():
    class IP(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = _t([1., 2.])
    z = x * 1
    o = IP.apply(z)
    assert o is z
    o.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5., 5.])

    class NIP(IP):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            return x

    x = _t([1., 2.])
    z = x * 1
    o = NIP.apply(z)
    assert o is not z and not o.stop_gradient
    o.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5., 5.])


def test_grad_and_create_graph():
    class Sq(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensor()
            return 2 * x * g

    x = _t([1., 2.])
    g, = paddle.grad(Sq.apply(x).sum(), x, create_graph=True)
    assert not g.stop_gradient
    np.testing.assert_allclose(g.numpy(), [2., 4.])
    g2, = paddle.grad(g.sum(), x)
    np.testing.assert_allclose(g2.numpy(), [2., 2.])
    # through a chain of ordinary ops on both sides
    x = _t([0.5, -1.0])
    y = paddle.tanh(Sq.apply(paddle.exp(x)))
    gx, = paddle.grad(y.sum(), x)
    e = np.exp([0.5, -1.0])
    np.testing.assert_allclose(gx.numpy(), (1 - np.tanh(e * e) ** 2) * 2 * e * e, rtol=1e-5)


def test_list_input_position_and_tuple_output():
    class L(PyLayer):
        @staticmethod
        def forward(ctx, xs, scale):
            return (xs[0] * xs[1] * scale,)

        @staticmethod
        def backward(ctx, g):
            return ([g * 2, g * 3],)     # one entry for the one (list) position

    x, y = _t([1., 2.]), _t([3., 4.])
    out = L.apply([x, y], 2.0)
    assert isinstance(out, tuple) and len(out) == 1
    out[0].sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2., 2.])
    np.testing.assert_allclose(y.grad.numpy(), [3., 3.])

    class Bad(L):
        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(ValueError, match="should be 1, but received 2"):
        Bad.apply([_t([1.]), _t([2.])], 1.0)[0].sum().backward()


def test_saved_tensors_hooks_and_once_differentiable():
    log = []

    def pack(t):
        log.append("pack")
        return t.numpy().copy()

    def unpack(a):
        log.append("unpack")
        return paddle.to_tensor(a)

    class Sq(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @paddle.autograd.py_layer.once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensor()
            return 2 * x * g

    x = _t([1., 3.])
    with paddle.autograd.saved_tensors_hooks(pack, unpack):
        y = Sq.apply(x)
    y.sum().backward()
    assert log == ["pack", "unpack"]
    np.testing.assert_allclose(x.grad.numpy(), [2., 6.])


def test_keyword_tensor_is_a_position():
    class K(PyLayer):
        @staticmethod
        def forward(ctx, x, y=None):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g * 2, g * 3

    x, y = _t([1., 2.]), _t([3., 4.])
    K.apply(x, y=y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2., 2.])
    np.testing.assert_allclose(y.grad.numpy(), [3., 3.])


def test_base_forward_backward_raise():
    class Empty(PyLayer):
        pass

    with pytest.raises(NotImplementedError):
        Empty.apply(_t([1.]))
