"""Op-spec cases: batch_norm, layer_norm, group_norm, instance_norm (with the
double grads of batch_norm and instance_norm)."""
import numpy as np

from .spec import Case, rand


def ref_bn_train(X, Scale, Bias, Mean, Variance, momentum=0.9, eps=1e-5, ax=1):
    axes = tuple(i for i in range(X.ndim) if i != ax)
    shp = [1] * X.ndim
    shp[ax] = -1
    m = X.mean(axis=axes)
    v = X.var(axis=axes)                 # biased, as Paddle normalises and tracks
    y = (X - m.reshape(shp)) / np.sqrt(v.reshape(shp) + eps) * Scale.reshape(shp) \
        + Bias.reshape(shp)
    return y, Mean * momentum + m * (1 - momentum), Variance * momentum + v * (1 - momentum)


def ref_bn_eval(X, Scale, Bias, Mean, Variance, eps=1e-5, ax=1):
    shp = [1] * X.ndim
    shp[ax] = -1
    y = (X - Mean.reshape(shp)) / np.sqrt(Variance.reshape(shp) + eps) * Scale.reshape(shp) \
        + Bias.reshape(shp)
    return y, Mean, Variance


def ref_ln(X, Scale=None, Bias=None, axis=1, eps=1e-5):
    lead = X.shape[:axis]
    x2 = X.reshape(int(np.prod(lead)), -1)
    m = x2.mean(1, keepdims=True)
    v = x2.var(1, keepdims=True)
    y = (x2 - m) / np.sqrt(v + eps)
    if Scale is not None:
        y = y * Scale.reshape(-1)
    if Bias is not None:
        y = y + Bias.reshape(-1)
    return y.reshape(X.shape)


def ref_gn(X, Scale, Bias, groups, eps=1e-5):
    n, c = X.shape[:2]
    x3 = X.reshape(n, groups, -1)
    y = (x3 - x3.mean(2, keepdims=True)) / np.sqrt(x3.var(2, keepdims=True) + eps)
    cs = (1, c) + (1,) * (X.ndim - 2)
    return y.reshape(X.shape) * Scale.reshape(cs) + Bias.reshape(cs)


XB = rand(4, 3, 2, seed=31)
C3 = rand(3, low=0.5, high=1.5, seed=32)
B3 = rand(3, seed=33)
M3 = rand(3, seed=34)
V3 = rand(3, low=0.5, high=2.0, seed=35)
BN = {"X": XB, "Scale": C3, "Bias": B3, "Mean": M3, "Variance": V3}
BN_OUT = ("Y", "MeanOut", "VarianceOut")
XL = rand(2, 3, 4, seed=36)
XG = rand(2, 4, 3, seed=37)
C4 = rand(4, low=0.5, high=1.5, seed=38)
B4 = rand(4, seed=39)

CASES = [
    Case("batch_norm", BN, ref=ref_bn_train, outputs=BN_OUT, id="batch_norm_train",
         order2=True),
    Case("batch_norm", BN, {"is_test": True}, ref=ref_bn_eval, outputs=BN_OUT,
         id="batch_norm_eval", order2=True),
    Case("batch_norm", BN, {"use_global_stats": True}, ref=ref_bn_eval, outputs=BN_OUT,
         id="batch_norm_global_stats", order2=True),
    Case("batch_norm", dict(BN, X=rand(5, 3, seed=40)), {"momentum": 0.8},
         ref=lambda X, Scale, Bias, Mean, Variance: ref_bn_train(X, Scale, Bias, Mean, Variance,
                                                                 momentum=0.8),
         outputs=BN_OUT, id="batch_norm_2d"),
    Case("batch_norm", dict(BN, X=rand(2, 2, 2, 3, seed=41)), {"data_layout": "NHWC"},
         ref=lambda X, Scale, Bias, Mean, Variance: ref_bn_train(X, Scale, Bias, Mean, Variance,
                                                                 ax=3),
         outputs=BN_OUT, id="batch_norm_nhwc", order2=True),
    Case("batch_norm", dict(BN, MomentumTensor=np.array([0.5])), {},
         ref=lambda X, Scale, Bias, Mean, Variance: ref_bn_train(X, Scale, Bias, Mean, Variance,
                                                                 momentum=0.5),
         outputs=BN_OUT, grad=False, id="batch_norm_momentum_tensor"),
    Case("layer_norm", {"X": XL, "Scale": rand(12, seed=42), "Bias": rand(12, seed=43)},
         ref=lambda X, Scale, Bias: ref_ln(X, Scale, Bias)),
    Case("layer_norm", {"X": XL, "Scale": rand(4, seed=44)}, {"begin_norm_axis": 2},
         ref=lambda X, Scale: ref_ln(X, Scale, axis=2), id="layer_norm_axis2_no_bias"),
    Case("layer_norm", {"X": XL}, {"begin_norm_axis": 2, "epsilon": 1e-3},
         ref=lambda X: ref_ln(X, axis=2, eps=1e-3), id="layer_norm_plain"),
    Case("group_norm", {"X": XG, "Scale": C4, "Bias": B4}, {"groups": 2},
         ref=lambda X, Scale, Bias: ref_gn(X, Scale, Bias, 2)),
    Case("group_norm", {"X": XG.transpose(0, 2, 1).copy(), "Scale": C4, "Bias": B4},
         {"groups": 4, "data_layout": "NHWC"},
         ref=lambda X, Scale, Bias: ref_gn(X.transpose(0, 2, 1), Scale, Bias, 4)
         .transpose(0, 2, 1), id="group_norm_nhwc"),
    Case("instance_norm", {"X": XG, "Scale": C4, "Bias": B4},
         ref=lambda X, Scale, Bias: ref_gn(X, Scale, Bias, 4), order2=True),
    Case("instance_norm", {"X": XG}, ref=lambda X: ref_gn(X, np.ones(4), np.zeros(4), 4),
         id="instance_norm_plain", order2=True),
]
