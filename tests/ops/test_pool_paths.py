"""Max pooling's separable path (kernels/cpu/pool.py ``_separable_max``: one
spatial axis at a time, padding never written out) against a brute-force
maximum over each window of the input padded with the pool's initial value:
kernel sizes 1-4, strides 1-3, paddings up to the kernel size (windows partly
and, past it, wholly in the padding: the padded form), ceil mode, 1-3 spatial
dims; global averages (``_whole_avg``) against the float64 mean; the
compiled special windows against the separable path's bits."""
import itertools

import numpy as np
import pytest

from sampan.kernels.cpu import pool as P
from sampan.kernels.cpu import pool_kernel as PK


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


# the 2-D cases' input is (7 + k) x 9: every configuration below has outputs
CONFIGS = [(k, s, p, ceil) for k in (1, 2, 3, 4) for s in (1, 2, 3)
           for p in range(0, k + 1) for ceil in (False, True)
           if all(_geo((7 + k, 9), k, s, p, ceil).out)]


@pytest.mark.parametrize("k, s, p, ceil", CONFIGS)
def test_separable_max_2d(k, s, p, ceil):
    rs = np.random.RandomState(k * 100 + s * 10 + p)
    x = rs.standard_normal((2, 3, 7 + k, 9)).astype(np.float32)
    geo = _geo(x.shape[2:], k, s, p, ceil)
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


needs_numba = pytest.mark.skipif(
    __import__("sampan.kernels.cpu.pool_compiled", fromlist=["_compiled"])._compiled() is None,
    reason="numba not available")


@needs_numba
@pytest.mark.parametrize("shape", [(2, 3, 8, 10), (1, 2, 7, 9), (3, 4, 2, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_compiled_2x2_is_the_separable_path(shape, dtype):
    """kernels/cpu/pool_compiled.py: the numpy path's bits (NaN, signed zeros,
    odd sizes whose last row/column no window reads)."""
    from sampan.kernels.cpu.pool_compiled import max_pool_2x2
    x = np.random.RandomState(0).standard_normal(shape).astype(dtype)
    x.flat[:4] = [np.nan, -0.0, 0.0, -0.0]
    x[-1, -1, :2, :2] = [[0.0, -0.0], [-0.0, 0.0]]
    geo = _geo(shape[2:], 2, 2, 0, False)
    got = max_pool_2x2(x, geo)
    want = P._separable_max(x, geo)
    assert got is not None and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@needs_numba
@pytest.mark.parametrize("k, s, p, ceil, shape", [
    (3, 2, 0, False, (1, 2, 9, 9)), (2, 1, 0, False, (1, 2, 9, 9)),
    (2, 2, 1, False, (1, 2, 9, 9)), (2, 2, 0, True, (1, 2, 9, 9)),
])
def test_compiled_2x2_declines_other_windows(k, s, p, ceil, shape):
    from sampan.kernels.cpu.pool_compiled import max_pool_2x2
    x = np.random.RandomState(1).standard_normal(shape).astype("float32")
    assert max_pool_2x2(x, _geo(shape[2:], k, s, p, ceil)) is None
    for dtype in ("int32", "float16"):          # numba has no float16
        assert max_pool_2x2(x.astype(dtype), _geo(shape[2:], 2, 2, 0, False)) is None


def _brute_avg(x, geo):
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0)) + tuple(
        (p[0], max((o - 1) * s + k - i - p[0], 0))
        for i, o, k, s, p in zip(x.shape[2:], geo.out, geo.k, geo.s, geo.pads)))
    out = np.empty(x.shape[:2] + tuple(geo.out))
    for pos in itertools.product(*map(range, geo.out)):
        lo = [j * s for j, s in zip(pos, geo.s)]
        sl = tuple(slice(a, a + k) for a, k in zip(lo, geo.k))
        out[(slice(None), slice(None)) + pos] = xp[(slice(None), slice(None)) + sl].reshape(
            x.shape[:2] + (-1,)).sum(-1)
    return out / P._avg_divisor(x, geo)


@pytest.mark.parametrize("k, s, p, ceil", [c for c in CONFIGS if c[2] < c[0]])
@pytest.mark.parametrize("exclusive", [True, False])
def test_separable_average(k, s, p, ceil, exclusive):
    """Average pooling sums one axis at a time (padding skipped, or the padded
    form where a window lies wholly in it), then divides by Paddle's count."""
    rs = np.random.RandomState(k * 100 + s * 10 + p)
    x = rs.standard_normal((2, 3, 7 + k, 9)).astype(np.float64)
    geo = _geo(x.shape[2:], k, s, p, ceil)
    geo.exclusive = exclusive
    got = P.pool_forward(x, geo, False)
    np.testing.assert_allclose(got, _brute_avg(x, geo), rtol=1e-12, atol=1e-12)


@needs_numba
@pytest.mark.parametrize("k, s, p, ceil", CONFIGS)
@pytest.mark.parametrize("is_max", [True, False])
def test_compiled_rows_are_the_separable_path(monkeypatch, k, s, p, ceil, is_max):
    """pool_rows (kernels/cpu/pool_compiled.py) gives numpy's separable path's
    bits for every window configuration it takes (NaN and signed zeros in)."""
    from sampan.kernels.cpu import pool_compiled as PC
    monkeypatch.setattr(PC, "ROWS_MIN_BYTES", 0)
    rs = np.random.RandomState(k * 100 + s * 10 + p)
    x = rs.standard_normal((2, 3, 7 + k, 9)).astype(np.float32)
    x.flat[:5] = [np.nan, -0.0, 0.0, -0.0, 0.0]
    geo = _geo(x.shape[2:], k, s, p, ceil)
    got = PC.pool_rows(x, geo, is_max, P._taps)
    if P._taps(9, k, s, p, geo.out[1]) is None or P._taps(7 + k, k, s, p, geo.out[0]) is None:
        assert got is None          # a window wholly in the padding: numpy's padded form
        return
    want = P._separable(x, geo, np.maximum if is_max else np.add, 0)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def _assert_separable_bits(pool, shape, dtype, window, is_max, seed):
    """``pool(x, geo)`` equals numpy's separable path bit for bit on an input of
    ``shape`` that is 60% zeros of both signs (ties of signed zeros: the order
    the window's offsets are combined in shows) with a NaN; ``window``: (k, s, p)."""
    rs = np.random.RandomState(seed)
    x = rs.standard_normal(shape).astype(dtype)
    zeros = rs.rand(*shape) < 0.6
    x[zeros] = np.where(rs.rand(int(zeros.sum())) < 0.5, -0.0, 0.0)
    x.flat[0] = np.nan
    geo = _geo(shape[2:], *window, False)
    got = pool(x, geo)
    want = P._separable(x, geo, np.maximum if is_max else np.add, 0)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@needs_numba
@pytest.mark.parametrize("shape", [(1, 2, 2, 2), (2, 3, 2, 9), (1, 4, 9, 2), (2, 5, 13, 13),
                                   (1, 3, 6, 17)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("is_max", [True, False])
def test_same_three_by_three_is_the_separable_path(shape, dtype, is_max):
    """pool_same3 (3x3, stride 1, padding 1: one run per plane, edges again)
    gives numpy's separable path's bits, NaN and signed zeros included."""
    from sampan.kernels.cpu import pool_compiled as PC
    _assert_separable_bits(lambda x, geo: PC.pool_same3(x, geo, is_max), shape, dtype,
                           (3, 1, 1), is_max, seed=sum(shape))


@needs_numba
@pytest.mark.parametrize("shape", [(1, 2, 3, 3), (2, 3, 4, 9), (1, 4, 13, 13), (1, 2, 8, 31),
                                   (1, 2, 9, 32), (2, 2, 11, 45)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("is_max", [True, False])
def test_unpadded_three_by_three_stride_two_is_the_separable_path(shape, dtype, is_max):
    """pool_valid3_s2 (rows then columns at every stride-1 position, every second
    taken; runs over the plane below _RUN_WIDTH columns, per row from it) gives
    numpy's separable path's bits."""
    from sampan.kernels.cpu import pool_compiled as PC
    _assert_separable_bits(lambda x, geo: PC.pool_valid3_s2(x, geo, is_max), shape, dtype,
                           (3, 2, 0), is_max, seed=sum(shape) + 7)


@needs_numba
def test_the_special_windows_decline_other_geometries():
    from sampan.kernels.cpu import pool_compiled as PC
    x = np.ones((1, 2, 8, 8), np.float32)
    for k, s, p in [(3, 2, 1), (3, 1, 0), (2, 1, 1), (5, 1, 2)]:
        assert PC.pool_same3(x, _geo((8, 8), k, s, p, False), True) is None
    assert PC.pool_same3(x.astype(np.float16), _geo((8, 8), 3, 1, 1, False), True) is None
    assert PC.pool_same3(np.ones((1, 2, 1, 8), np.float32), _geo((1, 8), 3, 1, 1, False),
                         True) is None
    for k, s, p, ceil in [(3, 2, 1, False), (3, 2, 0, True), (2, 2, 0, False), (3, 1, 0, False)]:
        assert PC.pool_valid3_s2(x, _geo((8, 8), k, s, p, ceil), True) is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("sp", [(7, 7), (1, 1), (3, 5, 2), (70, 70)])
def test_global_average(dtype, sp):
    """A global average (one window over the whole map, adaptive 1x1 or
    global_pooling) is each channel's mean: a product with ones up to
    WHOLE_GEMV_MAX values a channel, numpy's reduction past it (70x70) or for
    dtypes BLAS lacks; within float32 rounding of the float64 mean, and the
    path rule holds at its boundary."""
    rs = np.random.RandomState(len(sp))
    x = (rs.standard_normal((3, 5) + sp) + 2).astype(dtype)
    nd = len(sp)
    attrs = dict(ksize=[1] * nd, strides=[1] * nd, paddings=[0] * nd,
                 padding_algorithm="EXPLICIT", adaptive=False, global_pooling=True,
                 ceil_mode=False, exclusive=True, data_format="NCDHW"[:2] + "DHW"[3 - nd:])
    geo = P._Geo(sp, attrs)
    assert geo.whole
    got = P.pool_forward(x, geo, False)
    want = x.astype(np.float64).reshape(3, 5, -1).mean(-1).reshape((3, 5) + (1,) * nd)
    assert got.dtype == dtype and got.shape == want.shape
    tol = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-13}[dtype]
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    flat = x.reshape(3, 5, -1)
    used = []
    orig = np.matmul
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(P.np, "matmul", lambda *a, **k: used.append(1) or orig(*a, **k))
        P._whole_avg(flat)
    assert bool(used) == (flat.shape[-1] <= P.WHOLE_GEMV_MAX and dtype != np.float16)


needs_llvm = pytest.mark.skipif(PK._kernel() is None, reason="no LLVM vector kernels here")


@needs_llvm
@pytest.mark.parametrize("shape", [(1, 2, 2, 32), (2, 3, 16, 16), (1, 2, 10, 40), (2, 3, 18, 34),
                                   (1, 1, 24, 112)])
def test_stem_pool_kernel_is_the_separable_path(shape):
    """pool_kernel.max_pool_3x3_s2 (3x3, stride 2, padding 1, even sizes: a
    -inf bordered copy split by column phase, rows then columns) gives numpy's
    separable path's bits, NaN and signed zeros included, and pool_forward
    takes it."""
    _assert_separable_bits(PK.max_pool_3x3_s2, shape, np.float32, (3, 2, 1), True,
                           seed=sum(shape) + 3)
    x = np.random.RandomState(0).standard_normal(shape).astype(np.float32)
    geo = _geo(shape[2:], 3, 2, 1, False)
    np.testing.assert_array_equal(P.pool_forward(x, geo, True), _brute(x, geo))


@needs_llvm
def test_stem_pool_kernel_declines_other_geometries():
    x = np.ones((1, 2, 16, 16), np.float32)
    for k, s, p, ceil in [(3, 2, 1, True), (3, 2, 0, False), (3, 1, 1, False), (2, 2, 1, False),
                          (5, 2, 1, False)]:
        assert PK.max_pool_3x3_s2(x, _geo((16, 16), k, s, p, ceil)) is None
    for shape in [(1, 2, 15, 16), (1, 2, 16, 17), (1, 2, 16, 14), (0, 2, 16, 16)]:
        assert PK.max_pool_3x3_s2(np.ones(shape, np.float32),
                                  _geo(shape[2:], 3, 2, 1, False)) is None
    assert PK.max_pool_3x3_s2(x.astype(np.float64), _geo((16, 16), 3, 2, 1, False)) is None


@needs_llvm
@pytest.mark.parametrize("shape", [(1, 2, 2, 16), (2, 3, 16, 16), (1, 2, 9, 35), (2, 3, 18, 34),
                                   (1, 1, 6, 112), (3, 2, 33, 17)])
def test_two_by_two_kernel_is_the_separable_path(shape):
    """pool_kernel.max_pool_2x2_s2 (2x2, stride 2, unpadded: 2 VW columns of
    both rows a step, rows then even/odd columns; a row's last step overlaps
    the one before; an odd last row or column is not read) gives numpy's
    separable path's bits, and pool_forward takes it."""
    _assert_separable_bits(PK.max_pool_2x2_s2, shape, np.float32, (2, 2, 0), True,
                           seed=sum(shape) + 5)
    x = np.random.RandomState(1).standard_normal(shape).astype(np.float32)
    geo = _geo(shape[2:], 2, 2, 0, False)
    np.testing.assert_array_equal(P.pool_forward(x, geo, True), _brute(x, geo))
    # a channels-last view (not contiguous) is read through a copy
    xt = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    np.testing.assert_array_equal(PK.max_pool_2x2_s2(xt, geo), _brute(x, geo))


@needs_llvm
def test_two_by_two_kernel_declines_other_geometries():
    vw = PK._kernel()[1]
    x = np.ones((1, 2, 4, 2 * vw), np.float32)
    for k, s, p, ceil in [(2, 2, 0, True), (2, 2, 1, False), (2, 1, 0, False), (3, 2, 0, False)]:
        geo = _geo(x.shape[2:], k, s, p, ceil)
        if tuple(geo.out) != (2, vw):           # ceil mode on even sizes is the same pool
            assert PK.max_pool_2x2_s2(x, geo) is None
    narrow = np.ones((1, 2, 4, 2 * vw - 2), np.float32)    # outputs narrower than a vector
    assert PK.max_pool_2x2_s2(narrow, _geo(narrow.shape[2:], 2, 2, 0, False)) is None
    assert PK.max_pool_2x2_s2(x.astype(np.float64), _geo(x.shape[2:], 2, 2, 0, False)) is None
    assert PK.max_pool_2x2_s2(np.ones((0, 2, 4, 2 * vw), np.float32),
                              _geo(x.shape[2:], 2, 2, 0, False)) is None
