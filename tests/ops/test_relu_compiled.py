"""relu and its grad on large float arrays run compiled loops
(kernels/cpu/activation.py); their bits must be numpy's: NaN kept, -0.0 sent
to +0.0 by the forward, g * (out > 0) with NaN/inf in g and signed zeros."""
import numpy as np
import pytest

from sampan.kernels.cpu import activation as A


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", [7, A._RELU_COMPILED_MIN, 3 * A._RELU_COMPILED_MIN + 5])
def test_relu_and_grad_bits(dtype, size):
    rs = np.random.RandomState(size)
    x = rs.standard_normal(size).astype(dtype)
    g = rs.standard_normal(size).astype(dtype)
    x[:6] = [-0.0, 0.0, np.nan, -np.inf, np.inf, -1]
    g[:6] = [np.nan, np.inf, -np.inf, -2, 3, -1]
    want = np.maximum(x, 0)
    with np.errstate(invalid="ignore"):
        want_g = g * (want > 0)
    xi, gi = x.copy(), g.copy()
    assert A._relu_into(xi) is xi           # the executor's buffer reuse: in place
    with np.errstate(invalid="ignore"):
        assert A._relu_grad_into(want, gi) is gi
    for got in (A._relu(x), xi):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        assert (np.signbit(got) == np.signbit(want)).all()
    with np.errstate(invalid="ignore"):
        for got in (A._relu_grad(want, g), gi):
            np.testing.assert_array_equal(got, want_g)
            assert (np.signbit(got) == np.signbit(want_g)).all()


def test_views_and_other_dtypes_take_numpy():
    x = np.arange(-4096, 4096, dtype=np.float32).reshape(2, -1)[:, ::2]    # not contiguous
    np.testing.assert_array_equal(A._relu(x), np.maximum(x, 0))
    h = np.arange(-5000, 5000).astype(np.float16)
    assert A._relu(h).dtype == np.float16
    np.testing.assert_array_equal(A._relu(h), np.maximum(h, 0))
