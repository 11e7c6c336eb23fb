"""Op-spec cases: sampan_fused_elementwise (the op of program/passes/
fuse_elementwise.py), against numpy references of the trees it holds; the
kernel runs compiled when numba is present, else the replaced ops' kernels."""
import json
import math

import numpy as np

from .spec import Case, rand


def _expr(steps, align=None):
    body = {"steps": steps}
    if align:
        body["align"] = align
    return {"expr": json.dumps(body)}


def _gelu(x):
    return x * 0.5 * np.vectorize(math.erfc)(-x / math.sqrt(2.0))


CASES = [
    # (x + b) * s, scale, tanh: a chain with broadcasting (b on the last axis, s 0-d)
    Case("sampan_fused_elementwise",
         {"X": [rand(3, 4, seed=1), rand(4, seed=2), np.array(0.7)]},
         _expr([["elementwise_add", {"X": 0, "Y": 1}, {}],
                ["elementwise_mul", {"X": -1, "Y": 2}, {}],
                ["scale", {"X": -2}, {"scale": 2.0, "bias": 0.5}],
                ["tanh", {"X": -3}, {}]]),
         ref=lambda X: np.tanh(((X[0] + X[1]) * X[2]) * 2.0 + 0.5), grad=False,
         id="fused_chain"),
    # a tree: gelu(x + b) * sigmoid(x), summed over the last axis
    Case("sampan_fused_elementwise",
         {"X": [rand(2, 5, seed=3), rand(5, seed=4)]},
         _expr([["elementwise_add", {"X": 0, "Y": 1}, {}],
                ["gelu", {"X": -1}, {}],
                ["sigmoid", {"X": 0}, {}],
                ["elementwise_mul", {"X": -2, "Y": -3}, {}],
                ["reduce_sum", {"X": -4}, {"dim": [-1]}]]),
         ref=lambda X: (_gelu(X[0] + X[1]) * (1 / (1 + np.exp(-X[0])))).sum(-1),
         grad=False, id="fused_tree_reduce_sum"),
    # a conv's bias on axis 1 (Paddle's axis rule: Y aligned by trailing ones), relu
    Case("sampan_fused_elementwise",
         {"X": [rand(2, 3, 4, 4, seed=5), rand(3, seed=6)]},
         _expr([["elementwise_add", {"X": 0, "Y": 1}, {"axis": 1}],
                ["relu", {"X": -1}, {}]], align={"1": 2}),
         ref=lambda X: np.maximum(X[0] + X[1].reshape(3, 1, 1), 0), grad=False,
         id="fused_bias_axis1_relu"),
    Case("sampan_fused_elementwise",
         {"X": [rand(3, 4, seed=7), rand(3, 4, seed=8)]},
         _expr([["elementwise_max", {"X": 0, "Y": 1}, {}],
                ["exp", {"X": -1}, {}],
                ["reduce_max", {"X": -2}, {"dim": [0], "keep_dim": True}]]),
         ref=lambda X: np.exp(np.maximum(X[0], X[1])).max(0, keepdims=True), grad=False,
         id="fused_max_exp_reduce_max"),
]
