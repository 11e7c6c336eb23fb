"""Public math, reduction, comparison, logical and activation functions and the
Tensor operators built on them: numbers vs numpy, Paddle's dtype rules, and
clear errors on bad input."""
import math

import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F
from sampan.ops import OpError

RNG = np.random.default_rng(0)
A = RNG.uniform(-2, 2, (3, 4)).astype("float32")
POS = RNG.uniform(0.2, 2, (3, 4)).astype("float32")


def T(a, **kw):
    return paddle.to_tensor(a, **kw)


def close(t, want, rtol=1e-5, atol=1e-6):
    got = t.numpy()
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# ------------------------------------------------------------------ unary math
UNARY = [
    ("exp", np.exp, A), ("expm1", np.expm1, A), ("log", np.log, POS), ("log2", np.log2, POS),
    ("log10", np.log10, POS), ("log1p", np.log1p, POS), ("sqrt", np.sqrt, POS),
    ("rsqrt", lambda x: 1 / np.sqrt(x), POS), ("square", np.square, A),
    ("reciprocal", lambda x: 1 / x, POS), ("abs", np.abs, A), ("sign", np.sign, A),
    ("floor", np.floor, A), ("ceil", np.ceil, A), ("sin", np.sin, A), ("cos", np.cos, A),
    ("tan", np.tan, A / 2), ("atan", np.arctan, A), ("sinh", np.sinh, A), ("cosh", np.cosh, A),
    ("asin", np.arcsin, A / 3), ("acos", np.arccos, A / 3),
    ("erf", np.vectorize(math.erf), A), ("tanh", np.tanh, A),
    ("sigmoid", lambda x: 1 / (1 + np.exp(-x)), A),
]


@pytest.mark.parametrize("name, ref, data", UNARY, ids=[u[0] for u in UNARY])
def test_unary_function_and_method(name, ref, data):
    x = T(data)
    out = getattr(paddle, name)(x)
    assert out.dtype == paddle.float32
    close(out, ref(data.astype("float64")).astype("float32"))
    close(getattr(x, name)(), out.numpy())


def test_round_is_half_away_from_zero():
    close(paddle.round(T([0.5, 1.5, 2.5, -0.5, -1.5])), [1.0, 2.0, 3.0, -1.0, -2.0])


def test_operators_neg_abs_pow():
    x = T(A)
    close(-x, -A)
    close(abs(x), np.abs(A))
    close(x ** 2, A ** 2)
    close(paddle.pow(x, 3), A ** 3, rtol=1e-5)
    close(paddle.pow(T(POS), T(A)), POS ** A, rtol=1e-5)
    ints = T([1, 2, 3])
    assert (ints ** 2).dtype == paddle.int64
    close(ints ** 2, [1, 4, 9])
    half = ints ** 0.5                    # an int tensor with a float exponent: float32
    assert half.dtype == paddle.float32
    close(half, np.sqrt([1.0, 2.0, 3.0]).astype("float32"))


def test_scale_neg_clip_cast():
    x = T(A)
    close(paddle.scale(x, 2.0, 1.0), A * 2 + 1)
    close(paddle.scale(x, 2.0, 1.0, bias_after_scale=False), (A + 1) * 2)
    close(paddle.scale(x, T(np.array([3.0], "float32"))), A * 3)
    close(paddle.neg(x), -A)
    close(paddle.clip(x, -0.5, 0.5), np.clip(A, -0.5, 0.5))
    close(paddle.clip(x, min=0.0), np.maximum(A, 0))
    close(paddle.clip(x, max=0.1), np.minimum(A, 0.1))
    close(x.clip(T(np.array([-0.2], "float32")), T(np.array([0.3], "float32"))),
          np.clip(A, -0.2, 0.3))
    ci = paddle.clip(T([-5, 0, 9]), -2, 3)
    assert ci.dtype == paddle.int64
    close(ci, [-2, 0, 3])
    c = paddle.cast(x, "int32")
    assert c.dtype == paddle.int32
    close(c, A.astype("int32"))
    assert x.astype(paddle.float64).dtype == paddle.float64
    assert x.astype("bool").dtype == paddle.bool
    assert paddle.cast(x, paddle.float16).dtype == paddle.float16


def test_cast_gradient_casts_back():
    x = T(A, stop_gradient=False)
    y = paddle.cast(x, "float64")
    (y * y).sum().backward()
    assert x.grad.dtype == paddle.float32
    close(x.grad, 2 * A)


def test_add_n_and_cumsum():
    xs = [T(A), T(POS), T(A * 2)]
    close(paddle.add_n(xs), A + POS + 2 * A)
    close(paddle.add_n(T(A)), A)
    close(paddle.cumsum(T(A)), np.cumsum(A))              # axis None flattens
    close(paddle.cumsum(T(A), axis=1), np.cumsum(A, 1))
    close(T(A).cumsum(-2), np.cumsum(A, 0))
    c = paddle.cumsum(T([1, 2, 3], dtype="int32"), dtype="int64")
    assert c.dtype == paddle.int64
    close(c, [1, 3, 6])


# ------------------------------------------------------------------ reductions
@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1], (1,), []])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions_match_numpy(axis, keepdim):
    x = T(A)
    ax = None if axis is None or axis == [] else tuple(axis) if isinstance(axis, (list, tuple)) \
        else axis
    for name, ref in (("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min),
                      ("amax", np.max), ("amin", np.min), ("prod", np.prod)):
        out = getattr(paddle, name)(x, axis=axis, keepdim=keepdim)
        close(out, ref(A, axis=ax, keepdims=keepdim), rtol=1e-5)
        close(getattr(x, name)(axis, keepdim=keepdim), out.numpy())


def test_sum_dtype_rules():
    assert paddle.sum(T([1, 2], dtype="int32")).dtype == paddle.int64
    assert paddle.sum(T([True, False, True])).dtype == paddle.int64
    assert int(paddle.sum(T([True, False, True]))) == 2
    assert paddle.sum(T([1, 2])).dtype == paddle.int64
    assert paddle.sum(T([1.0, 2.0])).dtype == paddle.float32
    assert paddle.sum(T([1, 2], dtype="int32"), dtype="int32").dtype == paddle.int32
    s = paddle.sum(T(A), dtype="float64")
    assert s.dtype == paddle.float64
    assert paddle.sum(T(A)).shape == []
    assert paddle.mean(T(A), axis=0).shape == [4]
    assert paddle.prod(T([1, 2, 3], dtype="int32")).dtype == paddle.int32
    assert paddle.prod(T([1, 2, 3], dtype="int32"), dtype="int64").dtype == paddle.int64


def test_all_any_var_std():
    b = T(np.array([[True, False], [True, True]]))
    assert not bool(paddle.all(b))
    assert bool(paddle.any(b))
    close(paddle.all(b, axis=1), [False, True])
    close(b.any(axis=0, keepdim=True), [[True, True]])
    close(paddle.var(T(A)), np.var(A.astype("float64"), ddof=1), rtol=1e-5)
    close(paddle.std(T(A), axis=1), np.std(A, axis=1, ddof=1), rtol=1e-5)
    close(paddle.var(T(A), axis=0, unbiased=False, keepdim=True),
          np.var(A, axis=0, keepdims=True), rtol=1e-5)


def test_argmax_argmin_topk():
    x = T(A)
    am = paddle.argmax(x)
    assert am.shape == [] and am.dtype == paddle.int64
    assert int(am) == int(np.argmax(A))
    close(paddle.argmax(x, axis=1), np.argmax(A, 1))
    close(x.argmin(axis=0, keepdim=True), np.argmin(A, 0)[None])
    assert paddle.argmax(x, axis=1, dtype="int32").dtype == paddle.int32
    v, i = paddle.topk(x, 2)
    close(v, -np.sort(-A, 1)[:, :2])
    close(i, np.argsort(-A, 1)[:, :2])
    v, i = x.topk(1, axis=0, largest=False)
    close(v, np.sort(A, 0)[:1])
    assert i.dtype == paddle.int64


def test_reduction_gradients():
    x = T(A, stop_gradient=False)
    paddle.mean(x, axis=1).sum().backward()
    close(x.grad, np.full_like(A, 0.25))
    x.clear_gradient()
    paddle.max(x, axis=0).sum().backward()
    want = (A == A.max(0, keepdims=True)).astype("float32")
    close(x.grad, want)
    y = T(A, stop_gradient=False)
    v, _ = paddle.topk(y, 1)
    v.sum().backward()
    close(y.grad, (A == A.max(1, keepdims=True)).astype("float32"))


# ------------------------------------------------------------------ comparisons
def test_comparison_functions_and_operators():
    x, y = T(A), T(POS)
    for fn, op, ref in (("equal", "__eq__", np.equal), ("not_equal", "__ne__", np.not_equal),
                        ("less_than", "__lt__", np.less), ("less_equal", "__le__", np.less_equal),
                        ("greater_than", "__gt__", np.greater),
                        ("greater_equal", "__ge__", np.greater_equal)):
        out = getattr(paddle, fn)(x, y)
        assert out.dtype == paddle.bool
        close(out, ref(A, POS))
        close(getattr(x, op)(y), ref(A, POS))
    close(x > 0, A > 0)
    close(x <= 0.5, A <= 0.5)
    close(T([1, 2, 3]) == 2, [False, True, False])
    close(T([1, 2, 3]) < 2.5, [True, True, False])     # int vs float: compared as float
    close(x == T(A[0]), A == A[0])                      # broadcasting
    close(paddle.equal(T([1, 2, 3]), 3), [False, False, True])


def test_tensor_stays_hashable_and_eq_with_other_types():
    x = T([1.0])
    assert hash(x) == id(x)
    assert {x: 1}[x] == 1
    assert (x == None) is False  # noqa: E711
    assert (x != "a") is True


def test_logical_bitwise_and_special_values():
    p = T(np.array([True, True, False, False]))
    q = T(np.array([True, False, True, False]))
    close(paddle.logical_and(p, q), [True, False, False, False])
    close(paddle.logical_or(p, q), [True, True, True, False])
    close(paddle.logical_xor(p, q), [False, True, True, False])
    close(paddle.logical_not(p), [False, False, True, True])
    close(p & q, [True, False, False, False])
    close(p | q, [True, True, True, False])
    close(p ^ q, [False, True, True, False])
    close(~p, [False, False, True, True])
    assert (p & q).dtype == paddle.bool
    i, j = T([12, 10]), T([10, 6])
    close(i & j, [8, 2])
    close(~i, [-13, -11])
    s = T(np.array([1.0, np.nan, np.inf, -np.inf], "float32"))
    close(paddle.isnan(s), [False, True, False, False])
    close(paddle.isinf(s), [False, False, True, True])
    close(s.isfinite(), [True, False, False, False])
    assert bool(paddle.equal_all(T(A), T(A.copy())))
    assert not bool(paddle.equal_all(T(A), T(POS)))
    assert bool(paddle.allclose(T(A), T(A + 1e-7)))
    close(paddle.isclose(T(A), T(A + 1e-3), rtol=0.0, atol=1e-2), np.ones_like(A, bool))


# ------------------------------------------------------------------ activations
def _sig(x):
    return 1 / (1 + np.exp(-x))


ACTS = [
    (F.relu, lambda x: np.maximum(x, 0)),
    (F.relu6, lambda x: np.clip(x, 0, 6)),
    (lambda x: F.leaky_relu(x), lambda x: np.where(x > 0, x, 0.01 * x)),
    (lambda x: F.leaky_relu(x, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    (F.elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    (F.gelu, lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / np.sqrt(2)))),
    (lambda x: F.gelu(x, approximate=True),
     lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    (F.silu, lambda x: x * _sig(x)),
    (F.softplus, lambda x: np.log1p(np.exp(x))),
    (lambda x: F.softplus(x, beta=2, threshold=1), lambda x: np.where(
        2 * x > 1, x, np.log1p(np.exp(2 * x)) / 2)),
    (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (F.hardsigmoid, lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    (F.swish, lambda x: x * _sig(x)),
    (F.mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (F.sigmoid, _sig),
    (F.tanh, np.tanh),
    (F.hardtanh, lambda x: np.clip(x, -1, 1)),
    (F.log_sigmoid, lambda x: np.log(_sig(x))),
    (F.softsign, lambda x: x / (1 + np.abs(x))),
    (F.tanhshrink, lambda x: x - np.tanh(x)),
    (F.selu, lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))),
    (F.softmax, lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    (lambda x: F.softmax(x, axis=0), lambda x: np.exp(x) / np.exp(x).sum(0, keepdims=True)),
    (F.log_softmax, lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
]


@pytest.mark.parametrize("fn, ref", ACTS, ids=[str(i) for i in range(len(ACTS))])
def test_activation_matches_numpy(fn, ref):
    data = RNG.uniform(-4, 4, (3, 5)).astype("float32")
    out = fn(T(data))
    assert out.dtype == paddle.float32
    close(out, ref(data.astype("float64")).astype("float32"), rtol=2e-5, atol=2e-6)


def test_prelu_shared_and_per_channel():
    x = RNG.uniform(-1, 1, (2, 3, 2)).astype("float32")
    close(F.prelu(T(x), T(np.array([0.25], "float32"))), np.where(x > 0, x, 0.25 * x))
    w = np.array([0.1, 0.2, 0.3], "float32")
    close(F.prelu(T(x), T(w)), np.where(x > 0, x, w[None, :, None] * x))
    xl = np.transpose(x, (0, 2, 1)).copy()
    close(F.prelu(T(xl), T(w), data_format="NLC"), np.where(xl > 0, xl, w * xl))
    with pytest.raises(OpError, match="channels"):
        F.prelu(T(x), T(np.ones(4, "float32")))


def test_softmax_dtype_and_gradient():
    x = T(A, stop_gradient=False)
    y = F.softmax(x, dtype="float64")
    assert y.dtype == paddle.float64
    close(y.sum(axis=-1), np.ones(3))
    (y * T(np.arange(4.0))).sum().backward()
    assert x.grad.dtype == paddle.float32
    close(x.grad.sum(axis=-1), np.zeros(3, "float32"), atol=1e-6)
    assert F.log_softmax(x, dtype="float64").dtype == paddle.float64


def test_inplace_relu_without_grad():
    x = T(A)
    y = F.relu_(x)
    assert y is x
    close(x, np.maximum(A, 0))


def test_large_float32_gelu_uses_fast_erf_accurately():
    data = RNG.uniform(-6, 6, 5000).astype("float32")
    ref = 0.5 * data * (1 + np.vectorize(math.erf)(data.astype("float64") / np.sqrt(2)))
    close(F.gelu(T(data)), ref.astype("float32"), rtol=1e-6, atol=1e-6)


# ------------------------------------------------------------------ double grad
def test_second_order_through_mul_and_div():
    x = T(np.array([1.5, -2.0, 0.5]), stop_gradient=False)
    y = T(np.array([2.0, 3.0, -1.0]), stop_gradient=False)
    z = (x * x * y / y.exp()).sum()
    (gx,) = paddle.grad(z, [x], create_graph=True)
    (gxy,) = paddle.grad(gx.sum(), [y])
    yy = y.numpy()
    close(gxy, 2 * x.numpy() * (1 - yy) * np.exp(-yy))


def test_second_order_of_reciprocal_through_div():
    w = T(np.array([0.5, 2.0]), stop_gradient=False)
    (g,) = paddle.grad((1.0 / w).sum(), [w], create_graph=True)
    (g2,) = paddle.grad(g.sum(), [w])
    close(g2, 2 / w.numpy() ** 3)


# ------------------------------------------------------------------ errors
def test_dtype_mismatch_names_op_and_dtypes():
    with pytest.raises(OpError) as e:
        paddle.add(T(A), T(np.array([1, 2, 3, 4])))
    msg = str(e.value)
    assert "elementwise_add" in msg and "float32" in msg and "int64" in msg


def test_broadcast_mismatch_names_both_shapes():
    with pytest.raises(OpError) as e:
        paddle.multiply(T(A), T(np.ones((2, 4), "float32")))
    msg = str(e.value)
    assert "[3, 4]" in msg and "[2, 4]" in msg
    with pytest.raises(OpError) as e:
        paddle.less_than(T(A), T(np.ones((5,), "float32")))
    assert "[3, 4]" in str(e.value) and "[5]" in str(e.value)


@pytest.mark.parametrize("call", [
    lambda x: paddle.sum(x, axis=2), lambda x: paddle.mean(x, axis=[0, -3]),
    lambda x: paddle.max(x, axis=5), lambda x: paddle.argmax(x, axis=2),
    lambda x: F.softmax(x, axis=2), lambda x: paddle.cumsum(x, axis=4),
    lambda x: paddle.topk(x, 1, axis=3),
])
def test_bad_axis_names_axis_and_rank(call):
    with pytest.raises(OpError) as e:
        call(T(A))
    msg = str(e.value)
    assert "axis" in msg and "rank 2" in msg


def test_bad_arguments():
    with pytest.raises(OpError, match="max"):
        paddle.clip(T(A), 1.0, -1.0)
    with pytest.raises(OpError, match="k=9"):
        paddle.topk(T(A), 9)
    with pytest.raises(OpError, match="int32 or int64"):
        paddle.argmax(T(A), dtype="float32")
    with pytest.raises(OpError, match="no kernel"):
        paddle.exp(T([True, False]))        # Paddle 2.6.2 has no bool exp kernel either
