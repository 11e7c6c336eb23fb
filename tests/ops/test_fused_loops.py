"""The loop nests of fused elementwise expressions (kernels/cpu/fused_loops.py)
against the numba ufunc of the same scalar function: bit-equal outputs for
every broadcast pattern of one to three axis groups (a per-channel bias, a
row statistic, leading and middle broadcasts, 0-d operands), and the ufunc
for what the loops do not take (strided inputs, another dtype, four groups,
small outputs); the compiled in-place activations (``activation_into``, used
by the fused conv) against the activation kernels, bit for bit."""
import math

import numpy as np
import pytest

from sampan.kernels.cpu import fused_elementwise as K
from sampan.kernels.cpu import fused_loops as L

needs_numba = pytest.mark.skipif(not K.numba_available(), reason="numba not available")
pytestmark = needs_numba


def _scalar(a, b, c):
    # max/min with NaN, a division, a sqrt: what fused expressions contain
    m = a if a > b or a != a else b
    return m / math.sqrt(c * c + 1.0) - (b if b < c or b != b else c)


def _kernel(dtype):
    import numba
    t = numba.from_dtype(np.dtype(dtype))
    uf = numba.vectorize([t(t, t, t)], nopython=True)(_scalar).ufunc
    return L.LoopKernel(_scalar, uf, 3, np.dtype(dtype), numba)


SHAPES = {   # name: input shapes (output (4, 8, 16, 20) = 10240 elements, or as given)
    "same": [(4, 8, 16, 20)] * 3,
    "channel bias": [(4, 8, 16, 20), (1, 8, 1, 1), (4, 8, 16, 20)],
    "row statistic": [(4, 8, 16, 1), (4, 8, 16, 20), (20,)],
    "trailing vector": [(4, 8, 16, 20), (20,), ()],
    "leading": [(1, 8, 16, 20), (4, 1, 1, 1), (4, 8, 16, 20)],
    "two dims": [(64, 64), (64, 1), (1, 64)],
    "one dim": [(5000,), (), (5000,)],
}


def _inputs(shapes, dtype, seed=0):
    rs = np.random.RandomState(seed)
    xs = [rs.standard_normal(s).astype(dtype) for s in shapes]
    for x in xs:
        if x.size > 3:
            x.flat[:3] = [np.nan, -0.0, np.inf]
    return xs


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_loops_equal_the_ufunc(name, dtype):
    k = _kernel(dtype)
    xs = _inputs(SHAPES[name], dtype)
    with np.errstate(all="ignore"):
        got, want = k(*xs), k.uf(*xs)
    plan = k.plans[tuple(x.shape for x in xs)]
    assert plan is not None, "the loops should take this pattern"
    assert got.shape == want.shape and got.dtype == want.dtype and got.flags.c_contiguous
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("case", ["strided", "dtype", "four groups", "small"])
def test_the_ufunc_takes_the_rest(case):
    k = _kernel("float32")
    xs = _inputs(SHAPES["same"], "float32")
    if case == "strided":
        xs[1] = np.asfortranarray(xs[1])
    elif case == "dtype":
        xs[2] = xs[2].astype("float16")          # the ufunc casts it
    elif case == "four groups":
        xs = _inputs([(4, 8, 16, 20), (1, 8, 1, 20), (4, 1, 16, 1)], "float32")
    else:
        xs = _inputs([(3, 4)] * 3, "float32")
    calls = []
    uf = k.uf
    k.uf = lambda *a: calls.append(1) or uf(*a)
    with np.errstate(all="ignore"):
        got = k(*xs)
        want = uf(*xs)
    assert calls == [1]
    np.testing.assert_array_equal(got, want)


def test_one_loop_nest_per_pattern():
    k = _kernel("float64")
    for n in (3000, 4000, 5000):              # one pattern, three shapes
        k(*_inputs([(n,), (), (n,)], "float64"))
    assert len(k.loops) == 1 and len(k.plans) == 3


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", ["hard_swish", "relu6", "hard_sigmoid", "leaky_relu"])
def test_activation_into_is_the_kernel(act, dtype):
    from sampan.kernels.cpu.activation import ACTIVATIONS
    from sampan.ops.registry import get_op
    attrs = dict(get_op(act).default_attrs)
    x = (np.random.RandomState(0).standard_normal(5000) * 5).astype(dtype)
    x[:9] = [np.nan, -0.0, 0.0, np.inf, -np.inf, -3.0, 3.0, 6.0, -6.0]
    fn = K.activation_into(act, attrs, np.dtype(dtype))
    with np.errstate(invalid="ignore"):
        want = ACTIVATIONS[act][0](x.copy(), attrs)
        got = x.reshape(50, 100).copy()
        assert fn(got) is got                       # in place
    got = got.reshape(-1)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_activation_into_declines():
    from sampan.ops.registry import get_op
    for act in ("sigmoid", "swish", "tanh"):          # libm: numpy's SIMD loops
        attrs = dict(get_op(act).default_attrs)
        assert K.activation_into(act, attrs, np.dtype("float32")) is None
    attrs = dict(get_op("relu6").default_attrs)
    for dtype in ("int32", "float16"):
        assert K.activation_into("relu6", attrs, np.dtype(dtype)) is None


@pytest.mark.parametrize("act", ["hard_swish", "relu6", "leaky_relu", "swish", "sigmoid", "relu"])
@pytest.mark.parametrize("residual", [False, True])
@pytest.mark.parametrize("k", [1, 3])           # 1: the per-sample 1x1 path
def test_fused_conv_activation_equals_the_ops(act, residual, k):
    """sampan_conv2d_fusion with the activation (and a residual) against conv2d +
    the bias add (+ the residual add) + the op."""
    from sampan.kernels.cpu.fused import sampan_conv2d_fusion
    from sampan.kernels.cpu.activation import ACTIVATIONS
    from sampan.kernels.cpu.conv import conv2d
    from sampan.ops.registry import get_op
    rs = np.random.RandomState(1)
    x = rs.standard_normal((2, 4, 9, 9)).astype("float32") * 3
    w = rs.standard_normal((6, 4, k, k)).astype("float32")
    b = rs.standard_normal(6).astype("float32")
    attrs = get_op("sampan_conv2d_fusion").complete_attrs(
        {"strides": [1, 1], "paddings": [k // 2] * 2, "activation": act, "alpha": 0.02})
    r = rs.standard_normal((2, 6, 9, 9)).astype("float32") if residual else None
    got = sampan_conv2d_fusion((x, w, b, r, None, None), attrs, None)[0]
    cattrs = get_op("conv2d").complete_attrs({"strides": [1, 1], "paddings": [k // 2] * 2})
    pre = conv2d((x, w), cattrs, None)[0] + b.reshape(1, 6, 1, 1)
    if residual:
        pre = pre + r
    aattrs = dict(get_op(act).default_attrs, **({"alpha": 0.02} if act == "leaky_relu" else {}))
    want = ACTIVATIONS[act][0](pre, aattrs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
