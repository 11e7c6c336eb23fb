"""paddle.optimizer.LBFGS against Paddle 2.6.2: three ``step(closure)`` calls on a
small float64 model from the same weights, plain, with the strong-Wolfe line search
and with a short history (``EXPECTED``: losses, func_evals/n_iter, state keys,
recorded from Paddle in its side venv)."""
import numpy as np
import pytest

import sampan as paddle

EXPECTED = {'hist2': [0.7252868805632164, 0.4746749889663301, 0.13884856511074198,
                      0.04703987459913969],
 'hist2_evals': [18, 18],
 'hist2_keys': ['H_diag', 'al', 'alpha', 'd', 'func_evals', 'n_iter', 'old_sk', 'old_yk',
                'prev_flat_grad', 'prev_loss', 'ro'],
 'plain': [0.7252868805632164, 0.030609920719156053, 0.017841025322699926, 0.01782242067947155],
 'plain_evals': [60, 60],
 'plain_keys': ['H_diag', 'al', 'alpha', 'd', 'func_evals', 'n_iter', 'old_sk', 'old_yk',
                'prev_flat_grad', 'prev_loss', 'ro'],
 'wolfe': [0.7252868805632164, 0.025101300061777437, 0.017834099134743972,
           0.017821585684744824],
 'wolfe_evals': [71, 60],
 'wolfe_keys': ['H_diag', 'al', 'alpha', 'd', 'func_evals', 'n_iter', 'old_sk', 'old_yk',
                'prev_flat_grad', 'prev_loss', 'ro']}


def _run():
    rs = np.random.RandomState(7)
    W1 = rs.randn(3, 4).astype('float32') * 0.5; B1 = rs.randn(4).astype('float32') * 0.1
    W2 = rs.randn(4, 1).astype('float32') * 0.5; B2 = np.zeros(1, 'float32')
    X = rs.randn(10, 3).astype('float32'); Y = rs.randn(10, 1).astype('float32')
    paddle.set_default_dtype('float64')
    X = X.astype('float64'); Y = Y.astype('float64')
    W1, B1, W2, B2 = [a.astype('float64') for a in (W1, B1, W2, B2)]
    res = {}
    for name, kw in [('plain', {}), ('wolfe', {'line_search_fn': 'strong_wolfe'}),
                     ('hist2', {'history_size': 2, 'max_iter': 6, 'learning_rate': 0.5})]:
        m = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Tanh(), paddle.nn.Linear(4, 1))
        for p, v in zip(m.parameters(), [W1, B1, W2, B2]):
            p.set_value(v)
        o = paddle.optimizer.LBFGS(parameters=m.parameters(), **kw)
        x, y = paddle.to_tensor(X), paddle.to_tensor(Y)
        def closure():
            o.clear_grad()
            loss = ((m(x) - y) ** 2).mean()
            loss.backward()
            return loss
        ls = []
        for i in range(3):
            ls.append(float(o.step(closure)))
        ls.append(float(((m(x) - y) ** 2).mean()))
        res[name] = ls
        res[name + '_evals'] = [o.state['func_evals'], o.state['n_iter']]
        res[name + '_keys'] = sorted(o.state_dict()['state'])
    return res


def test_lbfgs_matches_paddle():
    try:
        got = _run()
    finally:
        paddle.set_default_dtype("float32")
    assert set(got) == set(EXPECTED)
    for k, v in EXPECTED.items():
        if k.endswith("_keys") or k.endswith("_evals"):
            assert got[k] == v, k
        else:
            np.testing.assert_allclose(got[k], v, rtol=1e-9, err_msg=k)


def test_lbfgs_float32_quadratic_and_errors():
    w = paddle.create_parameter([3], "float32")
    w.set_value(np.array([1., -2., 3.], "float32"))
    target = paddle.to_tensor([0.5, 0.5, 0.5])
    opt = paddle.optimizer.LBFGS(parameters=[w], line_search_fn="strong_wolfe")

    def closure():
        opt.clear_grad()
        loss = ((w - target) ** 2).sum()
        loss.backward()
        return loss

    first = float(opt.step(closure))
    assert first == pytest.approx(0.25 + 6.25 + 6.25)
    np.testing.assert_allclose(w.numpy(), [0.5, 0.5, 0.5], atol=1e-5)
    with pytest.raises(NotImplementedError):
        opt.minimize(None)
    with pytest.raises(TypeError):
        paddle.optimizer.LBFGS(parameters=w)
    bad = paddle.optimizer.LBFGS(parameters=[w], line_search_fn="backtracking")
    w.set_value(np.array([1., -2., 3.], "float32"))
    with pytest.raises(RuntimeError, match="strong_wolfe"):
        bad.step(closure)


def test_enable_grad_decorator_enables():
    @paddle.enable_grad()
    def f(x):
        return x * 2

    x = paddle.to_tensor([1.], stop_gradient=False)
    with paddle.no_grad():
        assert not f(x).stop_gradient
