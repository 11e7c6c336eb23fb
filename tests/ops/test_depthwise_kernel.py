"""The numba depthwise kernels (kernels/cpu/depthwise.py: 3x3 by rows, by
split rows for stride 2 and channels-last, 5x5 and 7x7 channels-last)
against conv forward's im2col path: strides 1 and 2, symmetric and
asymmetric padding, odd sizes, inputs wider than the windows reach, float32
and float64, with and without a bias, with the relu/relu6 clamp against the
activation kernels (NaN kept);
the layers they do not take (another kernel size, dilation, channel
multiplier, integers) give None."""
import numpy as np
import pytest

from sampan.kernels.cpu import conv as C
from sampan.kernels.cpu import depthwise as D
from sampan.kernels.cpu.conv_epilogue import CLAMPS
from sampan.ops.defs.nn_conv import conv_out

pytestmark = pytest.mark.skipif(D._compiled("rows") is None, reason="numba not available")


def _im2col(x, w, pads, strides, out, bias, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(D, "_compiled", lambda key: None)
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
                                small_map):
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


def test_channel_last_view(monkeypatch):
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
def test_nan_and_inf_propagate_as_in_im2col(monkeypatch, k, small_map):
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
def test_clamp_equals_the_activation(monkeypatch, act, k, strides, small_map):
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
