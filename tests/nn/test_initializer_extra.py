"""nn.initializer.Orthogonal, Dirac, Bilinear against Paddle 2.6.2 (``EXPECTED``,
recorded in its side venv): eager values (Orthogonal: its Gram matrix, as the random
streams differ), and the startup programs' op sequences and the values they produce."""
import numpy as np
import pytest

import sampan as paddle

EXPECTED = {'bil': [[[[0.0625, 0.28125, 0.375, 0.15625], [0.1875, 0.65625, 0.75, 0.21875],
           [0.1875, 0.46875, 0.375, 0.09375], [0.0625, 0.09375, 0.0, -0.03125]]],
         [[[0.0625, 0.28125, 0.375, 0.15625], [0.1875, 0.65625, 0.75, 0.21875],
           [0.1875, 0.46875, 0.375, 0.09375], [0.0625, 0.09375, 0.0, -0.03125]]]],
 'bil3': [[[[0.0625, 0.3125, 0.4375], [0.1875, 0.6875, 0.6875], [0.1875, 0.4375, 0.3125]],
           [[0.0625, 0.3125, 0.4375], [0.1875, 0.6875, 0.6875], [0.1875, 0.4375, 0.3125]]]],
 'dirac': [[[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
           [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
 'dirac_5d': [[[[[0.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]], [[0.0, 0.0, 0.0]]],
               [[[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]]],
               [[[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]]]],
              [[[[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]]],
               [[[0.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]], [[0.0, 0.0, 0.0]]],
               [[[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]]]]],
 'dirac_g2': [[[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
              [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
              [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
              [[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
              [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
              [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]],
               [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]],
 'orth_cols': [[1.0, -0.0], [-0.0, 1.0]],
 'orth_rows': [[4.0, -0.0, -0.0], [-0.0, 4.0, -0.0], [-0.0, -0.0, 4.0]],
 'prog_bil': [('assign_value', {}, {'Out': ['w']},
               {'bool_values': [],
                'dtype': 5,
                'fp32_values': [0.0625, 0.28125, 0.375, 0.15625, 0.1875, 0.65625, 0.75, 0.21875,
                                0.1875, 0.46875, 0.375, 0.09375, 0.0625, 0.09375, 0.0,
                                -0.03125],
                'fp64_values': [],
                'int32_values': [],
                'int64_values': [],
                'shape': [1, 1, 4, 4]})],
 'prog_bil64': [('assign_value', {}, {'Out': ['bilinear_init.w.tmp_0']},
                 {'bool_values': [],
                  'dtype': 5,
                  'fp32_values': [1.0, 0.0, 0.0, -0.0],
                  'fp64_values': [],
                  'int32_values': [],
                  'int64_values': [],
                  'shape': [1, 1, 2, 2]}),
                ('cast', {'X': ['bilinear_init.w.tmp_0']}, {'Out': ['w']},
                 {'in_dtype': 5, 'out_dtype': 6, 'use_mkldnn': False})],
 'prog_dirac': [('fill_constant', {}, {'Out': ['w']},
                 {'dtype': 5,
                  'force_cpu': False,
                  'place_type': -1,
                  'shape': [4, 2, 3],
                  'str_value': '',
                  'value': 0.0}),
                ('reshape2', {'X': ['w']}, {'Out': ['w'], 'XShape': ['w.XShape_0']},
                 {'mkldnn_data_type': 'float32',
                  'shape': [-1],
                  'use_mkldnn': False,
                  'use_quantizer': False}),
                ('assign_value', {}, {'Out': ['scatter_index_0']},
                 {'bool_values': [],
                  'dtype': 3,
                  'fp32_values': [],
                  'fp64_values': [],
                  'int32_values': [],
                  'int64_values': [1, 10, 13, 22],
                  'shape': [4]}),
                ('assign_value', {}, {'Out': ['scatter_value_0']},
                 {'bool_values': [],
                  'dtype': 5,
                  'fp32_values': [1.0, 1.0, 1.0, 1.0],
                  'fp64_values': [],
                  'int32_values': [],
                  'int64_values': [],
                  'shape': [4]}),
                ('scatter',
                 {'Ids': ['scatter_index_0'], 'Updates': ['scatter_value_0'], 'X': ['w']},
                 {'Out': ['w']}, {'overwrite': True}),
                ('reshape2', {'X': ['w']}, {'Out': ['w'], 'XShape': ['w.XShape_1']},
                 {'mkldnn_data_type': 'float32',
                  'shape': [4, 2, 3],
                  'use_mkldnn': False,
                  'use_quantizer': False})],
 'prog_dirac16': [('fill_constant', {}, {'Out': ['dirac.w.tmp_0']},
                   {'dtype': 5,
                    'force_cpu': False,
                    'place_type': -1,
                    'shape': [2, 2, 3],
                    'str_value': '',
                    'value': 0.0}),
                  ('reshape2', {'X': ['dirac.w.tmp_0']},
                   {'Out': ['dirac.w.tmp_0'], 'XShape': ['dirac.w.tmp_0.XShape_0']},
                   {'mkldnn_data_type': 'float32',
                    'shape': [-1],
                    'use_mkldnn': False,
                    'use_quantizer': False}),
                  ('assign_value', {}, {'Out': ['scatter_index_0']},
                   {'bool_values': [],
                    'dtype': 3,
                    'fp32_values': [],
                    'fp64_values': [],
                    'int32_values': [],
                    'int64_values': [1, 10],
                    'shape': [2]}),
                  ('assign_value', {}, {'Out': ['scatter_value_0']},
                   {'bool_values': [],
                    'dtype': 5,
                    'fp32_values': [1.0, 1.0],
                    'fp64_values': [],
                    'int32_values': [],
                    'int64_values': [],
                    'shape': [2]}),
                  ('scatter',
                   {'Ids': ['scatter_index_0'],
                    'Updates': ['scatter_value_0'],
                    'X': ['dirac.w.tmp_0']},
                   {'Out': ['dirac.w.tmp_0']}, {'overwrite': True}),
                  ('reshape2', {'X': ['dirac.w.tmp_0']},
                   {'Out': ['dirac.w.tmp_0'], 'XShape': ['dirac.w.tmp_0.XShape_1']},
                   {'mkldnn_data_type': 'float32',
                    'shape': [2, 2, 3],
                    'use_mkldnn': False,
                    'use_quantizer': False}),
                  ('cast', {'X': ['dirac.w.tmp_0']}, {'Out': ['w']},
                   {'in_dtype': 5, 'out_dtype': 6, 'use_mkldnn': False})],
 'prog_orth': [('gaussian_random', {}, {'Out': ['gaussian_random.tmp_0']},
                {'dtype': 5, 'mean': 0.0, 'shape': [6, 2], 'std': 1.0}),
               ('qr', {'X': ['gaussian_random.tmp_0']},
                {'Q': ['qr.q.tmp_0'], 'R': ['qr.r.tmp_0']}, {'mode': 'reduced'}),
               ('diag_v2', {'X': ['qr.r.tmp_0']}, {'Out': ['diag.tmp_0']},
                {'offset': 0, 'padding_value': 0.0}),
               ('sign', {'X': ['diag.tmp_0']}, {'Out': ['diag.tmp_0']}, {}),
               ('elementwise_mul', {'X': ['qr.q.tmp_0'], 'Y': ['diag.tmp_0']},
                {'Out': ['qr.q.tmp_0']}, {'axis': -1}),
               ('transpose2', {'X': ['qr.q.tmp_0']},
                {'Out': ['transpose.tmp_0'], 'XShape': ['transpose.shape.tmp_0']},
                {'axis': [1, 0]}),
               ('reshape2', {'X': ['transpose.tmp_0']},
                {'Out': ['transpose.tmp_0'], 'XShape': ['transpose.shape.tmp_0']},
                {'mkldnn_data_type': 'float32',
                 'shape': [2, 6],
                 'use_mkldnn': False,
                 'use_quantizer': False}),
               ('scale', {'X': ['transpose.tmp_0']}, {'Out': ['w']},
                {'bias': 0.0, 'bias_after_scale': True, 'scale': 1.5})],
 'prog_orth_tall': [('gaussian_random', {}, {'Out': ['gaussian_random.tmp_0']},
                     {'dtype': 6, 'mean': 0.0, 'shape': [5, 3], 'std': 1.0}),
                    ('qr', {'X': ['gaussian_random.tmp_0']},
                     {'Q': ['qr.q.tmp_0'], 'R': ['qr.r.tmp_0']}, {'mode': 'reduced'}),
                    ('diag_v2', {'X': ['qr.r.tmp_0']}, {'Out': ['diag.tmp_0']},
                     {'offset': 0, 'padding_value': 0.0}),
                    ('sign', {'X': ['diag.tmp_0']}, {'Out': ['diag.tmp_0']}, {}),
                    ('elementwise_mul', {'X': ['qr.q.tmp_0'], 'Y': ['diag.tmp_0']},
                     {'Out': ['qr.q.tmp_0']}, {'axis': -1}),
                    ('reshape2', {'X': ['qr.q.tmp_0']},
                     {'Out': ['qr.q.tmp_0'], 'XShape': ['transpose.shape.tmp_0']},
                     {'mkldnn_data_type': 'float32',
                      'shape': [5, 3],
                      'use_mkldnn': False,
                      'use_quantizer': False}),
                    ('scale', {'X': ['qr.q.tmp_0']}, {'Out': ['w']},
                     {'bias': 0.0, 'bias_after_scale': True, 'scale': 1.0})],
 'val_bil': 'float32',
 'val_bil64': 'float64',
 'val_dirac': 'float32',
 'val_dirac16': 'float64',
 'val_orth': 'float32',
 'val_orth_tall': 'float64',
 'valprop_bil': [[[[0.0625, 0.28125, 0.375, 0.15625], [0.1875, 0.65625, 0.75, 0.21875],
                   [0.1875, 0.46875, 0.375, 0.09375], [0.0625, 0.09375, 0.0, -0.03125]]]],
 'valprop_bil64': [[[[1.0, 0.0], [0.0, -0.0]]]],
 'valprop_dirac': [[[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                   [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]],
 'valprop_dirac16': [[[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]],
 'valprop_orth': [[2.25, 0.0], [0.0, 2.25]],
 'valprop_orth_tall': [[1.0, -0.0, 0.0], [-0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]}


def _run():
    I = paddle.nn.initializer
    res = {}
    def eager(init, shape, dtype='float32'):
        p = paddle.create_parameter(shape, dtype, default_initializer=init)
        return p.numpy()
    res['dirac'] = eager(I.Dirac(), [4, 2, 3]).tolist()
    res['dirac_g2'] = eager(I.Dirac(groups=2), [6, 4, 3, 3]).tolist()
    res['dirac_5d'] = eager(I.Dirac(), [2, 3, 3, 1, 3], 'float64').tolist()
    res['bil'] = eager(I.Bilinear(), [2, 1, 4, 4]).tolist()
    res['bil3'] = eager(I.Bilinear(), [1, 2, 3, 3], 'float64').tolist()
    o = eager(I.Orthogonal(gain=2.0), [3, 2, 4]).reshape(3, 8)
    res['orth_rows'] = np.round(o @ o.T, 5).tolist()
    o = eager(I.Orthogonal(), [6, 2]).reshape(6, 2)
    res['orth_cols'] = np.round(o.T @ o, 5).tolist()
    paddle.enable_static()
    progs = {}
    for name, init, shape, dt in [('orth', I.Orthogonal(1.5), [2, 6], 'float32'),
                                  ('orth_tall', I.Orthogonal(), [5, 3], 'float64'),
                                  ('dirac', I.Dirac(2), [4, 2, 3], 'float32'),
                                  ('dirac16', I.Dirac(), [2, 2, 3], 'float64'),
                                  ('bil', I.Bilinear(), [1, 1, 4, 4], 'float32'),
                                  ('bil64', I.Bilinear(), [1, 1, 2, 2], 'float64')]:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.utils.unique_name.guard():
            with paddle.static.program_guard(main, start):
                w = paddle.static.create_parameter(shape, dt, name='w', default_initializer=init)
        ops = []
        for op in start.global_block().ops:
            skip = ('op_callstack', 'op_device', 'with_quant_attr', 'op_role', 'op_role_var',
                    'op_namescope', 'seed')
            ops.append((op.type, {k: op.input(k) for k in sorted(op.input_names) if op.input(k)},
                        {k: op.output(k) for k in sorted(op.output_names) if op.output(k)},
                        {a: op.attr(a) for a in sorted(op.attr_names) if a not in skip}))
        res['prog_' + name] = ops
        exe = paddle.static.Executor()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(start)
            v = np.array(scope.find_var('w').get_tensor())
        res['val_' + name] = str(v.dtype)
        if name.startswith('orth'):
            m = v.reshape(v.shape[0], -1)
            gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
            res['valprop_' + name] = np.round(gram, 4).tolist()
        else:
            res['valprop_' + name] = v.tolist()
    return res


def test_initializers_match_paddle():
    try:
        got = _run()
    finally:
        paddle.disable_static()
    assert set(got) == set(EXPECTED)
    for k, v in EXPECTED.items():
        g = got[k]
        if k.startswith("prog_"):
            assert len(g) == len(v), k
            for a, b in zip(g, v):
                assert a[:3] == b[:3], (k, a, b)
                for name in set(a[3]) & set(b[3]):       # the attributes both declare
                    assert a[3][name] == b[3][name], (k, a[0], name)
        elif isinstance(v, str):
            assert g == v, k
        else:
            np.testing.assert_allclose(np.array(g, float), np.array(v, float), rtol=1e-6,
                                       atol=1e-6, err_msg=k)


def test_argument_checks():
    I = paddle.nn.initializer
    with pytest.raises(ValueError):
        paddle.create_parameter([3], "float32", default_initializer=I.Orthogonal())
    with pytest.raises(ValueError):
        paddle.create_parameter([3, 3], "float32", default_initializer=I.Dirac())
    with pytest.raises(ValueError):
        paddle.create_parameter([3, 3, 3], "float32", default_initializer=I.Dirac(groups=2))
    with pytest.raises(ValueError):
        I.Dirac(groups=0)
    with pytest.raises(ValueError):
        paddle.create_parameter([1, 1, 2, 3], "float32", default_initializer=I.Bilinear())
    with pytest.raises(ValueError):
        paddle.create_parameter([2, 2, 2], "float32", default_initializer=I.Bilinear())


def test_conv_with_dirac_is_identity():
    conv = paddle.nn.Conv2D(3, 3, 3, padding=1, bias_attr=False,
                            weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Dirac()))
    x = paddle.to_tensor(np.random.RandomState(0).randn(1, 3, 5, 5).astype("float32"))
    np.testing.assert_allclose(conv(x).numpy(), x.numpy(), rtol=1e-6)
