"""The depthwise kernels against conv forward's im2col path, each test run
with the LLVM kernels of kernels/cpu/depthwise_kernel.py taking the float32
layers they take and again with numba's alone (kernels/cpu/depthwise.py: 3x3
by rows, by split rows for stride 2 and channels-last, 5x5 and 7x7
channels-last): strides 1 and 2, symmetric and asymmetric padding, odd
sizes, inputs wider than the windows reach, float32 and float64, with and
without a bias, with the relu/relu6 clamp against the activation kernels (NaN
kept); the layers they do not take (another kernel size, dilation, channel
multiplier, integers) give None."""
import numpy as np
import pytest

from sampan.kernels.cpu import conv as C
from sampan.kernels.cpu import depthwise as D
from sampan.kernels.cpu import depthwise_kernel as DK
from sampan.kernels.cpu.conv_epilogue import CLAMPS
from sampan.ops.defs.nn_conv import conv_out

pytestmark = pytest.mark.skipif(D._compiled("rows") is None, reason="numba not available")


KERNELS = ["llvm", "numba"] if DK.available(3, 2) else ["numba"]


@pytest.fixture(params=KERNELS)
def kernels(request, monkeypatch):
    """The LLVM kernels where they apply, then numba's alone."""
    if request.param == "numba":
        monkeypatch.setattr(D, "depthwise_conv", lambda *a: None)
    return request.param


def _im2col(x, w, pads, strides, out, bias, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(D, "_compiled", lambda key: None)
        m.setattr(D, "depthwise_conv", lambda *a: None)
        return C.conv_forward(x, w, x.shape[1], pads, (1, 1), strides, out, bias)


@pytest.mark.parametrize("dtype, tol", [("float32", 1e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("shape, strides, pads", [
    ((2, 5, 9, 11), (1, 1), ((1, 1), (1, 1))),
    ((1, 3, 8, 8), (2, 2), ((1, 1), (1, 1))),
    ((3, 4, 7, 10), (2, 1), ((0, 2), (1, 0))),
    ((1, 6, 5, 4), (1, 2), ((0, 0), (0, 0))),
    ((2, 3, 9, 12), (2, 2), ((0, 0), (0, 0))),      # the last column is never read
    ((1, 2, 6, 13), (2, 2), ((1, 2), (2, 2))),
    ((1, 2, 7, 14), (1, 2), ((0, 1), (2, 0))),
    ((1, 2, 5, 15), (2, 2), ((1, 1), (0, 1))),
])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("k", D.SIZES)
@pytest.mark.parametrize("small_map", [0, 10 ** 9])     # 3x3: the row / channels-last kernel
def test_equals_the_im2col_path(monkeypatch, dtype, tol, shape, strides, pads, with_bias, k,
                                small_map, kernels):
    monkeypatch.setattr(D, "SMALL_MAP", small_map)
    rs = np.random.RandomState(sum(shape))
    x = rs.standard_normal(shape).astype(dtype)
    w = rs.standard_normal((shape[1], 1, k, k)).astype(dtype)
    b = rs.standard_normal(shape[1]).astype(dtype) if with_bias else None
    pads = tuple((a + k // 2 - 1, c + k // 2 - 1) for a, c in pads)
    out = tuple(conv_out(i, k, s, p, 1) for i, s, p in zip(shape[2:], strides, pads))
    want = _im2col(x, w, pads, strides, out, b, monkeypatch)
    got = D.depthwise(x, w, pads, (1, 1), strides, out, b)
    assert got is not None and got.dtype == np.dtype(dtype) and got.shape == want.shape
    assert np.abs(got - want).max() <= tol * max(np.abs(want).max(), 1.0)


def test_channel_last_view(monkeypatch, kernels):
    rs = np.random.RandomState(1)
    x = rs.standard_normal((2, 6, 7, 4)).astype("float32").transpose(0, 3, 1, 2)
    w = rs.standard_normal((4, 1, 3, 3)).astype("float32")
    pads = ((1, 1), (1, 1))
    want = _im2col(np.ascontiguousarray(x), w, pads, (1, 1), (6, 7), None, monkeypatch)
    got = D.depthwise(x, w, pads, (1, 1), (1, 1), (6, 7))
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()


@pytest.mark.parametrize("wshape, dil, dtype", [
    ((4, 1, 4, 4), (1, 1), "float32"),     # another kernel size
    ((4, 1, 3, 5), (1, 1), "float32"),     # not square
    ((4, 1, 3, 3), (2, 2), "float32"),     # dilation
    ((8, 1, 3, 3), (1, 1), "float32"),     # channel multiplier 2
    ((4, 1, 3, 3), (1, 1), "int32"),
])
def test_layers_it_does_not_take(wshape, dil, dtype):
    x = np.ones((1, 4, 9, 9), dtype)
    assert D.depthwise(x, np.ones(wshape, dtype), ((1, 1), (1, 1)), dil, (1, 1),
                       (9, 9)) is None


@pytest.mark.parametrize("k", D.SIZES)
@pytest.mark.parametrize("small_map", [0, 10 ** 9])
def test_nan_and_inf_propagate_as_in_im2col(monkeypatch, k, small_map, kernels):
    monkeypatch.setattr(D, "SMALL_MAP", small_map)
    rs = np.random.RandomState(k)
    x = rs.standard_normal((2, 3, 10, 9)).astype("float32")
    x[0, 1, 4, 4], x[1, 2, 2, 7] = np.nan, np.inf
    w = rs.standard_normal((3, 1, k, k)).astype("float32")
    pads = ((k // 2, k // 2),) * 2
    want = _im2col(x, w, pads, (1, 1), (10, 9), None, monkeypatch)
    got = D.depthwise(x, w, pads, (1, 1), (1, 1), (10, 9))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    fin = np.isfinite(want)
    assert np.isnan(want).any() and np.abs(got[fin] - want[fin]).max() <= 1e-5 * np.abs(want[fin]).max()


@pytest.mark.parametrize("act", ["relu", "relu6"])
@pytest.mark.parametrize("k", D.SIZES)
@pytest.mark.parametrize("strides", [(1, 1), (2, 2)])
@pytest.mark.parametrize("small_map", [0, 10 ** 9])
def test_clamp_equals_the_activation(monkeypatch, act, k, strides, small_map, kernels):
    from sampan.kernels.cpu.activation import ACTIVATIONS
    from sampan.ops.registry import get_op
    monkeypatch.setattr(D, "SMALL_MAP", small_map)
    rs = np.random.RandomState(k)
    x = (rs.standard_normal((2, 3, 11, 10)) * 4).astype("float32")
    x[0, 1, 4, 4] = np.nan
    w = rs.standard_normal((3, 1, k, k)).astype("float32")
    b = rs.standard_normal(3).astype("float32")
    pads = ((k // 2, k // 2),) * 2
    out = tuple(conv_out(i, k, s, (k // 2, k // 2), 1) for i, s in zip(x.shape[2:], strides))
    plain = _im2col(x, w, pads, strides, out, b, monkeypatch)
    want = ACTIVATIONS[act][0](plain, get_op(act).default_attrs)
    got = D.depthwise(x, w, pads, (1, 1), strides, out, b, CLAMPS[act])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    fin = np.isfinite(want)
    assert np.isnan(want).any() and (want[fin] == 0).any() and \
        np.abs(got[fin] - want[fin]).max() <= 1e-5 * np.abs(want[fin]).max()
    if act == "relu6":
        assert want[fin].max() == 6 and got[fin].max() == 6


@pytest.mark.parametrize("shape", [(2, 3, 9, 11), (1, 2, 1, 2), (1, 4, 5, 3), (2, 2, 6, 17)])
@pytest.mark.parametrize("clamp", [None, "relu", "relu6"])
def test_same_padding_kernel_has_the_plane_kernels_bits(monkeypatch, shape, clamp):
    """The stride-1 padding-1 3x3 kernel reads rows from the input itself; its
    numbers are the plane kernel's, bit for bit (zeros, NaN and infinities too)."""
    monkeypatch.setattr(D, "SMALL_MAP", 0)
    monkeypatch.setattr(D, "depthwise_conv", lambda *a: None)
    rs = np.random.RandomState(shape[-1])
    x = (rs.standard_normal(shape) * 3).astype("float32")
    x.reshape(-1)[:4] = [np.nan, np.inf, -0.0, 0.0]
    w = rs.standard_normal((shape[1], 1, 3, 3)).astype("float32")
    b = rs.standard_normal(shape[1]).astype("float32")
    args = (x, w, ((1, 1), (1, 1)), (1, 1), (1, 1), shape[2:], b,
            None if clamp is None else CLAMPS[clamp])
    keys, real = [], D._compiled
    monkeypatch.setattr(D, "_compiled", lambda key: keys.append(key) or real(key))
    got = D.depthwise(*args)
    assert keys == ["same"]
    lo, hi, tie = CLAMPS[clamp] if clamp else (-np.inf, np.inf, False)
    want = np.empty_like(got)
    h, wd = shape[2:]
    D._compiled("rows")(x, w, b, want, 1, 1, 1, np.float32(lo), np.float32(hi), tie,
                        np.empty((h + 2, wd + 2), "float32"))
    np.testing.assert_array_equal(got.view("u4"), want.view("u4"))


# ---------------------------------------------------------------- the LLVM kernels
needs_llvm = pytest.mark.skipif("llvm" not in KERNELS, reason="no LLVM kernels on this host")


@needs_llvm
@pytest.mark.parametrize("lanes", [None, 8])
@pytest.mark.parametrize("shape, k, strides, pads", [
    ((2, 37, 13, 35), 3, (1, 1), ((1, 1), (1, 1))),     # channel and row tails
    ((1, 33, 20, 19), 5, (2, 2), ((2, 1), (0, 2))),
    ((3, 17, 9, 40), 7, (1, 2), ((3, 3), (3, 3))),
    ((1, 16, 4, 4), 7, (2, 1), ((3, 3), (3, 3))),       # windows mostly padding
])
def test_llvm_kernels_equal_im2col_over_blocks_and_tails(monkeypatch, lanes, shape, k, strides,
                                                        pads):
    if lanes:           # the AVX2 width of the same IR, on this host
        monkeypatch.setattr(DK, "_STATE", {})
        real = DK._compile
        monkeypatch.setattr(DK, "_compile", lambda k, sw, **kw: real(k, sw, lanes=lanes, **kw))
    rs = np.random.RandomState(shape[1])
    x = rs.standard_normal(shape).astype("float32")
    w = rs.standard_normal((shape[1], 1, k, k)).astype("float32")
    b = rs.standard_normal(shape[1]).astype("float32")
    out = tuple(conv_out(i, k, s, p, 1) for i, s, p in zip(shape[2:], strides, pads))
    want = np.clip(_im2col(x, w, pads, strides, out, b, monkeypatch), 0, 6)
    got = DK.depthwise_conv(x, w, b, pads, strides, out, CLAMPS["relu6"])
    assert got is not None and got.shape == want.shape
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()
    if lanes:
        assert DK._STATE[(k, strides[1])][1] == 8


@needs_llvm
@pytest.mark.parametrize("lanes", [None, 8])
@pytest.mark.parametrize("shape, k, strides", [
    ((1, 37, 7, 7), 3, (1, 1)), ((2, 21, 14, 13), 5, (2, 2)), ((1, 16, 7, 5), 7, (1, 1)),
    ((1, 9, 9, 14), 3, (2, 2)), ((1, 33, 6, 12), 3, (1, 2))])
def test_narrow_kernels_give_the_wide_kernels_bits(monkeypatch, lanes, shape, k, strides):
    """Outputs at most NARROW wide run the kernels computing NARROW pixels a step:
    the same sums in the same order as the VW-pixel kernels, so the same bits."""
    if lanes:
        monkeypatch.setattr(DK, "_STATE", {})
        real = DK._compile
        monkeypatch.setattr(DK, "_compile", lambda k, sw, **kw: real(k, sw, lanes=lanes, **kw))
    rs = np.random.RandomState(shape[1] + k)
    x = rs.standard_normal(shape).astype("float32")
    w = rs.standard_normal((shape[1], 1, k, k)).astype("float32")
    b = rs.standard_normal(shape[1]).astype("float32")
    pads = ((k // 2, k // 2), (k // 2, k // 2))
    out = tuple(conv_out(i, k, s, p, 1) for i, s, p in zip(shape[2:], strides, pads))
    assert out[1] <= DK.NARROW
    narrow = DK.depthwise_conv(x, w, b, pads, strides, out, CLAMPS["relu6"])
    assert DK._STATE[(k, strides[1], DK.NARROW)] is not None
    monkeypatch.setattr(DK, "NARROW", 0)            # the VW-pixel kernels for every width
    wide = DK.depthwise_conv(x, w, b, pads, strides, out, CLAMPS["relu6"])
    assert narrow.shape == wide.shape and np.array_equal(narrow, wide)
    want = np.clip(_im2col(x, w, pads, strides, out, b, monkeypatch), 0, 6)
    assert np.abs(narrow - want).max() <= 1e-5 * np.abs(want).max()


@needs_llvm
def test_llvm_kernels_leave_other_layers():
    x = np.ones((1, 4, 9, 9), np.float32)
    w = np.ones((4, 1, 3, 3), np.float32)
    pads = ((1, 1), (1, 1))
    assert DK.depthwise_conv(x.astype(np.float64), w.astype(np.float64), None, pads, (1, 1),
                             (9, 9), CLAMPS[""]) is None            # float64: numba's
    assert DK.depthwise_conv(x, w, None, pads, (3, 3), (3, 3), CLAMPS[""]) is None  # stride 3
    assert DK.depthwise_conv(x, np.ones((4, 1, 4, 4), np.float32), None, pads, (1, 1),
                             (8, 8), CLAMPS[""]) is None            # 4x4
