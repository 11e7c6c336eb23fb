"""conv_forward's paths (kernels/cpu/conv.py) against a direct sum over the
kernel offsets: 1x1 as it is, per-sample flat windows, the batch's flat
windows in one GEMM (``_flat_folded``), the batch folded into the columns of
small outputs (``_batch_folded``), im2col for strided layers, samples in
chunks, grouped and dilated layers; and the scratch memory those paths share
(kernels/cpu/workspace.py): results never alias it, consecutive calls of other
shapes leave earlier results intact, and threads do not see each other's."""
import threading

import numpy as np
import pytest

from sampan.kernels.cpu import conv as C
from sampan.kernels.cpu.workspace import scratch
from sampan.ops.defs.nn_conv import conv_out


def _direct(x, w, g, pads, dil, strides, out, bias):
    """Sum over kernel offsets of strided slices, in float64."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0)) + pads)
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    res = np.zeros((n, o) + out)
    og = o // g
    for gi in range(g):
        xs = xp[:, gi * cg:(gi + 1) * cg]
        ws = w[gi * og:(gi + 1) * og].astype(np.float64)
        for i in range(kh):
            for j in range(kw):
                win = xs[:, :, i * dil[0]:i * dil[0] + strides[0] * (out[0] - 1) + 1:strides[0],
                         j * dil[1]:j * dil[1] + strides[1] * (out[1] - 1) + 1:strides[1]]
                res[:, gi * og:(gi + 1) * og] += np.einsum("nchw,oc->nohw", win, ws[:, :, i, j])
    if bias is not None:
        res += bias.reshape(1, o, 1, 1)
    return res


CASES = {   # name: (x shape, w shape, groups, pads, dilation, strides)
    "1x1": ((3, 8, 6, 5), (4, 8, 1, 1), 1, ((0, 0), (0, 0)), (1, 1), (1, 1)),
    "flat one sample": ((1, 3, 12, 10), (5, 3, 3, 3), 1, ((1, 1), (1, 1)), (1, 1), (1, 1)),
    "flat folded batch": ((6, 3, 20, 18), (8, 3, 3, 3), 1, ((1, 1), (1, 1)), (1, 1), (1, 1)),
    "flat folded, asymmetric pad": ((4, 5, 17, 19), (6, 5, 3, 3), 1, ((0, 2), (1, 0)),
                                    (1, 1), (1, 1)),
    "flat folded, dilated": ((3, 4, 21, 21), (5, 4, 3, 3), 1, ((2, 2), (2, 2)), (2, 2), (1, 1)),
    "batch folded small maps": ((5, 16, 7, 7), (12, 16, 3, 3), 1, ((1, 1), (1, 1)),
                                (1, 1), (1, 1)),
    "strided im2col": ((3, 4, 15, 13), (6, 4, 3, 3), 1, ((1, 1), (1, 1)), (1, 1), (2, 2)),
    "grouped": ((2, 8, 11, 9), (6, 4, 3, 3), 2, ((1, 1), (1, 1)), (1, 1), (1, 1)),
    "5x5 no pad": ((4, 3, 16, 16), (4, 3, 5, 5), 1, ((0, 0), (0, 0)), (1, 1), (1, 1)),
    "grouped 1x1": ((1, 8, 6, 5), (6, 4, 1, 1), 2, ((0, 0), (0, 0)), (1, 1), (1, 1)),
    "7x1 unpadded width": ((1, 3, 12, 6), (4, 3, 7, 1), 1, ((3, 3), (0, 0)), (1, 1), (1, 1)),
    # K = C * 9 >= 16 * O: one GEMM per kernel offset (_shifted)
    "shifted": ((3, 32, 10, 12), (4, 32, 3, 3), 1, ((1, 1), (1, 1)), (1, 1), (1, 1)),
    "shifted, asymmetric pad": ((2, 40, 9, 8), (5, 40, 3, 3), 1, ((0, 2), (2, 1)), (1, 1),
                                (1, 1)),
    "shifted, dilated 5x5": ((2, 16, 13, 14), (3, 16, 5, 5), 1, ((4, 4), (2, 2)), (2, 1),
                             (1, 1)),
}


def _run(name, dtype, with_bias):
    xs, ws, g, pads, dil, strides = CASES[name]
    rs = np.random.RandomState(len(name))
    x = rs.standard_normal(xs).astype(dtype)
    w = rs.standard_normal(ws).astype(dtype)
    b = rs.standard_normal(ws[0]).astype(dtype) if with_bias else None
    out = tuple(conv_out(i, k, s, p, d) for i, k, s, p, d
                in zip(xs[2:], ws[2:], strides, pads, dil))
    return C.conv_forward(x, w, g, pads, dil, strides, out, b), _direct(
        x, w, g, pads, dil, strides, out, b)


@pytest.fixture
def blas_paths(monkeypatch):
    """float32 layers on the BLAS paths, as on a host without the GEMM kernel
    (kernels/cpu/gemm_kernel.py; its own paths: tests/ops/test_gemm_kernel.py)."""
    monkeypatch.setattr(C, "usable", lambda x, w: False)


@pytest.mark.parametrize("dtype, tol, kernel", [("float32", 2e-6, "host"),
                                                ("float32", 2e-6, "blas"),
                                                ("float64", 1e-12, "host")])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_conv_forward_paths(monkeypatch, name, dtype, tol, with_bias, kernel):
    if kernel == "blas":        # float32 as on a host without the GEMM kernel
        monkeypatch.setattr(C, "usable", lambda x, w: False)
    got, want = _run(name, dtype, with_bias)
    assert got.dtype == np.dtype(dtype) and got.shape == want.shape
    assert got.flags.c_contiguous
    assert np.abs(got - want).max() <= tol * max(np.abs(want).max(), 1.0)


@pytest.mark.parametrize("name, limit", [("flat folded batch", "_BLOCK_BYTES"),
                                         ("shifted", "_SHIFTED_BYTES")])
def test_chunked_batch(monkeypatch, name, limit):
    # a block over the limit runs in chunks of samples; the result is the same
    monkeypatch.setattr(C, limit, 4096)
    got, want = _run(name, "float64", True)
    assert np.abs(got - want).max() <= 1e-12 * np.abs(want).max()


def test_shifted_takes_its_layers(monkeypatch, blas_paths):
    calls = []
    real = C._shifted
    monkeypatch.setattr(C, "_shifted", lambda *a: calls.append(1) or real(*a))
    for name in ("shifted", "shifted, asymmetric pad", "shifted, dilated 5x5"):
        _run(name, "float32", False)
    assert len(calls) == 3
    _run("flat folded batch", "float32", False)     # K = 27 < 16 * 8: not this path
    assert len(calls) == 3


@pytest.mark.parametrize("name", ["grouped 1x1", "7x1 unpadded width"])
def test_flat_results_without_extra_columns_are_new_arrays(name):
    # the flat path's product is the result itself when no column is dropped
    first, _ = _run(name, "float32", False)
    kept = first.copy()
    for other in ("flat one sample", "strided im2col", "shifted"):
        _run(other, "float32", False)
    np.testing.assert_array_equal(first, kept)
    for buf in ("im2col", "gemm"):
        assert not np.shares_memory(scratch(buf, (4,), np.float32), first)


def test_results_do_not_alias_scratch():
    first, want_first = _run("flat folded batch", "float32", True)
    kept = first.copy()
    for name in ("batch folded small maps", "strided im2col", "flat folded, dilated"):
        _run(name, "float32", False)     # the same scratch names, other shapes
    np.testing.assert_array_equal(first, kept)
    for name in ("im2col", "gemm", "flat_grid", "shifted_grid", "shifted_acc"):
        buf = scratch(name, (4,), np.float32)
        assert not np.shares_memory(buf, first)


def test_threads_use_their_own_scratch():
    names = sorted(CASES)
    want = {n: _run(n, "float64", True)[1] for n in names}
    errors = []

    def worker(order):
        for _ in range(3):
            for n in order:
                got = _run(n, "float64", True)[0]
                if np.abs(got - want[n]).max() > 1e-12 * np.abs(want[n]).max():
                    errors.append(n)

    threads = [threading.Thread(target=worker, args=(names[::s],)) for s in (1, -1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_scratch_shapes_and_growth():
    a = scratch("test_growth", (3, 5), np.float64)
    assert a.shape == (3, 5) and a.dtype == np.float64 and a.flags.c_contiguous
    b = scratch("test_growth", (40, 50), np.float32)     # grows
    assert b.shape == (40, 50) and b.dtype == np.float32
    big = scratch("test_growth", (1 << 25,), np.float32)  # 128 MB: not kept
    assert big.shape == (1 << 25,)
    assert not np.shares_memory(big, scratch("test_growth", (4,), np.float32))


@pytest.mark.parametrize("name", ["flat one sample", "flat folded, asymmetric pad",
                                  "flat folded, dilated", "7x1 unpadded width"])
@pytest.mark.parametrize("with_bias", [False, True])
def test_column_chunks(monkeypatch, name, with_bias):
    """A sample whose flat window block passes _BLOCK_BYTES is copied and
    multiplied a column range at a time (ranges of 256 columns here)."""
    calls = []
    real = C._flat_column_chunks
    monkeypatch.setattr(C, "_flat_column_chunks", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(C, "_BLOCK_BYTES", 4096)
    got, want = _run(name, "float64", with_bias)
    assert calls and got.flags.c_contiguous
    assert np.abs(got - want).max() <= 1e-12 * np.abs(want).max()


# conv2d / conv3d declare fresh outputs (executor/reuse.py lets a bias add or an
# activation after them write into their result): one layer per path of
# conv_forward: (x shape, w shape, groups, paddings, data format)
FRESH_LAYERS = {
    "stem": ((2, 3, 32, 32), (16, 3, 3, 3), 1, [1, 1], "NCHW"),
    "depthwise": ((2, 8, 16, 16), (8, 1, 3, 3), 8, [1, 1], "NCHW"),
    "winograd": ((16, 16, 16, 16), (16, 16, 3, 3), 1, [1, 1], "NCHW"),
    "implicit": ((1, 16, 12, 12), (8, 16, 3, 3), 1, [1, 1], "NCHW"),
    "1x1": ((2, 16, 10, 10), (8, 16, 1, 1), 1, [0, 0], "NCHW"),
    "1x1 folded": ((4, 16, 3, 3), (8, 16, 1, 1), 1, [0, 0], "NCHW"),
    "grouped": ((2, 8, 11, 9), (6, 4, 3, 3), 2, [1, 1], "NCHW"),
    "channels last": ((2, 10, 10, 16), (8, 16, 3, 3), 1, [1, 1], "NHWC"),
    "conv3d": ((1, 2, 5, 6, 5), (3, 2, 3, 3, 3), 1, [1, 1, 1], "NCDHW"),
}


@pytest.mark.parametrize("name", sorted(FRESH_LAYERS))
def test_conv_results_are_new_arrays(name):
    xs, ws, g, pads, fmt = FRESH_LAYERS[name]
    nd = len(ws) - 2
    kern = C.conv3d if nd == 3 else C.conv2d
    assert kern.fresh
    attrs = dict(strides=[1] * nd, paddings=pads, padding_algorithm="EXPLICIT",
                 dilations=[1] * nd, groups=g, data_format=fmt)
    rs = np.random.RandomState(len(name))
    x, w = rs.standard_normal(xs).astype(np.float32), rs.standard_normal(ws).astype(np.float32)
    (first,) = kern((x, w), attrs, None)
    kept = first.copy()
    assert not np.shares_memory(first, x) and not np.shares_memory(first, w)
    for buf in ("im2col", "gemm", "flat_grid", "winograd_vt", "winograd_mt"):
        assert not np.shares_memory(first, scratch(buf, (4,), np.float32))
    kern((rs.standard_normal(xs).astype(np.float32), w), attrs, None)    # the same path again
    for other in FRESH_LAYERS.values():                                   # and every other
        if len(other[1]) == len(ws):
            kern((np.ones(other[0], np.float32), np.ones(other[1], np.float32)),
                 dict(attrs, paddings=other[3], groups=other[2], data_format=other[4]), None)
    np.testing.assert_array_equal(first, kept)
