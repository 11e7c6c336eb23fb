"""The transposed GEMM kernel (kernels/cpu/gemm_kernel.py ``gemm_transposed``),
the op sampan_conv2d_1x1_packed (kernels/cpu/fused.py) and the Predictor's
sampan_conv1x1_pack_pass (inference/conv1x1_pack.py): the kernel's NCHW
output equals the float64 product with any row count (partial blocks of 7),
column count (partial blocks of its width), batch, bias, residual and clamp;
the op equals the 1x1 convolution at any stride and activation, by the kernel
at batch 1 and by BLAS past ``PACKED_1X1_MAX_ROWS`` rows; the pass rewrites
exactly the eligible fused convs and the optimized predictor's outputs equal
the unoptimized one's; bad shapes are named."""
import numpy as np
import pytest

import sampan as paddle
from sampan.inference import conv1x1_pack as pass_mod
from sampan.kernels.cpu import gemm_kernel as G
from sampan.kernels.cpu import fused as F
from sampan.kernels.cpu.conv_epilogue import CLAMPS
from sampan.static import InputSpec

pytestmark = pytest.mark.skipif(not G.transposed_available(),
                                reason="no transposed GEMM kernel on this host (AVX-512)")
TOL = 1e-5


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


@pytest.mark.parametrize("r,k,c", [(1, 1, 1), (7, 3, 64), (8, 5, 65), (49, 37, 70),
                                   (50, 16, 130), (13, 200, 33)])
@pytest.mark.parametrize("act", ["", "relu", "relu6"])
@pytest.mark.parametrize("with_bias,with_resid", [(False, False), (True, False), (True, True)])
def test_kernel_equals_float64(r, k, c, act, with_bias, with_resid):
    rs = np.random.RandomState(r * 100 + k + c)
    x = rs.standard_normal((k, r)).astype(np.float32)          # NCHW input: (C_in, pixels)
    w = rs.standard_normal((c, k)).astype(np.float32)
    b = rs.standard_normal(c).astype(np.float32) if with_bias else None
    resid = rs.standard_normal((c, r)).astype(np.float32) if with_resid else None
    packed = G.pack_columns(np.ascontiguousarray(w.T), G.transposed_width())
    out = np.full((c, r), np.nan, np.float32)
    G.gemm_transposed(x.T, packed, out, bias=b, residual=resid, clamp=CLAMPS.get(act))
    want = _ref(x, w, b, resid, CLAMPS[act][:2] if act else None)
    assert np.abs(out - want).max() <= TOL * max(1.0, np.abs(want).max())


def test_batched_problems_share_the_packed_operand_and_write_only_their_rows():
    rs = np.random.RandomState(3)
    n, k, r, c = 3, 40, 20, 100
    x = rs.standard_normal((n, k, r)).astype(np.float32)
    w = rs.standard_normal((c, k)).astype(np.float32)
    b = rs.standard_normal(c).astype(np.float32)
    resid = rs.standard_normal((n, c, r + 3)).astype(np.float32)
    packed = G.pack_columns(np.ascontiguousarray(w.T), G.transposed_width())
    out = np.full((n, c, r + 3), 7.0, np.float32)     # 3 columns past R stay untouched
    G.gemm_transposed(x.transpose(0, 2, 1), packed, out, bias=b, residual=resid,
                      clamp=CLAMPS["relu"])
    for i in range(n):
        want = _ref(x[i], w, b, resid[i, :, :r], (0, np.inf))
        assert np.abs(out[i, :, :r] - want).max() <= TOL * np.abs(want).max()
    assert (out[:, :, r:] == 7.0).all()


def test_signed_zeros_and_nans_follow_the_unfused_ops():
    packed = G.pack_columns(np.zeros((1, 2), np.float32), G.transposed_width())
    x = np.array([[0.0, 0.0]], np.float32)                  # products +0.0
    out = np.empty((2, 2), np.float32)
    b = np.array([-0.0, np.nan], np.float32)
    G.gemm_transposed(x.T, packed, out, bias=b)             # 0 + -0.0 = +0.0; NaN stays
    assert np.isnan(out[1]).all() and (out[0] == 0).all()
    neg = np.full((2, 2), -0.0, np.float32)
    G.gemm_transposed(np.zeros((2, 1), np.float32), packed, out, residual=neg)
    assert not np.signbit(out).any()                        # +0.0 + -0.0 = +0.0
    G.gemm_transposed(x.T, packed, out, bias=np.array([-1.0, np.nan], np.float32),
                      clamp=CLAMPS["relu"])
    assert (out[0] == 0).all() and not np.signbit(out[0]).any() and np.isnan(out[1]).all()


def test_bad_operands_are_named():
    blk = G.transposed_width()
    packed = np.zeros((1, 4, blk), np.float32)
    with pytest.raises(ValueError, match=r"packed operand \(blocks, K, %d\)" % blk):
        G.gemm_transposed(np.zeros((3, 5), np.float32), packed, np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="out must be float32"):
        G.gemm_transposed(np.zeros((3, 4), np.float32), packed, np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match="out must be float32"):
        G.gemm_transposed(np.zeros((3, 4), np.float32), packed,
                          np.zeros((blk + 1, 3), np.float32))
    with pytest.raises(ValueError, match="bias must be"):
        G.gemm_transposed(np.zeros((3, 4), np.float32), packed, np.zeros((2, 3), np.float32),
                          bias=np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="residual must be float32 shaped"):
        G.gemm_transposed(np.zeros((3, 4), np.float32), packed, np.zeros((2, 3), np.float32),
                          residual=np.zeros((2, 4), np.float32))


def _conv_ref(x, w, b, resid, strides, act):
    """The fused 1x1 conv by numpy in float64: subsample, product, bias, residual, act."""
    xs = x[:, :, ::strides[0], ::strides[1]].astype(np.float64)
    out = np.einsum("oc,nchw->nohw", w[:, :, 0, 0].astype(np.float64), xs)
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    if resid is not None:
        out += resid
    if act == "relu":
        out = np.maximum(out, 0)
    elif act == "relu6":
        out = np.clip(out, 0, 6)
    elif act == "hard_swish":
        out = out * np.clip(out + 3, 0, 6) / 6
    return out


@pytest.mark.parametrize("n,hw,strides", [(1, (7, 7), (1, 1)), (1, (14, 14), (2, 2)),
                                          (1, (5, 9), (1, 2)), (2, (7, 7), (1, 1)),
                                          (8, (7, 7), (1, 1))])   # 392 rows: the BLAS path
@pytest.mark.parametrize("act", ["", "relu", "relu6", "hard_swish"])
@pytest.mark.parametrize("with_resid", [False, True])
def test_packed_op_equals_the_convolution(n, hw, strides, act, with_resid):
    rs = np.random.RandomState(n + hw[0] + strides[1])
    c, o = 24, 70
    x = rs.standard_normal((n, c) + hw).astype(np.float32)
    w = rs.standard_normal((o, c, 1, 1)).astype(np.float32)
    b = rs.standard_normal(o).astype(np.float32)
    ho, wo = ((d - 1) // s + 1 for d, s in zip(hw, strides))
    resid = rs.standard_normal((n, o, ho, wo)).astype(np.float32) if with_resid else None
    wp = G.pack_columns(np.ascontiguousarray(w[:, :, 0, 0].T), G.transposed_width())
    got = F.conv1x1_packed(x, w, wp, b, resid, strides, act, 0.0)
    want = _conv_ref(x, w, b, resid, strides, act)
    assert got.shape == want.shape and got.dtype == np.float32
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()


def test_large_batches_and_foreign_packings_take_blas(monkeypatch):
    rs = np.random.RandomState(5)
    x = rs.standard_normal((1, 16, 7, 7)).astype(np.float32)
    w = rs.standard_normal((40, 16, 1, 1)).astype(np.float32)
    wp = G.pack_columns(np.ascontiguousarray(w[:, :, 0, 0].T), G.transposed_width())
    calls = []
    monkeypatch.setattr(G, "gemm_transposed", lambda *a, **k: calls.append(a))
    F.conv1x1_packed(x, w, wp, None, None, (1, 1), "", 0.0)
    assert len(calls) == 1                                    # 49 rows: the kernel
    monkeypatch.setattr(F, "PACKED_1X1_MAX_ROWS", 48)
    got = F.conv1x1_packed(x, w, wp, None, None, (1, 1), "", 0.0)
    assert len(calls) == 1                                    # 49 > 48: BLAS
    want = _conv_ref(x, w, None, None, (1, 1), "")
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()
    monkeypatch.setattr(F, "PACKED_1X1_MAX_ROWS", 256)
    narrow = np.zeros((2, 16, 16), np.float32)                # packed for 16-column blocks
    got = F.conv1x1_packed(x, w, narrow, None, None, (1, 1), "", 0.0)
    assert len(calls) == 1 and np.abs(got - want).max() <= TOL * np.abs(want).max()


class Net(paddle.nn.Layer):
    """1x1 convs on a small map: with BN + relu + residual (rewritten), strided
    (rewritten), narrow (kept: few input channels); a 3x3 (kept)."""

    def __init__(self, c):
        super().__init__()
        self.a = paddle.nn.Conv2D(c, c, 1)
        self.bn = paddle.nn.BatchNorm2D(c)
        self.b = paddle.nn.Conv2D(c, 2 * c, 1, stride=2)
        self.c = paddle.nn.Conv2D(2 * c, 4, 1)
        self.d = paddle.nn.Conv2D(4, 8, 1)
        self.e = paddle.nn.Conv2D(c, c, 3, padding=1)

    def forward(self, x):
        h = paddle.nn.functional.relu(self.bn(self.a(x)) + x)
        return self.d(self.c(self.b(h))), self.e(h)


def _predictor(prefix, ir, skip=()):
    cfg = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    cfg.switch_ir_optim(ir)
    for name in skip:
        cfg.delete_pass(name)
    return paddle.inference.create_predictor(cfg)


def _saved_net(tmp_path, c, hw=(14, 14)):
    paddle.seed(11)
    net = Net(c)
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, c, *hw], "float32")])
    return prefix


def _types(pred):
    return [op.type for op in pred._core.program.global_block().ops]


def test_pass_rewrites_the_eligible_convs_and_keeps_the_outputs(tmp_path, monkeypatch):
    c = 32
    monkeypatch.setattr(pass_mod, "MIN_CHANNELS", c)
    monkeypatch.setattr(pass_mod, "MIN_FLOPS", 0)
    prefix = _saved_net(tmp_path, c)
    plain, fast = _predictor(prefix, False), _predictor(prefix, True)
    off = _predictor(prefix, True, skip=["sampan_conv1x1_pack_pass"])
    assert _types(fast).count(pass_mod.PACKED_CONV1X1) == 3      # a, b, c (64 channels in)
    assert pass_mod.PACKED_CONV1X1 not in _types(off)
    assert "sampan_conv1x1_pack_pass: sampan_conv2d_fusion x3 -> " \
           "sampan_conv2d_1x1_packed x3" in fast.explain()
    for n in (1, 3):        # 196 rows: the kernel; 588: BLAS with the filter as it is
        x = np.random.RandomState(n).standard_normal([n, c, 14, 14]).astype("float32")
        for want, got in zip(plain.run([x]), fast.run([x])):
            assert np.abs(got - want).max() <= TOL * np.abs(want).max()


def test_large_maps_and_unknown_sizes_keep_blas(tmp_path, monkeypatch):
    monkeypatch.setattr(pass_mod, "MIN_CHANNELS", 32)
    monkeypatch.setattr(pass_mod, "MIN_FLOPS", 0)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    big = _types(_predictor(_saved_net(tmp_path / "a", 32, hw=(30, 30)), True))
    assert big.count(pass_mod.PACKED_CONV1X1) == 2           # b, c (15x15); a: 900 pixels
    unknown = _types(_predictor(_saved_net(tmp_path / "b", 32, hw=(None, None)), True))
    assert pass_mod.PACKED_CONV1X1 not in unknown


def test_bad_shapes_are_named():
    from sampan.ops.registry import get_op, Meta, OpError
    op = get_op("sampan_conv2d_1x1_packed")
    attrs = dict(op.default_attrs)
    blk = G.transposed_width()
    x, w, b = Meta((1, 4, 7, 7), "float32"), Meta((6, 4, 1, 1), "float32"), Meta((6,), "float32")
    wp = Meta((1, 4, blk), "float32")
    (m,) = op.infer_meta([x, w, wp, b, None], dict(attrs, strides=[2, 2]))
    assert tuple(m.shape) == (1, 6, 4, 4)
    with pytest.raises(OpError, match=r"1x1 Filter \[O, C, 1, 1\]"):
        op.infer_meta([x, Meta((6, 4, 3, 3), "float32"), wp, b, None], attrs)
    with pytest.raises(OpError, match="does not hold Filter"):
        op.infer_meta([x, w, Meta((1, 5, blk), "float32"), b, None], attrs)
    with pytest.raises(OpError, match="Input has 5 channels, the Filter 4"):
        op.infer_meta([Meta((1, 5, 7, 7), "float32"), w, wp, b, None], attrs)
    with pytest.raises(OpError, match="Bias must be 1-D"):
        op.infer_meta([x, w, wp, Meta((5,), "float32"), None], attrs)
    with pytest.raises(OpError, match="activation must be one of"):
        op.infer_meta([x, w, wp, b, None], dict(attrs, activation="gelu"))
    with pytest.raises(OpError, match=r"ResidualData must have the output's shape"):
        op.infer_meta([x, w, wp, b, Meta((1, 6, 7, 6), "float32")], attrs)
