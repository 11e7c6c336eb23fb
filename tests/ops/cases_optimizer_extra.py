"""Op-spec cases: adamax, adadelta, lamb update ops.  Not differentiable
(grad=False); references are the update formulas written out in numpy."""
import numpy as np

from .spec import Case, rand

P = rand(2, 3, seed=31)
G = rand(2, 3, seed=32)
M = rand(2, 3, seed=33) * 0.1
U = rand(2, 3, low=0.01, high=0.2, seed=34)
LR = np.array(0.1, "float64")
B1P = np.array([0.9 ** 3], "float64")
B2P = np.array([0.999 ** 3], "float64")


def _adamax(Param, Grad, LearningRate, Moment, InfNorm, Beta1Pow, attrs):
    b1, b2, eps = attrs["beta1"], attrs["beta2"], attrs["epsilon"]
    m = b1 * Moment + (1 - b1) * Grad
    u = np.maximum(np.abs(Grad), b2 * InfNorm + eps)
    return Param - LearningRate.item() / (1 - Beta1Pow.item()) * m / u, m, u, None


def _adadelta(Param, Grad, AvgSquaredGrad, AvgSquaredUpdate, LearningRate, attrs):
    rho, eps = attrs["rho"], attrs["epsilon"]
    g2 = rho * AvgSquaredGrad + (1 - rho) * Grad ** 2
    d = -np.sqrt((AvgSquaredUpdate + eps) / (g2 + eps)) * Grad
    u2 = rho * AvgSquaredUpdate + (1 - rho) * d ** 2
    return Param + LearningRate.item() * d, g2, u2, None


def _lamb(Param, Grad, LearningRate, Moment1, Moment2, Beta1Pow, Beta2Pow, attrs):
    b1, b2, eps, wd = attrs["beta1"], attrs["beta2"], attrs["epsilon"], attrs["weight_decay"]
    m1 = b1 * Moment1 + (1 - b1) * Grad
    m2 = b2 * Moment2 + (1 - b2) * Grad ** 2
    r = (m1 / (1 - Beta1Pow.item())) / (np.sqrt(m2 / (1 - Beta2Pow.item())) + eps) + wd * Param
    ratio = 1.0
    if wd != 0 or attrs.get("always_adapt"):
        ratio = np.linalg.norm(Param) / np.linalg.norm(r)
    return (Param - LearningRate.item() * ratio * r, m1, m2, Beta1Pow * b1, Beta2Pow * b2, None)


_LAMB_IN = {"Param": P, "Grad": G, "LearningRate": LR, "Moment1": M, "Moment2": U,
            "Beta1Pow": B1P, "Beta2Pow": B2P}

CASES = [
    Case("adamax", {"Param": P, "Grad": G, "LearningRate": LR, "Moment": M, "InfNorm": U,
                    "Beta1Pow": B1P}, {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
         ref=_adamax, grad=False),
    Case("adamax", {"Param": P, "Grad": G * 0.01, "LearningRate": LR, "Moment": M,
                    "InfNorm": U, "Beta1Pow": B1P}, {"beta1": 0.8, "beta2": 0.9, "epsilon": 0.5},
         ref=_adamax, grad=False, id="adamax_eps_wins"),
    Case("adadelta", {"Param": P, "Grad": G, "AvgSquaredGrad": U, "AvgSquaredUpdate": U * 0.5,
                      "LearningRate": LR}, {"rho": 0.95, "epsilon": 1e-6},
         ref=_adadelta, grad=False),
    Case("adadelta", {"Param": P, "Grad": G, "AvgSquaredGrad": U * 0, "AvgSquaredUpdate": U * 0,
                      "LearningRate": LR}, {"rho": 0.9, "epsilon": 1e-4},
         ref=_adadelta, grad=False, id="adadelta_first_step"),
    Case("lamb", _LAMB_IN, {"weight_decay": 0.01, "beta1": 0.9, "beta2": 0.999,
                            "epsilon": 1e-6}, ref=_lamb, grad=False),
    Case("lamb", _LAMB_IN, {"weight_decay": 0.0, "beta1": 0.9, "beta2": 0.999,
                            "epsilon": 1e-6}, ref=_lamb, grad=False, id="lamb_no_decay"),
    Case("lamb", _LAMB_IN, {"weight_decay": 0.0, "beta1": 0.8, "beta2": 0.99,
                            "epsilon": 1e-6, "always_adapt": True},
         ref=_lamb, grad=False, id="lamb_always_adapt"),
]
