"""The transposed GEMM kernels (kernels/cpu/gemm_transposed.py), the
convolutions on them (kernels/cpu/conv_transposed.py), the op
sampan_conv2d_packed (kernels/cpu/fused.py) and the Predictor's
sampan_conv_pack_pass (inference/conv_pack.py): the kernels' NCHW output
equals the float64 product with any row count (partial row blocks), column
count (every block width, partial blocks), batch, bias, residual and clamp;
the op equals the convolution (1x1 read in place; any kernel size, stride,
padding, dilation and groups through the padded layout) with every
activation, by the kernels, or by BLAS for 1x1 layers with many rows per
sample and in all; the pass rewrites exactly the eligible fused convs and the optimized
predictor's outputs equal the unoptimized one's; bad shapes are named."""
import numpy as np
import pytest

import sampan as paddle
from sampan.inference import conv_pack as pass_mod
from sampan.kernels.cpu import gemm_transposed as T
from sampan.kernels.cpu import fused as F
from sampan.kernels.cpu.conv import conv_forward
from sampan.kernels.cpu.conv_transposed import pack_filter
from sampan.kernels.cpu.conv_epilogue import CLAMPS
from sampan.static import InputSpec
from .predictors import predictor as _predictor, op_types as _types

pytestmark = pytest.mark.skipif(not T.available(),
                                reason="no transposed GEMM kernel on this host (AVX2 or AVX-512)")
TOL = 1e-5
_BUILT = {}


@pytest.fixture(autouse=True, params=sorted({8, T.lanes() or 8}), ids=lambda v: "lanes%d" % v)
def lanes(request, monkeypatch):
    """Every test at each vector width the host runs (8 lanes everywhere, 16
    with AVX-512): the kernels, their block widths and the pass's rules."""
    from sampan.kernels.cpu import gemm_kernel as G
    if T.available() and request.param != T.lanes():
        if request.param not in _BUILT:
            _BUILT[request.param] = G._compile(lanes=request.param)
        monkeypatch.setitem(G._STATE, "fn", _BUILT[request.param])
    assert T.lanes() == request.param
    return request.param


def _ref(x, w, b=None, resid=None, clamp=None):
    """float64 (O, C) @ (C, R) (+ bias) (+ residual), clamped."""
    out = w.astype(np.float64) @ x.astype(np.float64)
    if b is not None:
        out += b[:, None]
    if resid is not None:
        out += resid
    if clamp is not None:
        out = np.clip(out, clamp[0], clamp[1])
    return out


# every block width: up to 16 columns (14-row blocks: 30 rows end in a partial
# one), up to 32 (7 x 32) and more (7 x 48), partial column blocks
@pytest.mark.parametrize("r,k,c", [(1, 1, 1), (30, 20, 16), (15, 9, 5), (49, 9, 32),
                                   (7, 3, 64), (8, 5, 65), (49, 37, 70), (50, 16, 130),
                                   (13, 200, 33)])
@pytest.mark.parametrize("act", ["", "relu", "relu6"])
@pytest.mark.parametrize("with_bias,with_resid", [(False, False), (True, False), (True, True)])
def test_kernel_equals_float64(r, k, c, act, with_bias, with_resid):
    rs = np.random.RandomState(r * 100 + k + c)
    x = rs.standard_normal((k, r)).astype(np.float32)          # NCHW input: (C_in, pixels)
    w = rs.standard_normal((c, k)).astype(np.float32)
    b = rs.standard_normal(c).astype(np.float32) if with_bias else None
    resid = rs.standard_normal((c, r)).astype(np.float32) if with_resid else None
    packed = T.pack(w.T)
    out = np.full((c, r), np.nan, np.float32)
    T.gemm(x.T, packed, out, bias=b, residual=resid, clamp=CLAMPS.get(act))
    want = _ref(x, w, b, resid, CLAMPS[act][:2] if act else None)
    assert np.abs(out - want).max() <= TOL * max(1.0, np.abs(want).max())


def test_batched_problems_share_the_packed_operand_and_write_only_their_rows():
    rs = np.random.RandomState(3)
    n, k, r, c = 3, 40, 20, 100             # (each width: test_every_width_batched)
    x = rs.standard_normal((n, k, r)).astype(np.float32)
    w = rs.standard_normal((c, k)).astype(np.float32)
    b = rs.standard_normal(c).astype(np.float32)
    resid = rs.standard_normal((n, c, r + 3)).astype(np.float32)
    packed = T.pack(w.T)
    out = np.full((n, c, r + 3), 7.0, np.float32)     # 3 columns past R stay untouched
    T.gemm(x.transpose(0, 2, 1), packed, out, bias=b, residual=resid, clamp=CLAMPS["relu"])
    for i in range(n):
        want = _ref(x[i], w, b, resid[i, :, :r], (0, np.inf))
        assert np.abs(out[i, :, :r] - want).max() <= TOL * np.abs(want).max()
    assert (out[:, :, r:] == 7.0).all()


@pytest.mark.parametrize("c", [4, 16, 20, 40, 70])
def test_every_width_batched(c):
    rs = np.random.RandomState(c)
    for n in (1, 3):
        for r in (49, 14, 13, 15, 1):
            x = rs.standard_normal((n, 24, r)).astype(np.float32)
            w = rs.standard_normal((c, 24)).astype(np.float32)
            out = np.zeros((n, c, r), np.float32)
            T.gemm(x.transpose(0, 2, 1), T.pack(w.T), out)
            want = np.einsum("ck,nkr->ncr", w.astype(np.float64), x)
            assert np.abs(out - want).max() <= TOL * np.abs(want).max()


# blocks x width, the 1-vector ones at COLUMN_COST's premium: no 48-wide block
# computing 96 columns for 64 or 288 for 256 (16 lanes), no 24-wide computing
# 72 for 64 (8 lanes)
COVERS = {16: [16, 16, 32, 32, 48, 48, 32, 16, 48, 16, 32, 32, 48],
          8: [8, 16, 24, 16, 8, 24, 16, 16, 24, 16, 16, 16, 24]}


def test_block_width_is_the_cheapest_cover(lanes):
    assert [T.width(c) for c in (4, 16, 24, 32, 40, 48, 64, 80, 96, 112, 160, 256, 2048)] == \
        COVERS[lanes]


@pytest.mark.parametrize("vectors", [1, 2, 3])
@pytest.mark.parametrize("c", [20, 64, 70])
def test_every_block_width_computes_the_same_product(vectors, c, lanes):
    # a filter packed for any of the widths (whichever the rule picks for c)
    from sampan.kernels.cpu import gemm_kernel as G
    blk = vectors * lanes
    rs = np.random.RandomState(blk + c)
    x = rs.standard_normal((2, 24, 49)).astype(np.float32)
    w = rs.standard_normal((c, 24)).astype(np.float32)
    out = np.zeros((2, c, 49), np.float32)
    T.gemm(x.transpose(0, 2, 1), G.pack_columns(w.T, blk), out)
    want = np.einsum("ck,nkr->ncr", w.astype(np.float64), x)
    assert np.abs(out - want).max() <= TOL * np.abs(want).max()


def test_signed_zeros_and_nans_follow_the_unfused_ops():
    packed = T.pack(np.zeros((1, 2), np.float32))
    x = np.array([[0.0, 0.0]], np.float32)                  # products +0.0
    out = np.empty((2, 2), np.float32)
    b = np.array([-0.0, np.nan], np.float32)
    T.gemm(x.T, packed, out, bias=b)                        # 0 + -0.0 = +0.0; NaN stays
    assert np.isnan(out[1]).all() and (out[0] == 0).all()
    neg = np.full((2, 2), -0.0, np.float32)
    T.gemm(np.zeros((2, 1), np.float32), packed, out, residual=neg)
    assert not np.signbit(out).any()                        # +0.0 + -0.0 = +0.0
    T.gemm(x.T, packed, out, bias=np.array([-1.0, np.nan], np.float32), clamp=CLAMPS["relu"])
    assert (out[0] == 0).all() and not np.signbit(out[0]).any() and np.isnan(out[1]).all()


def test_bad_operands_are_named():
    blk = T.width(64)
    packed = np.zeros((1, 4, blk), np.float32)
    with pytest.raises(ValueError, match=r"packed operand must be float32 \(blocks, K=5"):
        T.gemm(np.zeros((3, 5), np.float32), packed, np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="width in"):
        T.gemm(np.zeros((3, 4), np.float32), np.zeros((1, 4, 12), np.float32),
               np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="out must be float32"):
        T.gemm(np.zeros((3, 4), np.float32), packed, np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match="out must be float32"):
        T.gemm(np.zeros((3, 4), np.float32), packed, np.zeros((blk + 1, 3), np.float32))
    with pytest.raises(ValueError, match="bias must be"):
        T.gemm(np.zeros((3, 4), np.float32), packed, np.zeros((2, 3), np.float32),
               bias=np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="residual must be float32 shaped"):
        T.gemm(np.zeros((3, 4), np.float32), packed, np.zeros((2, 3), np.float32),
               residual=np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="pass x's 12 elements"):
        T.gemm_tables(np.zeros(12, np.float32), np.arange(3, dtype=np.int64),
                      np.arange(4, dtype=np.int64) * 4, packed, np.zeros((1, 2, 3), np.float32))


def _conv_ref(x, w, b, resid, act, g=1, pads=((0, 0), (0, 0)), dil=(1, 1), strides=(1, 1)):
    """The fused conv in float64 (numpy's direct path), then the activation."""
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    out = tuple((size + p0 + p1 - d * (k - 1) - 1) // s + 1 for size, (p0, p1), d, k, s
                in zip((h, wd), pads, dil, (kh, kw), strides))
    res = conv_forward(x.astype(np.float64), w.astype(np.float64), g, pads, dil, strides, out,
                       None if b is None else b.astype(np.float64))
    if resid is not None:
        res = res + resid
    if act == "relu":
        res = np.maximum(res, 0)
    elif act == "relu6":
        res = np.clip(res, 0, 6)
    elif act == "hard_swish":
        res = res * np.clip(res + 3, 0, 6) / 6
    return res


def _attrs(g=1, pads=(0, 0), dil=(1, 1), strides=(1, 1), act=""):
    return {"strides": list(strides), "paddings": list(pads), "padding_algorithm": "EXPLICIT",
            "dilations": list(dil), "groups": g, "data_format": "NCHW", "activation": act,
            "alpha": 0.0}


# (batch, map, kernel, groups, in/out channels, strides, paddings, dilations)
GEOMETRIES = [
    (1, (7, 7), 1, 1, (24, 70), (1, 1), (0, 0), (1, 1)),       # 1x1 read in place
    (1, (14, 14), 1, 1, (24, 70), (2, 2), (0, 0), (1, 1)),
    (1, (5, 9), 1, 1, (24, 70), (1, 2), (0, 0), (1, 1)),
    (2, (7, 7), 1, 1, (24, 70), (1, 1), (0, 0), (1, 1)),
    (8, (7, 7), 1, 1, (24, 70), (1, 1), (0, 0), (1, 1)),       # 392 rows of 7x7 maps
    (2, (14, 14), 1, 1, (24, 70), (1, 1), (0, 0), (1, 1)),     # 392 rows of 14x14: BLAS
    (1, (14, 14), 3, 32, (512, 512), (1, 1), (1, 1), (1, 1)),  # ResNeXt's grouped layers
    (1, (14, 14), 3, 32, (1024, 1024), (2, 2), (1, 1), (1, 1)),
    (2, (7, 7), 3, 4, (32, 80), (1, 1), (1, 1), (1, 1)),        # 20 per group: 32-wide blocks
    (3, (14, 14), 3, 8, (64, 64), (2, 2), (1, 1), (1, 1)),      # grouped, a sample at a time
    (2, (12, 12), 3, 2, (8, 36), (1, 1), (2, 2), (2, 2)),      # grouped and dilated, batched
    (1, (9, 11), 3, 1, (6, 50), (2, 1), (1, 2), (1, 1)),       # uneven padding and strides
    (1, (12, 12), 3, 2, (8, 36), (1, 1), (2, 2), (2, 2)),      # dilated
    (1, (13, 10), (2, 3), 1, (5, 17), (3, 2), (0, 1), (1, 1)),  # a 2x3 kernel, no top padding
    (1, (8, 8), 1, 2, (8, 32), (1, 1), (1, 1), (1, 1)),        # 1x1 grouped, padded
]


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=lambda g: "n%d_%dx%d_k%s_g%d_s%s_p%s_d%s"
                         % (g[0], *g[1], g[2], g[3], *g[5:6], g[6], g[7]))
@pytest.mark.parametrize("act", ["", "relu", "relu6", "hard_swish"])
@pytest.mark.parametrize("with_resid", [False, True])
def test_packed_op_equals_the_convolution(geometry, act, with_resid):
    n, hw, k, g, (c, o), strides, pads, dil = geometry
    kh, kw = (k, k) if isinstance(k, int) else k
    rs = np.random.RandomState(n + hw[0] + c + o)
    x = rs.standard_normal((n, c) + hw).astype(np.float32)
    w = (rs.standard_normal((o, c // g, kh, kw)) / np.sqrt(c // g * kh * kw)).astype(np.float32)
    b = rs.standard_normal(o).astype(np.float32)
    pad2 = tuple((p, p) for p in pads)
    want_plain = _conv_ref(x, w, b, None, "", g, pad2, dil, strides)
    resid = rs.standard_normal(want_plain.shape).astype(np.float32) if with_resid else None
    got = F.conv_packed(x, w, pack_filter(w, g), b, resid, _attrs(g, pads, dil, strides, act))
    want = _conv_ref(x, w, b, resid, act, g, pad2, dil, strides)
    assert got.shape == want.shape and got.dtype == np.float32
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()


@pytest.mark.parametrize("n,hw,relu", [(1, (7, 7), True), (1, (14, 14), False),
                                       (4, (7, 7), True), (2, (14, 14), True)])
def test_input_map_is_applied_first(n, hw, relu):
    """DenseNet's BN-ReLU-conv: relu(x * scale + shift) then the 1x1 conv, by the
    kernel (maps of 49 pixels, or batch 1) or BLAS (392 rows of 14x14)."""
    rs = np.random.RandomState(n + hw[0])
    c, o = 40, 24
    x = rs.standard_normal((n, c) + hw).astype(np.float32)
    w = rs.standard_normal((o, c, 1, 1)).astype(np.float32)
    b = rs.standard_normal(o).astype(np.float32)
    scale = rs.uniform(0.5, 2, c).astype(np.float32)
    shift = rs.standard_normal(c).astype(np.float32)
    attrs = dict(_attrs(act="relu"), in_activation="relu" if relu else "")
    got = F.conv_packed(x, w, pack_filter(w, 1), b, None, attrs, scale, shift)
    mapped = x.astype(np.float64) * scale[:, None, None] + shift[:, None, None]
    want = _conv_ref(np.maximum(mapped, 0) if relu else mapped, w, b, None, "relu")
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()
    x_before = x.copy()
    F.conv_packed(x, w, pack_filter(w, 1), b, None, attrs, scale, shift)
    assert np.array_equal(x, x_before)                      # the map wrote no input


def test_large_batches_and_foreign_packings_take_blas(monkeypatch):
    rs = np.random.RandomState(5)
    x = rs.standard_normal((1, 16, 7, 7)).astype(np.float32)
    w = rs.standard_normal((40, 16, 1, 1)).astype(np.float32)
    wp = pack_filter(w, 1)
    calls = []
    monkeypatch.setattr(T, "gemm", lambda *a, **k: calls.append(a))
    F.conv_packed(x, w, wp, None, None, _attrs())
    assert len(calls) == 1                                    # 49 rows: the kernel
    monkeypatch.setattr(F, "PACKED_MAX_ROWS", 48)
    F.conv_packed(x, w, wp, None, None, _attrs())
    assert len(calls) == 2                                    # 7x7 maps: the kernel still
    monkeypatch.setattr(F, "PACKED_MAX_PIXELS", 48)
    got = F.conv_packed(x, w, wp, None, None, _attrs())
    assert len(calls) == 2                                    # 49 > 48 both: BLAS
    want = _conv_ref(x, w, None, None, "")
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()
    monkeypatch.setattr(F, "PACKED_MAX_ROWS", 256)
    narrow = np.zeros((1, 2, 16, 32), np.float32)             # packed for 32-column blocks
    got = F.conv_packed(x, w, narrow, None, None, _attrs())
    assert len(calls) == 2 and np.abs(got - want).max() <= TOL * np.abs(want).max()


class Net(paddle.nn.Layer):
    """On a small map: 1x1 convs with BN + relu + residual (rewritten at 16
    lanes), strided (the same), narrow (kept: few input channels); a grouped 3x3
    (rewritten: 16 channels per group), a grouped one with 8 per group (kept at
    16 lanes), a 3x3 stride 2 (rewritten at 16 lanes) and a 3x3 stride 1
    (Winograd's)."""

    def __init__(self, c):
        super().__init__()
        self.a = paddle.nn.Conv2D(c, c, 1)
        self.bn = paddle.nn.BatchNorm2D(c)
        self.b = paddle.nn.Conv2D(c, 2 * c, 1, stride=2)
        self.c = paddle.nn.Conv2D(2 * c, 4, 1)
        self.d = paddle.nn.Conv2D(4, 8, 1)
        self.e = paddle.nn.Conv2D(c, c, 3, padding=1)
        self.f = paddle.nn.Conv2D(c, c, 3, padding=1, groups=2)
        self.g = paddle.nn.Conv2D(c, c, 3, padding=1, groups=4)
        self.h = paddle.nn.Conv2D(c, c, 3, stride=2, padding=1)

    def forward(self, x):
        h = paddle.nn.functional.relu(self.bn(self.a(x)) + x)
        return self.d(self.c(self.b(h))), self.e(h), self.g(self.f(h)), self.h(h)


def _saved_net(tmp_path, c, hw=(14, 14)):
    paddle.seed(11)
    net = Net(c)
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, c, *hw], "float32")])
    return prefix


def _low_thresholds(monkeypatch, channels):
    """The 1x1 rules down to ``channels`` input channels and any work (small nets)."""
    for name, value in (("MIN_CHANNELS_1X1", channels), ("MIN_FLOPS_1X1", 0),
                        ("MIN_CHANNELS_1X1_SMALL_MAP", channels), ("MIN_FLOPS_1X1_SMALL_MAP", 0)):
        monkeypatch.setattr(pass_mod, name, value)


@pytest.mark.parametrize("c,o,hw,taken", [
    (128, 384, (7, 7), True), (128, 384, (8, 8), True),    # small maps: 128 channels, 4 MFLOP
    (64, 384, (7, 7), False), (128, 160, (7, 7), False),
    (64, 384, (14, 14), True),                              # 14x14: 64 channels, 8 MFLOP
    (48, 384, (14, 14), False), (64, 256, (14, 14), False)])
def test_1x1_layers_are_taken_by_channels_and_work(tmp_path, c, o, hw, taken):
    """MIN_CHANNELS_1X1(_SMALL_MAP) input channels and MIN_FLOPS_1X1(_SMALL_MAP)
    per sample, by the map's size."""
    paddle.seed(3)
    net = paddle.nn.Conv2D(c, o, 1)
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, c, *hw], "float32")])
    fast = _predictor(prefix, True)
    assert (pass_mod.PACKED_CONV in _types(fast)) == (taken and pass_mod.rules().one_by_one)
    x = np.random.RandomState(1).standard_normal([1, c, *hw]).astype("float32")
    (want,), (got,) = _predictor(prefix, False).run([x]), fast.run([x])
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()


@pytest.mark.parametrize("o,k,taken", [(16, 3, True), (32, 3, True), (24, 3, False),
                                       (16, 7, False)])
def test_image_stems(tmp_path, o, k, taken):
    """A 3x3 stem into whole blocks of 16 channels takes the kernels on a large
    map at batch 1 and its old path at batch 2; 24 channels and 7x7 stay."""
    paddle.seed(4)
    net = paddle.nn.Sequential(paddle.nn.Conv2D(3, o, k, stride=2, padding=k // 2),
                               paddle.nn.ReLU6())
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, 3, 64, 64], "float32")])
    fast = _predictor(prefix, True)
    assert (pass_mod.PACKED_CONV in _types(fast)) == (taken and pass_mod.rules().stems)
    plain = _predictor(prefix, False)
    for n in (1, 2):
        x = np.random.RandomState(n).standard_normal([n, 3, 64, 64]).astype("float32")
        (want,), (got,) = plain.run([x]), fast.run([x])
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()


@pytest.mark.parametrize("hw", [7, 14])
def test_stride_1_ungrouped_layers_by_map_and_width(tmp_path, lanes, hw):
    """An ungrouped stride-1 3x3 layer Winograd's pass leaves (dilated) takes the
    kernels on a 7x7 map at both widths, on a 14x14 one at 16 lanes only
    (RULES' ``s1_max_pixels``); the outputs equal the unoptimized ones."""
    paddle.seed(7)
    net = paddle.nn.Conv2D(64, 64, 3, padding=2, dilation=2)
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, 64, hw, hw], "float32")])
    fast = _predictor(prefix, True)
    assert (pass_mod.PACKED_CONV in _types(fast)) == (hw == 7 or lanes == 16)
    plain = _predictor(prefix, False)
    for n in (1, 2):
        x = np.random.RandomState(n).standard_normal([n, 64, hw, hw]).astype("float32")
        (want,), (got,) = plain.run([x]), fast.run([x])
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()


def test_kxk_layers_on_large_maps_take_the_kernels_at_batch_1_only(monkeypatch):
    rs = np.random.RandomState(6)
    w = rs.standard_normal((16, 3, 3, 3)).astype(np.float32)
    wp = pack_filter(w, 1)
    calls = []
    real = F.conv_transposed
    monkeypatch.setattr(F, "conv_transposed", lambda *a, **k: calls.append(1) or real(*a, **k))
    attrs = _attrs(pads=(1, 1), strides=(2, 2))
    for n, through_kernel in ((1, True), (2, False)):
        x = rs.standard_normal((n, 3, 40, 40)).astype(np.float32)       # 400 output pixels
        before = len(calls)
        got = F.conv_packed(x, w, wp, None, None, attrs)
        assert (len(calls) > before) == through_kernel
        want = _conv_ref(x, w, None, None, "", 1, ((1, 1), (1, 1)), (1, 1), (2, 2))
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()


@pytest.mark.parametrize("stride, hw", [(2, 48), (2, 64), (1, 24)])
def test_grouped_strided_layers_on_large_maps_by_width(tmp_path, monkeypatch, lanes, stride,
                                                      hw):
    """A grouped 3x3 layer into a 24x24 map (576 pixels, past MAX_PIXELS) takes
    the kernels at 8 lanes where it is strided (RULES' ``grouped_strided_max_
    pixels``: 784), and at any batch; into 32x32 or at stride 1 it keeps the
    pixel-vector path; the outputs equal the unoptimized ones."""
    paddle.seed(3)
    net = paddle.nn.Conv2D(64, 64, 3, stride=stride, padding=1, groups=8)
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, 64, hw, hw], "float32")])
    fast = _predictor(prefix, True)
    taken = lanes == 8 and stride == 2 and hw == 48
    assert (pass_mod.PACKED_CONV in _types(fast)) == taken
    calls = []
    real = F.conv_transposed
    monkeypatch.setattr(F, "conv_transposed", lambda *a, **k: calls.append(1) or real(*a, **k))
    plain = _predictor(prefix, False)
    for n in (1, 3):
        x = np.random.RandomState(n).standard_normal([n, 64, hw, hw]).astype("float32")
        before = len(calls)
        (want,), (got,) = plain.run([x]), fast.run([x])
        assert (len(calls) > before) == taken        # batch 3 too
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()


# Net's convs rewritten: 16 lanes a, b, c, f, h; 8 lanes no 1x1, the grouped f
# and g (8 channels a group fill one vector), h's 7x7 map too small
REWRITTEN = {16: 5, 8: 2}


def test_pass_rewrites_the_eligible_convs_and_keeps_the_outputs(tmp_path, monkeypatch, lanes):
    c = 32
    _low_thresholds(monkeypatch, c)
    prefix = _saved_net(tmp_path, c)
    plain, fast = _predictor(prefix, False), _predictor(prefix, True)
    off = _predictor(prefix, True, skip=["sampan_conv_pack_pass"])
    taken = REWRITTEN[lanes]
    assert _types(fast).count(pass_mod.PACKED_CONV) == taken
    assert pass_mod.PACKED_CONV not in _types(off)
    assert "sampan_conv_pack_pass: sampan_conv2d_fusion x%d -> " \
           "sampan_conv2d_packed x%d" % (taken, taken) in fast.explain()
    for n in (1, 3):        # at 3, self.a (588 rows of 14x14) takes BLAS with the filter
        x = np.random.RandomState(n).standard_normal([n, c, 14, 14]).astype("float32")
        for want, got in zip(plain.run([x]), fast.run([x])):
            assert np.abs(got - want).max() <= TOL * np.abs(want).max()


class DenseBlock(paddle.nn.Layer):
    """DenseNet's pre-activation layer on a 7x7 map: BN -> relu -> 1x1 conv (the
    affine map becomes the fused conv's input map, and the pass keeps it)."""

    def __init__(self, c):
        super().__init__()
        self.bn = paddle.nn.BatchNorm2D(c)
        self.conv = paddle.nn.Conv2D(c, 48, 1, bias_attr=False)

    def forward(self, x):
        return self.conv(paddle.nn.functional.relu(self.bn(x)))


def test_pass_keeps_the_input_map(tmp_path, monkeypatch, lanes):
    c = 64
    _low_thresholds(monkeypatch, c)
    # (1x1 layers pay at 16 lanes only; the map is kept at any width)
    monkeypatch.setitem(pass_mod.RULES, lanes, pass_mod.RULES[lanes]._replace(one_by_one=True))
    paddle.seed(5)
    net = DenseBlock(c)
    for p in (net.bn.weight, net.bn.bias, net.bn._mean, net.bn._variance):  # a trained BN
        p.set_value(np.random.RandomState(len(p.name)).uniform(0.5, 1.5, c).astype("float32"))
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, c, 7, 7], "float32")])
    plain, fast = _predictor(prefix, False), _predictor(prefix, True)
    ops = fast._core.program.global_block().ops
    packed = [op for op in ops if op.type == pass_mod.PACKED_CONV]
    assert len(packed) == 1 and packed[0].input("InScale") and \
        packed[0].attr("in_activation") == "relu"
    for n in (1, 5):
        x = np.random.RandomState(n).standard_normal([n, c, 7, 7]).astype("float32")
        (want,), (got,) = plain.run([x]), fast.run([x])
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()


def test_large_maps_and_unknown_sizes_keep_blas(tmp_path, monkeypatch, lanes):
    _low_thresholds(monkeypatch, 32)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    big = _types(_predictor(_saved_net(tmp_path / "a", 32, hw=(30, 30)), True))
    # b, c, h (15x15; 8 lanes: h only); a, f, g: 900 pixels
    assert big.count(pass_mod.PACKED_CONV) == {16: 3, 8: 1}[lanes]
    unknown = _types(_predictor(_saved_net(tmp_path / "b", 32, hw=(None, None)), True))
    assert pass_mod.PACKED_CONV not in unknown


def test_bad_shapes_are_named():
    from sampan.ops.registry import get_op, Meta, OpError
    op = get_op("sampan_conv2d_packed")
    attrs = dict(op.default_attrs)
    blk = T.width(6)
    x, w, b = Meta((1, 4, 7, 7), "float32"), Meta((6, 4, 1, 1), "float32"), Meta((6,), "float32")
    wp = Meta((1, 1, 4, blk), "float32")
    sc = Meta((4,), "float32")

    def infer(*metas, resid=None, scale=None, shift=None, **kw):
        return op.infer_meta(list(metas) + [resid, scale, shift], dict(attrs, **kw))

    (m,) = infer(x, w, wp, b, strides=[2, 2])
    assert tuple(m.shape) == (1, 6, 4, 4)
    (m,) = infer(x, Meta((6, 2, 3, 3), "float32"), Meta((2, 1, 18, blk), "float32"), b,
                 groups=2, paddings=[1, 1])
    assert tuple(m.shape) == (1, 6, 7, 7)
    (m,) = infer(x, w, wp, b, scale=sc, shift=sc, in_activation="relu")
    assert tuple(m.shape) == (1, 6, 7, 7)
    with pytest.raises(OpError, match=r"packed Filter \[g, blocks, K, width\]"):
        infer(x, w, Meta((1, 4, blk), "float32"), b)
    with pytest.raises(OpError, match="does not hold Filter"):
        infer(x, w, Meta((1, 1, 5, blk), "float32"), b)
    with pytest.raises(OpError, match="does not hold Filter"):
        infer(x, Meta((6, 2, 3, 3), "float32"), Meta((1, 1, 18, blk), "float32"), b,
              groups=2, paddings=[1, 1])
    with pytest.raises(OpError, match="Bias must be 1-D"):
        infer(x, w, wp, Meta((5,), "float32"))
    with pytest.raises(OpError, match="activation must be one of"):
        infer(x, w, wp, b, activation="gelu")
    with pytest.raises(OpError, match=r"ResidualData must have the output's shape"):
        infer(x, w, wp, b, resid=Meta((1, 6, 7, 6), "float32"))
    with pytest.raises(OpError, match="InScale and InShift go together"):
        infer(x, w, wp, b, scale=sc)
    with pytest.raises(OpError, match="InShift must be 1-D with one value per input channel"):
        infer(x, w, wp, b, scale=sc, shift=Meta((5,), "float32"))
