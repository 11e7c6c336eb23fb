"""``paddle.optimizer.Adamax``: the ``adamax`` op per parameter (accumulators
moment, inf_norm, beta1_pow_acc [1] starting at beta1), then, as Paddle's
``_finish_update``, one ``scale`` op per parameter advancing beta1_pow_acc
(name scope ``adamax``)."""
import numpy as np

from ..dygraph.aliases import write_data
from ..ops import get_op, for_each_pair, update
from .optimizer import Optimizer, _dtype_of

_ADAMAX = get_op("adamax")
_FP16 = np.dtype("float16")
_FP32 = np.dtype("float32")


class Adamax(Optimizer):
    type = "adamax"
    _moment_acc_str = "moment"
    _inf_norm_acc_str = "inf_norm"
    _beta1_pow_acc_str = "beta1_pow_acc"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        for n, v in (("learning_rate", learning_rate), ("beta1", beta1), ("beta2", beta2),
                     ("epsilon", epsilon)):
            if v is None:
                raise ValueError(f"Adamax: {n} is not set")
        if not 0 <= beta1 < 1:
            raise ValueError("Invaild value of beta1, expect beta1 in [0,1).")
        if not 0 <= beta2 < 1:
            raise ValueError("Invaild value of beta2, expect beta2 in [0,1).")
        if not 0 <= epsilon:
            raise ValueError("Invaild value of epsilon, expect epsilon >= 0.")
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _hyper_defaults(self):
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon}

    def _create_accumulators(self, params, hp):
        for p in params:
            dt = _dtype_of(p)
            dt = _FP32 if dt == _FP16 else dt
            self._add_accumulator(self._moment_acc_str, p, dtype=dt)
            self._add_accumulator(self._inf_norm_acc_str, p, dtype=dt)
            self._add_accumulator(self._beta1_pow_acc_str, p, fill_value=hp["beta1"],
                                  shape=[1])

    def _op_attrs(self, hp):
        return {"beta1": float(hp["beta1"]), "beta2": float(hp["beta2"]),
                "epsilon": float(hp["epsilon"]), "multi_precision": False}

    def _append_optimize_op(self, param, grad, lr, attrs):
        accs = self._accumulators
        mom = accs[self._moment_acc_str][param.name]
        inf = accs[self._inf_norm_acc_str][param.name]
        b1p = accs[self._beta1_pow_acc_str][param.name]
        return self._run_update(_ADAMAX, (param, grad, lr, mom, inf, b1p, None), attrs,
                                (param, mom, inf, None))

    def _update(self, params_grads, hp, lr=None):
        super()._update(params_grads, hp, lr)
        pairs = [(p, g) for p, g in params_grads if g is not None and not p.stop_gradient]
        for_each_pair(pairs, lambda p, g: self._finish_one(p, float(hp["beta1"])), "adamax")

    def _finish_one(self, param, beta1):
        acc = self._accumulators[self._beta1_pow_acc_str][param.name]
        out = update("scale", {"X": acc}, acc, {"scale": beta1})
        if out is not acc:           # eagerly: a new tensor, written back
            write_data(acc, out._data)
