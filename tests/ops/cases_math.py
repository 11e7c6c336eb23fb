"""Op-spec cases: unary math, activations, softmax, scale, pow, clip, cast, sum,
norms."""
import math

import numpy as np

from .spec import Case, rand, away_from

A = rand(2, 3, seed=21)
B = rand(2, 3, seed=22)
C = rand(2, 3, seed=23)
POS = rand(2, 3, low=0.3, high=2.0, seed=24)
WIDE = rand(3, 4, low=-4.0, high=4.0, seed=25)
NZ = away_from(A, [0], 0.1)          # away from the kink at 0
_erf = np.vectorize(math.erf)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(beta * x)) / beta)


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _unary(name, x, ref, attrs=None, **kw):
    return Case(name, {"X": x}, attrs or {}, ref=lambda X: ref(X), **kw)


CASES = [
    Case("scale", {"X": A}, {"scale": 2.5, "bias": 0.5}, ref=lambda X: X * 2.5 + 0.5),
    Case("scale", {"X": A}, {"scale": 2.5, "bias": 0.5, "bias_after_scale": False},
         ref=lambda X: (X + 0.5) * 2.5, id="scale_bias_before"),
    Case("scale", {"X": A, "ScaleTensor": np.array([3.0])}, {"bias": 1.0},
         ref=lambda X: X * 3.0 + 1.0, id="scale_tensor"),
    Case("scale", {"X": np.array([1, 2, 3], "int64")}, {"scale": 2.0, "bias": 1.0},
         ref=lambda X: X * 2 + 1, grad=False, id="scale_int"),
    # ---------------------------------------------------------------- unary math
    _unary("sign", NZ, np.sign),
    _unary("abs", NZ, np.abs, order2=True),
    _unary("abs", np.array([-3, 0, 2], "int64"), np.abs, grad=False, id="abs_int"),
    _unary("exp", A, np.exp, order3=True),
    _unary("expm1", A, np.expm1),
    _unary("log", POS, np.log, order2=True),
    _unary("log2", POS, np.log2),
    _unary("log10", POS, np.log10),
    _unary("log1p", POS, np.log1p),
    _unary("sqrt", POS, np.sqrt, order2=True),
    _unary("rsqrt", POS, lambda X: 1 / np.sqrt(X), order2=True),
    _unary("square", A, np.square, order2=True),
    _unary("square", np.array([-3, 2], "int32"), np.square, grad=False, id="square_int"),
    _unary("reciprocal", POS, lambda X: 1 / X),
    _unary("floor", away_from(A * 3, [-2, -1, 0, 1, 2]), np.floor),
    _unary("ceil", away_from(A * 3, [-2, -1, 0, 1, 2]), np.ceil),
    _unary("round", np.array([0.5, 1.5, -0.5, -2.5, 2.4, -1.6]), lambda X: np.array(
        [1.0, 2.0, -1.0, -3.0, 2.0, -2.0]), grad=False, id="round_half_away"),
    _unary("round", away_from(A * 3, [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]),
           lambda X: np.sign(X) * np.floor(np.abs(X) + 0.5)),
    _unary("sin", A, np.sin, order3=True),
    _unary("cos", A, np.cos, order3=True),
    _unary("tan", A, np.tan),
    _unary("asin", 0.9 * A, np.arcsin),
    _unary("acos", 0.9 * A, np.arccos),
    _unary("atan", A, np.arctan),
    _unary("sinh", A, np.sinh),
    _unary("cosh", A, np.cosh),
    _unary("erf", WIDE / 2, _erf),
    _unary("erf", rand(10, 10, low=-4, high=4, seed=26).astype("float32"), _erf,
           grad=False, rtol=1e-6, atol=2e-7, id="erf_float32_fast"),
    # ---------------------------------------------------------------- activations
    _unary("relu", NZ, lambda X: np.maximum(X, 0), order2=True),
    _unary("relu6", away_from(WIDE * 2, [0, 6]), lambda X: np.clip(X, 0, 6)),
    _unary("tanh", A, np.tanh, order3=True),
    _unary("sigmoid", WIDE, _sigmoid, order3=True),
    _unary("logsigmoid", WIDE, lambda X: -np.log1p(np.exp(-X))),
    _unary("silu", WIDE, lambda X: X * _sigmoid(X)),
    _unary("leaky_relu", NZ, lambda X: np.where(X > 0, X, 0.02 * X)),
    _unary("leaky_relu", NZ, lambda X: np.where(X > 0, X, 0.1 * X), {"alpha": 0.1},
           id="leaky_relu_alpha", order2=True),
    _unary("elu", NZ, lambda X: np.where(X > 0, X, 0.5 * np.expm1(X)), {"alpha": 0.5},
           order2=True),
    _unary("celu", NZ, lambda X: np.where(X > 0, X, 0.5 * np.expm1(X / 0.5)), {"alpha": 0.5},
           order2=True),
    _unary("selu", NZ, lambda X: 1.0507009873554805 * np.where(
        X > 0, X, 1.6732632423543772 * np.expm1(X))),
    _unary("gelu", WIDE, lambda X: 0.5 * X * (1 + _erf(X / np.sqrt(2)))),
    _unary("gelu", WIDE, lambda X: 0.5 * X * (1 + np.tanh(
        np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3))), {"approximate": True},
           id="gelu_tanh"),
    _unary("softplus", WIDE, _softplus, order2=True),
    _unary("softplus", away_from(WIDE, [0.5], 0.1), lambda X: _softplus(X, 2.0, 1.0),
           {"beta": 2.0, "threshold": 1.0}, id="softplus_threshold", order2=True),
    _unary("swish", WIDE, lambda X: X * _sigmoid(1.5 * X), {"beta": 1.5}),
    _unary("mish", away_from(WIDE, [2.0], 0.1), lambda X: X * np.tanh(_softplus(X, 1.0, 2.0)),
           {"threshold": 2.0}),
    _unary("hard_swish", away_from(WIDE, [-3, 3], 0.1),
           lambda X: X * np.clip(X + 3, 0, 6) / 6),
    _unary("hard_sigmoid", away_from(WIDE * 2, [-2.5, 2.5], 0.1),
           lambda X: np.clip(0.2 * X + 0.5, 0, 1)),
    _unary("brelu", away_from(WIDE, [-1, 2], 0.1), lambda X: np.clip(X, -1, 2),
           {"t_min": -1.0, "t_max": 2.0}),
    _unary("softsign", WIDE, lambda X: X / (1 + np.abs(X))),
    _unary("tanh_shrink", A, lambda X: X - np.tanh(X)),
    _unary("hard_shrink", away_from(WIDE, [-0.5, 0.5], 0.1),
           lambda X: np.where(np.abs(X) > 0.5, X, 0)),
    _unary("softshrink", away_from(WIDE, [-0.5, 0.5], 0.1),
           lambda X: np.where(X > 0.5, X - 0.5, np.where(X < -0.5, X + 0.5, 0))),
    _unary("thresholded_relu", away_from(WIDE, [1.0], 0.1), lambda X: np.where(X > 1, X, 0)),
    _unary("softmax", WIDE, _softmax),
    _unary("softmax", WIDE, lambda X: _softmax(X, 0), {"axis": 0}, id="softmax_axis0"),
    _unary("log_softmax", WIDE, lambda X: np.log(_softmax(X))),
    _unary("log_softmax", rand(2, 3, 2, seed=27), lambda X: np.log(_softmax(X, 1)),
           {"axis": 1}, id="log_softmax_axis1"),
    # ---------------------------------------------------------------- pow, clip, cast
    Case("pow", {"X": POS}, {"factor": 2.5}, ref=lambda X: X ** 2.5, order3=True),
    Case("pow", {"X": NZ}, {"factor": 2.0}, ref=lambda X: X ** 2, order3=True,
         id="pow_square"),
    Case("pow", {"X": POS, "FactorTensor": np.array([3.0], "float32")},
         ref=lambda X: X ** 3, id="pow_factor_tensor", order2=True),
    Case("pow", {"X": np.array([1, 2, 3], "int64")}, {"factor": 2.0},
         ref=lambda X: X ** 2, grad=False, id="pow_int"),
    Case("clip", {"X": away_from(A, [-0.5, 0.4])}, {"min": -0.5, "max": 0.4},
         ref=lambda X: np.clip(X, -0.5, 0.4), order2=True),
    Case("clip", {"X": away_from(A, [-0.3, 0.2]), "Min": np.array([-0.3]),
                  "Max": np.array([0.2])}, {"min": -1.0, "max": 1.0},
         ref=lambda X: np.clip(X, -0.3, 0.2), id="clip_tensors", order2=True),
    Case("clip", {"X": np.array([-5, 0, 7], "int64")}, {"min": -2.0, "max": 3.0},
         ref=lambda X: np.clip(X, -2, 3), grad=False, id="clip_int"),
    Case("cast", {"X": A}, {"in_dtype": 6, "out_dtype": 5}, ref=lambda X: X.astype("float32"),
         eps=1e-3, grad_tol=1e-3),
    Case("cast", {"X": np.array([-1.7, 0.2, 2.9])}, {"in_dtype": 6, "out_dtype": 3},
         ref=lambda X: np.array([-1, 0, 2]), grad=False, id="cast_to_int"),
    Case("cast", {"X": np.array([0, 3, 0], "int32")}, {"in_dtype": 2, "out_dtype": 0},
         ref=lambda X: np.array([False, True, False]), grad=False, id="cast_to_bool"),
    Case("sum", {"X": [A, B, C]}, ref=lambda X: X[0] + X[1] + X[2], order2=True),
    Case("sum", {"X": [np.array([1, 2], "int64")]}, ref=lambda X: X[0], grad=False,
         id="sum_single_int"),
    # ---------------------------------------------------------------- norms
    Case("squared_l2_norm", {"X": A}, ref=lambda X: np.array([np.sum(X * X)])),
    Case("clip_by_norm", {"X": A}, {"max_norm": 0.5},
         ref=lambda X: X * 0.5 / np.sqrt(np.sum(X * X)), grad=False),
    Case("clip_by_norm", {"X": A}, {"max_norm": 50.0}, ref=lambda X: X, grad=False,
         id="clip_by_norm_noop"),
    Case("p_norm", {"X": A}, {"axis": 1}, ref=lambda X: np.sqrt((X * X).sum(1))),
    Case("p_norm", {"X": NZ}, {"porder": 3.0, "axis": 0, "keepdim": True},
         ref=lambda X: (np.abs(X) ** 3).sum(0, keepdims=True) ** (1 / 3), id="p_norm_3"),
    Case("p_norm", {"X": A}, {"porder": float("inf"), "asvector": True},
         ref=lambda X: np.abs(X).max(), id="p_norm_inf"),
    Case("p_norm", {"X": NZ}, {"porder": 1.0, "asvector": True, "keepdim": True},
         ref=lambda X: np.abs(X).sum().reshape(1, 1), id="p_norm_1_vec"),
    # ---------------------------------------------------------------- prelu
    Case("prelu", {"X": NZ, "Alpha": np.array([0.3])},
         ref=lambda X, Alpha: np.where(X > 0, X, 0.3 * X)),
    Case("prelu", {"X": away_from(rand(2, 3, 2, seed=28), [0]), "Alpha": np.array([0.1, 0.2, 0.3])},
         {"mode": "channel"}, id="prelu_channel",
         ref=lambda X, Alpha: np.where(X > 0, X, Alpha[None, :, None] * X)),
    Case("prelu", {"X": away_from(rand(2, 2, 3, seed=29), [0]), "Alpha": np.array([0.1, 0.2, 0.3])},
         {"mode": "channel", "data_format": "NHWC"}, id="prelu_channel_last",
         ref=lambda X, Alpha: np.where(X > 0, X, Alpha * X)),
    Case("prelu", {"X": NZ, "Alpha": rand(3, seed=30)}, {"mode": "element"}, id="prelu_element",
         ref=lambda X, Alpha: np.where(X > 0, X, Alpha[None] * X)),
]
