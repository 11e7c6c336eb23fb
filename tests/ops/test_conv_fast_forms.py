"""The executor's forms of the fused convolutions (kernels/cpu/fused.py):
1x1 layers on large maps (``_rows_fast``, gemm_kernel.rows_product) equal the
general kernel to float32 rounding with and without bias, residual and each
clamp, at batch 1 and past it (there also on 14x14 to 27x27 maps with small
filters), and the other shapes (a smaller map, 27x27 at batch 1, a 3x3
filter, an input map, float64, a filter past the weight limits) go the general
way; depthwise layers (``_depthwise_fast``,
depthwise_kernel.prepared) give the general kernel's bits where the compiled
kernel runs them and go the general way elsewhere; packed 1x1 layers on small
maps (``_transposed_fast``, gemm_transposed.one_by_one) equal the general
kernel where it takes the transposed kernel and go the general way where it
does not; a new filter array is prepared again; the prepared products check
their operands."""
import numpy as np
import pytest

from sampan.kernels.cpu import fused
from sampan.kernels.cpu import gemm_kernel as G
from sampan.kernels.cpu import gemm_transposed as T
from sampan.kernels.cpu.conv_epilogue import CLAMPS

pytestmark = pytest.mark.skipif(not G.available(), reason="no GEMM kernel on this host")

ATTRS = dict(strides=[1, 1], paddings=[0, 0], padding_algorithm="EXPLICIT", dilations=[1, 1],
             groups=1, data_format="NCHW", activation="relu", alpha=0.0, in_activation="")


def _inputs(n, c, o, side, k=1, dtype=np.float32, seed=0):
    rs = np.random.RandomState(seed)
    return (rs.standard_normal((n, c, side, side)).astype(dtype),
            rs.standard_normal((o, c, k, k)).astype(dtype),
            rs.standard_normal(o).astype(dtype))


def _close(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.abs(got - want).max() <= 1e-5 * max(1.0, np.abs(want).max())


@pytest.mark.parametrize("act", ["", "relu", "relu6"])
@pytest.mark.parametrize("bias, resid", [(True, False), (False, False), (True, True)])
@pytest.mark.parametrize("c, o", [(3, 5), (24, 40), (37, 9)])
@pytest.mark.parametrize("n", [1, 3])
def test_route_equals_the_general_kernel(act, bias, resid, c, o, n):
    attrs = dict(ATTRS, activation=act)
    x, w, b = _inputs(n, c, o, 29, seed=c + o)
    b = b if bias else None
    r = np.random.RandomState(9).standard_normal((n, o, 29, 29)).astype(np.float32) \
        if resid else None
    want = fused.sampan_conv2d_fusion([x, w, b, r, None, None], attrs, None)[0]
    run = fused.sampan_conv2d_fusion.fast(attrs)
    _close(run(x, w, b, r, None, None), want)
    _close(run(x, w, b, r, None, None), want)      # the prepared product again


@pytest.mark.parametrize("n, side, taken", [(2, 14, True), (1, 14, False), (3, 27, True)])
def test_small_maps_take_the_route_past_batch_one(monkeypatch, n, side, taken):
    # 14x14 to 27x27 maps: the route past batch 1 with small filters, BLAS at batch 1
    x, w, b = _inputs(n, 12, 20, side)
    want = fused.sampan_conv2d_fusion([x, w, b, None, None, None], ATTRS, None)[0]
    calls = []
    real = G.rows_product
    monkeypatch.setattr(G, "rows_product", lambda *a: calls.append(1) or real(*a))
    _close(fused.sampan_conv2d_fusion.fast(ATTRS)(x, w, b, None, None, None), want)
    assert bool(calls) == taken


@pytest.mark.parametrize("c, o", [(8, 20), (20, 8), (12, 12)])
@pytest.mark.parametrize("widening_only", [False, True])
def test_widths_where_only_widening_layers_take_the_route(monkeypatch, c, o, widening_only):
    # (AVX2's 8 lanes: only layers with more output than input channels)
    monkeypatch.setattr(fused, "ROWS_WIDENING_ONLY", {G.lanes()} if widening_only else set())
    x, w, b = _inputs(1, c, o, 28)
    want = fused.sampan_conv2d_fusion([x, w, b, None, None, None], ATTRS, None)[0]
    calls = []
    real = G.rows_product
    monkeypatch.setattr(G, "rows_product", lambda *a: calls.append(1) or real(*a))
    _close(fused.sampan_conv2d_fusion.fast(ATTRS)(x, w, b, None, None, None), want)
    assert bool(calls) == (c < o or not widening_only)


def test_packed_op_takes_the_route():
    x, w, b = _inputs(1, 16, 24, 28)
    run = fused.sampan_conv2d_packed.fast(ATTRS)
    want = fused.sampan_conv2d_fusion([x, w, b, None, None, None], ATTRS, None)[0]
    # wp is never read on this route: a filter packed wrongly would not matter
    _close(run(x, w, None, b, None, None, None), want)


@pytest.mark.parametrize("n, side, k, dtype, mapped, big", [
    (2, 13, 1, np.float32, False, False), (1, 27, 1, np.float32, False, False),
    (1, 30, 3, np.float32, False, False), (2, 28, 1, np.float32, True, False),
    (1, 28, 1, np.float64, False, False), (2, 28, 1, np.float32, False, True),
    (2, 14, 1, np.float32, False, True)])
def test_other_layers_go_the_general_way(monkeypatch, n, side, k, dtype, mapped, big):
    if big:     # a filter of 48 values past limits of 47
        monkeypatch.setattr(fused, "ROWS_MAX_WEIGHTS", 47)
        monkeypatch.setattr(fused, "ROWS_MAX_WEIGHTS_BATCH", 47)
    x, w, b = _inputs(n, 6, 8, side, k, dtype)
    sc = np.full(6, 0.5, dtype) if mapped else None
    sh = np.zeros(6, dtype) if mapped else None
    want = fused.sampan_conv2d_fusion([x, w, b, None, sc, sh], ATTRS, None)[0]
    run = fused.sampan_conv2d_fusion.fast(ATTRS)
    monkeypatch.setattr(G, "rows_product", None)        # the route would fail if taken
    _close(run(x, w, b, None, sc, sh), want)


def test_attrs_that_rule_the_route_out():
    for change in (dict(strides=[2, 2]), dict(groups=2), dict(dilations=[2, 2]),
                   dict(activation="swish"), dict(data_format="NHWC"),
                   dict(paddings=[1, 1])):
        assert fused._rows_fast(dict(ATTRS, **change), None) is None, change
    assert fused._rows_fast(dict(ATTRS, padding_algorithm="SAME", paddings=[1, 1]),
                            None) is not None


def test_a_new_filter_is_prepared_again():
    run = fused.sampan_conv2d_fusion.fast(ATTRS)
    for seed in (1, 2):
        x, w, b = _inputs(1, 4, 6, 28, seed=seed)
        want = fused.sampan_conv2d_fusion([x, w, b, None, None, None], ATTRS, None)[0]
        _close(run(x, w, b, None, None, None), want)


def test_rows_product_checks_its_operands():
    with pytest.raises(ValueError, match=r"w must be a non-empty float32 \(O, K\)"):
        G.rows_product(np.ones((3, 4), np.float64))
    with pytest.raises(ValueError, match=r"bias must be \(3,\); got \(4,\)"):
        G.rows_product(np.ones((3, 4), np.float32), np.ones(4, np.float32))
    run = G.rows_product(np.ones((3, 4), np.float32), clamp=CLAMPS["relu"])
    with pytest.raises(ValueError, match=r"x must be a C-contiguous float32 \(N, 4, L\); "
                                         r"got \(1, 5, 7\)"):
        run(np.ones((1, 5, 7), np.float32))
    with pytest.raises(ValueError, match=r"residual must be a C-contiguous float32 "
                                         r"\(1, 3, 7\); got \(1, 3, 6\)"):
        run(np.ones((1, 4, 7), np.float32), np.ones((1, 3, 6), np.float32))
    got = run(-np.ones((2, 4, 7), np.float32), np.ones((2, 3, 7), np.float32))
    assert np.array_equal(got, np.zeros((2, 3, 7), np.float32))     # relu(-4 + 1)
    assert run(np.ones((0, 4, 7), np.float32)).shape == (0, 3, 7)


DW = dict(ATTRS, groups=6, paddings=[1, 1], activation="relu6")


@pytest.mark.parametrize("k, stride, side, act", [
    (3, 1, 7, "relu6"), (3, 2, 14, "relu"), (5, 1, 14, ""), (5, 2, 29, "relu6"),
    (7, 1, 9, "relu"), (3, 1, 28, "")])
@pytest.mark.parametrize("n, bias", [(1, True), (3, False)])
def test_depthwise_form_gives_the_general_bits(k, stride, side, act, n, bias):
    attrs = dict(DW, strides=[stride, stride], paddings=[k // 2, k // 2], activation=act)
    x, w, b = _inputs(n, 6, 6, side, seed=k * side)
    w = np.random.RandomState(k).standard_normal((6, 1, k, k)).astype(np.float32)
    b = b if bias else None
    want = fused.sampan_conv2d_fusion([x, w, b, None, None, None], attrs, None)[0]
    run = fused.sampan_conv2d_fusion.fast(attrs)
    for _ in range(2):                  # the prepared kernel again
        got = run(x, w, b, None, None, None)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_depthwise_form_follows_sizes_and_filters():
    """SAME padding on two input sizes (two geometries), then a new filter."""
    attrs = dict(DW, padding_algorithm="SAME", strides=[2, 2])
    run = fused.sampan_conv2d_fusion.fast(attrs)
    for side, seed in ((14, 1), (15, 1), (14, 2)):
        x, _, b = _inputs(2, 6, 6, side, seed=seed)
        w = np.random.RandomState(seed).standard_normal((6, 1, 3, 3)).astype(np.float32)
        want = fused.sampan_conv2d_fusion([x, w, b, None, None, None], attrs, None)[0]
        assert np.array_equal(run(x, w, b, None, None, None), want)


@pytest.mark.parametrize("case", ["wide rows", "residual", "input map", "float64"])
def test_other_depthwise_layers_go_the_general_way(monkeypatch, case):
    side = 60 if case == "wide rows" else 14        # 3x3 stride 1 on 60-wide rows: row kernels
    dtype = np.float64 if case == "float64" else np.float32
    x, _, b = _inputs(1, 6, 6, side, dtype=dtype)
    w = np.random.RandomState(0).standard_normal((6, 1, 3, 3)).astype(dtype)
    r = np.ones((1, 6, side, side), dtype) if case == "residual" else None
    sc = np.full(6, 0.5, dtype) if case == "input map" else None
    sh = np.zeros(6, dtype) if case == "input map" else None
    want = fused.sampan_conv2d_fusion([x, w, b, r, sc, sh], DW, None)[0]
    run = fused.sampan_conv2d_fusion.fast(DW)
    # the form's own route would fail if taken (the general path keeps the module's)
    monkeypatch.setattr(fused, "depthwise_kernel", None)
    assert np.array_equal(run(x, w, b, r, sc, sh), want)


def test_depthwise_attrs_that_rule_the_form_out():
    for change in (dict(dilations=[2, 2]), dict(activation="swish"),
                   dict(data_format="NHWC"), dict(groups=1, paddings=[1, 1])):
        assert fused._depthwise_fast(dict(DW, **change), None) is None, change


# ---------------------------------------------------------------- packed 1x1 layers
needs_transposed = pytest.mark.skipif(not G.available() or not T.available(),
                                      reason="no transposed kernels on this host")


def _packed(w):
    from sampan.kernels.cpu.conv_transposed import pack_filter
    return pack_filter(w, 1)


@needs_transposed
@pytest.mark.parametrize("act", ["", "relu", "relu6"])
@pytest.mark.parametrize("bias, resid", [(True, False), (False, False), (True, True)])
@pytest.mark.parametrize("n, c, o, side", [(1, 64, 40, 14), (2, 24, 64, 7), (1, 9, 112, 7)])
def test_packed_1x1_form_equals_the_general_kernel(act, bias, resid, n, c, o, side):
    attrs = dict(ATTRS, activation=act)
    x, w, b = _inputs(n, c, o, side, seed=c + o)
    b = b if bias else None
    r = np.random.RandomState(9).standard_normal((n, o, side, side)).astype(np.float32) \
        if resid else None
    wp = _packed(w)
    want = fused.sampan_conv2d_packed([x, w, wp, b, r, None, None], attrs, None)[0]
    run = fused.sampan_conv2d_packed.fast(attrs)
    _close(run(x, w, wp, b, r, None, None), want)
    _close(run(x, w, wp, b, r, None, None), want)        # the prepared product again
    wp2 = _packed(w * 2)                                  # a new packed filter: prepared again
    want2 = fused.sampan_conv2d_packed([x, w * 2, wp2, b, r, None, None], attrs, None)[0]
    _close(run(x, w * 2, wp2, b, r, None, None), want2)


@needs_transposed
@pytest.mark.parametrize("n, side, dtype, mapped, width", [
    (2, 14, np.float32, False, None),       # 392 rows of 196-pixel samples: BLAS
    (1, 7, np.float32, True, None),         # an input map
    (1, 7, np.float64, False, None),
    (1, 7, np.float32, False, 16)])         # packed for another block width
def test_packed_1x1_layers_the_kernel_does_not_take_go_the_general_way(
        monkeypatch, n, side, dtype, mapped, width):
    x, w, b = _inputs(n, 32, 40, side, dtype=dtype)
    wp = _packed(w.astype(np.float32)) if width is None else \
        G.pack_columns(np.ascontiguousarray(w.reshape(40, 32).T, np.float32)[None], width)
    assert width is None or wp.shape[-1] != T.width(40)
    sc = np.full(32, 0.5, dtype) if mapped else None
    sh = np.zeros(32, dtype) if mapped else None
    want = fused.sampan_conv2d_packed([x, w, wp, b, None, sc, sh], ATTRS, None)[0]
    run = fused.sampan_conv2d_packed.fast(ATTRS)
    monkeypatch.setattr(T, "one_by_one", None)           # the form would fail if taken
    _close(run(x, w, wp, b, None, sc, sh), want)


@needs_transposed
def test_packed_1x1_attrs_that_rule_the_forms_out():
    for change in (dict(strides=[2, 2]), dict(groups=2), dict(activation="swish"),
                   dict(paddings=[1, 1]), dict(in_activation="relu")):
        assert fused.sampan_conv2d_packed.fast(dict(ATTRS, **change)) is None, change


@needs_transposed
def test_prepared_transposed_product_checks_its_operands():
    x, w, b = _inputs(1, 8, 20, 7)
    wp = _packed(w)[0]
    with pytest.raises(ValueError, match="holding 40 columns"):
        T.one_by_one(wp, 40)
    with pytest.raises(ValueError, match=r"bias must be \(20,\)"):
        T.one_by_one(wp, 20, np.zeros(3, np.float32))
    run = T.one_by_one(wp, 20, b)
    with pytest.raises(ValueError, match=r"C-contiguous float32 \(N, 8, L\); got \(1, 9, 49\)"):
        run(np.zeros((1, 9, 49), np.float32))
    with pytest.raises(ValueError, match=r"residual must be a C-contiguous float32 \(1, 20, 49\)"):
        run(x.reshape(1, 8, 49), np.zeros((1, 20, 48), np.float32))
    assert run(np.zeros((0, 8, 49), np.float32)).shape == (0, 20, 49)


@pytest.mark.parametrize("n, k, o, cols", [(2, 64, 40, 3136), (3, 5, 13, 900), (1, 17, 30, 784)])
def test_streamed_inputs_take_small_chunks_with_the_same_bits(monkeypatch, n, k, o, cols):
    # inputs of STREAM_MIN_BYTES and more run chunks of stream_chunk_bytes(); with a
    # 4 KB L2 a chunk is one or two column blocks, many per sample, each packed anew
    rs = np.random.RandomState(k)
    w = rs.standard_normal((o, k)).astype(np.float32)
    b = rs.standard_normal(o).astype(np.float32)
    x = rs.standard_normal((n, k, cols)).astype(np.float32)
    r = rs.standard_normal((n, o, cols)).astype(np.float32)
    want = np.maximum(np.einsum("ok,nkl->nol", w.astype(np.float64), x) + b[:, None] + r, 0)
    monkeypatch.setitem(G._STATE, "l2", 4096)
    monkeypatch.setattr(G, "STREAM_MIN_BYTES", x.nbytes)
    assert G.stream_chunk_bytes() == 512
    small = G.rows_product(w, b, CLAMPS["relu"])(x, r)
    np.testing.assert_allclose(small, want, rtol=1e-4, atol=1e-4)
    monkeypatch.setattr(G, "STREAM_MIN_BYTES", x.nbytes + 1)    # the whole-L2 chunks
    assert np.array_equal(G.rows_product(w, b, CLAMPS["relu"])(x, r), small)


def test_the_l2_size_is_read_from_sysfs(tmp_path):
    for i, (level, kind, size) in enumerate([("1", "Data", "32K"), ("1", "Instruction", "32K"),
                                             ("2", "Unified", "1280K"), ("3", "Unified", "32M")]):
        d = tmp_path / ("index%d" % i)
        d.mkdir()
        for name, text in (("level", level), ("type", kind), ("size", size)):
            (d / name).write_text(text + "\n")
    assert G.read_l2_bytes(str(tmp_path)) == 1280 << 10
    (tmp_path / "index2" / "size").write_text("2M\n")
    assert G.read_l2_bytes(str(tmp_path)) == 2 << 20
    assert G.read_l2_bytes(str(tmp_path / "missing")) is None
    assert 0 < G.stream_chunk_bytes() <= G._CHUNK_BYTES
