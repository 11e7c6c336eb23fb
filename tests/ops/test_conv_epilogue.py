"""kernels/cpu/conv_epilogue.py: a fused convolution's bias and activation in
one pass give the bits of numpy's bias add followed by the activation op's own
kernel (signed zeros, NaN, infinities, values at the clamp bounds), with and
without a bias and a residual, float32 and float64; the 1x1 path applying it
per sample after each GEMM gives the bits of the whole-result path."""
import numpy as np
import pytest

from sampan.kernels.cpu import conv as C
from sampan.kernels.cpu.activation import ACTIVATIONS
from sampan.kernels.cpu.conv_epilogue import epilogue
from sampan.ops.registry import get_op

ACTS = ["", "relu", "relu6", "hard_swish", "hard_sigmoid", "leaky_relu", "sigmoid", "swish",
        "silu"]
SPECIAL = [-0.0, 0.0, np.nan, np.inf, -np.inf, 6.0, -6.0, 5.999, 1e-30, -1e-30]


def _reference(res, bias, act, alpha, residual=None):
    out = res.copy()
    if bias is not None:
        out += bias.reshape((-1,) + (1,) * (res.ndim - 2))
    if residual is not None:
        out = residual + out                # elementwise_add(residual, conv + bias)
    if not act:
        return out
    attrs = dict(get_op(act).default_attrs, **({"alpha": alpha} if act == "leaky_relu" else {}))
    return ACTIVATIONS[act][0](out, attrs)


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("with_residual", [False, True])
@pytest.mark.parametrize("act", ACTS)
def test_bits_of_bias_add_then_activation(dtype, with_bias, with_residual, act):
    rs = np.random.RandomState(3)
    res = (rs.standard_normal((3, 4, 5, 7)) * 4).astype(dtype)
    res.reshape(-1)[:len(SPECIAL)] = SPECIAL
    res[2, 3].reshape(-1)[:len(SPECIAL)] = SPECIAL
    bias = None
    if with_bias:
        bias = rs.standard_normal(4).astype(dtype)
        bias[3] = -0.0
    residual = None
    if with_residual:
        residual = (rs.standard_normal(res.shape) * 2).astype(dtype)
        residual.reshape(-1)[-len(SPECIAL):] = SPECIAL
        residual[0, 0, 0, :3] = [-0.0, 0.0, -0.0]
    with np.errstate(all="ignore"):         # inf * 0 in hard_swish: NaN, as wanted
        want = _reference(res, bias, act, 0.02, residual)
        got = epilogue(act, 0.02, np.dtype(dtype), residual)(res.copy(), bias)
    _same_bits(got, want)


@pytest.mark.parametrize("shape, cout", [((1, 8, 9, 11), 6), ((5, 3, 12, 10), 7),
                                         ((4, 6, 5, 5), 3)])        # the last: folded
@pytest.mark.parametrize("act", ["relu", "relu6", "hard_swish", "swish", "sigmoid"])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("with_residual", [False, True])
def test_one_by_one_per_sample(shape, cout, act, with_bias, with_residual):
    rs = np.random.RandomState(sum(shape))
    x = rs.standard_normal(shape).astype("float32")
    x[0, :, 0, 0] = 0.0
    w = rs.standard_normal((cout, shape[1], 1, 1)).astype("float32")
    b = rs.standard_normal(cout).astype("float32") if with_bias else None
    args = (x, w, 1, ((0, 0), (0, 0)), (1, 1), (1, 1), shape[2:])
    r = rs.standard_normal((shape[0], cout) + shape[2:]).astype("float32") \
        if with_residual else None
    want = _reference(C.conv_forward(*args), b, act, 0.0, r)
    got = C.conv_forward(*args, bias=b, epilogue=epilogue(act, 0.0, x.dtype, r))
    _same_bits(got, want)
    assert got.flags.c_contiguous and not np.shares_memory(got, x)


# ------------------------------------------------------------------ the input map
from sampan.kernels.cpu.conv_prologue import prologue  # noqa: E402


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("relu", [False, True])
def test_prologue_bits_of_mul_add_relu(dtype, relu):
    rs = np.random.RandomState(6)
    x = (rs.standard_normal((2, 5, 4, 3)) * 3).astype(dtype)
    x.reshape(-1)[:len(SPECIAL)] = SPECIAL
    scale, shift = rs.standard_normal(5).astype(dtype), rs.standard_normal(5).astype(dtype)
    scale[0], scale[1], shift[2] = -abs(scale[0]), 0.0, -0.0     # a negative first scale
    with np.errstate(all="ignore"):
        want = x * scale.reshape(5, 1, 1) + shift.reshape(5, 1, 1)
        if relu:
            want = np.maximum(want, 0)
        got = prologue(relu, np.dtype(dtype))(x, scale, shift)
    _same_bits(got, want)


@pytest.mark.parametrize("k, pad, n", [(1, 0, 1), (1, 0, 3), (1, 0, 4), (3, 1, 2)])
def test_conv_of_the_mapped_input(k, pad, n):
    """The 1x1 path maps each sample in scratch before its GEMM (bits of mapping
    the whole input first); a padded conv pads after the map (zeros stay zero)."""
    rs = np.random.RandomState(k + n)
    hw = (5, 5) if n == 4 else (9, 11)          # n=4, 5x5: the folded path
    x = rs.standard_normal((n, 6) + hw).astype("float32")
    w = rs.standard_normal((4, 6, k, k)).astype("float32")
    scale = rs.uniform(0.5, 2, 6).astype("float32")
    shift = rs.standard_normal(6).astype("float32")
    pads = ((pad, pad), (pad, pad))
    mapped = np.maximum(x * scale.reshape(6, 1, 1) + shift.reshape(6, 1, 1), 0)
    want = C.conv_forward(mapped, w, 1, pads, (1, 1), (1, 1), hw)
    fn = prologue(True, x.dtype)
    got = C.conv_forward(x, w, 1, pads, (1, 1), (1, 1), hw,
                         epilogue=epilogue("", 0.0, x.dtype),
                         prologue=lambda a, dst=None: fn(a, scale, shift, dst))
    _same_bits(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("shape", [(7,), (4, 7), (2, 3, 7)])
def test_fc_epilogue_bits(dtype, relu, shape):
    from sampan.kernels.cpu.conv_epilogue import fc_epilogue
    rs = np.random.RandomState(len(shape))
    out = (rs.standard_normal(shape) * 3).astype(dtype)
    out.reshape(-1)[:len(SPECIAL[:7])] = SPECIAL[:7]
    bias = rs.standard_normal(7).astype(dtype)
    bias[0], bias[1] = -abs(bias[0]), -0.0
    with np.errstate(all="ignore"):
        want = out + bias
        if relu:
            want = np.maximum(want, 0)
        got = fc_epilogue(out.copy(), bias, relu)
        _same_bits(got, want)
        strided = np.repeat(out, 2, axis=-1)[..., ::2]      # not contiguous: numpy's passes
        _same_bits(fc_epilogue(strided, bias, relu), want)
