"""Winograd F(4x4, 3x3) and F(2x2, 5x5) (kernels/cpu/winograd.py) and the
Predictor's sampan_conv_winograd_pass (inference/winograd.py): the kernel equals the
direct convolution computed in float64 to 3e-5 of the output's scale, with
any padding, odd output sizes and batches split into chunks, by both tile
transforms (the compiled ones of kernels/cpu/winograd_kernel.py and numpy's);
the pass rewrites exactly the eligible fused convs (by the rule of the
transforms this host runs), and the optimized predictor's outputs equal the
unoptimized one's."""
import numpy as np
import pytest

import sampan as paddle
from sampan.inference import winograd as pass_mod
from sampan.kernels.cpu import conv as direct
from sampan.kernels.cpu import winograd as W
from sampan.kernels.cpu import gemm_kernel as G
from sampan.kernels.cpu import winograd_kernel as WK
from sampan.ops.defs.nn_conv import conv_out
from sampan.static import InputSpec
from .predictors import predictor as _predictor, op_types as _types

TOL = 3e-5
TRANSFORMS = ["compiled", "numpy"] if WK.available() else ["numpy"]


@pytest.fixture(params=TRANSFORMS)
def transforms(request, monkeypatch):
    """Run the test with the compiled tile transforms, then with numpy's."""
    if request.param == "numpy":
        monkeypatch.setitem(WK._STATE, "fn", None)
    return request.param


def _reference(x, w, pads, b):
    out = tuple(conv_out(i, w.shape[2], 1, p, 1) for i, p in zip(x.shape[2:], pads))
    ref = direct.conv_forward(x.astype(np.float64), w.astype(np.float64), 1, pads, (1, 1),
                              (1, 1), out, None if b is None else b.astype(np.float64))
    return ref, out


@pytest.mark.parametrize("n, c, o, hw, pads", [
    (1, 8, 6, (12, 12), ((1, 1), (1, 1))),
    (2, 5, 7, (9, 11), ((1, 1), (1, 1))),        # outputs not a multiple of the tile
    (3, 4, 4, (10, 7), ((0, 0), (0, 0))),
    (2, 6, 3, (8, 9), ((2, 1), (0, 2))),          # asymmetric padding
    (1, 3, 2, (5, 5), ((1, 0), (3, 3))),
    (2, 4, 5, (16, 8), ((1, 1), (1, 1))),         # whole tiles: written in place
])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("k", [3, 5])
def test_kernel_equals_the_direct_convolution(n, c, o, hw, pads, bias, k, transforms):
    rs = np.random.RandomState(n * 100 + c)
    x = rs.standard_normal((n, c) + hw).astype("float32")
    w = (rs.standard_normal((o, c, k, k)) / k).astype("float32")
    b = rs.standard_normal(o).astype("float32") if bias else None
    ref, out = _reference(x, w, pads, b)
    got = W.winograd_conv(x, W.filter_transform(w), pads, out, b, ksize=k)
    assert got.shape == ref.shape and got.dtype == np.float32
    assert np.abs(got - ref).max() <= TOL * np.abs(ref).max()


@pytest.mark.parametrize("block", [1, 4000])
@pytest.mark.parametrize("hw", [(17, 9), (16, 12)])      # partial / whole tiles
@pytest.mark.parametrize("k", [3, 5])
def test_batches_in_chunks_and_bands_of_tile_rows(monkeypatch, block, hw, k, transforms):
    # block 1: one sample and one row of tiles at a time; 4000: bands of 2 rows
    rs = np.random.RandomState(3)
    x = rs.standard_normal((5, 4) + hw).astype("float32")
    w = rs.standard_normal((6, 4, k, k)).astype("float32")
    u, pads = W.filter_transform(w), ((k // 2, k // 2), (k // 2, k // 2))
    ref, _ = _reference(x, w, pads, None)
    monkeypatch.setattr(W, "_BLOCK_BYTES", block)
    got = W.winograd_conv(x, u, pads, hw, ksize=k)
    assert np.abs(got - ref).max() <= TOL * np.abs(ref).max()


@pytest.mark.parametrize("k", [3, 5])
def test_float64_is_exact_to_double_rounding(k):
    rs = np.random.RandomState(4)
    x, w = rs.standard_normal((1, 3, 8, 8)), rs.standard_normal((2, 3, k, k))
    ref, out = _reference(x, w, ((1, 1), (1, 1)), None)
    got = W.winograd_conv(x, W.filter_transform(w), ((1, 1), (1, 1)), out, ksize=k)
    assert got.dtype == np.float64
    assert np.abs(got - ref).max() <= 1e-12 * np.abs(ref).max()


class Net(paddle.nn.Layer):
    """conv k x k (rewritten), conv 3x3 stride 2 and a narrow conv (kept)."""

    def __init__(self, c, k=3):
        super().__init__()
        self.a = paddle.nn.Conv2D(c, c, k, padding=k // 2)
        self.bn = paddle.nn.BatchNorm2D(c)
        self.b = paddle.nn.Conv2D(c, c, 3, stride=2, padding=1)
        self.c = paddle.nn.Conv2D(c, 8, 3, padding=1)

    def forward(self, x):
        h = paddle.nn.functional.relu(self.bn(self.a(x)))
        return self.c(self.b(h) + 1.0), h


def _saved_net(tmp_path, c, seed=None, hw=(16, 16), k=3):
    """Net(c, k) in eval mode saved under tmp_path; returns the path prefix."""
    if seed is not None:
        paddle.seed(seed)
    net = Net(c, k)
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, c, *hw], "float32")])
    return prefix


@pytest.mark.parametrize("k, tile", [(3, 4), (5, 2)])
def test_pass_rewrites_the_eligible_conv_and_keeps_the_outputs(tmp_path, monkeypatch, k, tile,
                                                               transforms):
    monkeypatch.setattr(pass_mod, "MIN_SIDE", 8)
    c = pass_mod.MIN_CHANNELS
    prefix = _saved_net(tmp_path, c, seed=7, k=k)
    plain, fast = _predictor(prefix, False), _predictor(prefix, True)
    no_wino = _predictor(prefix, True, skip=["sampan_conv_winograd_pass"])
    assert pass_mod.WINOGRAD_CONV not in _types(no_wino)
    if k == 5 and transforms == "numpy":        # F(2x2, 5x5) only with the compiled ones
        assert pass_mod.WINOGRAD_CONV not in _types(fast)
    else:
        assert _types(fast).count(pass_mod.WINOGRAD_CONV) == 1       # only self.a
        (op,) = [op for op in fast._core.program.global_block().ops
                 if op.type == pass_mod.WINOGRAD_CONV]
        assert op.attr("kernel_size") == k
        assert op.input("Filter")[0].endswith("@winograd%d" % tile)
        assert "sampan_conv_winograd_pass: sampan_conv2d_fusion x1 -> " \
               "sampan_conv2d_winograd x1" in fast.explain()
    x = np.random.RandomState(1).standard_normal([2, c, 16, 16]).astype("float32")
    for want, got in zip(plain.run([x]), fast.run([x])):
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()


def test_unknown_spatial_sizes_keep_the_direct_conv(tmp_path):
    prefix = _saved_net(tmp_path, pass_mod.MIN_CHANNELS, hw=(None, None))
    assert pass_mod.WINOGRAD_CONV not in _types(_predictor(prefix, True))


def test_bad_filter_is_named():
    from sampan.ops.registry import get_op, Meta, OpError
    op = get_op("sampan_conv2d_winograd")
    attrs = dict(op.default_attrs, paddings=[1, 1])
    x, b = Meta((1, 4, 8, 8), "float32"), Meta((6,), "float32")
    with pytest.raises(OpError, match=r"transformed Filter \[36, C, O\]"):
        op.infer_meta([x, Meta((6, 4, 3, 3), "float32"), b, None], attrs)
    with pytest.raises(OpError, match="Input has 4 channels, the Filter 5"):
        op.infer_meta([x, Meta((36, 5, 6), "float32"), b, None], attrs)
    with pytest.raises(OpError, match=r"ResidualData must have the output's shape \[1, 6, 8, 8\]"):
        op.infer_meta([x, Meta((36, 4, 6), "float32"), b, Meta((1, 6, 8, 7), "float32")], attrs)
    with pytest.raises(OpError, match="ResidualData must be float32"):
        op.infer_meta([x, Meta((36, 4, 6), "float32"), b, Meta((1, 6, 8, 8), "float64")], attrs)
    with pytest.raises(OpError, match="kernel_size must be 3 or 5, got 4"):
        op.infer_meta([x, Meta((36, 4, 6), "float32"), b, None], dict(attrs, kernel_size=4))
    (m,) = op.infer_meta([x, Meta((36, 4, 6), "float32"), b, None],
                         dict(attrs, kernel_size=5, paddings=[2, 2]))
    assert tuple(m.shape) == (1, 6, 8, 8)
    (m,) = op.infer_meta([x, Meta((36, 4, 6), "float32"), b, None], attrs)
    assert tuple(m.shape) == (1, 6, 8, 8)
    (m,) = op.infer_meta([x, Meta((36, 4, 6), "float32"), b, Meta((-1, 6, 8, 8), "float32")],
                         attrs)
    assert tuple(m.shape) == (1, 6, 8, 8)


# ---------------------------------------------------------------- packed filters
needs_kernel = pytest.mark.skipif(not G.available(), reason="no GEMM kernel on this host")


@needs_kernel
@pytest.mark.parametrize("n, c, o, hw", [(1, 8, 40, (7, 7)), (2, 5, 7, (9, 11)),
                                         (3, 33, 32, (14, 14)), (1, 4, 70, (4, 5))])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("k", [3, 5])
def test_packed_filter_equals_the_direct_convolution(n, c, o, hw, bias, k, transforms):
    # the 36 products by the GEMM kernel (M^T = V^T U^T, vectorized over the
    # output channels), O not a multiple of the block width included
    rs = np.random.RandomState(n * 10 + o)
    x = rs.standard_normal((n, c) + hw).astype("float32")
    w = (rs.standard_normal((o, c, k, k)) / k).astype("float32")
    b = rs.standard_normal(o).astype("float32") if bias else None
    pads = ((k // 2, k // 2), (k // 2, k // 2))
    ref, out = _reference(x, w, pads, b)
    up = W.pack_filter(W.filter_transform(w))
    assert up.shape == (36, -(-o // G.block_width()), c, G.block_width())
    got = W.winograd_conv(x, up, pads, out, b, out_channels=o, ksize=k)
    assert got.shape == ref.shape and got.dtype == np.float32
    assert np.abs(got - ref).max() <= TOL * np.abs(ref).max()


@pytest.mark.skipif(G.lanes() != 16,
                    reason="needs a host with two vector widths (AVX-512 and 8 lanes)")
def test_packed_filter_for_another_block_width_is_unpacked(monkeypatch, transforms):
    # a filter packed for 16-lane vectors, run where the kernel's blocks are 8
    # lanes wide (and the other way round): unpacked to [36, C, O], same result
    rs = np.random.RandomState(5)
    x = rs.standard_normal((2, 6, 9, 9)).astype("float32")
    w = rs.standard_normal((20, 6, 3, 3)).astype("float32")
    pads = ((1, 1), (1, 1))
    ref, out = _reference(x, w, pads, None)
    wide = W.pack_filter(W.filter_transform(w))
    monkeypatch.setitem(G._STATE, "fn", G._compile(lanes=8))
    narrow = W.pack_filter(W.filter_transform(w))
    assert narrow.shape[3] == wide.shape[3] // 2
    for up in (wide, narrow):
        got = W.winograd_conv(x, up, pads, out, None, out_channels=20)
        assert np.abs(got - ref).max() <= TOL * np.abs(ref).max()
    with pytest.raises(ValueError, match="needs out_channels in 1..32, got -1"):
        W.winograd_conv(x, narrow, pads, out, None)


@needs_kernel
def test_pass_packs_wide_layers_and_takes_smaller_maps(tmp_path, monkeypatch):
    # a layer with PACK_MIN_CHANNELS input channels gets the packed filter and is
    # taken down to MIN_SIDE_PACKED (here: sides the unpacked rule would refuse;
    # the rule of numpy's transforms)
    monkeypatch.setitem(WK._STATE, "fn", None)
    c = pass_mod.MIN_CHANNELS
    monkeypatch.setattr(pass_mod, "PACK_MIN_CHANNELS", c)
    monkeypatch.setattr(pass_mod, "MIN_SIDE", 100)
    monkeypatch.setattr(pass_mod, "MIN_SIDE_PACKED", 8)
    monkeypatch.setattr(G, "PACKED_LANES", {G.lanes()})  # (the rule of the widths: below)
    prefix = _saved_net(tmp_path, c, seed=8)
    plain, fast = _predictor(prefix, False), _predictor(prefix, True)
    ops = [op for op in fast._core.program.global_block().ops
           if op.type == pass_mod.WINOGRAD_CONV]
    assert len(ops) == 1 and ops[0].attr("out_channels") == c
    assert ops[0].input("Filter")[0].endswith("@winograd4p")
    x = np.random.RandomState(2).standard_normal([3, c, 16, 16]).astype("float32")
    for want, got in zip(plain.run([x]), fast.run([x])):
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()
    # where packed products lose to BLAS (AVX2: gemm_kernel.PACKED_LANES) the
    # transform stays unpacked and the unpacked rule's side applies
    monkeypatch.setattr(G, "PACKED_LANES", set())
    monkeypatch.setattr(pass_mod, "MIN_SIDE", 8)
    ops = [op for op in _predictor(prefix, True)._core.program.global_block().ops
           if op.type == pass_mod.WINOGRAD_CONV]
    assert len(ops) == 1 and ops[0].input("Filter")[0].endswith("@winograd4")


def test_packed_filter_shapes_are_checked():
    from sampan.ops.registry import get_op, Meta, OpError
    op = get_op("sampan_conv2d_winograd")
    x, b = Meta((2, 4, 7, 7), "float32"), Meta((40,), "float32")
    attrs = dict(op.default_attrs, paddings=[1, 1], out_channels=40)
    (m,) = op.infer_meta([x, Meta((36, 2, 4, 32), "float32"), b, None], attrs)
    assert tuple(m.shape) == (2, 40, 7, 7)
    with pytest.raises(OpError, match="holds 64 output channels at most; out_channels is 65"):
        op.infer_meta([x, Meta((36, 2, 4, 32), "float32"), None, None],
                      dict(attrs, out_channels=65))
    with pytest.raises(OpError, match="Input has 4 channels, the Filter 5"):
        op.infer_meta([x, Meta((36, 2, 5, 32), "float32"), b, None], attrs)
    with pytest.raises(OpError, match=r"one value per output channel \(40\)"):
        op.infer_meta([x, Meta((36, 2, 4, 32), "float32"), Meta((64,), "float32"), None], attrs)


@pytest.mark.skipif(not WK.available(), reason="no compiled transforms on this host")
@pytest.mark.parametrize("c, hw, taken", [(16, (16, 16), True), (32, (4, 4), True),
                                          (32, (3, 3), False), (8, (16, 16), False)])
def test_compiled_transforms_take_narrower_layers_and_smaller_maps(tmp_path, c, hw, taken):
    # MIN_CHANNELS_COMPILED (16) channels and MIN_SIDE_COMPILED (4) where the
    # compiled transforms run: layers the numpy rule (64 channels, 13x13) refuses
    prefix = _saved_net(tmp_path, c, seed=9, hw=hw)
    plain, fast = _predictor(prefix, False), _predictor(prefix, True)
    assert (pass_mod.WINOGRAD_CONV in _types(fast)) == taken
    x = np.random.RandomState(3).standard_normal([2, c, *hw]).astype("float32")
    for want, got in zip(plain.run([x]), fast.run([x])):
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()


def test_numpy_transforms_keep_the_narrow_rule(tmp_path, monkeypatch):
    monkeypatch.setitem(WK._STATE, "fn", None)
    prefix = _saved_net(tmp_path, 32, seed=9)
    assert pass_mod.WINOGRAD_CONV not in _types(_predictor(prefix, True))


def test_small_maps_run_their_packed_filter_at_batch_1(tmp_path, monkeypatch):
    # where Winograd's products go through BLAS (AVX2) a layer the conv pass's
    # rules give to the transposed kernels (a 7x7 map) keeps Winograd past batch
    # 1 and also gets its filter packed for those kernels, which it runs at batch 1
    from sampan.inference import conv_pack as CP
    from sampan.kernels.cpu import fused as F
    monkeypatch.setattr(G, "PACKED_LANES", set())
    monkeypatch.setattr(pass_mod, "pack_rules", lambda: CP.RULES[8])
    c = 64
    prefix = _saved_net(tmp_path, c, seed=10, hw=(7, 7))
    plain, fast = _predictor(prefix, False), _predictor(prefix, True)
    (op,) = [op for op in fast._core.program.global_block().ops
             if op.type == pass_mod.WINOGRAD_CONV]
    (direct_filter,) = op.input("DirectFilter")
    assert op.input("Filter") == [direct_filter + "@winograd4"]
    assert op.input("PackedFilter") == [direct_filter + "@packed"]
    calls = []
    real = F.conv_packed
    monkeypatch.setattr(F, "conv_packed", lambda *a, **kw: calls.append(
        (a[0].shape[0], tuple(a[5]["strides"]), a[1].shape[0])) or real(*a, **kw))
    for n in (1, 2):
        x = np.random.RandomState(n).standard_normal([n, c, 7, 7]).astype("float32")
        for want, got in zip(plain.run([x]), fast.run([x])):
            assert np.abs(got - want).max() <= TOL * np.abs(want).max()
    assert [call for call in calls if call[1:] == ((1, 1), c)] == [(1, (1, 1), c)]
    # larger maps, or products the GEMM kernel packs: Winograd alone
    monkeypatch.setattr(pass_mod, "pack_rules", lambda: CP.RULES[8]._replace(s1_max_pixels=48))
    (op,) = [op for op in _predictor(prefix, True)._core.program.global_block().ops
             if op.type == pass_mod.WINOGRAD_CONV]
    assert not op.input("DirectFilter") and not op.input("PackedFilter")


def test_direct_filter_is_checked():
    from sampan.ops.registry import get_op, Meta, OpError
    op = get_op("sampan_conv2d_winograd")
    x, u = Meta((1, 4, 7, 7), "float32"), Meta((36, 4, 8), "float32")
    attrs = dict(op.default_attrs, paddings=[1, 1])
    wp = Meta((1, 1, 36, 8), "float32")
    (m,) = op.infer_meta([x, u, None, None, Meta((8, 4, 3, 3), "float32"), wp], attrs)
    assert tuple(m.shape) == (1, 8, 7, 7)
    with pytest.raises(OpError, match=r"DirectFilter must be \[8, 4, 3, 3\]"):
        op.infer_meta([x, u, None, None, Meta((8, 4, 5, 5), "float32"), wp], attrs)
    with pytest.raises(OpError, match="come together"):
        op.infer_meta([x, u, None, None, Meta((8, 4, 3, 3), "float32"), None], attrs)
