"""Op-spec cases of ops/defs/fused_passes.py (the ops the BuildStrategy passes
write): fused_elemwise_add_activation, fused_gemm_epilogue,
fused_batch_norm_act, fused_bn_add_activation (with finite-difference checks
of their grad ops), and the merged optimizer ops."""
import math

import numpy as np

from .spec import Case, rand
from .cases_nn_norm import ref_bn_train
from .cases_optimizer import _momentum, _adam_ref

_K = math.sqrt(2.0 / math.pi)


def _unary(name, x, scale=0.0):
    if name == "relu":
        return np.maximum(x, 0)
    if name == "tanh":
        return np.tanh(x)
    if name == "scale":
        return x * scale
    return 0.5 * x * (1 + np.tanh(_K * (x + 0.044715 * x ** 3)))      # tanh gelu


def _fea(functors):
    def ref(X, Y, attrs):
        sc = attrs.get("scale", 0.0)
        if functors[1] == "elementwise_add":
            return _unary(functors[0], X + Y, sc), X + Y
        i = _unary(functors[1], Y, sc)
        return X + i, i
    return ref


def _erf(x):
    return np.vectorize(math.erf)(x)


def _gemm(act, tx=False, ty=False):
    def ref(X, Y, Bias):
        x = np.swapaxes(X, -1, -2) if tx else X
        y = Y.T if ty else Y
        pre = x @ y + Bias
        if act == "relu":
            return np.maximum(pre, 0)
        if act == "gelu":
            return 0.5 * pre * (1 + _erf(pre / math.sqrt(2)))
        return pre
    return ref


def _fbn(with_z):
    def ref(X, Scale, Bias, Mean, Variance, Z=None, attrs=None):
        y, m, v = ref_bn_train(X, Scale, Bias, Mean, Variance, ax=X.ndim - 1)
        if with_z:
            y = y + Z
        return np.maximum(y, 0), m, v
    return ref


def _away_from_zero(a, gap=0.05):
    """Values kept off relu's kink (finite differences straddling 0 disagree)."""
    return np.where(np.abs(a) < gap, np.sign(a + 1e-12) * gap, a)


X34 = _away_from_zero(rand(3, 4, seed=501))
Y4 = rand(4, seed=502)
Y34 = rand(3, 4, seed=503)
FEA = [(["relu", "elementwise_add"], {}), (["tanh", "elementwise_add"], {}),
       (["scale", "elementwise_add"], {"scale": 2.5}), (["gelu", "elementwise_add"], {}),
       (["elementwise_add", "relu"], {}), (["elementwise_add", "scale"], {"scale": -1.5})]

XG = rand(5, 3, seed=511)
WG = rand(3, 4, seed=512)
BG = rand(4, seed=513)
XB = rand(4, 3, 3, 3, seed=521)                   # NHWC, 3 channels
SC, BI = rand(3, low=0.5, high=1.5, seed=522), rand(3, seed=523)
MN, VR = rand(3, seed=524), rand(3, low=0.5, high=2.0, seed=525)
ZB = rand(4, 3, 3, 3, seed=526)
BN_IN = {"X": XB, "Scale": SC, "Bias": BI, "Mean": MN, "Variance": VR}
BN_OUT = ("Y", "MeanOut", "VarianceOut")

PS = [rand(2, 3, seed=531), rand(4, seed=532)]
GS = [rand(2, 3, seed=533), rand(4, seed=534)]
VS = [rand(2, 3, seed=535), rand(4, seed=536)]
LR = np.array([0.1], "float64")


def _sgd_merged(Param, LearningRate, Grad):
    return [p - LearningRate[0].item() * g for p, g in zip(Param, Grad)]


def _mom_merged(Param, Grad, Velocity, LearningRate, attrs):
    outs = [_momentum(p, g, v, LearningRate[0], attrs) for p, g, v in zip(Param, Grad, Velocity)]
    return [o[0] for o in outs], [o[1] for o in outs], None


_ADAM = _adam_ref(False)
M1S = [rand(2, 3, seed=541) * 0.1, rand(4, seed=542) * 0.1]
M2S = [rand(2, 3, low=0.01, high=0.2, seed=543), rand(4, low=0.01, high=0.2, seed=544)]
B1S = [np.array([0.9 ** 2]), np.array([0.9 ** 5])]
B2S = [np.array([0.999 ** 2]), np.array([0.999 ** 5])]


def _adam_merged(Param, Grad, LearningRate, Moment1, Moment2, Beta1Pow, Beta2Pow, attrs):
    outs = [_ADAM(Param[k], Grad[k], LearningRate[0], Moment1[k], Moment2[k], Beta1Pow[k],
                  Beta2Pow[k], attrs) for k in range(len(Param))]
    return tuple([o[j] for o in outs] for j in range(5)) + (None,)


CASES = [
    Case("fused_elemwise_add_activation", {"X": X34, "Y": Y34 if fl[1] != "elementwise_add"
                                           else Y4},
         {"functor_list": fl, **extra}, ref=_fea(fl), outputs=("Out", "IntermediateOut"),
         grad_outputs=("Out",), id="fused_elemwise_add_activation_" + "_".join(fl))
    for fl, extra in FEA
] + [
    Case("fused_elemwise_add_activation", {"X": X34, "Y": rand(3, seed=504)},
         {"functor_list": ["relu", "elementwise_add"], "axis": 0},
         ref=lambda X, Y: (np.maximum(X + Y[:, None], 0), X + Y[:, None]),
         outputs=("Out", "IntermediateOut"), grad_outputs=("Out",),
         id="fused_elemwise_add_activation_axis0"),
    Case("fused_gemm_epilogue", {"X": XG, "Y": WG, "Bias": BG}, ref=_gemm("none"),
         outputs=("Out",), grad_outputs=("Out",)),
    Case("fused_gemm_epilogue", {"X": XG, "Y": WG, "Bias": BG}, {"activation": "relu"},
         ref=_gemm("relu"), outputs=("Out",), grad_outputs=("Out",),
         id="fused_gemm_epilogue_relu"),
    Case("fused_gemm_epilogue", {"X": XG, "Y": WG, "Bias": BG}, {"activation": "gelu"},
         ref=_gemm("gelu"), outputs=("Out",), grad_outputs=("Out",),
         id="fused_gemm_epilogue_gelu"),
    Case("fused_gemm_epilogue", {"X": rand(2, 5, 3, seed=514), "Y": WG.T.copy(), "Bias": BG},
         {"trans_y": True, "activation": "relu"}, ref=_gemm("relu", ty=True),
         outputs=("Out",), grad_outputs=("Out",), id="fused_gemm_epilogue_3d_trans_y"),
    Case("fused_batch_norm_act", BN_IN, ref=_fbn(False), outputs=BN_OUT, grad_outputs=("Y",),
         grad=("X", "Scale", "Bias")),
    Case("fused_batch_norm_act", {**BN_IN, "X": rand(6, 3, seed=527)},
         {"momentum": 0.8, "epsilon": 1e-3},
         ref=lambda X, Scale, Bias, Mean, Variance: (
             np.maximum(ref_bn_train(X, Scale, Bias, Mean, Variance, 0.8, 1e-3)[0], 0),
             *ref_bn_train(X, Scale, Bias, Mean, Variance, 0.8, 1e-3)[1:]),
         outputs=BN_OUT, grad_outputs=("Y",), grad=("X", "Scale", "Bias"),
         id="fused_batch_norm_act_2d"),
    Case("fused_bn_add_activation", {**BN_IN, "Z": ZB}, ref=_fbn(True), outputs=BN_OUT,
         grad_outputs=("Y",), grad=("X", "Z", "Scale", "Bias")),
    Case("sampan_merged_sgd", {"Param": PS, "LearningRate": [LR], "Grad": GS},
         ref=_sgd_merged, grad=False),
    Case("merged_momentum", {"Param": PS, "Grad": GS, "Velocity": VS, "LearningRate": [LR]},
         {"mu": 0.9}, ref=_mom_merged, grad=False),
    Case("merged_momentum", {"Param": PS, "Grad": GS, "Velocity": VS, "LearningRate": [LR]},
         {"mu": 0.8, "use_nesterov": True, "regularization_method": ["l2_decay", ""],
          "regularization_coeff": [0.1, 0.0]},
         ref=lambda Param, Grad, Velocity, LearningRate, attrs: (
             [_momentum(Param[0], Grad[0], Velocity[0], LearningRate[0],
                        {**attrs, "regularization_method": "l2_decay",
                         "regularization_coeff": 0.1})[0],
              _momentum(Param[1], Grad[1], Velocity[1], LearningRate[0],
                        {**attrs, "regularization_method": ""})[0]],
             [_momentum(Param[0], Grad[0], Velocity[0], LearningRate[0],
                        {**attrs, "regularization_method": "l2_decay",
                         "regularization_coeff": 0.1})[1],
              _momentum(Param[1], Grad[1], Velocity[1], LearningRate[0],
                        {**attrs, "regularization_method": ""})[1]], None),
         grad=False, id="merged_momentum_nesterov_l2"),
    Case("merged_adam", {"Param": PS, "Grad": GS, "LearningRate": [LR], "Moment1": M1S,
                         "Moment2": M2S, "Beta1Pow": B1S, "Beta2Pow": B2S},
         {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}, ref=_adam_merged, grad=False),
]
