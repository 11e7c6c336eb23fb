"""Adamax, Adadelta, Lamb against Paddle 2.6.2: a few eager training steps from the
same initial weights (``EAGER``: losses, state-dict keys, beta1_pow), and static
``minimize`` programs (``STATIC``: the optimizer ops with their slots, names and
attributes, and the losses of three runs from the same weights), both recorded from
Paddle in its side venv."""
import re

import numpy as np
import pytest

import sampan as paddle

EAGER = {'adadelta': [1.3881115913391113, 1.3576171398162842, 1.3277502059936523, 1.298701286315918,
              1.2705217599868774],
 'adadelta2': [1.3881115913391113, 1.2854650020599365, 1.1922334432601929, 1.108776569366455,
               1.0341252088546753],
 'adadelta2_b1p': [],
 'adadelta2_keys': ['L0.b_0__avg_squared_grad_0', 'L0.b_0__avg_squared_update_0',
                    'L0.w_0__avg_squared_grad_0', 'L0.w_0__avg_squared_update_0',
                    'L2.b_0__avg_squared_grad_0', 'L2.b_0__avg_squared_update_0',
                    'L2.w_0__avg_squared_grad_0', 'L2.w_0__avg_squared_update_0'],
 'adadelta_b1p': [],
 'adadelta_keys': ['L0.b_0__avg_squared_grad_0', 'L0.b_0__avg_squared_update_0',
                   'L0.w_0__avg_squared_grad_0', 'L0.w_0__avg_squared_update_0',
                   'L2.b_0__avg_squared_grad_0', 'L2.b_0__avg_squared_update_0',
                   'L2.w_0__avg_squared_grad_0', 'L2.w_0__avg_squared_update_0'],
 'adamax': [1.3881115913391113, 1.084183692932129, 0.8800182938575745, 0.7389914989471436,
            0.6411900520324707],
 'adamax_b1p': [0.5314409136772156],
 'adamax_keys': ['L0.b_0_beta1_pow_acc_0', 'L0.b_0_inf_norm_0', 'L0.b_0_moment_0',
                 'L0.w_0_beta1_pow_acc_0', 'L0.w_0_inf_norm_0', 'L0.w_0_moment_0',
                 'L2.b_0_beta1_pow_acc_0', 'L2.b_0_inf_norm_0', 'L2.b_0_moment_0',
                 'L2.w_0_beta1_pow_acc_0', 'L2.w_0_inf_norm_0', 'L2.w_0_moment_0'],
 'adamax_wd': [1.3881115913391113, 1.084183692932129, 0.8797253370285034, 0.7381476163864136,
               0.639742374420166],
 'adamax_wd_b1p': [0.2621440291404724],
 'adamax_wd_keys': ['L0.b_0_beta1_pow_acc_0', 'L0.b_0_inf_norm_0', 'L0.b_0_moment_0',
                    'L0.w_0_beta1_pow_acc_0', 'L0.w_0_inf_norm_0', 'L0.w_0_moment_0',
                    'L2.b_0_beta1_pow_acc_0', 'L2.b_0_inf_norm_0', 'L2.b_0_moment_0',
                    'L2.w_0_beta1_pow_acc_0', 'L2.w_0_inf_norm_0', 'L2.w_0_moment_0'],
 'lamb': [1.3881115913391113, 1.2370846271514893, 1.1143864393234253, 1.0072243213653564,
          0.9145963191986084],
 'lamb_adapt': [1.3881115913391113, 1.2372002601623535, 1.1145482063293457, 1.0073844194412231,
                0.9147207736968994],
 'lamb_adapt_b1p': [0.5314409136772156],
 'lamb_adapt_keys': ['L0.b_0_beta1_pow_acc_0', 'L0.b_0_beta2_pow_acc_0', 'L0.b_0_moment1_0',
                     'L0.b_0_moment2_0', 'L0.w_0_beta1_pow_acc_0', 'L0.w_0_beta2_pow_acc_0',
                     'L0.w_0_moment1_0', 'L0.w_0_moment2_0', 'L2.b_0_beta1_pow_acc_0',
                     'L2.b_0_beta2_pow_acc_0', 'L2.b_0_moment1_0', 'L2.b_0_moment2_0',
                     'L2.w_0_beta1_pow_acc_0', 'L2.w_0_beta2_pow_acc_0', 'L2.w_0_moment1_0',
                     'L2.w_0_moment2_0'],
 'lamb_b1p': [0.5314409136772156],
 'lamb_excl': [1.3881115913391113, 1.2106989622116089, 1.0625945329666138, 0.940565824508667,
               0.8373235464096069],
 'lamb_excl_b1p': [0.5314409136772156],
 'lamb_excl_keys': ['L0.b_0_beta1_pow_acc_0', 'L0.b_0_beta2_pow_acc_0', 'L0.b_0_moment1_0',
                    'L0.b_0_moment2_0', 'L0.w_0_beta1_pow_acc_0', 'L0.w_0_beta2_pow_acc_0',
                    'L0.w_0_moment1_0', 'L0.w_0_moment2_0', 'L2.b_0_beta1_pow_acc_0',
                    'L2.b_0_beta2_pow_acc_0', 'L2.b_0_moment1_0', 'L2.b_0_moment2_0',
                    'L2.w_0_beta1_pow_acc_0', 'L2.w_0_beta2_pow_acc_0', 'L2.w_0_moment1_0',
                    'L2.w_0_moment2_0'],
 'lamb_keys': ['L0.b_0_beta1_pow_acc_0', 'L0.b_0_beta2_pow_acc_0', 'L0.b_0_moment1_0',
               'L0.b_0_moment2_0', 'L0.w_0_beta1_pow_acc_0', 'L0.w_0_beta2_pow_acc_0',
               'L0.w_0_moment1_0', 'L0.w_0_moment2_0', 'L2.b_0_beta1_pow_acc_0',
               'L2.b_0_beta2_pow_acc_0', 'L2.b_0_moment1_0', 'L2.b_0_moment2_0',
               'L2.w_0_beta1_pow_acc_0', 'L2.w_0_beta2_pow_acc_0', 'L2.w_0_moment1_0',
               'L2.w_0_moment2_0'],
 'lamb_noadapt': [1.3881115913391113, 1.0841856002807617, 0.8610514402389526,
                  0.7035210728645325, 0.5964230298995972],
 'lamb_noadapt_b1p': [0.5314409136772156],
 'lamb_noadapt_keys': ['L0.b_0_beta1_pow_acc_0', 'L0.b_0_beta2_pow_acc_0', 'L0.b_0_moment1_0',
                       'L0.b_0_moment2_0', 'L0.w_0_beta1_pow_acc_0', 'L0.w_0_beta2_pow_acc_0',
                       'L0.w_0_moment1_0', 'L0.w_0_moment2_0', 'L2.b_0_beta1_pow_acc_0',
                       'L2.b_0_beta2_pow_acc_0', 'L2.b_0_moment1_0', 'L2.b_0_moment2_0',
                       'L2.w_0_beta1_pow_acc_0', 'L2.w_0_beta2_pow_acc_0', 'L2.w_0_moment1_0',
                       'L2.w_0_moment2_0']}

STATIC = {'Adadelta': [['adadelta',
               {'AvgSquaredGrad': ['fc_1.b_0__avg_squared_grad_0'],
                'AvgSquaredUpdate': ['fc_1.b_0__avg_squared_update_0'],
                'Grad': ['fc_1.b_0@GRAD'],
                'LearningRate': ['learning_rate_1'],
                'MasterParam': [],
                'Param': ['fc_1.b_0']},
               {'AvgSquaredGradOut': ['fc_1.b_0__avg_squared_grad_0'],
                'AvgSquaredUpdateOut': ['fc_1.b_0__avg_squared_update_0'],
                'ParamOut': ['fc_1.b_0']},
               {'epsilon': 9.999999974752427e-07,
                'multi_precision': False,
                'op_namescope': '/optimizer_2/',
                'op_role': 2,
                'op_role_var': ['fc_1.b_0', 'fc_1.b_0@GRAD'],
                'rho': 0.949999988079071}],
              ['adadelta',
               {'AvgSquaredGrad': ['fc_1.w_0__avg_squared_grad_0'],
                'AvgSquaredUpdate': ['fc_1.w_0__avg_squared_update_0'],
                'Grad': ['fc_1.w_0@GRAD'],
                'LearningRate': ['learning_rate_1'],
                'MasterParam': [],
                'Param': ['fc_1.w_0']},
               {'AvgSquaredGradOut': ['fc_1.w_0__avg_squared_grad_0'],
                'AvgSquaredUpdateOut': ['fc_1.w_0__avg_squared_update_0'],
                'ParamOut': ['fc_1.w_0']},
               {'epsilon': 9.999999974752427e-07,
                'multi_precision': False,
                'op_namescope': '/optimizer_3/',
                'op_role': 2,
                'op_role_var': ['fc_1.w_0', 'fc_1.w_0@GRAD'],
                'rho': 0.949999988079071}]],
 'Adadelta_loss': [0.0729602575302124, 0.07248090207576752, 0.07200025767087936],
 'Adamax': [['adamax',
             {'Beta1Pow': ['fc_0.b_0_beta1_pow_acc_0'],
              'Grad': ['fc_0.b_0@GRAD'],
              'InfNorm': ['fc_0.b_0_inf_norm_0'],
              'LearningRate': ['learning_rate_0'],
              'MasterParam': [],
              'Moment': ['fc_0.b_0_moment_0'],
              'Param': ['fc_0.b_0']},
             {'InfNormOut': ['fc_0.b_0_inf_norm_0'],
              'MomentOut': ['fc_0.b_0_moment_0'],
              'ParamOut': ['fc_0.b_0']},
             {'beta1': 0.8999999761581421,
              'beta2': 0.9990000128746033,
              'epsilon': 9.99999993922529e-09,
              'multi_precision': False,
              'op_namescope': '/optimizer/',
              'op_role': 2,
              'op_role_var': ['fc_0.b_0', 'fc_0.b_0@GRAD']}],
            ['adamax',
             {'Beta1Pow': ['fc_0.w_0_beta1_pow_acc_0'],
              'Grad': ['fc_0.w_0@GRAD'],
              'InfNorm': ['fc_0.w_0_inf_norm_0'],
              'LearningRate': ['learning_rate_0'],
              'MasterParam': [],
              'Moment': ['fc_0.w_0_moment_0'],
              'Param': ['fc_0.w_0']},
             {'InfNormOut': ['fc_0.w_0_inf_norm_0'],
              'MomentOut': ['fc_0.w_0_moment_0'],
              'ParamOut': ['fc_0.w_0']},
             {'beta1': 0.8999999761581421,
              'beta2': 0.9990000128746033,
              'epsilon': 9.99999993922529e-09,
              'multi_precision': False,
              'op_namescope': '/optimizer_1/',
              'op_role': 2,
              'op_role_var': ['fc_0.w_0', 'fc_0.w_0@GRAD']}],
            ['scale', {'ScaleTensor': [], 'X': ['fc_0.b_0_beta1_pow_acc_0']},
             {'Out': ['fc_0.b_0_beta1_pow_acc_0']},
             {'bias': 0.0,
              'bias_after_scale': True,
              'op_namescope': '/adamax/',
              'op_role': 2,
              'op_role_var': ['fc_0.b_0', 'fc_0.b_0@GRAD'],
              'scale': 0.8999999761581421}],
            ['scale', {'ScaleTensor': [], 'X': ['fc_0.w_0_beta1_pow_acc_0']},
             {'Out': ['fc_0.w_0_beta1_pow_acc_0']},
             {'bias': 0.0,
              'bias_after_scale': True,
              'op_namescope': '/adamax_1/',
              'op_role': 2,
              'op_role_var': ['fc_0.w_0', 'fc_0.w_0@GRAD'],
              'scale': 0.8999999761581421}]],
 'Adamax_loss': [0.0729602575302124, 0.04567085579037666, 0.03532371670007706],
 'Lamb': [['lamb',
           {'Beta1Pow': ['fc_2.b_0_beta1_pow_acc_0'],
            'Beta2Pow': ['fc_2.b_0_beta2_pow_acc_0'],
            'Grad': ['fc_2.b_0@GRAD'],
            'LearningRate': ['learning_rate_2'],
            'MasterParam': [],
            'Moment1': ['fc_2.b_0_moment1_0'],
            'Moment2': ['fc_2.b_0_moment2_0'],
            'Param': ['fc_2.b_0'],
            'SkipUpdate': []},
           {'Beta1PowOut': ['fc_2.b_0_beta1_pow_acc_0'],
            'Beta2PowOut': ['fc_2.b_0_beta2_pow_acc_0'],
            'Moment1Out': ['fc_2.b_0_moment1_0'],
            'Moment2Out': ['fc_2.b_0_moment2_0'],
            'ParamOut': ['fc_2.b_0']},
           {'always_adapt': False,
            'beta1': 0.8999999761581421,
            'beta2': 0.9990000128746033,
            'epsilon': 9.999999974752427e-07,
            'multi_precision': False,
            'op_namescope': '/optimizer_4/',
            'op_role': 2,
            'op_role_var': ['fc_2.b_0', 'fc_2.b_0@GRAD'],
            'weight_decay': 0.009999999776482582}],
          ['lamb',
           {'Beta1Pow': ['fc_2.w_0_beta1_pow_acc_0'],
            'Beta2Pow': ['fc_2.w_0_beta2_pow_acc_0'],
            'Grad': ['fc_2.w_0@GRAD'],
            'LearningRate': ['learning_rate_2'],
            'MasterParam': [],
            'Moment1': ['fc_2.w_0_moment1_0'],
            'Moment2': ['fc_2.w_0_moment2_0'],
            'Param': ['fc_2.w_0'],
            'SkipUpdate': []},
           {'Beta1PowOut': ['fc_2.w_0_beta1_pow_acc_0'],
            'Beta2PowOut': ['fc_2.w_0_beta2_pow_acc_0'],
            'Moment1Out': ['fc_2.w_0_moment1_0'],
            'Moment2Out': ['fc_2.w_0_moment2_0'],
            'ParamOut': ['fc_2.w_0']},
           {'always_adapt': False,
            'beta1': 0.8999999761581421,
            'beta2': 0.9990000128746033,
            'epsilon': 9.999999974752427e-07,
            'multi_precision': False,
            'op_namescope': '/optimizer_5/',
            'op_role': 2,
            'op_role_var': ['fc_2.w_0', 'fc_2.w_0@GRAD'],
            'weight_decay': 0.009999999776482582}]],
 'Lamb_loss': [0.0729602575302124, 0.04544927179813385, 0.029407266527414322]}


def _eager():
    res = {}
    rs = np.random.RandomState(3)
    W1 = rs.randn(4, 5).astype('float32') * 0.5; B1 = rs.randn(5).astype('float32') * 0.1
    W2 = rs.randn(5, 2).astype('float32') * 0.5; B2 = np.zeros(2, 'float32')
    X = rs.randn(8, 4).astype('float32'); Y = rs.randn(8, 2).astype('float32')

    def make():
        paddle.seed(0)
        m = paddle.nn.Sequential(paddle.nn.Linear(4, 5), paddle.nn.Tanh(), paddle.nn.Linear(5, 2))
        for p, v in zip(m.parameters(), [W1, B1, W2, B2]):
            p.set_value(v)
        return m

    def opts(params):
        return {
            'adamax': lambda: paddle.optimizer.Adamax(0.05, parameters=params),
            'adamax_wd': lambda: paddle.optimizer.Adamax(
                0.05, beta1=0.8, beta2=0.99, epsilon=1e-6, weight_decay=0.01, parameters=params),
            'adadelta': lambda: paddle.optimizer.Adadelta(1.0, parameters=params),
            'adadelta2': lambda: paddle.optimizer.Adadelta(0.5, epsilon=1e-4, rho=0.9,
                                                           parameters=params),
            'lamb': lambda: paddle.optimizer.Lamb(0.05, parameters=params),
            'lamb_excl': lambda: paddle.optimizer.Lamb(
                0.05, lamb_weight_decay=0.1, parameters=params,
                exclude_from_weight_decay_fn=lambda p: p.name.endswith('b_0')),
            'lamb_adapt': lambda: paddle.optimizer.Lamb(0.05, lamb_weight_decay=0.0,
                                                        always_adapt=True, parameters=params),
            'lamb_noadapt': lambda: paddle.optimizer.Lamb(0.05, lamb_weight_decay=0.0,
                                                          parameters=params),
        }

    res = {}
    for name in opts(None):
        m = make()
        o = opts(m.parameters())[name]()
        losses = []
        for i in range(5):
            loss = ((m(paddle.to_tensor(X)) - paddle.to_tensor(Y)) ** 2).mean()
            loss.backward(); o.step(); o.clear_grad()
            losses.append(float(loss))
        res[name] = losses
        l0, l2 = m[0].weight.name.split('.')[0], m[2].weight.name.split('.')[0]
        res[name + '_keys'] = sorted(k.replace(l0, 'L0').replace(l2, 'L2') for k in o.state_dict())
        res[name + '_b1p'] = [float(np.asarray(v).reshape(-1)[0])
                              for k, v in sorted(o.state_dict().items()) if 'beta1_pow' in k][:1]
    return res


def test_eager_steps_match_paddle():
    got = _eager()
    assert set(got) == set(EAGER)
    for k, v in EAGER.items():
        if k.endswith("_keys"):
            assert got[k] == v, k
        else:
            np.testing.assert_allclose(got[k], v, rtol=2e-6, err_msg=k)


def _static():
    res = {}
    for name in ['Adamax', 'Adadelta', 'Lamb']:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data('x', [4, 3], 'float32')
            y = paddle.static.nn.fc(x, 2)
            loss = paddle.mean(y * y)
            opt = getattr(paddle.optimizer, name)(0.1)
            opt.minimize(loss)
        ops = []
        for op in main.global_block().ops:
            if op.attr('op_role') in (2, 3) or op.type in ('adamax', 'adadelta', 'lamb', 'scale'):
                ops.append((op.type, {k: op.input(k) for k in sorted(op.input_names)},
                            {k: op.output(k) for k in sorted(op.output_names)},
                            {a: op.attr(a) for a in sorted(op.attr_names)
                             if a not in ('op_callstack', 'op_device', 'with_quant_attr')}))
        res[name] = ops
        exe = paddle.static.Executor()
        exe.run(start)
        rs = np.random.RandomState(5)
        for p in main.global_block().all_parameters():
            value = rs.randn(*p.shape).astype('float32') * 0.3
            paddle.static.global_scope().find_var(p.name).get_tensor().set(value, paddle.CPUPlace())
        xs = np.arange(12, dtype='float32').reshape(4, 3) / 10
        ls = [float(exe.run(main, feed={'x': xs}, fetch_list=[loss])[0]) for _ in range(3)]
        res[name + '_loss'] = ls
    return res


def _norm(ops):
    """Paddle lists no output slot it left empty; compare the slots it names."""
    out = []
    for t, ins, outs, attrs in ops:
        out.append([t, ins, {k: v for k, v in outs.items() if v}, attrs])
    return out


def _scope(s):
    return re.sub(r"_\d+/", "/", s)


def test_static_minimize_matches_paddle():
    paddle.enable_static()
    try:
        with paddle.utils.unique_name.guard():
            got = _static()
    finally:
        paddle.disable_static()
    for k, v in STATIC.items():
        if k.endswith("_loss"):
            np.testing.assert_allclose(got[k], v, rtol=1e-6, err_msg=k)
        else:
            g = _norm([list(o) for o in got[k]])
            assert len(g) == len(v), k
            for a, b in zip(g, _norm(v)):
                assert a[0] == b[0] and a[1] == b[1] and a[2] == b[2], (k, a, b)
                for name, val in b[3].items():
                    if name == "op_namescope":      # the scope counters are process-wide
                        assert _scope(a[3][name]) == _scope(val), k
                    elif isinstance(val, float):
                        assert a[3][name] == pytest.approx(val, rel=1e-7), (k, name)
                    else:
                        assert a[3][name] == val, (k, name)


def _model(seed=0):
    rs = np.random.RandomState(seed)
    m = paddle.nn.Linear(3, 2)
    m.weight.set_value(rs.randn(3, 2).astype("float32"))
    m.bias.set_value(rs.randn(2).astype("float32"))
    return m


def _train(m, opt, steps, x):
    out = []
    for _ in range(steps):
        loss = (m(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        out.append(float(loss))
    return out


@pytest.mark.parametrize("make", [
    lambda ps: paddle.optimizer.Adamax(0.05, parameters=ps),
    lambda ps: paddle.optimizer.Adadelta(1.0, parameters=ps),
    lambda ps: paddle.optimizer.Lamb(0.05, parameters=ps),
])
def test_state_dict_resumes_training(make):
    x = paddle.to_tensor(np.random.RandomState(1).randn(4, 3).astype("float32"))
    with paddle.utils.unique_name.guard():      # the same parameter names twice
        m1 = _model()
    o1 = make(m1.parameters())
    _train(m1, o1, 2, x)
    snap = lambda sd: {k: paddle.to_tensor(v.numpy().copy()) for k, v in sd.items()}  # noqa: E731
    sd_m, sd_o = snap(m1.state_dict()), snap(o1.state_dict())
    ref = _train(m1, o1, 3, x)
    with paddle.utils.unique_name.guard():
        m2 = _model(5)
    m2.set_state_dict(sd_m)
    o2 = make(m2.parameters())
    o2.set_state_dict(sd_o)
    np.testing.assert_allclose(_train(m2, o2, 3, x), ref, rtol=1e-6)


def test_param_groups_override_hyperparameters():
    x = paddle.to_tensor(np.random.RandomState(1).randn(4, 3).astype("float32"))
    m = _model()
    opt = paddle.optimizer.Adadelta(1.0, parameters=[
        {"params": [m.weight], "rho": 0.5}, {"params": [m.bias]}])
    m2 = _model()
    o_w = paddle.optimizer.Adadelta(1.0, rho=0.5, parameters=[m2.weight])
    o_b = paddle.optimizer.Adadelta(1.0, parameters=[m2.bias])
    for _ in range(2):
        (m(x) ** 2).mean().backward()
        opt.step()
        opt.clear_grad()
        (m2(x) ** 2).mean().backward()
        o_w.step()
        o_b.step()
        o_w.clear_grad()
        o_b.clear_grad()
    np.testing.assert_allclose(m.weight.numpy(), m2.weight.numpy(), rtol=1e-6)
    np.testing.assert_allclose(m.bias.numpy(), m2.bias.numpy(), rtol=1e-6)


def test_argument_checks():
    m = _model()
    with pytest.raises(ValueError):
        paddle.optimizer.Adamax(0.1, beta1=1.0, parameters=m.parameters())
    with pytest.raises(ValueError):
        paddle.optimizer.Adamax(0.1, epsilon=-1.0, parameters=m.parameters())
    with pytest.raises(ValueError):
        paddle.optimizer.Adadelta(0.1, rho=None, parameters=m.parameters())
    with pytest.raises(ValueError):
        paddle.optimizer.Lamb(0.1, beta1=None, parameters=m.parameters())
