"""sgd, momentum and adam/adamw on large float arrays run one compiled loop
(kernels/cpu/optimizer.py); their results must be the numpy path's bits, the
updates in place (the outputs are the input arrays), NaN and inf carried as
numpy carries them, and the other layouts and dtypes on the numpy path."""
import numpy as np
import pytest

from sampan.kernels.cpu import optimizer as O

pytest.importorskip("numba")


def _numpy_path(monkeypatch, fn, *args):
    with monkeypatch.context() as m:
        m.setattr(O, "COMPILED_MIN", 1 << 62)
        return fn(*args)


def _data(dtype, size, seed):
    rs = np.random.RandomState(seed)
    p, g, m1 = (rs.standard_normal(size).astype(dtype) for _ in range(3))
    m2 = np.abs(rs.standard_normal(size)).astype(dtype)
    g[:4] = [np.nan, np.inf, -np.inf, -0.0]
    p[4] = -0.0
    return p, g, m1, m2


def _same(got, want):
    for a, b in zip(got, want):
        if a is None:
            assert b is None
            continue
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
        assert (np.signbit(a) == np.signbit(b)).all()


SIZES = [O.COMPILED_MIN, 3 * O.COMPILED_MIN + 7]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", SIZES)
def test_sgd_bits(monkeypatch, dtype, size):
    p, g, _, _ = _data(dtype, size, 1)
    lr = np.array([0.05], dtype)
    p1, p2 = p.copy(), p.copy()
    with np.errstate(invalid="ignore"):
        got = O.sgd((p1, lr, g, None), {}, None)
        want = _numpy_path(monkeypatch, O.sgd, (p2, lr, g, None), {}, None)
    _same(got, want)
    assert got[0] is p1                              # in place
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(p1, p - g * np.asarray(0.05, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("mu", [0.9, 0.0])
def test_momentum_bits(monkeypatch, dtype, size, mu):
    p, g, v, _ = _data(dtype, size, 2)
    lr = np.array([0.1], dtype)
    attrs = {"mu": mu, "rescale_grad": 1.0, "regularization_method": "",
             "regularization_coeff": 0.0, "use_nesterov": False}
    a = (p.copy(), g, v.copy(), lr, None)
    b = (p.copy(), g, v.copy(), lr, None)
    with np.errstate(invalid="ignore"):
        got = O.momentum(a, attrs, None)
        want = _numpy_path(monkeypatch, O.momentum, b, attrs, None)
    _same(got, want)
    assert got[0] is a[0] and got[1] is a[2]
    v_ref = v * np.asarray(mu, dtype) + g
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(got[1], v_ref, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("op,attrs", [
    (O.adam, {}),
    (O.adamw, {"coeff": 0.01, "with_decay": True, "lr_ratio": 0.5}),
])
def test_adam_bits(monkeypatch, dtype, size, op, attrs):
    p, g, m1, m2 = _data(dtype, size, 3)
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "use_global_beta_pow": False,
             **attrs}

    def ins():
        return (p.copy(), g, np.array([1e-3], dtype), m1.copy(), m2.copy(),
                np.array([0.9 ** 3], dtype), np.array([0.999 ** 3], dtype),
                None, None, None, None, None)
    a, b = ins(), ins()
    with np.errstate(invalid="ignore"):
        got = op(a, attrs, None)
        want = _numpy_path(monkeypatch, op, b, attrs, None)
    _same(got, want)
    assert got[0] is a[0] and got[1] is a[3] and got[2] is a[4]
    # and the formula (Paddle's): away from the NaN/inf lanes
    lr_t = 1e-3 * np.sqrt(1 - 0.999 ** 3) / (1 - 0.9 ** 3)
    if op is O.adamw:
        lr_t *= 0.5
    m1r = 0.9 * m1.astype(np.float64) + 0.1 * g
    m2r = 0.999 * m2.astype(np.float64) + 0.001 * g.astype(np.float64) ** 2
    pr = p.astype(np.float64) * ((1 - 5e-4 * 0.01) if op is O.adamw else 1)
    with np.errstate(invalid="ignore"):
        pr = pr - lr_t * m1r / (np.sqrt(m2r) + 1e-8 * np.sqrt(1 - 0.999 ** 3))
    np.testing.assert_allclose(got[0][4:], pr[4:], rtol=1e-5, atol=1e-6)


def test_other_layouts_and_dtypes_take_numpy():
    n = 4 * O.COMPILED_MIN
    p = np.arange(n, dtype=np.float32).reshape(2, -1)
    g = np.ones((2, n), np.float32)[:, ::2]          # not contiguous
    got = O.sgd((p.copy(), np.array([0.5], np.float32), g, None), {}, None)[0]
    np.testing.assert_array_equal(got, p - 0.5)
    h = np.arange(n).astype(np.float16)
    got = O.sgd((h.copy(), np.array([0.25], np.float16), np.ones(n, np.float16), None),
                {}, None)[0]
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, h - np.float16(0.25))
