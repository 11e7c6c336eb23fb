"""The compiled Winograd tile transforms (kernels/cpu/winograd_kernel.py) as
kernels/cpu/winograd.py runs them: the fused epilogue (bias, residual, relu /
relu6 clamps) against the unfused float64 ops, the clamps' rules for -0.0 and
NaN (those of conv_epilogue's compiled pass), channel counts that are not a
multiple of the vector width in both 16- and 8-lane builds, operands the
transforms cannot read as raw memory (numpy's path instead), the
transforms' argument checks, and plain conv2d taking Winograd where it pays
(its per-call filter transform equal to the float64 one); each for F(4x4, 3x3)
and F(2x2, 5x5)."""
import numpy as np
import pytest

from sampan.kernels.cpu import conv as direct
from sampan.kernels.cpu import winograd as W
from sampan.kernels.cpu import winograd_kernel as WK

pytestmark = pytest.mark.skipif(not WK.available(), reason="no compiled transforms on this host")

TOL = 3e-5
ACTS = {"": lambda a: a, "relu": lambda a: np.maximum(a, 0), "relu6": lambda a: np.clip(a, 0, 6)}


def _case(n, c, o, hw, seed, pads=((1, 1), (1, 1)), k=3):
    rs = np.random.RandomState(seed)
    x = rs.standard_normal((n, c) + hw).astype(np.float32)
    w = (rs.standard_normal((o, c, k, k)) / np.sqrt(k * k * c)).astype(np.float32)
    b = rs.standard_normal(o).astype(np.float32)
    out = tuple(s + a + e - k + 1 for s, (a, e) in zip(hw, pads))
    conv = direct.conv_forward(x.astype(np.float64), w.astype(np.float64), 1, pads, (1, 1),
                               (1, 1), out, b.astype(np.float64))
    resid = rs.standard_normal(conv.shape).astype(np.float32)
    return x, w, b, resid, conv, out, pads


@pytest.mark.parametrize("act", sorted(ACTS))
@pytest.mark.parametrize("n, c, o, hw", [(2, 13, 11, (9, 10)), (1, 32, 40, (7, 7)),
                                         (3, 17, 33, (6, 13))])
@pytest.mark.parametrize("k", [3, 5])
def test_epilogue_equals_the_unfused_ops(act, n, c, o, hw, k):
    p = k // 2
    x, w, b, resid, conv, out, pads = _case(n, c, o, hw, seed=c + o, pads=((p, p), (p, p)), k=k)
    want = ACTS[act](conv + resid)
    got = W.winograd_conv(x, W.filter_transform(w), pads, out, b, residual=resid, act=act,
                          ksize=k)
    assert got.dtype == np.float32 and got.shape == want.shape
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()
    got = W.winograd_conv(x, W.filter_transform(w), pads, out, None, act=act, ksize=k)
    assert np.abs(got - ACTS[act](conv - b.reshape(-1, 1, 1))).max() <= TOL * np.abs(conv).max()


def _all_products(value, o=3, tiles=1):
    return np.full((36, tiles, o), value, np.float32)


@pytest.mark.parametrize("act, negative_zero_kept", [("", True), ("relu", False),
                                                     ("relu6", True)])
@pytest.mark.parametrize("tile", [4, 2])
def test_clamps_treat_negative_zero_as_the_unfused_ops(act, negative_zero_kept, tile):
    # every product -0.0 and a -0.0 bias: the first output is -0.0 before the
    # activation; relu makes it +0.0 (np.maximum), relu6 keeps it (np.clip)
    dst = np.full((1, 3, 4, 4), 5.0, np.float32)
    from sampan.kernels.cpu.conv_epilogue import CLAMPS
    WK.output_transform(_all_products(-0.0), dst, np.full(3, -0.0, np.float32), None,
                        CLAMPS[act], 0, 1, 1, tile)
    assert (dst[:, :, 0, 0] == 0).all()
    assert bool(np.signbit(dst[0, 0, 0, 0])) == negative_zero_kept
    assert (dst[:, :, tile:] == 5).all()        # one tile: rows past it untouched


@pytest.mark.parametrize("act", sorted(ACTS))
def test_nan_passes_every_clamp(act):
    from sampan.kernels.cpu.conv_epilogue import CLAMPS
    dst = np.zeros((1, 3, 4, 4), np.float32)
    WK.output_transform(_all_products(np.nan), dst, np.zeros(3, np.float32), None,
                        CLAMPS[act], 0, 1, 1)
    assert np.isnan(dst).all()


@pytest.mark.parametrize("k", [3, 5])
def test_eight_lane_build(monkeypatch, k):
    # the AVX2 width of the same IR, run on this host: channel tails of 8 lanes
    eight = WK._compile(lanes=8)
    assert eight is not None
    monkeypatch.setitem(WK._STATE, "fn", eight)
    x, w, b, resid, conv, out, pads = _case(2, 11, 19, (11, 9), seed=4, k=k)
    got = W.winograd_conv(x, W.filter_transform(w), pads, out, b, residual=resid,
                          act="relu", ksize=k)
    want = np.maximum(conv + resid, 0)
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()


def test_operands_it_cannot_read_take_numpy_transforms():
    # a strided residual and a float64 one: numpy's path, the same numbers
    x, w, b, resid, conv, out, pads = _case(2, 8, 8, (8, 8), seed=5)
    u = W.filter_transform(w)
    wide = np.zeros(resid.shape[:3] + (2 * resid.shape[3],), np.float32)
    wide[..., ::2] = resid
    for r in (wide[..., ::2], resid.astype(np.float64)):
        got = W.winograd_conv(x, u, pads, out, b, residual=r, act="relu6")
        want = np.clip(conv + resid, 0, 6)
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()


def test_transform_arguments_are_checked():
    x = np.zeros((1, 4, 8, 8), np.float32)
    with pytest.raises(ValueError, match=r"V\^T must be \[36, >= 4, 4\], got \[36, 4, 5\]"):
        WK.input_transform(x, np.zeros((36, 4, 5), np.float32), (1, 1), 0, 2, 2)
    with pytest.raises(ValueError, match="C-contiguous float32 4-D array, got ndarray float64"):
        WK.input_transform(x.astype(np.float64), np.zeros((36, 4, 4), np.float32), (1, 1),
                           0, 2, 2)
    dst = np.zeros((1, 3, 8, 8), np.float32)
    with pytest.raises(ValueError, match=r"products must be \[36, >= 4, 3\] and bias \[3\]"):
        WK.output_transform(np.zeros((36, 4, 3), np.float32), dst, np.zeros(2, np.float32),
                            None, (0.0, np.inf, True), 0, 2, 2)
    with pytest.raises(ValueError, match=r"residual \[1, 3, 8, 7\] must have the output's"):
        WK.output_transform(np.zeros((36, 4, 3), np.float32), dst, np.zeros(3, np.float32),
                            np.zeros((1, 3, 8, 7), np.float32), (0.0, np.inf, True), 0, 2, 2)
    with pytest.raises(ValueError, match="act must be one of"):
        W.winograd_conv(x, W.filter_transform(np.zeros((3, 4, 3, 3), np.float32)),
                        ((1, 1), (1, 1)), (8, 8), act="gelu")
    with pytest.raises(ValueError, match="ksize must be one of"):
        W.winograd_conv(x, W.filter_transform(np.zeros((3, 4, 3, 3), np.float32)),
                        ((1, 1), (1, 1)), (8, 8), ksize=7)
    with pytest.raises(ValueError, match="tile must be one of"):
        WK.input_transform(x, np.zeros((36, 4, 4), np.float32), (1, 1), 0, 2, 2, tile=3)
    with pytest.raises(ValueError, match=r"filters must be \[O, C, r, r\] with r in \[3, 5\]"):
        W.filter_transform(np.zeros((3, 4, 7, 7), np.float32))


@pytest.mark.parametrize("k", [3, 5])
def test_plain_conv2d_takes_winograd_where_it_pays(monkeypatch, k):
    # a float32 3x3 conv2d (eager or in a static program) with 16+ channels and
    # WINOGRAD_MIN_PIXELS output pixels runs Winograd with a filter transformed
    # per call; its numbers equal the float64 direct convolution to rounding
    import sampan as paddle
    from sampan.kernels.cpu import conv as C
    calls = []
    real = C.winograd_conv
    monkeypatch.setattr(C, "winograd_conv", lambda *a, **k: calls.append(a[0].shape) or
                        real(*a, **k))
    rs = np.random.RandomState(7)
    x = rs.standard_normal((16, 16, 16, 16)).astype(np.float32)       # 4096 output pixels
    w = (rs.standard_normal((32, 16, k, k)) / (4 * k)).astype(np.float32)
    p = k // 2
    got = paddle.nn.functional.conv2d(paddle.to_tensor(x), paddle.to_tensor(w), padding=p)
    want = direct.conv_forward(x.astype(np.float64), w.astype(np.float64), 1, ((p, p), (p, p)),
                               (1, 1), (1, 1), (16, 16))
    assert calls == [x.shape]
    assert np.abs(got.numpy() - want).max() <= TOL * np.abs(want).max()
    paddle.nn.functional.conv2d(paddle.to_tensor(x[:8]), paddle.to_tensor(w), padding=p)
    paddle.nn.functional.conv2d(paddle.to_tensor(x[:, :8]), paddle.to_tensor(w[:, :8]), padding=p)
    assert len(calls) == 1          # 2048 pixels, 8 input channels: the direct convolution


@pytest.mark.parametrize("k", [3, 5])
def test_fast_filter_transform_equals_the_float64_one(k):
    w = np.random.RandomState(8).standard_normal((24, 17, k, k)).astype(np.float32)
    fast, exact = W.fast_filter_transform(w), W.filter_transform(w)
    assert fast.shape == exact.shape == (36, 17, 24) and fast.dtype == np.float32
    assert np.abs(fast - exact).max() <= 1e-6 * np.abs(exact).max()


def test_variants_compute_the_correlation_they_name():
    # the generated matrices (F(4x4, 3x3)'s are the published ones): for every
    # 1-D input d of 6 and filter g of r, A^T ((G g) * (B^T d)) is the valid
    # correlation of d by g (m = 7 - r outputs), exactly in float64
    rs = np.random.RandomState(9)
    for r, (m, at, g, kin, kg, kout) in W.VARIANTS.items():
        bt = W._BT
        d, f = rs.standard_normal(6), rs.standard_normal(r)
        want = np.array([d[i:i + r] @ f for i in range(m)])
        assert np.allclose(at @ ((g @ f) * (bt @ d)), want, rtol=0, atol=1e-12)
    assert np.array_equal(W.VARIANTS[3][1][1], [0, 1, -1, 2, -2, 0])
    assert np.allclose(W.VARIANTS[3][2][3], [1 / 24, 1 / 12, 1 / 6])
    # the compiled transforms' integer matrices are the same ones
    assert np.array_equal(np.array(WK.BT), W._BT)
    for r, v in W.VARIANTS.items():
        assert np.array_equal(np.array(WK.AT[v[0]]), v[1])
