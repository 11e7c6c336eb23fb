"""paddle.autograd.jacobian / hessian against values recorded from Paddle 2.6.2
(``EXPECTED``) on the same seeded inputs, and the lazy Jacobian object's behaviour."""
import numpy as np
import pytest

import sampan as paddle

EXPECTED = {'H': [[[[-0.2013900727033615, 0.0, 0.0], [0.0, -0.11215061694383621, 0.0],
         [0.0, 0.0, -2.11224196391413e-05]],
        [[0.8444339036941528, 0.0, 0.0], [0.0, 0.6191749572753906, 0.0], [0.0, 0.0, 1.0]]],
       [[[0.8444339036941528, 0.0, 0.0], [0.0, 0.6191749572753906, 0.0], [0.0, 0.0, 1.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]],
 'H1': [[2.502131938934326, 0.0, 0.0], [0.0, 4.32194709777832, 0.0],
        [0.0, 0.0, 0.0006862488808110356]],
 'H1shape': [3, 3],
 'Hb': [[[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]],
        [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]],
        [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]],
        [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]]],
 'Hb_shape': [4, 3, 3],
 'J0': [1.291243314743042, 0.0, 0.0],
 'J00': [],
 'J00v': 12.0,
 'J_shape': [3, 3],
 'Jall': [[1.291243314743042, 0.0, 0.0], [0.0, 1.7758870124816895, 0.0],
          [0.0, 0.0, 0.5416557788848877]],
 'Jarith': [[2.582486629486084, 0.0, 0.0], [0.0, 3.551774024963379, 0.0],
            [0.0, 0.0, 1.0833115577697754]],
 'Jattr': [3, 3],
 'Jb': [[[0.3338441550731659, 0.18413570523262024, 0.0], [0.0, 0.6398049592971802, 0.0]],
        [[0.31768476963043213, 0.4920917749404907, 0.0], [0.0, 0.7496261596679688, 0.0]],
        [[0.842410683631897, 0.20165030658245087, 0.0], [0.0, 1.1465578079223633, 0.0]],
        [[0.27435237169265747, 0.58528733253479, 0.0], [0.0, 0.7469651699066162, 0.0]]],
 'Jb1': [[0.31768476963043213, 0.4920917749404907, 0.0], [0.0, 0.7496261596679688, 0.0]],
 'Jb_row': [[0.0, 0.6398049592971802, 0.0], [0.0, 0.7496261596679688, 0.0],
            [0.0, 1.1465578079223633, 0.0], [0.0, 0.7469651699066162, 0.0]],
 'Jb_shape': [4, 2, 3],
 'Jcol': [0.0, 1.7758870124816895, 0.0],
 'Jneg': [0.0, 0.0],
 'Jxy': [[[[1.291243314743042, 0.0, 0.0], [0.0, 1.7758870124816895, 0.0],
           [0.0, 0.0, 0.5416557788848877]],
          [[0.3944186568260193, 0.3944186568260193, 0.3944186568260193],
           [0.6171102523803711, 0.6171102523803711, 0.6171102523803711],
           [0.00011437481589382514, 0.00011437481589382514, 0.00011437481589382514]]],
         [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
          [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]]]],
 'unused': [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]}


def _run():
    res = {}
    rs = np.random.RandomState(1)
    x = paddle.to_tensor(rs.rand(3).astype('float32'), stop_gradient=False)
    y = paddle.to_tensor(rs.rand(3).astype('float32'), stop_gradient=False)
    f = paddle.tanh(x) * y.sum() + x * x
    J = paddle.autograd.jacobian(f, x)
    res['J_shape'] = J.shape
    res['J0'] = J[0].numpy().tolist()
    res['Jcol'] = J[:, 1].numpy().tolist()
    res['Jall'] = J[:].numpy().tolist()
    res['Jneg'] = J[-1, 0:2].numpy().tolist()
    res['Jattr'] = list(J.shape)
    Js = paddle.autograd.jacobian((f, y * 2), (x, y))
    res['Jxy'] = [[j[:].numpy().tolist() for j in row] for row in Js]
    s = (paddle.tanh(x) * y).sum()
    H = paddle.autograd.hessian(s, [x, y])
    res['H'] = [[h[:].numpy().tolist() for h in row] for row in H]
    H1 = paddle.autograd.hessian((x ** 3).sum(), x)
    res['H1'] = H1[:].numpy().tolist()
    res['H1shape'] = H1.shape
    xb = paddle.to_tensor(rs.rand(4, 3).astype('float32'), stop_gradient=False)
    yb = paddle.tanh(xb)[:, :2] * xb[:, 1:2]
    Jb = paddle.autograd.jacobian(yb, xb, batch_axis=0)
    res['Jb_shape'] = Jb.shape
    res['Jb'] = Jb[:].numpy().tolist()
    res['Jb1'] = Jb[1].numpy().tolist()
    res['Jb_row'] = Jb[:, 1].numpy().tolist()
    zb = (xb ** 2).sum(-1)
    Hb = paddle.autograd.hessian(zb, xb, batch_axis=0)
    res['Hb_shape'] = Hb.shape
    res['Hb'] = Hb[:].numpy().tolist()
    s0 = paddle.to_tensor(2.0, stop_gradient=False); J0 = paddle.autograd.jacobian(s0 * s0 * s0, s0)
    res['J00'] = J0.shape; res['J00v'] = float((J0 + 0).numpy())
    res['Jarith'] = (J * 2).numpy().tolist()
    res['unused'] = paddle.autograd.jacobian(y * 2, x)[:].numpy().tolist()
    return res


def test_jacobian_hessian_match_paddle():
    got = _run()
    assert set(got) == set(EXPECTED)
    for k, v in EXPECTED.items():
        np.testing.assert_allclose(np.array(got[k], dtype=float), np.array(v, dtype=float),
                                   rtol=1e-6, atol=1e-7, err_msg=k)


def test_jacobian_is_lazy_and_cached():
    x = paddle.to_tensor([1., 2., 3.], stop_gradient=False)
    J = paddle.autograd.jacobian(x * x, x)
    assert J._jacobian._cache == {}
    np.testing.assert_allclose(J[1].numpy(), [0., 4., 0.])
    assert list(J._jacobian._cache) == [1]
    np.testing.assert_allclose(J[:].numpy(), np.diag([2., 4., 6.]))
    assert sorted(J._jacobian._cache) == [0, 1, 2]
    assert J.shape == [3, 3]
    assert J.dtype == paddle.float32          # other attributes evaluate the whole matrix
    with pytest.raises(IndexError):
        J[..., 0]
    with pytest.raises(TypeError):
        J[1.5]


def test_jacobian_argument_checks():
    x = paddle.to_tensor(np.ones((2, 2), "float32"), stop_gradient=False)
    with pytest.raises(ValueError):
        paddle.autograd.jacobian(x * 2, x)
    with pytest.raises(ValueError):
        paddle.autograd.jacobian(x * 2, x, batch_axis=1)
    with pytest.raises(ValueError):
        paddle.autograd.hessian(x * 2, x)
    v = paddle.to_tensor([1., 2.], stop_gradient=False)
    h = paddle.autograd.hessian((v * v * v).sum(), v)
    assert isinstance(h, paddle.autograd.Hessian) and h.shape == [2, 2]
    np.testing.assert_allclose(h[:].numpy(), np.diag([6., 12.]))
