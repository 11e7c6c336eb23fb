"""Op-spec cases: sampan_fc (the fused op of inference/passes.py)."""
import numpy as np

from .spec import Case, rand


def _fc(relu):
    def ref(Input, W, Bias):
        out = np.matmul(Input, W) + Bias
        return np.maximum(out, 0) if relu else out
    return ref


CASES = [
    Case("sampan_fc", {"Input": rand(4, 3, seed=1), "W": rand(3, 5, seed=2),
                       "Bias": rand(5, seed=3)}, ref=_fc(False), grad=False),
    Case("sampan_fc", {"Input": rand(2, 4, 3, seed=4), "W": rand(3, 5, seed=5),
                       "Bias": rand(5, seed=6)}, {"activation_type": "relu"},
         ref=_fc(True), grad=False, id="sampan_fc_relu_3d"),
]
