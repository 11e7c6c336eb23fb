"""The offset-table GEMM kernel (kernels/cpu/gemm_kernel.py) against float64
products, and the convolution paths built on it (kernels/cpu/conv_implicit.py)
against a direct sum over kernel offsets: tails of every width, row counts
that are not a multiple of the register block, accumulation, the bounds
checks, the flat layout's shared padding (asymmetric, dilated, unpadded,
5x5), chunks of samples, and the fused epilogue."""
import os
import subprocess
import sys

import numpy as np
import pytest

from sampan.kernels.cpu import stem_kernel
from sampan.kernels.cpu import conv as C
from sampan.kernels.cpu import conv_implicit as CI
from sampan.kernels.cpu import gemm_kernel as G
from sampan.kernels.cpu.conv_epilogue import epilogue
from sampan.ops.defs.nn_conv import conv_out

from .test_conv_paths import _direct

pytestmark = pytest.mark.skipif(not G.available(), reason="no GEMM kernel on this host")


@pytest.fixture(autouse=True)
def no_stem_kernel(monkeypatch):
    """These are the GEMM kernel's paths: layers of few input channels take
    kernels/cpu/stem_kernel.py where it runs (tests/ops/test_stem_kernel.py)."""
    monkeypatch.setitem(stem_kernel._STATE, "lanes", None)


def _product(o, k, nl, seed=0, overlap=False):
    rs = np.random.RandomState(seed)
    w = rs.standard_normal((o, k)).astype(np.float32)
    if overlap:      # rows are overlapping windows of one flat array, as a convolution reads
        x = rs.standard_normal(nl + 3 * k).astype(np.float32)
        xoff = (np.arange(k, dtype=np.int64) * 3)[::-1].copy()
    else:
        x = rs.standard_normal((k, nl)).astype(np.float32)
        xoff = np.arange(k, dtype=np.int64) * nl
    rows = np.stack([x.reshape(-1)[a:a + nl] for a in xoff]).astype(np.float64)
    return w, x, xoff, w.astype(np.float64) @ rows


@pytest.mark.parametrize("o, k, nl", [(1, 1, 1), (8, 1, 32), (5, 3, 7), (17, 27, 100),
                                      (16, 9, 31), (16, 9, 33), (24, 64, 64), (3, 200, 65)])
@pytest.mark.parametrize("overlap", [False, True])
@pytest.mark.parametrize("chunk", [None, 1, 2])
def test_gemm_rows_matches_float64(o, k, nl, overlap, chunk):
    w, x, xoff, want = _product(o, k, nl, seed=o * 31 + nl, overlap=overlap)
    out = np.full((o + 2, nl + 5), 7.0, np.float32)       # bigger than needed
    G.gemm_rows(w, x, xoff, nl, out, chunk=chunk)
    tol = 1e-5 * max(1.0, np.abs(want).max()) * np.sqrt(k)
    assert np.abs(out[:o, :nl] - want).max() <= tol
    assert (out[:, nl:] == 7).all() and (out[o:] == 7).all()   # nothing past nl or O
    G.gemm_rows(w, x, xoff, nl, out, accumulate=True, chunk=chunk)
    assert np.abs(out[:o, :nl] - 2 * want).max() <= 2 * tol


def test_eight_lane_kernels(monkeypatch):
    # the AVX2 build of the same IR (8-lane vectors), run on this host
    eight = G._compile(lanes=8)
    assert eight is not None and eight[1] == 8
    monkeypatch.setitem(G._STATE, "fn", eight)
    for o, k, nl in [(3, 5, 37), (13, 27, 100), (8, 9, 16)]:
        w, x, xoff, want = _product(o, k, nl, seed=k)
        out = np.full((o, nl + 3), 7.0, np.float32)
        G.gemm_rows(w, x, xoff, nl, out)
        assert np.abs(out[:, :nl] - want).max() <= 1e-4 * max(1.0, np.abs(want).max())
        assert (out[:, nl:] == 7).all()


@pytest.mark.parametrize("lanes", [None, 8])
def test_first_row_block_packing_changes_no_bits(monkeypatch, lanes):
    # with a scratch P the first row block of each chunk stores X's vectors there
    # and the others read them back (one stream); without, every row block reads
    # X's rows: the same sums, bit for bit, for every path into the kernel
    if lanes:
        monkeypatch.setitem(G._STATE, "fn", G._compile(lanes=lanes))
    rs = np.random.RandomState(7)

    def both(run):
        monkeypatch.setattr(G, "PACK_MIN_ROW_BLOCKS", 2)
        packed = run()
        monkeypatch.setattr(G, "PACK_MIN_ROW_BLOCKS", 10 ** 9)
        return packed, run()

    for o, k, nl, chunk in \
            [(9, 5, 37, None), (17, 27, 100, 1), (40, 64, 33, 2), (24, 3, 200, None),
             (64, 130, 96, 3)]:
        w, x, xoff, want = _product(o, k, nl, seed=o + nl, overlap=o % 2 == 1)
        bias = rs.standard_normal(o).astype(np.float32)
        resid = rs.standard_normal((o, nl + 3)).astype(np.float32)

        def rows():
            out = np.full((o, nl + 3), 7.0, np.float32)
            G.gemm_rows(w, x, xoff, nl, out, chunk=chunk, bias=bias, residual=resid,
                        clamp=(0.0, 6.0, False))
            G.gemm_rows(w, x, xoff, nl, out, accumulate=True, chunk=chunk)
            return out
        a, b = both(rows)
        assert np.array_equal(a, b) and (a[:, nl:] == 7).all()
        assert np.abs(a[:, :nl] - (np.clip((want + bias[:, None]) + resid[:, :nl], 0, 6)
                                   + want)).max() <= 1e-4 * max(1.0, np.abs(want).max())
    # segments (a convolution's rows into NCHW), a batch sharing the offsets, rows_product
    o, k, seglen = 20, 12, 9
    x = rs.standard_normal(400).astype(np.float32)
    xoff = np.arange(k, dtype=np.int64) * 25
    xcol, coff = np.array([0, 30, 61], np.int64), np.array([0, 9, 18], np.int64)
    w = rs.standard_normal((2, o, k)).astype(np.float32)
    xb = np.stack([x, x[::-1].copy()])
    a, b = both(lambda: G.gemm_segments(w, xb, xoff, np.zeros((2, o, 27), np.float32), 27,
                                        xcol, coff, seglen, obs=o * 27))
    assert np.array_equal(a, b)
    want = np.stack([w[i].astype(np.float64) @ np.stack([xb[i][r + xcol[s]:r + xcol[s] + seglen]
                                                          for r in xoff]).astype(np.float64)
                     for i in range(2) for s in range(3)]).reshape(2, 3, o, seglen)
    assert np.abs(a.reshape(2, o, 3, seglen).transpose(0, 2, 1, 3) - want).max() <= 1e-4 * 10
    xs = rs.standard_normal((3, 70, 150)).astype(np.float32)
    prod = G.rows_product(rs.standard_normal((50, 70)).astype(np.float32), bias[:1].repeat(50))
    a, b = both(lambda: prod(xs))
    assert np.array_equal(a, b)


def test_strided_weight_rows_and_output_rows():
    # w and out as row ranges of bigger arrays (row strides past their widths)
    w, x, xoff, want = _product(11, 6, 40)
    wide_w = np.zeros((11, 9), np.float32)
    wide_w[:, :6] = w
    big = np.full((11, 50), 3.0, np.float32)
    G.gemm_rows(wide_w[:, :6], x, xoff, 40, big[:, 5:45])
    assert np.abs(big[:, 5:45] - want).max() <= 1e-4
    assert (big[:, :5] == 3).all() and (big[:, 45:] == 3).all()


@pytest.mark.parametrize("o, k, nl", [(16, 9, 31), (3, 40, 70), (20, 64, 96)])
def test_weights_read_through_any_strides(o, k, nl):
    # w transposed or a column subsample of a bigger array: element (i, k) at
    # i * stride0 + k * stride1, read as it is (Winograd's (tiles, C) operand)
    w, x, xoff, want = _product(o, k, nl, seed=k)
    for view in (np.ascontiguousarray(w.T).T, np.repeat(w, 3, axis=1)[:, ::3]):
        out = np.full((o, nl), 7.0, np.float32)
        G.gemm_rows(view, x, xoff, nl, out)
        assert np.abs(out - want).max() <= 1e-5 * max(1.0, np.abs(want).max()) * np.sqrt(k)


def _packed_case(o, k, c, seed=0):
    rs = np.random.RandomState(seed)
    w = rs.standard_normal((o, k)).astype(np.float32)
    b = rs.standard_normal((k, c)).astype(np.float32)
    return w, b, w.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("o, k, c", [(1, 1, 1), (16, 20, 32), (5, 7, 33), (17, 64, 100),
                                     (9, 3, 200)])
def test_packed_operand(o, k, c):
    # the operand's columns in zero-padded blocks of block_width(), each block's
    # rows contiguous: the same product, nothing written past c columns
    w, b, want = _packed_case(o, k, c, seed=c)
    packed = G.pack_columns(b)
    blk = G.block_width()
    assert packed.shape == (-(-c // blk), k, blk)
    assert (packed.transpose(1, 0, 2).reshape(k, -1)[:, :c] == b).all()
    out = np.full((o, c + 3), 7.0, np.float32)
    G.gemm_rows(w, packed, np.arange(k, dtype=np.int64) * blk, c, out, packed=True)
    assert np.abs(out[:, :c] - want).max() <= 1e-5 * max(1.0, np.abs(want).max()) * np.sqrt(k)
    assert (out[:, c:] == 7).all()
    with pytest.raises(ValueError, match="packed operand"):
        G.gemm_rows(w, b, np.arange(k, dtype=np.int64) * c, c, out, packed=True)
    with pytest.raises(ValueError, match="pass the operand"):
        G.gemm_rows(w, packed, np.arange(k, dtype=np.int64) * blk + 1, c, out, packed=True)


@pytest.mark.parametrize("packed", [False, True])
def test_batched_products(packed):
    # N problems in one call: each its own w, operand and out, the offsets shared
    n, o, k, c = 5, 11, 24, 70
    cases = [_packed_case(o, k, c, seed=i) for i in range(n)]
    w = np.stack([cs[0] for cs in cases]).transpose(0, 2, 1).copy().transpose(0, 2, 1)
    if packed:
        x = np.stack([G.pack_columns(cs[1]) for cs in cases])
        xoff = np.arange(k, dtype=np.int64) * G.block_width()
    else:
        x = np.stack([cs[1] for cs in cases])
        xoff = np.arange(k, dtype=np.int64) * c
    out = np.full((n, o + 1, c + 2), 7.0, np.float32)
    G.gemm_rows(w, x, xoff, c, out, packed=packed)
    for i, (_, _, want) in enumerate(cases):
        assert np.abs(out[i, :o, :c] - want).max() <= 1e-4 * max(1.0, np.abs(want).max())
    assert (out[:, o:] == 7).all() and (out[:, :, c:] == 7).all()
    with pytest.raises(ValueError, match="batch of 5"):
        G.gemm_rows(w, x[:4], xoff, c, out, packed=packed)


def test_eight_lane_packed_and_batched(monkeypatch):
    monkeypatch.setitem(G._STATE, "fn", G._compile(lanes=8))
    assert G.block_width() == 16
    w, b, want = _packed_case(13, 30, 41, seed=3)
    out = np.empty((2, 13, 41), np.float32)
    G.gemm_rows(np.stack([w, w]), np.stack([G.pack_columns(b)] * 2),
                np.arange(30, dtype=np.int64) * 16, 41, out, packed=True)
    assert np.abs(out - want).max() <= 1e-4 * np.abs(want).max()


def test_gemm_rows_rejects_bad_operands():
    w, x, xoff, _ = _product(8, 4, 16)
    out = np.empty((8, 16), np.float32)
    with pytest.raises(ValueError, match="pass the operand"):
        G.gemm_rows(w, x, xoff + 1, 16, out)          # the last row runs past x
    with pytest.raises(ValueError, match="pass the operand"):
        G.gemm_rows(w, x, xoff - 1, 16, out)
    with pytest.raises(ValueError, match="float32"):
        G.gemm_rows(w, x.astype(np.float64), xoff, 16, out)
    with pytest.raises(ValueError, match="non-negative strides"):
        G.gemm_rows(w[:, ::-1], x, xoff, 16, out)
    with pytest.raises(ValueError, match="offsets of length"):
        G.gemm_rows(w, x, xoff[:3], 16, out)
    with pytest.raises(ValueError, match="out must be"):
        G.gemm_rows(w, x, xoff, 16, np.empty((7, 16), np.float32))
    with pytest.raises(ValueError, match="out must be"):
        G.gemm_rows(w, x, xoff, 16, np.empty((8, 32), np.float32)[:, ::2])


def test_switched_off_by_environment():
    code = "from sampan.kernels.cpu import gemm_kernel as G; print(G.available())"
    env = dict(os.environ, SAMPAN_GEMM_KERNEL="0")
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert got == "False"


FLAT = {    # name: (x shape, w shape, pads, dilation[, strides[, groups]])
    "3x3 same": ((5, 3, 20, 18), (16, 3, 3, 3), ((1, 1), (1, 1)), (1, 1)),
    "3x3, 13 outputs": ((2, 7, 9, 11), (13, 7, 3, 3), ((1, 1), (1, 1)), (1, 1)),
    "asymmetric pad": ((4, 5, 17, 19), (6, 5, 3, 3), ((0, 2), (1, 0)), (1, 1)),
    "dilated": ((3, 4, 21, 21), (5, 4, 3, 3), ((2, 2), (2, 2)), (2, 2)),
    "5x5 no pad": ((2, 3, 32, 30), (4, 3, 5, 5), ((0, 0), (0, 0)), (1, 1)),
    "7x1": ((2, 3, 12, 6), (4, 3, 7, 1), ((3, 3), (0, 0)), (1, 1)),
    "1x7 one sample": ((1, 6, 9, 14), (8, 6, 1, 7), ((0, 0), (3, 3)), (1, 1)),
    "deep K": ((2, 40, 9, 8), (5, 40, 3, 3), ((1, 1), (1, 1)), (1, 1)),
    # strided: the input split into its stride phases
    "3x3 stride 2": ((3, 5, 14, 13), (9, 5, 3, 3), ((1, 1), (1, 1)), (1, 1), (2, 2)),
    "7x7 stride 2 pad 3": ((2, 3, 41, 38), (8, 3, 7, 7), ((3, 3), (3, 3)), (1, 1), (2, 2)),
    "3x1 stride 2": ((2, 6, 21, 10), (10, 6, 3, 1), ((1, 1), (0, 0)), (1, 1), (2, 2)),
    "3x3 stride 2, asymmetric": ((2, 4, 12, 11), (5, 4, 3, 3), ((0, 1), (2, 0)), (1, 1),
                                 (2, 2)),
    "3x3 stride 3, dilated": ((2, 4, 31, 29), (6, 4, 3, 3), ((2, 2), (1, 1)), (2, 2), (3, 3)),
    "3x2 stride (2, 1)": ((2, 3, 13, 9), (7, 3, 3, 2), ((1, 1), (0, 1)), (1, 1), (2, 1)),
    # grouped: one batched kernel call, a problem per group (groups of 4 outputs:
    # the 4-row kernel; of 8 and 12: the 8-row one, 12 with a partial row block)
    "grouped 8 x 4": ((2, 16, 10, 11), (32, 2, 3, 3), ((1, 1), (1, 1)), (1, 1), (1, 1), 8),
    "grouped 2 x 12, stride 2": ((2, 6, 15, 14), (24, 3, 3, 3), ((1, 1), (1, 1)), (1, 1),
                                 (2, 2), 2),
    "grouped 4 x 8, 7x7": ((1, 16, 7, 7), (32, 4, 3, 3), ((1, 1), (1, 1)), (1, 1), (1, 1), 4),
}


def _conv(name, seed, bias=True):
    xs, ws, pads, dil, strides, groups = (FLAT[name] + ((1, 1), 1)[len(FLAT[name]) - 4:])
    rs = np.random.RandomState(seed)
    x = rs.standard_normal(xs).astype(np.float32)
    w = rs.standard_normal(ws).astype(np.float32)
    b = rs.standard_normal(ws[0]).astype(np.float32) if bias else None
    out = tuple(conv_out(i, k, st, p, d) for i, k, st, p, d
                in zip(xs[2:], ws[2:], strides, pads, dil))
    return x, w, b, pads, dil, strides, out, groups


@pytest.mark.parametrize("name", sorted(FLAT))
@pytest.mark.parametrize("bias", [False, True])
def test_conv_forward_takes_the_flat_kernel(monkeypatch, name, bias):
    monkeypatch.setattr(CI, "MIN_FLOPS", 0)
    calls = []
    real = C.implicit_flat
    monkeypatch.setattr(C, "implicit_flat",
                        lambda *a, **k: calls.append(real(*a, **k)) or calls[-1])
    x, w, b, pads, dil, strides, out, g = _conv(name, len(name), bias)
    got = C.conv_forward(x, w, g, pads, dil, strides, out, b)
    want = _direct(x, w, g, pads, dil, strides, out, b)
    assert calls and calls[0] is not None             # the kernel's path, not a fallback
    assert got.dtype == np.float32 and got.shape == want.shape and got.flags.c_contiguous
    assert np.abs(got - want).max() <= 2e-6 * max(np.abs(want).max(), 1.0)


@pytest.mark.parametrize("name", ["3x3 same", "asymmetric pad", "dilated", "3x3 stride 2",
                                  "grouped 8 x 4"])
@pytest.mark.parametrize("act", ["relu", "swish"])
def test_chunks_of_samples_and_epilogue(monkeypatch, name, act):
    # chunks of one sample; the activation in the crop (relu) or after each chunk
    monkeypatch.setattr(CI, "_CHUNK_BYTES", 1)
    monkeypatch.setattr(CI, "MIN_FLOPS", 0)
    x, w, b, pads, dil, strides, out, g = _conv(name, 3)
    got = CI.implicit_flat(x, w, pads, dil, out, b, epilogue(act, 0.0, np.float32), strides, g)
    want = _direct(x, w, g, pads, dil, strides, out, b)
    want = np.maximum(want, 0) if act == "relu" else want / (1 + np.exp(-want))
    assert np.abs(got - want).max() <= 2e-6 * np.abs(want).max()
    assert not (np.signbit(got) & (got == 0)).any()     # relu's +0.0, as np.maximum


def test_layouts_it_declines():
    x = np.zeros((2, 4, 7, 7), np.float32)
    w = np.zeros((8, 4, 7, 7), np.float32)     # 7x7 "same" on 7x7 maps: 10 x 10 for 49 outputs
    assert CI.implicit_flat(x, w, ((3, 3), (3, 3)), (1, 1), (7, 7), None) is None
    w3 = np.zeros((8, 4, 3, 3), np.float32)    # padding past the kernel's reach
    assert CI.implicit_flat(x, w3, ((3, 3), (0, 0)), (1, 1), (11, 5), None) is None
    # 1x1 layers stay with BLAS, strided or not
    one = np.zeros((8, 4, 1, 1), np.float32)
    assert not C._implicit_ok(x, one, ((0, 0), (0, 0)), (2, 2), (4, 4))
    assert C._implicit_ok(x, w3, ((1, 1), (1, 1)), (2, 2), (4, 4))
    # depthwise layers have their own kernels
    assert not C._implicit_ok(x, np.zeros((4, 1, 3, 3), np.float32), ((1, 1), (1, 1)),
                              (1, 1), (7, 7))
    # where it does not pay: little work (a grouped layer's included), weights too big
    assert CI.implicit_flat(x, w3, ((1, 1), (1, 1)), (1, 1), (7, 7), None) is None
    xg = np.zeros((1, 64, 14, 14), np.float32)
    wg = np.ones((128, 2, 3, 3), np.float32)
    assert CI.implicit_flat(xg, wg, ((1, 1), (1, 1)), (1, 1), (14, 14), None, groups=32) is None
    assert CI.implicit_flat(xg, np.ones((128, 64, 3, 3), np.float32), ((1, 1), (1, 1)), (1, 1),
                            (14, 14), None) is not None
    big = np.zeros((2, 16, 32, 32), np.float32)
    w_big = np.zeros((CI.MAX_WEIGHT_BYTES // (4 * 16 * 9) + 1, 16, 3, 3), np.float32)
    assert CI.implicit_flat(big, w_big, ((1, 1), (1, 1)), (1, 1), (32, 32), None) is None
    assert CI.implicit_flat(big, w_big[:8], ((1, 1), (1, 1)), (1, 1), (32, 32), None) \
        is not None


@pytest.mark.parametrize("act, bounds", [("relu", (0, None)), ("relu6", (0, 6))])
def test_clamp_epilogue_runs_in_the_crop(monkeypatch, act, bounds):
    # relu/relu6 without a residual are applied by the crop: the epilogue is not called
    monkeypatch.setattr(CI, "MIN_FLOPS", 0)
    x, w, b, pads, dil, _, out, _ = _conv("3x3 same", 7)
    fn = epilogue(act, 0.0, np.float32)
    calls = []
    wrapped = lambda *a: calls.append(1) or fn(*a)       # noqa: E731
    wrapped.clamp = fn.clamp
    got = CI.implicit_flat(x, w, pads, dil, out, b, wrapped)
    want = np.clip(_direct(x, w, 1, pads, dil, (1, 1), out, b), *bounds)
    assert not calls and np.abs(got - want).max() <= 2e-6 * np.abs(want).max()


@pytest.mark.parametrize("name", ["3x3 same", "asymmetric pad", "3x3 stride 2",
                                  "3x3 stride 3, dilated", "grouped 2 x 12, stride 2"])
def test_numpy_fills_match_the_compiled_ones(monkeypatch, name):
    # the layouts' numpy fills (taken if numba cannot compile a fill loop) give the
    # same buffers as the compiled loops
    monkeypatch.setattr(CI, "MIN_FLOPS", 0)
    x, w, b, pads, dil, strides, out, g = _conv(name, 5)
    compiled = CI.implicit_flat(x, w, pads, dil, out, b, None, strides, g)
    real = CI.compiled_kernel
    monkeypatch.setattr(CI, "compiled_kernel", lambda fn: None if fn in (
        CI._fill_flat, CI._fill_phases, CI._fill_phases_w2) else real(fn))
    by_numpy = CI.implicit_flat(x, w, pads, dil, out, b, None, strides, g)
    np.testing.assert_array_equal(compiled, by_numpy)
    want = _direct(x, w, g, pads, dil, strides, out, b)
    assert np.abs(compiled - want).max() <= 2e-6 * np.abs(want).max()


@pytest.mark.parametrize("shape, strides, pads, used", [
    ((2, 3, 10, 12), (2, 2), (1, 1), "all"),
    ((1, 4, 9, 8), (2, 2), (3, 3), "all"),          # a 7x7 stem's padding
    ((2, 2, 8, 6), (2, 2), (0, 0), "all"),
    ((1, 3, 7, 10), (3, 2), (2, 1), "some"),        # row stride 3, some phases unread
    ((1, 2, 6, 4), (2, 2), (0, 1), "one"),          # a 1x1 stride-2 layer: one phase
])
def test_stride_two_fill_is_the_general_fill(shape, strides, pads, used):
    # the uint64-pair fill of column stride 2 writes the general loop's bits
    general = CI.compiled_kernel(CI._fill_phases)
    pairs = CI.compiled_kernel(CI._fill_phases_w2)
    if general is None or pairs is None:
        pytest.skip("numba is not available")
    m, c, h, wd = shape
    (sh, sw), (pt, pl) = strides, pads
    x = np.random.RandomState(wd).standard_normal(shape).astype(np.float32)
    x[0, 0, 0, :2] = [-0.0, np.nan]
    hq, wq = -(-(h + 2 * pt) // sh), -(-(wd + 2 * pl) // sw)
    table = np.arange(sh * sw, dtype=np.int64).reshape(sh, sw)
    if used == "some":
        table[1, 0] = table[0, 1] = -1
    elif used == "one":
        table[:] = -1
        table[0, 0] = 0
    nreg = int((table >= 0).sum())
    table[table >= 0] = np.arange(nreg)
    a = np.zeros((c * nreg, m * hq * wq + 8), np.float32)
    b = a.copy()
    general(x, a, table, hq * wq, wq, pt, pl)
    pairs(x.view(np.uint64), b.view(np.uint32), table, hq * wq, wq, pt, pl)
    assert np.array_equal(a.view(np.uint32), b.view(np.uint32))      # every bit
