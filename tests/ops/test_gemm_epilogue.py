"""The GEMM kernel's epilogue in its stores (bias, residual, the clamps of
conv_epilogue.CLAMPS) and its segment form (output rows put where they
belong: ``gemm_segments``), against float64 products and the unfused ops;
and the convolutions that write their rows straight into NCHW with them
(kernels/cpu/conv_implicit.py, ``ROWS_DIRECT_WASTE``)."""
import numpy as np
import pytest

from sampan.kernels.cpu import stem_kernel
from sampan.kernels.cpu import conv as C
from sampan.kernels.cpu import conv_implicit as CI
from sampan.kernels.cpu import gemm_kernel as G
from sampan.kernels.cpu.conv_epilogue import CLAMPS, epilogue

from .test_conv_paths import _direct
from .test_gemm_kernel import FLAT, _conv

pytestmark = pytest.mark.skipif(not G.available(), reason="no GEMM kernel on this host")


@pytest.fixture(autouse=True)
def no_stem_kernel(monkeypatch):
    """These are the GEMM kernel's paths: layers of few input channels take
    kernels/cpu/stem_kernel.py where it runs (tests/ops/test_stem_kernel.py)."""
    monkeypatch.setitem(stem_kernel._STATE, "lanes", None)

KINDS = {"none": None, "identity": CLAMPS[""], "relu": CLAMPS["relu"],
         "relu6": CLAMPS["relu6"], "other": (-0.5, 0.25, True)}


def _clamped(v, clamp):
    """float64 reference of the kernel's clamp (NaN passes; tie: -0.0/+0.0 at lo -> lo)."""
    if clamp is None:
        return v
    lo, hi, tie = clamp
    low = (v < lo) | (tie & (v == lo))
    v = np.where(low, lo, v)
    return np.where(v > hi, hi, v)


def _case(o, k, nl, seed):
    rs = np.random.RandomState(seed)
    w = rs.standard_normal((o, k)).astype(np.float32)
    x = rs.standard_normal((k, nl)).astype(np.float32)
    return w, x, np.arange(k, dtype=np.int64) * nl, w.astype(np.float64) @ x


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("o, k, nl", [(3, 5, 37), (13, 27, 100), (8, 16, 64), (4, 9, 33)])
@pytest.mark.parametrize("with_bias, with_residual", [(True, False), (False, True),
                                                      (True, True)])
def test_epilogue_in_the_stores(kind, o, k, nl, with_bias, with_residual):
    w, x, xoff, prod = _case(o, k, nl, seed=o + k + nl)
    rs = np.random.RandomState(1)
    b = rs.standard_normal(o).astype(np.float32) if with_bias else None
    r = rs.standard_normal((o, nl)).astype(np.float32) if with_residual else None
    out = np.empty((o, nl), np.float32)
    G.gemm_rows(w, x, xoff, nl, out, bias=b, residual=r, clamp=KINDS[kind])
    want = prod + (0 if b is None else b[:, None])
    want = _clamped(want + (0 if r is None else r), KINDS[kind])
    assert np.abs(out - want).max() <= 1e-5 * max(1.0, np.abs(prod).max()) * np.sqrt(k)


@pytest.mark.parametrize("kind", ["none", "relu", "other"])
@pytest.mark.parametrize("o, k, nl", [(3, 5, 37), (13, 27, 100), (70, 9, 5), (8, 16, 64)])
@pytest.mark.parametrize("packed", [False, True])
def test_epilogue_bias_per_column(kind, o, k, nl, packed):
    """``bias_columns``: one bias value per output column (a fully connected
    layer with its input rows as w), edge blocks masked, more rows than
    columns reading no bias past its end."""
    w, x, xoff, prod = _case(o, k, nl, seed=o * k + nl)
    b = np.random.RandomState(4).standard_normal(nl).astype(np.float32)
    r = np.random.RandomState(5).standard_normal((o, nl)).astype(np.float32)
    out = np.empty((o, nl), np.float32)
    if packed:
        x, xoff = G.pack_columns(x), np.arange(k, dtype=np.int64) * G.block_width()
    G.gemm_rows(w, x, xoff, nl, out, packed=packed, bias=b, residual=r, clamp=KINDS[kind],
                bias_columns=True)
    want = _clamped(prod + b + r, KINDS[kind])
    assert np.abs(out - want).max() <= 1e-5 * max(1.0, np.abs(prod).max()) * np.sqrt(k)
    with pytest.raises(ValueError, match="bias must be \\(%d,\\)" % nl):
        G.gemm_rows(w, x, xoff, nl, out, packed=packed, bias=b[:-1], bias_columns=True)


@pytest.mark.parametrize("kind, want", [("relu", [0.0, 0.0, np.nan, 2.0]),
                                        ("relu6", [-0.0, 0.0, np.nan, 2.0]),
                                        ("identity", [-0.0, -3.0, np.nan, 2.0])])
def test_epilogue_signed_zeros_and_nan(kind, want):
    # sums of exactly -0.0 (-0.0 accumulated with -1 * 0), -3, NaN and 2 with no bias:
    # no bias adds nothing (-0.0 stays -0.0); relu sends -0.0 to +0.0 as np.maximum,
    # relu6 keeps it as np.clip; NaN passes every clamp
    w = np.array([[-1.0]], np.float32)
    x = np.array([[0.0, 3.0, np.nan, -2.0]], np.float32)
    out = np.array([[-0.0, 0.0, 0.0, 0.0]], np.float32)
    G.gemm_rows(w, x, np.zeros(1, np.int64), 4, out, accumulate=True, clamp=KINDS[kind])
    np.testing.assert_array_equal(out[0], np.array(want, np.float32))
    assert list(np.signbit(out[0, :2])) == list(np.signbit(np.array(want[:2])))


def test_batched_epilogue_bias_per_problem():
    n, o, k, nl = 3, 6, 10, 45
    cases = [_case(o, k, nl, seed=i) for i in range(n)]
    w, x = np.stack([c[0] for c in cases]), np.stack([c[1] for c in cases])
    b = np.random.RandomState(2).standard_normal((n, o)).astype(np.float32)
    r = np.random.RandomState(3).standard_normal((n, o, nl)).astype(np.float32)
    out = np.empty((n, o, nl), np.float32)
    G.gemm_rows(w, x, cases[0][2], nl, out, bias=b, residual=r, clamp=CLAMPS["relu"])
    for i, c in enumerate(cases):
        want = np.maximum(c[3] + b[i][:, None] + r[i], 0)
        assert np.abs(out[i] - want).max() <= 1e-4 * np.abs(want).max()
    with pytest.raises(ValueError, match="bias must be"):
        G.gemm_rows(w, x, cases[0][2], nl, out, bias=b[:, :3])
    with pytest.raises(ValueError, match="residual must be"):
        G.gemm_rows(w, x, cases[0][2], nl, out, residual=r[:, :, :-1])


@pytest.mark.parametrize("seglen", [1, 7, 32, 33, 70])
@pytest.mark.parametrize("batched", [False, True])
def test_segments_write_rows_where_they_belong(seglen, batched):
    # rows of an output (nseg segments per row o, ldc apart) read from shifted columns
    # of x; everything between the segments is left alone
    rs = np.random.RandomState(seglen)
    nb, o, k, nseg = (2 if batched else 1), 5, 12, 4
    xcol = np.array([0, 3, seglen + 9, 2 * seglen + 20], np.int64)
    xlen = int(xcol.max()) + seglen
    x = rs.standard_normal((nb, k, xlen)).astype(np.float32)
    w = rs.standard_normal((nb, o, k)).astype(np.float32)
    b = rs.standard_normal((nb, o)).astype(np.float32)
    gap = 3
    coff = np.arange(nseg, dtype=np.int64) * (seglen + gap)
    ldc = nseg * (seglen + gap) + 1
    obs = o * ldc
    out = np.full(nb * obs, 7.0, np.float32)
    xoff = np.arange(k, dtype=np.int64) * xlen
    if batched:
        G.gemm_segments(w, x, xoff, out, ldc, xcol, coff, seglen, obs=obs, bias=b,
                        clamp=CLAMPS["relu6"])
    else:
        G.gemm_segments(w[0], x[0], xoff, out, ldc, xcol, coff, seglen, bias=b[0],
                        clamp=CLAMPS["relu6"])
    want = np.full(nb * obs, 7.0)
    for p in range(nb):
        for s in range(nseg):
            cols = x[p][:, xcol[s]:xcol[s] + seglen].astype(np.float64)
            vals = np.clip(w[p].astype(np.float64) @ cols + b[p][:, None], 0, 6)
            for r in range(o):
                at = p * obs + r * ldc + coff[s]
                want[at:at + seglen] = vals[r]
    assert np.abs(out - want).max() <= 1e-4 * np.abs(want).max()


def test_segments_check_their_bounds():
    w, x, xoff, _ = _case(4, 3, 20, seed=0)
    out = np.empty(4 * 20, np.float32)
    one = np.zeros(1, np.int64)
    G.gemm_segments(w, x, xoff, out, 20, one, one, 20)          # exactly fits
    with pytest.raises(ValueError, match="pass the operand"):
        G.gemm_segments(w, x, xoff, out, 20, one + 1, one, 20)
    with pytest.raises(ValueError, match="pass the output"):
        G.gemm_segments(w, x, xoff, out, 20, one, one + 1, 20)
    with pytest.raises(ValueError, match="pass the output"):
        G.gemm_segments(w, x, xoff, out, 21, one, one, 20)
    with pytest.raises(ValueError, match="int64 vectors"):
        G.gemm_segments(w, x, xoff, out, 20, one.astype(np.int32), one, 20)
    with pytest.raises(ValueError, match="contiguous float32"):
        G.gemm_segments(w, x, xoff, out.reshape(4, 20)[:, ::2], 10, one, one, 10)


@pytest.fixture
def rows_direct(monkeypatch):
    """Every layer writes its rows straight into NCHW (whatever the waste and
    the vector width)."""
    monkeypatch.setattr(CI, "ROWS_DIRECT_WASTE", 1e9)
    monkeypatch.setattr(CI, "ROWS_DIRECT_LANES", {8, 16})
    monkeypatch.setattr(CI, "MIN_FLOPS", 0)
    calls = []
    real = G.gemm_segments
    monkeypatch.setattr(G, "gemm_segments", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


@pytest.mark.parametrize("name", sorted(FLAT))
def test_conv_rows_straight_into_nchw(rows_direct, name):
    x, w, b, pads, dil, strides, out, g = _conv(name, len(name) + 1)
    got = C.conv_forward(x, w, g, pads, dil, strides, out, b)
    want = _direct(x, w, g, pads, dil, strides, out, b)
    assert rows_direct, "the segment kernel was not used"
    assert got.shape == want.shape and got.flags.c_contiguous
    assert np.abs(got - want).max() <= 2e-6 * max(np.abs(want).max(), 1.0)


@pytest.mark.parametrize("act", ["relu", "relu6", "", "swish"])
@pytest.mark.parametrize("name", ["3x3 same", "3x3 stride 2", "grouped 8 x 4"])
def test_conv_rows_with_residual_epilogue(rows_direct, monkeypatch, act, name):
    # the fused op's (conv + bias) + residual, then the activation: in the kernel's stores
    # for the clamps, after each chunk of samples for the rest
    monkeypatch.setattr(CI, "_CHUNK_BYTES", 1)
    x, w, b, pads, dil, strides, out, g = _conv(name, 11)
    plain = _direct(x, w, g, pads, dil, strides, out, b)
    resid = np.random.RandomState(4).standard_normal(plain.shape).astype(np.float32)
    got = CI.implicit_flat(x, w, pads, dil, out, b, epilogue(act, 0.0, np.float32, resid),
                           strides, g)
    v = plain + resid
    want = {"relu": np.maximum(v, 0), "relu6": np.clip(v, 0, 6), "": v,
            "swish": v / (1 + np.exp(-v))}[act]
    assert np.abs(got - want).max() <= 2e-6 * np.abs(want).max()


def test_rows_direct_only_where_blocks_waste_little(monkeypatch):
    # 32-wide rows fill the 32-column blocks exactly (W6's first layer): written straight
    # in; 18-wide ones would compute 32 columns each and keep the flat layout and its crop
    # (at the widths of ROWS_DIRECT_LANES; at any other no layer is)
    calls = []
    real = G.gemm_segments
    monkeypatch.setattr(G, "gemm_segments", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(CI, "MIN_FLOPS", 0)
    w = np.ones((16, 3, 3, 3), np.float32)
    full = np.ones((2, 3, 32, G.block_width()), np.float32)
    for lanes in ({G.lanes()}, set()):
        monkeypatch.setattr(CI, "ROWS_DIRECT_LANES", lanes)
        calls.clear()
        got = CI.implicit_flat(full, w, ((1, 1), (1, 1)), (1, 1), (32, G.block_width()), None)
        assert bool(calls) == bool(lanes)
        assert np.array_equal(got, _direct(full, w, 1, ((1, 1), (1, 1)), (1, 1), (1, 1),
                                           (32, G.block_width()), None))
    monkeypatch.setattr(CI, "ROWS_DIRECT_LANES", {G.lanes()})
    calls.clear()
    CI.implicit_flat(np.ones((2, 3, 20, 18), np.float32), w, ((1, 1), (1, 1)), (1, 1),
                     (20, 18), None)
    assert not calls


def test_eight_lane_build(monkeypatch, rows_direct):
    # the AVX2 build (8 lanes, 16-column blocks): epilogue and segments alike
    monkeypatch.setitem(G._STATE, "fn", G._compile(lanes=8))
    test_segments_write_rows_where_they_belong(21, True)
    test_epilogue_in_the_stores("relu", 13, 27, 100, True, True)
    x, w, b, pads, dil, strides, out, g = _conv("3x3 stride 2", 5)
    got = C.conv_forward(x, w, g, pads, dil, strides, out, b)
    want = _direct(x, w, g, pads, dil, strides, out, b)
    assert rows_direct and np.abs(got - want).max() <= 2e-6 * np.abs(want).max()


@pytest.mark.parametrize("name", ["3x3 same", "asymmetric pad", "dilated", "3x3 stride 2",
                                  "grouped 2 x 12, stride 2"])
@pytest.mark.parametrize("fill", ["one pass", "zeroed first", "numpy"])
def test_layouts_write_every_element_of_their_buffer(monkeypatch, name, fill):
    # the flat grid comes from scratch (another layer's leftovers): NaN everywhere first,
    # so a padding element the fill skipped would show in the result
    monkeypatch.setattr(CI, "MIN_FLOPS", 0)
    monkeypatch.setattr(CI, "ONE_PASS_WIDTH", 0 if fill == "one pass" else 10 ** 9)
    real_scratch, real_compiled = CI.scratch, CI.compiled_kernel
    monkeypatch.setattr(CI, "scratch", lambda *a: real_scratch(*a).__setitem__(
        Ellipsis, np.nan) or real_scratch(*a))
    if fill == "numpy":
        monkeypatch.setattr(CI, "compiled_kernel", lambda fn: None if fn in (
            CI._fill_flat, CI._fill_phases) else real_compiled(fn))
    x, w, b, pads, dil, strides, out, g = _conv(name, 9)
    got = CI.implicit_flat(x, w, pads, dil, out, b, None, strides, g)
    want = _direct(x, w, g, pads, dil, strides, out, b)
    assert np.isfinite(got).all() and np.abs(got - want).max() <= 2e-6 * np.abs(want).max()
