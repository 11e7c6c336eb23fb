"""The image-stem kernel (kernels/cpu/stem_kernel.py) against a float64
reference of the convolution: kernel sizes 3, 5, 7, strides 1 and 2, 1 to 4
input channels, symmetric and asymmetric padding, odd sizes, outputs whose
rows are not a whole number of steps, several samples; the clamp in its
stores (NaN kept, relu's -0.0 -> +0.0), and conv_forward's fused epilogues
through it (a residual, an activation that is not a clamp).  Run at 8 lanes
on every host that compiles them (a fixture sets the width)."""
import numpy as np
import pytest

from sampan.kernels.cpu import conv as C
from sampan.kernels.cpu import llvm_jit
from sampan.kernels.cpu import stem_kernel as S
from sampan.kernels.cpu.conv_epilogue import CLAMPS, epilogue

pytestmark = pytest.mark.skipif(llvm_jit.vector_lanes() is None,
                                reason="no LLVM vector kernels on this host")


@pytest.fixture(autouse=True)
def eight_lanes(monkeypatch):
    """The kernels at 8 lanes (the width they are taken at), on any host."""
    monkeypatch.setitem(S._STATE, "lanes", 8)


def _reference(x, w, b, pads, s, out):
    (pt, pb), (pl, pr) = pads
    n, c, h, wd = x.shape
    k = w.shape[-1]
    ho, wo = out
    xp = np.zeros((n, c, max(h + pt + pb, (ho - 1) * s + k),
                   max(wd + pl + pr, (wo - 1) * s + k)))
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    r = np.zeros((n, w.shape[0], ho, wo)) + b[None, :, None, None]
    for i in range(k):
        for j in range(k):
            win = xp[:, :, i:i + s * (ho - 1) + 1:s, j:j + s * (wo - 1) + 1:s]
            r += np.einsum("nchw,oc->nohw", win, w[:, :, i, j].astype(np.float64))
    return r


def _case(k, s, shape, o, pads, seed=0):
    rs = np.random.RandomState(seed)
    x = rs.standard_normal(shape).astype(np.float32)
    w = rs.standard_normal((o, shape[1], k, k)).astype(np.float32)
    b = rs.standard_normal(o).astype(np.float32)
    (pt, pb), (pl, pr) = pads
    out = ((shape[2] + pt + pb - k) // s + 1, (shape[3] + pl + pr - k) // s + 1)
    return x, w, b, out


@pytest.mark.parametrize("k", S.SIZES)
@pytest.mark.parametrize("s", S.STRIDES)
@pytest.mark.parametrize("shape, o, pads", [
    ((1, 3, 40, 44), 8, ((1, 1), (1, 1))),
    ((2, 3, 33, 37), 12, ((3, 3), (3, 3))),
    ((1, 1, 21, 50), 4, ((0, 2), (2, 0))),
    ((2, 4, 19, 41), 16, ((2, 1), (0, 3))),
    ((1, 2, 9, 35), 4, ((0, 0), (0, 0))),
])
def test_equals_the_convolution(k, s, shape, o, pads):
    x, w, b, out = _case(k, s, shape, o, pads)
    want = _reference(x, w, b, pads, s, out)
    if not S.takes(x, w, 1, (1, 1), (s, s), out):
        # output rows narrower than a step (k=7, stride 2 on 35 columns): declined,
        # and conv_forward's other paths give the convolution
        assert out[1] < S.PV * 8
        got = C.conv_forward(x, w, 1, pads, (1, 1), (s, s), out, b)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5)
        return
    got = S.stem_conv(x, w, b, pads, (s, s), out, CLAMPS[""])
    assert got.shape == (shape[0], o) + out and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5)


@pytest.mark.parametrize("act", ["relu", "relu6"])
def test_clamp_in_the_stores(act):
    x, w, b, out = _case(3, 2, (1, 3, 40, 40), 8, ((1, 1), (1, 1)), seed=1)
    x = -np.abs(x)
    x[0, 0, 10, 10] = np.nan             # NaN passes the clamp, as np.maximum / np.clip
    w[2], b[2] = 0.0, -0.0               # channel 2: -0.0 + (-x) * 0 ... = -0.0
    got = S.stem_conv(x, w, b, ((1, 1), (1, 1)), (2, 2), out, CLAMPS[act])
    ref = _reference(x, w, b, ((1, 1), (1, 1)), 2, out).astype(np.float32)
    want = np.maximum(ref, 0) if act == "relu" else np.clip(ref, 0, 6)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5)
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.isnan(got).any()
    assert (got[0, 2][~np.isnan(got[0, 2])] == 0).all()
    inner = got[0, 2, 1:, 1:]           # no padding tap (+0.0 * w) in the sum
    inner = inner[~np.isnan(inner)]
    # relu sends -0.0 to +0.0 (np.maximum(x, 0)); relu6 keeps it (np.clip)
    assert inner.size and (np.signbit(inner) == (act == "relu6")).all()


def test_conv_forward_takes_it_with_its_epilogues(monkeypatch):
    pads = ((1, 1), (1, 1))
    x, w, b, out = _case(3, 2, (2, 3, 36, 36), 16, pads, seed=2)
    calls = []
    real = S.stem_conv
    monkeypatch.setattr(S, "stem_conv", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    ref = _reference(x, w, b, pads, 2, out).astype(np.float32)
    resid = np.random.RandomState(3).standard_normal(ref.shape).astype(np.float32)
    cases = [(None, ref),
             (epilogue("relu6", 0.0, np.float32), np.clip(ref, 0, 6)),
             (epilogue("relu", 0.0, np.float32, resid), np.maximum(ref + resid, 0)),
             (epilogue("hard_swish", 0.0, np.float32),
              ref * np.clip(ref + 3, 0, 6) / 6)]
    for ep, want in cases:
        got = C.conv_forward(x, w, 1, pads, (1, 1), (2, 2), out, b, epilogue=ep)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=3e-5)
    assert len(calls) == len(cases)


@pytest.mark.parametrize("change", ["groups", "dilation", "channels", "outputs", "wide rows",
                                    "float64", "strides", "empty"])
def test_layers_it_does_not_take(change):
    x, w, b, out = _case(3, 2, (1, 3, 40, 40), 8, ((1, 1), (1, 1)))
    g, dil, strides = 1, (1, 1), (2, 2)
    if change == "groups":
        x, w, g = np.concatenate([x, x], 1), np.concatenate([w[:4], w[4:]], 1)[:8, :3], 2
    elif change == "dilation":
        dil = (2, 2)
    elif change == "channels":
        w = np.ones((8, 5, 3, 3), np.float32)
        x = np.ones((1, 5, 40, 40), np.float32)
    elif change == "outputs":
        w = w[:6]
    elif change == "wide rows":
        out = (out[0], 15)
    elif change == "float64":
        x = x.astype(np.float64)
    elif change == "empty":
        x = x[:0]
    else:
        strides = (1, 2)
    assert not S.takes(x, w, g, dil, strides, out)


def test_not_taken_at_other_widths(monkeypatch):
    x, w, b, out = _case(3, 2, (1, 3, 40, 40), 8, ((1, 1), (1, 1)))
    monkeypatch.setitem(S._STATE, "lanes", None)
    assert not S.takes(x, w, 1, (1, 1), (2, 2), out)
