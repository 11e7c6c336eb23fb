"""Max pooling's separable path (kernels/cpu/pool.py ``_separable_max``: one
spatial axis at a time, padding never written out) against a brute-force
maximum over each window of the input padded with the pool's initial value:
kernel sizes 1-4, strides 1-3, paddings up to the kernel size (windows partly
and, past it, wholly in the padding: the padded form), ceil mode, 1-3 spatial
dims."""
import itertools

import numpy as np
import pytest

from sampan.kernels.cpu import pool as P


def _brute(x, geo):
    nd = x.ndim - 2
    out = np.empty(x.shape[:2] + tuple(geo.out), x.dtype)
    for pos in itertools.product(*map(range, geo.out)):
        lo = [j * s - p[0] for j, s, p in zip(pos, geo.s, geo.pads)]
        sl = tuple(slice(max(a, 0), max(a + k, 0)) for a, k in zip(lo, geo.k))
        win = x[(slice(None), slice(None)) + sl].reshape(x.shape[:2] + (-1,))
        out[(slice(None), slice(None)) + pos] = win.max(-1) if win.shape[-1] else P._MAX_INIT
    assert nd == len(geo.out)
    return out


def _geo(sp, k, s, p, ceil):
    nd = len(sp)
    attrs = dict(ksize=[k] * nd, strides=[s] * nd, paddings=[p] * nd,
                 padding_algorithm="EXPLICIT", adaptive=False, global_pooling=False,
                 ceil_mode=ceil, data_format="NCHW"[:2] + "DHW"[3 - nd:], exclusive=True)
    return P._Geo(sp, attrs)


CONFIGS = [(k, s, p, ceil) for k in (1, 2, 3, 4) for s in (1, 2, 3)
           for p in range(0, k + 1) for ceil in (False, True)]


@pytest.mark.parametrize("k, s, p, ceil", CONFIGS)
def test_separable_max_2d(k, s, p, ceil):
    rs = np.random.RandomState(k * 100 + s * 10 + p)
    x = rs.standard_normal((2, 3, 7 + k, 9)).astype(np.float32)
    geo = _geo(x.shape[2:], k, s, p, ceil)
    if not all(geo.out):
        pytest.skip("no output")
    got = P.pool_forward(x, geo, True)
    np.testing.assert_array_equal(got, _brute(x, geo))


@pytest.mark.parametrize("sp", [(10,), (5, 6, 7)])
@pytest.mark.parametrize("k, s, p", [(3, 2, 1), (2, 2, 0), (3, 1, 1), (2, 3, 1)])
def test_separable_max_1d_3d(sp, k, s, p):
    x = np.random.RandomState(len(sp)).standard_normal((2, 2) + sp).astype(np.float64)
    geo = _geo(sp, k, s, p, False)
    np.testing.assert_array_equal(P.pool_forward(x, geo, True), _brute(x, geo))


def test_integer_input_keeps_its_dtype():
    x = np.random.RandomState(0).randint(-50, 50, (1, 2, 9, 9)).astype(np.int32)
    geo = _geo(x.shape[2:], 3, 2, 1, False)
    got = P.pool_forward(x, geo, True)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, _brute(x, geo))
