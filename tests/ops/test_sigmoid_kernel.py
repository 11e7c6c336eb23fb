"""kernels/cpu/sigmoid_kernel.py: the compiled sigmoid/swish/silu pass against
float64 (a few ulp over the whole float32 range), numpy's answers for NaN,
infinities and signed zeros, the bias and residual it adds first, its 8-lane
build, and ``activation.sigmoid`` taking it for large float32 arrays (so the
fused convolutions' epilogues give the unfused ops' bits:
tests/ops/test_conv_epilogue.py)."""
import numpy as np
import pytest

from sampan.kernels.cpu import sigmoid_kernel as S
from sampan.kernels.cpu.activation import sigmoid, SIGMOID_COMPILED_MIN

pytestmark = pytest.mark.skipif(not S.available(), reason="no compiled sigmoid on this host")


def _want(x, act, beta=1.0):
    xd = x.astype(np.float64)
    s = 1 / (1 + np.exp(-beta * xd))
    return xd * s if act != "sigmoid" else s


@pytest.mark.parametrize("act", ["swish", "silu", "sigmoid"])
@pytest.mark.parametrize("beta", [1.0, 0.5, 2.0])
def test_within_a_few_ulp_of_float64(act, beta):
    x = np.linspace(-80, 80, 400003, dtype=np.float32).reshape(1, 1, -1) / beta
    got = S.sigmoid_rows(x.copy(), None, None, act, beta)
    want = _want(x, act, beta)
    rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-37)
    assert rel.max() <= 4 * 2.0 ** -24


@pytest.mark.parametrize("act", ["swish", "sigmoid"])
def test_special_values_as_numpy(act):
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 100, -100, 1e-30, -1e-30, 20,
                        -20, 87.9, -87.9], np.float32)
    x = np.tile(special, 3).reshape(1, 1, -1)         # lanes in every position of a vector
    got = S.sigmoid_rows(x.copy(), None, None, act)
    with np.errstate(all="ignore"):
        s = 1 / (1 + np.exp(-x))
        want = x * s if act == "swish" else s
    np.testing.assert_allclose(got, want, rtol=4 * 2.0 ** -24, atol=1e-37)
    assert (np.signbit(got) == np.signbit(want))[np.abs(want) > 0].all()
    assert np.isnan(got).sum() == np.isnan(want).sum()


@pytest.mark.parametrize("shape", [(2, 3, 5, 7), (1, 4, 33), (3, 1, 16), (2, 3, 5), (2, 2, 24)])
def test_bias_and_residual_first(shape):
    rs = np.random.RandomState(len(shape))
    a = (rs.standard_normal(shape) * 6).astype(np.float32)
    b = rs.standard_normal(shape[1]).astype(np.float32)
    r = rs.standard_normal(shape).astype(np.float32)
    out = np.empty_like(a)
    got = S.sigmoid_rows(a, b, r, "swish", out=out)
    assert got is out
    v = (a + b.reshape((-1,) + (1,) * (a.ndim - 2))) + r
    np.testing.assert_allclose(got, _want(v, "swish"), rtol=4 * 2.0 ** -24, atol=1e-30)
    same = S.sigmoid_rows(v.copy(), None, None, "swish")
    np.testing.assert_array_equal(got, same)          # -0.0 bias and no residual add nothing


@pytest.mark.parametrize("shape", [(2, 3, 5), (1, 2, 35), (1, 1, 16)])
def test_writes_nothing_past_its_rows(shape):
    # whole steps store plainly, a row's last partial step under its mask: a
    # guard after the output keeps its values
    n = int(np.prod(shape))
    buf = np.full(n + 40, 7.5, np.float32)
    a = (np.random.RandomState(n).standard_normal(shape) * 4).astype(np.float32)
    got = S.sigmoid_rows(a, None, None, "sigmoid", out=buf[:n].reshape(shape))
    np.testing.assert_allclose(got, _want(a.astype(np.float64), "sigmoid"), rtol=4 * 2.0 ** -24)
    assert (buf[n:] == 7.5).all()


def test_eight_lane_build(monkeypatch):
    monkeypatch.setitem(S._STATE, "fn", S._compile(lanes=8))
    assert S._STATE["fn"][1] == 8
    test_within_a_few_ulp_of_float64("swish", 1.0)
    test_bias_and_residual_first((2, 3, 5, 7))
    test_writes_nothing_past_its_rows((1, 2, 35))


def test_sigmoid_takes_it_for_large_float32():
    rs = np.random.RandomState(0)
    big = (rs.standard_normal(SIGMOID_COMPILED_MIN * 3 + 5) * 5).astype(np.float32)
    np.testing.assert_array_equal(sigmoid(big), S.sigmoid_rows(
        big.reshape(1, 1, -1), None, None, "sigmoid", out=np.empty((1, 1, big.size),
                                                                   np.float32)).ravel())
    small = big[:SIGMOID_COMPILED_MIN - 1].copy()
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(sigmoid(small), 1 / (1 + np.exp(-small)))
    f64 = big.astype(np.float64)
    np.testing.assert_allclose(sigmoid(f64), _want(f64, "sigmoid"), rtol=1e-15)


def test_rejects_what_it_cannot_read():
    a = np.ones((2, 3, 4), np.float32)
    with pytest.raises(ValueError, match="contiguous float32"):
        S.sigmoid_rows(a.astype(np.float64), None, None, "swish")
    with pytest.raises(ValueError, match="one of"):
        S.sigmoid_rows(a, None, None, "tanh")
    with pytest.raises(ValueError, match="bias must be"):
        S.sigmoid_rows(a, np.ones(2, np.float32), None, "swish")
    with pytest.raises(ValueError, match="residual must be"):
        S.sigmoid_rows(a, None, np.ones((2, 3, 5), np.float32), "swish")
    with pytest.raises(ValueError, match="out must be"):
        S.sigmoid_rows(a, None, None, "swish", out=np.ones((2, 3, 4), np.float64))
